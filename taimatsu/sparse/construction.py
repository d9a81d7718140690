"""Making sparse tensors and taking them apart: ``sparse_coo_tensor``, ``sparse_csr_tensor``,
``to_sparse``/``to_sparse_csr``/``to_dense``, ``coalesce``, ``indices``/``values``, ``sparse_mask``,
``clone``/``to``, with PyTorch's autograd nodes (``ToDenseBackward0`` hands the input a sparse
gradient with the input's sparsity pattern, as PyTorch's does).

The backward formulas run on arrays (no double backward through sparse ops).
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np

from .. import _dtype as D
from .._device import as_device, cpu
from .._layout import sparse_coo, sparse_csr, strided
from .._tensor.core import Tensor, _wrap
from .._tensor.sparse import SparseData, SparseTensor, make_sparse
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import node_class
from ..backend import to_device, xp_of
from ..ops._dispatch import record
from . import arrays, compressed
from .compressed import KIND as _KIND

_warned = set()


def _warn_once(key: str, message: str) -> None:
    """PyTorch's once-per-process warning, attributed to the user's line (the first frame
    outside taimatsu), wherever in the library the sparse tensor was made."""
    if key not in _warned:
        _warned.add(key)
        level, frame = 2, sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            level, frame = level + 1, frame.f_back
        warnings.warn(message, UserWarning, stacklevel=level)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


_INVARIANTS_MSG = (
    "Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur when "
    "operating on a sparse tensor which violates the invariants, but checks incur performance overhead. "
    "To silence this warning, explicitly opt in or out. See "
    "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance.  (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:816.)"
)
_CSR_BETA_MSG = (
    "Sparse CSR tensor support is in beta state. If you miss a functionality in the sparse tensor "
    "support, please submit a feature request to https://github.com/pytorch/pytorch/issues. "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/SparseCsrTensorImpl.cpp:49.)"
)
# torch.sparse.check_sparse_tensor_invariants.enable()/disable(): None until set explicitly.
invariants = {"enabled": None}


def kind(t: Tensor) -> str:
    return _KIND[t.layout]


def need_layout(t: Tensor, name: str, layout) -> None:
    if t.layout is not layout:
        what = "coordinate" if layout is sparse_coo else "row compressed"
        raise RuntimeError(f"{name} expected sparse {what} tensor layout but got {kind(t)}")


def coo(indices, values, shape, dtype, device, coalesced=False) -> SparseTensor:
    return make_sparse(SparseData(sparse_coo, indices, values, shape, coalesced), dtype, device)


def csr(crow, col, values, shape, dtype, device) -> SparseTensor:
    _warn_once("csr", _CSR_BETA_MSG)
    return make_sparse(SparseData(sparse_csr, (crow, col), values, shape, True), dtype, device)


def coo_arrays(t: SparseTensor):
    """(indices, values) of a COO or CSR tensor as COO arrays."""
    data = t._data
    if data.layout is not sparse_coo:  # the compressed layouts, element by element
        return compressed.element_coo(xp_of(t._device), data)
    return data.indices, data.values


def dense_array(data: SparseData):
    xp = xp_of(data.device or cpu)
    if data.layout is not sparse_coo:
        return arrays.coo_to_dense(xp, *compressed.batched_element_coo(xp, data), data.shape)
    return arrays.coo_to_dense(xp, data.indices, data.values, data.shape)


# ---- factories --------------------------------------------------------------------------------
def _as_tensor(x, dtype=None, device=None) -> Tensor:
    from ..ops.creation.factories import tensor

    if isinstance(x, Tensor):
        return x.to(dtype=dtype or x.dtype, device=device or x.device)
    return tensor(x, dtype=dtype, device=device)


def _index_array(x, device, what: str):
    t = _as_tensor(x, device=device)
    if t.dtype.category > D.INT:
        t = t.to(D.int64)  # PyTorch casts float indices too
    return t.detach()._data.astype(np.int64, copy=False)


def sparse_coo_tensor(
    indices=None, values=None, size=None, *, dtype=None, device=None, pin_memory=False,
    requires_grad=False, check_invariants=None, is_coalesced=None,
) -> SparseTensor:  # fmt: skip
    """``torch.sparse_coo_tensor``: an uncoalesced COO tensor (unless ``is_coalesced=True``);
    the values keep their graph (SparseCooTensorWithDimsAndTensorsBackward0).
    ``sparse_coo_tensor(shape, dtype=...)`` makes an empty one."""
    if check_invariants is None and invariants["enabled"] is None:
        _warn_once("invariants", _INVARIANTS_MSG)
    if indices is None and values is None and size is not None:  # sparse_coo_tensor(size=...)
        indices, size = size, None
    if indices is None:
        raise TypeError("sparse_coo_tensor() received an invalid combination of arguments")
    if values is None and size is None:
        return _empty(tuple(int(n) for n in indices), dtype, device, requires_grad)
    dev = as_device(device) if device is not None else None
    vals = _as_tensor(values, dtype, dev)
    dev = vals.device
    idx = _index_array(indices, dev, "indices")
    if idx.ndim != 2:
        k = idx.shape[0] if idx.ndim else 0  # PyTorch reads sparse_dim off dim 0 first
        if size is not None and len(size) != k + vals.dim() - 1:
            _size_error(size, k, vals.dim() - 1)
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    if vals.dim() == 0:
        vals = vals.reshape(1) if idx.shape[1] == 1 else vals
    if idx.shape[1] != vals.shape[0]:
        raise RuntimeError(
            "indices and values must have same nnz, but got nnz from indices: "
            f"{idx.shape[1]}, nnz from values: {vals.shape[0]}"
        )
    k, dense_shape = idx.shape[0], tuple(vals.shape[1:])
    if size is None:
        lead = tuple(int(m) + 1 for m in idx.max(axis=1)) if idx.shape[1] else (0,) * k
        size = lead + dense_shape
    size = tuple(int(s) for s in size)
    if len(size) != k + len(dense_shape):
        _size_error(size, k, len(dense_shape))
    if check_invariants or (check_invariants is None and invariants["enabled"]):
        _check_coo(idx, size)
    coalesced = bool(is_coalesced) if is_coalesced is not None else idx.shape[1] < 2
    out = coo(idx, vals._data, size, vals.dtype, dev, coalesced)
    if requires_grad:
        _need_float(out)
        out.requires_grad_(True)
    elif vals._rg and _gm.enabled:
        record(_SparseCooBackward, (vals,), out, indices=idx, shape=size)
    return out


def _empty(size, dtype, device, requires_grad) -> SparseTensor:
    dev = as_device(device) if device is not None else cpu
    xp = xp_of(dev)
    dtype = dtype or D.get_default_dtype()
    out = coo(xp.zeros((len(size), 0), np.int64), xp.zeros(0, dtype.np), size, dtype, dev, True)
    return out.requires_grad_(True) if requires_grad else out


def _need_float(t: Tensor) -> None:
    if t._dtype.category < D.FLOAT:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")


def _size_error(size, k: int, dense_dim: int):
    raise RuntimeError(
        f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
        f"sparse_dim = {k}, dense_dim = {dense_dim}"
    )


def _check_coo(idx, size) -> None:
    for d in range(idx.shape[0]):
        if idx.shape[1] and int(idx[d].min()) < 0:
            raise RuntimeError(f"found negative index {int(idx[d].min())} for dim {d}")
        if idx.shape[1] and int(idx[d].max()) >= size[d]:
            raise RuntimeError(
                f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found "
                f"index {int(idx[d].max())}"
            )


def sparse_csr_tensor(
    crow_indices, col_indices, values, size=None, *, dtype=None, device=None,
    pin_memory=False, requires_grad=False, check_invariants=None,
) -> SparseTensor:  # fmt: skip
    """``torch.sparse_csr_tensor`` for 2-d matrices with scalar values (no batch or dense dims)."""
    if check_invariants is None and invariants["enabled"] is None:
        _warn_once("invariants", _INVARIANTS_MSG)
    dev = as_device(device) if device is not None else None
    vals = _as_tensor(values, dtype, dev)
    dev = vals.device
    crow = _index_array(crow_indices, dev, "crow_indices")
    col = _index_array(col_indices, dev, "col_indices")
    int32 = getattr(crow_indices, "dtype", None) is D.int32  # kept, as PyTorch keeps it
    if crow.ndim > 1 or vals.dim() > 1 or int32:  # a batch of matrices, or hybrid values
        return compressed.sparse_compressed_tensor(
            crow_indices, col_indices, values, size, dtype=dtype, layout=sparse_csr,
            device=device, requires_grad=requires_grad, check_invariants=check_invariants,
        )  # fmt: skip
    if crow.ndim != 1 or col.ndim != 1 or vals.dim() != 1:
        raise NotImplementedError(
            "taimatsu: sparse_csr_tensor supports 2-d matrices with scalar values only"
        )
    if col.shape[0] != vals.shape[0]:
        raise RuntimeError(
            "col_indices and values must have the same number of elements, but got "
            f"col_indices.size(-1)={col.shape[0]} and values.size(-1)={vals.shape[0]}"
        )
    if size is None:
        size = (crow.shape[0] - 1, int(col.max()) + 1 if col.shape[0] else 0)
    size = tuple(int(s) for s in size)
    if len(size) != 2:
        raise NotImplementedError("taimatsu: sparse_csr_tensor supports 2-d matrices only")
    if check_invariants and (crow.shape[0] != size[0] + 1 or int(crow[-1]) != col.shape[0]):
        raise RuntimeError(
            f"`crow_indices[..., -1] == nnz` is not satisfied or crow_indices has not "
            f"{size[0] + 1} elements"
        )
    out = csr(crow, col, vals._data, size, vals.dtype, dev)
    if requires_grad:
        _need_float(out)
        out.requires_grad_(True)
    elif vals._rg and _gm.enabled:
        record(_SparseCsrBackward, (vals,), out, like=out.detach())
    return out


# ---- accessors --------------------------------------------------------------------------------
def indices(t: Tensor, checked: bool) -> Tensor:
    need_layout(t, "indices" if checked else "_indices", sparse_coo)
    if checked and not t._data.coalesced:
        raise RuntimeError(
            "Cannot get indices on an uncoalesced tensor, please call .coalesce() first"
        )
    return _wrap(t._data.indices, D.int64, t._device)


def values(t: Tensor, checked: bool, grad_coalesced: bool = True) -> Tensor:
    if t.layout is strided:
        raise RuntimeError(
            f"{'values' if checked else '_values'} expected sparse tensor layout but got Strided"
        )
    data = t._data
    if checked and data.layout is sparse_coo and not data.coalesced:
        raise RuntimeError(
            "Cannot get values on an uncoalesced tensor, please call .coalesce() first"
        )
    out = _wrap(data.values, t._dtype, t._device)
    out._vc = t._vc
    if checked and t._rg and _gm.enabled:
        record(_ValuesBackward, (t,), out, like=t, grad_coalesced=grad_coalesced)
    return out


def compressed_indices(t: Tensor, which: int, name: str) -> Tensor:
    """``crow_indices``/``col_indices`` (CSR, BSR) or ``ccol_indices``/``row_indices`` (CSC, BSC)."""
    compressed.need_compressed(t, name, row=name in ("crow_indices", "col_indices"))
    return compressed.index_tensor(t, which)


# ---- conversions --------------------------------------------------------------------------------
def coalesce(t: SparseTensor) -> SparseTensor:
    need_layout(t, "coalesce", sparse_coo)
    data = t._data
    if data.coalesced:
        return t
    xp = xp_of(t._device)
    idx, vals = arrays.coalesce(xp, data.indices, data.values, data.shape)
    out = coo(idx, vals, data.shape, t._dtype, t._device, True)
    if t._rg and _gm.enabled:
        record(_CoalesceBackward, (t,), out)
    return out


def to_dense(t: Tensor, dtype=None) -> Tensor:
    if t.layout is strided:
        return t if dtype is None else t.to(dtype)
    if dtype is not None:  # PyTorch's sparse kernels refuse any dtype, their own included
        kernel = "sparse_to_dense" if t.layout is sparse_coo else "sparse_csr_to_dense"
        raise RuntimeError(f"dtype argument is not supported by {kernel}")
    out = _wrap(dense_array(t._data), t._dtype, t._device)
    if t._rg and _gm.enabled:
        record(_ToDenseBackward, (t,), out, like=t)
    return out if dtype is None else out.to(dtype)


def to_sparse(t: Tensor, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """``Tensor.to_sparse``: a coalesced COO tensor (or one of ``layout=``'s)."""
    if layout is sparse_csr:
        return to_sparse_csr(t, dense_dim)
    if layout in compressed.COMPRESSED:
        return compressed.convert(t, layout, blocksize, dense_dim)
    if layout not in (None, sparse_coo):
        raise NotImplementedError(f"taimatsu: to_sparse to layout {layout} is not implemented")
    if t.layout is sparse_coo:
        if sparse_dim is not None and sparse_dim != t.sparse_dim():
            raise RuntimeError(
                "to_sparse: conversion from Sparse to Sparse with sparse_dim argument !=self.sparse_dim() "
                "is not supported"
            )
        return t
    xp = xp_of(t._device)
    if t.layout is not strided:  # a compressed layout: its elements in storage order
        idx, vals = compressed.batched_element_coo(xp, t._data)
        sorted_ = t.layout is sparse_csr  # only CSR's order is the coalesced one (PyTorch's flag)
        out = coo(idx, vals.copy(), t._data.shape, t._dtype, t._device, sorted_)
        node = _ToSparseBackward  # the gradient only needs densifying back
    else:
        sparse_dim = t.dim() if sparse_dim is None else sparse_dim
        if not 0 <= sparse_dim <= t.dim():
            raise RuntimeError(
                f"sparse_dim argument must be in [0,{t.dim()}] range, but {sparse_dim} is given"
            )
        idx, vals = arrays.dense_to_coo(xp, t._data, sparse_dim)
        out = coo(idx, vals, t.shape, t._dtype, t._device, True)
        node = _ToSparseBackward
    if t._rg and _gm.enabled:
        record(node, (t,), out)
    return out


def to_sparse_csr(t: Tensor, dense_dim=None) -> SparseTensor:
    if t.layout is sparse_csr:
        return t
    if t.layout in compressed.COMPRESSED or t.dim() != 2:  # batches, hybrid tensors, errors
        return compressed.convert(t, sparse_csr, None, dense_dim)
    if t.dim() != 2:
        raise NotImplementedError("taimatsu: to_sparse_csr supports 2-d tensors only")
    xp = xp_of(t._device)
    if t.layout is sparse_coo:
        data = t._data
        idx, vals = arrays.coalesce(xp, data.indices, data.values, data.shape)
    else:
        idx, vals = arrays.dense_to_coo(xp, t._data, 2)
    crow, col, vals = arrays.coo_to_csr(xp, idx, vals, t.shape[0])
    out = csr(crow, col, vals, t.shape, t._dtype, t._device)
    if t._rg and _gm.enabled:
        record(_ToSparseCsrBackward, (t,), out, src=t.layout, like=t.detach())
    return out


def sparse_mask(t: Tensor, mask: SparseTensor) -> SparseTensor:
    """``t.sparse_mask(mask)``: ``t``'s entries at each of ``mask``'s indices."""
    if t.shape != mask.shape:
        raise RuntimeError(
            "sparse_mask(): operands have incompatible sizes; self has size "
            f"{list(t.shape)} but mask has size {list(mask.shape)}"
        )
    out = like(mask, masked_values(t.detach(), mask))  # the mask's entries, duplicates too
    if t._rg and _gm.enabled:
        record(_SparseMaskBackward, (t,), out, mask=mask.detach())
    return out


def masked_like(mask: SparseTensor, g: Tensor, coalesced: bool = False) -> SparseTensor:
    """``g`` (dense or sparse) at the distinct entries of ``mask``, in ``mask``'s layout: the
    gradient PyTorch hands a sparse input (flagged uncoalesced, as PyTorch's is)."""
    data = mask._data
    if data.layout is not sparse_coo:
        return like(mask, masked_values(g, mask))
    idx = pattern(mask)
    return coo(idx, _gather(g, idx, data.shape), data.shape, g._dtype, mask._device, coalesced)


def pattern(t: SparseTensor):
    """The distinct COO indices of ``t``, sorted (its coalesced indices)."""
    data = t._data
    if data.coalesced:
        return data.indices
    xp = xp_of(t._device)
    k = data.indices.shape[0]
    lin = xp.unique(arrays.linear_index(xp, data.indices, data.shape[:k]))
    return xp.stack(xp.unravel_index(lin, data.shape[:k])).astype(np.int64).reshape(k, -1)


def _gather(g: Tensor, idx, shape):
    if g.layout is strided:
        return g._data[tuple(idx)]
    return arrays.gather_sparse(xp_of(g._device), idx, shape, *coo_arrays(g))


def masked_values(g: Tensor, mask: SparseTensor):
    """The values array of ``g`` (dense or sparse) at each entry of ``mask``."""
    idx, _ = coo_arrays(mask)
    return _gather(g, idx, mask._data.shape)


def like(mask: SparseTensor, vals) -> SparseTensor:
    """A sparse tensor with ``mask``'s indices (and layout) holding ``vals``."""
    data = mask._data
    if data.layout is not sparse_coo:  # block values come flat from the element view
        vals = vals.reshape(data.values.shape)
        return compressed.make(data.layout, *data.indices, vals, data.shape, mask._dtype,
                               mask._device)  # fmt: skip
    return coo(data.indices, vals, data.shape, mask._dtype, mask._device, data.coalesced)


def clone(t: SparseTensor) -> SparseTensor:
    out = make_sparse(t._data.copy(), t._dtype, t._device)
    if t._rg and _gm.enabled:
        record(_CloneBackward, (t,), out)
    return out


def to(t: SparseTensor, *args, **kwargs) -> SparseTensor:
    """``Tensor.to`` for a sparse tensor: the values cast, the arrays moved."""
    from ..ops.creation.factories import _cast, _parse_to

    dtype, dev, copy = _parse_to(args, dict(kwargs))
    dtype, dev = dtype or t._dtype, dev or t._device
    if dtype is t._dtype and dev == t._device and not copy:
        return t
    data = t._data.copy()
    if dev != t._device:
        idx = data.indices
        data.indices = (
            tuple(to_device(a, dev) for a in idx) if isinstance(idx, tuple) else to_device(idx, dev)
        )
        data.values = to_device(data.values, dev)
    if dtype is not t._dtype:
        data.values = _cast(data.values, t._dtype, dtype)
    out = make_sparse(data, dtype, dev)
    if t._rg and _gm.enabled and dtype.category >= D.FLOAT:
        record(_ToCopyBackward, (t,), out, in_dtype=t._dtype, in_device=t._device)
    return out


def copy_(t: SparseTensor, src: Tensor) -> SparseTensor:
    """``t.copy_(src)``: ``src``'s indices and values (cast to ``t``'s dtype), as PyTorch's sparse
    copy: COO from COO, a compressed layout from the same layout with the same nnz."""
    if t._rg and _gm.enabled and t.grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    layout = t.layout
    if layout is sparse_coo and src.layout is strided:
        raise RuntimeError(
            "copy_() between dense and sparse Tensors is not implemented! Found self type = "
            f"{t.type()} and src type = {src.type()}"
        )
    if layout is sparse_coo and src.layout is not sparse_coo:
        raise RuntimeError(
            f"copy_sparse_compressed_ expected sparse compressed tensor layout but got {kind(t)}"
        )
    if layout is not sparse_coo and src.layout is not layout:
        raise RuntimeError(
            "torch.copy_: copy of sparse compressed tensors having different layouts is not "
            f"supported. self layout is {kind(t)} and src layout is {kind(src)}"
        )
    if layout is not sparse_coo and src._nnz() != t._nnz():
        raise RuntimeError(
            "torch.copy_: only sparse compressed tensors with the same number of specified "
            "elements are supported."
        )
    if (src._rg or t._rg) and _gm.enabled:
        raise NotImplementedError("taimatsu: copy_ between sparse tensors inside a graph")
    data = src.to(t._dtype)._data.copy()
    data.device = t._device
    t._data = data
    t._vc[0] += 1
    return t


def zero_(t: SparseTensor) -> SparseTensor:
    """PyTorch empties a sparse tensor's entries (nnz becomes 0)."""
    data = t._data
    xp = xp_of(t._device)
    if data.layout is not sparse_coo:
        data.indices = (xp.zeros_like(data.indices[0]), data.indices[1][:0].copy())
    else:
        data.indices = data.indices[:, :0].copy()
        data.coalesced = True
    data.values = data.values[:0].copy()
    t._vc[0] += 1
    return t


# ---- autograd ---------------------------------------------------------------------------------
def _sparse_coo_vjp(node, g):
    if g.layout is strided:
        return (_wrap(g._data[tuple(node.indices)], g._dtype, g._device),)
    gi, gv = coo_arrays(g)
    xp = xp_of(g._device)
    return (_wrap(arrays.gather_sparse(xp, node.indices, node.shape, gi, gv), g._dtype, g._device),)


def _csr_values_vjp(node, g):
    """``g`` (dense or sparse) at each entry of the compressed tensor, in its order."""
    vals = masked_values(g, node.like).reshape(node.like._data.values.shape)  # blocks too
    return (_wrap(vals, g._dtype, g._device),)


def _to_dense_vjp(node, g):
    return (masked_like(node.like, g),)


def _sparse_mask_vjp(node, g):
    # g at each of the mask's entries, duplicates included (PyTorch counts them twice), densified
    return (to_dense(like(node.mask, masked_values(g, node.mask))),)


def _values_vjp(node, g):
    m = node.like._data
    if m.layout is not sparse_coo:  # the compressed tensor's own pattern
        return (like(node.like, g._data),)
    flag = node.__dict__.get("grad_coalesced", True)
    return (coo(m.indices, g._data, m.shape, g._dtype, g._device, flag),)


def _densify_vjp(node, g):
    return (to_dense(g) if g.layout is not strided else g,)


def _from_csr_vjp(node, g):
    if node.src is sparse_coo:  # back to the input's layout
        return (to_sparse(g),)
    return _densify_vjp(node, g)


def no_derivative(out: Tensor, op: str, *inputs: Tensor) -> Tensor:
    """PyTorch has no derivative for ``aten::op``: the result's grad_fn raises at backward."""
    if _gm.enabled and any(t is not None and t._rg for t in inputs):
        record(_NoDerivative, inputs, out, op=op)
    return out


def _no_derivative_vjp(node, g):
    raise RuntimeError(f"derivative for aten::{node.op} is not implemented")


_NoDerivative = node_class("NotImplemented", _no_derivative_vjp)
_SparseCooBackward = node_class("SparseCooTensorWithDimsAndTensorsBackward0", _sparse_coo_vjp)
_SparseCsrBackward = node_class("SparseCompressedTensorBackward0", _csr_values_vjp)
_ToDenseBackward = node_class("ToDenseBackward0", _to_dense_vjp)
_ValuesBackward = node_class("ValuesBackward0", _values_vjp)
_SparseMaskBackward = node_class("SparseMaskBackward0", _sparse_mask_vjp)
_CoalesceBackward = node_class("CoalesceBackward0", lambda node, g: (g,))
_CloneBackward = node_class("CloneBackward0", lambda node, g: (g,))
_ToSparseBackward = node_class("ToSparseBackward1", _densify_vjp)
_ToSparseCsrBackward = node_class("ToSparseCsrBackward0", _from_csr_vjp)
_ToCopyBackward = node_class(
    "ToCopyBackward0", lambda node, g: (g.to(dtype=node.in_dtype, device=node.in_device),)
)


# ---- serialization ------------------------------------------------------------------------------
def reduce_args(t: SparseTensor) -> tuple:
    """PyTorch's checkpoint record of a sparse tensor: its layout and (indices, values, size,
    is_coalesced) for COO, (crow_indices, col_indices, values, size) for CSR."""
    data = t._data
    if data.layout is not sparse_coo:
        idx = (compressed.index_tensor(t, 0), compressed.index_tensor(t, 1))
        return data.layout, (*idx, _wrap(data.values, t._dtype, t._device), data.shape)
    idx = _wrap(data.indices, D.int64, t._device)
    return data.layout, (idx, _wrap(data.values, t._dtype, t._device), data.shape, data.coalesced)


def rebuild_sparse_tensor(layout, data) -> SparseTensor:
    """``torch._utils._rebuild_sparse_tensor``: the tensor back from ``reduce_args``'s record."""
    if isinstance(layout, str):  # plain pickle records the layout by name
        layout = {lay.name: lay for lay in _KIND}[layout]
    if layout is sparse_coo:
        coalesced = data[3] if len(data) > 3 else None
        return sparse_coo_tensor(
            data[0], data[1], data[2], check_invariants=False, is_coalesced=coalesced
        )
    if layout is sparse_csr:
        return sparse_csr_tensor(data[0], data[1], data[2], data[3], check_invariants=False)
    if layout in compressed.COMPRESSED:
        return compressed.sparse_compressed_tensor(
            data[0], data[1], data[2], data[3], layout=layout, check_invariants=False
        )
    raise RuntimeError(f"rebuilding sparse tensor for layout {layout}")


def spdiags(diagonals: Tensor, offsets: Tensor, shape, layout=None) -> SparseTensor:
    """``torch.sparse.spdiags``: row ``i`` of ``diagonals`` on diagonal ``offsets[i]``, each
    value taken at its column (``out[j - k, j] = diagonals[i, j]``), diagonals in the given
    order, uncoalesced; ``layout=torch.sparse_csr`` converts the result."""
    if len(shape) != 2:
        raise RuntimeError("Output shape must be 2d")
    if offsets._dtype is not D.int64:
        raise RuntimeError(f"Offset Tensor must have dtype Long but got {_scalar_name(offsets)}")
    xp = xp_of(diagonals._device)
    d = diagonals._data if diagonals.dim() == 2 else diagonals._data.reshape(1, -1)
    offs = [int(k) for k in offsets._data.reshape(-1)]
    if len(set(offs)) != len(offs):
        raise RuntimeError("Offset tensor contains duplicate values")
    if d.shape[0] != len(offs):
        raise RuntimeError(
            f"Number of diagonals ({d.shape[0]}) does not match the number of offsets ({len(offs)})"
        )
    rows, cols = (int(n) for n in shape)
    idx, vals = [], []
    for i, k in enumerate(offs):
        j = xp.arange(max(0, k), min(cols, rows + k, d.shape[1]))
        idx.append(xp.stack([j - k, j]))
        vals.append(d[i, j])
    indices = xp.concatenate(idx, axis=1) if idx else xp.zeros((2, 0), np.int64)
    values = xp.concatenate(vals) if vals else d[:0, 0]
    out = coo(indices.astype(np.int64), values, (rows, cols), diagonals._dtype, diagonals._device,
              indices.shape[1] < 2)  # fmt: skip
    if layout is None or layout is sparse_coo:
        return out
    if layout is sparse_csr:
        return out.to_sparse_csr()
    raise NotImplementedError(f"taimatsu: spdiags with layout={layout} is not implemented")


def _scalar_name(t: Tensor) -> str:
    from ..ops._dispatch import scalar_name

    return scalar_name(t._dtype)
