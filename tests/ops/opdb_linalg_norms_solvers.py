"""opdb entries for the rest of torch.linalg: matrix_norm/norm ('nuc', 2, -2 and the others), cond,
matrix_exp, solve_triangular, householder_product, tensorinv, tensorsolve, diagonal
(taimatsu/linalg/norms.py, taimatsu/linalg/structured.py) and lu, lu_unpack, lu_factor_ex, lstsq
(taimatsu/linalg/solvers.py)."""

from __future__ import annotations

import numpy as np
from opdb import OpInfo, Sample, Typed, register

FLOATS = ("float32", "float64")
WITH_COMPLEX = ("float32", "float64", "complex128")
INF = float("inf")


def _reg(name, op, samples, dtypes=FLOATS, **kw):
    register(OpInfo(name=name, op=op, samples=samples, dtypes=dtypes, **kw))


def _well(rng, shape):
    """A well-conditioned square (batch of) matrix: random plus a multiple of the identity."""
    a = rng.standard_normal(shape)
    n = shape[-1]
    return a + 3 * np.eye(n)


# ---- matrix_norm / norm ----------------------------------------------------------------------------------------
def _norm_samples(rng, dtype):
    n = rng.standard_normal
    out = []
    for ord in ("nuc", 2, -2, "fro", 1, -1, INF, -INF):
        out.append(Sample(n((3, 4)), ord))
    return out + [
        Sample(n((2, 3, 3)), "nuc", kwargs={"keepdim": True}),
        Sample(n((2, 3, 4)), 2, kwargs={"dim": (0, 2)}),
        Sample(n((2, 3, 4)), -2, kwargs={"dim": (2, 0), "keepdim": True}),
        Sample(n((3, 2, 3)), 1, kwargs={"dim": (2, 0)}),
        Sample(n((3, 2, 3)), -INF, kwargs={"dim": (0, 1), "keepdim": True}),
        Sample(n((4, 3)), 2, noncontig=True),
        Sample(n((4, 3)), "nuc", noncontig=True),
        Sample(n((0, 3)), "nuc"),
        Sample(n((2, 0, 3)), 2),
    ]


def _norm_errors(fn):
    def errors(T):
        f = getattr(T.linalg, fn)
        return [
            (lambda: f(T.ones(2, 2, dtype=T.int64), "nuc"), RuntimeError),
            (lambda: f(T.ones(2), "nuc"), RuntimeError),
            (lambda: f(T.ones(2, 2), 3), RuntimeError),
            (lambda: f(T.ones(2, 2), "abc"), RuntimeError),
            (lambda: f(T.ones(2, 2, 2), "nuc", dim=(0, 0)), RuntimeError),
            (lambda: f(T.ones(2, 2), "nuc", dim=(-1, 1)), RuntimeError),
            (lambda: f(T.ones(2, 2), "nuc", dim=(0, 5)), IndexError),
            (lambda: f(T.ones(2, 2, dtype=T.float16), 2), RuntimeError),
            (lambda: f(T.ones(2, 2, dtype=T.complex64), 1, dtype=T.float64), RuntimeError),
            (lambda: f(T.ones(2, 2), "nuc", dtype=T.int64), RuntimeError),
            (lambda: f(T.ones(2, 2, dtype=T.float64), "nuc", dtype=T.float32), RuntimeError),
            (lambda: f(T.ones(0, 3), -2), IndexError),
        ]

    return errors


_reg("linalg.matrix_norm", lambda T, A, *a, **k: T.linalg.matrix_norm(A, *a, **k), _norm_samples,
     dtypes=WITH_COMPLEX, errors=_norm_errors("matrix_norm"))  # fmt: skip
_reg("linalg.matrix_norm.dtype", lambda T, A, o: T.linalg.matrix_norm(A, o, dtype=T.float64),
     lambda rng, dtype: [Sample(rng.standard_normal((3, 3)), o) for o in ("nuc", 2, 1)])  # fmt: skip


def _lnorm_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4)), "nuc"), Sample(n((3, 4)), 2), Sample(n((3, 4)), -2), Sample(n((3, 4))),
        Sample(n(4), 2), Sample(n((2, 3, 4)), kwargs={"ord": 2, "dim": (1, 2)}),
        Sample(n((2, 3, 4)), kwargs={"ord": "nuc", "dim": (0, 2), "keepdim": True}),
        Sample(n((2, 3, 4))), Sample(n((2, 3, 4)), kwargs={"ord": 3, "dim": 1}),
    ]  # fmt: skip


