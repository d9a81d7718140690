"""glibc's float32 libm functions, as PyTorch's scalar loops call them (``std::exp(float)``...).

Where PyTorch's elementwise loops do not vectorise (rows whose elements are apart in memory, row
tails: see ``float32_math.run``), its kernels call the C library's float functions. PyTorch's
Linux wheels link the system's glibc, so the bits are that glibc's:

- ``expf`` (glibc >= 2.27): double arithmetic rounded once to float, ``2**(k/32)`` from a table
  times a cubic in ``r`` (``x/ln2 = k/32 + r/32``). Not quite correctly rounded (0.502 ulp: 0.06%
  of random inputs differ from float64's ``exp`` rounded once), replayed here in float64 (the
  double FMAs of glibc's FMA build differ from unfused float64 steps by 1 double ulp, which
  reaches the float result about once in 10**8 elements).
- ``expm1f``, ``log1pf``, ``tanhf``, ``sinhf``, ``coshf``, ``atanhf``, ``atan2f`` before glibc
  2.41: Sun's fdlibm algorithms in float arithmetic, 1-2 ulp (8-45% of random inputs differ
  from the correctly rounded result), replayed step by step in float32 NumPy arithmetic (each
  +-*/ rounds once as C's float operations do: glibc builds these without FMA contraction).
  glibc 2.41 replaced them by CORE-MATH's correctly rounded ones: float64 rounded once then.

The replays are vectorised over arrays (every branch evaluated for all elements, then
selected) and bit-identical to glibc 2.36's libm (``tests/ops/test_glibc_float32.py``); up to
``_CALL_BELOW`` elements (row tails) the functions call libm itself through ctypes instead,
one call per element, which costs less than the replays' 30-80 NumPy passes.
"""

from __future__ import annotations

import ctypes
import os

import numpy as np

from .primitives import select  # np.where's bits without its per-element branch

F32, F64, I32 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32)


def _glibc_version() -> tuple[int, int]:
    try:
        _, version = os.confstr("CS_GNU_LIBC_VERSION").split()
        return tuple(int(v) for v in version.split(".")[:2])
    except (AttributeError, ValueError, OSError):  # not glibc: assume a correctly rounded libm
        return (999, 0)


# glibc 2.41 took expm1f, log1pf, tanhf, sinhf, coshf, atanhf and atan2f from CORE-MATH.
FDLIBM = _glibc_version() < (2, 41)


def _f(v):
    return np.float32(v)


def _bits(x):
    return np.asarray(x, F32).view(I32)


def _from_bits(i):
    return np.asarray(i, I32).view(F32)


def _rounded(fn, x):
    with np.errstate(all="ignore"):
        return fn(np.asarray(x, F32).astype(F64)).astype(F32)


def _fdlibm_or_rounded(fdlibm, correct):
    """The replay of a glibc function that was fdlibm's float algorithm before glibc 2.41
    (``fdlibm``) and CORE-MATH's correctly rounded one from 2.41 (``correct``: NumPy's float64
    function, rounded once)."""

    def replay(x):
        if not FDLIBM:
            return _rounded(correct, x)
        with np.errstate(all="ignore"):
            return fdlibm(np.asarray(x, F32))

    return replay


# ---- expf ------------------------------------------------------------------------------------
# 2**(i/32) as doubles (glibc's table holds these with i << 47 subtracted from their bits)
_EXP2_32 = np.array(
    [
        float.fromhex(h)
        for h in (
            "0x1.0000000000000p+0", "0x1.059b0d3158574p+0", "0x1.0b5586cf9890fp+0",
            "0x1.11301d0125b51p+0", "0x1.172b83c7d517bp+0", "0x1.1d4873168b9aap+0",
            "0x1.2387a6e756238p+0", "0x1.29e9df51fdee1p+0", "0x1.306fe0a31b715p+0",
            "0x1.371a7373aa9cbp+0", "0x1.3dea64c123422p+0", "0x1.44e086061892dp+0",
            "0x1.4bfdad5362a27p+0", "0x1.5342b569d4f82p+0", "0x1.5ab07dd485429p+0",
            "0x1.6247eb03a5585p+0", "0x1.6a09e667f3bcdp+0", "0x1.71f75e8ec5f74p+0",
            "0x1.7a11473eb0187p+0", "0x1.82589994cce13p+0", "0x1.8ace5422aa0dbp+0",
            "0x1.93737b0cdc5e5p+0", "0x1.9c49182a3f090p+0", "0x1.a5503b23e255dp+0",
            "0x1.ae89f995ad3adp+0", "0x1.b7f76f2fb5e47p+0", "0x1.c199bdd85529cp+0",
            "0x1.cb720dcef9069p+0", "0x1.d5818dcfba487p+0", "0x1.dfc97337b9b5fp+0",
            "0x1.ea4afa2a490dap+0", "0x1.f50765b6e4540p+0",
        )
    ]
)  # fmt: skip
_INV_LN2_32 = float.fromhex("0x1.71547652b82fep+0") * 32
_EXP_C = tuple(
    float.fromhex(h) / 32.0**p
    for h, p in (
        ("0x1.c6af84b912394p-5", 3),
        ("0x1.ebfce50fac4f3p-3", 2),
        ("0x1.62e42ff0c52d6p-1", 1),
    )
)
_EXP_OVER = _f(float.fromhex("0x1.62e42ep6"))  # above: inf
_EXP_UNDER = _f(-float.fromhex("0x1.9fe368p6"))  # below: 0


