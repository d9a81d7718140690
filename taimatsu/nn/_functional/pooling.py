"""Pooling, padding, resampling and convolution wrappers of ``torch.nn.functional``."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._autocast import FP32, LOWER, cast_policy
from ..._dtype import uint8
from ..._tensor.core import Tensor
from ...autograd.grad_mode import is_grad_enabled
from ...ops._dispatch import need_tensor, scalar_name
from ...ops.arg_types import avg_pool_args, int_list, pool_args
from ...ops.creation.factories import tensor
from ...ops.nn import conv as _conv
from ...ops.nn import pooling as _pool
from ...ops.nn import pooling as _pooling
from ...ops.nn import resample as _rs
from ...ops.pointwise.common import not_implemented

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


def _one_int(fn: str, name: str, value):
    """A 1-d op's int[1] argument (an int, or a sequence of one int): PyTorch's check_1d."""
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            raise RuntimeError(
                f"{fn}() argument '{name}' should contain one int (got {len(value)})"
            )
        return value[0]
    return value


def avg_pool1d(
    input: Tensor, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
) -> Tensor:
    """avg_pool2d over a height-1 view, as PyTorch computes it (grad_fn SqueezeBackward1)."""
    kernel_size, stride, padding = avg_pool_args(
        "avg_pool1d", kernel_size, stride, padding, ceil_mode, count_include_pad
    )
    _check_1d(input, "avg_pool1d")
    k = _one_int("avg_pool1d", "kernel_size", kernel_size)
    no_stride = stride is None or (isinstance(stride, (list, tuple)) and not stride)
    s = k if no_stride else _one_int("avg_pool1d", "stride", stride)
    p = _one_int("avg_pool1d", "padding", padding)
    out = _pool.avg_pool2d(
        input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad
    )
    return out.squeeze(-2)


_MAX_POOL1D_SIZES = {
    "kernel_size": "an int, list of ints or tuple of ints",
    "stride": "None, an int, list of ints, or tuple of ints",
    "padding": "an int, list of ints, or tuple of ints",
    "dilation": "an int, list of ints or tuple of ints",
}


def _max_pool1d_arg(name: str, value):
    if isinstance(value, (list, tuple)):
        if len(value) != 1 and not (name == "stride" and not value):
            raise RuntimeError(
                f"max_pool1d() {name} must be {_MAX_POOL1D_SIZES[name]} of size 1 but got size {len(value)}"
            )
        return value[0] if value else None
    return value


def _check_max_pool1d(input: Tensor, kernel_size, stride, padding, dilation, ceil_mode) -> tuple:
    """PyTorch's own max_pool1d checks (its op without indices), in its order: the input's
    sizes, each argument's length, then kernel, stride, padding and dilation values, the output
    length. Returns (kernel, stride, padding, dilation) as ints."""
    shape = input.shape
    if not ((input.dim() == 2 and shape[0]) or (input.dim() == 3 and shape[1])) or not shape[-1]:
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:{list(shape)}"
        )
    k, s, p, d = (
        _max_pool1d_arg(n, v)
        for n, v in zip(_MAX_POOL1D_SIZES, (kernel_size, stride, padding, dilation))
    )
    s = k if s is None else s
    for ok, text in (
        (k > 0, f"kernel_size must be greater than zero, but got {k}"),
        (s > 0, f"stride must be greater than zero, but got {s}"),
        (p >= 0, f"padding must be non-negative, but got {p}"),
        (
            p <= k // 2,
            f"padding should be at most half of kernel size, but got padding={p} and kernel_size={k}",
        ),
        (d > 0, f"dilation must be greater than zero, but got {d}"),
    ):
        if not ok:
            raise RuntimeError(f"max_pool1d() {text}")
    out = _pool._pool_out(shape[-1], k, s, p, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    return k, s, p, d


# PyTorch's max_pool1d kernel (no indices, no graph) is built for floating types only.
_max_pool1d_dtypes = not_implemented("max_pool1d_impl", D.BOOL, D.INT, D.COMPLEX)


def max_pool1d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode=False,
    return_indices=False,
):
    """max_pool2d over a height-1 view. Without indices PyTorch checks the arguments as a 1-d op
    (its own texts); with them, as max_pool2d."""
    name = "max_pool1d_with_indices" if return_indices else "max_pool1d"
    kernel_size, stride, padding, dilation = pool_args(
        name, kernel_size, stride, padding, dilation, ceil_mode
    )
    if return_indices:
        _check_1d(input, "max_pool1d")
        k, p, d = _single(kernel_size), _single(padding), _single(dilation)
        no_stride = stride is None or (isinstance(stride, (list, tuple)) and not stride)
        s = k if no_stride else _single(stride)
    else:
        k, s, p, d = _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
        if not (input.requires_grad and is_grad_enabled()):
            _max_pool1d_dtypes(input._dtype)
            # PyTorch's 1-d kernel takes an int64 stride; one past the padded length sees only
            # the first window, like any other such stride.
            s = min(s, input.shape[-1] + 2 * p + 1)
    out, idx = _pooling.max_pool2d_with_indices(
        input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode, return_indices
    )
    out = out.squeeze(-2)
    return (out, idx.squeeze(-2)) if return_indices else out


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):  # fmt: skip
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    need_tensor("adaptive_avg_pool1d", input)
    output_size = int_list("adaptive_avg_pool1d", "output_size", 2, output_size)
    _check_1d(input, "adaptive_avg_pool1d")
    o = _one_int("adaptive_avg_pool1d", "output_size", output_size)
    return _pool.adaptive_avg_pool2d(input.unsqueeze(-2), (1, o)).squeeze(-2)


# ---- padding ----------------------------------------------------------------------------------
_NON_CONSTANT = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad(input: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    """``F.pad``: constant (negative amounts crop), reflect, replicate and circular modes."""
    need_tensor("pad", input)
    int_list("pad", "pad", 2, pad, one=False)
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got padding length "
            f"{len(pad)} and input of dimension {input.dim()}"
        )
    if mode == "constant":
        if isinstance(value, complex):
            raise TypeError("pad(): argument 'value' (position 4) must be float, not complex")
        # PyTorch reads the value as a double: -1 into uint8 is out of range, not 255.
        return _rs.constant_pad_nd(input, pad, 0.0 if value is None else float(value))
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
    if mode == "reflect" and k == 3:  # reflection_pad3d is not on PyTorch's CPU autocast list
        return _rs.reflect_or_replicate_pad(input, pad, mode)
    return _reflect_or_replicate_fp32(input, pad, mode)


@cast_policy(FP32, ("cpu",))
def _reflect_or_replicate_fp32(input: Tensor, pad, mode: str) -> Tensor:
    """reflection_pad1d/2d and replication_pad1d/2d/3d: float32 under CPU autocast."""
    return _rs.reflect_or_replicate_pad(input, pad, mode)


# ---- interpolation --------------------------------------------------------------------------------
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_KERNEL_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_LINEAR_NODES = {
    1: "UpsampleLinear1DBackward0",
    2: "UpsampleBilinear2DBackward0",
    3: "UpsampleTrilinear3DBackward0",
}


def _interp_sizes(input: Tensor, size, scale_factor, nsp: int, mode: str = "nearest"):
    """(output sizes or None, scale factors or None), validated as PyTorch's interpolate does."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, Tensor):  # an integer tensor of one element is read as an int
            if size.is_floating_point() or size.is_complex() or size.numel() != 1:
                kernel = (
                    "_upsample_nearest_exact" if mode == "nearest-exact" else f"upsample_{mode}"
                )
                raise TypeError(
                    f"{kernel}{nsp}d() received an invalid combination of arguments - got "
                    "(Tensor, list, NoneType), but expected one of:"
                )
            size = int(size)
        if not isinstance(size, (list, tuple)):
            return [size] * nsp, None
        if len(size) != nsp:
            raise ValueError(
                "Input and output must have the same number of spatial dimensions, but got input with spatial "
                f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor in "
                "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
            )
        if not all(
            isinstance(v, int) or (isinstance(v, Tensor) and not v.is_floating_point())
            for v in size
        ):
            raise TypeError(
                "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], but got "
                f"size with types {[type(v) for v in size]}"
            )
        return [int(v) for v in size], None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if not isinstance(scale_factor, (list, tuple)):
        return None, [scale_factor] * nsp
    if len(scale_factor) != nsp:
        raise ValueError(
            "Input and scale_factor must have the same number of spatial dimensions, but got input with spatial "
            f"dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. Please provide input "
            "tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
        )
    return None, list(scale_factor)


