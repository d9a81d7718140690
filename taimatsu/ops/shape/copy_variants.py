"""The ``*_copy`` functions (``view_copy``, ``permute_copy``, ... : a view op whose result is a
fresh contiguous tensor instead of a view), ``unsafe_split``/``unsafe_chunk``/
``unsafe_split_with_sizes`` and ``frombuffer``.

A ``*_copy`` runs the view op itself, so its shape rules and error messages are the view's,
then copies the data. Its grad_fn is named after the view's node with ``_copy`` appended, as in
PyTorch (``ViewBackward0_copy``), and its backward is the view's backward: the new node simply
delegates to the view's node, which is kept alive for that.
"""

from __future__ import annotations

import numpy as np

from taimatsu.ops.shape.view_scatter import slice_scatter

from ..._tensor.core import Tensor, _wrap, _wrapdim
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import no_grad
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import _fw_state, record, write_out, xp_for
from .diagonal import _tangent
from .split import _split_sizes, _split_vjp
from .split import split as _split

_COPY_NODES: dict = {}


def _delegate(node, *grads):
    return node.inner.apply(*grads)


def _delegating(inner, inputs, out, name: str | None = None) -> None:
    """Record a node named ``name`` (default: ``inner``'s name + ``_copy``) on ``out`` that runs
    ``inner``'s backward over ``inner``'s own edges."""
    node = record(_copy_node(inner, name), inputs, out, (), inner=inner)
    node.next_functions, node._shapes = inner.next_functions, inner._shapes


def _copy_node(inner, name: str | None = None) -> type:
    name = name or type(inner).__name__ + "_copy"
    cls = _COPY_NODES.get(name)
    if cls is None:
        cls = _COPY_NODES[name] = node_class(name, _delegate)
    return cls


def renamed(input: Tensor, result: Tensor, name: str) -> Tensor:
    """``result`` (computed from ``input`` alone) under the grad_fn name PyTorch gives it; the
    backward is ``result``'s own."""
    if result.grad_fn is None:
        return result
    r = _wrap(result._data, result._dtype, result._device)
    _delegating(result.grad_fn, (input,), r, name)
    if result._fw is not None:
        r._fw = result._fw
        _register(r)
    return r


def _fresh(t: Tensor) -> Tensor:
    return _wrap(xp_for(t).array(t._data, copy=True, order="C"), t._dtype, t._device)


def _copy_of(input: Tensor, view_fn):
    """``view_fn(input)``, copied out of ``input``'s memory, with PyTorch's ``*_copy`` node."""
    track = _gm.enabled and input._rg
    if track:
        v = view_fn(input)
    else:
        with no_grad():
            v = view_fn(input)
    multi = isinstance(v, (tuple, list))
    views = tuple(v) if multi else (v,)
    copies = [_fresh(o) for o in views]
    inner = views[0].grad_fn if track and views else None
    if inner is not None:
        _delegating(inner, (input,), copies if multi else copies[0])
    if _fw_state.level and input._fw is not None:
        tangents = view_fn(input._fw)
        for c, t in zip(copies, tangents if multi else (tangents,)):
            c._fw = _fresh(t)
            _register(c)
    return tuple(copies) if multi else copies[0]


def view_copy(input: Tensor, size) -> Tensor:
    return _copy_of(input, lambda t: t.view(size))


def permute_copy(input: Tensor, dims) -> Tensor:
    return _copy_of(input, lambda t: t.permute(dims))


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return _copy_of(input, lambda t: t.transpose(dim0, dim1))


def t_copy(input: Tensor) -> Tensor:
    return _copy_of(input, lambda t: t.t())


def squeeze_copy(input: Tensor, dim=None) -> Tensor:
    return _copy_of(input, lambda t: t.squeeze() if dim is None else t.squeeze(dim))


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    return _copy_of(input, lambda t: t.unsqueeze(dim))


def expand_copy(input: Tensor, size, *, implicit: bool = False) -> Tensor:
    return _copy_of(input, lambda t: t.expand(size))


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return _copy_of(input, lambda t: t.diagonal(offset, dim1, dim2))


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    return _copy_of(input, lambda t: t.select(dim, index))


