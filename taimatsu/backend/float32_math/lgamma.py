"""SLEEF's float32 ``lgammaf_u1`` (``Sleef_lgammaf16_u10`` / ``Sleef_lgammaf8_u10``), as
PyTorch's ``Vectorized<float>::lgamma`` calls it for every element of a float32 tensor (its
loop feeds strided and tail elements through the same vector function).

The algorithm (SLEEF's ``gammafk``): the argument x (or 1 - x below 0.5, for the reflection
formula) goes to one of three ranges: [0.5, 1.2] and (1.2, 2.3) by polynomials in ``x - 1`` and
``x - 2``; from 2.3, raised past 5.3 by ``x (x + 1) (x + 2)`` where below 7, Stirling's series
``(x - 1/2) log x - x + log(2 pi) / 2`` plus a polynomial in ``1 / x``. The reflection adds
``log(pi)`` and divides by ``sin(pi x)`` (SLEEF's ``sinpifk``); the result is the pair's
``log |numerator / denominator|`` (``logk2f``) plus the series, rounded once. The polynomials run
in float32 FMAs, the rest in double-float pairs (``double_float``), each step as SLEEF orders it:
bit for bit with PyTorch (``tests/ops/test_special_series_bits.py``) but for the rare double
rounding of ``primitives.fma`` (one FMA in ~2^29; removing it costs 7x: 0.85 s per 1M elements
against 0.12). PyTorch's vector kernel takes ~1.5 ms for those 1M: this replay is for
correctness, not speed.
"""

from __future__ import annotations

import numpy as np

from . import double_float as df
from .primitives import F32, fma, select

_f = np.float32
_ONE, _ZERO = _f(1), _f(0)


def _pair(d: float):
    """``vcast_vf2_d``: a double as a float32 pair."""
    hi = _f(d)
    return hi, _f(d - float(hi))


def _add2_ff(x, y):  # dfadd2_vf2_vf_vf2 with y a pair
    s = x + y[0]
    v = s - x
    return s, ((x - (s - v)) + (y[0] - v)) + y[1]


def _add2_pp(x, y):  # dfadd2_vf2_vf2_vf2
    s = x[0] + y[0]
    v = s - x[0]
    t = (x[0] - (s - v)) + (y[0] - v)
    return s, t + (x[1] + y[1])


def _normalize(x):
    s = x[0] + x[1]
    return s, (x[0] - s) + x[1]


def _mul_ff(x, y):  # dfmul_vf2_vf_vf: the exact product as a pair
    s = x * y
    return s, fma(x, y, -s)


def _mul_pp(x, y):
    s = x[0] * y[0]
    return s, fma(x[0], y[1], fma(x[1], y[0], fma(x[0], y[0], -s)))


def _mul_pf(x, y):
    s = x[0] * y
    return s, fma(x[1], y, fma(x[0], y, -s))


def _squ(x):
    s = x[0] * x[0]
    return s, fma(x[0] + x[0], x[1], fma(x[0], x[0], -s))


def _div(n, d):
    t = _ONE / d[0]
    s = n[0] * t
    u = fma(t, n[0], -s)
    v = fma(-d[1], t, fma(-d[0], t, _ONE))
    return s, fma(s, v, fma(n[1], t, u))


def _add_pp(x, y):  # dfadd_vf2_vf2_vf2, |x| >= |y|
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def _neg(x):
    return -x[0], -x[1]


def _sel(mask, a, b):
    return select(mask, a[0], b[0]), select(mask, a[1], b[1])


