"""More losses of ``torch.nn.functional`` (mse/nll/cross_entropy live in ``nn/functional.py``).

BCE, BCE-with-logits, smooth L1 and Huber have their own nodes (``ops/nn/loss.py``); the
others are compositions, written as PyTorch composes them so the grad_fn names agree.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _autocast
from ..._autocast import BANNED, FP32, cast_policy
from ..._tensor.core import Tensor
from ...ops.creation.factories import tensor
from ...ops.nn import loss as _l
from ...ops.shape.view_ops import broadcast_tensors

_BOTH = ("cpu", "cuda")


def legacy_reduction(size_average, reduce, emit_warning: bool = True, stacklevel: int = 2) -> str:
    """The reduction string for the deprecated size_average / reduce arguments, with PyTorch's
    warning on the line that called this (``stacklevel`` 2: inside the library, as PyTorch's)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else ("sum" if reduce else "none")
    if emit_warning:
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
            UserWarning,
            stacklevel=stacklevel,
        )
    return ret


def _reduction(size_average, reduce, reduction) -> str:
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, stacklevel=3)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


def _broadcast_with_warning(input: Tensor, target: Tensor):
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )
        return broadcast_tensors(input, target)
    return input, target


@cast_policy(BANNED, ("cuda",))
@cast_policy(FP32, ("cpu",))
def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
) -> Tensor:
    reduction = _reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}) is "
            "deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        weight = weight.expand(input.shape)
    return _l.binary_cross_entropy(input, target, weight, reduction)


@cast_policy(FP32)
def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
) -> Tensor:
    reduction = _reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    return _l.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None) -> Tensor:
    # autocast checked inline, not by @cast_policy: keeps the warning's frame
    if _autocast.state.on and _autocast.applies(_BOTH, input, target):
        return _autocast.run(
            l1_loss, FP32, (input, target, size_average, reduce, reduction, weight), {}
        )
    reduction = _reduction(size_average, reduce, reduction)
    input, target = _broadcast_with_warning(input, target)
    loss = (input - target).abs()
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def smooth_l1_loss(
    input, target, size_average=None, reduce=None, reduction="mean", beta=1.0
) -> Tensor:
    # autocast checked inline, not by @cast_policy: see l1_loss
    if _autocast.state.on and _autocast.applies(_BOTH, input, target):
        return _autocast.run(
            smooth_l1_loss, FP32, (input, target, size_average, reduce, reduction, beta), {}
        )
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    input, target = _broadcast_with_warning(input, target)
    return _l.smooth_l1_loss(input, target, reduction, beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None) -> Tensor:
    # autocast checked inline, not by @cast_policy: see l1_loss
    if _autocast.state.on and _autocast.applies(_BOTH, input, target):
        return _autocast.run(huber_loss, FP32, (input, target, reduction, delta, weight), {})
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _broadcast_with_warning(input, target)
    if weight is None:
        return _l.huber_loss(input, target, reduction, delta)
    return _reduce(_l.huber_loss(input, target, "none", delta) * weight, reduction)


def kl_div(
    input, target, size_average=None, reduce=None, reduction="mean", log_target=False
) -> Tensor:
    # autocast checked inline, not by @cast_policy: see l1_loss
    if _autocast.state.on and _autocast.applies(_BOTH, input, target):
        return _autocast.run(
            kl_div, FP32, (input, target, size_average, reduce, reduction, log_target), {}
        )
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning,
            stacklevel=2,
        )
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _kl_div(input, target, reduction, log_target)


def _kl_div(input, target, reduction: str, log_target: bool) -> Tensor:
    """kl_div's loss (``torch.kl_div`` calls it without F's checks and warning)."""
    if input.is_complex() or target.is_complex():
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not (input.is_floating_point() and target.is_floating_point()):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = target.xlogy(target) - target * input
    if reduction == "batchmean":
        s = loss.sum()
        return s / input.size(0) if input.dim() != 0 else s
    return _reduce(loss, reduction)


@cast_policy(FP32)
def margin_ranking_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
            f"{input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


@cast_policy(FP32)
def hinge_embedding_loss(
    input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"
):
    reduction = _reduction(size_average, reduce, reduction)
    zeros = input.new_zeros(input.shape)
    if input.is_floating_point() or input.is_complex():
        margin_clamp = (margin - input).clamp_min(0)
    else:  # PyTorch takes the margin in the input's dtype: integers stay integers, bools refused
        margin_clamp = (input.new_full(input.shape, margin) - input).clamp_min(0)
    output_margin = margin_clamp.where(target != 1, zeros)
    output_self = input.where(target != -1, zeros)
    return _reduce(output_margin + output_self, reduction)


