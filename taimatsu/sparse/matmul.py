"""Products with a sparse operand, through ``scipy.sparse`` (``cupyx.scipy.sparse`` on CUDA,
unverified): ``torch.mm``/``matmul``/``@``, ``torch.sparse.mm``, ``torch.sparse.addmm``.

Gradients follow PyTorch: ``torch.mm(sparse, dense)`` (MmBackward0) gives the sparse operand a
dense gradient; ``torch.sparse.mm``/``addmm`` (SparseAddmmBackward0) give it a sparse one with its
own sparsity pattern. The dense operand's gradient is ``sparse.t() @ grad`` either way.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided
from .._tensor.core import Tensor, _wrap
from .._tensor.sparse import SparseTensor, not_implemented
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import node_class
from ..backend import xp_of
from ..ops._dispatch import record, scalar_name
from . import arrays
from .compressed import BLOCK, KIND, from_element_coo, make
from .construction import coo, coo_arrays, like, masked_values, no_derivative, pattern


def _scipy_matrix(s: SparseTensor):
    """``s`` as a scipy (cupyx) CSR matrix; hybrid or batched tensors are not supported."""
    if s.layout is not sparse_coo and s.dim() > 2:  # a batch: PyTorch's CPU kernels refuse it
        raise RuntimeError(f"Sparse {s.layout.name[7:].upper()} tensors do not have strides")
    if s.dim() != 2 or s.dense_dim():
        raise NotImplementedError(
            "taimatsu: products with a sparse tensor need a 2-d sparse matrix with scalar values"
        )
    data = s._data
    if data.layout is sparse_csr:
        return arrays.csr_to_scipy(s._device, *data.indices, data.values, data.shape)
    return arrays.to_scipy(s._device, *coo_arrays(s), data.shape)  # CSC, BSR: element by element


def spmm_array(s: SparseTensor, b):
    """``s @ b`` for a dense array ``b`` (1-d or 2-d), as an array of ``b``'s dtype."""
    xp = xp_of(s._device)
    r = _scipy_matrix(s) @ b
    return xp.ascontiguousarray(r).astype(b.dtype, copy=False)


def _check(a: Tensor, b: Tensor, vector: bool = False) -> None:
    if a.layout not in (strided, sparse_coo):  # PyTorch's compressed-layout addmm/addmv
        if a.dim() > 2:  # a batch of compressed matrices
            _scipy_matrix(a)
        if a.dim() == 2 and a.shape[1] != b.shape[0]:
            (n, k), (k2, m) = a.shape, b.shape
            if vector:
                raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({k2})")
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
        if not vector and a._dtype.category < D.FLOAT and a._dtype is b._dtype:
            raise NotImplementedError(
                f"\"addmm_out_sparse_csr_impl_mkl\" not implemented for '{scalar_name(a._dtype)}'"
            )
    if a.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if b.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        arg = "#3 (dense)" if isinstance(a, SparseTensor) else "#2 (dense)"
        raise RuntimeError(
            f"addmm: Argument {arg}: Expected dim 0 size {a.shape[1]}, got {b.shape[0]}"
        )
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(a._dtype)} but found {scalar_name(b._dtype)}"
        )


def _no_kernel(a: Tensor, b: Tensor, out_layout=None) -> RuntimeError:
    """PyTorch's error for the layout combinations its CPU addmm has no kernel for."""
    kinds = (KIND[out_layout or a.layout], KIND[a.layout], KIND[b.layout])
    return RuntimeError(
        "addmm: computation on CPU is not implemented for {} + {} @ {}".format(*kinds)
    )


def mm(a: Tensor, b: Tensor) -> Tensor:
    """``torch.mm`` / ``@`` with a sparse operand (MmBackward0: dense gradients)."""
    if isinstance(b, SparseTensor) and not isinstance(a, SparseTensor):
        return rmm(a, b)
    if isinstance(b, SparseTensor):
        return _sparse_sparse(a, b)
    vector = b.dim() == 1 and a.dim() == 2  # matmul(sparse, vector): PyTorch's mv
    if a.layout is sparse_bsc:
        if vector:
            raise RuntimeError("torch.addmv: operation not supported for mat with SparseBsc layout")
        raise _no_kernel(a, b, strided)
    _check(a, b.unsqueeze(1) if vector else b, vector)
    out = _wrap(spmm_array(a, b._data), a._dtype, a._device)
    if _gm.enabled and (a._rg or b._rg):
        node = _MvBackward if vector else _MmBackward
        record(node, (a, b), out, a=a.detach(), b=b.detach(), left=True)
    return out


