"""``torch.autograd``: backward, grad, grad modes, Function, forward AD, gradcheck."""

from __future__ import annotations

from . import forward_ad, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import run_backward
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import gradcheck, gradgradcheck
from .variable import Variable

__all__ = [
    "Function", "FunctionCtx", "Variable", "backward", "detect_anomaly", "enable_grad", "forward_ad",
    "grad", "gradcheck", "gradgradcheck", "graph", "inference_mode", "is_grad_enabled", "no_grad",
    "once_differentiable", "set_detect_anomaly", "set_grad_enabled", "is_inference_mode_enabled",
]  # fmt: skip


def _tensors(x):
    from .._tensor import Tensor

    if x is None:
        return None
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _make_grads(outputs, grads, is_grads_batched=False):
    """The seed gradients: given ones, or ones for scalar outputs (PyTorch's rules)."""
    from .._tensor import Tensor

    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if o._rg and o._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if o._rg and o._dtype.category != 2:
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {o.dtype}"
                )
            g = o.new_ones(o.shape) if o._rg else None
        elif isinstance(g, Tensor):
            if g.shape != o.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a shape "
                    f"of {o.shape}."
                )
            if g._dtype.category != o._dtype.category:
                raise RuntimeError(
                    f"For complex Tensors, both grad_output and output are required to have the same dtype. "
                    f"Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] has a dtype of {o.dtype}."
                )
        else:
            from ..ops.creation import tensor

            g = tensor(g, dtype=o._dtype)
        out.append(g)
    return out


def _check_outputs(outputs):
    for i, o in enumerate(outputs):
        if not o._rg:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the leaves."""
    tensors = _tensors(tensors)
    grad_tensors = _tensors(grad_tensors) if grad_tensors is not None else [None] * len(tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(
            f"grad_tensors must have the same length as tensors. Got {len(grad_tensors)} and {len(tensors)}"
        )
    _check_outputs(tensors)
    grads = _make_grads(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _tensors(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        captured = run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs)
        from .engine import accumulate_grad

        for t, g in zip(inputs, captured):
            if g is not None:
                accumulate_grad(t, g) if t.grad_fn is None else _nonleaf_accumulate(t, g)
        return
    run_backward(tensors, grads, retain_graph, create_graph)


def _nonleaf_accumulate(t, g):
    t._grad = g.detach() if t._grad is None else t._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):  # fmt: skip
    """Gradients of ``outputs`` with respect to ``inputs``, returned (not accumulated)."""
    outputs = _tensors(outputs)
    not isinstance(inputs, (list, tuple))
    inputs = _tensors(inputs)
    grad_outputs = _tensors(grad_outputs) if grad_outputs is not None else [None] * len(outputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    for i in inputs:
        if not i._rg:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    _check_outputs(outputs)
    grads = _make_grads(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    captured = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs, accumulate=False)
    result = []
    for t, g in zip(inputs, captured):
        if g is None:
            if materialize_grads:
                g = t.new_zeros(t.shape)
            elif not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. Set "
                    "allow_unused=True if this is the desired behavior."
                )
        elif not create_graph:
            g = g.detach()
        result.append(g)
    return tuple(result)
