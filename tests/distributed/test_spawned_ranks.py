"""Ranks started the tutorials' way (``mp.spawn``, ``mp.Process``) and joined over TCP.

No MPI launcher: ``init_process_group(rank=, world_size=)`` connects the ranks itself (env://,
tcp://, file://). The programs run under PyTorch's gloo (the oracle) and under taimatsu and
must agree; the failure cases (a missing rank, an unreachable master, a dead or silent peer)
must end within the group's timeout with PyTorch's error types, and leave no process, socket,
thread or /dev/shm file behind.
"""

from __future__ import annotations

import datetime
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from launch import HERE, _env, _group_members
from test_collectives import close

import taimatsu as tm

dist = tm.distributed


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch(cmd: list[str], lib: str) -> subprocess.CompletedProcess:
    """Run ``cmd`` in its own session, bounded; afterwards no process of it may be left."""
    proc = subprocess.Popen(cmd, env=_env(DIST_LIB=lib), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    try:
        out, err = proc.communicate(timeout=240)
        time.sleep(0.5)  # the resource tracker of multiprocessing leaves with its parent
        assert _group_members(proc.pid) == [], "processes left behind"
    finally:
        if proc.poll() is None or _group_members(proc.pid):
            os.killpg(proc.pid, 9)
            proc.wait()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _run_suite(lib: str, out: Path, launch: str, init: str, parts: str, n: int = 2) -> list:
    import json

    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(HERE / "programs" / "spawn_suite.py"), str(out), launch, init, parts, str(n)]  # fmt: skip
    done = _launch(cmd, lib)
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(n)]


def _compare(ours: list, theirs: list) -> int:
    compared = 0
    for rank in range(len(theirs)):
        for name, expected in theirs[rank].items():
            if name.startswith("TAIMATSU"):
                continue  # checked in test_collectives.py (gloo refuses or mis-handles these)
            got = ours[rank][name]
            if isinstance(expected, dict) and expected.get("message") == "Invalid scalar type":
                continue  # gloo cannot reduce int16 (test_collectives.py checks ours)
            assert close(got, expected, 1e-6), f"rank {rank}, {name}:\n ours {got}\n gloo {expected}"  # fmt: skip
            compared += 1
    return compared


@pytest.mark.slow  # PyTorch's spawned ranks take ~20 s to start and run here
@pytest.mark.parametrize("n", [2, 3])
def test_spawned_collectives_and_ddp_match_gloo(tmp_path, torch_oracle, n):
    parts = "collectives,ddp:default+buckets+no_sync+allreduce_hook"
    ours = _run_suite("taimatsu", tmp_path / "ours", "spawn", "env", parts + ",mismatch", n)
    theirs = _run_suite("torch", tmp_path / "theirs", "spawn", "env", parts, n)
    assert _compare(ours, theirs) > 150 * n
    for rank in range(n):
        # MPI never started: nothing of it (MPICH's /dev/shm segment) can be left behind
        assert ours[rank]["TAIMATSU mpi4py imported"] is False
        assert ours[rank]["after errors"]["values"] == [0.0, n, 2.0 * n]  # mismatches recovered


_GLOO_ABORT = "terminate called without an active exception"


@pytest.mark.slow
def test_ddp_tutorial_matches_pytorch(tmp_path, torch_oracle):
    """The tutorial's own code: mp.spawn, MASTER_ADDR/MASTER_PORT, ToyModel, a checkpoint saved
    on rank 0 and loaded everywhere with map_location; run twice in a row on one port."""
    logs = {}
    for lib in ("taimatsu", "torch"):
        out = tmp_path / lib
        for attempt in range(3 if lib == "torch" else 1):
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            cmd = [sys.executable, str(HERE / "programs" / "ddp_tutorial.py"), str(out), str(_free_port())]  # fmt: skip
            done = _launch(cmd, lib)
            if _GLOO_ABORT not in done.stderr:
                break
            # PyTorch's gloo aborts a rank at its teardown now and then (a C++ std::terminate,
            # SIGABRT, under a loaded machine; twice in a row on 2026-12-04): the oracle's
            # crash, not a result; run it again
        assert done.returncode == 0, done.stderr[-3000:]
        assert not (out / "model.checkpoint").exists()
        logs[lib] = [(out / f"rank{r}.txt").read_text().splitlines() for r in range(2)]
    for ours, theirs in zip(logs["taimatsu"], logs["torch"]):
        assert len(ours) == len(theirs) == 10
        for a, b in zip(ours, theirs):
            if re.search(r"(loss\d|params) ", b):
                name, *got = a.split()
                assert name == b.split()[0]
                assert close([float(x) for x in got[1:]], [float(x) for x in b.split()[2:]], 1e-5), (a, b)  # fmt: skip
            else:
                assert a == b


