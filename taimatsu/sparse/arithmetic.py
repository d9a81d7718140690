"""Elementwise arithmetic, transposition, sums and softmax on sparse tensors, with PyTorch's
result layouts: sparse + sparse and sparse * scalar stay sparse, dense + sparse is dense,
sparse + dense is PyTorch's error, a full ``sum()`` is a dense 0-d tensor.

Softmax works among the specified entries of each slice along ``dim`` (unspecified ones count
as -inf), as ``torch.sparse.softmax`` does. Hybrid tensors (dense dims) are supported by add,
mul, t and sum; softmax takes them only along a sparse dim with no dense dims.
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import _dtype as D
from .._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided
from .._tensor.core import Tensor, _wrap
from .._tensor.sparse import SparseTensor, not_implemented
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import node_class
from ..backend import xp_of
from ..ops._dispatch import record
from . import arrays, compressed
from .construction import (
    coalesce,
    coo,
    coo_arrays,
    kind,
    like,
    masked_like,
    masked_values,
    pattern,
    to_dense,
    values,
)

# PyTorch's CPU kernel adding a dense tensor and a block-compressed one fails its own check.
_BLOCK_ADD_ASSERT = RuntimeError(
    'src.layout() == kSparseCsr || src.layout() == kSparseCsc INTERNAL ASSERT FAILED at "/__w/'
    'pytorch/pytorch/aten/src/ATen/native/sparse/SparseCsrTensorMath.cpp":835, please report a '
    "bug to PyTorch. "
)


def _is_scalar(x) -> bool:
    return isinstance(x, numbers.Number) or (
        isinstance(x, Tensor) and x.layout is strided and x.dim() == 0
    )


def _same_size(a: Tensor, b: Tensor, name: str = "add") -> None:
    if a.shape != b.shape:
        raise RuntimeError(
            f"{name}: expected sizes of 'self' and 'other' to match, but {list(a.shape)} != "
            f"{list(b.shape)}"
        )


# ---- add ------------------------------------------------------------------------------------------
def _add_arrays(a: SparseTensor, b: SparseTensor, alpha, dtype):
    """COO arrays of ``a + alpha * b`` and whether the result is coalesced, as PyTorch's CPU
    kernel: when both values arrays are contiguous, one merge pass over the two entry lists;
    otherwise (e.g. a gradient whose values are an expanded view) the entries are concatenated."""
    xp = xp_of(a._device)
    ai, av = coo_arrays(a)
    bi, bv = coo_arrays(b)
    av, bv = av.astype(dtype.np, copy=False), bv.astype(dtype.np, copy=False)
    if not bi.shape[1]:
        return ai, av.copy(), a._data.coalesced
    if not ai.shape[1]:
        return (
            bi,
            (bv * alpha if alpha != 1 else bv).astype(dtype.np, copy=False),
            b._data.coalesced,
        )
    if av.flags.c_contiguous and bv.flags.c_contiguous:
        idx, vals = arrays.merge_add(xp, ai, av, bi, bv, a._data.shape, alpha)
        return idx, vals, a._data.coalesced and b._data.coalesced
    idx = xp.concatenate([ai, bi], axis=1)
    vals = xp.concatenate([av, (bv * alpha if alpha != 1 else bv).astype(dtype.np, copy=False)])
    if idx.shape[1] > a.numel():  # PyTorch bounds the growth of nnz
        idx, vals = arrays.coalesce(xp, idx, vals, a._data.shape)
    return idx, vals, False


def add(a: SparseTensor, other, *, alpha=1) -> Tensor:
    """``sparse + other``: sparse + sparse is sparse; a dense or scalar ``other`` is PyTorch's error."""
    if not isinstance(other, SparseTensor):
        if a.layout in (sparse_bsr, sparse_bsc) and isinstance(other, Tensor):
            raise _BLOCK_ADD_ASSERT
        if a.layout in (sparse_csr, sparse_csc) and isinstance(other, Tensor):
            return to_dense(a) + other * alpha if alpha != 1 else to_dense(a) + other
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    _same_size(a, other)
    if a.layout is other.layout and a.layout is not sparse_coo and a._data.indices[0].ndim > 1:
        if _gm.enabled and (a._rg or other._rg):
            raise NotImplementedError("taimatsu: the gradient of a batched sparse add")
        return compressed.per_batch(lambda x, y: add(x, y, alpha=alpha), a, other)
    dtype = D.promote_types(a._dtype, other._dtype)
    idx, vals, done = _add_arrays(a, other, alpha, dtype)
    if a.layout is other.layout and a.layout is not sparse_coo:  # the same compressed layout
        xp = xp_of(a._device)
        if not done:
            idx, vals = arrays.coalesce(xp, idx, vals, a._data.shape)
        block = compressed.blocksize(a._data)
        parts = compressed.from_element_coo(xp, idx, vals, a.shape, a.layout, block)
        out = compressed.make(a.layout, *parts, a.shape, dtype, a._device)
    else:
        out = coo(idx, vals, a._data.shape, dtype, a._device, done)
    if _gm.enabled and (a._rg or other._rg):
        record(_AddBackward, (a, other), out, alpha=alpha)
    return out


