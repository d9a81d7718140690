"""opdb entries for factories (taimatsu/ops/creation/factories.py) and a few ops whose out= lives apart.

The factories take no tensor: their entries exist for the forward values and, above all, the
generic out= check (a factory builds in ``out``'s dtype; an explicit dtype must match it).
"""

from __future__ import annotations

from opdb import Dtype, OpInfo, Sample, register

F32 = ("float32",)


def _factory(name, samples, errors=None):
    register(OpInfo(
        name=name,
        op=(lambda fn: lambda T, *a, **k: getattr(T, fn)(*a, **k))(name),
        samples=lambda rng, dtype: samples,
        dtypes=F32,
        grad=False,
        errors=errors,
    ))  # fmt: skip


_factory(
    "zeros",
    [Sample(2, 3), Sample((4,)), Sample(2, kwargs={"dtype": Dtype("float64")}), Sample(0)],
    errors=lambda T: [(lambda: T.zeros(2, dtype=T.float64, out=T.empty(0)), RuntimeError)],
)
_factory("ones", [Sample(3), Sample((2, 2), kwargs={"dtype": Dtype("int64")})])
_factory("full", [Sample((2, 3), 1.5), Sample((2,), 7), Sample((3,), True)])
_factory("arange", [Sample(5), Sample(0, 2, 0.5), Sample(1.0, 4.0), Sample(5, 1, -2)])
_factory("range", [Sample(0, 4), Sample(1, 2, 0.25)])
_factory("linspace", [Sample(0, 1, 5), Sample(-2, 2, 4), Sample(0, 1, 0)])
_factory("logspace", [Sample(0, 1, 5), Sample(0, 2, 3, 2.0)])
_factory(
    "eye",
    [Sample(3), Sample(2, 4)],
    errors=lambda T: [(lambda: T.eye(2, dtype=T.int64, out=T.empty(0)), RuntimeError)],
)


register(OpInfo(
    name="histogram",
    op=lambda T, x, *a, **k: T.histogram(x, *a, **k),
    samples=lambda rng, dtype: [Sample(rng.standard_normal((20,)), 4), Sample(rng.standard_normal((3, 5)), 3,
                                                                                kwargs={"range": (-1.0, 1.0)})],
    dtypes=("float32", "float64"),
    grad=False,
))  # fmt: skip
register(OpInfo(
    name="conj_physical",
    op=lambda T, x: T.conj_physical(x),
    samples=lambda rng, dtype: [Sample(rng.standard_normal((2, 3))), Sample(rng.standard_normal(()))],
    dtypes=("float32", "complex64", "complex128"),
))  # fmt: skip
