"""``torch.nn.grad``: the input and weight gradients of a convolution, as functions.

Each runs the convolution on a stand-in tensor of the requested size and differentiates it
with ``autograd.grad`` against ``grad_output``; with ``create_graph`` on when an argument
requires grad, so the results are differentiable again.
"""

from __future__ import annotations

from .. import autograd
from ..autograd.grad_mode import enable_grad
from ..ops.creation.factories import zeros
from . import functional as F

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def _grad(n, wrt_input, size, other, grad_output, stride, padding, dilation, groups):
    """conv{n}d's gradient at ``grad_output`` with respect to its input (``wrt_input``) or its
    weight, of the given ``size``; ``other`` is the weight or the input."""
    with enable_grad():
        t = zeros(
            tuple(size),
            dtype=grad_output.dtype,
            device=grad_output.device,
            requires_grad=True,
        )
        x, w = (t, other) if wrt_input else (other, t)
        out = _CONV[n](x, w, None, stride, padding, dilation, groups)
        graph = other.requires_grad or grad_output.requires_grad
        return autograd.grad(out, t, grad_output, create_graph=graph)[0]


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _grad(1, True, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _grad(1, False, weight_size, input, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _grad(2, True, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _grad(2, False, weight_size, input, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _grad(3, True, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _grad(3, False, weight_size, input, grad_output, stride, padding, dilation, groups)
