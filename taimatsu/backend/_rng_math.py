"""Float kernels PyTorch's CPU random samplers run, reproduced bit for bit in NumPy: an exact
fused multiply-add (float32 and float64) and the AVX2 Box-Muller of ``normal_`` (avx_mathfun's
polynomial log and sincos). Used by ``random.py`` (see its docstring for why they are needed).
"""

from __future__ import annotations

import math

import numpy as np

from . import libm
from .float32_math.primitives import fma

_U64 = np.uint64


# ------------------------------------------------------------------------------ exact FMA
# NumPy has no fused multiply-add; PyTorch's compiled kernels use one. Both emulations below are
# correctly rounded (checked against exact rational arithmetic in the tests).

_TIE32 = _U64(1 << 28)  # low 29 bits of a float64 lying exactly halfway between two floats
_LOW29 = _U64((1 << 29) - 1)


def _round_odd_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b rounded to odd: exact, or else the neighbour with an odd last bit. Rounding that to a
    narrower format gives the correctly rounded sum (Boldo & Melquiond)."""
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)  # TwoSum: a + b == s + err exactly
    bits = s.view(np.int64)
    inexact_even = (err != 0) & ((bits & 1) == 0)
    if inexact_even.any():
        away = (err > 0) == (s > 0)  # the exact sum lies further from zero than s
        s = (bits + np.where(inexact_even, np.where(away, 1, -1), 0)).view(np.float64)
    return s


def _fma32_exact(a, b, c) -> np.ndarray:
    """fmaf(a, b, c) on float32 values: the product is exact in float64 (24 + 24 bits)."""
    p = np.multiply(a, b, dtype=np.float64)
    return _round_odd_sum(p, np.broadcast_to(np.asarray(c, np.float64), p.shape)).astype(np.float32)


def _fma32_flagged(a, b, c, suspect: np.ndarray) -> np.ndarray:
    """fmaf(a, b, c), fast: one rounding in float64, one to float32. That double rounding can only
    err when the float64 sum lands exactly halfway between two floats; such lanes are marked in
    `suspect` for an exact recomputation."""
    s = np.multiply(a, b, dtype=np.float64)
    s += c
    suspect |= (s.view(np.uint64) & _LOW29) == _TIE32
    return s.astype(np.float32)


def _fma32(a, b, c) -> np.ndarray:
    """fmaf(a, b, c) on arrays: one rounding in float64, one to float32, and the lanes where
    that double rounding errs (a float64 sum exactly halfway between two floats) settled
    exactly: ``float32_math.primitives.fma(once=True)``, as the Tensor ops' FMAs."""
    return fma(a, b, c, once=True)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = a * 134217729.0  # 2**27 + 1: Veltkamp's split into two 26-bit halves
    hi = t - (t - a)
    return hi, a - hi


def _fma64(a, b, c) -> np.ndarray:
    """fma(a, b, c) on float64: exact product (Dekker), exact sum, and the low parts added with
    rounding to odd (Boldo & Melquiond 2008). Lanes that could overflow or underflow inside the
    emulation fall back to a * b + c."""
    a, b, c = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, c)))
    p = a * b
    (ah, al), (bh, bl) = _split(a), _split(b)
    p_err = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # a * b == p + p_err exactly
    hi = c + p
    bb = hi - c
    lo = (c - (hi - bb)) + (p - bb)  # c + p == hi + lo exactly
    out = hi + _round_odd_sum(lo, p_err)
    big = np.maximum(np.abs(a), np.abs(b))
    safe = np.isfinite(out) & (big < 2.0**900) & ((p == 0) | (np.abs(p) > 2.0**-900))
    return out if safe.all() else np.where(safe, out, a * b + c)


# ------------------------------------------------------------------------------ Box-Muller
# normal_fill_16_AVX2 with log256_ps / sincos256_ps of avx_mathfun.h (Cephes single precision
# polynomials), step by step in float32; `fma` marks the steps the compiler fused.

_LOG_P = np.array(
    [7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1]
    + [-1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1],
    np.float32,
)
_LOG_Q1, _LOG_Q2 = np.float32(-2.12194440e-4), np.float32(0.693359375)
_SQRT_HALF = np.float32(0.707106781186547524)
_FOUR_OVER_PI = np.float32(1.27323954473516)
_DP1, _DP2 = np.float32(-0.78515625), np.float32(-2.4187564849853515625e-4)
_DP3 = np.float32(-3.77489497744594108e-8)
_SIN_P = np.array([-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1], np.float32)
_COS_P = np.array([2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2], np.float32)
_TWO_PI_F = np.float32(2.0 * math.pi)
_F1, _HALF_F = np.float32(1.0), np.float32(0.5)


