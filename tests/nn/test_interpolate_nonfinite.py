"""interpolate with inf / NaN inputs: each output depends only on the taps PyTorch's kernel reads
(a dense interpolation matrix would spread ``0 * inf = nan`` along whole rows)."""

import numpy as np
import pytest
import torch

import taimatsu as tm


def _same(a, b):
    a, b = a.detach().numpy(), b.detach().numpy()
    assert a.shape == b.shape
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_array_equal(np.isinf(a) * np.sign(a), np.isinf(b) * np.sign(b))
    fin = np.isfinite(a)
    np.testing.assert_allclose(a[fin], b[fin], rtol=1e-5, atol=1e-6)


CASES = [
    ("linear", (2, 3, 7), (11,)),
    ("linear", (2, 3, 7), (4,)),
    ("bilinear", (2, 2, 6, 5), (11, 9)),
    ("bilinear", (2, 2, 6, 5), (3, 4)),
    ("bilinear", (2, 2, 6, 5), (6, 9)),  # an unresized dim: its taps are the input itself
    ("linear", (2, 3, 7), (7,)),
    ("bicubic", (1, 2, 6, 7), (11, 13)),
    ("bicubic", (1, 2, 6, 7), (3, 4)),
    ("trilinear", (1, 2, 4, 5, 3), (7, 9, 5)),
]


@pytest.mark.parametrize("mode,shape,size", CASES)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_interpolate_nonfinite_matches_torch(mode, shape, size, align_corners, value, dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype)
    x.reshape(-1)[[0, 5, x.size // 2, x.size - 1]] = value
    tx, mx = torch.tensor(x, requires_grad=True), tm.tensor(x, requires_grad=True)
    kw = {"size": size, "mode": mode, "align_corners": align_corners}
    a, b = torch.nn.functional.interpolate(tx, **kw), tm.nn.functional.interpolate(mx, **kw)
    _same(a, b)
    g = rng.standard_normal(a.shape).astype(dtype)
    a.backward(torch.tensor(g))
    b.backward(tm.tensor(g))
    _same(tx.grad, mx.grad)  # finite: the backward never reads the input


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("size", [(11, 9), (3, 2)])
@pytest.mark.parametrize("value", [np.inf, np.nan])
def test_interpolate_antialias_nonfinite_matches_torch(mode, size, value):
    x = np.random.default_rng(1).standard_normal((1, 2, 6, 5)).astype("float32")
    x[0, 0, 2, 3] = x[0, 1, 5, 4] = value
    kw = {"size": size, "mode": mode, "antialias": True}
    a = torch.nn.functional.interpolate(torch.tensor(x), **kw)
    _same(a, tm.nn.functional.interpolate(tm.tensor(x), **kw))
