"""SLEEF's ``lgamma_u1`` (float64: ``Sleef_lgammad8_u10``) and ``lgammaf_u1`` (float32:
``Sleef_lgammaf16_u10``), as PyTorch's ``Vectorized<double|float>::lgamma`` calls them for every
element of a tensor (its loop feeds strided and tail elements through the same vector function).

The algorithm (SLEEF's ``gammak`` / ``gammafk``): the argument x (or 1 - x below 0.5, for the
reflection formula) goes to one of three ranges: near 1 and near 2 by polynomials in ``x - 1``
and ``x - 2``; from 2.3, raised by ``x (x + 1) ... `` where below 7 (two factors in float32, four
in float64), Stirling's series ``(x - 1/2) log x - x + log(2 pi) / 2`` plus a polynomial in
``1 / x``. The reflection adds ``log(pi)`` and divides by ``sin(pi x)`` (SLEEF's ``sinpik``);
the result is the pair's ``log |numerator / denominator|`` (``logk2``) plus the series, rounded
once. The polynomials run as FMAs in the dtype, the rest in double-float / double-double pairs,
each step as SLEEF orders it. FMAs: ``primitives.fma`` in float32 (a rare double rounding, one
FMA in ~2^29: removing it costs 7x), ``_rng_math._fma64`` in float64 (exact). Bit for bit with
PyTorch (``tests/ops/test_special_series_bits.py``). PyTorch's vector kernel takes ~1.5 ms per
1M float32 elements, this replay ~0.12 s (float64: ~2 s): it is for correctness, not speed.
"""

from __future__ import annotations

import numpy as np

from .float32_math import double_float as df
from .float32_math.primitives import F32, select

_f = np.float32
_ONE, _ZERO = _f(1), _f(0)


def _pair(d: float):
    """``vcast_vf2_d``: a double as a float32 pair."""
    hi = _f(d)
    return hi, _f(d - float(hi))


# SLEEF's pair operations (``double_float``: float32 pairs or float64 pairs alike), on tuples
_add2_ff, _add2_pp, _normalize = df.add2_float_pair, df.add2_pairs, df.normalize
_mul_ff, _squ, _fused = df.mul_exact, df.square, df.fused


def _mul_pp(x, y):
    return df.mul(*x, *y)


def _mul_pf(x, y):
    return df.mul_scalar(*x, y)


def _div(n, d):
    return df.div(*n, *d)


def _add_pp(x, y):  # |x| >= |y|
    return df.add(*x, *y)


def _neg(x):
    return -x[0], -x[1]


def _sel(mask, a, b):
    return select(mask, a[0], b[0]), select(mask, a[1], b[1])


