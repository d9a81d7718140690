"""``torch.linalg.lu``, ``torch.lu_unpack`` and ``torch.linalg.lstsq``, with VJPs and JVPs in
Tensor ops (double backward works through them).

LU: A = P L U with partial pivoting (SciPy's getrf, as PyTorch's CPU LAPACK). The VJP packs
(gL, gU) like lu_factor's LU and uses its gradient (``_linalg_grads.lu_factor_vjp``); the JVP
unpacks lu_factor's packed tangent. lstsq calls LAPACK's gels/gelsy/gelsd/gelss per matrix,
so rank, residuals and singular values follow each driver as in PyTorch.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .. import _dtype as D
from .._autocast import FP32, cast_policy
from .._tensor.core import Tensor, _wrap
from ..autograd.forward_ad import _register, on_primals
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import node_class
from ..ops._dispatch import _fw_state, record, xp_for
from ..ops.contraction.matmul import matmul
from ..ops.on_host import on_host
from . import _h, _sname
from .decompositions import _return_type

_Lstsq = _return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def _tangents(outs, fn, *args) -> None:
    ts = on_primals(fn, *args)
    for o, t in zip(outs, ts):
        o._fw = t
        _register(o)


# ---- lstsq ---------------------------------------------------------------------------------------------------------
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


class _RankDeficient(Exception):  # a signal inside this module, never raised out of it
    """'gels' met a zero on R's diagonal (LAPACK's ``info``: its 1-based index)."""


def _lstsq_one(a, b, driver, rcond):
    """(solution, residuals or None, rank or None, singular values or None) for one matrix."""
    import scipy.linalg
    from scipy.linalg import lapack

    m, n = a.shape
    real = np.abs(a[:0, :0]).dtype
    if driver == "gels":
        if a.size == 0 or b.size == 0:  # PyTorch's residuals of a tall empty system: zeros
            x = np.zeros((n, b.shape[1]), a.dtype)
            return x, np.zeros(b.shape[1], real) if m > n else None, None, None
        (gels,) = lapack.get_lapack_funcs(("gels",), (a, b))
        bb = np.zeros((max(m, n), b.shape[1]), b.dtype)
        bb[:m] = b
        _, x, info = gels(a, bb)
        if info > 0:  # a zero on R's diagonal: not of full rank
            raise _RankDeficient(info)
        res = (np.abs(x[n:]) ** 2).sum(0) if m > n else None
        return x[:n], res, None, None
    if a.size == 0 or b.size == 0:
        k = min(m, n)
        x = np.zeros((n, b.shape[1]), a.dtype)
        s = np.zeros(k, real) if driver != "gelsy" else None
        # gelsd/gelss: the residuals of x = 0, b's squared norms (rank 0 is full when n is 0)
        res = (np.abs(b) ** 2).sum(0).astype(real) if m > n == 0 and driver != "gelsy" else None
        return x, res, 0, s
    try:
        x, res, rank, s = scipy.linalg.lstsq(
            a, b, cond=rcond, lapack_driver=driver, check_finite=False
        )
    except ValueError as e:  # LAPACK refused an argument (gelsd given inf/NaN): PyTorch's assert
        arg = re.search(r"illegal value in (\d+)", str(e))
        if arg is None:
            raise
        raise RuntimeError(
            'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
            'BatchLinearAlgebra.cpp":1613, please report a bug to PyTorch. torch.linalg.lstsq: '
            f"Argument {arg.group(1)} has illegal value. Most certainly there is a bug in the "
            "implementation calling the backend library."
        ) from None
    res = np.asarray(res) if m > n and rank == n and driver != "gelsy" else None
    return x, res, rank, s if driver != "gelsy" else None


def _check_lstsq(A, B, driver):
    name = "torch.linalg.lstsq"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if B.dim() < 1:
        raise RuntimeError(f"{name}: other must have at least 1 dimension.")
    if A._dtype.category < D.FLOAT or A._dtype in (D.float16, D.bfloat16):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A._dtype is not B._dtype:
        raise RuntimeError(
            f"{name}: Expected input and other to have the same dtype, but got input's dtype {_sname(A)} and other's "
            f"dtype {_sname(B)}"
        )
    if not (0 <= A.dim() - B.dim() <= 1):
        raise RuntimeError(
            f"{name}: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1"
        )
    if driver is not None and driver not in _DRIVERS:
        raise RuntimeError(
            f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    vec = B.dim() == A.dim() - 1
    if (B.shape[-1] if vec else B.shape[-2]) != A.shape[-2]:
        which = "other.size(-1)" if vec else "other.size(-2)"
        raise RuntimeError(f"{name}: input.size(-2) should match {which}")
    return vec


def _pinv(A: Tensor, full_rank: bool) -> Tensor:
    """A's pseudo-inverse, differentiably: from its Gram matrix when A has full rank, else pinv."""
    from . import solve
    from .solvers import pinv

    m, n = A.shape[-2], A.shape[-1]
    if not full_rank:
        return pinv(A)
    return solve(matmul(_h(A), A), _h(A)) if m >= n else _h(solve(matmul(A, _h(A)), A))


