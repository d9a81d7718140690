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
- other modules: further kernels reproduced the same way (see each module's docstring).

Only float32 NumPy arrays take these paths; CuPy arrays keep their own kernels.
"""

from __future__ import annotations

import numpy as np

_F32 = np.dtype(np.float32)


def emulated(kernel):
    """``forward(xp, a, *params)`` running ``kernel(a, *params)`` for a float32 NumPy array (block
    by block for a large contiguous one: cache-sized float64 temporaries, two threads as
    ``backend.parallel.blockwise`` allows) and ``fallback`` otherwise."""

    def wrap(fallback):
        def forward(xp, a, *params):
            if xp is not np or a.dtype != _F32:
                return fallback(xp, a, *params)
            return run(kernel, a, *params)

        forward.__doc__ = fallback.__doc__
        return forward

    return wrap


def run(kernel, a, *params):
    """``kernel(a, *params)`` for a float32 NumPy array, blockwise when large and contiguous."""
    from ..parallel import BLOCK, blockwise

    if a.ndim == 0:  # the kernels index their results: run them on one-element vectors
        return run(kernel, a.reshape(1), *params).reshape(())
    a = np.ascontiguousarray(a)
    if a.size >= 2 * BLOCK:
        return blockwise(lambda b: kernel(b, *params), a, _F32)
    return np.asarray(kernel(a, *params), _F32)


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
