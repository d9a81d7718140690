"""SLEEF's float32 exp family (``expf_u10``, ``expm1f_u10``, ``sinhf_u10``, ``coshf_u10``,
``tanhf_u10``), as PyTorch's ``Vectorized<float>`` calls them (AVX2 and AVX-512 alike).

The algorithms: ``exp(x) = 2**q * exp(s)`` with ``q = rint(x / ln 2)`` and ``s = x - q ln 2``
(Cody-Waite: ``ln 2`` split into two float32 parts); ``exp(s)`` by a degree-7 float32 polynomial
(``expf``) or, for the ``u10`` functions built on ``expk2f``, a float32 polynomial inside
double-float (a pair of float32, ~48 bits) arithmetic. The float32 steps are reproduced with
float32 roundings (``primitives``); the double-float steps run in float64, which is at least as
precise, so the one final rounding agrees but for rare near-ties. Where double-float arithmetic
is *less* precise than float64 — the cancellations of ``expm1``/``sinh``/``tanh`` near 0 — the
last steps are replayed in float32 pairs exactly as SLEEF orders them.

Arguments: float32 values (a float32 array, or a float64 array holding float32 values, as
``blockwise`` hands out); results: float32 arrays.
"""

from __future__ import annotations

import threading

import numpy as np

from .primitives import F32, F64, add, fma, mul

R_LN2 = np.float32(1.442695040888963407359924681001892137426645954152985934135449406931)
L2U = np.float32(0.693145751953125)  # ln 2, upper bits: q * L2U is exact for |q| < 2**9
L2L = np.float32(1.428606765330187045e-06)  # ln 2 - L2U, rounded to float32
_EXPF_POLY = tuple(
    np.float32(c)
    for c in (
        0.000198527617612853646278381,
        0.00139304355252534151077271,
        0.00833336077630519866943359,
        0.0416664853692054748535156,
        0.166666671633720397949219,
        0.5,
    )
)
_EXPK2_POLY = tuple(np.float32(c) for c in (0.1980960224e-3, 0.1394256484e-2, 0.8333456703e-2))
_EXPK2_C4 = np.float32(0.4166637361e-1)
_EXPK2_C5 = np.float64(np.float32(0.166666659414234244790680580464))
# Below this |x| q is 0 and the double-float cancellations of expm1/sinh/tanh are replayed exactly.
_SMALL = 2.0**-4
_ONE = np.float32(1)
_LOW, _HIGH = np.float32(-105), np.float32(105)


def _horner(u, s, coefficients):
    for c in coefficients:
        u = fma(u, s, c)
    return u


def _quotient(d):
    """``rint(d / ln 2)`` computed as SLEEF does (float32 product, then round to even)."""
    return np.rint(mul(d, R_LN2))


