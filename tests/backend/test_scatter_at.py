"""backend/scatter_at.py's fallback for the ufunc.at cases CuPy lacks: the contributions applied
in rounds give NumPy's own ``ufunc.at`` results (run here with NumPy as the namespace), for
every key form and the dtypes CuPy refuses."""

import numpy as np
import pytest

from taimatsu.backend.scatter_at import _in_rounds

_RNG = np.random.default_rng(0)
_KEYS = [
    (_RNG.integers(0, 4, 7),),
    (_RNG.integers(0, 4, 6), _RNG.integers(0, 5, 6)),
    (slice(None), _RNG.integers(0, 5, 8)),
    (_RNG.integers(0, 4, (2, 3)), slice(1, 4)),
    _RNG.integers(0, 4, 9),
    (Ellipsis, _RNG.integers(0, 5, 3)),
]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.bool_, np.complex64, np.float16])
@pytest.mark.parametrize(
    "ufunc", [np.add, np.multiply, np.maximum, np.minimum], ids=lambda u: u.__name__
)
@pytest.mark.parametrize("k", range(len(_KEYS)))
def test_rounds_match_numpys_ufunc_at(dtype, ufunc, k):
    rng = np.random.default_rng(k)
    a = (rng.standard_normal((4, 5)) * 3).astype(dtype)
    key = _KEYS[k]
    vals = (rng.standard_normal(a[key].shape) * 3).astype(dtype)
    want = a.copy()
    ufunc.at(want, key, vals)
    got = a.copy()
    _in_rounds(np, ufunc, got, key, vals)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.float16, np.int64, np.int8, np.bool_, np.complex64]
)
@pytest.mark.parametrize(
    "shape,dim,n",
    [
        ((40, 32), 0, 200),
        ((3, 64, 2), 1, 500),
        ((2, 16, 40), 2, 7),
        ((64, 40), 0, 40),
        ((5, 3), 0, 9),
    ],
)
def test_add_along_matches_add_at(dtype, shape, dim, n):
    # index_add's sum: whole slices added in rounds (or add.at itself for small slices) give
    # add.at's values bit for bit, repeated indices adding in index order
    from taimatsu.backend.scatter_at import add_along

    rng = np.random.default_rng(n)
    a = (rng.standard_normal(shape) * 3).astype(dtype)
    index = rng.integers(0, shape[dim], n) if n != shape[dim] else rng.permutation(n)
    vshape = list(shape)
    vshape[dim] = n
    vals = (rng.standard_normal(vshape) * 3).astype(dtype)
    want = a.copy()
    np.add.at(want, (slice(None),) * dim + (index,), vals)
    got = a.copy()
    add_along(np, got, dim, index, vals)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
