"""The 1- and 2-norms of float32/float64 arrays in the order of PyTorch's CPU norm kernel
(``norm_kernel_tensor_iterator_impl`` in ``aten/src/ATen/native/cpu/ReduceOpsKernel.cpp``), so
``linalg.vector_norm``/``norm`` give PyTorch's bits.

What the kernel does (re-implemented from its description; the compiler's choices measured
against torch 2.13's CPU build):

- p = 2 where TensorIterator's ordering and merging of dims leaves one reduced dim, innermost and
  contiguous (``is_reduce_lastdim``; a full reduction of a contiguous tensor is one): ATen's AVX2
  build, which it runs on AVX-512 CPUs too, so vectors of 8 floats / 4 doubles. Each lane sums
  ``x * x`` over the whole vectors (the square rounded, then the add), the lanes are added left
  to right, then the tail element by element: for float32 a tail of 4 or more starts with four
  plain ``acc + x * x``, and the rest of it (for float64 all of it) are fused multiply-adds (the
  compiler's contraction of ``acc += x * x``). The norm is the sqrt in the dtype.
- Every other 1- or 2-norm: one running sum per output in the dtype, ``acc + x * x`` (``acc +
  |x|``) unfused, over the reduced elements in TensorIterator's order (innermost first); a single
  output of 32768+ elements on several threads: a running sum per thread's chunk of that order,
  then those sums in order.

Other p, complex and half-precision inputs are left to the caller.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import threads
from .cascade_sum import GRAIN, _loop_dims, _seq
from .primitives import fma

_LANES = {"f": 8, "d": 4}  # AVX2 vectors: 32 bytes
_VECTOR = np.dtype("V32")


def vector_norm(a, dims, p, num_threads=None, lastdim: bool = True):
    """The ``p``-norm (1 or 2) of ``a`` (float32/float64, non-empty) over the axes ``dims``
    (removed), as an array of ``a``'s dtype. ``lastdim=False``: never the vectorised kernel (a
    complex input's absolute values, whose dtype differs from the input's)."""
    reduced = set(dims)
    out_shape = tuple(s for i, s in enumerate(a.shape) if i not in reduced)
    if any(s < 0 for s in a.strides):  # a flipped view: PyTorch's flip is a fresh tensor
        a = np.ascontiguousarray(a)
    keep = [i for i, s in enumerate(a.shape) if s != 1]  # size-1 dims take no part in the loop
    reduced = {k for k, i in enumerate(keep) if i in reduced}
    a = a.reshape([a.shape[i] for i in keep])
    with np.errstate(over="ignore", invalid="ignore"):
        if not reduced:  # nothing to add: |x| (or sqrt(x * x), which rounds)
            r = np.abs(a) if p == 1 else np.sqrt(a * a)
            return r.reshape(out_shape)
        loop = _loop_dims(a, reduced, a.strides)
        red = [i for group, _, _, out in loop[::-1] if out == 0 for i in group[::-1]]
        kept = [i for i in range(a.ndim) if i not in reduced]
        v = a.transpose(kept + red).reshape(-1, math.prod(a.shape[i] for i in red))
        lastdim = lastdim and sum(d[3] == 0 for d in loop) == 1 and loop[0][2] == a.itemsize
        if p == 2 and lastdim:
            r = np.sqrt(_lanes_sum_of_squares(v))
        else:
            terms = np.abs(v) if p == 1 else v * v
            nthreads = num_threads or threads.get_num_threads()
            r = _running_sums(terms, nthreads)
            r = r if p == 1 else np.sqrt(r)
    return r.reshape(out_shape)


def running(x, axis: int, op=np.add):
    """``x`` (2-d or 3-d) reduced left to right along ``axis`` (0 or 1) by the ufunc ``op``
    (``np.add``: a running sum; ``np.multiply``: a running product)."""
    y = _axis_first(x, axis)
    if y[0].size == 1:  # one result: NumPy's reduce would pair, accumulate never reorders
        return op.accumulate(y.reshape(-1), out=np.empty(y.size, y.dtype))[-1:]
    # with the reduced axis outermost in memory, NumPy's reduce combines whole rows in turn
    # (``cascade_sum._running_reduce``): elementwise operations, one running value per position
    return op.reduce(_outermost(x, axis), axis=0)


def _axis_first(x, axis: int):
    """``np.moveaxis(x, axis, 0)`` for ``axis`` 0 or 1, as a C-level swap (moveaxis's Python
    argument handling costs ~4 us a call)."""
    return x if axis == 0 else x.swapaxes(0, 1)


def _outermost(x, axis: int):
    """``x`` with ``axis`` moved first, C-contiguous. A 3-d ``x`` reduced over its middle axis
    (the lanes), its last two axes contiguous, moves its last axis as one opaque item: NumPy copies a transpose of
    32-byte items ~3x faster than one of single floats."""
    y = _axis_first(x, axis)
    if y.flags.c_contiguous:
        return y
    if x.ndim == 3 and axis == 1 and x.strides[1:] == (x.shape[2] * x.itemsize, x.itemsize):
        m, k, lanes = x.shape
        items = x.view(np.dtype(f"V{lanes * x.itemsize}")).reshape(m, k)
        return np.ascontiguousarray(items.T).view(x.dtype).reshape(k, m, lanes)
    return np.ascontiguousarray(y)


def _running_sums(terms, nthreads: int):
    """Rows of ``terms`` (outputs, reduced) summed left to right, a single long row split into
    per-thread chunks as ``binary_kernel_reduce`` splits it."""
    m, n = terms.shape
    if m == 1 and n >= GRAIN and nthreads > 1:
        tasks = min(nthreads, -(-n // GRAIN))
        chunk = -(-n // tasks)
        parts = [running(terms[:, t * chunk : (t + 1) * chunk], 1) for t in range(tasks)]
        return _seq(np.stack(parts), 0)
    return running(terms, 1)


def row_norms(v):
    """The 2-norm of each row of the C-contiguous float32/float64 ``v`` (rows, n >= 1), as
    PyTorch's ``vector_norm`` of a contiguous tensor of ``n`` elements (one kernel call for all
    rows)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.sqrt(_lanes_sum_of_squares(v))


