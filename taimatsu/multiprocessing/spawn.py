"""``torch.multiprocessing.spawn``: run ``fn(i, *args)`` in ``nprocs`` processes and join them.

As PyTorch's: a process whose ``fn`` raises writes its traceback to a per-process error file and
exits with code 1; ``ProcessContext.join`` waits for any process to end, and on the first
failure terminates the others (SIGTERM, then SIGKILL after the grace period) and raises
``ProcessRaisedException`` (with the child's traceback) or ``ProcessExitedException`` (exit code or
signal). Error files live in one temporary folder per context, removed once every process is
joined.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import shutil
import signal
import sys
import tempfile
import traceback
import warnings


class ProcessException(Exception):
    """A spawned process failed: ``error_index`` is its rank, ``error_pid`` its process id."""

    def __init__(self, msg: str, error_index: int, error_pid: int) -> None:
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):  # picklable with its fields (a plain Exception keeps only args)
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """Exception raised when a process failed due to an exception raised by the code."""


class ProcessExitedException(ProcessException):
    """Exception raised when a process failed due to signal or exited with a specific code."""

    def __init__(
        self,
        msg: str,
        error_index: int,
        error_pid: int,
        exit_code: int,
        signal_name: str | None = None,
    ) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        args = (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)
        return type(self), args


def _wrap(fn, i: int, args: tuple, error_file: str) -> None:
    """The body of each spawned process."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # SIGINT: the parent is shutting us down and reports the exit itself
    except Exception:  # noqa: BLE001 - any error of fn is reported to the parent, as PyTorch does
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes started by ``start_processes``; ``join()`` until it returns True."""

    def __init__(self, processes: list, error_files: list) -> None:
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}
        self._error_dir = os.path.dirname(error_files[0]) if error_files else None

    def pids(self) -> list:
        return [int(process.pid) for process in self.processes]

    def _join_procs_with_timeout(self, timeout: float) -> None:
        multiprocessing.connection.wait([p.sentinel for p in self.processes], timeout=timeout)
        for process in self.processes:
            if not process.is_alive():
                process.join()

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait for the processes; True once all have exited successfully, False on a timeout
        with some still running. The first failure ends the others and raises."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            if not self.sentinels:
                self._remove_error_files()
            return not self.sentinels
        self._stop_all(grace_period)
        try:
            raise self._failure(error_index)
        finally:
            self._remove_error_files()

    def _stop_all(self, grace_period: float | None) -> None:
        if grace_period is not None:
            self._join_procs_with_timeout(grace_period)
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        self._join_procs_with_timeout(30 if grace_period is None else grace_period)
        for process in self.processes:
            if process.is_alive():
                process.kill()
            process.join()
        self.sentinels.clear()

    def _failure(self, index: int) -> ProcessException:
        process = self.processes[index]
        if not os.access(self.error_files[index], os.R_OK):
            code = process.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                msg = f"process {index:d} terminated with signal {name}"
                return ProcessExitedException(msg, index, process.pid, code, name)
            msg = f"process {index:d} terminated with exit code {code:d}"
            return ProcessExitedException(msg, index, process.pid, code)
        with open(self.error_files[index], "rb") as fh:
            trace = pickle.load(fh)
        msg = f"\n\n-- Process {index:d} terminated with the following error:\n{trace}"
        return ProcessRaisedException(msg, index, process.pid)

    def _remove_error_files(self) -> None:
        if self._error_dir is not None:
            shutil.rmtree(self._error_dir, ignore_errors=True)
            self._error_dir = None


class SpawnContext(ProcessContext):
    """The old name of ``ProcessContext`` (deprecated in PyTorch 1.4)."""

    def __init__(self, processes: list, error_files: list) -> None:
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(
    fn,
    args: tuple = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:
    """Start ``nprocs`` processes running ``fn(i, *args)`` with ``start_method``; join them
    (returning None) or hand back their ``ProcessContext`` when ``join=False``."""
    ctx = multiprocessing.get_context(start_method)
    error_dir = tempfile.mkdtemp(prefix="taimatsu-spawn-")
    error_files, processes = [], []
    try:
        for i in range(nprocs):
            error_file = os.path.join(error_dir, f"error-{i}.pickle")
            process = ctx.Process(target=_wrap, args=(fn, i, args, error_file), daemon=daemon)
            process.start()
            error_files.append(error_file)
            processes.append(process)
    except BaseException:
        for process in processes:
            process.kill()
            process.join()
        shutil.rmtree(error_dir, ignore_errors=True)
        raise
    context = ProcessContext(processes, error_files)
    if not error_files:
        shutil.rmtree(error_dir, ignore_errors=True)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(
    fn,
    args: tuple = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:
    """``start_processes`` with the ``spawn`` start method (another one only warns, as in PyTorch)."""
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t"
            " torch.multiprocessing.start_processes(...)",
            FutureWarning,
            stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