_reg("linalg.norm", lambda T, A, *a, **k: T.linalg.norm(A, *a, **k), _lnorm_samples, dtypes=WITH_COMPLEX,
     errors=lambda T: [
    *_norm_errors("norm")(T),
    (lambda: T.linalg.norm(T.ones(2, 2, 2), 2), RuntimeError),
    (lambda: T.linalg.norm(T.ones(2, 2, 2), "fro"), RuntimeError),
    (lambda: T.linalg.norm(T.ones(2, 2, 2), "nuc", dim=1), RuntimeError),
])  # fmt: skip
_reg("norm.matrix", lambda T, A, *a, **k: T.norm(A, *a, **k), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 4)), "nuc"), Sample(rng.standard_normal((2, 3, 4)), "nuc", kwargs={"dim": (1, 2)}),
    Sample(rng.standard_normal((2, 3, 4)), 2, kwargs={"dim": (1, 2)}),
], errors=lambda T: [
    (lambda: T.norm(T.ones(2, 2, 2), "nuc"), RuntimeError),
    (lambda: T.norm(T.ones(3), "nuc"), RuntimeError),
    (lambda: T.norm(T.ones(2, 2), "abc"), RuntimeError),
])  # fmt: skip


# ---- cond ------------------------------------------------------------------------------------------------------
def _cond_samples(rng, dtype):
    n = rng.standard_normal
    out = [Sample(_well(rng, (3, 3)), p) for p in (None, "fro", "nuc", INF, -INF, 1, -1, 2, -2)]
    return out + [
        Sample(n((3, 4))), Sample(n((4, 2)), -2), Sample(_well(rng, (2, 3, 3)), 1), Sample(_well(rng, (3, 3)), "fro", noncontig=True),
        Sample(np.zeros((0, 0))), Sample(np.zeros((0, 3))),
    ]  # fmt: skip


# rtol: the out= check writes float32 results into a float64 out and compares at float64 tolerance;
# a ratio of two float32 singular values differs from LAPACK's in the last float32 bits.
_reg("linalg.cond", lambda T, A, *a: T.linalg.cond(A, *a), _cond_samples, dtypes=WITH_COMPLEX, rtol=2e-6, errors=lambda T: [
    (lambda: T.linalg.cond(T.ones(2, 2, dtype=T.int64)), RuntimeError),
    (lambda: T.linalg.cond(T.ones(2, 2, dtype=T.int64), 1), RuntimeError),
    (lambda: T.linalg.cond(T.ones(2)), RuntimeError),
    (lambda: T.linalg.cond(T.ones(2, 3), "fro"), RuntimeError),
    (lambda: T.linalg.cond(T.ones(2, 3), 1), RuntimeError),
    (lambda: T.linalg.cond(T.ones(2, 3), 1.0), RuntimeError),
    (lambda: T.linalg.cond(T.ones(2, 3), -INF), RuntimeError),
    (lambda: T.linalg.cond(T.ones(2, 2), 3), RuntimeError),
    (lambda: T.linalg.cond(T.ones(2, 2), "x"), RuntimeError),
    (lambda: T.linalg.cond(T.ones(2, 0, 3), "fro"), RuntimeError),
])  # fmt: skip


_reg(
    "linalg.cond.singular",
    lambda T, A, *a: T.linalg.cond(A, *a),
    lambda rng, dtype: (
        [Sample(np.zeros((3, 3)), p) for p in (None, "fro", "nuc", 1, -INF, 2)]
        + [Sample(np.array([[1.0, 2.0], [2.0, 4.0]]), 1)]
    ),
    grad=False,
)  # singular: inf/nan, no useful gradient


# ---- matrix_exp ---------------------------------------------------------------------------------------------------
def _exp_samples(rng, dtype):
    n = rng.standard_normal
    return [Sample(0.5 * n((3, 3))), Sample(0.5 * n((2, 2, 2))), Sample(0.5 * n((3, 3)), noncontig=True),
            Sample(3 * n((2, 2))), Sample(n((1, 1))), Sample(n((0, 0))), Sample(n((2, 0, 0)))]  # fmt: skip


