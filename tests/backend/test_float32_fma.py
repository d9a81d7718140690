"""``float32_math.primitives.fma``: float32 ``a * b + c`` as the float64 sum rounded once, on
every path (small arrays, large arrays in chunks, broadcasting, float64 arrays holding float32
values), bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from taimatsu.backend._rng_math import _fma32_exact
from taimatsu.backend.float32_math import primitives as P


def _reference(a, b, c):
    """The definition: the exact float64 product, plus ``c`` in float64, rounded to float32."""
    f64 = np.float64
    return (np.multiply(np.asarray(a, f64), np.asarray(b, f64)) + np.asarray(c, f64)).astype(
        np.float32
    )


def _values(rng, *shape):
    """float32 values over a wide range of magnitudes (so the float64 sums are often inexact)."""
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-40, 40, shape))
    return x.astype(np.float32)


def _same_bits(x, y):
    assert x.dtype == np.float32 and x.shape == y.shape
    assert np.array_equal(x.view(np.uint32), y.view(np.uint32))


@pytest.mark.parametrize("n", [1, 5, 1000, 4 * P.CHUNK + 1, 9 * P.CHUNK + 123])
def test_fma_matches_the_float64_sum_rounded_once(n):
    rng = np.random.default_rng(n)
    a, b, c = _values(rng, n), _values(rng, n), _values(rng, n)
    k = np.float32(-0.0123)
    for args in [
        (a, b, k),  # Horner steps: array, array, constant
        (a, k, c),  # axpy: array, constant, array
        (a, b, c),
        (k, b, c),  # the larger operand second
        (a.astype(np.float64), b, k),  # float64 arrays holding float32 values
        (a, b.astype(np.float64), c.astype(np.float64)),
        (a, b, 0.5),  # a Python float
        (a[::2], b[::2], c[::2]),  # non-contiguous
    ]:
        _same_bits(P.fma(*args), _reference(*args))


def test_fma_broadcasts_and_keeps_shapes():
    rng = np.random.default_rng(0)
    cases = [
        (_values(rng, 3, 1), _values(rng, 1, 4), np.float32(1.5)),
        (_values(rng, 300, 400), _values(rng, 400), _values(rng, 300, 1)),
        (_values(rng, 70000, 2), _values(rng, 1, 2), np.float32(3)),  # large, b broadcast
        (_values(rng, 1000, 300), np.float32(2), [1.0] * 300),  # c a list
        (np.float32(2), np.float32(3), np.float32(4)),  # 0-d
        (_values(rng, 0), _values(rng, 0), np.float32(1)),  # empty
    ]
    for a, b, c in cases:
        got = P.fma(a, b, c)
        _same_bits(got, _reference(a, b, c))


def test_fma_large_input_is_not_modified_and_out_is_fresh():
    rng = np.random.default_rng(1)
    a, b = _values(rng, 5 * P.CHUNK), _values(rng, 5 * P.CHUNK)
    a0, b0 = a.copy(), b.copy()
    out = P.fma(a, b, np.float32(1))
    assert np.array_equal(a, a0) and np.array_equal(b, b0)
    assert not np.shares_memory(out, a) and not np.shares_memory(out, b)


def test_fma_special_values():
    a = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 3e38, 1e-45], np.float32)
    b = np.array([1.0, 0.0, 2.0, -1.0, 5.0, 10.0, 0.5], np.float32)
    c = np.array([-np.inf, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], np.float32)
    with np.errstate(all="ignore"):
        got, want = P.fma(a, b, c), _reference(a, b, c)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    keep = ~np.isnan(want)
    _same_bits(got[keep], want[keep])


# A float32 FMA rounds once; the float64 sum rounded to float32 rounds twice, and differs when
# the float64 sum lands exactly on a float32 halfway point it did not hold exactly (about one
# element in 2**29 of random data). Here: a + c*b = 1 + 2**-23 + 2**-24 - 2**-70, which float64
# rounds to the halfway point 1 + 2**-23 + 2**-24, and float32 then to even (1 + 2**-22).
# PyTorch's vectorized kernel (a true FMA) gives 1 + 2**-23. ``fma(once=True)`` settles those
# points (the Tensor ops' and the optimizers' FMAs, the random back end's: see
# tests/ops/test_fused_multiply_add.py); the SLEEF replays' FMAs do not (detecting the halfway
# points costs a third more time on every call), which this strict xfail records.
@pytest.mark.xfail(strict=True, reason="double rounding at float32 halfway points (rare)")
def test_fma_double_rounding_case():
    a = np.array([1 + 2.0**-23], np.float32)
    c = np.float32(1 + 2.0**-23)
    b = np.array([(2.0**24 - 2) * 2.0**-48], np.float32)
    assert P.fma(b, c, a, once=True).view(np.uint32)[0] == np.float32(1 + 2.0**-23).view(np.uint32)
    assert P.fma(b, c, a).view(np.uint32)[0] == np.float32(1 + 2.0**-23).view(np.uint32)


# ---- axpy_: y + alpha * x rounded once through BLAS saxpy -----------------------------------------
def _fused(x, y, n, alpha):
    """A saxpy that rounds once (the exact emulation of the random back end's Box-Muller)."""
    y[...] = _fma32_exact(x, np.float32(alpha), y)
    return y


def test_fuses_accepts_only_one_rounding_at_every_position():
    def float64_sum(x, y, n, alpha):
        y[...] = (np.multiply(x, alpha, dtype=np.float64) + y).astype(np.float32)
        return y

    def product_first(x, y, n, alpha):
        y += np.float32(alpha) * x
        return y

    def tail_dropped(x, y, n, alpha):  # fused, but the last element of odd lengths left alone
        m = n - n % 2
        _fused(x[:m], y[:m], m, alpha)
        return y

    def on_a_copy(x, y, n, alpha):
        return _fused(x, y.copy(), n, alpha)

    def peeled(x, y, n, alpha):  # fused, but a first element off a 16-byte boundary rounded twice
        first = y[:1].copy()
        _fused(x, y, n, alpha)
        if y.ctypes.data % 16:
            y[:1] = float64_sum(x[:1], first, 1, alpha)
        return y

    assert P.fuses(_fused)
    for fake in (float64_sum, product_first, tail_dropped, on_a_copy, peeled, _fused_in_32s):
        assert not P.fuses(fake), fake.__name__
    # a kernel fusing only its unrolled loop (OpenBLAS's AVX2 saxpy): fine for lengths that
    # are multiples of its block
    assert P.fuses(_fused_in_32s, 32) and not P.fuses(_fused_in_32s, 16)
    assert not P.fuses(product_first, 32)


def _fused_in_32s(x, y, n, alpha):
    """Fused in blocks of 32, the rest rounded twice (the product first)."""
    m = n - n % 32
    _fused(x[:m], y[:m], m, alpha)
    y[m:n] += np.float32(alpha) * x[m:n]
    return y


def _blas_fuses():
    if P._fusing_saxpy()[0] is False:
        pytest.skip(
            "no BLAS saxpy that rounds once on this machine (the float64 emulation is used)"
        )


@pytest.mark.parametrize("n", [1, 13, 300, P.AXPY_PIECE, P.AXPY_PIECE + 5, 5 * P.AXPY_PIECE + 77])
def test_axpy_rounds_once_as_pytorch(n):
    _blas_fuses()
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(n)
    y, x = _values(rng, n), _values(rng, n)
    y[::7], x[::7] = np.float32(1 + 2.0**-23), np.float32((2.0**24 - 2) * 2.0**-48)  # the tie case
    for alpha in (np.float32(1 + 2.0**-23), np.float32(-0.01), np.float32(3e5)):
        want = torch.from_numpy(y).add(torch.from_numpy(x), alpha=float(alpha)).numpy()
        got = y.copy()
        assert P.axpy_(got, alpha, x)
        _same_bits(got, want)
        _same_bits(got, _fma32_exact(x, alpha, y))


@pytest.mark.parametrize("n", [5, 31, 32, 33, 300, P.AXPY_PIECE + 5, 3 * P.AXPY_PIECE + 77])
def test_axpy_emulates_the_tail_a_kernel_does_not_fuse(monkeypatch, n):
    torch = pytest.importorskip("torch")
    monkeypatch.setitem(P._saxpy, "fn", _fused_in_32s)
    monkeypatch.setitem(P._saxpy, "block", 32)
    rng = np.random.default_rng(n)
    y, x = _values(rng, n), _values(rng, n)
    y[-5:], x[-5:] = np.float32(1 + 2.0**-23), np.float32((2.0**24 - 2) * 2.0**-48)  # the tie
    alpha = np.float32(1 + 2.0**-23)
    want = torch.from_numpy(y).add(torch.from_numpy(x), alpha=float(alpha)).numpy()
    got = y.copy()
    assert P.axpy_(got, alpha, x)
    _same_bits(got, want)


def test_axpy_leaves_alpha_zero_and_copies_back():
    _blas_fuses()
    y, x = np.ones(10, np.float32), np.full(10, np.inf, np.float32)
    assert not P.axpy_(y, 0.0, x) and (y == 1).all()  # BLAS would skip PyTorch's 0 * inf
    z = np.ones(20, np.float32)
    y = z[::2]  # not contiguous: f2py works on a copy, axpy_ writes it back
    assert P.axpy_(y, np.float32(2), np.ones(10, np.float32))
    assert (z[::2] == 3).all() and (z[1::2] == 1).all()
