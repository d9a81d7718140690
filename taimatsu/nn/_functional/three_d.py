"""``conv3d``, ``max_pool3d`` and ``avg_pool3d`` as sums/maxes of the 2-D kernels over the depth taps.

For each of the ``kd`` depth taps, the strided depth slices are folded into the batch and one 2-D
convolution / pooling handles every (sample, output depth) at once; a loop runs over the kernel
depth only. Autograd through the 2-D kernels gives the gradients.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._autocast import FP32, LOWER, cast_policy
from ..._tensor.core import Tensor
from ...ops._dispatch import need_tensor, scalar_name
from ...ops.arg_types import avg_pool_args, pool_args
from ...ops.creation.factories import tensor
from ...ops.nn import conv as _nn
from ...ops.nn import pooling as _pool
from ...ops.nn import pooling as _pooling
from ...ops.nn.pooling import check_int_range
from ...ops.pointwise.common import not_implemented
from ...ops.shape.copies import stack
from .pooling import pad


def _triple(v) -> tuple:
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v, v)


def _depth_taps(x: Tensor, kd: int, sd: int, dd: int, out_d: int):
    """The ``kd`` depth slices (N*Do, C, H, W) that tap ``k`` of every output depth reads."""
    n, c, _, h, w = x.shape
    for k in range(kd):
        start = k * dd
        xs = x[:, :, start : start + (out_d - 1) * sd + 1 : sd]
        yield xs.transpose(1, 2).reshape(n * out_d, c, h, w)


def _unbatched(fn):
    def wrapper(input, *args, **kwargs):
        if input.dim() == 4:
            out = fn(input.unsqueeze(0), *args, **kwargs)
            return tuple(o.squeeze(0) for o in out) if isinstance(out, tuple) else out.squeeze(0)
        if input.dim() != 5:
            raise RuntimeError(
                f"Expected 4D (unbatched) or 5D (batched) input, but got input of size: {list(input.shape)}"
            )
        return fn(input, *args, **kwargs)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


@_unbatched
@cast_policy(LOWER)
def conv3d(
    input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups: int = 1
) -> Tensor:
    """3-D convolution of (N, C, D, H, W) input."""
    stride, dilation = _triple(stride), _triple(dilation)
    if not isinstance(padding, str):  # the checks on the 5-D tensors, before the depth slices
        pads = [p for p in _triple(padding) for p in (p, p)]
        _nn._conv_checks(input, weight, bias, int(groups), pads, dilation, stride)
    kd, kh, kw = weight.shape[2:]
    same = None  # padding="same": the input's (left, right) pads, last dim first
    if isinstance(padding, str):
        if padding != "valid":
            totals = [d * (k - 1) for d, k in zip(dilation, (kd, kh, kw))]
            same = []
            for t in reversed(totals):
                same += [t // 2, t - t // 2]
            _nn.warn_same_asymmetric(totals)
        padding = (0, 0, 0)
    (sd, sh, sw), (pd, ph, pw), (dd, dh, dw) = stride, _triple(padding), dilation

    def forward(x, w, b):
        if same is not None:
            x = pad(x, same)
        if pd:
            x = pad(x, (0, 0, 0, 0, pd, pd))
        n, d = x.shape[0], x.shape[2]
        out_d = (d - dd * (kd - 1) - 1) // sd + 1
        out = None
        for k, xs in enumerate(_depth_taps(x, kd, sd, dd, out_d)):
            y = _nn.conv2d(xs, w[:, :, k], None, (sh, sw), (ph, pw), (dh, dw), groups)
            out = y if out is None else out + y
        # contiguous, as PyTorch's result is (a flatten by .view must work on it)
        out = out.reshape(n, out_d, *out.shape[1:]).transpose(1, 2).contiguous()
        return out if b is None else out + b.view(1, -1, 1, 1, 1)

    return _nn.conv3d_node(input, weight, bias, forward)


_LENGTH_TEXTS = {
    "max_pool3d": {
        "kernel_size": "must either be a single int, or a tuple of three ints",
        "stride": "must either be omitted, a single int, or a tuple of three ints",
        "padding": "must either be a single int, or a tuple of three ints",
        "dilation": "must be either a single int, or a tuple of three ints",
    },
    "avg_pool3d": {
        "kernel_size": "must be a single int, or a tuple of three ints",
        "stride": "must be omitted, a single int, or a tuple of three ints",
        "padding": "must be a single int, or a tuple of three ints",
    },
}


def _three(fn: str, name: str, value, default=None) -> tuple:
    """A 3-d pooling argument as (T, H, W): one int or a sequence of one or three (an omitted
    or empty stride is the kernel size); PyTorch's text for any other length."""
    if default is not None and (value is None or (isinstance(value, (list, tuple)) and not value)):
        return default
    if isinstance(value, (list, tuple)):
        if len(value) not in (1, 3):
            raise RuntimeError(f"{fn}: {name} {_LENGTH_TEXTS[fn][name]}")
        return tuple(_pool.int_value(v) for v in value) * (3 // len(value))
    return (_pool.int_value(value),) * 3


def _check_pool3d(fn, input, kernel, stride, padding, dilation, ceil_mode, divisor_override=None):
    """PyTorch's 3-d pooling checks after its argument lengths, in its order: the input's rank,
    each dim's output-size formula (T, H, W), the window's signs, the input's sizes (average
    pooling: not below the kernel), the padding, the output size. Returns the output (T, H, W)."""
    check_int_range(*kernel, *stride, *padding, *dilation)
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    for k, s, p, d in zip(kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > _pooling._half_window(k, d):
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={d}"
            )
    for what, v, names in (
        ("kernel size", kernel, ("kT", "kH", "kW")),
        ("stride", stride, ("dT", "dH", "dW")),
        ("dilation", dilation, ("dilationT", "dilationH", "dilationW")),
    ):
        if min(v) <= 0:
            got = " ".join(f"{n}: {x}" for n, x in zip(names, v))
            raise RuntimeError(f"{what} should be greater than zero, but got {got}")
    shape = list(input.shape)
    for i, n in enumerate(shape if 0 in shape[-4:] else ()):
        if n == 0 and not (len(shape) == 5 and i == 0):  # the batch may be empty
            where = (
                "avg_pool3d()"
                if fn == "avg_pool3d"
                else "max_pool3d_with_indices_out_cpu_template()"
            )
            raise RuntimeError(
                f"{where}: Expected input's non-batch dimensions to have positive length, but input has a "
                f"shape of {shape} and non-batch dimension {n} has length zero!"
            )
    t, h, w = shape[-3:]
    (kt, kh, kw), (pt, ph, pw) = kernel, padding
    if fn == "avg_pool3d" and (t < kt or h < kh or w < kw):
        raise RuntimeError(
            f"input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: {kt} kH: {kh} kW: {kw})"
        )
    if kt // 2 < pt or kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}"
        )
    out = [
        _pooling._pool_out(n, k, s, p, d, ceil_mode)
        for n, k, s, p, d in zip((t, h, w), kernel, stride, padding, dilation)
    ]
    if min(out) < 1:
        c = shape[-4]
        raise RuntimeError(
            f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: "
            f"({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small"
        )
    return out


