"""opdb entries for selection and fused elementwise ops (clamp/where/masked_fill in
taimatsu/ops/pointwise/select.py, lerp/addcmul/addcdiv in ops/pointwise/fused.py), type promotion
across the pointwise ops, and the complex-dtype tables, which extend entries of opdb_pointwise.py
(imported here, so it loads first).
"""

from __future__ import annotations

import numpy as np
from opdb import COMPLEX_DTYPES, REGISTRY, OpInfo, Sample, Typed, register
from opdb_pointwise import FLOATS, away_from_zero, ternary_samples


# ---- clamp, where, masked_fill, lerp, addcmul, addcdiv ---------------------------------------------------
def clamp_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4)), -0.5, 0.5),
        Sample(n((3, 4)), -0.5, None),
        Sample(n((3, 4)), None, 0.5),
        Sample(n(()), -0.5, 0.5),
        Sample(n((0, 3)), -0.5, 0.5),
        Sample(n((4, 3)), 0, 1, noncontig=True),
        Sample(n((3, 4)), 1.0, -1.0),  # min > max: everything is max
    ]


def clamp_tensor_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4)), n((3, 4)) - 0.5, n((3, 4)) + 0.5),
        Sample(n((3, 4)), n((4,)) - 1, None),
        Sample(n((3, 4)), None, n((3, 1))),
        Sample(n((2, 3)), n(()) - 1, n((3,)) + 1),
    ]


for _f in ("clamp", "clip"):
    for _suffix, _samples in (("", clamp_samples), (".tensor", clamp_tensor_samples)):
        register(
            OpInfo(
                name=_f + _suffix,
                op=lambda T, x, lo, hi, _f=_f: getattr(T, _f)(x, lo, hi),
                method=lambda x, lo, hi, _f=_f: getattr(x, _f)(lo, hi),
                inplace=lambda x, lo, hi, _f=_f: getattr(x, _f + "_")(lo, hi),
                samples=_samples,
                dtypes=("float32", "float64", "int64") if _suffix == "" else FLOATS,
                errors=lambda T: [(lambda: T.clamp(T.ones(3)), RuntimeError)],
            )
        )
register(
    OpInfo(
        name="clamp_min",
        op=lambda T, x, m: T.clamp_min(x, m),
        method=lambda x, m: x.clamp_min(m),
        inplace=lambda x, m: x.clamp_min_(m),
        samples=lambda rng, dtype: [
            Sample(rng.standard_normal((3, 4)), 0.1),
            Sample(rng.standard_normal((3, 4)), rng.standard_normal((4,))),
        ],
        dtypes=("float32", "float64", "int64"),
    )
)
register(
    OpInfo(
        name="clamp_max",
        op=lambda T, x, m: T.clamp_max(x, m),
        method=lambda x, m: x.clamp_max(m),
        inplace=lambda x, m: x.clamp_max_(m),
        samples=lambda rng, dtype: [
            Sample(rng.standard_normal((3, 4)), 0.1),
            Sample(rng.standard_normal((3, 4)), rng.standard_normal((4,))),
        ],
        dtypes=("float32", "float64", "int64"),
    )
)


def where_samples(rng, dtype):
    n = rng.standard_normal

    def mask(shape):
        return Typed(n(shape) > 0, "bool")

    return [
        Sample(mask((3, 4)), n((3, 4)), n((3, 4))),
        Sample(mask((3, 1)), n((4,)), n((3, 4))),
        Sample(mask((3, 4)), n((3, 4)), 0.5),
        Sample(mask((3, 4)), 2, n((3, 4))),
        Sample(mask(()), n(()), n((2,))),
        Sample(mask((0, 2)), n((0, 2)), n((2,))),
        Sample(mask((4, 3)), n((4, 3)), n((4, 3)), noncontig=True),
    ]