def _exponent(v):
    """floor(log2 |v|) of positive normal float32 values (AVX-512's getexp, AVX2's ilogb)."""
    return ((v.view(np.uint32) >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int32) - 127


def _logk2(d):
    """SLEEF's ``logk2f``: log of a positive pair, as a pair."""
    e = _exponent((d[0] * _f(1.0 / 0.75)).astype(F32))
    scale = np.ldexp(_ONE, -e).astype(F32)
    m = (d[0] * scale, d[1] * scale)
    x = _div(df.add2_pair(m[0], m[1], _f(-1)), df.add2_pair(m[0], m[1], _ONE))
    x2 = _squ(x)
    t = _f(0.2392828464508056640625)
    for c in (0.28518211841583251953125, 0.400005877017974853515625, 0.666666686534881591796875):
        t = fma(t, x2[0], _f(c))
    s = _mul_pf((_f(0.69314718246459960938), _f(-1.904654323148236017e-09)), e.astype(F32))
    s = _add_pp(s, (x[0] * _f(2), x[1] * _f(2)))
    return _add_pp(s, _mul_pf(_mul_pp(x2, x), t))


def _sinpik(d):
    """SLEEF's ``sinpifk``: sin(pi d) as a pair."""
    u = d * _f(4)
    q = np.trunc(u).astype(np.int32)
    q = (q + ((q.view(np.uint32) >> np.uint32(31)).astype(np.int32) ^ 1)) & ~1
    o = (q & 2) == 2
    s = u - q.astype(F32)
    t = s
    s = s * s
    s2 = _mul_ff(t, t)
    u = select(o, _f(-0.2430611801e-7), _f(0.3093842054e-6))
    u = fma(u, s, select(o, _f(0.3590577080e-5), _f(-0.3657307388e-4)))
    u = fma(u, s, select(o, _f(-0.3259917721e-3), _f(0.2490393585e-2)))
    c1 = _sel(o, (_f(0.015854343771934509277), _f(4.4940051354032242811e-10)),
              (_f(-0.080745510756969451904), _f(-1.3373665339076936258e-09)))  # fmt: skip
    x = _add2_ff(u * s, c1)
    c2 = _sel(o, (_f(-0.30842512845993041992), _f(-9.0728339030733922277e-09)),
              (_f(0.78539818525314331055), _f(-2.1857338617566484855e-08)))  # fmt: skip
    x = _add2_pp(_mul_pp(s2, x), c2)
    x = _mul_pp(x, _sel(o, s2, (t, np.zeros_like(t))))
    x = _sel(o, df.add2_pair(x[0], x[1], _ONE), x)
    flip = np.where((q & 4) == 4, np.uint32(0x80000000), np.uint32(0))
    return (x[0].view(np.uint32) ^ flip).view(F32), (x[1].view(np.uint32) ^ flip).view(F32)


# the polynomial in t: from 2.3 (coefficients given in double, rounded to float), on
# [0.5, 1.2], else; highest degree first
_U = (
    (0.000839498720672087279971000786, 0.9435157776e0, 0.1102489550e-3),
    (-5.17179090826059219329394422e-05, 0.8670063615e0, 0.8160019934e-4),
    (-0.000592166437353693882857342347, 0.4826702476e0, 0.1528468856e-3),
    (6.97281375836585777403743539e-05, -0.8855129778e-1, -0.2355068718e-3),
    (0.000784039221720066627493314301, 0.1013825238e0, 0.4962242092e-3),
    (-0.000229472093621399176949318732, -0.1493408978e0, -0.1193488017e-2),
    (-0.002681327160493827160473958490, 0.1697509140e0, 0.2891599433e-2),
    (0.003472222222222222222175164840, -0.2072454542e0, -0.7385451812e-2),
    (0.083333333333333333335592087900, 0.2705872357e0, 0.2058077045e-1),
)
_Z = (
    (-0.400686534596170958447352690395e0, -0.673523028297382446749257758235e-1),
    (0.822466960142643054450325495997e0, 0.322467033928981157743538726901e0),
    (-0.577215665946766039837398973297e0, 0.422784335087484338986941629852e0),
)


def _by_range(o2, o0, coefficients):
    a, b, c = (_f(v) for v in coefficients)
    return select(o2, a, select(o0, b, c))


def _gammak(a):
    """SLEEF's ``gammafk``: (log-part pair, ratio pair) with lgamma = clc + log |ratio|."""
    one, zero = np.ones_like(a), np.zeros_like(a)
    otiny, oref = np.abs(a) < _f(1e-30), a < _f(0.5)
    x = _sel(otiny, (zero, zero), _sel(oref, df.add2(_ONE, -a), (a, zero)))
    o0 = (_f(0.5) <= x[0]) & (x[0] <= _f(1.2))
    o2 = _f(2.3) <= x[0]
    y = _normalize(_mul_pp(df.add2_pair(x[0], x[1], _ONE), x))
    y = _normalize(_mul_pp(df.add2_pair(x[0], x[1], _f(2)), y))
    o = o2 & (x[0] <= _f(7))
    clln = _sel(o, y, (one, zero))
    x = _sel(o, df.add2_pair(x[0], x[1], _f(3)), x)
    shifted = _normalize(df.add2_pair(x[0], x[1], select(o0, _f(-1), _f(-2))))[0]
    t = select(o2, _ONE / x[0], shifted)
    u = _by_range(o2, o0, _U[0]) * one
    for coefficients in _U[1:]:
        u = fma(u, t, _by_range(o2, o0, coefficients))
    y = _mul_pp(df.add2_pair(x[0], x[1], _f(-0.5)), _logk2(x))
    y = _add2_pp(y, _neg(x))
    y = _add2_pp(y, _pair(0.91893853320467278056))  # log(2 pi) / 2
    z = df.add2_pair(*_mul_ff(u, t), select(o0, _f(_Z[0][0]), _f(_Z[0][1])))
    for c in _Z[1:]:
        z = df.add2_pair(*_mul_pf(z, t), select(o0, _f(c[0]), _f(c[1])))
    z = _mul_pf(z, t)
    clc = _sel(o2, y, z)
    clld = _sel(o2, df.add2_pair(*_mul_ff(u, t), _ONE), (one, zero))
    y = clln
    reflected = _add2_pp(_pair(1.1447298858494001639), _neg(clc))  # log(pi) - clc
    clc = _sel(otiny, tuple(v * one for v in _pair(41.58883083359671856503)),  # log(2^60)
               _sel(oref, reflected, clc))  # fmt: skip
    clln = _sel(otiny, (one, zero), _sel(oref, clln, clld))
    x = (zero, zero)
    if oref.any():
        k = np.trunc(np.clip(a * _f(1.0 / 4096), _f(-(2.0**31)), _f(2.0**31 - 256)))
        t = a - _f(4096) * k.astype(np.int32).astype(F32)
        x = _mul_pp(clld, _sinpik(t))
    clld = _sel(otiny, (a * _f(2.0**60), zero), _sel(oref, x, y))
    return clc, _div(clln, clld)


def lgammaf(a) -> np.ndarray:
    """SLEEF's ``lgammaf_u1`` of float32 values (a float32 array), a cache-sized block at a time
    (``parallel.blockwise``: ~300 passes over each block)."""
    from ..parallel import BLOCK, blockwise

    a = np.asarray(a, F32)
    if a.size <= BLOCK:
        return _lgammaf(a)
    return blockwise(_lgammaf, np.ascontiguousarray(a), F32, widen=False)


def _lgammaf(a):
    with np.errstate(all="ignore"):
        clc, ratio = _gammak(a)
        sign = ratio[0].view(np.uint32) & np.uint32(0x80000000)  # dfabs: |hi|, lo's sign flipped
        ratio = (np.abs(ratio[0]), (ratio[1].view(np.uint32) ^ sign).view(F32))
        y = _add2_pp(clc, _logk2(ratio))
        r = y[0] + y[1]
        integral = np.trunc(a) == a
        number = np.isfinite(a)
        inf = np.isinf(a) | ((a <= 0) & integral) | (number & np.isnan(r))
        return select(inf, _f(np.inf), r)
