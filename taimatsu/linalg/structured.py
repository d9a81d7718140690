"""More of ``torch.linalg``: matrix_exp, solve_triangular, householder_product, tensorinv,
tensorsolve, diagonal. Forward on NumPy/SciPy; VJPs (and JVPs) in Tensor ops, so double
backward works.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._autocast import FP32, cast_policy
from .._tensor.core import Tensor, _wrap
from ..autograd.forward_ad import _register, on_primals
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import node_class
from ..ops._dispatch import _fw_state, need_tensor, record, write_out, xp_for
from ..ops.contraction.matmul import matmul
from ..ops.on_host import on_host
from . import _h, _sname, inv, solve
from .norms import CASTABLE


def _need(node, i: int) -> bool:
    return node.next_functions[i][0] is not None


def _float_square(name: str, A: Tensor, low_ok: bool = False) -> None:
    if A.dim() < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if A._dtype.category < D.FLOAT or (not low_ok and A._dtype in (D.float16, D.bfloat16)):
        raise RuntimeError(
            f"linalg.{name}: Expected a floating point or complex tensor as input. Got {_sname(A)}"
        )
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.{name}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )


# ---- matrix_exp ------------------------------------------------------------------------------------------
def _block_exp(X: Tensor, Y: Tensor) -> Tensor:
    """The top-right block of exp([[X, Y], [0, X]]): the Frechet derivative of exp at X along Y."""
    from ..ops.shape.copies import cat

    n = X.shape[-1]
    top = cat([X, Y], -1)
    bottom = cat([X * 0, X], -1)
    return matrix_exp(cat([top, bottom], -2))[..., :n, n:]


def _matrix_exp_vjp(node, g):
    (A,) = node.saved()
    return (_block_exp(_h(A), g.to(A.dtype)),)


_MatrixExp = node_class("LinalgMatrixExpBackward0", _matrix_exp_vjp)


@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def matrix_exp(A: Tensor) -> Tensor:
    """``torch.linalg.matrix_exp`` (scaling and squaring Pade, scipy.linalg.expm), batched.

    Half and bfloat16 are computed in float32 and rounded: PyTorch 2.13's CPU kernel returns
    garbage for them (exp(I) in half gives -20896 on the diagonal), which is not copied."""
    _float_square("matrix_exp", A, low_ok=True)
    import scipy.linalg

    a = np.asarray(A._data)
    if a.dtype.kind == "f" and a.dtype.itemsize < 4 or A._dtype is D.bfloat16:
        a = a.astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        e = scipy.linalg.expm(a) if a.size else a.copy()
    if a.size and not np.isfinite(a).all():
        # PyTorch's Taylor evaluation multiplies the whole matrix: a NaN or inf entry makes every
        # entry NaN, where scipy's shortcut for (block) triangular input keeps the exact zeros
        e = np.where(np.isfinite(a).all(axis=(-2, -1), keepdims=True), e, np.nan)
    r = _wrap(xp_for(A).asarray(np.asarray(e).astype(A._dtype.np, copy=False)), A._dtype, A._device)
    if A._rg and _gm.enabled:
        record(_MatrixExp, (A,), r, (A,))
    if _fw_state.level and A._fw is not None:
        r._fw = on_primals(_block_exp, A, A._fw.to(A.dtype))
        _register(r)
    return r


# ---- solve_triangular --------------------------------------------------------------------------------------
def _tri(A: Tensor, upper: bool, unit: bool) -> Tensor:
    """The triangle of A that the solve reads (strict when the diagonal is taken as ones)."""
    k = int(unit)
    return A.triu(k) if upper else A.tril(-k)


def _solve_tri_vjp(node, g):
    A, X = node.saved()
    upper, left, unit = node.upper, node.left, node.unit
    Ah = _h(A)
    gB = solve_triangular(Ah, g, upper=not upper, left=left, unitriangular=unit)
    gA = None
    if _need(node, 0):
        gA = -matmul(gB, _h(X)) if left else -matmul(_h(X), gB)
        gA = _tri(gA, upper, unit)
    return gA, (gB if _need(node, 1) else None)


_SolveTri = node_class("LinalgSolveTriangularBackward0", _solve_tri_vjp)


def _trsm(a: np.ndarray, b: np.ndarray, upper: bool, left: bool, unit: bool) -> np.ndarray:
    from scipy.linalg import blas

    f = blas.get_blas_funcs("trsm", (a, b))
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    count = (math.prod(lead),)
    a = np.broadcast_to(a, lead + a.shape[-2:]).reshape(count + a.shape[-2:])
    bb = np.broadcast_to(b, lead + b.shape[-2:]).reshape(count + b.shape[-2:])
    out = np.zeros(bb.shape, bb.dtype)
    for i in range(bb.shape[0] if b.size else 0):
        out[i] = f(1.0, a[i], bb[i], side=0 if left else 1, lower=0 if upper else 1, diag=int(unit))
    return out.reshape(lead + b.shape[-2:])


@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False,
                     out=None) -> Tensor:  # fmt: skip
    """``torch.linalg.solve_triangular``: only the ``upper``/lower triangle of A is read; a zero
    on the diagonal gives inf/nan like LAPACK's trsm, not an error."""
    if A.dim() < 2:
        raise RuntimeError(
            "linalg.solve_triangular: The input tensor A must have at least 2 dimensions."
        )
    if B.dim() < 2:
        raise RuntimeError(
            "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."
        )
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.solve_triangular: A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        shape = f"{A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]}"
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"linalg.solve_triangular: Incompatible shapes of A and B for the equation {eq} ({shape})"
        )
    dt = D.promote_types(A._dtype, B._dtype)
    if dt.category < D.FLOAT or dt in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_sname_of(dt)}'")
    a, b = np.asarray(A._data).astype(dt.np), np.asarray(B._data).astype(dt.np)
    x = _trsm(a, b, upper, left, unitriangular)
    if dt is not A._dtype:  # PyTorch solves in the promoted dtype and returns A's
        if x.dtype.kind == "c" and A._dtype.category != D.COMPLEX:
            import warnings

            warnings.warn(
                "Casting complex values to real discards the imaginary part",
                UserWarning,
                stacklevel=2,
            )
            x = x.real
        x, dt = x.astype(A._dtype.np), A._dtype
    r = _wrap(xp_for(A).asarray(x), dt, A._device)
    if _gm.enabled and (A._rg or B._rg):
        record(_SolveTri, (A, B), r, (A, r), upper=upper, left=left, unit=unitriangular)
    if _fw_state.level and (A._fw is not None or B._fw is not None):
        r._fw = on_primals(_solve_tri_jvp, A, B, r, upper, left, unitriangular)
        _register(r)
    if out is None:
        return r
    return write_out(
        out, r, "linalg_solve_triangular", exact="expected scalar type {res} but found {out}"
    )


