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
