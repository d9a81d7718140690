"""Differentiable LU-based and Cholesky-based solvers: ``linalg.lu_factor(_ex)``, ``linalg.lu_solve``,
``linalg.pinv``, ``linalg.inv_ex``, ``linalg.solve_ex``, ``torch.cholesky_solve``, ``torch.cholesky_inverse``.

Forwards on SciPy's LAPACK wrappers; VJPs/JVPs (Tensor ops) in ``_linalg_grads``.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._autocast import FP32, cast_policy
from .._tensor.core import Tensor, _wrap
from ..autograd.forward_ad import _register
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import node_class
from ..ops._dispatch import _fw_state, need_tensor, record, xp_for
from ..ops.on_host import on_host
from . import _sname
from . import decomposition_grads as G
from .decomposition_grads import lu_factor_jvp, lu_factor_vjp
from .decompositions import (
    _castable,
    _check,
    _fw_on,
    _LinAlgError,
    _out,
    _recording,
    _return_type,
    _t,
    _tangents,
    svd_numpy,
)

_LU = _return_type("linalg_lu_factor", ("LU", "pivots"))
_LUEx = _return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_InvEx = _return_type("linalg_inv_ex", ("inverse", "info"))
_SolveEx = _return_type("linalg_solve_ex", ("result", "info"))


def _flat(a):
    return a.reshape((int(np.prod(a.shape[:-2], dtype=np.int64)),) + a.shape[-2:])


def _getrf(a):
    """Packed LU, 1-based int32 pivots and LAPACK info for every matrix of ``a``."""
    from scipy.linalg import get_lapack_funcs

    m, n = a.shape[-2:]
    k = min(m, n)
    lead = a.shape[:-2]
    lu = np.array(a, copy=True)
    piv = (
        np.tile(np.arange(1, k + 1, dtype=np.int32), lead + (1,))
        if k
        else np.zeros(lead + (0,), np.int32)
    )
    info = np.zeros(lead, np.int32)
    if k == 0:
        return lu, piv, info
    flu, fpiv, finfo = _flat(lu), piv.reshape(-1, k), info.reshape(-1)
    for i, mat in enumerate(_flat(a)):
        (getrf,) = get_lapack_funcs(("getrf",), (mat,))
        c, p, inf = getrf(mat)
        flu[i], fpiv[i], finfo[i] = c, p[:k] + 1, max(inf, 0)
    return lu, piv, info


def _perm(piv, m, dtype):
    """The permutation matrix P of A = P L U from LAPACK's 1-based row swaps."""
    lead, k = piv.shape[:-1], piv.shape[-1]
    p = piv.reshape(-1, k).astype(np.int64) - 1
    rows = np.arange(p.shape[0])
    perm = np.tile(np.arange(m), (p.shape[0], 1))
    for i in range(k):
        j = p[:, i]
        a = perm[rows, i].copy()
        perm[rows, i] = perm[rows, j]
        perm[rows, j] = a
    P = np.zeros((p.shape[0], m, m), dtype)
    P[rows[:, None], perm, np.arange(m)[None, :]] = 1
    return P.reshape(lead + (m, m))


def _pieces(LU: Tensor, pivots: Tensor):
    """(P, L, U) as tensors; L and U keep LU's history."""
    from ..ops.creation.ranges import eye

    m, n = LU.shape[-2:]
    k = min(m, n)
    P = _t(_perm(np.asarray(pivots._data), m, LU._dtype.np), LU._dtype, LU)
    L = LU[..., :, :k].tril(-1) + eye(m, k, dtype=LU.dtype, device=LU.device)
    return P, L, LU[..., :k, :].triu()


# ---- lu_factor -------------------------------------------------------------------------------------------
def _lu_factor_vjp(node, gLU, g_piv=None, g_info=None):
    LU, piv = node.saved()
    P, L, U = _pieces(LU, piv)
    return (G.lu_factor_vjp(P, L, U, gLU),)


_LuFactorNode = node_class("LinalgLuFactorExBackward0", _lu_factor_vjp, materialize=True)


