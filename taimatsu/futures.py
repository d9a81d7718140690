"""``torch.futures.Future``: a value that becomes available later, with ``then`` chaining.

taimatsu runs no background threads, so a Future completes either when someone calls
``set_result`` or when it is waited on and drives the work it stands for (a
``distributed.Work``). Callbacks added with ``then`` / ``add_done_callback`` run once, on
completion, in the order they were added, as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Future"]


class Future:
    def __init__(self, *, devices=None) -> None:
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[Future], None]] = []
        self._drive: Callable[[], None] | None = None  # completes this future when waited on

    @classmethod
    def _from_work(cls, work) -> Future:
        fut = cls()

        def drive() -> None:
            work.wait()
            fut.set_result(work.result())

        fut._drive = drive
        return fut

    def done(self) -> bool:
        return self._done

    def wait(self) -> Any:
        """Block until completed and return the value (re-raise the error it completed with)."""
        if not self._done and self._drive is not None:
            drive, self._drive = self._drive, None
            drive()
        if not self._done:
            raise RuntimeError("taimatsu: waiting on a Future that nothing will complete")
        return self.value()

    def value(self) -> Any:
        if self._error is not None:
            raise self._error
        return self._value

    def set_result(self, result: Any) -> None:
        if self._done:
            raise RuntimeError(
                "Future can only be marked completed once. Got completed more than once."
            )
        self._value, self._done = result, True
        self._run_callbacks()

    def set_exception(self, result: BaseException) -> None:
        if self._done:
            raise RuntimeError(
                "Future can only be marked completed once. Got completed more than once."
            )
        self._error, self._done = result, True
        self._run_callbacks()

    def then(self, callback: Callable[[Future], Any]) -> Future:
        """A Future completed with ``callback(self)`` once this one completes."""
        child = Future()
        child._drive = self.wait

        def run(fut: Future) -> None:
            try:
                child.set_result(callback(fut))
            except Exception as e:  # noqa: BLE001  the error travels to whoever waits on the child
                child.set_exception(e)

        self.add_done_callback(run)
        return child

    def add_done_callback(self, callback: Callable[[Future], None]) -> None:
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def _run_callbacks(self) -> None:
        callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)
