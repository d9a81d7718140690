"""Pinning a batch for ``DataLoader(pin_memory=True)`` (``torch.utils.data._utils.pin_memory``).

Every CPU tensor of the batch -- through tuples, lists, dicts and namedtuples, and any object
with a ``pin_memory()`` method, as in PyTorch -- is copied into page-locked host memory, from
which ``.to("cuda", non_blocking=True)`` can copy asynchronously. Used only when CUDA is there.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...._tensor.core import Tensor


def pin_memory(data, device=None):
    """``data`` with its tensors in pinned memory (other values unchanged)."""
    if isinstance(data, Tensor):
        return data.pin_memory() if data.device.type == "cpu" else data
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, Mapping):
        return type(data)({k: pin_memory(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(pin_memory(v) for v in data))
    if isinstance(data, (tuple, list)):
        return type(data)(pin_memory(v) for v in data)
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