for _name, _op in (
    ("linalg.matrix_exp", lambda T, A: T.linalg.matrix_exp(A)),
    ("matrix_exp", lambda T, A: T.matrix_exp(A)),
):
    _reg(_name, _op, _exp_samples, dtypes=WITH_COMPLEX,  # PyTorch's half/bfloat16 kernel is wrong (see matrix_exp's docstring) method=lambda A: A.matrix_exp(),
         errors=lambda T: [
        (lambda: T.linalg.matrix_exp(T.ones(2, 2, dtype=T.int64)), RuntimeError),
        (lambda: T.linalg.matrix_exp(T.ones(2, 3)), RuntimeError),
        (lambda: T.linalg.matrix_exp(T.ones(3)), RuntimeError),
    ])  # fmt: skip


# ---- solve_triangular ---------------------------------------------------------------------------------------------
def _tri_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(_well(rng, (3, 3)), n((3, 2)), kwargs={"upper": True}),
        Sample(_well(rng, (3, 3)), n((3, 2)), kwargs={"upper": False}),
        Sample(_well(rng, (3, 3)), n((2, 3)), kwargs={"upper": True, "left": False}),
        Sample(_well(rng, (3, 3)), n((3, 2)), kwargs={"upper": False, "unitriangular": True}),
        Sample(_well(rng, (2, 3, 3)), n((3, 1)), kwargs={"upper": True}),
        Sample(_well(rng, (3, 3)), n((2, 3, 2)), kwargs={"upper": False, "left": True}),
        Sample(_well(rng, (3, 3)), n((3, 2)), kwargs={"upper": True}, noncontig=True),
        Sample(_well(rng, (3, 3)), n((3, 0)), kwargs={"upper": True}),
        Sample(
            _well(rng, (3, 3)), Typed(n((3, 2)), "float64"), kwargs={"upper": True}
        ),  # A's dtype wins
    ]


_reg("linalg.solve_triangular", lambda T, A, B, **k: T.linalg.solve_triangular(A, B, **k), _tri_samples,
     dtypes=WITH_COMPLEX, errors=lambda T: [
    (lambda: T.linalg.solve_triangular(T.ones(2, 2, dtype=T.int64), T.ones(2, 2, dtype=T.int64), upper=True),
     NotImplementedError),
    (lambda: T.linalg.solve_triangular(T.ones(2, 2), T.ones(2), upper=True), RuntimeError),
    (lambda: T.linalg.solve_triangular(T.ones(2), T.ones(2, 2), upper=True), RuntimeError),
    (lambda: T.linalg.solve_triangular(T.ones(2, 3), T.ones(2, 2), upper=True), RuntimeError),
    (lambda: T.linalg.solve_triangular(T.ones(2, 2), T.ones(3, 2), upper=True), RuntimeError),
    (lambda: T.linalg.solve_triangular(T.ones(2, 2), T.ones(2, 3), upper=True, left=False), RuntimeError),
])  # fmt: skip


# ---- householder_product ------------------------------------------------------------------------------------------
def _hh_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((4, 3)), n(3)), Sample(n((4, 3)), n(2)), Sample(n((3, 3)), n(3)), Sample(n((2, 4, 2)), n((2, 2))),
        Sample(n((4, 3)), n(0)), Sample(n((3, 2)), n(2), noncontig=True),
    ]  # fmt: skip


for _name, _op in (("linalg.householder_product", lambda T, A, t: T.linalg.householder_product(A, t)),
                   ("orgqr", lambda T, A, t: T.orgqr(A, t))):  # fmt: skip
    _reg(_name, _op, _hh_samples, dtypes=WITH_COMPLEX, method=lambda A, t: A.orgqr(t), errors=lambda T: [
        (lambda: T.linalg.householder_product(T.ones(3), T.ones(1)), RuntimeError),
        (lambda: T.linalg.householder_product(T.ones(2, 3), T.ones(2)), RuntimeError),
        (lambda: T.linalg.householder_product(T.ones(3, 2), T.ones(3)), RuntimeError),
        (lambda: T.linalg.householder_product(T.ones(2, 3, 2), T.ones(2)), RuntimeError),
        (lambda: T.linalg.householder_product(T.ones(2, 3, 2), T.ones(3, 2)), RuntimeError),
        (lambda: T.linalg.householder_product(T.ones(3, 2), T.ones(2, dtype=T.float64)), RuntimeError),
        (lambda: T.linalg.householder_product(T.ones(3, 2, dtype=T.int64), T.ones(2, dtype=T.int64)), RuntimeError),
    ])  # fmt: skip


# ---- tensorinv / tensorsolve / diagonal --------------------------------------------------------------------------
def _tinv_samples(rng, dtype):
    return [Sample(_well(rng, (4, 4)).reshape(4, 2, 2), kwargs={"ind": 1}),
            Sample(_well(rng, (6, 6)).reshape(2, 3, 6)),
            Sample(_well(rng, (4, 4)).reshape(2, 2, 2, 2))]  # fmt: skip


