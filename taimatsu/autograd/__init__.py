"""``torch.autograd``: backward, grad, grad modes, Function, forward AD, gradcheck."""

from __future__ import annotations

from . import forward_ad, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import run_backward
from .explain import explain, trace_origins
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    is_multithreading_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from .gradcheck import gradcheck, gradgradcheck
from .graph import GradientEdge
from .graph_view import graph_view
from .variable import Variable

__all__ = [
    "Function",
    "FunctionCtx",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "explain",
    "forward_ad",
    "functional",
    "grad",
    "graph_view",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_multithreading_enabled",
    "no_grad",
    "once_differentiable",
    "set_detect_anomaly",
    "set_grad_enabled",
    "set_multithreading_enabled",
    "trace_origins",
]  # fmt: skip


def _tensors(x):
    from .._tensor.core import Tensor

    if x is None:
        return None
    if isinstance(x, (Tensor, GradientEdge)):
        return [x]
    return list(x)


def _make_grads(outputs, grads):
    """The seed gradients: the given ones (checked), or ones for scalar outputs."""
    from .._tensor.core import Tensor

    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if o.__class__ is GradientEdge:  # no tensor to take a shape from: the seed is required
            if not isinstance(g, Tensor):
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            out.append(g)
            continue
        if g is None:
            if o._rg:
                if o._data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if o._dtype.category != 2:
                    raise RuntimeError(
                        f"grad can be implicitly created only for real scalar outputs but got {o.dtype}"
                    )
                g = o.new_ones(o.shape)
        elif isinstance(g, Tensor):
            if g._data.shape != o._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a shape "
                    f"of {o.shape}."
                )
            if (g._dtype.category == 3) != (o._dtype.category == 3):
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have the same dtype. "
                    f"Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] has a dtype "
                    f"of {o.dtype}."
                )
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        out.append(g)
    return out


def _check_outputs(outputs):
    for i, o in enumerate(outputs):
        if o.__class__ is not GradientEdge and not o._rg:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None) -> None:  # fmt: skip
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the graph's leaves.

    With ``inputs``, only those tensors accumulate; a non-leaf among them gets
    ``retain_grad()`` called on it first, as in PyTorch.
    """
    from .engine import warn_create_graph

    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = _tensors(tensors)
    if inputs is not None:
        inputs = _tensors(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        for t in inputs:
            if t.grad_fn is not None:
                t.retain_grad()
            elif not t._rg:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    grad_tensors = _tensors(grad_tensors) if grad_tensors is not None else [None] * len(tensors)
    _check_outputs(tensors)
    grads = _make_grads(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        warn_create_graph()
    run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False) -> tuple:  # fmt: skip
    """Gradients of ``outputs`` with respect to ``inputs``, returned (nothing is accumulated)."""
    from .._tensor.core import Tensor

    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
            "allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    if not only_inputs:
        import warnings

        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
            "gradient for other parts of the graph, please use torch.autograd.backward.",
            FutureWarning,
            stacklevel=2,
        )
    outputs = _tensors(outputs)
    inputs = _tensors(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    for t in inputs:
        if not isinstance(t, (Tensor, GradientEdge)):
            raise RuntimeError(  # noqa: TRY004 - PyTorch raises RuntimeError
                f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}"
            )
    grad_outputs = _tensors(grad_outputs) if grad_outputs is not None else [None] * len(outputs)
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)  # fmt: skip
    _check_outputs(outputs)  # (PyTorch checks the outputs first)
    for t in inputs:
        if t.__class__ is not GradientEdge and not t._rg:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _make_grads(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    captured = run_backward(
        outputs, grads, retain_graph, create_graph, inputs=inputs, accumulate=False
    )
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if materialize_grads and t.__class__ is GradientEdge:
                raise RuntimeError(
                    "materialize_grads cannot be used when the given input is a GradientEdge"
                )
            if materialize_grads:
                g = t.new_zeros(t.shape)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. Set "
                    "allow_unused=True if this is the desired behavior."
                )
        elif not create_graph and g.grad_fn is not None:
            g = g.detach()
        result.append(g)
    return tuple(result)


def _batched_grad(
    outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize
):
    """``is_grads_batched=True``: one backward pass per slice of the leading dimension (PyTorch vmaps)."""
    from ..ops.shape.copies import stack

    n = None
    for g in grad_outputs:
        if g is not None:
            if g.dim() == 0:
                raise ValueError(
                    "vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that input is a "
                    "Tensor of dimensionality 0 so expected in_dim to satisfy 0 <= in_dim < 0."
                )
            n = g.shape[0]
    per = []
    for k in range(n or 1):
        gos = [g[k] if g is not None else None for g in grad_outputs]
        per.append(grad(outputs, inputs, gos, retain_graph=True, create_graph=create_graph,
                        allow_unused=allow_unused, materialize_grads=materialize))  # fmt: skip
    if not retain_graph and not create_graph:
        for o in outputs:
            _free_graph(o)
    return tuple(
        None if per[0][j] is None else stack([p[j] for p in per]) for j in range(len(inputs))
    )


def _free_graph(t) -> None:
    from .engine import _collect, edge_of

    node = edge_of(t)[0]
    if node is not None:
        for n in _collect([node])[1]:
            n._release()


from . import functional
from . import profiler  # torch.autograd.profiler, the older profiler API
