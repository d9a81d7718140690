"""opdb entries for taimatsu/linalg/legacy.py: torch.triangular_solve, torch.lu, torch.lu_solve,
torch.geqrf, torch.ormqr, torch.linalg.ldl_factor(_ex) and torch.linalg.ldl_solve."""

from __future__ import annotations

import numpy as np
from opdb import OpInfo, Sample, Typed, register

FLOATS = ("float32", "float64")
WITH_COMPLEX = ("float32", "float64", "complex128")


def _reg(name, op, samples, dtypes=FLOATS, **kw):
    register(OpInfo(name=name, op=op, samples=samples, dtypes=dtypes, **kw))


def _dual(T, fn, *args):
    """``fn`` on dual tensors (tangent = primal): for ops without forward-mode AD."""
    fa = T.autograd.forward_ad
    with fa.dual_level():
        return fn(*[fa.make_dual(a, a.clone()) for a in args])


def _well(rng, shape):
    return rng.standard_normal(shape) + 3 * np.eye(shape[-1])


def _ts_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 2)), _well(rng, (3, 3))), Sample(n((3, 2)), _well(rng, (3, 3)), False),
        Sample(n((3, 2)), _well(rng, (3, 3)), True, True), Sample(n((3, 1)), _well(rng, (3, 3)), False, True, True),
        Sample(n((2, 3, 2)), _well(rng, (3, 3))), Sample(n((3, 2)), _well(rng, (2, 3, 3)), kwargs={"unitriangular": True}),
        Sample(n((3, 2)), _well(rng, (3, 3)), noncontig=True),
    ]  # fmt: skip


_reg("triangular_solve", lambda T, b, A, *a, **k: T.triangular_solve(b, A, *a, **k), _ts_samples, dtypes=WITH_COMPLEX,
     method=lambda b, A, *a, **k: b.triangular_solve(A, *a, **k), errors=lambda T: [
    (lambda: T.triangular_solve(T.ones(3), T.ones(3, 3)), RuntimeError),
    (lambda: T.triangular_solve(T.ones(3, 2, dtype=T.int64), T.ones(3, 3, dtype=T.int64)), NotImplementedError),
    (lambda: T.triangular_solve(T.ones(3, 2, dtype=T.float64), T.ones(3, 3)), RuntimeError),
    (lambda: T.triangular_solve(T.ones(4, 2), T.ones(3, 3)), RuntimeError),
    (lambda: T.triangular_solve(T.ones(3, 2), T.ones(3, 2)), RuntimeError),
])  # fmt: skip


def _sq(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 3))),
        Sample(n((2, 4))),
        Sample(n((4, 2))),
        Sample(n((2, 3, 3))),
        Sample(n((3, 3)), noncontig=True),
    ]


_reg("lu", lambda T, A, *a, **k: T.lu(A, *a, **k), lambda rng, dtype: [
    *_sq(rng, dtype), Sample(rng.standard_normal((3, 3)), kwargs={"get_infos": True}),
], dtypes=WITH_COMPLEX, method=lambda A, *a, **k: A.lu(*a, **k), errors=lambda T: [
    (lambda: T.lu(T.ones(3)), RuntimeError),
])  # fmt: skip


def _lu_solve_op(T, b, A):
    LU, piv = T.linalg.lu_factor(A)
    return T.lu_solve(b, LU, piv)


_reg(
    "lu.singular",
    lambda T, A, **k: T.lu(A, **k),
    lambda rng, dtype: [
        Sample(np.zeros((2, 2)), kwargs={"get_infos": True}),
        Sample(np.zeros((2, 2))),
        Sample(np.array([[1.0, 2.0], [2.0, 4.0]])),
    ],
    grad=False,
)


_reg("lu_solve", _lu_solve_op, lambda rng, dtype: [
    Sample(rng.standard_normal((3, 2)), _well(rng, (3, 3))), Sample(rng.standard_normal((2, 3, 1)), _well(rng, (2, 3, 3))),
], dtypes=WITH_COMPLEX, out_check=False)  # fmt: skip


_reg("geqrf", lambda T, A: T.geqrf(A), lambda rng, dtype: [
    *_sq(rng, dtype), Sample(rng.standard_normal((0, 3))),
], dtypes=WITH_COMPLEX, method=lambda A: A.geqrf(), grad=False, errors=lambda T: [
    (lambda: T.geqrf(T.ones(3)), RuntimeError),
    (lambda: T.geqrf(T.ones(3, 3, dtype=T.int64)), NotImplementedError),
    (lambda: T.geqrf(T.ones(2, 2, requires_grad=True)).a.sum().backward(), NotImplementedError),
    (lambda: _dual(T, T.geqrf, T.ones(2, 2)), NotImplementedError),
])  # fmt: skip


