"""``F.embedding_bag``: sums, means or maxes of embedding rows per bag, without the per-token
intermediate ``(B, N, D)`` tensor being kept by the caller.

The bags are laid out on the host (offsets are small), then one ``index_select`` gathers the rows
and one ``index_add`` / ``scatter_reduce`` reduces them, so autograd gives the gradients for
``weight`` and ``per_sample_weights``; ``sparse=True`` gives ``weight`` a sparse gradient.
``scale_grad_by_freq`` is accepted and ignored.
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor
from ...autograd.grad_mode import no_grad


def embedding_bag(
    input: Tensor, weight: Tensor, offsets=None, max_norm=None, norm_type: float = 2, scale_grad_by_freq: bool = False,
    mode: str = "mean", sparse: bool = False, per_sample_weights=None, include_last_offset: bool = False,
    padding_idx=None,
) -> Tensor:  # fmt: skip
    from ...ops.creation.factories import tensor
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
    if include_last_offset:
        starts, ends = off[:-1], off[1:]
    else:
        starts, ends = off, np.append(off[1:], n)
    nbags = len(starts)
    pos = np.arange(n)
    bag = np.searchsorted(starts, pos, side="right") - 1
    keep = bag >= 0
    keep[keep] &= pos[keep] < ends[bag[keep]]
    ids = np.asarray(flat.tolist(), dtype=np.int64).reshape(-1) if n else np.zeros(0, np.int64)
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.size(0)
        keep &= ids != padding_idx
    sel = tensor(pos[keep], device=weight.device)
    bags = tensor(bag[keep], device=weight.device)
    picked = flat.index_select(0, sel)
    # sparse=True: the rows come through embedding's sparse path, so weight's gradient is a
    # sparse COO tensor with one entry per looked-up index, as PyTorch's
    rows = (
        _embedding.embedding(picked, weight, sparse=True)
        if sparse
        else weight.index_select(0, picked)
    )
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1).index_select(0, sel).unsqueeze(1)
    dim = weight.size(1)
    out = weight.new_zeros((nbags, dim))
    if mode == "max":
        return out.scatter_reduce(
            0, bags.unsqueeze(1).expand(-1, dim), rows, "amax", include_self=False
        )
    out = out.index_add(0, bags, rows)
    if mode == "mean":
        counts = np.bincount(bag[keep], minlength=nbags).clip(min=1)
        out = out / tensor(
            counts.astype(np.float64), dtype=weight.dtype, device=weight.device
        ).unsqueeze(1)
    return out


def _torch_type_str(x) -> str:
    return "<class 'torch.Tensor'>" if isinstance(x, Tensor) else str(type(x))
