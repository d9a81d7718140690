"""Padding modules: ``ZeroPad*``, ``ConstantPad*``, ``ReflectionPad*``, ``ReplicationPad*``, ``CircularPad*``."""

from __future__ import annotations

from .. import functional as F
from .module import Module


def _ntuple(padding, n: int) -> tuple:
    if isinstance(padding, (list, tuple)):
        return tuple(padding)
    return (padding,) * (2 * n)


class _PadNd(Module):
    _n = 1
    _mode = "constant"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


def _make(name, base, n, mode):
    return type(name, (base,), {"_n": n, "_mode": mode, "__module__": __name__})


ConstantPad1d = _make("ConstantPad1d", _ConstantPadNd, 1, "constant")
ConstantPad2d = _make("ConstantPad2d", _ConstantPadNd, 2, "constant")
ConstantPad3d = _make("ConstantPad3d", _ConstantPadNd, 3, "constant")
ReflectionPad1d = _make("ReflectionPad1d", _PadNd, 1, "reflect")
ReflectionPad2d = _make("ReflectionPad2d", _PadNd, 2, "reflect")
ReflectionPad3d = _make("ReflectionPad3d", _PadNd, 3, "reflect")
ReplicationPad1d = _make("ReplicationPad1d", _PadNd, 1, "replicate")
ReplicationPad2d = _make("ReplicationPad2d", _PadNd, 2, "replicate")
ReplicationPad3d = _make("ReplicationPad3d", _PadNd, 3, "replicate")
CircularPad1d = _make("CircularPad1d", _PadNd, 1, "circular")
CircularPad2d = _make("CircularPad2d", _PadNd, 2, "circular")
CircularPad3d = _make("CircularPad3d", _PadNd, 3, "circular")


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


ZeroPad1d = _make("ZeroPad1d", _ZeroPadNd, 1, "constant")
ZeroPad2d = _make("ZeroPad2d", _ZeroPadNd, 2, "constant")
ZeroPad3d = _make("ZeroPad3d", _ZeroPadNd, 3, "constant")
