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


def fma(a, b, c, once: bool = False):
    """float32 ``a * b + c`` rounded once (``a``, ``b``, ``c`` float32 values), but for a rare
    double rounding (see the module's docstring) that ``once=True`` removes (``round_once``:
    PyTorch's fused multiply-adds on float32 Tensors must match to the bit)."""
    a, b = np.asarray(a), np.asarray(b)
    if b.size > a.size:  # the product is exact: either operand may come first
        a, b = b, a
    if not isinstance(c, (np.ndarray, np.generic, float, int)):
        c = np.asarray(c)
    shape, cs = a.shape, getattr(c, "shape", ())
    if (b.shape != shape and b.ndim) or (cs != shape and cs):  # a broadcast: rarely taken
        shape = np.broadcast_shapes(shape, b.shape, cs)
        if a.shape != shape:
            p = np.multiply(a, b, dtype=F64) + c
            return round_once(p.astype(F32), p, a, b, c) if once else p.astype(F32)
    elif a.size > 4 * CHUNK:
        return _fma_chunked(a, b, c, once)
    p = a.astype(F64)  # in place in one float64 copy (no casting buffers, no second copy)
    p *= b
    p += c
    return round_once(p.astype(F32), p, a, b, c) if once else p.astype(F32)


# ---- no double rounding -------------------------------------------------------------------------
# The float64 sum s of an exact product and a float32 value rounds a second time to float32; that
# differs from one rounding only where s landed exactly on a float32 midpoint (the tie then goes to
# even) while the exact sum lay off it (1 element in ~2^29 of random data). Such an s has, in the
# float32 normal range, the float64 mantissa bits below float32's 23 equal to 1 then 28 zeros; in
# its subnormal range it is an odd multiple of 2^-150.
_LOW29, _HALF29 = np.uint64((1 << 29) - 1), np.uint64(1 << 28)
_FLT_MIN = 2.0**-126


def round_once(r, s, x, y, z):
    """Correct ``r``, the float32 rounding of the float64 ``s = x * y + z`` (``x * y`` exact in
    float64: float32 values, one of them possibly a float64 scalar holding one), in place to the
    float32 rounding of the exact ``x * y + z``: a true fused multiply-add's. ``x``, ``y``, ``z``
    broadcast to ``s``'s shape; ``r`` and ``s`` are C-contiguous arrays of that shape."""
    at = midpoints(s)
    if at is not None:
        shape = s.shape
        r[at] = rounded_once(s[at], _at(x, shape, at), _at(y, shape, at), _at(z, shape, at))
    return r


def midpoints(s):
    """The indices (a tuple for ``s[...]``) where the C-contiguous float64 array ``s`` lies on a
    float32 midpoint, or None where it never does (almost always)."""
    mid = (s.view(np.uint64) & _LOW29) == _HALF29
    tiny = np.abs(s) < _FLT_MIN
    if tiny.any():  # where the bit test does not apply: the grid of float32 subnormal midpoints
        mid = np.where(tiny, np.mod(s * 2.0**150, 2) == 1, mid)
    if not mid.any():
        return None
    return np.unravel_index(np.flatnonzero(mid), s.shape) if s.ndim else ()


def rounded_once(t, x, y, z):
    """float32 results for float64 sums ``t`` of ``x * y + z`` (exact product) that lie on float32
    midpoints: the side the exact sum lies on (the tie's even side where ``t`` is exact)."""
    p = np.multiply(x, y, dtype=F64)
    c = np.asarray(z, F64)
    # TwoSum: t + err == p + c exactly; err's sign says which side of the midpoint the sum lies
    # on, and one float64 step that way rounds to float32 on that side
    bp = t - c
    err = (c - (t - bp)) + (p - bp)
    return np.where(err == 0, t, np.nextafter(t, np.copysign(np.inf, err))).astype(F32)


def _at(v, shape, at):
    """The elements of ``v`` broadcast to ``shape`` at the indices ``at``."""
    return np.broadcast_to(np.asarray(v), shape)[at]


