"""The dropout variants of ``torch.nn.functional`` beyond ``F.dropout``: channel-wise
(``dropout1d/2d/3d``) and alpha dropout (``alpha_dropout``, ``feature_alpha_dropout``).

They draw exactly what PyTorch's CPU kernels draw (``bernoulli_`` on a fresh tensor), so
seeded runs give the same numbers."""

from __future__ import annotations

import math
import warnings

from ..._tensor.core import Tensor
from ...ops.creation.factories import empty, empty_like


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


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """One Bernoulli draw per (sample, channel), broadcast over the spatial dims (PyTorch's
    feature_dropout, drawn with bernoulli_ so a seeded run drops the same channels)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        noise = input.new_zeros(())
    else:
        shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
        noise = empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional "
            "batch dimension (i.e. 2D or 3D inputs)."
        )
    batched = input.dim() == 3
    x = input if batched else (input.unsqueeze_(0) if inplace else input.unsqueeze(0))
    out = _feature_dropout(x, p, training, inplace)
    return out if batched else (out.squeeze_(0) if inplace else out.squeeze(0))


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    nd = input.dim()
    if nd not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated and will result in an error in a "
            "future release. To retain the behavior and silence this warning, please use dropout instead. Note that "
            "dropout2d exists to provide channel-wise dropout on inputs with 2 spatial dimensions, a channel "
            "dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
            "instead.",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    nd = input.dim()
    if nd not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated and will result in an error in a "
            "future release. To retain the behavior and silence this warning, please use dropout instead. Note that "
            "dropout3d exists to provide channel-wise dropout on inputs with 3 spatial dimensions, a channel "
            "dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    batched = nd == 5
    x = input if batched else (input.unsqueeze_(0) if inplace else input.unsqueeze(0))
    out = _feature_dropout(x, p, training, inplace)
    return out if batched else (out.squeeze_(0) if inplace else out.squeeze(0))