# 2**(i/32) as bits: 2**(i/32) * 2**e is these plus e << 52 (every e expf's results reach)
_EXP2_32_BITS = _EXP2_32.view(np.int64)


def _expf_replay(x):
    """glibc's ``expf`` (2.27 and later) of float32 values."""
    x = np.asarray(x, F32)
    # beyond the range (and NaN) the result is a constant or x: computed on 0, then replaced
    outside = ~((x >= _EXP_UNDER) & (x <= _EXP_OVER))
    rare = bool(outside.any())
    with np.errstate(all="ignore"):
        z = select(outside, _f(0), x).astype(F64) if rare else x.astype(F64)
        z *= _INV_LN2_32
        kd = np.rint(z)  # glibc adds and subtracts 1.5 * 2**52: round to nearest even
        r = np.subtract(z, kd, out=z)
        k = kd.astype(np.int64)
        s = _EXP2_32_BITS[k & 31]
        k >>= 5
        k <<= 52
        s += k  # 2**(k/32) exactly, as ldexp (no overflow, no subnormal)
        # (c0 r + c1) r**2 + (c2 r + 1), each step rounded as glibc's (unfused) double steps
        y = _EXP_C[0] * r
        y += _EXP_C[1]
        y *= r * r
        t = _EXP_C[2] * r
        t += 1.0
        y += t
        y *= s.view(F64)
        out = y.astype(F32)
    if rare:
        out = select(x > _EXP_OVER, _f(np.inf), out)
        out = select(x < _EXP_UNDER, _f(0), out)
        out = select(np.isnan(x), x, out)
    return out


# ---- expm1f (fdlibm) -------------------------------------------------------------------------
_LN2_HI, _LN2_LO = _f(6.9313812256e-01), _f(9.0580006145e-06)
_INV_LN2 = _f(1.4426950216e00)
_Q = tuple(_f(c) for c in (-3.3333335072e-02, 1.5873016091e-03, -7.9365076090e-05))
_Q += (_f(4.0082177293e-06), _f(-2.0109921195e-07))
_ONE, _TWO, _HALF = _f(1), _f(2), _f(0.5)


def _add_exponent(y, k):
    """``y`` with ``k`` added to its exponent field (fdlibm's scaling by 2**k)."""
    return _from_bits(_bits(y) + (k.astype(I32) << 23))