# Arrays past a core's L2 cache go through a float64 scratch of this many elements (128 KiB), so
# the float64 temporaries never travel to memory (1M elements: 2.3 -> 1.6 ms).
CHUNK = 1 << 14
_scratch = threading.local()


def scratch64(n: int = CHUNK) -> np.ndarray:
    """``n`` (at most ``CHUNK``) elements of this thread's float64 scratch, kept across calls:
    a blockwise kernel's temporaries with no allocation (nor memory beyond it at a step's
    peak). Free between calls: whoever asks uses it until it returns."""
    x = getattr(_scratch, "x", None)
    if x is None:
        x = _scratch.x = np.empty(CHUNK, F64)
    return x[:n]


def _fma_chunked(a, b, c, once: bool):
    """``fma`` of a large ``a``; ``b``, ``c`` scalars or of ``a``'s shape.
    The same operations as the whole-array form, element for element: the same bits."""
    x = scratch64()
    out = np.empty(a.shape, F32)
    flat_a, flat_o = a.reshape(-1), out.reshape(-1)
    flat_b = b.reshape(-1) if b.ndim else b
    flat_c = np.reshape(c, -1) if getattr(c, "ndim", 0) else c
    n = flat_a.size
    for lo in range(0, n, CHUNK):
        hi = min(n, lo + CHUNK)
        t = x[: hi - lo]
        np.copyto(t, flat_a[lo:hi])
        t *= flat_b[lo:hi] if b.ndim else flat_b
        ci = flat_c[lo:hi] if flat_c is not c else c
        t += ci
        np.copyto(flat_o[lo:hi], t, casting="unsafe")
        if once:
            round_once(flat_o[lo:hi], t, flat_a[lo:hi], flat_b[lo:hi] if b.ndim else flat_b, ci)
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


def select(mask, a, b):
    """``np.where(mask, a, b)``, the same bits, without a branch per element where ``a`` and
    ``b`` share a 4-byte dtype (float32, int32): NumPy's ``where`` branches on each element,
    ~6 ns an element on a random mask (a mispredicted branch; the replays select between their
    formulas' branches on masks as random as their inputs), where this blend of the bits,
    ``b ^ ((a ^ b) & -mask)``, is five integer passes of ~0.15 ns. Other dtypes: ``np.where``."""
    x, y = np.asarray(a), np.asarray(b)
    if x.dtype != y.dtype or x.dtype.itemsize != 4:
        return np.where(mask, a, b)  # a Python number: NumPy's own promotion
    m = np.asarray(mask).astype(np.int32)
    np.negative(m, out=m)  # 0 or all ones
    xi, yi = x.view(np.int32), y.view(np.int32)
    r = np.bitwise_and(np.bitwise_xor(xi, yi), m)
    r ^= yi
    return r.view(x.dtype)


# ---- y + alpha * x rounded once, in place: BLAS saxpy -------------------------------------------
# PyTorch's float32 ``y.add_(x, alpha=a)`` (and lerp's, SGD's, Adam's updates built on it) is one
# fused multiply-add per element. OpenBLAS's saxpy kernel for an FMA-capable CPU computes exactly
# that, vector lanes and scalar tails alike: PyTorch's bits, with no double rounding, and ~6x
# faster than the float64 emulation above (235K elements: 52 us against 330). Some kernels fuse
# only in their unrolled vector loop: OpenBLAS's AVX2 "Haswell" saxpy (which it runs on any CPU
# where OPENBLAS_CORETYPE=Haswell) fuses blocks of 32 elements and rounds twice in the scalar
# tail, so the tail (under 32 elements) takes the float64 emulation. Whether and in what blocks
# the kernel OpenBLAS picked for this CPU fuses is checked once (``_fusing_saxpy``); where it
# does not, or SciPy is missing, callers keep the float64 emulation.
# OpenBLAS splits an axpy over its threads above 10000 elements (its own bound); calls here stay
# at or under it, so no BLAS thread is woken to spin against a busy machine's other work.
AXPY_PIECE = 8192
_saxpy = {"fn": None, "block": 1}
# Block sizes tried, smallest first (each divides AXPY_PIECE)
_AXPY_BLOCKS = (1, 8, 16, 32, 64)


