"""Convolution and pooling kernels against PyTorch: the array fast paths of their backward
(stacked per-image GEMMs, the forward's column buffer reused, col2im by kernel taps, max-pool
gradients scattered through the winning taps) and the Tensor-op path kept for double backward."""

import numpy as np
import pytest

import taimatsu as tm
import taimatsu.nn.functional as TF
from taimatsu.ops.nn import conv as tconv

torch = pytest.importorskip("torch")
import torch.nn.functional as OF
from nn_oracle import T, check_vjp, close

CONV = [
    ((2, 4, 9, 8), (6, 4, 3, 3), {}),
    (
        (2, 4, 9, 8),
        (6, 2, 3, 2),
        {"groups": 2, "stride": (2, 3), "padding": (2, 1), "dilation": (2, 1)},
    ),
    ((3, 3, 7, 7), (3, 1, 2, 2), {"groups": 3, "stride": 3}),  # stride past the kernel: gaps
    ((1, 2, 6, 5), (4, 2, 4, 3), {"padding": "same", "dilation": (1, 2)}),  # asymmetric pads
    ((2, 6, 5, 5), (4, 6, 1, 1), {}),
    ((2, 2, 4, 4), (3, 2, 3, 3), {"padding": 3}),  # taps that fall wholly in the padding
]


@pytest.mark.parametrize("xs,ws,kw", CONV)
@pytest.mark.parametrize("keep_cols", [True, False])
def test_conv2d_grads(xs, ws, kw, keep_cols, monkeypatch):
    if keep_cols:  # the backward reuses the forward's column buffer
        monkeypatch.setattr(tconv, "KEEP_COLS_BYTES", 256 << 20)
    else:  # the backward redoes im2col, and all columns are built one image at a time
        monkeypatch.setattr(tconv, "KEEP_COLS_BYTES", 0)
        monkeypatch.setattr(tconv, "COLS_BLOCK_BYTES", 1)
    torch.manual_seed(0)
    x = torch.randn(xs, requires_grad=True)
    w = torch.randn(ws, requires_grad=True)
    b = torch.randn(ws[0], requires_grad=True)
    tx, tw, tb = T(x, True), T(w, True), T(b, True)
    check_vjp(TF.conv2d(tx, tw, tb, **kw), OF.conv2d(x, w, b, **kw), [tx, tw, tb], [x, w, b],
              rtol=1e-4, atol=1e-5)  # fmt: skip


