"""digamma and trigamma as PyTorch's CPU kernels compute them (ATen's ``calc_digamma`` and
``trigamma``), on float32 and float64 NumPy arrays: polygamma of orders 0 and 1 (higher orders
are a zeta function).

PyTorch runs one scalar function per element (its vectorised loop maps the same function), in
the input dtype's own arithmetic. digamma:

- ``x == 0``: infinity with the sign opposite to x's;
- ``x < 0``: NaN at the negative integers (and -inf), else ``digamma(1 - x) - pi / tan(pi * r)``
  with ``r`` the fractional part of x, the correction computed in float64 (rounded to float for
  float32);
- below 10, ``result -= 1 / x; x += 1`` until x reaches 10 or more; at exactly 10 the result is
  ``result + psi(10)``;
- else ``result + log(x) - 0.5 / x - z * P(z)``, ``z = 1 / x**2``, P a degree-6 polynomial by
  Horner's rule whose multiply-adds PyTorch's AVX2 and AVX-512 builds fuse (rounded once here:
  ``double_float.fused(once=True)``: exact in either dtype); P's term is left out
  from ``x >= 1e17``.

trigamma: where x < 0.5, ``-pi**2 / sin(pi * x)**2`` and x -> 1 - x, with the sign of the
result flipped; six steps ``result += 1 / x**2; x += 1``; then ``(1 + 1 / (2x) + u * (1/6 - u *
(1/30 - u / 42))) / x`` added, ``u = 1 / x**2``, its three multiply-adds fused.

``log``, ``tan`` and ``sin`` are the C library's. float32: glibc's ``logf`` (replayed in
``float32_math.glibc``) and its ``sinf`` (called: ``glibc.sinf``). float64: libm's through
``backend.libm``, one call per element, up to ``libm.CALLS_BELOW`` elements; beyond, NumPy's SIMD
``log``, ``tan`` and ``sin``, a last bit off in 0.02-0.3% of the elements (and beyond 65536
elements below 0.5, trigamma's float32 sine is a rounded float64 one: 1% a last bit off).
SciPy's ``psi``, used before, computed float32 in float64 and differed from PyTorch's bits in
85% of the elements of either dtype; its trigamma in 0.2-1% (float32) and 5e-10 relative
(float64).
"""

from __future__ import annotations

import numpy as np

from . import libm
from .float32_math.double_float import fused
from .float32_math.glibc import _logf, sinf
from .float32_math.primitives import select

# P's coefficients, highest degree first
_A = (
    8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
    -4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)  # fmt: skip
_PSI_10 = 2.25175258906672110764  # digamma(10)


def digamma(x: np.ndarray) -> np.ndarray:
    """PyTorch's digamma of a float32 or float64 array, in its dtype."""
    x = np.asarray(x)
    dt = x.dtype.type
    one = dt(1)
    with np.errstate(all="ignore"):
        neg = x < 0
        t = np.where(neg, one - x, x)  # digamma(1 - x) first where x < 0
        result = np.zeros_like(t)
        for _ in range(10):  # at most ten steps take any x in (0, 10) to [10, 11)
            low = t < 10
            if not low.any():
                break
            result = select(low, result - one / select(low, t, one), result)
            t = select(low, t + one, t)
        z = one / (t * t)
        p = np.full_like(z, _A[0])
        for a in _A[1:]:
            p = fused(p, z, dt(a), once=True)
        y = select(t < dt(1e17), z * p, dt(0))
        out = result + _log(t) - dt(0.5) / t - y
        out = select(t == 10, result + dt(_PSI_10), out)
        if neg.any():
            out = _reflected(x, neg, out)
        return select(x == 0, np.copysign(dt(np.inf), -x), out)


def trigamma(x: np.ndarray) -> np.ndarray:
    """PyTorch's trigamma (polygamma of order 1) of a float32 or float64 array, in its dtype."""
    x = np.asarray(x)
    dt = x.dtype.type
    one = dt(1)
    f32 = dt is np.float32

    with np.errstate(all="ignore"):
        low = x < dt(0.5)
        result = np.zeros_like(x)
        if low.any():
            pi = dt(np.pi)
            s = (
                sinf(pi * x[low]) if f32 else libm.small_or_numpy("sin", pi * x[low])
            )  # pi * x in dt
            result[low] = -((pi * pi) / (s * s))
        t = select(low, one - x, x)
        for _ in range(6):
            result = result + one / (t * t)
            t = t + one
        u = one / (t * t)
        inner = fused(-u, dt(1 / 42), dt(1 / 30), once=True)
        inner = fused(-u, inner, dt(1 / 6), once=True)
        series = fused(u, inner, one + one / (dt(2) * t), once=True)
        result = result + series / t
        return select(low, -result, result)


def _log(t):
    """The C library's log of the shifted arguments (all >= 10, +inf or NaN)."""
    if t.dtype == np.float64:
        return libm.small_or_numpy("log", t)
    finite = np.isfinite(t)
    return select(finite, _logf(select(finite, t, np.float32(1))), t)


def _reflected(x, neg, out):
    """``out - pi / tan(pi * r)`` where x < 0 (``out`` holds digamma(1 - x) there), NaN at
    the negative integers and at -inf."""
    r = np.modf(x[neg].astype(np.float64))[0]
    correction = np.pi / libm.small_or_numpy("tan", np.pi * r)
    out[neg] -= correction.astype(x.dtype)
    return select(neg & (x == np.trunc(x)), x.dtype.type(np.nan), out)
