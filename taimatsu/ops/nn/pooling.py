"""Average pooling (AvgPool2DBackward0) and adaptive average pooling.

avg_pool2d sums the kernel taps of the zero-padded input (one strided view per tap, as max
pooling does) and divides by PyTorch's per-window divisor; its VJP spreads ``g / divisor``
back over the taps with col2im. Adaptive average pooling is a product with one small
averaging matrix per spatial dim (``nn_resample.linear_dims``).
"""

from __future__ import annotations

import math

import numpy as np

from taimatsu.ops.nn.conv import _pad, _taps

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import no_grad
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import _fw_state, need_tensor, record, scalar_name, xp_for
from ..arg_types import avg_pool_args, int_list
from ..pointwise.common import not_implemented
from . import conv as _nn
from .resample import adaptive_avg_matrix, adaptive_avg_values, linear_dims


def _divisor(size, k, s, p, out, count_include_pad, divisor_override):
    """Per-output-position divisor along one dim (two of these multiply)."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, size + p)
    full = end - start
    clipped = np.minimum(end, size) - np.maximum(start, 0)
    return full if count_include_pad else clipped


def _avg_pool_grad_array(xp, g, inv_div, in_hw, kernel, stride, pads):
    """Average pooling's input gradient: ``g / divisor`` added back through each kernel tap's
    strided view, clipped to the unpadded input (one whole-plane add per tap)."""
    gd = g * inv_div
    gx = xp.zeros((*g.shape[:-2], *in_hw), gd.dtype)
    rows = _nn._tap_ranges(in_hw[0], kernel[0], stride[0], 1, pads[0], g.shape[-2])
    cols = _nn._tap_ranges(in_hw[1], kernel[1], stride[1], 1, pads[2], g.shape[-1])
    for ri in rows:
        for cj in cols:
            if ri is not None and cj is not None:
                gx[..., ri[0], cj[0]] += gd[..., ri[1], cj[1]]
    return gx


def _avg_pool_vjp(node, g):
    node.saved()  # PyTorch's op saves the input: a second backward without retain_graph raises
    if not _gm.enabled and not (_fw_state.level and g._fw is not None):  # no graph to build
        gx = _avg_pool_grad_array(
            xp_for(g), g._data, node.inv_div._data, node.in_hw, node.kernel, node.stride, node.pads
        )
        return (_wrap(gx, g._dtype, g._device),)
    batched = g.dim() == 4
    g4 = g if batched else g.unsqueeze(0)
    n, c, ho, wo = g4.shape
    kh, kw = node.kernel
    spread = (
        (g4 * node.inv_div)
        .unsqueeze(2)
        .expand(n, c, kh * kw, ho, wo)
        .reshape(n, c * kh * kw, ho * wo)
    )
    gx = _nn.col2im(spread, node.in_hw, node.kernel, (1, 1), node.pads, node.stride)
    return (with_input_edge(gx if batched else gx.squeeze(0), _AvgPool2DBackward, node),)


_AvgPool2D = node_class("AvgPool2DBackward0", _avg_pool_vjp)
_AvgPool2DBackward = node_class(
    "AvgPool2DBackwardBackward0", lambda n, gg: _identity_and_zero(n, gg)
)


# adaptive_avg_pool2d/3d's backward ops take the pooled input (see ``with_input_edge``).
_ADAPTIVE_AVG_BACKWARD = {
    n: node_class(f"AdaptiveAvgPool{n}DBackwardBackward0", lambda n, gg: _identity_and_zero(n, gg))
    for n in (2, 3)
}


def pool_pair(fn: str, name: str, value, default=None) -> tuple:
    """A 2-d pooling argument as (height, width): one int or a sequence of one or two (an
    empty or omitted stride is the kernel size); PyTorch's text for any other length."""
    if default is not None and (value is None or (isinstance(value, (list, tuple)) and not value)):
        return default
    if isinstance(value, (list, tuple)):
        if len(value) not in (1, 2):
            what = {
                "stride": "must either be omitted, a single int, or a tuple of two ints",
                "dilation": "must be either a single int, or a tuple of two ints",
            }.get(name, "must either be a single int, or a tuple of two ints")
            raise RuntimeError(f"{fn}: {name} {what}")
        return (int_value(value[0]), int_value(value[-1]))
    value = int_value(value)
    return (value, value)


def int_value(v):
    """An integer tensor of one element (which the parser checks let through) as its int."""
    return int(v) if isinstance(v, Tensor) else v


def check_int_range(*values) -> None:
    """PyTorch narrows the pooling arguments to C++ int before any other check."""
    if min(values) < -(2**31) or max(values) >= 2**31:
        raise RuntimeError("value cannot be converted to type int without overflow")


def read_planes(input: Tensor) -> None:
    """PyTorch reads the input's size(-3) before checking its rank: its dim-range IndexError."""
    nd = input.dim()
    if nd == 0:
        raise IndexError("Dimension specified as -3 but tensor has no dimensions")
    if nd < 3:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got -3)"
        )


def _half_window(k: int, d: int) -> int:
    """((k - 1) * d + 1) / 2 in C++'s integer division, which truncates towards zero."""
    e = (k - 1) * d + 1
    return e // 2 if e >= 0 else -(-e // 2)


