"""``torch.linalg``: a first set of decompositions and solvers on NumPy/SciPy LAPACK.

Differentiable here: inv, det, slogdet, solve, eigvalsh, eigh, norms, cross, vecdot,
multi_dot, matrix_power; the decompositions (cholesky, qr, svd, svdvals, eig, eigvals,
lu_factor, lu_solve, pinv) live in ``_linalg_decomp`` / ``_linalg_lu`` with their VJPs and JVPs.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._autocast import FP32, LOWER, cast_policy
from .._tensor.core import Tensor, _wrap
from .._tensor_arguments import guard as _guard
from ..autograd.forward_ad import _register, on_primals
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import node_class
from ..backend import linalg_errors, to_numpy
from ..ops._dispatch import OUT_EXACT, _fw_state, record, write_out, xp_for
from ..ops.contraction.matmul import matmul
from ..ops.on_host import on_host
from ..ops.reduction.extrema import _return_type  # noqa: F401  (re-exported)
from ..ops.reduction.norms import vector_norm  # noqa: F401  (re-exported)

_Eigh = _return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
_Slogdet = _return_type("linalg_slogdet", ("sign", "logabsdet"))
SlogdetResult = _return_type("slogdet", ("sign", "logabsdet"))  # torch.slogdet's
# With out=, PyTorch returns the *_out variants of the named tuples.
_OUT_TYPES = {
    name: _return_type(name + "_out", fields)
    for name, fields in (("linalg_slogdet", ("sign", "logabsdet")), ("slogdet", ("sign", "logabsdet")),
                         ("linalg_eigh", ("eigenvalues", "eigenvectors")))
}  # fmt: skip


def _square(name: str, A: Tensor, low: str = "") -> None:
    """PyTorch's checks of a batch of square float/complex matrices, prefixed ``linalg.{name}: ``
    (``name`` may carry its own prefix, "logdet"). ``low``: how half/bfloat16 are refused
    ("low": Low precision dtypes; "lu_cpu"/"linalg_eigh_cpu": the kernel is not implemented)."""
    pre = name if ":" in name else f"linalg.{name}:"
    _square_shape(pre, A)
    lowp = A._dtype in (D.float16, D.bfloat16)
    if low.endswith("_cpu") and (
        lowp or (low == "linalg_eigh_cpu" and A._dtype.category < D.FLOAT)
    ):
        raise NotImplementedError(f"\"{low}\" not implemented for '{_sname(A)}'")
    if lowp and low == "low":
        raise RuntimeError(f"{pre} Low precision dtypes not supported. Got {_sname(A)}")
    if A._dtype.category < D.FLOAT or lowp:
        raise RuntimeError(
            f"{pre} Expected a floating point or complex tensor as input. Got {_sname(A)}"
        )


def _square_shape(pre: str, A: Tensor) -> None:
    """PyTorch's errors, prefixed ``pre``, unless A is a batch of square matrices."""
    if A.dim() < 2:
        raise RuntimeError(f"{pre} The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{pre} A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )


def _sname(t):
    from ..ops._dispatch import scalar_name

    return scalar_name(t._dtype)


def _h(t: Tensor) -> Tensor:
    m = t.transpose(-2, -1)
    return m.conj() if t.is_complex() else m


# ---- inverse, determinant, solve ------------------------------------------------------------------
def _inv_vjp(node, g):
    (out,) = node.saved()
    oh = _h(out)
    return (-matmul(matmul(oh, g), oh),)


_Inv = node_class("LinalgInvExBackward0", _inv_vjp)


def _singular_inv(A: Tensor, name: str = "linalg.inv"):
    """PyTorch's error for a singular matrix: LAPACK getrf's first zero pivot, per batch element."""
    from .decompositions import _batch_msg, _LinAlgError

    info = _getrf_info(A)
    i = int(np.flatnonzero(info)[0]) if info.any() else 0
    return _LinAlgError(f"{name}: " + _batch_msg(i, A.dim() > 2, (
        f"The diagonal element {int(info[i])} is zero, the inversion could not be completed because the input "
        "matrix is singular."
    )))  # fmt: skip


@cast_policy(FP32, ("cpu",))
def inv(A: Tensor, *, out=None) -> Tensor:
    _square("inv", A, "low")
    xp = xp_for(A)
    try:
        with linalg_errors(xp):
            data = xp.linalg.inv(A._data)
    except np.linalg.LinAlgError:
        raise _singular_inv(A) from None
    r = _wrap(data.astype(A._dtype.np, copy=False), A._dtype, A._device)
    if A._rg and _gm.enabled:
        record(_Inv, (A,), r, (r,))
    if _fw_state.level and A._fw is not None:  # d(A^-1) = -A^-1 dA A^-1
        r._fw = on_primals(lambda X, dA: -matmul(matmul(X, dA), X), r, A._fw)
        _register(r)
    return r if out is None else write_out(out, r, "linalg_inv_ex", OUT_EXACT)


def _signed_zeros(A: Tensor, vals):
    """PyTorch multiplies out an LU factorization: a singular real matrix gets the zero's sign
    (-0. after an odd row permutation), where NumPy gives +0."""
    if A._dtype.category == D.COMPLEX or A._device.type != "cpu" or not (vals == 0).any():
        return vals
    a, vals = np.asarray(A._data), np.array(vals)
    fv = vals.reshape(-1)
    zero = np.flatnonzero(fv == 0)
    fv[zero] = np.copysign(0.0, _lu_det(np, a.reshape((-1,) + a.shape[-2:])[zero]))
    return vals


def _getrf_info(A: Tensor):
    """LAPACK getrf's info for every matrix of A (flattened): the 1-based first exactly zero pivot, or 0."""
    from scipy.linalg import get_lapack_funcs

    a = to_numpy(A._data)  # (a CUDA matrix's error path: copied to the host)
    flat = a.reshape((int(np.prod(a.shape[:-2], dtype=np.int64)),) + a.shape[-2:])
    return np.array([max(int(get_lapack_funcs("getrf", (m,))(m)[2]), 0) for m in flat], np.int64)


def _lu_det(xp, a):
    """det as PyTorch computes it: the product of the LU factors' diagonal times the row swaps' sign.

    NumPy's det goes through exp(sum(log|u_ii|)) and misses exact values (3.0000000000000004 for
    diag(1, 3)); LAPACK getrf per matrix (a few µs each) gives PyTorch's exact ones, its signed zero
    for a singular matrix, and the same exact zero pivots as inv. Single precision is factored in
    double, then rounded.
    """
    if xp is not np:
        return xp.asarray(xp.linalg.det(a))
    from scipy.linalg import lapack

    cplx = np.iscomplexobj(a)
    n, lead = a.shape[-1], a.shape[:-2]
    flat = np.array(
        a.reshape((int(np.prod(lead, dtype=np.int64)), n, n)), np.complex128 if cplx else np.float64
    )
    out = np.ones(flat.shape[0], flat.dtype)
    getrf, steps = (lapack.zgetrf if cplx else lapack.dgetrf), np.arange(n)
    for i in range(flat.shape[0] if n else 0):
        lu, piv, _ = getrf(flat[i], overwrite_a=True)
        out[i] = np.prod(np.diagonal(lu)) * (-1.0 if np.count_nonzero(piv != steps) % 2 else 1.0)
    return out.reshape(lead)


def det(A: Tensor, *, out=None) -> Tensor:
    _square("det", A, "lu_cpu")
    xp = xp_for(A)
    r = _wrap(_lu_det(xp, A._data).astype(A._dtype.np, copy=False), A._dtype, A._device)
    if A._rg and _gm.enabled:
        record(_G.DetNode, (A,), r, (A, r))
    if _fw_state.level and A._fw is not None:
        r._fw = on_primals(_G.det_jvp, A, r, A._fw)
        _register(r)
    return r if out is None else write_out(out, r, "_linalg_det", OUT_EXACT)


def slogdet(A: Tensor, *, out=None):
    return _slogdet(A, out, _Slogdet)


def _slogdet_of_nan(xp, a, sign, logabs):
    """PyTorch sums log|u_ii| over its LU factors even when one is NaN, where NumPy stops at a zero
    pivot (sign 0, log -inf): a NaN in A gives PyTorch's NaN log-determinant, and a NaN
    log-determinant has sign +0 (NaN if complex), as PyTorch's sign of a NaN pivot."""
    bad = xp.isnan(a).any(axis=(-2, -1))
    if not bad.any() and not xp.isnan(logabs).any():
        return sign, logabs
    logabs = xp.where(bad, xp.nan, logabs)
    nan_sign = complex(xp.nan, xp.nan) if xp.iscomplexobj(a) else 0.0
    return xp.where(xp.isnan(logabs), nan_sign, sign), logabs


def _naive_lu_logabsdet(m: np.ndarray) -> float:
    """log|det| of a complex matrix by LU with partial pivoting (the first largest |re| + |im|,
    as izamax picks), each pivot's reciprocal taken as conj(p) / |p|^2, the way PyTorch's MKL
    build divides: 1 / inf is NaN there (0 in NumPy's LAPACK), so an infinite pivot with rows
    below it gives a NaN log-determinant, an infinite last pivot an infinite one."""
    a, n = m.astype(np.complex128), m.shape[-1]
    for j in range(n - 1):
        p = j + int(np.argmax(np.abs(a[j:, j].real) + np.abs(a[j:, j].imag)))
        a[[j, p]] = a[[p, j]]
        piv = a[j, j]
        if piv != 0:  # getrf leaves the column of an exactly zero pivot unscaled...
            a[j + 1 :, j] *= np.conj(piv) / (piv.real**2 + piv.imag**2)
        # ...but still updates the rest with its (zero) multipliers: 0 * inf is NaN there too
        a[j + 1 :, j + 1 :] -= np.outer(a[j + 1 :, j], a[j, j + 1 :])
    return float(np.sum(np.log(np.abs(np.diagonal(a)))))


def _slogdet_of_complex_inf(a, sign, logabs):
    """PyTorch's slogdet of complex matrices holding inf (and no NaN): see _naive_lu_logabsdet;
    the sign of any of them is NaN, as PyTorch's (an infinite pivot over its modulus)."""
    if not np.iscomplexobj(a) or not np.isinf(a).any():
        return sign, logabs
    flat = a.reshape((-1,) + a.shape[-2:])
    sign, logabs = np.array(sign).reshape(-1), np.array(logabs).reshape(-1)
    for i, m in enumerate(flat):
        if np.isinf(m).any() and not np.isnan(m).any():
            sign[i], logabs[i] = complex(np.nan, np.nan), _naive_lu_logabsdet(m)
    return sign.reshape(a.shape[:-2]), logabs.reshape(a.shape[:-2])


def _slogdet(A: Tensor, out, _rtype):
    """linalg.slogdet, or torch.slogdet with ``_rtype`` its return type (the same errors otherwise)."""
    _square("slogdet", A, "low")
    if out is not None and (not isinstance(out, (tuple, list)) or len(out) != 2):
        if isinstance(out, (tuple, list)):
            raise TypeError(f"expected tuple of 2 elements but got {len(out)}")
        raise TypeError(
            f"{_rtype.__name__}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}"
        )
    xp = xp_for(A)
    with np.errstate(invalid="ignore"):
        sign, logabs = xp.linalg.slogdet(A._data)
        sign = _signed_zeros(A, xp.asarray(sign, A._dtype.np))
        sign, logabs = _slogdet_of_nan(xp, A._data, sign, logabs)
        if xp is np:
            sign, logabs = _slogdet_of_complex_inf(A._data, sign, logabs)
    s = _wrap(xp.asarray(sign, A._dtype.np), A._dtype, A._device)
    la = _wrap(xp.asarray(logabs, A._dtype.to_real().np), A._dtype.to_real(), A._device)
    if A._rg and _gm.enabled:  # PyTorch's sign carries the node too (it only moves for complex A)
        record(_G.SlogdetNode, (A,), (s, la), (A, s))
    if _fw_state.level and A._fw is not None:
        s._fw, la._fw = on_primals(_G.slogdet_jvp, A, s, A._fw)
        _register(s)
        _register(la)
    if out is not None:
        s, la = write_out(tuple(out), (s, la), "_linalg_slogdet", OUT_EXACT)
    return _rtype(s, la) if out is None else _OUT_TYPES[_rtype.__name__](s, la)


def _solve_vjp(node, g):
    A, X = node.saved()
    vec = node.vec
    if not node.__dict__.get("left", True):  # X = B A^{-1}: gB = gX A^{-H}, gA = -X^H gB
        gB = _h(solve(A, _h(g)))
        gA = -matmul(_h(X), gB) if node.next_functions[0][0] is not None else None
        return gA, gB
    gB = solve(_h(A), g)
    gA = None
    if node.next_functions[0][0] is not None:
        gA = -(gB.unsqueeze(-1) * X.unsqueeze(-2).conj()) if vec else -matmul(gB, _h(X))
    return gA, gB


_Solve = node_class("LinalgSolveExBackward0", _solve_vjp)


def _solve_checks(A: Tensor, B: Tensor, left: bool) -> bool:
    """PyTorch's argument checks of linalg.solve; returns whether B is a (batch of) vector(s)."""
    _square("solve", A, "lu_cpu")
    vec = B.dim() == 1 or (B.dim() == A.dim() - 1 and B.shape == A.shape[:-1])
    if not vec and B.dim() < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    if A._dtype is not B._dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type {_sname(A)} and B of type "
            f"{_sname(B)} instead"
        )
    n = A.shape[-1]
    rows, cols = (B.shape[-1], 1) if vec else tuple(B.shape[-2:])
    if (rows if left else cols) != n:
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
            f"({n}x{n} and {rows}x{cols})"
        )
    batch_b = tuple(B.shape[:-1] if vec else B.shape[:-2])
    try:
        np.broadcast_shapes(batch_b, tuple(A.shape[:-2]))
    except ValueError:
        from ..ops._dispatch import broadcast_error

        raise broadcast_error((batch_b, tuple(A.shape[:-2]))) from None
    return vec


