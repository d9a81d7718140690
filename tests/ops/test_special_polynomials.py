"""torch.special's orthogonal polynomials against PyTorch: a grid of x (the interval's ends and
inside, outside, infinities) by degrees (negative, low, the trigonometric range, high), float32
and float64, broadcasting and Python numbers, float degrees, out=, no grad, dtype errors."""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu as T

torch = pytest.importorskip("torch")

NAMES = [
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p",
]  # fmt: skip
XS = [
    -np.inf,
    -3,
    -1.5,
    -1,
    -0.999,
    -0.7,
    -0.5,
    -0.1,
    0,
    1e-7,
    0.1,
    0.3,
    0.5,
    0.75,
    0.9999,
    1,
    1.0001,
    1.5,
    4,
    np.inf,
]
NS = [-3, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 20, 50, 129, 600]


def _close(a, b, dtype):
    """Equal, or within float rounding: PyTorch's compiled recurrence may fuse a multiply-add,
    and values near 0 come out of cancellations (so the tolerance scales with the largest)."""
    assert a.shape == b.shape and a.dtype == b.dtype
    tol = 1e-5 if dtype == "float32" else 1e-12
    finite = np.isfinite(b)
    scale = max(1.0, float(np.abs(b[finite]).max(initial=0)))
    ok = (a == b) | (np.isnan(a) & np.isnan(b)) | np.isclose(a, b, rtol=tol, atol=tol * scale)
    # a float32 Hermite value that overflows on the last step in PyTorch may overflow one step
    # earlier here (its fused rounding), and the next step's inf - inf is NaN
    ok |= np.isnan(a) & np.isinf(b)
    assert ok.all(), [(i, a[i], b[i]) for i in zip(*np.where(~ok))][:5]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_grid(name, dtype):
    X, N = np.meshgrid(np.array(XS, dtype), np.array(NS))
    ours = getattr(T.special, name)(T.tensor(X), T.tensor(N))
    theirs = getattr(torch.special, name)(torch.tensor(X), torch.tensor(N))
    _close(ours.numpy(), theirs.numpy(), dtype)
    assert not ours.requires_grad


@pytest.mark.parametrize("name", NAMES)
def test_broadcasting_numbers_and_float_degrees(name):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.2, 1.2, (3, 1, 5))
    n = np.array([[0.0], [2.7], [-0.5], [7.9], [np.nan], [np.inf], [11.0]])
    cases = [
        lambda M: getattr(M.special, name)(M.tensor(x), M.tensor(n)),
        lambda M: getattr(M.special, name)(M.tensor(x, dtype=M.float32), 9),
        lambda M: getattr(M.special, name)(0.3, M.tensor([0, 3, 12])),
        lambda M: getattr(M.special, name)(M.tensor([1, 2, -1]), 3),
        lambda M: getattr(M.special, name)(M.tensor(x), M.tensor(n, dtype=M.float32)),
    ]
    for case in cases:
        ours, theirs = case(T), case(torch)
        assert str(ours.dtype) == str(theirs.dtype)
        _close(ours.numpy(), theirs.numpy(), str(theirs.dtype).split(".")[1])


def test_out_and_requires_grad():
    x = T.linspace(-1, 1, 7, requires_grad=True)
    out = T.empty(7)
    r = T.special.legendre_polynomial_p(x, 4, out=out)
    assert r is out and not r.requires_grad
    want = torch.special.legendre_polynomial_p(torch.linspace(-1, 1, 7), 4)
    _close(out.numpy(), want.numpy(), "float32")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "complex64"])
@pytest.mark.parametrize(
    "name", ["chebyshev_polynomial_t", "hermite_polynomial_he", "legendre_polynomial_p"]
)
def test_dtype_errors(name, dtype):
    with pytest.raises(Exception) as theirs:
        getattr(torch.special, name)(torch.ones(2, dtype=getattr(torch, dtype)), 2)
    with pytest.raises(Exception) as ours:
        getattr(T.special, name)(T.ones(2, dtype=getattr(T, dtype)), 2)
    assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)


def test_out_that_requires_grad():
    """PyTorch writes into an ``out`` that requires grad (the result has no history)."""
    results = []
    for M in (T, torch):
        out = M.empty(3, requires_grad=True)
        r = M.special.chebyshev_polynomial_t(M.tensor([0.5, 1.0, 2.0]), 3, out=out)
        assert r is out
        results.append((r.requires_grad, r.detach().numpy()))
    assert results[0][0] == results[1][0]
    _close(results[0][1], results[1][1], "float32")
