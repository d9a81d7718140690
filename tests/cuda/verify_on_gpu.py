"""The one-shot verification of taimatsu's CUDA backend on a real NVIDIA GPU, against PyTorch CUDA.

Run it ONCE on a machine with a GPU, CuPy (``pip install -e '.[cuda12]'``) and a CUDA build of
PyTorch (the reference), from the repository root::

    python tests/cuda/verify_on_gpu.py --out gpu_results.md          # about 5 minutes on an H200

It writes one Markdown file with five sections, each bounded in time (``--budget`` seconds in
all, default 480; a section that runs out of time says where it stopped):

1. environment: GPU, driver/runtime, CuPy and PyTorch versions;
2. the op database (tests/ops/opdb*.py) on ``cuda``: taimatsu against PyTorch CUDA, forward and
   backward with a random cotangent, each entry in its first dtype (float32 when it has it);
3. the nn table (tests/nn/nn_cases.py) on ``cuda``, eval mode: outputs and gradients against
   PyTorch CUDA with the same weights;
4. the examples with ``--device cuda`` (exit status, last lines, wall time);
5. benchmarks, taimatsu / PyTorch CUDA eager time ratios (median of timed repeats, each
   bracketed by ``torch.cuda.synchronize()``): MLP, CNN and GPT-style training steps, a large
   matmul and large elementwise chains, plus peak memory;
6. with ``--profile``: where taimatsu's training steps spend host time (cProfile).

``--dry-run`` runs the same code here, without a GPU: taimatsu on the CuPy test double
(tests/cuda/cupy_double.py), PyTorch on the CPU as the reference, tiny sizes and a few entries,
so that the script cannot rot (tests/cuda/test_verify_on_gpu.py runs it). Dry-run timings mean
nothing and are labelled so.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
for _p in (HERE, ROOT / "tests" / "ops", ROOT / "tests" / "nn", ROOT / "tests", ROOT):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))


class Budget:
    """Seconds left for the whole run; sections share it and stop early when it runs out."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return self.end - time.monotonic()

    def share(self, fraction: float) -> float:
        """A deadline for a section that may use ``fraction`` of what is left."""
        return time.monotonic() + max(self.left(), 0) * fraction


# ---- setup -----------------------------------------------------------------------------------------
def setup(dry: bool):
    """(taimatsu, torch, taimatsu's device, torch's device)."""
    if dry:
        import cupy_double

        cupy_double.install()
    import torch

    import taimatsu

    if not dry and not (taimatsu.cuda.is_available() and torch.cuda.is_available()):
        raise SystemExit("needs a GPU visible to both CuPy and PyTorch (or --dry-run)")
    if dry:
        torch.set_num_threads(1)  # a shared CI machine: the dry run's timings mean nothing anyway
    else:  # full float32 products in the reference (cuDNN's RNNs otherwise use TF32 on Ampere+)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    return taimatsu, torch, "cuda", ("cpu" if dry else "cuda")


def environment(tm, th, dry: bool) -> dict:
    import cupy

    info = {
        "mode": "DRY RUN (CuPy test double; PyTorch on the CPU)" if dry else "GPU",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cupy": cupy.__version__,
        "torch": th.__version__,
        "device": tm.cuda.get_device_name(0),
        "capability": tm.cuda.get_device_capability(0),
        "cuda runtime": cupy.cuda.runtime.runtimeGetVersion(),
        "cuda driver": cupy.cuda.runtime.driverGetVersion(),
        "taimatsu devices": tm.cuda.device_count(),
    }
    if not dry:
        info["torch device"] = th.cuda.get_device_name(0)
    return info


def _sync(T, device: str) -> None:
    if device.startswith("cuda"):
        T.cuda.synchronize()


def _numpy(t) -> np.ndarray:
    t = t.detach().cpu()
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    if t.is_complex() and hasattr(t, "resolve_conj"):
        t = t.resolve_conj()
    return t.numpy()


def _tensors(x) -> list:
    if hasattr(x, "shape") and hasattr(x, "requires_grad"):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _tensors(v)]
    return []


