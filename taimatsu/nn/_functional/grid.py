"""``affine_grid`` and ``grid_sample`` (2-D; bilinear and nearest; zeros, border and reflection
padding), composed of Tensor ops so autograd gives the input and grid gradients.

Sampling gathers the 4 (bilinear) or 1 (nearest) taps of every output point from the
flattened image in one ``gather`` per tap; out-of-range taps are masked to zero ('zeros') or
never happen (the coordinates are clipped/reflected first, PyTorch's order of operations).
"""

from __future__ import annotations

import warnings

from ... import _autocast
from ... import _dtype as D
from ..._autocast import FP32
from ..._tensor.core import Tensor
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import no_grad
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...ops._dispatch import _fw_state, record
from ...ops.creation.factories import ones, ones_like
from ...ops.creation.ranges import linspace

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details."
)


def _linspace_from_neg_one(theta: Tensor, steps: int, align_corners: bool) -> Tensor:
    if steps <= 1:
        return theta.new_zeros((1,))
    r = linspace(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    if not align_corners:
        r = r * (steps - 1) / steps  # two roundings, as PyTorch's (not one by (steps - 1) / steps)
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
    from ...ops.shape.copies import stack

    base = stack(axes, -1).reshape(1, -1, k + 1).expand(n, -1, -1)
    with no_grad():  # the gradient is AffineGridGeneratorBackward0's, as in PyTorch
        out = base.bmm(theta.transpose(1, 2)).view(n, *spatial, k)
    if _gm.enabled and theta.requires_grad:
        # The base grid is a constant, kept as an attribute rather than a saved tensor: PyTorch's
        # node saves no tensors, so the grid can be backpropagated through more than once.
        record(_AffineGridGenerator, (theta,), out, (), base=base)
    return out


def _affine_grid_vjp(node, g):
    base = node.base  # (N, points, k + 1)
    k = base.shape[-1] - 1
    return (base.transpose(1, 2).bmm(g.reshape(base.shape[0], -1, k)).transpose(1, 2),)


_AffineGridGenerator = node_class("AffineGridGeneratorBackward0", _affine_grid_vjp)


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


def _clip_vjp(node, g):
    return (g * node.inside,)


_Clip = node_class("ClampBackward1", _clip_vjp)


def _clip(coord: Tensor, size: int) -> Tensor:
    """``coord.clamp(0, size - 1)`` with PyTorch's grid-sampler gradient: the borders count as
    outside (a point exactly on one gets a zero gradient; clamp's own passes it through)."""
    with no_grad():
        out = coord.clamp(0, size - 1)
    if (_gm.enabled and coord.requires_grad) or coord._fw is not None:
        with no_grad():
            inside = ((coord > 0) & (coord < size - 1)).to(coord.dtype)
        if _gm.enabled and coord.requires_grad:
            record(_Clip, (coord,), out, (), inside=inside)
        if coord._fw is not None and _fw_state.level:
            with no_grad():
                out._fw = coord._fw * inside
            _register(out)
    return out


def _source_index(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        coord = _clip(coord, size)
    elif padding_mode == "reflection":
        coord = (
            _reflect(coord, 0, 2 * (size - 1))
            if align_corners
            else _reflect(coord, -1, 2 * size - 1)
        )
        coord = _clip(coord, size)
    if padding_mode != "zeros":
        coord = coord.nan_to_num(0.0)  # PyTorch's clipping sends a NaN coordinate to 0
    return coord


def _grid_checks(input: Tensor, grid: Tensor, mode: str) -> None:
    """PyTorch's grid_sampler checks, in its order and words."""
    k = input.dim() - 2
    if grid.shape[-1] != k:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {k} in last dimension, but got grid with sizes "
            f"{list(grid.shape)}"
        )
    want = 4 if input.dim() == 4 else 5
    if input.dim() != want or grid.dim() != want:
        raise RuntimeError(
            f"grid_sampler(): expected {want}D input and grid with same number of dimensions, but got input with "
            f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
            f"{list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    for d in range(2, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
                f"{list(input.shape)} with dimension {d} being empty"
            )
    if mode == "bicubic" and input.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype is not grid.dtype:
        from ...ops._dispatch import scalar_name

        raise RuntimeError(
            f"expected scalar type {scalar_name(input.dtype)} but found {scalar_name(grid.dtype)}"
        )


def _cubic_weights(t: Tensor):
    """The four cubic-convolution weights (A = -0.75) of taps -1, 0, 1, 2 at fraction ``t``."""
    a = -0.75

    def near(v):
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def far(v):
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a

    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _bound_index(i: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """The tap a bicubic sample reads for integer coordinate ``i`` (PyTorch applies the padding
    rule to each tap; with 'zeros' an outside tap reads 0)."""
    if padding_mode == "border":
        return i.clamp(0, size - 1)
    if padding_mode == "reflection":
        r = _reflect(i, 0, 2 * (size - 1)) if align_corners else _reflect(i, -1, 2 * size - 1)
        return r.clamp(0, size - 1)
    return i


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners=None) -> Tensor:  # fmt: skip
    """Samples ``input`` (N, C, H, W) or (N, C, D, H, W) at ``grid`` points in [-1, 1]:
    bilinear (trilinear for 5-D), nearest and (4-D) bicubic, with zeros, border or reflection
    padding. Composed of gathers and Tensor ops, so autograd gives the input and grid gradients
    (grad_fn is the last of those ops, not GridSampler2DBackward0)."""
    # autocast checked inline, not by @cast_policy: keeps the warning's frame
    if _autocast.state.on and _autocast.applies(("cpu",), input, grid):
        return _autocast.run(
            grid_sample, FP32, (input, grid, mode, padding_mode, align_corners), {}
        )
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
    _grid_checks(input, grid, mode)
    n, c = input.shape[:2]
    sizes = list(input.shape[2:])  # (H, W) or (D, H, W)
    k = len(sizes)
    out_spatial = list(grid.shape[1:-1])
    npts = 1
    for v in out_spatial:
        npts *= v
    flat = input.reshape(n, c, -1)
    # grid[..., 0] indexes the last dim (W), grid[..., 1] H, grid[..., 2] D.
    coords = [grid[..., k - 1 - d] for d in range(k)]

    def tap(index, check_bounds=True) -> Tensor:
        """The input values at integer-valued coordinates ``index`` (one tensor per spatial dim)."""
        lin, valid = None, None
        for d, (i, size) in enumerate(zip(index, sizes)):
            ic = i.clamp(0, size - 1).nan_to_num(0.0)  # a NaN tap is masked or NaN-weighted
            lin = ic if lin is None else lin * size + ic
            if check_bounds:
                ok = (i >= 0) & (i <= size - 1)
                valid = ok if valid is None else valid & ok
        idx = lin.long().reshape(n, 1, npts).expand(n, c, npts)
        vals = flat.gather(2, idx).view(n, c, *out_spatial)
        # an out-of-range tap reads +0, as PyTorch's (a product by the mask gave -0 for negative values)
        return vals.masked_fill(~valid.unsqueeze(1), 0) if check_bounds else vals

    if mode == "bicubic":
        return _bicubic(input, coords, sizes, padding_mode, align_corners, tap)
    src = [_source_index(x, size, padding_mode, align_corners) for x, size in zip(coords, sizes)]
    if mode == "nearest":
        out = tap([x.detach().round() for x in src])
        if not grid.requires_grad:
            return out
        # PyTorch gives the grid a zero gradient here (not none): a zero that keeps the grid in
        # the graph, whatever its values (even NaN).
        keep = ones_like(src[0], dtype=D.bool)
        return out + src[0].new_zeros(()).where(keep, src[0]).unsqueeze(1)
    lows = [x.detach().floor() for x in src]
    out = None
    for corner in range(2**k):
        index, weight = [], None
        for d in range(k):
            hi = (corner >> (k - 1 - d)) & 1
            lo = lows[d]
            index.append(lo + 1 if hi else lo)
            w = src[d] - lo if hi else lo + 1 - src[d]
            weight = w if weight is None else weight * w
        term = tap(index) * weight.unsqueeze(1)
        out = term if out is None else out + term
    return out


def _bicubic(input, coords, sizes, padding_mode, align_corners, tap) -> Tensor:
    (iy, ix) = [_unnormalize(x, size, align_corners) for x, size in zip(coords, sizes)]
    y0, x0 = iy.detach().floor(), ix.detach().floor()
    wy, wx = _cubic_weights(iy - y0), _cubic_weights(ix - x0)
    zeros = padding_mode == "zeros"
    out = None
    for a in range(4):
        yy = _bound_index(y0 + (a - 1), sizes[0], padding_mode, align_corners)
        row = None
        for b in range(4):
            xx = _bound_index(x0 + (b - 1), sizes[1], padding_mode, align_corners)
            term = tap([yy, xx], check_bounds=zeros) * wx[b].unsqueeze(1)
            row = term if row is None else row + term
        term = row * wy[a].unsqueeze(1)
        out = term if out is None else out + term
    return out
