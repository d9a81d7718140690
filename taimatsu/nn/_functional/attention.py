"""``F.multi_head_attention_forward``: the time-major (L, N, E) attention ``nn.MultiheadAttention``
runs, with PyTorch's argument checks, learned key/value biases (``bias_k``/``bias_v``), a zero
attention slot (``add_zero_attn``), static keys/values and the ``need_weights=False`` path through
``scaled_dot_product_attention``.
"""

from __future__ import annotations

import math
import warnings

from ... import _dtype as D
from ..._autocast import LOWER, cast_policy
from ..._tensor.core import Tensor
from ...ops.creation.factories import zeros, zeros_like
from ...ops.nn import attention as _fused
from ...ops.nn import softmax as _softmax
from ...ops.shape.copies import cat
from .pooling import pad


def _linear(x, w, b):
    from .. import functional as F

    return F.linear(x, w, b)


def _canonical_mask(mask, name: str, other_type, other_name: str, target_type):
    """Bool masks (True = may not attend) become additive float masks with -inf; a mask whose
    dtype differs from ``other_type`` (the other mask's, None for no check) warns first."""
    if mask is None:
        return None
    if mask.dtype is not D.bool and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other_type is not None and other_type is not mask.dtype:
        warnings.warn(
            f"Support for mismatched {name} and {other_name} is deprecated. Use same type for both instead.",
            stacklevel=3,
        )
    if mask.dtype is D.bool:
        return zeros_like(mask, dtype=target_type).masked_fill(mask, float("-inf"))
    return mask


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """Whether the input is batched, with PyTorch's errors for inconsistent ranks."""
    d = query.dim()
    if d not in (2, 3):
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {d}-D query tensor"
        )
    kind = "batched (3-D)" if d == 3 else "unbatched (2-D)"
    if key.dim() != d or value.dim() != d:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {d}-D but found "
            f"{key.dim()}-D and {value.dim()}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.dim() != d - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or {d - 1}-D but found "
            f"{key_padding_mask.dim()}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.dim()}-D tensor instead"
            )
        if d == 2 and attn_mask.dim() == 3:
            want = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != want:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {want} but got {attn_mask.shape}"
                )
    return d == 3


def _check_attn_mask(attn_mask, bsz, num_heads, tgt_len, src_len):
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(tgt_len, src_len)}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        want = (bsz * num_heads, tgt_len, src_len)
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {want}."
            )
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _static(t, name, bsz, num_heads, head_dim):
    if t.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got {t.size(0)}")
    if t.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.size(2)}")
    return t


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int, in_proj_weight,
    in_proj_bias, bias_k, bias_v, add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
    out_proj_bias, training: bool = True, key_padding_mask=None, need_weights: bool = True, attn_mask=None,
    use_separate_proj_weight: bool = False, q_proj_weight=None, k_proj_weight=None, v_proj_weight=None,
    static_k=None, static_v=None, average_attn_weights: bool = True, is_causal: bool = False,
):  # fmt: skip
    batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}"
            )
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    other_type = None if attn_mask is None else attn_mask.dtype
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask", other_type, "attn_mask", query.dtype
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention applies the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype)
        if key_padding_mask is not None:
            is_causal = False

    # input projections
    if use_separate_proj_weight:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but q/k/v_proj_weight is None")
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        w_q, w_k, w_v = in_proj_weight.chunk(3)
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    q, k, v = _linear(query, w_q, b_q), _linear(key, w_k, b_k), _linear(value, w_v, b_v)

    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, bsz, num_heads, tgt_len, src_len)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = pad(attn_mask, (0, 1)) if attn_mask is not None else None
        key_padding_mask = pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be None or both be set")

    # (L, N, E) -> (N * H, L, head_dim)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        k = _static(static_k, "static_k", bsz, num_heads, head_dim)
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        v = _static(static_v, "static_v", bsz, num_heads, head_dim)
    if add_zero_attn:
        slot = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(slot, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(slot, dtype=v.dtype, device=v.device)], dim=1)
        attn_mask = pad(attn_mask, (0, 1)) if attn_mask is not None else None
        key_padding_mask = pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
    src_len = k.size(1)
    if key_padding_mask is not None:
        for d, want in ((0, bsz), (1, src_len)):  # PyTorch's texts ("padded", sic)
            if key_padding_mask.shape[d] != want:
                raise AssertionError(
                    f"Expected key_padded_mask.shape[{d}] to be {want}, but got {key_padding_mask.shape[d]}"
                )
        kpm = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0

    if need_weights:
        from .. import functional as F

        q_scaled = q * math.sqrt(1.0 / float(head_dim))
        if attn_mask is not None:
            weights = attn_mask.baddbmm(q_scaled, k.transpose(-2, -1))
        else:
            weights = q_scaled.bmm(k.transpose(-2, -1))
        weights = F.softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        out = weights.bmm(v).transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        out = _linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    return (out if batched else out.squeeze(1)), None


