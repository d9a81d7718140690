"""Profiler results: ``FunctionEvent`` (one op call), ``FunctionEventAvg`` (calls grouped by name),
``EventList`` with PyTorch's ``table()`` and Chrome's trace format.

Times are CPU wall-clock microseconds, as PyTorch reports them. The table has PyTorch's
columns, widths, number formats and sort keys. "CPU Mem" is the memory an op's results took
(fresh arrays, not views); PyTorch counts every allocation and free inside the op, so its
figures for ops with temporaries differ.
"""

from __future__ import annotations

import json
import os
from collections import namedtuple

Interval = namedtuple("Interval", ["start", "end"])

_NAME_WIDTH, _SHAPES_WIDTH, _SRC_WIDTH, _COLUMN_WIDTH = 55, 80, 75, 12
_ZERO_ATTRS = (
    "device_time", "device_time_total", "self_device_time_total", "cuda_time", "cuda_time_total",
    "self_cuda_time_total", "device_memory_usage", "self_device_memory_usage", "cuda_memory_usage",
    "self_cuda_memory_usage", "flops",
)  # fmt: skip


class _Zeros:
    """Device-side figures: taimatsu records host (CPU) time only, so they are all 0."""

    def __getattr__(self, name: str):
        if name in _ZERO_ATTRS:
            return 0
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


class FunctionEvent(_Zeros):
    """One recorded call: an op (``aten::mm``), an engine step, or a ``record_function`` range."""

    def __init__(self, id: int, name: str, thread: int, start_us: float, input_shapes=None,
                 stack=None, cat: str = "cpu_op") -> None:  # fmt: skip
        self.id, self.name, self.thread = id, name, thread
        self.time_range = Interval(start_us, start_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.cat = cat
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.cpu_memory_usage = 0
        self.count = 1

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.time_range.end - self.time_range.start

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} cpu_time={_time(self.cpu_time)} "
            f"start_us={self.time_range.start:.3f} end_us={self.time_range.end:.3f} "
            f"cpu_children={[c.id for c in self.cpu_children]} thread={self.thread} "
            f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>"
        )


class FunctionEventAvg(_Zeros):
    """The calls of one name (and input shapes / stack, when grouped by them), summed."""

    def __init__(self) -> None:
        self.key = None
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.input_shapes = None
        self.stack = None
        self.cpu_children = self.cpu_parent = None

    def add(self, other) -> FunctionEventAvg:
        if self.key is None:
            self.key, self.input_shapes, self.stack = other.key, other.input_shapes, other.stack
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        return self

    def __iadd__(self, other):
        return self.add(other)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={_time(self.self_cpu_time_total)} "
            f"cpu_time={_time(self.cpu_time_total)} input_shapes={self.input_shapes} "
            f"cpu_memory_usage={self.cpu_memory_usage}>"
        )


class EventList(list):
    """A list of events with PyTorch's ``table``, ``key_averages`` and ``export_chrome_trace``."""

    def __init__(self, *args, profile_memory: bool = False, with_stack: bool = False,
                 record_shapes: bool = False) -> None:  # fmt: skip
        super().__init__(*args)
        self._profile_memory, self._with_stack, self._record_shapes = (
            profile_memory,
            with_stack,
            record_shapes,
        )

    def _like(self, events) -> EventList:
        return EventList(events, profile_memory=self._profile_memory, with_stack=self._with_stack,
                         record_shapes=self._record_shapes)  # fmt: skip

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(
        self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0
    ) -> EventList:
        """Events grouped by name (and input shapes, and the top ``n`` stack frames), in first-seen order."""
        groups: dict = {}
        for e in self:
            key = (e.key,)
            if group_by_input_shapes:
                key += (str(e.input_shapes),)
            if group_by_stack_n:
                key += tuple(e.stack[:group_by_stack_n])
            groups.setdefault(key, FunctionEventAvg()).add(e)
        for avg in groups.values():  # what was not grouped by is not shown, as in PyTorch
            avg.stack = avg.stack[:group_by_stack_n]
            if not group_by_input_shapes:
                avg.input_shapes = ""
        return self._like(groups.values())

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
        total.key = "Total"
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:  # fmt: skip
        """PyTorch's profiler table: one row per event (or group), sorted by ``sort_by`` (descending)."""
        events = [e for e in self if not top_level_events_only or e.cpu_parent is None]
        if sort_by is not None:
            events.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        return _table(
            self, events[:row_limit] if row_limit > 0 else events, header, self._profile_memory,
            any(e.input_shapes for e in self), any(e.stack for e in self),
            max_name_column_width or _NAME_WIDTH,
            max_shapes_column_width, max_src_column_width,
        )  # fmt: skip

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path) -> None:
        """Write the events in Chrome's trace-event JSON (chrome://tracing, ui.perfetto.dev)."""
        with open(path, "w") as f:
            json.dump(chrome_trace(self, path), f)