def _compare(a, b, rtol, atol) -> str | None:
    """None when the results agree, else what differs."""
    ta, tb = _tensors(a), _tensors(b)
    if len(ta) != len(tb):
        return f"{len(ta)} tensors vs {len(tb)}"
    for x, y in zip(ta, tb):
        if str(x.dtype).split(".")[-1] != str(y.dtype).split(".")[-1]:
            return f"dtype {x.dtype} vs {y.dtype}"
        if tuple(x.shape) != tuple(y.shape):
            return f"shape {tuple(x.shape)} vs {tuple(y.shape)}"
        u, v = _numpy(x), _numpy(y)
        if u.dtype.kind in "fc":
            if not np.allclose(u, v, rtol=rtol, atol=atol, equal_nan=True):
                err = np.nanmax(np.abs(u.astype(np.complex128) - v)) if u.size else 0
                return f"max abs diff {err:.3g}"
        elif not np.array_equal(u, v):
            return "values differ"
    return None


def _where(e: BaseException) -> str:
    """The innermost taimatsu (or else the innermost) frame of ``e``'s traceback, as
    ``file:line``: where to look without the whole traceback."""
    frames = traceback.extract_tb(e.__traceback__)
    mine = [f for f in frames if "/taimatsu/" in f.filename] or frames
    if not mine:
        return "?"
    f = mine[-1]
    return f"{f.filename.split('/taimatsu/')[-1]}:{f.lineno}"


# ---- 2. the op database --------------------------------------------------------------------------------
def _opdb_side(T, call, op, device, cot_seed):
    leaves = [t.to(device) for t in call.make_leaves(T)]
    for t, leaf in zip(leaves, call.leaves):
        if leaf.requires_grad:
            t.requires_grad_(True)
    out = call.call(T, op, leaves)
    outs = [t for t in _tensors(out) if t.requires_grad]
    grads = None
    if outs:
        rng = np.random.default_rng(cot_seed)
        cots = [T.tensor(rng.standard_normal(tuple(t.shape))).to(t.dtype).to(device) for t in outs]
        ins = [t for t in leaves if t.requires_grad]
        grads = [g for g in T.autograd.grad(outs, ins, cots, allow_unused=True) if g is not None]
    _sync(T, device)
    return out, grads


def opdb_section(tm, th, tm_dev, th_dev, deadline, limit, entries=None) -> dict:
    from opdb import REGISTRY, calls, load_all, tolerances

    load_all()
    names = sorted(REGISTRY)[:limit] if limit else sorted(REGISTRY)
    if entries:  # named entries only (a rerun of those that failed)
        names = [n for n in names if n in entries]
    rows, counts = [], {"pass": 0, "fail": 0, "error": 0}
    for name in names:
        if time.monotonic() > deadline:
            rows.append((name, "stopped", "time budget spent"))
            break
        info = REGISTRY[name]
        dtype = "float32" if "float32" in info.dtypes else info.dtypes[0]
        rtol, atol = tolerances(info, dtype)
        rtol, atol = max(rtol, 1e-4), max(atol, 1e-5)  # GPU kernels round differently
        verdict, why = "pass", ""
        for k, call in enumerate(calls(info, dtype)):
            got = want = None
            try:
                want = _opdb_side(th, call, info.op, th_dev, k)
            except Exception as e:  # noqa: BLE001 - PyTorch refuses the sample: taimatsu must too
                try:
                    _opdb_side(tm, call, info.op, tm_dev, k)
                    verdict, why = (
                        "fail",
                        (
                            f"{call!r}: PyTorch raised {type(e).__name__} ({str(e)[:160]}), "
                            "taimatsu did not"
                        ),
                    )
                except Exception as e2:  # noqa: BLE001
                    if type(e2).__name__ != type(e).__name__:
                        verdict, why = (
                            "fail",
                            (
                                f"{call!r}: {type(e2).__name__} ({str(e2)[:120]}; {_where(e2)}) vs "
                                f"{type(e).__name__} ({str(e)[:120]})"
                            ),
                        )
                if verdict != "pass":
                    break
                continue
            try:
                got = _opdb_side(tm, call, info.op, tm_dev, k)
            except Exception as e:  # noqa: BLE001
                verdict, why = (
                    "error",
                    f"{call!r}: {type(e).__name__}: {str(e)[:200]} ({_where(e)})",
                )
                break
            diff = _compare(got[0], want[0], rtol, atol) or (
                _compare(got[1], want[1], rtol * 10, atol * 10) if want[1] else None
            )
            if diff:
                verdict, why = "fail", f"{call!r}: {diff}"
                break
        counts[verdict] += 1
        if verdict != "pass":
            rows.append((name, verdict, why))
    return {"entries": len(names), "counts": counts, "problems": rows}


