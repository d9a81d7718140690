"""float32 building blocks of SLEEF-style kernels, emulated in float64 with NumPy.

A float32 fused multiply-add ``fma(a, b, c)`` rounds ``a * b + c`` once. The product of two
float32 values is exact in float64, so ``a * b + c`` computed in float64 and rounded to float32
differs from a true FMA only by a rare double rounding (the float64 sum rounding onto a float32
midpoint). Arguments may be float32 arrays or float64 arrays holding float32 values; results are
float32 arrays (NumPy widens them again where they meet float64).
"""

from __future__ import annotations

import threading

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
    if not isinstance(c, (np.ndarray, np.generic, float, int)):
        c = np.asarray(c)
    shape, cs = a.shape, getattr(c, "shape", ())
    if (b.shape != shape and b.ndim) or (cs != shape and cs):  # a broadcast: rarely taken
        shape = np.broadcast_shapes(shape, b.shape, cs)
        if a.shape != shape:
            return (np.multiply(a, b, dtype=F64) + c).astype(F32)
    elif a.size > 4 * _CHUNK:
        return _fma_chunked(a, b, c)
    p = a.astype(F64)  # in place in one float64 copy (no casting buffers, no second copy)
    p *= b
    p += c
    return p.astype(F32)


# Arrays past a core's L2 cache go through a float64 scratch of this many elements (128 KiB), so
# the float64 temporaries never travel to memory (1M elements: 2.3 -> 1.6 ms).
_CHUNK = 1 << 14
_scratch = threading.local()


def _fma_chunked(a, b, c):
    """``fma`` of a large ``a``; ``b``, ``c`` scalars or of ``a``'s shape.
    The same operations as the whole-array form, element for element: the same bits."""
    x = getattr(_scratch, "x", None)
    if x is None:
        x = _scratch.x = np.empty(_CHUNK, F64)
    out = np.empty(a.shape, F32)
    flat_a, flat_o = a.reshape(-1), out.reshape(-1)
    flat_b = b.reshape(-1) if b.ndim else b
    flat_c = np.reshape(c, -1) if getattr(c, "ndim", 0) else c
    n = flat_a.size
    for lo in range(0, n, _CHUNK):
        hi = min(n, lo + _CHUNK)
        t = x[: hi - lo]
        np.copyto(t, flat_a[lo:hi])
        t *= flat_b[lo:hi] if b.ndim else flat_b
        t += flat_c[lo:hi] if flat_c is not c else c
        np.copyto(flat_o[lo:hi], t, casting="unsafe")
    return out


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
