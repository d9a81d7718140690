"""backend/bit_select.where_bits: np.where's bits (NaN payloads, signed zeros, infinities) by
masks, for arrays and numbers, into a fresh array or over either operand."""

import numpy as np
import pytest

from taimatsu.backend.bit_select import where_bits


def _specials(dtype, shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    flat[:6] = [-0.0, 0.0, np.nan, -np.inf, np.inf, -3.5]
    if flat.dtype.itemsize == 4:  # a NaN with a payload, and a negative one
        flat[6:8] = np.array([0x7FC12345, 0xFFC00001], np.uint32).view(np.float32)
    return a


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("b_kind", ["array", "number", "negative zero"])
@pytest.mark.parametrize("into", [None, "a", "b"])
def test_where_bits_is_np_where(dtype, b_kind, into):
    a = _specials(dtype, (33, 17), 0)
    cond = np.random.default_rng(2).random(a.shape) < 0.5
    b = {"array": _specials(dtype, a.shape, 1), "number": 0.25, "negative zero": -0.0}[b_kind]
    if into == "b" and b_kind != "array":
        pytest.skip("a number is not an output")
    want = np.where(cond, a, np.asarray(b, dtype))
    a_in = a.copy()
    b_in = b.copy() if b_kind == "array" else b
    out = {None: None, "a": a_in, "b": b_in}[into]
    got = where_bits(cond, a_in, b_in, out=out)
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize]
    np.testing.assert_array_equal(got.view(u), want.view(u))
    if out is not None:
        np.testing.assert_array_equal(out.view(u), want.view(u))


def test_where_bits_of_zero_dimensional_arrays():
    a, b = np.array(-0.0, np.float32), np.array(np.nan, np.float32)
    for cond in (a > 0, a <= 0):  # NumPy bools, not arrays
        want = np.where(cond, a, b)
        np.testing.assert_array_equal(where_bits(cond, a, b).view(np.uint32), want.view(np.uint32))
