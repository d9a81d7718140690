"""Shape ops on COO tensors: ``unsqueeze`` and ``torch.cat``, as PyTorch's (``t``/``transpose``
live with the arithmetic)."""

from __future__ import annotations

from .._layout import sparse_coo, strided
from .._tensor.sparse import SparseTensor
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import node_class
from ..backend import xp_of
from ..ops._dispatch import record
from .construction import coo, coo_arrays


def unsqueeze(a: SparseTensor, dim: int) -> SparseTensor:
    """A new size-1 dim: a sparse dim (a row of zeros in the indices) when it comes at or before
    the last sparse dim, else a dense dim of the values."""
    if a.layout is not sparse_coo:
        raise RuntimeError(f"Sparse {_short(a)} tensors do not have strides")
    n, k = a.dim(), a.sparse_dim()
    if not -n - 1 <= dim <= n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n - 1}, {n}], but got {dim})"
        )
    dim %= n + 1
    xp = xp_of(a._device)
    data = a._data
    shape = a.shape[:dim] + (1,) + a.shape[dim:]
    if dim <= k:
        zero = xp.zeros((1, data.indices.shape[1]), dtype=data.indices.dtype)
        idx = xp.concatenate([data.indices[:dim], zero, data.indices[dim:]])
        out = coo(idx, data.values, shape, a._dtype, a._device, data.coalesced)
    else:
        vals = xp.expand_dims(data.values, dim - k + 1)
        out = coo(data.indices, vals, shape, a._dtype, a._device, data.coalesced)
    if _gm.enabled and a._rg:
        record(_UnsqueezeBackward, (a,), out, dim=dim, k=k)
    return out


def _short(t: SparseTensor) -> str:
    return t.layout.name[len("sparse_") :].upper()  # CSR, CSC, BSR, BSC


def _unsqueeze_vjp(node, g):
    if g.layout is strided:
        return (g.squeeze(node.dim),)
    gi, gv = coo_arrays(g)
    shape = g.shape[: node.dim] + g.shape[node.dim + 1 :]
    xp = xp_of(g._device)
    if node.dim <= node.k:
        keep = [d for d in range(gi.shape[0]) if d != node.dim]
        return (coo(gi[keep], gv, shape, g._dtype, g._device, g._data.coalesced),)
    vals = xp.squeeze(gv, node.dim - node.k + 1)
    return (coo(gi, vals, shape, g._dtype, g._device, g._data.coalesced),)


def cat(tensors, dim: int = 0) -> SparseTensor:
    """``torch.cat`` of COO tensors along a sparse dim: the entries one after the other, each
    tensor's indices shifted by the sizes before it (uncoalesced)."""
    tensors = list(tensors)
    first = tensors[0]
    for i, t in enumerate(tensors):
        if not isinstance(t, SparseTensor):
            raise RuntimeError(  # noqa: TRY004  (PyTorch raises RuntimeError)
                f"Concatenating sparse tensors, but a dense tensor was found at position {i}."
            )
        if t.layout is not sparse_coo:
            raise RuntimeError(f"Sparse {_short(t)} tensors do not have is_contiguous")
    n, k = first.dim(), first.sparse_dim()
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    dim %= n
    if dim >= k:
        raise NotImplementedError("taimatsu: torch.cat of sparse tensors along a dense dim")
    for i, t in enumerate(tensors):
        if t.dim() != n or any(t.shape[d] != first.shape[d] for d in range(n) if d != dim):
            raise RuntimeError(
                f"All tensors must have the same shape: {list(first.shape)} (except in the "
                f"concatenating dimension), but found shape: {list(t.shape)} at position {i}."
            )
        if t.sparse_dim() != k:
            raise NotImplementedError(
                "taimatsu: torch.cat of sparse tensors with different sparse dims"
            )
    xp = xp_of(first._device)
    parts, offset, starts = [], 0, []
    for t in tensors:
        idx = t._data.indices.copy()
        idx[dim] += offset
        parts.append(idx)
        starts.append((offset, t._nnz()))
        offset += t.shape[dim]
    dtype = first._dtype
    vals = xp.concatenate([t._data.values.astype(dtype.np, copy=False) for t in tensors])
    shape = first.shape[:dim] + (offset,) + first.shape[dim + 1 :]
    out = coo(xp.concatenate(parts, axis=1), vals, shape, dtype, first._device, False)
    if _gm.enabled and any(t._rg for t in tensors):
        record(_CatBackward, tensors, out, dim=dim, sizes=[t.shape[dim] for t in tensors])
    return out


def _cat_vjp(node, g):
    """Each input's slice of ``g`` along ``dim`` (sparse: its entries in range, shifted back)."""
    out, start = [], 0
    for size in node.sizes:
        if g.layout is strided:
            out.append(g.narrow(node.dim, start, size))
        else:
            gi, gv = coo_arrays(g)
            hit = (gi[node.dim] >= start) & (gi[node.dim] < start + size)
            idx = gi[:, hit].copy()
            idx[node.dim] -= start
            shape = g.shape[: node.dim] + (size,) + g.shape[node.dim + 1 :]
            out.append(coo(idx, gv[hit], shape, g._dtype, g._device, False))
        start += size
    return tuple(out)


_UnsqueezeBackward = node_class("UnsqueezeBackward0", _unsqueeze_vjp)
_CatBackward = node_class("CatBackward0", _cat_vjp)