@cast_policy(LOWER)
def scaled_dot_product_attention(
    query: Tensor, key: Tensor, value: Tensor, attn_mask=None, dropout_p: float = 0.0, is_causal: bool = False,
    scale=None, enable_gqa: bool = False,
) -> Tensor:  # fmt: skip
    """``softmax(q @ k^T * scale + bias) @ v`` (PyTorch's math reference). 4-D float32/float64
    inputs without dropout run as one op with PyTorch's CPU node
    (ScaledDotProductFlashAttentionForCpuBackward0, see ops/nn/attention.py); the rest runs op by
    op (deviation: then the grad_fn is that of the final matmul)."""
    L, S = query.size(-2), key.size(-2)
    # heads of size 0: the scores are empty sums, 0 whatever the scale (PyTorch's math kernel
    # scales q and k by sqrt(scale) before the product), and 1 / sqrt(0) would make them NaN
    E = query.size(-1)
    scale_factor = (1 / math.sqrt(E) if E else 1.0) if scale is None else scale
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
    allowed = _sdp_switches()
    if (
        attn_mask is not None
        and attn_mask.dim() < 2
        and _flash_takes(allowed, query, attn_mask, dropout_p)
    ):
        if attn_mask.dim() == 0:  # PyTorch's CPU flash kernel indexes the mask's dim -2
            raise IndexError("Dimension specified as -2 but tensor has no dimensions")
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    if allowed["flash"] and _fused.fusable(query, key, value, attn_mask, dropout_p):
        return _fused.attention(query, key, value, attn_mask, is_causal, scale_factor)
    if not allowed["math"]:  # torch.nn.attention.sdpa_kernel switched the op-by-op form off
        _check_flash_only(allowed, query, key, value, attn_mask, dropout_p)
    from ...ops.creation.factories import ones  # here: an import costs microseconds per call
    from .. import functional as F

    # masks are added (a bool one as 0 / -inf), as PyTorch's math kernel adds them
    scores = query.matmul(key.transpose(-2, -1)) * scale_factor
    if is_causal:
        causal = ones(L, S, dtype=_bool(), device=query.device).tril()
        scores = scores + _fused.additive_mask(causal, scores.dtype)
    if attn_mask is not None:
        if attn_mask.dtype is _bool():
            scores = scores + _fused.additive_mask(attn_mask, scores.dtype)
        else:
            scores = scores + attn_mask
    attn = _safe_softmax(scores)
    if dropout_p > 0.0:
        attn = F.dropout(attn, dropout_p, True)
    return attn.matmul(value)


def _flash_takes(allowed, query, attn_mask, dropout_p) -> bool:
    """Whether PyTorch's CPU flash kernel would run the call (before its checks of shapes)."""
    return (
        allowed["flash"] and query.dim() == 4 and dropout_p == 0.0
        and not (attn_mask is not None and attn_mask.requires_grad)
    )  # fmt: skip


def _check_flash_only(allowed, query, key, value, attn_mask, dropout_p) -> None:
    """With the math kernel switched off: PyTorch's errors when its CPU flash kernel is off too
    or cannot take the call (not 4-D, dropout, a mask that requires grad, fewer key/value
    heads). A call it can take but ``fusable`` does not (half types) runs op by op here."""
    if not allowed["flash"]:
        raise RuntimeError(
            "No viable backend for scaled_dot_product_attention was found. This is likely due "
            "to turning off both the math kernel and the fused kernels."
        )
    if (
        not query.dim() == key.dim() == value.dim() == 4
        or dropout_p > 0.0
        or (attn_mask is not None and attn_mask.requires_grad)
        or key.size(1) != query.size(1)
        or value.size(1) != query.size(1)
    ):
        raise RuntimeError("No available kernel.  Aborting execution.")


def _sdp_switches() -> dict:
    """The kernel switches of ``torch.nn.attention.sdpa_kernel`` / ``torch.backends.cuda``."""
    from ...backends.cuda import _sdp

    return _sdp


def _safe_softmax(scores: Tensor) -> Tensor:
    """Softmax over the keys, 0 for a query whose keys are all masked (PyTorch's ``_safe_softmax``):
    such a row attends to nothing, and its gradient is 0, not NaN."""
    dead = (scores == float("-inf")).all(-1, keepdim=True)
    if scores.device.type == "cpu" and not bool(dead.any()):  # the test would stop a CUDA stream
        return _softmax.softmax(scores, -1)
    # a finite row through the softmax, so that its backward sees no NaN either
    return _softmax.softmax(scores.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)


def _bool():
    from ... import _dtype as D

    return D.bool