def check_pool2d(kernel, stride, padding, dilation, shape) -> None:
    """PyTorch's 2-d pooling checks once the argument types and ranges are read, in its order:
    per dim (height, then width) the output-size formula's own (a zero stride would divide
    by zero), then the window's signs, then the input's sizes."""
    for k, s, p, d in zip(kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > _half_window(k, d):
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={d}"
            )
    if min(kernel) <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}"
        )
    if min(stride) <= 0:
        raise RuntimeError(
            f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}"
        )
    if min(dilation) <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {dilation[0]} dilationW: {dilation[1]}"
        )
    nd = len(shape)
    if not (
        ((nd == 3 and shape[0] != 0) or (nd == 4 and shape[3] != 0))
        and shape[1] != 0
        and shape[2] != 0
    ):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{list(shape)}"
        )
    if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2:  # the kernel's, undilated
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"padW = {padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, kH = {kernel[0]}"
        )


def avg_pool2d(
    input: Tensor, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None,
) -> Tensor:  # fmt: skip
    kernel_size, stride, padding = avg_pool_args("avg_pool2d", kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)  # fmt: skip
    k = pool_pair("avg_pool2d", "kernel_size", kernel_size)
    s = pool_pair("avg_pool2d", "stride", stride, k)
    p = pool_pair("avg_pool2d", "padding", padding)
    check_int_range(*k, *s, *p)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    read_planes(input)
    check_pool2d(k, s, p, (1, 1), input.shape)
    h, w = input.shape[-2:]
    ho = _pool_out(h, k[0], s[0], p[0], 1, ceil_mode)
    wo = _pool_out(w, k[1], s[1], p[1], 1, ceil_mode)
    if ho < 1 or wo < 1:
        c = input.shape[-3]
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{ho}x{wo}). Output size is too small"
        )
    if input._dtype.category != D.FLOAT and input._dtype is not D.int64:
        raise NotImplementedError(
            f"\"avg_pool2d\" not implemented for '{scalar_name(input._dtype)}'"
        )
    xp = xp_for(input)
    x = input._data if input.dim() == 4 else input._data[None]
    extra_h = max(0, (ho - 1) * s[0] + k[0] - (h + 2 * p[0]))
    extra_w = max(0, (wo - 1) * s[1] + k[1] - (w + 2 * p[1]))
    pads = (p[0], p[0] + extra_h, p[1], p[1] + extra_w)
    xpad = _nn._pad(xp, x, pads)
    # float32 sums for float16/bfloat16 input, rounded once at the end (PyTorch's opmath)
    wide = np.float32 if x.dtype.char in D.HALF_CHARS else x.dtype
    acc = xp.zeros((x.shape[0], x.shape[1], ho, wo), np.float64 if x.dtype == np.float64 else wide)
    for _, _, v in _nn._taps(xpad, k, (1, 1), s, (ho, wo)):
        acc += v
    if divisor_override is not None:
        div = np.full((ho, wo), float(divisor_override))
    else:
        dh = _divisor(h, k[0], s[0], p[0], ho, count_include_pad, None)
        dw = _divisor(w, k[1], s[1], p[1], wo, count_include_pad, None)
        div = dh[:, None] * dw[None, :]
    y = D.cast_array(acc / xp.asarray(div, acc.dtype), x.dtype)
    r = _wrap(y if input.dim() == 4 else y[0], input._dtype, input._device)
    if (input._rg and _gm.enabled) or (_fw_state.level and input._fw is not None):
        inv_div = _wrap(xp.asarray(1.0 / div, x.dtype), input._dtype, input._device)
        attrs = {"kernel": k, "stride": s, "pads": pads, "in_hw": (h, w), "inv_div": inv_div}
        if input._rg and _gm.enabled:
            record(_AvgPool2D, (input,), r, (input,), **attrs)
        if _fw_state.level and input._fw is not None:
            r._fw = avg_pool2d(input._fw, k, s, p, ceil_mode, count_include_pad, divisor_override)
            _register(r)
    return r


def list_with_default(output_size, input: Tensor):
    """F.adaptive_*_pool{2,3}d's Python step before PyTorch's parser: an int passes as is; a
    sequence (``len`` of anything else is Python's TypeError) needs more input dims than its
    length, its Nones taken from the input's trailing sizes."""
    shape = input.size()  # read first: a non-tensor input's AttributeError, as in PyTorch
    if isinstance(output_size, int):
        return output_size
    if len(shape) <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    n = len(output_size)
    return [d if v is None else v for v, d in zip(output_size, shape[len(shape) - n :])]


def check_output_size(shape, itemsize: int, numel_first: bool = False) -> None:
    """PyTorch's overflow-checked int64 arithmetic for an output of ``shape``: its numel (where
    the op computes it first), the contiguous strides of an empty output, the storage bytes.
    Checked before any work: a huge output must not be allocated here."""
    numel = math.prod(shape)
    if numel_first and numel >= 2**63:
        raise RuntimeError("numel: integer multiplication overflow")
    if numel == 0:
        if math.prod(max(n, 1) for n in shape[1:]) >= 2**63:
            raise RuntimeError("Stride calculation overflowed")
    elif numel * itemsize >= 2**63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")


