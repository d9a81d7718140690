"""SLEEF's double-float arithmetic (``df.h``, FMA build): a value held as a pair of float32
``(hi, lo)`` with ``hi + lo`` ~48 bits, each operation in float32 NumPy arithmetic as SLEEF orders
it (FMAs through ``primitives.fma``). Arguments are float32 arrays or scalars; results pairs."""

from __future__ import annotations

import numpy as np

from .primitives import fma

_ONE = np.float32(1)


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
    return s, fma(xx, yy, fma(xy, yx, fma(xx, yx, -s)))


def mul_scalar(xx, xy, y):
    """Product of a pair and a float (``dfmul_vf2_vf2_vf``)."""
    s = xx * y
    return s, fma(xy, y, fma(xx, y, -s))


def div(nx, ny, dx, dy):
    """Quotient of two pairs (``dfdiv``)."""
    t = _ONE / dx
    s = nx * t
    u = fma(t, nx, -s)
    v = fma(-dy, t, fma(-dx, t, _ONE))
    return s, fma(s, v, fma(ny, t, u))
