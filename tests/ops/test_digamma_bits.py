"""digamma against PyTorch bit for bit: ATen's scalar algorithm in the input's arithmetic (the
shift to x >= 10, the asymptotic series with fused multiply-adds, glibc's log, the reflection
for negative x), for float32 and float64 over every range, the special values, and the half
types (computed in float32); torch.special.psi and polygamma(0, x) are the same op."""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -2.0, -100.0, 1.0, 2.0, 9.0, 10.0, 0.5, -0.5,
           1e-30, -1e-30, 1e-45, 1e17, 3e38, -3e38, 5e-324]  # fmt: skip


def _parts(dtype):
    """Inputs by range, each part short enough for the C library's float64 functions to be
    called element by element (``polygamma._CALLS_BELOW``)."""
    rs = np.random.RandomState(0)
    parts = [
        rs.uniform(0, 3, 20000),
        rs.uniform(3, 30, 20000),
        np.exp(rs.uniform(0, 45, 20000)),
        rs.uniform(-25, 0, 20000),
        -np.exp(rs.uniform(-40, 20, 5000)),
        np.exp(rs.uniform(-90, 0, 5000)),
        np.array(SPECIAL),
    ]
    with np.errstate(over="ignore"):
        return [p.astype(dtype) for p in parts]


def _inputs(dtype):
    return np.concatenate(_parts(dtype))


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    both_nan = np.isnan(a) & np.isnan(b)
    differ = (a.view(np.uint8).reshape(a.size, -1) != b.view(np.uint8).reshape(b.size, -1)).any(1)
    bad = np.flatnonzero(differ & ~both_nan.reshape(-1))
    assert bad.size == 0, f"{bad.size} elements differ, e.g. at {bad[:5]}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_digamma_bits(dtype):
    for x in _parts(dtype):
        ours = tm.digamma(tm.from_numpy(x)).numpy()
        _same_bits(ours, torch.digamma(torch.from_numpy(x)).numpy())


@pytest.mark.parametrize("fn", ["psi", "polygamma0", "method", "inplace"])
def test_digamma_spellings(fn):
    x = _inputs(np.float32)[::50].copy()

    def run(M):
        t = M.from_numpy(x.copy())
        if fn == "psi":
            return M.special.psi(t)
        if fn == "polygamma0":
            return M.polygamma(0, t)
        if fn == "method":
            return t.digamma()
        return t.digamma_()

    _same_bits(run(tm).numpy(), run(torch).numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_digamma_half_types(dtype):
    x = _inputs(np.float32)[::20].copy()
    ours = tm.from_numpy(x).to(getattr(tm, dtype)).digamma().float().numpy()
    theirs = torch.from_numpy(x).to(getattr(torch, dtype)).digamma().float().numpy()
    _same_bits(ours, theirs)


def test_digamma_gradient_is_trigamma():
    x = np.random.RandomState(1).uniform(0.1, 5, 50)
    res = []
    for M in (tm, torch):
        t = M.tensor(x, requires_grad=True)
        (g,) = M.autograd.grad(M.digamma(t).sum(), t)
        res.append(g.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trigamma_bits(dtype):
    """polygamma(1, x): ATen's trigamma (reflection below 0.5, six recurrence steps, a series
    with fused multiply-adds, the C library's sin)."""
    for x in _parts(dtype):
        ours = tm.polygamma(1, tm.from_numpy(x)).numpy()
        _same_bits(ours, torch.polygamma(1, torch.from_numpy(x)).numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_trigamma_half_types(dtype):
    x = _inputs(np.float32)[::20].copy()
    ours = tm.polygamma(1, tm.from_numpy(x).to(getattr(tm, dtype))).float().numpy()
    theirs = torch.polygamma(1, torch.from_numpy(x).to(getattr(torch, dtype))).float().numpy()
    _same_bits(ours, theirs)