def _expm1f_fdlibm(x):
    hx = _bits(x) & 0x7FFFFFFF
    neg = x < 0
    # argument reduction: x = k ln2 + hi - lo, |hi - lo| <= ln2 / 2
    one_step = hx < 0x3F851592
    kf = _INV_LN2 * x
    kf += select(neg, -_HALF, _HALF)
    kf = np.trunc(kf)
    kf = select(one_step, select(neg, _f(-1), _ONE), kf)
    kf = select(hx > 0x3EB17218, kf, _f(0))
    hi = x - kf * _LN2_HI
    lo = kf * _LN2_LO
    xr = hi - lo
    c = (hi - xr) - lo
    k = kf.astype(I32)
    hfx = _HALF * xr
    hxs = xr * hfx
    r1 = _ONE + hxs * (_Q[0] + hxs * (_Q[1] + hxs * (_Q[2] + hxs * (_Q[3] + hxs * _Q[4]))))
    t = _f(3) - r1 * hfx
    e = hxs * ((r1 - t) / (_f(6) - xr * t))
    r = xr - (xr * e - hxs)  # k == 0
    e = (xr * (e - c) - c) - hxs
    # each branch below only where some element takes it (the selects keep r elsewhere)
    at = k == -1
    if at.any():
        r = select(at, _HALF * (xr - e) - _HALF, r)
    at = k == 1
    if at.any():
        k1 = select(xr < _f(-0.25), -_TWO * (e - (xr + _HALF)), _ONE + _TWO * (xr - e))
        r = select(at, k1, r)
    # |k| >= 2: 2**k (1 - (e - x)) - 1, with 1 - 2**-k or 2**-k folded in for k in [2, 56]
    far = (k <= -2) | (k > 56)
    if far.any():
        r = select(far, _add_exponent(_ONE - (e - xr), k) - _ONE, r)
    mid = (k >= 2) & (k < 23)
    if mid.any():
        t = _from_bits(0x3F800000 - (0x1000000 >> np.clip(k, 0, 23)))
        r = select(mid, _add_exponent(t - (e - xr), k), r)
    top = (k >= 23) & (k <= 56)
    if top.any():
        t = _from_bits((0x7F - np.clip(k, 0, 127)) << 23)
        r = select(top, _add_exponent((xr - (e + t)) + _ONE, k), r)
    if ((hx < 0x33000000) | (hx >= 0x4195B844)).any():  # tiny, large or NaN (rare)
        r = select(hx < 0x33000000, x, r)  # |x| < 2**-25: x
        r = select(neg & (hx >= 0x4195B844), _f(-1), r)  # x <= -27 ln2
        r = select((hx >= 0x42B17218) & (x > 0), _f(np.inf), r)  # overflow checked from 88.7228
        r = select(np.isnan(x), x, r)
    return r


_expm1f_replay = _fdlibm_or_rounded(_expm1f_fdlibm, np.expm1)


# ---- log1pf (fdlibm) -------------------------------------------------------------------------
_LP = tuple(
    _f(c)
    for c in (
        6.6666668653e-01,
        4.0000000596e-01,
        2.8571429849e-01,
        2.2222198546e-01,
        1.8183572590e-01,
        1.5313838422e-01,
        1.4798198640e-01,
    )
)


def _log1pf_fdlibm(x):
    hx = _bits(x)
    ax = hx & 0x7FFFFFFF
    # k == 0: -0.2929 < x < 0.41422 is its own f = 1 + x - 1
    direct = (hx < 0x3ED413D7) & ((hx > 0) | (hx <= np.int32(-0x416A09E1)))
    # otherwise 1 + x = 2**k (1 + f) with sqrt(2)/2 <= 1 + f < sqrt(2), c the rounding of 1 + x
    small = hx < 0x5A000000
    u = select(small, _ONE + x, x)
    hu = _bits(u)
    k = (hu >> 23) - 127
    c = select(k > 0, _ONE - (u - x), x - (u - _ONE)) / u
    c = select(small, c, _f(0))
    hu &= 0x007FFFFF
    low = hu < 0x3504F7
    u = _from_bits(select(low, hu | 0x3F800000, hu | 0x3F000000))
    k = select(low, k, k + 1)
    hu = select(low, hu, (0x00800000 - hu) >> 2)
    f = u - _ONE
    k = select(direct, np.int32(0), k)
    f = select(direct, x, f)
    hu = select(direct, np.int32(1), hu)
    kf = k.astype(F32)
    hfsq = _HALF * f * f
    s = f / (_TWO + f)
    z = s * s
    p = _LP[6]
    for coefficient in _LP[5::-1]:
        p = coefficient + z * p
    big_r = z * p
    r = select(
        k == 0,
        f - (hfsq - s * (hfsq + big_r)),
        kf * _LN2_HI - ((hfsq - (s * (hfsq + big_r) + (kf * _LN2_LO + c))) - f),
    )
    tiny = hu == 0  # |f| < 2**-20
    if tiny.any():
        tiny_r = hfsq * (_ONE - _f(0.66666666666666666) * f)
        t = select(k == 0, f - tiny_r, kf * _LN2_HI - ((tiny_r - (kf * _LN2_LO + c)) - f))
        exact = select(k == 0, _f(0), kf * _LN2_HI + (c + kf * _LN2_LO))
        r = select(tiny, select(f == 0, exact, t), r)
    if ((ax < 0x31000000) | (ax >= 0x7F800000) | (x <= -1)).any():  # tiny, -1 and below, inf, NaN
        r = select(ax < 0x31000000, select(ax < 0x24800000, x, x - x * x * _HALF), r)
        r = select(x == -1, _f(-np.inf), select(x < -1, _f(np.nan), r))
        r = select((hx >= 0x7F800000) | np.isnan(x), x + x, r)
    return r