def _singular_solve(A: Tensor):
    from .decompositions import _batch_msg, _LinAlgError

    info = _getrf_info(A)
    i = int(np.flatnonzero(info)[0]) if info.any() else 0
    msg = _batch_msg(i, A.dim() > 2, "The solver failed because the input matrix is singular.")
    return _LinAlgError("torch.linalg.solve: " + msg)


@cast_policy(FP32, ("cpu",))
def solve(A: Tensor, B: Tensor, *, left: bool = True, out=None) -> Tensor:
    vec = _solve_checks(A, B, left)
    r = _solve_right(A, B) if not left else _solve_left(A, B, vec)
    return r if out is None else write_out(out, r, "_linalg_solve_ex", OUT_EXACT)


def _solve_left(A: Tensor, B: Tensor, vec: bool) -> Tensor:
    xp = xp_for(A)
    b = B._data[..., None] if vec else B._data
    if b.ndim < 2 or b.shape[-2] != A.shape[-1]:
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation AX = B ({A.shape[-2]}x{A.shape[-1]} and "
            f"{b.shape[-2] if b.ndim > 1 else 1}x{b.shape[-1]})"
        )
    try:
        with linalg_errors(xp):
            x = xp.linalg.solve(A._data, b)
    except np.linalg.LinAlgError:
        raise _singular_solve(A) from None
    if vec:
        x = x[..., 0]
    r = _wrap(x.astype(A._dtype.np, copy=False), A._dtype, A._device)
    if _gm.enabled and (A._rg or B._rg):
        record(_Solve, (A, B), r, (A, r), vec=vec)
    if _fw_state.level and (A._fw is not None or B._fw is not None):
        r._fw = on_primals(_solve_jvp, A, B, r, vec)
        _register(r)
    return r


