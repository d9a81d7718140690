"""Training-step benchmark: realistic training steps on real PyTorch and on taimatsu.

Every workload is written once against a module parameter ``T`` (``torch`` or ``taimatsu``),
so both frameworks run identical code: an MLP, a small CNN (conv / batchnorm / max-pool, Adam),
LSTM and GRU classifiers (1 layer, seq 50, batch 32), the LSTM classifier written as a user loop
over ``x[:, t]`` with ``nn.LSTMCell`` (the input requires grad: 50 slice gradients), a small GPT
(char_gpt-sized, AdamW, gradient clipping), and bare Adam / AdamW steps over many parameters.

    python benchmarks/bench_training.py               # default threads, then 1 thread
    python benchmarks/bench_training.py --quick       # one step each: a smoke run, no real timing
    python benchmarks/bench_training.py --only lstm   # one workload (repeatable)
    python benchmarks/bench_training.py --threads 1   # one thread setting only
    python benchmarks/bench_training.py --wait-idle   # wait (bounded) for an idle machine first

Each framework runs in a subprocess of its own per thread setting (the thread variables of
OpenMP / OpenBLAS / MKL are read once, when the libraries load; and PyTorch's OpenMP threads,
which spin for a while after each parallel region, must not share a process with taimatsu's
steps). The two processes alternate, round after round, so a change of machine load hits both
alike. Reported per steady-state step: median wall
and CPU time (``time.process_time``: all threads of the process), the ratio taimatsu / PyTorch,
minor and major page faults (``getrusage`` deltas), and peak memory (as in bench_core.py);
then, per framework, the wall time at default threads over that at 1 thread. ``--json PATH``
also writes every measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from library_path import use_repository_library

use_repository_library()

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


# ---- workloads: setup(T) -> step(); each written once for both frameworks ------------------
def _train_step(T, model, loss_fn, opt, x, y, clip=None):
    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        if clip is not None:
            T.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        return loss

    return step


def mlp(T):
    """MLP 784-256-128-10, batch 64, cross-entropy, SGD with momentum."""
    T.manual_seed(0)
    nn = T.nn
    model = nn.Sequential(
        nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)
    )
    x, y = T.randn(64, 784), T.randint(0, 10, (64,))
    opt = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return _train_step(T, model, nn.CrossEntropyLoss(), opt, x, y)


def cnn(T):
    """2 x (conv 3x3 + batchnorm + relu + max-pool 2) + linear, batch 32 of 1x28x28, Adam."""
    T.manual_seed(0)
    nn = T.nn
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 7 * 7, 10),
    )  # fmt: skip
    x, y = T.randn(32, 1, 28, 28), T.randint(0, 10, (32,))
    opt = T.optim.Adam(model.parameters(), lr=1e-3)
    return _train_step(T, model, nn.CrossEntropyLoss(), opt, x, y)


def _recurrent(T, cell: str):
    T.manual_seed(0)
    nn = T.nn

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = getattr(nn, cell)(32, 128, batch_first=True)
            self.head = nn.Linear(128, 10)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.head(out[:, -1])

    model = Classifier()
    x, y = T.randn(32, 50, 32), T.randint(0, 10, (32,))
    opt = T.optim.Adam(model.parameters(), lr=1e-3)
    return _train_step(T, model, nn.CrossEntropyLoss(), opt, x, y)


def lstm(T):
    """nn.LSTM(32, 128) classifier on the last output: 1 layer, seq 50, batch 32, Adam."""
    return _recurrent(T, "LSTM")


def gru(T):
    """nn.GRU(32, 128) classifier on the last output: 1 layer, seq 50, batch 32, Adam."""
    return _recurrent(T, "GRU")


def lstm_cell(T):
    """The LSTM classifier written as a user loop: nn.LSTMCell over ``x[:, t]`` for t < 50."""
    T.manual_seed(0)
    nn = T.nn

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.cell = nn.LSTMCell(32, 128)
            self.head = nn.Linear(128, 10)

        def forward(self, x):
            h = c = T.zeros(x.shape[0], 128)
            for t in range(x.shape[1]):
                h, c = self.cell(x[:, t], (h, c))
            return self.head(h)

    model = Classifier()
    x, y = T.randn(32, 50, 32, requires_grad=True), T.randint(0, 10, (32,))
    opt = T.optim.Adam(model.parameters(), lr=1e-3)
    return _train_step(T, model, nn.CrossEntropyLoss(), opt, x, y)


def gpt(T):
    """examples/char_gpt.py's model and step: 2 blocks, 64 wide, 4 heads, batch 16 x 32 chars."""
    T.manual_seed(0)
    nn, F = T.nn, T.nn.functional
    vocab, block, width, heads = 65, 32, 64, 4

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.mlp = nn.Sequential(
                nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)
            )

        def forward(self, x):
            B, S, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q, k, v = (t.view(B, S, heads, C // heads).transpose(1, 2) for t in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).contiguous().view(B, S, C))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(block, width)
            self.blocks = nn.Sequential(Block(), Block())
            self.ln_f = nn.LayerNorm(width)
            self.head = nn.Linear(width, vocab, bias=False)
            self.head.weight = self.tok.weight

        def forward(self, idx):
            x = self.tok(idx) + self.pos(T.arange(idx.shape[1]))
            return self.head(self.ln_f(self.blocks(x))).view(-1, vocab)

    model = GPT()
    x = T.randint(0, vocab, (16, block))
    y = T.randint(0, vocab, (16 * block,))
    opt = T.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
    return _train_step(T, model, nn.CrossEntropyLoss(), opt, x, y, clip=1.0)


def _optimizer_step(T, name: str, **kw):
    T.manual_seed(0)
    params = []
    for _ in range(50):  # 50 weight matrices and 50 biases: 0.83M parameters
        params += [T.nn.Parameter(T.randn(128, 128)), T.nn.Parameter(T.randn(128))]
    for p in params:
        p.grad = T.randn(p.shape)
    opt = getattr(T.optim, name)(params, lr=1e-3, **kw)
    return opt.step


def adam(T):
    """Adam.step() over 100 parameters (50 of 128x128, 50 of 128), default options."""
    return _optimizer_step(T, "Adam")


def adamw(T):
    """AdamW.step() over 100 parameters (50 of 128x128, 50 of 128), weight decay 0.01."""
    return _optimizer_step(T, "AdamW", weight_decay=0.01)


WORKLOADS = {f.__name__: f for f in (mlp, cnn, lstm, gru, lstm_cell, gpt, adam, adamw)}


# ---- measurement (in the worker subprocesses) ------------------------------------------------
def _faults() -> tuple[int, int]:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_minflt, ru.ru_majflt


class Samples:
    """Per-step wall and CPU times and page-fault totals of one framework on one workload."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.minflt = self.majflt = 0

    def run(self, step, n: int) -> None:
        mn0, mj0 = _faults()
        for _ in range(n):
            w0, c0 = time.perf_counter(), time.process_time()
            step()
            self.wall.append(time.perf_counter() - w0)
            self.cpu.append(time.process_time() - c0)
        mn1, mj1 = _faults()
        self.minflt += mn1 - mn0
        self.majflt += mj1 - mj0

    def summary(self) -> dict:
        n = len(self.wall)
        return {
            "wall": statistics.median(self.wall), "cpu": statistics.median(self.cpu),
            "minflt": self.minflt / n, "majflt": self.majflt / n, "steps": n,
        }  # fmt: skip


class Worker:
    """One framework in its own subprocess at one thread setting, driven step batch by step batch.

    Each framework gets a process of its own so that neither one's threads run during the
    other's steps: PyTorch's OpenMP threads spin for a while after each parallel region, and in a
    shared process they took CPU from taimatsu's next steps (and counted as load for its thread
    policy)."""

    def __init__(self, framework: str, setting: str, args) -> None:
        env = dict(os.environ)
        if setting != "default":
            env.update({v: setting for v in THREAD_VARS})
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", setting,
               "--framework", framework]  # fmt: skip
        # its stderr (PyTorch's profiler chatters); closed by close()
        self.log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True, bufsize=1)  # fmt: skip
        self.framework = framework

    def ask(self, **request):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        for line in self.proc.stdout:
            if line.startswith("RESULT "):
                return json.loads(line[len("RESULT ") :])
        self.log.seek(0)
        sys.stderr.write(self.log.read()[-4000:])
        raise SystemExit(f"{self.framework} worker failed (exit {self.proc.wait()})")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def serve(framework: str, setting: str) -> int:
    """The worker's loop: one JSON request per stdin line, one RESULT line per answer."""
    if framework == "torch":
        import torch as T
    else:
        import taimatsu as T
    if setting != "default":
        T.set_num_threads(int(setting))
    steps, samples = {}, {}

    def answer(value) -> None:
        print("RESULT " + json.dumps(value), flush=True)

    for line in sys.stdin:
        req = json.loads(line)
        cmd, name = req["cmd"], req.get("name")
        if cmd == "threads":
            answer(T.get_num_threads())
        elif cmd == "setup":  # build, then warm up: first-call imports, caches, optimizer state
            steps[name], samples[name] = WORKLOADS[name](T), Samples()
            for _ in range(req["warmup"]):
                steps[name]()
            answer(None)
        elif cmd == "run":
            # Let the driver, which has just written this request, go back to waiting: taimatsu's
            # thread policy samples the machine's load at the turn's first product, and a driver
            # still runnable then, with PyTorch's turn just before in the average, read as another
            # busy process and kept taimatsu's products on one thread for most of the turn.
            time.sleep(0.01)
            samples[name].run(steps[name], req["n"])
            answer(samples[name].wall[-1])
        elif cmd == "summary":
            from bench_core import peak_bytes_taimatsu, peak_bytes_torch

            out = samples.pop(name).summary()
            del steps[name]
            peak = peak_bytes_torch if framework == "torch" else peak_bytes_taimatsu
            out["peak"] = peak(WORKLOADS[name](T))
            answer(out)
    return 0


def measure(name: str, workers: list, quick: bool, seconds: float) -> dict:
    """Alternate the frameworks round by round until each has run ``seconds`` of steps."""
    for w in workers:
        w.ask(cmd="setup", name=name, warmup=1 if quick else 3)
    last = {w.framework: 0.0 for w in workers}
    rounds = 1 if quick else 7
    for _ in range(rounds):
        for w in workers:
            per = last[w.framework]
            n = 1 if quick or not per else max(1, int(seconds / rounds / per))
            last[w.framework] = w.ask(cmd="run", name=name, n=n)
            time.sleep(0.05)  # let the other process's idle threads go to sleep
    return {w.framework: w.ask(cmd="summary", name=name) for w in workers}


# ---- driver -----------------------------------------------------------------------------------
def wait_idle(limit_s: float, threshold: float) -> bool:
    """Wait up to ``limit_s`` for the 1-minute load average to fall below ``threshold``."""
    deadline = time.monotonic() + limit_s
    while os.getloadavg()[0] >= threshold and time.monotonic() < deadline:
        time.sleep(5)
    return os.getloadavg()[0] < threshold


def run_setting(setting: str, args) -> dict:
    """Both frameworks at one thread setting, each in its own process."""
    frameworks = ["taimatsu"]
    if not args.no_torch:
        try:
            import torch  # noqa: F401 -- only whether it is installed

            frameworks.insert(0, "torch")
        except ImportError:
            pass
    workers = [Worker(k, setting, args) for k in frameworks]
    try:
        info = {
            "threads": {w.framework: w.ask(cmd="threads") for w in workers},
            "load_before": os.getloadavg()[0],
            "results": {},
        }
        for name in args.only:
            info["results"][name] = measure(name, workers, args.quick, args.seconds)
        info["load_after"] = os.getloadavg()[0]
    finally:
        for w in workers:
            w.close()
    return info


def _ms(s: float | None) -> str:
    return "-" if s is None else f"{s * 1e3:.2f}"


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a is not None and b else "-"


def report(setting: str, info: dict) -> None:
    th = "  ".join(f"{k}={v}" for k, v in info["threads"].items())
    print(f"\n== threads: {setting} ({th}); load average {info['load_before']:.2f} before, "
          f"{info['load_after']:.2f} after ==")  # fmt: skip
    cols = ("workload", "torch wall", "tai wall", "ratio", "torch cpu", "tai cpu", "ratio",
            "flt/step torch", "tai", "peak MiB torch", "tai", "ratio")  # fmt: skip
    widths = (10, 11, 10, 8, 10, 10, 8, 15, 8, 15, 8, 8)
    print(f"{cols[0]:<10}" + "".join(f"{c:>{w}}" for c, w in zip(cols[1:], widths[1:])))
    for name, r in info["results"].items():
        tt, ta = r.get("torch", {}), r["taimatsu"]
        mib = lambda d: None if "peak" not in d else d["peak"] / 2**20
        flt = lambda d: "-" if not d else f"{d['minflt'] + d['majflt']:.0f}"
        row = (name, _ms(tt.get("wall")), _ms(ta["wall"]), _ratio(ta["wall"], tt.get("wall")),
               _ms(tt.get("cpu")), _ms(ta["cpu"]), _ratio(ta["cpu"], tt.get("cpu")),
               flt(tt), flt(ta), "-" if not tt else f"{mib(tt):.1f}", f"{mib(ta):.1f}",
               _ratio(mib(ta), mib(tt) if tt else None))  # fmt: skip
        print(f"{row[0]:<10}" + "".join(f"{c:>{w}}" for c, w in zip(row[1:], widths[1:])))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one step per workload (smoke run)")
    ap.add_argument("--only", action="append", choices=sorted(WORKLOADS), help="repeatable")
    ap.add_argument("--no-torch", action="store_true", help="run taimatsu only")
    ap.add_argument("--threads", choices=("default", "1", "both"), default="both")
    ap.add_argument("--seconds", type=float, default=2.0, help="time per framework per workload")
    ap.add_argument("--wait-idle", action="store_true", help="wait for load average < 0.5 first")
    ap.add_argument("--wait-limit", type=float, default=600.0, help="seconds --wait-idle waits")
    ap.add_argument("--json", metavar="PATH", help="also write every measurement to PATH")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--framework", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.only = args.only or list(WORKLOADS)
    if args.worker:
        return serve(args.framework, args.worker)

    import numpy as np

    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python "
          f"{platform.python_version()} numpy {np.__version__}"
          + ("  (--quick: one step each, timings meaningless)" if args.quick else ""))  # fmt: skip
    blas = blas_kernels()
    print(f"NumPy's BLAS kernels: {blas}")
    if args.wait_idle:
        idle = wait_idle(args.wait_limit, 0.5)
        state = "idle" if idle else f"NOT idle after waiting {args.wait_limit:.0f} s"
        print(f"machine {state}: load average {os.getloadavg()[0]:.2f}")
    load = os.getloadavg()[0]
    if load >= 0.5:
        print(f"WARNING: load average {load:.2f} on {os.cpu_count()} cpus: the machine is "
              "busy, wall times (and multi-threaded ratios) are indicative only")  # fmt: skip
    print(
        "columns: median ms per steady-state step (wall, and CPU of all threads), ratio "
        "taimatsu/torch, page faults per step (minor+major), peak MiB allocated in one step"
    )
    settings = ["default", "1"] if args.threads == "both" else [args.threads]
    runs = {}
    for setting in settings:
        runs[setting] = run_setting(setting, args)
        report(setting, runs[setting])
    if len(runs) == 2:
        report_threads(runs)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_average_start": load, "blas": blas, "runs": runs}, f, indent=1)
    return 0


def blas_kernels() -> str:
    """Which of OpenBLAS's kernel sets taimatsu's products run on here, and whether the
    environment chose it: the same workload runs up to 2x apart between OpenBLAS's AVX2 and
    AVX-512 sets (PyTorch's MKL and oneDNN are not affected)."""
    from taimatsu.backend.threads import blas_core

    core = blas_core() or "unknown (not OpenBLAS?)"
    forced = os.environ.get("OPENBLAS_CORETYPE")
    chosen = f"OPENBLAS_CORETYPE={forced}" if forced else "OpenBLAS's own choice"
    return f"{core} ({chosen})"


def report_threads(runs: dict) -> None:
    """Wall time at default threads over wall time at 1 thread, per framework (target: <= 1)."""
    print("\n== default threads / 1 thread (wall) ==")
    print(f"{'workload':<10}{'torch':>10}{'taimatsu':>10}")
    for name, r in runs["default"]["results"].items():
        one = runs["1"]["results"][name]
        cols = [
            _ratio(r[k]["wall"], one[k]["wall"]) if k in r else "-" for k in ("torch", "taimatsu")
        ]
        print(f"{name:<10}{cols[0]:>10}{cols[1]:>10}")


if __name__ == "__main__":
    sys.exit(main())