def _exponent(v):
    """floor(log2 |v|) of positive normal float32 values (AVX-512's getexp, AVX2's ilogb)."""
    return ((v.view(np.uint32) >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int32) - 127


def _logk2f(d):
    """SLEEF's ``logk2f``: log of a positive pair, as a pair."""
    e = _exponent((d[0] * _f(1.0 / 0.75)).astype(F32))
    scale = np.ldexp(_ONE, -e).astype(F32)
    m = (d[0] * scale, d[1] * scale)
    x = _div(df.add2_pair(m[0], m[1], _f(-1)), df.add2_pair(m[0], m[1], _ONE))
    x2 = _squ(x)
    t = _f(0.2392828464508056640625)
    for c in (0.28518211841583251953125, 0.400005877017974853515625, 0.666666686534881591796875):
        t = _fused(t, x2[0], _f(c))
    s = _mul_pf((_f(0.69314718246459960938), _f(-1.904654323148236017e-09)), e.astype(F32))
    s = _add_pp(s, (x[0] * _f(2), x[1] * _f(2)))
    return _add_pp(s, _mul_pf(_mul_pp(x2, x), t))


def _sinpifk(d):
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
    u = _fused(u, s, select(o, _f(0.3590577080e-5), _f(-0.3657307388e-4)))
    u = _fused(u, s, select(o, _f(-0.3259917721e-3), _f(0.2490393585e-2)))
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


def _gammafk(a):
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
        u = _fused(u, t, _by_range(o2, o0, coefficients))
    y = _mul_pp(df.add2_pair(x[0], x[1], _f(-0.5)), _logk2f(x))
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
        x = _mul_pp(clld, _sinpifk(t))
    clld = _sel(otiny, (a * _f(2.0**60), zero), _sel(oref, x, y))
    return clc, _div(clln, clld)


def lgamma(a) -> np.ndarray:
    """SLEEF's ``lgamma_u1`` / ``lgammaf_u1`` of a float64 / float32 array, a cache-sized block at
    a time (``parallel.blockwise``: hundreds of passes over each block)."""
    from .parallel import BLOCK, blockwise

    a = np.asarray(a)
    if a.size <= BLOCK:
        return _lgamma(a)
    return blockwise(_lgamma, np.ascontiguousarray(a), a.dtype, widen=False)


def _lgamma(a):
    gammak, logk2 = (_gammak, _logk2) if a.dtype == np.float64 else (_gammafk, _logk2f)
    with np.errstate(all="ignore"):
        clc, ratio = gammak(a)
        flip = np.where(ratio[0] < 0, -1, 1).astype(a.dtype)  # dfabs: |hi|, lo's sign flipped
        y = _add2_pp(clc, logk2((np.abs(ratio[0]), ratio[1] * flip)))
        r = y[0] + y[1]
        integral = np.trunc(a) == a
        number = np.isfinite(a)
        inf = np.isinf(a) | ((a <= 0) & integral) | (number & np.isnan(r))
        return select(inf, a.dtype.type(np.inf), r)


# ---- float64: SLEEF's gammak, logk2 and sinpik -------------------------------------------------
_d = np.float64


def _exponent64(v):
    """ilogb of positive float64 values (SLEEF's ``vilogbk``, exact for subnormals too)."""
    return (np.frexp(v)[1] - 1).astype(np.int32)


# logk2's polynomial in x^2 (Estrin's scheme: c6..c0), then the last term by one more FMA
_LOGK2_POLY = (0.13860436390467167910856, 0.131699838841615374240845, 0.153914168346271945653214,
               0.181816523941564611721589, 0.22222224632662035403996, 0.285714285511134091777308,
               0.400000000000914013309483)  # fmt: skip


def _logk2(d):
    """SLEEF's ``logk2``: log of a positive double-double, as a pair."""
    e = _exponent64(d[0] * (1.0 / 0.75))
    m = (np.ldexp(d[0], -e), np.ldexp(d[1], -e))
    x = _div(df.add2_pair(m[0], m[1], _d(-1)), df.add2_pair(m[0], m[1], _d(1)))
    x2 = _squ(x)
    x4 = x2[0] * x2[0]
    x8 = x4 * x4
    c6, c5, c4, c3, c2, c1, c0 = (_d(c) for c in _LOGK2_POLY)
    p3 = _fused(x4, c6, _fused(x2[0], c5, c4))  # POLY3(x, x2, c6, c5, c4)
    p4 = _fused(x4, _fused(x2[0], c3, c2), _fused(x2[0], c1, c0))  # POLY4(x, x2, c3..c0)
    t = _fused(x8, p3, p4)
    t = _fused(t, x2[0], _d(0.666666666666664853302393))
    ln2 = (np.full_like(x2[0], 0.693147180559945286226764), _d(2.319046813846299558417771e-17))
    s = _mul_pf(ln2, e.astype(np.float64))
    s = _add_pp(s, (x[0] * 2, x[1] * 2))
    return _add_pp(s, _mul_pf(_mul_pp(x2, x), t))


_SINPI_U = ((9.94480387626843774090208e-16, -2.02461120785182399295868e-14),
            (-3.89796226062932799164047e-13, 6.948218305801794613277840e-12),
            (1.150115825399960352669010e-10, -1.75724749952853179952664e-09),
            (-2.46113695010446974953590e-08, 3.133616889668683928784220e-07),
            (3.590860448590527540050620e-06, -3.65762041821615519203610e-05),
            (-0.000325991886927389905997954, 0.0024903945701927185027435600))  # fmt: skip


def _sinpik(d):
    """SLEEF's ``sinpik``: sin(pi d) as a double-double."""
    u = d * 4.0
    q = np.trunc(u).astype(np.int32)
    q = (q + ((q.view(np.uint32) >> np.uint32(31)).astype(np.int32) ^ 1)) & ~1
    o = (q & 2) == 2
    s = u - q.astype(np.float64)
    t = s
    s = s * s
    s2 = _mul_ff(t, t)
    u = np.where(o, _SINPI_U[0][0], _SINPI_U[0][1])
    for a, b in _SINPI_U[1:]:
        u = _fused(u, s, np.where(o, a, b))
    c1 = _sel(o, (_d(0.0158543442438155018914259), _d(-1.04693272280631521908845e-18)),
              (_d(-0.0807455121882807852484731), _d(3.61852475067037104849987e-18)))  # fmt: skip
    x = _add2_ff(u * s, c1)
    c2 = _sel(o, (_d(-0.308425137534042437259529), _d(-1.95698492133633550338345e-17)),
              (_d(0.785398163397448278999491), _d(3.06287113727155002607105e-17)))  # fmt: skip
    x = _add2_pp(_mul_pp(s2, x), c2)
    x = _mul_pp(x, _sel(o, s2, (t, np.zeros_like(t))))
    x = _sel(o, df.add2_pair(x[0], x[1], _d(1)), x)
    sign = np.where((q & 4) == 4, -1.0, 1.0)
    return x[0] * sign, x[1] * sign


# the polynomial in t, highest degree first: (from 2.3, on [0.5, 1.1], else)
_U64 = (
    (-156.801412704022726379848862, 0.2947916772827614196e2, 0.7074816000864609279e-7),
    (1.120804464289911606838558160000, 0.1281459691827820109e3, 0.4009244333008730443e-6),
    (13.39798545514258921833306020000, 0.2617544025784515043e3, 0.1040114641628246946e-5),
    (-0.116546276599463200848033357000, 0.3287022855685790432e3, 0.1508349150733329167e-5),
    (-1.391801093265337481495562410000, 0.2818145867730348186e3, 0.1288143074933901020e-5),
    (0.015056113040026424412918973400, 0.1728670414673559605e3, 0.4744167749884993937e-6),
    (0.179540117061234856098844714000, 0.7748735764030416817e2, -0.6554816306542489902e-7),
    (-0.002481743600264997730942489280, 0.2512856643080930752e2, -0.3189252471452599844e-6),
    (-0.029527880945699120504851034100, 0.5766792106140076868e1, 0.1358883821470355377e-6),
    (0.000540164767892604515196325186, 0.7270275473996180571e0, -0.4343931277157336040e-6),
    (0.006403362833808069794787256200, 0.8396709124579147809e-1, 0.9724785897406779555e-6),
    (-0.000162516262783915816896611252, -0.8211558669746804595e-1, -0.2036886057225966011e-5),
    (-0.001914438498565477526465972390, 0.6828831828341884458e-1, 0.4373363141819725815e-5),
    (7.20489541602001055898311517e-05, -0.7712481339961671511e-1, -0.9439951268304008677e-5),
    (0.000839498720672087279971000786, 0.8337492023017314957e-1, 0.2050727030376389804e-4),
    (-5.17179090826059219329394422e-05, -0.9094964931456242518e-1, -0.4492620183431184018e-4),
    (-0.000592166437353693882857342347, 0.1000996313575929358e0, 0.9945751236071875931e-4),
    (6.97281375836585777403743539e-05, -0.1113342861544207724e0, -0.2231547599034983196e-3),
    (0.000784039221720066627493314301, 0.1255096673213020875e0, 0.5096695247101967622e-3),
    (-0.000229472093621399176949318732, -0.1440498967843054368e0, -0.1192753911667886971e-2),
    (-0.002681327160493827160473958490, 0.1695571770041949811e0, 0.2890510330742210310e-2),
    (0.003472222222222222222175164840, -0.2073855510284092762e0, -0.7385551028674461858e-2),
    (0.083333333333333333335592087900, 0.2705808084277815939e0, 0.2058080842778455335e-1),
)
_Z64 = (
    (-0.4006856343865314862e0, -0.6735230105319810201e-1),
    (0.8224670334241132030e0, 0.3224670334241132030e0),
    (-0.5772156649015328655e0, 0.4227843350984671345e0),
)


def _gammak(a):
    """SLEEF's ``gammak``: (log-part pair, ratio pair) with lgamma = clc + log |ratio|."""
    one, zero = np.ones_like(a), np.zeros_like(a)
    otiny, oref = np.abs(a) < 1e-306, a < 0.5
    x = _sel(otiny, (zero, zero), _sel(oref, df.add2(_d(1), -a), (a, zero)))
    o0 = (0.5 <= x[0]) & (x[0] <= 1.1)
    o2 = 2.3 <= x[0]
    y = x
    y = _normalize(_mul_pp(df.add2_pair(x[0], x[1], _d(1)), x))
    for k in (2, 3, 4):
        y = _normalize(_mul_pp(df.add2_pair(x[0], x[1], _d(k)), y))
    o = o2 & (x[0] <= 7)
    clln = _sel(o, y, (one, zero))
    x = _sel(o, df.add2_pair(x[0], x[1], _d(5)), x)
    shifted = _normalize(df.add2_pair(x[0], x[1], np.where(o0, -1.0, -2.0)))[0]
    t = np.where(o2, 1.0 / x[0], shifted)
    u = np.where(o2, _U64[0][0], np.where(o0, _U64[0][1], _U64[0][2]))
    for c in _U64[1:]:
        u = _fused(u, t, np.where(o2, c[0], np.where(o0, c[1], c[2])))
    y = _mul_pp(df.add2_pair(x[0], x[1], _d(-0.5)), _logk2(x))
    y = _add2_pp(y, _neg(x))
    y = _add2_pp(y, (_d(0.91893853320467278056), _d(-3.8782941580672414498e-17)))
    z = df.add2_pair(*_mul_ff(u, t), np.where(o0, _Z64[0][0], _Z64[0][1]))
    for c in _Z64[1:]:
        z = df.add2_pair(*_mul_pf(z, t), np.where(o0, c[0], c[1]))
    z = _mul_pf(z, t)
    clc = _sel(o2, y, z)
    clld = _sel(o2, df.add2_pair(*_mul_ff(u, t), _d(1)), (one, zero))
    y = clln
    log_pi = (_d(1.1447298858494001639), _d(1.026595116270782638e-17))
    reflected = _add2_pp(log_pi, _neg(clc))
    log_2_120 = (one * 83.1776616671934334590333, one * 3.67103459631568507221878e-15)
    clc = _sel(otiny, log_2_120, _sel(oref, reflected, clc))
    clln = _sel(otiny, (one, zero), _sel(oref, clln, clld))
    x = (zero, zero)
    if oref.any():
        k = np.trunc(np.clip(a * (1.0 / 2.0**28), -(2.0**31), 2.0**31 - 1))
        t = a - 2.0**28 * k.astype(np.int32).astype(np.float64)
        x = _mul_pp(clld, _sinpik(t))
    clld = _sel(otiny, (a * 2.0**120, zero), _sel(oref, x, y))
    return clc, _div(clln, clld)
