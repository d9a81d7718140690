"""PyTorch's older linear-algebra entry points and the LAPACK-format factorisations:
``torch.triangular_solve``, ``torch.lu``, ``torch.lu_solve``, ``torch.geqrf``, ``torch.ormqr``,
``torch.linalg.ldl_factor(_ex)`` and ``torch.linalg.ldl_solve``.

triangular_solve and ormqr are differentiable (VJPs in Tensor ops, reusing solve_triangular
and the householder_product gradient); geqrf and the LDL functions are not, as in PyTorch.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _autocast
from .. import _dtype as D
from .._autocast import FP32, cast_policy
from .._tensor.core import Tensor, _wrap
from ..autograd.forward_ad import _register, on_primals
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import node_class
from ..ops._dispatch import _fw_state, record, xp_for
from ..ops.contraction.matmul import matmul
from ..ops.on_host import on_host
from . import _h, _sname, _square
from .decompositions import _return_type, _warn_once
from .structured import householder_grads, householder_product, solve_triangular

_TriSolve = _return_type("triangular_solve", ("solution", "cloned_coefficient"))
_LuInfo = _return_type("_lu_with_info", ("LU", "pivots", "info"))
_Geqrf = _return_type("geqrf", ("a", "tau"))
_Ldl = _return_type("linalg_ldl_factor", ("LD", "pivots"))
_LdlEx = _return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
_EXACT = "Expected out tensor to have dtype {res_cpp}, but got {out_cpp} instead"


# ---- triangular_solve ------------------------------------------------------------------------------------------------
def _tri_solve_vjp(node, gX, gM):
    A, X = node.saved()
    upper, trans, unit = node.upper, node.trans, node.unit
    gA = gB = None
    if gX is not None:
        # X = op(A)^-1 B with op(A) = A or A^T (the triangle read is the one of A itself).
        opA = A.mT if trans else A
        gB = solve_triangular(_h(opA), gX, upper=(not upper) ^ trans, unitriangular=unit)
        g_op = -matmul(gB, _h(X))
        gA = g_op.mT if trans else g_op
        gA = gA.triu(int(unit)) if upper else gA.tril(-int(unit))
    if gM is not None:
        gA = gM if gA is None else gA + gM
    return gB, gA


def _tri_solve_jvp(A, b, X, upper, trans, unit):
    # dX = M^-1 (db - dM X), M = the triangle of op(A)
    opA = A.mT if trans else A
    rhs = b._fw
    if A._fw is not None:
        # PyTorch's triangular_solve JVP uses dA as is: neither its triangle (which is all the
        # solve reads) nor, for transpose=True, its transpose. Finite differences disagree, its
        # VJP and linalg.solve_triangular's JVP do not; the tangent matches PyTorch's here.
        t = matmul(A._fw, X)
        rhs = -t if rhs is None else rhs - t
    return solve_triangular(opA, rhs, upper=upper ^ trans, unitriangular=unit)


_TriSolveNode = node_class("TriangularSolveBackward0", _tri_solve_vjp, materialize=False)


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False, unitriangular: bool = False,
                     *, out=None):  # fmt: skip
    """``torch.triangular_solve`` (deprecated in PyTorch): (solution, a copy of A)."""
    # autocast checked inline, not by @cast_policy: keeps the warning's frame
    if _autocast.state.on and out is None and _autocast.applies(("cpu",), b, A):
        return _autocast.run(triangular_solve, FP32, (b, A, upper, transpose, unitriangular), {})
    _warn_once("triangular_solve", (
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a "
        "future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a "
        "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
        "X = torch.linalg.solve_triangular(A, B)."
    ))  # fmt: skip
    if b.dim() < 2:
        raise RuntimeError(
            f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has {b.dim()} dimensions instead"
        )
    if A.dim() < 2:
        raise RuntimeError(
            f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has {A.dim()} dimensions instead"
        )
    if b._dtype is not A._dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {_sname(b)} and A of type {_sname(A)} instead."
        )
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if A.shape[-1] != b.shape[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for triangular_solve: each A matrix is {A.shape[-2]} by {A.shape[-1]} but each "
            f"b matrix is {b.shape[-2]} by {b.shape[-1]}"
        )
    if A._dtype.category < D.FLOAT or A._dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_sname(A)}'")
    from ..autograd.grad_mode import no_grad

    lead = tuple(np.broadcast_shapes(tuple(b.shape[:-2]), tuple(A.shape[:-2])))
    with no_grad():
        opA = A.mT if transpose else A
        X = solve_triangular(opA, b, upper=upper ^ transpose, unitriangular=unitriangular)
        M = A.expand(lead + tuple(A.shape[-2:])).clone()
    dev = A._device
    X, M = _wrap(X._data, A._dtype, dev), _wrap(M._data, A._dtype, dev)
    if _gm.enabled and (A._rg or b._rg):
        record(
            _TriSolveNode, (b, A), (X, M), (A, X), upper=upper, trans=transpose, unit=unitriangular
        )
    if _fw_state.level and (A._fw is not None or b._fw is not None):
        X._fw = on_primals(_tri_solve_jvp, A, b, X, upper, transpose, unitriangular)
        _register(X)
        if A._fw is not None:
            M._fw = A._fw.expand(M.shape).clone()
            _register(M)
    res = _TriSolve(X, M)
    if out is not None:
        from ..ops._dispatch import write_out

        return _TriSolve(*write_out(tuple(out), tuple(res), "triangular_solve", exact=_EXACT))
    return res


# ---- torch.lu / torch.lu_solve ----------------------------------------------------------------------------------------
def lu(A: Tensor, pivot: bool = True, get_infos: bool = False, out=None):
    """``torch.lu`` (deprecated in PyTorch): (LU, pivots[, infos]) from ``linalg.lu_factor_ex``."""
    from .solvers import lu_factor_ex

    _warn_once("lu", (
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed "
        "in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots "
        "= torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, "
        "get_infos=True)\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)"
    ))  # fmt: skip
    if A.dim() < 2:
        raise RuntimeError(
            f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead"
        )
    # PyTorch 2.13's torch.lu does not raise for a singular A (info > 0), with or without get_infos
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    res = _LuInfo(LU, piv, info) if get_infos else (LU, piv)
    if out is not None:
        from ..ops._dispatch import _store

        if any(o.requires_grad for o in out):  # resize_as_ refuses them, grad mode or not
            raise RuntimeError("cannot resize variables that require grad")
        with (
            warnings.catch_warnings()
        ):  # torch.lu resizes and casts into out= silently (resize_as_ + copy_)
            warnings.simplefilter("ignore")
            res = tuple(_store(o, r, False) for o, r in zip(out, res))
    return res


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None) -> Tensor:
    """``torch.lu_solve`` (deprecated in PyTorch): ``linalg.lu_solve`` with its arguments reversed."""
    # autocast checked inline, not by @cast_policy: see triangular_solve
    if _autocast.state.on and out is None and _autocast.applies(("cpu",), b, LU_data):
        return _autocast.run(lu_solve, FP32, (b, LU_data, LU_pivots), {})
    from .solvers import lu_solve as linalg_lu_solve

    _warn_once("lu_solve", (
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch "
        "release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\n"
        "should be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)"
    ))  # fmt: skip
    return linalg_lu_solve(LU_data, LU_pivots, b, out=out)


# ---- geqrf / ormqr ----------------------------------------------------------------------------------------------------
def _geqrf_vjp(node, ga, gtau):
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


_GeqrfNode = node_class("GeqrfBackward0", _geqrf_vjp, materialize=False)


def _each_matrix(a: np.ndarray):
    return a.reshape((math.prod(a.shape[:-2]),) + a.shape[-2:])


@cast_policy(FP32, ("cpu",))
@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def geqrf(input: Tensor, *, out=None):
    """``torch.geqrf``: LAPACK's QR in Householder form, (a, tau); not differentiable (as in PyTorch)."""
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if input._dtype.category < D.FLOAT or input._dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{_sname(input)}'")
    _no_forward_ad("geqrf", input)
    from scipy.linalg import lapack

    a = np.asarray(input._data)
    m, n = a.shape[-2:]
    k = min(m, n)
    qr = np.array(a, copy=True)
    tau = np.zeros(a.shape[:-2] + (k,), a.dtype)
    if a.size:
        fq, ft = _each_matrix(qr), tau.reshape(-1, k)
        for i, mat in enumerate(_each_matrix(a)):
            (f,) = lapack.get_lapack_funcs(("geqrf",), (mat,))
            fq[i], ft[i] = f(mat)[:2]
    dt, dev, xp = input._dtype, input._device, xp_for(input)
    Q, T = _wrap(xp.asarray(qr), dt, dev), _wrap(xp.asarray(tau), dt, dev)
    if _gm.enabled and input._rg:
        record(_GeqrfNode, (input,), (Q, T), ())
    res = _Geqrf(Q, T)
    if out is not None:
        from ..ops._dispatch import write_out

        msg = "torch.geqrf: Expected a to be safely castable from {res} dtype, but got a with dtype {out}"
        return _Geqrf(*write_out(tuple(out), tuple(res), "geqrf", cast_msg=msg))
    return res