_log1pf_replay = _fdlibm_or_rounded(_log1pf_fdlibm, np.log1p)


# ---- tanhf, sinhf, coshf (fdlibm, around expm1f and expf) -----------------------------------
def _tanhf_fdlibm(x):
    ax = np.abs(x)
    hx = _bits(ax)
    big = hx >= 0x3F800000
    t = expm1f(select(big, _TWO * ax, -_TWO * ax))  # one call for both branches
    z = select(big, _ONE - _TWO / (t + _TWO), -t / (t + _TWO))
    rare = bool(((hx >= 0x41B00000) | (hx < 0x24000000)).any())  # NaN's hx is above inf's
    if rare:
        z = select(hx >= 0x41B00000, _ONE, z)  # |x| >= 22 (and inf): 1
    z = np.copysign(z, x)
    if rare:
        z = select(hx < 0x24000000, x * (_ONE + x), z)  # |x| < 2**-55 (and 0)
        z = select(np.isnan(x), x, z)
    return z


_tanhf_replay = _fdlibm_or_rounded(_tanhf_fdlibm, np.tanh)


_EXP_HALF_FROM = 0x42B17180  # |x| from here: exp(|x| / 2)**2 / 2, exp(|x|) / 2 overflowing


def _half_exp(ax, hx):
    """``exp(|x|) / 2`` for |x| >= 22, as fdlibm's sinhf/coshf compute it."""
    w = expf(select(hx < _EXP_HALF_FROM, ax, _HALF * ax))
    r = select(hx < _EXP_HALF_FROM, _HALF * w, (_HALF * w) * w)
    return select(hx > 0x42B2D4FC, _f(np.inf), r)


def _sinhf_fdlibm(x):
    ax = np.abs(x)
    hx = _bits(ax)
    t = expm1f(ax)
    r = select(hx < 0x3F800000, _TWO * t - t * t / (t + _ONE), t + t / (t + _ONE)) * _HALF
    far = hx >= 0x41B00000  # |x| >= 22 (rare): exp(|x|) / 2
    if far.any():
        r = select(far, _half_exp(ax, hx), r)
    if ((hx < 0x31800000) | (hx > 0x7F800000)).any():  # tiny or NaN (rare)
        r = select(hx < 0x31800000, ax, r)  # |x| < 2**-28: x
        return select(np.isnan(x), x, np.copysign(r, x))
    return np.copysign(r, x)


_sinhf_replay = _fdlibm_or_rounded(_sinhf_fdlibm, np.sinh)


def _coshf_fdlibm(x):
    ax = np.abs(x)
    hx = _bits(ax)
    e = expf(ax)
    r = _HALF * e + _HALF / e
    near0 = hx < 0x3EB17218
    if near0.any():  # |x| < ln2 / 2: 1 + expm1(|x|)**2 / (2 exp(|x|))
        t = expm1f(ax)
        w = _ONE + t
        r = select(near0, _ONE + (t * t) / (w + w), r)
    tiny = hx < 0x24000000
    if tiny.any():
        r = select(tiny, _ONE, r)
    far = hx >= 0x41B00000  # NaN too
    if far.any():
        r = select(far, _half_exp(ax, hx), r)
        r = select(np.isnan(x), x, r)
    return r


_coshf_replay = _fdlibm_or_rounded(_coshf_fdlibm, np.cosh)


# ---- atanhf (fdlibm, around log1pf) ---------------------------------------------------------
def _atanhf_fdlibm(x):
    xa = np.abs(x)
    t = xa + xa
    near0 = _HALF * log1pf(t + t * xa / (_ONE - xa))
    t = select(xa < _HALF, near0, _HALF * log1pf(t / (_ONE - xa)))
    t = select(xa < _f(2.0**-28), xa, t)
    t = select(xa == _ONE, _f(np.inf), select(xa > _ONE, _f(np.nan), t))
    return select(np.isnan(x), x, np.copysign(t, x))


_atanhf_replay = _fdlibm_or_rounded(_atanhf_fdlibm, np.arctanh)


