"""The C library's double-precision functions, applied element by element.

PyTorch's CPU random samplers call the C library (``std::log``, ``std::log1p``, ``std::exp``,
``std::sin``, ``std::cos``, ``std::tan``) one double at a time. NumPy's ufuncs for the same
functions pick a SIMD kernel at import time from the CPU's features: on an AVX2 machine they
happen to agree with the C library, on an AVX-512 one (NumPy's SVML-derived kernels) they differ
in the last bit for 0.2-8% of inputs. To reproduce PyTorch's stream bit for bit on every CPU,
the random backend goes through these wrappers, which call the platform's libm through Python's
``math`` module (a thin wrapper over the same C functions) for every element.

Cost: about 0.1-0.15 µs per element and function on a 2-core x86-64 machine, 10-20x NumPy's
vectorised kernels. Only float64 paths of the random samplers use them (float32/half/bfloat16
``normal`` runs avx_mathfun's polynomials, emulated with plain arithmetic in ``_rng_math.py``).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["cos", "exp", "log", "log1p", "sin", "tan"]


def _elementwise(fn):
    def apply(x) -> np.ndarray:
        x = np.asarray(x, np.float64)
        flat = np.fromiter(map(fn, x.reshape(-1).tolist()), np.float64, x.size)
        return flat.reshape(x.shape)

    apply.__name__ = apply.__qualname__ = fn.__name__
    apply.__doc__ = f"libm's {fn.__name__} on every element of a float64 array."
    return apply


def _log(v: float) -> float:
    # math.log raises where C's log returns -inf (0) or NaN (negative); keep C's answers
    if v > 0.0 or math.isnan(v):
        return math.log(v)
    return -math.inf if v == 0.0 else math.nan


def _log1p(v: float) -> float:
    if v > -1.0 or math.isnan(v):
        return math.log1p(v)
    return -math.inf if v == -1.0 else math.nan


def _exp(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:  # C returns +inf
        return math.inf


def _sin(v: float) -> float:
    return math.sin(v) if math.isfinite(v) else math.nan


def _cos(v: float) -> float:
    return math.cos(v) if math.isfinite(v) else math.nan


def _tan(v: float) -> float:
    return math.tan(v) if math.isfinite(v) else math.nan


_log.__name__, _log1p.__name__, _exp.__name__ = "log", "log1p", "exp"
_sin.__name__, _cos.__name__, _tan.__name__ = "sin", "cos", "tan"

log = _elementwise(_log)
log1p = _elementwise(_log1p)
exp = _elementwise(_exp)
sin = _elementwise(_sin)
cos = _elementwise(_cos)
tan = _elementwise(_tan)


# Elementwise ops that follow the C library's bits (special functions' series) call it for up to
# this many elements; larger arrays take NumPy's SIMD kernel of the same function, a last bit
# off in 0.02-8% of the elements, rather than ~0.15 us per element.
CALLS_BELOW = 1 << 16


def small_or_numpy(name: str, a) -> np.ndarray:
    """libm's ``name`` on each element of the float64 array ``a`` up to ``CALLS_BELOW`` elements,
    NumPy's beyond."""
    a = np.asarray(a, np.float64)
    return _BY_NAME[name](a) if a.size <= CALLS_BELOW else getattr(np, name)(a)


_BY_NAME = {f.__name__: f for f in (log, log1p, exp, sin, cos, tan)}