def _solve_tri_jvp(A, B, X, upper, left, unit):
    rhs = B._fw if B._fw is not None else None
    if A._fw is not None:
        dA = _tri(A._fw, upper, unit)
        t = matmul(dA, X) if left else matmul(X, dA)
        rhs = -t if rhs is None else rhs - t
    return solve_triangular(A, rhs, upper=upper, left=left, unitriangular=unit)


def _sname_of(dtype) -> str:
    from ..ops._dispatch import scalar_name

    return scalar_name(dtype)


# ---- householder_product ---------------------------------------------------------------------------------
def _reflectors(A: Tensor, k: int) -> Tensor:
    """The Householder vectors: A's columns below the diagonal, with an implicit 1 on it."""
    from ..ops.creation.ranges import eye

    m, n = A.shape[-2], A.shape[-1]
    V = A.tril(-1) + eye(m, n, dtype=A.dtype, device=A.device)
    return V[..., :k]


def _apply_reflectors(V: Tensor, tau: Tensor, n: int) -> list:
    """Q_i = H_i ... H_{k-1} E for i = k..0 (E = the first n columns of I); returns [Q_0, ..., Q_k]."""
    from ..ops.creation.ranges import eye

    m, k = V.shape[-2], V.shape[-1]
    Q = eye(m, n, dtype=V.dtype, device=V.device).expand(tuple(V.shape[:-2]) + (m, n))
    out = [Q]
    for i in range(k - 1, -1, -1):
        v = V[..., :, i : i + 1]
        t = tau[..., i : i + 1].unsqueeze(-1)
        Q = Q - (t * v) * matmul(_h(v), Q)
        out.append(Q)
    return out[::-1]