# ---- atanf, atan2f (fdlibm) ------------------------------------------------------------------
_ATAN_HI = np.array([4.6364760399e-01, 7.8539812565e-01, 9.8279368877e-01, 1.5707962513e00], F32)
_ATAN_LO = np.array([5.0121582440e-09, 3.7748947079e-08, 3.4473217170e-08, 7.5497894159e-08], F32)
_AT = tuple(
    _f(c)
    for c in (
        3.3333334327e-01,
        -2.0000000298e-01,
        1.4285714924e-01,
        -1.1111110449e-01,
        9.0908870101e-02,
        -7.6918758452e-02,
        6.6610731184e-02,
        -5.8335702866e-02,
        4.9768779427e-02,
        -3.6531571299e-02,
        1.6285819933e-02,
    )
)


def _atanf_fdlibm(x):
    ax = np.abs(x)
    hx = _bits(ax)
    # reduce |x| around 0.5, 1, 1.5 or infinity (id 0-3); below 7/16 no reduction (id -1)
    # (the thresholds increase: the count of those reached, less one, without np.select's branches)
    ident = (hx >= 0x3EE00000).astype(I32) - 1
    for bound in (0x3F300000, 0x3F980000, 0x401C0000):
        ident += hx >= bound
    reduced = select(
        ident == 0,
        (_TWO * ax - _ONE) / (_TWO + ax),
        select(
            ident == 1,
            (ax - _ONE) / (ax + _ONE),
            select(ident == 2, (ax - _f(1.5)) / (_ONE + _f(1.5) * ax), _f(-1) / ax),
        ),
    )
    v = select(ident < 0, x, reduced.astype(F32))
    z = v * v
    w = z * z
    s1 = z * (_AT[0] + w * (_AT[2] + w * (_AT[4] + w * (_AT[6] + w * (_AT[8] + w * _AT[10])))))
    s2 = w * (_AT[1] + w * (_AT[3] + w * (_AT[5] + w * (_AT[7] + w * _AT[9]))))
    i = np.maximum(ident, 0)
    far = _ATAN_HI[i] - ((v * (s1 + s2) - _ATAN_LO[i]) - v)
    r = select(ident < 0, v - v * (s1 + s2), np.copysign(far, x))
    r = select(hx < 0x31000000, x, r)  # |x| < 2**-29: x
    r = select(hx >= 0x4C000000, np.copysign(_ATAN_HI[3] + _ATAN_LO[3], x), r)  # |x| >= 2**25
    return select(np.isnan(x), x, r)


_PI, _PI_2, _PI_4 = _f(3.1415927410e00), _f(1.5707963705e00), _f(7.8539818525e-01)
_PI_LO = _f(-8.7422776573e-08)


def _atan2f_fdlibm(y, x):
    hx, hy = _bits(x), _bits(y)
    ix, iy = hx & 0x7FFFFFFF, hy & 0x7FFFFFFF
    xneg, yneg = hx < 0, hy < 0
    k = (iy - ix) >> 23
    z = _atanf_fdlibm(np.abs(y / x))
    z = select(k > 60, _PI_2 + _HALF * _PI_LO, select(xneg & (k < -60), _f(0), z))
    r = select(xneg, _PI - (z - _PI_LO), z)  # quadrants 2, 3: pi - z (y's sign below)
    r = np.copysign(r, y)
    r = select(xneg & yneg, (z - _PI_LO) - _PI, r)
    # infinities (fdlibm's tables: +-pi/4, +-3pi/4, 0, +-pi, +-pi/2), zeros
    both_inf = (ix == 0x7F800000) & (iy == 0x7F800000)
    r = select(both_inf, np.copysign(select(xneg, _f(3) * _PI_4, _PI_4), y), r)
    x_inf_only = (ix == 0x7F800000) & ~both_inf
    r = select(x_inf_only, np.copysign(select(xneg, _PI, _f(0)), y), r)
    r = select((iy == 0x7F800000) & ~both_inf, np.copysign(_PI_2, y), r)
    r = select(ix == 0, np.copysign(_PI_2, y), r)
    r = select(iy == 0, select(xneg, np.copysign(_PI, y), y), r)
    one = hx == 0x3F800000
    if one.any():
        r = select(one, _atanf_fdlibm(y), r)  # x == 1: atanf(y)
    return select(np.isnan(x) | np.isnan(y), x + y, r)


def _atan2f_replay(y, x):
    """glibc's ``atan2f`` of float32 values (broadcast)."""
    y, x = np.broadcast_arrays(np.asarray(y, F32), np.asarray(x, F32))
    if not FDLIBM:
        with np.errstate(all="ignore"):
            return np.arctan2(y.astype(F64), x.astype(F64)).astype(F32)
    with np.errstate(all="ignore"):
        return _atan2f_fdlibm(y, x)


