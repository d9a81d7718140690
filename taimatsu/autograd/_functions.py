"""``torch.autograd._functions``: the legacy autograd Functions PyTorch still uses, ``Resize`` (behind
the deprecated out-of-place ``Tensor.resize`` and ``Tensor.resize_as``)."""

from __future__ import annotations

import math

from .function import Function


class Resize(Function):
    """The tensor reshaped to ``sizes`` (a contiguous view of it, or of a contiguous copy); the
    number of elements may not change. The gradient is reshaped back."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        numel = math.prod(sizes)
        if tensor.numel() != numel:
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but the "
                f"given tensor has a size of {'x'.join(map(str, tensor.size()))} ({tensor.numel()} "
                "elements). autograd's resize can only change the shape of a given tensor, while "
                "preserving the number of elements. "
            )
        ctx.input_sizes = tensor.size()
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.contiguous().view(ctx.input_sizes), None
