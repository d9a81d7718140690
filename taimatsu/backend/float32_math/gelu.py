"""GELU's erf form for float32, computed the way PyTorch's CPU computes it: oneDNN's kernel.

For a contiguous float32 tensor of more than one element, PyTorch hands ``gelu(x)`` (erf form)
to oneDNN's eltwise ``gelu_erf`` kernel, whose algorithm depends on the CPU:

- with AVX-512 (oneDNN's ``avx512_core``: AVX512F/BW/VL/DQ), a piecewise minimax polynomial:
  ``erf(x / sqrt(2))`` is a degree-5 polynomial in ``|x|``, one of 25, chosen by the exponent
  and the two leading mantissa bits of ``|x|``; then ``x * (1 + erf) * 0.5``;
- otherwise (AVX2), Abramowitz and Stegun's formula 7.1.26 with oneDNN's own ``exp``
  (``floor``-based reduction and a degree-5 polynomial); then ``0.5x + 0.5x * erf`` in one FMA.

Both agree with the correctly rounded GELU in only 20-87% of elements, so each is reproduced
step by step: float32 FMAs emulated in float64 (the product of two float32 values is exact in
float64; the sum is rounded to float64, then to float32, as ``primitives.fma``), the other
operations in float32 arithmetic. Measured against PyTorch 2.13 (oneDNN 3.12) on 1M inputs per
range: bit-identical in all elements on both paths. The coefficient tables are oneDNN's
published constants (as float32 bit patterns).

Cost: the kernels run a cache-sized block at a time in per-thread buffers kept across calls
(``_Scratch``), an FMA as four NumPy passes (multiply, add, round to float32 and back; the last
of a polynomial skips the copy back), the minimax coefficients as one table lookup per degree;
the exp's Cody-Waite reduction is exact, so it is not rounded. That is about as few passes as
the emulation allows: each FMA's rounding changes the next one's input, so none can be skipped
or merged, and NumPy's mixed-dtype loops (``float32 * float64 -> float64``) and strided loops
(coefficients gathered as rows of 4 by one ``np.take``) cost more than the passes they save.
Re-measured with NumPy 2.4 (a 16K block of the minimax path: ~210 us, of which the six lookups
~75 us, each ~3 plain passes): an FMA as an add into a float32 output and a mixed multiply
costs ~1.4x the four plain passes; the coefficients as rows of 4 + 2 (two lookups) read as
strided columns (-3%, within the noise) or copied to contiguous rows (+10%), or one lookup
along axis 1 of the (6, n) table (no better), save nothing that counts; so do float32 rows of 8
(one lookup, 16 us) widened by a strided copy (51 us); int64 keys cost more than int32 ones;
blocks of 8K, 32K or 64K elements are no faster. Nor can the polynomial in float64 without
the roundings stand in, with a fallback near rounding boundaries: on normal inputs (scale 1.5)
it gives another ``1 + erf`` in 19% of elements, and a margin of half an ulp per rounding,
carried through the later products, leaves 68% undecided.
Other tensors take ATen's own kernel (``gelu_aten``: A&S with SLEEF's expf) and its scalar loop.
oneDNN's backward kernel (one algorithm on both CPUs: the AVX2 forward's erf and exp) comes with
the AVX2 forward almost for free (``gelu_abramowitz_stegun_with_derivative``); on its own, as
the AVX-512 path would need it, it costs ~5x the plain formula of ``ops/nn/activation.py``.
"""

from __future__ import annotations

import functools
import os
import threading

import numpy as np

from .primitives import F32, F64, fma

_U32 = np.dtype(np.uint32)
_SIGN = np.uint32(0x80000000)
_ONE, _HALF, _TWO = np.float32(1), np.float32(0.5), np.float32(2)


def _bits(h: int) -> np.float32:
    return np.uint32(h).view(np.float32)


def _floats(hex_bits: str) -> np.ndarray:
    """float32 constants from their bit patterns (hexadecimal, whitespace-separated)."""
    return np.array([int(h, 16) for h in hex_bits.split()], np.uint32).view(np.float32)


