"""``torch.svd_lowrank`` and ``torch.pca_lowrank``: randomized low-rank SVD and PCA.

Halko, Martinsson and Tropp's randomized range finder (their algorithm 4.4: a Gaussian test
matrix, then ``niter`` rounds of subspace iteration with a QR after every product) gives an
orthonormal basis ``Q`` of ``q`` columns for the range of ``A`` (or ``A - M``); the SVD of the
small ``Q^H A`` (algorithm 5.1) lifted back by ``Q`` is the approximate SVD. The test matrix is
drawn by ``torch.randn`` from the global generator, whose stream is PyTorch's, so with the same
seed the result is PyTorch's up to the LAPACK rounding of the QR and SVD steps. Everything is
taimatsu ops (matmul, ``linalg.qr``, ``linalg.svd``), so gradients flow; a sparse COO ``A``
enters only through sparse-dense products.
"""

from __future__ import annotations

from .. import _dtype as D
from .._tensor.core import Tensor


def _product(a, b):
    """``a @ b``, through the sparse-dense product when ``a`` is sparse."""
    if a.is_sparse:
        from ..sparse import mm

        return mm(a, b)
    return a @ b


def _float_dtype(A: Tensor):
    return A.dtype if A._dtype.category in (D.FLOAT, D.COMPLEX) else D.float32


def _orthonormal(X: Tensor) -> Tensor:
    from .decompositions import qr

    return qr(X).Q


def _range_basis(A: Tensor, q: int, niter: int, M=None) -> Tensor:
    """An orthonormal ``(*, m, q)`` basis ``Q`` with ``Q Q^H (A - M)`` close to ``A - M``."""
    from ..ops.creation.random import randn

    def times(x):  # (A - M) @ x without forming A - M
        y = _product(A, x)
        return y if M is None else y - _product(M, x)

    def adjoint_times(x):
        y = _product(A.mH, x)
        return y if M is None else y - _product(M.mH, x)

    Q = _orthonormal(times(randn(A.shape[-1], q, dtype=_float_dtype(A), device=A.device)))
    for _ in range(niter):
        Q = _orthonormal(adjoint_times(Q))
        Q = _orthonormal(times(Q))
    return Q


def _svd_lowrank(A: Tensor, q, niter, M):
    from .decompositions import svd

    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = m < n
    if wide:  # work on the tall A^H: the basis is then the smaller one
        A = A.mH
        M = None if M is None else M.mH
    Q = _range_basis(A, q, niter, M)
    B = Q.mH @ A
    if M is not None:
        B = B - Q.mH @ M
    U, S, Vh = svd(B, full_matrices=False)
    U, V = Q @ U, Vh.mH
    return (V, S, U) if wide else (U, S, V)


def svd_lowrank(A: Tensor, q=6, niter=2, M=None) -> tuple[Tensor, Tensor, Tensor]:
    """``(U, S, V)`` with ``A ~ U diag(S) V^H`` (or ``A - M``), ``q`` singular triplets."""
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(
    A: Tensor, q=None, center: bool = True, niter: int = 2
) -> tuple[Tensor, Tensor, Tensor]:
    """``svd_lowrank`` of the column-centred data matrix ``A`` (samples in rows): ``V``'s columns
    are the principal directions, ``S**2 / (m - 1)`` the variances along them."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    if A.is_sparse:
        return _svd_lowrank(A, q, niter, _sparse_column_means(A, m, n))
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter, None)


def _sparse_column_means(A: Tensor, m: int, n: int) -> Tensor:
    """The (m, n) matrix whose rows are all A's column means: a sparse (n, 1) column of the
    means times a row of ones, transposed (dense, as PyTorch's product makes it)."""
    from .. import sparse
    from ..ops.creation.factories import ones, zeros
    from ..sparse.construction import sparse_coo_tensor

    if A.dim() != 2:
        raise ValueError("pca_lowrank input is expected to be 2-dimensional tensor")
    dtype = _float_dtype(A)
    means = sparse.sum(A, dim=(-2,)) / m
    cols = means.indices()[0]
    idx = zeros(2, cols.shape[0], dtype=cols.dtype, device=cols.device)
    idx[0] = cols
    column = sparse_coo_tensor(idx, means.values(), (n, 1), dtype=dtype, device=A.device)
    return sparse.mm(column, ones(1, m, dtype=dtype, device=A.device)).mT
