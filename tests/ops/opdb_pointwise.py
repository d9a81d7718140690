"""opdb entries for taimatsu/ops/pointwise/unary.py (elementwise math, arithmetic, comparisons).

clamp/where/masked_fill/lerp/addcmul/addcdiv, type promotion and the complex-dtype tables are in
opdb_select_promotion.py."""

from __future__ import annotations

import numpy as np
from opdb import ALL_INT, OpInfo, Sample, register

FLOATS = ("float32", "float64")
FLOATS_INTS = ("float16", "float32", "float64", "uint8", "int32", "int64", "bool")


# ---- sample generators ----------------------------------------------------------------------------
def unary_samples(rng, dtype):
    return [
        Sample(rng.standard_normal((3, 4))),
        Sample(rng.standard_normal(())),
        Sample(rng.standard_normal((0, 3))),
        Sample(rng.standard_normal((4, 3)), noncontig=True),
        Sample(rng.standard_normal((5,)), noncontig=True),
    ]


def binary_samples(rng, dtype, scalars=(1.5, 2)):
    n = rng.standard_normal
    out = [
        Sample(n((3, 4)), n((3, 4))),
        Sample(n((2, 3)), n((3,))),
        Sample(n((3, 1)), n((1, 4))),
        Sample(n(()), n((2, 3))),
        Sample(n((2, 3)), n(())),
        Sample(n((0, 3)), n((3,))),
        Sample(n((4, 3)), n((4, 3)), noncontig=True),
    ]
    out += [Sample(n((2, 3)), s) for s in scalars]
    return out


def ternary_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4)), n((3, 4)), n((3, 4))),
        Sample(n((2, 3)), n((3,)), n((2, 1))),
        Sample(n(()), n((2, 3)), n(())),
        Sample(n((0, 3)), n((3,)), n((1, 3))),
        Sample(n((4, 3)), n((4, 3)), n((4, 3)), noncontig=True),
    ]


def positive(a):
    return np.abs(a) + 0.1


def away_from_zero(a):
    return np.where(a >= 0, 1.0, -1.0) * (np.abs(a) + 0.5)


def in_unit(a):
    return np.tanh(a) * 0.9


def _reg(name, op, samples, **kw):
    register(OpInfo(name=name, op=op, samples=samples, **kw))


# ---- unary ops that compute in floating point ------------------------------------------------------------
UNARY_FLOAT = {
    "exp": None, "exp2": None, "expm1": None, "log": positive, "log2": positive, "log10": positive,
    "log1p": positive, "sqrt": positive, "rsqrt": positive, "sin": None, "cos": None,
    "tan": lambda a: 0.4 * a, "asin": in_unit, "acos": in_unit, "atan": None, "sinh": None,
    "cosh": None, "tanh": None, "asinh": None, "acosh": lambda a: np.abs(a) + 1.2, "atanh": in_unit,
    "reciprocal": away_from_zero, "sigmoid": None, "erf": None, "erfc": None, "erfinv": in_unit,
    "lgamma": lambda a: np.abs(a) + 0.5, "digamma": lambda a: np.abs(a) + 0.5,
}  # fmt: skip


def _unary(fname, domain, dtypes=FLOATS_INTS, **kw):
    register(
        OpInfo(
            name=fname,
            op=lambda T, x: getattr(T, fname)(x),
            method=lambda x: getattr(x, fname)(),
            inplace=lambda x: getattr(x, fname + "_")(),
            samples=unary_samples,
            dtypes=dtypes,
            domain=domain,
            **kw,
        )
    )


for _f, _d in UNARY_FLOAT.items():
    _unary(_f, _d)

