"""Scaled dot-product attention as one op: the forward on arrays and one backward node
(ScaledDotProductFlashAttentionForCpuBackward0, PyTorch's name for 4-D inputs on the CPU).

The arithmetic is PyTorch's math reference, ``softmax(q @ k^T * scale + mask) @ v`` with fully
masked query rows giving 0 (``_safe_softmax``), in the order the op-by-op form computes it, so
the values are the op-by-op values. The backward is written on arrays
(``dS = P * (dP - rowsum(dP * P)) * scale``); when a graph of the backward is recorded
(``create_graph``) it is the same formula in Tensor ops around the probabilities recomputed in
Tensor ops, so double backward works.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.float32_math import softmax as f32_softmax
from ...backend.threads import gemm_threads
from .._dispatch import _fw_state, record, xp_for
from ..contraction.matmul import _matmul_array

_FLOATS = (D.float32, D.float64)


def fusable(query: Tensor, key: Tensor, value: Tensor, attn_mask, dropout_p: float) -> bool:
    """Whether the one-node path applies: 4-D float32/float64 inputs of one dtype and device,
    equal head counts, no dropout (whose draws the op-by-op path makes), no forward-mode
    tangents, and a mask that is bool or of the query's dtype and needs no gradient."""
    if dropout_p > 0.0 or query._dtype not in _FLOATS:
        return False
    if key._dtype is not query._dtype or value._dtype is not query._dtype:
        return False
    if not (query.dim() == key.dim() == value.dim() == 4):
        return False
    (b, h, n, e), s = query.shape, value.size(2)
    if tuple(key.shape) != (b, h, s, e) or tuple(value.shape[:2]) != (b, h):
        return False  # broadcast batches, grouped heads and bad shapes: the op-by-op path
    if key._device != query._device or value._device != query._device:
        return False
    if _fw_state.level and any(t._fw is not None for t in (query, key, value)):
        return False
    if attn_mask is not None:
        if attn_mask._dtype is not D.bool and attn_mask._dtype is not query._dtype:
            return False
        if attn_mask._rg or attn_mask._device != query._device:
            return False
        if not _broadcasts_to(tuple(attn_mask.shape), (b, h, n, s)):
            return False
    return True


def _broadcasts_to(shape: tuple, to: tuple) -> bool:
    if len(shape) > len(to):
        return False
    return all(a in (1, b) for a, b in zip(reversed(shape), reversed(to)))


def _probabilities(xp, q, k, mask, is_causal: bool, scale: float, packed=None):
    """The attention weights on arrays; rows whose keys are all masked are 0. The op-by-op
    form's operations in its order (the same bits), in place where the operand is ours.
    ``packed``: a list that receives the weights at the kept keys and the kept (query, key)
    pairs, when the weights come from the kept keys' exps (about half the memory to save)."""
    n, kn = q.shape[-2], k.shape[-2]
    if xp is np and q.dtype == np.float32 and q.size and k.size and kn <= f32_softmax._SHORT:
        keep = _shared_keep(n, kn, mask, is_causal)
        if keep is not None:  # torch.softmax's float32 CPU kernel, exps at the kept keys only
            s = _padded_rows(q.shape[:-1] + (kn,))
            gemm_threads(q.shape[-2] * q.shape[-1] * kn)
            np.matmul(q, np.swapaxes(k, -1, -2), out=s)
            rows = s.reshape(-1, n * kn)
            kept = f32_softmax.softmax_kept_into(rows, rows, keep, scale, packed is not None)
            if packed is not None:
                packed += [kept, keep]
            return s
    s = _matmul_array(xp, q, xp.swapaxes(k, -1, -2))
    s *= scale
    if xp is np and s.dtype == np.float32 and s.size and is_causal and mask is None:
        return _causal_bands(s)  # torch.softmax's float32 kernel, masking only where bands need
    if is_causal:
        xp.copyto(s, -np.inf, where=_above_diagonal(xp, s.shape[-2], s.shape[-1]))
    if mask is not None:
        if mask.dtype == np.bool_:
            s = xp.where(mask, s, -np.inf)
        else:
            s = s + mask
    if xp is np and s.dtype == np.float32 and s.size:  # torch.softmax's float32 CPU kernel
        f32_softmax.softmax_into(s, s, safe=True)
        return s
    m = xp.max(s, axis=-1, keepdims=True)
    dead = m == -np.inf
    # a dead row: exp(-inf - 0) = 0 everywhere, and its sum divides as 1. On the CPU the
    # fix-ups are in place when needed; on CUDA unconditional (a test would sync the host).
    fix = xp is not np or bool(dead.any())
    s -= xp.where(dead, 0, m) if fix else m
    e = xp.exp(s, out=s)
    total = xp.sum(e, axis=-1, keepdims=True)
    e /= xp.where(dead, 1, total) if fix else total
    return e


