"""Unbuffered scatter-accumulation (``ufunc.at``) on NumPy and CuPy arrays alike.

NumPy's ``add.at`` / ``multiply.at`` take every dtype. CuPy's ufuncs have ``at`` only for add,
maximum and minimum, and its ``add.at`` only for int32, int64, uint32, uint64, float16,
float32 and float64 (seen with CuPy 14.2 on an H200). Here the other cases are computed from
what CuPy has, with NumPy's results: complex as its real and imaginary parts, the narrow
integer and bool dtypes in int64 and cast back (the sum then wraps as adding in the dtype
does; a bool sum is True where any is), products in rounds of one contribution per element.
"""

from __future__ import annotations

import numpy as np

_CUPY_ADD_AT = frozenset(
    "iIlLqQefd"
)  # the dtype chars CuPy's add.at takes (32/64-bit ints, floats)


def add_at(xp, out, key, vals) -> None:
    """``add.at(out, key, vals)``: ``vals`` added into ``out[key]``, repeated indices adding."""
    if xp is np or out.dtype.char in _CUPY_ADD_AT:
        xp.add.at(out, key, vals)
        return
    vals = xp.asarray(vals)
    if out.dtype.kind == "c":
        xp.add.at(out.real, key, vals.real)
        xp.add.at(out.imag, key, vals.imag)
        return
    wide = out.astype(np.int64)
    xp.add.at(wide, key, vals.astype(np.int64))
    out[...] = wide != 0 if out.dtype == np.bool_ else wide.astype(out.dtype)


def multiply_at(xp, out, key, vals) -> None:
    """``multiply.at(out, key, vals)``; on CuPy, whose multiply has no ``at``: the contributions
    to each element in index order (a stable sort by target), in rounds of one per element
    (the k-th contribution of every element in round k), as NumPy applies them."""
    if xp is np:
        np.multiply.at(out, key, vals)
        return
    key = key if isinstance(key, tuple) else (key,)
    target = xp.ravel_multi_index(tuple(xp.broadcast_arrays(*key)), out.shape).reshape(-1)
    v = xp.broadcast_to(xp.asarray(vals), target.shape if xp.ndim(vals) == 0 else vals.shape)
    v = v.reshape(-1)
    order = xp.argsort(target, kind="stable")
    target, v = target[order], v[order]
    rank = xp.arange(target.size) - xp.searchsorted(target, target, side="left")
    if not out.flags.c_contiguous:
        raise ValueError("multiply_at writes through a flat view: out must be C-contiguous")
    flat = out.reshape(-1)
    for k in range(int(rank.max()) + 1 if target.size else 0):
        at = xp.nonzero(rank == k)[0]
        flat[target[at]] *= v[at]
