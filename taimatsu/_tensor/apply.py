"""``Tensor.apply_``, ``map_`` and ``map2_``: a Python callable run on each element, in place.

As in PyTorch: CPU tensors only (meta tensors are returned untouched), never on a tensor that
requires grad, the elements handed over as Python scalars (float, int, bool or complex, by the
tensor's dtype) in row-major order of the indices, ``map_``'s and ``map2_``'s other tensors of
the same dtype and broadcast to ``self``'s shape. Results are converted as PyTorch converts a
Python number for a tensor element: to a real number for floating dtypes ("must be real number,
not str"), to an integer for integer and bool dtypes (floats truncated, then range-checked:
"value cannot be converted to type int8 without overflow"; an unsigned type also takes negatives
down to minus its maximum, wrapped). The version counter is not bumped (PyTorch's is not either).
What differs: the results are written once all calls have returned, so a callable that raises
leaves the tensor unchanged (PyTorch has written the elements before it).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .. import _dtype as D


def apply_(self, callable):
    _check(self, "apply_")
    return _run(self, callable, ())


def map_(self, tensor, callable):
    others = _others(self, "map_", (("other", tensor),))
    _check(self, "map_", others)
    return _run(self, callable, others)


def map2_(self, x, y, callable):
    others = _others(self, "map2_", (("x", x), ("y", y)))
    _check(self, "map2_", others)
    return _run(self, callable, others)


def _others(self, name: str, named) -> tuple:
    from .core import Tensor

    out = []
    for position, (arg, t) in enumerate(named, 1):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
                f"{type(t).__name__}"
            )
        if t._dtype is not self._dtype or t._device != self._device:
            raise TypeError(f"{name}: expected {self.type()} for '{arg}' (got {t.type()})")
        out.append(t)
    return tuple(out)


def _check(self, name: str, others=()) -> None:
    if self._rg or any(t._rg for t in others):
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead."
        )
    if self._device.type not in ("cpu", "meta"):
        raise TypeError(f"{name} is only implemented on CPU tensors")


def _run(self, fn, others):
    if self._device.type == "meta" or self._data.size == 0:
        return self
    arrays = [t.expand(self.shape)._data for t in others]  # expand's errors
    convert = _converter(self._dtype)
    flat = [a.reshape(-1).tolist() for a in (self._data, *arrays)]
    results = [convert(fn(*values)) for values in zip(*flat)]
    with np.errstate(over="ignore"):  # a float too large for the dtype is inf, silently
        self._data[...] = np.array(results, self._dtype.np).reshape(self._data.shape)
    return self


def _converter(dtype):
    if dtype is D.bool:
        return lambda r: _integer(r, None) != 0
    if dtype.category == D.COMPLEX:
        return lambda r: complex(r) if isinstance(r, complex) else _real(r)
    if dtype.category == D.FLOAT:
        return _real
    info = np.iinfo(dtype.np)
    return lambda r: _integer(r, dtype, info)


def _real(r) -> float:
    t = type(r)
    if not (hasattr(t, "__float__") or hasattr(t, "__index__")):
        raise TypeError(f"must be real number, not {t.__name__}")
    return float(r)


def _integer(r, dtype, info=None) -> int:
    t = type(r)
    if hasattr(t, "__float__") and not hasattr(t, "__index__"):  # a float: truncated
        f = float(r)
        if not math.isfinite(f):
            raise _overflow(dtype)
        v = int(f)
    else:
        v = operator.index(r)
        if not -(1 << 63) <= v < 1 << 63:
            raise ValueError("Overflow when unpacking long long")
    if info is None:
        return v
    lowest = -info.max if info.min == 0 else info.min  # unsigned: negatives wrap
    if not lowest <= v <= info.max:
        raise _overflow(dtype)
    return v % (info.max + 1) if v < 0 and info.min == 0 else v


def _overflow(dtype) -> RuntimeError:
    name = "bool" if dtype is None else dtype.name
    return RuntimeError(f"value cannot be converted to type {name} without overflow")
