"""i0, special.i0e, special.i1 and special.i1e against PyTorch bit for bit: Cephes's Chebyshev
series in the input's arithmetic with fused Clenshaw steps and the C library's exp, for float32
and float64 on both sides of |x| = 8, the special values and the half types; and kaiser_window,
built on i0."""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")

FUNCTIONS = ["i0", "special.i0e", "special.i1", "special.i1e"]
SPECIAL = [0.0, -0.0, 8.0, -8.0, np.inf, -np.inf, np.nan, 1e-40, 88.0, 89.0, 710.0, -710.0]


def _get(M, name):
    for part in name.split("."):
        M = getattr(M, part)
    return M


def _parts(dtype):
    rs = np.random.RandomState(0)
    parts = [rs.uniform(-8, 8, 20000), rs.uniform(-90, 90, 20000), rs.uniform(-800, 800, 5000),
             np.array(SPECIAL)]  # fmt: skip
    return [p.astype(dtype) for p in parts]


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    differ = (a.view(np.uint8).reshape(a.size, -1) != b.view(np.uint8).reshape(b.size, -1)).any(1)
    bad = np.flatnonzero(differ & ~(np.isnan(a) & np.isnan(b)).reshape(-1))
    assert bad.size == 0, f"{bad.size} elements differ, e.g. at {bad[:5]}"


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bessel_i_bits(name, dtype):
    for x in _parts(dtype):
        ours = _get(tm, name)(tm.from_numpy(x)).numpy()
        _same_bits(ours, _get(torch, name)(torch.from_numpy(x)).numpy())


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_bessel_i_half_types(name, dtype):
    """Whole vectors only (a multiple of 64 elements): PyTorch's scalar tail computes i0e in
    the half type's arithmetic, its vector loop in float32."""
    x = np.concatenate(_parts(np.float32))[::40][:1088].copy()
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