# ---- powf (glibc >= 2.28: log2 and exp2 in double) ------------------------------------------
# (1/c, log2 c) for 16 subintervals of [0x3f330000, 2 * that) (c near each one's centre)
_POW_INVC, _POW_LOGC = (
    np.array([float.fromhex(h) for h in column])
    for column in zip(
        *(
            ("0x1.661ec79f8f3bep+0", "-0x1.efec65b963019p-2"),
            ("0x1.571ed4aaf883dp+0", "-0x1.b0b6832d4fca4p-2"),
            ("0x1.49539f0f010bp+0", "-0x1.7418b0a1fb77bp-2"),
            ("0x1.3c995b0b80385p+0", "-0x1.39de91a6dcf7bp-2"),
            ("0x1.30d190c8864a5p+0", "-0x1.01d9bf3f2b631p-2"),
            ("0x1.25e227b0b8eap+0", "-0x1.97c1d1b3b7afp-3"),
            ("0x1.1bb4a4a1a343fp+0", "-0x1.2f9e393af3c9fp-3"),
            ("0x1.12358f08ae5bap+0", "-0x1.960cbbf788d5cp-4"),
            ("0x1.0953f419900a7p+0", "-0x1.a6f9db6475fcep-5"),
            ("0x1p+0", "0x0p+0"),
            ("0x1.e608cfd9a47acp-1", "0x1.338ca9f24f53dp-4"),
            ("0x1.ca4b31f026aap-1", "0x1.476a9543891bap-3"),
            ("0x1.b2036576afce6p-1", "0x1.e840b4ac4e4d2p-3"),
            ("0x1.9c2d163a1aa2dp-1", "0x1.40645f0c6651cp-2"),
            ("0x1.886e6037841edp-1", "0x1.88e9c2c1b9ff8p-2"),
            ("0x1.767dcf5534862p-1", "0x1.ce0a44eb17bccp-2"),
        ),
        strict=True,
    )
)
# 1/c split in two halves of 26 and 27 bits: z * each is exact for a float z (Veltkamp)
_POW_INVC_HI = _POW_INVC * 134217729.0 - (_POW_INVC * 134217729.0 - _POW_INVC)
_POW_INVC_LO = _POW_INVC - _POW_INVC_HI
_POW_LOG_A = tuple(
    float.fromhex(h)
    for h in (
        "0x1.27616c9496e0bp-2",
        "-0x1.71969a075c67ap-2",
        "0x1.ec70a6ca7baddp-2",
        "-0x1.7154748bef6c8p-1",
        "0x1.71547652ab82bp0",
    )
)
_POW_EXP_C = tuple(c * 32.0**p for c, p in zip(_EXP_C, (3, 2, 1), strict=True))  # unscaled
_POW_OVER = float.fromhex("0x1.fffffffd1d571p+6")  # log2 of the largest result below inf


def _log2_double(ix):
    """log2 of the positive float32 with (normalised) bits ``ix``, as glibc's powf: a table
    value plus a polynomial in ``r = z/c - 1``, whose FMA (glibc's x86-64 build) is exact here:
    z * (1/c) is the sum of two exact products, and z/c - 1 of the first is exact (Sterbenz)."""
    tmp = ix - np.uint32(0x3F330000)
    i = (tmp >> np.uint32(19)) & np.uint32(15)
    top = tmp & np.uint32(0xFF800000)
    k = top.view(I32) >> 23
    z = (ix - top).view(F32).astype(F64)
    r = (z * _POW_INVC_HI[i] - 1.0) + z * _POW_INVC_LO[i]
    a = _POW_LOG_A
    r2 = r * r
    q = (a[2] * r + a[3]) * r2 + (a[4] * r + (_POW_LOGC[i] + k))
    return (a[0] * r + a[1]) * (r2 * r2) + q


def _exp2_double(xd, negative):
    """2**xd (|xd| < 150) as glibc's powf: 2**(k/32) from the table times a cubic in the rest."""
    k = np.rint(xd * 32.0)
    r = xd - k / 32.0
    k = k.astype(np.int64)
    s = np.ldexp(_EXP2_32[k & 31], (k >> 5).astype(I32))
    c = _POW_EXP_C
    y = (c[0] * r + c[1]) * (r * r) + (c[2] * r + 1.0)
    return select(negative, -s, s) * y


