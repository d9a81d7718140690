"""Gradients of many slices of one tensor: one full-size buffer in all, not one per slice.

The engine sums the gradients of select / slice / narrow / diagonal views of one tensor into one
buffer in place (engine.PartialGrad, engine._Acc). These tests check the gradients against
PyTorch (random cotangents, every path a gradient can take through the engine: hooks,
retain_grad, autograd.grad captures, create_graph) and bound the memory the backward allocates.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _pair(shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    return (taimatsu.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True))


def _loss(T, x, w):
    """Many overlapping views of ``x``, each weighted by a random cotangent slice of ``w``."""
    s = 0
    for t in range(x.shape[1]):
        s = s + (x[:, t] * w[:, t]).sum()  # select
        s = s + (x[1:, t, 1:].sin() * w[1:, t, 1:]).sum()  # select of a slice
        s = s + (x.narrow(1, t, 1) * w.narrow(1, t, 1)).sum()  # narrow
        s = s + (x[:, t][::2] ** 2).sum()  # slice of a select
    return s + x.diagonal(0, 0, 1).exp().sum()


def _backward_peak(loss) -> int:
    """Bytes allocated at the peak of ``loss.backward()`` beyond what was allocated before it."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        loss.backward()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def test_many_slices_match_pytorch_both_dtypes():
    for dt_t, dt_o in ((taimatsu.float32, torch.float32), (taimatsu.float64, torch.float64)):
        x, xo = _pair((5, 7, 3))
        w, wo = _pair((5, 7, 3), seed=1)
        x, xo = x.detach().to(dt_t).requires_grad_(), xo.detach().to(dt_o).requires_grad_()
        w, wo = w.detach().to(dt_t), wo.detach().to(dt_o)
        _loss(taimatsu, x, w).backward()
        _loss(torch, xo, wo).backward()
        tol = 1e-5 if dt_t is taimatsu.float32 else 1e-12
        np.testing.assert_allclose(x.grad.numpy(), xo.grad.numpy(), rtol=tol, atol=tol)
        assert x.grad.dtype == dt_t


