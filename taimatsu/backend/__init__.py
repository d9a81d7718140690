"""The only place that knows NumPy from CuPy.

``xp_of(device)`` hands out the array namespace for a device; CuPy is imported lazily, on
the first CUDA tensor, so a CPU-only install never touches it.
"""

from __future__ import annotations

import numpy as np

_cupy = None
_cuda_index = [0]


def cupy():
    """Import CuPy on first use; raise PyTorch's error when CUDA is unavailable."""
    global _cupy
    if _cupy is None:
        try:
            import cupy as cp

            if cp.cuda.runtime.getDeviceCount() < 1:
                raise RuntimeError
        except Exception:
            raise AssertionError("Torch not compiled with CUDA enabled") from None
        _cupy = cp
    return _cupy


def cuda_available() -> bool:
    try:
        cupy()
        return True
    except AssertionError:
        return False


def current_cuda_index() -> int:
    return _cuda_index[0]


def xp_of(device) -> object:
    return cupy() if device.type == "cuda" else np  # meta tensors are NumPy arrays too


def is_cupy_array(a) -> bool:
    return type(a).__module__.startswith("cupy")


def to_device(array, device):
    """Copy ``array`` to ``device`` (returns it unchanged when already there)."""
    if device.type == "meta":
        from .._meta import to_meta

        return to_meta(array)
    if device.type == "cpu":
        return array.get() if is_cupy_array(array) else array
    cp = cupy()
    with cp.cuda.Device(device.index or 0):
        return cp.asarray(array)


def to_numpy(array) -> np.ndarray:
    return array.get() if is_cupy_array(array) else array
