"""quantile/nanquantile compute their ranks q * (n - 1) in the input's dtype, as PyTorch: the
float32 rank sets the linear interpolation weight, so the results are PyTorch's bits."""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
def test_quantile_bits_match_pytorch(dtype, fn):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 200)).astype(dtype)
    a[1, ::7] = np.nan
    qs = [0.1, 0.3, 0.9, 0.95, 0.999, np.array([0.05, 0.5, 0.77], dtype)]
    for q in qs:
        for dim in (None, 1):
            tq = tm.from_numpy(q) if isinstance(q, np.ndarray) else q
            oq = torch.from_numpy(q) if isinstance(q, np.ndarray) else q
            ours = getattr(tm, fn)(tm.from_numpy(a), tq, dim=dim).numpy()
            theirs = getattr(torch, fn)(torch.from_numpy(a), oq, dim=dim).numpy()
            np.testing.assert_array_equal(ours, theirs)
