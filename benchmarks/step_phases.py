"""Where a training step of bench_training.py spends its time in taimatsu, phase by phase.

Every backward node as the engine runs it (``B AddmmBackward0``: its ``apply`` and hooks), the
forward of every leaf module (``F Linear``), ``F.scaled_dot_product_attention``,
``clip_grad_norm_`` and the optimizer's ``step`` / ``zero_grad`` are timed (wall and CPU of the
process), summed per phase and divided by the steps run. The wrappers cost ~1 us per call, so
phases of a few microseconds read high.

    python benchmarks/step_phases.py --only gpt --threads 1
    python benchmarks/step_phases.py --only gpt --threads 2 --force   # two threads even when
                                                                     # other processes are running

``--force`` makes ``threads.usable_threads`` report every requested thread whatever the machine
load (the library otherwise falls back to one thread while other processes keep the cores busy):
for a look at the two-thread paths on a quiet machine. On a busy one its wall times mostly
measure the wait for a core.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


class Phases:
    """Wall and CPU seconds and call counts per phase name."""

    def __init__(self) -> None:
        self.wall: dict = defaultdict(float)
        self.cpu: dict = defaultdict(float)
        self.calls: dict = defaultdict(int)

    def wrap(self, name: str, fn):
        def timed(*args, **kwargs):
            w0, c0 = time.perf_counter(), time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.wall[name] += time.perf_counter() - w0
                self.cpu[name] += time.process_time() - c0
                self.calls[name] += 1

        return timed

    def clear(self) -> None:
        self.wall.clear()
        self.cpu.clear()
        self.calls.clear()


def instrument(T, phases: Phases, step) -> None:
    """Wrap the backward nodes, leaf modules, attention, clipping and the step's optimizer."""
    from taimatsu.autograd import engine
    from taimatsu.nn.modules.module import Module

    # The engine's call of each node, not the nodes' apply: a wrapper of apply would hold its
    # gradient arguments, and the reference counts the engine and the kernels test (to take a
    # gradient over without a copy, to write into an unshared one) would then see one more.
    run_node = engine._run_node

    def timed_node(node, buf, *args, **kwargs):
        return phases.wrap("B " + type(node).__name__, run_node)(node, buf, *args, **kwargs)

    engine._run_node = timed_node
    call = Module.__call__

    def module_call(self, *args, **kwargs):
        if next(iter(self._modules.values()), None) is None:  # a leaf module
            return phases.wrap("F " + type(self).__name__, call)(self, *args, **kwargs)
        return call(self, *args, **kwargs)

    Module.__call__ = module_call
    F = T.nn.functional
    F.scaled_dot_product_attention = phases.wrap("F scaled_dot_product_attention",
                                                 F.scaled_dot_product_attention)  # fmt: skip
    T.nn.utils.clip_grad_norm_ = phases.wrap("clip_grad_norm_", T.nn.utils.clip_grad_norm_)
    for cell in getattr(step, "__closure__", None) or ():
        opt = cell.cell_contents
        if isinstance(opt, T.optim.Optimizer):
            name = type(opt).__name__
            opt.step = phases.wrap(f"{name}.step", opt.step)
            opt.zero_grad = phases.wrap(f"{name}.zero_grad", opt.zero_grad)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="gpt", help="a workload of bench_training.py")
    ap.add_argument("--threads", type=int, help="torch.set_num_threads (and the BLAS variables)")
    ap.add_argument("--force", action="store_true", help="use the threads whatever the load")
    ap.add_argument("--steps", type=int, default=60)
    args = ap.parse_args(argv)
    if args.threads is not None:  # read once, when the libraries load
        os.environ.update({v: str(args.threads) for v in THREAD_VARS})
    sys.path.insert(0, HERE)
    from library_path import use_repository_library

    use_repository_library()
    import bench_training

    import taimatsu as T
    from taimatsu.backend import threads

    if args.threads is not None:
        T.set_num_threads(args.threads)
    if args.force:
        n = T.get_num_threads()
        threads.usable_threads = lambda: n
    step = bench_training.WORKLOADS[args.only](T)
    phases = Phases()
    instrument(T, phases, step)
    for _ in range(5):
        step()
    phases.clear()
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(args.steps):
        step()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    per = 1e3 / args.steps
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"{args.only}: threads {T.get_num_threads()}{' (forced)' if args.force else ''}, "
          f"{args.steps} steps, load average {load}; ms per step")  # fmt: skip
    print(f"  {'phase':48s} {'calls':>5s} {'wall':>7s} {'cpu':>7s}")
    for name in sorted(phases.cpu, key=lambda k: -phases.cpu[k]):
        calls = phases.calls[name] / args.steps
        print(
            f"  {name:48s} {calls:5.0f} {phases.wall[name] * per:7.2f} {phases.cpu[name] * per:7.2f}"
        )
    w_in, c_in = sum(phases.wall.values()), sum(phases.cpu.values())
    print(f"  {'(the rest: engine, views, small ops)':48s} {'':5s} "
          f"{(wall - w_in) * per:7.2f} {(cpu - c_in) * per:7.2f}")  # fmt: skip
    print(f"  {'step':48s} {'':5s} {wall * per:7.2f} {cpu * per:7.2f}")
    if not args.force:  # the thread policy's view of the machine at the end (threads.py)
        busy = threads._busy
        print(f"usable threads now: {threads.usable_threads()} (other processes' load estimate: "
              f"{busy['others']}); BLAS threads now: {threads._state['current']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
