"""DDP benchmark: taimatsu on MPI vs PyTorch on gloo, 2 ranks each, the same code.

    python benchmarks/bench_ddp.py               # DDP step time + all-reduce 1 KB .. 64 MB
    python benchmarks/bench_ddp.py --quick       # one step, two sizes: a smoke run, no real timing
    python benchmarks/bench_ddp.py --nproc 3     # another world size
    python benchmarks/bench_ddp.py --no-torch    # taimatsu alone

Each framework runs as N processes executing this file's ``worker`` (``T`` = torch or
taimatsu): PyTorch's ranks joined by gloo over env:// on localhost, taimatsu's started by
mpiexec. Reported: the median wall time of one DDP training step (MLP 784-256-128-10, batch
64 per rank, SGD; every step ends in a barrier so ranks stay in lockstep) with its CPU time,
and for float32 all-reduces of 1 KB to 64 MB the median time and the algorithm bandwidth
(bytes / time), with the ratio taimatsu / PyTorch (time: lower is better).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SIZES = [1 << 10, 16 << 10, 256 << 10, 4 << 20, 64 << 20]


# ---- what every rank runs ------------------------------------------------------------------
def ddp_step_times(T, steps: int) -> dict:
    nn = T.nn
    T.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)
    )
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = T.optim.SGD(ddp.parameters(), lr=0.01)
    x, y = T.randn(64, 784), T.randint(0, 10, (64,))
    loss_fn = nn.CrossEntropyLoss()
    walls, cpus = [], []
    for i in range(steps + 2):  # two warm-up steps
        T.distributed.barrier()
        w, c = time.perf_counter(), time.process_time()
        opt.zero_grad()
        loss_fn(ddp(x), y).backward()
        opt.step()
        T.distributed.barrier()
        if i >= 2:
            walls.append(time.perf_counter() - w)
            cpus.append(time.process_time() - c)
    return {"wall": statistics.median(walls), "cpu": statistics.median(cpus)}


def all_reduce_times(T, sizes, quick: bool) -> dict:
    out = {}
    for nbytes in sizes:
        t = T.ones(nbytes // 4)
        reps = 1 if quick else max(3, min(50, (64 << 20) // nbytes // 4))
        times = []
        for i in range(reps + 1):
            T.distributed.barrier()
            start = time.perf_counter()
            T.distributed.all_reduce(t)
            if i:
                times.append(time.perf_counter() - start)
        out[str(nbytes)] = statistics.median(times)
    return out


def worker(lib: str, out: str, quick: bool) -> None:
    import importlib

    T = importlib.import_module(lib)
    T.distributed.init_process_group("gloo")
    sizes = SIZES[:2] if quick else SIZES
    result = {
        "ddp": ddp_step_times(T, 1 if quick else 30),
        "all_reduce": all_reduce_times(T, sizes, quick),
        "world": T.distributed.get_world_size(),
    }
    if T.distributed.get_rank() == 0:
        Path(out).write_text(json.dumps(result))
    T.distributed.destroy_process_group()


# ---- the driver ----------------------------------------------------------------------------
def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI_", "RANK", "WORLD_SIZE"))}
    env["PYTHONPATH"] = str(ROOT)
    env.setdefault("OMP_NUM_THREADS", "1")  # as torchrun and our launcher set it
    env.update(extra)
    return env


def _run_all(procs, timeout: float) -> None:
    try:
        for p in procs:
            if p.wait(timeout=timeout) != 0:
                raise SystemExit(f"a rank failed: {p.args}")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def run_torch(n: int, out: Path, quick: bool) -> dict:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    cmd = [sys.executable, __file__, "--worker", "torch", str(out)] + (["--quick"] if quick else [])
    procs = [
        subprocess.Popen(
            cmd,
            env=_env(
                RANK=str(r),
                WORLD_SIZE=str(n),
                LOCAL_RANK=str(r),
                MASTER_ADDR="127.0.0.1",
                MASTER_PORT=port,
            ),
        )
        for r in range(n)
    ]
    _run_all(procs, 900)
    return json.loads(out.read_text())


def run_taimatsu(n: int, out: Path, quick: bool) -> dict:
    mpiexec = Path(sys.executable).with_name("mpiexec")
    mpiexec = str(mpiexec) if mpiexec.exists() else shutil.which("mpiexec")
    cmd = [mpiexec, "-n", str(n), sys.executable, __file__, "--worker", "taimatsu", str(out)]
    _run_all([subprocess.Popen(cmd + (["--quick"] if quick else []), env=_env())], 900)
    return json.loads(out.read_text())


def _ratio(a: float, b: float | None) -> str:
    return f"{a / b:6.2f}x" if b else "     -"


def report(ours: dict, theirs: dict | None) -> None:
    load = os.getloadavg()[0]
    print(f"world size {ours['world']}; load average {load:.2f} on {os.cpu_count()} cores")
    t = theirs or {}
    d, td = ours["ddp"], t.get("ddp", {})
    print(
        f"\n{'DDP step (MLP 784-256-128-10, batch 64/rank)':46s} {'taimatsu':>10s} {'PyTorch':>10s} {'ratio':>8s}"
    )
    for key, label in (("wall", "median wall ms"), ("cpu", "median CPU ms (rank 0)")):
        other = td.get(key)
        print(
            f"  {label:44s} {d[key] * 1e3:10.2f} {other * 1e3 if other else float('nan'):10.2f} {_ratio(d[key], other)}"
        )
    print(
        f"\n{'all_reduce float32':20s} {'taimatsu ms':>12s} {'GB/s':>7s} {'PyTorch ms':>11s} {'GB/s':>7s} {'ratio':>8s}"
    )
    for size, secs in ours["all_reduce"].items():
        other = t.get("all_reduce", {}).get(size)
        nbytes = int(size)
        label = f"{nbytes >> 20} MB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KB"
        bw = nbytes / secs / 1e9
        obw = nbytes / other / 1e9 if other else float("nan")
        print(
            f"  {label:18s} {secs * 1e3:12.3f} {bw:7.2f} {other * 1e3 if other else float('nan'):11.3f} {obw:7.2f} {_ratio(secs, other)}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--worker", nargs=2, metavar=("LIB", "OUT"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1], args.quick)
        return
    with tempfile.TemporaryDirectory() as tmp:
        ours = run_taimatsu(args.nproc, Path(tmp) / "taimatsu.json", args.quick)
        theirs = None
        if not args.no_torch:
            try:
                import torch  # noqa: F401
            except ImportError:
                print("PyTorch is not installed: taimatsu alone")
            else:
                theirs = run_torch(args.nproc, Path(tmp) / "torch.json", args.quick)
    report(ours, theirs)


if __name__ == "__main__":
    main()
