"""opdb entries for taimatsu/ops/reduction/reduce.py and ops/reduction/extrema.py (sum/mean/prod/..., max/min/...)."""

from __future__ import annotations

import numpy as np
from opdb import COMPLEX_DTYPES, REGISTRY, Dtype, OpInfo, Sample, register

FLOATS = ("float32", "float64")
SUM_DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool", "complex64")
ORDER_DTYPES = ("float32", "float64", "int64", "uint8", "bool")  # max/min/amax/argmax...


def _reg(name, fn, samples, **kw):
    """An entry calling ``T.<fn>(x, *args, **kwargs)`` and ``x.<fn>(*args, **kwargs)``."""
    register(OpInfo(
        name=name,
        op=lambda T, x, *a, **k: getattr(T, fn)(x, *a, **k),
        method=lambda x, *a, **k: getattr(x, fn)(*a, **k),
        samples=samples,
        **kw,
    ))  # fmt: skip


# ---- samples -----------------------------------------------------------------------------------------
def full_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4))),
        Sample(n(())),
        Sample(n((2, 3, 2))),
        Sample(n((4, 3)), noncontig=True),
        Sample(n((0, 3))),
    ]


def dim_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4)), 1),
        Sample(n((3, 4)), -1, True),
        Sample(n((3, 4)), 0, kwargs={"keepdim": True}),
        Sample(n((2, 3, 2)), (0, 2)),
        Sample(n((2, 3, 2)), (2, -3), True),
        Sample(n((2, 3)), []),
        Sample(n(()), 0),
        Sample(n(()), -1, True),
        Sample(n((4, 3)), 1, noncontig=True),
        Sample(n((0, 3)), 1),
        Sample(n((0, 3)), 0),
    ]


def one_dim_samples(rng, dtype):
    """Single-dim reductions (prod, max(dim), argmax, median, cumsum...)."""
    n = rng.standard_normal
    return [
        Sample(n((3, 4)), 1),
        Sample(n((3, 4)), 0, True),
        Sample(n((2, 3, 2)), -2),
        Sample(n(()), 0),
        Sample(n(()), -1, True),
        Sample(n((4, 3)), 1, noncontig=True),
    ]


# ---- sum / mean / prod / nansum / nanmean -------------------------------------------------------------------
_reg("sum", "sum", full_samples, dtypes=SUM_DTYPES)
_reg("sum.dim", "sum", dim_samples, dtypes=SUM_DTYPES, errors=lambda T: [
    (lambda: T.ones(3).sum(2), IndexError),
    (lambda: T.ones(()).sum(1), IndexError),
    (lambda: T.ones(3, 3).sum((0, 0)), RuntimeError),
    (lambda: T.ones(3, 3).sum((1, -1)), RuntimeError),
])  # fmt: skip
register(OpInfo(
    name="sum.dtype",
    op=lambda T, x, *a, **k: T.sum(x, *a, **k),
    samples=lambda rng, dtype: [Sample(rng.standard_normal((3, 4)), kwargs={"dtype": Dtype("float64")}),
                                Sample(rng.standard_normal((3, 4)), 1, kwargs={"dtype": Dtype("float64")})],
    dtypes=("float32", "int64", "bool"),
))  # fmt: skip
_reg("mean", "mean", full_samples, dtypes=("float16", "float32", "float64", "complex64"))
_reg("mean.dim", "mean", dim_samples, dtypes=("float32", "float64"), errors=lambda T: [
    (lambda: T.ones(3, dtype=T.int64).mean(), RuntimeError),
    (lambda: T.ones(3, dtype=T.bool).mean(0), RuntimeError),
    (lambda: T.ones(3).mean(dtype=T.int64), RuntimeError),
    (lambda: T.ones(3).mean(1), IndexError),
])  # fmt: skip
register(OpInfo(
    name="mean.dtype",
    op=lambda T, x, *a, **k: T.mean(x, *a, **k),
    samples=lambda rng, dtype: [Sample(rng.standard_normal((3, 4)), kwargs={"dtype": Dtype("float64")}),
                                Sample(rng.standard_normal((3, 4)), (0, 1), True, kwargs={"dtype": Dtype("float64")})],
    dtypes=("float32", "int64"),
))  # fmt: skip


