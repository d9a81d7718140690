"""``add_graph``: the model's traced forward pass as a TensorBoard GraphDef.

The trace is the one ``torch.onnx.export`` uses (``onnx/tracer.py``): each op the model's code
calls (a recurrent layer: one ``aten::lstm`` / ``aten::gru`` / ...) becomes a node ``aten::<op>`` under the scope of the module it ran in (``Net/Linear[fc1]``,
PyTorch's naming), with its output shape; inputs and outputs are ``IO Node``s, parameters and
buffers ``prim::GetAttr`` nodes, tensors made by ops on constants ``prim::Constant``. Deviations:
PyTorch's graph comes from TorchScript's tracer, so its node numbering, its ``prim::`` plumbing and
some op names (``aten::_convolution`` for ``conv2d``) differ; a tensor made by an op the trace
does not see (indexing ``x[...]``) is a ``taimatsu::untraced`` node.
"""

from __future__ import annotations

import inspect

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.config_pb2 import RunMetadata
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, StepStats
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef

from ..._tensor.core import Tensor
from ...autograd.grad_mode import no_grad
from ...onnx.tracer import module_scopes, recurrent_op, trace


def graph(model, args) -> tuple[GraphDef, RunMetadata]:
    args = args if isinstance(args, (tuple, list)) else (args,)
    nodes: list[NodeDef] = []
    names: dict[int, str] = {}
    keep = list(args)  # the traced tensors stay alive, so their ids stay theirs
    for t, arg_name in zip(args, _forward_names(model, len(args))):
        if isinstance(t, Tensor):
            names[id(t)] = f"input/{arg_name}"
            nodes.append(_node(names[id(t)], "IO Node", [], t, attr=""))
    params = _parameter_nodes(model)
    with no_grad():
        result, calls = trace(model, *args, opaque=recurrent_op)
    for n, call in enumerate(calls):
        inputs = [_value(t, names, params, nodes, keep) for t in _tensors(call.args.values())]
        name = f"{call.scope}/{call.name}.{n}" if call.scope else f"{call.name}.{n}"
        outputs = _tensors([call.result])
        nodes.append(_node(name, f"aten::{call.name}", inputs, *outputs[:1], attr="{}"))
        keep.extend(outputs)
        for i, t in enumerate(outputs):
            names[id(t)] = name if len(outputs) == 1 else f"{name}:{i}"
    for i, t in enumerate(_tensors([result])):
        source = _value(t, names, params, nodes, keep)
        nodes.append(_node(f"output/output.{i + 1}", "IO Node", [source], t, attr=""))
    stats = RunMetadata(step_stats=StepStats(dev_stats=[DeviceStepStats(device="/device:CPU:0")]))
    return GraphDef(node=nodes, versions=VersionDef(producer=22)), stats


def _forward_names(model, n: int) -> list[str]:
    try:
        params = list(inspect.signature(model.forward).parameters)
    except (TypeError, ValueError, AttributeError):
        params = []
    return params[:n] if len(params) >= n else [f"input.{i + 1}" for i in range(n)]


def _parameter_nodes(model) -> dict[int, tuple[str, Tensor]]:
    """id(parameter or buffer) -> (its node name under its module's scope, the tensor)."""
    if not hasattr(model, "named_modules"):
        return {}
    scopes = module_scopes(model)
    found = {}
    for _, module in model.named_modules():
        for attr, t in [*module._parameters.items(), *module._buffers.items()]:
            if t is not None:
                found[id(t)] = (f"{scopes[id(module)]}/{attr}", t)
    return found


def _tensors(values) -> list[Tensor]:
    out = []
    for v in values:
        if isinstance(v, Tensor):
            out.append(v)
        elif isinstance(v, (tuple, list)):
            out.extend(_tensors(v))
    return out


def _value(t: Tensor, names: dict, params: dict, nodes: list, keep: list) -> str:
    """The node that produces ``t``, added first when it is a parameter or an untraced tensor."""
    name = names.get(id(t))
    if name is not None:
        return name
    keep.append(t)
    if id(t) in params:
        name, _ = params[id(t)]
        nodes.append(
            _node(name, "prim::GetAttr", [], t, attr="{ name :  " + name.rsplit("/", 1)[-1] + " }")
        )
    else:
        name = f"untraced.{len(nodes)}"
        nodes.append(_node(name, "taimatsu::untraced", [], t, attr=""))
    names[id(t)] = name
    return name


def _node(name: str, op: str, inputs: list[str], t: Tensor | None = None, *, attr: str) -> NodeDef:
    attrs = {"attr": AttrValue(s=attr.encode())}
    if t is not None:
        shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=s) for s in t.shape])
        attrs["_output_shapes"] = AttrValue(list=AttrValue.ListValue(shape=[shape]))
    return NodeDef(name=name, op=op, input=inputs, attr=attrs)
