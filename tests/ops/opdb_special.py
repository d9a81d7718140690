"""opdb entries for torch.special and the elementwise ops of taimatsu/ops/pointwise/special.py."""

from __future__ import annotations

import numpy as np
from opdb import COMPLEX_DTYPES, REGISTRY, OpInfo, Sample, Typed, register
from opdb_pointwise import binary_samples, positive, unary_samples

F = ("float32", "float64")
FI = ("float32", "float64", "int64", "bool")


def in_open_unit(a):
    return 0.05 + 0.9 / (1 + np.exp(-a))


def _u(name, fn, domain=None, dtypes=FI, method=None, inplace=None, samples=unary_samples, **kw):
    register(
        OpInfo(
            name=name,
            op=fn,
            method=method,
            inplace=inplace,
            samples=samples,
            dtypes=dtypes,
            domain=domain,
            **kw,
        )
    )


# ---- torch.special unary (aliases and new ones) -----------------------------------------------------------
for _n, _d in {
    "expit": None, "erf": None, "erfc": None, "erfinv": lambda a: np.tanh(a) * 0.9, "erfcx": None,
    "gammaln": lambda a: np.abs(a) + 0.5, "digamma": lambda a: np.abs(a) + 0.5, "psi": lambda a: np.abs(a) + 0.5,
    "i0": None, "i0e": None, "i1": None, "i1e": None, "ndtr": None, "ndtri": in_open_unit, "log_ndtr": None,
    "sinc": None, "entr": positive, "exp2": None, "expm1": None, "log1p": positive, "round": None,
}.items():  # fmt: skip
    _u(
        f"special.{_n}",
        lambda T, x, _n=_n: getattr(T.special, _n)(x),
        _d,
        dtypes=("float32", "float64", "int64") if _n != "round" else ("float32", "float64"),
    )
_u("special.logit", lambda T, x: T.special.logit(x, 0.1), in_open_unit, dtypes=F)
_u("special.polygamma", lambda T, x: T.special.polygamma(2, x), lambda a: np.abs(a) + 0.5, dtypes=F)
_u(
    "special.multigammaln",
    lambda T, x: T.special.multigammaln(x, 3),
    lambda a: np.abs(a) + 1.6,
    dtypes=FI[:3],
)
for _n in ("softmax", "log_softmax", "logsumexp"):
    _u(
        f"special.{_n}",
        lambda T, x, _n=_n: getattr(T.special, _n)(x, -1),
        None,
        dtypes=F,
        samples=lambda rng, dtype: [
            Sample(rng.standard_normal((3, 4))),
            Sample(rng.standard_normal((4, 3)), noncontig=True),
        ],
    )
_u(
    "special.errors",
    lambda T, x: T.special.erfcx(x),
    None,
    dtypes=("float32",),
    grad=False,
    errors=lambda T: [
        (lambda: T.special.erfcx(T.ones(2, dtype=T.float16)), NotImplementedError),
        (lambda: T.special.ndtri(T.ones(2, dtype=T.bfloat16)), NotImplementedError),
        (lambda: T.special.log_ndtr(T.ones(2, dtype=T.float16)), NotImplementedError),
    ],
)


def _pos_pair(rng, dtype):
    return [
        Sample(
            np.abs(s.args[0]) + 0.2,
            np.abs(s.args[1]) + 0.2 if isinstance(s.args[1], np.ndarray) else s.args[1],
            noncontig=s.noncontig,
        )
        for s in binary_samples(rng, dtype)
    ]


register(
    OpInfo(
        name="special.xlog1py",
        op=lambda T, x, y: T.special.xlog1py(x, y),
        samples=_pos_pair,
        dtypes=("float32", "float64", "int64"),
    )
)
register(
    OpInfo(
        name="special.xlog1py.scalar_self",
        op=lambda T, y: T.special.xlog1py(2.0, y),
        samples=lambda rng, dtype: [Sample(np.abs(rng.standard_normal((2, 3))))],
        dtypes=F,
    )
)
register(
    OpInfo(
        name="special.zeta",
        op=lambda T, x, y: T.special.zeta(x, y),
        samples=lambda rng, dtype: [
            Sample(
                np.abs(rng.standard_normal((2, 3))) + 1.5, np.abs(rng.standard_normal((2, 3))) + 0.5
            ),
            Sample(np.abs(rng.standard_normal((3,))) + 2.0, 1.5),
        ],
        dtypes=F,
        grad=False,
    )
)
register(
    OpInfo(
        name="special.zeta.q",
        op=lambda T, y: T.special.zeta(3.0, y),
        samples=lambda rng, dtype: [Sample(np.abs(rng.standard_normal((2, 3))) + 0.5)],
        dtypes=F,
    )
)

