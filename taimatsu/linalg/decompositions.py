"""Differentiable decompositions of ``torch.linalg``: cholesky(_ex), qr, svd, svdvals, eig, eigvals,
lu_factor(_ex), lu_solve, pinv, inv_ex, solve_ex, and the legacy top-level forms (``torch.cholesky``,
``torch.qr``, ``torch.svd``, ``cholesky_solve``, ``cholesky_inverse``).

Forwards run on NumPy/SciPy LAPACK; each records one node named like PyTorch's
(``LinalgCholeskyExBackward0`` ...) whose VJP and JVP live in ``_linalg_grads``.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _autocast
from .. import _dtype as D
from .._autocast import FP32, cast_policy
from .._flags import user_stacklevel
from .._tensor.core import Tensor, _wrap
from ..autograd import forward_ad as _fwad
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import node_class
from ..ops._dispatch import OUT_EXACT, record, write_out, xp_for
from ..ops.on_host import on_host
from ..ops.reduction.extrema import _return_type as _rt2
from . import decomposition_grads as G


def _return_type(name, fields):
    """A ``torch.return_types`` class; the shared factory handles two fields, this any number."""
    cls = _rt2(name, fields)
    if len(fields) != 2:

        def __new__(c, *vals):
            return tuple.__new__(c, tuple(vals[0]) if len(vals) == 1 else vals)

        cls.__new__ = staticmethod(__new__)
        cls.n_fields = cls.n_sequence_fields = len(fields)
    return cls


class _LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError`` (PyTorch's class is ``torch._C._LinAlgError``)."""


LinAlgError = _LinAlgError

_CholEx = _return_type("linalg_cholesky_ex", ("L", "info"))
_Eig = _return_type("linalg_eig", ("eigenvalues", "eigenvectors"))
_QR = _return_type("linalg_qr", ("Q", "R"))
_SVD = _return_type("linalg_svd", ("U", "S", "Vh"))
_LegacySVD = _return_type("svd", ("U", "S", "V"))
_LegacyQR = _return_type("qr", ("Q", "R"))


# ---- shared checks and plumbing ------------------------------------------------------------------------
def _check(name, A, square=True, kernel=None, low=None, kernel_all=False):
    """PyTorch's input checks: dimensions, squareness, dtype. ``kernel``: float16/bfloat16 (and
    with ``kernel_all`` every non-float dtype) raise '"kernel" not implemented for ...';
    ``low``: float16/bfloat16 raise "{name}: Low precision dtypes not supported."."""
    from . import _sname

    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )
    low_precision = A._dtype in (D.float16, D.bfloat16)
    if kernel and (low_precision or (kernel_all and A._dtype.category < D.FLOAT)):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_sname(A)}'")
    if A._dtype.category < D.FLOAT:
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {_sname(A)}"
        )
    if low_precision:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {_sname(A)}")


def _t(arr, dtype: D.dtype, like: Tensor) -> Tensor:
    return _wrap(
        np.ascontiguousarray(np.asarray(arr).astype(dtype.np, copy=False)), dtype, like._device
    )


def _recording(*ts) -> bool:
    return _gm.enabled and any(t is not None and t._rg for t in ts)


def _tangents(outs, jvp, *args) -> None:
    """Run ``jvp(*args)`` on primals and attach the tangents it returns to ``outs``."""
    ts = _fwad.on_primals(jvp, *args)
    if not isinstance(ts, tuple):
        ts = (ts,)
    for o, t in zip(outs, ts):
        if t is not None:
            o._fw = t
            _fwad._register(o)


def _fw_on(*ts) -> bool:
    return bool(_fwad.state.level) and any(t is not None and t._fw is not None for t in ts)


def _castable(what, name):
    return f"{name}: Expected {what} to be safely castable from {{res}} dtype, but got {what} with dtype {{out}}"


def _out(out, result, name, exact=OUT_EXACT, cast_msg=None, grad=True):
    """Store ``result`` (a tensor or a return_types tuple) into ``out=`` like PyTorch's ``name``."""
    if out is None:
        return result
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors")
        return type(result)(
            *write_out(tuple(out), tuple(result), name, exact, grad=grad, cast_msg=cast_msg)
        )
    return write_out(out, result, name, exact, grad=grad, cast_msg=cast_msg)


