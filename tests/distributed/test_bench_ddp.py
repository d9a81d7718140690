"""Smoke test: benchmarks/bench_ddp.py --quick runs end to end (no timing assertions)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from launch import REPO, require_mpi


@pytest.mark.slow
def test_bench_ddp_quick_runs():
    require_mpi()
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_ddp.py"), "--quick", "--no-torch"],
        check=False, capture_output=True, text=True, timeout=300, cwd=REPO,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "DDP step" in proc.stdout and "16 KB" in proc.stdout, proc.stdout
