"""Recording a forward pass: every op the model's code calls (not the ops those ops call inside),
with its arguments and result, through ``autograd/op_watch`` (Python's profiling hook, on only
while tracing)."""

from __future__ import annotations

from typing import NamedTuple

from ..autograd import op_watch


class OpCall(NamedTuple):
    name: str  # PyTorch's aten name: "conv2d", "view", "add", ...
    args: dict  # parameter name -> value; "*" -> the *args tuple when the function has one
    result: object


class Recorder:
    """An op_watch watcher collecting the outermost op calls, in order."""

    _KINDS = frozenset(("op", "detach"))

    def __init__(self) -> None:
        self.calls: list[OpCall] = []
        self._open: list = []

    def enter(self, site, frame, outer: bool) -> None:
        if outer and site.kind in self._KINDS:
            self._open.append((site.name, _named_arguments(frame)))

    def leave(self, site, frame, value, outer: bool) -> None:
        if outer and site.kind in self._KINDS and self._open:
            name, args = self._open.pop()
            self.calls.append(OpCall(name, args, value))


def _named_arguments(frame) -> dict:
    code = frame.f_code
    n = code.co_argcount + code.co_kwonlyargcount
    local = frame.f_locals
    args = {name: local.get(name) for name in code.co_varnames[:n]}
    if code.co_flags & 0x04:  # the function takes *args
        args["*"] = tuple(local.get(code.co_varnames[n]) or ())
    return args


def trace(fn, *args, **kwargs) -> tuple[object, list[OpCall]]:
    """Run ``fn`` and return its result and the op calls it made."""
    recorder = Recorder()
    op_watch.watch(recorder)
    try:
        result = fn(*args, **kwargs)
    finally:
        op_watch.unwatch(recorder)
    return result, recorder.calls
