"""The CPU's flush-to-zero and denormals-are-zero modes (``torch.set_flush_denormal``).

On x86-64 both are bits of the SSE control register MXCSR: FTZ (bit 15) writes a denormal result
as zero, DAZ (bit 6) reads a denormal operand as zero. PyTorch sets them with ``_mm_setcsr``; here
glibc's ``fegetenv``/``fesetenv`` (from libm, through ctypes) read the floating-point environment,
and write it back with only those two bits changed (rounding mode and exception masks kept).

MXCSR belongs to a thread: the setting applies to the calling thread, and to the threads it
creates afterwards (a new thread inherits its creator's floating-point environment). Threads that
already exist keep theirs: NumPy's BLAS pool, and taimatsu's helper threads for large
elementwise work, so a product or a large op may still see denormals.
"""

from __future__ import annotations

import ctypes
import functools
import platform

_FTZ_DAZ = 0x8040
_FENV_SIZE, _MXCSR_OFFSET = 32, 28  # glibc's x86-64 fenv_t: the x87 environment, then __mxcsr


@functools.cache
def _libm():
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    try:
        lib = ctypes.CDLL("libm.so.6")
        lib.fegetenv.argtypes = lib.fesetenv.argtypes = [ctypes.c_void_p]
        return lib
    except (OSError, AttributeError):  # not glibc
        return None


def set_flush_denormal(mode: bool) -> bool:
    """Turn FTZ and DAZ on (``mode``) or off for the calling thread. True when done, False where
    unsupported (not x86-64 with glibc), as PyTorch returns False on a CPU without the modes."""
    lib = _libm()
    if lib is None:
        return False
    env = ctypes.create_string_buffer(_FENV_SIZE)
    if lib.fegetenv(env) != 0:
        return False
    field = (ctypes.c_uint32).from_buffer(env, _MXCSR_OFFSET)
    field.value = field.value | _FTZ_DAZ if mode else field.value & ~_FTZ_DAZ
    return lib.fesetenv(env) == 0