def _ormqr_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 2)), n(2), n((3, 2))), Sample(n((3, 3)), n(3), n((3, 2)), kwargs={"transpose": True}),
        Sample(n((4, 2)), n(2), n((3, 4)), kwargs={"left": False}),
        Sample(n((3, 2)), n(2), n((2, 3)), kwargs={"left": False, "transpose": True}),
        Sample(n((2, 3, 2)), n((2, 2)), n((2, 3, 1))), Sample(n((3, 2)), n(2), n((3, 3)), noncontig=True),
    ]  # fmt: skip


_reg("ormqr", lambda T, A, t, C, **k: T.ormqr(A, t, C, **k), _ormqr_samples, dtypes=WITH_COMPLEX,
     method=lambda A, t, C, **k: A.ormqr(t, C, **k), errors=lambda T: [
    (lambda: _dual(T, T.ormqr, T.ones(3, 2), T.ones(2), T.ones(3, 2)), NotImplementedError),
    (lambda: T.ormqr(T.ones(3), T.ones(1), T.ones(3, 2)), RuntimeError),
    (lambda: T.ormqr(T.ones(3, 2), T.ones(2), T.ones(4, 2)), RuntimeError),
    (lambda: T.ormqr(T.ones(3, 2), T.ones(2), T.ones(4, 2), left=False), RuntimeError),
    (lambda: T.ormqr(T.ones(3, 2), T.ones(3), T.ones(3, 2)), RuntimeError),
])  # fmt: skip


def _sym(rng, shape):
    a = rng.standard_normal(shape)
    return a + np.swapaxes(a, -1, -2)


def _ldl_samples(rng, dtype):
    S = np.array([[0.0, 1, 2], [1, 0, 3], [2, 3, 1]])
    return [Sample(_sym(rng, (3, 3))), Sample(S), Sample(_sym(rng, (2, 4, 4))), Sample(_sym(rng, (3, 3)), kwargs={"hermitian": True}),
            Sample(np.zeros((0, 0)))]  # fmt: skip


_reg("linalg.ldl_factor", lambda T, A, **k: T.linalg.ldl_factor(A, **k), _ldl_samples, dtypes=WITH_COMPLEX, grad=False,
     errors=lambda T: [
    (lambda: T.linalg.ldl_factor(T.ones(3)), RuntimeError),
    (lambda: T.linalg.ldl_factor(T.ones(2, 3)), RuntimeError),
    (lambda: T.linalg.ldl_factor(T.ones(2, 2, dtype=T.int64)), RuntimeError),
    (lambda: _dual(T, T.linalg.ldl_factor, T.eye(2)), NotImplementedError),
])  # fmt: skip
_reg("linalg.ldl_factor_ex", lambda T, A, **k: T.linalg.ldl_factor_ex(A, **k), lambda rng, dtype: [
    *_ldl_samples(rng, dtype), Sample(np.zeros((2, 2))),
], dtypes=WITH_COMPLEX, grad=False)  # fmt: skip


def _ldl_solve_op(T, A, B, **k):
    LD, piv = T.linalg.ldl_factor(A, **k)
    return T.linalg.ldl_solve(LD, piv, B, **k)


_reg("linalg.ldl_solve", _ldl_solve_op, lambda rng, dtype: [
    Sample(_sym(rng, (3, 3)), rng.standard_normal((3, 2))), Sample(np.array([[0.0, 1, 2], [1, 0, 3], [2, 3, 1]]), rng.standard_normal((3, 1))),
    Sample(_sym(rng, (2, 3, 3)), rng.standard_normal((2, 3, 1))), Sample(_sym(rng, (3, 3)), rng.standard_normal((3, 1)), kwargs={"hermitian": True}),
], dtypes=WITH_COMPLEX, grad=False, rtol=1e-4, atol=1e-5, errors=lambda T: [
    (lambda: T.linalg.ldl_solve(T.eye(2), T.ones(2, dtype=T.int32), T.ones(2)), IndexError),
    (lambda: _dual(T, lambda B: T.linalg.ldl_solve(T.eye(2), T.tensor([1, 2], dtype=T.int32), B), T.ones(2, 1)),
     NotImplementedError),
])  # fmt: skip

_ = Typed
