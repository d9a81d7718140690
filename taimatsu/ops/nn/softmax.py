"""softmax and log_softmax: the kernels with PyTorch's nodes (SoftmaxBackward0,
LogSoftmaxBackward0); half-precision inputs accumulate in float32 as PyTorch's CPU kernels do."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.float32_math import softmax as f32_softmax
from ...backend.fp_errors import silent
from .._dispatch import _fw_state, record, scalar_name, xp_for
from ..arg_types import integer
from ..pointwise.common import rounded_once
from ..reduction.reduce import rounded, widen


# ---- softmax ---------------------------------------------------------------------------------
def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def _widened(y, g):
    """float16/bfloat16 backward in float32, rounded once, as PyTorch's CPU kernels do."""
    if y._dtype in (D.float16, D.bfloat16):
        return y.float(), g.float(), y._dtype
    return y, g, None


def _on_arrays(y: Tensor, g: Tensor) -> bool:
    """No graph of the backward to record, and float32/float64: the VJP on arrays, with the
    same NumPy operations the Tensor ops run (the same bits)."""
    return not _gm.enabled and y._dtype in _FLOATS and g._dtype is y._dtype


_FLOATS = (D.float32, D.float64)
# torch.exp's kernel (float32: exp in float64, rounded once)
_exp = rounded_once(lambda xp, a: xp.exp(a))


def _sum(xp, a, dim):
    return np.add.reduce(a, axis=dim, keepdims=True) if xp is np else xp.sum(a, dim, keepdims=True)


def _f32_lastdim(node, y, g) -> bool:
    """float32 on the CPU over the last dimension: PyTorch's vectorised backward kernel
    (``backend.float32_math.softmax.backward_lastdim``)."""
    yd = y._data
    return yd.dtype == np.float32 and node.dim == yd.ndim - 1 and yd.size and xp_for(y) is np


def _f32_cpu(yd, gd) -> bool:
    return yd.dtype == np.float32 and yd.__class__ is np.ndarray and gd.__class__ is np.ndarray


def _softmax_vjp(node, g):
    (y,) = node.saved()
    if _on_arrays(y, g) and y._data.ndim:
        xp, yd, gd = xp_for(y), y._data, g._data
        if _f32_lastdim(node, y, g):
            return (_wrap(f32_softmax.backward_lastdim(yd, gd, False), y._dtype, y._device),)
        return (_wrap(yd * (gd - _sum(xp, gd * yd, node.dim)), y._dtype, y._device),)
    y, g, half = _widened(y, g)
    gx = y * (g - (g * y).sum(node.dim, keepdim=True))
    return (gx if half is None else gx.to(half),)


def _log_softmax_vjp(node, g):
    (y,) = node.saved()
    if y._data.ndim and y._dtype in _FLOATS and g._dtype is y._dtype:
        gx = _wrap(_log_softmax_grad(node.dim, y, g), y._dtype, y._device)
        if _gm.enabled and (y._rg or g._rg):  # create_graph: the kernel's bits, a node of its own
            record(_LogSoftmaxBackwardData, (g, y), gx, (g, y), dim=node.dim)
        return (gx,)
    y, g, half = _widened(y, g)
    gx = g - y.exp() * g.sum(node.dim, keepdim=True)
    return (gx if half is None else gx.to(half),)


@silent
def _log_softmax_grad(d: int, y: Tensor, g: Tensor):
    """``g - exp(y) * sum(g, d)`` on arrays: float32 on the CPU as PyTorch's kernels compute it
    (over the last dimension or another one), else the formula, op by op."""
    xp, yd, gd = xp_for(y), y._data, g._data
    if _f32_cpu(yd, gd) and yd.size:
        if d == yd.ndim - 1:
            return f32_softmax.backward_lastdim(yd, gd, True)
        shape = yd.shape
        as3 = (math.prod(shape[:d]), shape[d], math.prod(shape[d + 1 :]))
        gx = f32_softmax.log_softmax_backward_dim(yd.reshape(as3), gd.reshape(as3))
        return gx.reshape(shape)
    return gd - _exp(xp, yd) * _sum(xp, gd, d)


def _log_softmax_grad_vjp(node, u):
    """Double backward through log_softmax's gradient ``g - exp(y) * sum(g)``."""
    g, y = node.saved()
    e = y.exp()
    gg = u - (u * e).sum(node.dim, keepdim=True) if _need(node, 0) else None
    gy = -u * e * g.sum(node.dim, keepdim=True) if _need(node, 1) else None
    return gg, gy


