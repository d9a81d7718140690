"""``detect_anomaly`` / ``set_detect_anomaly``, as PyTorch's.

While enabled, every backward node made by an op called from user code remembers the stack of
that call (``node.metadata["traceback_"]``, as in PyTorch). When a node's backward fails --
with ``check_nan``, the engine raises "Function 'XBackward0' returned nan values in its 0th
output." -- PyTorch's warning "Error detected in XBackward0. Traceback of forward call that
caused the error: ..." names the forward line; a node made before anomaly mode was on gets
PyTorch's "No forward pass information available" instead.

The stacks are recorded through ``op_watch`` (Python's profiling hook), installed only while
anomaly mode is on: the op dispatch path has no anomaly check at all. Anomaly mode also turns
on the explainer's records (``explain.trace_origins``).
"""

from __future__ import annotations

import traceback
import warnings

from . import op_watch

_TRIGGER = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:{}.)"


class _Anomaly:
    """The switch; setting ``enabled`` starts or stops the recording of forward stacks."""

    __slots__ = ("_enabled", "check_nan")

    def __init__(self) -> None:
        self._enabled, self.check_nan = False, True

    @property
    def enabled(self) -> bool:
        return self._enabled

    @enabled.setter
    def enabled(self, value: bool) -> None:
        value = bool(value)
        if value != self._enabled:
            self._enabled = value
            from .explain import _tracer  # anomaly mode also records where graphs were cut

            if value:
                op_watch.watch(_recorder)
                _tracer.start()
            else:
                _tracer.stop()
                op_watch.unwatch(_recorder)


state = _Anomaly()


def is_anomaly_enabled() -> bool:
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return state.check_nan


class detect_anomaly:
    """Context manager (or decorator) that enables anomaly detection inside its block."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = state.enabled
        self.check_nan = check_nan
        self.prev_check_nan = state.check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
            "enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        state.enabled, state.check_nan = True, self.check_nan

    def __exit__(self, *exc) -> None:
        state.enabled, state.check_nan = self.prev, self.prev_check_nan

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off; as a function call or as a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = state.enabled, state.check_nan
        state.enabled, state.check_nan = bool(mode), bool(check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        state.enabled, state.check_nan = self.prev, self.prev_check_nan


def forward_stack(frame) -> list[str]:
    """The stack of the user's call, formatted as PyTorch's anomaly traceback lines.

    The frames that only forward a Tensor method to its op (inside taimatsu, at the end of the
    stack) are left out: PyTorch's methods are C++ and show no frame."""
    summary = traceback.extract_stack(frame)
    while len(summary) > 1 and summary[-1].filename.startswith(op_watch.PKG):
        summary.pop()
    return traceback.format_list(summary)


def new_nodes(outputs, first_seq: int):
    """The nodes behind ``outputs`` made since sequence number ``first_seq`` (by one op call)."""
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    seen = set()
    while stack:
        n = stack.pop()
        if n in seen or n._seq < first_seq:
            continue
        seen.add(n)
        yield n
        stack.extend(nxt for nxt, _ in n.next_functions if nxt is not None)


class _Recorder:
    """Stamps each new node with its forward stack; warns with it when the node's backward fails."""

    def __init__(self) -> None:
        self.calls: list = []
        self.unwinding = False  # one warning per failure, not one per engine frame it unwinds

    def enter(self, site, frame, outer) -> None:
        if site.kind == "node":
            self.unwinding = False
            self.calls.append(None)
        elif site.kind in ("op", "function") and outer:
            from .graph import _seq

            self.calls.append(next(_seq))
        else:
            self.calls.append(None)

    def leave(self, site, frame, value, outer) -> None:
        first = self.calls.pop() if self.calls else None
        if site.kind == "node":
            if value is None and not self.unwinding:  # the node's backward raised
                self.unwinding = True
                _warn_error(frame.f_locals.get("node"))
            return
        if first is None or value is None:
            return
        outputs = op_watch.tensors_in(value)
        if not outputs:
            return
        stack = None
        for node in new_nodes(outputs, first):
            meta = node.metadata
            if "traceback_" not in meta:
                stack = stack or forward_stack(frame.f_back)
                meta["traceback_"] = stack


_recorder = _Recorder()


def _warn_error(node) -> None:
    if node is None:
        return
    stack = node.__dict__.get("_metadata", {}).get("traceback_") if node.__dict__ else None
    if stack:
        msg = (
            f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
            + "".join(stack)
            + _TRIGGER.format(122)
        )
    else:
        msg = (
            f"Error detected in {node.name()}. No forward pass information available. Enable detect "
            "anomaly during forward pass for more information." + _TRIGGER.format(100)
        )
    warnings.warn(msg, UserWarning, stacklevel=2)
