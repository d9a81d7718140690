"""``torch.cuda``: devices, streams, events, memory statistics and RNG seeding, through CuPy.

Without CuPy or a GPU every call answers as PyTorch's CPU-only build does (``is_available()``
False, ``device_count()`` 0, the memory queries 0, the rest PyTorch's error). With a GPU:

- devices are CuPy's; ``set_device`` / ``with torch.cuda.device(i)`` choose where new
  tensors go; an op runs on its inputs' GPU whatever the current device (``backend.cupy_on``,
  PyTorch's device guard).
- ``Stream`` / ``Event`` wrap ``cupy.cuda.Stream`` / ``cupy.cuda.Event``; ``with
  torch.cuda.stream(s):`` makes ``s`` CuPy's current stream, so kernels launched inside run on it.
- the memory statistics come from CuPy's default memory pool (PyTorch's caching allocator's
  counterpart); the peaks are kept by a ``cupy.cuda.MemoryHook`` installed on first use of CUDA,
  so they see the allocations of the thread that first used CUDA only (CuPy's hooks are
  thread-local).
- random numbers: one generator per GPU drawing with CuPy (random.py); ``manual_seed`` seeds
  it, but its stream of numbers is not PyTorch's Philox stream.
"""

from __future__ import annotations

from .. import backend
from . import amp  # noqa: F401  (torch.cuda.amp)

_NO_CUDA = "Torch not compiled with CUDA enabled"


def is_available() -> bool:
    return backend.cuda_available()


def is_initialized() -> bool:
    return backend._cupy is not None


def init() -> None:
    backend.cupy()


def device_count() -> int:
    if not is_available():
        return 0
    return backend.cupy().cuda.runtime.getDeviceCount()


def current_device() -> int:
    backend.cupy()
    return backend.current_cuda_index()


def _cuda_or(attr: str):
    """CuPy, or PyTorch's CPU build's AttributeError for a ``torch._C`` CUDA binding."""
    if not is_available():
        raise AttributeError(f"module 'torch._C' has no attribute '{attr}'")
    return backend.cupy()


def _index(device) -> int:
    """A device index from None (the current one), an int, a string or a ``torch.device``."""
    if device is None:
        return current_device()
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    from .._device import device as device_cls

    d = device if isinstance(device, device_cls) else device_cls(device)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return current_device() if d.index is None else d.index


def set_device(device) -> None:
    cp = _cuda_or("_cuda_setDevice")
    i = _index(device)
    if i >= 0:
        cp.cuda.Device(i).use()
        backend._cuda_index[0] = i


def synchronize(device=None) -> None:
    """Wait for all queued work on the device (a host synchronisation)."""
    cp = backend.cupy()
    with cp.cuda.Device(_index(device)):
        cp.cuda.Device().synchronize()
    backend.raise_pending()


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False without a GPU; natively from compute capability 8.0 (Ampere), else only when
    ``including_emulation`` (PyTorch's answer for older GPUs that can emulate bfloat16)."""
    if not is_available():
        return False
    major = int(backend.cupy().cuda.Device().compute_capability[:-1] or 0)
    return major >= 8 or including_emulation


class device:
    """``with torch.cuda.device(i):`` makes ``i`` the current CUDA device."""

    def __init__(self, device) -> None:
        self.idx = -1 if device is None else _index(device)

    def __enter__(self) -> None:
        self.prev = backend._cuda_index[0]
        if self.idx >= 0 and self.idx != self.prev:
            set_device(self.idx)

    def __exit__(self, *exc) -> None:
        if self.idx >= 0 and self.idx != self.prev:
            set_device(self.prev)


# ---- device properties ------------------------------------------------------------------------
class _CudaDeviceProperties:
    """``torch.cuda.get_device_properties(i)``: the fields scripts read, from the CUDA runtime."""

    def __init__(self, props: dict) -> None:
        name = props["name"]
        self.name = name.decode() if isinstance(name, bytes) else str(name)
        self.major, self.minor = int(props["major"]), int(props["minor"])
        self.total_memory = int(props["totalGlobalMem"])
        self.multi_processor_count = int(props["multiProcessorCount"])
        self.warp_size = int(props.get("warpSize", 32))
        self.L2_cache_size = int(props.get("l2CacheSize", 0))
        self.is_integrated = int(props.get("integrated", 0))
        self.is_multi_gpu_board = int(props.get("isMultiGpuBoard", 0))

    def __repr__(self) -> str:
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // 2**20}MB, "
            f"multi_processor_count={self.multi_processor_count}, "
            f"L2_cache_size={self.L2_cache_size // 2**20}MB)"
        )


