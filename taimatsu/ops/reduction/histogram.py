"""torch.histogram and torch.histogramdd: counts (or weights, or densities) of samples in bins.

Equal-width edges are ``linspace(min, max, bins + 1)`` in the input's dtype; a sample falls in
bin ``i`` when ``edges[i] <= x < edges[i + 1]``, the last bin also holding ``x == max``, and
samples outside the edges (or NaN) are dropped, as in PyTorch. Neither function is
differentiable (PyTorch marks its outputs NotImplemented; taimatsu returns them without
history).
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import need_tensor, write_out
from ..arg_types import as_int, integer
from ..creation.ranges import linspace
from ..sorting.sort import _no_complex_kernel
from .extrema import _return_type, return_types

return_types.histogram = _return_type("histogram", ("hist", "bin_edges"))
return_types.histogramdd = _return_type("histogramdd", ("hist", "bin_edges"))

_C_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
}


def _c_name(dt: D.dtype) -> str:
    return _C_NAMES.get(dt.name, dt.name)


def _check_dtype(input: Tensor, tensor_edges: bool) -> None:
    # PyTorch's kernel with given edges also takes float16 and bfloat16; the evenly spaced one not
    if input._dtype not in (
        (D.float32, D.float64, D.float16, D.bfloat16) if tensor_edges else (D.float32, D.float64)
    ):
        from .._dispatch import scalar_name

        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{scalar_name(input._dtype)}'"
        )


def _check_input(input: Tensor) -> int:
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    return input.shape[-1]


def _check_weight(input: Tensor, weight) -> None:
    if weight is None:
        return
    if tuple(weight.shape) != tuple(input.shape[:-1]):
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
            f"excluding its innermost dimension, but got input with shape {list(input.shape)} and weight with "
            f"shape {list(weight.shape)}"
        )
    if weight._dtype is not input._dtype:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the same "
            f"dtype, but got input({_c_name(input._dtype)}), and weight({_c_name(weight._dtype)})"
        )


def _edges_from_count(input: Tensor, samples: np.ndarray, d: int, bins: int, rng) -> Tensor:
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension {d}")
    if rng is not None:
        lo, hi = float(rng[2 * d]), float(rng[2 * d + 1])
    elif samples.size:
        lo, hi = float(samples.min()), float(samples.max())
    else:
        lo, hi = 0.0, 1.0
    if lo > hi:
        raise RuntimeError(
            f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for dimension {d}"
        )
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(
            f"torch.histogramdd: dimension {d}'s range [{lo:g}, {hi:g}] is not finite"
        )
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return linspace(lo, hi, bins + 1, dtype=input._dtype)


def _edge_tensor(input: Tensor, e: Tensor, d: int) -> Tensor:
    if e.dim() != 1:
        raise RuntimeError(
            "torch.histogramdd: bins tensor should have one dimension, but got "
            f"{e.dim()} dimensions in the bins tensor for dimension {d}"
        )
    if e._dtype is not input._dtype:
        raise RuntimeError(
            "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with dtype "
            f"{_c_name(input._dtype)} and bins for dimension {d} with dtype {_c_name(e._dtype)}"
        )
    return e


def _bin_positions(x: np.ndarray, edges: np.ndarray) -> tuple:
    """Bin index of each sample and whether it lies inside the edges."""
    nb = edges.size - 1
    inside = (x >= edges[0]) & (x <= edges[-1]) if nb > 0 else np.zeros(x.shape, np.bool_)
    pos = np.searchsorted(edges, x, side="right") - 1
    pos = np.where(x == edges[-1], nb - 1, pos)
    inside &= (pos >= 0) & (pos < nb)
    return np.clip(pos, 0, max(nb - 1, 0)), inside


def histogramdd(input: Tensor, bins, *, range=None, weight=None, density: bool = False):
    """A ``D``-dimensional histogram of the rows of ``input`` (shape ``(..., D)``)."""
    n_dims = _check_input(input)
    samples = (
        np.asarray(input.detach().cpu()._data).reshape(-1, n_dims) if n_dims else np.zeros((0, 0))
    )
    if isinstance(bins, (int, np.integer)):
        bins = [int(bins)] * n_dims
    bins = list(bins)
    tensors = bool(bins) and isinstance(bins[0], Tensor)
    if len(bins) != n_dims:
        if tensors:
            raise RuntimeError(
                f"torch.histogramdd: expected {n_dims} sequences of bin edges for a {n_dims}-dimensional "
                f"histogram but got {len(bins)}"
            )
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )
    if range is not None and not tensors and len(range) != 2 * n_dims:
        raise RuntimeError(
            f"torch.histogramdd: for a {n_dims}-dimensional histogram range should have {2 * n_dims} elements, "
            f"but got {len(range)}"
        )
    _check_weight(input, weight)
    if tensors:
        edges = [_edge_tensor(input, b, d) for d, b in enumerate(bins)]
    _check_dtype(input, tensors)
    if not tensors:
        edges = [
            _edges_from_count(input, samples[:, d], d, int(b), range) for d, b in enumerate(bins)
        ]
    edge_arrays = [np.asarray(e.detach().cpu()._data).astype(np.float64) for e in edges]
    flat, keep = np.zeros(samples.shape[0], np.int64), np.ones(samples.shape[0], np.bool_)
    shape = tuple(max(e.size - 1, 0) for e in edge_arrays)
    for d, e in enumerate(edge_arrays):
        pos, inside = _bin_positions(samples[:, d].astype(np.float64), e)
        flat = flat * shape[d] + pos
        keep &= inside
    w = (
        None
        if weight is None
        else np.asarray(weight.detach().cpu()._data).reshape(-1).astype(np.float64)[keep]
    )
    size = int(np.prod(shape))
    hist = (
        np.bincount(flat[keep], weights=w, minlength=size)[:size].astype(np.float64).reshape(shape)
    )
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edge_arrays):
            hist = hist / np.diff(e).reshape(
                [-1 if i == d else 1 for i in builtins.range(len(shape))]
            )
    out = _wrap(hist.astype(input._dtype.np), input._dtype).to(input.device)
    return return_types.histogramdd((out, tuple(e.to(input.device) for e in edges)))


def histogram(input: Tensor, bins, *, range=None, weight=None, density: bool = False, out=None):
    """A 1-D histogram of all elements of ``input``: ``(hist, bin_edges)``. CPU only, as in
    PyTorch, which has no CUDA kernel for it (``torch.histc`` has one)."""
    if isinstance(input, Tensor) and input._device.type == "cuda":
        from ..._tensor.sparse import _NOT_RUN

        op = "histogram.bins_tensor" if isinstance(bins, Tensor) else "histogram.bin_ct"
        raise NotImplementedError(_NOT_RUN.format(op=op + ("_out" if out is not None else ""),
                                                  backend="CUDA"))  # fmt: skip
    if out is not None:
        from .._dispatch import check_out, write_out

        r = histogram(input, bins, range=range, weight=weight, density=density)
        msg = "torch.histogram: input tensor and {0} tensor should have the same dtype, but got input {{res_cpp}} and {0} {{out_cpp}}"
        msgs = (msg.format("hist"), msg.format("bin_edges") + " for dimension 0")
        check_out(
            tuple(out), tuple(r), "histogram", msgs, grad="aten"
        )  # out= takes the refusing history
        edges = write_out(
            out[1], r[1], "histogram", grad="aten"
        )  # resized (and warned about) first
        return return_types.histogram((write_out(out[0], r[0], "histogram", grad="aten"), edges))
    flat = input.reshape(-1, 1)
    w = None if weight is None else weight.reshape(-1)
    b = [bins] if isinstance(bins, Tensor) else bins
    hist, edges = histogramdd(flat, b, range=range, weight=w, density=density)
    hist, edge = hist.detach(), edges[0].detach()
    if _gm.enabled and (input._rg or (weight is not None and weight._rg)):
        from .._dispatch import record

        record(
            _HistogramNode, (input,), (hist, edge)
        )  # PyTorch records a node that refuses backward
    return return_types.histogram((hist, edge))


def _histogram_vjp(node, *grads):
    raise RuntimeError("derivative for aten::histogram is not implemented")


_HistogramNode = node_class("NotImplemented", _histogram_vjp)


# ---- histc / bincount ----------------------------------------------------------------------------------------
def _cpp_double(x: float) -> str:
    """A double as a C++ stream prints it (6 significant digits; inf, nan, -nan)."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    return f"{x:g}"


