"""``affine_grid`` and ``grid_sample`` (2-D; bilinear and nearest; zeros, border and reflection
padding), composed of Tensor ops so autograd gives the input and grid gradients.

Sampling gathers the 4 (bilinear) or 1 (nearest) taps of every output point from the
flattened image in one ``gather`` per tap; out-of-range taps are masked to zero ('zeros') or
never happen (the coordinates are clipped/reflected first, PyTorch's order of operations).
"""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from ...ops.creation import linspace, ones

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details."
)


def _linspace_from_neg_one(theta: Tensor, steps: int, align_corners: bool) -> Tensor:
    if steps <= 1:
        return theta.new_zeros((1,))
    r = linspace(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    if not align_corners:
        r = r * ((steps - 1) / steps)
    return r


def affine_grid(theta: Tensor, size, align_corners=None) -> Tensor:
    """The sampling grid of a batch of affine maps (N x 2 x 3 for 2-D, N x 3 x 4 for 3-D)."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}."
            )
        spatial = list(size[-2:])
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}."
            )
        spatial = list(size[-3:])
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. "
            f"Got size {size}."
        )
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. "
            "This is not an intended use case of affine_grid. See the documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n = size[0]
    k = len(spatial)
    # base[..., 0] runs along the last (width) dim, base[..., 1] along height, base[..., 2] along depth.
    axes = []
    for j in range(k):
        d = k - 1 - j  # spatial index of coordinate j
        shape = [1] * k
        shape[d] = spatial[d]
        axes.append(
            _linspace_from_neg_one(theta, spatial[d], align_corners).view(shape).expand(spatial)
        )
    axes.append(ones(spatial, dtype=theta.dtype, device=theta.device))
    from ...ops.shape import stack

    base = stack(axes, -1).reshape(1, -1, k + 1).expand(n, -1, -1)
    return base.bmm(theta.transpose(1, 2)).view(n, *spatial, k)


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    if twice_low == twice_high:
        return coord * 0
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = (coord - lo).abs()
    extra = c.fmod(span)
    flips = (c.detach() / span).floor()
    even = flips.fmod(2) == 0
    return (extra + lo).where(even, span - extra + lo)


def _source_index(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        coord = coord.clamp(0, size - 1)
    elif padding_mode == "reflection":
        coord = (
            _reflect(coord, 0, 2 * (size - 1))
            if align_corners
            else _reflect(coord, -1, 2 * size - 1)
        )
        coord = coord.clamp(0, size - 1)
    return coord


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners=None) -> Tensor:  # fmt: skip
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: "
            f"'{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if mode == "bicubic" or input.dim() != 4:
        raise NotImplementedError(
            "taimatsu: grid_sample supports 4-D input with bilinear or nearest mode only"
        )
    if grid.dim() != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid to have size 2 in last dimension and the same batch size as input, "
            f"but got grid with sizes {list(grid.shape)}"
        )
    n, c, h, w = input.shape
    ho, wo = grid.shape[1:3]
    ix = _source_index(grid[..., 0], w, padding_mode, align_corners)
    iy = _source_index(grid[..., 1], h, padding_mode, align_corners)
    flat = input.reshape(n, c, h * w)

    def tap(yy: Tensor, xx: Tensor) -> Tensor:
        valid = (xx >= 0) & (xx <= w - 1) & (yy >= 0) & (yy <= h - 1)
        idx = (yy.clamp(0, h - 1) * w + xx.clamp(0, w - 1)).long().reshape(n, 1, ho * wo)
        vals = flat.gather(2, idx.expand(n, c, ho * wo)).view(n, c, ho, wo)
        return vals * valid.unsqueeze(1).to(input.dtype)

    if mode == "nearest":
        return tap(iy.detach().round(), ix.detach().round())
    x0, y0 = ix.detach().floor(), iy.detach().floor()
    x1, y1 = x0 + 1, y0 + 1
    wx1, wy1 = ix - x0, iy - y0
    wx0, wy0 = x1 - ix, y1 - iy
    out = tap(y0, x0) * (wy0 * wx0).unsqueeze(1)
    out = out + tap(y0, x1) * (wy0 * wx1).unsqueeze(1)
    out = out + tap(y1, x0) * (wy1 * wx0).unsqueeze(1)
    return out + tap(y1, x1) * (wy1 * wx1).unsqueeze(1)