def get_device_properties(device=None) -> _CudaDeviceProperties:
    cp = backend.cupy()
    i = _index(device)
    if not 0 <= i < device_count():
        raise AssertionError("Invalid device id")
    return _CudaDeviceProperties(cp.cuda.runtime.getDeviceProperties(i))


def get_device_name(device=None) -> str:
    return get_device_properties(device).name


def get_device_capability(device=None) -> tuple[int, int]:
    p = get_device_properties(device)
    return p.major, p.minor


def mem_get_info(device=None) -> tuple[int, int]:
    """(free, total) bytes of the device."""
    cp = backend.cupy()
    with cp.cuda.Device(_index(device)):
        return tuple(int(v) for v in cp.cuda.runtime.memGetInfo())


# ---- memory statistics (CuPy's default memory pool) --------------------------------------------
def _pool():
    return backend.cupy().get_default_memory_pool() if is_available() else None


def memory_allocated(device=None) -> int:
    """Bytes held by live tensors; 0 without CUDA, as PyTorch's CPU build."""
    pool = _pool()
    return 0 if pool is None else int(pool.used_bytes())


def memory_reserved(device=None) -> int:
    """Bytes the pool holds from the device, in use or cached for reuse."""
    pool = _pool()
    return 0 if pool is None else int(pool.total_bytes())


def max_memory_allocated(device=None) -> int:
    """The peak of ``memory_allocated`` since the start or ``reset_peak_memory_stats``."""
    if _pool() is None:
        return 0
    return max(backend.memory_peaks()[0], memory_allocated())


def max_memory_reserved(device=None) -> int:
    if _pool() is None:
        return 0
    return max(backend.memory_peaks()[1], memory_reserved())


def reset_peak_memory_stats(device=None) -> None:
    _cuda_or("_cuda_resetPeakMemoryStats")
    backend.reset_memory_peaks(memory_allocated(), memory_reserved())


def reset_max_memory_allocated(device=None) -> None:
    reset_peak_memory_stats(device)


def memory_stats(device=None) -> dict:
    """The allocator statistics PyTorch's keys name that CuPy's pool can give (the current and
    peak allocated / reserved bytes); an empty OrderedDict without CUDA, as PyTorch's CPU build."""
    from collections import OrderedDict

    if _pool() is None:
        return OrderedDict()
    return OrderedDict([
        ("allocated_bytes.all.current", memory_allocated()),
        ("allocated_bytes.all.peak", max_memory_allocated()),
        ("reserved_bytes.all.current", memory_reserved()),
        ("reserved_bytes.all.peak", max_memory_reserved()),
    ])  # fmt: skip


def empty_cache() -> None:
    """Give the pool's cached, unused blocks back to the device; a no-op without CUDA."""
    pool = _pool()
    if pool is not None:
        pool.free_all_blocks()


# ---- random numbers (one generator per GPU: random.py), streams and events ----------------------
from .random import (  # noqa: F401
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from .._device_errors import OutOfMemoryError  # noqa: F401
from .streams import Event, Stream, StreamContext, current_stream, default_stream, stream  # noqa: F401


def __getattr__(name):
    if name == "default_generators":
        from .random import default_generators

        return default_generators()
    from .._tensor.legacy_types import cuda_classes

    if name in cuda_classes:
        return cuda_classes[name]
    from ..typed_storage import CUDA_STORAGE_CLASSES

    if name in CUDA_STORAGE_CLASSES:
        return CUDA_STORAGE_CLASSES[name]
    raise AttributeError(f"module 'torch.cuda' has no attribute '{name}'")