def histc(input: Tensor, bins: int = 100, min=0, max=0, *, out=None) -> Tensor:
    """Equal-width bins over [min, max] (the data's range when min == max); the last bin is closed."""
    from ..._dtype import FLOAT

    integer("histc", "bins", 2, bins)  # a 0-d tensor only: PyTorch refuses [2] here
    bins = int(bins)
    if input._dtype.category == D.COMPLEX and min == max and input._data.size:
        _no_complex_kernel("aminmax_cpu", input)  # the range comes from aminmax first
    if input._dtype.category != FLOAT:
        from .._dispatch import scalar_name

        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{scalar_name(input._dtype)}'"
        )
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    a = input._data
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
        if math.isnan(lo) or math.isnan(hi):  # aminmax's NaN: every bit set, printed -nan
            lo = hi = -math.nan
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(
            f"torch.histc: range of [{_cpp_double(lo)}, {_cpp_double(hi)}] is not finite"
        )
    if lo >= hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    # PyTorch's kernel in the input's dtype: the bin of x is trunc((x - lo) * bins / (hi - lo)),
    # each step rounded to the dtype, lo and hi the dtype's values of the outer edges
    flat = a.reshape(-1)
    t = flat.dtype.type
    left, right = t(lo), t(hi)
    flat = flat[(flat >= left) & (flat <= right)]
    pos = ((flat - left) * t(bins) / (right - left)).astype(np.int64)
    pos[pos == bins] = bins - 1
    r = np.bincount(pos, minlength=bins)[:bins].astype(a.dtype)
    res = _wrap(r, input._dtype, input._device)
    msg = "torch.histogram: input tensor and hist tensor should have the same dtype, but got input {res_cpp} and hist {out_cpp}"
    return res if out is None else write_out(out, res, "histc", msg, grad="inputs")


def bincount(input: Tensor, weights=None, minlength: int = 0) -> Tensor:
    if weights is not None:  # the parser's check, before the dtype's
        need_tensor("bincount", weights, "weights", 2)
    minlength = as_int("bincount", "minlength", None, minlength)
    a = input._data
    if input._dtype.category != D.INT or input._dtype is D.bool:
        from .._dispatch import scalar_name

        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{scalar_name(input._dtype)}'"
        )
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _wrap(np.bincount(a, minlength=minlength).astype(np.int64), D.int64, input._device)
    w = weights._data
    if w.ndim != 1 or w.shape[0] != a.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dt = weights._dtype if weights._dtype in (D.float32, D.float64) else D.float64
    r = np.bincount(a, weights=w.astype(np.float64), minlength=minlength)
    return _wrap(r.astype(dt.np), dt, input._device)