def _solve_right(A: Tensor, B: Tensor) -> Tensor:
    """``X A = B``, one LinalgSolveExBackward0 node like PyTorch."""
    if B.dim() < 2 or B.shape[-1] != A.shape[-1]:
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation XA = B ({A.shape[-2]}x{A.shape[-1]} and "
            f"{B.shape[-2] if B.dim() > 1 else 1}x{B.shape[-1]})"
        )
    from ..autograd.forward_ad import on_primals as _on_primals
    from ..autograd.grad_mode import no_grad

    with no_grad():
        r = _on_primals(lambda: _h(solve(_h(A), _h(B))).contiguous())
    r = r.detach()
    if _gm.enabled and (A._rg or B._rg):
        record(_Solve, (A, B), r, (A, r), vec=False, left=False)
    if _fw_state.level and (A._fw is not None or B._fw is not None):
        r._fw = on_primals(_solve_right_jvp, A, B, r)
        _register(r)
    return r


def _solve_right_jvp(A, B, X):
    # dX = (dB - X dA) A^-1
    rhs = B._fw
    if A._fw is not None:
        t = matmul(X, A._fw)
        rhs = -t if rhs is None else rhs - t
    return solve(A, rhs, left=False)


def _solve_jvp(A, B, X, vec):
    # dX = A^-1 (dB - dA X)
    rhs = B._fw
    if A._fw is not None:
        t = matmul(A._fw, X.unsqueeze(-1)).squeeze(-1) if vec else matmul(A._fw, X)
        rhs = -t if rhs is None else rhs - t
    return solve(A, rhs)


def matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:
    return _matrix_power(A, n, out, "linalg_matrix_power")


def _matrix_power(A: Tensor, n: int, out, _name: str) -> Tensor:
    """PyTorch's graph: n=0 copies the identity into a clone of A, n=1 clones, n=2/3 are A@A and
    (A@A)@A, larger n square-and-multiply with the running product on the left; n<0 uses inv(A)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"{_name}(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    _square_shape("linalg.matrix_power:", A)
    if out is not None:
        if not isinstance(out, Tensor):
            raise TypeError(f"{_name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        if not D.can_cast(A._dtype, out._dtype):
            raise RuntimeError(
                f"matrix_power: Expected result to be safely castable from {_sname(A)} dtype, but got result "
                f"with dtype {_sname(out)}"
            )
    if n in (0, 1):
        return _matrix_power_01(A, n, out)
    if n == -1:
        return inv(A, out=out)
    if n < 0:
        A, n = inv(A), -n
    if n == 2:
        r = matmul(A, A)
    elif n == 3:
        r = matmul(matmul(A, A), A)
    else:
        r = z = None
        while n:
            z = A if z is None else matmul(z, z)
            if n & 1:
                r = z if r is None else matmul(r, z)
            n >>= 1
    return r if out is None else write_out(out, r, "matmul", OUT_EXACT)


def _matrix_power_01(A: Tensor, n: int, out):
    from ..ops._dispatch import check_inplace
    from ..ops.creation.ranges import eye

    if n == 0:
        e = eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(A.shape)
        if out is None:  # PyTorch: A.clone().copy_(I), a (zero-gradient) node on A
            r = A.clone().copy_(e)
            if (
                r._fw is not None
            ):  # copy_ of a tangent-free source keeps the clone's tangent; it is zero
                r._fw = r._fw.new_zeros(r.shape)
            return r
        r = e
    else:
        r = A if out is not None else A.clone()
    if out is None:
        return r
    check_inplace(out)  # out.copy_(...) in PyTorch: a leaf that requires grad is refused
    return write_out(out, r, "matrix_power", grad=False)


@cast_policy(LOWER, ("cuda",))
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


from ..ops.contraction.matmul import linalg_cross as cross  # noqa: E402, F401


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """Increasing powers along the last dim: cat of ones and a cumprod (PyTorch's graph)."""
    from ..ops.creation.factories import ones
    from ..ops.shape.copies import cat

    n = x.shape[-1] if N is None else N
    dt = x.dtype if x._dtype.category >= D.FLOAT else D.int64
    x = x.to(dt)
    first = ones(tuple(x.shape) + (1,), dtype=dt, device=x.device)
    if n <= 1:
        return first[..., :n]
    return cat([first, x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,)).cumprod(-1)], -1)


