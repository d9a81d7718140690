"""float32 maths computed the way PyTorch's CPU kernels compute it, so results agree bit for bit.

PyTorch's vectorised float32 CPU kernels are not correctly rounded: ``Vectorized<float>`` calls
SLEEF's ``*_u10`` functions (built with FMA), and activations such as sigmoid are float32
arithmetic around them. Correctly rounded results (float64, rounded once) therefore differ from
PyTorch's in 1-7% of elements. The modules here re-implement those algorithms in NumPy:

- ``primitives``: float32 building blocks (fused multiply-add, round-to-nearest-even, exact
  scaling by a power of two) emulated in float64;
- ``exp``: SLEEF's exp family (expf, expm1f, sinhf, coshf, tanhf); ``log1p``: its log1pf;
- ``activation``: PyTorch's activation formulas around those (sigmoid, silu, softplus, mish,
  log_sigmoid, elu/selu/celu, gelu tanh, logaddexp);
- ``pow``: SLEEF's powf; ``softmax``: softmax/log_softmax with SLEEF's exp and the kernels'
  order of summation;
- other modules: further kernels reproduced the same way (see each module's docstring).

Not every float32 function can be matched: ``torch.exp`` and ``torch.tanh`` (like sin, log, erf,
...) call Intel MKL's VML on x86, closed source and different between its AVX-512 and AVX2 code
paths; those stay correctly rounded (float64, rounded once), 95-99% alike.

Only float32 NumPy arrays take these paths; CuPy arrays keep their own kernels. ``run`` and
``emulated`` also reproduce where PyTorch's elementwise loops fall back to their scalar code
(glibc's correctly rounded functions): tensors not contiguous in memory order, and the last
``len % (2 * lanes)`` elements of each thread's chunk. Cost: 3-10x the CPU time of a float64
``np.exp`` pass (``benchmarks/bench_float32_math.py``).
"""

from __future__ import annotations

import numpy as np

_F32 = np.dtype(np.float32)


def emulated(kernel, scalar_loop: bool = True):
    """``forward(xp, a, *params)`` running ``kernel(a, *params)`` for a float32 NumPy array, with
    ``fallback`` (the op's formula around correctly rounded functions) where PyTorch runs its
    scalar loop (``run``; ``scalar_loop=False``: a kernel that has none), and ``fallback`` for
    other arrays."""

    def wrap(fallback):
        def forward(xp, a, *params):
            if xp is not np or a.dtype != _F32:
                return fallback(xp, a, *params)
            if not scalar_loop:
                return run(kernel, a, *params)
            return run(kernel, a, *params, scalar=lambda b: fallback(xp, b, *params))

        forward.__doc__ = fallback.__doc__
        return forward

    return wrap


# PyTorch's elementwise CPU loops (``cpu_kernel_vec``) split a tensor of at least GRAIN elements
# into one chunk per thread; each chunk runs two SIMD vectors at a time and its last
# ``len % (2 * lanes)`` elements (all of a shorter chunk) through the scalar function, which
# calls glibc (``std::exp``...: correctly rounded) instead of SLEEF. A tensor that is not
# contiguous in memory order runs the scalar function throughout.
GRAIN = 32768


def _scalar_ranges(n: int):
    """The [lo, hi) ranges of a contiguous n-element loop that PyTorch runs through its scalar
    function, for the current ``torch.get_num_threads()``."""
    from ..threads import get_num_threads
    from .softmax import LANES

    if n == 0:
        return []
    tasks = 1 if n < GRAIN else max(1, min(get_num_threads(), -(-n // GRAIN)))
    chunk = -(-n // tasks)
    ranges = []
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        tail = (hi - lo) % (2 * LANES) if hi - lo >= 2 * LANES else hi - lo
        if tail:
            ranges.append((hi - tail, hi))
    return ranges


def run(kernel, a, *params, scalar=None):
    """``kernel(a, *params)`` for a float32 NumPy array, blockwise when large. With ``scalar``
    (``scalar(b)``: PyTorch's scalar loop on the elements ``b``), the elements PyTorch does not
    vectorise take it instead (see ``_scalar_ranges``)."""
    from ..parallel import BLOCK, blockwise

    if scalar is not None:
        if a.flags.f_contiguous and not a.flags.c_contiguous:  # memory order: its transpose
            return run(kernel, a.T, *params, scalar=scalar).T
        if not a.flags.c_contiguous or a.ndim == 0:
            with np.errstate(over="ignore"):  # exp overflowing to inf is the formula's limit
                return np.asarray(scalar(a), _F32)
    if a.ndim == 0:  # the kernels index their results: run them on one-element vectors
        return run(kernel, a.reshape(1), *params).reshape(())
    a = np.ascontiguousarray(a)
    if a.size >= 2 * BLOCK:
        r = blockwise(lambda b: kernel(b, *params), a, _F32)
    else:
        r = np.asarray(kernel(a, *params), _F32)
    if scalar is not None:
        fa, fr = a.reshape(-1), r.reshape(-1)
        with np.errstate(over="ignore"):
            for lo, hi in _scalar_ranges(fa.size):
                fr[lo:hi] = scalar(fa[lo:hi])
    return r


def run2(kernel, a, b):
    """``kernel(a, b)`` for two float32 NumPy arrays of one shape: in cache-sized blocks of their
    flattened elements when large (one thread), else at once."""
    from ..parallel import BLOCK

    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    if a.size < 2 * BLOCK or a.shape != b.shape:
        return np.asarray(kernel(a.reshape(-1), b.reshape(-1)), _F32).reshape(a.shape)
    out = np.empty(a.shape, _F32)
    fa, fb, fo = a.reshape(-1), b.reshape(-1), out.reshape(-1)
    for i in range(0, fa.size, BLOCK):
        fo[i : i + BLOCK] = kernel(fa[i : i + BLOCK], fb[i : i + BLOCK])
    return out