def _full_reflectors(A: Tensor) -> Tensor:
    """A's reflector columns as an m x m matrix (householder_product of it is the full Q)."""
    from ..ops.shape.copies import cat

    m, n = A.shape[-2], A.shape[-1]
    A = A[..., : min(m, n)]
    if A.shape[-1] < m:
        A = cat([A, A[..., :1].expand(tuple(A.shape[:-1]) + (m - A.shape[-1],)) * 0], -1)
    return A


def _ormqr_apply(Q, C, left, transpose):
    op = _h(Q) if transpose else Q
    return matmul(op, C) if left else matmul(C, op)


def _ormqr_vjp(node, g):
    A, tau, C = node.saved()
    left, transpose = node.left, node.transpose
    Af = _full_reflectors(A)
    Q = householder_product(Af, tau)
    # out = op(Q) C (left) or C op(Q) (right); op(Q) = Q^H when transpose.
    g_op = matmul(g, _h(C)) if left else matmul(_h(C), g)
    gQ = _h(g_op) if transpose else g_op
    gC = _ormqr_apply(Q, g, left, not transpose)
    gA, gt = householder_grads(Af, tau, gQ)
    n = A.shape[-1]
    if n > gA.shape[-1]:
        from ..ops.shape.copies import cat

        gA = cat([gA, A[..., gA.shape[-1] :] * 0], -1)
    return gA[..., :n], gt, gC


