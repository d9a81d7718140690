"""float16/bfloat16 reductions against PyTorch's CPU kernels: accumulated in float32.

A half-precision running sum overflows (1000 x 100. in float16) or stalls (10000 x 0.1 in
bfloat16); PyTorch accumulates in float32 and rounds the result to the half type. Values must be
within one unit in the last place of the half type (bit patterns compared), gradients of the ops
whose backward is itself a reduction too (random cotangents).
"""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

HALF = ["float16", "bfloat16"]
INPUTS = {
    "1000x100": lambda: np.full((1000,), 100.0, np.float32),
    "10000x0.1": lambda: np.full((10000,), 0.1, np.float32),
    "randn": lambda: np.random.default_rng(0).standard_normal((8, 300)).astype(np.float32),
}


def _F(T):
    return T.nn.functional


REDUCTIONS = {
    "sum": lambda T, x: x.sum(),
    "sum_dim": lambda T, x: x.sum(-1),
    "mean": lambda T, x: x.mean(),
    "mean_dim": lambda T, x: x.mean(-1, keepdim=True),
    "var": lambda T, x: x.var(),
    "std": lambda T, x: x.std(-1),
    "var_mean": lambda T, x: T.stack(T.var_mean(x)),
    "std_mean": lambda T, x: T.stack(T.std_mean(x, -1)),
    "norm": lambda T, x: x.norm(),
    "vector_norm_1": lambda T, x: T.linalg.vector_norm(x, 1),
    "vector_norm_3": lambda T, x: T.linalg.vector_norm(x, 3, -1),
    "matrix_norm": lambda T, x: T.linalg.matrix_norm(x.reshape(-1, 4)),
    "cumsum": lambda T, x: x.cumsum(-1),
    # the factors near 1 made in float32 (half * Python scalar rounds differently: not tested here)
    "cumprod": lambda T, x: (x.float() * 0.001 + 1).to(x.dtype).cumprod(-1),
    "logsumexp": lambda T, x: T.logsumexp(x, -1),
    "softmax": lambda T, x: x.softmax(-1),
    "log_softmax": lambda T, x: x.log_softmax(-1),
    "nansum": lambda T, x: x.nansum(),
    "nanmean": lambda T, x: x.nanmean(-1),
    "mse_loss": lambda T, x: _F(T).mse_loss(x, x * 0.5),
    "mse_loss_sum": lambda T, x: _F(T).mse_loss(x, x * 0.5, reduction="sum"),
    "l1_loss": lambda T, x: _F(T).l1_loss(x, x * 0.5),
    "smooth_l1_loss": lambda T, x: _F(T).smooth_l1_loss(x, x * 0.5),
    "huber_loss": lambda T, x: _F(T).huber_loss(x, x * 0.5),
    "binary_cross_entropy": lambda T, x: _F(T).binary_cross_entropy(
        x.sigmoid(), (x > 0).to(x.dtype)
    ),
    "kl_div": lambda T, x: _F(T).kl_div(
        x.reshape(-1, 10).log_softmax(-1),
        x.detach().reshape(-1, 10).softmax(-1),
        reduction="batchmean",
    ),
}
# Backwards that are reductions themselves, or computed in float32 by PyTorch's kernels.
GRAD_EXACT = {"sum", "sum_dim", "mean", "mean_dim", "cumsum", "softmax", "log_softmax", "nansum"}


def _bits(t, T):
    return np.atleast_1d(t.detach().view(T.int16).numpy()).astype(np.int64)


def assert_within_one_ulp(mine, theirs):
    """Same dtype and shape; half bit patterns at most one apart (NaNs equal)."""
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(mine.shape) == tuple(theirs.shape)
    a, b = _bits(mine, taimatsu), _bits(theirs, torch)
    nan = np.isnan(np.atleast_1d(theirs.detach().float().numpy()))
    assert (np.isnan(np.atleast_1d(mine.detach().float().numpy())) == nan).all()
    # the int16 patterns of two values of one sign are ordered like the values
    assert np.abs(a - b)[~nan].max(initial=0) <= 1, (mine, theirs)


def _run(T, fn, a, dtype):
    x = T.tensor(a).to(getattr(T, dtype)).requires_grad_()
    out = fn(T, x)
    ct = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(np.float32)
    (g,) = T.autograd.grad(out, x, T.tensor(ct).to(out.dtype))
    return out, g


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("data", list(INPUTS))
@pytest.mark.parametrize("op", list(REDUCTIONS))
def test_half_reduction_accumulates_in_float32(op, data, dtype):
    a = INPUTS[data]()
    (mine, gm), (theirs, gt) = (_run(T, REDUCTIONS[op], a, dtype) for T in (taimatsu, torch))
    assert_within_one_ulp(mine, theirs)
    if op in GRAD_EXACT:
        assert_within_one_ulp(gm, gt)
    else:  # the same formula in a different order of half-precision steps
        b = gt.float().numpy()
        np.testing.assert_allclose(
            gm.float().numpy(), b, rtol=2e-2, atol=1e-2 * np.abs(b).max() + 1e-6
        )


def test_float16_mean_of_large_values_is_finite():
    x = taimatsu.full((1000,), 100.0, dtype=taimatsu.float16)
    assert repr(x.mean()) == repr(torch.full((1000,), 100.0, dtype=torch.float16).mean())
