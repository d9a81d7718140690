"""``torch.autograd.profiler``: the older profiler API, over ``taimatsu.profiler``.

``profile(enabled=True, record_shapes=..., profile_memory=..., with_stack=...)`` records while
its block runs; ``function_events``, ``table()``, ``key_averages()``, ``total_average()``,
``self_cpu_time_total`` and ``export_chrome_trace()`` are as in PyTorch. ``record_function`` is
``torch.profiler.record_function``. CUDA options are accepted; only CPU time is recorded.
"""

from __future__ import annotations

from ..profiler.events import EventList, FunctionEvent, FunctionEventAvg
from ..profiler.profiler import profile as _profile
from ..profiler.profiler import record_function

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]


class profile:
    """The legacy context manager: ``with torch.autograd.profiler.profile() as prof: ...``."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None,
                 record_shapes: bool = False, with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False,
                 use_cpu: bool = True, experimental_config=None, acc_events: bool = False,
                 custom_trace_id_callback=None, **kwargs) -> None:  # fmt: skip
        self.enabled = enabled
        self._prof = _profile(record_shapes=record_shapes, profile_memory=profile_memory,
                              with_stack=with_stack)  # fmt: skip
        self.function_events: EventList | None = None

    def __enter__(self):
        if self.enabled:
            self._prof.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.enabled:
            self._prof.stop()
            self.function_events = self._prof.events()

    def _events(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def table(self, *args, **kwargs) -> str:
        return self._events().table(*args, **kwargs)

    def key_averages(
        self, group_by_input_shape: bool = False, group_by_stack_n: int = 0
    ) -> EventList:
        return self._events().key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self) -> FunctionEventAvg:
        return self._events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._events().self_cpu_time_total

    def export_chrome_trace(self, path) -> None:
        self._events().export_chrome_trace(path)

    def __str__(self) -> str:
        return self.table()