_OrmqrNode = node_class("OrmqrBackward0", _ormqr_vjp)


@cast_policy(FP32, ("cpu",))
def ormqr(
    input: Tensor,
    input2: Tensor,
    input3: Tensor,
    left: bool = True,
    transpose: bool = False,
    *,
    out=None,
):
    """``torch.ormqr``: op(Q) @ other or other @ op(Q), Q from (input, tau) as geqrf returns them."""
    name = "torch.ormqr"
    A, tau, C = input, input2, input3
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if C.dim() < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    m = A.shape[-2]
    side = -2 if left else -1
    if C.shape[side] != m:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.shape[-1] != min(C.shape[side], A.shape[-1]):
        raise RuntimeError(
            f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])"
        )
    _no_forward_ad("ormqr", A, tau, C)
    from ..autograd.grad_mode import no_grad

    with no_grad():
        r = _ormqr_apply(householder_product(_full_reflectors(A), tau), C, left, transpose)
    r = _wrap(r._data, r._dtype, r._device)
    if _gm.enabled and (A._rg or tau._rg or C._rg):
        record(_OrmqrNode, (A, tau, C), r, (A, tau, C), left=left, transpose=transpose)
    if out is not None:
        from ..ops._dispatch import write_out

        msg = "torch.ormqr: Expected input and result to have the same dtype, but input has dtype{res} and result has dtype {out}"
        return write_out(out, r, "ormqr", exact=msg)
    return r


def _no_forward_ad(op: str, *ts, declared: bool = True) -> None:
    """PyTorch's error for dual inputs to an op without a forward-mode formula."""
    if not (_fw_state.level and any(t._fw is not None for t in ts)):
        return
    if declared:  # the op is in derivatives.yaml without a forward formula
        raise NotImplementedError(
            f"Trying to use forward AD with {op} that does not support it because it has not been implemented yet.\n"
            "Please file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml "
            "so that we can prioritize its implementation or submit a PR adding the implementation to derivatives.yaml"
        )
    raise NotImplementedError(f"Trying to use forward AD with {op} that does not support it.")


def _not_differentiable(node, *grads):
    raise RuntimeError(f"derivative for aten::{node.op} is not implemented")


_NotImplementedNode = node_class("NotImplemented", _not_differentiable, materialize=False)


# ---- LDL^T / LDL^H ------------------------------------------------------------------------------------------------------
def _lapack(kind: str, hermitian: bool, mat):
    from scipy.linalg import lapack

    prefix = "he" if hermitian and np.iscomplexobj(mat) else "sy"
    return lapack.get_lapack_funcs((prefix + kind,), (mat,))[0]