# Unary ops that keep the input's dtype.
_unary("neg", None)
_unary("abs", None)
_unary("relu", None)
_unary("sign", None)
_unary("sgn", None)
_unary("floor", None)
_unary("ceil", None)
_unary("trunc", None)
_unary("frac", None)
_unary("round", None)
_unary("square", None)
_unary("fix", None)
register(
    OpInfo(
        name="round.decimals",
        op=lambda T, x: T.round(x, decimals=2),
        method=lambda x: x.round(decimals=2),
        inplace=lambda x: x.round_(decimals=2),
        samples=lambda rng, dtype: [
            Sample(rng.standard_normal((3, 4)) * 10),
            Sample(rng.standard_normal(())),
        ],
        dtypes=("float32", "float64", "int64"),
    )
)
register(
    OpInfo(
        name="positive",
        op=lambda T, x: T.positive(x),
        samples=unary_samples,
        dtypes=("float32", "int64", "bool"),
        grad=False,
    )
)
register(
    OpInfo(
        name="neg.operator",
        op=lambda T, x: -x,
        samples=unary_samples,
        dtypes=("float32", "int64", "bool"),
        grad=False,
    )
)
register(
    OpInfo(
        name="abs.operator",
        op=lambda T, x: abs(x),
        samples=unary_samples,
        dtypes=("float32", "int64"),
        grad=False,
    )
)
register(
    OpInfo(
        name="bitwise_not",
        op=lambda T, x: T.bitwise_not(x),
        method=lambda x: x.bitwise_not(),
        inplace=lambda x: x.bitwise_not_(),
        samples=unary_samples,
        dtypes=("float32",) + ALL_INT,
        grad=False,
    )
)
register(
    OpInfo(
        name="invert.operator",
        op=lambda T, x: ~x,
        samples=unary_samples,
        dtypes=("int64", "bool", "uint8"),
        grad=False,
    )
)
register(
    OpInfo(
        name="logical_not",
        op=lambda T, x: T.logical_not(x),
        method=lambda x: x.logical_not(),
        inplace=lambda x: x.logical_not_(),
        samples=unary_samples,
        dtypes=("float32", "int64", "bool"),
        grad=False,
    )
)


# ---- predicates and nan_to_num ---------------------------------------------------------------------------
def special_values(rng, dtype):
    a = rng.standard_normal((3, 4))
    a.flat[[0, 3, 5, 7]] = [np.nan, np.inf, -np.inf, -0.0]
    return [
        Sample(a),
        Sample(np.array(np.inf)),
        Sample(rng.standard_normal((0,))),
        Sample(a.T.copy(), noncontig=True),
    ]


for _f in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"):
    register(
        OpInfo(
            name=_f,
            op=lambda T, x, _f=_f: getattr(T, _f)(x),
            method=lambda x, _f=_f: getattr(x, _f)(),
            samples=special_values,
            dtypes=("float32", "float64", "int64", "bool"),
            grad=False,
        )
    )

register(
    OpInfo(
        name="nan_to_num",
        op=lambda T, x, **kw: T.nan_to_num(x, **kw),
        method=lambda x, **kw: x.nan_to_num(**kw),
        inplace=lambda x, **kw: x.nan_to_num_(**kw),
        samples=lambda rng, dtype: (
            special_values(rng, dtype)
            + [
                Sample(
                    special_values(rng, dtype)[0].args[0],
                    kwargs={"nan": 1.5, "posinf": 9.0, "neginf": -9.0},
                )
            ]
        ),
        dtypes=("float32", "float64", "int64", "bool"),
        gradgrad=False,
    )
)


# ---- arithmetic ----------------------------------------------------------------------------------------------
def _binary(name, op, method=None, inplace=None, samples=binary_samples, dtypes=FLOATS_INTS, **kw):
    register(
        OpInfo(
            name=name, op=op, method=method, inplace=inplace, samples=samples, dtypes=dtypes, **kw
        )
    )