def test_second_backward_accumulates_into_grad():
    x, xo = _pair((4, 6, 3))
    w, wo = _pair((4, 6, 3), seed=2)
    for _ in range(2):
        _loss(taimatsu, x, w).backward()
        _loss(torch, xo, wo).backward()
    np.testing.assert_allclose(x.grad.numpy(), xo.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_slices_of_an_intermediate_with_hooks_retain_grad_and_capture():
    x, xo = _pair((4, 5))
    w, wo = _pair((4, 5), seed=3)
    seen = {}

    def run(T, x, w, key):
        y = x * 2  # a non-leaf: its gradient is summed from the slices, then flows on
        y.retain_grad()
        y.register_hook(lambda g: seen.setdefault(key, g.clone()))
        views = [y[:, t] for t in range(5)]
        views[2].register_hook(lambda g: g * 3)  # a hook on one view sees a dense gradient
        s = sum((v * w[:, t]).sum() for t, v in enumerate(views))
        (gy,) = T.autograd.grad(s, [y], retain_graph=True)
        s.backward()
        return y, gy

    y, gy = run(taimatsu, x, w, "ta")
    yo, gyo = run(torch, xo, wo, "to")
    for a, b in ((gy, gyo), (y.grad, yo.grad), (x.grad, xo.grad), (seen["ta"], seen["to"])):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_create_graph_through_slices_gives_pytorch_double_backward():
    x, xo = _pair((3, 4))
    v, vo = _pair((3, 4), seed=4)

    def run(T, x, v):
        s = sum((x[:, t] ** 3).sum() + (x[1:, t].sin()).sum() for t in range(4))
        (g,) = T.autograd.grad(s, x, create_graph=True)
        (gg,) = T.autograd.grad((g * v).sum(), x)
        return g, gg

    g, gg = run(taimatsu, x, v)
    go, ggo = run(torch, xo, vo)
    np.testing.assert_allclose(g.detach().numpy(), go.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(gg.numpy(), ggo.numpy(), rtol=1e-12)


def test_backward_of_many_slices_allocates_one_full_buffer():
    # 64 rows of 32 KiB: the gradient of x is 2 MiB. One full-size zero tensor per slice, summed
    # out of place, peaks at three of them (two addends and the sum); the engine must hold one.
    steps, width = 64, 4096
    x = taimatsu.randn(steps, width, dtype=taimatsu.float64, requires_grad=True)
    w = taimatsu.randn(steps, width, dtype=taimatsu.float64)
    loss = sum((x[t] * w[t]).sum() for t in range(steps))
    full = x.numel() * 8
    peak = _backward_peak(loss)
    assert peak < 1.5 * full, (peak, full)
    np.testing.assert_array_equal(x.grad.numpy(), w.numpy())


def test_three_sparse_gradients_summed_by_the_engine_stay_pytorchs():
    # The engine's in-place sums are for plain dense tensors; a sparse one sums by its own rules.
    grads = []
    for lib in (taimatsu, torch):
        lib.manual_seed(0)
        e = lib.nn.Embedding(6, 3, sparse=True)
        i = lib.tensor([1, 2, 1])
        (e(i).sum() + 2 * e(i[:2]).sum() + e(lib.tensor([4])).sum()).backward()
        grads.append((e.weight.grad.is_sparse, e.weight.grad.to_dense().numpy()))
    assert grads[0][0] and grads[1][0]
    np.testing.assert_allclose(grads[0][1], grads[1][1])


def test_two_slice_gradients_wait_without_a_full_buffer():
    # The slices' partial gradients are kept as they are while they are small beside x
    # (engine._Partials): no full-size buffer is alive while the rest of the graph runs.
    x = taimatsu.randn(64, 1024, dtype=taimatsu.float64, requires_grad=True)
    w = taimatsu.randn(3, 1024, dtype=taimatsu.float64)
    full = x.numel() * 8
    live = []
    a = x[2]  # created first: its select node runs after the two below
    a.register_hook(lambda g: live.append(tracemalloc.get_traced_memory()[0]))
    loss = (a * w[2]).sum() + (x[0] * w[0]).sum() + (x[1] * w[1]).sum()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        loss.backward()
    finally:
        tracemalloc.stop()
    assert live[0] - base < full / 4, (live[0] - base, full)
    expect = np.zeros((64, 1024))
    expect[:3] = w.numpy()
    np.testing.assert_array_equal(x.grad.numpy(), expect)


def test_first_sum_in_place_unless_the_gradient_is_seen():
    # A weight used at three steps: its first two gradients are summed into the first (as
    # PyTorch's InputBuffer does), not into a third array; a gradient a hook kept is left alone.
    def run(T, keep):
        T.manual_seed(0)
        wt = T.randn(256, 256, dtype=T.float64, requires_grad=True)
        xs = [T.randn(2, 256, dtype=T.float64) for _ in range(3)]
        outs = [x @ wt for x in xs]
        kept = []
        if keep:
            mm = outs[2].grad_fn  # runs first: its gradient of wt is the first one summed
            mm.register_hook(lambda gi, go: kept.append((gi[1], gi[1].clone())))
        loss = sum((o * o).sum() for o in outs)
        return wt, loss, kept

    full = 256 * 256 * 8
    for keep in (False, True):
        wt, loss, kept = run(taimatsu, keep)
        peak = _backward_peak(loss)
        if keep:  # the sum went to a new array: the kept gradient still has its values
            np.testing.assert_array_equal(kept[0][0].numpy(), kept[0][1].numpy())
        else:
            assert peak < 2.5 * full, (peak, full)
        wo, loss_o, _ = run(torch, False)
        loss_o.backward()
        np.testing.assert_allclose(wt.grad.numpy(), wo.grad.numpy(), rtol=1e-12, atol=1e-12)