def _depth_geometry(d, kd, sd, pd, dd, ceil_mode):
    out_d = _pooling._pool_out(d, kd, sd, pd, dd, ceil_mode)
    right = max(0, (out_d - 1) * sd + dd * (kd - 1) + 1 - (d + pd))
    return out_d, right


@_unbatched
def _max_pool3d(input: Tensor, kernel_size, stride, padding, dilation, ceil_mode):
    (kd, kh, kw) = kernel_size
    (sd, sh, sw), (pd, ph, pw), (dd, dh, dw) = stride, padding, dilation
    n, c, d, h, w = input.shape
    out_d, right = _depth_geometry(d, kd, sd, pd, dd, ceil_mode)
    # The lowest finite value, not -inf: a slice made only of padding must still give in-range
    # 2-D indices (it never wins the max over the depth taps).
    low = (D.finfo if input.dtype.is_floating_point else D.iinfo)(input.dtype).min
    x = pad(input, (0, 0, 0, 0, pd, right), value=low) if pd or right else input
    vals, idxs = [], []
    for xs in _depth_taps(x, kd, sd, dd, out_d):
        v, i = _pooling.max_pool2d_with_indices(
            xs, (kh, kw), (sh, sw), (ph, pw), (dh, dw), ceil_mode
        )
        vals.append(v)
        idxs.append(i)
    out, k = stack(vals, 0).max(0)
    hw = stack(idxs, 0).gather(0, k.unsqueeze(0)).squeeze(0)
    zpos = np.arange(out_d) * sd - pd
    depth = tensor(np.tile(zpos, n), device=input.device).view(-1, 1, 1, 1) + k * dd
    index = depth * (h * w) + hw
    ho, wo = out.shape[2:]
    out = out.reshape(n, out_d, c, ho, wo).transpose(1, 2).contiguous()
    index = index.reshape(n, out_d, c, ho, wo).transpose(1, 2).contiguous()
    return out, index