def _batch_msg(i, lead, msg):
    return f"(Batch element {i}): {msg}" if lead else msg


def _each(a):
    """Iterate over the matrices of a batched array, with their flat batch index."""
    flat = a.reshape((int(np.prod(a.shape[:-2], dtype=np.int64)),) + a.shape[-2:])
    return enumerate(flat)


# ---- Cholesky -------------------------------------------------------------------------------------------
def _potrf(a):
    """Cholesky factors (lower) and LAPACK info for every matrix of ``a``."""
    from scipy.linalg import lapack

    try:
        L = np.linalg.cholesky(a)
        if not np.isnan(np.diagonal(L, axis1=-2, axis2=-1)).any():  # a NaN pivot: info below
            return L, np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        pass
    out = np.zeros_like(a)
    info = np.zeros(int(np.prod(a.shape[:-2])), np.int32)
    flat_out = out.reshape((-1,) + a.shape[-2:])
    for i, m in _each(a):
        (potrf,) = lapack.get_lapack_funcs(("potrf",), (m,))
        c, inf = potrf(m, lower=1, clean=1)
        if inf == 0:  # OpenBLAS's potrf lets a NaN pivot through; LAPACK's (and MKL's) stop there
            nan = np.flatnonzero(np.isnan(np.diagonal(c)))
            inf = int(nan[0]) + 1 if nan.size else 0
        flat_out[i], info[i] = c, max(inf, 0)
    return out, info.reshape(a.shape[:-2])


def _chol_vjp(node, gL, g_info=None):
    (out,) = node.saved()
    if node.upper:
        return (G.cholesky_vjp(G._h(out), G._h(gL)),)
    return (G.cholesky_vjp(out, gL),)


def _chol_jvp(out, dA, upper):
    if upper:
        return G._h(G.cholesky_jvp(G._h(out), dA))
    return G.cholesky_jvp(out, dA)


_CholExNode = node_class("LinalgCholeskyExBackward0", _chol_vjp, materialize=True)
_CholNode = node_class("CholeskyBackward0", _chol_vjp, materialize=True)


@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def _cholesky(A, upper, name, check, node):
    _check("cholesky" if name == "cholesky" else "linalg.cholesky", A, kernel="cholesky_cpu")
    a = np.asarray(A._data)
    # upper=True reads A's upper triangle: the lower factor of A^H, conjugate-transposed.
    L, info = _potrf(np.conj(np.swapaxes(a, -1, -2)) if upper else a)
    if check and info.any():
        i = int(np.flatnonzero(info.reshape(-1))[0])
        raise _LinAlgError(f"{name}: " + _batch_msg(i, A.dim() > 2, (
            "The factorization could not be completed because the input is not positive-definite "
            f"(the leading minor of order {int(info.reshape(-1)[i])} is not positive-definite).")))  # fmt: skip
    out = _t(np.conj(np.swapaxes(L, -1, -2)) if upper else L, A._dtype, A)
    inf = _wrap(info, D.int32, A._device)
    if _recording(A):
        record(node, (A,), out if node is _CholNode else (out, inf), (out,), upper=upper)
    if _fw_on(A):
        _tangents((out,), _chol_jvp, out, A._fw, upper)
    return out, inf


@cast_policy(FP32, ("cpu",))
def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out=None):
    L, info = _cholesky(A, upper, "linalg.cholesky_ex", check_errors, _CholExNode)
    return _out(out, _CholEx(L, info), "linalg_cholesky_ex")


@cast_policy(FP32, ("cpu",))
def cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    return _out(
        out, _cholesky(A, upper, "linalg.cholesky", True, _CholExNode)[0], "linalg_cholesky_ex"
    )


_warned = set()


def _warn_once(key, msg):
    if key not in _warned:
        _warned.add(key)
        warnings.warn(msg, UserWarning, stacklevel=user_stacklevel())