def _householder_vjp(node, g):
    A, tau = node.saved()
    gA, gt = householder_grads(A, tau, g)
    return (gA if _need(node, 0) else None), (gt if _need(node, 1) else None)


def householder_grads(A: Tensor, tau: Tensor, g: Tensor):
    """(gA, gtau) for Q = householder_product(A, tau) and Q's cotangent ``g`` (Tensor ops)."""
    n = A.shape[-1]
    k = tau.shape[-1]
    V = _reflectors(A, k)
    Qs = _apply_reflectors(V, tau, n)
    gQ = g.to(A.dtype)
    gv_cols, gtau = [], []
    for i in range(k):
        v = V[..., :, i : i + 1]
        t = tau[..., i : i + 1].unsqueeze(-1)
        Qn = Qs[i + 1]
        w = matmul(_h(Qn), v)  # Q_{i+1}^H v
        gQw = matmul(gQ, w)  # gQ_i Q_{i+1}^H v
        gtau.append(-(matmul(_h(v), gQw)).squeeze(-1))
        gv = -t.conj() * gQw - t * matmul(Qn, matmul(_h(gQ), v))
        gv_cols.append(gv)
        gQ = gQ - t.conj() * v * matmul(_h(v), gQ)
    from ..ops.shape.copies import cat

    gA = A * 0
    if k:
        gV = cat(gv_cols, -1)
        if k < n:
            gV = cat([gV, gA[..., k:]], -1)
        gA = gV.tril(-1)
    gt = cat(gtau, -1) if k else tau * 0
    return gA, gt


_Householder = node_class("LinalgHouseholderProductBackward0", _householder_vjp)


