"""Turning a dead worker into an error in the main process.

Each multi-process iterator registers its workers' pids here. The first one also installs a
SIGCHLD handler (main thread only; chained to any handler already installed): when a child
changes state, every registered worker is inspected without reaping it (``waitid`` with
``WNOWAIT``, so ``multiprocessing`` can still join it), and a worker that was killed by a signal
or exited with a non-zero status raises PyTorch's RuntimeError in the main thread, wherever it is
waiting. The iterator's own liveness checks then report which workers exited.
"""

from __future__ import annotations

import os
import signal
import threading

_worker_pids: dict[int, tuple[int, ...]] = {}
_SIGCHLD_handler_set = False


def _set_worker_pids(key: int, pids) -> None:
    if key in _worker_pids:
        raise RuntimeError(
            "_set_worker_pids should be called only once for each _BaseDataLoaderIter."
        )
    _worker_pids[key] = tuple(pids)


def _remove_worker_pids(key: int) -> None:
    if _worker_pids.pop(key, None) is None:
        raise RuntimeError(
            "Cannot find worker information for _BaseDataLoaderIter with id " + str(key)
        )


def _failure_message(pid: int, info) -> str | None:
    """PyTorch's report for a child whose waitid() status is `info`, or None if it exited cleanly."""
    if info.si_code == os.CLD_EXITED:
        return exit_report(pid, info.si_status)
    if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
        return exit_report(pid, -info.si_status)
    return None


def exit_report(pid: int, exitcode: int | None) -> str | None:
    """PyTorch's report for a worker with ``Process.exitcode`` `exitcode` (minus the signal number
    when a signal killed it), or None when it exited cleanly or has not exited."""
    if not exitcode:
        return None
    if exitcode > 0:
        return (
            f"DataLoader worker (pid {pid}) exited unexpectedly with exit code {exitcode}. Details are lost "
            "due to multiprocessing. Rerunning with num_workers=0 may give better error trace."
        )
    message = f"DataLoader worker (pid {pid}) is killed by signal: {signal.strsignal(-exitcode)}. "
    if -exitcode == signal.SIGBUS:
        message += (
            "It is possible that dataloader's workers are out of shared memory. Please try to raise your "
            "shared memory limit."
        )
    return message


def _error_if_any_worker_fails() -> None:
    """Raise RuntimeError if a registered worker has died abnormally (its pids are then dropped)."""
    if not hasattr(os, "waitid"):
        return
    for key, pids in list(_worker_pids.items()):
        for pid in pids:
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:  # already reaped, or not our child (e.g. inside a worker)
                continue
            if info is None:
                continue
            message = _failure_message(pid, info)
            if message is not None:
                # Forget this loader's workers, so their shutdown does not raise a second time.
                _worker_pids[key] = ()
                raise RuntimeError(message)


def _set_SIGCHLD_handler() -> None:
    global _SIGCHLD_handler_set
    if _SIGCHLD_handler_set or not hasattr(signal, "SIGCHLD"):
        return
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGCHLD)
    if not callable(previous):
        previous = None

    def handler(signum, frame) -> None:
        _error_if_any_worker_fails()
        if previous is not None:
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _SIGCHLD_handler_set = True