def legacy_cholesky(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """``torch.cholesky`` (deprecated in PyTorch, still working)."""
    # autocast checked inline, not by @cast_policy: keeps the warning's frame
    if _autocast.state.on and out is None and _autocast.applies(("cpu",), input):
        return _autocast.run(legacy_cholesky, FP32, (input, upper), {})
    _warn_once("cholesky", (
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
        "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\nU = "
        "torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform "
        "will produce equivalent results for all valid (symmetric positive definite) inputs."))  # fmt: skip
    r = _cholesky(input, upper, "cholesky", True, _CholNode)[0]
    return _out(out, r, "cholesky", None, _castable("result", "cholesky"))


# ---- QR ---------------------------------------------------------------------------------------------------
def _qr_vjp(node, gQ, gR):
    if node.mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
            "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
        )
    m, n = node.shape
    if node.mode == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
    Q, R = node.saved()
    return (G.qr_vjp((m, n), Q, R, gQ, gR),)


_QrNode = node_class("LinalgQrBackward0", _qr_vjp, materialize=False)


@cast_policy(FP32, ("cpu",))
@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def qr(A: Tensor, mode: str = "reduced", *, out=None):
    if A.dim() < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
        )
    _check("linalg.qr", A, square=False, kernel="geqrf_cpu")
    a = np.asarray(A._data)
    m, n = a.shape[-2:]
    if mode == "r":
        q, r = np.zeros(0, a.dtype), np.linalg.qr(a, mode="r")
    else:
        q, r = np.linalg.qr(a, mode=mode)
    Q, R = _t(q, A._dtype, A), _t(r, A._dtype, A)
    if _recording(A):
        record(_QrNode, (A,), (Q, R), (Q, R), mode=mode, shape=(m, n))
    if _fw_on(A):
        if mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
            )
        if mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        _tangents((Q, R), G.qr_jvp, Q, R, A._fw)
    return _out(out, _QR(Q, R), "linalg_qr")


def legacy_qr(input: Tensor, some: bool = True, *, out=None):
    _warn_once("qr", (
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
        "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\n"
        "should be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')"))  # fmt: skip
    Q, R = qr(input, "reduced" if some else "complete")
    return _out(out, _LegacyQR(Q, R), "linalg_qr")


# ---- SVD --------------------------------------------------------------------------------------------------
def _svd_vjp(node, gU, gS, gVh):
    U, S, Vh = node.saved()
    k = S.shape[-1]
    if node.full:
        U, Vh = U[..., :, :k], Vh[..., :k, :]
        gU = gU[..., :, :k] if gU is not None else None
        gVh = gVh[..., :k, :] if gVh is not None else None
    if gU is None and gS is None and gVh is None:
        return (None,)
    return (G.svd_vjp(U, S, Vh, gU, gS, gVh),)


def _svdvals_vjp(node, gS):
    A, U, Vh = node.saved()
    if _gm.enabled:  # create_graph: U and Vh must carry A's history for the second derivative
        U, _, Vh = svd(A, full_matrices=False)
    return (G.svd_vjp(U, None, Vh, None, gS, None),)


_SvdNode = node_class("LinalgSvdBackward0", _svd_vjp, materialize=False)
_SvdvalsNode = node_class("LinalgSvdBackward0", _svdvals_vjp)


def svd_numpy(a: np.ndarray, full_matrices: bool = False, compute_uv: bool = True):
    """NumPy's SVD with PyTorch's answers for non-finite input, whatever the LAPACK: a matrix
    holding NaN raises PyTorch's LinAlgError (NumPy's own would leak); one holding inf (and no
    NaN) has NaN singular values, as PyTorch's MKL build returns (so matrix_rank counts 0 and
    cond is NaN). Its U and Vh are NaN too: MKL's are an artefact of its path (a permutation
    for some matrices, NaN for others), not something to reproduce."""
    for i, m in _each(a):
        if np.isnan(m).any():
            raise _LinAlgError("linalg.svd: " + _batch_msg(i, a.ndim > 2, (
                "The algorithm failed to converge because the input matrix contained non-finite values."
            )))  # fmt: skip
    inf = np.isinf(a).any((-2, -1)) if a.size else np.zeros(a.shape[:-2], bool)
    if inf.any():
        a = np.where(inf[..., None, None], 0, a)  # decomposed as zeros, then NaN-filled
    out = np.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    if inf.any():
        for x in out if compute_uv else (out,):
            x[inf] = np.nan
    return out


