"""The DataLoader iterator that loads in worker processes (``num_workers > 0``).

Layout, as in PyTorch: one index queue per worker and one shared result queue. Batch indices
from the sampler go round-robin to the active workers, each tagged with a task number; at most
``prefetch_factor * num_workers`` tasks are outstanding. Results come back in any order and are
held until their turn, so batches arrive in sampler order (``in_order=True``), or are handed out
as they arrive (``in_order=False``).

Batches travel through shared memory, as in PyTorch: a worker collates tensors straight into
shared memory (``_utils.collate``), and the result queue's pickler (``ForkingPickler``, taught by
``taimatsu.multiprocessing``) sends a descriptor of that memory rather than its bytes; the main
process maps it. A worker stays alive until the main process has received all it sent, so the
descriptors it hands out can always be fetched.

Nothing waits forever on a live worker's silence without looking: every wait on the result
queue is a loop of bounded waits that checks whether the workers are still alive (and a SIGCHLD
handler interrupts the wait as soon as one dies); ``timeout > 0`` bounds the whole wait.

Workers are shut down when the epoch ends (unless ``persistent_workers``), when the iterator is
garbage-collected, when the interpreter exits (they are daemonic), and if starting them fails.
"""

from __future__ import annotations

import itertools
import multiprocessing as python_multiprocessing
import os
import queue
import time

from . import _utils
from ._utils import signal_handling
from ._utils.worker import (
    ExceptionWrapper,
    _IterableDatasetStopIteration,
    _ResumeIteration,
    _worker_loop,
    _WorkerResultQueue,
)
from .dataloader import _BaseDataLoaderIter

# Each running iterator's queues and processes, kept reachable until its workers are shut down.
# An iterator caught in a reference cycle (say, by the traceback of an exception it raised) is
# collected by the cyclic GC, which runs the queues' own weakref finalizers -- stopping their
# feeder threads -- before the iterator's ``__del__``; the None that tells a worker to exit would
# then never be sent, and each worker would only go after a join timeout. (PyTorch stalls there.)
_running: dict[int, tuple] = {}


