"""opdb entries for taimatsu/ops/reduction/distance.py (cdist, dist, renorm, cross, chain_matmul) and
taimatsu/linalg.py's multi_dot, linalg.cross and linalg.vander."""

from __future__ import annotations

import numpy as np
from opdb import OpInfo, Sample, register

FLOATS = ("float32", "float64")


def _reg(name, op, samples, method=None, dtypes=FLOATS, **kw):
    register(OpInfo(name=name, op=op, method=method, samples=samples, dtypes=dtypes, **kw))


def _pairs(*specs):
    def make(rng, dtype):
        return [Sample(rng.standard_normal(a), rng.standard_normal(b), kwargs=kw, noncontig=nc)
                for a, b, kw, nc in specs]  # fmt: skip

    return make


# ---- cdist / dist ---------------------------------------------------------------------------------------------
_reg("cdist", lambda T, a, b, **k: T.cdist(a, b, **k), _pairs(
    ((3, 2), (2, 2), {}, False), ((3, 2), (4, 2), {"p": 1.0}, False), ((2, 3), (2, 3), {"p": 3.0}, True),
    ((2, 3, 2), (3, 2), {"p": float("inf")}, False), ((2, 2), (3, 2), {"p": 0.0}, False),
    ((2, 2), (3, 2), {"compute_mode": "use_mm_for_euclid_dist"}, False), ((0, 2), (3, 2), {}, False),
), errors=lambda T: [
    (lambda: T.cdist(T.ones(2), T.ones(2)), RuntimeError),
    (lambda: T.cdist(T.ones(2, 3), T.ones(2, 2)), RuntimeError),
    (lambda: T.cdist(T.ones(2, 3), T.ones(2, 3), p=-1), RuntimeError),
])  # fmt: skip
_reg(
    "cdist.mm", lambda T, a, b: T.cdist(a, b), _pairs(((26, 2), (2, 2), {}, False)), gradgrad=False
)
_reg("dist", lambda T, a, b, **k: T.dist(a, b, **k), _pairs(
    ((3, 2), (3, 2), {}, False), ((3, 2), (2,), {"p": 1}, False), ((2, 3), (2, 3), {"p": 3}, True),
    ((2, 2), (2, 2), {"p": float("inf")}, False), ((0,), (0,), {}, False),
), method=lambda a, b, **k: a.dist(b, **k), errors=lambda T: [
    (lambda: T.dist(T.ones(2, dtype=T.long), T.ones(2, dtype=T.long)), RuntimeError),
])  # fmt: skip
# p = 0: PyTorch's backward fails when other needs a gradient (tests/linalg/test_linalg_degenerate.py)
_reg("dist.p0", lambda T, a, b, **k: T.dist(a, b, **k), _pairs(((3,), (3,), {"p": 0}, False)),
     grad=False)  # fmt: skip


# ---- renorm ----------------------------------------------------------------------------------------------------
def _renorm_samples(rng, dtype):
    n = rng.standard_normal
    return [Sample(n((3, 4)), 2, 0, 1.0), Sample(n((3, 4)), 1, 1, 1.5), Sample(n((2, 3, 2)), 3, -1, 0.8, noncontig=True),
            Sample(n((3, 2)), 2, 0, 100.0), Sample(0.1 * n((4, 1)), 2, 0, 0.05)]  # fmt: skip


_reg("renorm", lambda T, x, *a: T.renorm(x, *a), _renorm_samples, method=lambda x, *a: x.renorm(*a),
     inplace=lambda x, *a: x.renorm_(*a), errors=lambda T: [
    (lambda: T.renorm(T.ones(2, 2), 2, 0, -1), RuntimeError),
])  # fmt: skip


# ---- cross / chain_matmul / multi_dot --------------------------------------------------------------------------------
_reg("cross", lambda T, a, b, **k: T.cross(a, b, **k), _pairs(
    ((2, 3), (2, 3), {"dim": 1}, False), ((3, 2), (3, 1), {"dim": 0}, False), ((4, 3), (4, 3), {"dim": -1}, True),
    ((3,), (3,), {"dim": 0}, False), ((0, 3), (0, 3), {"dim": 1}, False),
), method=lambda a, b, **k: a.cross(b, **k), dtypes=FLOATS + ("int64",), errors=lambda T: [
    (lambda: T.cross(T.ones(2, 3), T.ones(2, 2), dim=1), RuntimeError),
    (lambda: T.cross(T.ones(2, 2), T.ones(2, 2), dim=1), RuntimeError),
])  # fmt: skip
_reg("linalg.cross", lambda T, a, b, **k: T.linalg.cross(a, b, **k), _pairs(
    ((2, 3), (2, 3), {}, False), ((3, 2), (3, 2), {"dim": 0}, True), ((1, 3), (4, 3), {}, False),
), errors=lambda T: [(lambda: T.linalg.cross(T.ones(2, 3), T.ones(3)), RuntimeError)])  # fmt: skip


def _mats(*shapes, noncontig=False):
    return lambda rng, dtype: [
        Sample(*[rng.standard_normal(s) for s in shapes], noncontig=noncontig)
    ]


_reg("chain_matmul", lambda T, *m: T.chain_matmul(*m), lambda rng, dtype: [
    *_mats((2, 3), (3, 2), (2, 4))(rng, dtype), *_mats((2, 3), (3, 2))(rng, dtype), *_mats((2, 3))(rng, dtype),
])  # fmt: skip
_reg("linalg.multi_dot", lambda T, *m: T.linalg.multi_dot(list(m)), lambda rng, dtype: [
    *_mats((2, 3), (3, 2), (2, 4))(rng, dtype), *_mats((3,), (3, 2), (2,))(rng, dtype), *_mats((2, 3), (3,))(rng, dtype),
])  # fmt: skip
_reg("linalg.vander", lambda T, x, **k: T.linalg.vander(x, **k), lambda rng, dtype: [
    Sample(rng.standard_normal(3)), Sample(rng.standard_normal((2, 3)), kwargs={"N": 4}),
], dtypes=FLOATS + ("int64",))  # fmt: skip


_ = np