def rmm(d: Tensor, s: SparseTensor) -> Tensor:
    """``dense @ sparse``: computed as ``(s.t() @ d.t()).t()``."""
    if s.layout is sparse_bsr:
        raise _no_kernel(d, s)
    if d.dim() == 1:
        return rmm(d.unsqueeze(0), s).squeeze(0)
    _check(d, s)
    out = _wrap(
        xp_of(s._device)
        .ascontiguousarray((_scipy_matrix(s).T @ d._data.T).T)
        .astype(d._data.dtype),
        d._dtype,
        d._device,
    )
    if _gm.enabled and (d._rg or s._rg):
        record(_MmBackward, (d, s), out, a=d.detach(), b=s.detach(), left=False)
    return out


def _sparse_sparse(a: SparseTensor, b: SparseTensor, sparse_mm: bool = False) -> SparseTensor:
    """sparse @ sparse: COO @ COO is COO; ``@`` of CSR/CSC operands is CSR, ``torch.sparse.mm``
    keeps a common layout; the other combinations are PyTorch's errors."""
    csc_csr = a.layout is sparse_csc and b.layout is sparse_csr  # the one mixed pair it takes
    if sparse_mm and b.layout not in BLOCK and a.layout is not b.layout and not csc_csr:
        raise _no_kernel(a, b, b.layout)
    block = b if sparse_mm and b.layout in BLOCK else a if a.layout in BLOCK else None
    if block is not None:
        raise RuntimeError(
            "zeros_sparse_compressed expected sparse compressed (non-block) tensor layout but "
            f"got {KIND[block.layout]}"
        )
    if (a.layout is sparse_coo) != (b.layout is sparse_coo) or b.layout in BLOCK:
        raise _no_kernel(a, b)
    out_layout = b.layout if sparse_mm or a.layout is sparse_coo else sparse_csr
    _check(a, b)
    if _gm.enabled and (a._rg or b._rg):
        raise NotImplementedError("taimatsu: the gradient of sparse @ sparse is not implemented")
    xp = xp_of(a._device)
    shape = (a.shape[0], b.shape[1])
    if out_layout is sparse_csr:  # PyTorch's row-by-row product: PyTorch's column order
        crow, col, vals = _gustavson(xp, a.to_sparse_csr(), b.to_sparse_csr())
        return make(sparse_csr, crow, col, vals, shape, a._dtype, a._device)
    r = (_scipy_matrix(a) @ _scipy_matrix(b)).tocoo()
    idx = xp.stack([xp.asarray(r.row), xp.asarray(r.col)]).astype("int64")
    idx, vals = arrays.coalesce(xp, idx, xp.asarray(r.data).astype(a._data.values.dtype), shape)
    if out_layout is not sparse_coo:
        parts = from_element_coo(xp, idx, vals, shape, out_layout)
        return make(out_layout, *parts, shape, a._dtype, a._device)
    return coo(idx, vals, shape, a._dtype, a._device, True)


