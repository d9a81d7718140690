"""``torch.onnx.export``: a real ONNX model from a traced forward pass.

The model runs once on the example ``args`` (in eval mode, without gradients) while every op its
code calls is recorded (``tracer.py``); each recorded op is translated to ONNX nodes
(``symbolic.py``); parameters and buffers become initializers named by their ``state_dict`` keys;
ops whose inputs are all constants (``torch.ones(...)`` in ``forward``) are folded into
initializers. The model is checked with ``onnx.checker`` and written to ``f``.

Covered: Linear, Conv1d/2d/3d, max/avg/adaptive pooling, BatchNorm (eval), LayerNorm, Embedding,
Dropout (eval), the common activations, softmax/log_softmax, arithmetic with tensors and numbers,
matmul, mean/sum, casts, reshapes (view, reshape, flatten, (un)squeeze, permute, transpose, expand,
cat, stack, split, chunk, unbind), ``F.scaled_dot_product_attention`` (causal, float and bool
masks) and ``nn.MultiheadAttention`` (attention and key-padding masks, averaged weights), and
the recurrent layers LSTM, GRU and RNN (layers, bidirectional, batch_first, initial states;
recorded as one op each, since their kernel runs no op the trace can see). An op outside this
set raises ``UnsupportedOperatorError`` naming it (an LSTM with ``proj_size``, a PackedSequence or
an unbatched recurrent input too).

Deviations from PyTorch 2.13 (whose default exporter is ``dynamo=True``): shapes are fixed to the
example inputs (``dynamic_axes`` / ``dynamic_shapes`` are refused); indexing (``x[...]``) is not
traced and is refused; the returned ``ONNXProgram`` holds an ``onnx.ModelProto`` (see
``program.py``); inputs are named after ``forward``'s parameters
and outputs ``output`` (or ``output_0``, ...) unless ``input_names`` / ``output_names`` say.
"""

from __future__ import annotations

import inspect
import os

from .._tensor.core import Tensor
from ..autograd.grad_mode import no_grad
from . import errors
from .errors import OnnxExporterError, UnsupportedOperatorError
from .program import ONNXProgram

__all__ = [
    "ONNXProgram",
    "OnnxExporterError",
    "UnsupportedOperatorError",
    "errors",
    "export",
    "is_in_onnx_export",
]

_exporting = [False]


def is_in_onnx_export() -> bool:
    """True while ``export`` runs the model."""
    return _exporting[0]


def export(
    model,
    args=(),
    f=None,
    *,
    kwargs: dict | None = None,
    verbose: bool | None = None,
    input_names=None,
    output_names=None,
    opset_version: int | None = None,
    dynamo: bool = True,
    external_data: bool = True,
    dynamic_shapes=None,
    export_params: bool = True,
    keep_initializers_as_inputs: bool = False,
    dynamic_axes=None,
    **options,
) -> ONNXProgram | None:
    """``torch.onnx.export``; see the module docstring for what is covered. Returns an
    ``ONNXProgram`` with ``dynamo=True`` (the default), ``None`` with ``dynamo=False``, as PyTorch."""
    import onnx

    from .build import build_model

    if dynamic_axes or dynamic_shapes:
        raise OnnxExporterError(
            "taimatsu exports the shapes of the example inputs only; dynamic_axes / dynamic_shapes "
            "are not supported"
        )
    if not export_params:
        raise OnnxExporterError("export_params=False is not supported")
    args = args if isinstance(args, tuple) else (args,)
    if not all(_tensor_leaves(a) for a in args):
        raise OnnxExporterError("the example args must be tensors or (nested) tuples of tensors")
    opset = opset_version or 18
    if opset < 17:
        raise OnnxExporterError(f"opset_version {opset} is not supported; use 17 or later")
    names = list(input_names or _flat_names(_parameter_names(model, len(args)), args))
    _exporting[0] = True
    try:
        with _eval_mode(model), no_grad():
            proto = build_model(model, args, kwargs or {}, names, output_names, opset)
    finally:
        _exporting[0] = False
    onnx.checker.check_model(proto)
    if verbose:
        print(onnx.helper.printable_graph(proto.graph))
    if f is not None:
        if isinstance(f, (str, os.PathLike)):
            onnx.save(proto, os.fspath(f))
        else:
            f.write(proto.SerializeToString())
    return ONNXProgram(proto) if dynamo else None


def _tensor_leaves(value) -> bool:
    if isinstance(value, (tuple, list)):
        return bool(value) and all(_tensor_leaves(v) for v in value)
    return isinstance(value, Tensor)


def _flat_names(names: list[str], args: tuple) -> list[str]:
    """One graph input per tensor: a nested argument ``hidden=(h, c)`` gives hidden_0, hidden_1."""

    def leaves(name, value):
        if not isinstance(value, (tuple, list)):
            return [name]
        return [n for i, v in enumerate(value) for n in leaves(f"{name}_{i}", v)]

    return [n for name, a in zip(names, args) for n in leaves(name, a)]


def _parameter_names(model, n: int) -> list[str]:
    forward = getattr(model, "forward", model)
    try:
        params = [
            p.name
            for p in inspect.signature(forward).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        params = []
    return params[:n] if len(params) >= n else [f"input_{i}" for i in range(n)]


class _eval_mode:
    """The model in eval mode while it is traced (PyTorch's TrainingMode.EVAL), restored after."""

    def __init__(self, model) -> None:
        self.modules = list(model.modules()) if hasattr(model, "modules") else []

    def __enter__(self):
        self.modes = [m.training for m in self.modules]
        for m in self.modules:
            m.training = False

    def __exit__(self, *exc) -> None:
        for m, mode in zip(self.modules, self.modes):
            m.training = mode
