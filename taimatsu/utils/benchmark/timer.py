"""``torch.utils.benchmark.Timer``: ``timeit`` with PyTorch's conventions (a ``torch`` global,
the thread count set while timing, block sizes chosen so that timer overhead is negligible) and
results as ``Measurement`` objects.

Python statements only: ``language="cpp"`` (PyTorch compiles the C++ statement) and the
Callgrind instruction counts raise NotImplementedError.
"""

from __future__ import annotations

import enum
import statistics
import sys
import textwrap
import timeit as _timeit
from collections.abc import Callable
from typing import Any

from .measurement import Measurement, TaskSpec, set_torch_threads


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


def timer() -> float:
    """``timeit.default_timer`` after waiting for queued device work (PyTorch's default)."""
    from ... import cuda

    if cuda.is_available():
        cuda.synchronize()
    return _timeit.default_timer()


def _clean(code: str) -> str:
    """Dedent, drop one leading newline and trailing whitespace, as PyTorch does to stmt/setup."""
    code = textwrap.dedent(code)
    return (code.removeprefix("\n")).rstrip()


class Timer:
    """Times ``stmt`` after ``setup`` in a namespace made of ``globals`` (plus ``torch``, which is
    taimatsu here). ``num_threads`` is the ``torch.set_num_threads`` value while timing."""

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = timer,
        globals: dict[str, Any] | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: Language | str = Language.PYTHON,
    ) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")  # noqa: TRY004  (PyTorch's)
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError(
                "taimatsu cannot time C++ statements (torch.utils.benchmark compiles them against "
                "libtorch); time the Python statement instead"
            )
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(
                f"global_setup is C++ only, got `{global_setup}`. Most likely this code can simply "
                "be moved to `setup`."
            )
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", sys.modules[__name__.partition(".")[0]])  # taimatsu
        stmt, setup = _clean(stmt), _clean(setup)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = TaskSpec(stmt, setup, global_setup, label, sub_label, description, env,
                                   num_threads)  # fmt: skip
        self._language = Language.PYTHON

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)  # a zero time would break the statistics

    def timeit(self, number: int = 1000000) -> Measurement:
        """One measurement of ``number`` runs, after a warm-up of ``number // 100`` (at least 2)."""
        with set_torch_threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return Measurement(number, [self._timeit(number)], self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable[[int, float], Any] | None = None) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _estimate_block_size(self, min_run_time: float) -> int:
        """The smallest power of ten of runs whose time dwarfs the timer's own overhead."""
        with set_torch_threads(self._task_spec.num_threads):
            overhead = statistics.median_low([self._timeit(0) for _ in range(5)])
            number = 1
            while True:
                took = self._timeit(number)
                if overhead / took <= 1e-4 and took >= min_run_time / 1000:
                    break
                if took > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def _measure_blocks(self, number, stop, min_run_time, max_run_time=None, callback=None):
        """Time blocks of ``number`` runs until ``min_run_time`` is spent and ``stop(times)``."""
        times: list[float] = []
        total = 0.0
        with set_torch_threads(self._task_spec.num_threads):
            while True:
                took = self._timeit(number)
                times.append(took)
                total += took
                if callback:
                    callback(number, took)
                done = stop(times)
                if (total >= min_run_time and done) or (max_run_time and total > max_run_time):
                    return times

    def blocked_autorange(
        self, callback: Callable[[int, float], Any] | None = None, min_run_time: float = 0.2
    ) -> Measurement:
        """Blocks of an estimated size until ``min_run_time`` seconds are measured."""
        number = self._estimate_block_size(min_run_time)
        times = self._measure_blocks(number, lambda t: True, min_run_time, callback=callback)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(
        self,
        threshold: float = 0.1,
        *,
        min_run_time: float = 0.01,
        max_run_time: float = 10.0,
        callback: Callable[[int, float], Any] | None = None,
    ) -> Measurement:
        """Blocks until the IQR is under ``threshold`` of the median (more than 3 blocks) or
        ``max_run_time`` is spent."""
        number = self._estimate_block_size(min_run_time=0.05)

        def confident(times: list[float]) -> bool:
            return len(times) > 3 and Measurement(number, times, self._task_spec).meets_confidence(
                threshold
            )

        times = self._measure_blocks(number, confident, min_run_time, max_run_time, callback)
        return Measurement(number, times, self._task_spec)

    def collect_callgrind(self, *args, **kwargs):
        raise NotImplementedError(
            "taimatsu has no Callgrind instruction counting (PyTorch runs the statement under "
            "valgrind); use blocked_autorange for timings"
        )
