"""float32 softmax / log_softmax as PyTorch's vectorised CPU kernels compute them
(``aten/src/ATen/native/cpu/SoftMaxKernel.cpp``): ``exp`` is SLEEF's ``expf`` (``exp``), and the
sums are added in the kernels' order, since one ulp of the sum moves every element of the row.

- Over the last dimension (PyTorch's ``*_lastdim`` kernels): each row's exps are accumulated in
  the lanes of one SIMD register (16 floats with AVX-512, 8 with AVX2: a running sum per lane,
  the row's last partial vector added to its first lanes), then the lanes are folded pairwise
  (lane i + lane i^8, then i^4, i^2, i^1); a row shorter than a register is summed left to
  right. softmax is ``exp * (1 / sum)``; log_softmax ``(x - max) - log(sum)``.
- Over another dimension: the sums run left to right along it, vectorised over the inner
  positions; the last ``inner % lanes`` inner positions take the kernel's scalar tail
  (``std::exp``: glibc's expf, ``glibc.expf``). softmax is ``exp / sum``; log_softmax
  ``(x - max) - log(sum)``. The log is SLEEF's (``log.logf``) in both kernels.

- The backward over the last dimension: softmax ``y * (g - sum(g * y))``, log_softmax
  ``g - exp(y) * sum(g)`` (SLEEF's exp, one FMA), the sums in the same lane order.

PyTorch splits the rows (last dimension) or the inner positions (other dimensions) over its
threads; the second split moves the scalar tails, which is reproduced for one thread only.

Cost: NumPy passes, ~30 of them in ``expf``. Rows of up to ``_SHORT`` elements are computed on
a transposed copy (a row per column), where the maxima, lane sums and scaling are long loops
instead of a few vectors per row; rows are processed a cache-sized block at a time, and over
two threads from 128K elements when a second core is free (rows are independent: same bits).
"""

from __future__ import annotations

import os

import numpy as np

from .. import parallel
from ..fp_errors import silent
from . import glibc
from .exp import expf
from .log import logf
from .primitives import CHUNK, F32, F64, scratch64


def _lanes() -> int:
    """float32 lanes of ATen's CPU vectors: 16 where it picks its AVX-512 kernels, else 8
    (``ATEN_CPU_CAPABILITY``, PyTorch's override, is honoured: avx2/default give 8)."""
    forced = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if forced:
        return 16 if forced == "avx512" else 8
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as cpu
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__ as cpu
    avx512 = all(cpu.get(f, False) for f in ("AVX512F", "AVX512BW", "AVX512DQ", "AVX512VL"))
    return 16 if avx512 else 8


LANES = _lanes()


def _fold(acc):
    """Fold the lanes along axis 0 of ``acc`` (LANES, ...): lane i + lane i ^ half, half =
    LANES/2, ..., 1 (only the low half feeds lane 0)."""
    half = LANES // 2
    while half:
        acc = acc[:half] + acc[half : 2 * half]
        half //= 2
    return acc[0]


def _lane_sum_columns(e):
    """Column sums of the 2-d float32 ``e`` (n, m) in ATen's ``vec::reduce_all`` order over each
    column (a row of the softmax): with the rows along axis 1, every step is one long
    contiguous NumPy loop."""
    n = e.shape[0]
    if n < LANES:  # shorter than a register: left to right (accumulate is sequential)
        return np.add.accumulate(e, axis=0)[-1]
    full = n - n % LANES
    # one vector after another (np.add.reduce over axis 0 of a contiguous block is sequential)
    acc = np.add.reduce(e[:full].reshape(-1, LANES, e.shape[1]), axis=0)
    acc[: n - full] += e[full:]  # the last partial vector, into the first lanes
    return _fold(acc)


def _lane_sum(e):
    """Row sums of the 2-d float32 ``e`` (rows, n) in ATen's ``vec::reduce_all`` order."""
    rows, n = e.shape
    if n < LANES:  # left to right (accumulate is sequential)
        return np.add.accumulate(e, axis=1)[:, -1]
    full = n - n % LANES
    # the vectors of all rows, one after another: (n // LANES, LANES, rows), contiguous
    blocks = np.ascontiguousarray(e[:, :full].reshape(rows, -1, LANES).transpose(1, 2, 0))
    acc = np.add.reduce(blocks, axis=0)
    acc[: n - full] += e[:, full:].T
    return _fold(acc)