# ---- 3. the nn table -------------------------------------------------------------------------------
def _state_to(th, module_tm, module_th) -> None:
    sd = {k: th.tensor(_numpy(v)) for k, v in module_tm.state_dict().items()}
    module_th.load_state_dict(sd)


def nn_section(tm, th, tm_dev, th_dev, deadline, limit) -> dict:
    """The table with PyTorch's own CUDA kernels as the reference: cuDNN is off here, as its
    RNNs refuse a backward in eval mode."""
    with th.backends.cudnn.flags(enabled=False):
        return _nn_cases(tm, th, tm_dev, th_dev, deadline, limit)


def _nn_cases(tm, th, tm_dev, th_dev, deadline, limit) -> dict:
    from nn_cases import MODULE_CASES

    rows, counts = [], {"pass": 0, "fail": 0, "error": 0, "skipped": 0}
    cases = MODULE_CASES[:limit] if limit else MODULE_CASES
    for case in cases:
        if time.monotonic() > deadline:
            rows.append((case.id, "stopped", "time budget spent"))
            break
        if not hasattr(tm.nn, case.name):
            counts["skipped"] += 1
            continue
        variant = case.variants[0]
        if callable(variant) or case.lazy:
            counts["skipped"] += (
                1  # inputs built by code, or lazy modules: the CI table covers them
            )
            continue
        try:
            tm.manual_seed(0)
            m_tm = case.make(tm).eval()
            m_th = case.make(th).eval()
            _state_to(th, m_tm, m_th)
            m_tm, m_th = m_tm.to(tm_dev), m_th.to(th_dev)
            shapes = (variant,) if all(isinstance(d, int) for d in variant) else variant
            rng = np.random.default_rng(1)
            xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
            a = [tm.tensor(x).to(tm_dev).requires_grad_() for x in xs]
            b = [th.tensor(x).to(th_dev).requires_grad_() for x in xs]
            out_tm, out_th = m_tm(*a), m_th(*b)
            diff = _compare(out_tm, out_th, case.rtol * 10, case.atol * 10)
            if diff is None:
                o_tm, o_th = _tensors(out_tm)[0], _tensors(out_th)[0]
                cot = rng.standard_normal(tuple(o_th.shape)).astype(np.float32)
                g_tm = tm.autograd.grad(o_tm, a, tm.tensor(cot).to(tm_dev), allow_unused=True)
                g_th = th.autograd.grad(o_th, b, th.tensor(cot).to(th_dev), allow_unused=True)
                diff = _compare([g for g in g_tm if g is not None],
                                [g for g in g_th if g is not None], case.rtol * 10, case.atol * 10)  # fmt: skip
            verdict = "pass" if diff is None else "fail"
            if diff:
                rows.append((case.id, "fail", diff))
        except Exception as e:  # noqa: BLE001
            verdict = "error"
            rows.append((case.id, "error", f"{type(e).__name__}: {str(e)[:200]} ({_where(e)})"))
        counts[verdict] += 1
    return {"cases": len(cases), "counts": counts, "problems": rows}


# ---- 4. the examples ---------------------------------------------------------------------------------
EXAMPLES = [
    ["train_digits.py", "--epochs", "1", "--subset", "2000"],
    ["char_gpt.py", "--steps", "200", "--sample-chars", "80"],
    ["lstm_digits.py", "--epochs", "1"],
    ["vae_digits.py", "--epochs", "1"],
]
DRY_EXAMPLES = [["lstm_digits.py", "--epochs", "1"]]