@cast_policy(LOWER)
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """``sum(conj(x) * y, dim)``; two 1-D vectors go through ``vdot`` (VdotBackward0), as in PyTorch."""
    if x._dtype.category < D.FLOAT:
        raise RuntimeError(
            f"linalg.vecdot: Expected a floating point or complex tensor as input. Got {_sname(x)}"
        )
    if x._dtype is not y._dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type {_sname(x)} and y of "
            f"type {_sname(y)} instead"
        )
    if out is not None and isinstance(out, Tensor) and out._dtype is not x._dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected out of dtype{_sname(x)} but found {_sname(out)}"
        )
    if x.dim() == 1 and y.dim() == 1 and dim in (-1, 0):
        from ..ops.contraction.matmul import vdot

        return vdot(x, y, out=out)
    from ..ops.reduction.reduce import sum as _sum

    return _sum((x.conj() if x.is_complex() else x) * y, dim, out=out)


# ---- eigen decompositions ------------------------------------------------------------------------------
def _eigh_vjp(node, gL, gV):
    L, V = node.saved()
    Vh = _h(V)
    inner = matmul(Vh, gV)
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    n = L.shape[-1]
    from ..ops.creation.ranges import eye

    off = 1 - eye(n, dtype=L.dtype, device=L.device)
    F = off / (E + eye(n, dtype=L.dtype, device=L.device))
    inner = (inner - _h(inner)) * 0.5 * F
    inner = inner + _diag_embed(gL)
    return (matmul(matmul(V, inner), Vh),)


