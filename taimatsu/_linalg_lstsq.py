"""``torch.linalg.lu``, ``torch.lu_unpack`` and ``torch.linalg.lstsq``, with VJPs and JVPs in
Tensor ops (double backward works through them).

LU: A = P L U with partial pivoting (SciPy's getrf, as PyTorch's CPU LAPACK). The VJP packs
(gL, gU) like lu_factor's LU and uses its gradient (``_linalg_grads.lu_factor_vjp``); the JVP
unpacks lu_factor's packed tangent. lstsq calls LAPACK's gels/gelsy/gelsd/gelss per matrix,
so rank, residuals and singular values follow each driver as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from . import _dtype as D
from ._linalg_decomp import _return_type
from ._linalg_grads import lu_factor_jvp, lu_factor_vjp
from ._linalg_lu import _perm
from ._tensor import Tensor, _wrap
from .autograd.forward_ad import _register, on_primals
from .autograd.grad_mode import state as _gm
from .linalg import _h, _sname, matmul
from .ops._dispatch import _fw_state, node_class, record, xp_for

_PLU = _return_type("linalg_lu", ("P", "L", "U"))
_Unpack = _return_type("lu_unpack", ("P", "L", "U"))
_Lstsq = _return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


# ---- LU gradients -------------------------------------------------------------------------------------------
def _pack(gL, gU, m: int, n: int):
    """The cotangent of the packed LU (m x n) from those of L = tril(LU, -1) + I and U = triu(LU)."""
    from .ops.creation import zeros
    from .ops.shape import cat

    k = min(m, n)
    parts = []
    if gL is not None:
        gl = gL.tril(-1)
        pad = zeros(tuple(gl.shape[:-1]) + (n - k,), dtype=gl.dtype, device=gl.device)
        parts.append(gl if k == n else cat([gl, pad], -1))
    if gU is not None:
        gu = gU.triu()
        pad = zeros(tuple(gu.shape[:-2]) + (m - k, n), dtype=gu.dtype, device=gu.device)
        parts.append(gu if k == m else cat([gu, pad], -2))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else parts[0] + parts[1]


def _lu_jvp(P, L, U, dA):
    """(dL, dU) for A = P L U: lu_factor's packed tangent, unpacked."""
    k = L.shape[-1]
    dLU = lu_factor_jvp(P, L, U, dA)
    return dLU[..., :, :k].tril(-1), dLU[..., :k, :].triu()


def _lu_vjp(node, gP, gL, gU):
    P, L, U = node.saved()
    g = _pack(gL, gU, L.shape[-2], U.shape[-1])
    return (None if g is None else lu_factor_vjp(P, L, U, g),)


_LuNode = node_class("LinalgLuBackward0", _lu_vjp, materialize=False)


def _tangents(outs, fn, *args) -> None:
    ts = on_primals(fn, *args)
    for o, t in zip(outs, ts):
        o._fw = t
        _register(o)


# ---- linalg.lu --------------------------------------------------------------------------------------------------
def _lu_arrays(a: np.ndarray):
    m, n = a.shape[-2:]
    k = min(m, n)
    lead = a.shape[:-2]
    if a.size == 0:
        p = np.broadcast_to(np.eye(m, dtype=a.dtype), lead + (m, m)).copy()
        return p, np.broadcast_to(np.eye(m, k, dtype=a.dtype), lead + (m, k)).copy(), np.zeros(lead + (k, n), a.dtype)
    import scipy.linalg

    return scipy.linalg.lu(a, check_finite=False)


def lu(A: Tensor, *, pivot: bool = True, out=None):
    """``torch.linalg.lu``: (P, L, U) with A = P L U; P is not differentiable."""
    if A.dim() < 2:
        raise RuntimeError(f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    if A._dtype.category < D.FLOAT or A._dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_sname(A)}'")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    p, l_, u = _lu_arrays(np.asarray(A._data))
    xp, dt = xp_for(A), A._dtype
    P, L, U = (_wrap(xp.asarray(x.astype(dt.np, copy=False)), dt, A._device) for x in (p, l_, u))
    if _gm.enabled and A._rg:
        record(_LuNode, (A,), (P, L, U), (P, L, U))
        P.grad_fn, P._rg = None, False
    if _fw_state.level and A._fw is not None:
        _tangents((L, U), _lu_jvp, P, L, U, A._fw)
    res = _PLU(P, L, U)
    if out is not None:
        from .ops._dispatch import write_out

        exact = "Expected out tensor to have dtype {res_cpp}, but got {out_cpp} instead"
        return _PLU(*write_out(tuple(out), tuple(res), "linalg_lu", exact=exact))
    return res


# ---- lu_unpack ---------------------------------------------------------------------------------------------------
def _pack_vjp(node, gP, gL, gU):
    return (_pack(gL, gU, *node.lu_shape),)


