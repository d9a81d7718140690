"""The errors PyTorch raises for an accelerator's failures: ``torch.OutOfMemoryError`` (also
``torch.cuda.OutOfMemoryError``) and ``torch.AcceleratorError``, both RuntimeErrors.

CuPy reports a failed device allocation as its own ``cupy.cuda.memory.OutOfMemoryError`` (a
MemoryError); ``backend.cupy()`` routes CuPy's allocations through ``oom_translating`` so that a
script's ``except torch.cuda.OutOfMemoryError`` (a batch-size search, a retry with a smaller
batch) catches it, with PyTorch's message built from CuPy's pool and the device's free memory.
"""

from __future__ import annotations


class OutOfMemoryError(RuntimeError):
    """A device allocation failed (PyTorch's ``torch.OutOfMemoryError``)."""

    __module__ = "taimatsu"  # tracebacks name it as PyTorch's name torch.OutOfMemoryError


class AcceleratorError(RuntimeError):
    """An accelerator's runtime reported an error (PyTorch's ``torch.AcceleratorError``)."""

    __module__ = "taimatsu"


def format_size(n: int) -> str:
    """Bytes as PyTorch's allocator messages print them: bytes, then KiB, MiB, GiB with two
    decimals, each unit up to and including 1024 of the one below."""
    if n <= 1024:
        return f"{n} bytes"
    if n <= 1 << 20:
        return f"{n / 1024:.2f} KiB"
    if n <= 1 << 30:
        return f"{n / (1 << 20):.2f} MiB"
    return f"{n / (1 << 30):.2f} GiB"


def out_of_memory_message(
    size: int, device: int, free: int, total: int, used: int, held: int
) -> str:
    """PyTorch's CUDA out-of-memory message, but for its sentence on the whole process's device
    memory (PyTorch reads it from NVML): ``used``/``held`` are the pool's bytes in live tensors
    and in all (live or cached for reuse)."""
    return (
        f"CUDA out of memory. Tried to allocate {format_size(size)}. GPU {device} has a total capacity of "
        f"{format_size(total)} of which {format_size(free)} is free. Of the allocated memory "
        f"{format_size(used)} is allocated by PyTorch, and {format_size(max(0, held - used))} is reserved by "
        "PyTorch but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
        "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
    )


def oom_translating(cp, pool):
    """An allocator for ``cupy.cuda.set_allocator``: ``pool.malloc``, with CuPy's out-of-memory
    error raised again as ``OutOfMemoryError`` (CuPy's as its cause)."""
    cupy_oom = cp.cuda.memory.OutOfMemoryError

    def malloc(size):
        try:
            return pool.malloc(size)
        except cupy_oom as e:
            device = cp.cuda.runtime.getDevice()
            try:
                free, total = (int(v) for v in cp.cuda.runtime.memGetInfo())
            except Exception:  # noqa: BLE001 - the message does without the device's figures
                free = total = 0
            msg = out_of_memory_message(
                int(size), device, free, total, pool.used_bytes(), pool.total_bytes()
            )
            raise OutOfMemoryError(msg) from e

    return malloc
