"""``torch.set_num_threads`` / ``get_num_threads``: the thread count of the BLAS NumPy loaded.

NumPy offers no API for this, so the OpenBLAS libraries mapped into the process (NumPy's and
SciPy's wheels each bundle one) are found in /proc/self/maps and driven through their C entry
points. Elementwise NumPy loops are single-threaded whatever this says. Where no OpenBLAS is
found (another BLAS, another OS) the setting is remembered but has no effect.
"""

from __future__ import annotations

import ctypes
import os

_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)
_GETTERS = (
    "scipy_openblas_get_num_threads64_",
    "openblas_get_num_threads64_",
    "openblas_get_num_threads",
)
_requested = [None]


def _blas_libraries() -> list:
    try:
        with open("/proc/self/maps") as f:
            paths = sorted(
                {w for w in f.read().split() if "openblas" in os.path.basename(w) and ".so" in w}
            )
    except OSError:
        return []
    libs = []
    for path in paths:
        try:
            libs.append(ctypes.CDLL(path))
        except OSError:
            continue
    return libs


def _entry(lib, names):
    for name in names:
        fn = getattr(lib, name, None)
        if fn is not None:
            return fn
    return None


def get_num_threads() -> int:
    for lib in _blas_libraries():
        fn = _entry(lib, _GETTERS)
        if fn is not None:
            return int(fn())
    return _requested[0] or os.cpu_count() or 1


def set_num_threads(num: int) -> None:
    if not isinstance(num, int) or isinstance(num, bool):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _requested[0] = num
    from .parallel import set_threads

    set_threads(num)
    for lib in _blas_libraries():
        fn = _entry(lib, _SETTERS)
        if fn is not None:
            fn(ctypes.c_int(num))


def get_num_interop_threads() -> int:
    return 1


def set_num_interop_threads(num: int) -> None:
    if not isinstance(num, int) or num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
