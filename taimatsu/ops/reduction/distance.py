"""Distances and small linear-algebra ops: cdist, dist, renorm, cross (torch.cross and
linalg.cross), chain_matmul. Gradients reuse the vector-norm derivative of ops/reduction/norms.py
(zero where a distance is zero, like PyTorch)."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._autocast import FP32, cast_policy
from ..._tensor.core import Tensor, _wrap, _wrapdim
from ...autograd.forward_ad import _register, on_primals
from ...autograd.grad_mode import no_grad
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.fp_errors import silent
from .._dispatch import (
    OUT_EXACT,
    _fw_state,
    need_tensor,
    record,
    result_dtype,
    scalar_name,
    takes_out,
    xp_for,
)  # fmt: skip
from .norms import _norm_coef, vector_norm


def _fw(t: Tensor):
    return t._fw if t._fw is not None else t.detach() * 0


# ---- cdist -------------------------------------------------------------------------------------------------
def _cdist_coef(x1, x2, out, p):
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., P, R, M)
    if math.isinf(p):  # unlike vector_norm's, PyTorch's cdist gives every tied entry the whole g
        return diff, diff.sgn() * (diff.abs() == out.unsqueeze(-1))
    return diff, _norm_coef(diff, out.unsqueeze(-1), p, (-1,))


def _cdist_vjp(node, g):
    x1, x2, out = node.saved()
    _, coef = _cdist_coef(x1, x2, out, node.p)
    if coef is None:  # p = 0: PyTorch's kernel gives zeros
        return x1.new_zeros(x1.shape), x2.new_zeros(x2.shape)
    gd = g.unsqueeze(-1) * coef
    return gd.sum(-2), -gd.sum(-3)


_Cdist = node_class("CdistBackward0", _cdist_vjp)
_Euclid = node_class("EuclideanDistBackward0", _cdist_vjp)


def _cdist_jvp(x1, x2, out, p):
    _, coef = _cdist_coef(x1, x2, out, p)
    if coef is None:
        return out * 0
    return (coef * (_fw(x1).unsqueeze(-2) - _fw(x2).unsqueeze(-3))).sum(-1)


def _euclid_mm(xp, a, b):
    """PyTorch's matmul form of the euclidean distance (its float32 rounding included)."""
    an = (a * a).sum(-1, keepdims=True)
    bn = (b * b).sum(-1, keepdims=True)
    a_ = xp.concatenate([-2 * a, an, xp.ones_like(an)], -1)
    b_ = xp.concatenate([b, xp.ones_like(bn), bn], -1)
    r = xp.matmul(a_, xp.swapaxes(b_, -1, -2))
    return xp.sqrt(xp.maximum(r, 1e-30))


@cast_policy(FP32)
@silent
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode=None) -> Tensor:
    need_tensor("cdist", x1, "x1")
    need_tensor("cdist", x2, "x2", 2)
    if x1._data.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1._data.ndim}D")
    if x2._data.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2._data.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1._dtype.category != D.FLOAT:
        raise RuntimeError(
            f"cdist only supports floating-point dtypes, X1 got: {scalar_name(x1._dtype)}"
        )
    batch = tuple(np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2]))
    P, R = x1.shape[-2], x2.shape[-2]
    xp = xp_for(x1)
    a = xp.broadcast_to(x1._data, batch + x1._data.shape[-2:])
    b = xp.broadcast_to(x2._data, batch + x2._data.shape[-2:])
    p = float(p)
    mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist"
        or (compute_mode in (None, "use_mm_for_euclid_dist_if_necessary") and (P > 25 or R > 25))
    )
    if mm:
        data = _euclid_mm(xp, a, b)
    else:
        diff = xp.abs(a[..., :, None, :] - b[..., None, :, :])
        if p == 0:
            data = (diff != 0).sum(-1).astype(a.dtype)
        elif math.isinf(p):
            # no ``initial=0`` for zero features: CuPy's max lacks it
            data = diff.max(-1) if diff.shape[-1] else xp.zeros(diff.shape[:-1], diff.dtype)
        elif p == 1:
            data = diff.sum(-1)
        elif p == 2:
            data = xp.sqrt((diff * diff).sum(-1))
        else:
            data = (diff**p).sum(-1) ** (1 / p)
    r = _wrap(xp.asarray(data, x1._dtype.np), x1._dtype, x1._device)
    if _gm.enabled and (x1._rg or x2._rg):
        record(_Euclid if mm else _Cdist, (x1, x2), r, (x1, x2, r), p=p)
    if _fw_state.level and (x1._fw is not None or x2._fw is not None):
        r._fw = on_primals(_cdist_jvp, x1, x2, r, p)
        _register(r)
    return r.view(r.shape) if mm else r


