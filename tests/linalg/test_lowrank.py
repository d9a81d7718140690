"""torch.svd_lowrank and torch.pca_lowrank against PyTorch with the same seed: the random test
matrix is the same draw, so U, S, V agree to the rounding of the QR/SVD steps (LAPACK builds
differ); batched, with M, uncentred, sparse inputs, gradients with random cotangents, errors."""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu as T

torch = pytest.importorskip("torch")


def _data(shape, dtype="float64", seed=0, rank=None):
    rng = np.random.default_rng(seed)
    if rank is None:
        return rng.standard_normal(shape).astype(dtype)
    *b, m, n = shape
    return (rng.standard_normal((*b, m, rank)) @ rng.standard_normal((*b, rank, n))).astype(dtype)


def _both(fn, *args, seed=7, **kw):
    T.manual_seed(seed)
    torch.manual_seed(seed)

    def of(M, a):
        return M.tensor(a) if isinstance(a, np.ndarray) else a

    ours = getattr(T, fn)(*[of(T, a) for a in args], **{k: of(T, v) for k, v in kw.items()})
    theirs = getattr(torch, fn)(
        *[of(torch, a) for a in args], **{k: of(torch, v) for k, v in kw.items()}
    )
    return ours, theirs


def _same(ours, theirs, tol):
    """S equal; U and V equal column by column up to the sign of each (U, V) column pair,
    which LAPACK builds may choose differently, where the singular value is not ~0 (a centred
    m x n matrix with m <= n has rank m - 1: its last pair is any unit vector pair)."""
    assert len(ours) == len(theirs) == 3
    (u, s, v), (U, S, V) = ([t.detach().numpy() for t in r] for r in (ours, theirs))
    for a, b in ((u, U), (s, S), (v, V)):
        assert a.shape == b.shape and a.dtype == b.dtype
    scale = max(1.0, float(np.abs(S).max()))
    np.testing.assert_allclose(s, S, rtol=tol, atol=tol * scale)
    sign = np.sign(np.sum(u * U, axis=-2, keepdims=True))
    kept = (S > 1e-6 * scale)[..., None, :]
    np.testing.assert_allclose(
        np.where(kept, u * sign, 0), np.where(kept, U, 0), rtol=tol, atol=tol
    )
    np.testing.assert_allclose(
        np.where(kept, v * sign, 0), np.where(kept, V, 0), rtol=tol, atol=tol
    )


@pytest.mark.parametrize("shape", [(20, 8), (8, 20), (3, 15, 10), (12, 12)], ids=str)
@pytest.mark.parametrize("kw", [{}, {"q": 4}, {"q": 3, "niter": 0}, {"q": 5, "niter": 4}], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_svd_lowrank(shape, kw, dtype):
    x = _data(shape, dtype)
    ours, theirs = _both("svd_lowrank", x, **kw)
    _same(ours, theirs, 1e-3 if dtype == "float32" else 1e-9)


def test_svd_lowrank_with_a_mean():
    x, m = _data((15, 9)), _data((1, 9), seed=3)
    ours, theirs = _both("svd_lowrank", x, q=5, M=m)
    _same(ours, theirs, 1e-9)


@pytest.mark.parametrize("shape", [(30, 6), (6, 30), (2, 25, 7)], ids=str)
@pytest.mark.parametrize("kw", [{}, {"q": 2}, {"center": False}, {"q": 4, "niter": 1}], ids=str)
def test_pca_lowrank(shape, kw):
    x = _data(shape) + 3.0
    ours, theirs = _both("pca_lowrank", x, **kw)
    _same(ours, theirs, 1e-9)


@pytest.mark.filterwarnings("ignore:Sparse invariant checks")
def test_sparse_inputs():
    x = _data((25, 10))
    x[np.abs(x) < 0.7] = 0.0
    for fn, kw in (
        ("pca_lowrank", {"q": 3}),
        ("pca_lowrank", {"q": 3, "center": False}),
        ("svd_lowrank", {"q": 3}),
    ):
        T.manual_seed(1)
        torch.manual_seed(1)
        ours = getattr(T, fn)(T.tensor(x).to_sparse(), **kw)
        theirs = getattr(torch, fn)(torch.tensor(x).to_sparse(), **kw)
        _same(ours, theirs, 1e-9)


def test_gradients():
    x = _data((12, 7))
    cots = [
        np.random.default_rng(i).standard_normal(s) for i, s in enumerate([(12, 4), (4,), (7, 4)])
    ]
    grads = []
    for M in (T, torch):
        M.manual_seed(2)
        a = M.tensor(x, requires_grad=True)
        U, S, V = M.svd_lowrank(a, q=4)
        # U and V up to the sign of a column pair: take sign-free quantities of them
        loss = (S * M.tensor(cots[1])).sum() + ((U @ U.mT) @ M.tensor(cots[0])).sum()
        loss = loss + ((V * V) * M.tensor(cots[2])).sum()
        loss.backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-7, atol=1e-7)


ERRORS = {
    "q too large": lambda M: M.pca_lowrank(M.ones(4, 3), q=4),
    "q negative": lambda M: M.pca_lowrank(M.ones(4, 3), q=-1),
    "niter negative": lambda M: M.pca_lowrank(M.ones(4, 3), niter=-1),
    "3-d sparse": lambda M: M.pca_lowrank(M.ones(2, 4, 3).to_sparse(), q=2),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    with pytest.raises(Exception) as theirs:
        ERRORS[case](torch)
    with pytest.raises(Exception) as ours:
        ERRORS[case](T)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)
