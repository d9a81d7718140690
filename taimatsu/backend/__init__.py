"""The only place that knows NumPy from CuPy.

``xp_of(device)`` hands out the array namespace for a device; CuPy is imported lazily, on
the first CUDA tensor, so a CPU-only install never touches it.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np

_cupy = None
_cuda_index = [0]


_no_cupy = [False]  # CuPy failed to import: not retried until a "cupy" module appears


def cupy():
    """Import CuPy on first use; raise PyTorch's error when CUDA is unavailable."""
    global _cupy
    if _cupy is None:
        # A failed import is slow to repeat (a path search each time) and torch.manual_seed
        # asks for the GPUs on every call.
        if _no_cupy[0] and "cupy" not in sys.modules:
            raise AssertionError("Torch not compiled with CUDA enabled")
        try:
            import cupy as cp

            if cp.cuda.runtime.getDeviceCount() < 1:
                raise RuntimeError
        except ImportError:
            _no_cupy[0] = True
            raise AssertionError("Torch not compiled with CUDA enabled") from None
        except Exception:  # noqa: BLE001 - any failure to reach a GPU means no CUDA
            raise AssertionError("Torch not compiled with CUDA enabled") from None
        _cupy = cp
        _watch_peaks(cp)
        _translate_out_of_memory(cp)
    return _cupy


def _translate_out_of_memory(cp) -> None:
    """Route CuPy's allocations through ``_device_errors.oom_translating``, unless the user
    gave CuPy an allocator of their own (managed memory, another pool), which is left alone."""
    from .._device_errors import oom_translating

    pool = cp.get_default_memory_pool()
    with contextlib.suppress(AttributeError):  # a CuPy without allocator switching
        if cp.cuda.get_allocator() == pool.malloc:
            cp.cuda.set_allocator(oom_translating(cp, pool))


_peaks = [0, 0]  # the most bytes used / held by CuPy's default pool (torch.cuda.max_memory_*)


def _watch_peaks(cp) -> None:
    """Track the pool's peaks with a ``cupy.cuda.MemoryHook`` (CuPy's pool keeps none)."""
    pool = cp.get_default_memory_pool()

    class PeakHook(cp.cuda.MemoryHook):
        name = "TaimatsuPeakHook"

        def malloc_postprocess(self, **kw) -> None:
            _peaks[0] = max(_peaks[0], pool.used_bytes())
            _peaks[1] = max(_peaks[1], pool.total_bytes())

    _peaks[:] = [pool.used_bytes(), pool.total_bytes()]
    # Installed for the life of the process; a CuPy without hooks leaves the peaks to the
    # values seen at queries.
    with contextlib.suppress(Exception):
        PeakHook().__enter__()


def memory_peaks() -> tuple[int, int]:
    return _peaks[0], _peaks[1]


def reset_memory_peaks(used: int, held: int) -> None:
    _peaks[:] = [used, held]


def cuda_available() -> bool:
    try:
        cupy()
        return True
    except AssertionError:
        return False


def current_cuda_index() -> int:
    return _cuda_index[0]


def xp_of(device) -> object:
    return cupy_on(device) if device.type == "cuda" else np  # meta tensors are NumPy arrays too


def cupy_on(device) -> object:
    """CuPy, with ``device``'s GPU made CuPy's current device (PyTorch's device guard).

    An op fetches its array namespace for its inputs' device through here, so its kernels run
    and its result is allocated on the inputs' GPU whatever ``torch.cuda.current_device()`` is
    (CuPy refuses to launch a kernel on arrays of another device). The switch is left in place
    after the op: CuPy's current device is the last op's, while taimatsu's own current device
    (``current_cuda_index``: new tensors, ``torch.cuda.current_device()``) is unchanged."""
    cp = cupy()
    index = device.index or 0
    if cp.cuda.runtime.getDevice() != index:
        cp.cuda.Device(index).use()
    return cp


def is_cupy_array(a) -> bool:
    return type(a).__module__.startswith("cupy")


def linalg_errors(xp):
    """A context in which ``xp.linalg`` reports a singular matrix by raising NumPy's
    LinAlgError: NumPy always does; CuPy only under ``cupyx.errstate(linalg="raise")`` (by
    default it returns inf/NaN without looking at cuSOLVER's info, where PyTorch raises)."""
    if xp is np:
        return contextlib.nullcontext()
    import cupyx

    return cupyx.errstate(linalg="raise")


def writeable(a) -> bool:
    """Whether ``a``'s memory may be written: NumPy's flag; a CuPy array always may (its
    ``flags`` have no ``writeable``)."""
    return getattr(a.flags, "writeable", True)


def to_device(array, device):
    """Copy ``array`` to ``device`` (returns it unchanged when already there)."""
    if device.type == "meta":
        from .._meta import to_meta

        return to_meta(array)
    if device.type == "cpu":
        return array.get() if is_cupy_array(array) else array
    cp = cupy_on(device)  # the copy's device stays current: the op that follows runs there
    if is_cupy_array(array) and array.device.id != (device.index or 0):
        return cp.array(array, copy=True)  # peer copy to another GPU
    return cp.asarray(array)


def pin(array: np.ndarray) -> np.ndarray:
    """A copy of a host array in page-locked memory (``cupyx.empty_pinned``); PyTorch's error
    when no accelerator is there."""
    if not cuda_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    import cupyx

    out = cupyx.empty_pinned(array.shape, array.dtype)
    np.copyto(out, array)
    return out


def is_pinned(array) -> bool:
    """True for a host array in page-locked memory (asks the CUDA runtime)."""
    if _cupy is None or is_cupy_array(array) or not array.size:
        return False
    ptr = array.__array_interface__["data"][0]
    return int(_cupy.cuda.runtime.pointerGetAttributes(ptr).type) == 1  # cudaMemoryTypeHost


def to_numpy(array) -> np.ndarray:
    if is_cupy_array(array):
        raise_pending()
        return array.get()
    return array


# ---- checks of data on the device ---------------------------------------------------------------
# A check that needs the data (an index out of range) must not stop a CUDA stream to read one
# flag back, as PyTorch's device-side asserts do not: on CUDA the flag stays on the device and is
# read at the next synchronisation of ours (``to_numpy``, ``Tensor.item``, ``torch.cuda.synchronize``)
# or when _MAX_PENDING have accumulated, all in one transfer. The error is then raised there, with
# the message the CPU raises at once (PyTorch's CUDA one is "device-side assert triggered").
_pending: list = []
_MAX_PENDING = 64


def check(bad, error) -> None:
    """Raise ``error()`` if the 0-d boolean array ``bad`` is true: at once for a host array,
    at the next synchronisation for a CUDA one."""
    if not is_cupy_array(bad):
        if bad:
            raise error()
        return
    _pending.append((bad, error))
    if len(_pending) >= _MAX_PENDING:
        raise_pending()


def raise_pending() -> None:
    """Read the pending device checks back (one transfer) and raise the first that failed."""
    if not _pending:
        return
    items = _pending[:]
    _pending.clear()
    flags = cupy().stack([b.reshape(()) for b, _ in items]).get()
    for flag, (_, error) in zip(flags, items):
        if flag:
            raise error()