def _checkint(iy):
    """0: not an integer, 1: odd, 2: even (``iy``: bits of a finite nonzero float)."""
    e = (iy >> 23) & 0xFF
    shift = np.clip(0x7F + 23 - e, 0, 31)
    frac = iy & ((1 << shift) - 1)
    odd = (iy >> shift) & 1
    r = (frac == 0) * (2 - odd)  # no fraction bits: 1 odd, 2 even (int32, no branches)
    return select(e < 0x7F, np.int32(0), select(e > 0x7F + 23, np.int32(2), r))


def _powf_glibc(x, y):
    ix, iy = x.view(I32), y.view(I32)
    ax, ay = ix & 0x7FFFFFFF, iy & 0x7FFFFFFF
    yint = _checkint(iy)
    negative = (ix < 0) & (yint == 1)  # the result's sign
    # |x| normalised: subnormals scaled by 2**23 with the exponent field taken back by 23
    sub = ax < 0x00800000
    scaled = (np.abs(x) * _f(2.0**23)).view(I32) - (23 << 23)
    bits = select(sub, scaled, ax).view(np.uint32)
    ylogx = y.astype(F64) * _log2_double(bits)
    r = _exp2_double(ylogx, negative).astype(F32)
    r = select(ylogx > _POW_OVER, select(negative, _f(-np.inf), _f(np.inf)), r)
    r = select(ylogx <= -150.0, select(negative, _f(-0.0), _f(0)), r)
    r = select((ix < 0) & (yint == 0), _f(np.nan), r)
    # x zero or infinite: x**2's sign and size, inverted for negative y
    x2 = select(negative, -(x * x), x * x)
    r = select((ax == 0) | (ax == 0x7F800000), select(iy < 0, _ONE / x2, x2), r)
    # y infinite: 1 at |x| == 1, 0 or inf by whether |x| < 1 and y's sign
    small = ax < 0x3F800000
    r_inf = select(ax == 0x3F800000, _ONE, select(small == (iy >= 0), _f(0), _f(np.inf)))
    r = select(ay == 0x7F800000, r_inf, r)
    r = select(np.isnan(x) | np.isnan(y), x + y, r)
    return select((ay == 0) | (ix == 0x3F800000), _ONE, r)


def _powf_replay(x, y):
    """glibc's ``powf`` (2.28 and later) of float32 values (broadcast)."""
    x, y = np.broadcast_arrays(np.asarray(x, F32), np.asarray(y, F32))
    with np.errstate(all="ignore"):
        return np.asarray(_powf_glibc(np.ascontiguousarray(x), np.ascontiguousarray(y)), F32)


# ---- logf (glibc >= 2.27: double arithmetic), asinhf and acoshf (fdlibm, around it) ------------
_LOGF_LOGC = np.array(
    [
        float.fromhex(h)
        for h in (
            "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2",
            "-0x1.b31d8a68224e9p-3", "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3",
            "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4", "-0x1.252f438e10c1ep-5",
            "0x0p+0", "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4", "0x1.526e57720db08p-3",
            "0x1.bc2860d22477p-3", "0x1.1058bc8a07ee1p-2", "0x1.4043057b6ee09p-2",
        )
    ]
)  # fmt: skip
_LOGF_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOGF_A = tuple(
    float.fromhex(h)
    for h in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2")
)


def _logf(x):
    """glibc's ``logf`` of positive finite float32 values (the 1/c table is powf's)."""
    ix = x.view(np.uint32)
    sub = ix < 0x00800000
    ix = select(sub, (x * _f(2.0**23)).view(np.uint32) - np.uint32(23 << 23), ix)
    tmp = ix - np.uint32(0x3F330000)
    i = (tmp >> np.uint32(19)) & np.uint32(15)
    k = tmp.view(I32) >> 23
    z = (ix - (tmp & np.uint32(0xFF800000))).view(F32).astype(F64)
    r = (z * _POW_INVC_HI[i] - 1.0) + z * _POW_INVC_LO[i]  # the FMA z/c - 1, exact as in powf
    a = _LOGF_A
    r2 = r * r
    y = a[0] * r2 + (a[1] * r + a[2])
    return (y * r2 + ((_LOGF_LOGC[i] + k * _LOGF_LN2) + r)).astype(F32)


_LN2_F = _f(6.9314718246e-01)


def _asinhf_fdlibm(x):
    xa = np.abs(x)
    ix = _bits(xa)
    big = _logf(select(ix > 0x47000000, xa, _ONE)) + _LN2_F
    t = xa * xa
    mid = _logf(np.maximum(_TWO * xa + _ONE / (np.sqrt(t + _ONE) + xa), _f(1e-30)))
    small = log1pf(xa + t / (_ONE + np.sqrt(_ONE + t)))
    w = select(ix > 0x47000000, big, select(ix > 0x40000000, mid, small))
    w = select(ix < 0x38000000, xa, w)
    return select(np.isnan(x) | np.isinf(x), x + x, np.copysign(w, x))


