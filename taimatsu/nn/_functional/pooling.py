"""Pooling, padding, resampling and convolution wrappers of ``torch.nn.functional``."""

from __future__ import annotations

import math

from ..._tensor import Tensor
from ...ops import nn as _nn
from ...ops import nn_conv as _conv
from ...ops import nn_pool as _pool
from ...ops import nn_resample as _rs

conv1d = _conv.conv1d
conv_transpose1d = _conv.conv_transpose1d
conv_transpose2d = _conv.conv_transpose2d
avg_pool2d = _pool.avg_pool2d
adaptive_avg_pool2d = _pool.adaptive_avg_pool2d
pixel_shuffle = _rs.pixel_shuffle
pixel_unshuffle = _rs.pixel_unshuffle


def _single(v):
    return v[0] if isinstance(v, (list, tuple)) else v


def _check_1d(input: Tensor, name: str) -> None:
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 'self' (while "
            f"checking arguments for {name})"
        )


def avg_pool1d(
    input: Tensor, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
) -> Tensor:
    """avg_pool2d over a height-1 view, as PyTorch computes it (grad_fn SqueezeBackward1)."""
    _check_1d(input, "avg_pool1d")
    if stride is None or (isinstance(stride, (list, tuple)) and not stride):
        stride = kernel_size
    out = _pool.avg_pool2d(
        input.unsqueeze(-2), (1, _single(kernel_size)), (1, _single(stride)), (0, _single(padding)), ceil_mode,
        count_include_pad,
    )  # fmt: skip
    return out.squeeze(-2)


def max_pool1d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode=False,
    return_indices=False,
):
    _check_1d(input, "max_pool1d")
    k = _single(kernel_size)
    s = (
        k
        if stride is None or (isinstance(stride, (list, tuple)) and not stride)
        else _single(stride)
    )
    out, idx = _nn.max_pool2d_with_indices(
        input.unsqueeze(-2),
        (1, k),
        (1, s),
        (0, _single(padding)),
        (1, _single(dilation)),
        ceil_mode,
    )
    out = out.squeeze(-2)
    return (out, idx.squeeze(-2)) if return_indices else out


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):  # fmt: skip
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    _check_1d(input, "adaptive_avg_pool1d")
    return _pool.adaptive_avg_pool2d(input.unsqueeze(-2), (1, _single(output_size))).squeeze(-2)


# ---- padding ----------------------------------------------------------------------------------
_NON_CONSTANT = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad(input: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    """``F.pad``: constant (negative amounts crop), reflect, replicate and circular modes."""
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got padding length "
            f"{len(pad)} and input of dimension {input.dim()}"
        )
    if mode == "constant":
        return _rs.constant_pad_nd(input, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n{_NON_CONSTANT}"
        )
    if mode == "circular":
        return _rs.circular_pad(input, pad)
    return _rs.reflect_or_replicate_pad(input, pad, mode)


# ---- interpolation --------------------------------------------------------------------------------
def interpolate(
    input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
    recompute_scale_factor=None, antialias: bool = False,
) -> Tensor:  # fmt: skip
    """nearest, nearest-exact, linear and bilinear modes (grad_fn UpsampleNearest2DBackward0, ...)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
                "trilinear"
            )
    elif align_corners is None:
        align_corners = False
    nsp = input.dim() - 2
    if nsp < 1:
        raise ValueError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
                         f"modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got {mode})")  # fmt: skip
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = list(input.shape[2:])
    if size is not None:
        out_sizes = list(size) if isinstance(size, (list, tuple)) else [size] * nsp
        scales = [None] * nsp
    elif scale_factor is not None:
        sf = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * nsp
        out_sizes = [math.floor(float(n) * s) for n, s in zip(in_sizes, sf)]
        scales = [None] * nsp if recompute_scale_factor else sf
    else:
        raise ValueError("either size or scale_factor should be defined")
    dims = range(2, input.dim())
    if mode in ("nearest", "nearest-exact"):
        index = [(d, _rs.nearest_index(n, o, s, mode == "nearest-exact"))
                 for d, n, o, s in zip(dims, in_sizes, out_sizes, scales)]  # fmt: skip
        tag = "Exact" if mode == "nearest-exact" else ""
        return _rs.index_dims(input, index, f"UpsampleNearest{tag}{nsp}DBackward0")
    if mode == "area":
        return (
            _pool.adaptive_avg_pool2d(input, out_sizes)
            if nsp == 2
            else adaptive_avg_pool1d(input, out_sizes)
        )
    expected = {"linear": 1, "bilinear": 2, "trilinear": 3}.get(mode)
    if expected is None:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: nearest | "
            f"linear | bilinear | bicubic | trilinear | area | nearest-exact (got {mode})"
        )
    if expected != nsp:
        raise NotImplementedError(
            f"Got {input.dim()}D input, but {mode} mode needs {expected + 2}D input"
        )
    mats = [
        (d, _rs.linear_matrix(n, o, s, align_corners))
        for d, n, o, s in zip(dims, in_sizes, out_sizes, scales)
    ]
    name = {
        1: "UpsampleLinear1DBackward0",
        2: "UpsampleBilinear2DBackward0",
        3: "UpsampleTrilinear3DBackward0",
    }
    return _rs.linear_dims(input, mats, name[nsp])


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)