def adaptive_avg_sizes(name: str, input: Tensor, output_size, nd: int) -> list:
    """adaptive_avg_pool{2,3}d's parser and output-size checks, in PyTorch's order."""
    need_tensor(name, input)
    output_size = int_list(name, "output_size", 2, output_size)
    sizes = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * nd
    if len(sizes) != nd:
        raise RuntimeError(f"{name}: output_size must be {nd}")
    if min(sizes) < 0:
        got = ", ".join(map(str, sizes[:2])) + "".join(f",{v}" for v in sizes[2:])
        raise RuntimeError(
            f"{name}: elements of output_size must be greater than or equal to 0 but received {{{got}}}"
        )
    return [int(v) for v in sizes]


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    oh, ow = adaptive_avg_sizes(
        "adaptive_avg_pool2d", input, list_with_default(output_size, input), 2
    )
    if (oh, ow) == (1, 1):
        return input.mean((-1, -2), keepdim=True)  # PyTorch's shortcut (grad_fn MeanBackward1)
    nd = input.dim()
    if nd not in (3, 4):
        raise RuntimeError(
            f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}"
        )
    for d in (nd - 2, nd - 1):
        if input.shape[d] == 0:
            raise RuntimeError(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {list(input.shape)} with dimension {d} being empty"
            )
    check_output_size([*input.shape[:-2], oh, ow], input._dtype.itemsize, numel_first=True)
    if oh * ow * input.numel():  # an empty output is made before the kernel's dtype dispatch
        _avg2d_dtypes(input._dtype)
    h, w = input.shape[-2:]
    mats = [(nd - 2, adaptive_avg_matrix(h, oh)), (nd - 1, adaptive_avg_matrix(w, ow))]
    values = adaptive_avg_values(xp_for(input), input._data, (oh, ow))
    return linear_dims(input, mats, "AdaptiveAvgPool2DBackward0", _ADAPTIVE_AVG_BACKWARD[2], values)


def adaptive_max_sizes(name: str, input: Tensor, sizes, nd: int) -> list:
    """adaptive_max_pool{1,2,3}d's checks after the parser's, in PyTorch's order: the input's
    rank, its non-batch sizes, the output size's length, the output's shape."""
    shape = list(input.shape)
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {shape}")
    for d in range(1, input.dim()):
        if shape[d] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                f"sizes {shape} with dimension {d} being empty"
            )
    sizes = list(sizes) if isinstance(sizes, (list, tuple)) else [sizes] * nd
    if len(sizes) != nd:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {nd}")
    out = shape[:-nd] + [int(v) for v in sizes]
    for v in out:
        if v < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {v}: {out}")
    check_output_size(out, input._dtype.itemsize)
    return out[-nd:]


# Adaptive pooling kernels are built for floating types only (the shortcut to mean is not).
_avg2d_dtypes = not_implemented("adaptive_avg_pool2d", D.BOOL, D.INT, D.COMPLEX)
_avg3d_dtypes = not_implemented("adaptive_avg_pool3d_cpu", D.BOOL, D.INT, D.COMPLEX)
_max2d_dtypes = not_implemented("adaptive_max_pool2d", D.BOOL, D.INT, D.COMPLEX)
_max3d_dtypes = not_implemented("adaptive_max_pool3d_cpu", D.BOOL, D.INT, D.COMPLEX)
# max_pool2d's kernel takes integers too (not bool or complex).
_max2d_kernel_dtypes = not_implemented("max_pool2d", D.BOOL, D.COMPLEX)


def _adaptive_checks(input: Tensor, output_size, nd: int, name: str, got_colon: str):
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got{got_colon} {list(input.shape)}"
        )
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                f"{list(input.shape)} with dimension {d} being empty"
            )
    sizes = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * nd
    return sizes


# ---- 3-D adaptive pooling ---------------------------------------------------------------------
def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    sizes = adaptive_avg_sizes(
        "adaptive_avg_pool3d", input, list_with_default(output_size, input), 3
    )
    if sizes == [1, 1, 1]:
        return input.mean((-1, -2, -3), keepdim=True)  # PyTorch's shortcut (MeanBackward1)
    _adaptive_checks(input, sizes, 3, "adaptive_avg_pool3d", "")
    check_output_size([*input.shape[:-3], *sizes], input._dtype.itemsize, numel_first=True)
    if int(np.prod(sizes)) * input.numel():
        _avg3d_dtypes(input._dtype)
    spatial = input.shape[-3:]
    lead = input.dim() - 3
    mats = [(lead + i, adaptive_avg_matrix(n, o)) for i, (n, o) in enumerate(zip(spatial, sizes))]
    values = adaptive_avg_values(xp_for(input), input._data, sizes)
    return linear_dims(input, mats, "AdaptiveAvgPool3DBackward0", _ADAPTIVE_AVG_BACKWARD[3], values)


def _window_index(size: int, out: int) -> np.ndarray:
    """(out, k) input positions of each adaptive window, the short ones padded with their last
    index (a repeat cannot change a max, and the first maximum is the one kept)."""
    i = np.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    k = int((end - start).max()) if out else 1
    return np.minimum(start[:, None] + np.arange(k)[None, :], (end - 1)[:, None])


def _adaptive_max_vjp(node, g):
    (index,) = node.saved()
    lead = g.shape[: g.dim() - node.nd]
    flat_g = g.reshape(*lead, -1)
    gx = flat_g.new_zeros((*lead, node.numel)).scatter_add(-1, index.reshape(*lead, -1), flat_g)
    cls = _ADAPTIVE_MAX_BACKWARD.get(type(node).__name__)
    return (with_input_edge(gx.view(node.in_shape), cls, node) if cls else gx.view(node.in_shape),)


# The backward ops of adaptive and fractional max pooling (both take the pooled input).
_ADAPTIVE_MAX_BACKWARD = {
    f"{kind}MaxPool{n}DBackward0": node_class(
        f"{kind}MaxPool{n}DBackwardBackward0", lambda n, gg: _identity_and_zero(n, gg)
    )
    for kind in ("Adaptive", "Fractional")
    for n in (2, 3)
}


_ADAPTIVE_MAX_NODES: dict = {}


