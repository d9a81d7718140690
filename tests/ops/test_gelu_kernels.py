"""oneDNN's GELU (erf form) kernels of ``backend/float32_math/gelu.py`` against PyTorch.

The kernels run a float32 array a cache-sized block at a time in per-thread buffers kept across
calls, split over two threads for large arrays: the bits must not depend on the block an element
falls in, on the thread, or on what an earlier call left in the buffers. The CPU path (AVX-512
minimax polynomials or AVX2 Abramowitz-Stegun) is this machine's, or the one
``ONEDNN_MAX_CPU_ISA=AVX2`` selects (set before PyTorch is imported, as PyTorch reads it then).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import taimatsu
from taimatsu.backend import parallel
from taimatsu.backend.float32_math import gelu as kernels


def _same(want, got):
    return (want.view(np.int32) == got.view(np.int32)) | (np.isnan(want) & np.isnan(got))


def _oracle_gelu(torch, x):
    return torch.nn.functional.gelu(torch.from_numpy(x.copy())).numpy()


def _gelu(x):
    return taimatsu.nn.functional.gelu(taimatsu.from_numpy(x.copy())).numpy()


def test_gelu_bits_over_all_float32_patterns(torch_oracle):
    # every 4093rd bit pattern of float32 (~1M values: every binade, both signs, subnormals,
    # inf, NaN), one tensor: the blocks and, where allowed, two threads
    bits = np.arange(0, 1 << 32, 4093, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    same = _same(_oracle_gelu(torch_oracle, x), _gelu(x))
    assert same.all(), x[~same][:10]


@pytest.mark.parametrize(
    "size", [2, 100, kernels.BLOCK - 1, kernels.BLOCK + 1, 3 * kernels.BLOCK + 7]
)
def test_gelu_bits_at_block_edges(torch_oracle, size):
    # sizes around the block: partial blocks use views of the kept buffers; a small call after a
    # large one must not read what the large one left there
    rng = np.random.default_rng(size)
    for scale in (0.5, 3.0):
        x = (rng.standard_normal(size) * scale).astype(np.float32)
        same = _same(_oracle_gelu(torch_oracle, x), _gelu(x))
        assert same.all(), (size, scale, x[~same][:5])


def test_gelu_bits_on_two_threads_and_a_helper_thread(torch_oracle, monkeypatch):
    # halves splits the blocks over the calling thread and the pool's thread (forced here);
    # a call from another thread uses that thread's own buffers
    x = (np.random.default_rng(3).standard_normal(5 * kernels.BLOCK + 3) * 2).astype(np.float32)
    want = _oracle_gelu(torch_oracle, x)
    monkeypatch.setattr(parallel, "_second_core", lambda: True)
    monkeypatch.setattr(parallel, "MIN_WORK", 0)
    assert _same(want, kernels.gelu_erf(x)).all()
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(kernels.gelu_erf, [x, x[7:], x[: kernels.BLOCK // 3]]))
    assert _same(want, results[0]).all()
    assert _same(want[7:], results[1]).all()
    assert _same(want[: kernels.BLOCK // 3], results[2]).all()


@pytest.mark.skipif(kernels.uses_avx512(), reason="oneDNN's backward is replayed on AVX2 only")
def test_gelu_derivative_bits_over_all_float32_patterns(torch_oracle):
    # the AVX2 forward's companion derivative (oneDNN's backward kernel): a cotangent of ones
    # leaves the derivative itself
    x = np.arange(0, 1 << 32, 4093, dtype=np.uint64).astype(np.uint32).view(np.float32)
    grads = []
    for T in (torch_oracle, taimatsu):
        t = T.from_numpy(x.copy()).requires_grad_(True)
        (grad,) = T.autograd.grad(T.nn.functional.gelu(t), t, T.ones_like(t))
        grads.append(grad.numpy())
    same = _same(*grads)
    assert same.all(), x[~same][:10]


# ---- the backward: blockwise, into the incoming gradient when only the engine holds it --------
def _gelu_backward_inputs(size):
    rng = np.random.default_rng(size)
    x = (rng.standard_normal(size) * 3).astype(np.float32)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -3e38, 1e-20]  # out / x not finite
    return x, rng.standard_normal(size).astype(np.float32)


def test_gelu_backward_blocks_on_two_threads(torch_oracle, monkeypatch):
    # blocks (a partial last one) on the pool's thread and this one: the whole-array formula's
    # bits, and PyTorch's gradient within float32 rounding
    from taimatsu.ops.nn import activation

    x, g = _gelu_backward_inputs(3 * kernels.block_buffers(np.float32)[0].size + 5)
    monkeypatch.setattr(parallel, "_second_core", lambda: True)
    monkeypatch.setattr(parallel, "MIN_WORK", 0)
    t = taimatsu.from_numpy(x.copy()).requires_grad_(True)
    (got,) = taimatsu.autograd.grad(taimatsu.nn.functional.gelu(t), t, taimatsu.from_numpy(g))
    got = got.numpy()
    out = kernels.gelu_erf(x)
    # on AVX2 the derivative is oneDNN's, computed with the forward
    avx2 = None if kernels.uses_avx512() else kernels.gelu_abramowitz_stegun_with_derivative(x)[1]
    with np.errstate(all="ignore"):
        whole = g * activation._gelu_array_deriv(np, x, out, "none", avx2)
    assert _same(whole, got).all()
    o = torch_oracle.from_numpy(x.copy()).requires_grad_(True)
    gelu = torch_oracle.nn.functional.gelu(o)
    (want,) = torch_oracle.autograd.grad(gelu, o, torch_oracle.from_numpy(g))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


def test_gelu_backward_writes_into_an_unshared_gradient(torch_oracle):
    rng = np.random.default_rng(0)
    xs = (rng.standard_normal((4, 8, 32)) * 2).astype(np.float32)
    w = rng.standard_normal((16, 32)).astype(np.float32)

    def run(T, seen=None, keep=None, gradient=None, node_hook=None):
        x = T.from_numpy(xs.copy()).requires_grad_(True)
        y = T.nn.functional.gelu(x)
        if seen is not None:  # keeps only the addresses: the engine still owns the gradients
            y.register_hook(lambda g: seen.append(g.data_ptr()))
            x.register_hook(lambda g: seen.append(g.data_ptr()))
        if keep is not None:  # keeps the gradient itself
            y.register_hook(keep.append)
        if node_hook is not None:
            y.grad_fn.register_hook(node_hook)
        if gradient is None:  # a Linear's input gradient: a view of its matmul's result
            T.nn.functional.linear(y, T.from_numpy(w)).sum().backward()
        else:
            y.backward(gradient)
        return x.grad.numpy()

    want = run(torch_oracle)
    seen = []
    got = run(taimatsu, seen=seen)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert seen[0] == seen[1]  # written into the incoming gradient
    # where someone else holds the gradient, it is left as it was
    kept = []
    np.testing.assert_allclose(run(taimatsu, keep=kept), want, rtol=1e-5, atol=1e-6)
    # (the Linear's input gradient ones @ w: BLAS sums w's rows in its kernel's order, which
    # need not be NumPy's sum's; GELU's factors, had they been written in, are far off)
    np.testing.assert_allclose(
        kept[0].numpy(), np.broadcast_to(w.sum(0), xs.shape), rtol=1e-5, atol=1e-5
    )
    g = rng.standard_normal(xs.shape).astype(np.float32)
    user = taimatsu.from_numpy(g.copy())
    got = run(taimatsu, gradient=user)
    np.testing.assert_array_equal(user.numpy(), g)
    want = run(torch_oracle, gradient=torch_oracle.from_numpy(g.copy()))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    outputs = []
    run(taimatsu, node_hook=lambda gin, gout: outputs.append(gout[0].numpy().copy()))
    np.testing.assert_allclose(
        outputs[0], np.broadcast_to(w.sum(0), xs.shape), rtol=1e-5, atol=1e-5
    )
