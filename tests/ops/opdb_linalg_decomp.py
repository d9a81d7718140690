"""opdb entries for the differentiable decompositions (taimatsu/linalg/decompositions.py, linalg/solvers.py):
cholesky(_ex), qr, svd, svdvals, eig, eigvals, lu_factor(_ex), lu_solve, pinv, inv_ex, solve_ex and the
legacy torch.cholesky / qr / svd / cholesky_solve / cholesky_inverse.

Outputs that are only defined up to a gauge (the phase or sign of singular vectors and eigenvectors)
are compared through gauge-invariant functions of them (``U @ diag(S) @ Vh``, ``U.abs()``), like
PyTorch's own OpInfo tests; Q and R of a QR come from the same LAPACK algorithm (geqrf) in both
libraries and are compared directly.
"""

from __future__ import annotations

import numpy as np
from opdb import OpInfo, Sample, register

FLOATS = ("float32", "float64", "complex64", "complex128")
TOL = {"rtol": 1e-4, "atol": 1e-5}  # float32 LAPACK (MKL vs OpenBLAS) differs in the last digits


def _reg(name, op, samples, method=None, dtypes=FLOATS, **kw):
    register(
        OpInfo(name=name, op=op, method=method, samples=samples, dtypes=dtypes, **{**TOL, **kw})
    )


def _pd(x):
    """A Hermitian positive-definite matrix built from any square x (differentiable in x)."""
    return x @ x.mH + x.shape[-1] * x.new_ones(x.shape[:-1]).diag_embed()


def _spd_array(rng, shape):
    x = rng.standard_normal(shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


def _square(rng, dtype, *, extra=()):
    n = rng.standard_normal
    return [Sample(n((3, 3))), Sample(n((2, 3, 3))), Sample(n((3, 3)), noncontig=True), Sample(n((0, 2, 2))),
            Sample(n((1, 1))), *extra]  # fmt: skip


def _rect(rng, dtype):
    n = rng.standard_normal
    return [Sample(n((4, 3))), Sample(n((3, 3))), Sample(n((2, 4))), Sample(n((2, 3, 2))),
            Sample(n((3, 4)), noncontig=True), Sample(n((0, 3, 2)))]  # fmt: skip


def _not_pd(T):
    return T.tensor([[1.0, 2.0], [2.0, 1.0]])


def _square_errors(name):
    return lambda T: [
        (lambda: getattr(T.linalg, name)(T.ones(2, 3)), RuntimeError),
        (lambda: getattr(T.linalg, name)(T.ones(3)), RuntimeError),
        (lambda: getattr(T.linalg, name)(T.ones(2, 2, dtype=T.int64)), RuntimeError),
    ]


# ---- Cholesky ------------------------------------------------------------------------------------------------
def _chol_samples(rng, dtype):
    return _square(
        rng, dtype, extra=[Sample(rng.standard_normal((2, 3, 3)), kwargs={"upper": True})]
    )


def _chol_errors(T):
    return [
        *_square_errors("cholesky")(T),
        (lambda: T.linalg.cholesky(_not_pd(T)), RuntimeError),
        (lambda: T.linalg.cholesky(T.stack([T.eye(2), _not_pd(T)])), RuntimeError),
        (lambda: T.linalg.cholesky(T.stack([T.eye(2), _not_pd(T)]), upper=True), RuntimeError),
        (
            lambda: T.linalg.cholesky_ex(T.stack([T.eye(2), _not_pd(T)]), check_errors=True),
            RuntimeError,
        ),
        (lambda: T.cholesky(T.stack([T.eye(2), _not_pd(T)])), RuntimeError),
        # a NaN pivot stops the factorization, at the first NaN one (OpenBLAS lets it through)
        (lambda: T.linalg.cholesky(T.full((2, 2), float("nan"))), RuntimeError),
        (lambda: T.linalg.cholesky(T.tensor([[4.0, 1.0], [1.0, float("nan")]])), RuntimeError),
        (
            lambda: T.linalg.cholesky(T.stack([T.eye(2), T.diag(T.tensor([float("nan"), 1.0]))])),
            RuntimeError,
        ),
    ]


_reg(
    "linalg.cholesky",
    lambda T, x, **k: T.linalg.cholesky(_pd(x), **k),
    _chol_samples,
    errors=_chol_errors,
)
# The input itself is the PD matrix: the gradient's non-Hermitian part follows PyTorch's convention.
# Finite differences perturb A non-symmetrically (the forward reads one triangle), so gradcheck
# cannot agree with PyTorch's Hermitian gradient; the "grad" check compares with PyTorch instead.
_reg("linalg.cholesky.direct", lambda T, x, **k: T.linalg.cholesky(x, **k), lambda rng, dtype: [
    Sample(_spd_array(rng, (3, 3))), Sample(_spd_array(rng, (2, 3, 3)), kwargs={"upper": True}),
], xfail={"gradcheck": "finite differences perturb the matrix non-symmetrically (see comment)"})  # fmt: skip
_reg("linalg.cholesky_ex", lambda T, x, **k: T.linalg.cholesky_ex(_pd(x), **k), _chol_samples)
_reg("linalg.cholesky_ex.not_pd", lambda T, x: T.linalg.cholesky_ex(x), lambda rng, dtype: [
    Sample(np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])),
    Sample(np.array([[4.0, 2.0, 0.0], [2.0, 1.0, 1.0], [0.0, 1.0, 3.0]])),
], grad=False)  # fmt: skip
_reg("cholesky", lambda T, x, **k: T.cholesky(_pd(x), **k), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 3))), Sample(rng.standard_normal((2, 2, 2)), kwargs={"upper": True}),
], method=lambda x, **k: _pd(x).cholesky(**k))  # fmt: skip


