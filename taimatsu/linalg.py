"""``torch.linalg``: a first set of decompositions and solvers on NumPy/SciPy LAPACK.

Differentiable here: inv, det, slogdet, solve, eigvalsh, eigh, norms, cross, vecdot,
multi_dot, matrix_power; the decompositions (cholesky, qr, svd, svdvals, eig, eigvals,
lu_factor, lu_solve, pinv) live in ``_linalg_decomp`` / ``_linalg_lu`` with their VJPs and JVPs.
"""

from __future__ import annotations

import numpy as np

from . import _dtype as D
from ._tensor import Tensor, _wrap
from .autograd.forward_ad import _register, on_primals
from .autograd.grad_mode import state as _gm
from .ops._dispatch import _fw_state, node_class, record, xp_for
from .ops.linalg import matmul
from .ops.reduction import _return_type, vector_norm  # noqa: F401  (re-exported)

_LU = _return_type("linalg_lu_factor", ("LU", "pivots"))
_Eigh = _return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
_Eig = _return_type("linalg_eig", ("eigenvalues", "eigenvectors"))
_Slogdet = _return_type("linalg_slogdet", ("sign", "logabsdet"))
_QR = _return_type("linalg_qr", ("Q", "R"))
_SVD = _return_type("linalg_svd", ("U", "S", "Vh"))


def _square(name: str, A: Tensor) -> None:
    if A.dim() < 2:
        raise RuntimeError(
            f"linalg.{name}: The input tensor A must have at least 2 dimensions."
        )
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.{name}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if A._dtype.category < D.FLOAT or A._dtype in (D.float16, D.bfloat16):
        raise RuntimeError(
            f"linalg.{name}: Expected a floating point or complex tensor as input. Got {_sname(A)}"
        )


def _sname(t):
    from .ops._dispatch import scalar_name

    return scalar_name(t._dtype)


def _h(t: Tensor) -> Tensor:
    m = t.transpose(-2, -1)
    return m.conj() if t.is_complex() else m


def _no_grad_through(name: str, *ts) -> None:
    if _gm.enabled and any(t._rg for t in ts):
        raise NotImplementedError(
            f"taimatsu: the derivative of linalg.{name} is not implemented yet (forward values are)."
        )


# ---- inverse, determinant, solve ------------------------------------------------------------------
def _inv_vjp(node, g):
    (out,) = node.saved()
    oh = _h(out)
    return (-matmul(matmul(oh, g), oh),)


_Inv = node_class("LinalgInvExBackward0", _inv_vjp)


def inv(A: Tensor, *, out=None) -> Tensor:
    _square("inv", A)
    xp = xp_for(A)
    try:
        data = xp.linalg.inv(A._data)
    except np.linalg.LinAlgError:
        raise RuntimeError(
            "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input "
            "matrix is singular."
        ) from None
    r = _wrap(data.astype(A._dtype.np, copy=False), A._dtype, A._device)
    if A._rg and _gm.enabled:
        record(_Inv, (A,), r, (r,))
    if _fw_state.level and A._fw is not None:  # d(A^-1) = -A^-1 dA A^-1
        r._fw = on_primals(lambda X, dA: -matmul(matmul(X, dA), X), r, A._fw)
        _register(r)
    return r


def _det_vjp(node, g):
    A, out = node.saved()
    scale = (g * out.conj() if A.is_complex() else g * out).unsqueeze(-1).unsqueeze(-1)
    return (scale * _h(inv(A)),)


_Det = node_class("LinalgDetBackward0", _det_vjp)


def det(A: Tensor) -> Tensor:
    _square("det", A)
    xp = xp_for(A)
    r = _wrap(xp.asarray(xp.linalg.det(A._data), A._dtype.np), A._dtype, A._device)
    if A._rg and _gm.enabled:
        record(_Det, (A,), r, (A, r))
    return r


def _slogdet_vjp(node, g_sign, g_logabs):
    (A,) = node.saved()
    return ((g_logabs.unsqueeze(-1).unsqueeze(-1)) * _h(inv(A)),)


_Slogdet_node = node_class("LinalgSlogdetBackward0", _slogdet_vjp)


def slogdet(A: Tensor):
    _square("slogdet", A)
    xp = xp_for(A)
    sign, logabs = xp.linalg.slogdet(A._data)
    s = _wrap(xp.asarray(sign, A._dtype.np), A._dtype, A._device)
    la = _wrap(xp.asarray(logabs, A._dtype.to_real().np), A._dtype.to_real(), A._device)
    if A._rg and _gm.enabled:
        record(_Slogdet_node, (A,), (s, la), (A,))
        s.grad_fn, s._rg = None, False  # the sign is not differentiable
    return _Slogdet(s, la)


def _solve_vjp(node, g):
    A, X = node.saved()
    vec = node.vec
    gB = solve(_h(A), g)
    gA = None
    if node.next_functions[0][0] is not None:
        gA = -(gB.unsqueeze(-1) * X.unsqueeze(-2).conj()) if vec else -matmul(gB, _h(X))
    return gA, gB


_Solve = node_class("LinalgSolveExBackward0", _solve_vjp)


def solve(A: Tensor, B: Tensor, *, left: bool = True, out=None) -> Tensor:
    _square("solve", A)
    if not left:
        return _h(solve(_h(A), _h(B)))
    xp = xp_for(A)
    vec = B.dim() == 1 or (B.dim() == A.dim() - 1 and B.shape == A.shape[:-1])
    b = B._data[..., None] if vec else B._data
    try:
        x = xp.linalg.solve(A._data, b)
    except np.linalg.LinAlgError:
        raise RuntimeError(
            "torch.linalg.solve: The solver failed because the input matrix is singular."
        ) from None
    if vec:
        x = x[..., 0]
    r = _wrap(x.astype(A._dtype.np, copy=False), A._dtype, A._device)
    if _gm.enabled and (A._rg or B._rg):
        record(_Solve, (A, B), r, (A, r), vec=vec)
    if _fw_state.level and (A._fw is not None or B._fw is not None):
        r._fw = on_primals(_solve_jvp, A, B, r, vec)
        _register(r)
    return r


