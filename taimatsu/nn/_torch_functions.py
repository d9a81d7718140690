"""The nn ops PyTorch also exposes at the top level (``torch.softmax``, ``torch.conv2d``, ...)
and as Tensor methods, with ``torch``'s signatures (which differ from ``F``'s)."""

from __future__ import annotations

import numbers

import numpy as np

from .. import _dtype as _D
from .._tensor.core import Tensor
from ..ops._dispatch import OUT_EXACT, OUT_FOUND, _legacy_name, takes_out
from ..ops.nn import softmax as _softmax
from . import functional as F

conv1d = F.conv1d
conv2d = F.conv2d
conv_transpose1d = F.conv_transpose1d
conv_transpose2d = F.conv_transpose2d
pixel_shuffle = F.pixel_shuffle
pixel_unshuffle = F.pixel_unshuffle
cosine_similarity = F.cosine_similarity
pairwise_distance = F.pairwise_distance
adaptive_avg_pool1d = F.adaptive_avg_pool1d
avg_pool1d = F.avg_pool1d
prelu = F.prelu
layer_norm = F.layer_norm
rms_norm = F.rms_norm


def group_norm(
    input: Tensor, num_groups: int, weight=None, bias=None, eps: float = 1e-05,
    cudnn_enabled: bool = True,
) -> Tensor:  # fmt: skip
    """``torch.group_norm``: the op itself, without ``F.group_norm``'s checks of the batch."""
    from ..ops.nn.normalization import group_norm as op

    return op(input, num_groups, weight, bias, eps)


@takes_out("softmax", OUT_EXACT, grad="aten")
def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    return _softmax.softmax(input, dim, dtype)


@takes_out("log_softmax", OUT_EXACT, grad="aten")
def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    return _softmax.log_softmax(input, dim, dtype)


def _dropout_args(name: str, p, train) -> None:
    """ATen's checks of ``torch.*dropout*(input, p, train)``: a RuntimeError for p outside
    [0, 1] (``F``'s is a ValueError), a bool ``train``."""
    if train.__class__ is not bool:
        raise TypeError(
            f"{name}(): argument 'train' (position 3) must be bool, not {type(train).__name__}"
        )
    if not 0.0 <= p <= 1.0:  # p printed as C++ prints a double
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")


def _dropout_spelling(name: str, run):
    """``torch.<name>(input, p, train)`` running ``run(input, p, train)`` after ATen's checks."""

    def op(input: Tensor, p: float, train: bool) -> Tensor:
        _dropout_args(name, p, train)
        return run(input, p, train)

    op.__name__ = op.__qualname__ = name
    return op


def _feature_dropout(inplace: bool):
    def run(input, p, train):
        from ._functional.dropout import _feature_dropout as feature

        return feature(input, p, train, inplace)

    return run


dropout = _dropout_spelling("dropout", F.dropout)
dropout_ = _dropout_spelling("dropout_", lambda x, p, t: F.dropout(x, p, t, inplace=True))
feature_dropout = _dropout_spelling("feature_dropout", _feature_dropout(False))
feature_dropout_ = _dropout_spelling("feature_dropout_", _feature_dropout(True))
alpha_dropout = _dropout_spelling("alpha_dropout", F.alpha_dropout)
alpha_dropout_ = _dropout_spelling(
    "alpha_dropout_", lambda x, p, t: F.alpha_dropout(x, p, t, inplace=True)
)
feature_alpha_dropout = _dropout_spelling("feature_alpha_dropout", F.feature_alpha_dropout)
feature_alpha_dropout_ = _dropout_spelling(
    "feature_alpha_dropout_", lambda x, p, t: F.feature_alpha_dropout(x, p, t, inplace=True)
)


# ---- losses: ATen's integer reductions (0 none, 1 mean, 2 sum; any other int: none) ----------
# Left out, ``reduction`` reads as 0 in PyTorch 2.13 (its signatures say Mean, but
# ``torch.kl_div(x, t)`` is elementwise), so the defaults here are 0.
def _reduction(name: str, reduction, position: int) -> str:
    # (PyTorch's message omits the position when reduction came by keyword; this one names it)
    if reduction.__class__ is not int:
        raise TypeError(
            f"{name}(): argument 'reduction' (position {position}) must be int, not "
            f"{type(reduction).__name__}"
        )
    return {1: "mean", 2: "sum"}.get(reduction, "none")


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False):
    from ._functional.loss import _kl_div

    return _kl_div(input, target, _reduction("kl_div", reduction, 3), log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    name = _reduction("binary_cross_entropy_with_logits", reduction, 5)
    return F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=name, pos_weight=pos_weight
    )


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, reduction: int = 0):
    name = _reduction("cosine_embedding_loss", reduction, 5)
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=name)


