"""op_watch: op calls are reported under PyTorch's names (also for ops sharing one code
object), an op's inner calls are not 'outer', a failing tool never stops the program, and the
profiling hook is gone once the last watcher leaves."""

import sys
import warnings

import pytest

import taimatsu
from taimatsu.autograd import op_watch


class Log:
    def __init__(self):
        self.calls = []

    def enter(self, site, frame, outer):
        self.calls.append((site.kind, site.name, outer))

    def leave(self, site, frame, value, outer):
        pass


def watched(fn):
    log = Log()
    before = sys.getprofile()
    op_watch.watch(log)
    try:
        fn()
    finally:
        op_watch.unwatch(log)
    assert sys.getprofile() is before
    return log.calls


def test_names_of_ops_sharing_code():
    x = taimatsu.ones(2)
    calls = watched(
        lambda: (x.exp(), taimatsu.sin(x), x * 2, x - 1, taimatsu.zeros(2), taimatsu.ones(2))
    )
    outer = [name for kind, name, is_outer in calls if kind == "op" and is_outer]
    assert outer == ["exp", "sin", "mul", "sub", "zeros", "ones"]


def test_detach_data_requires_grad_and_backward():
    x = taimatsu.ones(2, requires_grad=True)

    def run():
        x.detach()
        _ = x.data
        (x * 2).sum().backward()

    kinds = [k for k, _, _ in watched(run)]
    for kind in ("detach", "data", "backward", "node"):
        assert kind in kinds


def test_inner_calls_are_not_outer():
    x = taimatsu.ones(2, 3)
    calls = watched(lambda: taimatsu.nn.functional.linear(x, taimatsu.ones(4, 3)))
    assert calls[1][:2] == ("op", "linear") and calls[1][2]
    assert all(not outer for _, _, outer in calls[2:])


def test_a_failing_tool_does_not_stop_the_program():
    class Broken(Log):
        def enter(self, site, frame, outer):
            raise ValueError("broken tool")

    b = Broken()
    op_watch.watch(b)
    try:
        with pytest.warns(RuntimeWarning, match="Broken failed to record an op call"):
            y = taimatsu.ones(2) + 1
    finally:
        op_watch.unwatch(b)
    assert y.tolist() == [2.0, 2.0]


def test_previous_profile_function_is_restored():
    seen = []

    def other(frame, event, arg):
        seen.append(event)

    sys.setprofile(other)
    try:
        with warnings.catch_warnings():
            watched(lambda: taimatsu.ones(1))
        assert sys.getprofile() is other
    finally:
        sys.setprofile(None)
