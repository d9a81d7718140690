"""clamp against PyTorch on large float arrays (its bounds are then filled arrays, not scalars):
signed zeros, NaNs and infinities at every bound combination, contiguous and strided."""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

BOUNDS = [
    {"min": 0.0}, {"max": 0.0}, {"min": -0.0}, {"max": -0.0}, {"min": -0.5, "max": 0.5},
    {"min": 0, "max": 0}, {"min": -0.0, "max": 0.0}, {"min": float("nan")}, {"max": float("nan")},
    {"min": 1.0, "max": -1.0}, {"min": float("-inf"), "max": float("inf")}, {"min": 0.1},
]  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bounds", BOUNDS, ids=lambda b: ",".join(f"{k}={v}" for k, v in b.items()))
def test_clamp_matches_torch_bits(dtype, bounds):
    x = np.random.default_rng(0).standard_normal((64, 48)).astype(dtype)
    x.reshape(-1)[:6] = [-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf]
    uint = np.uint32 if dtype == np.float32 else np.uint64
    for a in (x, x[:, ::2]):
        want = torch.from_numpy(np.ascontiguousarray(a)).clamp(**bounds).numpy()
        got = tm.from_numpy(a).clamp(**bounds).numpy()
        np.testing.assert_array_equal(got.view(uint), want.view(uint))