def _lstsq_vjp(node, gX, gR, g_rank=None, g_sv=None):
    A, B, X = node.saved()
    if node.vec:
        B, X = B.unsqueeze(-1), X.unsqueeze(-1)
        gX = gX.unsqueeze(-1) if gX is not None else None
    gA = gB = None
    if gX is not None:
        Pi = _pinv(A, node.full_rank)
        r = matmul(A, X) - B
        n = A.shape[-1]
        from ..ops.creation.ranges import eye

        PiA = eye(n, dtype=A.dtype, device=A.device) - matmul(Pi, A)
        gA = -matmul(_h(Pi), matmul(gX, _h(X))) - matmul(r, matmul(_h(gX), matmul(Pi, _h(Pi))))
        gA = gA + matmul(matmul(_h(Pi), X), matmul(_h(gX), PiA))
        gB = matmul(_h(Pi), gX)
    if gR is not None and gR.numel():
        w = (matmul(A, X) - B) * gR.unsqueeze(-2).to(A.dtype) * 2
        tA, tB = matmul(w, _h(X)), -w
        gA, gB = (tA, tB) if gA is None else (gA + tA, gB + tB)
    if node.vec and gB is not None:
        gB = gB.squeeze(-1)
    return gA, gB


_LstsqNode = node_class("LinalgLstsqBackward0", _lstsq_vjp, materialize=False)


def _lstsq_jvp(A, B, X, R, vec, full_rank):
    dA = A._fw if A._fw is not None else A * 0
    dB = B._fw if B._fw is not None else B * 0
    if vec:
        B, X, dB = B.unsqueeze(-1), X.unsqueeze(-1), dB.unsqueeze(-1)
    Pi = _pinv(A, full_rank)
    n = A.shape[-1]
    from ..ops.creation.ranges import eye

    r = matmul(A, X) - B
    # dX = dPi B + Pi dB, dPi = -Pi dA Pi + Pi Pi^H dA^H (I - A Pi) + (I - Pi A) dA^H Pi^H Pi
    dX = -matmul(Pi, matmul(dA, X)) - matmul(matmul(Pi, _h(Pi)), matmul(_h(dA), r))
    dX = dX + matmul(
        eye(n, dtype=A.dtype, device=A.device) - matmul(Pi, A), matmul(_h(dA), matmul(_h(Pi), X))
    )
    dX = dX + matmul(Pi, dB)
    dR = R * 0
    if R.numel():
        dr = matmul(dA, X) - dB
        dR = 2 * (r.conj() * dr).real.sum(-2) if r.is_complex() else 2 * (r * dr).sum(-2)
    return (dX.squeeze(-1) if vec else dX), dR


