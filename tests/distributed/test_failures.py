"""A failing rank ends the whole run quickly instead of leaving the others waiting.

(Mismatched collectives and timeouts: test_collectives.py, programs/mismatch_program.py.)
"""

from __future__ import annotations

import sys
import time

import pytest
from launch import HERE, launch_raw, mpiexec, require_mpi


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
