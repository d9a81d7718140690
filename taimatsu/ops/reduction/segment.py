"""torch.segment_reduce: reduce consecutive runs (segments) of ``data`` along axis 0.

Segments are given by ``lengths`` (or ``offsets``, 1-D). ``initial`` takes part in every
segment's reduction (mean divides by the segment length only, as PyTorch does); an empty
segment without ``initial`` is 0 (sum), NaN (mean), -inf (max), inf (min) or 1 (prod).
The backward is written in Tensor ops, so it is differentiable again: max/min share the
gradient evenly among tied elements, prod handles zeros like PyTorch (a single zero gets the
product of the others).
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor
from ...autograd.grad_mode import no_grad
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import record, scalar_name

_EMPTY = {"sum": 0.0, "mean": float("nan"), "max": -float("inf"), "min": float("inf"), "prod": 1.0}
_ALIASES = {"amax": "max", "amin": "min"}


def _lengths_of(lengths, offsets, axis: int) -> Tensor:
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    seg = lengths if lengths is not None else offsets
    kind = "lengths" if lengths is not None else "offsets"
    if seg._dtype not in (D.int32, D.int64):
        raise NotImplementedError(
            f"\"_segment_reduce_{kind}_cpu_kernel1\" not implemented for '{scalar_name(seg._dtype)}'"
        )
    if axis != seg.dim() - 1:
        raise RuntimeError(
            f"segment_reduce(): Expected axis to be the last dimension of {kind} but got {axis}."
        )
    if seg.dim() != 1:
        raise NotImplementedError(
            "segment_reduce: only 1-D lengths/offsets are supported by taimatsu"
        )
    seg = seg.to(D.int64)
    return seg if lengths is not None else seg[1:] - seg[:-1]


def _spread(idx: Tensor, data: Tensor) -> Tensor:
    return idx.reshape([-1] + [1] * (data.dim() - 1)).expand(data.shape)


def _segment_forward(data, seg, n, reduce, initial):
    from ..creation.factories import full
    from ..indexing.scatter import scatter_reduce

    shape = (n,) + tuple(data.shape[1:])
    if reduce == "mean":
        total = _segment_forward(data, seg, n, "sum", initial)
        count = _rows(seg, n, data).to(data.dtype)
        empty = initial if initial is not None else float("nan")
        return (total / count.clamp(min=1)).where(count > 0, total.new_full((), empty))
    base = full(
        shape, _EMPTY[reduce] if initial is None else initial, dtype=data.dtype, device=data.device
    )
    red = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    return scatter_reduce(base, 0, _spread(seg, data), data, red, include_self=True)


def _rows(seg: Tensor, n: int, data: Tensor) -> Tensor:
    """Elements per segment, shaped to broadcast against a segment-shaped result."""
    counts = seg.new_zeros(n).index_add(0, seg, seg.new_ones(seg.shape))
    return counts.reshape([-1] + [1] * (data.dim() - 1))


def _segment_vjp(node, g):
    (data,) = node.saved()
    seg, n, reduce, initial, out = node.seg, node.n, node.reduce, node.initial, node.result
    rows = g.index_select(0, seg)
    if reduce == "sum":
        return (rows,)
    if reduce == "mean":
        return (rows / _rows(seg, n, data).to(g.dtype).index_select(0, seg),)
    picked = out.index_select(0, seg)
    if reduce in ("max", "min"):
        mask = (data == picked).to(g.dtype)
        ties = mask.new_zeros(out.shape).index_add(0, seg, mask).index_select(0, seg)
        return (rows * mask / ties.clamp(min=1),)
    zero = data == 0
    safe = data.where(~zero, data.new_ones(()))
    # The product of a segment's non-zero factors (and initial), recomputed from data so that
    # double backward sees its dependence on it.
    others = _segment_forward(safe, seg, n, "prod", initial).index_select(0, seg)
    zeros = (
        zero.to(g.dtype)
        .new_zeros(out.shape)
        .index_add(0, seg, zero.to(g.dtype))
        .index_select(0, seg)
    )
    alone = (zeros == 1).to(g.dtype)
    return ((rows * others * alone).where(zero, rows * others / safe * (zeros == 0).to(g.dtype)),)


_SegmentReduce = node_class("SegmentReduceBackward0", _segment_vjp)


def segment_reduce(data: Tensor, reduce: str, *, lengths=None, indices=None, offsets=None, axis: int = 0,
                   unsafe: bool = False, initial=None) -> Tensor:  # fmt: skip
    """Reduce ``data``'s segments (``reduce``: 'sum', 'mean', 'max'/'amax', 'min'/'amin', 'prod')."""
    reduce = _ALIASES.get(reduce, reduce)
    if reduce not in _EMPTY:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    length = _lengths_of(lengths, offsets, axis)
    if data._dtype.category != D.FLOAT:
        raise NotImplementedError(
            f"\"_segment_reduce_cpu\" not implemented for '{scalar_name(data._dtype)}'"
        )
    counts = np.asarray(length.cpu()._data)
    if (counts < 0).any():
        raise RuntimeError("lengths contains negative value!")
    if not unsafe and int(counts.sum()) != (data.shape[0] if data.dim() else 1):
        raise RuntimeError(
            "segment_reduce(): Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) "
            "when !unsafe."
        )
    from ...linalg.legacy import _no_forward_ad
    from ..creation.ranges import arange

    _no_forward_ad("segment_reduce", data)
    n = int(counts.size)
    seg = arange(n, device=data.device).repeat_interleave(length)
    with no_grad():
        out = _segment_forward(data.detach(), seg, n, reduce, initial)
    if _gm.enabled and data._rg:
        record(
            _SegmentReduce,
            (data,),
            out,
            (data,),
            seg=seg,
            n=n,
            reduce=reduce,
            initial=initial,
            result=out.detach(),
        )
    return out