def examples_section(dry: bool, deadline, tmp: Path) -> list:
    rows = []
    for argv in DRY_EXAMPLES if dry else EXAMPLES:
        left = deadline - time.monotonic()
        if left < 5:
            rows.append((argv[0], "stopped", "time budget spent", 0.0))
            continue
        script = str(ROOT / "examples" / argv[0])
        extra = ["--out-dir", str(tmp / argv[0])] if argv[0] == "train_digits.py" else []
        args = [*argv[1:], *extra, "--device", "cuda"]
        if dry:  # the double is installed inside the child process
            code = ("import sys, runpy, cupy_double; cupy_double.install(); "
                    f"sys.argv = [{script!r}] + {args!r}; runpy.run_path({script!r}, run_name='__main__')")  # fmt: skip
            cmd = [sys.executable, "-c", code]
        else:
            cmd = [sys.executable, script, *args]
        env = {**__import__("os").environ, "PYTHONPATH": f"{HERE}:{ROOT}"}
        start = time.monotonic()
        try:
            p = subprocess.run(
                cmd, check=False, capture_output=True, text=True, timeout=left, cwd=ROOT, env=env
            )
            tail = (p.stdout.strip().splitlines() or [""])[-3:]
            err = p.stderr.strip().splitlines()[-1:] if p.returncode else []
            rows.append((argv[0], "ok" if p.returncode == 0 else f"exit {p.returncode}",
                         " / ".join(tail + err), time.monotonic() - start))  # fmt: skip
        except subprocess.TimeoutExpired:
            rows.append((argv[0], "timeout", "", time.monotonic() - start))
    return rows


# ---- 5. benchmarks -----------------------------------------------------------------------------------------
def _mlp(T, s):
    return T.nn.Sequential(T.nn.Linear(s, 4 * s), T.nn.GELU(), T.nn.Linear(4 * s, s))


def _cnn(T, c):
    nn = T.nn
    return nn.Sequential(
        nn.Conv2d(3, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(c, 2 * c, 3, padding=1), nn.BatchNorm2d(2 * c), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(2 * c * 8 * 8, 10),
    )  # fmt: skip


class _GPT:
    """A GPT-style stack (embedding, causal TransformerEncoder, head) built in library T."""

    def __init__(self, T, vocab, d, layers, seq):
        nn = T.nn
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.1, batch_first=True,
                                           norm_first=True)  # fmt: skip
        self.T, self.seq = T, seq
        self.mods = nn.ModuleDict({
            "tok": nn.Embedding(vocab, d), "blocks": nn.TransformerEncoder(layer, layers),
            "ln": nn.LayerNorm(d), "head": nn.Linear(d, vocab),
        })  # fmt: skip

    def __call__(self, x):
        m = self.mods
        mask = self.T.nn.Transformer.generate_square_subsequent_mask(self.seq, device=x.device)
        return m["head"](m["ln"](m["blocks"](m["tok"](x), mask=mask, is_causal=True)))


def _training_step(T, device, kind, size):
    """A closure running one training step of ``kind`` in library T on ``device``."""
    T.manual_seed(0)
    rng = np.random.default_rng(0)
    F = T.nn.functional
    if kind == "mlp":
        model = _mlp(T, size).to(device)
        x = T.tensor(rng.standard_normal((256, size)).astype(np.float32)).to(device)
        loss_of = lambda: F.mse_loss(model(x), x)
        params = model.parameters()
    elif kind == "cnn":
        model = _cnn(T, size).to(device)
        x = T.tensor(rng.standard_normal((64, 3, 32, 32)).astype(np.float32)).to(device)
        y = T.tensor(rng.integers(0, 10, 64)).to(device)
        loss_of = lambda: F.cross_entropy(model(x), y)
        params = model.parameters()
    else:
        vocab, d, layers, seq, batch = size
        model = _GPT(T, vocab, d, layers, seq)
        model.mods.to(device)
        x = T.tensor(rng.integers(0, vocab, (batch, seq))).to(device)
        y = T.tensor(rng.integers(0, vocab, (batch, seq))).to(device)
        loss_of = lambda: F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))
        params = model.mods.parameters()
    opt = T.optim.AdamW(list(params), lr=1e-3)

    def step():
        opt.zero_grad()
        loss = loss_of()
        loss.backward()
        opt.step()

    return step


