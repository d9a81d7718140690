"""Adaptive max pooling, power-average (LP) pooling and max unpooling, composed of Tensor ops.

Adaptive windows have varying sizes; each is padded to the largest by repeating its last index
(a repeat cannot change a max, and ``max`` keeps the first of equal values), so one gather and
one ``max`` over the window dim do the whole batch. The windows are PyTorch's:
``[floor(i * L / O), ceil((i + 1) * L / O))``.
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...ops.creation import tensor
from . import pooling as _p


def _windows(size: int, out: int) -> np.ndarray:
    i = np.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    k = int((end - start).max()) if out else 1
    idx = start[:, None] + np.arange(k)[None, :]
    return np.minimum(idx, (end - 1)[:, None])


def _adaptive_sizes(input: Tensor, output_size, n: int, name: str):
    if isinstance(output_size, int):
        output_size = (output_size,) * n
    output_size = tuple(output_size)
    if len(output_size) != n:
        raise RuntimeError(f"{name}: internal error: output_size.size() must be {n}")
    spatial = input.shape[-n:]
    sizes = tuple(s if o is None else o for o, s in zip(output_size, spatial))
    if input.dim() not in (n + 1, n + 2):
        raise ValueError(
            f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got {tuple(input.shape)}"
        )
    return sizes


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    (o,) = _adaptive_sizes(input, output_size, 1, "adaptive_max_pool1d")
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got {tuple(input.shape)}"
        )
    idx = _windows(input.shape[-1], o)
    win = input[..., tensor(idx, device=input.device)]  # (..., O, k)
    out, arg = win.max(-1)
    flat = tensor(idx, device=input.device).expand(*input.shape[:-1], *idx.shape)
    return out, flat.gather(-1, arg.unsqueeze(-1)).squeeze(-1)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    out, ind = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, ind) if return_indices else out


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    oh, ow = _adaptive_sizes(input, output_size, 2, "adaptive_max_pool2d")
    H, W = input.shape[-2:]
    rows, cols = _windows(H, oh), _windows(W, ow)
    kh, kw = rows.shape[1], cols.shape[1]
    r = tensor(rows, device=input.device)[:, :, None, None]
    c = tensor(cols, device=input.device)[None, None, :, :]
    win = input[..., r, c]  # (..., oh, kh, ow, kw)
    lead = input.dim() - 2
    win = win.movedim(lead + 1, lead + 2).reshape(*input.shape[:-2], oh, ow, kh * kw)
    out, arg = win.max(-1)
    flat = (rows[:, None, :, None] * W + cols[None, :, None, :]).reshape(oh, ow, kh * kw)
    flat = tensor(flat, device=input.device).expand(*input.shape[:-2], oh, ow, kh * kw)
    return out, flat.gather(-1, arg.unsqueeze(-1)).squeeze(-1)


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
    inf = _lp_inf(input, norm_type, kernel_size, stride, ceil_mode, _p.max_pool1d)
    if inf is not None:
        return inf
    if stride is not None:
        out = _p.avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = _p.avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(
    input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False
) -> Tensor:
    kw, kh = _pair(kernel_size)
    inf = _lp_inf(input, norm_type, kernel_size, stride, ceil_mode, _max_pool2d)
    if inf is not None:
        return inf
    if stride is not None:
        out = _p.avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = _p.avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
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
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size, n)
    lead = input.shape[:-n]
    numel = 1
    for s in size:
        numel *= s
    src = input.reshape(*lead, -1)
    out = input.new_zeros((*lead, numel)).scatter(-1, indices.reshape(*lead, -1), src)
    return out.view(*lead, *size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


# ---- 3-D adaptive pooling (kernels in ops/nn_pool.py) -------------------------------------------
def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    from ...ops.nn_pool import adaptive_avg_pool3d as _avg

    return _avg(input, output_size)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    from ...ops.nn_pool import adaptive_max_pool3d_with_indices as _max

    return _max(input, output_size)


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


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-D convolution of (time, batch, channels) input with a (kernel, in, out) weight."""
    from ...ops.nn_conv import conv1d

    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return out.permute(2, 0, 1)


# ---- fractional max pooling (kernel in ops/nn_pool.py) -------------------------------------------
def _fractional(input: Tensor, kernel_size, output_size, output_ratio, _random_samples, nd: int):
    from ...ops.nn_pool import fractional_max_pool_nd
    from ...ops.random import rand

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


def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):  # fmt: skip
    out, idx = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return (out, idx) if return_indices else out


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):  # fmt: skip
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):  # fmt: skip
    out, idx = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return (out, idx) if return_indices else out
