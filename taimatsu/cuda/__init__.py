"""``torch.cuda``: device queries and RNG seeding, backed by CuPy when a GPU is present."""

from __future__ import annotations

from .. import backend
from . import amp  # noqa: F401  (torch.cuda.amp)


def is_available() -> bool:
    return backend.cuda_available()


def device_count() -> int:
    if not is_available():
        return 0
    return backend.cupy().cuda.runtime.getDeviceCount()


def current_device() -> int:
    backend.cupy()
    return backend.current_cuda_index()


def set_device(device) -> None:
    backend.cupy()
    backend._cuda_index[0] = int(getattr(device, "index", device) or 0)


def synchronize(device=None) -> None:
    if is_available():
        backend.cupy().cuda.Device().synchronize()


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False without a GPU; natively from compute capability 8.0 (Ampere), else only when
    ``including_emulation`` (PyTorch's answer for older GPUs that can emulate bfloat16)."""
    if not is_available():
        return False
    major = int(backend.cupy().cuda.Device().compute_capability[:-1] or 0)
    return major >= 8 or including_emulation


def manual_seed(seed: int) -> None:
    """Seed the GPU generator(s); a no-op without CUDA (as in PyTorch)."""
    if backend._cupy is not None:
        backend._cupy.random.seed(int(seed) % (2**32))


manual_seed_all = manual_seed


class device:
    """``with torch.cuda.device(i):`` makes ``i`` the current CUDA device."""

    def __init__(self, device) -> None:
        self.idx = -1 if device is None else int(getattr(device, "index", device) or 0)

    def __enter__(self) -> None:
        self.prev = backend._cuda_index[0]
        if self.idx >= 0:
            backend._cuda_index[0] = self.idx

    def __exit__(self, *exc) -> None:
        backend._cuda_index[0] = self.prev


def __getattr__(name):
    from .._tensor.legacy_types import cuda_classes

    if name in cuda_classes:
        return cuda_classes[name]
    raise AttributeError(f"module 'torch.cuda' has no attribute '{name}'")
