"""GELU's erf form for float32, computed the way PyTorch's CPU computes it: oneDNN's kernel.

For a contiguous float32 tensor of more than one element, PyTorch hands ``gelu(x)`` (erf form)
to oneDNN's eltwise ``gelu_erf`` kernel, whose algorithm depends on the CPU:

- with AVX-512 (oneDNN's ``avx512_core``: AVX512F/BW/VL/DQ), a piecewise minimax polynomial:
  ``erf(x / sqrt(2))`` is a degree-5 polynomial in ``|x|``, one of 25, chosen by the exponent
  and the two leading mantissa bits of ``|x|``; then ``x * (1 + erf) * 0.5``;
- otherwise (AVX2), Abramowitz and Stegun's formula 7.1.26 with oneDNN's own ``exp``
  (``floor``-based reduction and a degree-5 polynomial); then ``0.5x + 0.5x * erf`` in one FMA.

Both agree with the correctly rounded GELU in only 20-87% of elements, so each is reproduced
step by step: float32 FMAs and roundings emulated in float64 (``primitives``). Measured against
PyTorch 2.13 (oneDNN 3.12) on 1M inputs per range: bit-identical in all elements on both paths.
The coefficient tables are oneDNN's published constants (as float32 bit patterns).
Other tensors take ATen's own kernel (``gelu_aten``: A&S with SLEEF's expf) and its scalar loop.
The backward is not replayed (see ``ops/nn/activation.py``): oneDNN's and ATen's GELU backward
kernels were reproduced bit for bit (commits 6fefbe0, 3a0476c) but cost ~10x the plain formula.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from .primitives import F32, F64, fma

# ---- AVX-512: piecewise minimax polynomials -----------------------------------------------------
# _MINIMAX[d][i]: the degree-d coefficient of polynomial i (i = 23: erf = 1; i = 24: NaN passes).
_MINIMAX_BITS = (
    (0xA6F2CB94, 0x32827792, 0x3381CC0C, 0x34523D4A, 0x351AC44D, 0x35F36D88, 0x36EE8229,
     0x37B8A3BB, 0x3867A213, 0x3940033B, 0x3A2A5A1D, 0x3AE35863, 0x3B7828F2, 0x3C08B14B,
     0x3C515ED3, 0xBB503236, 0xBD8D8E5E, 0xBE8ABCD9, 0xBF0C19A2, 0xBECCB328, 0x3E176CED,
     0x3F470D99, 0x3F7ABB28, 0x3F800000, 0x00000000),
    (0x3F4C422A, 0x3F4C421F, 0x3F4C4207, 0x3F4C41CB, 0x3F4C413B, 0x3F4C3FAD, 0x3F4C3A2F,
     0x3F4C2D40, 0x3F4C146A, 0x3F4BC341, 0x3F4AD08C, 0x3F48F8CF, 0x3F45FAC7, 0x3F404E07,
     0x3F3B980F, 0x3F48DFF3, 0x3F78B21B, 0x3FBB0704, 0x40019C32, 0x3FE536D6, 0x3F81331E,
     0x3E6C8684, 0x3C98F936, 0x00000000, 0x3F800000),
    (0xB62173F4, 0x3735E4CF, 0x37F2FF89, 0x388C23BE, 0x3917535C, 0x39AB2AB0, 0x3A60FADB,
     0x3AF9B960, 0x3B6E5491, 0x3C0A4EC5, 0x3CA5AA8C, 0x3D2138D9, 0x3D8737D4, 0x3DDFB660,
     0x3E0F27AB, 0x3D94004B, 0xBE0EFDEB, 0xBF1D96C3, 0xBF89DB58, 0xBF6D9897, 0xBEF69FB8,
     0xBDC4F8A8, 0xBBDE6422, 0x00000000, 0x00000000),
    (0xBE081A19, 0xBE084570, 0xBE08639B, 0xBE089837, 0xBE08F409, 0xBE09AB95, 0xBE0B66D0,
     0xBE0E400A, 0xBE124DF8, 0xBE1BDE02, 0xBE2F19C9, 0xBE4931BF, 0xBE685FBC, 0xBE89C95F,
     0xBE96CBCA, 0xBE8044AA, 0xBE0550F2, 0x3DCFD6A1, 0x3E94C826, 0x3E79345F, 0x3DECEC91,
     0x3CA46568, 0x3AA1E00A, 0x00000000, 0x00000000),
    (0xBA3D61DB, 0x39F097A3, 0x3A5845DC, 0x3AB1FA35, 0x3B0CEFB8, 0x3B653AB6, 0x3BCAE527,
     0x3C221712, 0x3C6C5840, 0x3CC0A703, 0x3D1DCC19, 0x3D63656D, 0x3D955907, 0x3DBF9910,
     0x3DD53F69, 0x3DB7DCEF, 0x3D639EBE, 0xBA6EDE48, 0xBD22BE69, 0xBD041CF1, 0xBC64F5AB,
     0xBB097A32, 0xB8EBF380, 0x00000000, 0x00000000),
    (0x3CB7D80C, 0x3C9B6050, 0x3C978D11, 0x3C92E850, 0x3C8D058B, 0x3C848454, 0x3C6CD623,
     0x3C4C824B, 0x3C2A7935, 0x3BE0B390, 0x3B0651AC, 0xBB232F53, 0xBBD42FA0, 0xBC2C5366,
     0xBC492C9E, 0xBC2A7AA6, 0xBBD55D04, 0xBA823A76, 0x3B102AA8, 0x3AE25A7E, 0x3A31F792,
     0x38B84375, 0x3689BB5A, 0x00000000, 0x00000000),
)  # fmt: skip
_MINIMAX = np.array(_MINIMAX_BITS, dtype=np.uint32).view(np.float32).astype(F64)
_IDX_BIAS = np.uint32(0xC21FFFFF).view(np.int32)  # added to the bits of |x|, then >> 21
_RBOUND = np.uint32(0x40B15CEE).view(np.float32)  # beyond it erf(x / sqrt(2)) is 1


_SIGN = np.uint32(0x80000000)


def _quiet(kernel):
    # inf * 0 and the like give NaN as in PyTorch, without NumPy's RuntimeWarnings
    @functools.wraps(kernel)
    def run(x):
        with np.errstate(all="ignore"):
            return kernel(x)

    return run


def _with_sign_of(p, x):
    # The kernels flip p's sign bit where x is negative (an xor, not a copysign); float32 arrays.
    return (p.view(np.uint32) ^ (x.view(np.uint32) & _SIGN)).view(np.float32)


def _bits(h: int) -> np.float32:
    return np.uint32(h).view(np.float32)


# Single float32 operations run as NumPy float32 arithmetic (correctly rounded, like the SIMD
# instruction); only the FMAs go through float64 (``primitives.fma``).
_ONE, _HALF = np.float32(1), np.float32(0.5)


@_quiet
def gelu_minimax(x: np.ndarray) -> np.ndarray:
    """oneDNN's AVX-512 GELU (``x``: float32 values, float32 or float64 array)."""
    x = np.asarray(x, F32)
    ax = np.abs(x)
    # The table index: exponent and two mantissa bits of |x| (no int32 overflow: |x|'s bits are
    # below 2**31), clamped to polynomials 1..22; beyond _RBOUND, where it is at least 22,
    # polynomial 23 (erf = 1). NaN keeps polynomial 22, whose value is NaN all the same.
    idx = ax.view(np.int32) + _IDX_BIAS
    idx >>= 21
    np.clip(idx, 1, 22, out=idx)
    idx += ax > _RBOUND
    p = _MINIMAX[5].take(idx)
    for d in range(4, -1, -1):
        p = fma(p, ax, _MINIMAX[d].take(idx))
    # The kernel flips the sign bit of p (>= 0: erf of |x|) where x is negative: a copysign.
    erf = np.copysign(p, x)
    # x * (1 + erf), then * 0.5 (exact but for subnormals, which it rounds like the kernel)
    return x * (erf + _ONE) * _HALF