def _svd_arrays(A, full, uv=True):
    a = np.asarray(A._data)
    rt = A._dtype.to_real()
    if not uv:
        return None, _t(svd_numpy(a, compute_uv=False), rt, A), None
    u, s, vh = svd_numpy(a, full_matrices=full)
    return _t(u, A._dtype, A), _t(s, rt, A), _t(vh, A._dtype, A)


def _svd_jvp_full(U, S, Vh, dA):
    """Tangents of full U / Vh: the reduced ones, and for the extra (complement) columns the
    choice -U1 (dU1^H U2) that keeps U unitary to first order (the complement is a free gauge)."""
    from ..ops.shape.copies import cat

    k = S.shape[-1]
    U1, U2, Vh1, Vh2 = U[..., :, :k], U[..., :, k:], Vh[..., :k, :], Vh[..., k:, :]
    dU1, dS, dVh1 = G.svd_jvp(U1, S, Vh1, dA)
    dU = cat([dU1, -G.matmul(U1, G.matmul(G._h(dU1), U2))], -1)
    dVh = cat([dVh1, -G.matmul(G.matmul(Vh2, G._h(dVh1)), Vh1)], -2)
    return dU, dS, dVh


def _no_driver(driver, A):
    if driver is not None and A._device.type == "cpu":
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend."
        )


@cast_policy(FP32, ("cpu",))
@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None):
    _check("linalg.svd", A, square=False, kernel="linalg_svd_cpu")
    _no_driver(driver, A)
    U, S, Vh = _svd_arrays(A, full_matrices)
    m, n = A.shape[-2:]
    if _recording(A):
        record(_SvdNode, (A,), (U, S, Vh), (U, S, Vh), full=full_matrices)
    if _fw_on(A):
        _tangents(
            (U, S, Vh), _svd_jvp_full if full_matrices and m != n else G.svd_jvp, U, S, Vh, A._fw
        )
    return _out(out, _SVD(U, S, Vh), "_linalg_svd")


@cast_policy(FP32, ("cpu",))
@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    _check("linalg.svd", A, square=False, kernel="linalg_svd_cpu")
    _no_driver(driver, A)
    if not (_recording(A) or _fw_on(A)):
        return _out(out, _svd_arrays(A, False, uv=False)[1], "_linalg_svd")
    U, S, Vh = _svd_arrays(A, False)
    if _recording(A):
        record(_SvdvalsNode, (A,), S, (A, U, Vh))
    if _fw_on(A):
        _tangents((S,), lambda *a: G.svd_jvp(*a)[1], U, S, Vh, A._fw)
    return _out(out, S, "_linalg_svd")


legacy_cholesky.__name__ = legacy_cholesky.__qualname__ = "cholesky"
legacy_qr.__name__ = legacy_qr.__qualname__ = "qr"


def legacy_svd(input: Tensor, some: bool = True, compute_uv: bool = True, *, out=None):
    """``torch.svd``: returns V (not V^H); without compute_uv, U and V are zero-filled."""
    if input.dim() < 2:
        raise RuntimeError(
            f"linalg.svd: input should have at least 2 dimensions, but has {input.dim()} dimensions instead"
        )
    if not compute_uv:
        _check("linalg.svd", input, square=False, kernel="linalg_svd_cpu")
        S = svdvals(input)
        m, n = input.shape[-2:]
        lead = tuple(input.shape[:-2])
        xp = xp_for(input)
        U = _wrap(xp.zeros(lead + (m, m), input._dtype.np), input._dtype, input._device)
        V = _wrap(xp.zeros(lead + (n, n), input._dtype.np), input._dtype, input._device)
        return _out(out, _LegacySVD(U, S, V), "_linalg_svd")
    U, S, Vh = svd(input, full_matrices=not some)
    V = Vh.transpose(-2, -1)
    return _out(out, _LegacySVD(U, S, V.conj() if V.is_complex() else V), "_linalg_svd")


