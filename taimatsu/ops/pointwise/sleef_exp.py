"""SLEEF's float32 ``expf_u10``, reproduced bit for bit in NumPy, and the layout in which PyTorch's
CPU activations apply it.

PyTorch's CPU ``sigmoid``/``silu``/``softplus``/``mish``/``logsigmoid`` kernels call
``Vectorized<float>::exp`` (SLEEF ``Sleef_expf16_u10``/``Sleef_expf8_u10``: same algorithm on
AVX-512 and AVX2) on the vectorised body of a contiguous array, and the C library's ``expf``
(nearly correctly rounded) on the scalar tail and on strided arrays. SLEEF's result is within one
ulp but not correctly rounded (about 90% of elements), so a correctly rounded exp matches those
activations in only ~96% of elements; this emulation matches all of the vectorised ones.

``torch.exp`` itself does not use it: on x86 builds with MKL it calls MKL's VML ``vsExp`` (high
accuracy mode), whose algorithm is not public; a correctly rounded exp matches it best (~98.9%).

The algorithm (Cody-Waite reduction by ln 2 split in two, a degree-6 polynomial evaluated with
fused multiply-adds, scaling by two powers of two so that subnormal results round as SLEEF's do)
and its constants are SLEEF's (``xexpf`` in ``sleefsimdsp.c``).
"""

from __future__ import annotations

import numpy as np

from ...backend._rng_math import _fma32_exact, _fma32_flagged
from ...backend.parallel import BLOCK, blockwise

_F32 = np.float32
_LOG2_E = _F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_LN2_HI, _LN2_LO = _F32(0.693145751953125), _F32(1.428606765330187045e-06)  # ln 2 = hi + lo
_POLY = [
    _F32(c)
    for c in (
        0.000198527617612853646278381,
        0.00139304355252534151077271,
        0.00833336077630519866943359,
        0.0416664853692054748535156,
        0.166666671633720397949219,
        0.5,
    )
]


def sleef_expf(d: np.ndarray) -> np.ndarray:
    """SLEEF's ``expf_u10`` of an array of float32 values (float32 or float64 array), element by
    element as its SIMD lanes compute it. The fused steps run in float64 and are rounded once;
    lanes where that double rounding could differ from one rounding are redone exactly."""
    d = np.asarray(d, np.float64)
    suspect = np.zeros(d.shape, bool)
    out = _expf(d, lambda a, b, c: _fma32_flagged(a, b, c, suspect))
    if suspect.any():
        out[suspect] = _expf(d[suspect], _fma32_exact)
    return out


def _expf(d: np.ndarray, fma) -> np.ndarray:
    """xexpf on float32 values held in float64, its fused multiply-adds done by ``fma``."""
    with np.errstate(all="ignore"):
        q = np.rint((d * _LOG2_E).astype(_F32)).astype(np.float64)  # float32 product, then rint
        # Cody-Waite reduction: each product has few bits and each sum spans under 53 bits, so
        # float64 holds both fused results exactly and one rounding to float32 is the fused one.
        s = _to_f32(d - q * _LN2_HI)
        s = _to_f32(s - q * _LN2_LO)
        u = _POLY[0]
        for c in _POLY[1:]:
            u = fma(u, s, c)
        u = fma(_to_f32(s * s), u, s)
        u = _to_f32(u + 1.0)  # float64 holds the float32 sum exactly or rounds it harmlessly
        # SLEEF scales by 2**(q//2), then by 2**(q - q//2): the first product is exact, so the
        # result is u * 2**q rounded once, which float64 holds exactly. Out-of-range q (huge or
        # NaN input) gives garbage here that the masks below replace.
        u *= ((q.astype(np.int64) + 1023) << 52).view(np.float64)
        out = u.astype(_F32)
        np.copyto(out, _F32(0), where=d < -104)
        np.copyto(out, _F32(np.inf), where=d > 100)
        return out


def _to_f32(x: np.ndarray) -> np.ndarray:
    """x rounded to float32, held in float64."""
    return x.astype(_F32).astype(np.float64)


def _simd_step() -> int:
    """Elements PyTorch's vectorised loop takes per step: two vectors, of 16 floats on CPUs where
    it picks its AVX-512 kernels, else of 8 (AVX2)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__ as features
    avx512 = all(features.get(f, False) for f in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ"))
    return 32 if avx512 else 16


_SIMD_STEP = _simd_step()


def vectorised_exp(a: np.ndarray, layout: np.ndarray | None = None) -> np.ndarray:
    """exp of a float32 NumPy array as PyTorch's vectorised CPU loop computes it: SLEEF on whole
    blocks of each contiguous run, a correctly rounded exp (the C library's ``expf``) on the last
    ``run % block`` elements of each run and on arrays whose innermost stride is not one element.

    ``layout``: the op's input (default ``a``), whose strides decide PyTorch's loop (``a`` is often
    an intermediate such as ``-input``, contiguous whatever the input was).

    Not mimicked: PyTorch reorders permuted strides (handled here: C and Fortran order only), and
    with several threads it splits arrays over 32768 elements into one range per thread, each with
    its own scalar tail of up to a block's elements.
    """
    layout = a if layout is None else layout
    order = "F" if layout.flags.f_contiguous and not layout.flags.c_contiguous else "C"
    run = layout.size if order == "F" or layout.flags.c_contiguous else _inner_run(layout)
    if run < _SIMD_STEP:
        return _blockwise(np.exp, a)
    rows = a.reshape(-1, run, order=order)
    body = run - run % _SIMD_STEP
    out = np.empty(rows.shape, _F32)
    out[:, :body] = _blockwise(sleef_expf, rows[:, :body])
    out[:, body:] = _exp_rounded(rows[:, body:])
    return out.reshape(a.shape, order=order)


def _inner_run(a: np.ndarray) -> int:
    """Elements in the innermost contiguous run of a C-ordered strided array: trailing dimensions
    that TensorIterator coalesces into one unit-stride loop (1: the innermost stride is not one
    element, so PyTorch's loop is scalar)."""
    run, step = 1, a.itemsize
    for size, stride in zip(reversed(a.shape), reversed(a.strides)):
        if size == 1:
            continue
        if stride != step:
            break
        run, step = run * size, stride * size
    return run


def _blockwise(f, a: np.ndarray) -> np.ndarray:
    """``f(a in float64)`` rounded to float32, in cache-sized blocks (on two threads when large)."""
    with np.errstate(all="ignore"):
        if a.size < 2 * BLOCK:
            return np.asarray(f(a.astype(np.float64))).astype(_F32)
        return blockwise(f, np.ascontiguousarray(a), _F32).reshape(a.shape)


def _exp_rounded(a: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.exp(a.astype(np.float64)).astype(_F32)
