"""``torch.onnx.ONNXProgram``: what ``export(..., dynamo=True)`` (PyTorch's default) returns."""

from __future__ import annotations

import os


class ONNXProgram:
    """An exported model: ``model_proto``, ``save(path)``, and calling it runs it in onnxruntime.

    Deviation: PyTorch's holds an ONNX IR model and the ``torch.export`` program; this one holds
    the ``onnx.ModelProto``. ``optimize()`` leaves the model as it is (the exporter has already
    folded the constants; PyTorch runs onnxscript's optimizer).
    """

    def __init__(self, model_proto) -> None:
        self.model_proto = model_proto
        self._session = None

    def save(
        self,
        destination: str | os.PathLike,
        *,
        include_initializers: bool = True,
        keep_initializers_as_inputs: bool = False,
        external_data: bool | None = None,
    ) -> None:
        import onnx

        if not include_initializers or keep_initializers_as_inputs or external_data:
            raise NotImplementedError(
                "taimatsu saves the model with its initializers inside the file only"
            )
        onnx.save(self.model_proto, os.fspath(destination))

    def optimize(self) -> None:
        """Accepted; the model is left as exported (see the class docstring)."""

    def initialize_inference_session(self, initializer=None) -> None:
        import onnxruntime

        if initializer is not None:
            self._session = initializer(self.model_proto.SerializeToString())
        else:
            self._session = onnxruntime.InferenceSession(
                self.model_proto.SerializeToString(), providers=["CPUExecutionProvider"]
            )

    def release(self) -> None:
        self._session = None

    def __call__(self, *args, **kwargs) -> list:
        """Run the model in onnxruntime on tensors; the outputs come back as tensors."""
        from .._tensor.core import Tensor
        from ..ops.creation.factories import tensor

        if self._session is None:
            self.initialize_inference_session()
        inputs = list(args) + list(kwargs.values())
        feeds = {
            i.name: (a.detach().cpu().numpy() if isinstance(a, Tensor) else a)
            for i, a in zip(self._session.get_inputs(), inputs)
        }
        return [tensor(o) for o in self._session.run(None, feeds)]

    def __repr__(self) -> str:
        graph = self.model_proto.graph
        return (
            f"ONNXProgram(graph={graph.name!r}, inputs={[i.name for i in graph.input]}, "
            f"outputs={[o.name for o in graph.output]}, nodes={len(graph.node)})"
        )