def _need(node, i: int) -> bool:
    return node.next_functions[i][0] is not None


_LogSoftmaxBackwardData = node_class("LogSoftmaxBackwardDataBackward0", _log_softmax_grad_vjp)


_Softmax = node_class("SoftmaxBackward0", _softmax_vjp)


_LogSoftmax = node_class("LogSoftmaxBackward0", _log_softmax_vjp)


def _softmax_common(input, dim, dtype, log: bool):
    name = "log_softmax" if log else "softmax"
    if dtype is not None:
        input = input.to(D.dtype_argument(name, dtype))
    category = input._dtype.category  # a non-tensor fails here first, as F.softmax's does
    if dim.__class__ is not int:
        integer(name, "dim", 2, dim)
    d = _wrap_dim(dim, input._data.ndim)  # PyTorch checks the dim before the kernel's dtype
    if category != D.FLOAT:
        if not input._data.size:  # no element reaches the kernel
            return _wrap(xp_for(input).empty_like(input._data), input._dtype, input._device)
        last = "_lastdim" if d >= input._data.ndim - 1 else ""
        kernel = f"{name}{last}_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input._dtype)}'")
    x = widen(input._data)
    xp = xp_for(input)
    if x.ndim == 0:
        data = xp.zeros_like(x) if log else xp.ones_like(x)
    elif xp is np and x.dtype == np.float32 and x.size and x is input._data:  # not half types
        data = _softmax_f32(x, d, log)
    else:
        # Subtract the max (stability); -inf rows stay NaN as in PyTorch.
        shifted = x - xp.max(x, axis=d, keepdims=True) if x.size else x
        e = xp.exp(shifted)
        s = xp.sum(e, axis=d, keepdims=True)
        half, last = input._data.dtype, d == x.ndim - 1
        if x is input._data:
            data = shifted - xp.log(s) if log else e / s
        elif log and last:  # PyTorch's last-dim half kernel rounds the sum and its log to half
            data = shifted - rounded(xp.log(rounded(s, half)), half)
        elif log:  # its kernel for the other dims works in float32 throughout
            data = shifted - xp.log(s)
        elif last or math.prod(x.shape[d + 1 :]) >= 16:
            # multiplies by the reciprocal of the float32 sum (the other dims' kernel: in its
            # full vectors; the scalar tail, which depends on the CPU's vector width, below)
            data = e * (1 / s)
        else:  # fewer than 16 inner elements fill no vector: exp stored in the half type first
            data = rounded(e, half) / s
    return _softmax_result(input, data.astype(input._data.dtype, copy=False), d, log)


def _softmax_result(input: Tensor, data, d: int, log: bool) -> Tensor:
    """The result of (log_)softmax over dim ``d`` from its array: its node, its tangent."""
    r = _wrap(data, input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_LogSoftmax if log else _Softmax, (input,), r, (r,), dim=d if data.ndim else ())
    if _fw_state.level and input._fw is not None:
        t = input._fw
        if log:
            r._fw = t - (t * r.exp()).sum(d, keepdim=True)
        else:
            r._fw = r * (t - (t * r).sum(d, keepdim=True))
        _register(r)
    return r


def _softmax_f32(x, d: int, log: bool):
    """float32 CPU: PyTorch's vectorised kernels step by step (``backend.float32_math.softmax``:
    SLEEF's exp, the sums in the kernels' order), bit-identical in >99.9% of elements."""
    shape = x.shape
    inner = math.prod(shape[d + 1 :])
    if d == len(shape) - 1:  # PyTorch's last-dimension kernel
        r = f32_softmax.softmax_lastdim(np.ascontiguousarray(x).reshape(-1, shape[d]), log)
    else:
        r = f32_softmax.softmax_dim(np.ascontiguousarray(x).reshape(-1, shape[d], inner), log)
    return r.reshape(shape)


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    return _softmax_common(input, dim, dtype, log=False)


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    return _softmax_common(input, dim, dtype, log=True)


def log_softmax_f32_rows(input: Tensor) -> Tensor:
    """``log_softmax(input, 1)`` of a 2-d float32 CPU tensor with at least one element, without
    the argument checks (cross-entropy's fast path has made them): the same kernel and node."""
    return _softmax_result(input, f32_softmax.softmax_lastdim(input._data, True), 1, True)