# ---- QR -------------------------------------------------------------------------------------------------------
def _qr_samples(rng, dtype):
    n = rng.standard_normal
    return [*_rect(rng, dtype), Sample(n((3, 3)), "complete"), Sample(n((2, 4)), "complete"),
            Sample(n((2, 2, 3)), "reduced")]  # fmt: skip


def _qr_errors(T):
    def backward(mode):
        return lambda: (
            T.linalg.qr(T.ones(3, 2, requires_grad=True) + T.eye(3, 2), mode=mode)[1]
            .sum()
            .backward()
        )

    return [
        (lambda: T.linalg.qr(T.ones(3)), RuntimeError),
        (lambda: T.linalg.qr(T.ones(2, 2), mode="x"), RuntimeError),
        (backward("r"), RuntimeError),
        (backward("complete"), RuntimeError),
    ]


_reg("linalg.qr", lambda T, x, *a: T.linalg.qr(x, *a), _qr_samples, errors=_qr_errors)
_reg("linalg.qr.r", lambda T, x: T.linalg.qr(x, mode="r").R, _rect, grad=False)
_reg("qr", lambda T, x, *a: T.qr(x, *a), lambda rng, dtype: [
    Sample(rng.standard_normal((4, 3))), Sample(rng.standard_normal((2, 3)), False),
], method=lambda x, *a: x.qr(*a))  # fmt: skip


# ---- SVD ------------------------------------------------------------------------------------------------------
def _svd_parts(U, S, Vh, k):
    U, Vh = U[..., :, :k], Vh[..., :k, :]
    return U @ (S.to(U.dtype).unsqueeze(-1) * Vh), U.abs(), S, Vh.abs()


def _svd_op(T, x, **k):
    return _svd_parts(*T.linalg.svd(x, **k), min(x.shape[-2:]))


_reg("linalg.svd", _svd_op, lambda rng, dtype: [
    *[Sample(s.args[0], kwargs={"full_matrices": False}, noncontig=s.noncontig) for s in _rect(rng, dtype)],
    Sample(rng.standard_normal((3, 3))), Sample(rng.standard_normal((4, 2))),
], errors=lambda T: [
    (lambda: T.linalg.svd(T.ones(3)), RuntimeError),
    (lambda: T.linalg.svd(T.ones(2, 2, dtype=T.int64)), RuntimeError),
    (lambda: T.linalg.svd(T.eye(2), driver="gesvd"), RuntimeError),
    (lambda: T.linalg.svdvals(T.eye(2), driver="gesvd"), RuntimeError),
    (lambda: T.svd(T.ones(3)), RuntimeError),
])  # fmt: skip
_reg("linalg.svdvals", lambda T, x: T.linalg.svdvals(x), _rect, errors=lambda T: [
    (lambda: T.linalg.svdvals(T.ones(3)), RuntimeError),
])  # fmt: skip