def radd(a: SparseTensor, other) -> Tensor:
    """``dense + sparse``: a dense tensor; both operands get the dense gradient, as in PyTorch."""
    if not isinstance(other, Tensor) or other.dim() == 0 and not isinstance(other, SparseTensor):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    _same_size(other, a)
    if a.layout in (sparse_bsr, sparse_bsc):
        raise _BLOCK_ADD_ASSERT
    out = other.detach() + to_dense(a.detach())
    if _gm.enabled and (a._rg or other._rg):
        record(_AddBackward, (other, a), out, alpha=1)
    return out


def add_(a: SparseTensor, other, *, alpha=1) -> SparseTensor:
    """In place: ``a`` takes the entries of ``a + alpha * other`` (and, inside a graph, its history)."""
    _check_inplace(a)
    return _replace(a, add(a, other, alpha=alpha))


def _check_inplace(a: SparseTensor) -> None:
    if a._rg and a.grad_fn is None and _gm.enabled:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )


def _replace(a: SparseTensor, r: Tensor) -> SparseTensor:
    """Move the result ``r`` of an op on ``a`` into ``a``: its payload, and its grad_fn when the
    op was recorded (the node's edge already leads to ``a``'s previous history)."""
    if r._dtype is not a._dtype:
        r = r.to(a._dtype)
    a._data = r._data
    a._data.device = a._device
    a._vc[0] += 1
    if r.grad_fn is not None:
        a.grad_fn, a._rg, a._output_nr = r.grad_fn, True, r._output_nr
    return a


def grad_sum(first, second) -> Tensor:
    """The autograd engine's ``first + second`` when one gradient is sparse (PyTorch sums a
    sparse and a dense gradient densely, two sparse ones with the sparse ``add``).
    ``PartialGrad`` (a slice's gradient) is densified first."""
    first, second = (g.dense() if not isinstance(g, Tensor) else g for g in (first, second))
    if first.layout is not strided and second.layout is not strided:
        return add(first.detach(), second.detach())
    return second + first if first.layout is not strided else first + second


# ---- mul / div ------------------------------------------------------------------------------------
def mul(a: SparseTensor, other) -> Tensor:
    """sparse * scalar and sparse * dense (same shape) are sparse with ``a``'s pattern;
    sparse * sparse keeps the entries both specify."""
    if _is_scalar(other):
        vals = _wrap(a._data.values, a._dtype, a._device) * other
        out = like(a, vals._data)
        out._dtype = vals._dtype
        if _gm.enabled and (a._rg or (isinstance(other, Tensor) and other._rg)):
            scalar = other if isinstance(other, Tensor) and other._rg else None
            other_value = other.detach() if isinstance(other, Tensor) else other
            record(_MulScalarBackward, (a, scalar), out, other=other_value, a=a.detach())
        return out
    if a.layout in (sparse_csc, sparse_bsr, sparse_bsc):
        if a.layout is sparse_csc:
            raise RuntimeError("Expected result Tensor to be of format CSR")
        raise RuntimeError(
            "empty_sparse_compressed expected sparse compressed (non-block) tensor layout but "
            f"got {kind(a)}"
        )
    if isinstance(other, SparseTensor):
        return _mul_sparse(a, other)
    if not isinstance(other, Tensor):
        raise TypeError(
            f"mul(): argument 'other' must be Tensor or Number, not {type(other).__name__}"
        )
    b = _broadcast_to(other.detach(), a)
    vals = _wrap(a._data.values, a._dtype, a._device) * _wrap(
        masked_values(b, a), other._dtype, other._device
    )
    out = like(a, vals._data)
    out._dtype = vals._dtype
    if _gm.enabled and (a._rg or other._rg):
        record(_MulDenseBackward, (a, other), out, a=a.detach(), b=b, b_shape=other.shape)
    return out