def slice_copy(input: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    def view(t):
        d = _wrapdim(dim, t.dim())
        if step == 1:  # narrow records SliceBackward0 even for the whole dimension
            lo, hi, _ = slice(start, end).indices(t.shape[d])
            return t.narrow(d, lo, max(hi - lo, 0))
        return t[(slice(None),) * d + (slice(start, end, step),)]

    return _copy_of(input, view)


def split_copy(input: Tensor, split_size, dim: int = 0) -> tuple:
    return _copy_of(input, lambda t: t.split(split_size, dim))


def split_with_sizes_copy(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    return _copy_of(input, lambda t: t.split(list(split_sizes), dim))


def unbind_copy(input: Tensor, dim: int = 0) -> tuple:
    return _copy_of(input, lambda t: t.unbind(dim))


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return _copy_of(input, lambda t: t.unfold(dimension, size, step))


def as_strided_copy(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    return _copy_of(input, lambda t: t.as_strided(size, stride, storage_offset))


def view_as_real_copy(input: Tensor) -> Tensor:
    from ..pointwise.complex import view_as_real

    return _copy_of(input, view_as_real)


def view_as_complex_copy(input: Tensor) -> Tensor:
    from ..pointwise.complex import view_as_complex

    if _gm.enabled and input._rg:
        raise RuntimeError(
            "view_as_complex_copy does not support automatic differentiation for outputs with complex dtype."
        )
    return _copy_of(input, view_as_complex)


def _alias_vjp(node, g):
    return (g,)


_AliasCopy = node_class("AliasBackward0_copy", _alias_vjp)


def alias_copy(input: Tensor) -> Tensor:
    r = _fresh(input)
    if _gm.enabled and input._rg:
        record(_AliasCopy, (input,), r)
    if _fw_state.level and input._fw is not None:
        r._fw = _fresh(input._fw)
        _register(r)
    return r


def detach_copy(input: Tensor) -> Tensor:
    """A detached copy. (PyTorch marks its result requires_grad with a NotImplemented grad_fn that
    fails on backward; taimatsu returns a plain tensor without history.)"""
    return _fresh(input)


# ---- unsafe_split / unsafe_chunk ---------------------------------------------------------------------------
# The same pieces as split/chunk, under PyTorch's node names for them. (In PyTorch the pieces
# share memory without being registered as views; here they are ordinary views.)
_UnsafeSplit = node_class("UnsafeSplitBackward0", _split_vjp)
_UnsafeSplitWithSizes = node_class("UnsafeSplitWithSizesBackward0", _split_vjp)


def _unsafe(input: Tensor, pieces, dim: int, node_cls) -> tuple:
    d = _wrapdim(dim, input.dim())
    return _split_sizes(input, d, [p.shape[d] for p in pieces], node_cls)


def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> tuple:
    with no_grad():
        pieces = _split(input, split_size, dim)
    return _unsafe(input, pieces, dim, _UnsafeSplit)


def unsafe_split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    with no_grad():
        pieces = _split(input, list(split_sizes), dim)
    return _unsafe(input, pieces, dim, _UnsafeSplitWithSizes)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    with no_grad():
        pieces = input.chunk(chunks, dim)
    return _unsafe(input, pieces, dim, _UnsafeSplit)


# ---- frombuffer ------------------------------------------------------------------------------------------------
def frombuffer(
    buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad: bool = False
) -> Tensor:
    """A 1-D tensor sharing memory with a Python buffer. A read-only buffer (``bytes``) gets
    PyTorch's warning; writing through such a tensor then fails here (NumPy keeps it read-only)
    where PyTorch writes into the immutable object."""
    try:
        mv = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    nbytes, item = mv.nbytes, dtype.itemsize
    if nbytes <= 0 or count == 0:
        raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
    if not 0 <= offset < nbytes:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({nbytes} bytes) minus 1"
        )
    if count < 0:
        if (nbytes - offset) % item:
            raise ValueError(
                f"buffer length ({nbytes - offset} bytes) after offset ({offset} bytes) must be a multiple of "
                f"element size ({item})"
            )
        count = (nbytes - offset) // item
    elif offset + count * item > nbytes:
        raise ValueError(
            f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) must not be greater "
            f"than actual buffer length ({nbytes} bytes)"
        )
    if mv.readonly:
        from ..._flags import warn_once

        warn_once(
            "frombuffer_readonly",
            "The given buffer is not writable, and PyTorch does not support non-writable tensors. This means you "
            "can write to the underlying (supposedly non-writable) buffer using the tensor. You may want to copy the "
            "buffer to protect its data or make it writable before converting it to a tensor. This type of warning "
            "will be suppressed for the rest of this program. (Triggered internally at "
            "/__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:1556.)",
        )
    t = _wrap(np.frombuffer(mv, dtype=dtype.np, count=count, offset=offset), dtype)
    return t.requires_grad_(True) if requires_grad else t


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
    if input.is_sparse and out is None:
        from ...sparse.indexing import narrow_copy as sparse_narrow_copy

        return sparse_narrow_copy(input, dim, start, length)
    if out is not None:
        r = narrow_copy(input, dim, start, length)
        if isinstance(out, Tensor) and out._data.shape != r._data.shape and out._dtype is r._dtype:
            out._data, out._storage = (
                xp_for(out).empty(r._data.shape, out._dtype.np),
                None,
            )  # resized silently
        return write_out(out, r, "narrow_copy", _SAME_DTYPE)
    v = input.detach().narrow(dim, start, length)
    r = _wrap(xp_for(input).ascontiguousarray(v._data).copy(), input._dtype, input._device)
    d = _wrapdim(dim, input._data.ndim)
    s = start + input._data.shape[d] if start < 0 else start
    if input._rg and _gm.enabled:
        record(
            _NarrowCopy,
            (input,),
            r,
            (),
            in_shape=tuple(input._data.shape),
            dim=d,
            start=s,
            length=length,
        )
    _tangent(r, (input,), lambda t: narrow_copy(t, dim, start, length))
    return r