def prod_samples(rng, dtype):
    n = rng.standard_normal
    z = n((3, 4))
    z[1, 2] = 0.0
    zz = n((3, 4))
    zz[0, 1] = zz[0, 3] = 0.0
    return [
        Sample(n((3, 4))),
        Sample(n(())),
        Sample(z),
        Sample(zz),
        Sample(n((4, 3)), noncontig=True),
        Sample(n((0, 2))),
    ]


def prod_dim_samples(rng, dtype):
    z = rng.standard_normal((3, 4))
    z[1, 2] = 0.0
    z[0, 1] = z[0, 3] = 0.0
    return one_dim_samples(rng, dtype) + [
        Sample(z, 1),
        Sample(z, 0, True),
        Sample(rng.standard_normal((0, 2)), 0),
    ]


_reg("prod", "prod", prod_samples, dtypes=("float32", "float64", "int64", "bool"))
_reg("prod.dim", "prod", prod_dim_samples, dtypes=("float32", "float64", "int32"),
     errors=lambda T: [(lambda: T.ones(3).prod(2), IndexError)])  # fmt: skip


def nan_samples(rng, dtype):
    x = rng.standard_normal((3, 4))
    x[0, 1] = x[2, 2] = x[2, 3] = np.nan
    return [
        Sample(x),
        Sample(x, 1),
        Sample(x, (0, 1), True),
        Sample(rng.standard_normal((4, 3)), 0, noncontig=True),
    ]


_reg("nansum", "nansum", nan_samples, dtypes=("float32", "float64", "int64"))
_reg("nanmean", "nanmean", nan_samples, dtypes=FLOATS,
     errors=lambda T: [(lambda: T.nanmean(T.ones(3, dtype=T.int64)), RuntimeError)])  # fmt: skip


# ---- max / min / amax / amin / aminmax / argmax / argmin / median ---------------------------------------
def nonempty_full(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4))),
        Sample(n(())),
        Sample(n((2, 3, 2))),
        Sample(n((4, 3)), noncontig=True),
    ]


for fn in ("max", "min"):
    _reg(fn, fn, nonempty_full, dtypes=ORDER_DTYPES,
         errors=lambda T, fn=fn: [(lambda: getattr(T.ones(0), fn)(), RuntimeError)])  # fmt: skip
    _reg(f"{fn}.dim", fn, one_dim_samples, dtypes=ORDER_DTYPES, errors=lambda T, fn=fn: [
        (lambda: getattr(T.ones(3), fn)(1), IndexError),
        (lambda: getattr(T.ones(2, 0), fn)(1), IndexError),
    ])  # fmt: skip
    register(OpInfo(
        name=f"{fn}.binary",
        op=lambda T, a, b, fn=fn: getattr(T, fn)(a, b),
        method=lambda a, b, fn=fn: getattr(a, fn)(b),
        samples=lambda rng, dtype: [Sample(rng.standard_normal((3, 4)), rng.standard_normal((3, 4))),
                                    Sample(rng.standard_normal((2, 3)), rng.standard_normal((3,)))],
        dtypes=("float32", "float64", "int64"),
    ))  # fmt: skip


def amax_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4))),
        Sample(n((3, 4)), 1),
        Sample(n((3, 4)), -1, True),
        Sample(n((2, 3, 2)), (0, 2)),
        Sample(n(()), 0),
        Sample(n((4, 3)), 0, noncontig=True),
        Sample(n((0, 3)), 0),
    ]


for fn in ("amax", "amin"):
    _reg(fn, fn, amax_samples, dtypes=ORDER_DTYPES, errors=lambda T, fn=fn: [
        (lambda: getattr(T.ones(0), fn)(), RuntimeError),
        (lambda: getattr(T.ones(2, 0), fn)(1), IndexError),
        (lambda: getattr(T.ones(3), fn)(1), IndexError),
    ])  # fmt: skip


def aminmax_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4))),
        Sample(n((3, 4)), kwargs={"dim": 1}),
        Sample(n((3, 4)), kwargs={"dim": 0, "keepdim": True}),
        Sample(n(())),
        Sample(n((4, 3)), kwargs={"dim": -1}, noncontig=True),
    ]