def _broadcast_to(d: Tensor, a: SparseTensor) -> Tensor:
    """A dense factor broadcast to the sparse tensor's shape (no broadcasting of the sparse one)."""
    if d.shape == a.shape:
        return d
    try:
        return d.expand(a.shape)
    except RuntimeError:
        _same_size(a, d, "mul")


def mul_(a: SparseTensor, other) -> SparseTensor:
    _check_inplace(a)
    return _replace(a, mul(a, other))


def div_(a: SparseTensor, other) -> SparseTensor:
    _check_inplace(a)
    return _replace(a, div(a, other))


def _mul_sparse(a: SparseTensor, b: SparseTensor) -> SparseTensor:
    """PyTorch's rule: two coalesced operands give their (coalesced) intersection; otherwise
    the result keeps the entries of the uncoalesced operand (of the one with fewer entries when
    both are), each times the other's (coalesced) value there, zero included."""
    _same_size(a, b, "mul")
    if _gm.enabled and (a._rg or b._rg):
        raise NotImplementedError("taimatsu: the gradient of sparse * sparse is not implemented")
    xp = xp_of(a._device)
    if a.layout is sparse_csr and b.layout is sparse_csr:  # the entries both hold, as CSR
        product = _mul_sparse(a.to_sparse().coalesce(), b.to_sparse().coalesce())
        parts = compressed.from_element_coo(xp, *coo_arrays(product), a.shape, sparse_csr)
        return compressed.make(sparse_csr, *parts, a.shape, product._dtype, a._device)
    if a.layout is not sparse_coo or b.layout is not sparse_coo:
        raise not_implemented("mul.Tensor", sparse_csr, a._device)
    dtype = D.promote_types(a._dtype, b._dtype)
    shape = a._data.shape
    if a._data.coalesced and b._data.coalesced:
        k = a.sparse_dim()
        la = arrays.linear_index(xp, a._data.indices, shape[:k])
        lb = arrays.linear_index(xp, b._data.indices, shape[:k])
        _, ia, ib = xp.intersect1d(la, lb, assume_unique=True, return_indices=True)
        vals = (a._data.values[ia] * b._data.values[ib]).astype(dtype.np)
        return coo(a._data.indices[:, ia], vals, shape, dtype, a._device, True)
    if a._data.coalesced or (not b._data.coalesced and b._nnz() <= a._nnz()):
        a, b = b, a  # ``a``: the operand whose entries the result keeps
    bi, bv = b._data.indices, b._data.values
    other = arrays.gather_sparse(xp, a._data.indices, shape, bi, bv)
    vals = (a._data.values * other).astype(dtype.np)
    return coo(a._data.indices, vals, shape, dtype, a._device, False)


def div(a: SparseTensor, other) -> SparseTensor:
    if a.layout is not sparse_coo:
        raise RuntimeError(f"unsupported tensor layout: {kind(a)}")
    if not _is_scalar(other):
        raise not_implemented("div.Tensor", a.layout, a._device)
    vals = _wrap(a._data.values, a._dtype, a._device) / other
    out = like(a, vals._data)
    out._dtype = vals._dtype
    scalar = other if isinstance(other, Tensor) and other._rg else None
    if _gm.enabled and (a._rg or scalar is not None):
        other_value = other.detach() if isinstance(other, Tensor) else other
        record(_DivScalarBackward, (a, scalar), out, other=other_value, a=a.detach())
    return out