def _scaled_size(n: int, scale: float) -> int:
    size = float(n) * scale
    if not -(2.0**63) <= size < 2.0**63:  # inf and NaN too: PyTorch's checked int64 conversion
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return math.floor(size)


def _check_out_sizes(input: Tensor, in_sizes, out_sizes) -> None:
    """The resampling kernels' checks: every size positive, the output's storage size representable."""
    if 1 <= len(in_sizes) <= 3 and min(list(in_sizes) + list(out_sizes)) <= 0:
        names = "DHW"[3 - len(in_sizes) :]
        show = lambda sizes: ", ".join(f"{a}: {b}" for a, b in zip(names, sizes))
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({show(in_sizes)}) "
            f"{'and ' if len(in_sizes) == 1 else ''}output ({show(out_sizes)})"
        )
    shape = [*input.shape[:2], *out_sizes]
    if math.prod(shape[1:]) >= 1 << 63:  # the batch stride, even for an empty batch
        raise RuntimeError("Stride calculation overflowed")
    if math.prod(shape) * input.element_size() >= 1 << 63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={shape}")


# PyTorch's CPU resampling kernels: the name its dtype dispatch reports, and whether uint8 is
# built (the 2-D nearest, bilinear and bicubic ones); every kernel takes the floating types.
_KERNEL_NAMES = {
    ("nearest", 2): ("upsample_nearest2d_channels_last", True),
    ("nearest", 1): ("compute_indices_weights_nearest", True),
    ("nearest", 3): ("compute_indices_weights_nearest", True),
    ("linear", 1): ("compute_indices_weights_linear", False),
    ("trilinear", 3): ("compute_indices_weights_linear", False),
    ("bilinear", 2): ("upsample_bilinear2d_channels_last", True),
    ("bicubic", 2): ("compute_indices_weights_cubic", True),
}