def hinge_embedding_loss(input, target, margin: float = 1.0, reduction: int = 0):
    name = _reduction("hinge_embedding_loss", reduction, 4)
    return F.hinge_embedding_loss(input, target, margin, reduction=name)


def margin_ranking_loss(input1, input2, target, margin: float = 0.0, reduction: int = 0):
    name = _reduction("margin_ranking_loss", reduction, 5)
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=name)


def poisson_nll_loss(input, target, log_input: bool, full: bool, eps: float, reduction: int):
    name = _reduction("poisson_nll_loss", reduction, 6)
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=name)


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, reduction: int = 0):  # fmt: skip
    name = _reduction("triplet_margin_loss", reduction, 8)
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=name)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0,
             reduction: int = 0, zero_infinity: bool = False):  # fmt: skip
    name = _reduction("ctc_loss", reduction, 6)
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, name, zero_infinity)


def batch_norm(
    input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True
):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                  cudnn_enabled=True):  # fmt: skip
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def embedding(
    weight: Tensor, input: Tensor, padding_idx: int = -1, scale_grad_by_freq=False, sparse=False
):
    from ..ops.nn.embedding import embedding as _embedding

    return _embedding(input, weight, None if padding_idx < 0 else padding_idx, scale_grad_by_freq)


def embedding_bag(
    weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False, mode: int = 0,
    sparse: bool = False, per_sample_weights=None, include_last_offset: bool = False, padding_idx=None,
) -> tuple:  # fmt: skip
    """``F.embedding_bag``'s bags after ATen's checks (in its order, with its messages), returning
    ATen's 4-tuple (output, offset2bag, bag_size, max_indices) with its CPU kernel's values:
    offset2bag is each index's bag, empty on the fast sum path (see ``fast_sum_path``); bag_size
    counts each bag's indices other than ``padding_idx`` for "mean" and "max" and is zeros for "sum"
    (one per offset, or per bag when ``weight`` requires grad); max_indices is the weight row of
    each maximum for "max" (0 in empty bags), a copy of bag_size otherwise. Deviation: indices of
    more than one dimension are taken flat."""
    from ..ops.creation.factories import tensor, zeros
    from ._functional import embedding_bag as eb

    _check_embedding_bag_args(weight, offsets, mode, padding_idx)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.size(0)
    eb.check_index_dtypes(indices, offsets)
    if weight.dtype not in (_D.float16, _D.bfloat16, _D.float32, _D.float64):
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, BFloat16, "
            f"Float, Double; but got {_legacy_name(weight.dtype)} instead (while checking arguments for embedding_bag)"
        )
    flat = indices.reshape(-1)
    off = np.asarray(offsets.tolist(), dtype=np.int64)
    eb.check_offsets(indices, offsets, off, flat.numel())
    _check_per_sample_weights(weight, per_sample_weights, mode, flat.numel())
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    name = ("sum", "mean", "max")[mode]
    out, bag, counts, argmax = eb.reduce_bags(
        weight, flat, off, name, sparse, per_sample_weights, include_last_offset, padding_idx
    )
    kind, device = _D.promote_types(indices.dtype, offsets.dtype), weight.device
    if name == "sum" and eb.fast_sum_path(weight, name, padding_idx):
        bag = bag[:0]
    offset2bag = tensor(bag, dtype=kind, device=device)
    if name != "sum":
        bag_size = tensor(counts, dtype=kind, device=device)
    else:
        bag_size = zeros(
            len(counts) if weight.requires_grad else len(off), dtype=kind, device=device
        )
    if name != "max":
        return out, offset2bag, bag_size, bag_size.clone()
    rows = np.zeros(out.numel(), dtype=np.int64)
    to, src = (t.cpu().numpy() for t in argmax)
    rows[to] = src // weight.size(1)
    max_indices = tensor(rows.reshape(tuple(out.shape)), dtype=kind, device=device)
    return out, offset2bag, bag_size, max_indices