def _death_report(error: BaseException, failed: list) -> BaseException:
    """The cause to chain to "exited unexpectedly": the SIGCHLD handler's report when it is what
    interrupted the wait. The handler can miss the death: the signal may reach another thread, so
    the wait only ends at its timeout, and ``is_alive()`` can reap the worker before the handler
    looks at it. The report is then made from the worker's exit code, which says the same."""
    if isinstance(error, RuntimeError) and str(error).startswith("DataLoader worker (pid "):
        return error
    for process in failed:
        report = signal_handling.exit_report(process.pid, process.exitcode)
        if report is not None:
            return RuntimeError(report)
    return error


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Iterates a DataLoader whose batches are produced by ``num_workers`` worker processes."""

    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        context = loader.multiprocessing_context or python_multiprocessing.get_context()
        self._worker_init_fn = loader.worker_init_fn
        self._owner_pid = os.getpid()
        self._worker_pids_set = False
        self._workers = []
        self._index_queues = []
        self._workers_status = []
        self._worker_result_queue = _WorkerResultQueue(ctx=context)
        self._workers_done_event = context.Event()
        self._shutdown = False  # from here on, __del__ shuts down whatever was started
        _running[id(self)] = (self._workers, self._index_queues, self._worker_result_queue)
        try:
            for worker_id in range(self._num_workers):
                index_queue = context.Queue()
                # Our puts must never block interpreter exit if a worker is gone.
                index_queue.cancel_join_thread()
                process = context.Process(
                    target=_worker_loop,
                    args=(
                        self._dataset_kind, self._dataset, index_queue, self._worker_result_queue,
                        self._workers_done_event, self._auto_collation, self._collate_fn, self._drop_last,
                        self._base_seed, self._worker_init_fn, worker_id, self._num_workers,
                        self._persistent_workers,
                    ),
                )  # fmt: skip
                process.daemon = True
                process.start()
                self._index_queues.append(index_queue)
                self._workers.append(process)
                self._workers_status.append(True)
        except BaseException:
            self._shutdown_workers()
            raise
        self._data_queue = self._worker_result_queue
        signal_handling._set_worker_pids(id(self), tuple(w.pid for w in self._workers))
        signal_handling._set_SIGCHLD_handler()
        self._worker_pids_set = True
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0  # number of the next task to send
        self._rcvd_idx = 0  # number of the next task to return
        # task number -> (worker id,) while outstanding, (worker id, data) once arrived early
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # Persistent workers: restart each worker's fetcher and wait until all have done so.
            for index_queue in self._index_queues:
                index_queue.put(_ResumeIteration())
            remaining = self._num_workers
            while remaining > 0:
                idx, _ = self._get_data()
                if isinstance(idx, _ResumeIteration):
                    remaining -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout: float | None = None):
        """One bounded wait on the result queue: (True, item), or (False, None) on a quiet queue
        with every worker alive. A dead worker raises PyTorch's RuntimeError."""
        if timeout is None:
            timeout = _utils.MP_STATUS_CHECK_INTERVAL
        try:
            return True, self._data_queue.get(timeout=timeout)
        except Exception as error:
            failed = self._dead_workers()
            if not failed and isinstance(error, (OSError, EOFError)):
                # A batch's connection broke (ConnectionResetError): its worker is dying but may
                # not be reaped yet; give it a moment so the report names it, as PyTorch's does
                deadline = time.monotonic() + 2.0
                while not failed and time.monotonic() < deadline:
                    time.sleep(0.02)
                    failed = self._dead_workers()
            if failed:
                pids = ", ".join(str(process.pid) for process in failed)
                raise RuntimeError(
                    f"DataLoader worker (pid(s) {pids}) exited unexpectedly"
                ) from _death_report(error, failed)
            if isinstance(error, queue.Empty):
                return False, None
            raise

    def _dead_workers(self) -> list:
        """The workers still counted as running whose process has ended (marked unavailable)."""
        failed = []
        for worker_id, process in enumerate(self._workers):
            if self._workers_status[worker_id] and not process.is_alive():
                failed.append(process)
                self._mark_worker_as_unavailable(worker_id)
        return failed

    def _get_data(self):
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if success:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            success, data = self._try_get_data()
            if success:
                return data

    def _next_data(self):
        while True:
            # Skip tasks that can no longer arrive (their worker has stopped) ...
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                # ... and when none is left, the epoch is over.
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            if len(self._task_info[self._rcvd_idx]) == 2:  # it arrived earlier
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._dataset_kind == "iterable" and isinstance(data, _IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)  # hold it until its turn
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self) -> None:
        max_tasks = self._prefetch_factor * self._num_workers
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next active worker, if any
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id]:
                if self._in_order:
                    break
                if self._workers_num_tasks[worker_id] < max_tasks // sum(self._workers_status):
                    break
        else:
            return
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._workers_num_tasks[worker_id] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_id):
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id: int, shutdown: bool = False) -> None:
        # A None on its index queue tells the worker to exit once it has drained the queue.
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self) -> None:
        if _utils is None or _utils.python_exit_status is not False:
            return  # interpreter exit: multiprocessing terminates the daemonic workers itself
        if self.__dict__.get("_shutdown", True) or self._owner_pid != os.getpid():
            return  # never started, already shut down, or a copy inherited by a forked process
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            for process in self._workers:
                process.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            for index_queue in self._index_queues:
                index_queue.cancel_join_thread()
                index_queue.close()
        finally:
            if self._worker_pids_set:
                signal_handling._remove_worker_pids(id(self))
                self._worker_pids_set = False
            for process in self._workers:
                if process.is_alive():
                    process.terminate()
                    process.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            _running.pop(id(self), None)

    def __del__(self) -> None:
        self._shutdown_workers()
