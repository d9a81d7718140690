"""Run one program on N ranks, under PyTorch's gloo (the oracle) or under taimatsu with MPI.

Each rank writes its results to ``<out>/rank<r>.json``; the helpers return them in rank
order. Every run is bounded: the ranks start in their own session and the whole process
group is killed when the timeout passes, so no test leaves a process behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
# The DDP configurations programs/ddp_program.py trains, per world size.
DDP_CONFIGS = {
    2: ["default", "buckets", "view", "unused", "no_sync", "allreduce_hook", "fp16_hook"],
    3: ["default", "buckets"],
}
REPO = HERE.parent.parent


def mpiexec() -> str:
    """The mpiexec next to this Python (the pip ``mpich`` wheel's), else the one on PATH."""
    local = Path(sys.executable).parent / "mpiexec"
    return str(local) if local.exists() else (shutil.which("mpiexec") or "")


def require_mpi() -> None:
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install mpi4py mpich)")
    if not mpiexec():
        pytest.skip("no mpiexec (pip install mpich)")


def _mpich_segments() -> set:
    shm = Path("/dev/shm")
    return set(shm.glob("mpich_shm_*")) if shm.is_dir() else set()


def _run(cmds_env, timeout: float) -> list[subprocess.CompletedProcess]:
    segments = _mpich_segments()
    procs = [
        subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
        for cmd, env in cmds_env
    ]  # fmt: skip
    results = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=timeout)
            results.append(subprocess.CompletedProcess(p.args, p.returncode, out, err))
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        # MPICH unlinks its shared-memory segment at MPI_Finalize: a run that aborts (the
        # failure tests) leaves it in /dev/shm; every rank is gone now, so it can go
        for leftover in _mpich_segments() - segments:
            leftover.unlink(missing_ok=True)
    return results


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI_", "MPI_", "RANK", "WORLD_SIZE", "LOCAL_"))}  # fmt: skip
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(HERE / "programs")])
    env.update(extra)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _collect(out: Path, n: int, procs) -> list:
    failed = [p for p in procs if p.returncode != 0]
    if failed:
        raise AssertionError(f"rank program failed (rc={failed[0].returncode}):\n{failed[0].stderr[-3000:]}")  # fmt: skip
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(n)]


def run_taimatsu(program: str, n: int, out: Path, timeout: float = 180, args=()) -> list:
    """``mpiexec -n n python program`` with ``import taimatsu as torch``; per-rank results."""
    cmd = [mpiexec(), "-n", str(n), sys.executable, str(HERE / "programs" / program), str(out), *args]  # fmt: skip
    procs = _run([(cmd, _env(DIST_LIB="taimatsu"))], timeout)
    return _collect(out, n, procs)


def run_torch(program: str, n: int, out: Path, timeout: float = 180, args=()) -> list:
    """The same program on n PyTorch processes joined by gloo over env:// on localhost.

    The oracle's run is tried twice: PyTorch 2.13's gloo now and then fails a correct program
    here (an earlier op's expected error surfacing at a later ``barrier``, or "terminate called
    without an active exception" in its worker). taimatsu's runs are never retried."""
    for attempt in (1, 2):
        port = str(_free_port())
        cmds = [
            ([sys.executable, str(HERE / "programs" / program), str(out), *args],
             _env(DIST_LIB="torch", RANK=str(r), WORLD_SIZE=str(n), LOCAL_RANK=str(r),
                  MASTER_ADDR="127.0.0.1", MASTER_PORT=port))
            for r in range(n)
        ]  # fmt: skip
        procs = _run(cmds, timeout)
        if attempt == 2 or all(p.returncode == 0 for p in procs):
            return _collect(out, n, procs)


def launch_raw(cmd: list[str], timeout: float, **env) -> subprocess.CompletedProcess:
    """Run ``cmd`` (e.g. an mpiexec line) bounded by ``timeout``; raises TimeoutExpired."""
    return _run([(cmd, _env(**env))], timeout)[0]


def _group_members(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (zombies excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def run_self_started(lib: str, program: str, out: Path, args=(), timeout: float = 90) -> list:
    """Run ``programs/<program> OUT *args``, a program that starts its ranks itself
    (``mp.Process``), under ``lib``; bounded, and no process of it may be left behind.
    The ranks' results, in rank order (as many as it wrote)."""
    import time

    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(HERE / "programs" / program), str(out), *map(str, args)]
    proc = subprocess.Popen(cmd, env=_env(DIST_LIB=lib), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    try:
        _, err = proc.communicate(timeout=timeout)
        time.sleep(0.3)  # the resource tracker of multiprocessing leaves with its parent
        assert _group_members(proc.pid) == [], "processes left behind"
    finally:
        if proc.poll() is None or _group_members(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, err[-3000:]
    return [
        json.loads(f.read_text())
        for f in sorted(out.glob("rank*.json"), key=lambda f: int(f.stem[4:]))
    ]
