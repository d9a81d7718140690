"""torch.OutOfMemoryError (torch.cuda.OutOfMemoryError) and torch.AcceleratorError, and CuPy's
failed allocations raised as PyTorch's OutOfMemoryError (on the CuPy double, whose pool fails past
``set_limit`` as CuPy's does; PyTorch's CPU wheel, the oracle, cannot run out of GPU memory, so
the message is checked against the form of PyTorch's own, as its allocator writes it)."""

from __future__ import annotations

import re

import pytest

import taimatsu as T
from taimatsu._device_errors import format_size

torch = pytest.importorskip("torch")


def test_classes_are_pytorchs():
    assert T.cuda.OutOfMemoryError is T.OutOfMemoryError
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
    for ours, theirs in (
        (T.OutOfMemoryError, torch.OutOfMemoryError),
        (T.AcceleratorError, torch.AcceleratorError),
    ):
        assert [c.__name__ for c in ours.__mro__] == [c.__name__ for c in theirs.__mro__]
        assert (ours.__module__, ours.__qualname__) == ("taimatsu", theirs.__qualname__)
    assert not issubclass(T.OutOfMemoryError, MemoryError)  # PyTorch's is a RuntimeError only


@pytest.mark.parametrize(
    "n, text",
    [(0, "0 bytes"), (512, "512 bytes"), (1024, "1024 bytes"), (1025, "1.00 KiB"), (1536, "1.50 KiB"),
     (1 << 20, "1024.00 KiB"), ((1 << 20) + 1, "1.00 MiB"), (20 << 20, "20.00 MiB"), (1 << 30, "1024.00 MiB"),
     (2 << 30, "2.00 GiB"), (int(79.19 * (1 << 30)), "79.19 GiB")],
)  # fmt: skip
def test_sizes_print_as_pytorchs_allocator_prints_them(n, text):
    assert format_size(n) == text


_MESSAGE = re.compile(
    r"CUDA out of memory\. Tried to allocate (?P<size>[\d.]+ (?:bytes|KiB|MiB|GiB))\. GPU (?P<gpu>\d+) has a "
    r"total capacity of [\d.]+ (?:KiB|MiB|GiB) of which [\d.]+ (?:bytes|KiB|MiB|GiB) is free\. Of the "
    r"allocated memory (?P<used>[\d.]+ (?:bytes|KiB|MiB|GiB)) is allocated by PyTorch, and [\d.]+ "
    r"(?:bytes|KiB|MiB|GiB) is reserved by PyTorch but unallocated\. If reserved but unallocated memory is "
    r"large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation\.  See "
    r"documentation for Memory Management  \(https://pytorch\.org/docs/stable/notes/cuda\.html"
    r"#environment-variables\)$"
)


def test_cupy_out_of_memory_is_pytorchs_error(fake_cupy):
    pool = fake_cupy.MODULES["cupy"].get_default_memory_pool()
    keep = T.zeros(1024, device="cuda")  # 4 KiB in use before the failure
    pool.set_limit(size=pool.used_bytes() + (1 << 20))
    with pytest.raises(T.cuda.OutOfMemoryError) as info:
        T.empty(2 << 20, device="cuda")  # 8 MiB
    m = _MESSAGE.match(str(info.value))
    assert m, str(info.value)
    assert (m["size"], m["gpu"]) == ("8.00 MiB", "0")
    assert isinstance(info.value.__cause__, fake_cupy.OutOfMemoryError)
    assert isinstance(info.value, RuntimeError)
    # the pool still serves what fits, and the tensor made before is intact
    assert T.ones(1000, device="cuda").sum().item() == 1000.0 and keep.sum().item() == 0.0


def test_a_batch_size_search_catches_it(fake_cupy):
    """The usual pattern: halve the batch until a step fits in the device's memory."""
    pool = fake_cupy.MODULES["cupy"].get_default_memory_pool()
    model = T.nn.Sequential(T.nn.Linear(256, 1024), T.nn.ReLU(), T.nn.Linear(1024, 10)).to("cuda")
    pool.set_limit(size=pool.used_bytes() + (3 << 20))
    batch, tried = 4096, []
    while True:
        tried.append(batch)
        try:
            out = model(T.randn(batch, 256, device="cuda"))
            out.sum().backward()
            break
        except T.OutOfMemoryError:
            batch //= 2
            model.zero_grad(set_to_none=True)
    assert tried[0] == 4096 and len(tried) > 1 and out.shape == (batch, 10)
    assert model[0].weight.grad is not None and model[0].weight.grad.device.type == "cuda"


def test_a_users_own_allocator_is_left_alone(fake_cupy):
    calls = []

    def mine(size):
        calls.append(size)
        return fake_cupy.MODULES["cupy"].get_default_memory_pool().malloc(size)

    fake_cupy.set_allocator(mine)
    T.zeros(16, device="cuda")
    assert fake_cupy.get_allocator() is mine and calls == [64]
