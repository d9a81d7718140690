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