legacy_svd.__name__ = legacy_svd.__qualname__ = "svd"


# ---- eig / eigvals ---------------------------------------------------------------------------------------------
def _eig_vjp(node, gL, gV):
    L, V = node.saved()
    if gL is None and gV is None:
        return (None,)
    return (G.eig_vjp(node.real_input, L, V, gL, gV),)


def _eigvals_vjp(node, gL):
    A, L, V = node.saved()
    if _gm.enabled:  # create_graph: V must carry A's history for the second derivative
        L, V = eig(A)
    return (G.eig_vjp(node.real_input, L, V, gL, None),)


_EigNode = node_class("LinalgEigBackward0", _eig_vjp, materialize=False)
_EigvalsNode = node_class("LinalgEigBackward0", _eigvals_vjp)


def _eig_check(name, A):
    if A.dim() >= 2 and (A._dtype.category < D.FLOAT or A._dtype in (D.float16, D.bfloat16)):
        from . import _sname

        if A._dtype.category < D.FLOAT:
            raise RuntimeError(f"Unknown Complex ScalarType for {_sname(A)}")
        raise NotImplementedError(f"\"linalg_eig_out_cpu\" not implemented for '{_sname(A)}'")
    _check(name, A)


def _eig_finite(A):
    """PyTorch's eig refuses non-finite input (eigvals too when it needs eig's vectors for a
    gradient). Without a gradient PyTorch's eigvals hands NaN/inf to LAPACK, whose answer is
    undefined (NaNs, or a crash); taimatsu raises eig's error there too."""
    if not np.isfinite(np.asarray(A._data)).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")


def _eig_arrays(A, name):
    _eig_check(name, A)
    _eig_finite(A)
    w, v = np.linalg.eig(np.asarray(A._data))
    ct = A._dtype.to_complex() if A._dtype.category == D.FLOAT else A._dtype
    return _t(w, ct, A), _t(v, ct, A)


@cast_policy(FP32, ("cpu",))
@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def eig(A: Tensor, *, out=None):
    L, V = _eig_arrays(A, "linalg.eig")
    if _recording(A):
        record(_EigNode, (A,), (L, V), (L, V), real_input=not A.is_complex())
    if _fw_on(A):
        _tangents((L, V), G.eig_jvp, L, V, A._fw)
    if out is not None and isinstance(out, (tuple, list)) and len(out) == 2:
        from ..ops._dispatch import check_out

        for o, r, what in zip(out, (L, V), ("eigenvalues", "eigenvectors")):
            check_out(
                o, r, "linalg_eig", None, True, RuntimeError, _castable(what, "torch.linalg.eig")
            )
    return _out(out, _Eig(L, V), "linalg_eig", None, _castable("eigenvalues", "torch.linalg.eig"))


@cast_policy(FP32, ("cpu",))
@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def eigvals(A: Tensor, *, out=None) -> Tensor:
    if not (_recording(A) or _fw_on(A)):
        _eig_check("linalg.eigvals", A)
        _eig_finite(A)
        w = np.linalg.eigvals(np.asarray(A._data))
        ct = A._dtype.to_complex() if A._dtype.category == D.FLOAT else A._dtype
        return _out(
            out,
            _t(w, ct, A),
            "linalg_eigvals",
            None,
            _castable("eigenvalues", "torch.linalg.eigvals"),
            False,
        )
    L, V = _eig_arrays(A, "linalg.eigvals")
    if _recording(A):
        record(_EigvalsNode, (A,), L, (A, L, V), real_input=not A.is_complex())
    if _fw_on(A):
        _tangents((L,), lambda *a: G.eig_jvp(*a)[0], L, V, A._fw)
    return _out(
        out, L, "linalg_eigvals", None, _castable("eigenvalues", "torch.linalg.eigvals"), False
    )
