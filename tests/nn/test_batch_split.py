"""Convolution, max pooling and batch norm with their batch split over two threads (``parallel.halves``,
forced: no size threshold, an idle machine as the load samples say) give one thread's values and
gradients bit for bit (each image is computed alike; cross-image sums run after the split)."""

import os

import numpy as np
import pytest

import taimatsu as tm
import taimatsu.nn.functional as TF
from taimatsu.backend import parallel, threads
from taimatsu.ops.nn import conv as tconv

torch = pytest.importorskip("torch")
import torch.nn.functional as OF
from nn_oracle import T, close


@pytest.fixture
def forced_split(tmp_path, monkeypatch):
    """The list of ranges submitted to the helper thread; thread count restored after."""
    if (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()) < 2:
        pytest.skip("one core: nothing to split over")
    monkeypatch.setattr(threads, "_other_cores", lambda now: 0.0)  # an idle machine
    monkeypatch.setitem(threads._busy, "t", -1.0)
    monkeypatch.setitem(threads._busy, "others", None)
    monkeypatch.setattr(parallel, "MIN_WORK", 0)
    pool, submitted = parallel._pool(), []

    class Counting:
        def submit(self, fn, *args):
            submitted.append(args)
            return pool.submit(fn, *args)

    monkeypatch.setattr(parallel, "_pool", Counting)
    before = tm.get_num_threads()
    yield submitted
    tm.set_num_threads(before)


def _at_1_and_2_threads(fn, same=True):
    """``fn()``'s arrays at 1 and at 2 threads (equal where ``same``), those at 2 returned."""
    runs = []
    for n in (1, 2):
        tm.set_num_threads(n)
        runs.append([a.numpy() for a in fn()])
    for a, b in zip(*runs):
        if same:
            np.testing.assert_array_equal(a, b)
    return runs[1]


@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1}],
                         ids=str)  # fmt: skip