_reg("linalg.tensorinv", lambda T, A, **k: T.linalg.tensorinv(A, **k), _tinv_samples, dtypes=WITH_COMPLEX,
     grad_fn=False,  # PyTorch's inv result is column-major, so its reshape is a ReshapeAliasBackward0
     errors=lambda T: [
    (lambda: T.linalg.tensorinv(T.ones(2, 3, 4), ind=1), RuntimeError),
    (lambda: T.linalg.tensorinv(T.ones(4, 2, 2), ind=0), RuntimeError),
    (lambda: T.linalg.tensorinv(T.ones(4, 2, 2, dtype=T.int64), ind=1), RuntimeError),
    (lambda: T.linalg.tensorinv(T.zeros(4, 2, 2), ind=1), RuntimeError),
    (lambda: T.linalg.tensorinv(T.eye(4).index_select(0, T.tensor([0, 1, 3, 3])).reshape(2, 2, 4), ind=2), RuntimeError),
])  # fmt: skip


def _tsolve_samples(rng, dtype):
    n = rng.standard_normal
    return [Sample(_well(rng, (6, 6)).reshape(2, 3, 6), n((2, 3))),
            Sample(_well(rng, (6, 6)).reshape(6, 2, 3), n(6), kwargs={"dims": (0,)}),
            Sample(_well(rng, (4, 4)).reshape(2, 2, 2, 2), n((2, 2)))]  # fmt: skip


_reg("linalg.tensorsolve", lambda T, A, B, **k: T.linalg.tensorsolve(A, B, **k), _tsolve_samples, dtypes=WITH_COMPLEX,
     errors=lambda T: [
    (lambda: T.linalg.tensorsolve(T.ones(2, 3, 4), T.ones(2, 3)), RuntimeError),
    (lambda: T.linalg.tensorsolve(T.ones(6, 2, 3), T.ones(6), dims=(0,)), RuntimeError),
])  # fmt: skip
_reg("linalg.diagonal", lambda T, A, **k: T.linalg.diagonal(A, **k), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 4))), Sample(rng.standard_normal((2, 3, 3)), kwargs={"offset": 1}),
    Sample(rng.standard_normal((2, 3, 4)), kwargs={"dim1": 0, "dim2": 2, "offset": -1}),
], dtypes=FLOATS + ("int64",), errors=lambda T: [(lambda: T.linalg.diagonal(T.ones(3)), IndexError)])  # fmt: skip


# ---- lu / lu_unpack ------------------------------------------------------------------------------------------------
def _lu_samples(rng, dtype):
    n = rng.standard_normal
    return [Sample(n((3, 3))), Sample(n((2, 4))), Sample(n((4, 2))), Sample(n((2, 3, 3))), Sample(n((3, 3)), noncontig=True),
            Sample(n((0, 2))), Sample(n((2, 0)))]  # fmt: skip


_reg("linalg.lu", lambda T, A, **k: T.linalg.lu(A, **k), _lu_samples, dtypes=WITH_COMPLEX, errors=lambda T: [
    (lambda: T.linalg.lu(T.ones(3)), RuntimeError),
    (lambda: T.linalg.lu(T.ones(2, 2, dtype=T.int64)), NotImplementedError),
    (lambda: T.linalg.lu(T.ones(2, 2), pivot=False), RuntimeError),
])  # fmt: skip


def _pivots(*p):
    return Typed(np.array(p), "int32")


_reg("lu_unpack", lambda T, LU, piv, **k: T.lu_unpack(LU, piv, **k), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 3)), _pivots(2, 3, 3)), Sample(rng.standard_normal((2, 4)), _pivots(2, 2)),
    Sample(rng.standard_normal((4, 2)), _pivots(4, 3)), Sample(rng.standard_normal((2, 3, 3)), _pivots([3, 2, 3], [1, 3, 3])),
    Sample(rng.standard_normal((3, 3)), _pivots(1, 2, 3), noncontig=True),
    Sample(rng.standard_normal((3, 3)), _pivots(3, 3, 3), kwargs={"unpack_data": False}),
    Sample(rng.standard_normal((3, 3)), _pivots(2, 2, 3), kwargs={"unpack_pivots": False}),
], dtypes=WITH_COMPLEX, errors=lambda T: [
    (lambda: T.lu_unpack(T.randn(3, 3), T.ones(3, dtype=T.int64)), RuntimeError),
    # (pivots shorter than min(m, n) are not an error case: PyTorch reads past their end and
    # raises or not depending on what that memory holds)
    (lambda: T.lu_unpack(T.randn(3), T.ones(3, dtype=T.int32)), RuntimeError),
    (lambda: T.lu_unpack(T.randn(3, 3), T.tensor([4, 1, 1], dtype=T.int32)), RuntimeError),
])  # fmt: skip