@cast_policy(FP32)
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return _l.soft_margin_loss(input, target, reduction)


def _check_cosine_dims(input1: Tensor, input2: Tensor, target: Tensor) -> None:
    """PyTorch's shape rule: a 1-D target pairs 2-D inputs (a batch), a 0-D target 1-D inputs."""
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = target.dim() + 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(
            f"{target.dim()}D target tensor expects {want}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )


@cast_policy(FP32)
def cosine_embedding_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    reduction = _reduction(size_average, reduce, reduction)
    _check_cosine_dims(input1, input2, target)
    d = 1 if input1.dim() == 2 else 0
    eps = 1e-12
    prod = (input1 * input2).sum(d)
    m1 = (input1 * input1).sum(d) + eps
    m2 = (input2 * input2).sum(d) + eps
    cos = prod / (m1 * m2).sqrt()
    zeros = cos.new_zeros(cos.shape)
    pos = 1 - cos
    neg = (cos - margin).clamp_min(0)
    out = pos.where(target == 1, zeros) + neg.where(target == -1, zeros)
    return _reduce(out, reduction)


@cast_policy(FP32)
def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None,
    reduction="mean",
):  # fmt: skip
    from .norm import pairwise_distance

    reduction = _reduction(size_average, reduce, reduction)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


def multilabel_soft_margin_loss(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    from ...ops.nn.activation import logsigmoid

    reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    return _reduce(loss, reduction)


@cast_policy(FP32)
def poisson_nll_loss(
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,
    eps=1e-8,
    reduce=None,
    reduction="mean",
):
    reduction = _reduction(size_average, reduce, reduction)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if isinstance(var, (int, float)):
        var = input.new_full(input.shape, float(var))
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.size()[:-1] == var.size()[:-1] and var.size(-1) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    # PyTorch clamps a clone in place under no_grad: the gradient flows as if unclamped.
    var = var + (var.clamp(min=eps) - var).detach()
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


@cast_policy(FP32)
def multi_margin_loss(
    input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight=None, size_average=None, reduce=None,
    reduction: str = "mean",
) -> Tensor:  # fmt: skip
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    y = target.reshape(-1)
    n, c = x.shape
    if y.numel() != n:
        raise RuntimeError(f"inconsistent target size, expected {n} but got {list(target.shape)}")
    if n and (int(y.min()) < 0 or int(y.max()) >= c):
        raise RuntimeError("target out of range")
    x_y = x.gather(1, y.unsqueeze(1))
    z = (margin - x_y + x).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, y).unsqueeze(1)
    is_y = tensor(np.arange(c), device=x.device).unsqueeze(0) == y.unsqueeze(1)
    loss = z.masked_fill(is_y, 0).sum(1) / c
    if input.dim() < 2:
        loss = loss.reshape(target.shape)
    return _reduce(loss, reduction)


@cast_policy(FP32)
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:  # fmt: skip
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    x = input if input.dim() == 2 else input.reshape(1, -1)
    t = target.reshape(x.shape)
    c = x.shape[1]
    valid = (t >= 0).long().cumprod(1).bool()  # the labels before the first -1
    idx = t.clamp_min(0)
    is_target = t.new_zeros(x.shape).scatter_add(1, idx, valid.long()) > 0
    x_t = x.gather(1, idx)  # (N, C): the score of each listed label
    # (N, label, class); relu, not clamp_min: PyTorch counts a pair only when its margin is > 0,
    # so a margin of exactly 0 passes no gradient
    hinge = (1 - x_t.unsqueeze(2) + x.unsqueeze(1)).relu()
    keep = valid.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = hinge.masked_fill(~keep, 0).sum((1, 2)) / c
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor, positive: Tensor, negative: Tensor, *, distance_function=None, margin: float = 1.0,
    swap: bool = False, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    from .norm import pairwise_distance

    if margin <= 0:
        raise ValueError(
            f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead"
        )
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p == n):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {a}D, positive {p}D, and negative {n}D inputs"
        )
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(dist(positive, negative))
    loss = (margin + d_pos - d_neg).clamp_min(0)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _reduce(loss, reduction)
