"""``torch.accelerator``: the device-generic API over the current accelerator.

taimatsu's only accelerator is CUDA (through CuPy). Without one, as on PyTorch's CPU wheel,
``is_available()`` is False, ``current_accelerator()`` None, ``device_count()`` 0, and every call
that needs a device raises PyTorch's "Cannot access accelerator device when none is available."
With a GPU the calls go to ``torch.cuda``, and the memory queries to CuPy's default memory pool
(PyTorch's caching allocator's counterpart). Streams, graphs, peak statistics and
``memory_stats`` are not provided here.
"""

from __future__ import annotations

import warnings

from . import cuda
from ._device import device as _device_cls

__all__ = [
    "current_accelerator", "current_device_idx", "current_device_index", "device_count",
    "device_index", "empty_cache", "get_memory_info", "is_available", "memory_allocated",
    "memory_reserved", "set_device_idx", "set_device_index", "synchronize",
]  # fmt: skip

_NONE = "Cannot access accelerator device when none is available."


def get_device_module(device=None):
    """``torch.get_device_module``: the module of a device type (``torch.cuda`` for
    ``"cuda:1"``), of the current accelerator, or ``torch.cpu`` when there is none. Device types
    taimatsu has no module for (meta, mps, xpu, ...) raise PyTorch's error for unregistered ones."""
    import taimatsu

    if isinstance(device, _device_cls):
        name = device.type
    elif isinstance(device, str):
        name = _device_cls(device).type
    elif device is None:
        name = "cuda" if cuda.is_available() else "cpu"
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    module = getattr(taimatsu, name, None) if name in ("cpu", "cuda") else None
    if module is None:
        raise RuntimeError(
            f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'."
        )
    return module


def is_available() -> bool:
    return cuda.is_available()


def current_accelerator(check_available: bool = False):
    """``device(type='cuda')`` when CUDA is present, else None."""
    return _device_cls("cuda") if cuda.is_available() else None


def device_count() -> int:
    return cuda.device_count() if cuda.is_available() else 0


def _need() -> None:
    if not cuda.is_available():
        raise RuntimeError(_NONE)


def _index(device) -> int:
    """An index from an int, a device or a device string, or the current one for None."""
    if device is None:
        return cuda.current_device()
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    d = device if isinstance(device, _device_cls) else _device_cls(device)
    if d.type != "cuda":
        raise ValueError(f"{d.type} doesn't match the current accelerator cuda.")
    return cuda.current_device() if d.index is None else d.index


def current_device_index() -> int:
    _need()
    return cuda.current_device()


def current_device_idx() -> int:
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_index(device, /) -> None:
    _need()
    cuda.set_device(_index(device))


def set_device_idx(device, /) -> None:
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


def synchronize(device=None, /) -> None:
    """Wait for the accelerator's queued work."""
    _need()
    cuda.synchronize(device)


class device_index:
    """``with torch.accelerator.device_index(i):`` makes ``i`` the current accelerator device;
    None does nothing (PyTorch's behaviour, which allows this without an accelerator)."""

    def __init__(self, device, /) -> None:
        self.idx = device
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is not None:
            self.prev_idx = current_device_index()
            if self.prev_idx != self.idx:
                set_device_index(self.idx)

    def __exit__(self, *exc) -> None:
        if self.idx is not None and self.prev_idx != self.idx:
            set_device_index(self.prev_idx)


# ---- memory (CuPy's default memory pool stands for PyTorch's caching allocator) ---------------------
def _pool():
    _need()
    from . import backend

    return backend.cupy().get_default_memory_pool()


def empty_cache() -> None:
    """Return the cached, unused blocks of the memory pool to the device."""
    _pool().free_all_blocks()


def memory_allocated(device_index=None, /) -> int:
    """Bytes held by live tensors (CuPy pool's used bytes)."""
    return _pool().used_bytes()


def memory_reserved(device_index=None, /) -> int:
    """Bytes the pool holds from the device, in use or cached."""
    return _pool().total_bytes()


def get_memory_info(device_index=None, /) -> tuple:
    """(free, total) bytes of the device, from the CUDA runtime."""
    _need()
    from . import backend

    return tuple(backend.cupy().cuda.runtime.memGetInfo())
