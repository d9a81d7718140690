"""Scans: cumsum and cumprod, with PyTorch's gradients (exact when the input has zeros)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._layout import row_major
from ..._tensor.core import Tensor, _wrap, _wrapdim
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.fp_errors import silent
from .._dispatch import _fw_state, need_tensor, record, scalar_name, write_out, xp_for
from ..pointwise.common import _FLOAT
from ..pointwise.select import where
from .reduce import _acc_dtype, _set_tangent, _xp, need_int_dim, widen


# ---- scans ---------------------------------------------------------------------------------------------
def _cumsum_vjp(node, g):
    if not g._data.ndim:
        return (g,)
    d = node.dim
    return (g.flip(d).cumsum(d).flip(d),)


_Cumsum = node_class("CumsumBackward0", _cumsum_vjp)


@silent
def _scan(input, dim, dtype, f):
    a = input._data
    d = _wrapdim(dim, a.ndim)
    dt = _acc_dtype(input, dtype)
    if dt is D.bool:  # an explicit (or out=) bool dtype; bool inputs accumulate in int64
        raise NotImplementedError(f"\"{f.__name__}_out_cpu\" not implemented for 'Bool'")
    if dt is not input._dtype:
        a = a.astype(dt.np)
    r = f(_scan_widen(a), axis=d).astype(a.dtype, copy=False) if a.ndim else a.copy()
    return _wrap(row_major(xp_for(input), r), dt, input._device), d


# PyTorch's CPU scans carry the running value in ``acc_type`` (double for float32, complex double
# for complex64, float for the half types) and round each output to the dtype: a float32 running
# sum would drift from theirs in the last bits after a few terms.
_SCAN_ACC = {np.dtype(np.float32): np.float64, np.dtype(np.complex64): np.complex128}


def _scan_widen(a):
    acc = _SCAN_ACC.get(a.dtype)
    return widen(a) if acc is None else a.astype(acc)


def cumsum(input: Tensor, dim: int, *, dtype=None, out=None) -> Tensor:
    need_tensor("cumsum", input)
    dtype = D.dtype_argument("cumsum", dtype)
    need_int_dim("cumsum", dim, False)
    if out is not None and dtype is None and isinstance(out, Tensor):
        dtype = out._dtype  # the out= variant computes in the out tensor's dtype
    if dtype in D._SHELL_UINTS and input._data.size:  # PyTorch has no uint16/32/64 kernel
        raise NotImplementedError(
            f"\"cumsum_out_cpu\" not implemented for 'UInt{dtype.itemsize * 8}'"
        )
    res, d = _scan(input, dim, dtype, _xp(input).cumsum)
    if input._rg and _gm.enabled:
        record(_Cumsum, (input,), res, (), dim=d)
    if _fw_state.level and input._fw is not None:
        _set_tangent(res, lambda: cumsum(input._fw, d, dtype=res._dtype))
    return res if out is None else write_out(out, res, "cumsum")


def _cumprod_matrix(x: Tensor, d: int) -> Tensor:
    """C[..., i, j] = prod_{k <= j, k != i} x_k for i <= j, else 0 (dim ``d`` moved last).

    The exact Jacobian of cumprod, used when ``x`` has zeros (the division formula fails).
    """
    from ..creation.ranges import eye

    xm = x.movedim(d, -1)
    n = xm._data.shape[-1]
    e = eye(n, dtype=D.bool, device=x._device)
    rows = xm.unsqueeze(-2).expand(*xm.shape[:-1], n, n).masked_fill(e, 1).cumprod(-1)
    below = e.logical_not().tril()  # j < i: x_i comes after out_j
    return rows.masked_fill(below, 0)


def _cumprod_vjp(node, g):
    x, out = node.saved()
    if not x._data.ndim:
        return (g,)
    d = node.dim
    if not bool((x._data == 0).any()):
        # conj: the conjugate Wirtinger gradient of a holomorphic op (a no-op for real x)
        return ((g * out.conj()).flip(d).cumsum(d).flip(d) / x.conj(),)
    c = _cumprod_matrix(x, d).conj()
    gm = g.movedim(d, -1).unsqueeze(-2)
    return ((c * gm).sum(-1).movedim(-1, d),)


_Cumprod = node_class("CumprodBackward0", _cumprod_vjp)


def _cumprod_jvp(x, out, d, t):
    if not x._data.ndim:
        return t.clone()
    if not bool((x._data == 0).any()):
        return out * (t / x).cumsum(d)
    return (_cumprod_matrix(x, d) * t.movedim(d, -1).unsqueeze(-1)).sum(-2).movedim(-1, d)


def cumprod(input: Tensor, dim: int, *, dtype=None, out=None) -> Tensor:
    need_tensor("cumprod", input)
    dtype = D.dtype_argument("cumprod", dtype)
    need_int_dim("cumprod", dim, False)
    if out is not None and dtype is None and isinstance(out, Tensor):
        dtype = out._dtype  # the out= variant computes in the out tensor's dtype
    if dtype in D._SHELL_UINTS and input._data.size:  # PyTorch has no uint16/32/64 kernel
        raise NotImplementedError(
            f"\"cumprod_out_cpu\" not implemented for 'UInt{dtype.itemsize * 8}'"
        )
    res, d = _scan(input, dim, dtype, _xp(input).cumprod)
    if input._rg and _gm.enabled:
        record(_Cumprod, (input,), res, (input, res), dim=d)
    if _fw_state.level and input._fw is not None:
        # PyTorch's formulas use the input as it is even when dtype= converts it (a complex input
        # with a real dtype: the real part of the complex formula, not the derivative of the cast).
        _set_tangent(res, lambda: _cumprod_jvp(input, res, d, input._fw).to(res._dtype))
    return res if out is None else write_out(out, res, "cumprod")


# ---- logcumsumexp ------------------------------------------------------------------------------------------------
def _logcumsumexp_vjp(node, g):
    x, out = node.saved()
    d = node.dim
    if x.numel() == 0 or x.dim() == 0:
        return (g,)
    # grad_i = sum_{j >= i} g_j exp(x_i - out_j), shifted by the last (largest) cumulative value;
    # complex inputs: conjugated (holomorphic op), shifted by the real part.
    s = out.detach().narrow(d, out.shape[d] - 1, 1).real
    s = where(s.isinf(), s.new_zeros(()), s)
    w = (g * (s - out).exp().conj()).flip(d).cumsum(d).flip(d)
    return (w * (x - s).exp().conj(),)


_Logcumsumexp = node_class("LogcumsumexpBackward0", _logcumsumexp_vjp)


def _logcumsumexp_complex(xp, a, d):
    """Accumulate with PyTorch's complex logaddexp (the operand with the larger real part
    factors out), so the imaginary parts match PyTorch's, which need not be principal."""
    a = xp.moveaxis(a, d, 0)
    r = a.copy()
    for k in range(1, a.shape[0]):
        acc, x = r[k - 1], a[k]
        first = acc.real >= x.real
        m, o = xp.where(first, acc, x), xp.where(first, x, acc)
        r[k] = xp.where((m == o) & xp.isinf(m), m, m + xp.log1p(xp.exp(o - m)))
    return xp.moveaxis(r, 0, d)


