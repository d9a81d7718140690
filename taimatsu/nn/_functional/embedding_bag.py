"""``F.embedding_bag``: sums, means or maxes of embedding rows per bag, without the per-token
intermediate ``(B, N, D)`` tensor being kept by the caller.

The bags are laid out on the host (offsets are small), then one ``index_select`` gathers the rows
and one ``index_add`` / ``scatter_reduce`` reduces them. The result's grad_fn is PyTorch's
EmbeddingBagBackward0 (edges to ``weight`` and ``per_sample_weights``), whose VJP is written in
Tensor ops; ``sparse=True`` gives ``weight`` a sparse gradient. ``scale_grad_by_freq`` is accepted
and ignored. As in PyTorch, those gradients cannot be differentiated again: under ``create_graph``
they get grad_fns (EmbeddingBagBackwardBackward0, NotImplemented) whose backward raises PyTorch's error.
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor
from ...autograd.grad_mode import no_grad
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...ops._dispatch import record


def embedding_bag(
    input: Tensor, weight: Tensor, offsets=None, max_norm=None, norm_type: float = 2, scale_grad_by_freq: bool = False,
    mode: str = "mean", sparse: bool = False, per_sample_weights=None, include_last_offset: bool = False,
    padding_idx=None,
) -> Tensor:  # fmt: skip
    from ...ops.nn import embedding as _embedding

    if weight.dtype is D.int64 and input.is_floating_point():
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, ...)` "
            "is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must have "
            f"the same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    n = input.numel()
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
                f"sequences. However, found offsets of type {_torch_type_str(offsets)}"
            )
        off = np.arange(input.size(0), dtype=np.int64) * input.size(1)
        include_last_offset = False
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        off = np.asarray(offsets.tolist(), dtype=np.int64)
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    flat = input.reshape(-1)
    if max_norm is not None:
        with no_grad():
            _embedding.embedding_renorm_(weight, flat.contiguous(), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )
    _check_indices(input, offsets, off, n)
    return reduce_bags(weight, flat, off, mode, sparse, per_sample_weights, include_last_offset,
                       padding_idx)[0]  # fmt: skip


def reduce_bags(
    weight: Tensor, flat: Tensor, off, mode: str, sparse: bool, per_sample_weights,
    include_last_offset: bool, padding_idx,
) -> tuple:  # fmt: skip
    """The bags' results from the flat indices and the offsets ``off`` (checked), and how PyTorch's
    kernel laid them out: (output, each index's bag (-1 before the first; ATen's offset2bag),
    each bag's count of indices other than ``padding_idx``, for "max" the flat positions of the
    maxima in the output and in the weight (else None)).

    With ``include_last_offset`` the last bag runs to the end of the input (indices past the
    last offset count in it), except on PyTorch's fast sum path (float32/16, bfloat16 and no
    ``padding_idx``, sum or mean), whose sums stop at the last offset (a mean still divides by the
    count to the end)."""

    n = flat.numel()
    if flat.dtype not in (D.int64, D.int32):  # PyTorch takes 8- and 16-bit indices too
        flat = flat.long()
    starts = off[:-1] if include_last_offset else off
    nbags = len(starts)
    pos = np.arange(n)
    bag = np.searchsorted(starts, pos, side="right") - 1
    keep = bag >= 0
    ids = np.asarray(flat.tolist(), dtype=np.int64).reshape(-1) if n else np.zeros(0, np.int64)
    _check_range(ids, weight.size(0), mode == "max" or padding_idx is not None)
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.size(0)
        keep &= ids != padding_idx
    counts = np.bincount(bag[keep], minlength=nbags)
    divisors = counts.clip(min=1)
    grad_keep = keep  # PyTorch's mean backward runs the last bag to the end, even where...
    if include_last_offset and len(off) and fast_sum_path(weight, mode, padding_idx):
        keep = keep & (pos < off[-1])  # ...its forward stops at the last offset
    with no_grad():  # the gradient is EmbeddingBagBackward0's, as in PyTorch
        sel, bags, picked = _rows(flat, pos, bag, keep, weight.device)
        out, argmax = _reduce_bags(weight, picked, sel, bags, divisors, per_sample_weights, mode)
        if mode == "mean" and grad_keep is not keep:
            sel, bags, picked = _rows(flat, pos, bag, grad_keep, weight.device)
    needs = [t is not None and t.requires_grad for t in (weight, per_sample_weights)]
    if _gm.enabled and any(needs):
        record(
            _EmbeddingBag, (weight, per_sample_weights), out, (weight, per_sample_weights),
            picked=picked, sel=sel, bags=bags, counts=divisors, mode=mode, sparse=sparse,
            argmax=argmax, n=n,
        )  # fmt: skip
    return out, bag, counts, argmax


def _rows(flat: Tensor, pos, bag, keep, device) -> tuple:
    """(positions of the kept indices, their bags, their weight rows) as tensors."""
    from ...ops.creation.factories import tensor

    sel = tensor(pos[keep], device=device)
    return sel, tensor(bag[keep], device=device), flat.index_select(0, sel)


def fast_sum_path(weight: Tensor, mode: str, padding_idx) -> bool:
    """Whether PyTorch's CPU kernel sums the bags on its fast path (which leaves offset2bag empty
    in "sum" mode)."""
    fast = (D.float32, D.float16, D.bfloat16)
    return mode != "max" and padding_idx is None and weight.dtype in fast and weight.stride(1) == 1


def _check_indices(input: Tensor, offsets, off, n: int) -> None:
    """PyTorch's kernel checks on the indices and offsets, in its order and words."""
    check_index_dtypes(input, offsets)
    check_offsets(input, offsets, off, n)


