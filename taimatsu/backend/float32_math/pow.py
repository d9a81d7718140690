"""SLEEF's float32 ``powf_u10``, as PyTorch's ``Vectorized<float>::pow`` calls it (tensor ** float
scalar other than 0.5, 2, 3, -0.5, -1, -2; scalar ** tensor; tensor ** tensor).

The algorithm: ``pow(x, y) = exp(y * log|x|)`` with ``log|x|`` from ``logkf`` (``|x| = 2**e * m``,
``m`` in [0.75, 1.5), ``log m = 2 atanh((m - 1) / (m + 1))`` by a float32 polynomial inside
double-float arithmetic) and ``exp`` from ``expkf`` (Cody-Waite reduction, a float32
polynomial, double-float sums, the result rounded to float32 *before* scaling by ``2**q``),
then C99's special cases. Float32 steps round as SLEEF's, double-float steps run in float64
(see ``exp``).
"""

from __future__ import annotations

import numpy as np

from .exp import L2L, L2U, R_LN2
from .primitives import F32, F64, fma, mul

_LOG_POLY = tuple(
    np.float32(c)
    for c in (0.240320354700088500976562, 0.285112679004669189453125, 0.400007992982864379882812)
)
_LOG_C = np.float64(np.float32(0.66666662693023681640625)) + np.float64(
    np.float32(3.69183861259614332084311e-09)
)
_LN2 = np.float64(np.float32(0.69314718246459960938)) + np.float64(
    np.float32(-1.904654323148236017e-09)
)
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


def _horner(s, coefficients):
    """A float32 polynomial in float32 ``s``: the first steps as a float32 multiply and add
    (SLEEF fuses them: the difference reaches pow's result in <0.01% of elements), the last
    one as an exact FMA."""
    u = s * coefficients[0]
    u += coefficients[1]
    for c in coefficients[2:-1]:
        u *= s
        u += c
    return fma(u, s, coefficients[-1]) if len(coefficients) > 2 else u


def logk(d):
    """SLEEF ``logkf``: log of float32 ``d`` > 0 as float64 (its double-float result)."""
    scaled = mul(d, _FOUR_THIRDS)
    _, e = np.frexp(scaled)
    e = np.where(np.isinf(scaled), 128.0, e - 1.0)  # AVX-512's getexp: d * 4/3 overflowed
    m = np.asarray(d, F64) * np.exp2(-e)  # in [0.75, 1.5): exact
    x = (m - 1) / (m + 1)
    x2 = x * x
    t = _horner(x2.astype(F32), _LOG_POLY)
    return e * _LN2 + 2 * x + x2 * x * (x2 * t + _LOG_C)


def expk(d):
    """SLEEF ``expkf`` of a double-float ``d`` held in float64, rounded to float32."""
    q = np.rint(mul(d.astype(F32), R_LN2))
    s = d - q * np.float64(L2U)
    s += mul(q, -L2L)
    u = _horner(s.astype(F32), _EXP_POLY)
    t = (s * s * u + s + 1).astype(F32)
    r = (t * np.exp2(q, dtype=F64)).astype(F32)
    r[d < -104] = 0
    return r


def powf(x, y):
    """SLEEF ``xpowf`` (``Sleef_powf16_u10``) of float32 values ``x``, ``y`` (broadcast)."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        r = expk(logk(ax) * y)
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
