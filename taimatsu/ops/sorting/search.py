"""Searching sorted sequences and sets: searchsorted, bucketize and isin."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._flags import user_stacklevel, warn_once
from ..._tensor.core import Tensor, _wrap
from ..._tensor_arguments import NUMBERS, invalid_combination
from .._dispatch import OUT_EXACT, as_array, result_dtype, scalar_name, takes_out, write_out, xp_for
from .sort import _no_complex_kernel


# ---- searchsorted / bucketize -----------------------------------------------------------------------------
def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False, side=None,
                 sorter=None, out=None) -> Tensor:  # fmt: skip
    if not isinstance(sorted_sequence, Tensor) or not isinstance(input, (Tensor, *NUMBERS)):
        raise TypeError(invalid_combination("searchsorted", (sorted_sequence, input), {}))
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
    if seq.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension"
        )
    scalar = not isinstance(input, Tensor)
    xp = xp_for(sorted_sequence)
    v = xp.asarray(input) if scalar else input._data
    if seq.ndim > 1 and (scalar or seq.shape[:-1] != v.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            f"boundaries tensor and input value tensor must match, but we got boundaries tensor "
            f"{list(seq.shape)} and input value tensor {list(v.shape)}"
        )
    _warn_non_contiguous(sorted_sequence, None if scalar else input, sorter)
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data, -1)
    how = "right" if right else "left"
    if _has_nan(seq) or _has_nan(v):  # NumPy sorts NaN last; PyTorch's search just compares
        r = _binary_search(seq, v, right)
    elif seq.ndim <= 1:
        r = np.searchsorted(seq, v, how)
    else:
        s2, v2 = seq.reshape(-1, seq.shape[-1]), v.reshape(-1, v.shape[-1])
        r = np.stack([np.searchsorted(s, x, how) for s, x in zip(s2, v2)]).reshape(v.shape)
    dt = D.int32 if out_int32 else D.int64
    res = _wrap(xp.asarray(r, dt.np), dt, sorted_sequence._device)
    msg = (
        "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) depending "
        f"on whether out_int32 flag is True, but we got output tensor's dtype {{out}} and out_int32 flag is {bool(out_int32)}"
    )
    return res if out is None else write_out(out, res, "searchsorted", msg)


def _has_nan(a) -> bool:
    return a.dtype.kind == "f" and bool(np.isnan(a).any())


def _binary_search(seq, v, right: bool):
    """PyTorch's CPU search, step by step for every value at once: halve [start, end) while it
    is not empty, moving right where ``!(mid >= value)`` (``!(mid > value)`` for ``right``).
    With NaN in the boundaries or the values, comparisons are false and the search moves right,
    where NumPy's treats NaN as the largest number. ``seq``: 1-d, or rows matching ``v``'s."""
    v = np.asarray(v)
    rows = seq.reshape(-1, seq.shape[-1])
    vals = v.reshape(1, -1) if seq.ndim == 1 else v.reshape(rows.shape[0], -1)
    start = np.zeros(vals.shape, np.int64)
    end = np.full(vals.shape, rows.shape[1], np.int64)
    row = np.arange(rows.shape[0])[:, None]
    with np.errstate(invalid="ignore"):
        while True:
            live = start < end
            if not live.any():
                break
            mid = start + ((end - start) >> 1)
            at = rows[row, np.minimum(mid, rows.shape[1] - 1)]
            go_right = ~(at > vals) if right else ~(at >= vals)
            start = np.where(live & go_right, mid + 1, start)
            end = np.where(live & ~go_right, mid, end)
    return start.reshape(v.shape)


def bucketize(
    input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out=None
) -> Tensor:
    if not isinstance(input, (Tensor, *NUMBERS)) or not isinstance(boundaries, Tensor):
        raise TypeError(invalid_combination("bucketize", (input, boundaries), {}))
    if boundaries._data.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


_COPY_WARNING = (
    "torch.searchsorted(): {0} tensor is non-contiguous, this will lower the performance due to extra data copy "
    "when converting non-contiguous tensor to contiguous, please use contiguous {0} tensor if possible. This "
    "message will only appear once per program. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BucketizationUtils.h:{1}.)"
)


def _warn_non_contiguous(boundaries: Tensor, input, sorter) -> None:
    """PyTorch's kernel copies non-contiguous operands and says so, once per program each, on
    the user's line."""
    stacklevel = user_stacklevel() + 1  # (warn_once's frame)
    for name, t, line in (
        ("input value", input, 32),
        ("boundary", boundaries, 38),
        ("sorter", sorter, 44),
    ):
        if t is not None and not t.is_contiguous():
            warn_once(f"searchsorted_{name}", _COPY_WARNING.format(name, line), stacklevel)


# ---- isin ----------------------------------------------------------------------------------------------
_ISIN_SIGNATURES = (
    " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
    " * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
    " * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
)


def _isin_checked_dtype(x) -> None:
    # A Python number is wrapped as a double-precision tensor here, not the default dtype.
    dt = (
        x._dtype
        if isinstance(x, Tensor)
        else D.complex128
        if isinstance(x, complex)
        else D.scalar_dtype(x)
    )
    if dt is D.bool or dt.category == D.COMPLEX:
        raise RuntimeError(f"Unsupported input type encountered for isin(): {scalar_name(dt)}")


def _isin_array(x, dtype: D.dtype):
    a = np.asarray(as_array(x.cpu() if isinstance(x, Tensor) else x, dtype), dtype=dtype.np)
    # NumPy's set routines want a native float type; a widening cast keeps equality exact.
    return a.astype(np.float32) if dtype.category == D.FLOAT and dtype.itemsize < 4 else a


@takes_out("isin", OUT_EXACT)
def isin(elements=None, test_elements=None, *, assume_unique: bool = False, invert: bool = False,
         element=None, test_element=None) -> Tensor:  # fmt: skip
    """``elements`` membership in ``test_elements`` under PyTorch's type promotion (NaN is never in).

    ``element=`` / ``test_element=`` are the keyword names of PyTorch's scalar overloads."""
    elements = element if elements is None else elements
    test_elements = test_element if test_elements is None else test_elements
    pair = (elements, test_elements)
    if not (
        (isinstance(elements, Tensor) or isinstance(test_elements, Tensor))
        and all(isinstance(v, (Tensor, *NUMBERS)) for v in pair)
    ):
        raise TypeError(invalid_combination("isin", pair, {}) + "\n" + _ISIN_SIGNATURES)
    _isin_checked_dtype(elements)
    _isin_checked_dtype(test_elements)
    dtype = result_dtype(elements, test_elements)
    ref = elements if isinstance(elements, Tensor) else test_elements
    a, b = _isin_array(elements, dtype), _isin_array(test_elements, dtype)
    hit = np.isin(a, b.reshape(-1), assume_unique=False, invert=invert)
    xp = xp_for(ref)
    return _wrap(xp.asarray(np.asarray(hit, dtype=np.bool_)), D.bool, ref._device)