def _lu_err(name, i, info, batched):
    pre = f"(Batch element {i}): " if batched else ""
    return RuntimeError(
        f"{name}: {pre}U[{info},{info}] is zero and using it on lu_solve would result in a division by zero. If you "
        "still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
    )


@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def _lu_factor(A, pivot, name, check):
    if A.dim() < 2:
        raise RuntimeError(
            f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead"
        )
    _check(name.replace("torch.", ""), A, square=False, kernel="lu_cpu", kernel_all=True)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, piv, info = _getrf(np.asarray(A._data))
    if check and info.any():
        i = int(np.flatnonzero(info.reshape(-1))[0])
        raise _lu_err(name, i, int(info.reshape(-1)[i]), A.dim() > 2)
    LU = _t(lu, A._dtype, A)
    P = _wrap(piv, D.int32, A._device)
    I = _wrap(info, D.int32, A._device)
    if _recording(A):
        record(_LuFactorNode, (A,), (LU, P, I), (LU, P))
    if _fw_on(A):
        Pm, L, U = _pieces(LU.detach(), P)
        _tangents((LU,), G.lu_factor_jvp, Pm, L, U, A._fw)
    return LU, P, I


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out=None):
    return _out(
        out,
        _LUEx(*_lu_factor(A, pivot, "torch.linalg.lu_factor_ex", check_errors)),
        "linalg_lu_factor_ex",
    )


def lu_factor(A: Tensor, *, pivot: bool = True, out=None):
    LU, P, _ = _lu_factor(A, pivot, "torch.linalg.lu_factor", True)
    return _out(out, _LU(LU, P), "linalg_lu_factor_ex")


# ---- lu_solve ---------------------------------------------------------------------------------------------------
def _lu_solve_arrays(lu, piv, b, left, adjoint):
    import scipy.linalg

    if not left:  # X A = B  <=>  A^H X^H = B^H
        b = np.conj(np.swapaxes(b, -1, -2))
        adjoint = not adjoint
    lead = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    lu = np.broadcast_to(lu, lead + lu.shape[-2:])
    piv = np.broadcast_to(piv, lead + piv.shape[-1:])
    b = np.broadcast_to(b, lead + b.shape[-2:])
    x = np.empty(b.shape, np.result_type(lu, b))
    fx, fb, flu = _flat(x), _flat(b), _flat(lu)
    fp = piv.reshape(-1, piv.shape[-1])
    if b.shape[-2] and b.shape[-1]:
        for i in range(fx.shape[0]):
            fx[i] = scipy.linalg.lu_solve(
                (flu[i], fp[i] - 1), fb[i], trans=2 if adjoint else 0, check_finite=False
            )
    elif x.size:
        x[...] = 0
    return np.conj(np.swapaxes(x, -1, -2)) if not left else x


def _lu_solve_vjp(node, gX):
    LU, piv, X = node.saved()
    left, adj = node.left, node.adjoint
    gB = lu_solve(LU, piv, gX, left=left, adjoint=not adj)
    if left:
        gA = -G.matmul(gB, G._h(X)) if not adj else -G.matmul(X, G._h(gB))
    else:
        gA = -G.matmul(G._h(X), gB) if not adj else -G.matmul(G._h(gB), X)
    gLU = None
    if node.next_functions[0][0] is not None:
        P, L, U = _pieces(LU, piv)
        gLU = G.lu_grad_from_A(P, L, U, gA)
    return gLU, gB


_LuSolveNode = node_class("LinalgLuSolveBackward0", _lu_solve_vjp)


def _lu_solve_jvp(LU, piv, X, dLU, dB, left, adj):
    rhs = dB
    if dLU is not None:
        P, L, U = _pieces(LU, piv)
        dA = G.lu_tangent_to_A(P, L, U, dLU)
        if adj:
            dA = G._h(dA)
        t = G.matmul(dA, X) if left else G.matmul(X, dA)
        rhs = -t if rhs is None else rhs - t
    return lu_solve(LU, piv, rhs, left=left, adjoint=adj)