@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out=None):
    """``torch.linalg.ldl_factor_ex``: LAPACK's sytrf/hetrf (lower) in PyTorch's format: the
    compact LD with its upper triangle zeroed, 1-based pivots (negative for 2 x 2 blocks), info."""
    _square("torch.linalg.ldl_factor_ex:", A)
    _no_forward_ad("aten::linalg_ldl_factor_ex", A, declared=False)
    a = np.asarray(A._data)
    n = a.shape[-1]
    ld = np.zeros_like(a)
    piv = np.tile(np.arange(1, n + 1, dtype=np.int32), a.shape[:-2] + (1,))
    info = np.zeros(a.shape[:-2], np.int32)
    if a.size:
        fl, fp, fi = _each_matrix(ld), piv.reshape(-1, n), info.reshape(-1)
        for i, mat in enumerate(_each_matrix(a)):
            c, p, inf = _lapack("trf", hermitian, mat)(mat, lower=1)[:3]
            fl[i], fp[i], fi[i] = np.tril(c), p, max(inf, 0)
    if check_errors and info.any():
        raise RuntimeError(
            f"torch.linalg.ldl_factor_ex: Unknown error code: {int(info.reshape(-1).max())}."
        )
    dt, dev, xp = A._dtype, A._device, xp_for(A)
    res = _LdlEx(
        _wrap(xp.asarray(ld), dt, dev),
        _wrap(xp.asarray(piv), D.int32, dev),
        _wrap(xp.asarray(info), D.int32, dev),
    )
    if _gm.enabled and A._rg:
        record(_NotImplementedNode, (A,), tuple(res), (), op="linalg_ldl_factor_ex")
    if out is not None:
        from ..ops._dispatch import write_out

        return _LdlEx(
            *write_out(tuple(out), tuple(res), "linalg_ldl_factor_ex", exact=_EXACT, grad=False)
        )
    return res


def ldl_factor(A: Tensor, *, hermitian: bool = False, out=None):
    """``torch.linalg.ldl_factor``: (LD, pivots) of ``ldl_factor_ex``."""
    LD, piv, _ = ldl_factor_ex(A, hermitian=hermitian)
    res = _Ldl(LD, piv)
    if out is not None:
        from ..ops._dispatch import write_out

        return _Ldl(
            *write_out(tuple(out), tuple(res), "linalg_ldl_factor", exact=_EXACT, grad=False)
        )
    return res


@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def ldl_solve(
    LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out=None
) -> Tensor:
    """``torch.linalg.ldl_solve``: LAPACK's sytrs/hetrs with ``ldl_factor``'s LD and pivots."""
    name = "torch.linalg.ldl_solve"
    if LD.dim() < 2:
        raise RuntimeError(
            f"{name}: LD must have at least 2 dimensions, but it has {LD.dim()} dimensions instead"
        )
    if B.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{max(B.dim(), 1)}, "
                         f"{max(B.dim(), 1) - 1}], but got -2)")  # fmt: skip
    _no_forward_ad("aten::linalg_ldl_solve", LD, B, declared=False)
    lead = np.broadcast_shapes(tuple(LD.shape[:-2]), tuple(B.shape[:-2]))
    ld = np.broadcast_to(np.asarray(LD._data), lead + tuple(LD.shape[-2:]))
    piv = np.broadcast_to(np.asarray(pivots._data).astype(np.int32), lead + (LD.shape[-1],))
    b = np.broadcast_to(np.asarray(B._data).astype(LD._dtype.np), lead + tuple(B.shape[-2:]))
    x = np.zeros(b.shape, b.dtype)
    if b.size:
        fx, fp, fb = _each_matrix(x), piv.reshape(-1, piv.shape[-1]), _each_matrix(b)
        for i, mat in enumerate(_each_matrix(ld)):
            fx[i] = _lapack("trs", hermitian, mat)(mat, fp[i], fb[i], lower=1)[0]
    r = _wrap(xp_for(LD).asarray(x), LD._dtype, LD._device)
    if _gm.enabled and (LD._rg or B._rg):
        record(_NotImplementedNode, (LD, B), r, (), op="linalg_ldl_solve")
    if out is not None:
        from ..ops._dispatch import write_out

        return write_out(out, r, "linalg_ldl_solve", exact=_EXACT, grad=False)
    return r
