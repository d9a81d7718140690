"""The nn ops PyTorch also exposes at the top level (``torch.softmax``, ``torch.conv2d``, ...)
and as Tensor methods, with ``torch``'s signatures (which differ from ``F``'s)."""

from __future__ import annotations

from .._tensor.core import Tensor
from ..ops._dispatch import OUT_EXACT, OUT_FOUND, takes_out
from ..ops.nn import softmax as _softmax
from . import functional as F

conv1d = F.conv1d
conv2d = F.conv2d
conv_transpose1d = F.conv_transpose1d
conv_transpose2d = F.conv_transpose2d
pixel_shuffle = F.pixel_shuffle
pixel_unshuffle = F.pixel_unshuffle
cosine_similarity = F.cosine_similarity
pairwise_distance = F.pairwise_distance
adaptive_avg_pool1d = F.adaptive_avg_pool1d
avg_pool1d = F.avg_pool1d
prelu = F.prelu
group_norm = F.group_norm
layer_norm = F.layer_norm
rms_norm = F.rms_norm


@takes_out("softmax", OUT_EXACT, grad="aten")
def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    return _softmax.softmax(input, dim, dtype)


@takes_out("log_softmax", OUT_EXACT, grad="aten")
def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    return _softmax.log_softmax(input, dim, dtype)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout(input, p, train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout(input, p, train, inplace=True)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    from ._functional.dropout import _feature_dropout

    return _feature_dropout(input, p, train, False)


def batch_norm(
    input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True
):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                  cudnn_enabled=True):  # fmt: skip
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def embedding(
    weight: Tensor, input: Tensor, padding_idx: int = -1, scale_grad_by_freq=False, sparse=False
):
    from ..ops.nn.embedding import embedding as _embedding

    return _embedding(input, weight, None if padding_idx < 0 else padding_idx, scale_grad_by_freq)


def constant_pad_nd(input: Tensor, pad, value=0) -> Tensor:
    from ..ops.nn.resample import constant_pad_nd as _pad

    return _pad(input, list(pad), value)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def selu(input: Tensor) -> Tensor:
    return F.selu(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    return F.celu(input, alpha)


@takes_out("threshold")
def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    return F.threshold(input, threshold, value)


@takes_out("hardshrink", OUT_FOUND)
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return F.hardshrink(input, lambd)


conv3d = F.conv3d


conv_transpose3d = F.conv_transpose3d


conv_tbc = F.conv_tbc


pdist = F.pdist


channel_shuffle = F.channel_shuffle


native_channel_shuffle = F.channel_shuffle


_INTERPOLATION = {v: k for k, v in F.GRID_SAMPLE_INTERPOLATION_MODES.items()}


_PADDING = {v: k for k, v in F.GRID_SAMPLE_PADDING_MODES.items()}


def max_pool3d(
    input: Tensor, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False
) -> Tensor:
    return F.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d_with_indices(
    input: Tensor, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False
):
    return F.max_pool1d(
        input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True
    )


def adaptive_max_pool1d(input: Tensor, output_size):
    """(values, indices), as ``torch.adaptive_max_pool1d`` always returns both."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def affine_grid_generator(theta: Tensor, size, align_corners: bool) -> Tensor:
    return F.affine_grid(theta, list(size), align_corners=align_corners)


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:  # fmt: skip
    return F.grid_sample(
        input, grid, _INTERPOLATION[interpolation_mode], _PADDING[padding_mode], align_corners
    )


def _grid_sampler_nd(n: int):
    def fn(
        input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
    ) -> Tensor:
        if input.dim() != n + 2 or grid.dim() != n + 2:
            raise RuntimeError(
                f"grid_sampler(): expected {n + 2}D input and grid with same number of dimensions, but got input "
                f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
            )
        return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)

    fn.__name__ = fn.__qualname__ = f"grid_sampler_{n}d"
    return fn


grid_sampler_2d = _grid_sampler_nd(2)


grid_sampler_3d = _grid_sampler_nd(3)