def _diag_embed(v: Tensor) -> Tensor:
    from ..ops.creation.ranges import eye

    n = v.shape[-1]
    return v.unsqueeze(-1) * eye(n, dtype=v.dtype, device=v.device)


def _eigvalsh_vjp(node, gL):
    (V,) = node.saved()
    if _gm.enabled:  # create_graph: V must carry A's history for the second derivative
        V = eigh(node.A, node.UPLO).eigenvectors
    return (matmul(matmul(V, _diag_embed(gL.to(V.dtype))), _h(V)),)


_EighNode = node_class("LinalgEighBackward0", _eigh_vjp)
_EigvalshNode = node_class("LinalgEighBackward0", _eigvalsh_vjp)


def _eigh_jvp(L, V, dA):
    # X = V^H dA V: dL = Re diag(X), dV = V (F o X) with F_ij = 1 / (L_j - L_i) off the diagonal.
    from ..ops.creation.ranges import eye

    X = matmul(matmul(_h(V), dA), V)
    dL = X.diagonal(0, -2, -1)
    dL = dL.real if dL.is_complex() else dL
    n = L.shape[-1]
    e = eye(n, dtype=L.dtype, device=L.device)
    F = (1 - e) / (L.unsqueeze(-2) - L.unsqueeze(-1) + e)
    return dL, matmul(V, X * F.to(V.dtype))


@cast_policy(FP32, ("cpu",))
def eigh(A: Tensor, UPLO: str = "L", *, out=None):
    _square("eigh", A, "linalg_eigh_cpu")
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    xp = xp_for(A)
    w, v = xp.linalg.eigh(A._data, UPLO=UPLO)
    rt = A._dtype.to_real()
    L = _wrap(w.astype(rt.np), rt, A._device)
    V = _wrap(v.astype(A._dtype.np), A._dtype, A._device)
    if A._rg and _gm.enabled:
        record(_EighNode, (A,), (L, V), (L, V))
    if _fw_state.level and A._fw is not None:
        L._fw, V._fw = on_primals(_eigh_jvp, L, V, A._fw)
        _register(L)
        _register(V)
    if out is not None and not isinstance(out, (tuple, list)):
        raise TypeError(
            f"linalg_eigh(): argument 'out' must be tuple of Tensors, not {type(out).__name__}"
        )
    if out is not None:  # PyTorch writes (and resizes) the eigenvectors first
        V, L = _out(tuple(out)[::-1], _Eigh(V, L), "_linalg_eigh")
        return _OUT_TYPES["linalg_eigh"](L, V)
    return _Eigh(L, V)


@cast_policy(FP32, ("cpu",))
def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    _square("eigh", A, "linalg_eigh_cpu")
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    xp = xp_for(A)
    w, v = xp.linalg.eigh(A._data, UPLO=UPLO)
    rt = A._dtype.to_real()
    L = _wrap(w.astype(rt.np), rt, A._device)
    if A._rg and _gm.enabled:
        record(
            _EigvalshNode,
            (A,),
            L,
            (_wrap(v.astype(A._dtype.np), A._dtype, A._device),),
            A=A,
            UPLO=UPLO,
        )
    if _fw_state.level and A._fw is not None:
        L._fw = on_primals(_eigh_jvp, L, _wrap(v.astype(A._dtype.np), A._dtype, A._device), A._fw)[
            0
        ]
        _register(L)
    return _out(out, L, "_linalg_eigh")


