"""Core speed benchmark: the same PyTorch-API workloads on real PyTorch and on taimatsu.

Every workload is written once against a module parameter ``T`` (``torch`` or ``taimatsu``),
so both frameworks run identical code. Prints time per iteration for each framework, the
ratio taimatsu / PyTorch, and peak-memory ratios for the large workloads.

    python benchmarks/bench_core.py            # full run (about a minute)
    python benchmarks/bench_core.py --quick    # one iteration each: a smoke run, no real timing
    python benchmarks/bench_core.py --only b   # one workload, by letter or name

Method (see README.md): min over repeats of ``timeit`` loops, each loop long enough to be
measurable; PyTorch pinned to NumPy's BLAS thread count. Peak memory: tracemalloc for
taimatsu (NumPy reports its buffers to it), the profiler's allocator events for PyTorch.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import platform
import sys
import timeit
import tracemalloc

from library_path import use_repository_library

use_repository_library()

import numpy as np

import taimatsu

try:
    import torch
except ImportError:  # taimatsu-only run (CI without the oracle)
    torch = None


# ---- workloads: setup(T) -> step(); each written once for both frameworks ------------------
def add_small(T):
    """(a) 100 additions of 2x2 tensors: the dispatch cost of one op."""
    x, y = T.ones(2, 2), T.ones(2, 2)

    def step():
        for _ in range(100):
            x + y

    return step


def graph50(T):
    """(b) a 50-op graph of tiny tensors, then sum().backward()."""
    T.manual_seed(0)
    x = T.randn(4, requires_grad=True)
    w = T.randn(4, requires_grad=True)

    def step():
        y = x
        for _ in range(10):  # 5 ops a round
            y = y * w
            y = y + x
            y = y.tanh()
            y = y - w
            y = y * 0.5
        y.sum().backward()
        x.grad = None
        w.grad = None

    return step


def fma_4m(T):
    """(c) ``a * b + c`` on 4M float32: memory-bound elementwise work."""
    T.manual_seed(0)
    n = 4 * 1024 * 1024
    a, b, c = T.randn(n), T.randn(n), T.randn(n)

    def step():
        return a * b + c

    return step


def matmul_1024(T):
    """(d) 1024x1024 float32 matmul: BLAS."""
    T.manual_seed(0)
    a, b = T.randn(1024, 1024), T.randn(1024, 1024)

    def step():
        return a @ b

    return step


def mlp_step(T):
    """(e) one SGD step of a 2-layer MLP (batch 64, 128-256-10), written with plain ops."""
    T.manual_seed(0)
    x, target = T.randn(64, 128), T.randn(64, 10)
    w1 = (T.randn(128, 256) * 0.05).requires_grad_()
    b1 = T.zeros(256, requires_grad=True)
    w2 = (T.randn(256, 10) * 0.05).requires_grad_()
    b2 = T.zeros(10, requires_grad=True)
    params = [w1, b1, w2, b2]

    def step():
        h = (x @ w1 + b1).relu()
        loss = ((h @ w2 + b2 - target) ** 2).mean()
        loss.backward()
        with T.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None
        return loss

    return step


# name, letter, workload, ops per step (time is reported per op when > 1), measure memory
WORKLOADS = [
    ("add_small", "a", add_small, 100, False, 3.0),
    ("graph50", "b", graph50, 1, False, 2.0),
    ("fma_4m", "c", fma_4m, 1, True, 1.2),
    ("matmul_1024", "d", matmul_1024, 1, True, 1.2),
    ("mlp_step", "e", mlp_step, 1, True, None),
]


# ---- measurement ------------------------------------------------------------------------------
def time_per_step(step, quick: bool) -> float:
    """Min over repeats of the mean time of one step (seconds)."""
    step()  # warm up (first-call imports, caches, allocator pools)
    timer = timeit.Timer(step)
    if quick:
        return timer.timeit(1)
    number, _ = timer.autorange()  # loops per repeat: at least 0.2 s
    return min(timer.repeat(repeat=7, number=number)) / number


def peak_bytes_taimatsu(step) -> int:
    """Peak bytes allocated during one step (NumPy buffers are reported to tracemalloc)."""
    step()
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        r = step()  # noqa: F841 -- the result is live at the peak, as for PyTorch
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def peak_bytes_torch(step) -> int:
    """Peak bytes allocated during one step, from the CPU allocator events of the profiler."""
    from torch.profiler import ProfilerActivity, profile

    step()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        r = step()  # noqa: F841
    events = prof.profiler.kineto_results.events()
    mem = sorted((e.start_ns(), e.nbytes()) for e in events if e.name() == "[memory]")
    cur = peak = 0
    for _, nbytes in mem:
        cur += nbytes
        peak = max(peak, cur)
    return peak


# ---- thread settings --------------------------------------------------------------------------
def numpy_blas_threads() -> int | None:
    """Threads NumPy's OpenBLAS uses, read from the loaded library itself."""
    try:
        with open("/proc/self/maps") as f:
            paths = {w for w in f.read().split() if "openblas" in w and w.endswith(".so")}
    except OSError:
        return None
    for path in paths:
        lib = ctypes.CDLL(path)
        for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                     "openblas_get_num_threads"):  # fmt: skip
            fn = getattr(lib, name, None)
            if fn is not None:
                return int(fn())
    return None


