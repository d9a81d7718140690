"""Smoke test: benchmarks/bench_core.py runs end to end (one iteration per workload).

No timing assertions: timings never go in unit tests (DESIGN.md section 5).
"""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks", "bench_core.py")


def _run(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, BENCH, "--quick", *args],
        check=False, capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout


def test_bench_core_quick_runs():
    # With PyTorch installed this runs both frameworks; without it, taimatsu alone.
    out = _run()
    for name in ("add_small", "graph50", "fma_4m", "matmul_1024", "mlp_step", "peak memory"):
        assert name in out, out


def test_bench_core_only_one_workload():
    out = _run("--no-torch", "--only", "a")
    assert "add_small" in out and "graph50" not in out


TRAINING = os.path.join(ROOT, "benchmarks", "bench_training.py")


def test_bench_training_quick_runs():
    # One step per workload, both thread settings (each in its own subprocess).
    proc = subprocess.run(
        [sys.executable, TRAINING, "--quick", "--only", "mlp", "--only", "lstm"],
        check=False, capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = proc.stdout
    assert "threads: default" in out and "threads: 1 " in out, out
    assert "mlp" in out and "lstm" in out and "gru" not in out, out
    assert "load average" in out and "default threads / 1 thread" in out, out