_binary(
    "add",
    lambda T, x, y, **kw: T.add(x, y, **kw),
    lambda x, y, **kw: x.add(y, **kw),
    lambda x, y, **kw: x.add_(y, **kw),
    samples=lambda rng, dtype: (
        binary_samples(rng, dtype)
        + [Sample(rng.standard_normal((2, 3)), rng.standard_normal((3,)), kwargs={"alpha": 2})]
        + (
            [Sample(rng.standard_normal((2, 3)), rng.standard_normal(()), kwargs={"alpha": 0.5})]
            if dtype.startswith("float")
            else []
        )
    ),
    errors=lambda T: [
        (lambda: T.ones(3, dtype=T.int64).add_(1.5), RuntimeError),
        (lambda: T.ones(3).add_(T.ones(2, 3)), RuntimeError),
        (lambda: T.ones(3) + T.ones(4), RuntimeError),
        (lambda: T.ones(2, 3) + T.ones(4, 1, 2), RuntimeError),
        (lambda: T.ones(3, dtype=T.int64).add(T.ones(3, dtype=T.int64), alpha=0.5), RuntimeError),
        (lambda: T.ones(3).add(T.ones(3), alpha=True), RuntimeError),
    ],
)
_binary(
    "sub",
    lambda T, x, y, **kw: T.sub(x, y, **kw),
    lambda x, y, **kw: x.sub(y, **kw),
    lambda x, y, **kw: x.sub_(y, **kw),
    samples=lambda rng, dtype: (
        binary_samples(rng, dtype)
        + [Sample(rng.standard_normal((2, 3)), rng.standard_normal((3,)), kwargs={"alpha": 2})]
    ),
    errors=lambda T: [
        (lambda: T.ones(3, dtype=T.bool) - T.ones(3, dtype=T.bool), RuntimeError),
        (lambda: T.ones(3) - T.ones(3, dtype=T.bool), RuntimeError),
        (lambda: T.ones(3, dtype=T.int32).sub_(T.ones(3)), RuntimeError),
    ],
)
_binary("rsub", lambda T, x, y, **kw: T.rsub(x, y, **kw), dtypes=("float32", "float64", "int64"))
_binary("mul", lambda T, x, y: T.mul(x, y), lambda x, y: x.mul(y), lambda x, y: x.mul_(y))
_binary(
    "div",
    lambda T, x, y: T.div(x, y),
    lambda x, y: x.div(y),
    lambda x, y: x.div_(y),
    domain=away_from_zero,
    errors=lambda T: [
        (lambda: T.ones(3, dtype=T.int64).div_(T.ones(3, dtype=T.int64)), RuntimeError),
        (lambda: T.ones(3).div(2, rounding_mode="round"), RuntimeError),
    ],
)
for _mode in ("trunc", "floor"):
    _binary(
        f"div.{_mode}",
        lambda T, x, y, _m=_mode: T.div(x, y, rounding_mode=_m),
        lambda x, y, _m=_mode: x.div(y, rounding_mode=_m),
        lambda x, y, _m=_mode: x.div_(y, rounding_mode=_m),
        domain=away_from_zero,
        dtypes=("float32", "float64", "int8", "int32", "int64", "uint8"),
        samples=lambda rng, dtype: binary_samples(rng, dtype, scalars=(1.5, -2, 3)),
        gradgrad=False,
    )
_binary(
    "true_divide",
    lambda T, x, y: T.true_divide(x, y),
    lambda x, y: x.true_divide(y),
    domain=away_from_zero,
)
_binary(
    "floor_divide",
    lambda T, x, y: T.floor_divide(x, y),
    lambda x, y: x.floor_divide(y),
    lambda x, y: x.floor_divide_(y),
    domain=away_from_zero,
    dtypes=("float32", "float64", "int32", "int64", "uint8"),
    errors=lambda T: [
        (lambda: T.tensor([1, 2]) // 0, RuntimeError),
        (lambda: T.tensor([1, 2]) % 0, RuntimeError),
    ],
    xfail={"gradcheck": "floor_divide has no derivative"},
)
for _f in ("remainder", "fmod"):
    _binary(
        _f,
        lambda T, x, y, _f=_f: getattr(T, _f)(x, y),
        lambda x, y, _f=_f: getattr(x, _f)(y),
        lambda x, y, _f=_f: getattr(x, _f + "_")(y),
        domain=away_from_zero,
        dtypes=("float32", "float64", "int8", "int32", "int64", "uint8"),
        samples=lambda rng, dtype: binary_samples(rng, dtype, scalars=(1.5, -2, 3)),
    )


def pow_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4)), n((3, 4))),
        Sample(n((2, 3)), n((3,))),
        Sample(n(()), n((2, 3))),
        Sample(n((4, 3)), n((4, 3)), noncontig=True),
        Sample(n((0, 3)), n((3,))),
    ]