def _legacy_svd(T, x, *a, **k):
    U, S, V = T.svd(x, *a, **k)
    if not k.get("compute_uv", True):
        return U, S, V
    n = min(x.shape[-2:])
    return (
        U[..., :, :n].abs(),
        S,
        V[..., :, :n].abs(),
        U[..., :, :n] @ (S.to(U.dtype).unsqueeze(-1) * V[..., :, :n].mH),
    )


_reg("svd", _legacy_svd, lambda rng, dtype: [
    Sample(rng.standard_normal((4, 3))), Sample(rng.standard_normal((2, 3)), False),
    Sample(rng.standard_normal((2, 3, 2)), kwargs={"compute_uv": False}),
], method=lambda x, *a, **k: x.svd(*a, **k)[1])  # fmt: skip


# ---- eig / eigvals ------------------------------------------------------------------------------------------------
def _eig_parts(w, v):
    return w, v.abs()  # the eigenvectors' phase is a gauge


_reg("linalg.eig", lambda T, x: _eig_parts(*T.linalg.eig(x)), _square, errors=_square_errors("eig"))
_reg("linalg.eigvals", lambda T, x: T.linalg.eigvals(x), _square, errors=_square_errors("eigvals"))


# ---- LU ------------------------------------------------------------------------------------------------------------
def _lu_errors(T):
    return [
        (lambda: T.linalg.lu_factor(T.ones(3)), RuntimeError),
        (lambda: T.linalg.lu_factor(T.eye(2), pivot=False), RuntimeError),
        (lambda: T.linalg.lu_factor(T.tensor([[1.0, 2.0], [2.0, 4.0]])), RuntimeError),
        (lambda: T.linalg.lu_factor(T.stack([T.eye(2), T.zeros(2, 2)])), RuntimeError),
        (
            lambda: T.linalg.lu_factor_ex(T.stack([T.eye(2), T.zeros(2, 2)]), check_errors=True),
            RuntimeError,
        ),
    ]


_reg("linalg.lu_factor", lambda T, x: T.linalg.lu_factor(x), _rect, errors=_lu_errors)
_reg("linalg.lu_factor_ex", lambda T, x: T.linalg.lu_factor_ex(x), _rect)
_reg("linalg.lu_factor_ex.singular", lambda T, x: T.linalg.lu_factor_ex(x), lambda rng, dtype: [
    Sample(np.array([[1.0, 2.0], [0.0, 0.0]])), Sample(np.array([[[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [3.0, 4.0]]])),
], grad=False)  # fmt: skip


def _lu_solve_samples(rng, dtype):
    n = rng.standard_normal
    out = [
        Sample(n((3, 3)), n((3, 2))),
        Sample(n((2, 3, 3)), n((3, 1))),
        Sample(n((3, 3)), n((2, 3, 2)), noncontig=True),
    ]
    for left in (True, False):
        for adjoint in (False, True):
            b = n((2, 3, 4)) if left else n((2, 4, 3))
            out.append(Sample(n((2, 3, 3)), b, kwargs={"left": left, "adjoint": adjoint}))
    return out


_reg("linalg.lu_solve", lambda T, a, b, **k: T.linalg.lu_solve(*T.linalg.lu_factor(a), b, **k), _lu_solve_samples,
     errors=lambda T: [
    (lambda: T.linalg.lu_solve(*T.linalg.lu_factor(T.eye(3)), T.ones(3)), RuntimeError),
])  # fmt: skip


# ---- pinv -------------------------------------------------------------------------------------------------------
def _pinv_samples(rng, dtype):
    n = rng.standard_normal
    return [
        *_rect(rng, dtype),
        Sample(n((3, 3)), kwargs={"atol": 0.1}),
        Sample(n((3, 2)), kwargs={"rtol": 1e-3}),
    ]


_reg("linalg.pinv", lambda T, x, **k: T.linalg.pinv(x, **k), _pinv_samples, errors=lambda T: [
    (lambda: T.linalg.pinv(T.ones(3)), RuntimeError),
])  # fmt: skip
# Singular values under the threshold are dropped: the result is the pseudo-inverse of a lower-rank
# matrix, whose (PyTorch) gradient formula finite differences of the truncated map cannot reproduce.
_reg("linalg.pinv.truncated", lambda T, x, **k: T.linalg.pinv(x, **k), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 3)), kwargs={"atol": 0.0, "rtol": 0.5}),
    Sample(rng.standard_normal((2, 3)), kwargs={"atol": 1.0}),
], xfail={"gradcheck": "rank truncation (see comment)"})  # fmt: skip
_reg("linalg.pinv.hermitian", lambda T, x: T.linalg.pinv(x + x.mH, hermitian=True), _square)