def _padded_rows(shape):
    """An uninitialised float32 array of ``shape`` (..., n, k) whose (n, k) matrices lie a
    64-byte line more than their size apart: copies that walk across the matrices (the
    softmax's transposes) otherwise hit one cache set when that size is a multiple of 4 KiB."""
    nk = shape[-2] * shape[-1]
    rows = math.prod(shape[:-2])
    stride = -(-nk // 16) * 16 + 16
    return np.empty((rows, stride), np.float32)[:, :nk].reshape(shape)


def _shared_keep(n: int, k: int, mask, is_causal: bool):
    """The kept (query, key) pairs when one bool (n, k) mask serves all batches and heads: the
    causal mask, or a bool ``attn_mask`` without batch or head axes; else None."""
    if is_causal and mask is None:
        return ~_above_diagonal(np, n, k)
    shared = mask is not None and mask.dtype == np.bool_ and all(d == 1 for d in mask.shape[:-2])
    if shared and not is_causal:
        return np.broadcast_to(mask.reshape(mask.shape[-2:]), (n, k))
    return None


# Query rows per band of a causal softmax: a multiple of the widest float32 register (AVX-512).
_BAND = 16


def _causal_bands(s):
    """softmax's float32 weights of the causal scores ``s`` (not yet masked), a band of rows at
    a time: rows [r, r + 16) see only the keys before r + 16, so the later keys (all masked,
    exp = 0) are neither masked nor evaluated (half of them on long sequences). The kernel's
    lane sums over a row's first w keys, w a multiple of the register width, equal its sums
    over all keys, the rest being zeros: the same bits as over whole rows (tested)."""
    n, k = s.shape[-2:]
    hidden = _above_diagonal(np, n, k)
    if k % _BAND or n < 2 * _BAND:
        f32_softmax.softmax_into(s, s, safe=True, hidden=hidden)
        return s
    for r in range(0, n, _BAND):
        rows, w = slice(r, r + _BAND), min(k, r + _BAND)
        band = s[..., rows, :w]
        f32_softmax.softmax_into(band, band, safe=True, hidden=hidden[rows, :w])
        s[..., rows, w:] = 0
    return s


def _above_diagonal(xp, n: int, s: int):
    """The causal mask's hidden entries (``~tri``); on the CPU made once per shape."""
    if xp is not np:
        return ~xp.tri(n, s, dtype=bool)
    m = _CAUSAL.get((n, s))
    if m is None:
        if len(_CAUSAL) > 64:
            _CAUSAL.clear()
        m = _CAUSAL[n, s] = ~np.tri(n, s, dtype=bool)
    return m


_CAUSAL: dict = {}


def _probabilities_tensor(q: Tensor, k: Tensor, mask, is_causal: bool, scale: float) -> Tensor:
    """The same weights in Tensor ops (recorded when a graph of the backward is built)."""
    from ..creation.factories import ones
    from .softmax import softmax

    s = q.matmul(k.transpose(-2, -1)) * scale
    if is_causal:
        s = s.masked_fill(~ones(s.size(-2), s.size(-1), dtype=D.bool).tril(), float("-inf"))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask._dtype is D.bool else s + mask
    dead = (s == float("-inf")).all(-1, keepdim=True)
    return softmax(s.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)


def _attention_vjp(node, g):
    q, k, v, mask, probs = node.saved()
    need = [e[0] is not None for e in node.next_functions[:3]]
    if _gm.enabled:  # create_graph: the formula in Tensor ops, differentiable again
        p = _probabilities_tensor(q, k, mask, node.is_causal, node.scale)
        dp = g.matmul(v.transpose(-2, -1))
        ds = p * (dp - (dp * p).sum(-1, keepdim=True)) * node.scale
        return (
            ds.matmul(k) if need[0] else None,
            ds.transpose(-2, -1).matmul(q) if need[1] else None,
            p.transpose(-2, -1).matmul(g) if need[2] else None,
            None,
        )
    xp = xp_for(q)
    p, gd = probs._data, g._data
    if node.keep is not None:  # the weights at the kept keys only: zeros elsewhere
        p = _padded_rows(q.shape[:-1] + (k.shape[-2],))
        f32_softmax.unpack_kept(p.reshape(-1, node.keep.size), probs._data, node.keep)
    # ds = p * (dp - rowsum(dp * p)) * scale, in place in dp (the same operations)
    ds = _matmul_array(xp, gd, xp.swapaxes(v._data, -1, -2))
    ds -= (ds * p).sum(-1, keepdims=True)
    ds *= p
    ds *= node.scale
    outs = _grad_buffers(xp, q._data, k._data, v._data, need)
    grads = (
        _product(xp, ds, k._data, outs[0]) if need[0] else None,
        _product(xp, xp.swapaxes(ds, -1, -2), q._data, outs[1]) if need[1] else None,
        _product(xp, xp.swapaxes(p, -1, -2), gd, outs[2]) if need[2] else None,
    )
    return tuple(None if a is None else _wrap(a, q._dtype, q._device) for a in grads) + (None,)


def _product(xp, a, b, out):
    """``a @ b``, into ``out`` on the CPU."""
    if xp is not np:
        return _matmul_array(xp, a, b)
    gemm_threads(a.shape[-2] * a.shape[-1] * b.shape[-1])
    return np.matmul(a, b, out=out)


def _in_layout(xp, like, shape):
    """An uninitialised array of ``shape`` laid out like ``like`` (dense, its dims in the order
    of ``like``'s strides) when ``like``'s last dim is contiguous, else C-contiguous. PyTorch's
    CPU flash kernel allocates its output so from the query: ``q.view(B, S, H, E).transpose(1,
    2)`` gives an output whose ``transpose(1, 2)`` is contiguous (the usual merge of the heads
    copies nothing)."""
    if xp is not np:
        return None
    if like.strides[-1] != like.itemsize:
        return np.empty(shape, like.dtype)
    order = sorted(range(len(shape)), key=lambda d: -like.strides[d])
    inverse = [0] * len(order)  # np.argsort of a list costs ~5 us here
    for i, d in enumerate(order):
        inverse[d] = i
    return np.empty([shape[d] for d in order], like.dtype).transpose(inverse)


def _grad_buffers(xp, q, k, v, need):
    """Where the gradients of ``q, k, v`` are written: each in its input's layout (so viewing
    it back copies nothing; a leaf's ``.grad`` keeps its layout). When the three are disjoint
    views of one C-contiguous array (``qkv.split(...)``, then views), one array laid out like
    that one holds all three at the same places, so split's backward needs no concatenation."""
    if xp is not np:
        return None, None, None
    base = q.base
    shared = (
        all(need)
        and base is not None
        and base.flags.c_contiguous
        and all(a.base is base and a.dtype == base.dtype for a in (q, k, v))
        and q.shape == k.shape == v.shape
        and q.strides == k.strides == v.strides
        and not any(np.shares_memory(a, b) for a, b in ((q, k), (q, v), (k, v)))
    )
    if shared:
        whole, at = np.empty_like(base), base.ctypes.data
        return [
            np.ndarray(a.shape, a.dtype, whole, a.ctypes.data - at, a.strides) for a in (q, k, v)
        ]
    return [_in_layout(xp, a, a.shape) if n else None for a, n in zip((q, k, v), need)]


_Attention = node_class("ScaledDotProductFlashAttentionForCpuBackward0", _attention_vjp)


def attention(query: Tensor, key: Tensor, value: Tensor, attn_mask, is_causal: bool, scale: float):
    """``scaled_dot_product_attention`` for inputs ``fusable`` accepts (checked by the caller)."""
    xp = xp_for(query)
    mask = None if attn_mask is None else attn_mask._data
    graph = _gm.enabled and (query._rg or key._rg or value._rg)
    packed = [] if graph else None
    p = _probabilities(xp, query._data, key._data, mask, is_causal, scale, packed)
    out = _in_layout(xp, query._data, query.shape[:-1] + value.shape[-1:])
    r = _wrap(_product(xp, p, value._data, out), query._dtype, query._device)
    if graph:
        # the weights are saved like the inputs, so the engine frees them after the backward
        # (unless retain_graph), as it frees the op-by-op graph's saved softmax; under a
        # shared mask only those at the kept keys (PyTorch's flash node saves the output and
        # the rows' logsumexp, and recomputes them)
        inputs = (query, key, value, attn_mask)
        weights = packed[0] if packed else p
        saved = inputs + (_wrap(weights, query._dtype, query._device),)
        keep = packed[1] if packed else None
        record(_Attention, inputs, r, saved, is_causal=is_causal, scale=scale, keep=keep)
    return r