register(
    OpInfo(
        name="where",
        op=lambda T, c, x, y: T.where(c, x, y),
        samples=where_samples,
        dtypes=("float32", "float64", "int64", "bool"),
        errors=lambda T: [
            (lambda: T.where(T.ones(3), T.ones(3), T.zeros(3)), RuntimeError),
            (lambda: T.where(T.ones(3, dtype=T.bool), T.ones(2), T.zeros(3)), RuntimeError),
        ],
    )
)
register(
    OpInfo(
        name="where.method",
        op=lambda T, c, x, y: x.where(c, y),
        samples=lambda rng, dtype: where_samples(rng, dtype)[:3],
        dtypes=("float32", "int64"),
    )
)


def masked_fill_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4)), Typed(n((3, 4)) > 0, "bool"), 2.5),
        Sample(n((3, 4)), Typed(n((4,)) > 0, "bool"), -1),
        Sample(n(()), Typed(np.array(True), "bool"), 3.0),
        Sample(n((3, 4)), Typed(n((3, 4)) > 0, "bool"), Typed(np.array(1.5), "float64")),
        Sample(n((4, 3)), Typed(n((4, 3)) > 0, "bool"), 0.0, noncontig=True),
    ]


register(
    OpInfo(
        name="masked_fill",
        op=lambda T, x, m, v: T.masked_fill(x, m, v),
        method=lambda x, m, v: x.masked_fill(m, v),
        inplace=lambda x, m, v: x.masked_fill_(m, v),
        samples=masked_fill_samples,
        dtypes=("float32", "float64", "int64", "bool"),
        errors=lambda T: [
            (lambda: T.ones(3).masked_fill(T.ones(3), 0), RuntimeError),
            (lambda: T.ones(3).masked_fill(T.ones(3, dtype=T.bool), T.ones(2)), RuntimeError),
            (lambda: T.ones(3).masked_fill_(T.ones(2, 3, dtype=T.bool), 0), RuntimeError),
        ],
    )
)


def lerp_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4)), n((3, 4)), 0.3),
        Sample(n((3, 4)), n((4,)), 0.7),
        Sample(n((3, 4)), n((3, 4)), n((3, 4))),
        Sample(n((2, 3)), n((3,)), n((2, 1))),
        Sample(n(()), n(()), 0.5),
        Sample(n((4, 3)), n((4, 3)), n((4, 3)), noncontig=True),
    ]


register(
    OpInfo(
        name="lerp",
        op=lambda T, x, e, w: T.lerp(x, e, w),
        method=lambda x, e, w: x.lerp(e, w),
        inplace=lambda x, e, w: x.lerp_(e, w),
        samples=lerp_samples,
        dtypes=FLOATS,
    )
)
for _f in ("addcmul", "addcdiv"):
    register(
        OpInfo(
            name=_f,
            op=lambda T, x, a, b, _f=_f, **kw: getattr(T, _f)(x, a, b, **kw),
            method=lambda x, a, b, _f=_f, **kw: getattr(x, _f)(a, b, **kw),
            inplace=lambda x, a, b, _f=_f, **kw: getattr(x, _f + "_")(a, b, **kw),
            samples=lambda rng, dtype: (
                ternary_samples(rng, dtype)
                + [
                    Sample(
                        rng.standard_normal((2, 3)),
                        rng.standard_normal((2, 3)),
                        rng.standard_normal((3,)),
                        kwargs={"value": 0.5},
                    )
                ]
            ),
            domain=away_from_zero,
            dtypes=FLOATS + ("int64",),
        )
    )


# ---- type promotion ---------------------------------------------------------------------------------------
def promotion_samples(rng, dtype):
    n = rng.standard_normal
    ints = np.array([[1, -2, 3], [4, 5, -6]])
    return [
        Sample(Typed(ints, "int64"), 1.5),  # int tensor + float scalar -> default float
        Sample(Typed(ints, "int32"), 2),  # int scalar does not widen
        Sample(
            Typed(n((2, 3)), "float32"), Typed(n(()), "float64")
        ),  # 0-d never wins within a category
        Sample(Typed(n((2, 3)), "float32"), Typed(n((3,)), "float64")),
        Sample(Typed(np.abs(ints), "uint8"), Typed(ints, "int8")),  # -> int16
        Sample(Typed(ints > 0, "bool"), Typed(ints, "int64")),
        Sample(Typed(ints > 0, "bool"), 2.5),
        Sample(Typed(ints, "int64"), Typed(n(()), "float32")),  # a 0-d float beats dimensioned ints
        Sample(Typed(ints, "int16"), Typed(np.array(7), "int64")),  # 0-d int64 does not widen int16
        Sample(Typed(ints, "uint8"), -1),  # wraps within uint8
        Sample(Typed(n((2, 3)), "float16"), Typed(n((2, 3)), "float32")),
    ]


