"""What runs inside a DataLoader worker process (``torch.utils.data._utils.worker``).

A worker seeds its random streams from the loader's base seed, records its ``WorkerInfo``,
runs ``worker_init_fn``, then serves ``(task index, sampler index)`` pairs from its own index
queue until it receives None, putting ``(task index, batch)`` on the shared result queue. A
failure is sent back as an ``ExceptionWrapper`` holding the formatted traceback; the end of an
iterable dataset as ``_IterableDatasetStopIteration``.
"""

from __future__ import annotations

import multiprocessing.queues
import os
import queue
import random
import signal
import sys
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import MP_STATUS_CHECK_INTERVAL
from .fetch import create_fetcher


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """Information about the current DataLoader worker process."""

    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str | None = "multiprocessing"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The current worker's ``WorkerInfo``; None in the main process."""
    return _worker_info


class _KeyErrorMessage(str):
    """A KeyError's message shown as is (KeyError's str would otherwise quote it)."""

    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process with its formatted traceback."""

    def __init__(self, exc_info=None, where: str = "in background") -> None:
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            # Exception types whose constructor takes ``message=`` as a keyword.
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # noqa: BLE001
            # The type needs other constructor arguments: fall back to RuntimeError.
            raise RuntimeError(msg) from None
        raise exception


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """Sent when a worker's copy of an iterable dataset is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers at the start of a new epoch; echoed back once they have reset."""

    seed: int | None = None


class _WorkerResultQueue(multiprocessing.queues.Queue):
    """The result queue. A worker's result is pickled by a background thread; if that fails
    (a batch or an exception type that cannot be pickled), the main process would wait forever
    for it. Here the failure is sent in its place, to be raised in the main process."""

    def _on_queue_feeder_error(self, e, obj) -> None:
        info = get_worker_info()
        if info is None or not (isinstance(obj, tuple) and len(obj) == 2):
            super()._on_queue_feeder_error(e, obj)
            return
        idx, data = obj
        where = f"in DataLoader worker process {info.id}"
        if isinstance(data, ExceptionWrapper):
            if data.exc_type is RuntimeError:
                super()._on_queue_feeder_error(e, obj)
                return
            # The exception's own type could not be pickled: send its text as a RuntimeError.
            wrapper = ExceptionWrapper((RuntimeError, RuntimeError(), None), where)
            wrapper.exc_msg = data.exc_msg
        else:
            wrapper = ExceptionWrapper((type(e), e, e.__traceback__), where)
        self.put((idx, wrapper))


def _generate_state(base_seed: int, worker_id: int) -> list[int]:
    """NumPy's legacy seed for a worker: four 32-bit words from a SeedSequence over
    ``[worker_id, low word of base_seed, high word of base_seed, 0]`` (PyTorch's recipe)."""
    entropy = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
    return np.random.SeedSequence(entropy).generate_state(4).tolist()


class _ManagerWatchdog:
    """Notices when the process that started this worker has gone away (we are then reparented)."""

    def __init__(self) -> None:
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self) -> bool:
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


def _exit_quietly(signum, frame) -> None:
    os._exit(0)


def _set_worker_signal_handlers() -> None:
    """SIGTERM (sent by the main process when it shuts a worker down, or by ``multiprocessing``
    at interpreter exit) ends the worker with status 0, so the main process's SIGCHLD check does
    not mistake a requested exit for a crash. The parent's SIGCHLD handler is not inherited."""
    from . import signal_handling

    signal_handling._worker_pids.clear()
    if hasattr(signal, "SIGCHLD"):
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, _exit_quietly)


def _worker_loop(
    dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn, drop_last,
    base_seed, init_fn, worker_id, num_workers, persistent_workers,
) -> None:  # fmt: skip
    import taimatsu

    global _worker_info
    try:
        _set_worker_signal_handlers()
        taimatsu.set_num_threads(1)
        seed = base_seed + worker_id
        random.seed(seed)
        taimatsu.manual_seed(seed)
        np.random.seed(_generate_state(base_seed, worker_id))
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

        where = f"in DataLoader worker process {worker_id}"
        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:  # noqa: BLE001 -- reported to the main process
            init_exception = ExceptionWrapper(where=where)

        iteration_end = False
        watchdog = _ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                fetcher = create_fetcher(
                    dataset_kind, dataset, auto_collation, collate_fn, drop_last
                )
                continue
            if r is None:  # the main process asks us to exit
                break
            if done_event.is_set() or iteration_end:
                continue  # drain the queue until the None arrives
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:  # noqa: BLE001 -- reported to the main process
                    if isinstance(e, StopIteration) and dataset_kind == "iterable":
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=where)
            data_queue.put((idx, data))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass  # the main process raises it
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
