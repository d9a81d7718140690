"""SLEEF's float32 ``powf_u10``, as PyTorch's ``Vectorized<float>::pow`` calls it (tensor ** float
scalar other than 0.5, 2, 3, -0.5, -1, -2; scalar ** tensor; tensor ** tensor).

The algorithm: ``pow(x, y) = exp(y * log|x|)`` with ``log|x|`` from ``logkf`` (``|x| = 2**e * m``,
``m`` in [0.75, 1.5), ``log m = 2 atanh((m - 1) / (m + 1))`` by a float32 polynomial inside
double-float arithmetic) and ``exp`` from ``expkf`` (Cody-Waite reduction, a float32
polynomial, double-float sums, the result rounded to float32 *before* scaling by ``2**q``),
then C99's special cases. Every step is replayed as SLEEF orders it, the double-float ones in
pairs of float32 with float32 FMAs (float64 for those missed ~0.01% of elements: SLEEF's pairs
are less precise), and the final scaling by ``2**q`` in SLEEF's five power-of-two factors (one
rounding where the result is subnormal).
"""

from __future__ import annotations

import numpy as np

from . import double_float as df
from .exp import L2L, L2U, R_LN2
from .primitives import F32, F64, fma, mul

_LOG_POLY = tuple(
    np.float32(c)
    for c in (0.240320354700088500976562, 0.285112679004669189453125, 0.400007992982864379882812)
)
_LOG_C = (np.float32(0.66666662693023681640625), np.float32(3.69183861259614332084311e-09))
_LN2 = (np.float32(0.69314718246459960938), np.float32(-1.904654323148236017e-09))
_EXP_POLY = tuple(
    np.float32(c)
    for c in (
        0.00136324646882712841033936,
        0.00836596917361021041870117,
        0.0416710823774337768554688,
        0.166665524244308471679688,
        0.499999850988388061523438,
    )
)
_FOUR_THIRDS = np.float32(1.0 / 0.75)
_F = np.float32
_ONE, _TWO = _F(1), _F(2)


def _square(x, y):
    s = x * x
    return s, fma(x + x, y, fma(x, x, -s))


def logk(d):
    """SLEEF ``logkf``: log of float32 ``d`` > 0 as a pair of float32 (its double-float result)."""
    scaled = mul(d, _FOUR_THIRDS)
    _, e = np.frexp(scaled)
    e = np.where(np.isinf(scaled), 128, e - 1)  # AVX-512's getexp: d * 4/3 overflowed
    m = np.ldexp(np.asarray(d, F32), -e).astype(F32)  # in [0.75, 1.5): exact
    e = e.astype(F32)
    nx, ny = df.add2(_F(-1), m)
    dx, dy = df.add2(_ONE, m)
    t = _ONE / dx  # the quotient (m - 1) / (m + 1) as a pair: a reciprocal refined by FMAs
    xx = nx * t
    xy = fma(xx, fma(-dy, t, fma(-dx, t, _ONE)), fma(ny, t, fma(t, nx, -xx)))
    qx, qy = _square(xx, xy)
    p = fma(fma(_LOG_POLY[0], qx, _LOG_POLY[1]), qx, _LOG_POLY[2])
    sx, sy = df.mul_scalar(_LN2[0], _LN2[1], e)
    hx = sx + xx * _TWO
    hy = (((sx - hx) + xx * _TWO) + sy) + xy * _TWO
    px, py = df.mul_scalar(qx, qy, p)
    cx, cy = df.add2(px, _LOG_C[0])
    cy += py + _LOG_C[1]
    tx, ty = df.mul(*df.mul(qx, qy, xx, xy), cx, cy)
    rx = hx + tx
    return rx, (((hx - rx) + tx) + hy) + ty


def _ldexp(x, q):
    """SLEEF's ``vldexp``: ``x * 2**q`` by four equal power-of-two factors and a last one (a
    result in the subnormals rounds at the last product)."""
    m = q >> 31
    m = (((m + q) >> 6) - m) << 4
    q = q - (m << 2)
    u = np.clip(m + 127, 0, 255).astype(np.int32) << 23
    u = u.view(F32)
    x = x * u * u * u * u
    return x * ((q + 127).astype(np.int32) << 23).view(F32)


def expk(dx, dy):
    """SLEEF ``expkf`` of the pair (dx, dy), as float32."""
    q = np.rint((dx + dy) * R_LN2)
    a = q * -L2U
    sx, sy = df.add2(dx, a)
    sy += dy
    a = q * -L2L
    tx, ty = df.add2(sx, a)
    ty += sy
    sx = tx + ty  # normalised
    sy = (tx - sx) + ty
    u = _EXP_POLY[0]
    for c in _EXP_POLY[1:]:
        u = fma(u, sx, c)
    px, py = df.mul_scalar(*_square(sx, sy), u)
    tx = sx + px
    ty = (((sx - tx) + px) + sy) + py
    ox = _ONE + tx
    r = _ldexp(ox + (((_ONE - ox) + tx) + ty), q.astype(np.int32))
    return np.where(dx < -104, _F(0), r)


