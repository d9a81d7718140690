"""The ``fake_cupy`` fixture: the CuPy test double (cupy_double.py) installed for one test."""

import sys

import pytest


@pytest.fixture
def fake_cupy():
    """Install the CuPy double as ``cupy``/``cupyx``; taimatsu then sees two CUDA devices.
    Yields the double's module (``fake_cupy.STATS`` counts host synchronisations)."""
    import cupy_double

    from taimatsu import backend
    from taimatsu.backend import cuda_random

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
        cuda_random._default.clear()  # each test starts from fresh CUDA generators
        cupy_double._HOOKS.clear()


class _HostDraws:
    """A CUDA sampler that draws with the CPU generator (PyTorch's CPU stream) and uploads the
    numbers to ``device``: the pre-CuPy-generator behaviour, for tests that compare a CUDA run
    with the CPU run number for number (the nn table) rather than the generator itself."""

    def __init__(self, cpu_generator, device) -> None:
        self._g, self._device = cpu_generator, device

    def __getattr__(self, name):
        from taimatsu.backend import is_cupy_array, to_device

        sample = getattr(self._g, name)

        def draw(*args, **kwargs):
            args = [a.get() if is_cupy_array(a) else a for a in args]
            return to_device(sample(*args, **kwargs), self._device)

        return draw


@pytest.fixture
def cpu_numbers_on_cuda(monkeypatch):
    """CUDA random ops draw the CPU generator's numbers (see _HostDraws)."""
    from taimatsu.ops.creation import random

    gen = random._gen

    def host_gen(generator, device=None):
        if device is not None and device.type == "cuda":
            return _HostDraws(gen(None, None), device)
        return gen(generator, device)

    monkeypatch.setattr(random, "_gen", host_gen)
