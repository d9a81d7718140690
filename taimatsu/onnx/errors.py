"""``torch.onnx.errors``: what ``torch.onnx.export`` raises."""

from __future__ import annotations


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter."""


class UnsupportedOperatorError(OnnxExporterError):
    """An op of the traced forward pass has no ONNX translation (PyTorch's message)."""

    def __init__(self, name: str, version: int, detail: str = "") -> None:
        qualified = name if "::" in name else f"aten::{name}"
        msg = f"Exporting the operator '{qualified}' to ONNX opset version {version} is not supported."
        super().__init__(msg + (" " + detail if detail else ""))
