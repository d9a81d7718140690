"""The ONNX graph under construction: value names for the tensors of the trace, initializers for
parameters and constants, and the nodes the op translations (``symbolic.py``) add."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .._tensor.core import Tensor
from .errors import OnnxExporterError


class GraphBuilder:
    def __init__(self, opset: int) -> None:
        self.opset = opset
        self.nodes: list = []
        self.initializers: dict[str, onnx.TensorProto] = {}
        self.names: dict[int, str] = {}  # id(tensor) -> ONNX value name
        self.dynamic: set[int] = set()  # tensors that depend on a graph input
        self.constants: dict[
            int, tuple[Tensor, str | None]
        ] = {}  # known values, named on first use
        self.keep: list = []  # the traced tensors stay alive, so their ids stay theirs
        self._count = 0

    # ---- names ---------------------------------------------------------------------------------
    def fresh(self, hint: str) -> str:
        self._count += 1
        return f"{hint}_{self._count}"

    def add_input(self, t: Tensor, name: str) -> None:
        self.keep.append(t)
        self.names[id(t)] = name
        self.dynamic.add(id(t))

    def add_constant(self, t: Tensor, name: str | None = None) -> None:
        """A tensor whose value is known when exporting: a parameter, a buffer, a folded result."""
        if id(t) not in self.names and id(t) not in self.constants:
            self.keep.append(t)
            self.constants[id(t)] = (t, name)

    def is_dynamic(self, t: Tensor) -> bool:
        return id(t) in self.dynamic

    def is_known(self, t: Tensor) -> bool:
        return id(t) in self.dynamic or id(t) in self.constants or id(t) in self.names

    def bind(self, t: Tensor, name: str) -> None:
        """``t`` (an op's result) is the graph value ``name``."""
        self.keep.append(t)
        self.names[id(t)] = name
        self.dynamic.add(id(t))

    # ---- values --------------------------------------------------------------------------------
    def value(self, t: Tensor) -> str:
        """The graph value of a tensor argument; a constant becomes an initializer on first use."""
        name = self.names.get(id(t))
        if name is not None:
            return name
        if id(t) not in self.constants:
            raise OnnxExporterError(
                "a tensor used by the model comes from outside the traced ops: indexing (x[...]), "
                "in-place writes (x[...] = v) and tensors held by neither the model nor its inputs "
                "(register them as buffers) cannot be exported"
            )
        tensor, name = self.constants[id(t)]
        name = self.const(tensor.detach().cpu().numpy(), name or "const")
        self.names[id(t)] = name
        return name

    def const(self, array, hint: str = "const") -> str:
        array = np.asarray(array)
        name = hint if hint not in self.initializers and hint != "const" else self.fresh(hint)
        self.initializers[name] = numpy_helper.from_array(array, name)
        return name

    def ints(self, values, hint: str = "shape") -> str:
        return self.const(np.asarray(list(values), dtype=np.int64), hint)

    def scalar(self, value, like: Tensor) -> str:
        """A 0-d constant of ``like``'s dtype (a Python number operand)."""
        return self.const(np.asarray(value, dtype=like.dtype.np), "scalar")

    # ---- nodes ---------------------------------------------------------------------------------
    def node(self, op_type: str, inputs: list[str], n_out: int = 1, **attrs):
        outputs = [self.fresh(op_type) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outputs, **attrs))
        return outputs[0] if n_out == 1 else outputs

    def cast_to(self, name: str, t: Tensor, like: Tensor) -> str:
        """``name`` (the value of ``t``) cast to ``like``'s dtype when they differ."""
        if t.dtype == like.dtype:
            return name
        return self.node("Cast", [name], to=onnx_dtype(like))


def onnx_dtype(t: Tensor) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(t.dtype.np))
