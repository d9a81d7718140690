"""``torch.cuda``'s random-number functions: one generator per GPU (backend/cuda_random.py).

They seed and rewind the generators that CUDA tensors draw from. Deviation: the numbers are
CuPy's (cuRAND Philox, re-keyed per call), not PyTorch's Philox stream; the same seed gives the
same numbers run to run, and a state from ``get_rng_state`` restores them.

Without CUDA they answer as PyTorch's CPU-only build: the seeding calls do nothing,
``get_rng_state_all()`` is ``[]``, ``default_generators`` is ``()``, and ``get_rng_state`` /
``initial_seed`` raise "Torch not compiled with CUDA enabled".
"""

from __future__ import annotations

from .. import backend

__all__ = [
    "get_rng_state", "get_rng_state_all", "initial_seed", "manual_seed", "manual_seed_all",
    "seed", "seed_all", "set_rng_state", "set_rng_state_all",
]  # fmt: skip


def _generator(device):
    from ..backend.cuda_random import default_cuda_generator
    from . import _index

    backend.cupy()  # PyTorch's AssertionError without CUDA
    return default_cuda_generator(_index(device))


def _indices() -> range:
    from . import device_count

    return range(device_count())


def manual_seed(seed: int) -> None:
    """Seed the current GPU's generator; a no-op without CUDA (as in PyTorch)."""
    if backend.cuda_available():
        _generator(None).manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    """Seed every GPU's generator; a no-op without CUDA."""
    for i in _indices():
        _generator(i).manual_seed(int(seed))


def seed() -> None:
    """Seed the current GPU's generator from the OS."""
    if backend.cuda_available():
        _generator(None).seed()


def seed_all() -> None:
    """Seed every GPU's generator with one seed from the OS."""
    if backend.cuda_available():
        manual_seed_all(_generator(0).seed())


def initial_seed() -> int:
    return _generator(None).initial_seed()


def get_rng_state(device="cuda"):
    """The state of a GPU's generator: a CPU ByteTensor of 16 bytes (seed, offset)."""
    from .. import _dtype as D
    from .._device import cpu
    from .._tensor.core import _wrap

    return _wrap(_generator(device).get_state(), D.uint8, cpu)


def set_rng_state(new_state, device="cuda") -> None:
    """Restore a GPU's generator; a no-op without CUDA (PyTorch queues it for a CUDA that never
    comes)."""
    if backend.cuda_available():
        _generator(device).set_state(new_state.detach().cpu()._data)


def get_rng_state_all() -> list:
    return [get_rng_state(i) for i in _indices()]


def set_rng_state_all(new_states) -> None:
    for i, state in zip(_indices(), new_states):
        set_rng_state(state, i)


def default_generators() -> tuple:
    """``torch.cuda.default_generators``: a ``torch.Generator`` over each GPU's generator."""
    from .._device import device
    from ..backend.cuda_random import default_cuda_generator
    from ..ops.creation.random import Generator

    out = []
    for i in _indices():
        g = Generator.__new__(Generator)
        g.device, g._impl = device("cuda", i), default_cuda_generator(i)
        out.append(g)
    return tuple(out)
