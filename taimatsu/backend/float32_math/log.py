"""SLEEF's float32 ``logf_u10`` (``xlogf_u1``), as PyTorch's ``Vectorized<float>::log`` calls it
(AVX2 and AVX-512 alike): the logarithms of the softmax kernels' sums.

The algorithm: ``d = 2**e * m`` with ``m`` in [0.75, 1.5) (``e`` the exponent of the float32
product ``d * (1/0.75)``), ``x = (m - 1) / (m + 1)`` as a double-float (a pair of float32),
``log d = e ln 2 + 2x + x**3 t(x**2)``: ``e ln 2`` and ``2x`` in double-float, the cubic term
and ``t`` (three coefficients, FMAs) in float32, the pair's sum rounded once.

SLEEF's value before the last rounding strays up to 0.14 ulp from ``log d`` (measured), so the
float64 logarithm rounded once would differ in about one element in 200. Here the float32 steps
are taken as SLEEF rounds them and the double-float ones in float64 (~2**-45 from SLEEF's pair):
the rounding is SLEEF's except near a float32 rounding boundary, where (2 elements in 100 000)
every step is replayed as SLEEF orders it (float32 roundings, FMAs as ``primitives.fma``
emulates them). Against the full replay, on every float32 in [0.5, 8) and 16M samples from
1e-37 to 2e38: no difference; one element rounds otherwise than SLEEF's, 4e-8 ulp from a boundary
(the replay margin: 2**-40 of the value, 2**-17 to 2**-16 ulp).
"""

from __future__ import annotations

import numpy as np

from .primitives import F32, F64

_ONE = np.float32(1)
_FOUR_THIRDS = np.float32(1.0 / 0.75)
_LN2_HI = np.float32(0.69314718246459960938)
_LN2_LO = np.float32(-1.904654323148236017e-09)
_BIG = np.float32(2.5e38)  # from here d * (1/0.75) overflows float32
_POLY = tuple(np.float32(c) for c in (0.3027294874, 0.3996108174, 0.6666694880))


def logf(d):
    """SLEEF ``xlogf_u1`` (``Sleef_logf16_u10`` / ``Sleef_logf8_u10``) of float32 values ``d``."""
    d = np.asarray(d, F32)
    # the common case: no special values (NaN fails the test), no floating-point warnings
    if not d.size or (d.min() > 0 and d.max() < _BIG):
        r, near = _estimated(d)
        if near.any():
            r[near] = _replayed(d[near])
        return r
    plain = (d > 0) & (d < _BIG)
    with np.errstate(all="ignore"):
        r = _replayed(d)
        # 0, inf, NaN, negatives: float64's answers are SLEEF's
        return np.where(plain | ((d >= _BIG) & (d < np.inf)), r, np.log(d.astype(F64)).astype(F32))


def _fma(a, b, c):
    """float32 ``a * b + c`` rounded once (``primitives.fma``'s float64 emulation, without its
    shape handling: these operands are same-shaped arrays or scalars)."""
    p = np.multiply(a, b, dtype=F64)
    p += c
    return p.astype(F32)


def _estimated(d):
    """SLEEF's result for positive finite float32 ``d`` below ``_BIG`` where that is certain, and
    where to replay it: the float32 steps (the quotient's head, the cubic term) as SLEEF rounds
    them, the double-float ones (``e ln 2``, ``2x``, their sum) in float64, within ~2**-45 of
    SLEEF's pair; the result is SLEEF's unless that sum lies within ``_NEAR`` of itself from a
    float32 rounding boundary (2 elements in 100 000 are replayed)."""
    _, k = np.frexp(d * _FOUR_THIRDS)
    minus_e = np.subtract(1, k)  # -e, e = k - 1 the exponent of d = 2**e * m
    m = np.ldexp(d, minus_e)  # exact: in [0.75, 1.5)
    a = m - _ONE  # exact
    qx = a * (_ONE / (m + _ONE))  # dfdiv's head
    x2 = qx * qx
    z = (x2 * qx) * _fma(_fma(_POLY[0], x2, _POLY[1]), x2, _POLY[2])
    # 2x = 2 (m - 1) / (m + 1) in float64 (doubling the numerator is exact: the same quotient
    # doubled), + z, + e ln 2 (as - (-e) ln 2: the same sum)
    v = np.divide(a + a, np.add(m, 1.0, dtype=F64))
    v += z
    v -= minus_e * _LN2
    r = v.astype(F32)
    # near a boundary when v moved by 2**-40 of itself (2**-17..2**-16 ulp) rounds otherwise
    margin = np.abs(v)
    margin *= _NEAR
    near = (v + margin).astype(F32) != (v - margin).astype(F32)
    return r, near


_LN2 = float(_LN2_HI) + float(_LN2_LO)  # the pair SLEEF multiplies by, exact in float64
_NEAR = 2.0**-40  # relative: ~2**-16 ulp, far beyond the float64 sum's distance from SLEEF's pair


def _replayed(d):
    """SLEEF's steps for positive finite float32 ``d``, FMA build."""
    scaled = d * _FOUR_THIRDS
    _, k = np.frexp(scaled)  # vgetexp of the float32 product: floor(log2)
    k -= 1
    k = np.where(np.isinf(scaled), 128, k).astype(
        np.int32
    )  # the product overflowed: SLEEF takes 128
    e = k.astype(F32)
    m = (d.astype(F64) * np.ldexp(1.0, -k)).astype(F32)  # exact: in [0.75, 1.5)
    # e ln 2 as a pair (dfmul by a float)
    sx = _LN2_HI * e
    sy = _fma(_LN2_LO, e, _fma(_LN2_HI, e, -sx))
    # (m - 1) / (m + 1): m - 1 is exact; m + 1 as an exact pair (dfadd2)
    ax = m - _ONE
    bx = m + _ONE
    v = bx - _ONE
    by = (_ONE - (bx - v)) + (m - v)
    t = _ONE / bx  # dfdiv
    qx = ax * t
    u = _fma(t, ax, -qx)
    w = _fma(-by, t, _fma(-bx, t, _ONE))
    qy = _fma(qx, w, u)
    x2 = qx * qx
    p = _fma(_fma(_POLY[0], x2, _POLY[1]), x2, _POLY[2])
    # s += 2x (dfadd of pairs), then s += x**3 t (dfadd of a float)
    tx, ty = qx * np.float32(2), qy * np.float32(2)
    hx = sx + tx
    hy = (((sx - hx) + tx) + sy) + ty
    z = (x2 * qx) * p
    fx = hx + z
    fy = ((hx - fx) + z) + hy
    return fx + fy