def check_index_dtypes(input: Tensor, offsets) -> None:
    """PyTorch casts the indices and offsets to their common dtype, which must be int64 or int32."""
    from ...ops._dispatch import _legacy_name

    kind = input.dtype if offsets is None else D.promote_types(input.dtype, offsets.dtype)
    if kind not in (D.int64, D.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {_legacy_name(kind)} instead (while checking arguments for embedding_bag)"
        )


def check_offsets(input: Tensor, offsets, off, n: int) -> None:
    from ...ops._dispatch import _legacy_name

    if offsets is None or not len(off):
        return
    if off[0] != 0:
        kind = D.promote_types(input.dtype, offsets.dtype)
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
            f"However, got {off[0]}\n[ {_legacy_name(kind)}{{}} ]"
        )
    if off[-1] > n:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of {off[-1]}"
        )


def _check_range(ids, num_embeddings: int, per_index: bool) -> None:
    """An out-of-range index: PyTorch's max mode and padding_idx kernels check each index as they
    go; its plain sum/mean path checks the whole input first, naming the position."""
    bad = np.flatnonzero((ids < 0) | (ids >= num_embeddings))
    if not len(bad):
        return
    i = bad[0]
    if per_index:
        raise RuntimeError(
            f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {ids[i]}"
        )
    raise RuntimeError(
        f"Index {i} of input takes value {ids[i]} which is not in the valid range [0, {num_embeddings})"
    )


def _reduce_bags(weight, picked, sel, bags, counts, per_sample_weights, mode):
    """(bag results, for "max" the (bag, column) -> weight element each maximum came from)."""
    from ...ops.creation.factories import tensor

    rows = weight.index_select(0, picked)
    nbags, dim = len(counts), weight.size(1)
    if mode == "max":
        out = weight.new_zeros((nbags, dim)).scatter_reduce(
            0, bags.unsqueeze(1).expand(-1, dim), rows, "amax", include_self=False
        )
        return out, _argmax_rows(picked, bags, rows, out)
    half = weight.dtype in (D.float16, D.bfloat16)
    if half:  # PyTorch weighs and sums 16-bit rows in float32, rounds the sums, then divides
        rows = rows.float()
    if per_sample_weights is not None:
        psw = per_sample_weights.reshape(-1).index_select(0, sel)
        rows = rows * (psw.float() if half else psw).unsqueeze(1)
    out = rows.new_zeros((nbags, dim)).index_add(0, bags, rows).to(weight.dtype)
    if mode == "mean":
        scale = tensor(counts.astype(np.float64), dtype=out.dtype, device=weight.device)
        out = out / scale.unsqueeze(1)
    return out, None


