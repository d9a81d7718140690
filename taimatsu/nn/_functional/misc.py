"""Channel-wise dropout and scaled dot-product attention of ``torch.nn.functional``."""

from __future__ import annotations

import math
import warnings

from ..._tensor import Tensor
from ...ops import nn as _nn
from ...ops.creation import empty


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
        noise = empty(shape, dtype=input.dtype).bernoulli_(1 - p)
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


def scaled_dot_product_attention(
    query: Tensor, key: Tensor, value: Tensor, attn_mask=None, dropout_p: float = 0.0, is_causal: bool = False,
    scale=None, enable_gqa: bool = False,
) -> Tensor:  # fmt: skip
    """``softmax(q @ k^T * scale + bias) @ v`` (PyTorch's math reference; deviation: the grad_fn is
    that of the final matmul, not PyTorch's fused attention node)."""
    from ...ops.creation import ones
    from .. import functional as F

    L, S = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"
        )
    if enable_gqa and key.dim() >= 3 and key.size(-3) != query.size(-3):
        rep = query.size(-3) // key.size(-3)
        key = key.unsqueeze(-3).expand(*key.shape[:-2], rep, S, key.size(-1)).flatten(-4, -3)
        value = (
            value.unsqueeze(-3).expand(*value.shape[:-2], rep, S, value.size(-1)).flatten(-4, -3)
        )
    scores = query.matmul(key.transpose(-2, -1)) * scale_factor
    if is_causal:
        causal = ones(L, S, dtype=_bool()).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype is _bool():
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        else:
            scores = scores + attn_mask
    attn = _safe_softmax(scores)
    if dropout_p > 0.0:
        attn = F.dropout(attn, dropout_p, True)
    return attn.matmul(value)


def _safe_softmax(scores: Tensor) -> Tensor:
    """Softmax over the keys, 0 for a query whose keys are all masked (PyTorch's ``_safe_softmax``):
    such a row attends to nothing, and its gradient is 0, not NaN."""
    dead = (scores == float("-inf")).all(-1, keepdim=True)
    if not bool(dead.any()):
        return _nn.softmax(scores, -1)
    # a finite row through the softmax, so that its backward sees no NaN either
    return _nn.softmax(scores.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)


def _bool():
    from ... import _dtype as D

    return D.bool
