"""``torch.nn.grad``: the input and weight gradients of a convolution, as functions.

Each runs the convolution on a stand-in tensor of the requested size and differentiates it
with ``autograd.grad`` against ``grad_output``; with ``create_graph`` on when an argument
requires grad, so the results are differentiable again.
"""

from __future__ import annotations

from .. import autograd
from ..autograd.grad_mode import enable_grad
from ..ops.creation import zeros
from . import functional as F

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def _input_grad(n, input_size, weight, grad_output, stride, padding, dilation, groups):
    with enable_grad():
        x = zeros(
            tuple(input_size),
            dtype=grad_output.dtype,
            device=grad_output.device,
            requires_grad=True,
        )
        out = _CONV[n](x, weight, None, stride, padding, dilation, groups)
        graph = weight.requires_grad or grad_output.requires_grad
        return autograd.grad(out, x, grad_output, create_graph=graph)[0]


def _weight_grad(n, input, weight_size, grad_output, stride, padding, dilation, groups):
    with enable_grad():
        w = zeros(
            tuple(weight_size),
            dtype=grad_output.dtype,
            device=grad_output.device,
            requires_grad=True,
        )
        out = _CONV[n](input, w, None, stride, padding, dilation, groups)
        graph = input.requires_grad or grad_output.requires_grad
        return autograd.grad(out, w, grad_output, create_graph=graph)[0]


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _input_grad(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _weight_grad(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _input_grad(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _weight_grad(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _input_grad(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _weight_grad(3, input, weight_size, grad_output, stride, padding, dilation, groups)