def _log(s):
    return logf(s)  # Vectorized<float>::log: SLEEF's logf, not the correctly rounded log


_BLOCK = 1 << 15  # elements per chunk: expf's buffers and the chunk stay in the L2 cache
# Rows up to this long are computed transposed (a row per column: long NumPy loops where the
# rows' own loops would be a few vectors long). Measured on 512 rows (log_softmax, us,
# transposed / in place, AMD Zen 5): 16 keys 68/89, 32 103/124, 56 155/167, 64 182/184, 65
# 181/174, 100 290/252, 128 366/328: past a row of four AVX-512 vectors the transposed copy
# back costs more than the short loops.
_SHORT = 64


def softmax_lastdim(x, log: bool):
    """softmax / log_softmax of the 2-d float32 ``x`` over its rows (chunks of rows)."""
    rows, n = x.shape
    out = np.empty(x.shape, F32)
    block = max(1, _BLOCK // max(n, 1))
    kernel = _softmax_columns if n <= _SHORT else _softmax_rows

    def run(lo, hi):  # rows are independent: two threads give the same bits as one
        step = _even_step(hi - lo, block)
        for i in range(lo, hi, step):
            j = min(i + step, hi)
            kernel(x[i:j], out[i:j], log)

    parallel.halves(run, rows, x.size * parallel.PASS_WORK)
    return out


def _even_step(total: int, step: int) -> int:
    """Rows per block for ``total`` rows in blocks of about ``step``: the nearest whole number
    of blocks, evened out (up to 1.5x ``step``). A short last block costs the kernel's ~50
    NumPy calls for a few rows: GPT's (512, 65) cross-entropy ran blocks of 504 + 8 rows
    forward and 4 x 126 + 8 backward."""
    count = max(1, round(total / step))
    return max(1, -(-total // count))


@silent  # inf - inf is NaN, silently; runs in helper threads (errstate is per thread)
def _softmax_rows(x, out, log: bool):
    """The kernel over the rows of 2-d ``x`` into ``out``."""
    m = x.max(axis=1, keepdims=True)
    shifted = np.subtract(x, m, out=out if log else None)
    e = expf(shifted, out=None if log else out)
    with np.errstate(divide="ignore"):
        s = _lane_sum(e)[:, None]
        if log:
            shifted -= _log(s)
            return
        e *= np.float32(1) / s


@silent
def _softmax_columns(x, out, log: bool):
    """The kernel over the rows of 2-d ``x`` into ``out``, computed on a transposed copy (a
    column per row)."""
    t = np.empty(x.shape[::-1], F32)
    np.copyto(t, x.T)
    m = np.maximum.reduce(t, axis=0)
    t -= m
    if not log:
        e = expf(t, out=t)
    elif out.flags.c_contiguous:  # out's memory holds the exps until t is copied into it
        e = expf(t, out=out.reshape(t.shape))
    else:
        e = expf(t)
    with np.errstate(divide="ignore"):
        s = _lane_sum_columns(e)
        if log:
            t -= _log(s)
        else:
            e *= np.float32(1) / s
    np.copyto(out, t.T)


def backward_lastdim(y, g, log: bool):
    """The gradient of softmax / log_softmax over the last axis from their float32 output ``y``
    and its gradient ``g``, as PyTorch's vectorised backward kernels compute it: softmax
    ``y * (g - sum(g * y))``, log_softmax ``g - exp(y) * sum(g)`` with SLEEF's exp and one FMA,
    the sums in ``vec::reduce_all``'s lane order (log_softmax's bits; softmax's but for rare
    last-bit differences where a row's length is not a multiple of the lanes)."""
    n = y.shape[-1]
    y2, g2 = y.reshape(-1, n), g.reshape(-1, n)
    out = np.empty(y2.shape, F32)
    # the forward's blocks (a quarter of them took 10-40% more CPU: expf's chunks and every
    # pass's call paid four times), their lane sums a quarter at a time: the sums' transposed
    # copy (and softmax's g * y) stays small, as does the step's peak memory (cross-entropy's
    # backward is the first node of a training step's backward)
    block = max(1, _BLOCK // max(n, 1))
    part = max(1, _BLOCK // 4 // max(n, 1))

    @silent
    def run(lo, hi):
        step = _even_step(hi - lo, block)
        for i in range(lo, hi, step):
            rows = slice(i, min(i + step, hi))
            yb, gb, ob = y2[rows], g2[rows], out[rows]
            if log:
                _log_softmax_backward(yb, gb, ob, part)
            else:
                np.subtract(gb, _lane_sums_by_parts(gb, part, yb)[:, None], out=ob)
                ob *= yb

    parallel.halves(run, y2.shape[0], y2.size * parallel.PASS_WORK)
    return out.reshape(y.shape)


def _lane_sums_by_parts(g, part: int, y=None):
    """``_lane_sum(g)`` (of ``g * y`` when ``y`` is given), ``part`` rows at a time."""
    rows = g.shape[0]
    if rows <= part:
        return _lane_sum(g if y is None else g * y)
    step = _even_step(rows, part)
    s = np.empty(rows, F32)
    for i in range(0, rows, step):
        gi = g[i : i + step]
        s[i : i + step] = _lane_sum(gi if y is None else gi * y[i : i + step])
    return s


def _log_softmax_backward(y, g, out, part: int):
    e = expf(y, out=out)
    s = np.negative(_lane_sums_by_parts(g, part)[:, None], dtype=F64)
    rows, n = y.shape
    if n > CHUNK:  # rows longer than the scratch: one float64 temporary each
        for i in range(rows):
            w = e[i].astype(F64)
            w *= s[i]
            w += g[i]
            out[i] = w
        return
    per = CHUNK // n  # rows per float64 block, in this thread's scratch (no allocation)
    step = -(-rows // -(-rows // per))  # as even as blocks of at most ``per`` rows allow
    scratch = scratch64()
    for i in range(0, rows, step):
        j = min(rows, i + step)
        w = scratch[: (j - i) * n].reshape(j - i, n)
        np.copyto(w, e[i:j])
        w *= s[i:j]  # exact
        w += g[i:j]
        out[i:j] = w  # g - e * sum rounded once (the kernel's FMA)


def log_softmax_backward_dim(y, g):
    """The gradient of log_softmax over the middle axis of 3-d float32 ``y`` (outer, dim, inner)
    from its output and gradient ``g``, as PyTorch's ``_vec_log_softmax_backward``: the sum of
    ``g`` left to right along the dimension, then ``g - exp(y) * sum`` as one FMA, with SLEEF's
    exp on the vectorised inner positions and ``std::exp`` (the C library's expf) on the last
    ``inner % LANES``, the kernel's scalar tail."""
    s = np.add.accumulate(g, axis=1)[:, -1:]  # accumulate: strictly left to right
    inner = y.shape[2]
    tail = inner - inner % LANES
    e = expf(y)
    if tail < inner:
        e[:, :, tail:] = glibc.expf(y[:, :, tail:])
    w = e.astype(F64)
    w *= -s.astype(F64)
    w += g  # g - e * sum rounded once (the kernel's FMA)
    return w.astype(F32)


def softmax_dim(x, log: bool):
    """softmax / log_softmax of the 3-d float32 ``x`` (outer, dim, inner) over its middle axis."""
    shifted = x - x.max(axis=1, keepdims=True)
    e = expf(shifted)
    inner = x.shape[2]
    tail = inner - inner % LANES
    if tail < inner:  # the kernel's scalar loop: std::exp, the C library's expf
        e[:, :, tail:] = glibc.expf(shifted[:, :, tail:])
    with np.errstate(divide="ignore", invalid="ignore"):
        # left to right along the dimension (np.add.reduce may sum pairwise when inner is 1)
        s = np.cumsum(e, axis=1, dtype=F32)[:, -1:]
        if log:
            return shifted - _log(s)
        return e / s
