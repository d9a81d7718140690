"""Activation functions of ``torch.nn.functional`` (kernels in ``ops/nn/activation.py``)."""

from __future__ import annotations

import numbers

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor
from ...ops._dispatch import need_tensor
from ...ops.creation.factories import empty_like, zeros_like
from ...ops.nn import activation as _a

gelu = _a.gelu
logsigmoid = _a.logsigmoid
softplus = _a.softplus
glu = _a.glu
prelu = _a.prelu


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _a.silu_(input) if inplace else _a.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _a.mish_(input) if inplace else _a.mish(input)


def _number(name: str, arg: str, position: int, value) -> None:
    """PyTorch's parser error for a Scalar argument that is no number."""
    if not isinstance(value, (numbers.Number, np.number, np.bool_, Tensor)):
        from ..._tensor_arguments import type_name

        raise TypeError(
            f"{name}(): argument '{arg}' (position {position}) must be Number, not {type_name(value)}"
        )


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    _number("leaky_relu_" if inplace else "leaky_relu", "negative_slope", 2, negative_slope)
    return (
        _a.leaky_relu_(input, negative_slope) if inplace else _a.leaky_relu(input, negative_slope)
    )


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    _number("leaky_relu_", "negative_slope", 2, negative_slope)
    return _a.leaky_relu_(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return (_a.elu_op_ if inplace else _a.elu_op)(input, alpha, 1.0, 1.0)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return _a.elu_op_(input, alpha, 1.0, 1.0)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    # PyTorch runs SELU through the ELU kernel (grad_fn EluBackward0).
    return (_a.elu_op_ if inplace else _a.elu_op)(input, _a.SELU_ALPHA, _a.SELU_SCALE, 1.0)


def selu_(input: Tensor) -> Tensor:
    return selu(input, True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return (_a.celu_op_ if inplace else _a.celu_op)(input, alpha, 1.0, 1.0 / alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, True)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    need_tensor("hardtanh", input)
    # PyTorch's hardtanh is a clamp: no complex kernel, and bool refused (NumPy would clip both).
    if input.is_complex():
        raise NotImplementedError("clamp is not supported for complex types")
    if input.dtype is D.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    return (_a.hardtanh_ if inplace else _a.hardtanh)(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return _a.hardsigmoid_(input) if inplace else _a.hardsigmoid(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _a.hardswish_(input) if inplace else _a.hardswish(input)


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return _a.softshrink_op(input, lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _a.hardshrink_op(input, lambd)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    return (_a.threshold_op_ if inplace else _a.threshold_op)(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _a.threshold_op_(input, threshold, value)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:  # fmt: skip
    """Randomized leaky ReLU: slopes drawn from U(lower, upper) in training, their mean in eval."""
    return (_a.rrelu_ if inplace else _a.rrelu)(input, lower, upper, training)


def rrelu_(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    return _a.rrelu_(input, lower, upper, training)


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """Softmax of ``(logits + Gumbel noise) / tau``; ``hard`` gives one-hot samples with the soft gradient."""
    gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
