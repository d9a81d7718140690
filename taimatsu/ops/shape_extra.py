"""Shape ops that complete the set: hsplit/vsplit/dsplit, rot90, put, the ``*_scatter`` family,
narrow_copy, split_with_sizes and diff.

hsplit/vsplit/dsplit and diff are compositions in PyTorch (their pieces carry SliceBackward0 and
SubBackward0), so they are compositions here. rot90, put, the scatters, narrow_copy and
split_with_sizes record their own node, named as PyTorch names it.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import _wrapdim
from ..autograd.grad_mode import state as _gm
from ._dispatch import (
    Tensor,
    _wrap,
    check_inplace,
    commit_inplace,
    needs_input_grad,
    node_class,
    record,
    scalar_name,
    write_out,
    xp_for,
)
from .shape import cat, split
from .shape_more import _tangent


# ---- hsplit / vsplit / dsplit -------------------------------------------------------------------------
def _split_family(name: str, input: Tensor, sections, min_dim: int, dim: int) -> tuple:
    nd = input._data.ndim
    if nd < min_dim:
        what = "1 dimension" if min_dim == 1 else f"{min_dim} dimension"
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {what}, but got a tensor with {nd} dimensions!"
        )
    if isinstance(sections, Tensor):
        sections = sections.tolist() if sections.dim() else sections.item()
    if isinstance(sections, (int, np.integer)):
        n = input._data.shape[dim]
        if sections == 0 or n % sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                f"{n} is not divisible by the split_size {sections}!"
            )
    return input.tensor_split(sections, dim)


def hsplit(input: Tensor, indices_or_sections) -> tuple:
    return _split_family("hsplit", input, indices_or_sections, 1, 1 if input._data.ndim > 1 else 0)


def vsplit(input: Tensor, indices_or_sections) -> tuple:
    return _split_family("vsplit", input, indices_or_sections, 2, 0)


def dsplit(input: Tensor, indices_or_sections) -> tuple:
    return _split_family("dsplit", input, indices_or_sections, 3, 2)


# ---- rot90 ---------------------------------------------------------------------------------------------
def _rot90_array(xp, x, k: int, d0: int, d1: int):
    # PyTorch's layout: k=1 and k=3 are a transposed view of a flipped copy, k=2 a flipped
    # copy, k=0 a contiguous copy; strides follow from that.
    if k == 1:
        return xp.swapaxes(xp.flip(x, d1).copy(), d0, d1)
    if k == 2:
        return xp.flip(x, (d0, d1)).copy()
    if k == 3:
        return xp.swapaxes(xp.flip(x, d0).copy(), d0, d1)
    return xp.ascontiguousarray(x)


def _rot90_vjp(node, g):
    return (rot90(g, -node.k, node.dims),)


_Rot90 = node_class("Rot90Backward0", _rot90_vjp)


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    nd = input._data.ndim
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = _wrapdim(dims[0], nd), _wrapdim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    kk = k % 4
    r = _wrap(_rot90_array(xp_for(input), input._data, kk, d0, d1), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_Rot90, (input,), r, (), k=k, dims=dims)
    _tangent(r, (input,), lambda t: rot90(t, k, dims))
    return r


# ---- put -----------------------------------------------------------------------------------------------
def _put_checks(self: Tensor, index: Tensor, source: Tensor) -> np.ndarray:
    if index._dtype is not D.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {scalar_name(index._dtype)}")
    if source._dtype is not self._dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{scalar_name(self._dtype)} and source.dtype = {scalar_name(source._dtype)}"
        )
    if index._data.size != source._data.size:
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got source.numel() = "
            f"{source._data.size}, index.numel() = {index._data.size}"
        )
    n = self._data.size
    idx = np.asarray(index._data).reshape(-1)
    bad = (idx >= n) | (idx < -n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(idx[bad][0])} on a tensor of {n} elements.")
    return idx


def _put_array(xp, x, idx, src, accumulate: bool):
    out = x.copy().reshape(-1)
    src = src.reshape(-1)
    if accumulate:
        xp.add.at(out, idx, src)
    else:
        out[idx] = src
    return out.reshape(x.shape)


def _put_vjp(node, g):
    index, source = node.index, node.source_shape
    gs = g.reshape(-1).take(index).reshape(source) if needs_input_grad(node, 1) else None
    gx = None
    if needs_input_grad(node, 0):
        gx = g if node.accumulate else g.put(index, g.new_zeros(index.shape), False)
    return gx, gs


_Put = node_class("PutBackward0", _put_vjp)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    idx = _put_checks(input, index, source)
    xp = xp_for(input)
    r = _wrap(_put_array(xp, input._data, xp.asarray(idx), source._data, accumulate), input._dtype, input._device)
    if (input._rg or source._rg) and _gm.enabled:
        record(_Put, (input, source), r, (), index=index, source_shape=tuple(source._data.shape), accumulate=accumulate)
    _tangent(r, (input, source), lambda a, b: put(a, index, b, accumulate))
    return r


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    check_inplace(self, (source,))
    return commit_inplace(self, put(self, index, source, accumulate))


# ---- diagonal_scatter / slice_scatter / select_scatter / as_strided_scatter ----------------------------
def _scatter_into(input: Tensor, src: Tensor, view_fn, node_cls, name: str, **attrs) -> Tensor:
    """A copy of ``input`` whose ``view_fn`` view holds ``src``; grads: the rest of g, and the view of g."""
    xp = xp_for(input)
    out = input._data.copy()
    target = view_fn(_wrap(out, input._dtype, input._device))
    if tuple(target.shape) != tuple(src._data.shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src._data.shape)}, "
            f"slice size = {list(target.shape)}"
        )
    xp.copyto(target._data, src._data, casting="unsafe")
    r = _wrap(out, input._dtype, input._device)
    if (input._rg or src._rg) and _gm.enabled:
        record(node_cls, (input, src), r, (), view_fn=view_fn, **attrs)
    _tangent(r, (input, src), lambda a, b: _scatter_into(a, b, view_fn, node_cls, name, **attrs))
    return r


def _view_scatter_vjp(node, g):
    gx = _scatter_into(g, g.new_zeros(()).expand(node.view_fn(g).shape), node.view_fn, type(node), "") if needs_input_grad(node, 0) else None
    gs = node.view_fn(g).clone() if needs_input_grad(node, 1) else None
    return gx, gs


_DiagonalScatter = node_class("DiagonalScatterBackward0", _view_scatter_vjp)
_SliceScatter = node_class("SliceScatterBackward0", _view_scatter_vjp)
_SelectScatter = node_class("SelectScatterBackward0", _view_scatter_vjp)
_AsStridedScatter = node_class("AsStridedScatterBackward0", _view_scatter_vjp)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return _scatter_into(input, src, lambda t: t.diagonal(offset, dim1, dim2), _DiagonalScatter, "diagonal_scatter")


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start=None, end=None, step: int = 1, *, out=None) -> Tensor:
    d = _wrapdim(dim, input._data.ndim)
    key = (slice(None),) * d + (slice(start, end, step),)
    r = _scatter_into(input, src, lambda t: t[key], _SliceScatter, "slice_scatter")
    if out is None:
        return r
    return write_out(out, r, "slice_scatter", "Expected out tensor to have dtype {res_cpp}, but got {out_cpp} instead", grad="aten")


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    return _scatter_into(input, src, lambda t: t.select(dim, index), _SelectScatter, "select_scatter")


def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset=None) -> Tensor:
    return _scatter_into(
        input, src, lambda t: t.as_strided(size, stride, storage_offset), _AsStridedScatter, "as_strided_scatter"
    )


# ---- narrow_copy / split_with_sizes (SplitWithSizesBackward0 comes from split with a list) --------------------------------------------------------------------
def _narrow_copy_vjp(node, g):
    z = g.new_zeros(node.in_shape)
    return (slice_scatter(z, g, node.dim, node.start, node.start + node.length),)


_NarrowCopy = node_class("NarrowCopyBackward0", _narrow_copy_vjp)


_SAME_DTYPE = (
    "Expected self.dtype() == output.dtype() to be true, but got false.  (Could this error message be "
    "improved?  If so, please report an enhancement request to PyTorch.)"
)


def narrow_copy(input: Tensor, dim: int, start: int, length: int, *, out=None) -> Tensor:
    if out is not None:
        r = narrow_copy(input, dim, start, length)
        if isinstance(out, Tensor) and out._data.shape != r._data.shape and out._dtype is r._dtype:
            out._data, out._storage = xp_for(out).empty(r._data.shape, out._dtype.np), None  # resized silently
        return write_out(out, r, "narrow_copy", _SAME_DTYPE)
    v = input.detach().narrow(dim, start, length)
    r = _wrap(xp_for(input).ascontiguousarray(v._data).copy(), input._dtype, input._device)
    d = _wrapdim(dim, input._data.ndim)
    s = start + input._data.shape[d] if start < 0 else start
    if input._rg and _gm.enabled:
        record(_NarrowCopy, (input,), r, (), in_shape=tuple(input._data.shape), dim=d, start=s, length=length)
    _tangent(r, (input,), lambda t: narrow_copy(t, dim, start, length))
    return r


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    return split(input, [int(s) for s in split_sizes], dim)


# ---- diff ----------------------------------------------------------------------------------------------
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend=None, append=None, *, out=None) -> Tensor:
    if out is not None:  # PyTorch's out= form ends in sub(out=): its autograd error names sub
        return write_out(out, diff(input, n, dim, prepend, append), "sub")
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if n == 0:  # PyTorch returns a copy made by copy_ (CopyBackwards), keeping the input's strides
        from .creation import empty_like
        from .indexing import copy_

        return copy_(empty_like(input), input)
    x = input
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, input, append) if p is not None]
        x = cat(parts, dim)
    for _ in range(n):
        m = x.shape[_wrapdim(dim, x.dim())]
        if m == 0:
            break
        a, b = x.narrow(dim, 1, m - 1), x.narrow(dim, 0, m - 1)
        x = a.logical_xor(b) if x.dtype is D.bool else a - b
    return x
