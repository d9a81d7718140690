"""Array-level sparse kernels: coalescing, densifying, masking, and the bridge to
``scipy.sparse`` (CPU) / ``cupyx.scipy.sparse`` (CUDA, unverified).

Everything here takes and returns NumPy/CuPy arrays; autograd lives in the modules above.
COO indices are int64 ``(sparse_dim, nnz)`` arrays; duplicates are allowed until coalesced.
"""

from __future__ import annotations

import numpy as np

from ..backend.scatter_at import add_at as scatter_add  # out[index] += values, repeats summed
from ..backend.scatter_at import ufunc_at


def scipy_sparse(device):
    """``scipy.sparse`` for CPU tensors, ``cupyx.scipy.sparse`` for CUDA ones."""
    if device.type == "cpu":
        import scipy.sparse

        return scipy.sparse
    import cupyx.scipy.sparse

    return cupyx.scipy.sparse


def scatter_max(xp, out, index, values) -> None:
    """``out[index] = max(out[index], values)`` with repeated indices."""
    ufunc_at(xp, xp.maximum, out, index, values)


def linear_index(xp, indices, sparse_shape):
    """Row-major position of each COO entry among the sparse dims (int64)."""
    if indices.shape[0] == 0:
        return xp.zeros(indices.shape[1], dtype=np.int64)
    return xp.ravel_multi_index(tuple(indices), sparse_shape).astype(np.int64, copy=False)


def coalesce(xp, indices, values, shape):
    """Sorted, duplicate-free indices and their summed values (PyTorch's ``coalesce``)."""
    k = indices.shape[0]
    if indices.shape[1] == 0:
        return indices, values
    lin = linear_index(xp, indices, shape[:k])
    order = xp.argsort(lin, kind="stable")
    uniq, inverse = xp.unique(lin[order], return_inverse=True)
    if uniq.shape[0] == lin.shape[0]:
        return indices[:, order], values[order]
    summed = xp.zeros((uniq.shape[0],) + values.shape[1:], dtype=values.dtype)
    scatter_add(xp, summed, inverse.reshape(-1), values[order])
    new_indices = xp.stack(xp.unravel_index(uniq, shape[:k])).astype(np.int64).reshape(k, -1)
    return new_indices, summed


def merge_add(xp, ai, av, bi, bv, shape, alpha=1):
    """COO arrays of ``a + alpha * b`` by PyTorch's merge: both entry lists are walked once in
    step, an entry of one that equals the other's current entry is summed with it, and the rest
    are taken in order. For coalesced operands that is the coalesced sum; for uncoalesced ones it
    reproduces PyTorch's exact (partly merged) entry order."""
    k = ai.shape[0]
    la, lb = linear_index(xp, ai, shape[:k]), linear_index(xp, bi, shape[:k])
    if bool((xp.diff(la) > 0).all()) and bool((xp.diff(lb) > 0).all()):
        # Both strictly increasing: the merge is their sorted union with equal entries summed,
        # which coalescing the concatenation computes without a Python loop.
        b_scaled = bv * alpha if alpha != 1 else bv
        both = xp.concatenate([av, b_scaled.astype(av.dtype, copy=False)])
        return coalesce(xp, xp.concatenate([ai, bi], axis=1), both, shape)
    la, lb = la.tolist(), lb.tolist()
    take_a, take_b, pos_a, pos_b = [], [], [], []  # source rows, and their positions in the result
    i = j = r = 0
    na, nb = len(la), len(lb)
    while i < na or j < nb:
        if j >= nb or (i < na and la[i] <= lb[j]):
            take_a.append(i)
            pos_a.append(r)
            if j < nb and la[i] == lb[j]:
                take_b.append(j)
                pos_b.append(r)
                j += 1
            i += 1
        else:
            take_b.append(j)
            pos_b.append(r)
            j += 1
        r += 1
    idx = xp.empty((k, r), dtype=np.int64)
    vals = xp.zeros((r,) + av.shape[1:], dtype=av.dtype)
    pa, pb = xp.asarray(pos_a, dtype=np.int64), xp.asarray(pos_b, dtype=np.int64)
    ta, tb = xp.asarray(take_a, dtype=np.int64), xp.asarray(take_b, dtype=np.int64)
    idx[:, pb] = bi[:, tb]
    idx[:, pa] = ai[:, ta]
    vals[pa] = av[ta]
    vals[pb] += bv[tb] * alpha if alpha != 1 else bv[tb]
    return idx, vals


def coo_to_dense(xp, indices, values, shape):
    out = xp.zeros(shape, dtype=values.dtype)
    if values.shape[0]:
        scatter_add(xp, out, tuple(indices), values)
    return out


def dense_to_coo(xp, a, sparse_dim: int):
    """Coalesced COO arrays of the entries of ``a`` whose dense part is not all zero."""
    lead = a.shape[:sparse_dim]
    nz = a != 0
    if a.ndim > sparse_dim:
        nz = nz.reshape(lead + (-1,)).any(axis=-1)
    idx = xp.stack(xp.nonzero(nz)).astype(np.int64).reshape(sparse_dim, -1)
    return idx, a[tuple(idx)].copy() if sparse_dim else a[None].copy()


def coo_to_csr(xp, indices, values, nrows: int):
    """CSR arrays of a coalesced 2-d COO matrix."""
    counts = xp.bincount(indices[0], minlength=nrows)
    crow = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(counts)]).astype(np.int64)
    return crow, indices[1].copy(), values.copy()


def gather(xp, indices, dense):
    """The entries of the dense array ``dense`` at COO ``indices`` (``sparse_mask`` on arrays)."""
    return dense[tuple(indices)]


def gather_sparse(xp, indices, shape, g_indices, g_values):
    """The values of the COO array (g_indices, g_values) at ``indices`` (zero where absent)."""
    k = indices.shape[0]
    g_indices, g_values = coalesce(xp, g_indices, g_values, shape)
    out = xp.zeros((indices.shape[1],) + g_values.shape[1:], dtype=g_values.dtype)
    if not g_values.shape[0] or not indices.shape[1]:
        return out
    glin = linear_index(xp, g_indices, shape[:k])
    lin = linear_index(xp, indices, shape[:k])
    pos = xp.minimum(xp.searchsorted(glin, lin), glin.shape[0] - 1)
    hit = glin[pos] == lin
    out[hit] = g_values[pos[hit]]
    return out


def to_scipy(device, indices, values, shape):
    """A scipy (cupyx) CSR matrix of a 2-d COO array with scalar values (duplicates summed)."""
    sp = scipy_sparse(device)  # built through COO, the form cupyx.scipy.sparse also takes
    return sp.coo_matrix((values, (indices[0], indices[1])), shape=shape).tocsr()


def csr_to_scipy(device, crow, col, values, shape):
    return scipy_sparse(device).csr_matrix((values, col, crow), shape=shape)