def fmt_time(s: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:7.2f} {unit}"
    return f"{s / 1e-9:7.1f} ns"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one iteration per workload (smoke run)")
    ap.add_argument("--only", action="append", help="workload name or letter (repeatable)")
    ap.add_argument("--no-torch", action="store_true", help="run taimatsu only")
    args = ap.parse_args(argv)

    selected = WORKLOADS
    if args.only:
        keys = set(args.only)
        selected = [w for w in WORKLOADS if w[0] in keys or w[1] in keys]
        if not selected:
            ap.error(f"unknown workload {args.only}; choose from {[w[0] for w in WORKLOADS]}")
    tt = None if args.no_torch else torch

    blas = numpy_blas_threads()
    threads = blas or os.cpu_count() or 1
    print(f"machine: {platform.machine()} {platform.processor() or ''} cpus={os.cpu_count()} "
          f"python {platform.python_version()}  numpy {np.__version__}")  # fmt: skip
    line = f"threads: numpy BLAS={blas if blas is not None else 'unknown'}"
    if tt is not None:
        tt.set_num_threads(threads)
        line += (f"  torch {tt.__version__} intra-op={tt.get_num_threads()}"
                 f" inter-op={tt.get_num_interop_threads()}")  # fmt: skip
    print(line + ("  (--quick: one iteration, timings meaningless)" if args.quick else ""))
    print()
    head = f"{'workload':<16}{'unit':<9}{'torch':>12}{'taimatsu':>12}{'ratio':>9}{'target':>9}"
    print(head)
    print("-" * len(head))
    mem_rows = []
    for name, letter, setup, per, mem, target in selected:
        unit = "per op" if per > 1 else "per iter"
        tt_s = time_per_step(setup(tt), args.quick) / per if tt is not None else None
        ta_s = time_per_step(setup(taimatsu), args.quick) / per
        ratio = f"{ta_s / tt_s:8.2f}x" if tt_s else "       -"
        tgt = f"<={target:g}x" if target else "-"
        tt_col = fmt_time(tt_s) if tt_s is not None else "-"
        print(f"{letter}) {name:<13}{unit:<9}{tt_col:>12}{fmt_time(ta_s):>12}{ratio:>9}{tgt:>9}",
              flush=True)  # fmt: skip
        if mem:
            ta_b = peak_bytes_taimatsu(setup(taimatsu))
            tt_b = peak_bytes_torch(setup(tt)) if tt is not None else None
            mem_rows.append((letter, name, tt_b, ta_b))
    if mem_rows:
        print()
        head = f"{'peak memory':<25}{'torch':>12}{'taimatsu':>12}{'ratio':>9}"
        print(head)
        print("-" * len(head))
        for letter, name, tt_b, ta_b in mem_rows:
            ratio = f"{ta_b / tt_b:8.2f}x" if tt_b else "       -"
            tt_col = f"{tt_b / 2**20:8.1f} MiB" if tt_b is not None else "-"
            print(f"{letter}) {name:<22}{tt_col:>12}{ta_b / 2**20:8.1f} MiB{ratio:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