def _quiet(kernel):
    # inf * 0 and the like give NaN as in PyTorch, without NumPy's RuntimeWarnings
    @functools.wraps(kernel)
    def run(*args):
        with np.errstate(all="ignore"):
            return kernel(*args)

    return run


def _with_sign_of(p, x):
    # The kernels flip p's sign bit where x is negative (an xor, not a copysign); float32 arrays.
    return (p.view(np.uint32) ^ (x.view(np.uint32) & _SIGN)).view(np.float32)


# ---- blocks and float32 FMAs on reused buffers ----------------------------------------------------
# Elements per block: the block's float64 and float32 buffers stay in the per-core L2 cache.
BLOCK = 1 << 14


class _Scratch:
    """One thread's buffers for one block: float64 ``w p q``, float32 ``a b c e``, indices ``k``
    (``np.take``'s intp) and ``i`` (int32: ``np.ldexp`` has no fast loop for int64)."""

    __slots__ = ("a", "b", "c", "e", "i", "k", "p", "q", "w")

    def __init__(self, n: int):
        self.w, self.p, self.q = (np.empty(n, F64) for _ in range(3))
        self.a, self.b, self.c, self.e = (np.empty(n, F32) for _ in range(4))
        self.k, self.i = np.empty(n, np.intp), np.empty(n, np.int32)

    def view(self, n: int) -> _Scratch:
        if n == self.w.size:
            return self
        part = object.__new__(_Scratch)
        for name in _Scratch.__slots__:
            setattr(part, name, getattr(self, name)[:n])
        return part


_scratch = threading.local()


def _thread_scratch() -> _Scratch:
    """This thread's full-block buffers (~0.9 MB), made once rather than on every call."""
    s = getattr(_scratch, "s", None)
    if s is None or s.w.size != BLOCK:
        s = _scratch.s = _Scratch(BLOCK)
    return s


