"""PyTorch's module paths for classes that taimatsu keeps in another module.

Pickles and ``torch.serialization.safe_globals`` name a class by the module PyTorch defines it in
(``torch.nn.modules.batchnorm.LazyBatchNorm1d``). Where the taimatsu module that holds the class
imports the PyTorch-path module (``lazy.py`` imports ``batchnorm.py``), a plain import back would be
an import cycle, so the PyTorch-path module answers those names through a PEP 562 ``__getattr__``
that imports the holder on first access. The class object is the same one: nothing is copied.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def reexport(module_name: str, holders: dict[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` answering each name of ``holders`` from the sibling module it maps to."""
    package = module_name.rpartition(".")[0]

    def __getattr__(name: str) -> object:
        sibling = holders.get(name)
        if sibling is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{sibling}"), name)

    return __getattr__