def adaptive_max_pool_nd(input: Tensor, sizes, name: str):
    """Adaptive max pooling over the last ``len(sizes)`` dims: (values, flat indices)."""
    nd = len(sizes)
    xp = xp_for(input)
    x = input._data
    spatial = x.shape[-nd:]
    lead = x.shape[:-nd]
    if 0 in sizes or 0 in lead:  # an empty output: no window to take
        out = xp.empty((*lead, *sizes), x.dtype)
        return _wrap_max(input, out, xp.empty(out.shape, xp.int64), nd, name)
    wins = [_window_index(n, o) for n, o in zip(spatial, sizes)]
    # Flat input index of every (o_1, k_1, ..., o_n, k_n) window element.
    flat = np.zeros([1] * (2 * nd), np.int64)
    for i, w in enumerate(wins):
        shape = [1] * (2 * nd)
        shape[2 * i], shape[2 * i + 1] = w.shape
        flat = flat * spatial[i] + w.reshape(shape)
    flat = flat.transpose([2 * i for i in range(nd)] + [2 * i + 1 for i in range(nd)])
    flat = flat.reshape(*sizes, -1)  # (o_1, ..., o_n, window)
    vals = xp.take(x.reshape(*lead, math.prod(spatial)), xp.asarray(flat), axis=-1)
    arg = vals.argmax(-1)
    out = xp.take_along_axis(vals, arg[..., None], -1)[..., 0]
    isnan = xp.isnan(vals)
    if isnan.any():  # a NaN wins, the last one seen (each NaN replaces the max in PyTorch's loop)
        nan_arg = vals.shape[-1] - 1 - isnan[..., ::-1].argmax(-1)
        has = isnan.any(-1)
        arg = xp.where(has, nan_arg, arg)
        out = xp.where(has, xp.nan, out).astype(x.dtype)
    index = xp.take_along_axis(xp.broadcast_to(xp.asarray(flat), vals.shape), arg[..., None], -1)[
        ..., 0
    ]
    return _wrap_max(input, out, index, nd, name)


def _wrap_max(input: Tensor, out, index, nd: int, name: str):
    """Wrap a max pool's values and flat per-plane indices; record ``name`` (a scatter-add VJP)."""
    xp = xp_for(input)
    if name not in _ADAPTIVE_MAX_NODES:
        _ADAPTIVE_MAX_NODES[name] = node_class(name, _adaptive_max_vjp)
    r = _wrap(xp.ascontiguousarray(out), input._dtype, input._device)
    ri = _wrap(xp.ascontiguousarray(index), D.int64, input._device)
    if input._rg and _gm.enabled:
        numel = int(np.prod(input.shape[-nd:]))
        record(
            _ADAPTIVE_MAX_NODES[name],
            (input,),
            r,
            (ri,),
            nd=nd,
            numel=numel,
            in_shape=tuple(input.shape),
        )
    return r, ri


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    sizes = list_with_default(output_size, input)
    need_tensor("adaptive_max_pool3d", input)
    int_list("adaptive_max_pool3d", "output_size", 2, sizes)
    sizes = adaptive_max_sizes("adaptive_max_pool3d", input, sizes, 3)
    _max3d_dtypes(input._dtype)
    return adaptive_max_pool_nd(input, sizes, "AdaptiveMaxPool3DBackward0")


# ---- fractional max pooling -------------------------------------------------------------------------
def _fractional_starts(samples, in_size: int, out_size: int, pool: int):
    """(..., out) window starts for each plane's ``sample`` in [0, 1): PyTorch's pseudo-random
    sequence, computed in the input's floating type as its kernel does."""
    t = samples.dtype.type
    starts = np.empty((*samples.shape, out_size), np.int64)
    if out_size > 1:
        alpha = t(in_size - pool) / t(out_size - 1)
        i = np.arange(out_size - 1).astype(samples.dtype)
        s = samples[..., None]
        starts[..., :-1] = ((i + s) * alpha).astype(np.int64) - (s * alpha).astype(np.int64)
    if out_size > 0:
        starts[..., -1] = in_size - pool
    return starts


def fractional_max_pool_nd(input: Tensor, kernel, output_size, samples: Tensor, nd: int, name: str):
    """Fractional max pooling over the last ``nd`` dims of (N, C, *spatial) or (C, *spatial) input;
    ``samples`` is (N, C, nd), its last dim running over the spatial dims last to first for 2-D
    (W, H) and first to last for 3-D (T, H, W), as PyTorch reads them."""
    xp = xp_for(input)
    batched = input.dim() == nd + 2
    x = input._data if batched else input._data[None]
    from ...backend import to_numpy

    smp = to_numpy(samples._data).astype(x.dtype)  # window starts are computed on the host
    spatial = x.shape[2:]
    order = [1, 0] if nd == 2 else [0, 1, 2]  # which sample column drives each spatial dim
    if min(kernel) <= 0 or 0 in output_size:
        return _fractional_empty_windows(
            input, x, kernel, output_size, smp, order, batched, nd, name
        )
    flat = np.zeros((*x.shape[:2], *[1] * (2 * nd)), np.int64)
    for d in range(nd):
        st = _fractional_starts(
            smp[..., order[d]], spatial[d], output_size[d], kernel[d]
        )  # (N, C, out)
        pos = st[..., :, None] + np.arange(kernel[d])  # (N, C, out, k)
        shape = [*x.shape[:2]] + [1] * (2 * nd)
        shape[2 + 2 * d], shape[3 + 2 * d] = output_size[d], kernel[d]
        flat = flat * spatial[d] + pos.reshape(shape)
    perm = [0, 1] + [2 + 2 * d for d in range(nd)] + [3 + 2 * d for d in range(nd)]
    window = math.prod(kernel)
    flat = flat.transpose(perm).reshape(*x.shape[:2], *output_size, window)
    planes = x.reshape(*x.shape[:2], *[1] * nd, math.prod(spatial))
    vals = xp.take_along_axis(planes, xp.asarray(flat), -1)
    arg = vals.argmax(-1)  # the first of equal maxima
    isnan = xp.isnan(vals)
    if isnan.any():  # a NaN wins, the last one seen
        last_nan = vals.shape[-1] - 1 - isnan[..., ::-1].argmax(-1)
        arg = xp.where(isnan.any(-1), last_nan, arg)
    out = xp.take_along_axis(vals, arg[..., None], -1)[..., 0]
    index = xp.take_along_axis(xp.asarray(flat), arg[..., None], -1)[..., 0]
    if not batched:
        out, index = out[0], index[0]
    return _wrap_max(input, out, index, nd, name)