def block_buffers(dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Two of this thread's kept float64 block buffers (``w``, ``p``: 8 * BLOCK bytes each) viewed
    as ``dtype``, for the GELU backward's blocks (``ops/nn/activation.py``): free between the
    kernels' calls, so its temporaries cost no allocation and no memory beyond these."""
    s = _thread_scratch()
    return s.w.view(dtype), s.p.view(dtype)


def _round32(p, r32):
    """Round the float64 ``p`` to float32 in place; ``r32`` receives the float32 values."""
    np.copyto(r32, p, casting="same_kind")
    np.copyto(p, r32)


def _fma(p, b, c, r32):
    """``p = fma(p, b, c)`` in float32 (``p``, ``b`` float64 arrays of float32 values, ``c`` a
    float64 array or scalar): the exact product, the sum rounded to float64, then to float32."""
    p *= b
    p += c
    _round32(p, r32)


def _horner(t, coefficients, p, r32, wide: bool = True):
    """``r32`` = the polynomial in ``t`` by float32 FMAs, highest coefficient first; ``p`` holds
    it too (float64) unless ``wide`` is false (the last rounding then skips the copy back)."""
    np.multiply(t, coefficients[0], out=p)
    p += coefficients[1]
    for c in coefficients[2:]:
        _round32(p, r32)
        p *= t
        p += c
    if wide:
        _round32(p, r32)
    else:
        np.copyto(r32, p, casting="same_kind")


def _blocks(kernel, x, outputs: int = 1):
    """``kernel(x_block, scratch, *out_blocks)`` over the blocks of a float32 array, into
    ``outputs`` float32 arrays of its shape (one returned alone); large arrays split over two
    threads (``parallel.halves``)."""
    from ..parallel import PASS_WORK, halves

    x = np.ascontiguousarray(x, F32)
    outs = [np.empty(x.shape, F32) for _ in range(outputs)]
    fx, fo = x.reshape(-1), [o.reshape(-1) for o in outs]
    n = fx.size

    def run(lo, hi):
        s = _thread_scratch()
        with np.errstate(all="ignore"):
            for i in range(lo * BLOCK, min(hi * BLOCK, n), BLOCK):
                j = min(i + BLOCK, n)
                kernel(fx[i:j], s.view(j - i), *[o[i:j] for o in fo])

    halves(run, -(-n // BLOCK), n * PASS_WORK)
    return outs[0] if outputs == 1 else tuple(outs)


# ---- AVX-512: piecewise minimax polynomials -----------------------------------------------------
# The degree-d coefficients of polynomials 0..24, a row per degree (23: erf = 1; 24: NaN passes).
_MINIMAX_BITS = """
    A6F2CB94 32827792 3381CC0C 34523D4A 351AC44D 35F36D88 36EE8229 37B8A3BB 3867A213 3940033B
    3A2A5A1D 3AE35863 3B7828F2 3C08B14B 3C515ED3 BB503236 BD8D8E5E BE8ABCD9 BF0C19A2 BECCB328
    3E176CED 3F470D99 3F7ABB28 3F800000 00000000
    3F4C422A 3F4C421F 3F4C4207 3F4C41CB 3F4C413B 3F4C3FAD 3F4C3A2F 3F4C2D40 3F4C146A 3F4BC341
    3F4AD08C 3F48F8CF 3F45FAC7 3F404E07 3F3B980F 3F48DFF3 3F78B21B 3FBB0704 40019C32 3FE536D6
    3F81331E 3E6C8684 3C98F936 00000000 3F800000
    B62173F4 3735E4CF 37F2FF89 388C23BE 3917535C 39AB2AB0 3A60FADB 3AF9B960 3B6E5491 3C0A4EC5
    3CA5AA8C 3D2138D9 3D8737D4 3DDFB660 3E0F27AB 3D94004B BE0EFDEB BF1D96C3 BF89DB58 BF6D9897
    BEF69FB8 BDC4F8A8 BBDE6422 00000000 00000000
    BE081A19 BE084570 BE08639B BE089837 BE08F409 BE09AB95 BE0B66D0 BE0E400A BE124DF8 BE1BDE02
    BE2F19C9 BE4931BF BE685FBC BE89C95F BE96CBCA BE8044AA BE0550F2 3DCFD6A1 3E94C826 3E79345F
    3DECEC91 3CA46568 3AA1E00A 00000000 00000000
    BA3D61DB 39F097A3 3A5845DC 3AB1FA35 3B0CEFB8 3B653AB6 3BCAE527 3C221712 3C6C5840 3CC0A703
    3D1DCC19 3D63656D 3D955907 3DBF9910 3DD53F69 3DB7DCEF 3D639EBE BA6EDE48 BD22BE69 BD041CF1
    BC64F5AB BB097A32 B8EBF380 00000000 00000000
    3CB7D80C 3C9B6050 3C978D11 3C92E850 3C8D058B 3C848454 3C6CD623 3C4C824B 3C2A7935 3BE0B390
    3B0651AC BB232F53 BBD42FA0 BC2C5366 BC492C9E BC2A7AA6 BBD55D04 BA823A76 3B102AA8 3AE25A7E
    3A31F792 38B84375 3689BB5A 00000000 00000000
"""
_RBOUND = _bits(0x40B15CEE)  # beyond it erf(x / sqrt(2)) is 1


def _minimax_table():
    """Row ``d`` holds the degree-d coefficient of each element's polynomial, looked up by
    ``key = ((bits(|x|) - 1) >> 21) + 1 + (|x| > _RBOUND)``, computed as ``(bits + 2^21 - 1) >>
    21`` (0 for 0). oneDNN's index is ``(bits + 0xC21FFFFF) >> 21``, i.e. ``(bits - 1) >> 21``
    less 495, clamped to polynomials 1..22; beyond ``_RBOUND`` (inside the last key of
    polynomial 22) polynomial 23 (erf = 1: 0 * NaN is NaN for NaN and inf, as in the kernel).
    Every key of a number is in the table, so ``np.take`` runs in its cheap "wrap" mode (half
    the time of "clip" here); NaNs whose bits overflow the int32 sum get some row, and NaN
    from it."""
    coefficients = _floats(_MINIMAX_BITS).astype(F64).reshape(6, 25)
    poly = np.clip(np.arange(-1, 1025) - 495, 1, 22)
    poly[((int(_RBOUND.view(np.int32)) - 1) >> 21) + 2 :] = 23
    return np.ascontiguousarray(coefficients[:, poly])


_MINIMAX = _minimax_table()
_KEY_BIAS = np.int32((1 << 21) - 1)


def _minimax_abs_erf(x, s):
    """erf(|x| / sqrt(2)) by oneDNN's polynomials into ``s.e`` (float32); ``s.a`` gets |x|."""
    ax = np.abs(x, out=s.a)
    key = s.i
    np.add(ax.view(np.int32), _KEY_BIAS, out=key)
    key >>= 21
    np.add(key, ax > _RBOUND, out=s.k, casting="unsafe")
    t, p, c = s.w, s.p, s.q
    np.copyto(t, ax)
    _MINIMAX[5].take(s.k, out=p, mode="wrap")
    p *= t
    for d in (4, 3, 2, 1):
        p += _MINIMAX[d].take(s.k, out=c, mode="wrap")
        _round32(p, s.e)
        p *= t
    p += _MINIMAX[0].take(s.k, out=c, mode="wrap")
    np.copyto(s.e, p, casting="same_kind")  # the last rounding needs no float64 copy back
    return s.e


def _minimax_block(x, s, out):
    erf = _minimax_abs_erf(x, s)
    # The kernel flips the sign bit of erf(|x|) where x is negative. (It is negative only for
    # |x| < 2e-15, where 1 + erf is 1 whichever its sign: an xor here, a copysign there.)
    u = out.view(_U32)
    np.bitwise_and(x.view(_U32), _SIGN, out=u)
    np.bitwise_xor(erf.view(_U32), u, out=erf.view(_U32))
    # x * (1 + erf), then * 0.5 (exact but for subnormals, which it rounds like the kernel)
    erf += _ONE
    np.multiply(x, erf, out=out)
    out *= _HALF


def gelu_minimax(x: np.ndarray) -> np.ndarray:
    """oneDNN's AVX-512 GELU (``x``: float32 values, float32 or float64 array)."""
    return _blocks(_minimax_block, x)


# ---- AVX2: Abramowitz and Stegun 7.1.26 with oneDNN's exp -----------------------------------
_EXP_LO = _bits(0xC2AEAC50)  # ln(FLT_MIN)
_LOG2E, _LN2 = _bits(0x3FB8AA3B), _bits(0x3F317218)
_EXP_POL = tuple(_floats("3C07CFCE 3D2B9D0D 3E2AAD40 3EFFFEE3 3F7FFFFB"))
_AS_P = _bits(0x3EA7BA05)  # 0.3275911
_AS_POL = tuple(_floats("3F87DC22 BFBA00E3 3FB5F0E3 BE91A98E 3E827906"))
_INV_SQRT2 = _bits(0x3F3504F3)
_INV_SQRT_PI = _bits(0x3F106EBA)


def _exp_of_minus(w, s):
    """oneDNN's float32 ``exp(-w)`` for ``w >= 0`` (or NaN), into ``s.b``: n = floor(v log2 e +
    1/2) for v = -w clamped at ln(FLT_MIN), a polynomial in r = v - n ln 2, times 2^n as
    2^(n-1) * 2; 0 below ln(FLT_MIN). Uses ``s.w``, ``s.p``, ``s.b``, ``s.c``, ``s.i``."""
    v, n = s.b, s.c
    np.negative(w, out=v)
    np.maximum(v, _EXP_LO, out=v)
    np.multiply(v, _LOG2E, out=n)
    n += _HALF
    np.floor(n, out=n)
    # r = fma(n, -ln 2, v) needs no rounding: v - n ln 2 is a multiple of 2^-25 below 0.35 for
    # every float32 v in [ln(FLT_MIN), 0] (checked for all of them), so float32 holds it.
    r = s.w
    np.multiply(n, -_LN2, out=r, dtype=F64)
    r += v
    q = s.b
    _horner(r, (*_EXP_POL, _ONE), s.p, q, wide=False)
    n -= _ONE
    k = s.i
    np.copyto(k, n, casting="unsafe")  # NaN's n: any scale, q is NaN
    np.ldexp(q, k, out=q)  # q * 2^(n-1) rounded once (2^(n-1) >= 2^-127: float32's scale)
    q *= _TWO
    np.copyto(q, 0, where=w > -_EXP_LO)
    return q


def _abramowitz_stegun_erf(z, q, s):
    """erf(z) by A&S 7.1.26 as oneDNN orders it, given q = exp(-z^2) (float32 arrays): 1 - t q r(t),
    t = 1 / (1 + p|z|), r a degree-5 polynomial; the sign bit of z flips it. Into ``s.e``;
    uses ``s.w``, ``s.p``, ``s.c``, and overwrites ``q`` with q t."""
    t, p, e = s.w, s.p, s.e
    t32 = np.abs(z, out=s.c)
    np.multiply(t32, _AS_P, out=p, dtype=F64)
    p += 1.0
    np.copyto(e, p, casting="same_kind")
    np.divide(_ONE, e, out=t32)
    np.copyto(t, t32)
    _horner(t, _AS_POL, p, e)  # p: r(t)
    q *= t32
    np.negative(q, out=t32)
    np.copyto(t, t32)
    _fma(p, t, 1.0, e)  # 1 - (q t) r
    sign = s.c.view(_U32)
    np.bitwise_and(z.view(_U32), _SIGN, out=sign)
    np.bitwise_xor(e.view(_U32), sign, out=e.view(_U32))
    return e


def _abramowitz_stegun_block(x, s, out, derivative=None):
    z = np.multiply(x, _INV_SQRT2, out=s.a)
    q = _exp_of_minus(np.multiply(z, z, out=s.e), s)
    if derivative is not None:  # the backward's pdf + 0.5, before q is overwritten
        pdf = np.multiply(z, _INV_SQRT_PI, out=derivative)
        pdf *= q
        pdf += _HALF
    erf = _abramowitz_stegun_erf(z, q, s)
    half = np.multiply(x, _HALF, out=s.c)  # rounded: 0.5x of the smallest subnormal is 0
    p = s.p
    np.multiply(erf, half, out=p, dtype=F64)  # fma(erf, half, half)
    p += half
    np.copyto(out, p, casting="same_kind")
    if derivative is not None:
        # fma(erf, 0.5, pdf + 0.5): erf * 0.5 is exact (0 or |erf| >= 2^-49), so one float32 add
        erf *= _HALF
        derivative += erf


def gelu_abramowitz_stegun(x: np.ndarray) -> np.ndarray:
    """oneDNN's AVX2 GELU (``x``: float32 values, float32 or float64 array)."""
    return _blocks(_abramowitz_stegun_block, x)


def gelu_abramowitz_stegun_with_derivative(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """oneDNN's AVX2 GELU and, from the same erf and exp, d gelu / dx as oneDNN's ``gelu_erf``
    backward computes it (on AVX2 and AVX-512 alike): ``0.5 + x/sqrt(2pi) exp(-x^2/2) +
    0.5 erf(x/sqrt(2))``, erf by A&S 7.1.26 with oneDNN's exp; the caller multiplies it by the
    incoming gradient (one more float32 rounding). The derivative costs ~3% more than the
    forward alone, where on its own it costs as much as the forward."""
    return _blocks(_abramowitz_stegun_block, x, outputs=2)


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
