"""Linear algebra of matrices holding NaN or inf, against PyTorch.

Only the cases whose PyTorch result does not depend on the LAPACK build are pinned here: NaN
propagating through an LU factorization (slogdet) and through matrix_exp's Taylor polynomial.
(Complex inputs with inf depend on how the LAPACK divides by a complex inf, and SVDs of inf
matrices on the LAPACK's own path choice; neither is pinned.)
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
]


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    np.testing.assert_array_equal(a, b)
    num = ~np.isnan(a.real)  # a NaN's sign bit is not part of PyTorch's contract
    np.testing.assert_array_equal(np.signbit(a.real[num]), np.signbit(b.real[num]))


@pytest.mark.parametrize("m", MATRICES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_slogdet_nonfinite(torch_oracle, m, dtype):
    if dtype == "complex128" and any(math.isinf(v) for row in m for v in row):
        pytest.skip("depends on the LAPACK's complex division by inf")
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
