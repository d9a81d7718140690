"""SLEEF's double-float arithmetic (``df.h``, FMA build): a value held as a pair of float32
``(hi, lo)`` with ``hi + lo`` ~48 bits, each operation in float32 NumPy arithmetic as SLEEF orders
it (FMAs through ``fused``). Arguments are float32 arrays or scalars; results pairs. The same
steps on float64 pairs are SLEEF's double-double arithmetic (``dd.h``): every function here
takes either dtype, the FMAs exact in float64 (``_rng_math._fma64``)."""

from __future__ import annotations

import numpy as np

from .._rng_math import _fma64
from .primitives import fma

_ONE = np.float32(1)
_BIG = 2.0**511  # float64 operands past this are scaled first: _fma64's splitting overflows


def fused(a, b, c, once: bool = False):
    """``a * b + c`` rounded once, in the dtype of ``a``: float32 through ``primitives.fma``
    (``once`` settles its rare double rounding), float64 exactly (``_fma64``; operands past
    2^511 scaled by powers of two first, exact, and the result scaled back)."""
    if np.asarray(a).dtype != np.float64:
        return fma(a, b, c, once=once)
    a, b, c = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, c)))
    big_a, big_b = np.abs(a) > _BIG, np.abs(b) > _BIG
    if not (big_a.any() or big_b.any()):
        return _fma64(a, b, c)
    k = 512 * (big_a.astype(np.int32) + big_b)
    scaled = _fma64(np.ldexp(a, -512 * big_a), np.ldexp(b, -512 * big_b), np.ldexp(c, -k))
    return np.ldexp(scaled, k)


def add2(x, y):
    """Exact sum of two floats as a pair, either may be the larger (``dfadd2``)."""
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def add2_pair(xx, xy, y):
    """A pair plus a float, either may be the larger (``dfadd2_vf2_vf2_vf``)."""
    s, t = add2(xx, y)
    return s, t + xy


def add(xx, xy, yx, yy):
    """Pair sum for |x| >= |y| (``dfadd_vf2_vf2_vf2``)."""
    s = xx + yx
    return s, (((xx - s) + yx) + xy) + yy


def mul(xx, xy, yx, yy):
    """Product of two pairs (``dfmul``)."""
    s = xx * yx
    return s, fused(xx, yy, fused(xy, yx, fused(xx, yx, -s)))


def mul_scalar(xx, xy, y):
    """Product of a pair and a float (``dfmul_vf2_vf2_vf``)."""
    s = xx * y
    return s, fused(xy, y, fused(xx, y, -s))


def div(nx, ny, dx, dy):
    """Quotient of two pairs (``dfdiv``)."""
    t = _ONE / dx
    s = nx * t
    u = fused(t, nx, -s)
    v = fused(-dy, t, fused(-dx, t, _ONE))
    return s, fused(s, v, fused(ny, t, u))


def add2_pairs(x, y):
    """Sum of two pairs, either may be the larger (``dfadd2_vf2_vf2_vf2``)."""
    s = x[0] + y[0]
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y[0] - v)) + (x[1] + y[1])


def add2_float_pair(x, y):
    """A float plus a pair, either may be the larger (``dfadd2_vf2_vf_vf2``)."""
    s = x + y[0]
    v = s - x
    return s, ((x - (s - v)) + (y[0] - v)) + y[1]


def normalize(x):
    """The pair ``x`` renormalised (``dfnormalize``)."""
    s = x[0] + x[1]
    return s, (x[0] - s) + x[1]


def mul_exact(x, y):
    """The exact product of two floats as a pair (``dfmul_vf2_vf_vf``)."""
    s = x * y
    return s, fused(x, y, -s)


def square(x):
    """The square of a pair (``dfsqu_vf2_vf2``)."""
    s = x[0] * x[0]
    return s, fused(x[0] + x[0], x[1], fused(x[0], x[0], -s))