def _check_embedding_bag_args(weight: Tensor, offsets, mode, padding_idx) -> None:
    """The argument parser's type errors, then ATen's checks before the kernel's."""
    if not isinstance(offsets, Tensor):
        raise TypeError(
            f"embedding_bag(): argument 'offsets' (position 3) must be Tensor, not {type(offsets).__name__}"
        )
    if isinstance(mode, bool) or not isinstance(mode, numbers.Integral):
        raise TypeError(
            f"embedding_bag(): argument 'mode' (position 5) must be int, not {type(mode).__name__}"
        )
    num = weight.size(0)
    if padding_idx is not None and not -num <= padding_idx < num:
        raise RuntimeError(
            f"padding_idx must be within the number of embeddings, {-num} through {num - 1}, but got {padding_idx}"
        )
    if offsets.dim() != 1:
        raise RuntimeError(
            f"offsets has to be a 1D Tensor, but got Tensor of dimension {offsets.dim()}"
        )
    if weight.dim() != 2:
        raise RuntimeError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )


def _check_per_sample_weights(weight: Tensor, per_sample_weights, mode, n: int) -> None:
    if per_sample_weights is None:
        return
    if mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    if per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
            f"'per_sample_weights'; but type {_legacy_name(weight.dtype)} does not equal "
            f"{_legacy_name(per_sample_weights.dtype)} (while checking arguments for embedding_bag)"
        )
    for condition, ok in (("dim() == 1", per_sample_weights.dim() == 1),
                          ("numel() == indices.numel()", per_sample_weights.numel() == n)):  # fmt: skip
        if not ok:
            raise RuntimeError(
                f"Expected per_sample_weights.value().{condition} to be true, but got false.  (Could this "
                "error message be improved?  If so, please report an enhancement request to PyTorch.)"
            )


def constant_pad_nd(input: Tensor, pad, value=0) -> Tensor:
    from ..ops.nn.resample import constant_pad_nd as _pad

    return _pad(input, list(pad), value)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def selu(input: Tensor) -> Tensor:
    return F.selu(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    return F.celu(input, alpha)


def selu_(input: Tensor) -> Tensor:
    return F.selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return F.celu(input, alpha, inplace=True)


@takes_out("threshold")
def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    return F.threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return F.threshold(input, threshold, value, inplace=True)


@takes_out("hardshrink", OUT_FOUND)
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return F.hardshrink(input, lambd)


conv3d = F.conv3d


conv_transpose3d = F.conv_transpose3d


conv_tbc = F.conv_tbc


pdist = F.pdist


channel_shuffle = F.channel_shuffle


native_channel_shuffle = F.channel_shuffle


_INTERPOLATION = {v: k for k, v in F.GRID_SAMPLE_INTERPOLATION_MODES.items()}


_PADDING = {v: k for k, v in F.GRID_SAMPLE_PADDING_MODES.items()}


def max_pool3d(
    input: Tensor, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False
) -> Tensor:
    return F.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d_with_indices(
    input: Tensor, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False
):
    return F.max_pool1d(
        input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True
    )


def adaptive_max_pool1d(input: Tensor, output_size):
    """(values, indices), as ``torch.adaptive_max_pool1d`` always returns both."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def affine_grid_generator(theta: Tensor, size, align_corners: bool) -> Tensor:
    return F.affine_grid(theta, list(size), align_corners=align_corners)


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:  # fmt: skip
    return F.grid_sample(
        input, grid, _INTERPOLATION[interpolation_mode], _PADDING[padding_mode], align_corners
    )


def _grid_sampler_nd(n: int):
    def fn(
        input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
    ) -> Tensor:
        if input.dim() != n + 2 or grid.dim() != n + 2:
            raise RuntimeError(
                f"grid_sampler(): expected {n + 2}D input and grid with same number of dimensions, but got input "
                f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
            )
        return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)

    fn.__name__ = fn.__qualname__ = f"grid_sampler_{n}d"
    return fn


grid_sampler_2d = _grid_sampler_nd(2)


grid_sampler_3d = _grid_sampler_nd(3)
