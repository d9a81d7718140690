"""Shape ops that complete the set: hsplit/vsplit/dsplit, rot90, put, the ``*_scatter`` family,
narrow_copy, split_with_sizes and diff.

hsplit/vsplit/dsplit and diff are compositions in PyTorch (their pieces carry SliceBackward0 and
SubBackward0), so they are compositions here. rot90, put, the scatters, narrow_copy and
split_with_sizes record their own node, named as PyTorch names it.
"""

from __future__ import annotations

from ..._tensor.core import Tensor, _wrap, _wrapdim
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import need_tensor, needs_input_grad, record, write_out, xp_for
from .diagonal import _tangent


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
    gx = (
        _scatter_into(
            g, g.new_zeros(()).expand(node.view_fn(g).shape), node.view_fn, type(node), ""
        )
        if needs_input_grad(node, 0)
        else None
    )
    gs = node.view_fn(g).clone() if needs_input_grad(node, 1) else None
    return gx, gs


_DiagonalScatter = node_class("DiagonalScatterBackward0", _view_scatter_vjp)
_SliceScatter = node_class("SliceScatterBackward0", _view_scatter_vjp)
_SelectScatter = node_class("SelectScatterBackward0", _view_scatter_vjp)
_AsStridedScatter = node_class("AsStridedScatterBackward0", _view_scatter_vjp)


def diagonal_scatter(
    input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Tensor:
    need_tensor("diagonal_scatter", src, "src", 2)  # the parser's check, before the dims'
    return _scatter_into(
        input, src, lambda t: t.diagonal(offset, dim1, dim2), _DiagonalScatter, "diagonal_scatter"
    )


def slice_scatter(
    input: Tensor, src: Tensor, dim: int = 0, start=None, end=None, step: int = 1, *, out=None
) -> Tensor:
    d = _wrapdim(dim, input._data.ndim)
    key = (slice(None),) * d + (slice(start, end, step),)
    r = _scatter_into(input, src, lambda t: t[key], _SliceScatter, "slice_scatter")
    if out is None:
        return r
    return write_out(
        out,
        r,
        "slice_scatter",
        "Expected out tensor to have dtype {res_cpp}, but got {out_cpp} instead",
        grad="aten",
    )


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    return _scatter_into(
        input, src, lambda t: t.select(dim, index), _SelectScatter, "select_scatter"
    )


def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset=None) -> Tensor:
    return _scatter_into(
        input,
        src,
        lambda t: t.as_strided(size, stride, storage_offset),
        _AsStridedScatter,
        "as_strided_scatter",
    )
