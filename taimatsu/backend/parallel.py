"""Two-thread elementwise loops for large CPU arrays, and two-thread batches (``halves``).

NumPy's ufunc loops run on one core, where PyTorch's CPU kernels use ``torch.get_num_threads()``.
NumPy releases the GIL inside a loop over a large array, so ``split2`` computes the first half of
``ufunc(a, b)`` on a helper thread while the calling thread computes the second half, into one
output. Only same-shape, same-dtype, C-contiguous float arrays of at least ``MIN_SIZE`` elements
take this path (below that the hand-off costs more than it saves), and only while
``torch.set_num_threads`` allows more than one thread and other processes leave a second core
free (``threads.usable_threads``: on a busy machine the helper thread waits for a core and
contends with ours for the GIL: GELU on 128K-1M elements took 1.4-1.8x the CPU time of one
thread and no less wall time on the busy 2-core machine). Elementwise results are bit-for-bit
the same either way.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

MIN_SIZE = 1 << 20
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_state = {"threads": None, "pool": None, "pid": None}
_lock = threading.Lock()
_MAIN = threading.main_thread().ident


def set_threads(n: int) -> None:
    """Called by ``torch.set_num_threads``: 1 turns the split off."""
    _state["threads"] = n


def _enabled() -> bool:
    n = _state["threads"]
    if n is None:
        from .threads import get_num_threads

        n = _state["threads"] = get_num_threads()
    return n > 1


def _second_core() -> bool:
    """Threads are allowed and another core is free now (see ``threads.usable_threads``). Only
    the main thread splits: the helper thread, running one half, must not wait on itself."""
    if not _enabled() or threading.get_ident() != _MAIN:
        return False
    from .threads import usable_threads

    return usable_threads() > 1


def _pool() -> ThreadPoolExecutor:
    # A forked child (a DataLoader worker) inherits the pool object but not its thread: make a new one.
    if _state["pid"] != os.getpid():
        with _lock:
            if _state["pid"] != os.getpid():
                _state["pool"] = ThreadPoolExecutor(1, thread_name_prefix="taimatsu-ew")
                _state["pid"] = os.getpid()
    return _state["pool"]


def split2(ufunc, a, b):
    """``ufunc(a, b)`` computed in two halves on two threads, or None when the arrays do not qualify."""
    if (
        type(b) is not np.ndarray
        or b.size < MIN_SIZE
        or type(a) is not np.ndarray
        or a.shape != b.shape
        or a.dtype != b.dtype
        or a.dtype not in _FLOATS
        or not (a.flags.c_contiguous and b.flags.c_contiguous)
        or not _second_core()
    ):
        return None
    out = np.empty(a.shape, a.dtype)
    fa, fb, fo = a.reshape(-1), b.reshape(-1), out.reshape(-1)
    h = fa.size // 2
    first = _pool().submit(ufunc, fa[:h], fb[:h], fo[:h])
    ufunc(fa[h:], fb[h:], fo[h:])
    first.result()
    return out


# Heavier per-element work (float64 transcendentals) in blocks: the two threads' many short
# NumPy calls take turns at the GIL. GELU's backward (blockwise) and forward (``halves``, below),
# one / two threads, ms, 2-core VM with the second core free: 131K elements 0.53/0.70 and
# 2.09/2.50, 262K 1.00/1.23 and 4.34/4.85, 524K 1.83/1.97 and 7.92/8.93, 1M 4.92/3.72 and
# 23.8/18.5.
BLOCK = 1 << 14
MIN_SIZE_BLOCKWISE = 1 << 20


def blockwise(f, a, dtype, widen: bool = True, others=()):
    """``f(a as float64)`` cast to ``dtype``, for a C-contiguous array, computed block by block
    (``widen=False``: ``f`` of ``a``'s own blocks, for an ``f`` that takes them as they are;
    ``others``: C-contiguous arrays of ``a``'s shape whose blocks follow ``a``'s as arguments).

    The float64 temporaries of one block stay in cache (a whole-array float64 copy costs more
    memory traffic than the maths), and from ``MIN_SIZE_BLOCKWISE`` elements the two halves run on
    two threads while a second core is free. ``f`` must be elementwise.
    """
    out = np.empty(a.shape, dtype)
    fa, fo = a.reshape(-1), out.reshape(-1)
    flat = [o.reshape(-1) for o in others]

    def run(lo, hi):
        for i in range(lo, hi, BLOCK):
            j = min(i + BLOCK, hi)
            fo[i:j] = f(fa[i:j].astype(np.float64) if widen else fa[i:j], *(o[i:j] for o in flat))

    h = fa.size // 2 if fa.size >= MIN_SIZE_BLOCKWISE and _second_core() else 0
    first = _pool().submit(run, 0, h) if h else None
    run(h, fa.size)
    if first is not None:
        first.result()
    return out


# Batched kernels (convolution) split their batch over two threads from this much work
# (multiply-adds): below it the hand-off costs more than the second core saves.
MIN_WORK = 1 << 22
# Elementwise passes with heavy per-element work (GELU's and softmax's float32 replays) count as
# this many multiply-adds per element: split from 1M elements (``MIN_SIZE_BLOCKWISE``'s figures).
PASS_WORK = 4
# Memory-bound passes over a batch (pooling: a few NumPy calls per half) count as this many:
# from ~256K elements. The hand-off costs ~40 us here (the helper thread is woken)
# and both halves' calls take turns at the GIL: max pooling and batch norm forward + backward
# on a (32, C, H, W) batch took, split / one thread, 1.19-1.21x at 200K elements, 0.87-1.05x
# at 392K, 0.84-0.90x at 1.6M (2-core VM, steps run while no other process was runnable).
BATCH_PASS_WORK = 16
# Batch norm's passes count for less: split from ~1M elements. Its two-thread forward + backward
# took longer than one thread's on the AMD Zen 5 VM at 401K elements ((32, 16, 28, 28): 771-884
# us on one thread, 882-1128 on two), as long at 803K (1961-2090 / 1972-2319) and less at 1.6M
# (3931-5163 / 2577-3449); max pooling still gained at 401K (615-961 / 529-844).
NORM_PASS_WORK = 4


def in_background(fn):
    """Start ``fn()`` on the helper thread when threads are allowed and a second core is free:
    returns a handle whose ``result()`` waits for it (and re-raises its error); else None, and
    the caller runs ``fn`` itself. For one long call that releases the GIL (a large product)
    beside the calling thread's own work: a hand-off costs ~40 us here (the helper thread
    sleeps and is woken), and many short NumPy calls on both threads pass the GIL back and
    forth (a recurrent loop split by batch halves ran 2x slower on two threads than on one).
    BLAS runs ``fn``'s products with the count the calling thread last set (``gemm_threads``):
    set one thread for what runs beside it."""
    if not _second_core():
        return None
    return _pool().submit(fn)


def halves(fn, n: int, work: int) -> None:
    """``fn(0, n)``, or ``fn(0, n // 2)`` on the helper thread while this one runs
    ``fn(n // 2, n)``, when ``work`` is large, threads are allowed and other processes leave
    a second core free (``threads.usable_threads``). ``fn`` must write disjoint outputs for
    disjoint ranges and only call NumPy (which releases the GIL in its loops and in BLAS);
    BLAS is set to one thread for the split, so the two halves do not oversubscribe."""
    if n < 2 or work < MIN_WORK or not _second_core():
        fn(0, n)
        return
    from .threads import gemm_threads

    gemm_threads(0)
    h = n // 2
    first = _pool().submit(fn, 0, h)
    try:
        fn(h, n)
    finally:
        first.result()
