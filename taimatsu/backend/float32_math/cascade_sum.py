"""float32/float64 sums in the order of PyTorch's CPU sum kernel (``cascade_sum`` in
``aten/src/ATen/native/cpu/SumKernel.cpp``), so ``sum`` and ``mean`` agree with it bit for bit.

What the kernel does (re-implemented here from its description, NumPy vectorised):

- TensorIterator orders the dims innermost first (reduced dims first, then by the output's and
  the input's strides), merges neighbours where memory allows, and calls a 2-d loop on the first
  two (``size0`` reduced, ``size1``); outer dims repeat the call. Every call adds (``+=``) into
  an output filled with zeros, so reduced dims outside the 2-d loop accumulate left to right.
- ``cascade`` (its ``multi_row_sum``): blocks of ``2**p`` elements, ``p = max(4, ceil(log2 n) //
  4)``, are summed left to right; the block sums are summed in groups of ``2**p``, those sums
  again, and the rest accumulates in a fourth level. At the end the partial block and partial
  groups are added, lowest level first.
- ``row_sum``: the row viewed as ``(n // 4, 4)``: a cascade of the four interleaved columns, the
  last ``n % 4`` elements added to column 0, then columns 1, 2, 3.
- The reduced dim contiguous and at least a vector long (``inner``): ``row_sum`` over whole
  vectors (per lane), then the scalar tail, then the lanes one by one.
- Otherwise, the kept dim contiguous and at least a vector wide: groups of four vectors of
  columns take ``cascade``, the further columns ``row_sum``; without a contiguous dim, groups of
  four columns take ``cascade`` and the last ``size1 % 4`` columns ``row_sum``.
- Threads (``torch.get_num_threads()`` > 1, 32768+ elements): a full reduction splits the
  flattened loop into one chunk per thread (each a run of loop calls of its own shape) and sums
  the per-thread results; other reductions split a kept dim, which changes the column groups
  only where that dim is ``size1`` (``_column_chunks``).

A vector is 32 bytes on every x86 CPU (``VECTOR_BYTES``). Cost: every level
is a few NumPy passes; the first level, where all the data is read, is one pass in slices.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .. import threads

# ATen registers its sum kernels without their AVX-512 build ("slower with AVX512 than with
# AVX2"): on an AVX-512 CPU, as on an AVX2 one, a vector is 32 bytes (8 float lanes).
VECTOR_BYTES = 32
GRAIN = 32768  # at::internal::GRAIN_SIZE: below it a reduction runs on one thread
_ACCUMULATE_MAX = 1 << 18  # beyond this many elements, slice adds (accumulate's copy is large)


def _ceil_log2(n: int) -> int:
    return 1 if n <= 2 else (n - 1).bit_length()


def _seq(x, axis: int = 0):
    """``x`` summed along ``axis`` (0 or 1) left to right (one running accumulator per position)."""
    n = x.shape[axis]
    if n == 1:
        return x[0] if axis == 0 else x[:, 0]
    if n == 0:
        return np.zeros(x.shape[:axis] + x.shape[axis + 1 :], x.dtype)
    if n > 2 and _running_reduce(x, axis):
        return np.add.reduce(x, axis=axis)
    if n <= 3:  # a NumPy add costs less than accumulate's set-up
        x = x if axis == 0 else x.swapaxes(0, 1)
        return x[0] + x[1] if n == 2 else (x[0] + x[1]) + x[2]
    # accumulate never reorders (element i adds to the sum of 0..i-1) but costs ~0.1 us per
    # position; a NumPy add per step costs ~1 us: the loop wins over many positions
    if x.size <= _ACCUMULATE_MAX and x.size < 8 * n * n:
        r = np.add.accumulate(x, axis=axis)
        return r[-1] if axis == 0 else r[:, -1]
    if axis == 1:
        x = x.swapaxes(0, 1)
    acc = x[0] + x[1]
    for i in range(2, n):
        np.add(acc, x[i], out=acc)
    return acc


def _running_reduce(x, axis: int) -> bool:
    """Whether ``np.add.reduce(x, axis)`` adds left to right, and pays. NumPy sums pairwise only
    when the reduced axis is its innermost loop (the fast axis in memory), so a kept axis of more
    than one element with a smaller stride makes it a running sum, ``out += x[i]`` for i = 0, 1,
    ... in elementwise float adds (negative strides, which NumPy may turn round, are left out).
    It costs ~30 ns per run of that innermost loop, against ~2.5 us per add of ``_seq``'s loop:
    below ``_REDUCE_RUNS`` runs it is the faster (measured: (64, 16, 128) over axis 1 53 us
    against 87; (256, 16, 32) 123 against 70)."""
    strides = x.strides
    if min(strides) < 0:
        return False
    s = strides[axis]
    kept = [(t, x.shape[k]) for k, t in enumerate(strides) if k != axis and x.shape[k] > 1]
    inner = [(t, n) for t, n in kept if 0 < t < s]
    if not inner:
        return False
    # the innermost loop's length: the smallest-stride axis, merged with the axes that
    # continue it in memory (as NumPy coalesces them)
    step, run = min(inner)
    for t, n in sorted(kept):
        if t == step * run and t != s:
            run *= n
    return x.size // run <= _REDUCE_RUNS


_REDUCE_RUNS = 2048


def _groups(s, step: int):
    """Sums of the complete groups of ``step`` along axis 0 of ``s``, and of the rest."""
    g = s.shape[0] // step
    full = _seq(s[: g * step].reshape(g, step, *s.shape[1:]), 1)
    return full, _seq(s[g * step :])


def cascade(x):
    """``multi_row_sum``: ``x`` (n, ...) summed over axis 0 in four levels."""
    n = x.shape[0]
    step = 1 << max(4, _ceil_log2(n) // 4)
    if n < step:
        return _seq(x)
    blocks, acc0 = _groups(x, step)
    if len(blocks) < step:  # the upper levels hold zeros, which add nothing
        return acc0 + _seq(blocks)
    level1, acc1 = _groups(blocks, step)
    level2, acc2 = _groups(level1, step)
    return ((acc0 + acc1) + acc2) + _seq(level2)


def row_sum(x):
    """``row_sum``: ``x`` (n, ...) summed over axis 0 as four interleaved cascades."""
    m = x.shape[0] // 4
    part = cascade(x[: 4 * m].reshape(m, 4, *x.shape[1:]))
    return _seq(np.concatenate([part[:1], x[4 * m :], part[1:]]))


def inner_sum(x, lanes: int):
    """``vectorized_inner_sum``: ``x`` (n, ...), contiguous along axis 0, summed over it."""
    v = x.shape[0] // lanes
    vec = row_sum(x[: v * lanes].reshape(v, lanes, *x.shape[1:]))
    return _seq(np.concatenate([x[v * lanes :], vec]))


def _call(x, in0: int, in1: int, lanes: int):
    """One 2-d loop call: ``x`` (size0, size1, ...) reduced over axis 0 -> (size1, ...);
    ``in0``/``in1``: the input's byte strides of the two dims."""
    size0, size1 = x.shape[:2]
    item = x.itemsize
    if in0 == item and size0 >= lanes:
        return inner_sum(x, lanes)
    if in1 == item and size1 >= lanes:
        group = 4 * lanes
    elif in0 < in1:
        return row_sum(x)
    else:
        group = 4
    return _in_groups(x, size1, group, cascade, row_sum)


