"""The sparse-layout methods of a dense (strided) ``Tensor``: conversions to the sparse layouts,
and PyTorch's errors for the accessors that only sparse tensors have. ``SparseTensor``
(_tensor/sparse.py) overrides every one of them.
"""

from __future__ import annotations

_NOT_RUN_DENSE = (
    "Could not run 'aten::{op}' with arguments from the '{backend}' backend. This could be because "
    "the operator doesn't exist for this backend, or was omitted during the selective/custom build "
    "process (if using custom build). If you are a Facebook employee using PyTorch on mobile, please "
    "visit https://fburl.com/ptmfixes for possible resolutions."
)


def _construction():
    from ..sparse import construction

    return construction


class SparseLayoutMethods:
    __slots__ = ()

    def to_sparse(self, *args, **kwargs):
        return _construction().to_sparse(self, *args, **kwargs)

    def to_sparse_coo(self):
        return _construction().to_sparse(self)

    def to_sparse_csr(self, dense_dim=None):
        return _construction().to_sparse_csr(self, dense_dim)

    def to_sparse_csc(self, dense_dim=None):
        from .._layout import sparse_csc

        return _construction().to_sparse(self, layout=sparse_csc, dense_dim=dense_dim)

    def to_sparse_bsr(self, blocksize, dense_dim=None):
        from .._layout import sparse_bsr

        return _construction().to_sparse(
            self, layout=sparse_bsr, blocksize=blocksize, dense_dim=dense_dim
        )

    def to_sparse_bsc(self, blocksize, dense_dim=None):
        from .._layout import sparse_bsc

        return _construction().to_sparse(
            self, layout=sparse_bsc, blocksize=blocksize, dense_dim=dense_dim
        )

    def to_dense(self, dtype=None, *, masked_grad=None):
        return self if dtype is None else self.to(dtype)

    def smm(self, mat):
        from ..sparse.matmul import smm

        return smm(self, mat)

    def sspaddmm(self, mat1, mat2, *, beta=1, alpha=1):
        from ..sparse.matmul import sspaddmm

        return sspaddmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def sparse_mask(self, mask):
        return _construction().sparse_mask(self, mask)

    def sparse_dim(self) -> int:
        return 0

    def dense_dim(self) -> int:
        return self.dim()

    def indices(self):
        _construction().need_layout(self, "indices", _construction().sparse_coo)

    def values(self):
        return _construction().values(self, checked=True)

    def crow_indices(self):
        _construction().need_layout(self, "crow_indices", _construction().sparse_csr)

    def col_indices(self):
        _construction().need_layout(self, "col_indices", _construction().sparse_csr)

    def ccol_indices(self):
        _construction().compressed_indices(self, 0, "ccol_indices")

    def row_indices(self):
        _construction().compressed_indices(self, 1, "row_indices")

    def coalesce(self):
        _construction().need_layout(self, "coalesce", _construction().sparse_coo)

    def is_coalesced(self) -> bool:
        _construction().need_layout(self, "is_coalesced", _construction().sparse_coo)

    def _indices(self):
        raise self._dense_backend_error("_indices")

    def _values(self):
        raise self._dense_backend_error("_values")

    def _nnz(self) -> int:
        raise self._dense_backend_error("_nnz")

    def _dense_backend_error(self, op: str) -> NotImplementedError:
        backend = "CPU" if self.device.type == "cpu" else "CUDA"
        return NotImplementedError(_NOT_RUN_DENSE.format(op=op, backend=backend))
