"""clip_grad_norm_'s array path (dense float32/float64 NumPy gradients of one dtype): the same
bits as the Tensor-op formula, PyTorch's values, and one version bump per gradient."""

import numpy as np
import pytest

import taimatsu as tm

SHAPES = [(7, 5), (5,), (3, 4, 2), (1,), (0, 3)]


def _grads(lib, dtype, scale):
    rng = np.random.default_rng(11)
    ps = []
    for s in SHAPES:
        p = lib.zeros(s, dtype=getattr(lib, dtype), requires_grad=True)
        p.grad = lib.tensor((rng.standard_normal(s) * scale).astype(dtype))
        ps.append(p)
    return ps


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("max_norm", [0.3, 1e6])
def test_clip_grad_norm_matches_oracle_and_tensor_ops(torch_oracle, dtype, max_norm):
    torch = torch_oracle
    ps, qs = _grads(tm, dtype, 3.0), _grads(torch, dtype, 3.0)
    before = [p.grad.clone() for p in ps]
    versions = [p.grad._version for p in ps]
    total = tm.nn.utils.clip_grad_norm_(ps, max_norm)
    ref = torch.nn.utils.clip_grad_norm_(qs, max_norm)
    tol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(total.numpy(), ref.numpy(), rtol=tol)
    assert total.dtype == getattr(tm, dtype) and total.shape == ()
    for p, q in zip(ps, qs):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=tol, atol=tol)
    # the Tensor-op formula gives the same bits
    norm = tm.linalg.vector_norm
    expect = norm(tm.stack([norm(g) for g in before]))
    assert expect.numpy().tobytes() == total.numpy().tobytes()
    coef = (max_norm / (expect + 1e-6)).clamp(max=1.0)
    for p, g, v in zip(ps, before, versions):
        assert (g * coef).numpy().tobytes() == p.grad.numpy().tobytes()
        assert p.grad._version == v + 1


def test_clip_grad_norm_mixed_dtypes_and_nonfinite(torch_oracle):
    torch = torch_oracle
    res = []
    for lib in (torch, tm):
        a = lib.zeros(3, requires_grad=True)
        b = lib.zeros(2, dtype=lib.float64, requires_grad=True)
        a.grad, b.grad = lib.tensor([3.0, 4.0, 12.0]), lib.tensor([1.0, 2.0], dtype=lib.float64)
        total = lib.nn.utils.clip_grad_norm_([a, b], 1.0)
        res.append([total.numpy(), a.grad.numpy(), b.grad.numpy()])
    for x, y in zip(res[1], res[0]):
        np.testing.assert_allclose(x, y, rtol=1e-6)
        assert x.dtype == y.dtype
    res = []
    for lib in (torch, tm):
        p = lib.zeros(2, requires_grad=True)
        p.grad = lib.tensor([float("inf"), 1.0])
        with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
            lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
        res.append([lib.nn.utils.clip_grad_norm_([p], 1.0).numpy(), p.grad.numpy()])
    for x, y in zip(res[1], res[0]):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grad_norm_bits_over_many_sizes(torch_oracle, dtype):
    # a model's worth of gradients: lengths that fall into several padded blocks of
    # vector_norm.dense_norms, vector tails, a transposed (F-contiguous) and a strided gradient
    torch = torch_oracle
    rng = np.random.default_rng(5)
    shapes = [(512, 64), (384, 64), (4160,), (64, 64), (64, 63), (256,), (192,), (64,), (64,)]
    shapes += [(13,), (3,), (37, 5), (1000,)]
    arrays = [(rng.standard_normal(s) * 10.0 ** rng.uniform(-3, 3)).astype(dtype) for s in shapes]
    arrays.append(np.asfortranarray(arrays[4]))
    totals = []
    for lib in (tm, torch):
        grads = [lib.from_numpy(a.copy(order="K")) for a in arrays + [arrays[0]]]
        grads[-1] = grads[-1][::2, ::3]  # a strided gradient
        ps = []
        for g in grads:
            p = lib.zeros(g.shape, dtype=getattr(lib, dtype), requires_grad=True)
            p.grad = g
            ps.append(p)
        totals.append(lib.nn.utils.clip_grad_norm_(ps, 1.0).numpy().tobytes())
    assert totals[0] == totals[1]