def _scale(u, q):
    """``u * 2**q`` rounded once to float32 (SLEEF's ``vldexp2``: no overflow of 2**q)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return (np.asarray(u, F64) * np.exp2(q, dtype=F64)).astype(F32)


def _constants(sign):
    """The constants of ``_exp_chunk`` for ``expf(sign * d)``, as 0-d arrays (a ufunc call takes
    them ~0.3 us faster than NumPy scalars)."""

    def f32(v):
        return np.array(v, F32)

    return (
        f32(_LOW),
        f32(_HIGH),
        f32(sign * R_LN2),
        f32(sign * L2U),
        f32(sign * L2L),
        f32(sign * _EXPF_POLY[0]),
        tuple(f32(c) for c in _EXPF_POLY[1:5]),
        np.array(0.5, F64),
        f32(1),
    )


_CONSTANTS = {1: _constants(1), -1: _constants(-1)}
# Elements per pass: the buffers of one pass (four float32, one int32, three float64) stay in the
# per-core L2 cache, and the ~30 NumPy calls of a pass are spread over enough elements.
_EXPF_CHUNK = 1 << 14
_local = threading.local()


def _buffers(n):
    """This thread's expf scratch arrays of ``n`` elements (reused call after call: no allocation,
    no page faults; never shared between threads). The views of the last size asked for are
    kept: a loop calls with one size again and again."""
    views = getattr(_local, "views", None)
    if views is not None and views[0].size == n:
        return views
    b = getattr(_local, "buffers", None)
    if b is None or b[0].size < n:
        m = max(n, _EXPF_CHUNK)
        b = _local.buffers = (
            *(np.empty(m, F32) for _ in range(4)),
            np.empty(m, np.int32),
            *(np.empty(m, F64) for _ in range(3)),
        )
    views = _local.views = [a[:n] for a in b]
    return views


def expf(d, out=None):
    """SLEEF ``xexpf`` (``Sleef_expf16_u10`` / ``Sleef_expf8_u10``), into ``out`` if given
    (a float32 array of ``d``'s shape).

    Cheapest form found that still agrees with SLEEF in >99.99% of elements: the reduction and
    the polynomial's first four steps in plain float32 arithmetic (a multiply and an add where
    SLEEF fuses them: their last-bit differences reach the result in <0.01% of elements), the
    two steps whose rounding does reach it (the polynomial's last, ``s + s*s * u``) as exact FMAs.
    (Every rounding can be replayed exactly, the polynomial's fixed-binade steps in float64 with
    a rounding constant: the same bits as SLEEF on 18M inputs, but ~1.5x the CPU time.)
    """
    return _exp_of(d, out, 1)


def exp_neg(d, out=None):
    """``expf(-d)`` without forming ``-d``: the same bits (sigmoid's and silu's exp)."""
    return _exp_of(d, out, -1)


def _exp_of(d, out, sign):
    d = np.asarray(d)
    if d.dtype != F32 and d.dtype != F64:  # float64: float32 values, as ``blockwise`` hands out
        d = d.astype(F32)
    if out is not None and not out.flags.c_contiguous:
        out[...] = _exp_of(d, None, sign)
        return out
    r = np.empty(d.shape, F32) if out is None else out
    flat, dst = d.reshape(-1), r.reshape(-1)  # a copy only where d is not contiguous
    n, k = flat.size, _CONSTANTS[sign]
    with np.errstate(invalid="ignore", over="ignore"):
        step = _chunk_size(n)
        if n <= step:
            _exp_chunk(flat, dst, sign, k, _buffers(n))
        else:
            for i in range(0, n, step):
                j = min(n, i + step)
                _exp_chunk(flat[i:j], dst[i:j], sign, k, _buffers(j - i))
    return r


def _chunk_size(n: int) -> int:
    """Elements per pass for ``n``: the nearest whole number of ``_EXPF_CHUNK``-sized chunks,
    evened out (up to 1.5x the size, still in the L2 cache): a short last chunk costs its
    ~30 calls for little work (33792 elements, attention's causal 32x32 scores of 64 heads:
    16384 + 16384 + 1024 took ~9% more CPU than 2 x 16896)."""
    count = max(1, round(n / _EXPF_CHUNK))
    return -(-n // count)


def _exp_chunk(d, r, sign, k, buffers):
    """``r = expf(sign * d)`` for 1-d ``d`` into float32 ``r``. The reduction computes
    ``z = sign * s`` (so that ``-d`` costs nothing; float32 rounding is symmetric) and each
    polynomial step ``u * s`` as ``sign * (u * z)``. Positional ``out`` arguments and 0-d
    constants: the per-call cost of the ~30 NumPy calls is much of a 4K-element call."""
    low, high, r_ln2, l2u, l2l, c0, cs, half, one = k
    x, q, z, u, qi, v, w, t = buffers
    mul, add, sub = np.multiply, np.add, np.subtract
    if d.dtype == F64:  # float32 values (``blockwise``): cast first, then float32 loops
        x[...] = d
        d = x
    np.maximum(d, low, out=x)  # beyond +-105: 0 / inf (NaN stays NaN)
    np.minimum(x, high, out=x)
    mul(x, r_ln2, q)  # q = rint(f32(sign * d * R_LN2))
    np.rint(q, q)
    qi[...] = q
    mul(q, l2u, z)
    sub(x, z, z)  # exact (Cody-Waite)
    mul(q, l2l, u)
    sub(z, u, z)  # SLEEF's FMA rounds once: the same float32 s in all but ~1/4096 elements
    mul(z, c0, u)
    add(u, cs[0], u)
    fold = add if sign > 0 else lambda a, b, o: sub(b, a, o)  # u * s + c = sign * (u * z) + c
    for c in cs[1:]:
        mul(u, z, u)
        fold(u, c, u)
    # u = fma(u, s, 0.5): the float64 product of two float32 values is exact, one rounding
    w[...] = z
    v[...] = u
    mul(v, w, v)
    fold(v, half, v)
    u[...] = v
    # r = fma(s * s, u, s) + 1
    mul(z, z, x)
    v[...] = x
    t[...] = u
    mul(v, t, v)
    add(v, w, v) if sign > 0 else sub(v, w, v)
    x[...] = v
    add(x, one, x)
    # ldexp rounds once (into the subnormals); below -104 the result rounds to 0 as SLEEF's
    # select gives, -105 (the clip) included
    np.ldexp(x, qi, r)


def _expk2(d):
    """SLEEF ``expk2f`` of float32 ``d`` >= 0 or small: ``(t, q)`` with ``exp(d) = t * 2**q``,
    ``t`` the double-float result held in float64 (``1 + p(s)``, before scaling). The float32
    polynomial as a float32 multiply and add per step (SLEEF fuses them: the difference reaches
    the result in <0.005% of elements)."""
    d = np.asarray(d, F32)
    q = np.rint(d * R_LN2)
    # s = d - q * L2U - f32(q * L2L): exact in float64 (the double-float sum SLEEF forms).
    s = d.astype(F64)
    s -= q.astype(F64) * np.float64(L2U)
    s += q * -L2L
    return _expk2_poly(s, s.astype(F32)), q  # exp(d) = (1 + t) * 2**q


def _expk2_small(d):
    """``_expk2(d)[0]`` for float32 ``|d| < _SMALL``, where q is 0: no reduction (s is d, -0 made
    +0 as the reduction's zero terms make it). The same operations otherwise: the same bits."""
    sx = np.asarray(d, F32)
    s = sx.astype(F64)
    s += 0.0
    return _expk2_poly(s, sx)


def _expk2_poly(s, sx):
    """``expk2f``'s polynomial ``t`` (exp(s) = 1 + t) of the reduced argument: ``s`` its
    float64 value, ``sx`` it rounded to float32 (the float32 steps' input)."""
    u = sx * _EXPK2_POLY[0]
    u += _EXPK2_POLY[1]
    for c in (_EXPK2_POLY[2], _EXPK2_C4):
        u *= sx
        u += c
    t = s * u
    t += _EXPK2_C5
    t *= s
    t += 0.5
    t *= s * s
    t += s
    return t


def _pair(v):
    """float64 ``v`` as a double-float: (hi, lo) float32."""
    hi = v.astype(F32)
    return hi, (v - hi).astype(F32)


def _one_plus(t):
    """SLEEF ``dfadd_vf2_vf_vf2(1, t)`` in float32 pairs (``t`` small: the low part keeps ``t``)."""
    tx, ty = _pair(t)
    hi = add(_ONE, tx)
    lo = add(add(_ONE - hi, tx), ty)
    return hi, lo


def _reciprocal(hi, lo):
    """SLEEF ``dfrec_vf2_vf2``: 1 / (hi + lo) as a float32 pair (FMA form)."""
    s = (_ONE / hi).astype(F32)
    r = fma(-hi, s, _ONE)
    r = fma(-lo, s, r)
    return s, mul(s, r)


def _sub_pairs(ax, ay, bx, by):
    """SLEEF ``dfsub_vf2_vf2_vf2`` (|a| >= |b|) as a float32 pair."""
    s = add(ax, -bx)
    t = add(add(add(ax, -s), -bx), ay)
    return s, add(t, -by)


def _add_pairs(ax, ay, bx, by):
    """SLEEF ``dfadd_vf2_vf2_vf2`` (|a| >= |b|) as a float32 pair."""
    s = add(ax, bx)
    t = add(add(add(add(ax, -s), bx), ay), by)
    return s, t


def _small(x, f):
    """Indices of |x| < _SMALL, and ``f`` of those elements (None when there are none)."""
    idx = np.flatnonzero(np.abs(x) < _SMALL)
    return idx, (f(x.reshape(-1)[idx]) if idx.size else None)


def _put(r, idx, v):
    if idx.size:
        r.reshape(-1)[idx] = v
    return r


def _expm1_small(a):
    t = _expk2_small(a)
    dx, dy = _one_plus(t)
    # dfadd2_vf2_vf2_vf(d, -1), then hi + lo
    s = add(dx, -_ONE)
    v = add(s, -dx)
    w = add(add(dx, -add(s, -v)), add(-_ONE, -v))
    return add(s, add(w, dy))


def expm1f(a):
    """SLEEF ``xexpm1f`` (``Sleef_expm1f16_u10``)."""
    a = np.asarray(a, F32)
    with np.errstate(over="ignore", invalid="ignore"):
        t, q = _expk2(a)
        r = ((t + 1) * np.exp2(q, dtype=F64) - 1).astype(F32)
    if a.size and not (a.min() >= -16 and a.max() <= 88):  # NaN fails too
        r[a > np.float32(88.72283172607421875)] = np.inf
        r[a < np.float32(-16.635532333438687426013570)] = -1
    _put(r, *_small(a, _expm1_small))
    return np.copysign(r, a)  # expm1 keeps the sign of a: -0 for -0


def _exp_abs(x):
    """exp(|x|) in float64 (SLEEF's double-float ``expk2f``, scaled), |x|, and whether some
    |x| is beyond ``big`` (or NaN)."""
    y = np.abs(np.asarray(x, F32))
    with np.errstate(over="ignore", invalid="ignore"):
        t, q = _expk2(y)
        t += 1
        t *= np.exp2(q, dtype=F64)
        return t, y


def _beyond(y, big):
    return bool(y.size) and not y.max() <= big  # NaN counts as beyond


def _sinh_small(x):
    t = _expk2_small(np.abs(x))
    dx, dy = _one_plus(t)
    s, w = _sub_pairs(dx, dy, *_reciprocal(dx, dy))
    return np.copysign(mul(add(s, w), np.float32(0.5)), x)


def sinhf(x):
    """SLEEF ``xsinhf`` (``Sleef_sinhf16_u10``): (e - 1/e) / 2 in double-float."""
    x = np.asarray(x)
    e, y = _exp_abs(x)
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.copysign(mul((e - 1 / e).astype(F32), np.float32(0.5)), x)
    if _beyond(y, 89):
        r[y > 89] = np.copysign(np.float32(np.inf), x[y > 89])
    return _put(r, *_small(x, _sinh_small))


def coshf(x):
    """SLEEF ``xcoshf`` (``Sleef_coshf16_u10``): (e + 1/e) / 2 in double-float."""
    x = np.asarray(x)
    e, y = _exp_abs(x)
    with np.errstate(over="ignore", invalid="ignore"):
        r = mul((e + 1 / e).astype(F32), np.float32(0.5))
    if _beyond(y, 89):
        r[y > 89] = np.inf
    return r


def _tanh_small(x):
    t = _expk2_small(np.abs(x))
    dx, dy = _one_plus(t)
    ex, ey = _reciprocal(dx, dy)
    nx, ny = _add_pairs(dx, dy, -ex, -ey)
    dsx, dsy = _add_pairs(dx, dy, ex, ey)
    q = (nx.astype(F64) + ny) / (dsx.astype(F64) + dsy)
    return np.copysign(q.astype(F32), x)


def tanhf(x):
    """SLEEF ``xtanhf`` (``Sleef_tanhf16_u10``): (e - 1/e) / (e + 1/e) in double-float; 1 from
    |x| > 8.664339742. (``torch.tanh`` itself runs MKL's vsTanh on x86; GELU and mish use this.)"""
    x = np.asarray(x)
    e, y = _exp_abs(x)
    with np.errstate(over="ignore", invalid="ignore"):
        r = 1 / e
        r = ((e - r) / (e + r)).astype(F32)
    if _beyond(y, 8):
        r[y > np.float32(8.664339742)] = 1
    r = np.copysign(r, x)
    return _put(r, *_small(x, _tanh_small))


# ``run`` hands these float32 blocks as they are (no float64 copy): each reads its argument as
# float32 values first (``asarray(..., F32)``), so the bits are those of float64-held blocks.
expm1f.takes_float32 = sinhf.takes_float32 = coshf.takes_float32 = True
