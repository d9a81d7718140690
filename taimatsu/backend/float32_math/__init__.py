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
- ``glibc``: the C library's float functions (expf, expm1f, log1pf, tanhf, sinhf, coshf,
  atan2f, powf) that PyTorch's scalar loops call, replayed bit for bit;
- other modules: further kernels reproduced the same way (see each module's docstring).

Not every float32 function can be matched: ``torch.exp`` and ``torch.tanh`` (like sin, log, erf,
...) call Intel MKL's VML on x86, closed source and different between its AVX-512 and AVX2 code
paths; those stay correctly rounded (float64, rounded once), 95-99% alike.

Only float32 NumPy arrays take these paths; CuPy arrays keep their own kernels. ``run``,
``run2`` and ``emulated`` also reproduce where PyTorch's elementwise loops fall back to their
scalar code (glibc's functions): rows of a strided tensor whose elements are apart in memory,
and the last ``len % (2 * lanes)`` elements of each row piece (see ``GRAIN``). Cost:
3-10x the CPU time of a float64 ``np.exp`` pass (``benchmarks/bench_float32_math.py``).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from .. import parallel, threads
from . import softmax as _softmax

_F32 = np.dtype(np.float32)


def emulated(kernel, scalar_loop: bool = True, scalar=None):
    """``forward(xp, a, *params)`` running ``kernel(a, *params)`` for a float32 NumPy array, with
    ``scalar(b, *params)`` (PyTorch's scalar loop: its formula around glibc's float functions,
    ``glibc``; by default ``fallback``, the op's formula around correctly rounded functions) where
    PyTorch runs its scalar loop (``run``; ``scalar_loop=False``: a kernel that has none), and
    ``fallback`` for other arrays."""

    def wrap(fallback):
        def forward(xp, a, *params):
            if xp is not np or a.dtype != _F32:
                return fallback(xp, a, *params)
            if not scalar_loop:
                return run(kernel, a, *params)
            if scalar is not None:
                return run(kernel, a, *params, scalar=lambda b: scalar(b, *params))
            return run(kernel, a, *params, scalar=lambda b: fallback(xp, b, *params))

        forward.__doc__ = fallback.__doc__
        return forward

    return wrap


# PyTorch's elementwise CPU loops (``cpu_kernel_vec`` under TensorIterator) see a tensor as rows:
# its dims sorted by the input's strides (innermost = smallest; broadcast dims keep their place)
# and adjacent dims merged where the memory steps allow (a dense tensor, in any dim order, is one
# row; a slice ``x[:, :100]`` of a (64, 128) tensor is 64 rows of 100). A tensor of at least GRAIN
# elements is split into one chunk of the rows' flattened elements per thread (a split may fall
# inside a row). Each row piece whose input is contiguous (or broadcast: stride 0) runs two SIMD
# vectors at a time and its last ``len % (2 * lanes)`` elements (all of a shorter piece) through
# the scalar function, which calls glibc (``std::exp``...: correctly rounded) instead of SLEEF;
# rows with any other step run the scalar function throughout.
GRAIN = 32768


def _loop_order(shape, operand_strides):
    """The dims of the loop as TensorIterator orders them, innermost first: an insertion sort from
    the last dim by the operands' strides (the first operand whose strides differ decides; a
    broadcast dim ties with all; equal strides put the larger size outside), which stops at the
    first dim that must stay inside."""

    def outer_first(inner, outer):  # 1: swap (``outer`` belongs inside), -1: keep, 0: tie
        for strides in operand_strides:
            s0, s1 = strides[inner], strides[outer]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[inner] > shape[outer]:
                return 1
        return 0

    perm = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(perm)):
        later = i
        for earlier in range(i - 1, -1, -1):
            c = outer_first(perm[earlier], perm[later])
            if c > 0:
                perm[earlier], perm[later] = perm[later], perm[earlier]
                later = earlier
            elif c < 0:
                break
    return perm


def _rows(operands, c_order: bool = False):
    """``(perm, n, steps)``: the operands' (arrays of one shape) dims in loop order (innermost
    first), and the length of the loop's rows (the innermost dims TensorIterator merges: where
    every operand's memory allows) with each operand's byte step along them. ``c_order``: the op
    allocates a contiguous output before the loop, whose strides then decide the order."""
    a = operands[0]
    if c_order:
        perm = list(range(a.ndim - 1, -1, -1))
    else:
        perm = _loop_order(a.shape, [o.strides for o in operands])
    n, steps = 1, (0,) * len(operands)
    for d in perm:
        size = a.shape[d]
        if n == 1:
            n, steps = size, tuple(o.strides[d] for o in operands)
        elif size != 1:
            if any(step * n != o.strides[d] for step, o in zip(steps, operands, strict=True)):
                break
            n *= size
    return perm, n, steps


def chunk_cuts(total: int) -> list[int]:
    """Where PyTorch's parallel split cuts a loop's ``total`` flattened elements (the chunk starts
    after the first), for the current ``torch.get_num_threads()``."""
    if total < GRAIN:
        return []
    tasks = max(1, min(threads.get_num_threads(), -(-total // GRAIN)))
    chunk = -(-total // tasks)
    return list(range(chunk, total, chunk))


def _vector(kernel, a, params):
    a = np.ascontiguousarray(a)
    if a.size >= 2 * parallel.BLOCK:
        widen = not getattr(kernel, "takes_float32", False)
        return parallel.blockwise(lambda b: kernel(b, *params), a, _F32, widen)
    return np.asarray(kernel(a, *params), _F32)


def _vector2(kernel, a, b):
    """``kernel(a, b)`` for two float32 arrays of one shape: in cache-sized blocks of their
    flattened elements when large (one thread), else at once."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    if a.size < 2 * parallel.BLOCK or a.shape != b.shape:
        return np.asarray(kernel(a.reshape(-1), b.reshape(-1)), _F32).reshape(a.shape)
    out = np.empty(a.shape, _F32)
    fa, fb, fo = a.reshape(-1), b.reshape(-1), out.reshape(-1)
    block = parallel.BLOCK
    for i in range(0, fa.size, block):
        fo[i : i + block] = kernel(fa[i : i + block], fb[i : i + block])
    return out


def _scalar_loop(scalar, *operands, c_order=False):
    """``scalar(*operands)`` (PyTorch's scalar loop on every element of arrays of one shape) as
    a float32 array laid out as NumPy's ufuncs lay out a result (``c_order``: C-contiguous). From ``2 * BLOCK`` elements it
    runs on blockwise's cache-sized blocks of the operands (two threads where allowed): the glibc
    replays' 30-80 NumPy passes each then stay in cache, where a whole large array's temporaries
    travel to memory (and take fresh pages) at every pass. ``scalar`` is elementwise: the same
    bits either way."""
    a = operands[0]
    if a.size < 2 * parallel.BLOCK:
        with np.errstate(over="ignore"):  # exp overflowing to inf is the formula's limit
            return np.asarray(scalar(*operands), _F32)
    # the result's dims in memory order (outermost first), as NumPy would allocate it
    order = np.arange(a.ndim)
    if not c_order:
        order = np.argsort(np.empty_like(a, _F32).strides, kind="stable")[::-1]
    flat = [np.ascontiguousarray(o.transpose(order)).reshape(-1) for o in operands]

    def block(*pieces):
        with np.errstate(over="ignore"):  # errstate is per thread: set it in the helper's too
            return scalar(*pieces)

    r = parallel.blockwise(block, flat[0], _F32, widen=False, others=flat[1:])
    return r.reshape([a.shape[d] for d in order]).transpose(np.argsort(order))


def _fix_cut_rows(vector, scalar, rows, r, cuts, width):
    """Rows a thread's chunk starts inside run as several pieces, each with its own scalar tail:
    redo their elements the whole-row pass gave the other function (``rows``: the operands'
    (rows, n) arrays, ``vector``/``scalar`` called on their pieces)."""
    n = rows[0].shape[1]
    m = n - n % width  # the whole-row pass: vector before m, scalar after
    by_row = {}
    for c in cuts:
        if c % n:
            by_row.setdefault(c // n, []).append(c % n)
    for row, inner in by_row.items():
        ends = [0, *inner, n]
        for p, q in itertools.pairwise(ends):
            t = q - (q - p) % width if q - p >= width else p
            lo = max(p, m)
            if t > lo:  # vector elements the row pass ran scalar
                r[row, lo:t] = vector(*(v[row, lo:t] for v in rows))
            if t < q:
                r[row, t:q] = scalar(*(v[row, t:q] for v in rows))


def _width():
    # read at each call: tests set ``softmax.LANES`` to replay the other CPU's vector width
    return 2 * _softmax.LANES  # a vector loop's step: two SIMD vectors


def _one_row(kernel, a, params, scalar, width):
    """``run`` for a C-contiguous ``a`` of at least ``width`` and fewer than ``GRAIN`` elements
    (the common case, per op call): one row, one thread's chunk and one ``_vector`` block, so
    the row's vector part and its scalar tail are all there is."""
    v = a.reshape(1, -1)
    r = np.asarray(kernel(v, *params), _F32)
    m = v.shape[1] - v.shape[1] % width
    if m < v.shape[1]:
        with np.errstate(over="ignore"):
            r[:, m:] = scalar(v[:, m:])
    return r.reshape(a.shape)


def run(kernel, a, *params, scalar=None, c_order=False):
    """``kernel(a, *params)`` for a float32 NumPy array, blockwise when large. With ``scalar``
    (``scalar(b)``: PyTorch's scalar loop on the elements ``b``), the elements PyTorch does not
    vectorise take it instead (see ``GRAIN``). The result's memory follows ``a``'s loop order.
    ``c_order``: the loop of a binary op with a broadcast scalar operand whose contiguous output
    PyTorch allocates before the loop (``pow(Scalar, Tensor)``): it runs in the output's (C)
    order, and rows where ``a`` is broadcast too run the scalar function (only one operand of a
    vector loop may be a broadcast scalar)."""
    if scalar is None:
        if a.ndim == 0:  # the kernels index their results: run them on one-element vectors
            return _vector(kernel, a.reshape(1), params).reshape(())
        return _vector(kernel, a, params)
    width = _width()
    if a.size < width:  # no row is long enough for a vector
        return _scalar_loop(scalar, a).reshape(a.shape)
    if a.size < GRAIN and a.size < 2 * parallel.BLOCK and a.flags.c_contiguous:
        return _one_row(kernel, a, params, scalar, width)
    if any(s < 0 for s in a.strides):  # a flipped view: a fresh contiguous tensor in PyTorch
        a = np.ascontiguousarray(a)
    if a.flags.c_contiguous:  # one row (the common case: skip the stride analysis)
        perm, n, step, b = None, a.size, a.itemsize, a
    else:
        perm, n, (step,) = _rows((a,), c_order)
        b = a.transpose(perm[::-1])  # loop order, outermost first
    if step != a.itemsize and (step != 0 or c_order):
        return _scalar_loop(scalar, a, c_order=c_order)
    v = b.reshape(-1, n)  # a copy where the rows are apart in memory
    r = _vector(kernel, v, params)
    m = n - n % width if n >= width else 0
    with np.errstate(over="ignore"):
        if m < n:
            r[:, m:] = _scalar_loop(scalar, v[:, m:])
        _fix_cut_rows(
            lambda piece: _vector(kernel, piece, params), scalar, (v,), r, chunk_cuts(a.size), width
        )
    if perm is None:
        return r.reshape(a.shape)
    return r.reshape(b.shape).transpose(np.argsort(perm[::-1]))


def run2(kernel, a, b, scalar=None):
    """``kernel(a, b)`` for two float32 NumPy arrays of one (broadcast) shape, in cache-sized
    blocks when large. With ``scalar`` (``scalar(a, b)``: PyTorch's scalar loop), the elements
    PyTorch does not vectorise take it instead, as in ``run``: rows (merged over both operands'
    strides) where each operand is contiguous, or one of them a broadcast scalar, run the vector
    loop and its scalar tail; other rows run the scalar function throughout."""
    if scalar is None:
        return _vector2(kernel, a, b)
    width = _width()
    if a.size < width:
        return _scalar_loop(scalar, a, b).reshape(a.shape)
    a, b = (np.ascontiguousarray(o) if any(s < 0 for s in o.strides) else o for o in (a, b))
    if a.flags.c_contiguous and b.flags.c_contiguous:  # one row
        perm, n, steps = None, a.size, (a.itemsize, a.itemsize)
    else:
        perm, n, steps = _rows((a, b))
        a, b = a.transpose(perm[::-1]), b.transpose(perm[::-1])
    if not (set(steps) <= {0, a.itemsize} and any(steps)):  # one broadcast scalar at most
        r = _scalar_loop(scalar, a, b)
    else:
        va, vb = a.reshape(-1, n), b.reshape(-1, n)
        r = _vector2(kernel, va, vb)
        m = n - n % width if n >= width else 0
        with np.errstate(over="ignore"):
            if m < n:
                r[:, m:] = _scalar_loop(scalar, va[:, m:], vb[:, m:])
            vector = functools.partial(_vector2, kernel)
            _fix_cut_rows(vector, scalar, (va, vb), r, chunk_cuts(a.size), width)
        r = r.reshape(a.shape)
    return r if perm is None else r.transpose(np.argsort(perm[::-1]))