@cast_policy(FP32, ("cpu",))
@on_host  # LAPACK through NumPy/SciPy: CUDA tensors go through the host
def matrix_rank(
    A: Tensor, tol=None, hermitian: bool = False, *, atol=None, rtol=None, out=None
) -> Tensor:
    """Number of singular values (|eigenvalues| if ``hermitian``) above max(atol, rtol * largest one).

    As in PyTorch: rtol defaults to eps * max(m, n) when atol is not given (or is <= 0), else to 0;
    the old ``tol`` argument is an atol with rtol 0. atol/rtol may be tensors broadcast over the batch.
    """
    if tol is not None:
        if atol is not None or rtol is not None:
            raise TypeError("linalg_matrix_rank() received an invalid combination of arguments - got tol together "
                            "with atol/rtol")  # fmt: skip
        atol, rtol = tol, 0.0
    if A.dim() < 2:
        raise RuntimeError(
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    if A._dtype not in (D.float32, D.float64, D.complex64, D.complex128):
        raise RuntimeError("This function doesn't handle types other than float and double")
    for what, t in (("atol", atol), ("rtol", rtol)):
        if isinstance(t, Tensor) and t.is_complex():
            raise RuntimeError(
                f"torch.linalg.matrix_rank: {what} tensor of complex type is not supported. Got {_sname(t)}"
            )
    if hermitian:
        S = np.abs(np.asarray(eigvalsh(A.detach())._data))
    else:
        from .decompositions import svd_numpy

        a = np.asarray(A._data)
        S = svd_numpy(a, compute_uv=False) if A.numel() else np.zeros(A.shape[:-2] + (0,))
    rt = A._dtype.to_real().np
    m, n = A.shape[-2:]
    default = np.asarray(np.finfo(rt).eps * max(m, n), rt)
    at = np.asarray(atol._data if isinstance(atol, Tensor) else (0.0 if atol is None else atol))
    if rtol is not None:
        rtv = np.asarray(rtol._data if isinstance(rtol, Tensor) else rtol)
    else:
        rtv = default if atol is None else np.where(at > 0, 0.0, default)
    smax = S.max(-1) if S.shape[-1] else np.zeros(S.shape[:-1], rt)
    limit = np.maximum(at, rtv * smax)
    rank = (S > limit[..., None]).sum(-1)
    r = _wrap(np.asarray(rank, np.int64), D.int64, A._device)
    if out is None:
        return r
    if isinstance(out, Tensor) and not D.can_cast(D.int64, out._dtype):
        raise RuntimeError(
            f"torch.linalg.matrix_rank: Expected result to be safely castable from Long dtype, but got result "
            f"with dtype {_sname(out)}"
        )
    return write_out(out, r, "sum")


from . import det_grads as _G  # noqa: E402

# ---- differentiable decompositions and solvers, in their own modules ----------------------------------
from .decompositions import LinAlgError, _out, cholesky, cholesky_ex, eig, eigvals, qr, svd, svdvals  # noqa: E402, F401
from .legacy import ldl_factor, ldl_factor_ex, ldl_solve  # noqa: E402, F401
from .lstsq import lstsq  # noqa: E402, F401

# ---- more of torch.linalg, in their own modules ----------------------------------------------------
from .norms import cond, matrix_norm, norm  # noqa: E402, F401
from .solvers import (  # noqa: E402, F401
    inv_ex,
    lu,  # noqa: E402, F401
    lu_factor,
    lu_factor_ex,
    lu_solve,
    pinv,
    solve_ex,
)
from .structured import (  # noqa: E402, F401
    diagonal,
    householder_product,
    matrix_exp,
    solve_triangular,
    tensorinv,
    tensorsolve,
)

# A non-Tensor first argument: PyTorch's parser TypeError, not an AttributeError
_guard(globals(), prefix="linalg_")
