"""``torch.distributed.Work``: the handle of a collective started with ``async_op=True``.

A Work holds MPI requests (or the TCP transport's, which poll alike) and a ``finish`` step (write results back into non-contiguous or
GPU tensors, divide for ``AVG``) that runs once, when the requests are complete. ``wait``
polls the requests against the group's timeout, so a peer that never arrives raises a
RuntimeError instead of hanging forever (MPI's own waits have no deadline).
"""

from __future__ import annotations

import datetime
import os
import time

from . import _mpi


class Work:
    """``wait()`` / ``is_completed()`` / ``result()`` / ``get_future()``, as PyTorch's Work."""

    def __init__(self, requests, finish=None, result=(), timeout: float = 1800.0, name: str = "collective"):  # fmt: skip
        self._requests = list(requests)
        self._finish = finish
        self._result = list(result)
        self._timeout = timeout
        self._name = name
        self._done = not self._requests and finish is None
        self._statuses = None  # MPI statuses of the requests, when someone needs them (recv)

    def _complete(self) -> None:
        self._requests = []
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()
        self._done = True

    def is_completed(self) -> bool:
        """True once the operation has finished (its results are then in the tensors)."""
        if not self._done and _testall(self._requests, self._statuses, self._name):
            self._complete()
        return self._done

    def wait(self, timeout: datetime.timedelta | None = None) -> bool:
        """Block until done; RuntimeError after ``timeout`` (default: the group's timeout)."""
        if self._done:
            return True
        limit = self._timeout if timeout is None else _seconds(timeout)
        _wait_all(self._requests, limit, self._name, self._statuses)
        self._complete()
        return True

    def result(self) -> list:
        return list(self._result)

    def get_future(self):
        """A ``torch.futures.Future`` completed with ``result()`` once the work is done."""
        from ..futures import Future

        return Future._from_work(self)

    def is_success(self) -> bool:
        return self.is_completed()

    def exception(self):
        return None


def _seconds(timeout) -> float:
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


def _testall(requests, statuses, name: str, block: float = 0.0) -> bool:
    """MPI_Testall; an MPI error (a truncated message...) becomes PyTorch's RuntimeError.

    With ``block`` > 0 (the TCP transport only), wait up to ``block`` seconds for completion.
    """
    MPI = _mpi.mpi()
    try:
        if block > 0:
            return MPI.wait_all(requests, statuses, block)
        return MPI.Request.Testall(requests, statuses)
    except MPI.Exception as e:
        # The TCP transport's errors say which of PyTorch's types they are (DistBackendError).
        kind = getattr(e, "torch_error", RuntimeError)
        raise kind(f"taimatsu.distributed: {name} failed: {e.Get_error_string()}") from None


def _timed_out(name: str, limit: float) -> RuntimeError:
    return RuntimeError(
        f"taimatsu.distributed: {name} timed out after {limit * 1000:.0f}ms waiting for "
        "the other ranks (a rank may have crashed or be stuck)"
    )


def _wait_all(requests, limit: float, name: str, statuses=None) -> None:
    """Drive MPI's progress until every request is done, or raise after ``limit`` seconds."""
    if not finished_within(requests, limit, name, statuses):
        raise _timed_out(name, limit)


def finished_within(requests, limit: float, name: str, statuses=None) -> bool:
    """Drive MPI's progress until every request is done (True) or ``limit`` seconds passed.

    Three phases: a short spin (fast collectives stay fast); then polls that yield the core
    between tests (a peer sharing this core gets to run: ranks often outnumber cores); after
    20 ms, polls that sleep up to 1 ms, so a rank waiting on a slow peer costs next to nothing.
    The TCP transport needs no polling: its threads signal completion, so the wait blocks.
    """
    if not requests:
        return True
    if hasattr(_mpi.mpi(), "wait_all"):
        return _testall(requests, statuses, name, block=max(limit, 1e-6))
    for _ in range(100):
        if _testall(requests, statuses, name):
            return True
    start = time.monotonic()
    while time.monotonic() - start < 0.02:
        if _testall(requests, statuses, name):
            return True
        os.sched_yield()
    pause = 1e-5
    while not _testall(requests, statuses, name):
        if time.monotonic() - start > limit:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 1e-3)
    return True
