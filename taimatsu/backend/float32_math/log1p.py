"""SLEEF's float32 ``log1pf_u10``, as PyTorch's ``Vectorized<float>::log1p`` calls it.

The algorithm: ``1 + d = 2**e * (1 + m)`` with ``1 + m`` in [0.75, 1.5) (``e`` from the
exponent of ``(1 + d) / 0.75``, ``m = d * 2**-e + (2**-e - 1)`` in one float32 FMA, so no
digits of a small ``d`` are lost), then ``log(1 + m) = 2 atanh(x)`` with ``x = m / (2 + m)``:
``2x + x**3 * t(x**2)``, ``t`` a float32 polynomial; ``e ln 2``, ``2x`` and the sum in
double-float (pairs of float32). Every step is replayed as SLEEF orders it, in float32
arithmetic and float32 FMAs (float64 for the double-float steps missed 0.1-0.3% of elements:
SLEEF's pairs are less precise): bit-identical to PyTorch 2.13 on 5M random inputs in (-1, 1e6).
Used by softplus, mish, log_sigmoid and logaddexp, which PyTorch writes around it.
"""

from __future__ import annotations

import numpy as np

from .primitives import F32, F64, add, f32, fma, mul

_LN2_HI, _LN2_LO = np.float32(0.69314718246459960938), np.float32(-1.904654323148236017e-09)
_POLY = tuple(np.float32(c) for c in (0.3027294874, 0.3996108174, 0.6666694880))
_FOUR_THIRDS = np.float32(1.0 / 0.75)
_ONE, _TWO = np.float32(1), np.float32(2)
_BOUND = np.float32(1e38)


def _exponent(v):
    """SLEEF's ``vgetexp``: floor(log2 |v|) of a float32 value (normal or subnormal)."""
    _, e = np.frexp(v)
    return (e - 1).astype(F64)


def log1pf(d):
    """SLEEF ``xlog1pf`` (``Sleef_log1pf16_u10``) of float32 values ``d``."""
    d = np.asarray(d, F32)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        _, k = np.frexp(mul(add(d, _ONE), _FOUR_THIRDS))
        k -= 1  # SLEEF's vgetexp: floor(log2)
        e = k.astype(F32)
        t = np.ldexp(_ONE, -k)  # 2**-e: exact (e <= 127 where the result is finite)
        # SLEEF's FMA d * t + (t - 1): d * t is exact (t a power of two), so float32's
        # multiply and add round once, as the FMA does.
        m = d * t
        m += t - _ONE
        # e ln 2 as a pair
        sx = _LN2_HI * e
        sy = fma(_LN2_LO, e, fma(_LN2_HI, e, -sx))
        # x = m / (2 + m) as a pair: the divisor a pair, its reciprocal refined by FMAs
        dx = _TWO + m
        dy = (_TWO - dx) + m
        rec = _ONE / dx
        xx = m * rec
        xy = fma(xx, fma(-dy, rec, fma(-dx, rec, _ONE)), fma(rec, m, -xx))
        x2 = xx * xx
        p = fma(fma(_POLY[0], x2, _POLY[1]), x2, _POLY[2])
        # e ln 2 + 2x + x**3 p(x**2), summed in pairs, then head + tail
        hx = sx + xx * _TWO
        hy = (((sx - hx) + xx * _TWO) + sy) + xy * _TWO
        q = (x2 * xx) * p
        r = hx + q
        r += ((hx - r) + q) + hy
    r = np.copysign(r, d)  # log1p keeps the sign of d: -0 for -0
    tiny = np.abs(d) < np.float32(2.0**-126)
    if tiny.any():
        # Subnormal d: SLEEF's double-float quotient x = m / (2 + m) rounds m / 2 into the
        # subnormals (its low part underflows to 0), so the result is 2 * round(d / 2), +0 when
        # that rounds to zero.
        tiny &= d != 0
        r[tiny] = mul(f32(d[tiny]) * np.float32(0.5), np.float32(2)) + np.float32(0)
    if d.size and not (d.min() > -1 and d.max() <= _BOUND):  # NaN fails too: cheap check
        big = d > _BOUND  # SLEEF (3.8+) switches to its logf: ~log(d)
        r[big] = np.log(d[big].astype(F64)).astype(F32)
        r[d < -1] = np.nan
        r[d == -1] = -np.inf
    return r


log1pf.takes_float32 = True  # ``run`` hands it float32 blocks: it reads them as float32 anyway