@pytest.mark.parametrize(
    ("launch", "init"),
    [("process", "tcp"), pytest.param("spawn", "file", marks=pytest.mark.slow)],
)
def test_ddp_over_tcp_equals_one_process(tmp_path, launch, init):
    """DDP on 2 ranks joined by tcp:// (mp.Process) or file:// (mp.spawn) trains exactly as
    one process on the whole batch; the rendezvous file is removed."""
    ours = _run_suite("taimatsu", tmp_path, launch, init, "ddp:default")
    for rank in range(2):
        assert ours[rank]["rank_size_backend"] == [rank, 2, "gloo", True]
        assert close(ours[rank]["default params"], ours[0]["default ref params"], 1e-5)
        assert ours[rank]["initialized after destroy"] is False
        assert ours[rank]["TAIMATSU mpi4py imported"] is False
    assert not (tmp_path / "rendezvous").exists()


# ---- failures, in this process: bounded, PyTorch's errors, nothing left behind ------------------


def _fds() -> set:
    return set(os.listdir("/proc/self/fd"))


def _tcp_threads() -> list:
    return [t for t in threading.enumerate() if t.name.startswith("taimatsu-tcp")]


def _init_error(lib, **kwargs):
    start = time.monotonic()
    with pytest.raises(RuntimeError) as info:
        lib.distributed.init_process_group("gloo", timeout=datetime.timedelta(seconds=1), **kwargs)
    return info.value, time.monotonic() - start


def test_missing_rank_and_unreachable_master_raise_pytorchs_errors(torch_oracle):
    fds = _fds()
    url = f"tcp://127.0.0.1:{_free_port()}"
    missing, took = _init_error(tm, init_method=url, rank=0, world_size=2)
    assert took < 4
    unreachable, took = _init_error(tm, init_method=url, rank=1, world_size=2)  # nobody listens
    assert took < 4
    assert not dist.is_initialized()
    assert _fds() == fds and not _tcp_threads()  # every socket closed again
    assert isinstance(missing, dist.DistStoreError) and isinstance(missing, dist.DistError)
    assert isinstance(unreachable, dist.DistNetworkError)

    theirs, _ = _init_error(torch_oracle, init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=2)  # fmt: skip
    assert (type(missing).__name__, str(missing)) == (type(theirs).__name__, str(theirs))
    theirs, _ = _init_error(torch_oracle, init_method=url, rank=1, world_size=2)
    assert (type(unreachable).__name__, str(unreachable)) == (type(theirs).__name__, str(theirs))


def test_init_method_errors_match(torch_oracle, tmp_path):
    path = f"file://{tmp_path}/rendezvous"
    for kwargs in (
        {"init_method": "tcp://127.0.0.1:29500", "world_size": 2},
        {"init_method": "tcp://127.0.0.1:29500", "rank": 0},
        {"init_method": "tcp://127.0.0.1", "rank": 0, "world_size": 2},
        {"init_method": path, "world_size": 2},
        {"init_method": path, "rank": 0},
        {"init_method": "file://", "rank": 0, "world_size": 2},
        {"init_method": "foo://x", "rank": 0, "world_size": 2},
    ):
        with pytest.raises((ValueError, RuntimeError)) as theirs:
            torch_oracle.distributed.init_process_group("gloo", **kwargs)
        with pytest.raises((ValueError, RuntimeError)) as ours:
            dist.init_process_group("gloo", **kwargs)
        assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))
    assert not dist.is_initialized()


def _peer(mode: str, url: str) -> subprocess.Popen:
    cmd = [sys.executable, str(HERE / "programs" / "tcp_peer.py"), mode, url]
    return subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def _join(peer: subprocess.Popen) -> tuple[int, str, str]:
    try:
        out, err = peer.communicate(timeout=60)
    finally:
        if peer.poll() is None:
            peer.kill()
            peer.wait()
    return peer.returncode, out, err


def _stranger(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"GET / HTTP/1.0\r\n\r\n")  # a length prefix of ~1.2 GB: not ours
                s.settimeout(30)
                s.recv(1)  # like an HTTP client, wait for the answer: rank 0 must hang up
                return
        except OSError:
            time.sleep(0.05)