def _fractional_empty_windows(input, x, kernel, output_size, smp, order, batched, nd, name):
    """A kernel size of 0 or less: PyTorch's windows read nothing, each output is -inf and its
    index the window's start (as its loop leaves them); an output size of 0: empty outputs."""
    xp = xp_for(input)
    spatial = x.shape[2:]
    flat = np.zeros((*x.shape[:2], *[1] * nd), np.int64)
    for d in range(nd):
        st = _fractional_starts(smp[..., order[d]], spatial[d], output_size[d], kernel[d])
        shape = [*x.shape[:2]] + [1] * nd
        shape[2 + d] = output_size[d]
        flat = flat * spatial[d] + st.reshape(shape)
    index = xp.asarray(np.broadcast_to(flat, (*x.shape[:2], *output_size)))
    out = xp.full(index.shape, -xp.inf, x.dtype)
    if not batched:
        out, index = out[0], index[0]
    return _wrap_max(input, out, index, nd, name)


# ---- max pooling -----------------------------------------------------------------------------
def _pool_out(size, k, s, p, d, ceil_mode) -> int:
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1  # the last window must start inside the input or its left padding
    return out


def _max_pool_array(xp, x, kernel, stride, padding, dilation, out_hw, with_index=True):
    """Max over each window, the winning tap (its row-major number in the kernel) and, with
    ``with_index``, the flat (h * W + w) index of the winner (else None).

    One strided view of the padded input per kernel tap. PyTorch's rule, a tap replaces the
    max when greater or NaN, keeps the first of equal maxima and makes the last NaN the
    winner. On NumPy a large batch is split over two threads (``parallel.halves``): each
    image is computed alike, so the bits do not depend on the split.
    """
    n, c = x.shape[:2]
    k = kernel[0] * kernel[1]
    best = xp.empty((n, c, *out_hw), x.dtype)
    tap = xp.empty(best.shape, xp.uint8 if k < 256 else xp.int64)
    index = xp.empty(best.shape, xp.int64) if with_index else None
    # A NaN needs the slower rule. On NumPy the fast rule's maxima say whether a window held
    # one (its running maximum propagates NaN): a pass over the output, not the input. On a GPU
    # the test would cost a sync: always assume one.
    nan = x.dtype.char in D.FLOAT_CHARS and xp is not np
    check = x.dtype.char in D.FLOAT_CHARS and xp is np
    geometry = (x.shape[2:], kernel, stride, padding, dilation)

    def part(lo, hi):
        b, t = best[lo:hi], tap[lo:hi]
        _window_max(xp, x[lo:hi], kernel, stride, padding, dilation, out_hw, b, t, nan)
        if check and b.size and np.isnan(b.max()):
            _window_max(xp, x[lo:hi], kernel, stride, padding, dilation, out_hw, b, t, True)
        _padding_never_wins(xp, *geometry, b, t)
        if with_index:
            _tap_index(xp, *geometry, tap[lo:hi], index[lo:hi])

    if xp is np:
        from ...backend.parallel import BATCH_PASS_WORK, halves

        halves(part, n, x.size * BATCH_PASS_WORK)
    else:
        part(0, n)
    return best, index, tap


def _pool_fill(xp, dtype):
    return xp.iinfo(dtype).min if dtype.kind in "iu" else -xp.inf  # bfloat16 is kind "V"


def _padded_taps(xp, x, kernel, stride, padding, dilation, out_hw) -> list:
    """The strided (N, C, Ho, Wo) view of each kernel tap, over the input padded with the
    lowest value (past the right edge as far as ceil_mode's last window reaches)."""
    h, w = x.shape[2:]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    ho, wo = out_hw
    extra_h = max(0, (ho - 1) * sh + dh * (kh - 1) + 1 - (h + 2 * ph))
    extra_w = max(0, (wo - 1) * sw + dw * (kw - 1) + 1 - (w + 2 * pw))
    xpad = _pad(xp, x, (ph, ph + extra_h, pw, pw + extra_w), _pool_fill(xp, x.dtype))
    return [v for _, _, v in _taps(xpad, kernel, dilation, stride, out_hw)]


def _window_max(xp, x, kernel, stride, padding, dilation, out_hw, best, tap, nan) -> None:
    """The window maxima into ``best`` and the winning taps into ``tap``.

    On NumPy a few passes per tap keep the running max and its tap (a strictly greater value,
    or a NaN, replaces it). On a GPU: a running ``maximum`` (it propagates NaN), then the
    first tap equal to it, then the last NaN."""
    taps = _padded_taps(xp, x, kernel, stride, padding, dilation, out_hw)
    if xp is np:
        best[...] = taps[0]
        tap[...] = 0
        wins, won = np.empty(best.shape, bool), np.empty(best.shape, tap.dtype)
        for t in range(1, len(taps)):
            np.greater(taps[t], best, out=wins)
            if nan:
                wins |= np.isnan(taps[t])
            # t exceeds every earlier tap number: max(tap, wins * t) is tap where not won, t
            # where won, with no masked (branchy, slow) copy
            np.multiply(wins, tap.dtype.type(t), out=won)
            np.maximum(tap, won, out=tap)
            np.maximum(best, taps[t], out=best)  # NaN propagates: a NaN stays the max
        return
    best[...] = taps[0]
    for v in taps[1:]:
        xp.maximum(best, v, out=best)
    first = _first_equal(xp, taps, best)
    for t in range(len(taps) if nan else 0):  # in order: the last NaN stays
        first = xp.where(xp.isnan(taps[t]), first.dtype.type(t), first)
    tap[...] = first