def _check_kernel_dtype(input: Tensor, mode: str, nsp: int) -> None:
    kernel, takes_uint8 = _KERNEL_NAMES[("nearest" if mode == "nearest-exact" else mode, nsp)]
    if input.dtype.is_floating_point or (takes_uint8 and input.dtype == uint8):
        return
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input._dtype)}'")


def _uint8_resample(input: Tensor, mode: str, in_sizes, out_sizes, scales, align_corners) -> Tensor:
    """uint8 bilinear/bicubic: PyTorch's fixed-point passes, the weights computed in float64."""
    mats = [
        (d, _rs.linear_matrix(n, o, s, align_corners, np.float64)
         if mode == "bilinear" else _rs.cubic_matrix(n, o, s, align_corners, np.float64))
        for d, n, o, s in zip(range(2, input.dim()), in_sizes, out_sizes, scales)
    ]  # fmt: skip
    return _rs.uint8_dims(input, mats)


def _antialiased(input: Tensor, mode: str, in_sizes, out_sizes, scales, align_corners) -> Tensor:
    """Antialiased bilinear/bicubic (float inputs): PyTorch's separable passes, the last (width)
    dim first, dims whose size does not change skipped."""
    if input.dtype == uint8:
        raise NotImplementedError(
            f"taimatsu: interpolate(mode='{mode}', antialias=True) of a uint8 tensor is not implemented"
        )
    math_t = np.float64 if input.dtype.itemsize == 8 else np.float32
    specs = [
        (d, *_rs.aa_weights(n, o, s, align_corners, mode == "bicubic", math_t))
        for d, n, o, s in reversed(list(zip(range(2, input.dim()), in_sizes, out_sizes, scales)))
        if n != o
    ]
    name = "UpsampleBicubic2DAaBackward0" if mode == "bicubic" else "UpsampleBilinear2DAaBackward0"
    return _rs.aa_dims(input, specs, name)


