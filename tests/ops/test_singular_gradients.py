"""Gradients at singular points as PyTorch gives them: values, NaN/inf and the sign of zero.

Where a formula meets 0 * inf, 0 / 0 or a NaN comparison (x ** 0 at 0, atan2(0, 0), maximum
with a NaN, sign(NaN), the 1-norm of a vector holding a NaN, ties of the inf-norms), PyTorch's
derivative formulas pick a value; taimatsu must pick the same. Random cotangents (with negative
entries, so g * 0 = -0 and masked zeros = +0 are told apart) against ``torch.autograd.grad``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

nan, inf = math.nan, math.inf
NAN_ROW = [1.0, nan, -2.0, 0.0]
PAIRS = [[nan, 0.0, 1.0, nan, -0.0], [0.0, nan, 1.0, nan, 0.0]]
TIES = [[[1.0, nan, 2.0], [3.0, 3.0, 1.0]]]


def _F(T):
    return T.nn.functional


CASES = {
    "norm_p1_nan": (lambda T, x: x.norm(p=1), [NAN_ROW]),
    "vector_norm_ord1_nan": (lambda T, x: T.linalg.vector_norm(x, 1), [NAN_ROW]),
    "vector_norm_inf_nan": (lambda T, x: T.linalg.vector_norm(x, inf), [NAN_ROW]),
    "vector_norm_inf_tie": (lambda T, x: T.linalg.vector_norm(x, inf), [[2.0, 1.0, -2.0]]),
    "norm_p2_nan": (lambda T, x: x.norm(), [NAN_ROW]),
    "norm_p2_zero": (lambda T, x: x.norm(), [[0.0, 0.0, 0.0]]),
    "norm_p2_zero_row": (lambda T, x: x.norm(dim=1), [[[0.0, 0.0], [1.0, 2.0]]]),
    "norm_p3_zero": (lambda T, x: x.norm(p=3), [[0.0, 0.0, 0.0]]),
    "norm_p0.5_zero_entry": (lambda T, x: x.norm(p=0.5), [[0.0, 1.0, -2.0]]),
    "pow_0_at_0": (lambda T, x: x**0, [[0.0, 1.0, -1.0, nan]]),
    "pow_0.5_at_0": (lambda T, x: x**0.5, [[0.0, 1.0]]),
    "pow_1_at_0": (lambda T, x: x**1, [[0.0, 1.0]]),
    "pow_2_at_0": (lambda T, x: x**2, [[0.0, 1.0]]),
    "pow_-1_at_0": (lambda T, x: x**-1, [[0.0, 1.0]]),
    "pow_-0.5_at_0": (lambda T, x: x**-0.5, [[0.0, 1.0]]),
    "pow_tensor_at_0": (
        lambda T, x, y: x**y,
        [[0.0] * 6 + [2.0, -1.0], [0.0, 0.5, 1.0, 2.0, -1.0, -0.5, 0.0, 2.0]],
    ),
    "pow_0_base": (lambda T, y: 0**y, [[0.0, 0.5, 1.0, 2.0, -1.0, nan]]),
    "pow_0_tensor_base": (lambda T, x, y: T.pow(x, y), [[0.0, 0.0, 0.0], [0.0, 1.0, -1.0]]),
    "atan2_origin": (lambda T, y, x: T.atan2(y, x), [[0.0, 0.0, -0.0, 1.0], [0.0, -0.0, 0.0, 0.0]]),
    "maximum_nan": (lambda T, a, b: T.maximum(a, b), PAIRS),
    "minimum_nan": (lambda T, a, b: T.minimum(a, b), PAIRS),
    "fmax_nan": (lambda T, a, b: T.fmax(a, b), PAIRS),
    "fmin_nan": (lambda T, a, b: T.fmin(a, b), PAIRS),
    "max_dim_nan": (lambda T, x: x.max(1)[0], TIES),
    "min_dim_nan": (lambda T, x: x.min(1)[0], TIES),
    "max_all_nan": (lambda T, x: x.max(), TIES),
    "amax_nan": (lambda T, x: x.amax(1), TIES),
    "clamp_nan_and_outside": (lambda T, x: x.clamp(0.0, 1.0), [[0.0, 1.0, nan, 0.5, -1.0, 2.0]]),
    "clamp_min_nan": (lambda T, x: x.clamp(min=0.0), [[0.0, nan, 1.0, -1.0]]),
    "clamp_tensor_bounds": (
        lambda T, x, lo, hi: x.clamp(lo, hi),
        [[0.0, 1.0, nan, 0.5, 2.0], [0.0, 0.0, 0.0, nan, 1.0], [1.0, 1.0, 1.0, 1.0, nan]],
    ),
    "sign_nan": (lambda T, x: x.sign(), [[nan, 0.0, -0.0, 1.0, -2.0]]),
    "sgn_nan": (lambda T, x: x.sgn() * x, [[nan, 0.0, -0.0, 1.0, -2.0]]),
    "abs_zero_nan": (lambda T, x: x.abs(), [[0.0, -0.0, nan, 1.0, -1.0]]),
    "sqrt_zero": (lambda T, x: x.sqrt(), [[0.0, 1.0, -1.0]]),
    "relu_nan_zero": (lambda T, x: x.relu(), [[nan, 0.0, -1.0, 2.0]]),
    "copysign_zero": (lambda T, x, y: T.copysign(x, y), [[0.0, 1.0, 2.0], [0.0, -0.0, nan]]),
    "hypot_origin": (lambda T, a, b: T.hypot(a, b), [[0.0, 1.0], [0.0, 0.0]]),
    "dist_equal": (lambda T, a, b: T.dist(a, b), [[1.0, 2.0], [1.0, 2.0]]),
    "dist_p1_equal": (lambda T, a, b: T.dist(a, b, 1), [[1.0, 2.0], [1.0, 2.0]]),
    "dist_p3_equal": (lambda T, a, b: T.dist(a, b, 3), [[1.0, 2.0], [1.0, 2.0]]),
    "cdist_equal": (
        lambda T, a, b: T.cdist(a, b),
        [[[1.0, 2.0], [0.0, 0.0]], [[1.0, 2.0], [3.0, 4.0]]],
    ),
    "cdist_p1_equal": (
        lambda T, a, b: T.cdist(a, b, 1),
        [[[1.0, 2.0], [0.0, 0.0]], [[1.0, 2.0], [3.0, 4.0]]],
    ),
    "cdist_p3_equal": (
        lambda T, a, b: T.cdist(a, b, 3),
        [[[1.0, 2.0], [0.0, 0.0]], [[1.0, 2.0], [3.0, 4.0]]],
    ),
    "std_constant": (lambda T, x: x.std(), [[1.0, 1.0, 1.0]]),
}


def _grads(T, fn, arrays, seed):
    xs = [T.tensor(a, dtype=T.float64, requires_grad=True) for a in arrays]
    out = fn(T, *xs)
    ct = np.random.default_rng(seed).standard_normal(tuple(out.shape))
    gs = T.autograd.grad(out, xs, T.tensor(ct), allow_unused=True)
    return out.detach().numpy(), [None if g is None else g.numpy() for g in gs]


def assert_same(mine, theirs):
    """Equal values, NaNs in the same places, zeros of the same sign."""
    mine, theirs = np.asarray(mine), np.asarray(theirs)
    assert mine.shape == theirs.shape
    np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=0, equal_nan=True)
    sign = ~np.isnan(theirs)
    assert (np.signbit(mine)[sign] == np.signbit(theirs)[sign]).all(), (mine, theirs)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("case", list(CASES))
def test_gradient_at_singular_point(case, seed):
    fn, arrays = CASES[case]
    (mo, mg), (to, tg) = _grads(taimatsu, fn, arrays, seed), _grads(torch, fn, arrays, seed)
    assert_same(mo, to)
    for a, b in zip(mg, tg):
        assert (a is None) == (b is None)
        if b is not None:
            assert_same(a, b)


def test_sign_of_nan_is_zero():
    x = [nan, -nan, 0.0, -3.0]
    for dt in ("float64", "float32", "float16", "bfloat16"):
        r, e = (T.tensor(x).to(getattr(T, dt)).sign() for T in (taimatsu, torch))
        assert repr(r) == repr(e)


# ---- attention with a query whose keys are all masked ------------------------------------------
def _sdpa(T, mask_kind, dtype):
    rng = np.random.default_rng(0)
    q, k, v, g = (rng.standard_normal((2, 2, 3, 4)) for _ in range(4))
    keep = np.ones((3, 3), bool)
    keep[1] = False  # query 1 sees no key
    keep[2, 0] = False
    mask = T.tensor(keep) if mask_kind == "bool" else T.tensor(np.where(keep, 0.0, -np.inf))
    xs = [T.tensor(a, dtype=getattr(T, dtype), requires_grad=True) for a in (q, k, v)]
    mask = mask if mask_kind == "bool" else mask.to(getattr(T, dtype))
    out = T.nn.functional.scaled_dot_product_attention(*xs, attn_mask=mask)
    gs = T.autograd.grad(out, xs, T.tensor(g, dtype=getattr(T, dtype)))
    return [t.detach().numpy() for t in (out, *gs)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mask_kind", ["bool", "float"])
def test_sdpa_fully_masked_row_is_zero_with_finite_gradients(mask_kind, dtype):
    mine, theirs = _sdpa(taimatsu, mask_kind, dtype), _sdpa(torch, mask_kind, dtype)
    tol = 1e-12 if dtype == "float64" else 1e-5
    for a, b in zip(mine, theirs):
        assert np.isfinite(b).all()
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    assert (mine[0][:, :, 1] == 0).all()


def _mha(T, need_weights):
    rng = np.random.default_rng(1)
    x, g = (rng.standard_normal((2, 3, 4)).astype(np.float32) for _ in range(2))
    pad = np.zeros((2, 3), bool)
    pad[1] = True  # every key of the second sequence is padding
    T.manual_seed(0)
    mha = T.nn.MultiheadAttention(4, 2, batch_first=True)
    w = np.random.default_rng(2).standard_normal((12, 4)).astype(np.float32) * 0.3
    with T.no_grad():
        mha.in_proj_weight.copy_(T.tensor(w))
        mha.out_proj.bias.fill_(0.5)
    xt = T.tensor(x, requires_grad=True)
    out, weights = mha(xt, xt, xt, key_padding_mask=T.tensor(pad), need_weights=need_weights)
    (gx,) = T.autograd.grad(out, xt, T.tensor(g))
    return out.detach().numpy(), None if weights is None else weights.detach().numpy(), gx.numpy()


@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_all_keys_padded(need_weights):
    for a, b in zip(_mha(taimatsu, need_weights), _mha(torch, need_weights)):
        if b is None:
            assert a is None
            continue
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)