# ---- new torch.* elementwise ops ------------------------------------------------------------------------
for _n, _d in {"sinc": None, "i0": None, "rad2deg": None, "deg2rad": None}.items():
    _u(
        _n,
        lambda T, x, _n=_n: getattr(T, _n)(x),
        _d,
        dtypes=("float16", "float32", "float64", "int64", "bool"),
        method=lambda x, _n=_n: getattr(x, _n)(),
        inplace=lambda x, _n=_n: getattr(x, _n + "_")(),
    )
_u(
    "mvlgamma",
    lambda T, x: T.mvlgamma(x, 2),
    lambda a: np.abs(a) + 1.2,
    dtypes=("float32", "float64"),
    method=lambda x: x.mvlgamma(2),
    inplace=lambda x: x.mvlgamma_(2),
    errors=lambda T: [(lambda: T.mvlgamma(T.ones(2), 0), RuntimeError)],
)
_u(
    "isreal",
    lambda T, x: T.isreal(x),
    None,
    dtypes=("float32", "int64", "bool", "complex64"),
    grad=False,
    method=lambda x: x.isreal(),
)
_u(
    "frexp",
    lambda T, x: T.frexp(x),
    None,
    dtypes=("float16", "float32", "float64"),
    method=lambda x: x.frexp(),
    samples=lambda rng, dtype: [
        Sample(rng.standard_normal((3, 4)) * 10),
        Sample(rng.standard_normal(())),
    ],
    errors=lambda T: [(lambda: T.frexp(T.ones(2, dtype=T.int64)), RuntimeError)],
)
register(
    OpInfo(
        name="logcumsumexp",
        op=lambda T, x, d: T.logcumsumexp(x, d),
        method=lambda x, d: x.logcumsumexp(d),
        samples=lambda rng, dtype: [
            Sample(rng.standard_normal((3, 4)), 1),
            Sample(rng.standard_normal((3, 4)), 0),
            Sample(rng.standard_normal((5,)), -1),
            Sample(rng.standard_normal(()), 0),
            Sample(rng.standard_normal((4, 3)), 1, noncontig=True),
        ],
        dtypes=F,
        errors=lambda T: [
            (lambda: T.logcumsumexp(T.ones(2, dtype=T.int64), 0), NotImplementedError),
            (lambda: T.logcumsumexp(T.ones(2), 3), IndexError),
        ],
    )
)
register(
    OpInfo(
        name="logaddexp2",
        op=lambda T, x, y: T.logaddexp2(x, y),
        method=lambda x, y: x.logaddexp2(y),
        samples=lambda rng, dtype: [
            s for s in binary_samples(rng, dtype) if isinstance(s.args[1], np.ndarray)
        ],
        dtypes=F,
        errors=lambda T: [
            (
                lambda: T.logaddexp2(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int64)),
                NotImplementedError,
            )
        ],
    )
)
register(
    OpInfo(
        name="nextafter",
        op=lambda T, x, y: T.nextafter(x, y),
        method=lambda x, y: x.nextafter(y),
        inplace=lambda x, y: x.nextafter_(y),
        samples=lambda rng, dtype: [
            s for s in binary_samples(rng, dtype) if isinstance(s.args[1], np.ndarray)
        ],
        dtypes=F,
        gradgrad=False,
        errors=lambda T: [
            (
                lambda: T.nextafter(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int64)),
                NotImplementedError,
            )
        ],
    )
)
register(
    OpInfo(
        name="heaviside",
        op=lambda T, x, y: T.heaviside(x, y),
        method=lambda x, y: x.heaviside(y),
        inplace=lambda x, y: x.heaviside_(y),
        samples=lambda rng, dtype: [
            Sample(np.round(rng.standard_normal((3, 4))), rng.standard_normal((3, 4))),
            Sample(np.round(rng.standard_normal((2, 3))), rng.standard_normal((3,))),
        ],
        dtypes=("float32", "float64", "int64"),
        grad=False,
        errors=lambda T: [
            (lambda: T.heaviside(T.ones(2), T.ones(2, dtype=T.float64)), RuntimeError)
        ],
    )
)
for _n in ("gcd", "lcm"):
    register(
        OpInfo(
            name=_n,
            op=lambda T, x, y, _n=_n: getattr(T, _n)(x, y),
            method=lambda x, y, _n=_n: getattr(x, _n)(y),
            inplace=lambda x, y, _n=_n: getattr(x, _n + "_")(y),
            samples=lambda rng, dtype: [
                Sample(rng.standard_normal((3, 4)) * 4, rng.standard_normal((3, 4)) * 4),
                Sample(rng.standard_normal((2, 3)) * 4, rng.standard_normal((3,)) * 4),
            ],
            dtypes=("uint8", "int16", "int32", "int64"),
            grad=False,
            errors=lambda T, _n=_n: [
                (lambda: getattr(T, _n)(T.ones(2), T.ones(2)), NotImplementedError),
                (
                    lambda: getattr(T, _n)(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool)),
                    NotImplementedError,
                ),
            ],
        )
    )