# ---- lstsq --------------------------------------------------------------------------------------------------------------
def _lstsq_samples(rng, dtype):
    n = rng.standard_normal
    out = [
        Sample(n((4, 3)), n((4, 2)), kwargs={"driver": d})
        for d in (None, "gels", "gelsy", "gelsd", "gelss")
    ]
    return out + [
        Sample(n((2, 3)), n((2, 2))), Sample(n((2, 3)), n((2, 2)), kwargs={"driver": "gelsd"}),
        Sample(n((3, 3)), n((3, 1)), kwargs={"driver": "gelss"}), Sample(n((4, 2)), n(4), kwargs={"driver": "gelsd"}),
        Sample(n((2, 4, 2)), n((1, 4, 3)), kwargs={"driver": "gelsd"}), Sample(n((2, 4, 2)), n((2, 4))),
        Sample(n((4, 3)), n((4, 2)), noncontig=True), Sample(n((0, 2)), n((0, 1))), Sample(n((3, 0)), n((3, 1))),
    ]  # fmt: skip


# Every result (values, dtypes, shapes per driver); singular_values are not differentiable, so the
# gradient checks run on (solution, residuals) in the entry below.
_reg("linalg.lstsq", lambda T, A, B, *a, **k: T.linalg.lstsq(A, B, *a, **k), _lstsq_samples, dtypes=WITH_COMPLEX,
     rtol=1e-5, atol=1e-6, grad=False, errors=lambda T: [
    (lambda: T.linalg.lstsq(T.ones(3), T.ones(3)), RuntimeError),
    (lambda: T.linalg.lstsq(T.ones(3, 2, dtype=T.int64), T.ones(3, 1, dtype=T.int64)), RuntimeError),
    (lambda: T.linalg.lstsq(T.ones(3, 2), T.ones(3, 1, dtype=T.float64)), RuntimeError),
    (lambda: T.linalg.lstsq(T.ones(3, 2), T.ones(3, 1), driver="foo"), RuntimeError),
    (lambda: T.linalg.lstsq(T.ones(3, 2), T.ones(4, 1)), RuntimeError),
    (lambda: T.linalg.lstsq(T.ones(3, 2), T.ones(4)), RuntimeError),
    (lambda: T.linalg.lstsq(T.ones(3, 2), T.tensor(1.0)), RuntimeError),
    (lambda: T.linalg.lstsq(T.ones(3, 2, dtype=T.float16), T.ones(3, 1, dtype=T.float16)), RuntimeError),
    (lambda: T.linalg.lstsq(T.ones(3, 2), T.ones(2, 3, 4)), RuntimeError),
])  # fmt: skip
_reg("linalg.lstsq.rank_deficient", lambda T, A, B, *a, **k: T.linalg.lstsq(A, B, *a, **k), lambda rng, dtype: [
    Sample(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), np.array([[1.0], [0.5], [-1.0]]), kwargs={"driver": d})
    for d in (None, "gelsd", "gelss")
] + [Sample(np.array([[1.0, 0], [0, 1e-3], [0, 0]]), np.ones((3, 1)), 1e-2, kwargs={"driver": d}) for d in ("gelsy", "gelsd")],
    grad=False)  # fmt: skip
_reg("linalg.lstsq.grad", lambda T, A, B, **k: T.linalg.lstsq(A, B, **k)[:2], _lstsq_samples, dtypes=("float64", "complex128"),
     out_check=False)  # fmt: skip
# Rank-deficient A: PyTorch differentiates the solution through pinv(A); so does taimatsu.
_reg("linalg.lstsq.rank_deficient_grad", lambda T, A, B, **k: T.linalg.lstsq(A, B, **k).solution, lambda rng, dtype: [
    Sample(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), np.array([[1.0], [0.5], [-1.0]]), kwargs={"driver": d})
    for d in (None, "gelsd")
], dtypes=("float64",), out_check=False,
     xfail={"gradcheck": "finite differences leave the rank-deficient set, where the solution is not differentiable"})  # fmt: skip
