"""``torch.sparse``: products, sums and softmax of sparse tensors, and the invariant-check switch.

Sparse tensors themselves are ``taimatsu._tensor.sparse.SparseTensor`` (COO and the compressed
CSR/CSC/BSR/BSC layouts), made by ``torch.sparse_coo_tensor`` / ``torch.sparse_csr_tensor`` & co.
/ ``Tensor.to_sparse``.
"""

from __future__ import annotations

from . import arithmetic as _arithmetic
from . import construction as _construction
from .construction import spdiags
from .gradcheck import as_sparse_gradcheck
from .legacy_types import (
    BFloat16Tensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from .matmul import addmm as _addmm
from .matmul import sampled_addmm
from .matmul import sparse_mm as mm

__all__ = [
    "BFloat16Tensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor", "HalfTensor",
    "IntTensor", "LongTensor", "ShortTensor", "addmm", "as_sparse_gradcheck", "check_sparse_tensor_invariants",
    "log_softmax", "mm", "sampled_addmm", "softmax", "spdiags", "sum",
]  # fmt: skip


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``beta * mat + alpha * (mat1 @ mat2)`` for a sparse ``mat1`` (sparse gradient for it)."""
    return _addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def sum(input, dim=None, dtype=None):
    """All entries (dense 0-d) or over ``dim`` (sparse while sparse dims remain), as PyTorch."""
    return _arithmetic.sum(input, dim, False, dtype)


def softmax(input, dim: int, *, dtype=None):
    """Softmax over the specified entries of each slice along ``dim`` (the rest count as -inf)."""
    return _arithmetic.softmax(input, dim, dtype)


def log_softmax(input, dim: int, *, dtype=None):
    return _arithmetic.log_softmax(input, dim, dtype)


class check_sparse_tensor_invariants:
    """Turn the invariant checks of the sparse factories on (``enable()``) or off, globally or
    in a ``with`` block (PyTorch's class; taimatsu checks index bounds and nnz agreement)."""

    @staticmethod
    def is_enabled() -> bool:
        return bool(_construction.invariants["enabled"])

    @staticmethod
    def enable() -> None:
        _construction.invariants["enabled"] = True

    @staticmethod
    def disable() -> None:
        _construction.invariants["enabled"] = False

    def __init__(self, enable: bool = True):
        self.state = enable
        self.saved = None

    def __enter__(self):
        self.saved = _construction.invariants["enabled"]
        _construction.invariants["enabled"] = self.state
        return self

    def __exit__(self, *exc):
        _construction.invariants["enabled"] = self.saved

    def __call__(self, fn):
        def wrapped(*args, **kwargs):
            with check_sparse_tensor_invariants(self.state):
                return fn(*args, **kwargs)

        return wrapped
