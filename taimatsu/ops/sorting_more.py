"""Sorting ops, continued: unique/unique_consecutive, searchsorted/bucketize, histc and bincount.

Split out of ``sorting.py`` (house size limit), which re-exports every name defined here, so
``ops.sorting.<name>`` still reaches them.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import _wrapdim
from ..autograd.grad_mode import state as _gm
from ._dispatch import Tensor, _wrap, node_class, record, write_out
from .sorting import _no_complex_kernel


# ---- unique ----------------------------------------------------------------------------------------------
def _unique_vjp(node, g):
    raise NotImplementedError(f"the derivative for '{node.op}' is not implemented.")


_Unique2 = node_class("Unique2Backward0", _unique_vjp)
_UniqueDim = node_class("UniqueDimBackward0", _unique_vjp)
_UniqueConsecutive = node_class("UniqueConsecutiveBackward0", _unique_vjp)


def _unique_out(input, out, inverse, counts, return_inverse, return_counts, node, op):
    dev = input._device
    u = _wrap(np.ascontiguousarray(out), input._dtype, dev)
    if input._rg and _gm.enabled:
        record(node, (input,), u, (), op=op)
    res = [u]
    if return_inverse:
        res.append(_wrap(np.asarray(inverse, np.int64), D.int64, dev))
    if return_counts:
        res.append(_wrap(np.asarray(counts, np.int64), D.int64, dev))
    return res[0] if len(res) == 1 else tuple(res)


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim=None,
):
    """``torch.unique``: the result is sorted whatever ``sorted`` says (as PyTorch's CPU kernel)."""
    _no_complex_kernel("unique" if dim is None else "unique_dim", input)
    a = input._data
    if dim is None:
        u, inv, cnt = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        return _unique_out(
            input, u, inv.reshape(a.shape), cnt, return_inverse, return_counts, _Unique2, "_unique2"
        )
    d = _wrapdim(dim, a.ndim)
    if a.shape[d] == 0 or a.size == 0:
        u, inv, cnt = a.copy(), np.zeros(a.shape[d], np.int64), np.zeros(0, np.int64)
    else:
        u, inv, cnt = np.unique(a, axis=d, return_inverse=True, return_counts=True)
    return _unique_out(
        input, u, inv.reshape(-1), cnt, return_inverse, return_counts, _UniqueDim, "unique_dim"
    )


def unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None
):
    _no_complex_kernel("unique" if dim is None else "unique_dim", input)
    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        new = np.ones(flat.shape, bool)
        new[1:] = flat[1:] != flat[:-1]
        u, shape = flat[new], a.shape
    else:
        d = _wrapdim(dim, a.ndim)
        m = np.moveaxis(a, d, 0).reshape(a.shape[d], -1)
        new = np.ones(a.shape[d], bool)
        new[1:] = (m[1:] != m[:-1]).any(1)
        u, shape = np.compress(new, a, axis=d), (a.shape[d],)
    inv = (np.cumsum(new) - 1).reshape(shape)
    cnt = np.diff(np.append(np.nonzero(new)[0], new.size))
    return _unique_out(
        input, u, inv, cnt, return_inverse, return_counts, _UniqueConsecutive, "unique_consecutive"
    )


# ---- searchsorted / bucketize -----------------------------------------------------------------------------
def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False, side=None,
                 sorter=None, out=None) -> Tensor:  # fmt: skip
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True"
            )
        right = side == "right"
    _no_complex_kernel("searchsorted_out_cpu", sorted_sequence)
    _no_complex_kernel("searchsorted_out_cpu", input)
    seq = sorted_sequence._data
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data, -1)
    scalar = not isinstance(input, Tensor)
    v = np.asarray(input) if scalar else input._data
    how = "right" if right else "left"
    if seq.ndim <= 1:
        r = np.searchsorted(seq, v, how)
    else:
        if scalar or seq.shape[:-1] != v.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                f"boundaries tensor and input value tensor must match, but we got boundaries tensor "
                f"{list(seq.shape)} and input value tensor {list(v.shape)}"
            )
        s2, v2 = seq.reshape(-1, seq.shape[-1]), v.reshape(-1, v.shape[-1])
        r = np.stack([np.searchsorted(s, x, how) for s, x in zip(s2, v2)]).reshape(v.shape)
    dt = D.int32 if out_int32 else D.int64
    res = _wrap(np.asarray(r, dt.np), dt, sorted_sequence._device)
    msg = ("torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) depending "
           f"on whether out_int32 flag is True, but we got output tensor's dtype {{out}} and out_int32 flag is {bool(out_int32)}")
    return res if out is None else write_out(out, res, "searchsorted", msg)


def bucketize(
    input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out=None
) -> Tensor:
    if boundaries._data.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


# ---- histc / bincount ----------------------------------------------------------------------------------------
def histc(input: Tensor, bins: int = 100, min=0, max=0, *, out=None) -> Tensor:
    """Equal-width bins over [min, max] (the data's range when min == max); the last bin is closed."""
    from .._dtype import FLOAT

    if input._dtype.category == D.COMPLEX and min == max and input._data.size:
        _no_complex_kernel("aminmax_cpu", input)  # the range comes from aminmax first
    if input._dtype.category != FLOAT:
        from ._dispatch import scalar_name

        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{scalar_name(input._dtype)}'"
        )
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    a = input._data
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc(): max must be larger than min, but got min {lo} max {hi}")
    flat = a.reshape(-1).astype(np.float64)
    flat = flat[(flat >= lo) & (flat <= hi)]
    pos = ((flat - lo) * bins / (hi - lo)).astype(np.int64)
    pos[pos == bins] = bins - 1
    r = np.bincount(pos, minlength=bins)[:bins].astype(a.dtype)
    res = _wrap(r, input._dtype, input._device)
    msg = "torch.histogram: input tensor and hist tensor should have the same dtype, but got input {res_cpp} and hist {out_cpp}"
    return res if out is None else write_out(out, res, "histc", msg, grad="inputs")


def bincount(input: Tensor, weights=None, minlength: int = 0) -> Tensor:
    a = input._data
    if input._dtype.category != D.INT or input._dtype is D.bool:
        from ._dispatch import scalar_name

        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{scalar_name(input._dtype)}'"
        )
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _wrap(np.bincount(a, minlength=minlength).astype(np.int64), D.int64, input._device)
    w = weights._data
    if w.ndim != 1 or w.shape[0] != a.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dt = weights._dtype if weights._dtype in (D.float32, D.float64) else D.float64
    r = np.bincount(a, weights=w.astype(np.float64), minlength=minlength)
    return _wrap(r.astype(dt.np), dt, input._device)