def _logaddexp_accumulate(xp, a, d: int):
    """``logaddexp.accumulate(a, axis=d)``: NumPy's ufunc method, or on CuPy (whose ufuncs
    accumulate only add and multiply) the same left-to-right recurrence, one step per call."""
    if xp is np:
        return np.logaddexp.accumulate(a, axis=d)
    r = xp.array(a, copy=True)
    steps = xp.moveaxis(r, d, 0)
    for t in range(1, steps.shape[0]):
        xp.logaddexp(steps[t - 1 : t], steps[t : t + 1], out=steps[t : t + 1])
    return r


@silent
def logcumsumexp(input, dim, *, out=None):
    """``log(cumsum(exp(input), dim))``, stable (a log-add-exp accumulation)."""
    if input._dtype.category < _FLOAT:
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{scalar_name(input._dtype)}'"
        )
    a = input._data
    nd = max(a.ndim, 1)
    if not -nd <= dim < nd:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})"
        )
    d = dim % nd
    xp = xp_for(input)
    if a.ndim == 0:
        r = a.copy()
    elif a.dtype.kind == "c":
        r = _logcumsumexp_complex(xp, a, d)
    else:
        # PyTorch carries the running value in acc_type (double for float32, float for the
        # half types) and rounds each output to the dtype
        r = _logaddexp_accumulate(
            xp, a.astype(_SCAN_ACC.get(a.dtype, np.float32)) if a.dtype.itemsize < 8 else a, d
        )
    res = _wrap(row_major(xp, r.astype(a.dtype, copy=False)), input._dtype, input._device)
    if _gm.enabled and input._rg:
        record(_Logcumsumexp, (input,), res, (input, res), dim=d)
    from ...autograd.forward_ad import _register
    from .._dispatch import _fw_state

    if _fw_state.level and input._fw is not None:
        from ...autograd.forward_ad import on_primals as _on_primals

        def tangent(x, o, t):
            s = (o.detach().narrow(d, o.shape[d] - 1, 1) if o.dim() else o.detach()).real
            s = where(s.isinf(), s.new_zeros(()), s)
            return (t * (x - s).exp()).cumsum(d) / (o - s).exp() if o.dim() else t

        res._fw = _on_primals(tangent, input, res, input._fw)
        _register(res)
    return (
        res
        if out is None
        else write_out(out, res, "logcumsumexp", "expected scalar_type {res} but found {out}")
    )
