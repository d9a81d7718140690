"""``conv3d``, ``max_pool3d`` and ``avg_pool3d`` as sums/maxes of the 2-D kernels over the depth taps.

For each of the ``kd`` depth taps, the strided depth slices are folded into the batch and one 2-D
convolution / pooling handles every (sample, output depth) at once; a loop runs over the kernel
depth only. Autograd through the 2-D kernels gives the gradients.
"""

from __future__ import annotations

import numpy as np

from ..._autocast import FP32, LOWER, cast_policy
from ..._tensor.core import Tensor
from ...ops.creation.factories import tensor
from ...ops.nn import conv as _nn
from ...ops.nn import pooling as _pool
from ...ops.nn import pooling as _pooling
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
    kd, kh, kw = weight.shape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0, 0, 0)
        else:
            totals = [d * (k - 1) for d, k in zip(dilation, (kd, kh, kw))]
            amounts = []
            for t in reversed(totals):
                amounts += [t // 2, t - t // 2]
            input = pad(input, amounts)
            padding = (0, 0, 0)
    (sd, sh, sw), (pd, ph, pw), (dd, dh, dw) = stride, _triple(padding), dilation
    if pd:
        input = pad(input, (0, 0, 0, 0, pd, pd))
    n, d = input.shape[0], input.shape[2]
    out_d = (d - dd * (kd - 1) - 1) // sd + 1
    out = None
    for k, xs in enumerate(_depth_taps(input, kd, sd, dd, out_d)):
        y = _nn.conv2d(xs, weight[:, :, k], None, (sh, sw), (ph, pw), (dh, dw), groups)
        out = y if out is None else out + y
    out = out.reshape(n, out_d, *out.shape[1:]).transpose(1, 2)
    if bias is not None:
        out = out + bias.view(1, -1, 1, 1, 1)
    return out


def _depth_geometry(d, kd, sd, pd, dd, ceil_mode):
    out_d = _pooling._pool_out(d, kd, sd, pd, dd, ceil_mode)
    right = max(0, (out_d - 1) * sd + dd * (kd - 1) + 1 - (d + pd))
    return out_d, right


@_unbatched
def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices: bool = True):  # fmt: skip
    (kd, kh, kw) = _triple(kernel_size)
    (sd, sh, sw) = _triple(stride if stride is not None and stride != [] else kernel_size)
    (pd, ph, pw), (dd, dh, dw) = _triple(padding), _triple(dilation)
    n, c, d, h, w = input.shape
    out_d, right = _depth_geometry(d, kd, sd, pd, dd, ceil_mode)
    # The lowest finite value, not -inf: a slice made only of padding must still give in-range
    # 2-D indices (it never wins the max over the depth taps).
    from ..._dtype import finfo

    low = finfo(input.dtype).min
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
    out = out.reshape(n, out_d, c, ho, wo).transpose(1, 2)
    index = index.reshape(n, out_d, c, ho, wo).transpose(1, 2).contiguous()
    return out, index


@cast_policy(FP32, ("cpu",))
def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices: bool = False):  # fmt: skip
    out, index = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, index) if return_indices else out


def _divisor(size, k, s, p, out, count_include_pad):
    o = np.arange(out)
    start = o * s - p
    end = np.minimum(start + k, size + p)
    pool = end - start
    valid = np.minimum(end, size) - np.maximum(start, 0)
    return pool if count_include_pad else valid


@_unbatched
@cast_policy(FP32, ("cpu",))
def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None) -> Tensor:  # fmt: skip
    (kd, kh, kw) = _triple(kernel_size)
    (sd, sh, sw) = _triple(stride if stride is not None and stride != [] else kernel_size)
    (pd, ph, pw) = _triple(padding)
    n, c, d, h, w = input.shape
    out_d, right = _depth_geometry(d, kd, sd, pd, 1, ceil_mode)
    x = pad(input, (0, 0, 0, 0, pd, right)) if pd or right else input
    total = None
    for xs in _depth_taps(x, kd, sd, 1, out_d):
        s = _pool.avg_pool2d(xs, (kh, kw), (sh, sw), (ph, pw), ceil_mode, True, 1)
        total = s if total is None else total + s
    ho, wo = total.shape[2:]
    total = total.reshape(n, out_d, c, ho, wo).transpose(1, 2)
    if divisor_override:
        return total / divisor_override
    fd = _divisor(d, kd, sd, pd, out_d, count_include_pad)
    fh = _divisor(h, kh, sh, ph, ho, count_include_pad)
    fw = _divisor(w, kw, sw, pw, wo, count_include_pad)
    div = (fd[:, None, None] * fh[None, :, None] * fw[None, None, :]).astype(np.float64)
    return total / tensor(div, dtype=input.dtype, device=input.device)