register(
    OpInfo(
        name="ldexp",
        op=lambda T, x, e: T.ldexp(x, e),
        method=lambda x, e: x.ldexp(e),
        samples=lambda rng, dtype: [
            Sample(rng.standard_normal((3, 4)), Typed(rng.integers(0, 4, (3, 4)), "int64")),
            Sample(rng.standard_normal((2, 3)), Typed(rng.integers(-3, 4, (3,)), "int64")),
        ],
        dtypes=("float16", "float32", "float64"),
        # PyTorch's gradient evaluates 2**e in the integer dtype: 0 for e < 0 (kept for parity).
        xfail={"gradcheck": "PyTorch's ldexp gradient is 0 for negative integer exponents"},
    )
)
register(
    OpInfo(
        name="ldexp.float_exp",
        op=lambda T, x, e: T.ldexp(x, e),
        samples=lambda rng, dtype: [
            Sample(rng.standard_normal((3, 4)), rng.standard_normal((3, 4)))
        ],
        dtypes=F,
    )
)
register(
    OpInfo(
        name="float_power_",
        op=lambda T, x, e: x.clone().float_power_(e),
        samples=lambda rng, dtype: [
            Sample(np.abs(rng.standard_normal((3, 4))) + 0.1, 2),
            Sample(np.abs(rng.standard_normal((3, 4))) + 0.1, rng.standard_normal((3, 4))),
        ],
        dtypes=("float64",),
        errors=lambda T: [(lambda: T.ones(2).float_power_(2), RuntimeError)],
    )
)


# ---- complex dtypes ----------------------------------------------------------------------------------------
# Entries PyTorch computes on complex inputs (complex128 adds the Wirtinger gradient checks) ...
for _name in (
    "special.expit",
    "special.sinc",
    "special.exp2",
    "special.expm1",
    "special.log1p",
    "special.logsumexp",
    "sinc",
    "logcumsumexp",
    "ldexp",
    "ldexp.float_exp",
):
    REGISTRY[_name].dtypes = tuple(REGISTRY[_name].dtypes) + COMPLEX_DTYPES
# ... and those it refuses: the forward check compares the error type and message.
for _name in (
    "special.erf",
    "special.erfc",
    "special.erfinv",
    "special.erfcx",
    "special.gammaln",
    "special.digamma",
    "special.psi",
    "special.i0",
    "special.i0e",
    "special.i1",
    "special.i1e",
    "special.ndtr",
    "special.ndtri",
    "special.log_ndtr",
    "special.entr",
    "special.round",
    "special.logit",
    "special.polygamma",
    "special.multigammaln",
    "special.errors",
    "special.xlog1py",
    "special.xlog1py.scalar_self",
    "special.zeta",
    "special.zeta.q",
    "i0",
    "rad2deg",
    "deg2rad",
    "mvlgamma",
    "frexp",
    "logaddexp2",
    "nextafter",
    "heaviside",
    "gcd",
    "lcm",
    "float_power_",
):
    REGISTRY[_name].dtypes = tuple(REGISTRY[_name].dtypes) + ("complex64",)
