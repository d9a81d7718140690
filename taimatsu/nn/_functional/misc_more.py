"""``local_response_norm``, ``alpha_dropout`` / ``feature_alpha_dropout``, ``channel_shuffle`` and
``gumbel_softmax`` of ``torch.nn.functional``, composed of Tensor ops.

The random ones draw exactly what PyTorch's CPU kernels draw (``bernoulli_`` on a fresh tensor,
``exponential_`` for the Gumbel noise), so seeded runs give the same numbers.
"""

from __future__ import annotations

import math

from ..._tensor import Tensor
from ...ops import nn_pool as _pool
from ...ops.creation import empty, empty_like, zeros_like
from .pooling import pad


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """Divide by ``(k + alpha * mean of squares over ``size`` neighbouring channels) ** beta``."""
    dim = input.dim()
    if dim < 3:
        # PyTorch's message, with the indentation its source line continuation leaves in it
        raise ValueError(
            f"Expected 3D or higher dimensionality{' ' * 26}input (got {dim} dimensions)"
        )
    if input.numel() == 0:
        return input
    sizes = input.shape
    div = input.mul(input).reshape(sizes[0], 1, sizes[1], -1)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = _pool.avg_pool2d(div, (size, 1), stride=1).squeeze(1).view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def bernoulli_like(input: Tensor, p: float) -> Tensor:
    """``empty_like(input).bernoulli_(p)`` as PyTorch draws it: the result is laid out in memory
    like ``input`` (``empty_like`` keeps the dimension order of the strides) and the random
    stream fills it in memory order.

    Why: for a permuted input (a batch_first attention output is a ``transpose``) a seeded
    dropout would otherwise drop different elements than PyTorch's.
    """
    strides = input.stride()
    order = sorted(range(input.dim()), key=lambda d: -strides[d])  # stable: ties keep their order
    if order == list(range(input.dim())):
        return empty_like(input).bernoulli_(p)
    base = empty([input.shape[d] for d in order], dtype=input.dtype, device=input.device)
    return base.bernoulli_(p).permute([order.index(d) for d in range(input.dim())])


_SELU_ALPHA = 1.7580993408473766  # -selu(-inf): where a dropped unit goes


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = input.new_zeros(())
        return input.mul_(zero) if inplace else input * zero
    if feature:
        shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
        noise = empty(shape, dtype=input.dtype, device=input.device)
        noise.bernoulli_(1 - p)
    else:
        noise = bernoulli_like(input, 1 - p)
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    b = noise.add(-1).mul_(_SELU_ALPHA * a).add_(_SELU_ALPHA * a * p)
    noise.mul_(a)
    out = input.mul_(noise) if inplace else input * noise
    return out.add_(b)


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Dropout that keeps SELU's zero mean and unit variance."""
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    return _alpha_dropout(input, p, training, inplace, feature=True)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    if input.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input to have at least 3 dimensions, but got input with sizes "
            f"{list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    n, rest = input.shape[0], input.shape[2:]
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(input.shape)


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """Softmax of ``(logits + Gumbel noise) / tau``; ``hard`` gives one-hot samples with the soft gradient."""
    gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