@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def lu_solve(
    LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False, out=None
) -> Tensor:
    if LU.dim() < 2:
        raise RuntimeError(
            "torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions."
        )
    if B.dim() < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    _check("torch.linalg.lu_solve", LU, kernel="linalg.lu_solve_cpu")
    if LU._dtype is not B._dtype:
        from . import _sname

        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{_sname(LU)} and B of type {_sname(B)} instead")  # fmt: skip
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(
            f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({LU.shape[-2]}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    x = _lu_solve_arrays(
        np.asarray(LU._data), np.asarray(pivots._data), np.asarray(B._data), left, adjoint
    )
    X = _t(x, B._dtype, B)
    if _recording(LU, B):
        record(_LuSolveNode, (LU, B), X, (LU, pivots, X), left=left, adjoint=adjoint)
    if _fw_on(LU, B):
        _tangents((X,), _lu_solve_jvp, LU, pivots, X, LU._fw, B._fw, left, adjoint)
    return _out(out, X, "linalg_lu_solve")


# ---- pinv ------------------------------------------------------------------------------------------------------------
def _pinv_vjp(node, g):
    A, Pi = node.saved()
    return (G.pinv_vjp(A, Pi, g),)


_PinvNode = node_class("LinalgPinvBackward0", _pinv_vjp)


def _tol(v):
    if v is None:
        return None
    return np.asarray(v._data if isinstance(v, Tensor) else v)


@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    if A.dim() < 2 or A._dtype not in (D.float32, D.float64, D.complex64, D.complex128):
        from . import _sname

        raise RuntimeError(
            f"linalg.pinv({_sname(A)}{{{list(A.shape)}}}): expected a tensor with 2 or more dimensions of float, "
            "double, cfloat or cdouble types"
        )
    a = np.asarray(A._data)
    m, n = a.shape[-2:]
    at, rt = _tol(atol), _tol(rtol)
    if rt is None:
        rt = (
            np.asarray(0.0)
            if at is not None and np.any(at > 0)
            else np.asarray(np.finfo(a.dtype).eps * max(m, n))
        )
    at = np.asarray(0.0) if at is None else at
    if hermitian:
        w, v = np.linalg.eigh(a)
        s = np.abs(w)
        smax = s.max(-1, keepdims=True) if s.shape[-1] else s
        thr = np.maximum(at[..., None], rt[..., None] * smax)
        winv = np.where(s > thr, 1 / np.where(s > thr, w, 1), 0)
        p = (v * winv[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))
    else:
        u, s, vh = svd_numpy(a)
        smax = s.max(-1, keepdims=True) if s.shape[-1] else s
        thr = np.maximum(at[..., None], rt[..., None] * smax)
        sinv = np.where(s > thr, 1 / np.where(s > thr, s, 1), 0)
        p = (np.conj(np.swapaxes(vh, -1, -2)) * sinv[..., None, :]) @ np.conj(
            np.swapaxes(u, -1, -2)
        )
    Pi = _t(p, A._dtype, A)
    if _recording(A):
        record(_PinvNode, (A,), Pi, (A, Pi))
    if _fw_on(A):
        _tangents((Pi,), G.pinv_jvp, A, Pi, A._fw)
    # With Python-number tolerances PyTorch's pinv is a composite: out= takes the history by a copy.
    composite = isinstance(atol, (int, float)) or isinstance(rtol, (int, float))
    return _out(out, Pi, "linalg_pinv", None, _castable("result", "linalg.pinv"), not composite)


# ---- inv_ex / solve_ex ---------------------------------------------------------------------------------------------
@cast_policy(FP32, ("cpu",))
@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def inv_ex(A: Tensor, *, check_errors: bool = False, out=None):
    from .. import linalg

    _check("linalg.inv", A, low=True)
    _, _, info = _getrf(np.asarray(A._data))
    I = _wrap(info, D.int32, A._device)
    if info.any():
        i = int(np.flatnonzero(info.reshape(-1))[0])
        if check_errors:
            pre = f"(Batch element {i}): " if A.dim() > 2 else ""
            raise _LinAlgError(f"linalg.inv_ex: {pre}The diagonal element {int(info.reshape(-1)[i])} is zero, the "
                               "inversion could not be completed because the input matrix is singular.")  # fmt: skip
        eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A._dtype.np), A.shape)
        lu, piv, _ = _getrf(np.asarray(A._data))
        r = _t(_lu_solve_arrays(lu, piv, eye, True, False), A._dtype, A)
        if _recording(A):  # the same node as a regular inverse (its gradient is not finite here)
            record(linalg._Inv, (A,), r, (r,))
        return _out(out, _InvEx(r, I), "linalg_inv_ex")
    return _out(out, _InvEx(linalg.inv(A), I), "linalg_inv_ex")