def dense_norms(arrays):
    """The 2-norms of non-empty C- or F-contiguous float32/float64 arrays of one dtype, each as
    PyTorch's ``vector_norm`` of it (``clip_grad_norm_``'s per-gradient norms). The arrays'
    whole vectors go into a few ``(rows, arrays, lanes)`` blocks, each array a column padded
    with zero rows up to its block's longest (a running sum of squares plus zeros is the same
    sum): one square, one running reduce and the lane sums per block, not per size."""
    dtype = arrays[0].dtype
    lanes = _LANES[dtype.char]
    flat = [a.ravel(order="K") for a in arrays]
    body = [a.size // lanes for a in flat]
    s = np.empty(len(flat), dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        for group in _blocks(tuple(body), lanes):
            s[list(group)] = _block_lane_sums([flat[i] for i in group], body[group[0]], lanes)
        for i, a in enumerate(flat):  # the tails, element by element
            if a.size % lanes:
                s[i : i + 1] = _tail(a.reshape(1, -1), s[i : i + 1], body[i] * lanes)
        return np.sqrt(s)


# One more block costs about as much as this many more padded elements (NumPy call overheads).
_BLOCK_COST = 16384


@functools.lru_cache(maxsize=16)
def _blocks(body: tuple, lanes: int) -> tuple:
    """The arrays' indices, longest first, cut into blocks that minimise the padded elements
    plus ``_BLOCK_COST`` per block (a partition of the sorted lengths: dynamic programming over
    the distinct lengths; each length on its own beyond 64 of them). Cached: a model's
    gradients have the same lengths at every step."""
    order = sorted(range(len(body)), key=lambda i: -body[i])
    runs = []  # [length, indices] per distinct length, longest first
    for i in order:
        if runs and runs[-1][0] == body[i]:
            runs[-1][1].append(i)
        else:
            runs.append([body[i], [i]])
    if len(runs) > 64:
        return tuple(tuple(idx) for _, idx in runs)
    # best[j]: the cheapest cover of runs[:j]; cut[j]: where its last block starts
    best, cut = [0.0], [0]
    for j in range(1, len(runs) + 1):
        count, options = 0, []
        for i in range(j - 1, -1, -1):
            count += len(runs[i][1])
            options.append((best[i] + _BLOCK_COST + runs[i][0] * lanes * count, i))
        cost, i = min(options)
        best.append(cost)
        cut.append(i)
    blocks, j = [], len(runs)
    while j:
        i = cut[j]
        blocks.append(tuple(k for _, idx in runs[i:j] for k in idx))
        j = i
    return tuple(blocks)


def _block_lane_sums(flat, rows: int, lanes: int):
    """``_lanes_sum_of_squares``' lane sums (before the tail) of each array of ``flat``, whose
    whole vectors number ``rows`` at most."""
    buf = np.empty((rows, len(flat), lanes), flat[0].dtype)
    # a vector as one opaque item: NumPy copies strided 32-byte items ~2x faster than floats
    items = buf.view(_VECTOR).reshape(rows, len(flat))
    for j, a in enumerate(flat):
        k = a.size // lanes
        items[:k, j] = a[: k * lanes].view(_VECTOR)
        if k < rows:
            buf[k:, j] = 0
    np.multiply(buf, buf, out=buf)
    # the rows axis outermost in memory: NumPy's reduce adds whole rows in turn, in order
    acc = np.add.reduce(buf, axis=0) if rows else np.zeros(buf.shape[1:], buf.dtype)
    return lanes_in_turn(acc)


def lanes_in_turn(acc, op=np.add):
    """The lanes of each row of ``acc`` (rows, lanes) combined by ``op`` one after another, lane
    0 first (one ``op.accumulate``, which never reorders: the bits of a loop over the lanes, in
    one call instead of ``lanes - 1``)."""
    return op.accumulate(acc, axis=1)[:, -1]


def _lanes_sum_of_squares(v):
    """``binary_kernel_reduce_lastdim``'s sum of squares of each row of ``v``."""
    lanes = _LANES[v.dtype.char]
    n = v.shape[1]
    body = n - n % lanes
    if body:
        sq = v[:, :body] * v[:, :body]
        acc = running(sq.reshape(v.shape[0], body // lanes, lanes), 1)
        s = lanes_in_turn(acc)
    else:
        s = np.zeros(v.shape[0], v.dtype)
    return _tail(v, s, body)


def _tail(v, s, body: int):
    """The lane sums ``s`` of the rows of ``v`` continued over their elements from ``body`` on."""
    n = v.shape[1]
    d = body
    if v.dtype.char == "f" and n - body >= 4:  # the compiler's 4-wide pass over the tail
        for d in range(body, body + 4):
            s = s + v[:, d] * v[:, d]
        d = body + 4
    for k in range(d, n):
        x = v[:, k]
        s = fma(x, x, s, once=True) if v.dtype.char == "f" else _fma64(x, x, s)
    return s


def _fma64(a, b, c):
    """float64 ``a * b + c`` rounded once, from error-free transformations (the product's
    error by Dekker's split, the sum's by Knuth's two-sum); the final add of the two errors
    can round twice, rarely (where the exact result is within an error of a float64 tie)."""
    p = a * b
    split = a * 134217729.0  # 2**27 + 1
    ah = split - (split - a)
    split = b * 134217729.0
    bh = split - (split - b)
    e = ((ah * bh - p) + ah * (b - bh) + (a - ah) * bh) + (a - ah) * (b - bh)
    s = p + c
    t = s - p
    err = (p - (s - t)) + (c - t)
    return s + (err + e)