# ---- AVX2: Abramowitz and Stegun 7.1.26 with oneDNN's exp ---------------------------------------
_EXP_LO, _EXP_HI = _bits(0xC2AEAC50), _bits(0x42B17218)  # ln(FLT_MIN), ln(FLT_MAX)
_LOG2E, _MINUS_LN2 = _bits(0x3FB8AA3B), -_bits(0x3F317218)
_EXP_POL = tuple(_bits(h) for h in (0x3C07CFCE, 0x3D2B9D0D, 0x3E2AAD40, 0x3EFFFEE3, 0x3F7FFFFB))
_AS_P = _bits(0x3EA7BA05)  # 0.3275911
_AS_POL = tuple(_bits(h) for h in (0x3F87DC22, 0xBFBA00E3, 0x3FB5F0E3, 0xBE91A98E, 0x3E827906))
_INV_SQRT2 = _bits(0x3F3504F3)
_INV_SQRT_PI = _bits(0x3F106EBA)


def _onednn_exp(v: np.ndarray) -> np.ndarray:
    """oneDNN's float32 exp: n = floor(v log2 e + 1/2), a polynomial in v - n ln 2, times 2^n
    as 2^(n-1) * 2 (so that n = 128 does not overflow the scale); below ln(FLT_MIN) it is 0."""
    under = v < _EXP_LO
    v = np.minimum(np.maximum(v, _EXP_LO), _EXP_HI)
    n = np.floor(v * _LOG2E + _HALF)
    r = fma(n, _MINUS_LN2, v)
    p = _EXP_POL[0]
    for c in (*_EXP_POL[1:], _ONE):
        p = fma(p, r, c)
    n -= _ONE
    with np.errstate(invalid="ignore"):  # NaN's n: any scale, p is NaN
        scale = np.ldexp(_ONE, n.astype(np.int32))  # 2^(n-1) >= 2^-127: exact in float32
    np.copyto(scale, 0, where=under)
    return p * scale * np.float32(2)