def _in_groups(x, n: int, group: int, whole, rest):
    """The ``n`` columns of ``x``: whole groups of ``group`` columns by ``whole``, the remaining
    columns by ``rest`` (the 2-d loop's split between ``cascade`` and ``row_sum``)."""
    g = n - n % group
    if g == n:
        return whole(x)
    if g == 0:
        return rest(x)
    return np.concatenate([whole(x[:, :g]), rest(x[:, g:])])


def _should_swap(a, b, size, out, inp) -> int:
    """TensorIterator's comparison of two dims (1: ``b`` goes inside ``a``)."""
    if (out[a] == 0) != (out[b] == 0):  # reduced dims go first
        return 1 if out[b] == 0 else -1
    for s in (out, inp):
        if s[a] == 0 or s[b] == 0:
            continue
        if s[a] != s[b]:
            return 1 if s[a] > s[b] else -1
        if size[a] > size[b]:
            return 1
    return 0


def _loop_dims(a, reduced, strides):
    """The loop's dims, innermost first, as (axes of ``a``, size, input stride, output stride)
    after TensorIterator's ordering and merging, for an input laid out with ``strides``."""
    nd = a.ndim
    axes = [i for i in range(nd) if a.shape[i] != 1]
    out, step = {}, 1
    for i in range(nd - 1, -1, -1):
        if i not in reduced:
            out[i], step = step, step * a.shape[i]
    out.update((i, 0) for i in reduced)
    size = a.shape
    perm = axes[::-1]
    for i in range(1, len(perm)):
        later = i
        for earlier in range(i - 1, -1, -1):
            c = _should_swap(perm[earlier], perm[later], size, out, strides)
            if c > 0:
                perm[earlier], perm[later] = perm[later], perm[earlier]
                later = earlier
            elif c < 0:
                break
    dims = []
    for i in perm:
        if dims:
            group, n, st_in, st_out = dims[-1]
            if st_in * n == strides[i] and st_out * n == out[i]:
                dims[-1] = (group + [i], n * size[i], st_in, st_out)
                continue
        dims.append(([i], size[i], strides[i], out[i]))
    return dims


