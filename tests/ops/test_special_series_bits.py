"""PyTorch's own series for special functions, replayed in the input's arithmetic
(``backend/polygamma.py``, ``backend/bessel_i.py``), against PyTorch bit for bit: digamma and
trigamma (the shift to large x, the asymptotic series with fused multiply-adds, glibc's log and
sin, the reflection for negative x), i0/i0e/i1/i1e (Cephes's Chebyshev series with fused
Clenshaw steps and the C library's exp) and kaiser_window, for float32 and float64 over every
range, the special values and the half types; torch.special.psi and polygamma(0, x) are digamma."""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")


GAMMA_SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -2.0, -100.0, 1.0, 2.0, 9.0, 10.0, 0.5, -0.5,
           1e-30, -1e-30, 1e-45, 1e17, 3e38, -3e38, 5e-324]  # fmt: skip


def _gamma_parts(dtype):
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
        np.array(GAMMA_SPECIAL),
    ]
    with np.errstate(over="ignore"):
        return [p.astype(dtype) for p in parts]


def _inputs(dtype):
    return np.concatenate(_gamma_parts(dtype))


def _same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    both_nan = np.isnan(a) & np.isnan(b)
    differ = (a.view(np.uint8).reshape(a.size, -1) != b.view(np.uint8).reshape(b.size, -1)).any(1)
    bad = np.flatnonzero(differ & ~both_nan.reshape(-1))
    assert bad.size == 0, f"{bad.size} elements differ, e.g. at {bad[:5]}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_digamma_bits(dtype):
    for x in _gamma_parts(dtype):
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
    for x in _gamma_parts(dtype):
        ours = tm.polygamma(1, tm.from_numpy(x)).numpy()
        _same_bits(ours, torch.polygamma(1, torch.from_numpy(x)).numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_trigamma_half_types(dtype):
    x = _inputs(np.float32)[::20].copy()
    ours = tm.polygamma(1, tm.from_numpy(x).to(getattr(tm, dtype))).float().numpy()
    theirs = torch.polygamma(1, torch.from_numpy(x).to(getattr(torch, dtype))).float().numpy()
    _same_bits(ours, theirs)


FUNCTIONS = ["i0", "special.i0e", "special.i1", "special.i1e"]
BESSEL_SPECIAL = [0.0, -0.0, 8.0, -8.0, np.inf, -np.inf, np.nan, 1e-40, 88.0, 89.0, 710.0, -710.0]


def _get(M, name):
    for part in name.split("."):
        M = getattr(M, part)
    return M


def _bessel_parts(dtype):
    rs = np.random.RandomState(0)
    parts = [rs.uniform(-8, 8, 20000), rs.uniform(-90, 90, 20000), rs.uniform(-800, 800, 5000),
             np.array(BESSEL_SPECIAL)]  # fmt: skip
    return [p.astype(dtype) for p in parts]


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bessel_i_bits(name, dtype):
    for x in _bessel_parts(dtype):
        ours = _get(tm, name)(tm.from_numpy(x)).numpy()
        _same_bits(ours, _get(torch, name)(torch.from_numpy(x)).numpy())


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_bessel_i_half_types(name, dtype):
    """Whole vectors only (a multiple of 64 elements): PyTorch's scalar tail computes i0e in
    the half type's arithmetic, its vector loop in float32."""
    x = np.concatenate(_bessel_parts(np.float32))[::40][:1088].copy()
    ours = _get(tm, name)(tm.from_numpy(x).to(getattr(tm, dtype))).float().numpy()
    theirs = _get(torch, name)(torch.from_numpy(x).to(getattr(torch, dtype))).float().numpy()
    _same_bits(ours, theirs)


@pytest.mark.parametrize("n, periodic, beta", [(5, False, 8.0), (16, True, 12.0), (101, False, 4.0),
                                               (1000, True, 7.5), (4097, False, 30.0)])  # fmt: skip
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_kaiser_window_bits(n, periodic, beta, dtype):
    ours = tm.kaiser_window(n, periodic=periodic, beta=beta, dtype=getattr(tm, dtype))
    theirs = torch.kaiser_window(n, periodic=periodic, beta=beta, dtype=getattr(torch, dtype))
    _same_bits(ours.float().numpy(), theirs.float().numpy())


@pytest.mark.parametrize("name", FUNCTIONS)
def test_bessel_i_gradients(name):
    x = np.random.RandomState(1).uniform(-12, 12, 40)
    res = []
    for M in (tm, torch):
        t = M.tensor(x, requires_grad=True)
        (g,) = M.autograd.grad(_get(M, name)(t).sum(), t)
        res.append(g.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_sinc_bits(dtype):
    """sinc: sin(pi x) / (pi x) with pi x in the input's dtype and the C library's sin."""
    rs = np.random.RandomState(2)
    x = np.concatenate([rs.uniform(-30, 30, 20000), [0.0, -0.0, 1.0, -2.0, 0.5, 1e-30, np.inf,
                                                     np.nan, 1e6]])  # fmt: skip
    ours = tm.sinc(tm.from_numpy(x).to(getattr(tm, dtype))).double().numpy()
    theirs = torch.sinc(torch.from_numpy(x).to(getattr(torch, dtype))).double().numpy()
    _same_bits(ours, theirs)


def test_sinc_complex_and_gradient():
    z = np.array([0.5 + 0.25j, -1.5 + 2j, 0j])
    np.testing.assert_allclose(tm.sinc(tm.tensor(z)).numpy(), torch.sinc(torch.tensor(z)).numpy(),
                               rtol=1e-12)  # fmt: skip
    x = np.array([0.0, 0.3, -2.5, 7.1])
    res = []
    for M in (tm, torch):
        t = M.tensor(x, requires_grad=True)
        (g,) = M.autograd.grad(M.sinc(t).sum(), t)
        res.append(g.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12, atol=1e-15)


def _lgamma_inputs(dtype=np.float32):
    rs = np.random.RandomState(3)
    top = 80 if dtype == np.float32 else 700  # exp(top): past the dtype's largest value
    parts = [rs.uniform(0, 3, 20000), rs.uniform(3, 300, 20000), rs.uniform(-25, 0, 20000),
             np.exp(rs.uniform(0, top, 10000)), np.exp(rs.uniform(-top, 0, 10000)),
             -np.exp(rs.uniform(0, 30, 10000)),
             [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -2.0, 1.0, 2.0, 1e-45, 0.5, 1.1, 1.2, 2.3, 7.0,
              -0.5, 3e38, -3e38, 1e-306, 5e-324, 1.7e308]]  # fmt: skip
    with np.errstate(over="ignore"):
        return np.concatenate(parts).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_lgamma_bits(dtype):
    """lgamma: SLEEF's lgamma_u1 / lgammaf_u1 (PyTorch's vector loop for every element), its
    polynomials as FMAs and its double-float / double-double steps as SLEEF orders them."""
    x = _lgamma_inputs(np.float64 if dtype == "float64" else np.float32)
    ours = tm.lgamma(tm.from_numpy(x).to(getattr(tm, dtype))).double().numpy()
    theirs = torch.lgamma(torch.from_numpy(x).to(getattr(torch, dtype))).double().numpy()
    _same_bits(ours, theirs)


def test_lgamma_strided_and_method():
    x = _lgamma_inputs()[:20000].reshape(100, 200)
    ours = tm.from_numpy(x).t().lgamma().numpy()
    _same_bits(ours, torch.from_numpy(x).t().lgamma().numpy())
    t = tm.from_numpy(x.copy())
    t.lgamma_()
    _same_bits(t.numpy(), torch.from_numpy(x.copy()).lgamma_().numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_mvlgamma_bits(dtype, p):
    """mvlgamma as PyTorch's composite computes it: lgamma of x + (-(p-1)/2, ..., 0), summed
    over that axis, plus the constant, each step in the dtype."""
    x = np.random.RandomState(p).uniform(0, 20, (50, 7)) + (p - 1) / 2 + 0.01
    ours = tm.mvlgamma(tm.tensor(x).to(getattr(tm, dtype)), p).double().numpy()
    theirs = torch.mvlgamma(torch.tensor(x).to(getattr(torch, dtype)), p).double().numpy()
    _same_bits(ours, theirs)
