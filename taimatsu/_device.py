"""``torch.device`` and the current-device context."""

from __future__ import annotations

import re

_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?")


class device:
    """A place tensors live: ``device('cpu')``, ``device('cuda', 0)``, ``device('cuda:1')``."""

    _tp_name = "torch.device"  # the name PyTorch's messages give its C type (type_name)
    __module__ = "taimatsu"  # <class 'taimatsu.device'>, as PyTorch's <class 'torch.device'>
    __slots__ = ("type", "index")

    def __init__(self, type, index: int | None = None):  # noqa: A002 - PyTorch's name
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            if type >= 0:  # a bare index names the current accelerator, which must exist
                from .backend import cuda_available

                if not cuda_available():
                    raise RuntimeError("Cannot access accelerator device when none is available.")
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got ({type.__class__.__name__})"
            )
        if ":" in type and index is not None:
            raise RuntimeError(
                f"type (string) must not include an index because index was passed explicitly: {type}"
            )
        if not type:
            raise RuntimeError("Device string must not be empty")
        # c10's grammar: a name of letters and underscores, then ':' and an index without a
        # leading zero ('float64' and 'cuda:01' are invalid strings; 'float' an unknown type)
        parts = _DEVICE_STRING.fullmatch(type)
        if parts is None:
            raise RuntimeError(f"Invalid device string: '{type}'")
        type, idx = parts.groups()
        if idx is not None:
            index = int(idx)
        if type not in ("cpu", "cuda", "meta"):
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
                f"xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {type}"
            )
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type, self.index = type, index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        # a device never equals a string (``torch.device("cpu") == "cpu"`` is False in PyTorch)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        """``with torch.device(d):`` factories default to ``d`` inside the block (nests)."""
        _entered.append(_default_device[0])
        _default_device[0] = None if self.type == "cpu" else self
        return self

    def __exit__(self, *exc):
        _default_device[0] = _entered.pop()
        return False


cpu = device("cpu")
_default_device = [None]  # torch.set_default_device (taimatsu/_flags.py); None means the CPU
_entered: list = []  # the default device in force outside each ``with device(...)`` block


def as_device(d) -> device:
    """Normalise a user's ``device=`` argument; 'cuda' means the current CUDA device."""
    if d is None:
        if _default_device[0] is None:
            return cpu
        # 'cuda' as the default means the CUDA device current when the tensor is made
        return (
            _default_device[0]
            if _default_device[0].index is not None
            else as_device(_default_device[0])
        )
    if isinstance(d, device):
        if d.type == "cpu":
            return cpu  # canonical object: ops test ``t._device is cpu``
        if d.type == "cuda" and d.index is None:
            from .backend import current_cuda_index

            return device("cuda", current_cuda_index())
        return d
    return as_device(device(d))
