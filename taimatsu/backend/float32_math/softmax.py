"""float32 softmax / log_softmax as PyTorch's vectorised CPU kernels compute them
(``aten/src/ATen/native/cpu/SoftMaxKernel.cpp``): ``exp`` is SLEEF's ``expf`` (``exp``), and the
sums are added in the kernels' order, since one ulp of the sum moves every element of the row.

- Over the last dimension (PyTorch's ``*_lastdim`` kernels): each row's exps are accumulated in
  the lanes of one SIMD register (16 floats with AVX-512, 8 with AVX2: a running sum per lane,
  the row's last partial vector added to its first lanes), then the lanes are folded pairwise
  (lane i + lane i^8, then i^4, i^2, i^1); a row shorter than a register is summed left to
  right. softmax is ``exp * (1 / sum)``; log_softmax ``(x - max) - log(sum)``.
- Over another dimension: the sums run left to right along it, vectorised over the inner
  positions; the last ``inner % lanes`` inner positions take the kernel's scalar tail (``std::exp``,
  correctly rounded). softmax is ``exp / sum``; log_softmax ``(x - max) - log(sum)``.

PyTorch splits the rows (last dimension) or the inner positions (other dimensions) over its
threads; the second split moves the scalar tails, which is reproduced for one thread only.
"""

from __future__ import annotations

import os

import numpy as np

from .exp import expf
from .primitives import F32, F64


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


def _lane_sum(e):
    """Row sums of the 2-d float32 ``e`` in ATen's ``vec::reduce_all`` order."""
    rows, n = e.shape
    if n < LANES:
        acc = e[:, 0].copy()
        for i in range(1, n):
            acc += e[:, i]
        return acc
    full = n - n % LANES
    # A reduction over the middle axis adds the vectors one after another (no pairwise sum).
    acc = np.add.reduce(e[:, :full].reshape(rows, -1, LANES), axis=1)
    acc[:, : n - full] += e[:, full:]
    # Fold lane i with lane i ^ half, half = LANES/2, ..., 1: only the low half feeds lane 0.
    half = LANES // 2
    while half:
        acc = acc[:, :half] + acc[:, half : 2 * half]
        half //= 2
    return acc[:, 0]


def _log(s):
    return np.log(s.astype(F64)).astype(F32)


_BLOCK = 1 << 15  # elements per chunk of rows: the float64 temporaries of expf stay in cache


def softmax_lastdim(x, log: bool):
    """softmax / log_softmax of the 2-d float32 ``x`` over its rows (chunks of rows)."""
    rows, n = x.shape
    step = max(1, _BLOCK // max(n, 1))
    if rows <= step:
        return _softmax_rows(x, log)
    out = np.empty(x.shape, F32)
    for i in range(0, rows, step):
        out[i : i + step] = _softmax_rows(x[i : i + step], log)
    return out


def _softmax_rows(x, log: bool):
    shifted = x - x.max(axis=1, keepdims=True)
    e = expf(shifted)
    with np.errstate(divide="ignore"):
        s = _lane_sum(e)[:, None]
        if log:
            return shifted - _log(s)
        return e * (np.float32(1) / s)


def softmax_dim(x, log: bool):
    """softmax / log_softmax of the 3-d float32 ``x`` (outer, dim, inner) over its middle axis."""
    shifted = x - x.max(axis=1, keepdims=True)
    e = expf(shifted)
    inner = x.shape[2]
    tail = inner - inner % LANES
    if tail < inner:  # the kernel's scalar loop: std::exp, correctly rounded
        e[:, :, tail:] = np.exp(shifted[:, :, tail:].astype(F64)).astype(F32)
    with np.errstate(divide="ignore", invalid="ignore"):
        # left to right along the dimension (np.add.reduce may sum pairwise when inner is 1)
        s = np.cumsum(e, axis=1, dtype=F32)[:, -1:]
        if log:
            return shifted - _log(s)
        return e / s


def probabilities(shifted, dead):
    """``softmax`` over the last axis of float32 ``shifted`` (= x - row max, already taken), with
    rows flagged in ``dead`` (all -inf: all exps 0) giving 0: the last-dimension kernel's
    arithmetic, for fused ops that must give ``softmax``'s bits (scaled dot-product attention)."""
    n = shifted.shape[-1]
    e = expf(shifted.reshape(-1, n))
    s = _lane_sum(e)[:, None]
    s[dead.reshape(-1, 1)] = 1
    e *= np.float32(1) / s
    return e.reshape(shifted.shape)