def _max_pool3d_args(name, input, kernel_size, stride, padding, dilation, ceil_mode) -> tuple:
    """max_pool3d's parser and argument checks, in PyTorch's order; (k, s, p, d) as triples."""
    need_tensor(name, input)
    kernel_size, stride, padding, dilation = pool_args(
        name, kernel_size, stride, padding, dilation, ceil_mode
    )
    k = _three("max_pool3d", "kernel_size", kernel_size)
    s = _three("max_pool3d", "stride", stride, k)
    p = _three("max_pool3d", "padding", padding)
    d = _three("max_pool3d", "dilation", dilation)
    _check_pool3d("max_pool3d", input, k, s, p, d, ceil_mode)
    _max3d_dtypes(input._dtype)
    return k, s, p, d


_max3d_dtypes = not_implemented("max_pool3d", D.BOOL, D.COMPLEX, D.SHELL_UINT)


def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices: bool = True):  # fmt: skip
    args = _max_pool3d_args("max_pool3d_with_indices", input, kernel_size, stride, padding, dilation, ceil_mode)  # fmt: skip
    return _pooling.max_pool3d_node(input, lambda: _max_pool3d(input, *args, ceil_mode))


@cast_policy(FP32, ("cpu",))
def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices: bool = False):  # fmt: skip
    name = "max_pool3d_with_indices" if return_indices else "max_pool3d"
    args = _max_pool3d_args(name, input, kernel_size, stride, padding, dilation, ceil_mode)
    out, index = _pooling.max_pool3d_node(input, lambda: _max_pool3d(input, *args, ceil_mode))
    return (out, index) if return_indices else out


def _divisor(size, k, s, p, out, count_include_pad):
    o = np.arange(out)
    start = o * s - p
    end = np.minimum(start + k, size + p)
    pool = end - start
    valid = np.minimum(end, size) - np.maximum(start, 0)
    return pool if count_include_pad else valid


@cast_policy(FP32, ("cpu",))
def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None) -> Tensor:  # fmt: skip
    need_tensor("avg_pool3d", input)
    kernel_size, stride, padding = avg_pool_args("avg_pool3d", kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)  # fmt: skip
    k = _three("avg_pool3d", "kernel_size", kernel_size)
    s = _three("avg_pool3d", "stride", stride, k)
    p = _three("avg_pool3d", "padding", padding)
    _check_pool3d("avg_pool3d", input, k, s, p, (1, 1, 1), ceil_mode, divisor_override)
    dt = input._dtype
    if dt.category != D.FLOAT and dt is not D.int64 or dt in (D.float16, D.bfloat16):
        raise NotImplementedError(
            f"\"avg_pool3d_out_frame\" not implemented for '{scalar_name(dt)}'"
        )
    return _pooling.avg_pool3d_node(
        input, lambda x: _avg_pool3d(x, k, s, p, ceil_mode, count_include_pad, divisor_override)
    )


@_unbatched
def _avg_pool3d(input: Tensor, kernel_size, stride, padding, ceil_mode, count_include_pad,
                divisor_override) -> Tensor:  # fmt: skip
    (kd, kh, kw), (sd, sh, sw), (pd, ph, pw) = kernel_size, stride, padding
    n, c, d, h, w = input.shape
    out_d, right = _depth_geometry(d, kd, sd, pd, 1, ceil_mode)
    x = pad(input, (0, 0, 0, 0, pd, right)) if pd or right else input
    total = None
    for xs in _depth_taps(x, kd, sd, 1, out_d):
        s = _pool.avg_pool2d(xs, (kh, kw), (sh, sw), (ph, pw), ceil_mode, True, 1)
        total = s if total is None else total + s
    ho, wo = total.shape[2:]
    total = total.reshape(n, out_d, c, ho, wo).transpose(1, 2).contiguous()
    if not divisor_override:
        fd = _divisor(d, kd, sd, pd, out_d, count_include_pad)
        fh = _divisor(h, kh, sh, ph, ho, count_include_pad)
        fw = _divisor(w, kw, sw, pw, wo, count_include_pad)
        div = (fd[:, None, None] * fh[None, :, None] * fw[None, None, :]).astype(np.float64)
        divisor_override = tensor(div, dtype=input.dtype, device=input.device)
    if input.is_floating_point():
        return total / divisor_override
    return total.div(divisor_override, rounding_mode="trunc")  # C++'s integer division