@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out=None):
    from .. import linalg

    _check("linalg.solve", A, kernel="lu_cpu")
    lu, piv, info = _getrf(np.asarray(A._data))
    I = _wrap(info, D.int32, A._device)
    if info.any():
        if check_errors:
            raise _LinAlgError(
                "torch.linalg.solve_ex: The solver failed because the input matrix is singular."
            )
        vec = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
        b = np.asarray(B._data)[..., None] if vec else np.asarray(B._data)
        x = _lu_solve_arrays(lu, piv, b, left, False)
        r = _t(x[..., 0] if vec else x, A._dtype, A)
        if _recording(A, B):  # the same node as a regular solve (its gradient is not finite here)
            record(linalg._Solve, (A, B), r, (A, r), vec=vec, left=left)
        return _out(out, _SolveEx(r, I), "_linalg_solve_ex")
    return _out(out, _SolveEx(linalg.solve(A, B, left=left), I), "_linalg_solve_ex")


# ---- cholesky_solve / cholesky_inverse ------------------------------------------------------------------------------
def _chol_A_grad(L, gA, upper):
    """Map a gradient w.r.t. A = L L^H (or U^H U) onto the factor."""
    S = gA + G._h(gA)
    return G.matmul(L, S) if upper else G.matmul(S, L)


def _chol_A_tangent(L, dL, upper):
    t = G.matmul(G._h(dL), L) if upper else G.matmul(dL, G._h(L))
    return t + G._h(t)


def _cholesky_solve_vjp(node, gX):
    L, X = node.saved()
    gB = cholesky_solve(gX, L, node.upper)
    gL = None
    if node.next_functions[1][0] is not None:
        gL = _chol_A_grad(L, -G.matmul(gB, G._h(X)), node.upper)
    return gB, gL


_CholSolveNode = node_class("CholeskySolveBackward0", _cholesky_solve_vjp)


def _cholesky_solve_jvp(L, X, dB, dL, upper):
    rhs = dB
    if dL is not None:
        t = G.matmul(_chol_A_tangent(L, dL, upper), X)
        rhs = -t if rhs is None else rhs - t
    return cholesky_solve(rhs, L, upper)


def _chol_solve_arrays(b, l, upper):
    l = np.triu(l) if upper else np.tril(l)  # LAPACK reads only the factor's triangle
    lh = np.conj(np.swapaxes(l, -1, -2))
    lo, hi = (lh, l) if upper else (l, lh)
    return np.linalg.solve(hi, np.linalg.solve(lo, b))


@cast_policy(FP32, ("cpu",))
@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False, *, out=None) -> Tensor:
    need_tensor("cholesky_solve", input2, "input2", 2)  # the parser's check, before the shapes'
    B, L = input, input2
    if B.dim() < 2 or L.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.dim()} dimensions instead"
                           if B.dim() < 2 else
                           f"u should have at least 2 dimensions, but has {L.dim()} dimensions instead")  # fmt: skip
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {L.shape[-2]} by {L.shape[-1]} matrices"
        )
    if B._dtype is L._dtype and (
        B._dtype.category < D.FLOAT or B._dtype in (D.float16, D.bfloat16)
    ):
        from . import _sname

        raise NotImplementedError(f"\"cholesky_solve_cpu\" not implemented for '{_sname(B)}'")
    if B._dtype is not L._dtype:
        from . import _sname

        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_sname(B)} and A of type "
                           f"{_sname(L)} instead.")  # fmt: skip
    X = _t(_chol_solve_arrays(np.asarray(B._data), np.asarray(L._data), upper), B._dtype, B)
    if _recording(B, L):
        record(_CholSolveNode, (B, L), X, (L, X), upper=upper)
    if _fw_on(B, L):
        _tangents((X,), _cholesky_solve_jvp, L, X, B._fw, L._fw, upper)
    return _out(out, X, "cholesky_solve", None, _castable("result", "cholesky_solve"))