_reg("aminmax", "aminmax", aminmax_samples, dtypes=("float32", "float64", "int64"),
     errors=lambda T: [(lambda: T.aminmax(T.ones(0)), RuntimeError)])  # fmt: skip


def arg_samples(rng, dtype):
    n = rng.standard_normal
    return [Sample(n((3, 4))), Sample(n((3, 4)), kwargs={"keepdim": True})] + one_dim_samples(
        rng, dtype
    )


for fn in ("argmax", "argmin"):
    _reg(fn, fn, arg_samples, dtypes=ORDER_DTYPES, grad=False, errors=lambda T, fn=fn: [
        (lambda: getattr(T.ones(0), fn)(), IndexError),
        (lambda: getattr(T.ones(2, 0), fn)(1), IndexError),
    ])  # fmt: skip


def median_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4))),
        Sample(n((5,))),
        Sample(n(())),
        Sample(n((4, 3)), noncontig=True),
        Sample(n((0,))),
    ]


_reg("median", "median", median_samples, dtypes=("float32", "float64", "int64"))
_reg("median.dim", "median", one_dim_samples, dtypes=("float32", "float64", "int64"),
     errors=lambda T: [(lambda: T.ones(2, 0).median(1), IndexError)])  # fmt: skip


# ---- var / std / var_mean / std_mean ---------------------------------------------------------------------------
def var_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4))),
        Sample(n((3, 4)), 1),
        Sample(n((3, 4)), 0, False),
        Sample(n((3, 4)), 1, True, True),
        Sample(n((3, 4)), False),
        Sample(n((2, 3, 2)), (0, 2), kwargs={"correction": 2}),
        Sample(n((2, 3, 2)), kwargs={"dim": -1, "correction": 0, "keepdim": True}),
        Sample(n((4, 3)), 0, noncontig=True),
        Sample(n((3, 4)), 1, kwargs={"unbiased": False}),
    ]


for fn in ("var", "std"):
    _reg(fn, fn, var_samples, dtypes=("float32", "float64", "complex64"),
         errors=lambda T, fn=fn: [(lambda: getattr(T.ones(3, dtype=T.int64), fn)(), RuntimeError)])  # fmt: skip
for fn in ("var_mean", "std_mean"):
    register(OpInfo(
        name=fn,
        op=lambda T, x, *a, fn=fn, **k: getattr(T, fn)(x, *a, **k),
        samples=var_samples,
        errors=lambda T, fn=fn: [(lambda: getattr(T, fn)(T.ones(3, dtype=T.int64)), RuntimeError)],
    ))  # fmt: skip


# ---- logsumexp / norms -------------------------------------------------------------------------------------------
def lse_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4)), 1),
        Sample(n((3, 4)), 0, True),
        Sample(n((2, 3, 2)), (0, 2)),
        Sample(n(()), 0),
        Sample(n((4, 3)), -1, noncontig=True),
        Sample(n((0, 3)), 0),
    ]


_reg("logsumexp", "logsumexp", lse_samples, dtypes=("float32", "float64", "int64"))


def norm_samples(rng, dtype):
    n = rng.standard_normal
    out = []
    for p in (2, 1, float("inf"), float("-inf"), 0, 3, 0.5, 1.5):
        out += [Sample(n((3, 4)), p), Sample(n((3, 4)), p, 1)]
    return out + [
        Sample(n((3, 4))),
        Sample(n((3, 4)), "fro", (0, 1), True),
        Sample(n((2, 3, 2)), 2, (0, 2), True),
        Sample(n(()), 2),
        Sample(n((4, 3)), 2, 0, noncontig=True),
        Sample(n((0, 3)), 2),
        Sample(n((3, 4)), kwargs={"dim": 1}),
    ]


_reg("norm", "norm", norm_samples, dtypes=("float32", "float64", "complex64"),
     errors=lambda T: [(lambda: T.ones(3, dtype=T.int64).norm(), RuntimeError)])  # fmt: skip


def vector_norm_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4))),
        Sample(n((3, 4)), 1, 1),
        Sample(n((3, 4)), float("inf"), (0, 1), True),
        Sample(n((3, 4)), kwargs={"ord": 3, "dim": 0}),
        Sample(n((3, 4)), kwargs={"dtype": Dtype("float64")}),
    ]