_UnpackNode = node_class("LuUnpackBackward0", _pack_vjp, materialize=False)


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True, *, out=None):
    """``torch.lu_unpack``: (P, L, U) from ``linalg.lu_factor``'s packed LU and pivots."""
    if LU_data.dim() < 2:
        raise RuntimeError(
            f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: {list(LU_data.shape)} instead"
        )
    if LU_pivots._dtype is not D.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
            "Note: this function is intended to be used with the output produced by torch.linalg.lu_factor"
        )
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    dt, dev = LU_data._dtype, LU_data._device
    xp = xp_for(LU_data)
    empty = _wrap(xp.zeros((0,), dt.np), dt, dev)
    L = U = empty
    if unpack_data:
        from .autograd.grad_mode import no_grad
        from .ops.creation import eye

        with no_grad():
            L = LU_data[..., :, :k].tril(-1) + eye(m, k, dtype=LU_data.dtype, device=LU_data.device)
            U = LU_data[..., :k, :].triu()
        L, U = _wrap(L._data, dt, dev), _wrap(U._data, dt, dev)
        if _gm.enabled and LU_data._rg:
            record(_UnpackNode, (LU_data,), (empty, L, U), (), lu_shape=(m, n))
            empty.grad_fn, empty._rg = None, False  # P is not differentiable
        if _fw_state.level and LU_data._fw is not None:
            t = LU_data._fw
            L._fw, U._fw = t[..., :, :k].tril(-1), t[..., :k, :].triu()
            _register(L)
            _register(U)
    P = empty
    if unpack_pivots:
        piv = np.asarray(LU_pivots._data)
        if piv.shape[-1:] != (k,) and piv.size or piv.size and (piv.min() < 1 or piv.max() > m):
            raise RuntimeError(
                "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly pass the "
                "result of lu_factor?"
            )
        lead = tuple(LU_data.shape[:-2])
        P = _wrap(xp.asarray(np.broadcast_to(_perm(piv, m, dt.np), lead + (m, m)).copy()), dt, dev)
    res = _Unpack(P, L, U)
    if out is not None:
        from .ops._dispatch import write_out

        exact = "Expected out tensor to have dtype {res_cpp}, but got {out_cpp} instead"
        return _Unpack(*write_out(tuple(out), tuple(res), "lu_unpack", exact=exact))
    return res


# ---- lstsq ---------------------------------------------------------------------------------------------------------
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq_one(a, b, driver, rcond):
    """(solution, residuals or None, rank or None, singular values or None) for one matrix."""
    import scipy.linalg
    from scipy.linalg import lapack

    m, n = a.shape
    if driver == "gels":
        if a.size == 0 or b.size == 0:
            x = np.zeros((n, b.shape[1]), a.dtype)
            return x, None, None, None
        (gels,) = lapack.get_lapack_funcs(("gels",), (a, b))
        bb = np.zeros((max(m, n), b.shape[1]), b.dtype)
        bb[:m] = b
        _, x, _ = gels(a, bb)
        res = (np.abs(x[n:]) ** 2).sum(0) if m > n else None
        return x[:n], res, None, None
    if a.size == 0 or b.size == 0:
        k = min(m, n)
        x = np.zeros((n, b.shape[1]), a.dtype)
        s = np.zeros(k, np.abs(a[:0, :0]).dtype) if driver != "gelsy" else None
        return x, None, 0, s
    x, res, rank, s = scipy.linalg.lstsq(a, b, cond=rcond, lapack_driver=driver, check_finite=False)
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
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vec = B.dim() == A.dim() - 1
    if (B.shape[-1] if vec else B.shape[-2]) != A.shape[-2]:
        which = "other.size(-1)" if vec else "other.size(-2)"
        raise RuntimeError(f"{name}: input.size(-2) should match {which}")
    return vec


def _pinv(A: Tensor, full_rank: bool) -> Tensor:
    """A's pseudo-inverse, differentiably: from its Gram matrix when A has full rank, else pinv."""
    from .linalg import pinv, solve

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
        from .ops.creation import eye

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
    from .ops.creation import eye

    r = matmul(A, X) - B
    # dX = dPi B + Pi dB, dPi = -Pi dA Pi + Pi Pi^H dA^H (I - A Pi) + (I - Pi A) dA^H Pi^H Pi
    dX = -matmul(Pi, matmul(dA, X)) - matmul(matmul(Pi, _h(Pi)), matmul(_h(dA), r))
    dX = dX + matmul(eye(n, dtype=A.dtype, device=A.device) - matmul(Pi, A), matmul(_h(dA), matmul(_h(Pi), X)))
    dX = dX + matmul(Pi, dB)
    dR = R * 0
    if R.numel():
        dr = matmul(dA, X) - dB
        dR = 2 * (r.conj() * dr).real.sum(-2) if r.is_complex() else 2 * (r * dr).sum(-2)
    return (dX.squeeze(-1) if vec else dX), dR


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None, out=None):
    """``torch.linalg.lstsq``: least-squares solution of A X = B per LAPACK driver (CPU default
    'gelsy'). residuals: only for m > n, full rank and a driver other than gelsy (gels: always
    for m > n); rank: not for gels; singular_values: gelsd and gelss."""
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
    outs = [_lstsq_one(af[i], bf[i], driver, rcond) for i in range(count)]
    nrhs = b.shape[-1]
    x = np.stack([o[0] for o in outs]).reshape(lead + (n, nrhs)) if count else np.zeros(lead + (n, nrhs), a.dtype)
    if vec:
        x = x[..., 0]
    has_res = count > 0 and all(o[1] is not None for o in outs)
    res = np.stack([o[1] for o in outs]).reshape(lead + (nrhs,)) if has_res else np.zeros((0,), rt.np)
    if driver == "gels":
        rank = np.zeros((0,), np.int64)
    else:
        rank = np.asarray([o[2] for o in outs], np.int64).reshape(lead)
    if driver in ("gelsd", "gelss"):
        k = min(m, n)
        sv = np.stack([o[3] for o in outs]).reshape(lead + (k,)) if count else np.zeros(lead + (k,), rt.np)
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
        from .ops._dispatch import write_out

        msg = "torch.linalg.lstsq: Expected solution to be safely castable from {res} dtype, but got solution with dtype {out}"
        return _Lstsq(*write_out(tuple(out), tuple(res), "linalg_lstsq", cast_msg=msg))
    return res
