"""More nn ops PyTorch exposes at the top level (``torch.conv3d``, ``torch.grid_sampler``, ...),
with ``torch``'s signatures, which differ from ``F``'s (no ``return_indices`` flags, integer
mode codes for the grid sampler)."""

from __future__ import annotations

from .._tensor import Tensor
from . import functional as F

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
    return F.max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(
    input: Tensor, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False
):
    return F.max_pool1d(
        input, kernel_size, stride or None, padding, dilation, ceil_mode, return_indices=True
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