register(OpInfo(
    name="linalg.vector_norm",
    op=lambda T, x, *a, **k: T.linalg.vector_norm(x, *a, **k),
    samples=vector_norm_samples,
    errors=lambda T: [
        (lambda: T.linalg.vector_norm(T.ones(3, dtype=T.int64)), RuntimeError),
        (lambda: T.linalg.vector_norm(T.ones(0), float("inf")), RuntimeError),
    ],
))  # fmt: skip


# ---- all / any / count_nonzero -------------------------------------------------------------------------------
def logical_samples(rng, dtype):
    n = rng.standard_normal
    x = n((3, 4))
    x[0] = 0.0
    return [
        Sample(x),
        Sample(x, 1),
        Sample(x, 0, True),
        Sample(n(())),
        Sample(n((0, 3)), 1),
        Sample(x, noncontig=True),
    ]


for fn in ("all", "any"):
    _reg(fn, fn, logical_samples, dtypes=("float32", "int64", "uint8", "bool"), grad=False,
         errors=lambda T, fn=fn: [(lambda: getattr(T.ones(3), fn)(3), IndexError)])  # fmt: skip
register(OpInfo(
    name="count_nonzero",
    op=lambda T, x, *a, **k: T.count_nonzero(x, *a, **k),
    method=lambda x, *a, **k: x.count_nonzero(*a, **k),
    samples=lambda rng, dtype: logical_samples(rng, dtype)[:2] + [Sample(rng.standard_normal((2, 3)), (0, 1))],
    dtypes=("float32", "int64", "bool"),
    grad=False,
))  # fmt: skip


# ---- cumsum / cumprod ---------------------------------------------------------------------------------------------
def scan_samples(rng, dtype):
    n = rng.standard_normal
    z = n((3, 4))
    z[1, 1] = 0.0
    z[2, 0] = z[2, 2] = 0.0
    return [
        Sample(n((3, 4)), 1),
        Sample(n((3, 4)), 0),
        Sample(n((2, 3, 2)), -2),
        Sample(n(()), 0),
        Sample(n((4, 3)), 1, noncontig=True),
        Sample(z, 1),
        Sample(n((0, 3)), 0),
    ] + (
        [] if dtype == "complex128" else [Sample(n((3, 4)), 1, kwargs={"dtype": Dtype("float64")})]
    )
    # complex128 (the gradient checks) leaves out dtype=float64: PyTorch's cumprod gradient then
    # uses the complex input with the real result, which is no derivative gradcheck could confirm.


for fn in ("cumsum", "cumprod"):
    _reg(fn, fn, scan_samples, dtypes=("float32", "float64", "int32", "bool"),
         errors=lambda T, fn=fn: [(lambda: getattr(T.ones(3), fn)(1), IndexError)])  # fmt: skip


# ---- complex dtypes ----------------------------------------------------------------------------------------
# Reductions PyTorch computes on complex inputs (complex128 adds the Wirtinger gradient checks).
for _name in (
    "sum",
    "sum.dim",
    "sum.dtype",
    "mean",
    "mean.dim",
    "mean.dtype",
    "prod",
    "prod.dim",
    "var",
    "std",
    "var_mean",
    "std_mean",
    "logsumexp",
    "norm",
    "linalg.vector_norm",
    "all",
    "any",
    "count_nonzero",
    "cumsum",
    "cumprod",
):
    REGISTRY[_name].dtypes = (
        tuple(d for d in REGISTRY[_name].dtypes if d not in COMPLEX_DTYPES) + COMPLEX_DTYPES
    )
# Reductions PyTorch refuses on complex inputs: the forward check compares the errors.
for _name in (
    "nansum",
    "nanmean",
    "max",
    "max.dim",
    "max.binary",
    "min",
    "min.dim",
    "min.binary",
    "amax",
    "amin",
    "aminmax",
    "argmax",
    "argmin",
    "median",
    "median.dim",
):
    REGISTRY[_name].dtypes = tuple(REGISTRY[_name].dtypes) + ("complex64",)
