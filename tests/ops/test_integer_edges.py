"""Integer extremes and exponents past a float type's range, against PyTorch.

gcd runs Euclid's algorithm in the integer type, where |min| stays negative (gcd(-128, 127) of
int8 is -1); copysign makes an integer a float before taking |x| (|-128| is 128); ldexp of a
float by integers is C's ldexp (exact), otherwise ``x * pow(2, e)`` with the power in e's float
type (0 * 2**128 is NaN in float32).
"""

import itertools

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _grid(dtype):
    info = np.iinfo(dtype)
    base = [
        int(info.min),
        int(info.min) + 1,
        -7,
        -1,
        0,
        1,
        3,
        6,
        12,
        7,
        int(info.max) - 1,
        int(info.max),
    ]
    base = sorted({v for v in base if info.min <= v <= info.max})
    pairs = list(itertools.product(base, base))
    return [a for a, _ in pairs], [b for _, b in pairs]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8"])
@pytest.mark.parametrize("op", ["gcd", "copysign"])
def test_integer_extremes(op, dtype):
    x, y = _grid(dtype)
    mine, theirs = (
        getattr(T, op)(T.tensor(x, dtype=getattr(T, dtype)), T.tensor(y, dtype=getattr(T, dtype)))
        for T in (tm, torch)
    )
    assert str(mine.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


XS = [0.0, 1e-30, -3.5, 1.0, 3.0, 65504.0, 3e38, float("inf"), float("nan")]
ES = [0, 1, -1, 127, 128, 200, -126, -149, -150, -200, 254, -1074, -1075, 1024]


@pytest.mark.parametrize(
    ("xd", "ed"),
    [("float32", "int32"), ("float64", "int64"), ("float16", "int8"), ("bfloat16", "int16"),
     ("int8", "int8"), ("uint8", "uint8"), ("int32", "int32"), ("float32", "float32"),
     ("float64", "float32"), ("float32", "float64"), ("int64", "float32"), ("bool", "int64"),
     ("float16", "float32")],
)  # fmt: skip
def test_ldexp_past_the_range(xd, ed):
    x = [v for v, _ in itertools.product(XS, ES)]
    e = [v for _, v in itertools.product(XS, ES)]
    if xd in ("int8", "uint8", "int32", "int64"):
        x = [int(v) % 100 if abs(v) < 1e6 else 3 for v in x]  # (NaN fails the test too)
    if xd == "bool":
        x = [bool(i % 2) for i in range(len(x))]
    if ed == "int8":
        e = [max(min(v, 127), -128) for v in e]
    if ed == "uint8":
        e = [v % 256 for v in e]
    mine, theirs = (
        T.ldexp(T.tensor(x, dtype=getattr(T, xd)), T.tensor(e, dtype=getattr(T, ed)))
        for T in (tm, torch)
    )
    assert str(mine.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(mine.double().numpy(), theirs.double().numpy())


def test_ldexp_of_a_float_by_booleans_is_refused():
    with pytest.raises(NotImplementedError, match="ldexp_cpu_exp"):
        tm.ldexp(tm.ones(2), tm.tensor([True, False]))
    with pytest.raises(NotImplementedError, match="ldexp_cpu_exp"):
        torch.ldexp(torch.ones(2), torch.tensor([True, False]))