_binary(
    "pow",
    lambda T, x, y: T.pow(x, y),
    lambda x, y: x.pow(y),
    lambda x, y: x.pow_(y),
    samples=pow_samples,
    domain=lambda a: np.abs(a) + 0.5,
    errors=lambda T: [
        (lambda: T.tensor([2, 3]) ** -1, RuntimeError),
        (lambda: T.tensor([2, 3]).pow_(-2), RuntimeError),
    ],
)
_binary(
    "pow.scalar_exponent",
    lambda T, x, e: T.pow(x, e),
    lambda x, e: x.pow(e),
    lambda x, e: x.pow_(e),
    samples=lambda rng, dtype: (
        [Sample(rng.standard_normal((3, 4)), e) for e in (2, 3, 0.5, -1.5, 0, 1, -2)]
        + [
            Sample(rng.standard_normal(()), 2),
            Sample(rng.standard_normal((4, 3)), 2.5, noncontig=True),
        ]
    ),
    domain=lambda a: np.abs(a) + 0.5,
)
_binary(
    "pow.scalar_base",
    lambda T, x, b: T.pow(b, x),
    samples=lambda rng, dtype: (
        [Sample(rng.standard_normal((3, 4)), b) for b in (2, 0.5, 3.0)]
        + [Sample(rng.standard_normal(()), 2)]
    ),
)
_binary(
    "float_power",
    lambda T, x, y: T.float_power(x, y),
    lambda x, y: x.float_power(y),
    samples=lambda rng, dtype: (
        pow_samples(rng, dtype)[:3] + [Sample(rng.standard_normal((2, 3)), 2)]
    ),
    domain=lambda a: np.abs(a) + 0.5,
    dtypes=("float32", "float64", "int64"),
)

# Reflected operators and Python-scalar left operands.
for _name, _fn in {
    "radd": lambda T, x: 2 + x,
    "rsub.operator": lambda T, x: 2 - x,
    "rmul": lambda T, x: 2 * x,
    "rtruediv": lambda T, x: 2 / x,
    "rpow": lambda T, x: 2**x,
    "rpow.float": lambda T, x: 1.5**x,
    "floordiv": lambda T, x: x // 2,
    "rfloordiv": lambda T, x: 2 // x,
    "mod": lambda T, x: x % 2,
    "rmod": lambda T, x: 2 % x,
    "sub.operator": lambda T, x: x - 2.5,
    "truediv.operator": lambda T, x: x / 2,
    "pow.operator": lambda T, x: x**2,
}.items():
    _binary(
        _name,
        _fn,
        samples=unary_samples,
        domain=away_from_zero,
        dtypes=("float32", "float64", "int64") if _name != "rpow" else ("float32", "float64"),
        gradgrad=_name not in ("floordiv", "rfloordiv"),
        # PyTorch has no derivative for floor_divide nor for remainder(number, tensor): backward
        # raises in both libraries (test_grad compares the errors).
        xfail={"gradcheck": f"{_name} has no derivative"}
        if _name in ("floordiv", "rfloordiv", "rmod")
        else {},
    )