def _gustavson(xp, a: SparseTensor, b: SparseTensor):
    """CSR arrays of ``a @ b`` (both CSR) row by row, as PyTorch's CPU kernel: each row's
    columns in order of first appearance (``a``'s entries in order, each scaling ``b``'s row)."""
    (acrow, acol), av = a._data.indices, a._data.values
    (bcrow, bcol), bv = b._data.indices, b._data.values
    arow = xp.repeat(xp.arange(a.shape[0], dtype=np.int64), xp.diff(acrow))
    acol = acol.astype(np.int64)
    counts = (bcrow[acol + 1] - bcrow[acol]).astype(np.int64)  # products per entry of a
    entry = xp.repeat(xp.arange(acol.shape[0], dtype=np.int64), counts)
    starts = xp.repeat(bcrow[acol].astype(np.int64) - xp.cumsum(counts) + counts, counts)
    pos = starts + xp.arange(entry.shape[0], dtype=np.int64)  # each product's entry of b
    rows, cols = arow[entry], bcol[pos].astype(np.int64)
    key = rows * b.shape[1] + cols
    uniq, first, inverse = xp.unique(key, return_index=True, return_inverse=True)
    vals = xp.zeros(uniq.shape[0], dtype=av.dtype)
    arrays.scatter_add(xp, vals, inverse.reshape(-1), av[entry] * bv[pos])
    order = xp.lexsort(xp.stack((first, uniq // b.shape[1])))  # by row, then first appearance
    crow = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(xp.bincount(
        uniq // b.shape[1], minlength=a.shape[0]))])  # fmt: skip
    return crow, (uniq % b.shape[1])[order], vals[order]


def addmm(
    input: Tensor, mat1: SparseTensor, mat2: Tensor, *, beta=1, alpha=1, sparse_grad=True
) -> Tensor:
    """``torch.sparse.addmm``: ``beta * input + alpha * (mat1 @ mat2)`` (SparseAddmmBackward0);
    ``torch.addmm`` with a sparse ``mat1`` is the same with a dense gradient (AddmmBackward0)."""
    if not isinstance(mat1, SparseTensor):
        raise RuntimeError("addmm: expected mat1 to be a sparse tensor")  # noqa: TRY004
    if mat1.layout is sparse_bsc:
        raise _no_kernel(mat1, mat2, strided)
    _check(mat1, mat2)
    prod = spmm_array(mat1, mat2._data)
    if alpha != 1:
        prod = prod * alpha
    if input is not None:
        base = input.to_dense()._data
        prod = (prod + (base * beta if beta != 1 else base)).astype(prod.dtype, copy=False)
    out = _wrap(prod, mat1._dtype, mat1._device)
    inputs = (input, mat1, mat2)
    if _gm.enabled and any(t is not None and t._rg for t in inputs):
        node = _SparseAddmmBackward if sparse_grad else _AddmmBackward
        record(node, inputs, out, a=mat1.detach(), b=mat2.detach(), beta=beta, alpha=alpha)
    return out


def sparse_mm(mat1: Tensor, mat2: Tensor) -> Tensor:
    """``torch.sparse.mm``: sparse @ dense with a sparse gradient for ``mat1``; sparse @ sparse."""
    if isinstance(mat2, SparseTensor):
        return _sparse_sparse(mat1, mat2, sparse_mm=True)
    return addmm(None, mat1, mat2)


# ---- autograd -------------------------------------------------------------------------------------
def _dense_grad(g: Tensor) -> Tensor:
    return g if g.layout is strided else g.to_dense()


def _mm_vjp(node, g):
    g = _dense_grad(g)
    a, b = node.a, node.b
    need_a, need_b = (e[0] is not None for e in node.next_functions)
    if node.left:  # sparse @ dense (or vector)
        ga = gb = None
        if need_a:
            ga = g.unsqueeze(1) * b.unsqueeze(0) if g.dim() == 1 else g.mm(b.t())
        if need_b:
            gb = _wrap(_t_spmm(a, g._data), g._dtype, g._device)
    else:  # dense @ sparse: d(d) = g @ s.t() = (s @ g.t()).t()
        ga = _wrap(spmm_array(b, g._data.T).T.copy(), g._dtype, g._device) if need_a else None
        gb = a.t().mm(g) if need_b else None
    return ga, gb


def _t_spmm(s: SparseTensor, g):
    xp = xp_of(s._device)
    return xp.ascontiguousarray(_scipy_matrix(s).T @ g).astype(g.dtype, copy=False)


def _addmm_vjp(node, g, sparse_grad=True):
    g = _dense_grad(g)
    a, b, alpha = node.a, node.b, node.alpha
    need_i, need_a, need_b = (e[0] is not None for e in node.next_functions)
    gi = (g * node.beta if node.beta != 1 else g) if need_i else None
    ga = gb = None
    if need_a and sparse_grad and a.layout not in (sparse_coo, sparse_csr):
        raise RuntimeError(
            "sparse_addmm_sparse_backward: unsupported combination of layouts, grad: Strided, "
            f"mat1: {KIND[a.layout]}, mat2: Strided"
        )
    if need_a and sparse_grad:  # g @ b.t() at the (coalesced) entries of a only
        idx = pattern(a) if a.layout is sparse_coo else coo_arrays(a)[0]
        vals = (g._data[idx[0]] * b._data[idx[1]]).sum(axis=-1)
        vals = (vals * alpha if alpha != 1 else vals).astype(g._data.dtype, copy=False)
        if a.layout is not sparse_coo:
            ga = like(a, vals)
        else:
            ga = coo(idx, vals, a.shape, g._dtype, g._device, False)
    elif need_a:
        ga = g.mm(b.t()) * alpha if alpha != 1 else g.mm(b.t())
    if need_b:
        gb = _wrap(_t_spmm(a, g._data), g._dtype, g._device)
        gb = gb * alpha if alpha != 1 else gb
    return gi, ga, gb


_MmBackward = node_class("MmBackward0", _mm_vjp)
_MvBackward = node_class("MvBackward0", _mm_vjp)
_SparseAddmmBackward = node_class("SparseAddmmBackward0", _addmm_vjp)
_AddmmBackward = node_class("AddmmBackward0", lambda node, g: _addmm_vjp(node, g, False))


def sampled_addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1.0, alpha=1.0) -> Tensor:
    """``torch.sparse.sampled_addmm``: ``beta * input + alpha * (mat1 @ mat2)`` computed only at
    the entries of the CSR ``input`` (its pattern kept), with PyTorch's gradients
    (SparseSampledAddmmBackward0: a CSR one for ``input``, dense ones for ``mat1``/``mat2``)."""
    from .construction import csr

    if not isinstance(input, SparseTensor):
        raise _dense_backend_error("sparse_sampled_addmm", input)
    if input.layout is not sparse_csr:
        raise not_implemented("sparse_sampled_addmm", input.layout, input._device)
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(
            f"sampled_addmm: mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x"
            f"{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})"
        )
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(
            "sampled_addmm: Expected mat1 and mat2 to have the same dtype, but got "
            f"{scalar_name(mat1._dtype)} and {scalar_name(mat2._dtype)}"
        )
    xp = xp_of(input._device)
    crow, col = input._data.indices
    rows = xp.repeat(xp.arange(input.shape[0]), xp.diff(crow))
    dots = (mat1._data[rows] * mat2._data[:, col].T).sum(axis=1)
    values = beta * input._data.values + alpha * dots
    out = csr(crow.copy(), col.copy(), values.astype(mat1._dtype.np), input.shape, mat1._dtype,
              input._device)  # fmt: skip
    if _gm.enabled and (input._rg or mat1._rg or mat2._rg):
        record(_SampledAddmmBackward, (input, mat1, mat2), out, pattern=input.detach(),
               a=mat1.detach(), b=mat2.detach(), beta=beta, alpha=alpha)  # fmt: skip
    return out


def _sampled_addmm_vjp(node, g):
    """Only ``g`` at the sampled entries counts: ``G`` (sparse, ``input``'s pattern) gives
    ``beta * G`` to ``input``, ``alpha * G @ mat2.T`` and ``alpha * mat1.T @ G`` to the others."""
    need_i, need_a, need_b = (e[0] is not None for e in node.next_functions)
    pattern_ = node.pattern
    gv = masked_values(g, pattern_)
    gi = like(pattern_, gv * node.beta if node.beta != 1 else gv) if need_i else None
    gmat = arrays.to_scipy(g._device, coo_arrays(pattern_)[0], gv, pattern_.shape)
    scale = node.alpha
    ga = gb = None
    if need_a:
        ga = _wrap(_dense_of(gmat @ node.b._data.T, g, scale), g._dtype, g._device)
    if need_b:
        gb = _wrap(_dense_of((gmat.T @ node.a._data).T, g, scale), g._dtype, g._device)
    return gi, ga, gb


def _dense_of(r, g: Tensor, scale):
    r = xp_of(g._device).ascontiguousarray(r * scale if scale != 1 else r)
    return r.astype(g._data.dtype if g.layout is strided else g._data.values.dtype, copy=False)


_SampledAddmmBackward = node_class("SparseSampledAddmmBackward0", _sampled_addmm_vjp)


# ---- hspmm / smm / sspaddmm ----------------------------------------------------------------------
def _row_products(name: str, s: Tensor, d: Tensor):
    """``(rows, values)``: the rows of the COO matrix ``s`` that hold entries (sorted) and
    those rows of ``s @ d``, after PyTorch's checks of ``name`` (``hspmm``/``sspaddmm``)."""
    if s.dense_dim():
        raise RuntimeError(
            f"{name}: Argument #2: scalar values expected, got {s.dense_dim()}D values"
        )
    if s.dim() != 2:
        raise RuntimeError(f"{name}: Argument #2: matrices expected, got {s.dim()}D tensor")
    if d.layout is not strided:
        if name == "hspmm":
            raise RuntimeError(
                "addmm_sparse_dense: expected strided result tensor, got tensor with layout Sparse"
            )
        raise RuntimeError(
            f"{name}: expected 'mat2' to have strided layout, got 'mat2' with layout Sparse"
        )
    if d.dim() != 2:
        raise RuntimeError(f"{name}: Argument #3: matrices expected, got {d.dim()}D tensor")
    if s.shape[1] != d.shape[0]:
        raise RuntimeError(
            f"{name}: Argument #3: Expected dim 0 size {s.shape[1]}, got {d.shape[0]}"
        )
    if s._dtype is not d._dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(s._dtype)} but found {scalar_name(d._dtype)}"
        )
    xp = xp_of(s._device)
    rows = xp.unique(s._data.indices[0])
    return rows, spmm_array(s, d._data)[rows]


def _dense_backend_error(op: str, t: Tensor) -> NotImplementedError:
    backend = "CPU" if t._device.type == "cpu" else "CUDA"
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the '{backend}' backend. This could be "
        "because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build). If you are a Facebook employee "
        "using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible "
        "resolutions."
    )


def hspmm(mat1: Tensor, mat2: Tensor) -> SparseTensor:
    """``torch.hspmm``: ``mat1 @ mat2`` as a hybrid COO tensor (one sparse dim: the rows of the
    COO ``mat1`` that hold entries; dense rows of values), flagged uncoalesced as PyTorch's."""
    if not isinstance(mat1, SparseTensor):
        raise _dense_backend_error("hspmm", mat1)
    if mat1.layout is not sparse_coo:
        raise not_implemented("hspmm", mat1.layout, mat1._device)
    rows, vals = _row_products("hspmm", mat1, mat2)
    shape = (mat1.shape[0], mat2.shape[1])
    flag = rows.shape[0] < 2  # PyTorch flags it coalesced only then
    out = coo(rows[None].astype(np.int64), vals, shape, mat1._dtype, mat1._device, flag)
    return no_derivative(out, "hspmm", mat1, mat2)


def sspaddmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> SparseTensor:
    """``torch.sspaddmm``: ``beta * input + alpha * (mat1 @ mat2)`` as a COO tensor, PyTorch's
    way: ``input``'s entries, then every column of each row of ``mat1`` that holds entries
    (uncoalesced)."""
    if not isinstance(input, SparseTensor):
        raise RuntimeError(  # noqa: TRY004  (PyTorch's internal assert)
            'self.is_sparse() INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/'
            'native/SparseTensorUtils.h":28, please report a bug to PyTorch. '
            "_internal_get_SparseTensorImpl: not a sparse tensor"
        )
    out = _smm(mat1, mat2, alpha, input, beta)
    return no_derivative(out, "sspaddmm", input, mat1, mat2)


def smm(input: Tensor, mat: Tensor) -> SparseTensor:
    """``torch.smm``: ``input @ mat`` (COO ``input``) as PyTorch's ``sspaddmm`` from zero."""
    out = _smm(input, mat, 1, None)
    return no_derivative(out, "sspaddmm", input, mat)


def _smm(mat1: Tensor, mat2: Tensor, alpha, input, beta=1) -> SparseTensor:
    if not isinstance(mat1, SparseTensor):
        raise RuntimeError("tensor.sspaddmm(...) can only be called on sparse tensors")  # noqa: TRY004
    if mat1.layout is not sparse_coo:
        raise RuntimeError(
            "torch.empty: Only batched sparse compressed (non-block) tensors are supported, but "
            "got size [0]"
        )
    rows, vals = _row_products("sspaddmm", mat1, mat2)
    xp = xp_of(mat1._device)
    n = mat2.shape[1]
    shape = (mat1.shape[0], n)
    idx = xp.stack([xp.repeat(rows, n), xp.tile(xp.arange(n, dtype=np.int64), rows.shape[0])])
    vals = vals.reshape(-1) * alpha if alpha != 1 else vals.reshape(-1)
    if input is not None:
        for d in (0, 1):
            if input.dim() > d and input.shape[d] != shape[d]:
                raise RuntimeError(
                    f"sspaddmm: Argument #1: Expected dim {d} size {shape[d]}, got {input.shape[d]}"
                )
        if input.dim() != 2 or input.dense_dim():
            raise NotImplementedError("taimatsu: sspaddmm of a non-2-d or hybrid input")
        base = input._data.values * beta if beta != 1 else input._data.values
        idx = xp.concatenate([input._data.indices, idx.astype(np.int64)], axis=1)
        vals = xp.concatenate([base.astype(vals.dtype, copy=False), vals])
    return coo(idx.astype(np.int64), vals.astype(mat1._dtype.np, copy=False), shape,
               mat1._dtype, mat1._device, idx.shape[1] < 2)  # fmt: skip