def _argmax_rows(picked, bags, rows, out):
    """Flat indices into ``out`` and into the weight of each bag's first maximal row per column
    (empty bags have none)."""
    from ...ops.creation.factories import tensor

    b, r = np.asarray(bags.tolist(), np.int64), np.asarray(picked.tolist(), np.int64)
    values, best = rows.cpu()._data, out.cpu()._data  # ._data: also bfloat16 (ml_dtypes)
    dim = best.shape[1]
    hit = values == best[b]
    first = np.full(best.shape, len(b), np.int64)  # per (bag, column): the first row at the max
    np.minimum.at(first, (np.repeat(b, dim), np.tile(np.arange(dim), len(b))),
                  np.where(hit, np.arange(len(b))[:, None], len(b)).reshape(-1))  # fmt: skip
    bag_i, col = np.nonzero(first < len(b))
    src = r[first[bag_i, col]] * dim + col
    device = out.device
    return tensor(bag_i * dim + col, device=device), tensor(src, device=device)


def _embedding_bag_vjp(node, g):
    weight, per_sample_weights = node.saved()
    differentiable = _gm.enabled  # create_graph: PyTorch has no derivative for these gradients
    with no_grad():
        gw, gp = _embedding_bag_grads(node, g, weight, per_sample_weights)
    if differentiable:
        _record_not_differentiable(_WeightGradBackward, (g, per_sample_weights), gw)
        _record_not_differentiable(_PerSampleWeightsGrad, (g, weight), gp)
    return gw, gp


def _embedding_bag_grads(node, g, weight, per_sample_weights):
    gw = gp = None
    g_rows = g.index_select(0, node.bags)  # each looked-up row's share of its bag's gradient
    if node.mode == "mean":
        sizes = g_rows.new_tensor(node.counts[node.bags.cpu().numpy()], dtype=g.dtype)
        g_rows = g_rows / sizes.unsqueeze(1)
    if node.next_functions[0][0] is not None:
        scaled = g_rows
        if per_sample_weights is not None:
            psw = per_sample_weights.reshape(-1).index_select(0, node.sel)
            scaled = g_rows * psw.unsqueeze(1)
        gw = _weight_grad(node, weight, g, scaled)
    if per_sample_weights is not None and node.next_functions[1][0] is not None:
        per = (g_rows * weight.index_select(0, node.picked)).sum(1)
        gp = per.new_zeros(node.n).index_add(0, node.sel, per).view(per_sample_weights.shape)
    return gw, gp


def _record_not_differentiable(cls, inputs, grad) -> None:
    """Give ``grad`` PyTorch's grad_fn for a gradient it cannot differentiate (its backward raises)."""
    if grad is not None and any(t is not None and t.requires_grad for t in inputs):
        record(cls, inputs, grad)


def _weight_grad_vjp(node, g):
    raise NotImplementedError("the derivative for '_embedding_bag_backward' is not implemented.")


def _per_sample_weights_grad_vjp(node, g):
    raise RuntimeError(
        "derivative for aten::_embedding_bag_per_sample_weights_backward is not implemented"
    )


_WeightGradBackward = node_class("EmbeddingBagBackwardBackward0", _weight_grad_vjp)
_PerSampleWeightsGrad = node_class("NotImplemented", _per_sample_weights_grad_vjp)
# PyTorch's class is NotImplemented but its name() is namespaced
_PerSampleWeightsGrad.name = lambda self: "torch::autograd::NotImplemented"


def _weight_grad(node, weight, g, scaled):
    if node.mode == "max":
        to, src = node.argmax
        flat = g.reshape(-1).index_select(0, to)
        return weight.new_zeros(weight.numel()).index_add(0, src, flat).view(weight.shape)
    if node.sparse:  # one uncoalesced entry per looked-up row, as PyTorch's
        from ...sparse.construction import coo

        idx = node.picked._data.reshape(1, -1).copy()
        return coo(idx, scaled._data, tuple(weight.shape), g._dtype, g._device)
    return weight.new_zeros(weight.shape).index_add(0, node.picked, scaled)


_EmbeddingBag = node_class("EmbeddingBagBackward0", _embedding_bag_vjp)


def _torch_type_str(x) -> str:
    return "<class 'torch.Tensor'>" if isinstance(x, Tensor) else str(type(x))