def powf(x, y):
    """SLEEF ``xpowf`` (``Sleef_powf16_u10``) of float32 values ``x``, ``y`` (broadcast): the
    float64 estimate of ``_estimated`` where it decides SLEEF's rounding, SLEEF's steps replayed
    (``expk(logk)``) elsewhere (subnormal bases, results outside the normal range, values too
    near a float32 rounding boundary: 0.004% of ``x ** 1.5`` on [-8, 8]), and ``_replayed`` (C99's
    special cases) for zero, infinite or NaN operands."""
    x, y = np.asarray(x, F32), np.asarray(y, F32)
    if x.shape != y.shape:
        x = np.broadcast_to(x, np.broadcast_shapes(x.shape, y.shape))
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        r, redo = _estimated(ax, y)
        normal = (ax >= _TINY) & (ax < np.inf)  # NaN fails both
        finite_y = np.abs(y) < np.inf
        special = None
        if not (normal.all() and finite_y.all()):
            special = ~((ax > 0) & (ax < np.inf) & finite_y)
            redo |= ~normal  # subnormal bases
            redo &= ~special
        if redo.any():
            r[redo] = _core(ax[redo], np.broadcast_to(y, ax.shape)[redo])
        negative = x < 0
        if negative.any():  # |x| ** y with the sign (or NaN) SLEEF gives a negative base
            r = _signed(r, x, negative, y)
        if special is not None and special.any():
            r[special] = _replayed(x[special], np.broadcast_to(y, ax.shape)[special])
    return r


def _signed(r, x, negative, y):
    """``r`` (``|x| ** y``, not negative) where ``x >= 0``, times SLEEF's factor for ``x < 0``."""
    sign = _sign_of_negative_base(y)
    if sign.ndim:
        return np.where(negative, r * sign, r)
    if sign == 1:
        return r
    if sign == -1:
        return np.copysign(r, x)
    r[negative] = np.nan
    return r


def _core(ax, y):
    """SLEEF's steps for finite positive ``ax`` and finite ``y``: ``exp(y log ax)``."""
    r = expk(*df.mul_scalar(*logk(ax), y))
    r[np.isnan(r)] = np.inf  # y log ax overflowed float32 (pow(10, 1e38))
    return r


_TINY = np.float32(2.0**-126)  # the smallest normal float32


def _sign_of_negative_base(y):
    """SLEEF's factor for ``x < 0``: -1 for odd integral ``y``, 1 for even, NaN otherwise."""
    yint = (np.trunc(y) == y) | (np.abs(y) > 2.0**24)
    yodd = yint & (np.abs(y) < 2.0**24) & (np.fmod(np.trunc(y), 2) != 0)
    return np.where(yint, np.where(yodd, -1, 1), np.nan).astype(F32)