def chrome_trace(events, name="") -> dict:
    """The Chrome trace-event document of ``events`` (complete events, ``"ph": "X"``)."""
    pid = os.getpid()
    meta = [
        {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python"}},
        {"ph": "M", "name": "process_labels", "pid": pid, "tid": 0, "args": {"labels": "CPU"}},
    ]
    for tid in sorted({e.thread for e in events}):
        meta.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                     "args": {"name": f"thread {tid} (python)"}})  # fmt: skip
    trace = []
    for e in events:
        args = {"External id": e.id}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        if e.stack:
            args["Call stack"] = ";".join(e.stack)
        trace.append({"ph": "X", "cat": e.cat, "name": e.name, "pid": pid, "tid": e.thread,
                      "ts": e.time_range.start, "dur": e.cpu_time_total, "args": args})  # fmt: skip
    return {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
            "traceName": str(name), "traceEvents": meta + trace}  # fmt: skip


# ---- the table -------------------------------------------------------------------------------------
def _time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _memory(n: int) -> str:
    for unit, size in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


def _percent(part: float, whole: float) -> str:
    return f"{part / whole * 100:.2f}%" if whole else "0.00%"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _table(all_events, rows, header, memory, shapes, stack_n, name_max, shapes_max, src_max) -> str:
    keys = [e.key for e in all_events] or [""]
    name_w = min(max(len(k) for k in keys) + 4, name_max)
    columns = [("Name", name_w), *((h, _COLUMN_WIDTH) for h in
               ("Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"))]  # fmt: skip
    if memory:
        columns += [("CPU Mem", _COLUMN_WIDTH), ("Self CPU Mem", _COLUMN_WIDTH)]
    columns.append(("# of Calls", _COLUMN_WIDTH))
    if shapes:
        shapes_w = min(max(len(str(e.input_shapes)) for e in all_events) + 4, shapes_max)
        columns.append(("Input Shapes", shapes_w))
    if stack_n:
        columns.append(("Source Location", src_max))
    sep = "".join("-" * w + "  " for _, w in columns)
    total = all_events.self_cpu_time_total

    def line(cells) -> str:
        return "".join(f"{c:>{w}}  " for c, (_, w) in zip(cells, columns))

    out = [sep] if header is None else ["=" * len(sep), header, sep]
    out += [line([h for h, _ in columns]), sep]
    for e in rows:
        cells = [
            _cut(e.key, name_w), _percent(e.self_cpu_time_total, total), _time(e.self_cpu_time_total),
            _percent(e.cpu_time_total, total), _time(e.cpu_time_total), _time(e.cpu_time),
        ]  # fmt: skip
        if memory:
            cells += [_memory(e.cpu_memory_usage), _memory(e.self_cpu_memory_usage)]
        cells.append(str(e.count))
        if shapes:
            cells.append(_cut(str(e.input_shapes), columns[-1 - bool(stack_n)][1]))
        if stack_n:
            cells.append(_cut(e.stack[0] if e.stack else "", src_max))
        out.append(line(cells))
    out += [sep, f"Self CPU time total: {_time(total)}", ""]
    return "\n".join(out)