def _abramowitz_stegun_erf(z: np.ndarray, q: np.ndarray) -> np.ndarray:
    """erf(z) by A&S 7.1.26 as oneDNN orders it, given q = exp(-z^2): 1 - t q r(t),
    t = 1 / (1 + p|z|), r a degree-5 polynomial (float32 FMAs)."""
    t = _ONE / fma(_AS_P, np.abs(z), _ONE)
    r = _AS_POL[0]
    for c in _AS_POL[1:]:
        r = fma(r, t, c)
    return _with_sign_of(fma(-q * t, r, _ONE), z)


@_quiet
def gelu_abramowitz_stegun(x: np.ndarray) -> np.ndarray:
    """oneDNN's AVX2 GELU (``x``: float32 values, float32 or float64 array)."""
    s = np.asarray(x, F32)
    z = s * _INV_SQRT2
    erf = _abramowitz_stegun_erf(z, _onednn_exp(-(z * z)))
    half = s * _HALF  # rounded: 0.5x of the smallest subnormal is 0
    return fma(erf, half, half)


# ---- ATen's own kernel (tensors oneDNN does not take) --------------------------------------------
_ERF_P = np.float32(0.3275911)
_ERF_POL = tuple(np.float32(c) for c in (1.061405429, -1.453152027, 1.421413741, -0.284496736))
_ERF_P1 = np.float32(0.254829592)


def aten_erf(x: np.ndarray) -> np.ndarray:
    """PyTorch's ``Vectorized<float>::erf``: A&S 7.1.26 with SLEEF's expf, float32 FMAs."""
    from .exp import expf

    x = np.asarray(x, F32)
    t = _ONE / fma(_ERF_P, np.abs(x), _ONE)
    r = _ERF_POL[0]
    for c in (*_ERF_POL[1:], _ERF_P1):
        r = fma(r, t, c)
    return _with_sign_of(fma(-expf(-(x * x)) * t, r, _ONE), x)


@_quiet
def gelu_aten(x: np.ndarray) -> np.ndarray:
    """ATen's vectorised GELU (erf form): ``x * 0.5 * (1 + erf(x / sqrt(2)))`` in float32."""
    x = np.asarray(x, F32)
    return x * _HALF * (_ONE + aten_erf(x * _INV_SQRT2))


# ---- which one this CPU runs --------------------------------------------------------------------
_AVX512_CORE = {"avx512f", "avx512bw", "avx512vl", "avx512dq"}


@functools.cache
def uses_avx512() -> bool:
    """Whether oneDNN runs its AVX-512 kernels here: the CPU has ``avx512_core`` and
    ``ONEDNN_MAX_CPU_ISA`` (or ``DNNL_MAX_CPU_ISA``) does not cap it below."""
    cap = (os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA") or "").upper()
    if cap and cap != "ALL" and not cap.startswith(("AVX512", "AVX10", "AMX")):
        return False
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return _AVX512_CORE <= set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return False


def gelu_erf(x: np.ndarray) -> np.ndarray:
    """GELU (erf form) of float32 values as oneDNN computes it on this CPU, as float32."""
    if uses_avx512():
        return gelu_minimax(x)
    return gelu_abramowitz_stegun(x)