def _padded(in_hw, kernel, stride, padding, dilation, out_hw) -> bool:
    """Whether some window reaches past the input (padding, or ceil_mode's last window)."""
    return any(
        p or (o - 1) * s + d * (k - 1) + 1 > n
        for n, k, s, p, d, o in zip(in_hw, kernel, stride, padding, dilation, out_hw)
    )


def _padding_never_wins(xp, in_hw, kernel, stride, padding, dilation, best, tap) -> None:
    """Where no input value beats the padding's fill, PyTorch's winner is the window's first
    tap inside the input: ``tap`` is fixed up there."""
    kw, (sh, sw), (ph, pw), (dh, dw) = kernel[1], stride, padding, dilation
    ho, wo = best.shape[-2:]
    if not _padded(in_hw, kernel, stride, padding, dilation, (ho, wo)):
        return
    lowest = best == _pool_fill(xp, best.dtype)
    if xp is not np or lowest.any():  # on a GPU the test would cost a sync: always select
        i0 = xp.maximum(0, -((xp.arange(ho) * sh - ph) // dh))
        j0 = xp.maximum(0, -((xp.arange(wo) * sw - pw) // dw))
        tap[...] = xp.where(lowest, (i0[:, None] * kw + j0[None, :]).astype(tap.dtype), tap)


def _tap_index(xp, in_hw, kernel, stride, padding, dilation, tap, out=None):
    """The flat (h * W + w) input index of each window's winning ``tap`` (into ``out`` when
    given): the window's top-left corner plus the tap's offset."""
    w = in_hw[1]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    ho, wo = tap.shape[-2:]
    t = xp.arange(kh * kw)
    tap_offset = (t // kw) * (dh * w) + (t % kw) * dw
    corner = (xp.arange(ho)[:, None] * sh - ph) * w + (xp.arange(wo)[None, :] * sw - pw)
    if out is None:
        out = xp.empty(tap.shape, xp.int64)
    if xp is np:  # mode="clip" (taps are in range): "raise" buffers the output, 2x slower
        np.take(tap_offset, tap, out=out, mode="clip")
    else:
        xp.take(tap_offset, tap, out=out)
    out += corner
    return out


_LOWEST_BIT: dict = {}


def _lowest_bit_table(k: int) -> np.ndarray:
    """For each k-bit mask: the index of its lowest set bit (k - 1 for no bit)."""
    table = _LOWEST_BIT.get(k)
    if table is None:
        masks = np.arange(1 << k)
        table = np.full(1 << k, k - 1, np.uint8)
        for b in range(k - 1, -1, -1):  # from the highest bit down: the lowest set one stays
            table[(masks >> b) & 1 == 1] = b
        _LOWEST_BIT[k] = table
    return table


def _first_equal(xp, taps, best):
    """The first tap equal to ``best`` at each position (the last tap where none is: NaN).

    Up to 16 taps, the equalities are packed into one bit mask per position and a table
    gives its lowest bit (a few passes over the output, ~3x faster than a select per tap).
    """
    k = len(taps)
    if k <= 16 and xp is np:
        dt = np.uint8 if k <= 8 else np.uint16
        mask = (taps[0] == best).astype(dt)
        for t in range(1, k):
            bit = (taps[t] == best).astype(dt)
            bit <<= t
            mask |= bit
        return np.take(_lowest_bit_table(k), mask)
    tap_type = xp.uint8 if k < 256 else xp.int64
    tap = xp.full(best.shape, k - 1, tap_type)
    for t in range(k - 2, -1, -1):  # from the last tap back: the first equal one stays
        tap = xp.where(taps[t] == best, tap_type(t), tap)
    return tap


def _scatter_winners(xp, g, tap, in_shape, geometry):
    """``g`` written at each window's winner (``tap``) of each (H, W) plane, zero elsewhere:
    one indexed assignment per half of the planes (two threads for a large batch), with the
    flat indices of that half only (an int64 array of the whole output would be the step's
    largest temporary)."""
    hw = in_shape[-2] * in_shape[-1]
    planes = tap.size // (tap.shape[-2] * tap.shape[-1])
    gx = xp.empty(in_shape, g.dtype)
    gx2, g2 = gx.reshape(planes, hw), g.reshape(planes, -1)
    tap2 = tap.reshape(planes, *tap.shape[-2:])

    def part(lo, hi):
        out = gx2[lo:hi]
        out[...] = 0
        flat = _tap_index(xp, *geometry, tap2[lo:hi]).reshape(hi - lo, -1)
        flat += (xp.arange(hi - lo) * hw)[:, None]
        out.reshape(-1)[flat.reshape(-1)] = g2[lo:hi].reshape(-1)

    if xp is np:
        from ...backend.parallel import BATCH_PASS_WORK, halves

        halves(part, planes, gx.size * BATCH_PASS_WORK)
    else:
        part(0, planes)
    return gx


def _max_pool_grad_array(xp, g, tap, in_shape, kernel, stride, padding, dilation):
    """Max pooling's input gradient: the output gradient written at each window's winner.

    Windows that do not overlap and lie inside the input (no padding, no ceil_mode overhang)
    own disjoint input positions: one indexed assignment at the winners' flat indices does it.
    Otherwise, for each kernel tap, the gradient where that tap won (zero elsewhere) is added
    into the strided input positions the tap reads."""
    h, w = in_shape[-2:]
    ho, wo = g.shape[-2:]
    disjoint = all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation))
    if disjoint and not _padded((h, w), kernel, stride, padding, dilation, (ho, wo)):
        return _scatter_winners(xp, g, tap, in_shape, ((h, w), kernel, stride, padding, dilation))
    gx = xp.zeros(in_shape, g.dtype)
    rows = _nn._tap_ranges(h, kernel[0], stride[0], dilation[0], padding[0], ho)
    cols = _nn._tap_ranges(w, kernel[1], stride[1], dilation[1], padding[1], wo)
    zero = g.dtype.type(0)
    for i, ri in enumerate(rows):
        for j, cj in enumerate(cols):
            if ri is None or cj is None:
                continue
            won = tap[..., ri[1], cj[1]] == i * kernel[1] + j
            gx[..., ri[0], cj[0]] += xp.where(won, g[..., ri[1], cj[1]], zero)
    return gx


def _node_indices(node, tap: Tensor) -> Tensor:
    """The int64 flat indices of a max-pool node's winners, rebuilt from its saved taps."""
    h, w = node.in_shape[-2:]
    index = _tap_index(xp_for(tap), (h, w), node.kernel, node.stride, node.padding, node.dilation,
                       tap._data)  # fmt: skip
    return _wrap(index, D.int64, tap._device)


def _max_pool_vjp(node, g):
    (tap,) = node.saved()
    if not _gm.enabled and not (_fw_state.level and g._fw is not None):  # no graph to build
        xp = xp_for(g)
        gx = _max_pool_grad_array(
            xp, g._data, tap._data, node.in_shape, node.kernel, node.stride, node.padding,
            node.dilation,
        )  # fmt: skip
        return (_wrap(gx, g._dtype, g._device),)
    return (max_pool2d_backward(g, _node_indices(node, tap), node.in_shape, node),)


_MaxPool2D = node_class("MaxPool2DWithIndicesBackward0", _max_pool_vjp)


def _max_pool_backward_vjp(node, gg):
    # The backward is linear in the gradient: its adjoint gathers at the same indices; the
    # pooled input's gradient is zero.
    n, nd = node.indices.shape, node.nd
    flat = gg.reshape(*gg.shape[:-nd], -1)
    g = flat.gather(-1, node.indices.reshape(*n[:-nd], -1)).reshape(n)
    return (g, gg.new_zeros(gg.shape) if node.next_functions[1][0] is not None else None)


_MaxPool2DBackward = node_class("MaxPool2DWithIndicesBackwardBackward0", _max_pool_backward_vjp)
_MaxPool3DBackward = node_class("MaxPool3DWithIndicesBackwardBackward0", _max_pool_backward_vjp)


def _add_input_edge(node, forward) -> None:
    """PyTorch's pooling backward ops take the pooled input too (its gradient is zero): with
    create_graph an input gradient requires grad whenever the input does. ``node`` (recorded
    with ``(grad, None)``) gets ``forward``'s input edge as its second one."""
    node.next_functions = (node.next_functions[0], forward.next_functions[0])
    node._shapes = (node._shapes[0], forward._shapes[0])


def with_input_edge(gx: Tensor, cls, forward) -> Tensor:
    """``gx`` (an input gradient built from Tensor ops) as the output of a ``cls`` node whose
    edges are gx's history and ``forward``'s input (see ``_add_input_edge``)."""
    if not _gm.enabled or forward.next_functions[0][0] is None:
        return gx
    r = _wrap(gx._data, gx._dtype, gx._device)
    _add_input_edge(record(cls, (gx, None), r), forward)
    return r


def _identity_and_zero(node, gg):
    return gg, (gg.new_zeros(gg.shape) if node.next_functions[1][0] is not None else None)


def max_pool2d_backward(
    grad: Tensor, indices: Tensor, in_shape, forward=None, nd: int = 2
) -> Tensor:
    """Scatter-add ``grad`` into an input-shaped zero tensor at ``indices`` (flat over the last
    ``nd`` dims; one bincount); ``forward``: the max-pool node, whose input becomes this op's
    second input."""
    xp = xp_for(grad)
    g = grad._data
    planes = int(np.prod(in_shape[:-nd]))
    hw = int(np.prod(in_shape[-nd:]))
    idx = indices._data.reshape(planes, -1) + (xp.arange(planes) * hw)[:, None]
    acc = xp.bincount(idx.ravel(), weights=g.reshape(-1).astype(np.float64), minlength=planes * hw)
    r = _wrap(acc.astype(g.dtype).reshape(in_shape), grad._dtype, grad._device)
    self_edge = forward is not None and forward.next_functions[0][0] is not None
    if _gm.enabled and (grad._rg or self_edge):
        cls = _MaxPool2DBackward if nd == 2 else _MaxPool3DBackward
        node = record(cls, (grad, None), r, (), indices=indices, nd=nd)
        if self_edge:
            _add_input_edge(node, forward)
    return r


def max_pool2d_with_indices(
    input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=True,
):  # fmt: skip
    """``torch.nn.functional.max_pool2d_with_indices``: (values, int64 flat indices); the
    indices are None when ``return_indices`` is false (``F.max_pool2d``, which discards them)."""
    k = pool_pair("max_pool2d", "kernel_size", kernel_size)
    s = pool_pair("max_pool2d", "stride", stride, k)
    p = pool_pair("max_pool2d", "padding", padding)
    d = pool_pair("max_pool2d", "dilation", dilation)
    check_int_range(*k, *s, *p, *d)
    if input.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    check_pool2d(k, s, p, d, input.shape)
    h, w = input.shape[-2:]
    ho = _pool_out(h, k[0], s[0], p[0], d[0], ceil_mode)
    wo = _pool_out(w, k[1], s[1], p[1], d[1], ceil_mode)
    if ho < 1 or wo < 1:
        c = input.shape[-3]
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{ho}x{wo}). Output size is too small"
        )
    _max2d_kernel_dtypes(input._dtype)
    x = input._data
    batched = x.ndim == 4
    xp = xp_for(input)
    fw = _fw_state.level and input._fw is not None
    vals, idx, tap = _max_pool_array(
        xp, x if batched else x[None], k, s, p, d, (ho, wo), return_indices or fw
    )
    if not batched:
        vals, tap = vals[0], tap[0]
        idx = None if idx is None else idx[0]
    r = _wrap(vals, input._dtype, input._device)
    indices = None if idx is None else _wrap(idx, D.int64, input._device)
    if input._rg and _gm.enabled:
        # Only the winning taps are saved (one byte per output for up to 255 taps, not the
        # int64 indices: the step's largest saved buffer); the backward rebuilds what it needs.
        saved = (_wrap(tap, D.uint8 if tap.dtype == np.uint8 else D.int64, input._device),)
        record(
            _MaxPool2D, (input,), r, saved, in_shape=x.shape, kernel=k, stride=s, padding=p,
            dilation=d,
        )  # fmt: skip
    if fw:
        t = input._fw.reshape(*x.shape[:-2], -1)
        r._fw = t.gather(-1, indices.reshape(*idx.shape[:-2], -1)).reshape(idx.shape)
        _register(r)
    return r, indices


def _max_pool3d_vjp(node, g):
    (index,) = node.saved()
    return (max_pool2d_backward(g, index, node.in_shape, node, nd=3),)


_MaxPool3D = node_class("MaxPool3DWithIndicesBackward0", _max_pool3d_vjp)


def max_pool3d_node(input: Tensor, forward) -> tuple:
    """``forward()`` (max_pool3d built from 2-d pools: (values, flat indices)) as PyTorch's one
    ``MaxPool3DWithIndicesBackward0`` node, so grad_fn and double backward match PyTorch.
    Forward-mode AD keeps the composite's own derivatives."""
    if not (input._rg and _gm.enabled) or (_fw_state.level and input._fw is not None):
        return forward()
    with no_grad():
        out, index = forward()
    r = _wrap(out._data, out._dtype, out._device)
    record(_MaxPool3D, (input,), r, (index,), in_shape=tuple(input.shape))
    return r, index


def _avg_pool3d_vjp(node, g):
    # The pool is linear: its adjoint is the gradient of the composite's own graph, built at the
    # forward on a detached alias of the input (kept while this node lives), and differentiable
    # in ``g`` when the engine builds a graph (create_graph).
    from ... import autograd

    node.saved()  # PyTorch's op saves the input: a second backward without retain_graph raises
    z, y = node.composite
    (gx,) = autograd.grad(y, z, g, retain_graph=True, create_graph=_gm.enabled)
    return (with_input_edge(gx, _AvgPool3DBackward, node),)


_AvgPool3D = node_class("AvgPool3DBackward0", _avg_pool3d_vjp)
_AvgPool3DBackward = node_class(
    "AvgPool3DBackwardBackward0", lambda n, gg: _identity_and_zero(n, gg)
)


def avg_pool3d_node(input: Tensor, forward) -> Tensor:
    """``forward(input)`` (avg_pool3d built from 2-d pools) as PyTorch's one
    ``AvgPool3DBackward0`` node; forward-mode AD keeps the composite's own derivatives."""
    if not (input._rg and _gm.enabled) or (_fw_state.level and input._fw is not None):
        return forward(input)
    z = input.detach().requires_grad_()
    out = forward(z)
    r = _wrap(out._data, out._dtype, out._device)
    record(_AvgPool3D, (input,), r, (input,), composite=(z, out))
    return r


def _max_unpool_vjp(node, g):
    flat = node.indices  # (*lead, inputs per plane)
    return (g.reshape(*flat.shape[:-1], -1).gather(-1, flat).view(node.in_shape),)


_MAX_UNPOOL = {n: node_class(f"MaxUnpool{n}DBackward0", _max_unpool_vjp) for n in (2, 3)}


def max_unpool_scatter(input: Tensor, flat: Tensor, size, n: int) -> Tensor:
    """``input`` (*lead, *spatial) scattered into zeros (*lead, *size) at the flat per-plane
    indices ``flat`` (*lead, inputs per plane): one ``MaxUnpool{n}DBackward0`` node as PyTorch's
    (its backward gathers); forward-mode AD keeps the scatter's own derivative."""
    lead = input.shape[:-n]

    def forward():
        zeros = input.new_zeros((*lead, math.prod(size)))
        return zeros.scatter(-1, flat, input.reshape(flat.shape)).view(*lead, *size)

    if not (input._rg and _gm.enabled) or (_fw_state.level and input._fw is not None):
        return forward()
    with no_grad():
        out = forward()
    r = _wrap(out._data, out._dtype, out._device)
    record(_MAX_UNPOOL[n], (input,), r, (), indices=flat, in_shape=tuple(input.shape))
    return r