def _elementwise(T, device, n, kind):
    x = T.rand(n, device=device)
    y = T.rand(n, device=device)
    if kind == "add_mul":
        return lambda: (x * y + x) * 0.5
    return lambda: T.nn.functional.gelu(x)


def _matmul(T, device, n):
    a = T.rand(n, n, device=device)
    b = T.rand(n, n, device=device)
    return lambda: a @ b


def _time(T, device, fn, repeats, deadline) -> float:
    """The median seconds of ``fn`` (after two warm-up calls), each bracketed by a sync."""
    for _ in range(2):
        fn()
    _sync(T, device)
    times = []
    for _ in range(repeats):
        if time.monotonic() > deadline and times:
            break
        start = time.perf_counter()
        fn()
        _sync(T, device)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def benchmark_section(tm, th, tm_dev, th_dev, dry: bool, deadline) -> list:
    # gpt: (vocab, width, layers, sequence, batch)
    sizes = {"mlp": 16, "cnn": 4, "gpt": (64, 32, 1, 16, 4), "matmul": 64, "elem": 10_000} if dry \
        else {"mlp": 1024, "cnn": 32, "gpt": (512, 256, 4, 128, 16), "matmul": 4096, "elem": 2**26}  # fmt: skip
    repeats = 2 if dry else 20
    cases = [
        ("MLP training step (AdamW)", lambda T, d: _training_step(T, d, "mlp", sizes["mlp"])),
        ("CNN training step (AdamW)", lambda T, d: _training_step(T, d, "cnn", sizes["cnn"])),
        ("GPT-style training step (AdamW)", lambda T, d: _training_step(T, d, "gpt", sizes["gpt"])),
        (f"matmul {sizes['matmul']}^2 float32", lambda T, d: _matmul(T, d, sizes["matmul"])),
        (f"(x*y+x)*0.5 on {sizes['elem']} floats", lambda T, d: _elementwise(T, d, sizes["elem"], "add_mul")),
        (f"gelu on {sizes['elem']} floats", lambda T, d: _elementwise(T, d, sizes["elem"], "gelu")),
    ]  # fmt: skip
    rows = []
    for name, make in cases:
        if time.monotonic() > deadline:
            rows.append((name, None, None, None, "time budget spent"))
            continue
        try:
            t_th = _time(th, th_dev, make(th, th_dev), repeats, deadline)
            tm.cuda.reset_peak_memory_stats()
            t_tm = _time(tm, tm_dev, make(tm, tm_dev), repeats, deadline)
            peak = tm.cuda.max_memory_allocated() / 2**20
            rows.append((name, t_tm, t_th, peak, ""))
        except Exception as e:  # noqa: BLE001
            rows.append(
                (name, None, None, None, f"{type(e).__name__}: {str(e)[:200]} ({_where(e)})")
            )
    return rows


# ---- 6. host-time profile --------------------------------------------------------------------------------
def profile_section(tm, tm_dev, dry: bool) -> str:
    """Per training step: its time with and without the final synchronisation (equal when the
    host is the bottleneck), then cProfile's top functions by own time over a few steps."""
    import cProfile
    import io
    import pstats

    sizes = {"mlp": 16, "cnn": 4, "gpt": (64, 32, 1, 16, 4)} if dry \
        else {"mlp": 1024, "cnn": 32, "gpt": (512, 256, 4, 128, 16)}  # fmt: skip
    parts = []
    for kind in ("mlp", "cnn", "gpt"):
        step = _training_step(tm, tm_dev, kind, sizes[kind])
        for _ in range(3):
            step()
        _sync(tm, tm_dev)
        start = time.perf_counter()
        for _ in range(5):
            step()
        launched = time.perf_counter() - start
        _sync(tm, tm_dev)
        total = time.perf_counter() - start
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(3):
            step()
        _sync(tm, tm_dev)
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(15)
        table = buf.getvalue().split("ncalls", 1)[-1]
        parts.append(f"== {kind}: {total / 5 * 1e3:.2f} ms/step, {launched / 5 * 1e3:.2f} before "
                     f"the final sync; 3 steps profiled\n   ncalls{table}")  # fmt: skip
    return "".join(parts)


