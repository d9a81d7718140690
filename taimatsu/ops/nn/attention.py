"""Scaled dot-product attention as one op: the forward on arrays and one backward node
(ScaledDotProductFlashAttentionForCpuBackward0, PyTorch's name for 4-D inputs on the CPU).

The arithmetic is PyTorch's math reference, ``softmax(q @ k^T * scale + mask) @ v`` with fully
masked query rows giving 0 (``_safe_softmax``). Like PyTorch's CPU flash kernel, which this node
stands for, it is not the op-by-op form's bits: the softmax is ``exp(s - rowmax) * (1 / rowsum)``
with NumPy's exp (the flash kernel has its own exp, ``exp_u20``, and other sums); the values
agree with PyTorch's to float rounding. On the CPU the weights are laid out keys first (see
``_weights_keys_first``). The backward is written on arrays (``dS = P * (dP - rowsum(dP * P))
* scale``); when a graph of the backward is recorded (``create_graph``) it is the same formula
in Tensor ops around the probabilities recomputed in Tensor ops, so double backward works.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
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


def _scores_keys_first(q, k, mask, is_causal: bool, scale: float):
    """The scaled, masked attention scores of 4-D NumPy arrays, laid out keys first: ``w``
    (S, B, H, L) holds the score of key j for query i at ``w[j, b, h, i]``;
    ``w.transpose(1, 2, 3, 0)`` is the (B, H, L, S) matrix. In this layout the softmax's
    reductions over the keys run along the first axis, each a few long NumPy loops (over rows
    of S <= ~100 keys, NumPy's row reductions cost ~50 ns a row), and every product reads or
    writes it as a strided matrix BLAS takes as it is: no transposing copies."""
    b, h, n, _ = q.shape
    s = k.shape[-2]
    w = np.empty((s, b, h, n), q.dtype)
    gemm_threads(n * q.shape[-1] * s)
    np.matmul(k, np.swapaxes(q, -1, -2), out=w.transpose(1, 2, 0, 3))
    w *= scale
    # masks are added as PyTorch's kernels add them (a bool one as 0 / -inf): a NaN or +inf
    # score at a hidden key makes its row NaN
    if is_causal:
        w += _causal_keys_first(s, n, w.dtype)
    if mask is not None:
        scores = w.transpose(1, 2, 3, 0)
        if mask.dtype == np.bool_:
            np.subtract(scores, np.inf, out=scores, where=~mask)
        else:
            scores += mask
    return w


def _causal_keys_first(s: int, n: int, dtype):
    """The causal mask to add to keys-first scores, (S, 1, 1, L): -inf where key j comes
    after query i (j > i), else 0; made once per shape (a broadcast add: ~5x faster than
    masking key by key)."""
    key = (s, n, dtype)
    m = _CAUSAL.get(key)
    if m is None:
        if len(_CAUSAL) > 64:
            _CAUSAL.clear()
        hidden = np.arange(s)[:, None] > np.arange(n)[None, :]
        m = _CAUSAL[key] = np.where(hidden, -np.inf, 0).astype(dtype).reshape(s, 1, 1, n)
        m.flags.writeable = False
    return m


_CAUSAL: dict = {}


def _weights_keys_first(q, k, mask, is_causal: bool, scale: float):
    """The attention weights, keys first (``_scores_keys_first``), and each query's logsumexp
    (B, H, L). Like PyTorch's CPU flash kernel: ``exp(s - rowmax)`` (NumPy's exp) times 1 / its
    row sum; queries that see no key give 0 (``_safe_softmax``), not NaN, and a logsumexp of 0
    (their weights ``exp(-inf - 0)`` are 0 again when the backward recomputes them)."""
    w = _scores_keys_first(q, k, mask, is_causal, scale)
    top = w.max(axis=0, initial=-np.inf)  # no keys at all (S = 0): as if all were masked
    dead = top == -np.inf
    any_dead = bool(dead.any())
    if any_dead:
        top[dead] = 0  # exp(-inf - 0) = 0 at every key of the row
    w -= top
    np.exp(w, out=w)
    total = w.sum(axis=0)
    if any_dead:
        total[dead] = 1
    lse = np.log(total)
    lse += top
    np.divide(1, total, out=total)
    w *= total
    return w, lse


def _probabilities(xp, q, k, mask, is_causal: bool, scale: float):
    """The attention weights (..., L, S) on arrays of another module than NumPy (CuPy): the
    op-by-op form's operations, the fix-ups for dead rows unconditional (a test of them would
    make the host wait for the device)."""
    s = _matmul_array(xp, q, xp.swapaxes(k, -1, -2))
    s *= scale
    if is_causal:  # masks added, as in _weights_keys_first
        s = xp.where(xp.tri(s.shape[-2], s.shape[-1], dtype=bool), s, s - np.inf)
    if mask is not None:
        if mask.dtype == np.bool_:
            s = xp.where(mask, s, s - np.inf)
        else:
            s = s + mask
    m = xp.max(s, axis=-1, keepdims=True)
    dead = m == -np.inf
    s -= xp.where(dead, 0, m)
    e = xp.exp(s, out=s)
    total = xp.sum(e, axis=-1, keepdims=True)
    e /= xp.where(dead, 1, total)
    return e


def _probabilities_tensor(q: Tensor, k: Tensor, mask, is_causal: bool, scale: float) -> Tensor:
    """The same weights in Tensor ops (recorded when a graph of the backward is built)."""
    from ..creation.factories import ones
    from .softmax import softmax

    s = q.matmul(k.transpose(-2, -1)) * scale
    if is_causal:
        s = s + additive_mask(ones(s.size(-2), s.size(-1), dtype=D.bool).tril(), s.dtype)
    if mask is not None:
        s = s + (additive_mask(mask, s.dtype) if mask._dtype is D.bool else mask)
    dead = (s == float("-inf")).all(-1, keepdim=True)
    return softmax(s.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)


def additive_mask(keep: Tensor, dtype) -> Tensor:
    """A bool mask (True: may attend) as the float mask PyTorch's kernels add to the scores:
    0 where True, -inf where False."""
    from ..creation.factories import zeros_like

    return zeros_like(keep, dtype=dtype).masked_fill(~keep, float("-inf"))


def _attention_vjp(node, g):
    q, k, v, mask, saved = node.saved()
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
    gd = g._data
    if xp is np:  # the weights again from the scores and the saved logsumexp, keys first
        m = None if mask is None else mask._data
        w = _scores_keys_first(q._data, k._data, m, node.is_causal, node.scale)
        w -= saved._data
        np.exp(w, out=w)
        grads = _backward_keys_first(w, q._data, k._data, v._data, gd, node.scale, need)
    else:
        p = saved._data
        # ds = p * (dp - rowsum(dp * p)) * scale, in place in dp
        ds = _matmul_array(xp, gd, xp.swapaxes(v._data, -1, -2))
        ds -= (ds * p).sum(-1, keepdims=True)
        ds *= p
        ds *= node.scale
        grads = (
            _matmul_array(xp, ds, k._data) if need[0] else None,
            _matmul_array(xp, xp.swapaxes(ds, -1, -2), q._data) if need[1] else None,
            _matmul_array(xp, xp.swapaxes(p, -1, -2), gd) if need[2] else None,
        )
    return tuple(None if a is None else _wrap(a, q._dtype, q._device) for a in grads) + (None,)


def _backward_keys_first(w, q, k, v, g, scale: float, need):
    """The gradients of q, k, v from the keys-first weights ``w`` (S, B, H, L) of
    ``_weights_keys_first``: ``ds = p * (dp - rowsum(dp * p)) * scale`` with ``dp = g @ v^T``,
    computed keys first too (its row sums along the first axis); every product reads its
    matrices where they lie."""
    ds = np.empty_like(w)
    gemm_threads(q.shape[-2] * g.shape[-1] * k.shape[-2])
    np.matmul(v, np.swapaxes(g, -1, -2), out=ds.transpose(1, 2, 0, 3))  # dp, keys first
    ds -= np.einsum("j...,j...->...", ds, w)
    ds *= w
    ds *= scale
    outs = _grad_buffers(q, k, v, need)
    by_query, by_key = ds.transpose(1, 2, 3, 0), ds.transpose(1, 2, 0, 3)
    return (
        _product(by_query, k, outs[0]) if need[0] else None,
        _product(by_key, q, outs[1]) if need[1] else None,
        _product(w.transpose(1, 2, 0, 3), g, outs[2]) if need[2] else None,
    )


def _product(a, b, out):
    """``a @ b`` into ``out`` (NumPy arrays)."""
    gemm_threads(a.shape[-2] * a.shape[-1] * b.shape[-1])
    return np.matmul(a, b, out=out)


def _in_layout(like, shape):
    """An uninitialised array of ``shape`` laid out like ``like`` (dense, its dims in the order
    of ``like``'s strides) when ``like``'s last dim is contiguous, else C-contiguous. PyTorch's
    CPU flash kernel allocates its output so from the query: ``q.view(B, S, H, E).transpose(1,
    2)`` gives an output whose ``transpose(1, 2)`` is contiguous (the usual merge of the heads
    copies nothing)."""
    if like.strides[-1] != like.itemsize:
        return np.empty(shape, like.dtype)
    order = sorted(range(len(shape)), key=lambda d: -like.strides[d])
    inverse = [0] * len(order)  # np.argsort of a list costs ~5 us here
    for i, d in enumerate(order):
        inverse[d] = i
    return np.empty([shape[d] for d in order], like.dtype).transpose(inverse)


def _grad_buffers(q, k, v, need):
    """Where the gradients of ``q, k, v`` are written: each in its input's layout (so viewing
    it back copies nothing; a leaf's ``.grad`` keeps its layout). When the three are disjoint
    views of one C-contiguous array (``qkv.split(...)``, then views), one array laid out like
    that one holds all three at the same places, so split's backward needs no concatenation."""
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
    return [_in_layout(a, a.shape) if n else None for a, n in zip((q, k, v), need)]


_Attention = node_class("ScaledDotProductFlashAttentionForCpuBackward0", _attention_vjp)


def attention(query: Tensor, key: Tensor, value: Tensor, attn_mask, is_causal: bool, scale: float):
    """``scaled_dot_product_attention`` for inputs ``fusable`` accepts (checked by the caller)."""
    xp = xp_for(query)
    mask = None if attn_mask is None else attn_mask._data
    q, v = query._data, value._data
    if xp is np:
        w, keep = _weights_keys_first(q, key._data, mask, is_causal, scale)
        out = _product(w.transpose(1, 2, 3, 0), v, _in_layout(q, q.shape[:-1] + v.shape[-1:]))
    else:
        w = keep = _probabilities(xp, q, key._data, mask, is_causal, scale)
        out = _matmul_array(xp, w, v)
    r = _wrap(out, query._dtype, query._device)
    if _gm.enabled and (query._rg or key._rg or value._rg):
        # saved like the inputs, so the engine frees it after the backward (unless
        # retain_graph): on the CPU each query's logsumexp, from which the backward recomputes
        # the weights, as PyTorch's flash node does (the weights themselves, (S, B, H, L), would
        # be the largest thing the node keeps); elsewhere the weights
        inputs = (query, key, value, attn_mask)
        saved = inputs + (_wrap(keep, query._dtype, query._device),)
        record(_Attention, inputs, r, saved, is_causal=is_causal, scale=scale)
    return r
