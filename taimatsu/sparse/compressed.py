"""The compressed layouts: ``torch.sparse_csr``, ``sparse_csc``, ``sparse_bsr``, ``sparse_bsc``.

A compressed tensor's payload holds ``indices = (compressed_indices, plain_indices)`` and
``values``: CSR/BSR compress the rows (``crow_indices``, ``col_indices``), CSC/BSC the columns
(``ccol_indices``, ``row_indices``); CSR/CSC values are ``(nnz,)``, BSR/BSC values are
``(nnz, *blocksize)`` blocks. Every kernel here goes through one element-level view: the
``(2, N)`` row/column indices of each stored element, in the values' own order
(``element_coo``), and back (``from_element_coo``).

Supported, as PyTorch: the factories (``sparse_csc_tensor`` / ``sparse_bsr_tensor`` /
``sparse_bsc_tensor`` / ``sparse_compressed_tensor``), conversions between all layouts with
PyTorch's errors, ``t()`` (CSR <-> CSC, BSR <-> BSC, blocks transposed); batches of matrices
(``(*batch, n + 1)`` compressed indices) are made, converted, densified and indexed batch by
batch (``per_batch``). Limits: scalar (or block) values, no dense dims (``NotImplementedError``).
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._device import as_device
from .._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided
from .._tensor.core import Tensor, _wrap
from .._tensor.sparse import SparseData, SparseTensor, make_sparse
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import node_class
from ..backend import xp_of
from ..ops._dispatch import record

COMPRESSED = frozenset({sparse_csr, sparse_csc, sparse_bsr, sparse_bsc})
ROW_COMPRESSED = frozenset({sparse_csr, sparse_bsr})
BLOCK = frozenset({sparse_bsr, sparse_bsc})
KIND = {
    strided: "Strided", sparse_coo: "Sparse", sparse_csr: "SparseCsr", sparse_csc: "SparseCsc",
    sparse_bsr: "SparseBsr", sparse_bsc: "SparseBsc",
}  # fmt: skip
INDEX_NAMES = {
    sparse_csr: ("crow_indices", "col_indices"), sparse_bsr: ("crow_indices", "col_indices"),
    sparse_csc: ("ccol_indices", "row_indices"), sparse_bsc: ("ccol_indices", "row_indices"),
}  # fmt: skip


# ---- arrays -------------------------------------------------------------------------------------
def blocksize(data: SparseData) -> tuple:
    return tuple(data.values.shape[-2:]) if data.layout in BLOCK else (1, 1)  # no dense dims


def element_coo(xp, data: SparseData):
    """``(indices, values)``: the ``(2, N)`` int64 row/column of every stored element (each
    block's elements row by row) and the flat values, in the payload's order."""
    compressed, plain = data.indices
    if compressed.ndim > 1:
        raise NotImplementedError(
            "taimatsu: this operation on a batched sparse compressed tensor is not implemented"
        )
    bh, bw = blocksize(data)
    major = xp.repeat(xp.arange(compressed.shape[0] - 1, dtype=np.int64), xp.diff(compressed))
    plain = plain.astype(np.int64, copy=False)
    brow, bcol = (major, plain) if data.layout in ROW_COMPRESSED else (plain, major)
    n = brow.shape[0]
    rows = brow[:, None, None] * bh + xp.arange(bh, dtype=np.int64)[None, :, None]
    cols = bcol[:, None, None] * bw + xp.arange(bw, dtype=np.int64)[None, None, :]
    rows, cols = xp.broadcast_to(rows, (n, bh, bw)), xp.broadcast_to(cols, (n, bh, bw))
    values = data.values.reshape(-1) if data.layout in BLOCK else data.values  # (N, *dense)
    return xp.stack([rows.reshape(-1), cols.reshape(-1)]), values


def batched_element_coo(xp, data: SparseData):
    """``element_coo`` of every batch, the batch coordinates as leading index rows (batch by
    batch: a batched tensor's COO form, as PyTorch's ``to_sparse()``)."""
    compressed, plain = data.indices
    batch = tuple(compressed.shape[:-1])
    if not batch:
        return element_coo(xp, data)
    parts, vals = [], []
    for b in np.ndindex(*batch):
        sub = SparseData(data.layout, (compressed[b], plain[b]), data.values[b], data.shape[-2:])
        idx, v = element_coo(xp, sub)
        lead = xp.broadcast_to(xp.asarray(b, dtype=np.int64)[:, None], (len(b), idx.shape[1]))
        parts.append(xp.concatenate([lead, idx]))
        vals.append(v)
    return xp.concatenate(parts, axis=1), xp.concatenate(vals)


def from_element_coo(xp, indices, values, shape, layout, block=(1, 1), index_dtype=np.int64):
    """Compressed arrays of the coalesced 2-d COO ``(indices, values)`` in ``layout``: every
    block holding an entry is stored (zeros filled in), blocks ordered along the compressed dim."""
    bh, bw = block
    nbr, nbc = shape[0] // bh, shape[1] // bw
    brow, bcol = indices[0] // bh, indices[1] // bw
    row_major = layout in ROW_COMPRESSED
    key = brow * nbc + bcol if row_major else bcol * nbr + brow
    uniq, inverse = xp.unique(key, return_inverse=True)
    inverse = inverse.reshape(-1)
    nmajor, nminor = (nbr, nbc) if row_major else (nbc, nbr)
    major, plain = uniq // max(nminor, 1), uniq % max(nminor, 1)
    counts = xp.bincount(major, minlength=nmajor)
    compressed = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(counts)])
    if layout in BLOCK:
        vals = xp.zeros((uniq.shape[0], bh, bw), dtype=values.dtype)
        vals[inverse, indices[0] % bh, indices[1] % bw] = values
    else:  # hybrid values keep their dense dims
        vals = xp.zeros((uniq.shape[0],) + values.shape[1:], dtype=values.dtype)
        vals[inverse] = values
    return compressed.astype(index_dtype), plain.astype(index_dtype), vals


# ---- tensors ------------------------------------------------------------------------------------
def make(layout, compressed, plain, values, shape, dtype, device) -> SparseTensor:
    from .construction import _CSR_BETA_MSG, _warn_once

    _warn_once("csr", _CSR_BETA_MSG)  # PyTorch's warning comes from the one compressed impl
    return make_sparse(SparseData(layout, (compressed, plain), values, shape, True), dtype, device)


def need_compressed(t: Tensor, name: str, row: bool) -> None:
    """PyTorch's error for ``crow_indices``/``col_indices`` (``row``) or ``ccol_indices``/
    ``row_indices`` of a tensor of another layout."""
    layout = t.layout
    if layout in COMPRESSED and (layout in ROW_COMPRESSED) == row:
        return
    what = "row" if row else "column"
    raise RuntimeError(
        f"{name} expected sparse {what} compressed tensor layout but got {KIND[layout]}"
    )


def index_tensor(t: SparseTensor, which: int) -> Tensor:
    a = t._data.indices[which]
    return _wrap(a, D.int32 if a.dtype == np.int32 else D.int64, t._device)


def _index_array(x, device):
    from .construction import _as_tensor

    t = _as_tensor(x, device=device)
    if t._dtype is D.int32:
        return t.detach()._data
    if t._dtype.category > D.INT:
        t = t.to(D.int64)
    return t.detach()._data.astype(np.int64, copy=False)


def sparse_compressed_tensor(
    compressed_indices, plain_indices, values, size=None, *, dtype=None, layout=None,
    device=None, pin_memory=False, requires_grad=False, check_invariants=None,
) -> SparseTensor:  # fmt: skip
    """``torch.sparse_compressed_tensor`` (and the per-layout factories): 2-d matrices with
    scalar values (CSR/CSC) or ``(nnz, bh, bw)`` blocks (BSR/BSC); int32 or int64 indices."""
    from .construction import _INVARIANTS_MSG, _as_tensor, _need_float, _warn_once, invariants

    if layout not in COMPRESSED:
        got = "none" if layout is None else KIND.get(layout, str(layout))
        raise RuntimeError(
            f"sparse_compressed_tensor expected sparse compressed tensor layout but got {got}"
        )
    if check_invariants is None and invariants["enabled"] is None:
        _warn_once("invariants", _INVARIANTS_MSG)
    dev = as_device(device) if device is not None else None
    vals = _as_tensor(values, dtype, dev)
    dev = vals.device
    compressed = _index_array(compressed_indices, dev)
    plain = _index_array(plain_indices, dev)
    block = layout in BLOCK
    nb = compressed.ndim - 1  # batch dims
    if block and vals.dim() <= nb + 2:
        raise RuntimeError(
            "values must have dimensionality > sum of batch and block dimensionalities "
            f"(={nb} + 2) but got {vals.dim()}"
        )
    batch = tuple(compressed.shape[:-1])
    dense = tuple(vals.shape[nb + 1 :]) if not block else ()  # a hybrid tensor's dense dims
    if (
        nb < 0 or plain.shape[:-1] != batch or tuple(vals.shape[:nb]) != batch
        or (block and vals.dim() != nb + 3) or (dense and nb)
    ):  # fmt: skip
        raise NotImplementedError(
            "taimatsu: sparse compressed tensors with batch dims or dense dims, not both, and "
            "block values without dense dims"
        )
    cname, pname = INDEX_NAMES[layout]
    if plain.shape[-1] != vals.shape[nb]:
        raise RuntimeError(
            f"{pname} and values must have the same number of elements, but got "
            f"{pname}.size(-1)={plain.shape[-1]} and values.size({nb})={vals.shape[nb]}"
        )
    bh, bw = tuple(vals.shape[nb + 1 : nb + 3]) if block else (1, 1)
    inferred = size is None
    if size is None:
        nmajor = compressed.shape[-1] - 1
        nminor = int(plain.max()) + 1 if plain.size else 0
        rc = (nmajor * bh, nminor * bw) if layout in ROW_COMPRESSED else (nminor * bh, nmajor * bw)
        size = batch + rc + dense
    size = tuple(int(s) for s in size)
    if len(size) != nb + 2 + len(dense):
        raise RuntimeError(
            f"tensor dimensionality must be sum of batch, base, and dense dimensionalities "
            f"(={nb} + 2 + {len(dense)}) but got {len(size)}"
        )
    if (check_invariants or (check_invariants is None and invariants["enabled"])) and not nb:
        _check(compressed, plain, size, layout, (bh, bw), cname, pname)
    out = make(layout, compressed, plain, vals._data, size, vals.dtype, dev)
    if requires_grad:
        _need_float(out)
        out.requires_grad_(True)
    elif vals._rg and _gm.enabled:  # PyTorch's factory without a size has no derivative
        from .construction import _SparseCsrBackward, no_derivative

        if inferred:
            no_derivative(out, "sparse_compressed_tensor", vals)
        else:
            record(_SparseCsrBackward, (vals,), out, like=out.detach())
    return out


def _check(compressed, plain, size, layout, block, cname, pname) -> None:
    nmajor = size[0] // block[0] if layout in ROW_COMPRESSED else size[1] // block[1]
    nminor = size[1] // block[1] if layout in ROW_COMPRESSED else size[0] // block[0]
    if compressed.shape[0] != nmajor + 1:
        raise RuntimeError(
            f"{cname}.shape[-1] must be equal to the number of compressed_indices_names + 1 "
            f"(={nmajor + 1}), but got {compressed.shape[0]}"
        )
    if int(compressed[0]) != 0:
        raise RuntimeError(f"`{cname}[..., 0] == 0` is not satisfied.")
    if int(compressed[-1]) != plain.shape[0]:
        raise RuntimeError(f"`{cname}[..., -1] == nnz` is not satisfied.")
    if plain.shape[0] and (int(plain.min()) < 0 or int(plain.max()) >= nminor):
        raise RuntimeError(f"`0 <= {pname} < plain_dim_size` is not satisfied.")


def sparse_csc_tensor(ccol_indices, row_indices, values, size=None, **kwargs) -> SparseTensor:
    return sparse_compressed_tensor(ccol_indices, row_indices, values, size, layout=sparse_csc,
                                    **kwargs)  # fmt: skip


def sparse_bsr_tensor(crow_indices, col_indices, values, size=None, **kwargs) -> SparseTensor:
    return sparse_compressed_tensor(crow_indices, col_indices, values, size, layout=sparse_bsr,
                                    **kwargs)  # fmt: skip


def sparse_bsc_tensor(ccol_indices, row_indices, values, size=None, **kwargs) -> SparseTensor:
    return sparse_compressed_tensor(ccol_indices, row_indices, values, size, layout=sparse_bsc,
                                    **kwargs)  # fmt: skip


# ---- conversions --------------------------------------------------------------------------------
_CONVERTER = {strided: "dense", sparse_coo: "coo", sparse_csr: "sparse_compressed",
              sparse_csc: "sparse_compressed", sparse_bsr: "sparse_compressed",
              sparse_bsc: "sparse_compressed"}  # fmt: skip
_TO_SPARSE = {strided: "dense_to_sparse", sparse_coo: "sparse_coo_to_sparse"}


def _blocksize(t: Tensor, layout, blocksize) -> tuple:
    """The checked ``(bh, bw)`` of a conversion to a block layout, with PyTorch's errors (named
    after the conversion kernel: ``dense_to_sparse_bsr``, ``to_sparse_bsr`` for BSR -> BSR...)."""
    src = t.layout
    prefix = "" if src is layout else _CONVERTER[src] + "_"
    name = f"{prefix}to_{layout.name}"
    if blocksize is None:
        fn = "to_sparse" if src is layout else _TO_SPARSE.get(src, "sparse_compressed_to_sparse")
        raise RuntimeError(
            f"{fn}: conversion from {KIND[src]} to {KIND[layout]} without blocksize "
            "argument given is not supported"
        )
    block = (
        (int(blocksize),) * 2 if isinstance(blocksize, int) else tuple(int(b) for b in blocksize)
    )
    if len(block) != 2:
        raise RuntimeError(f"{name}: blocksize needs to be a tuple of size 2, but got {len(block)}")
    if min(block) <= 0:
        raise RuntimeError(f"{name}: blocksize needs to be positive, but got {list(block)}")
    if src in BLOCK and blocksize_of(t) != block:
        raise RuntimeError(
            f"{name}: conversion from {KIND[src]} to {KIND[layout]} with blocksize changed from "
            f"{list(blocksize_of(t))} to {list(block)} is not supported"
        )
    rows, cols = tuple(t.shape[-2:]) if t.dim() >= 2 else (0, 0)
    if rows % block[0] or cols % block[1]:
        raise RuntimeError(
            f"{name}: tensor sparse size ({rows},{cols}) must be divisible by given "
            f"blocksize ({block[0]},{block[1]})"
        )
    return block


def convert(t: Tensor, layout, blocksize=None, dense_dim=None) -> SparseTensor:
    """``t.to_sparse_csr/csc/bsr/bsc()`` and ``to_sparse(layout=...)``: from any layout."""
    src = t.layout
    if t.dim() < 2:  # PyTorch's conversion kernels index the missing dim
        if layout is sparse_csr:
            raise IndexError(
                f"select(): index 1 out of range for tensor of size [{t.numel()}, 1] at dimension 1"
            )
        got = -2 if layout in BLOCK else 1
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-1, 0], but got {got})"
        )
    block = _blocksize(t, layout, blocksize) if layout in BLOCK else (1, 1)
    if src in BLOCK and layout not in BLOCK:
        raise RuntimeError(
            f"sparse_compressed_to_{layout.name}: expected SparseCsr or SparseCsc layout but got "
            f"{KIND[src]}"
        )
    if src is layout:
        return t
    if src is strided and t.dim() > 2 and not dense_dim:
        return _batched_from_dense(t, layout, block)
    hybrid = (src is strided and dense_dim and t.dim() == 2 + dense_dim) or (
        src is not strided and t.dim() == 2 + t.dense_dim() and t.dense_dim()
    )
    if hybrid and layout not in BLOCK:  # sparse rows/columns, dense trailing dims
        return _convert_matrix(t, layout, block)
    if src in COMPRESSED and t._data.indices[0].ndim > 1 and not dense_dim:
        if t._rg and _gm.enabled:
            raise NotImplementedError("taimatsu: the gradient of a batched layout conversion")
        return per_batch(lambda m: convert(m, layout, blocksize), t)
    if t.dim() != 2 or (src is sparse_coo and t.dense_dim()) or dense_dim:
        raise NotImplementedError(
            f"taimatsu: conversion to {layout} supports 2-d matrices with scalar values "
            "(and batches of dense ones) only"
        )
    return _convert_matrix(t, layout, block)


def _convert_matrix(t: Tensor, layout, block) -> SparseTensor:
    """One matrix (dense dims of a hybrid one trailing) in ``layout``."""
    xp = xp_of(t._device)
    idx, vals, index_dtype = _element_entries(xp, t)
    arrays_ = from_element_coo(xp, idx, vals, t.shape[:2], layout, block, index_dtype)
    out = make(layout, *arrays_, tuple(t.shape), t._dtype, t._device)
    if t._rg and _gm.enabled:
        record(_TO_NODE[layout], (t,), out, src=t.layout)
    return out


def batch_item(t: SparseTensor, b: tuple) -> SparseTensor:
    """Matrix ``b`` of a batched compressed tensor (sharing its arrays)."""
    data = t._data
    c, p = data.indices
    ndim = len(b)
    shape = data.shape[ndim:]
    return make(data.layout, c[b], p[b], data.values[b], shape, t._dtype, t._device)


def per_batch(fn, *tensors: SparseTensor) -> SparseTensor:
    """``fn`` applied to each matrix of batched compressed tensors (no autograd), the results
    stacked back into a batch; PyTorch's error when their nnz differ."""
    first = tensors[0]
    batch = tuple(first._data.indices[0].shape[:-1])
    xp = xp_of(first._device)
    outs = [fn(*(batch_item(t, b) for t in tensors)) for b in np.ndindex(*batch)]
    if len({o._nnz() for o in outs}) > 1:
        raise RuntimeError("Expect the same number of specified elements per batch.")
    d0 = outs[0]._data
    parts = [xp.stack([o._data.indices[i] for o in outs]) for i in (0, 1)]
    vals = xp.stack([o._data.values for o in outs])
    parts = [a.reshape(batch + a.shape[1:]) for a in (*parts, vals)]
    return make(d0.layout, *parts, batch + d0.shape, outs[0]._dtype, first._device)