def _column_chunks(dims, nthreads: int, item: int):
    """PyTorch's split of a partial reduction over threads (``parallel_dim_reduction``), as
    column ranges of ``size1`` when that is the dim it splits, else ``None``."""
    best = len(dims) - 1
    split = best
    for d in range(len(dims) - 1, -1, -1):
        if dims[d][3] == 0:
            break
        if dims[d][1] >= nthreads:
            split = d
            break
        if dims[d][1] > dims[best][1]:
            best = split = d
    if split != 1:
        return None
    cols = dims[1][1]
    tasks = min(nthreads, cols)
    chunk = -(-cols // tasks)
    bounds = [min(cols, t * chunk) for t in range(tasks + 1)]
    if dims[1][2] == item:  # columns adjacent in memory: cut at 128-byte multiples
        per = 128 // item
        bounds = [b if b == cols else b - b % per for b in bounds]
    return [(lo, hi) for lo, hi in itertools.pairwise(bounds) if lo < hi]


def _serial(x, dims, lanes, chunks=None):
    """The loop calls of the whole iteration: ``x`` has the loop's dims as axes, innermost
    first; returns the kept dims' sums, outermost first."""
    in0, in1 = dims[0][2], dims[1][2]
    if chunks is None:
        v = _call(x, in0, in1, lanes)
    else:
        v = np.concatenate([_call(x[:, lo:hi], in0, in1, lanes) for lo, hi in chunks])
    # v: (size1, outer dims innermost first). The reduced ones among them add into the output
    # call after call: outer dims outermost first, then size1.
    nd = v.ndim
    red = [d for d in range(nd - 1, -1, -1) if dims[d + 1][3] == 0]
    kept = [d for d in range(nd - 1, -1, -1) if dims[d + 1][3] != 0]
    v = v.transpose(red + kept)
    v = v.reshape(-1, *v.shape[len(red) :])
    return _seq(v)


def _pieces(x, dims, lo: int, hi: int, lanes: int):
    """The sums of the loop calls a thread's range [lo, hi) of the flattened loop makes (a full
    reduction), in order: a partial row, partial planes of rows, and whole planes."""
    s0, s1 = dims[0][1], dims[1][1]
    in0, in1 = dims[0][2], dims[1][2]
    planes = x.transpose(*range(x.ndim - 1, 1, -1), 1, 0).reshape(-1, s1, s0)
    out, f = [], lo
    while f < hi:
        p, r = divmod(f, s0 * s1)
        j, i = divmod(r, s0)
        if i or hi - f < s0:  # inside a row: one call over part of it
            k = min(s0 - i, hi - f)
            out.append(_call(planes[p, j, i : i + k].reshape(k, 1), in0, in1, lanes))
            f += k
        elif j or hi - f < s0 * s1:  # rows of one plane
            k = min(s1 - j, (hi - f) // s0)
            out.append(_call(planes[p, j : j + k].T, in0, in1, lanes))
            f += k * s0
        else:  # whole planes: the same call each
            k = (hi - f) // (s0 * s1)
            v = _call(planes[p : p + k].transpose(2, 1, 0), in0, in1, lanes)
            out.append(v.T.reshape(-1))
            f += k * s0 * s1
    return _seq(np.concatenate(out))


def _two_pass(x, dims, lanes, nthreads):
    """A full reduction over threads: one sum per thread's chunk, then the sum of those."""
    total = math.prod(d[1] for d in dims)
    tasks = min(nthreads, -(-total // GRAIN))
    chunk = -(-total // tasks)
    buffer = np.zeros(nthreads, x.dtype)
    for t in range(tasks):
        buffer[t] = _pieces(x, dims, t * chunk, min(total, (t + 1) * chunk), lanes)
    one = [([0], nthreads, x.itemsize, 0), ([], 1, 0, 0)]
    return _serial(buffer.reshape(nthreads, 1), one, lanes)


def cascade_sum(a, dims, vector_bytes=None, num_threads=None, strides=None):
    """``a`` (a float32/float64 NumPy array) summed over the axes ``dims`` in PyTorch's CPU
    order; the reduced axes are removed. ``vector_bytes``/``num_threads`` default to ATen's
    vector width for sums and ``torch.get_num_threads()``; ``strides`` (default ``a``'s): the
    layout of the tensor PyTorch would sum, where ``a`` is a copy of its values."""
    reduced = set(dims)
    out_shape = tuple(s for i, s in enumerate(a.shape) if i not in reduced)
    if a.size == 0 or all(a.shape[i] == 1 for i in reduced):
        return np.add(np.zeros(out_shape, a.dtype), a.reshape(out_shape) if a.size else 0)
    strides = a.strides if strides is None else strides
    if any(s < 0 for s in strides):  # a flipped view: PyTorch's flip is a fresh tensor
        a = np.ascontiguousarray(a)
        strides = a.strides
    keep = [i for i, s in enumerate(a.shape) if s != 1]  # size-1 dims take no part in the loop
    reduced = {k for k, i in enumerate(keep) if i in reduced}
    a = a.reshape([a.shape[i] for i in keep])
    strides = [strides[i] for i in keep]
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf is NaN, silently
        return _sum(a, reduced, out_shape, vector_bytes, num_threads, strides)


def _sum(a, reduced, out_shape, vector_bytes, num_threads, strides):
    lanes = (vector_bytes or VECTOR_BYTES) // a.itemsize
    nthreads = num_threads or threads.get_num_threads()
    dense = a.flags.c_contiguous or a.flags.f_contiguous
    if dense and len(reduced) == a.ndim and a.size < GRAIN and _own(a, strides):
        x = a.ravel(order="K")  # a whole tensor in one run (the common case): a 1-d loop
        r = inner_sum(x, lanes) if x.size >= lanes else row_sum(x)
        return _result(r, out_shape, a.dtype)
    if (
        a.ndim == 2
        and reduced == {0}
        and (a.size < GRAIN or _whole_groups(a.shape[1], a.itemsize, nthreads))
        and a.flags.c_contiguous
        and _own(a, strides)
    ):
        # columns of a C-contiguous matrix (a Linear's bias gradient) on one thread:
        # TensorIterator's whole loop is this one 2-d call, so the loop analysis below is
        # skipped (~90 -> ~40 us at (64, 256)); up to _ROWS rows, _columns (29 -> 11 us at (64, 128))
        short = a.shape[0] <= _ROWS and a.shape[1] > 1
        r = _columns(a, lanes) if short else _call(a, a.strides[0], a.itemsize, lanes)
        return _result(r, out_shape, a.dtype)
    loop = _loop_dims(a, reduced, strides)
    if len(loop) == 1:
        loop.append(([], 1, 0, 0))
    order = [i for group, *_ in loop[::-1] for i in group[::-1]]
    x = a.transpose(order).reshape([d[1] for d in loop[::-1]]).transpose()
    if a.size >= GRAIN and nthreads > 1:
        if len(out_shape) == 0 or math.prod(out_shape) == 1:
            r = _two_pass(x, loop, lanes, nthreads)
        else:
            r = _serial(x, loop, lanes, _column_chunks(loop, nthreads, a.itemsize))
    else:
        r = _serial(x, loop, lanes)
    return _result(r, out_shape, a.dtype)


# Up to this many rows ``_columns`` pays (0.5-0.9x the time of ``_call``): ``cascade`` has two
# levels (blocks of 16 rows, groups of 16 blocks) below 4096 rows, but from ~2048 rows a reduce
# over the blocks' many short runs costs more than ``_seq``'s add per row of the blocks.
_ROWS = 2047
_STEP = 16


def column_sums(a):
    """``cascade_sum(a, (0,))`` for a C-contiguous 2-d float32/float64 NumPy ``a`` of 1 to
    ``_ROWS`` rows and more than one column that sums on one thread (a Linear's bias
    gradient), without the general entry's analysis; None for any other ``a``."""
    rows, cols = a.shape
    if not (0 < rows <= _ROWS and cols > 1 and a.flags.c_contiguous):
        return None
    if a.size >= GRAIN and not _whole_groups(cols, a.itemsize, threads.get_num_threads()):
        return None
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf is NaN, silently
        return _result(_columns(a, VECTOR_BYTES // a.itemsize), (cols,), a.dtype)


def _whole_groups(cols: int, item: int, nthreads: int) -> bool:
    """Whether PyTorch's split of ``cols`` adjacent columns over ``nthreads`` threads
    (``_column_chunks``) sums them in one thread's column groups: its chunks start at 128-byte
    multiples (whole groups of four vectors), so only a last chunk narrower than a vector,
    summed in groups of 4 columns instead of as the tail, differs (e.g. 100 columns on 16
    threads). Two threads always qualify: a Linear's bias gradient at default threads on a
    2-core machine takes ``_columns`` (59 us at (512, 256)) instead of the loop analysis (242)."""
    if nthreads == 1:
        return True
    chunk = -(-cols // min(nthreads, cols))
    last = max(b - b % (128 // item) for b in range(0, cols, chunk))
    return last == 0 or cols - last >= VECTOR_BYTES // item


def _columns(a, lanes: int):
    """``_call`` for the columns of a C-contiguous 2-d ``a`` of at most ``_ROWS`` rows and
    more than one column (a Linear's bias gradient), in a few NumPy calls: the same groups of
    columns, ``cascade`` and ``row_sum`` written out for their two levels."""
    n = a.shape[1]
    group = 4 * lanes if n >= lanes else 4
    return _in_groups(a, n, group, _column_cascade, _column_row_sum)


def _in_order(x):
    """``x`` (k, ...) summed over axis 0 left to right. Every caller's ``x`` has a kept axis of
    more than one element with a smaller stride than axis 0, so ``np.add.reduce`` runs
    ``out += x[i]`` in order (see ``_running_reduce``)."""
    return x[0] if x.shape[0] == 1 else np.add.reduce(x, axis=0)


def _level(x):
    """The sums of ``x``'s complete groups of ``_STEP`` along axis 0 (in order, as above), and
    the sum of the partial group after them (None when there is none)."""
    g = x.shape[0] // _STEP
    full = np.add.reduce(x[: g * _STEP].reshape(g, _STEP, *x.shape[1:]), axis=1)
    return full, (_in_order(x[g * _STEP :]) if x.shape[0] % _STEP else None)


def _column_cascade(x):
    """``cascade(x)`` for ``x`` (rows, ...) of at most ``_ROWS`` rows: the partial block's
    sum, then the partial group's, then the groups' sum (``cascade``'s third level holds zeros
    below ``_ROWS`` rows). A missing partial sum is a zero in ``cascade``; adding a zero changes
    nothing but a -0.0, which ``_result``'s + 0 turns into 0.0 anyway, so it is left out."""
    if x.shape[0] < _STEP:
        return _in_order(x)
    blocks, acc = _level(x)
    if blocks.shape[0] < _STEP:  # one level: the partial block's sum + the blocks' sum
        s = _in_order(blocks)
        return s if acc is None else acc + s
    groups, rest = _level(blocks)
    for part in (rest, _in_order(groups)):
        if part is not None:
            acc = part if acc is None else acc + part
    return acc


def _column_row_sum(x):
    """``row_sum(x)`` for a 2-d ``x`` of at most ``_ROWS`` rows: four interleaved cascades,
    then column 0's sum, the last ``rows % 4`` rows, columns 1, 2 and 3 in turn."""
    m = x.shape[0] // 4
    if m == 0:  # (0 + rows) + 0 + 0 + 0: the rows in order (the zeros' sign goes in _result)
        return _seq(x)
    part = _column_cascade(x[: 4 * m].reshape(m, 4, x.shape[1]))
    s = part[0]
    for row in x[4 * m :]:
        s = s + row
    return ((s + part[1]) + part[2]) + part[3]


def _own(a, strides) -> bool:
    """``a``'s own strides are the layout PyTorch would sum (no ``strides=`` of another)."""
    return tuple(strides) == a.strides


def _result(r, out_shape, dtype):
    """The sums ``r`` as a fresh array of ``out_shape`` (no view of another: the engine keeps a
    gradient with no base as ``.grad`` instead of copying it); + 0 as PyTorch's zeroed output
    (-0.0 sums give 0.0)."""
    return np.asarray(np.add(np.reshape(r, out_shape), 0, dtype=dtype))