# ---- dist ------------------------------------------------------------------------------------------------------
def _dist_coef(a, b, out, p):
    diff = a - b
    return _norm_coef(diff, out, p, tuple(range(diff.dim())))


def _dist_vjp(node, g):
    a, b, out = node.saved()
    coef = _dist_coef(a, b, out, node.p)
    if coef is None:
        # p = 0: PyTorch's formula leaves the gradient undefined, and other's, its negation,
        # fails on it
        if node.next_functions[1][0] is not None:
            raise RuntimeError(
                "Expected a proper Tensor but got None (or an undefined Tensor in C++) for "
                "argument #0 'self'"
            )
        return None, None
    gd = g * coef
    return gd, -gd


_Dist = node_class("DistBackward0", _dist_vjp)


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    dt = result_dtype(input, other)
    if dt.category < D.FLOAT:
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got {scalar_name(dt)} instead."
        )
    with no_grad():
        r = vector_norm(input.detach().to(dt) - other.detach().to(dt), p)
    if _gm.enabled and (input._rg or other._rg):
        record(_Dist, (input, other), r, (input, other, r), p=float(p))
    if _fw_state.level and (input._fw is not None or other._fw is not None):

        def jvp(a, b, out):
            coef = _dist_coef(a, b, out, float(p))
            return out * 0 if coef is None else (coef * (_fw(a) - _fw(b))).sum()

        r._fw = on_primals(jvp, input, other, r)
        _register(r)
    return r


# ---- renorm -------------------------------------------------------------------------------------------------------
def _renorm_parts(x: Tensor, p, dims, maxnorm):
    n = vector_norm(x, p, dims, True)
    over = n > maxnorm
    factor = (maxnorm / (n + 1e-7)).masked_fill(~over, 1.0)
    dfactor = (-maxnorm / (n + 1e-7).pow(2)).masked_fill(~over, 0.0)
    return n, factor, dfactor


def _renorm_vjp(node, g):
    (x,) = node.saved()
    n, factor, dfactor = _renorm_parts(x, node.p, node.dims, node.maxnorm)
    coef = _norm_coef(x, n, node.p, node.dims)
    gx = g * factor
    if coef is not None:
        gx = gx + coef * dfactor * (g * x).sum(node.dims, keepdim=True)
    return (gx,)


_Renorm = node_class("RenormBackward0", _renorm_vjp)


@takes_out("renorm", OUT_EXACT)
def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    nd = input._data.ndim
    if nd < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    d = _wrapdim(dim, nd)
    dims = tuple(k for k in range(nd) if k != d)
    p = float(p)
    with no_grad():
        _, factor, _ = _renorm_parts(input.detach(), p, dims, maxnorm)
        r = input.detach() * factor.to(input.dtype)
    if input._rg and _gm.enabled:
        record(_Renorm, (input,), r, (input,), p=p, dims=dims, maxnorm=maxnorm)
    if _fw_state.level and input._fw is not None:

        def jvp(x):
            n, factor, dfactor = _renorm_parts(x, p, dims, maxnorm)
            coef = _norm_coef(x, n, p, dims)
            t = x._fw * factor
            return t if coef is None else t + x * dfactor * (coef * x._fw).sum(dims, keepdim=True)

        r._fw = on_primals(jvp, input)
        _register(r)
    return r


def renorm_(self: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    from .._dispatch import inplace

    return inplace(self, lambda s: renorm(s, p, dim, maxnorm), (), True)