def _batched_from_dense(t: Tensor, layout, block) -> SparseTensor:
    """A batch of dense matrices in ``layout``: each converted, the same nnz in every one."""
    from . import arrays

    xp = xp_of(t._device)
    batch = tuple(t.shape[:-2])
    parts = []
    for b in np.ndindex(*batch):
        idx, vals = arrays.dense_to_coo(xp, t._data[b], 2)
        parts.append(from_element_coo(xp, idx, vals, t.shape[-2:], layout, block))
    if len({p[1].shape[0] for p in parts}) > 1:
        raise RuntimeError("Expect the same number of specified elements per batch.")
    stacked = [xp.stack([p[i] for p in parts]).reshape(batch + parts[0][i].shape) for i in range(3)]
    out = make(layout, *stacked, tuple(t.shape), t._dtype, t._device)
    if t._rg and _gm.enabled:
        record(_TO_NODE[layout], (t,), out, src=strided)
    return out


def blocksize_of(t: SparseTensor) -> tuple:
    return blocksize(t._data)


def _element_entries(xp, t: Tensor):
    """The coalesced element COO of ``t`` (a dense tensor's nonzeros), and the index dtype the
    result keeps (a compressed source's)."""
    from . import arrays

    if t.layout is strided:
        idx, vals = arrays.dense_to_coo(xp, t._data, 2)
        return idx, vals, np.int64
    data = t._data
    if t.layout is sparse_coo:
        idx, vals = arrays.coalesce(xp, data.indices, data.values, data.shape)
        return idx, vals, np.int64
    idx, vals = element_coo(xp, data)
    idx, vals = arrays.coalesce(xp, idx, vals, data.shape)
    return idx, vals, data.indices[0].dtype