# ---- zero-preserving unary ops ----------------------------------------------------------------------
def unary(a: SparseTensor, name: str, *args, **kwargs) -> SparseTensor:
    """``op`` applied to the values of the coalesced tensor (so duplicates are summed first).

    The gradient flows through CoalesceBackward0, ValuesBackward0 and the dense op's own node;
    the result's grad_fn is therefore SparseCooTensorWithDimsAndTensorsBackward0 (PyTorch
    names it after the op, e.g. SinBackward0)."""
    from .construction import sparse_coo_tensor

    if a.layout is not sparse_coo:  # a compressed layout: the op on its values, pattern kept
        if name == "pow":
            raise RuntimeError(f"unsupported tensor layout: {kind(a)}")
        if a._rg and _gm.enabled:
            raise NotImplementedError(
                f"taimatsu: the gradient of {name} of a {a.layout} tensor is not implemented"
            )
        r = getattr(_wrap(a._data.values, a._dtype, a._device), name)(*args, **kwargs)
        out = like(a, r._data)
        out._dtype = r._dtype
        return out
    c = coalesce(a)
    v = _wrap(c._data.values, c._dtype, c._device)
    if c._rg and _gm.enabled:  # PyTorch's gradient here comes flagged uncoalesced
        v = values(c, True, grad_coalesced=False)
    r = getattr(v, name)(*args, **kwargs)
    return sparse_coo_tensor(
        _wrap(c._data.indices, D.int64, c._device), r, c.shape, is_coalesced=True,
        check_invariants=False,
    )  # fmt: skip


# ---- transpose ----------------------------------------------------------------------------------
def t(a: SparseTensor) -> SparseTensor:
    if a.dim() > 2 and a.layout is not sparse_coo:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.dim()}D")
    if a.dim() > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got {a.sparse_dim()} "
            f"sparse and {a.dense_dim()} dense dimensions"
        )
    return transpose(a, 0, a.dim() - 1) if a.dim() == 2 else a


