"""Unbuffered scatter-accumulation (``ufunc.at``) on NumPy and CuPy arrays alike.

NumPy's ``add.at`` / ``multiply.at`` / ``maximum.at`` / ``minimum.at`` take every dtype. CuPy's
ufuncs have ``at`` only for add, maximum and minimum, its ``add.at`` only for 32/64-bit integers
and float16/32/64, its ``maximum.at`` / ``minimum.at`` not for float16 either (CuPy 14.2; seen on
an H200, and read in its source). The other cases run here in rounds: the contributions to each
element sorted stably by target (so in index order), the k-th contribution of every element in
round k, each round one plain ``out[t] = op(out[t], v)`` on distinct targets: NumPy's results,
its roundings (one per contribution) and integer wrap-around included.
"""

from __future__ import annotations

import numpy as np

# the dtype chars CuPy's ufunc.at takes, per ufunc
_CUPY_AT = {"add": frozenset("iIlLqQefd"), "maximum": frozenset("iIlLqQfd"),
            "minimum": frozenset("iIlLqQfd")}  # fmt: skip


def ufunc_at(xp, ufunc, out, key, vals) -> None:
    """``ufunc.at(out, key, vals)`` (``ufunc``: ``xp.add``, ``xp.multiply``, ``xp.maximum`` or
    ``xp.minimum``): ``vals`` combined into ``out[key]``, repeated indices each applied."""
    if xp is np or out.dtype.char in _CUPY_AT.get(ufunc.__name__, ()):
        ufunc.at(out, key, vals)
    else:
        _in_rounds(xp, ufunc, out, key, vals)


def add_at(xp, out, key, vals) -> None:
    """``add.at(out, key, vals)``: ``vals`` added into ``out[key]``, repeated indices adding."""
    ufunc_at(xp, xp.add, out, key, vals)


# Elements per slice from which add_along adds whole slices in rounds: below it add.at's
# element loop costs less than a round's NumPy calls ((10, 3) rows, 100 indices: 3.9 us by add.at,
# 60 in rounds; (256, 256), 256 indices: 402 against 49).
_ROUND_SLICE = 32


def add_along(xp, out, dim: int, index, vals) -> None:
    """``add_at(xp, out, (slice(None),) * dim + (index,), vals)`` for a 1-d int64 ``index`` of
    positions in ``[0, out.shape[dim])`` (index_add's sum): on NumPy, slices of
    ``_ROUND_SLICE`` elements or more are added whole, in rounds (the k-th use of each index in
    round k), so every element takes its contributions one at a time in index order, as
    add.at adds them: the same sums, 4-8x faster than add.at's element loop."""
    key = (slice(None),) * dim + (index,)
    if xp is not np or index.size < 2 or out.size < _ROUND_SLICE * out.shape[dim]:
        add_at(xp, out, key, vals)
        return
    order = np.argsort(index, kind="stable")
    ranked = index[order]
    rank = np.arange(index.size) - np.searchsorted(ranked, ranked, side="left")
    rounds = int(rank.max()) + 1
    if rounds == 1:  # distinct indices: one round in the given order
        out[key] += vals
        return
    lead = (slice(None),) * dim
    for k in range(rounds):
        used = order[rank == k]
        out[lead + (index[used],)] += vals[lead + (used,)]


def _in_rounds(xp, ufunc, out, key, vals) -> None:
    if not out.flags.c_contiguous:
        raise ValueError("scatter_at writes through a flat view: out must be C-contiguous")
    # each selected element's flat position, by the key's own indexing rules (slices, masks,
    # broadcasting), and its value
    pos = xp.arange(out.size).reshape(out.shape)[key]
    target = pos.reshape(-1)
    v = xp.broadcast_to(xp.asarray(vals, out.dtype), pos.shape).reshape(-1)
    order = xp.argsort(target, kind="stable")
    target, v = target[order], v[order]
    rank = xp.arange(target.size) - xp.searchsorted(target, target, side="left")
    flat = out.reshape(-1)
    for k in range(int(rank.max()) + 1 if target.size else 0):
        at = xp.nonzero(rank == k)[0]
        t = target[at]
        flat[t] = ufunc(flat[t], v[at])