@cast_policy(FP32, ("cpu",))
def householder_product(A: Tensor, tau: Tensor, *, out=None) -> Tensor:
    """``torch.linalg.householder_product`` (``torch.orgqr``): the first n columns of
    H_0 H_1 ... H_{k-1}, H_i = I - tau_i v_i v_i^H."""
    need_tensor("linalg_householder_product", tau, "tau", 2)  # the parser's check first
    if out is not None:
        return write_out(
            out,
            householder_product(A, tau),
            "linalg_householder_product",
            cast_msg=CASTABLE.format(name="torch.linalg.householder_product"),
        )
    name = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if tau.dim() < 1:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    m, n, k = A.shape[-2], A.shape[-1], tau.shape[-1]
    if m < n:
        raise RuntimeError(
            f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if n < k:
        raise RuntimeError(
            f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]"
        )
    if A.dim() - tau.dim() != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {A.dim()}")  # fmt: skip
    if tuple(A.shape[:-2]) != tuple(tau.shape[:-1]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")  # fmt: skip
    if A._dtype is not tau._dtype:
        raise RuntimeError(
            f"{name}: tau dtype {_sname(tau)} does not match input dtype {_sname(A)}"
        )
    if A._dtype.category < D.FLOAT or A._dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for '{_sname(A)}'")
    from ..autograd.grad_mode import no_grad

    with no_grad():
        prev = _fw_state.level
        _fw_state.level = 0
        try:
            Q = _apply_reflectors(_reflectors(A.detach(), k), tau.detach(), n)[0].contiguous()
        finally:
            _fw_state.level = prev
    r = _wrap(Q._data, A._dtype, A._device)
    if _gm.enabled and (A._rg or tau._rg):
        record(_Householder, (A, tau), r, (A, tau))
    if _fw_state.level and (A._fw is not None or tau._fw is not None):
        r._fw = on_primals(_householder_jvp, A, tau, n)
        _register(r)
    return r


def _householder_jvp(A, tau, n):
    k = tau.shape[-1]
    tA = A._fw if A._fw is not None else A * 0
    tt = tau._fw if tau._fw is not None else tau * 0
    from ..ops.creation.ranges import eye

    # Q = H_0 ... H_{k-1} E; dQ = sum_i H_0..H_{i-1} dH_i H_{i+1}..H_{k-1} E, dH_i = -(dt v v^H + t dv v^H + t v dv^H).
    V = _reflectors(A, k)
    dV = tA.tril(-1)[..., :k]
    Qs = _apply_reflectors(V, tau, n)
    m = A.shape[-2]
    left = eye(m, dtype=A.dtype, device=A.device)
    dQ = Qs[0] * 0
    for i in range(k):
        v, dv = V[..., :, i : i + 1], dV[..., :, i : i + 1]
        t, dt = tau[..., i : i + 1].unsqueeze(-1), tt[..., i : i + 1].unsqueeze(-1)
        Qn = Qs[i + 1]
        dH_Q = -(
            dt * v * matmul(_h(v), Qn) + t * dv * matmul(_h(v), Qn) + t * v * matmul(_h(dv), Qn)
        )
        dQ = dQ + matmul(left, dH_Q)
        left = left - matmul(matmul(left, v), _h(v)) * t
    return dQ


# ---- tensorinv / tensorsolve / diagonal ----------------------------------------------------------------------
@cast_policy(FP32, ("cpu",))
@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def tensorinv(A: Tensor, ind: int = 2, *, out=None) -> Tensor:
    """``torch.linalg.tensorinv``: inv of A viewed as a (prod(shape[:ind]), prod(shape[ind:])) matrix."""
    if out is not None:
        return write_out(
            out,
            tensorinv(A, ind),
            "linalg_tensorinv",
            grad=False,
            cast_msg=CASTABLE.format(name="tensorinv"),
        )
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    p, q = math.prod(shape[:ind]), math.prod(shape[ind:])
    if p != q:
        raise RuntimeError(
            f"Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got {q} != {p}"
        )
    M = A.reshape(p, q)
    if M._dtype.category >= D.FLOAT and M.numel():
        _raise_if_singular(np.asarray(M._data), "inv")
    return inv(M).reshape(shape[ind:] + shape[:ind])


def _raise_if_singular(m: np.ndarray, name: str) -> None:
    """PyTorch's LinAlgError text for a singular matrix: the first zero pivot of its LU (1-based)."""
    import scipy.linalg

    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lu, _ = scipy.linalg.lu_factor(m, check_finite=False)
    zero = np.flatnonzero(np.diagonal(lu) == 0)
    if zero.size:
        raise RuntimeError(
            f"{name}: The diagonal element {zero[0] + 1} is zero, the inversion could not be completed because the "
            "input matrix is singular."
        )


@cast_policy(FP32, ("cpu",))
def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:
    """``torch.linalg.tensorsolve``: solve of A viewed as a matrix against B flattened."""
    if out is not None:
        return write_out(
            out,
            tensorsolve(A, B, dims),
            "linalg_tensorsolve",
            grad=False,
            cast_msg=CASTABLE.format(name="tensorsolve"),
        )
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        A = A.movedim(dims, list(range(nd - len(dims), nd)))
    shape = tuple(A.shape)
    k = B.dim()
    p, q = B.numel(), math.prod(shape[k:])
    if p != q:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
            f"but got {q} != {p}"
        )
    return solve(A.reshape(p, q), B.reshape(p)).reshape(shape[k:])


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``torch.linalg.diagonal``: ``A.diagonal`` with matrix-first defaults."""
    return A.diagonal(offset, dim1, dim2)
