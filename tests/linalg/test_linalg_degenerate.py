"""Degenerate systems against PyTorch: empty and rank-deficient least squares per driver, the
backward of a singular LU factorization, and p = 0 distances' gradients. (Found by the first run
on a GPU, tests/cuda/verify_on_gpu.py, where they differed on the CPU path too.)"""

import numpy as np
import pytest

import taimatsu


def _run(T, fn):
    try:
        return fn(T), None
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return None, e


def _check(torch, fn):
    want, want_e = _run(torch, fn)
    got, got_e = _run(taimatsu, fn)
    if want_e is not None:
        assert got_e is not None, f"PyTorch raised {want_e!r}, taimatsu gave {got!r}"
        assert type(got_e).__name__ == type(want_e).__name__
        assert str(got_e) == str(want_e)
        return
    assert got_e is None, got_e
    for a, b in zip(want, got):
        if a is None:
            assert b is None
            continue
        assert tuple(b.shape) == tuple(a.shape)
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6, atol=1e-9, equal_nan=True)


def _system(T, m, n, k=2, batch=()):
    rng = np.random.default_rng(m * 10 + n)
    a = T.tensor(rng.standard_normal((*batch, m, n)))
    return a, T.tensor(rng.standard_normal((*batch, m, k)))


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize(("m", "n"), [(3, 0), (0, 3), (0, 0)])
def test_lstsq_of_empty_systems(driver, m, n, torch_oracle):
    _check(torch_oracle, lambda T: tuple(T.linalg.lstsq(*_system(T, m, n), driver=driver)))


@pytest.mark.parametrize("batch", [(), (2,), (3,)])
def test_lstsq_gels_refuses_rank_deficient(batch, torch_oracle):
    def fn(T):
        a, b = _system(T, 3, 2, 1, batch)
        a[..., -1, :, 1] = 2 * a[..., -1, :, 0]  # the last matrix of rank 1
        return tuple(T.linalg.lstsq(a, b, driver="gels"))

    _check(torch_oracle, fn)


def test_lu_factor_backward_of_a_singular_matrix_is_nan(torch_oracle):
    def fn(T):
        a = T.tensor([[1.0, 2.0], [2.0, 4.0]], requires_grad=True)
        lu, _, _ = T.linalg.lu_factor_ex(a)
        return T.autograd.grad(lu.sum(), a)

    _check(torch_oracle, fn)


@pytest.mark.parametrize("shape", [(3, 3), (3, 4), (4, 3)])
def test_lu_factor_backward(shape, torch_oracle):
    def fn(T):
        a, _ = _system(T, *shape)
        a.requires_grad_()
        lu, _ = T.linalg.lu_factor(a)
        g = T.tensor(np.random.default_rng(7).standard_normal(shape))
        return T.autograd.grad(lu, a, g)

    _check(torch_oracle, fn)


@pytest.mark.parametrize("which", ["input", "other", "both"])
def test_dist_p0_backward(which, torch_oracle):
    def fn(T):
        a, b = T.tensor([1.0, 2.0, 3.0]), T.tensor([1.0, 0.0, 4.0])
        a.requires_grad_(which != "other")
        b.requires_grad_(which != "input")
        T.dist(a, b, 0).backward()
        return a.grad, b.grad

    _check(torch_oracle, fn)


def test_cdist_p0_gradients_are_zero(torch_oracle):
    def fn(T):
        a, b = _system(T, 2, 3)
        a, b = a.requires_grad_(), b[:, :1].T.contiguous().requires_grad_()
        return T.autograd.grad(T.cdist(a, b.expand(4, 3), p=0.0).sum(), (a, b))

    _check(torch_oracle, fn)
