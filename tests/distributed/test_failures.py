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


def test_abort_waits_until_the_launcher_has_read_the_traceback():
    """Before ``MPI_Abort`` the rank waits until its stderr pipe is drained (bounded), so a busy
    launcher does not lose the traceback; a stream that is not a pipe is not waited on."""
    import io
    import os
    import threading

    from taimatsu.distributed.process_group import _wait_until_read

    r, w = os.pipe()
    with os.fdopen(r, "rb") as reader, os.fdopen(w, "w") as writer:
        writer.write("Traceback ...\n")
        writer.flush()
        taken = []
        later = threading.Timer(0.2, lambda: taken.append(reader.read1(100)))
        later.start()
        start = time.monotonic()
        _wait_until_read(writer, limit=10)
        assert 0.15 < time.monotonic() - start < 5
        later.join()
        assert taken == [b"Traceback ...\n"]
        writer.write("unread")
        writer.flush()
        start = time.monotonic()
        _wait_until_read(writer, limit=0.1)  # nobody reads: the wait is bounded
        assert time.monotonic() - start < 2
    start = time.monotonic()
    _wait_until_read(io.StringIO())
    assert time.monotonic() - start < 0.1