@pytest.mark.parametrize("which", ["input", "weight"])
def test_conv2d_one_gradient(which):
    torch.manual_seed(1)
    x = torch.randn(2, 3, 6, 6, requires_grad=which == "input")
    w = torch.randn(5, 3, 3, 3, requires_grad=which == "weight")
    tx, tw = T(x, x.requires_grad), T(w, w.requires_grad)
    o, t = OF.conv2d(x, w, padding=1), TF.conv2d(tx, tw, padding=1)
    src, tsrc = (x, tx) if which == "input" else (w, tw)
    check_vjp(t, o, [tsrc], [src], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("bad", [float("inf"), float("nan")])
def test_conv2d_input_grad_with_a_nonfinite_weight(bad):
    # Input rows that a kernel row does not reach get nothing from its (non-finite) weights,
    # as in PyTorch: no 0 * inf from a path that multiplies unreached rows by zero.
    torch.manual_seed(4)
    x = torch.randn(2, 4, 6, 5, requires_grad=True)
    wv = torch.randn(4, 4, 3, 3)
    wv[1, 2, 2, 1] = bad
    w = wv.requires_grad_()
    (gx,) = torch.autograd.grad(OF.conv2d(x, w, stride=(2, 1)), x, torch.ones(2, 4, 2, 3))
    tx, tw = T(x, True), T(w, True)
    (tgx,) = tm.autograd.grad(TF.conv2d(tx, tw, stride=(2, 1)), tx, tm.ones(2, 4, 2, 3))
    np.testing.assert_allclose(tgx.numpy(), gx.numpy(), rtol=1e-5, atol=1e-5, equal_nan=True)
    assert np.isfinite(gx.numpy()).any() and not np.isfinite(gx.numpy()).all()


def test_conv1d_conv_transpose_and_conv3d_grads():
    torch.manual_seed(2)
    cases = [
        (OF.conv1d, TF.conv1d, (2, 4, 11), (6, 2, 3), {"groups": 2, "stride": 2, "padding": 1}),
        (OF.conv_transpose2d, TF.conv_transpose2d, (2, 4, 5, 4), (4, 3, 3, 2),
         {"stride": 2, "padding": 1, "output_padding": 1}),
        (OF.conv3d, TF.conv3d, (2, 2, 4, 5, 5), (3, 2, 2, 3, 3), {"padding": 1, "stride": (1, 2, 1)}),
    ]  # fmt: skip
    for of, tf, xs, ws, kw in cases:
        x, w = torch.randn(xs, requires_grad=True), torch.randn(ws, requires_grad=True)
        tx, tw = T(x, True), T(w, True)
        # conv3d is built from 2-D convolutions per depth tap: its grad_fn is not PyTorch's.
        check_vjp(tf(tx, tw, **kw), of(x, w, **kw), [tx, tw], [x, w], rtol=1e-4, atol=1e-5,
                  name=of is not OF.conv3d)  # fmt: skip


def test_conv2d_double_backward_float32():
    torch.manual_seed(3)
    x = torch.randn(2, 4, 6, 5, requires_grad=True)
    w = torch.randn(4, 2, 3, 3, requires_grad=True)
    tx, tw = T(x, True), T(w, True)
    kw = {"stride": (1, 2), "padding": 1, "groups": 2}
    g = torch.randn(OF.conv2d(x, w, **kw).shape)
    og = torch.autograd.grad(OF.conv2d(x, w, **kw), (x, w), g, create_graph=True)
    tg = tm.autograd.grad(TF.conv2d(tx, tw, **kw), (tx, tw), T(g), create_graph=True)
    o2 = torch.autograd.grad(sum((a * a).sum() for a in og), (x, w))
    t2 = tm.autograd.grad(sum((a * a).sum() for a in tg), (tx, tw))
    for a, b in zip(t2, o2):
        close(a, b, rtol=1e-4, atol=1e-4)


def _ties_and_nans(shape, seed):
    """Small integers (many tied maxima), a few NaNs (some windows with two) and -inf."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-2, 3, shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, flat.size // 9, replace=False)] = np.nan
    flat[rng.choice(flat.size, flat.size // 15, replace=False)] = -np.inf
    return x


POOL = [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 1, "padding": 1},  # overlapping windows
    {"kernel_size": (2, 3), "stride": (2, 1), "dilation": (2, 1)},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    {"kernel_size": 2, "stride": 3},  # gaps between windows
    {"kernel_size": 2, "padding": 1},  # disjoint windows reaching into the padding
    {"kernel_size": 2, "ceil_mode": True},  # disjoint, the last ones past the edge
]


@pytest.mark.parametrize("kw", POOL, ids=str)
@pytest.mark.parametrize("nan", [False, True])
def test_max_pool2d_ties_nan_and_grads(kw, nan):
    a = _ties_and_nans((2, 3, 9, 8), 4)
    if not nan:
        a = np.nan_to_num(a, nan=1.0, neginf=-1.0)
    x = torch.tensor(a, requires_grad=True)
    tx = T(x, True)
    o, oi = OF.max_pool2d(x, return_indices=True, **kw)
    t, ti = TF.max_pool2d(tx, return_indices=True, **kw)
    np.testing.assert_array_equal(ti.numpy(), oi.numpy())
    np.testing.assert_array_equal(t.detach().numpy(), o.detach().numpy())
    g = torch.randn(o.shape)
    (og,) = torch.autograd.grad(o, x, g)
    (tg,) = tm.autograd.grad(t, tx, T(g))
    close(tg, og, rtol=1e-6, atol=1e-6)


def test_max_pool_unbatched_1d_int_and_double_backward():
    torch.manual_seed(5)
    x = torch.randn(3, 7, 6, requires_grad=True)
    tx = T(x, True)
    check_vjp(TF.max_pool2d(tx, 2, 1), OF.max_pool2d(x, 2, 1), [tx], [x])
    x1 = torch.randn(2, 3, 10, requires_grad=True)
    t1 = T(x1, True)
    check_vjp(TF.max_pool1d(t1, 3, 2, 1), OF.max_pool1d(x1, 3, 2, 1), [t1], [x1])
    xi = torch.randint(-3, 3, (2, 2, 6, 6))
    close(TF.max_pool2d(T(xi), 2), OF.max_pool2d(xi, 2))
    # create_graph keeps the Tensor-op backward (MaxPool2DWithIndicesBackwardBackward0).
    g = torch.randn(3, 6, 5, requires_grad=True)
    tgg = T(g, True)
    (og,) = torch.autograd.grad(OF.max_pool2d(x, 2, 1), x, g, create_graph=True)
    (tgx,) = tm.autograd.grad(TF.max_pool2d(tx, 2, 1), tx, tgg, create_graph=True)
    check_vjp(tgx, og, [tgg], [g])


@pytest.mark.parametrize(
    "kw",
    [
        {"kernel_size": 3, "stride": 2, "padding": 1},
        {
            "kernel_size": 3,
            "stride": 2,
            "padding": 1,
            "count_include_pad": False,
            "ceil_mode": True,
        },
        {"kernel_size": (2, 3), "stride": 1, "divisor_override": 4},
        {"kernel_size": 2, "stride": 3},
    ],
    ids=str,
)
def test_avg_pool2d_grads(kw):
    torch.manual_seed(6)
    x = torch.randn(2, 3, 9, 8, requires_grad=True)
    tx = T(x, True)
    check_vjp(TF.avg_pool2d(tx, **kw), OF.avg_pool2d(x, **kw), [tx], [x])


@pytest.mark.parametrize("return_indices", [False, True])
def test_max_pool_saved_taps_follow_retain_graph_as_pytorch(return_indices):
    """max_pool2d keeps its winning taps for the backward and frees them after it: backward
    twice with retain_graph gives the gradient twice, a third backward raises PyTorch's error,
    and the double backward through the taps gives PyTorch's values."""
    x0 = np.random.default_rng(3).standard_normal((2, 3, 6, 7))
    results = []
    for lib, F in ((tm, TF), (torch, OF)):
        x = lib.tensor(x0, requires_grad=True)
        y = F.max_pool2d(x, 3, 2, 1, return_indices=return_indices)
        y = y[0] if return_indices else y
        loss = (y * y).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        with pytest.raises(RuntimeError) as info:
            loss.backward()
        x2 = lib.tensor(x0, requires_grad=True)
        y2 = F.max_pool2d(x2, 3, 2, 1, return_indices=return_indices)
        y2 = y2[0] if return_indices else y2
        (g,) = lib.autograd.grad((y2**3).sum(), x2, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x2)
        results.append(
            (x.grad.numpy(), str(info.value).split(".")[0], g.detach().numpy(), gg.numpy())
        )
    (a, ea, ga, gga), (b, eb, gb, ggb) = results
    np.testing.assert_array_equal(a, b)
    assert ea == eb and ea.startswith("Trying to backward through the graph a second time")
    np.testing.assert_allclose(ga, gb, rtol=1e-12)
    np.testing.assert_allclose(gga, ggb, rtol=1e-12)


POOL_BACKWARDS = {
    "max_pool2d": (lambda F, x: F.max_pool2d(x, 2), (1, 2, 4, 4)),
    "max_pool2d_padded": (lambda F, x: F.max_pool2d(x, 3, 2, 1), (2, 5, 5)),
    "max_pool1d": (lambda F, x: F.max_pool1d(x, 2), (1, 2, 6)),
    "avg_pool2d": (lambda F, x: F.avg_pool2d(x, 2, 1, 1), (1, 1, 4, 4)),
    "adaptive_max_pool3d": (lambda F, x: F.adaptive_max_pool3d(x, 2), (1, 3, 3, 3)),
    "adaptive_max_pool2d": (lambda F, x: F.adaptive_max_pool2d(x, (2, 3)), (2, 2, 5, 4)),
    "max_pool3d": (lambda F, x: F.max_pool3d(x, 2, 1), (1, 2, 3, 4, 3)),
    "max_pool3d_unbatched": (lambda F, x: F.max_pool3d(x, (2, 3, 2), 2, 1), (2, 5, 4, 5)),
    "max_pool3d_indices_ceil": (
        lambda F, x: F.max_pool3d(x, 2, 2, ceil_mode=True, return_indices=True)[0],
        (2, 1, 5, 3, 5),
    ),
    "avg_pool3d": (lambda F, x: F.avg_pool3d(x, 2, 1, 1), (1, 2, 3, 4, 3)),
    "avg_pool3d_unbatched": (
        lambda F, x: F.avg_pool3d(x, (2, 3, 2), 2, 1, True, False),
        (2, 5, 4, 5),
    ),
    "avg_pool3d_divisor": (lambda F, x: F.avg_pool3d(x, 2, divisor_override=3), (2, 1, 4, 2, 4)),
    "adaptive_avg_pool1d": (lambda F, x: F.adaptive_avg_pool1d(x, 3), (2, 3, 7)),
    "adaptive_avg_pool2d": (lambda F, x: F.adaptive_avg_pool2d(x, (3, 2)), (2, 3, 7, 5)),
    "adaptive_avg_pool2d_unbatched": (lambda F, x: F.adaptive_avg_pool2d(x, 2), (3, 7, 5)),
    "adaptive_avg_pool3d": (lambda F, x: F.adaptive_avg_pool3d(x, (2, 3, 2)), (1, 2, 5, 4, 5)),
    "fractional_max_pool2d": (
        lambda F, x: F.fractional_max_pool2d(x, 2, 3, _random_samples=_samples(F, (1, 2, 2))),
        (1, 2, 6, 6),
    ),
    "fractional_max_pool3d": (
        lambda F, x: F.fractional_max_pool3d(x, 2, 3, _random_samples=_samples(F, (2, 1, 3))),
        (2, 1, 5, 6, 5),
    ),
    # last, so that the torch RNG state this file leaves is the one later unseeded tests expect
    "adaptive_max_pool1d": (lambda F, x: F.adaptive_max_pool1d(x, 3), (2, 7)),
}


def _samples(F, shape):
    """Fixed fractional-pool samples in F's library."""
    lib = torch if F is OF else tm
    return lib.tensor(np.random.default_rng(1).random(shape))


@pytest.mark.parametrize("name", POOL_BACKWARDS)
def test_pool_input_grad_with_create_graph_requires_grad_as_pytorch(name):
    """PyTorch's pooling backward ops take the pooled input (its gradient is zero): with
    create_graph the input gradient requires grad even when the output gradient does not, and
    its own gradient with respect to the input is zeros (a gradient penalty runs)."""
    pool, shape = POOL_BACKWARDS[name]
    torch.manual_seed(7)
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    tx = T(x, True)
    results = []
    for lib, F, xx in ((torch, OF, x), (tm, TF, tx)):
        y = pool(F, xx)
        w = lib.arange(float(y.numel()), dtype=lib.float64).reshape(y.shape).cos()
        (g,) = lib.autograd.grad((y * w).sum(), xx, create_graph=True)
        (h,) = lib.autograd.grad((g * g.detach()).sum(), xx)
        results.append((g, h))
    (og, oh), (tg, th) = results
    assert tg.requires_grad and type(tg.grad_fn).__name__ == type(og.grad_fn).__name__
    close(tg, og)
    close(th, oh)


@pytest.mark.parametrize("name", [n for n in POOL_BACKWARDS if "3d" in n])
def test_pool3d_grad_fn_and_double_backward_in_the_gradient(name):
    """The 3-d pools are one node each (as PyTorch's), and with create_graph their input gradient
    is differentiable in the output gradient: second derivatives for a random cotangent."""
    with torch.random.fork_rng(devices=[]):  # leaves the global RNG as it found it
        torch.manual_seed(8)
        _check_pool_double_backward(*POOL_BACKWARDS[name])


def _check_pool_double_backward(pool, shape):
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    tx = T(x, True)
    y, ty = pool(OF, x), pool(TF, tx)
    assert type(ty.grad_fn).__name__ == type(y.grad_fn).__name__
    g = torch.randn(y.shape, dtype=torch.float64, requires_grad=True)
    tgg = T(g, True)
    (og,) = torch.autograd.grad(y, x, g, create_graph=True)
    (tgx,) = tm.autograd.grad(ty, tx, tgg, create_graph=True)
    check_vjp(tgx, og, [tgg, tx], [g, x])


@pytest.mark.parametrize("n,shape", [(1, (1, 2, 6)), (2, (2, 6, 6)), (3, (1, 2, 4, 4, 4))])
def test_max_unpool_grad_fn_and_double_backward(n, shape):
    """max_unpool{2,3}d is one MaxUnpool{n}DBackward0 node over the pool's (1-d: squeezed 2-d);
    with create_graph its gradient (a gather) is differentiable in the output gradient."""
    x0 = np.random.default_rng(4).standard_normal(shape)
    w0 = np.random.default_rng(5).standard_normal(shape)  # an unpool of a 2-pool: x's shape
    results = []
    for lib, F in ((torch, OF), (tm, TF)):
        x = lib.tensor(x0, requires_grad=True)
        y, i = getattr(F, f"max_pool{n}d")(x, 2, return_indices=True)
        u = getattr(F, f"max_unpool{n}d")(y, i, 2)
        w = lib.tensor(w0, requires_grad=True)
        (gy,) = lib.autograd.grad(u, y, w, create_graph=True)
        (gw,) = lib.autograd.grad((gy * gy).sum(), w)
        (gx,) = lib.autograd.grad((u * u).sum(), x)
        names = [type(u.grad_fn).__name__, type(u.grad_fn.next_functions[0][0]).__name__]
        results.append((names, type(gy.grad_fn).__name__, gw, gx))
    (on, og, ogw, ogx), (tn, tg, tgw, tgx) = results
    assert (tn, tg) == (on, og)
    close(tgw, ogw)
    close(tgx, ogx)


_SAVES_INPUT = {  # PyTorch's nodes that save their input; upsampling and output-1 means do not
    "avg_pool1d": (lambda F, x: F.avg_pool1d(x, 2), (2, 4)),
    "avg_pool2d": (lambda F, x: F.avg_pool2d(x, 3, 2, 1, True, False, 2), (1, 2, 4, 4)),
    "avg_pool3d": (lambda F, x: F.avg_pool3d(x, 2), (1, 2, 4, 4, 4)),
    "adaptive_avg_pool1d": (lambda F, x: F.adaptive_avg_pool1d(x, 3), (1, 2, 4)),
    "adaptive_avg_pool2d": (lambda F, x: F.adaptive_avg_pool2d(x, 3), (2, 4, 4)),
    "adaptive_avg_pool3d": (lambda F, x: F.adaptive_avg_pool3d(x, 3), (1, 2, 4, 4, 4)),
    "adaptive_avg_pool2d_1": (lambda F, x: F.adaptive_avg_pool2d(x, 1), (1, 2, 4, 4)),
    "bilinear": (lambda F, x: F.interpolate(x, scale_factor=2, mode="bilinear"), (1, 2, 4, 4)),
}


@pytest.mark.parametrize("name", sorted(_SAVES_INPUT))
def test_pool_saves_its_input_as_pytorch(name):
    """Average pools (and avg_pool3d's node, which keeps the composite's graph for its backward)
    save the input as PyTorch's ops do: a second backward without retain_graph and an in-place
    change of the input raise PyTorch's errors; with retain_graph the gradient accumulates."""
    f, shape = _SAVES_INPUT[name]
    outcomes = []
    for lib in (torch, tm):
        x = lib.ones(*shape, requires_grad=True)
        z = f(lib.nn.functional, x).sum()
        z.backward(retain_graph=True)
        z.backward()
        seen = [float(x.grad.sum())]
        for change in (False, True):
            y = x * 1
            z = f(lib.nn.functional, y).sum()
            if change:
                y.add_(1)
            else:
                z.backward()
            try:
                z.backward()
                seen.append("ok")
            except RuntimeError as e:
                seen.append(str(e))
        outcomes.append(seen)
    assert outcomes[0] == outcomes[1]