def _log_ps(u: np.ndarray, fma) -> np.ndarray:
    """log256_ps for u in (0, 1]: u >= 2**-24 here, so no NaN or denormal handling."""
    bits = u.view(np.int32)
    e = ((bits >> 23) - 126).astype(np.float32)
    m = ((bits & 0x007FFFFF) | 0x3F000000).view(np.float32)  # mantissa in [0.5, 1)
    small = m < _SQRT_HALF
    e -= small
    x = (m - _F1) + np.where(small, m, np.float32(0))
    x64 = x.astype(np.float64)  # converted once for the eight fused steps
    y = _LOG_P[0]
    for p in _LOG_P[1:]:
        y = fma(y, x64, p)
    z = x * x
    y = fma(y * x, z, e * _LOG_Q1)
    y = y - z * _HALF_F
    return (x + y) + e * _LOG_Q2  # e * Q2 is exact, so fusing it changes nothing


def _sincos_ps(theta: np.ndarray, fma) -> tuple[np.ndarray, np.ndarray]:
    """sincos256_ps for theta in [0, 2*pi)."""
    j = (theta * _FOUR_OVER_PI).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    x = fma(y, _DP3, (theta + y * _DP1) + y * _DP2)  # Cody-Waite: the first two products are exact
    z = x * x
    z64 = z.astype(np.float64)
    yc = fma(fma(_COS_P[0], z64, _COS_P[1]), z64, _COS_P[2])
    yc = fma(yc * z, z64, -(z * _HALF_F)) + _F1
    ys = fma(fma(_SIN_P[0], z64, _SIN_P[1]), z64, _SIN_P[2])
    ys = fma(ys * z, x, x)
    sin_poly = (j & 2) == 0
    # The sign flips are XORs of the sign bit, as in the intrinsics (zeros flip too).
    sin = np.where(sin_poly, ys, yc).view(np.int32) ^ ((j & 4) << 29)
    cos = np.where(sin_poly, yc, ys).view(np.int32) ^ ((~(j - 2) & 4) << 29)
    return sin.view(np.float32), cos.view(np.float32)


def _box_muller_f32(a: np.ndarray, b: np.ndarray, fma) -> tuple[np.ndarray, np.ndarray]:
    """Unscaled (radius*cos, radius*sin) from the lanes a = data[j], b = data[j + 8] of blocks."""
    radius = np.sqrt(np.float32(-2.0) * _log_ps(_F1 - a, fma))
    sin, cos = _sincos_ps(_TWO_PI_F * b, fma)
    return radius * cos, radius * sin


def _box_muller_f32_exact(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    suspect = np.zeros(a.shape, bool)
    n1, n2 = _box_muller_f32(a, b, lambda x, y, z: _fma32_flagged(x, y, z, suspect))
    if suspect.any():  # a few lanes in a hundred thousand: redo them with the exact FMA
        n1[suspect], n2[suspect] = _box_muller_f32(a[suspect], b[suspect], _fma32_exact)
    return n1, n2


def _box_muller_f64(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """normal_fill_16<double>, with the C library's log/cos/sin (NumPy's differ on some CPUs)."""
    radius = np.sqrt(-2.0 * libm.log(1.0 - a))  # sqrt is correctly rounded everywhere
    theta = (2.0 * math.pi) * b
    return radius * libm.cos(theta), radius * libm.sin(theta)


def _blocks_of_16(u: np.ndarray, tail: np.ndarray | None, transform) -> np.ndarray:
    """normal_fill's layout: in each block of 16, lanes j and j + 8 pair up; when the size is not
    a multiple of 16, the last 16 outputs are recomputed from the `tail` uniforms."""
    n = u.size
    whole = n - n % 16
    blocks, out = u[:whole].reshape(-1, 2, 8), np.empty(n, u.dtype)
    out_blocks = out[:whole].reshape(-1, 2, 8)
    step = 1 << 13  # blocks per chunk, so the temporaries stay in cache
    for i in range(0, len(blocks), step):
        first, second = transform(blocks[i : i + step, 0], blocks[i : i + step, 1])
        out_blocks[i : i + step, 0], out_blocks[i : i + step, 1] = first, second
    if tail is not None:
        out[n - 16 : n - 8], out[n - 8 :] = transform(tail[:8], tail[8:])
    return out
