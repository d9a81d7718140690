"""A failing rank ends the whole run quickly; mismatched collectives and timeouts raise."""

from __future__ import annotations

import sys
import time

import pytest
from launch import HERE, launch_raw, mpiexec, require_mpi, run_taimatsu


@pytest.mark.parametrize("mode", ["raise", "exit"])
def test_a_failing_rank_fails_the_run_instead_of_hanging(mode, tmp_path):
    require_mpi()
    cmd = [
        mpiexec(),
        "-n",
        "2",
        sys.executable,
        str(HERE / "programs" / "failure_program.py"),
        str(tmp_path),
        mode,
    ]
    start = time.monotonic()
    done = launch_raw(cmd, timeout=90, DIST_LIB="taimatsu")
    assert done.returncode != 0
    assert time.monotonic() - start < 90
    assert "UNREACHABLE" not in done.stdout
    if mode == "raise":
        assert "ValueError: rank 1 fails on purpose" in done.stderr


def test_mismatched_shapes_and_timeouts_raise(tmp_path):
    require_mpi()
    ranks = run_taimatsu("failure_program.py", 2, tmp_path, args=["mismatch"])
    for rank, got in enumerate(ranks):
        assert got["all_reduce"]["error"] == "RuntimeError"
        assert "different shapes or dtypes" in got["all_reduce"]["message"]
        assert got["broadcast"]["error"] == "RuntimeError"
    assert ranks[0]["monitored_barrier"]["error"] == "RuntimeError"
    assert "timed out after 500ms" in ranks[0]["monitored_barrier"]["message"]
