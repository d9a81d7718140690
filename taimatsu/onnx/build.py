"""From a model and example inputs to an ``onnx.ModelProto``: trace, translate, assemble."""

from __future__ import annotations

import onnx
from onnx import helper

from .._tensor.core import Tensor
from .builder import GraphBuilder, onnx_dtype
from .errors import OnnxExporterError, UnsupportedOperatorError
from .symbolic import MULTI_RESULT, TRANSLATIONS
from .tracer import recurrent_op, trace


def build_model(model, args: tuple, kwargs: dict, input_names, output_names, opset: int):
    g = GraphBuilder(opset)
    inputs = _tensors(args)  # nested tuples (an LSTM's (x, (h, c))) flattened, as PyTorch does
    if len(input_names) != len(inputs):
        raise OnnxExporterError(f"{len(input_names)} input names for {len(inputs)} inputs")
    for t, name in zip(inputs, input_names):
        g.add_input(t, name)
    _register_model_tensors(g, model)
    result, calls = trace(model, *args, opaque=recurrent_op, **kwargs)
    for call in calls:
        _translate(g, call)
    outputs = _tensors(result)  # nested tuples (an LSTM's (out, (h, c))) flattened, as PyTorch does
    if not outputs or len(outputs) != _count_leaves(result):
        raise OnnxExporterError("the model must return tensors (a tensor or nested tuples of them)")
    names = list(
        output_names
        or (["output"] if len(outputs) == 1 else [f"output_{i}" for i in range(len(outputs))])
    )
    for o, name in zip(outputs, names):
        g.nodes.append(helper.make_node("Identity", [g.value(o)], [name]))
    graph = helper.make_graph(
        g.nodes,
        type(model).__name__,
        [_value_info(n, t) for n, t in zip(input_names, inputs)],
        [_value_info(n, o) for n, o in zip(names, outputs)],
        initializer=list(g.initializers.values()),
    )
    # IR version 8 is what opsets 17-18 need; onnxruntime reads it everywhere
    return helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset)],
        producer_name="taimatsu",
        ir_version=8,
    )


def _register_model_tensors(g: GraphBuilder, model) -> None:
    """Parameters, buffers and plain tensor attributes: known values, named by their paths."""
    if not hasattr(model, "named_modules"):
        return
    for prefix, module in model.named_modules():
        for name, value in vars(module).items():
            if isinstance(value, Tensor):
                g.add_constant(value, f"{prefix}.{name}" if prefix else name)
    for name, t in model.named_parameters():
        g.add_constant(t, name)
    for name, t in model.named_buffers():
        g.add_constant(t, name)


def _count_leaves(value) -> int:
    if isinstance(value, (tuple, list)):
        return sum(_count_leaves(v) for v in value)
    return 1


def _tensors(value) -> list:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    return []


def _translate(g: GraphBuilder, call) -> None:
    inputs = [t for v in call.args.values() for t in _tensors(v)]
    outputs = _tensors(call.result)
    if not any(g.is_dynamic(t) for t in inputs if g.is_known(t)) and all(
        g.is_known(t) for t in inputs
    ):
        for t in outputs:  # every input is a known constant: so is the result
            g.add_constant(t)
        return
    fn = TRANSLATIONS.get(call.name)
    if fn is None:
        raise UnsupportedOperatorError(call.name, g.opset)
    if isinstance(call.result, (tuple, list)) and call.name not in MULTI_RESULT:
        raise UnsupportedOperatorError(
            call.name, g.opset, "Ops with several results are not supported."
        )
    fn(g, call.args, call.result, call.name)


def _value_info(name: str, t: Tensor) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, onnx_dtype(t), list(t.shape))