def transpose(t: SparseTensor) -> SparseTensor:
    """``t()`` of a compressed matrix: the same index arrays read the other way (CSR <-> CSC,
    BSR <-> BSC with each block transposed), as PyTorch's view."""
    data = t._data
    flip = {sparse_csr: sparse_csc, sparse_csc: sparse_csr, sparse_bsr: sparse_bsc,
            sparse_bsc: sparse_bsr}[data.layout]  # fmt: skip
    vals = data.values.transpose(0, 2, 1) if data.layout in BLOCK else data.values
    shape = (data.shape[1], data.shape[0])
    out = make(flip, *data.indices, vals, shape, t._dtype, t._device)
    out._vc = t._vc
    if t._rg and _gm.enabled:
        record(_TBackward, (t,), out)
    return out


# ---- autograd -------------------------------------------------------------------------------------
def _back_to_source(node, g):
    """The gradient of a layout conversion, in the source's layout (dense for a dense one)."""
    from .construction import to_dense

    if node.src is strided:
        return (to_dense(g) if g.layout is not strided else g,)
    if node.src is sparse_coo:
        return (g.to_sparse() if g.layout is not sparse_coo else g,)
    return (convert(g, node.src) if node.src not in BLOCK else to_dense(g),)


def _t_vjp(node, g):
    return (g.t(),)


_TO_NODE = {
    sparse_csr: node_class("ToSparseCsrBackward0", _back_to_source),
    sparse_csc: node_class("ToSparseCscBackward0", _back_to_source),
    sparse_bsr: node_class("ToSparseBsrBackward0", _back_to_source),
    sparse_bsc: node_class("ToSparseBscBackward0", _back_to_source),
}
_TBackward = node_class("TBackward0", _t_vjp)
