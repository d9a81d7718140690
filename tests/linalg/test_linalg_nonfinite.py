"""Linear algebra of matrices holding NaN or inf, against PyTorch.

PyTorch's answers (its MKL build's) are the spec, whatever LAPACK NumPy runs on: NaN propagating
through an LU factorization (slogdet, complex inf pivots included: MKL's 1 / inf is NaN) and through
matrix_exp's Taylor polynomial; an SVD of a matrix with inf has NaN singular values (one with NaN
raises). Not pinned: the U and Vh of such an SVD (MKL's are an artefact of its path; taimatsu's are
NaN) and so the pinv of a square one (PyTorch 0, taimatsu NaN).
"""

import math

import numpy as np
import pytest

import taimatsu

nan, inf = math.nan, math.inf

MATRICES = [
    [[nan, 1.0], [1.0, 1.0]],
    [[inf, inf], [1.0, 1.0]],
    [[0.0, 0.0], [0.0, nan]],
    [[nan, nan], [nan, nan]],
    [[1.0, inf], [2.0, 3.0]],
    [[inf, 1.0], [1.0, 1.0]],
    [[1.0, 1.0], [1.0, 1.0]],
    [[-inf, 0.0], [0.0, 1.0]],
    [[1.0, 0.0], [0.0, inf]],
    [[0.0, 1.0], [inf, 0.0]],
]


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    np.testing.assert_array_equal(a, b)
    num = ~np.isnan(a.real)  # a NaN's sign bit is not part of PyTorch's contract
    np.testing.assert_array_equal(np.signbit(a.real[num]), np.signbit(b.real[num]))


@pytest.mark.parametrize("m", MATRICES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_slogdet_nonfinite(torch_oracle, m, dtype):
    t = torch_oracle.linalg.slogdet(torch_oracle.tensor(m, dtype=getattr(torch_oracle, dtype)))
    r = taimatsu.linalg.slogdet(taimatsu.tensor(m, dtype=getattr(taimatsu, dtype)))
    _same(r.sign.numpy(), t.sign.numpy())
    _same(r.logabsdet.numpy(), t.logabsdet.numpy())


def test_slogdet_nonfinite_batched(torch_oracle):
    m = np.stack([np.eye(3), np.eye(3)])
    m[1, 2, 2] = nan
    t = torch_oracle.linalg.slogdet(torch_oracle.tensor(m))
    r = taimatsu.linalg.slogdet(taimatsu.tensor(m))
    _same(r.sign.numpy(), t.sign.numpy())
    _same(r.logabsdet.numpy(), t.logabsdet.numpy())


@pytest.mark.parametrize(
    "m",
    [[[nan, 0.0], [0.0, 1.0]], [[0.0, nan], [0.0, 0.0]], [[inf, 0.0], [0.0, 1.0]],
     [[-inf, 0.0], [0.0, 1.0]], [[nan]]],
    ids=str,
)  # fmt: skip
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matrix_exp_nonfinite(torch_oracle, m, dtype):
    t = torch_oracle.linalg.matrix_exp(torch_oracle.tensor(m, dtype=getattr(torch_oracle, dtype)))
    r = taimatsu.linalg.matrix_exp(taimatsu.tensor(m, dtype=getattr(taimatsu, dtype)))
    _same(r.numpy(), t.numpy())


def test_matrix_exp_nonfinite_only_its_own_matrix(torch_oracle):
    m = np.stack([np.eye(2), [[nan, 0.0], [0.0, 1.0]]])
    t = torch_oracle.linalg.matrix_exp(torch_oracle.tensor(m))
    r = taimatsu.linalg.matrix_exp(taimatsu.tensor(m))
    np.testing.assert_allclose(r.numpy(), t.numpy(), rtol=1e-12)


def test_slogdet_complex_inf_random(torch_oracle):
    """Random complex matrices with an infinite entry (anywhere: pivot, below or right of one)."""
    rng = np.random.default_rng(0)
    for k in range(300):
        n = int(rng.integers(1, 6))
        m = rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))
        m[rng.integers(n), rng.integers(n)] = (
            complex(*rng.choice([inf, -inf, 0.0, 1.0], 2)) if k % 2 else inf
        )
        if k % 7 == 0:
            m[:, 0] = 0
        t = torch_oracle.linalg.slogdet(torch_oracle.tensor(m))
        r = taimatsu.linalg.slogdet(taimatsu.tensor(m))
        np.testing.assert_allclose(r.logabsdet.numpy(), t.logabsdet.numpy(), rtol=1e-12)
        np.testing.assert_allclose(r.sign.numpy(), t.sign.numpy(), rtol=1e-12)


SVD_INF = [
    "[[inf, 1.], [1., 1.]]", "[[1., 2., 3.], [4., inf, 6.]]", "[[1., 2.], [3., 4.], [-inf, 6.]]",
    "[[[1., 0.], [0., 1.]], [[inf, 1.], [1., 1.]]]", "[[inf, inf], [inf, inf]]",
]  # fmt: skip
SVD_CALLS = [
    "T.linalg.svdvals(A)", "T.linalg.svd(A).S", "T.svd(A).S", "T.linalg.matrix_rank(A)", "T.linalg.cond(A)",
    "T.linalg.matrix_norm(A, 2)", "T.linalg.matrix_norm(A, 'nuc')", "T.linalg.svd(A.to(T.complex128)).S",
]  # fmt: skip


@pytest.mark.parametrize("m", SVD_INF)
@pytest.mark.parametrize("call", SVD_CALLS)
def test_svd_of_inf_matrices_is_nan(torch_oracle, m, call):
    """PyTorch answers NaN singular values for matrices with inf (rank 0, cond NaN), not an error."""
    got = []
    for T in (torch_oracle, taimatsu):
        A = T.tensor(eval(m, {"inf": inf}), dtype=T.float64)
        got.append(eval(call, {"T": T, "A": A}))
    assert got[1].dtype.__repr__().split(".")[-1] == got[0].dtype.__repr__().split(".")[-1]
    _same(got[1].numpy(), got[0].numpy())


def test_svd_of_nan_still_raises(torch_oracle):
    m = [[[inf, 0.0], [0.0, 1.0]], [[nan, 1.0], [1.0, 1.0]]]
    with pytest.raises(torch_oracle.linalg.LinAlgError) as t:
        torch_oracle.linalg.svd(torch_oracle.tensor(m))
    with pytest.raises(taimatsu.linalg.LinAlgError) as r:
        taimatsu.linalg.svd(taimatsu.tensor(m))
    assert str(r.value) == str(t.value)


def test_svd_factors_of_inf_matrix_are_nan():
    """The documented deviation: U and Vh of an inf matrix are NaN (MKL's depend on its path)."""
    U, S, Vh = taimatsu.linalg.svd(taimatsu.tensor([[inf, 1.0], [1.0, 1.0]]))
    assert U.isnan().all() and S.isnan().all() and Vh.isnan().all()
