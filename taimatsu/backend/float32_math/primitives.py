"""float32 building blocks of SLEEF-style kernels, emulated in float64 with NumPy.

A float32 fused multiply-add ``fma(a, b, c)`` rounds ``a * b + c`` once. The product of two
float32 values is exact in float64, so ``a * b + c`` computed in float64 and rounded to float32
differs from a true FMA only by a rare double rounding (the float64 sum rounding onto a float32
midpoint). Arguments may be float32 arrays or float64 arrays holding float32 values; results are
float32 arrays (NumPy widens them again where they meet float64).
"""

from __future__ import annotations

import numpy as np

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


def f32(x):
    """``x`` rounded to float32 (round to nearest even), as a float32 array."""
    return np.asarray(x).astype(F32, copy=False)


def fma(a, b, c):
    """float32 ``a * b + c`` rounded once (``a``, ``b``, ``c`` float32 values)."""
    a, b = np.asarray(a), np.asarray(b)
    if b.size > a.size:  # the product is exact: either operand may come first
        a, b = b, a
    shape = np.broadcast_shapes(a.shape, b.shape, np.shape(c))
    if a.shape == shape:  # in place in one float64 copy (no casting buffers, no second copy)
        p = a.astype(F64)
        p *= b
        p += c
    else:
        p = np.multiply(a, b, dtype=F64) + c
    return p.astype(F32)


def mul(a, b):
    """float32 ``a * b`` (one rounding: NumPy's float32 loop, IEEE like the SIMD instruction)."""
    return np.multiply(a, b, dtype=F32)


def add(a, b):
    """float32 ``a + b`` (one rounding)."""
    return np.add(a, b, dtype=F32)


def rint(x):
    """Round to the nearest integer, ties to even (the SIMD round instruction's default mode)."""
    return np.rint(x)


def ldexp(x, q):
    """``x * 2**q`` rounded once to float32 (``q`` integral, float or int array).

    SLEEF scales by two powers of two (``2**(q >> 1)`` then ``2**(q - (q >> 1))``) so that no
    factor overflows; the first product is exact, so the result is ``x * 2**q`` rounded once,
    which float64 holds exactly for the exponents float32 results reach (inf on overflow,
    gradual underflow into the subnormals).
    """
    with np.errstate(over="ignore"):
        return np.ldexp(np.asarray(x, F64), np.asarray(q).astype(np.int32, copy=False)).astype(F32)
