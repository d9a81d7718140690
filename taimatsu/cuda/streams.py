"""``torch.cuda.Stream``, ``Event``, ``stream`` and ``current_stream``, over CuPy's.

Without CUDA they fail as in PyTorch's CPU-only build: ``Stream()`` with "torch.cuda.Stream
requires CUDA support", ``Event()`` with "Tried to instantiate dummy base class Event",
``current_stream()`` with "Torch not compiled with CUDA enabled"; ``stream(None)`` is a no-op.
"""

from __future__ import annotations

from .. import backend


class Stream:
    """A CUDA stream (``cupy.cuda.Stream``); ``priority`` is kept but not applied."""

    def __init__(self, device=None, priority: int = 0, *, _cupy_stream=None) -> None:
        if not backend.cuda_available():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        from . import _index

        cp = backend.cupy()
        self.device_index = _index(device)
        with cp.cuda.Device(self.device_index):
            self._s = _cupy_stream or cp.cuda.Stream(non_blocking=True)
        self.priority = priority

    @property
    def device(self):
        from .._device import device

        return device("cuda", self.device_index)

    @property
    def cuda_stream(self) -> int:
        return int(self._s.ptr)

    def synchronize(self) -> None:
        self._s.synchronize()

    def query(self) -> bool:
        return bool(self._s.done)

    def record_event(self, event=None) -> Event:
        event = Event() if event is None else event
        event.record(self)
        return event

    def wait_event(self, event) -> None:
        self._s.wait_event(event._e)

    def wait_stream(self, stream) -> None:
        self.wait_event(stream.record_event())

    def __eq__(self, other) -> bool:  # CuPy may hand out several objects for one stream
        return isinstance(other, Stream) and (self.cuda_stream, self.device_index) == (
            other.cuda_stream,
            other.device_index,
        )

    def __hash__(self) -> int:
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self) -> str:
        return f"<torch.cuda.Stream device={self.device} cuda_stream={hex(self.cuda_stream)}>"


class Event:
    """A CUDA event (``cupy.cuda.Event``); ``elapsed_time`` in milliseconds needs
    ``enable_timing=True`` on both events, as in PyTorch."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:  # fmt: skip
        if not backend.cuda_available():
            raise RuntimeError("Tried to instantiate dummy base class Event")
        cp = backend.cupy()
        self.enable_timing = enable_timing
        self._e = cp.cuda.Event(block=blocking, disable_timing=not enable_timing,
                                interprocess=interprocess)  # fmt: skip
        self._recorded = False

    def record(self, stream=None) -> None:
        self._e.record((stream or current_stream())._s)
        self._recorded = True

    def wait(self, stream=None) -> None:
        (stream or current_stream()).wait_event(self)

    def query(self) -> bool:
        return bool(self._e.done)

    def synchronize(self) -> None:
        self._e.synchronize()

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds between this event and ``end_event``."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if not (self._recorded and end_event._recorded):
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return float(backend.cupy().cuda.get_elapsed_time(self._e, end_event._e))

    def __repr__(self) -> str:
        return f"<torch.cuda.Event {hex(int(self._e.ptr))}>"


def current_stream(device=None) -> Stream:
    """The stream kernels are launched on now."""
    cp = backend.cupy()
    from . import _index

    i = _index(device)
    return Stream(i, _cupy_stream=cp.cuda.get_current_stream(i))


def default_stream(device=None) -> Stream:
    cp = backend.cupy()
    from . import _index

    return Stream(_index(device), _cupy_stream=cp.cuda.Stream.null)


class StreamContext:
    """``with torch.cuda.stream(s):``: ``s`` is CuPy's current stream inside; None does nothing."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            self.stream._s.__enter__()
        return self.stream

    def __exit__(self, *exc) -> None:
        if self.stream is not None:
            self.stream._s.__exit__(*exc)


def stream(stream: Stream | None) -> StreamContext:
    return StreamContext(stream)