_asinhf_replay = _fdlibm_or_rounded(_asinhf_fdlibm, np.arcsinh)


def _acoshf_fdlibm(x):
    hx = _bits(x)
    huge = _logf(select(hx >= 0x4D800000, x, _ONE)) + _LN2_F
    t = x * x
    mid = _logf(np.maximum(_TWO * x - _ONE / (x + np.sqrt(t - _ONE)), _ONE))
    u = x - _ONE
    small = log1pf(u + np.sqrt(_TWO * u + u * u))
    r = select(hx >= 0x4D800000, huge, select(hx > 0x40000000, mid, small))
    r = select(hx == 0x3F800000, _f(0), r)
    r = select(hx < 0x3F800000, _f(np.nan), r)  # x < 1, negative x too
    return select(np.isnan(x) | (hx == 0x7F800000), x + x, r)


_acoshf_replay = _fdlibm_or_rounded(_acoshf_fdlibm, np.arccosh)


# ---- a few elements: libm itself -------------------------------------------------------------
# Up to this many elements a function is one ctypes call per element into the C library PyTorch
# calls (a row tail is 1-31 elements): the replays' ~30-80 NumPy passes cost more below it.
_CALL_BELOW = 256


_UNARY = ("expf", "expm1f", "log1pf", "tanhf", "sinhf", "coshf", "atanhf", "asinhf", "acoshf",
          "sinf")  # fmt: skip


def _load_libm() -> dict:
    """The C library's float functions (where it can be loaded: the one PyTorch calls)."""
    try:  # glibc's soname first: find_library would run ldconfig at import
        lib = ctypes.CDLL("libm.so.6")
    except OSError:
        from ctypes.util import find_library  # here only: it imports shutil and subprocess

        try:
            lib = ctypes.CDLL(find_library("m"))
        except (OSError, TypeError):  # no C library to call: the replays throughout
            return {}
    functions = {}
    for name, arity in (*((n, 1) for n in _UNARY), ("atan2f", 2), ("powf", 2)):
        fn = getattr(lib, name, None)
        if fn is not None:
            fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float] * arity
            functions[name] = fn
    return functions


_LIBM = _load_libm()


def _call(name, replay, *args):
    args = [np.asarray(a, F32) for a in args]
    if len(args) > 1:
        args = np.broadcast_arrays(*args)
    n = args[0].size
    fn = _LIBM.get(name)
    if fn is None or n > _CALL_BELOW:
        return np.asarray(replay(*args), F32)
    values = map(fn, *(a.ravel().tolist() for a in args))
    return np.fromiter(values, F32, n).reshape(args[0].shape)


def _libm_function(name: str, replay, what: str = ""):
    """The function ``name`` of glibc: libm itself on a few elements, else ``replay``."""

    def function(*args):
        return _call(name, replay, *args)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"glibc's ``{name}``{what} of float32 values."
    return function


expf = _libm_function("expf", _expf_replay, " (2.27 and later)")
expm1f = _libm_function("expm1f", _expm1f_replay)
log1pf = _libm_function("log1pf", _log1pf_replay)
tanhf = _libm_function("tanhf", _tanhf_replay)
sinhf = _libm_function("sinhf", _sinhf_replay)
coshf = _libm_function("coshf", _coshf_replay)
atanhf = _libm_function("atanhf", _atanhf_replay)
asinhf = _libm_function("asinhf", _asinhf_replay)
acoshf = _libm_function("acoshf", _acoshf_replay)
atan2f = _libm_function("atan2f", _atan2f_replay, " (y, x; broadcast)")
powf = _libm_function("powf", _powf_replay, " (2.28 and later; x, y broadcast)")


def sinf(x):
    """glibc's ``sinf`` of float32 values: libm itself, one call per element, up to
    ``libm.CALLS_BELOW`` elements (a replay is not written); beyond, or without the C library,
    float64 ``sin`` rounded to float32, which glibc 2.36's differs from in ~1% of elements."""
    from ..libm import CALLS_BELOW

    x = np.asarray(x, F32)
    fn = _LIBM.get("sinf")
    if fn is not None and x.size <= CALLS_BELOW:
        return np.fromiter(map(fn, x.ravel().tolist()), F32, x.size).reshape(x.shape)
    return np.sin(x.astype(F64)).astype(F32)
