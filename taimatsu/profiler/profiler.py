"""``torch.profiler.profile``, ``record_function``, ``schedule`` and ``tensorboard_trace_handler``.

Ops are recorded under PyTorch's names (``aten::add``, ``aten::mm``); each backward node the
engine runs is an ``autograd::engine::evaluate_function: AddBackward0`` range holding an
``AddBackward0`` range, as in PyTorch. An op that calls other ops shows them nested, as
PyTorch's composite ops do (which inner ops appear differs: taimatsu's are its own).

How: while a profiler records, ``autograd.op_watch`` reports op calls (Python's profiling hook on
the recording thread); with no profiler active nothing runs per op. The hook costs time per
Python call while recording, so absolute times are inflated compared with a bare run (as any
tracing profiler's); compare ops with each other, not with an unprofiled run. Only CPU (host)
time is recorded: with ``ProfilerActivity.CUDA`` the GPU kernels of CuPy are not traced.
"""

from __future__ import annotations

import enum
import itertools
import os
import threading
import time
import warnings

from ..autograd import op_watch
from .events import EventList, FunctionEvent


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5

    def __repr__(self) -> str:
        return f"<ProfilerActivity.{self.name}: {self.value}>"


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set:
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):  # fmt: skip
    """PyTorch's step schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle steps,
    ``warmup`` steps and ``active`` recorded steps (the last one saves), ``repeat`` times (0: forever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )
    cycle = wait + warmup + active

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:  # the first cycle waits, later ones do not
            step += wait
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(
    dir_name: str, worker_name: str | None = None, use_gzip: bool = False
):
    """An ``on_trace_ready`` that writes ``<worker>.<ms>.pt.trace.json[.gz]`` into ``dir_name``."""

    def handler(prof) -> None:
        import socket

        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json" + (".gz" if use_gzip else "")
        path = os.path.join(dir_name, name)
        if use_gzip:
            import gzip
            import json

            from .events import chrome_trace

            with gzip.open(path, "wt") as f:
                json.dump(chrome_trace(prof.events(), path), f)
        else:
            prof.export_chrome_trace(path)

    return handler


# ---- recording -------------------------------------------------------------------------------------
_active: list = []  # the collectors recording now (record_function reports to them)


class _Collector:
    """Turns op calls into nested ``FunctionEvent``s on one thread."""

    def __init__(self, record_shapes: bool, profile_memory: bool, with_stack: bool) -> None:
        self.record_shapes, self.profile_memory, self.with_stack = (
            record_shapes,
            profile_memory,
            with_stack,
        )
        self.thread = threading.get_ident()
        self.events: list[FunctionEvent] = []
        self.open: list = []  # per watched call: the events it opened (or None)
        self.ids = itertools.count(1)

    def push(self, name: str, frame=None, cat: str = "cpu_op") -> FunctionEvent:
        shapes = _shapes(frame) if self.record_shapes and frame is not None else None
        stack = _stack(frame) if self.with_stack and frame is not None else None
        e = FunctionEvent(next(self.ids), name, self.thread, _now_us(), shapes, stack, cat)
        parent = self._innermost()
        if parent is not None:
            e.cpu_parent = parent
            parent.cpu_children.append(e)
        self.events.append(e)
        return e

    def _innermost(self):
        for opened in reversed(self.open):
            if opened:
                return opened[-1]
        return None

    def close(self, events, value=None) -> None:
        end = _now_us()
        for e in reversed(events):
            e.time_range = e.time_range._replace(end=end)
        if self.profile_memory:
            inner = events[-1]
            inner.cpu_memory_usage = (
                _new_bytes(value)
                if value is not None
                else sum(c.cpu_memory_usage for c in inner.cpu_children)  # a labelled range
            )
            for e in events[:-1]:
                e.cpu_memory_usage = inner.cpu_memory_usage

    # op_watch's watcher interface
    def enter(self, site, frame, outer) -> None:
        if site.kind in ("op", "detach"):
            name = "aten::" + site.name
            parent = self._innermost()
            if parent is not None and parent.name == name:  # F.relu -> ops relu: one op, one row
                self.open.append(None)
            else:
                self.open.append([self.push(name, frame)])
        elif site.kind == "node":
            node = frame.f_locals.get("node")
            name = node.name() if node is not None else "?"
            outer_event = self.push("autograd::engine::evaluate_function: " + name)
            self.open.append([outer_event])
            self.open[-1].append(self.push(name))
        else:
            self.open.append(None)

    def leave(self, site, frame, value, outer) -> None:
        opened = self.open.pop() if self.open else None
        if opened:
            self.close(opened, value)


def _now_us() -> float:
    return time.perf_counter_ns() / 1000.0


def _shapes(frame) -> list:
    from .._tensor.core import Tensor

    code = frame.f_code
    local = frame.f_locals
    values = [local.get(n) for n in code.co_varnames[: code.co_argcount]]
    if code.co_flags & 0x04:  # *args
        values.extend(local.get(code.co_varnames[code.co_argcount + code.co_kwonlyargcount]) or ())
    return [list(a.shape) if isinstance(a, Tensor) else [] for a in values]


def _stack(frame) -> list:
    """The caller's stack, innermost first, without the frames that only forward the call to
    the op inside taimatsu (PyTorch's are C++ and show none)."""
    out, f = [], frame.f_back
    while f is not None and f.f_code.co_filename.startswith(op_watch.PKG):
        f = f.f_back
    while f is not None:
        out.append(f"{f.f_code.co_filename}({f.f_lineno}): {f.f_code.co_name}")
        f = f.f_back
    return out


def _new_bytes(value) -> int:
    """Bytes of the fresh arrays an op returned (views take none)."""
    total = 0
    for t in op_watch.tensors_in(value):
        data = t._data
        if getattr(data, "base", None) is None and t._base is None:
            total += data.nbytes
    return total


class record_function:
    """Label a region (context manager or decorator); recorded only while a profiler is active."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name, self.args = name, args
        self._events: list = []

    def __enter__(self):
        me = threading.get_ident()
        for c in _active:
            if c.thread == me:
                e = c.push(self.name, cat="user_annotation")
                c.open.append([e])
                self._events.append((c, e))
        return self

    def __exit__(self, *exc) -> None:
        for c, e in self._events:
            if c.open and c.open[-1] and c.open[-1][0] is e:
                c.open.pop()
            c.close([e])
        self._events = []

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return func(*args, **kwargs)

        return wrapper


class profile:
    """PyTorch's ``torch.profiler.profile``: records the ops run inside it (CPU activity).

    Accepted and ignored: ``with_flops``, ``with_modules``, ``experimental_config``,
    ``execution_trace_observer``, ``acc_events``, ``custom_trace_id_callback``.
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda=None, custom_trace_id_callback=None) -> None:  # fmt: skip
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory, self.with_stack = (
            record_shapes,
            profile_memory,
            with_stack,
        )
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._collector = None
        self._events: EventList | None = None
        self._step_span = (
            None  # with a schedule, each step is a "ProfilerStep*" range, as in PyTorch
        )
        self._steps = schedule is not None

    # ---- start / stop / step ----------------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        self.step_num = 0
        self.current_action = self.schedule(0)
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._begin()

    def stop(self) -> None:
        if self._collector is not None:
            self._finish()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def step(self) -> None:
        """Tell the schedule a training step ended."""
        prev = self.current_action
        self._end_step_span()
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        recording = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if prev == ProfilerAction.RECORD_AND_SAVE and self._collector is not None:
            self._finish()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        if self.current_action in recording and self._collector is None:
            self._begin()
        elif self.current_action not in recording and self._collector is not None:
            self._finish()  # the schedule left its recording steps without saving
        self._begin_step_span()

    def _begin_step_span(self) -> None:
        c = self._collector
        if c is not None and self._steps:
            self._step_span = c.push("ProfilerStep*", cat="user_annotation")
            c.open.append([self._step_span])

    def _end_step_span(self) -> None:
        c, e = self._collector, self._step_span
        self._step_span = None
        if c is not None and e is not None:
            if c.open and c.open[-1] and c.open[-1][0] is e:
                c.open.pop()
            c.close([e])

    def _begin(self) -> None:
        self._collector = _Collector(self.record_shapes, self.profile_memory, self.with_stack)
        _active.append(self._collector)
        op_watch.watch(self._collector)
        if self.step_num == 0:
            self._begin_step_span()

    def _finish(self) -> None:
        self._end_step_span()
        c, self._collector = self._collector, None
        op_watch.unwatch(c)
        _active.remove(c)
        for opened in c.open:  # ranges still open when the profiler stopped end now
            if opened:
                c.close(opened)
        self._events = EventList(c.events, profile_memory=self.profile_memory,
                                 with_stack=self.with_stack, record_shapes=self.record_shapes)  # fmt: skip

    # ---- results ------------------------------------------------------------------------------------
    def events(self) -> EventList:
        if self._events is None:
            raise AssertionError("Profiler must be initialized before calling events()")
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:  # fmt: skip
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path) -> None:
        self.events().export_chrome_trace(path)

    def export_stacks(self, path, metric: str = "self_cpu_time_total") -> None:
        """Flame-graph input: one ``frame;frame;op value`` line per op recorded ``with_stack``."""
        with open(path, "w") as f:
            for e in self.events():
                if e.stack:
                    frames = ";".join(reversed(e.stack))
                    f.write(f"{frames};{e.name} {int(getattr(e, metric))}\n")
