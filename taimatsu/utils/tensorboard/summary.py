"""The summary protocol buffers ``SummaryWriter`` writes: scalars, histograms, text, as PyTorch
builds them (the same fields, tags and bucket layout), made with tensorboard's own proto classes."""

from __future__ import annotations

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from ..._tensor.core import Tensor


def make_np(x) -> np.ndarray:
    """A NumPy array from a Tensor, an array or a Python number (a number becomes shape (1,))."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, Tensor):
        return x.detach().cpu().numpy()
    if np.isscalar(x):
        return np.array([x])
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def scalar(name: str, value, new_style: bool = False, double_precision: bool = False) -> Summary:
    array = make_np(value).squeeze()
    if array.ndim != 0:
        # PyTorch's message, spaces included (a line continuation inside its string)
        raise AssertionError(
            "Tensor should contain one element (0 dimensions).             "
            f"Was given size: {array.size} and {array.ndim} dimensions."
        )
    number = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=number)])
    proto = (
        TensorProto(double_val=[number], dtype="DT_DOUBLE")
        if double_precision
        else TensorProto(float_val=[number], dtype="DT_FLOAT")
    )
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=metadata)])


def tensorflow_bins() -> list[float]:
    """TensorBoard's default bucket edges: +-1e-12 growing by 10% up to 1e20, and 0."""
    positive = []
    v = 1e-12
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    return [-v for v in reversed(positive)] + [0] + positive


def histogram(name: str, values, bins, max_bins: int | None = None) -> Summary:
    proto = make_histogram(make_np(values).astype(float), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=proto)])


def make_histogram(values: np.ndarray, bins, max_bins: int | None = None) -> HistogramProto:
    """NumPy's histogram, merged down to at most ``max_bins`` and trimmed to the occupied buckets
    (plus the empty one before them, whose right edge is where the first occupied bucket starts)."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        counts, limits = _merge_buckets(counts, limits, len(counts) // max_bins)
    occupied = np.flatnonzero(counts)
    first, last = int(occupied[0]), int(occupied[-1])
    kept = counts[first - 1 : last + 1] if first > 0 else np.concatenate([[0], counts[: last + 1]])
    edges = limits[first : last + 2]
    return HistogramProto(
        min=values.min(),
        max=values.max(),
        num=len(values),
        sum=values.sum(),
        sum_squares=values.dot(values),
        bucket_limit=edges.tolist(),
        bucket=kept.tolist(),
    )


def _merge_buckets(counts: np.ndarray, limits: np.ndarray, group: int):
    """Sum every ``group`` neighbouring buckets (the last group padded with empty ones)."""
    pad = (-len(counts)) % group
    counts = np.pad(counts, (0, pad)).reshape(-1, group).sum(axis=-1)
    edges = np.empty(len(counts) + 1, limits.dtype)
    edges[:-1] = limits[:-1:group]
    edges[-1] = limits[-1]
    return counts, edges


def text(tag: str, text: str) -> Summary:
    """The text plugin's summary; TensorBoard shows it under ``tag + "/text_summary"``."""
    metadata = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(
            plugin_name="text", content=TextPluginData(version=0).SerializeToString()
        )
    )
    proto = TensorProto(
        dtype="DT_STRING",
        string_val=[text.encode("utf_8")],
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
    )
    return Summary(
        value=[Summary.Value(tag=tag + "/text_summary", metadata=metadata, tensor=proto)]
    )