def _cholesky_inverse_vjp(node, gY):
    L, Y = node.saved()
    return (_chol_A_grad(L, -G._mm(Y, gY, Y), node.upper),)


_CholInvNode = node_class("CholeskyInverseBackward0", _cholesky_inverse_vjp)


@cast_policy(FP32, ("cpu",))
@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def cholesky_inverse(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    L = input
    _check("cholesky_inverse", L, kernel="cholesky_inverse_out_cpu", kernel_all=True)
    eye = np.broadcast_to(np.eye(L.shape[-1], dtype=L._dtype.np), L.shape)
    Y = _t(_chol_solve_arrays(eye, np.asarray(L._data), upper), L._dtype, L)
    if _recording(L):
        record(_CholInvNode, (L,), Y, (L, Y), upper=upper)
    if _fw_on(L):
        _tangents((Y,), lambda L, Y, dL: -G._mm(Y, _chol_A_tangent(L, dL, upper), Y), L, Y, L._fw)
    return _out(out, Y, "cholesky_inverse", None, _castable("result", "cholesky_inverse"))


@cast_policy(FP32, ("cpu",))
def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    from .. import linalg

    return linalg.pinv(input, rtol=rcond)


_PLU = _return_type("linalg_lu", ("P", "L", "U"))


_Unpack = _return_type("lu_unpack", ("P", "L", "U"))


# ---- LU gradients -------------------------------------------------------------------------------------------
def _pack(gL, gU, m: int, n: int):
    """The cotangent of the packed LU (m x n) from those of L = tril(LU, -1) + I and U = triu(LU)."""
    from ..ops.creation.factories import zeros
    from ..ops.shape.copies import cat

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


# ---- linalg.lu --------------------------------------------------------------------------------------------------
def _lu_arrays(a: np.ndarray):
    m, n = a.shape[-2:]
    k = min(m, n)
    lead = a.shape[:-2]
    if a.size == 0:
        p = np.broadcast_to(np.eye(m, dtype=a.dtype), lead + (m, m)).copy()
        return (
            p,
            np.broadcast_to(np.eye(m, k, dtype=a.dtype), lead + (m, k)).copy(),
            np.zeros(lead + (k, n), a.dtype),
        )
    import scipy.linalg

    return scipy.linalg.lu(a, check_finite=False)


@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def lu(A: Tensor, *, pivot: bool = True, out=None):
    """``torch.linalg.lu``: (P, L, U) with A = P L U; P is not differentiable."""
    if A.dim() < 2:
        raise RuntimeError(
            f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead"
        )
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
        from ..ops._dispatch import write_out

        exact = "Expected out tensor to have dtype {res_cpp}, but got {out_cpp} instead"
        return _PLU(*write_out(tuple(out), tuple(res), "linalg_lu", exact=exact))
    return res


# ---- lu_unpack ---------------------------------------------------------------------------------------------------
def _pack_vjp(node, gP, gL, gU):
    return (_pack(gL, gU, *node.lu_shape),)


_UnpackNode = node_class("LuUnpackBackward0", _pack_vjp, materialize=False)


@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def lu_unpack(
    LU_data: Tensor,
    LU_pivots: Tensor,
    unpack_data: bool = True,
    unpack_pivots: bool = True,
    *,
    out=None,
):
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
        from ..autograd.grad_mode import no_grad
        from ..ops.creation.ranges import eye

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
        from ..ops._dispatch import write_out

        exact = "Expected out tensor to have dtype {res_cpp}, but got {out_cpp} instead"
        return _Unpack(*write_out(tuple(out), tuple(res), "lu_unpack", exact=exact))
    return res