# ---- inv_ex / solve_ex ------------------------------------------------------------------------------------------
_reg("linalg.inv_ex", lambda T, x: T.linalg.inv_ex(x), _square, errors=lambda T: [
    (lambda: T.linalg.inv_ex(T.zeros(2, 2), check_errors=True), RuntimeError),
])  # fmt: skip
_reg("linalg.inv_ex.singular", lambda T, x: T.linalg.inv_ex(x).info, lambda rng, dtype: [
    Sample(np.zeros((2, 2))), Sample(np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [0.0, 0.0]]])),
], grad=False)  # fmt: skip
_reg("linalg.solve_ex", lambda T, a, b, **k: T.linalg.solve_ex(a, b, **k), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 3)), rng.standard_normal((3, 2))),
    Sample(rng.standard_normal((2, 3, 3)), rng.standard_normal((2, 3))),
    Sample(rng.standard_normal((3, 3)), rng.standard_normal((2, 3)), kwargs={"left": False}),
], errors=lambda T: [
    (lambda: T.linalg.solve_ex(T.zeros(2, 2), T.ones(2), check_errors=True), RuntimeError),
])  # fmt: skip


# ---- cholesky_solve / cholesky_inverse ----------------------------------------------------------------------------
def _valid_factor(rng, n, dtype):
    """A lower-triangular factor with a real positive diagonal (what a Cholesky factor is)."""
    a = rng.standard_normal((n, n))
    if dtype.startswith("complex"):
        a = a + 0.6j * rng.standard_normal((n, n))
    a = np.tril(a, -1)
    return a + np.diag(np.abs(rng.standard_normal(n)) + n)


def _chol_of(T, x, upper):
    return T.linalg.cholesky(_pd(x), upper=upper)


_reg("cholesky_solve", lambda T, b, x, *a: T.cholesky_solve(b, _chol_of(T, x, bool(a and a[0])), *a),
     lambda rng, dtype: [
    Sample(rng.standard_normal((3, 2)), rng.standard_normal((3, 3))),
    Sample(rng.standard_normal((2, 3, 2)), rng.standard_normal((3, 3)), True),
    Sample(rng.standard_normal((3, 1)), rng.standard_normal((2, 3, 3)), noncontig=True),
], errors=lambda T: [
    (lambda: T.cholesky_solve(T.ones(3), T.eye(3)), RuntimeError),
    (lambda: T.cholesky_solve(T.ones(3, 1), T.eye(3, dtype=T.float64)), RuntimeError),
])  # fmt: skip
# The factor itself is the leaf (lower-triangular, real diagonal): gradients for every entry of it.
_reg("cholesky_solve.factor", lambda T, b, l, *a: T.cholesky_solve(b, l.mH if a and a[0] else l, *a),
     lambda rng, dtype: [
    Sample(rng.standard_normal((3, 2)), _valid_factor(rng, 3, dtype)),
    Sample(rng.standard_normal((2, 3, 2)), _valid_factor(rng, 3, dtype), True),
], method=lambda b, l, *a: b.cholesky_solve(l.mH if a and a[0] else l, *a),
   xfail={"gradcheck": "the forward reads one triangle; PyTorch's gradient fills both (like cholesky.direct)"})  # fmt: skip