@cast_policy(FP32, ("cpu",))
def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None, out=None):
    """``torch.linalg.lstsq``: least-squares solution of A X = B per LAPACK driver (CPU default
    'gelsy'; CUDA tensors: 'gels' only, as PyTorch's cuSOLVER/MAGMA path)."""
    if isinstance(A, Tensor) and A._device.type == "cuda" and driver != "gels":
        if driver is not None:
            _check_lstsq(A, B, driver)  # an unknown driver's error comes first
            raise RuntimeError(
                "torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA"
            )
        driver = "gels"
    return _lstsq(A, B, rcond, driver=driver, out=out)


@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def _lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None, out=None):
    """``lstsq`` on the host, per LAPACK driver (default 'gelsy'). residuals: only for m > n,
    full rank and a driver other than gelsy (gels: always for m > n); rank: not for gels;
    singular_values: gelsd and gelss."""
    vec = _check_lstsq(A, B, driver)
    driver = driver or "gelsy"
    a, b = np.asarray(A._data), np.asarray(B._data)
    if vec:
        b = b[..., None]
    m, n = a.shape[-2:]
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    count = math.prod(lead)
    af = np.broadcast_to(a, lead + a.shape[-2:]).reshape((count,) + a.shape[-2:])
    bf = np.broadcast_to(b, lead + b.shape[-2:]).reshape((count,) + b.shape[-2:])
    rt = A._dtype.to_real()
    if rcond is None:
        rcond = float(np.finfo(rt.np).eps) * max(m, n)
    outs = []
    for i in range(count):
        try:
            outs.append(_lstsq_one(af[i], bf[i], driver, rcond))
        except _RankDeficient as e:
            from .decompositions import _batch_msg, _LinAlgError

            msg = ("The least squares solution could not be computed because the input matrix "
                   f"does not have full rank (error code: {e.args[0]}).")  # fmt: skip
            raise _LinAlgError("torch.linalg.lstsq: " + _batch_msg(i, count > 1 or A.dim() > 2,
                                                                   msg)) from None  # fmt: skip
    nrhs = b.shape[-1]
    x = (
        np.stack([o[0] for o in outs]).reshape(lead + (n, nrhs))
        if count
        else np.zeros(lead + (n, nrhs), a.dtype)
    )
    if vec:
        x = x[..., 0]
    has_res = count > 0 and all(o[1] is not None for o in outs)
    res = (
        np.stack([o[1] for o in outs]).reshape(lead + (nrhs,)) if has_res else np.zeros((0,), rt.np)
    )
    if driver == "gels":
        rank = np.zeros((0,), np.int64)
    else:
        rank = np.asarray([o[2] for o in outs], np.int64).reshape(lead)
    if driver in ("gelsd", "gelss"):
        k = min(m, n)
        sv = (
            np.stack([o[3] for o in outs]).reshape(lead + (k,))
            if count
            else np.zeros(lead + (k,), rt.np)
        )
    else:
        sv = np.zeros((0,), rt.np)
    full_rank = driver == "gels" or bool(np.all(rank == min(m, n)))  # gels assumes full rank
    xp, dev = xp_for(A), A._device
    X = _wrap(xp.asarray(x.astype(A._dtype.np, copy=False)), A._dtype, dev)
    R = _wrap(xp.asarray(res.astype(rt.np, copy=False)), rt, dev)
    rank_t = _wrap(xp.asarray(rank), D.int64, dev)
    S = _wrap(xp.asarray(sv.astype(rt.np, copy=False)), rt, dev)
    if _gm.enabled and (A._rg or B._rg):
        record(_LstsqNode, (A, B), (X, R, rank_t, S), (A, B, X), vec=vec, full_rank=full_rank)
        S.grad_fn, S._rg = None, False
    if _fw_state.level and (A._fw is not None or B._fw is not None):
        _tangents((X, R), _lstsq_jvp, A, B, X, R, vec, full_rank)
    res = _Lstsq(X, R, rank_t, S)
    if out is not None:
        from ..ops._dispatch import write_out

        msg = "torch.linalg.lstsq: Expected solution to be safely castable from {res} dtype, but got solution with dtype {out}"
        return _Lstsq(*write_out(tuple(out), tuple(res), "linalg_lstsq", cast_msg=msg))
    return res