def test_max_pool2d_split(forced_split, kw, nan):
    rs = np.random.RandomState(0)
    a = rs.randint(-3, 3, (5, 3, 8, 9)).astype(np.float32)  # ties
    if nan:
        a[1, 2, 3, 4] = a[4, 0, 0, 1] = np.nan
    x = torch.tensor(a, requires_grad=True)
    o, oi = OF.max_pool2d(x, return_indices=True, **kw)
    g = torch.randn(o.shape)
    (og,) = torch.autograd.grad(o, x, g)

    def run():
        tx = T(x, True)
        t, ti = TF.max_pool2d(tx, return_indices=True, **kw)
        return [t.detach(), ti, *tm.autograd.grad(t, tx, T(g))]

    ours = _at_1_and_2_threads(run)
    # the forward, and the backward's scatter where the windows are disjoint, were split
    assert len(forced_split) >= (2 if kw == {"kernel_size": 2} else 1)
    np.testing.assert_array_equal(ours[0], o.detach().numpy())
    np.testing.assert_array_equal(ours[1], oi.numpy())
    close(ours[2], og.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape", [(6, 3, 5, 7), (9, 4)], ids=str)
def test_batch_norm_split(forced_split, shape):
    rs = np.random.RandomState(1)
    x = torch.tensor(rs.randn(*shape).astype(np.float32) + 3, requires_grad=True)
    w = torch.tensor(rs.randn(shape[1]).astype(np.float32), requires_grad=True)
    b = torch.tensor(rs.randn(shape[1]).astype(np.float32), requires_grad=True)
    o = OF.batch_norm(x, None, None, w, b, True)
    g = torch.randn(o.shape)
    expected = [o.detach(), *torch.autograd.grad(o, (x, w, b), g)]

    def run():
        tx, tw, tb = T(x, True), T(w, True), T(b, True)
        t = TF.batch_norm(tx, None, None, tw, tb, True)
        return [t.detach(), *tm.autograd.grad(t, (tx, tw, tb), T(g))]

    # an (N, C) input's statistics are summed per thread as PyTorch's are: its bits follow the
    # thread count, PyTorch's as well
    ours = _at_1_and_2_threads(run, same=len(shape) > 2)
    # three forward passes (one for (N, C): its statistics are not split) and two backward
    assert len(forced_split) >= (5 if len(shape) > 2 else 3)
    for a, e in zip(ours, expected):
        close(a, e.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("wshape", [(6, 2, 3, 3), (8, 2, 2, 1)], ids=["rows", "col2im"])
def test_conv2d_split(forced_split, monkeypatch, wshape):
    monkeypatch.setattr(tconv, "COLS_BLOCK_BYTES", 1)
    torch.manual_seed(7)
    x = torch.randn(5, 4, 9, 8, requires_grad=True)
    w = torch.randn(*wshape, requires_grad=True)
    kw = {"padding": 1, "groups": 2, "stride": (1, 2)}
    o = OF.conv2d(x, w, **kw)
    g = torch.randn(o.shape)
    og = torch.autograd.grad(o, (x, w), g)

    def run():
        tx, tw = T(x, True), T(w, True)
        t = TF.conv2d(tx, tw, **kw)
        return [t.detach(), *tm.autograd.grad(t, (tx, tw), T(g))]

    ours = _at_1_and_2_threads(run)
    # at 2 threads the forward was split in halves, the weight gradient ran on the helper
    # thread (submitted without a range) beside the input gradient
    assert (0, 2) in forced_split and () in forced_split, forced_split
    close(ours[0], o.detach().numpy(), rtol=1e-4, atol=1e-5)
    for a, b in zip(ours[1:], og):
        close(a, b.numpy(), rtol=1e-4, atol=1e-5)


def test_conv2d_split_halves_share_the_column_budget(forced_split):
    # The halves build their column blocks at the same time: each takes its share of one
    # thread's COLS_BLOCK_BYTES (each sized for the whole batch, the CNN benchmark's second
    # convolution held 1.4 MiB more at two threads than at one), with the same bits.
    import tracemalloc

    torch.manual_seed(3)
    x = torch.randn(16, 16, 14, 14)
    w = torch.randn(32, 16, 3, 3)
    g = torch.randn(16, 32, 14, 14)
    peaks = []

    def run():
        tx, tw = T(x, True), T(w, True)
        t = TF.conv2d(tx, tw, padding=1)
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            grads = tm.autograd.grad(t, (tx, tw), T(g))
            peaks.append(tracemalloc.get_traced_memory()[1] - base)
        finally:
            tracemalloc.stop()
        return [t.detach(), *grads]

    _at_1_and_2_threads(run)
    assert forced_split  # the backward was split at two threads
    one, two = peaks
    assert two <= one + (64 << 10), (one, two)


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_recurrent_chunk_products_split(forced_split, mode):
    # The backward's chunk products (weight and input gradients) run on the helper thread
    # beside the next chunk's time loop, the last chunk's in row halves on two threads: one
    # BLAS thread each, so the gradients are one thread's bit for bit.
    torch.manual_seed(5)
    ref = getattr(torch.nn, mode)(5, 8, batch_first=True)
    x = torch.randn(3, 60, 5, requires_grad=True)  # 60 steps: three chunks
    o, _ = ref(x)
    g = torch.randn(o.shape)
    params = list(ref.parameters())
    expected = [o.detach(), *torch.autograd.grad(o, (x, *params), g)]

    def run():
        m = getattr(tm.nn, mode)(5, 8, batch_first=True)
        m.load_state_dict({k: T(v) for k, v in ref.state_dict().items()})
        tx = T(x, True)
        t, _ = m(tx)
        return [t.detach(), *tm.autograd.grad(t, (tx, *m.parameters()), T(g))]

    ours = _at_1_and_2_threads(run)
    assert len(forced_split) >= 3  # two chunks' products beside the loop, the last one's halves
    for a, e in zip(ours, expected):
        close(a, e.numpy(), rtol=1e-4, atol=1e-5)
