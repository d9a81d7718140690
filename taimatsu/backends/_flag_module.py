"""Modules whose attributes are checked switches, as PyTorch's ``torch.backends.*`` are.

``torch.backends.cudnn.benchmark = 1`` raises PyTorch's RuntimeError rather than storing an int;
each backend module swaps its class for a ``FlagModule`` subclass that lists its bool flags.
"""

from __future__ import annotations

import contextlib
import types


class FlagModule(types.ModuleType):
    """A module whose names in ``_bool_flags`` (name -> PyTorch's setter name) accept only bools."""

    _bool_flags: dict = {}  # noqa: RUF012

    def __setattr__(self, name: str, value) -> None:
        setter = self._bool_flags.get(name)
        if setter is not None and not isinstance(value, bool):
            raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")
        super().__setattr__(name, value)


@contextlib.contextmanager
def set_flags(module: types.ModuleType, **values):
    """Set ``module``'s flags (in the order given) for a ``with`` block, then restore them."""
    old = {name: getattr(module, name) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in old.items():
            setattr(module, name, value)