def axpy_(y, alpha, x) -> bool:
    """``y += alpha * x`` in place with one rounding (a float32 fused multiply-add) for 1-D
    C-contiguous float32 NumPy arrays ``y``, ``x`` of one size that do not overlap, and
    ``alpha`` a float32 value other than zero; False, having changed nothing, where BLAS
    cannot do it exactly (then compute ``fma(x, alpha, y)``)."""
    fn = _saxpy["fn"]
    if fn is None:
        fn, _saxpy["block"] = _fusing_saxpy()
        _saxpy["fn"] = fn
    if fn is False or alpha == 0:  # BLAS skips alpha == 0; PyTorch still adds 0 * x (NaN for inf)
        return False
    n, a = y.size, np.float32(alpha)
    body = n - n % _saxpy["block"]  # the elements the kernel fuses; the tail is emulated
    if 0 < body <= AXPY_PIECE:
        _in_place(fn(x[:body], y[:body], body, a), y[:body])
    else:
        for lo in range(0, body, AXPY_PIECE):
            hi = min(body, lo + AXPY_PIECE)
            _in_place(fn(x[lo:hi], y[lo:hi], hi - lo, a), y[lo:hi])
    if body < n:
        y[body:] = fma(x[body:], a, y[body:], once=True)
    return True


def _in_place(r, y) -> None:
    if r is not y:  # f2py computed on a copy (an array it could not take as it is)
        y[...] = r


def _fusing_saxpy():
    """(SciPy's BLAS saxpy, block) where it rounds ``y + alpha * x`` once at every position of
    vectors whose length is a multiple of ``block`` (the smallest in ``_AXPY_BLOCKS``), else
    (False, 1)."""
    try:
        from scipy.linalg.blas import saxpy
    except ImportError:
        return False, 1
    for block in _AXPY_BLOCKS:
        if fuses(saxpy, block):
            return saxpy, block
    return False, 1


def fuses(saxpy, block: int = 1) -> bool:
    """Whether ``saxpy(x, y, n, alpha)`` computes ``y + alpha * x`` in place in ``y`` with one
    rounding at every position of vectors of ``block`` to 300 elements, ``n`` a multiple of
    ``block`` (the kernels' unrolled loops and, for block 1, every tail), and of ``block`` to 70
    elements starting 1-15 elements past an aligned address (where a kernel might peel elements
    off to reach an aligned one).

    The case: y = 1 + 2^-23, alpha = 1 + 2^-23, x = (2^24 - 2) 2^-48, so alpha * x is
    2^-24 - 2^-70 and the exact sum lies just below the float32 halfway point between y and
    1 + 2^-22. One rounding gives y; the float64 sum (which rounds onto the halfway point) and
    the product rounded first to float32 (2^-24: the halfway point again) both round to even,
    1 + 2^-22. A second case (x = (2^24 + 2) 2^-48: 1 + 2^-22 every way) checks that every
    position is updated at all.
    """
    y0 = alpha = np.float32(1 + 2.0**-23)
    cases = (
        (np.float32((2.0**24 - 2) * 2.0**-48), y0),
        (np.float32((2.0**24 + 2) * 2.0**-48), np.float32(1 + 2.0**-22)),
    )
    sizes = [(0, n) for n in range(block, 301, block)] + [
        (k, n) for k in range(1, 16) for n in range(block, max(71, 2 * block + 1), block)
    ]
    for start, n in sizes:
        for x, want in cases:
            y = np.full(start + n, y0)[start:]
            if saxpy(np.full(start + n, x)[start:], y, n, alpha) is not y or not (y == want).all():
                return False
    return True