# PyTorch 2.13's forward-mode formula for cholesky_inverse is wrong (it fails PyTorch's own
# gradcheck(check_forward_ad=True)); taimatsu's tangent is the true derivative, checked against
# finite differences in tests/linalg/test_linalg_decomp.py.
_CHOL_INV_JVP = "PyTorch 2.13's cholesky_inverse JVP is wrong; see test_linalg_decomp.py"
_reg("cholesky_inverse", lambda T, x, *a: T.cholesky_inverse(_chol_of(T, x, bool(a and a[0])), *a), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 3))), Sample(rng.standard_normal((3, 3)), True),
    Sample(rng.standard_normal((2, 3, 3))),
], xfail={"jvp": _CHOL_INV_JVP}, errors=lambda T: [
    (lambda: T.cholesky_inverse(T.ones(3)), RuntimeError),
    (lambda: T.cholesky_inverse(T.ones(2, 3)), RuntimeError),
])  # fmt: skip
_reg("cholesky_inverse.factor", lambda T, l, *a: T.cholesky_inverse(l.mH if a and a[0] else l, *a), lambda rng, dtype: [
    Sample(_valid_factor(rng, 3, dtype)), Sample(_valid_factor(rng, 3, dtype), True),
], method=lambda l, *a: (l.mH if a and a[0] else l).cholesky_inverse(*a),
   xfail={"gradcheck": "the forward reads one triangle; PyTorch's gradient fills both (like cholesky.direct)",
          "jvp": _CHOL_INV_JVP})  # fmt: skip


# ---- PyTorch's dtype / shape errors across the family (one errors-only entry) ------------------------------------
def _dtype_errors(T):
    out = []
    for d in (T.int64, T.float16, T.bool):
        out += [
            (lambda d=d: T.linalg.lu_factor(T.ones(2, 2, dtype=d)), NotImplementedError),
            (lambda d=d: T.linalg.qr(T.ones(2, 2, dtype=d)), Exception),
            (lambda d=d: T.linalg.svd(T.ones(2, 2, dtype=d)), Exception),
            (lambda d=d: T.linalg.eig(T.ones(2, 2, dtype=d)), Exception),
            (lambda d=d: T.cholesky_inverse(T.ones(2, 2, dtype=d)), NotImplementedError),
            (lambda d=d: T.linalg.cholesky(T.ones(2, 2, dtype=d)), Exception),
            (lambda d=d: T.linalg.pinv(T.ones(2, 2, dtype=d)), RuntimeError),
            (
                lambda d=d: T.cholesky_solve(T.ones(2, 2, dtype=d), T.ones(2, 2, dtype=d)),
                NotImplementedError,
            ),
            (lambda d=d: T.linalg.inv_ex(T.ones(2, 2, dtype=d)), RuntimeError),
            (lambda d=d: T.linalg.solve_ex(T.ones(2, 2, dtype=d), T.ones(2, dtype=d)), Exception),
        ]
    return out + [
        (lambda: T.linalg.cholesky_ex(T.ones(2, 3)), RuntimeError),
        (lambda: T.linalg.inv_ex(T.ones(2, 3)), RuntimeError),
        (lambda: T.linalg.solve_ex(T.ones(2, 3), T.ones(2)), RuntimeError),
        (
            lambda: T.linalg.lu_solve(*T.linalg.lu_factor(T.eye(2)), T.ones(2, 2, dtype=T.float64)),
            RuntimeError,
        ),
        (lambda: T.linalg.lu_solve(*T.linalg.lu_factor(T.eye(3)), T.ones(2, 4)), RuntimeError),
        (
            lambda: T.linalg.lu_solve(*T.linalg.lu_factor(T.eye(3)), T.ones(4, 2), left=False),
            RuntimeError,
        ),
        (lambda: T.cholesky_solve(T.ones(2, 2), T.ones(2, 3)), RuntimeError),
        (lambda: T.cholesky(T.ones(3)), RuntimeError),
    ]


_reg("linalg.cholesky.errors", lambda T, x: T.linalg.cholesky(_pd(x)), lambda rng, dtype: [Sample(rng.standard_normal((2, 2)))],
     dtypes=("float64",), grad=False, errors=_dtype_errors)  # fmt: skip
