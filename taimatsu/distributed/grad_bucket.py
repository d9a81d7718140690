"""``torch.distributed.GradBucket``: what a DDP communication hook receives.

A bucket is one flat buffer holding the gradients of several parameters (the views
``gradients()`` returns, in the order of ``parameters()``). A hook reduces ``buffer()`` and
returns a ``torch.futures.Future`` of the reduced buffer.
"""

from __future__ import annotations


class GradBucket:
    def __init__(self, index: int, buffer, parameters: list, offsets: list[int], is_last: bool) -> None:  # fmt: skip
        self._index = index
        self._buffer = buffer
        self._parameters = parameters
        self._offsets = offsets
        self._is_last = is_last

    def index(self) -> int:
        return self._index

    def buffer(self):
        """The flat tensor of this bucket's gradients."""
        return self._buffer

    def set_buffer(self, buffer) -> None:
        self._buffer.copy_(buffer)

    def gradients(self) -> list:
        """One view of ``buffer()`` per parameter, shaped like the parameter."""
        return [
            self._buffer[o : o + p.numel()].view(p.shape)
            for p, o in zip(self._parameters, self._offsets)
        ]

    def parameters(self) -> list:
        return list(self._parameters)

    def is_last(self) -> bool:
        """True for the last bucket to be reduced in an iteration."""
        return self._is_last