def test_dead_or_late_peer_fails_in_time_and_the_group_can_start_again():
    """A peer that dies makes the pending collective raise DistBackendError at once; a wait on
    a late peer ends at its timeout and the group still works afterwards; a second
    init_process_group after destroy_process_group works, and nothing is left behind."""
    from taimatsu.distributed import _mpi

    fds = _fds()
    mpi = _mpi._MPI
    timeout = datetime.timedelta(seconds=20)
    for mode in ("exit", "late"):
        port = _free_port()
        url = f"tcp://127.0.0.1:{port}"
        if mode == "late":  # a stranger on the master's port is turned away, not taken for a rank
            threading.Thread(target=_stranger, args=(port,), daemon=True).start()
        peer = _peer(mode, url)
        try:
            begin = time.monotonic()
            dist.init_process_group("gloo", init_method=url, rank=0, world_size=2, timeout=timeout)
            assert time.monotonic() - begin < 15  # the stranger did not hold up the rendezvous
            t = tm.ones(3)
            start = time.monotonic()
            if mode == "exit":  # the peer's connection ends: an error long before the timeout
                with pytest.raises(dist.DistBackendError, match="Connection closed by peer"):
                    dist.all_reduce(t)
                assert time.monotonic() - start < 10
            else:  # the peer sleeps 2 s before its barrier: the wait gives up after 0.5 s
                work = dist.barrier(async_op=True)
                with pytest.raises(RuntimeError, match="barrier timed out after 500ms"):
                    work.wait(datetime.timedelta(seconds=0.5))
                assert time.monotonic() - start < 1.9
                dist.all_reduce(t)  # meets the peer once it is awake
                assert t.tolist() == [2.0, 2.0, 2.0]
        finally:
            if dist.is_initialized():
                dist.destroy_process_group()
            code, out, err = _join(peer)
        assert code == {"exit": 3, "late": 0}[mode], err
        if mode == "late":
            assert out.strip() == "[2.0, 2.0, 2.0]"
    assert not dist.is_initialized()
    assert _mpi._MPI is mpi  # the TCP worlds never started MPI (no /dev/shm segment)
    assert _fds() == fds
    assert not _tcp_threads()


def test_one_rank_without_mpi4py_runs_on_tcp(monkeypatch):
    """Without mpi4py (taimatsu's base install) a world of one still works: it runs on TCP."""
    from taimatsu.distributed import _mpi, _tcp

    monkeypatch.setattr(_mpi, "available", lambda: False)
    fds = _fds()
    url = f"tcp://127.0.0.1:{_free_port()}"
    dist.init_process_group("gloo", init_method=url, rank=0, world_size=1)
    try:
        assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "gloo")
        t = tm.arange(3.0)
        dist.all_reduce(t)
        dist.broadcast(t, src=0)
        objects = [None]
        dist.all_gather_object(objects, {"a": 1})
        assert t.tolist() == [0.0, 1.0, 2.0] and objects == [{"a": 1}]
        assert _mpi.mpi() is _tcp  # the TCP transport, not MPI
    finally:
        dist.destroy_process_group()
    assert _fds() == fds and not _tcp_threads()


def test_a_silent_stranger_does_not_hold_up_the_rendezvous(monkeypatch):
    """A connection to the master's port that never says who it is is dropped after a short
    wait; the real ranks (two threads calling the rendezvous directly) still meet quickly."""
    from taimatsu.distributed import rendezvous

    monkeypatch.setattr(rendezvous, "_HELLO_WAIT", 0.5)
    fds = _fds()
    port = _free_port()
    url = f"tcp://127.0.0.1:{port}"
    worlds, errors, connected = {}, [], threading.Event()

    def rank(r):
        try:
            worlds[r] = rendezvous.join(url, r, 2, 20.0)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def silent():
        for _ in range(400):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                    connected.set()
                    s.settimeout(30)
                    s.recv(1)  # until rank 0 hangs up
                    return
            except OSError:
                time.sleep(0.05)

    start = time.monotonic()
    threads = [threading.Thread(target=rank, args=(0,)), threading.Thread(target=silent)]
    for t in threads:
        t.start()
    assert connected.wait(20)
    threads.append(threading.Thread(target=rank, args=(1,)))
    threads[-1].start()
    for t in threads:
        t.join(40)
    assert not errors and sorted(worlds) == [0, 1]
    assert time.monotonic() - start < 10
    for w in worlds.values():
        w.close(linger=0.1)
    assert _fds() == fds and not _tcp_threads()