def _estimated(ax, y):
    """SLEEF's powf of normal positive float32 ``ax`` and finite ``y``, and where it may not be.

    Every float32 value that steers SLEEF's steps is taken as SLEEF rounds it: logkf's ``e``, ``m``
    and polynomial ``p`` (from its quotient's and square's heads, float32 roundings of exact
    values), expkf's ``q`` and ``q * ln 2`` parts, and its polynomial ``u`` of the reduced
    argument's head ``sx``. The double-float steps run in float64 instead of pairs of float32:
    ``D = y log ax`` (SLEEF's pair ``(dx, dy)``: ``Dp``), the reduced ``s = D - q ln 2``, and
    ``V = 1 + s + s**2 u``, whose float32 rounding SLEEF scales by ``2**q``. Where the pair's value
    may lie on the other side of a float32 rounding boundary than the float64 one (for ``q``,
    ``sx`` -- unless ``u`` comes out the same either way -- and ``V``), the element is flagged
    ``redo``; also results outside the normal range (``q`` outside [-124, 126]).

    How far the float64 values lie from SLEEF's pairs (each double-float step rounds at ~2**-48
    of what it holds; float64's own roundings, 2**-53, are negligible beside them): logkf's pair is
    within 2**-43.3 |log ax| of its formula computed exactly (dfdiv's quotient: 2**-44.5, doubled
    into ``2x``; the other steps ~2**-47 each; |e ln 2| and |2x| are at most 2.5 |log ax|), the
    product by ``y`` adds 2**-47 |D|: |D - Dp| <= 2**-43.1 |D|. expkf's tails add two float32
    roundings of sums under 2**-25 + 2**-23 |D| (|dy| <= 2**-23 |D|): |s - sp| <= 2**-42.9 |D| +
    2**-48.7 (also where ``s`` is tiny or a tail underflows). ``V`` moves by 1 + 2 |s| u <= 1.4
    times that, plus 2**-47 for its pair products and tail: |V - Vp| <= 2**-42.4 |D| + 2**-46.4.
    The margins taken (2**-41 |D| for ``D``, 2**-41 |D| + 2**-45 for ``s``, twice that for ``V``)
    are four times these bounds or more; measured over tens of millions of inputs, the largest
    distance is under 0.4 of the bound (so under 0.1 of the margin).
    """
    scaled = ax * _FOUR_THIRDS
    k = scaled.view(np.int32) >> 23
    k -= 127  # the exponent of the float32 product; 128 where it overflowed (AVX-512's getexp)
    m = (ax.view(np.int32) - (k << 23)).view(F32)  # ax / 2**k, in [0.75, 1.5): exact
    xx = (m - _ONE) * (_ONE / (m + _ONE))  # dfdiv's head, as SLEEF rounds it
    p = _horner(xx * xx, _LOG_POLY)
    # log ax = e ln 2 + 2x + x**3 (x**2 p + c) with x = (m - 1) / (m + 1), SLEEF's pairs ln 2, c
    d = m.astype(F64)
    x = d - 1
    d += 1
    x /= d
    t = x * x
    d[...] = p
    d *= t
    d += _LOG_C64
    d *= t
    d *= x
    x *= 2
    d += x
    x[...] = k
    x *= _LN2_64
    d += x
    d *= y.astype(F64) if y.ndim else float(y)
    err = np.abs(d)
    err *= _D_ERR  # |D - Dp| at most
    # SLEEF's float32 steps for q are monotone in D: one q for all D within err is Dp's q
    t = d + err
    q = _quotient(t)
    np.subtract(d, err, out=t)
    redo = q != _quotient(t)
    s = q.astype(F64)
    s *= -_L2U64
    s += d
    t[...] = q * -L2L  # the float32 product, as SLEEF's (widened first: no mixed-dtype loop)
    s += t
    err += _S_ERR  # |s - sp| at most
    np.add(s, err, out=t)
    sx = t.astype(F32)
    u = _horner(sx, _EXP_POLY)
    np.subtract(s, err, out=t)
    other = t.astype(F32) != sx  # sp may round to either: u must be one for both
    if other.any():
        redo[other] |= _horner(t[other].astype(F32), _EXP_POLY) != u[other]
    v = s * s
    v *= u.astype(F64)
    v += s
    v += 1
    err *= 2  # |V - Vp| at most
    np.add(v, err, out=t)
    r = t.astype(F32)
    v -= err
    redo |= v.astype(F32) != r
    redo |= ~(np.abs(q - _ONE) <= 125)  # a normal float32 result: q in [-124, 126] (not NaN)
    r *= ((q.astype(np.int32) + 127) << 23).view(F32)  # 2**q: exact
    return r, redo


def _horner(x, coefficients):
    """SLEEF's float32 polynomial by FMAs at float32 ``x``, as the replay rounds it (``fma``;
    ``x`` widened once: float64 operands keep ``fma`` off NumPy's mixed-dtype loops)."""
    x = x.astype(F64)
    u = coefficients[0]
    for c in coefficients[1:]:
        u = fma(u, x, c)
    return u


def _quotient(d):
    """SLEEF's ``q = rint(f32(dx + dy) * R_LN2)`` for a pair of value ``d`` (float32 steps)."""
    return np.rint(d.astype(F32) * R_LN2)


_LOG_C64 = float(_LOG_C[0]) + float(_LOG_C[1])  # the pairs SLEEF adds and multiplies by: exact
_LN2_64 = float(_LN2[0]) + float(_LN2[1])
_L2U64 = float(L2U)
_D_ERR = 2.0**-41  # relative: |D - Dp| <= 2**-43.1 |D|
_S_ERR = 2.0**-45  # added: |s - sp| <= 2**-42.9 |D| + 2**-48.7


def _replayed(x, y):
    """SLEEF ``xpowf`` of float32 values ``x``, ``y`` (broadcast), every step as SLEEF takes it."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        lx, ly = logk(ax)
        r = expk(*df.mul_scalar(lx, ly, np.asarray(y, F32)))
        r[np.isnan(r)] = np.inf  # y log |x| overflowed float32 (pow(10, 1e38))
        if (x > 0).all() and np.isfinite(x).all() and np.isfinite(y).all():
            return r  # no special case applies (x == 1 and y == 0 already give 1)
        yint = (np.trunc(y) == y) | (np.abs(y) > 2.0**24)
        yodd = yint & (np.abs(y) < 2.0**24) & (np.fmod(np.trunc(y), 2) != 0)
        sign = np.where(yint, np.where(yodd, -1, 1), np.nan).astype(F32)
        r = np.where(x > 0, r, r * sign)
        # y = +-inf: 0, 1 or inf by whether |x| is below, at or above 1 (as the sign of y says)
        efx = np.where(np.signbit(y), 1 - ax, ax - 1)
        r = np.where(np.isinf(y), np.where(efx < 0, 0, np.where(efx == 0, 1, np.inf)), r)
        # x = +-inf or +-0: 0 or inf by the signs, with x's sign for odd integral y
        big = np.where(np.signbit(y) ^ (x == 0), 0, np.inf)
        r = np.where(np.isinf(x) | (x == 0), np.copysign(big, np.where(yodd, x, 1)), r)
        r = np.where(np.isnan(x) | np.isnan(y), np.nan, r)
        r = np.where((y == 0) | (x == 1), 1, r)
    return r.astype(F32, copy=False)