_binary(
    "atan2",
    lambda T, x, y: T.atan2(x, y),
    lambda x, y: x.atan2(y),
    lambda x, y: x.atan2_(y),
    dtypes=("float32", "float64", "int64"),
    samples=lambda r, d: binary_samples(r, d, scalars=()),
)
_binary(
    "hypot",
    lambda T, x, y: T.hypot(x, y),
    lambda x, y: x.hypot(y),
    lambda x, y: x.hypot_(y),
    dtypes=FLOATS,
    samples=lambda r, d: binary_samples(r, d, scalars=()),
)
for _f in ("maximum", "minimum", "fmax", "fmin"):
    _binary(
        _f,
        lambda T, x, y, _f=_f: getattr(T, _f)(x, y),
        lambda x, y, _f=_f: getattr(x, _f)(y),
        samples=lambda r, d: binary_samples(r, d, scalars=()),
        dtypes=("float32", "float64", "int64", "bool"),
    )
_binary(
    "copysign",
    lambda T, x, y: T.copysign(x, y),
    lambda x, y: x.copysign(y),
    lambda x, y: x.copysign_(y),
    dtypes=("float32", "float64", "int64"),
)
_binary(
    "xlogy",
    lambda T, x, y: T.xlogy(x, y),
    lambda x, y: x.xlogy(y),
    lambda x, y: x.xlogy_(y),
    domain=positive,
    dtypes=("float32", "float64", "int64"),
)
_binary(
    "logaddexp",
    lambda T, x, y: T.logaddexp(x, y),
    lambda x, y: x.logaddexp(y),
    samples=lambda r, d: binary_samples(r, d, scalars=()),
)
register(
    OpInfo(
        name="logit",
        op=lambda T, x, *a: T.logit(x, *a),
        method=lambda x, *a: x.logit(*a),
        inplace=lambda x, *a: x.logit_(*a),
        samples=lambda rng, dtype: [
            Sample(rng.uniform(0.05, 0.95, (3, 4))),
            Sample(rng.uniform(0.05, 0.95, ())),
            Sample(rng.uniform(0, 1, (3, 4)), 0.1),
        ],
        dtypes=FLOATS,
    )
)

# ---- comparisons, logical and bitwise ------------------------------------------------------------------
for _f, _sym in {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}.items():
    _binary(
        _f,
        lambda T, x, y, _f=_f: getattr(T, _f)(x, y),
        lambda x, y, _f=_f: getattr(x, _f)(y),
        lambda x, y, _f=_f: getattr(x, _f + "_")(y),
        grad=False,
    )
    _binary(
        f"{_f}.operator",
        eval(f"lambda T, x, y: x {_sym} y"),
        grad=False,
        dtypes=("float32", "int64"),
    )
for _f in ("logical_and", "logical_or", "logical_xor"):
    _binary(
        _f,
        lambda T, x, y, _f=_f: getattr(T, _f)(x, y),
        lambda x, y, _f=_f: getattr(x, _f)(y),
        lambda x, y, _f=_f: getattr(x, _f + "_")(y),
        samples=lambda r, d: binary_samples(r, d, scalars=()),
        grad=False,
    )
for _f, _sym in {
    "bitwise_and": "&",
    "bitwise_or": "|",
    "bitwise_xor": "^",
    "bitwise_left_shift": "<<",
    "bitwise_right_shift": ">>",
}.items():
    _binary(
        _f,
        lambda T, x, y, _f=_f: getattr(T, _f)(x, y),
        lambda x, y, _f=_f: getattr(x, _f)(y),
        lambda x, y, _f=_f: getattr(x, _f + "_")(y),
        samples=lambda r, d: (
            binary_samples(r, d, scalars=(3,))
            if d != "bool"
            else binary_samples(r, d, scalars=(True,))
        ),
        dtypes=("float32",) + (ALL_INT if "shift" not in _f else ("uint8", "int32", "int64")),
        domain=(lambda a: np.abs(a)) if "shift" in _f else None,
        grad=False,
    )
    _binary(
        f"{_f}.operator",
        eval(f"lambda T, x, y: x {_sym} y"),
        grad=False,
        dtypes=("int64", "bool") if "shift" not in _f else ("int64",),
        domain=(lambda a: np.abs(a)) if "shift" in _f else None,
    )
