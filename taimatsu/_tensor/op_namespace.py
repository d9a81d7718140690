"""How Tensor methods reach the ops: one namespace over the modules of ``taimatsu.ops`` and
``taimatsu.linalg``.

The op modules import ``Tensor``, so ``Tensor``'s methods cannot import them at the top of their
files; ``_tensor/methods.py`` builds this namespace once ``Tensor`` exists (``_bind()``), and
every method delegates through it (``_ops.add(self, other)``). A name is taken from the module
that defines it; a few names are defined by two families with different meanings, and
``_PREFERRED`` says which one a Tensor method means (otherwise ``ops`` wins over ``linalg``:
``Tensor.diagonal`` is ``torch.diagonal``, not ``torch.linalg.diagonal``).
"""

from __future__ import annotations

import importlib
import pkgutil
import types

# name -> the module whose definition Tensor methods use (the other one is a torch.* function)
_PREFERRED = {
    "fill": "taimatsu.ops.indexing.fill_copy",
}


def op_namespace() -> types.SimpleNamespace:
    from .. import linalg, ops

    defined: dict[str, list] = {}
    imported: dict[str, object] = {}
    names = [
        info.name
        for package in (linalg, ops)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    ]
    for module in map(importlib.import_module, names):
        for name, value in vars(module).items():
            if name.startswith("__") or isinstance(value, types.ModuleType):
                continue
            if getattr(value, "__module__", None) == module.__name__ or not callable(value):
                defined.setdefault(name, []).append((module.__name__, value))
            else:
                imported.setdefault(name, value)
    ns = dict(imported)
    for name, found in defined.items():
        values = {id(v): (m, v) for m, v in found}
        if len(values) > 1 and name in _PREFERRED:
            found = [(m, v) for m, v in found if m == _PREFERRED[name]]
        ns[name] = found[-1][1]
    return types.SimpleNamespace(**ns)
