"""Indexing a COO tensor: ``s[i]``, ``s[:, j]``, ``select``, ``index_select`` and
``narrow_copy``, as PyTorch's.

Selecting along a sparse dim keeps the matching entries (in their order); when no sparse dim is
left the result is dense (the matching values summed, duplicates included). Along a dense dim
the values are indexed. As in PyTorch, these results cannot be differentiated: their backward
raises PyTorch's dispatcher error (select_backward / index_add_ have no sparse kernels).
"""

from __future__ import annotations

from .. import _dtype as D
from .._layout import sparse_coo, sparse_csc, sparse_csr
from .._tensor.core import Tensor, _wrap
from .._tensor.sparse import SparseTensor, not_implemented
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import node_class
from ..backend import xp_of
from ..ops._dispatch import record
from .construction import coo


def _wrapped(dim: int, n: int) -> int:
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def select(a: SparseTensor, dim: int, index: int, subscript: bool = False) -> Tensor:
    nbatch = a._data.indices[0].ndim - 1 if a.layout is not sparse_coo else 0
    if nbatch and _wrapped(dim, a.dim()) < nbatch:  # a matrix of the batch
        dim = _wrapped(dim, a.dim())
        key = [slice(None)] * nbatch
        key[dim] = index % a.shape[dim] if -a.shape[dim] <= index < a.shape[dim] else index
        if nbatch > 1:
            raise NotImplementedError("taimatsu: select of a multi-batch compressed tensor")
        from .compressed import batch_item

        return batch_item(a, (key[0],))
    if nbatch:
        raise NotImplementedError("taimatsu: select within a batched compressed tensor")
    if a.layout in (sparse_csr, sparse_csc):  # PyTorch selects from the COO form
        return select(a.to_sparse(), dim, index, subscript)
    if a.layout is not sparse_coo:
        raise RuntimeError(
            "select(): no view exists for the given input, consider using torch.select_copy."
        )
    dim = _wrapped(dim, a.dim())
    size = a.shape[dim]
    if not -size <= index < size:
        if subscript:  # s[i] words it as indexing does
            raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(a.shape)} at "
            f"dimension {dim}"
        )
    index %= size
    data, k = a._data, a.sparse_dim()
    shape = a.shape[:dim] + a.shape[dim + 1 :]
    if dim >= k:  # a dense dim: index the values
        vals = data.values.take(index, axis=dim - k + 1)
        out = coo(data.indices, vals, shape, a._dtype, a._device, data.coalesced)
    else:
        hit = data.indices[dim] == index
        vals = data.values[hit]
        if k == 1:  # no sparse dim left: a dense tensor
            out = _wrap(vals.sum(axis=0).astype(vals.dtype, copy=False), a._dtype, a._device)
        else:
            keep = [d for d in range(k) if d != dim]
            new = data.indices[keep][:, hit]
            out = coo(new, vals, shape, a._dtype, a._device, new.shape[1] < 2)
    return _no_backward(a, out, _SelectBackward)


def index_select(a: SparseTensor, dim: int, index: Tensor) -> SparseTensor:
    if a.layout is not sparse_coo:
        raise not_implemented("index_select", a.layout, a._device)
    if index._dtype not in (D.int64, D.int32) or index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    dim = _wrapped(dim, a.dim())
    xp = xp_of(a._device)
    data, k = a._data, a.sparse_dim()
    idx = index._data.reshape(-1).astype("int64")
    bad = (idx < -a.shape[dim]) | (idx >= a.shape[dim])
    if bad.any():
        raise IndexError(
            f"index_select(): index contains {int(idx[bad][0])} that is out of range for tensor "
            f"of size {list(a.shape)} at dimension {dim}"
        )
    idx = idx % max(a.shape[dim], 1)
    shape = a.shape[:dim] + (idx.shape[0],) + a.shape[dim + 1 :]
    if dim >= k:
        vals = data.values.take(idx, axis=dim - k + 1)
        out = coo(data.indices, vals, shape, a._dtype, a._device, data.coalesced)
    else:
        # (output position, entry) pairs, output-major then in entry order: PyTorch's order
        pos, entry = xp.nonzero(idx[:, None] == data.indices[dim][None, :])
        new = data.indices[:, entry].copy()
        new[dim] = pos
        out = coo(new, data.values[entry], shape, a._dtype, a._device, new.shape[1] < 2)
    return _no_backward(a, out, _IndexSelectBackward)


def narrow_copy(a: SparseTensor, dim: int, start: int, length: int) -> SparseTensor:
    """The entries with ``start <= index < start + length`` along ``dim``, shifted to 0, in their
    order (a coalesced input stays coalesced), as PyTorch's sparse ``narrow_copy``."""
    if a.layout is not sparse_coo:
        raise not_implemented("narrow_copy", a.layout, a._device)
    n = a.dim()
    if not 0 <= dim < n:  # (PyTorch's sparse kernel wraps no negative dim)
        raise RuntimeError(f"Dimension {dim} out of range. Expecting 0 <= dim < {n}.")
    size = a.shape[dim]
    if start < 0 or length < 0 or start + length > size:
        raise RuntimeError(
            "Invalid range to narrow. range(start, start+length) must be a subset of "
            f"range(0, {size})."
        )
    data, k = a._data, a.sparse_dim()
    shape = a.shape[:dim] + (length,) + a.shape[dim + 1 :]
    if dim >= k:
        vals = data.values.take(range(start, start + length), axis=dim - k + 1)
        return coo(data.indices, vals, shape, a._dtype, a._device, data.coalesced)
    keep = (data.indices[dim] >= start) & (data.indices[dim] < start + length)
    new = data.indices[:, keep].copy()
    new[dim] -= start
    return coo(new, data.values[keep], shape, a._dtype, a._device, data.coalesced)


def getitem(a: SparseTensor, key) -> Tensor:
    """``s[i]``, ``s[i, j]``, ``s[:, j]``: integers and full slices; other keys raise PyTorch's
    dispatcher error."""
    keys = key if isinstance(key, tuple) else (key,)
    out, dim = a, 0
    for k in keys:
        if isinstance(k, bool) or not isinstance(k, (int, slice)) and not _is_index(k):
            raise not_implemented("index.Tensor", a.layout, a._device)
        if isinstance(k, slice):
            if k != slice(None):
                raise not_implemented("as_strided", a.layout, a._device)
            dim += 1
            continue
        if not isinstance(out, SparseTensor):  # already dense: the rest is dense indexing
            return out[(slice(None),) * dim + (int(k),)]
        out = select(out, dim, int(k), subscript=True)
    return out


def _is_index(k) -> bool:
    return isinstance(k, Tensor) and k.dim() == 0 and k._dtype.category <= D.INT


def _no_backward(a: SparseTensor, out, node):
    if _gm.enabled and a._rg:
        record(node, (a,), out, layout=a.layout, device=a._device)
    return out


def _raise(op):
    def vjp(node, g):
        raise not_implemented(op, node.layout, node.device)

    return vjp


_SelectBackward = node_class("SelectBackward0", _raise("select_backward"))
_IndexSelectBackward = node_class("IndexSelectBackward0", _raise("index_add_"))
