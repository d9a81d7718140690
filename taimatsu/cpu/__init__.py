"""``torch.cpu``: the CPU as a device module (PyTorch's device-generic API) and ``torch.cpu.amp``.

As in PyTorch, there is one CPU device, always available; ``synchronize`` has nothing to wait
for; ``set_device`` accepts anything and does nothing.
"""

from __future__ import annotations

from . import amp

__all__ = [
    "amp",
    "current_device",
    "device_count",
    "is_available",
    "is_initialized",
    "set_device",
    "synchronize",
]


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def set_device(device) -> None:
    """PyTorch ignores the argument: there is only one CPU device."""


def synchronize(device=None) -> None:
    """CPU work is finished when a call returns: nothing to wait for."""