def interpolate(
    input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
    recompute_scale_factor=None, antialias: bool = False,
) -> Tensor:  # fmt: skip
    """nearest, nearest-exact, area, linear, bilinear, bicubic and trilinear modes, with PyTorch's
    argument checks in its order (grad_fn UpsampleNearest2DBackward0, UpsampleBicubic2DBackward0, ...).
    Not implemented: antialias=True of uint8 tensors and mode='lanczos' (NotImplementedError)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
                "trilinear"
            )
    elif align_corners is None:
        align_corners = False
    nsp = input.dim() - 2
    out_sizes, scales = _interp_sizes(input, size, scale_factor, nsp, mode)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and out_sizes is None:
        recompute_scale_factor = True
    in_sizes = list(input.shape[2:])
    if recompute_scale_factor:
        out_sizes, scales = [int(n * s) for n, s in zip(in_sizes, scales)], None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as "
            "input"
        )
    if out_sizes is None:  # the kernels' own rule: floor(size * scale)
        out_sizes = [_scaled_size(n, s) for n, s in zip(in_sizes, scales)]
    _check_out_sizes(input, in_sizes, out_sizes)
    if scales is None:
        scales = [None] * max(nsp, 0)
    dims = range(2, input.dim())
    if nsp in (1, 2, 3):
        if mode in ("nearest", "nearest-exact"):
            _check_kernel_dtype(input, mode, nsp)
            index = [(d, _rs.nearest_index(n, o, s, mode == "nearest-exact"))
                     for d, n, o, s in zip(dims, in_sizes, out_sizes, scales)]  # fmt: skip
            tag = "Exact" if mode == "nearest-exact" else ""
            return _rs.index_dims(input, index, f"UpsampleNearest{tag}{nsp}DBackward0")
        if mode == "area":
            if nsp == 3:
                return _pool.adaptive_avg_pool3d(input, out_sizes)
            return (
                _pool.adaptive_avg_pool2d(input, out_sizes)
                if nsp == 2
                else adaptive_avg_pool1d(input, out_sizes)
            )
        if _KERNEL_DIMS.get(mode) == nsp:
            _check_kernel_dtype(input, mode, nsp)
            if antialias:
                return _antialiased(input, mode, in_sizes, out_sizes, scales, align_corners)
            if input.dtype == uint8:
                return _uint8_resample(input, mode, in_sizes, out_sizes, scales, align_corners)
            if mode == "bicubic":
                math_t = np.float64 if input.dtype.itemsize == 8 else np.float32
                mats = [(d, *_rs.cubic_matrix(n, o, s, align_corners, math_t, reads=True))
                        for d, n, o, s in zip(dims, in_sizes, out_sizes, scales)]  # fmt: skip
                return _rs.linear_dims(input, mats, "UpsampleBicubic2DBackward0")
            mats = [(d, *_rs.linear_matrix(n, o, s, align_corners, reads=True))
                    for d, n, o, s in zip(dims, in_sizes, out_sizes, scales)]  # fmt: skip
            return _rs.linear_dims(input, mats, _LINEAR_NODES[nsp])
        if mode == "lanczos" and nsp == 2:
            if align_corners:
                raise ValueError("Lanczos mode does not support align_corners=True")
            if not antialias:
                raise ValueError("Lanczos mode requires antialias=True")
            raise NotImplementedError("taimatsu: interpolate(mode='lanczos') is not implemented")
        if mode in ("linear", "bilinear", "trilinear"):
            raise NotImplementedError(
                f"Got {input.dim()}D input, but {mode} mode needs {_KERNEL_DIMS[mode] + 2}D input"
            )
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: {_MODES} "
        f"(got {mode})"
    )


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    import warnings

    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    import warnings

    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    import warnings

    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    if input.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input to have at least 3 dimensions, but got input with sizes "
            f"{list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    n, rest = input.shape[0], input.shape[2:]
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(input.shape)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    need_tensor("adaptive_max_pool1d", input)
    output_size = int_list("adaptive_max_pool1d", "output_size", 2, output_size)
    _check_1d(input, "adaptive_max_pool1d")
    o = _one_int("adaptive_max_pool1d", "output_size", output_size)
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(
                "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch dimensions, but input "
                f"has sizes {list(input.shape)} with dimension {d} being empty"
            )
    # PyTorch pools the (..., 1, L) view in 2-d (grad_fn SqueezeBackward1)
    out, ind = adaptive_max_pool2d_with_indices(input.unsqueeze(-2), (1, o))
    return out.squeeze(-2), ind.squeeze(-2)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    out, ind = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, ind) if return_indices else out


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    sizes = _pool.list_with_default(output_size, input)
    need_tensor("adaptive_max_pool2d", input)
    sizes = int_list("adaptive_max_pool2d", "output_size", 2, sizes)
    oh, ow = _pool.adaptive_max_sizes("adaptive_max_pool2d", input, sizes, 2)
    _pool._max2d_dtypes(input._dtype)
    return _pool.adaptive_max_pool_nd(input, [oh, ow], "AdaptiveMaxPool2DBackward0")


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    out, ind = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, ind) if return_indices else out


def _pair(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v)


def _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode):
    from .. import functional as F

    return F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _lp_inf(input, norm_type, kernel_size, stride, ceil_mode, max_pool):
    """An infinite norm_type is a max pool of |x| (PyTorch's shortcut), else None."""
    if norm_type == float("inf"):
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    return None


def lp_pool1d(
    input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False
) -> Tensor:
    inf = _lp_inf(input, norm_type, kernel_size, stride, ceil_mode, max_pool1d)
    if inf is not None:
        return inf
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(
    input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False
) -> Tensor:
    kw, kh = _pair(kernel_size)
    inf = _lp_inf(input, norm_type, kernel_size, stride, ceil_mode, _max_pool2d)
    if inf is not None:
        return inf
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kw * kh).pow(1.0 / norm_type)