def _solve_jvp(A, B, X, vec):
    # dX = A^-1 (dB - dA X)
    rhs = B._fw
    if A._fw is not None:
        t = matmul(A._fw, X.unsqueeze(-1)).squeeze(-1) if vec else matmul(A._fw, X)
        rhs = -t if rhs is None else rhs - t
    return solve(A, rhs)


def matrix_power(A: Tensor, n: int) -> Tensor:
    if n < 0:
        return matrix_power(inv(A), -n)
    if n == 0:
        from .ops.creation import eye

        e = eye(A.shape[-1], dtype=A.dtype, device=A.device)
        return e.expand(A.shape).clone() if A.dim() > 2 else e
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result


def multi_dot(tensors) -> Tensor:
    """Left-to-right chain of mm on 2-D operands (first/last may be 1-D), viewed to the result's shape
    like PyTorch (ViewBackward0 over MmBackward0)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0].dim() == 1, tensors[-1].dim() == 1
    ms = list(tensors)
    if first:
        ms[0] = ms[0].unsqueeze(0)
    if last:
        ms[-1] = ms[-1].unsqueeze(-1)
    out = ms[0]
    for t in ms[1:]:
        out = out.mm(t)
    shape = out.shape[1:] if first else out.shape
    shape = shape[:-1] if last else shape
    return out.view(shape)


from .ops.linalg_more import linalg_cross as cross  # noqa: E402


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """Increasing powers along the last dim: cat of ones and a cumprod (PyTorch's graph)."""
    from .ops.creation import ones
    from .ops.shape import cat

    n = x.shape[-1] if N is None else N
    dt = x.dtype if x._dtype.category >= D.FLOAT else D.int64
    x = x.to(dt)
    first = ones(tuple(x.shape) + (1,), dtype=dt, device=x.device)
    if n <= 1:
        return first[..., :n]
    return cat([first, x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,)).cumprod(-1)], -1)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    return (x.conj() * y).sum(dim)


# ---- eigen decompositions ------------------------------------------------------------------------------
def _eigh_vjp(node, gL, gV):
    L, V = node.saved()
    Vh = _h(V)
    inner = matmul(Vh, gV)
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    n = L.shape[-1]
    from .ops.creation import eye

    off = 1 - eye(n, dtype=L.dtype, device=L.device)
    F = off / (E + eye(n, dtype=L.dtype, device=L.device))
    inner = (inner - _h(inner)) * 0.5 * F
    inner = inner + _diag_embed(gL)
    return (matmul(matmul(V, inner), Vh),)


def _diag_embed(v: Tensor) -> Tensor:
    from .ops.creation import eye

    n = v.shape[-1]
    return v.unsqueeze(-1) * eye(n, dtype=v.dtype, device=v.device)


def _eigvalsh_vjp(node, gL):
    (V,) = node.saved()
    return (matmul(matmul(V, _diag_embed(gL)), _h(V)),)


_EighNode = node_class("LinalgEighBackward0", _eigh_vjp)
_EigvalshNode = node_class("LinalgEighBackward0", _eigvalsh_vjp)


def eigh(A: Tensor, UPLO: str = "L", *, out=None):
    _square("eigh", A)
    xp = xp_for(A)
    w, v = xp.linalg.eigh(A._data, UPLO=UPLO)
    rt = A._dtype.to_real()
    L = _wrap(w.astype(rt.np), rt, A._device)
    V = _wrap(v.astype(A._dtype.np), A._dtype, A._device)
    if A._rg and _gm.enabled:
        record(_EighNode, (A,), (L, V), (L, V))
    if out is not None:  # PyTorch writes (and resizes) the eigenvectors first
        V, L = _out(tuple(out)[::-1], _Eigh(V, L), "_linalg_eigh")
    return _Eigh(L, V)


def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    _square("eigvalsh", A)
    xp = xp_for(A)
    w, v = xp.linalg.eigh(A._data, UPLO=UPLO)
    rt = A._dtype.to_real()
    L = _wrap(w.astype(rt.np), rt, A._device)
    if A._rg and _gm.enabled:
        record(_EigvalshNode, (A,), L, (_wrap(v.astype(A._dtype.np), A._dtype, A._device),))
    return _out(out, L, "_linalg_eigh")


def matrix_rank(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False) -> Tensor:
    return _wrap(np.asarray(np.linalg.matrix_rank(np.asarray(A._data)), np.int64), D.int64, A._device)


# ---- differentiable decompositions and solvers, in their own modules ----------------------------------
from ._linalg_decomp import (  # noqa: E402, F401
    LinAlgError, _out, cholesky, cholesky_ex, eig, eigvals, qr, svd, svdvals,
)  # fmt: skip
from ._linalg_lu import inv_ex, lu_factor, lu_factor_ex, lu_solve, pinv, solve_ex  # noqa: E402, F401


# ---- more of torch.linalg, in their own modules ----------------------------------------------------
from ._linalg_norms import cond, matrix_norm, norm  # noqa: E402, F401
from ._linalg_extra import (  # noqa: E402, F401
    diagonal, householder_product, matrix_exp, solve_triangular, tensorinv, tensorsolve,
)  # fmt: skip
from ._linalg_lstsq import lstsq, lu  # noqa: E402, F401
from ._linalg_legacy import ldl_factor, ldl_factor_ex, ldl_solve  # noqa: E402, F401
