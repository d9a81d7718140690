"""The ``fake_cupy`` fixture: the CuPy test double (cupy_double.py) installed for one test."""

import sys

import pytest


@pytest.fixture
def fake_cupy():
    """Install the CuPy double as ``cupy``/``cupyx``; taimatsu then sees two CUDA devices.
    Yields the double's module (``fake_cupy.STATS`` counts host synchronisations)."""
    import cupy_double

    from taimatsu import backend

    saved = {k: sys.modules.get(k) for k in cupy_double.MODULES}
    cupy_double.install()
    backend._cupy, backend._cuda_index[0] = None, 0
    try:
        yield cupy_double
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
        backend._cupy, backend._cuda_index[0] = None, 0
        backend._pending.clear()  # device checks left unread by the test
        cupy_double._HOOKS.clear()