def _unpool_output_size(input, kernel_size, stride, padding, output_size, n):
    spatial = input.shape[-n:]
    default = [(spatial[d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(
            f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length of "
            f"'{len(output_size)}'"
        )
    for d in range(n):
        lo = default[d] - stride[d]
        hi = default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(
                f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})'
            )
    return output_size


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n):
    kernel_size = (
        tuple(kernel_size) if isinstance(kernel_size, (list, tuple)) else (kernel_size,) * n
    )
    if stride is None:
        stride = kernel_size
    stride = tuple(stride) if isinstance(stride, (list, tuple)) else (stride,) * n
    padding = tuple(padding) if isinstance(padding, (list, tuple)) else (padding,) * n
    size = list(_unpool_output_size(input, kernel_size, stride, padding, output_size, n))
    if n == 1:  # PyTorch unpools the (..., L, 1) views in 2-d (grad_fn SqueezeBackward1)
        out = _unpool(input.unsqueeze(-1), indices.unsqueeze(-1), [*size, 1], stride, 2)
        return out.squeeze(-1)
    return _unpool(input, indices, size, stride, n)


def _unpool(input, indices, size, stride, n):
    """max_unpool{2,3}d's checks in PyTorch's order, then the input scattered at ``indices``."""
    name = f"max_unpooling{n}d"
    if indices._dtype is not D.int64:
        got = f" but got: {scalar_name(indices._dtype)}" if n == 2 else ""
        raise RuntimeError(f"elements in indices should be type int64{got}")
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(
            f"Input to {name} should be a {n + 1}d or {n + 2}d Tensor, but got a tensor with "
            f"{input.dim()} dimensions."
        )
    if input.shape != indices.shape:
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) but "
            f"got indices tensor with shape: {list(indices.shape)}"
        )
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(
                f"{name}_forward_out_cpu(): Expected input to have non-zero size for non-batch dimensions, "
                f"but got {list(input.shape)} with dimension {d} being empty."
            )
    if n == 3 and min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    lead, n_in = input.shape[:-n], math.prod(input.shape[-n:])
    numel = math.prod(size)
    flat = indices.reshape(*lead, n_in)
    bad = ((flat < 0) | (flat >= numel))._data.reshape(-1)
    if bad.any():  # PyTorch's loop reports the last one it meets
        last = int(flat._data.reshape(-1)[bad.size - 1 - bad[::-1].argmax()])
        raise RuntimeError(
            f"Found an invalid max index: {last} (output volumes are of size {'x'.join(map(str, size))})"
        )
    return _pooling.max_unpool_scatter(input, flat, size, n)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


