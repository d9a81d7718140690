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
from .primitives import F32, fma, mul

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
    """SLEEF ``xpowf`` (``Sleef_powf16_u10``) of float32 values ``x``, ``y`` (broadcast)."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        lx, ly = logk(ax)
        r = expk(*df.mul_scalar(lx, ly, np.asarray(y, F32)))
        if (x > 0).all() and np.isfinite(x).all() and np.isfinite(y).all():
            return r  # no special case applies (x == 1 and y == 0 already give 1)
        r[np.isnan(r)] = np.inf
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
