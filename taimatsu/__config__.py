"""``torch.__config__``: what this build is made of (``show``) and its threads (``parallel_info``).

The texts keep PyTorch's layout and keys (``at::get_num_threads() : N``, the environment
variables) so scripts that print or parse them run; they describe taimatsu's own parts (NumPy
and the BLAS it links), not PyTorch's C++ build.
"""

from __future__ import annotations

import os

import numpy as np


def _blas() -> str:
    """The BLAS NumPy was built with, from NumPy's build record ('unknown' when absent)."""
    try:
        deps = np.__config__.CONFIG["Build Dependencies"]
        blas = deps["blas"]
        return f"{blas['name']} {blas.get('version', '')}".strip()
    except (AttributeError, KeyError, TypeError):
        return "unknown"


def show() -> str:
    """A multi-line description of the build, as ``torch.__config__.show()``."""
    from .version import taimatsu

    return (
        f"taimatsu {taimatsu} built with:\n"
        f"  - NumPy {np.__version__}\n"
        f"  - BLAS: {_blas()}\n"
        "  - Build settings: pure Python (no compiled extension), CPU kernels from NumPy\n"
    )


def parallel_info() -> str:
    """The thread settings, in ``torch.__config__.parallel_info()``'s layout."""
    from .backend import threads

    env = "".join(
        f"\t{name} : {os.environ.get(name, '[not set]')}\n"
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
    )
    return (
        "ATen/Parallel:\n"
        f"\tat::get_num_threads() : {threads.get_num_threads()}\n"
        f"\tat::get_num_interop_threads() : {threads.get_num_interop_threads()}\n"
        f"{_blas()}\n"
        f"std::thread::hardware_concurrency() : {os.cpu_count()}\n"
        f"Environment variables:\n{env}"
        "ATen parallel backend: NumPy (BLAS threads)\n"
    )
