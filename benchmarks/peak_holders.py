"""Where a training step of bench_training.py reaches its peak memory in taimatsu, and what is
live there.

bench_training.py's peak is tracemalloc's, over the step (as ``bench_core.peak_bytes_taimatsu``).
This script splits it by backward node as the engine runs it: the memory live when the node
starts, its highest point inside, and what it leaves. Then it runs the step again, snapshots at
the highest point inside the node that holds the step's peak, and lists the allocation sites of
what is live there (over the memory live before the step), with the split between NumPy's data
buffers and Python objects (Tensors, nodes, tuples): PyTorch's figure (the profiler's allocator
events) counts tensor storage only, so the Python objects are taimatsu's alone.

    python benchmarks/peak_holders.py --only gpt --threads 1
    python benchmarks/peak_holders.py --only lstm_cell --nodes 12 --sites 20

Peaks reached outside the backward nodes (forward, optimizer) are reported as such, without a
snapshot. ``sys.setprofile`` runs inside the peak's node on the second pass: it is slow there.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
MIB = 2**20


def node_peaks(engine, step):
    """Run ``step`` once with every backward node's (name#k, start, peak, end) recorded, bytes
    over the memory live before the step; returns (the records, the step's peak)."""
    run_node = engine._run_node  # the engine's call, not apply: see step_phases.instrument
    records, counts = [], {}

    def recorded(node, *args, **kwargs):
        name = type(node).__name__
        counts[name] = counts.get(name, 0) + 1
        start = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        try:
            return run_node(node, *args, **kwargs)
        finally:
            end, peak = tracemalloc.get_traced_memory()
            records.append((name, counts[name], start - base, peak - base, end - base))
            tracemalloc.reset_peak()  # the next node's figures start here; the step's peak:
            step_peak[0] = max(step_peak[0], peak - base)

    step_peak = [0]
    engine._run_node = recorded
    try:
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        step()
        step_peak[0] = max(step_peak[0], tracemalloc.get_traced_memory()[1] - base)
    finally:
        tracemalloc.stop()
        engine._run_node = run_node
    return records, step_peak[0]


def snapshot_at_peak(engine, step, name: str, k: int, frames: int):
    """Run ``step`` again; inside the ``k``-th node named ``name``, the snapshot taken where the
    traced memory is highest. Returns (snapshot at the peak, snapshot before the step)."""
    run_node = engine._run_node
    seen, best = [0], [-1, None]

    def profile(frame, event, arg):
        if event in ("return", "c_return"):
            cur = tracemalloc.get_traced_memory()[0]
            if cur > best[0]:
                best[0], best[1] = cur, tracemalloc.take_snapshot()

    def watched(node, *args, **kwargs):
        if type(node).__name__ == name:
            seen[0] += 1
            if seen[0] == k:
                sys.setprofile(profile)
                try:
                    return run_node(node, *args, **kwargs)
                finally:
                    sys.setprofile(None)
        return run_node(node, *args, **kwargs)

    engine._run_node = watched
    try:
        tracemalloc.start(frames)
        before = tracemalloc.take_snapshot()
        step()
    finally:
        tracemalloc.stop()
        engine._run_node = run_node
    return best[1], before


def split_by_domain(at, before):
    """(NumPy data bytes, Python object bytes) live at ``at`` over ``before``."""
    import numpy as np

    out = []
    for inclusive in (True, False):
        flt = [tracemalloc.DomainFilter(inclusive, np.lib.tracemalloc_domain)]
        size = [sum(s.size for s in snap.filter_traces(flt).statistics("filename"))
                for snap in (at, before)]  # fmt: skip
        out.append(size[0] - size[1])
    return out


def site(traceback) -> str:
    """The innermost frames of the library (or the benchmark) that allocated, outermost last."""
    frames = [f for f in traceback if "taimatsu" in f.filename or "bench" in f.filename]
    return " <- ".join(f"{_short(f.filename)}:{f.lineno}" for f in list(reversed(frames))[:4])


def _short(filename: str) -> str:
    if "bench" in filename:
        return os.path.basename(filename)
    return filename.rsplit("taimatsu/", 1)[-1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="gpt", help="a workload of bench_training.py")
    ap.add_argument("--threads", type=int, help="torch.set_num_threads (and the BLAS variables)")
    ap.add_argument("--nodes", type=int, default=8, help="backward nodes listed, highest first")
    ap.add_argument("--sites", type=int, default=16, help="allocation sites listed")
    args = ap.parse_args(argv)
    if args.threads is not None:  # read once, when the libraries load
        os.environ.update({v: str(args.threads) for v in THREAD_VARS})
    sys.path.insert(0, HERE)
    from library_path import use_repository_library

    use_repository_library()
    import bench_training

    import taimatsu as T
    from taimatsu.autograd import engine

    if args.threads is not None:
        T.set_num_threads(args.threads)
    step = bench_training.WORKLOADS[args.only](T)
    step()
    step()
    gc.collect()
    records, peak = node_peaks(engine, step)
    print(f"{args.only}: step peak {peak / MIB:.3f} MiB over the memory live before the step")
    print(f"  {'backward node':32s} {'start':>7s} {'peak':>7s} {'end':>7s}  MiB")
    records.sort(key=lambda r: -r[3])
    for name, k, start, top, end in records[: args.nodes]:
        print(f"  {f'{name}#{k}':32s} {start / MIB:7.3f} {top / MIB:7.3f} {end / MIB:7.3f}")
    if not records or records[0][3] < peak:
        print("the step's peak is outside the backward nodes (forward or optimizer)")
        return 0
    name, k = records[0][:2]
    gc.collect()
    at, before = snapshot_at_peak(engine, step, name, k, frames=8)
    data, objects = split_by_domain(at, before)
    print(f"live at the peak inside {name}#{k}: NumPy data {data / MIB:.3f} MiB, "
          f"Python objects {objects / MIB:.3f} MiB; by allocation site:")  # fmt: skip
    for s in at.compare_to(before, "traceback")[: args.sites]:
        print(f"  {s.size_diff / MIB:7.3f} MiB {s.count_diff:5d}  {site(s.traceback)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
