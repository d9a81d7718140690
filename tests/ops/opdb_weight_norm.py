"""opdb entries for taimatsu/ops/nn/weight_norm.py (norm_except_dim, _weight_norm)."""

from __future__ import annotations

from opdb import OpInfo, Sample, register

FLOATS = ("float32", "float64")


def _norm_samples(rng, dtype):
    n = rng.standard_normal
    return [Sample(n((3, 4)), 2, 0), Sample(n((3, 4)), 2, 1), Sample(n((2, 3, 4)), 2, 1, noncontig=True),
            Sample(n((2, 3)), 2, -1), Sample(n((3, 4)), 3, 0), Sample(n((5,)), 2, 0)]  # fmt: skip


register(OpInfo(
    name="norm_except_dim", op=lambda T, v, *a: T.norm_except_dim(v, *a), samples=_norm_samples, dtypes=FLOATS,
    errors=lambda T: [(lambda: T.norm_except_dim(T.ones(2, 3), 2, 5), IndexError),
                      (lambda: T.norm_except_dim(None), TypeError)],
))  # fmt: skip


def _weight_norm_samples(rng, dtype):
    n = rng.standard_normal
    return [Sample(n((3, 4)), rng.uniform(0.5, 2, (3, 1)), 0), Sample(n((3, 4)), rng.uniform(0.5, 2, (1, 4)), 1),
            Sample(n((2, 3, 4)), rng.uniform(0.5, 2, (1, 3, 1)), 1), Sample(n((2, 3)), rng.uniform(0.5, 2, ()), -1)]  # fmt: skip


register(OpInfo(
    name="_weight_norm", op=lambda T, v, g, d: T._weight_norm(v, g, d), samples=_weight_norm_samples, dtypes=FLOATS,
    errors=lambda T: [(lambda: T._weight_norm(None, T.ones(1)), TypeError)],
))  # fmt: skip
