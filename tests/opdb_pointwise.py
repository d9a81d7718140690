"""opdb entries for taimatsu/ops/pointwise.py."""

from __future__ import annotations

import numpy as np
from opdb import Sample, OpInfo, register


def _unary_samples(rng, dtype):
    return [
        Sample(rng.standard_normal((3, 4))),
        Sample(rng.standard_normal(())),
        Sample(rng.standard_normal((0, 3))),
        Sample(rng.standard_normal((4, 3)), noncontig=True),
        Sample(rng.standard_normal((5,)), noncontig=True),
    ]


register(OpInfo(
    name="exp",
    op=lambda T, x: T.exp(x),
    method=lambda x: x.exp(),
    inplace=lambda x: x.exp_(),
    samples=_unary_samples,
    dtypes=("float32", "float64", "int64", "bool"),
))


def _binary_samples(rng, dtype):
    return [
        Sample(rng.standard_normal((3, 4)), rng.standard_normal((3, 4))),
        Sample(rng.standard_normal((2, 3)), rng.standard_normal((3,)), kwargs={"alpha": 2}),
        Sample(rng.standard_normal((2, 3)), 1.5),
        Sample(rng.standard_normal(()), rng.standard_normal((2, 1))),
        Sample(rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), noncontig=True),
    ]


register(OpInfo(
    name="add",
    op=lambda T, x, y, **kw: T.add(x, y, **kw),
    method=lambda x, y, **kw: x.add(y, **kw),
    inplace=lambda x, y, **kw: x.add_(y, **kw),
    samples=_binary_samples,
    dtypes=("float32", "float64", "int64", "bool"),
    errors=lambda T: [(lambda: T.ones(3, dtype=T.int64).add_(1.5), RuntimeError)],
))