# ---- the report ------------------------------------------------------------------------------------------
def _section(title: str, run, report: list) -> object:
    report.append(f"\n## {title}\n")
    start = time.monotonic()
    try:
        result = run()
    except Exception:  # noqa: BLE001 - one broken section must not lose the others
        report.append("```\n" + traceback.format_exc()[-3000:] + "```\n")
        return None
    report.append(f"_{time.monotonic() - start:.1f} s_\n")
    return result


def _verdicts_section(title: str, names: tuple[str, str], run, report: list) -> None:
    """A section whose result counts verdicts (``names``: its count's key, its rows' heading)
    and lists the problems in a table."""
    res = _section(title, run, report)
    if res:
        many, one = names
        report.append(
            f"{res[many]} {many}: {res['counts']}\n\n| {one} | verdict | detail |\n|---|---|---|\n"
        )
        report.append(_problems(res["problems"]))


def _problems(rows) -> str:
    return "".join(f"| {a} | {b} | {str(c).replace('|', '/')} |\n" for a, b, c in rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="gpu_results.md", help="the results file (Markdown)")
    ap.add_argument("--budget", type=float, default=480.0, help="seconds for the whole run")
    ap.add_argument("--dry-run", action="store_true", help="the CuPy double and PyTorch CPU")
    ap.add_argument("--limit", type=int, default=0, help="at most this many opdb/nn entries")
    ap.add_argument(
        "--entries", default="", help="only these op database entries (comma-separated)"
    )
    ap.add_argument(
        "--profile", action="store_true", help="a cProfile of the training steps (section 6)"
    )
    args = ap.parse_args(argv)
    dry = args.dry_run
    limit = args.limit or (12 if dry else 0)
    budget = Budget(args.budget)
    tm, th, tm_dev, th_dev = setup(dry)
    out = Path(args.out)
    report = [f"# taimatsu on CUDA vs PyTorch{' (DRY RUN: timings mean nothing)' if dry else ''}\n"]
    env = _section("1. Environment", lambda: environment(tm, th, dry), report)
    report.append("```\n" + json.dumps(env, indent=1, default=str) + "\n```\n")

    _verdicts_section("2. Op database on cuda vs PyTorch", ("entries", "entry"),
                      lambda: opdb_section(tm, th, tm_dev, th_dev, budget.share(0.4), limit,
                                          set(filter(None, args.entries.split(",")))), report)  # fmt: skip
    _verdicts_section("3. nn table on cuda vs PyTorch (eval mode)", ("cases", "case"),
                      lambda: nn_section(tm, th, tm_dev, th_dev, budget.share(0.3), limit), report)  # fmt: skip
    tmp = out.parent / (out.stem + "_runs")
    rows = _section("4. Examples with --device cuda",
                    lambda: examples_section(dry, budget.share(0.5), tmp), report)  # fmt: skip
    if rows:
        report.append("| example | status | last lines | s |\n|---|---|---|---|\n")
        report.extend(f"| {a} | {b} | {c.replace('|', '/')} | {d:.1f} |\n" for a, b, c, d in rows)
    rows = _section("5. Benchmarks: taimatsu / PyTorch eager (median)",
                    lambda: benchmark_section(tm, th, tm_dev, th_dev, dry, budget.share(0.95)), report)  # fmt: skip
    if rows:
        report.append("| workload | taimatsu ms | PyTorch ms | ratio | taimatsu peak MiB | note |\n"
                      "|---|---|---|---|---|---|\n")  # fmt: skip
        for name, a, b, peak, note in rows:
            cells = (f"{a * 1e3:.3f} | {b * 1e3:.3f} | {a / b:.2f}x | {peak:.0f}" if a is not None
                     else " | | | ")  # fmt: skip
            report.append(f"| {name} | {cells} | {note} |\n")
    if args.profile:
        text = _section("6. Where taimatsu's training steps spend host time (cProfile)",
                        lambda: profile_section(tm, tm_dev, dry), report)  # fmt: skip
        if text:
            report.append("```\n" + text + "```\n")
    report.append(
        f"\n_total {args.budget - budget.left():.0f} s of a {args.budget:.0f} s budget_\n"
    )
    out.write_text("".join(report))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