for _f in ("add", "sub", "mul", "div", "maximum", "eq", "lt", "pow", "remainder", "atan2"):
    register(
        OpInfo(
            name=f"{_f}.promotion",
            op=lambda T, x, y, _f=_f: getattr(T, _f)(x, y),
            inplace=(lambda x, y, _f=_f: getattr(x, _f + "_")(y))
            if _f not in ("maximum",)
            else None,
            samples=(
                lambda r, d: [
                    s
                    for s in promotion_samples(r, d)
                    if not isinstance(s.args[1], (int, float)) or True
                ]
            )
            if _f not in ("sub", "pow", "remainder", "atan2", "maximum")
            else (
                lambda r, d: [
                    s
                    for s in promotion_samples(r, d)
                    if "bool"
                    not in (getattr(s.args[0], "dtype", ""), getattr(s.args[1], "dtype", ""))
                    and not isinstance(s.args[1], (int, float))
                ]
            ),
            dtypes=("float32",),
            gradgrad=False,
            grad_fn=_f not in ("pow",),
            # Random bases are negative half the time: pow's exponent gradient is nan there, so the
            # finite differences are meaningless (PyTorch's own gradcheck would fail the same way).
            xfail={"gradcheck": "pow of negative bases"} if _f == "pow" else {},
            # Mixed-precision samples (float16 operands among them): these entries check the
            # promoted dtypes; values agree to float16 precision.
            rtol=1e-3,
            atol=1e-3,
        )
    )


# ---- complex dtypes ----------------------------------------------------------------------------------------
# Ops PyTorch computes on complex inputs: values, dtypes and (in complex128) Wirtinger gradients.
COMPLEX_OK = """
exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh
reciprocal sigmoid neg abs sgn square positive neg.operator abs.operator logical_not isnan isinf isfinite
nan_to_num add sub rsub mul div true_divide pow pow.scalar_exponent pow.scalar_base float_power radd
rsub.operator rmul rtruediv rpow rpow.float sub.operator truediv.operator pow.operator logaddexp eq eq.operator
ne ne.operator logical_and logical_or logical_xor where where.method masked_fill lerp addcmul addcdiv
""".split()
# Ops PyTorch refuses on complex inputs: the forward check compares the error type and message.
COMPLEX_REFUSED = """
erf erfc erfinv lgamma digamma relu sign floor ceil trunc frac round fix round.decimals bitwise_not
invert.operator isposinf isneginf signbit div.trunc div.floor floor_divide remainder fmod floordiv rfloordiv mod
rmod atan2 hypot maximum minimum fmax fmin copysign xlogy logit lt lt.operator le le.operator gt gt.operator ge
ge.operator bitwise_and bitwise_and.operator bitwise_or bitwise_or.operator bitwise_xor bitwise_xor.operator
bitwise_left_shift bitwise_left_shift.operator bitwise_right_shift bitwise_right_shift.operator clamp
clamp.tensor clip clip.tensor clamp_min clamp_max
""".split()
for _name in COMPLEX_OK:
    REGISTRY[_name].dtypes = tuple(REGISTRY[_name].dtypes) + COMPLEX_DTYPES
# PyTorch's nan_to_num gradient is g * isfinite(x): 0 for a complex element with one non-finite
# part, where finite differences of the other (finite) part see 1. The grad check agrees with
# PyTorch; gradcheck cannot.
REGISTRY["nan_to_num"].xfail = {
    **REGISTRY["nan_to_num"].xfail,
    "gradcheck-complex128": "PyTorch's g * isfinite(x)",
}
for _name in COMPLEX_REFUSED:
    REGISTRY[_name].dtypes = tuple(REGISTRY[_name].dtypes) + ("complex64",)