@cast_policy(FP32, ("cpu",))
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


# ---- 3-D adaptive pooling (kernels in ops/nn/pooling.py) -------------------------------------------
@cast_policy(FP32, ("cpu",))
def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    from ...ops.nn.pooling import adaptive_avg_pool3d as _avg

    return _avg(input, output_size)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    from ...ops.nn.pooling import adaptive_max_pool3d_with_indices as _max

    return _max(input, output_size)


@cast_policy(FP32, ("cpu",))
def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    out, ind = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, ind) if return_indices else out


def lp_pool3d(
    input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False
) -> Tensor:
    from .three_d import avg_pool3d, max_pool3d

    kd, kw, kh = kernel_size if isinstance(kernel_size, (list, tuple)) else (kernel_size,) * 3
    inf = _lp_inf(input, norm_type, kernel_size, stride, ceil_mode, max_pool3d)
    if inf is not None:
        return inf
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kd * kw * kh).pow(1.0 / norm_type)


@cast_policy(FP32, ("cpu",))
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distances between all row pairs ``i < j`` of an (N, M) input, row-major."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    rows_i = input[tensor(i, device=input.device)]
    rows_j = input[tensor(j, device=input.device)]
    return (rows_i - rows_j).norm(p, dim=1)


@cast_policy(LOWER)
def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-D convolution of (time, batch, channels) input with a (kernel, in, out) weight."""
    from ...ops.nn.conv import conv1d

    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return out.permute(2, 0, 1)


# ---- fractional max pooling (kernel in ops/nn/pooling.py) -------------------------------------------
def _fractional(input: Tensor, kernel_size, output_size, output_ratio, _random_samples, nd: int):
    from ...ops.creation.random import rand
    from ...ops.nn.pooling import fractional_max_pool_nd

    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2 and len(output_ratio) > 2:  # (a float ratio has no len(), as in PyTorch)
            raise ValueError(
                f"{name} requires output_ratio to either be a single Int or tuple of Ints."
            )
        ratio = (
            tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * nd
        )
        output_size = [int(input.size(d - nd) * r) for d, r in zip(range(nd), ratio)]
    if _random_samples is None:
        n_batch = 1 if input.dim() == nd + 1 else input.size(0)
        _random_samples = rand(
            n_batch, input.size(-nd - 1), nd, dtype=input.dtype, device=input.device
        )
    kernel = tuple(kernel_size) if isinstance(kernel_size, (list, tuple)) else (kernel_size,) * nd
    out = tuple(output_size) if isinstance(output_size, (list, tuple)) else (output_size,) * nd
    if len(out) != nd:
        raise RuntimeError(f"{name}: output_size must either be a single Int or tuple of Ints")
    if _random_samples.size(1) != input.size(-nd - 1):
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    prefix = "fractional_max_pool2d()" if nd == 2 else "fractional_max_pool3d_out()"
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(
                f"{prefix}: Expected input to have non-zero size for non-batch dimensions, but got"
                f"{list(input.shape)} with dimension {d} being empty."
            )
    dims = ("height", "width") if nd == 2 else ("time", "height", "width")
    for dim, k, o, n in zip(dims, kernel, out, input.shape[-nd:]):
        # PyTorch's 3-D kernel also refuses windows that would exactly reach the end.
        if o + k - 1 > n or (nd == 3 and o + k - 1 == n):
            raise RuntimeError(f"{prefix}: pool {dim} {k} too large relative to input {dim} {n}")
    return fractional_max_pool_nd(
        input, kernel, out, _random_samples, nd, f"FractionalMaxPool{nd}DBackward0"
    )


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):  # fmt: skip
    """Fractional max pooling: pseudo-random window starts from one U(0, 1) draw per plane and dim
    (``torch.rand(N, C, 2)``, so a seeded run picks the same windows as PyTorch)."""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)


@cast_policy(FP32, ("cpu",))
def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):  # fmt: skip
    out, idx = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return (out, idx) if return_indices else out


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):  # fmt: skip
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


@cast_policy(FP32, ("cpu",))
def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):  # fmt: skip
    out, idx = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return (out, idx) if return_indices else out
