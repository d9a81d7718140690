"""The default DDP communication hooks: average a bucket as it is, or through float16/bfloat16.

Each takes ``(process_group, bucket)`` (``process_group`` None = the default group) and
returns a Future of the averaged bucket buffer, as PyTorch's ``default_hooks`` do: the
buffer is divided by the group size before the sum, so values never exceed their range.
"""

from __future__ import annotations

from .... import distributed as dist


def _group(process_group):
    return process_group if process_group is not None else dist.group.WORLD


def _average(process_group, tensor):
    """Divide ``tensor`` by the group size and all-reduce it: a Future of the result."""
    group = _group(process_group)
    tensor.div_(dist.get_world_size(group))
    work = dist.all_reduce(tensor, group=group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group, bucket):
    """Average ``bucket``'s buffer over the group (DDP's own behaviour, as a hook)."""
    return _average(process_group, bucket.buffer())


def _compress_hook(dtype, process_group, bucket):
    buffer = bucket.buffer()
    compressed = _average(process_group, buffer.to(dtype))

    def decompress(fut):
        buffer.copy_(fut.value())
        return buffer

    return compressed.then(decompress)


def fp16_compress_hook(process_group, bucket):
    """Average ``bucket`` in float16 (half the bytes on the wire), then cast back."""
    from .... import float16

    return _compress_hook(float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """Average ``bucket`` in bfloat16, then cast back."""
    from .... import bfloat16

    return _compress_hook(bfloat16, process_group, bucket)