def transpose(a: SparseTensor, dim0: int, dim1: int) -> SparseTensor:
    n, k = a.dim(), a.sparse_dim()
    d0, d1 = dim0 % n, dim1 % n
    if a.layout is not sparse_coo:  # CSR <-> CSC, BSR <-> BSC
        return compressed.transpose(a) if d0 != d1 else a
    if max(d0, d1) >= k:
        raise NotImplementedError("taimatsu: transposing a dense dim of a hybrid sparse tensor")
    order = list(range(k))
    order[d0], order[d1] = order[d1], order[d0]
    shape = list(a.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    out = coo(a._data.indices[order], a._data.values, tuple(shape), a._dtype, a._device, False)
    if _gm.enabled and a._rg:
        record(_TransposeBackward, (a,), out, dims=(d0, d1))
    return out


# ---- sum ----------------------------------------------------------------------------------------
def sum(a: SparseTensor, dim=None, keepdim=False, dtype=None, method=False) -> Tensor:
    """All entries (a dense 0-d tensor), or over ``dim``: sparse while sparse dims remain."""
    if dtype is not None:
        a = a.to(dtype)
    if dim is None:
        if not method and a.layout is not sparse_coo:  # torch.sparse.sum coalesces first
            coalesce(a)
        vals = _wrap(a._data.values, a._dtype, a._device).detach().sum()
        out = vals
        if _gm.enabled and a._rg:
            record(_SumBackward, (a,), out, like=a)
        return out
    if a.layout is not sparse_coo:
        _compressed_sum_error(a, keepdim, method)
        return _csr_sum_keepdim(a, dim)
    if keepdim:
        raise NotImplementedError("taimatsu: sparse sum with keepdim=True is not implemented")
    n, k = a.dim(), a.sparse_dim()
    dims = sorted({d % n for d in (dim if isinstance(dim, (tuple, list)) else (dim,))})
    keep = [d for d in range(k) if d not in dims]
    dense_axes = tuple(1 + d - k for d in dims if d >= k)
    xp = xp_of(a._device)
    idx, vals = a._data.indices[keep], a._data.values
    if dense_axes:
        vals = vals.sum(axis=dense_axes)
    vals = vals.astype(_sum_dtype(a._dtype).np, copy=False)
    rest = tuple(s for d, s in enumerate(a.shape) if d not in dims)
    if keep:
        idx, vals = arrays.coalesce(xp, idx, vals, rest)
        out = coo(idx, vals, rest, _sum_dtype(a._dtype), a._device, True)
    else:
        out = _wrap(vals.sum(axis=0), _sum_dtype(a._dtype), a._device)
    if _gm.enabled and a._rg:
        node = _SumDimBackward if method else _SparseSumBackward  # Tensor.sum vs torch.sparse.sum
        record(node, (a,), out, like=a, keep=keep, dense_axes=dense_axes)
    return out


def _compressed_sum_error(a: SparseTensor, keepdim: bool, method: bool) -> None:
    """PyTorch's errors for sums over dims of a compressed tensor (CSR with keepdim=True,
    which PyTorch computes, is not implemented here)."""
    if not method:  # torch.sparse.sum reads the COO indices
        raise not_implemented("_indices", a.layout, a._device)
    if a.layout is not sparse_csr:
        raise RuntimeError(
            "Currently the only compressed sparse format supported for sum.dim_IntList is CSR, "
            f"but got layout {kind(a)}"
        )
    if not keepdim:
        raise RuntimeError("reduction operations on CSR tensors with keepdim=False is unsupported")


def _csr_sum_keepdim(a: SparseTensor, dim) -> SparseTensor:
    """``csr.sum(dim, keepdim=True)``: a CSR tensor holding the sum of each line that has
    entries (PyTorch's SumBackward1 is not implemented here)."""
    if a._rg and _gm.enabled:
        raise NotImplementedError("taimatsu: the gradient of sum(dim) of a CSR tensor")
    dims = {d % 2 for d in (dim if isinstance(dim, (tuple, list)) else (dim,))}
    xp = xp_of(a._device)
    idx, vals = coo_arrays(a)
    idx = idx.copy()
    for d in dims:
        idx[d] = 0
    shape = tuple(1 if d in dims else n for d, n in enumerate(a.shape))
    dtype = _sum_dtype(a._dtype)
    idx, vals = arrays.coalesce(xp, idx, vals.astype(dtype.np), shape)
    parts = compressed.from_element_coo(xp, idx, vals, shape, sparse_csr)
    return compressed.make(sparse_csr, *parts, shape, dtype, a._device)


def _sum_dtype(dtype):
    return D.int64 if dtype.category <= D.INT else dtype


# ---- softmax ------------------------------------------------------------------------------------
def _lines(xp, a: SparseTensor, dim: int):
    """For the coalesced ``a``: the id of each entry's slice along ``dim``, and the slice count."""
    k = a.sparse_dim()
    if a.dense_dim():
        raise NotImplementedError("taimatsu: sparse softmax of a hybrid tensor is not implemented")
    d = dim % a.dim()
    other = [i for i in range(k) if i != d]
    shape = tuple(a.shape[i] for i in other)
    lin = arrays.linear_index(xp, a._data.indices[other], shape)
    ids, line = xp.unique(lin, return_inverse=True)
    return line.reshape(-1), ids.shape[0]


def _grouped(xp, ufunc, line, n, vals, fill):
    """Per-slice ``ufunc`` reduction (np.add or np.maximum) of ``vals`` into ``n`` slices."""
    out = xp.full(n, fill, dtype=vals.dtype)
    (arrays.scatter_add if ufunc is np.add else arrays.scatter_max)(xp, out, line, vals)
    return out


def _softmax(a: SparseTensor, dim: int, dtype, log: bool) -> SparseTensor:
    if a.layout is not sparse_coo:
        raise not_implemented("_sparse_log_softmax" if log else "_sparse_softmax", a.layout,
                              a._device)  # fmt: skip
    if dtype is not None:
        a = a.to(dtype)
    c = coalesce(a.detach())
    xp = xp_of(a._device)
    line, n = _lines(xp, c, dim)
    v = c._data.values
    shifted = v - _grouped(xp, np.maximum, line, n, v, -np.inf)[line]
    e = xp.exp(shifted)
    total = _grouped(xp, np.add, line, n, e, 0)[line]
    vals = (shifted - xp.log(total)) if log else e / total
    out = like(c, vals.astype(v.dtype, copy=False))
    if _gm.enabled and a._rg:
        record(
            _SoftmaxBackward if not log else _LogSoftmaxBackward,
            (a,),
            out,
            out_=out.detach(),
            dim=dim,
        )
    return out


def softmax(a: SparseTensor, dim: int, dtype=None) -> SparseTensor:
    """``torch.sparse.softmax``: softmax over the specified entries of each slice along ``dim``."""
    return _softmax(a, dim, dtype, False)


def log_softmax(a: SparseTensor, dim: int, dtype=None) -> SparseTensor:
    return _softmax(a, dim, dtype, True)


# ---- autograd -------------------------------------------------------------------------------------
def _add_vjp(node, g):
    alpha = node.alpha
    return g, (g if alpha == 1 else g * alpha)


def _mul_dense_vjp(node, g):
    a = node.a
    ga = masked_like(a, g)
    ga._data.values = ga._data.values * masked_values(node.b, ga)
    gb = like(a, masked_values(g, a) * a._data.values)  # PyTorch's is sparse too
    if node.b_shape != a.shape:  # a broadcast factor: its gradient summed back to its shape
        gb = to_dense(gb).sum_to_size(node.b_shape)
    return ga, gb


def _sum_vjp(node, g):
    # PyTorch hands the sparse input a dense gradient here
    return (g.expand(node.like.shape),)


def _sparse_sum_vjp(node, g):
    """``g`` at the kept indices of each distinct entry of the input, broadcast over the summed
    dense dims (PyTorch's pattern: the input's coalesced one, flagged uncoalesced)."""
    s = node.like
    xp = xp_of(s._device)
    idx, vals = pattern(s), s._data.values
    if not node.keep:
        part = g._data[None]
    elif g.layout is strided:
        part = g._data[tuple(idx[node.keep])]
    else:
        part = arrays.gather_sparse(xp, idx[node.keep], g._data.shape, *coo_arrays(g))
    for ax in node.dense_axes:
        part = xp.expand_dims(part, ax)
    full = xp.broadcast_to(part, (idx.shape[1],) + vals.shape[1:]).astype(vals.dtype)
    return (coo(idx, full, s._data.shape, s._dtype, s._device, False),)


def _softmax_vjp(node, g):
    y = node.out_
    xp = xp_of(y._device)
    gv = masked_values(g, y)
    yv = y._data.values
    line, n = _lines(xp, y, node.dim)
    if node.log:
        gx = gv - xp.exp(yv) * _grouped(xp, np.add, line, n, gv, 0)[line]
    else:
        gx = yv * (gv - _grouped(xp, np.add, line, n, gv * yv, 0)[line])
    return (coo(y._data.indices, gx.astype(yv.dtype, copy=False), y.shape, y._dtype, y._device),)


_AddBackward = node_class("AddBackward0", _add_vjp)


def _mul_scalar_vjp(node, g):
    ga = g * node.other if node.next_functions[0][0] is not None else None
    gs = None
    if node.next_functions[1][0] is not None:  # a 0-d tensor factor: sum of g * a over a's entries
        a = node.a
        prod = masked_values(g, a) * a._data.values
        gs = _wrap(prod.sum(dtype=prod.dtype).reshape(()), g._dtype, g._device)
    return ga, gs


_MulScalarBackward = node_class("MulBackward0", _mul_scalar_vjp)
_MulDenseBackward = node_class("MulBackward0", _mul_dense_vjp)


def _div_scalar_vjp(node, g):
    ga = g / node.other if node.next_functions[0][0] is not None else None
    gs = None
    if node.next_functions[1][0] is not None:  # d(a / w)/dw = -a / w**2, summed against g
        a = node.a
        prod = masked_values(g, a) * a._data.values
        total = _wrap(prod.sum(dtype=prod.dtype).reshape(()), g._dtype, g._device)
        gs = -total / (node.other * node.other)
    return ga, gs


_DivScalarBackward = node_class("DivBackward0", _div_scalar_vjp)
_TransposeBackward = node_class("TBackward0", lambda node, g: (g.transpose(*node.dims),))
_SumBackward = node_class("SumBackward0", _sum_vjp)
_SparseSumBackward = node_class("SparseSumBackward0", _sparse_sum_vjp)
# PyTorch's own SumBackward1 cannot expand a sparse gradient back (it raises); this one can.
_SumDimBackward = node_class("SumBackward1", _sparse_sum_vjp)
_SoftmaxBackward = node_class("SparseSoftmaxBackward0", _softmax_vjp)
_LogSoftmaxBackward = node_class("SparseLogSoftmaxBackward0", _softmax_vjp)
_SoftmaxBackward.log = False
_LogSoftmaxBackward.log = True
