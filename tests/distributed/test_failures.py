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


@pytest.mark.slow  # a fresh interpreter starting MPI (~2 s)
def test_a_refused_world_finalizes_mpi(tmp_path):
    """init_process_group(rank=, world_size=) in a process MPI did not start raises ValueError
    and finalizes MPI first: a multiprocessing child exits through os._exit (no exit-time
    MPI_Finalize), which left MPICH's segment in /dev/shm."""
    import subprocess

    require_mpi()
    script = (
        "import taimatsu.distributed as dist\n"
        "from taimatsu.distributed import _mpi\n"
        "try:\n"
        "    dist.init_process_group('gloo', init_method='tcp://127.0.0.1:29677', rank=1, world_size=2)\n"
        "except ValueError as e:\n"
        "    print('ValueError', 'world_size=2' in str(e), _mpi.mpi().Is_finalized(), dist.is_initialized())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.split() == ["ValueError", "True", "True", "False"], done.stderr
