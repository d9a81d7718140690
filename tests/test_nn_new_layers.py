"""Oracle tests for the layers of issue #4: Bilinear, RReLU, Unflatten, LazyLinear / LazyConv,
ConvTranspose3d, adaptive 3-D pooling, bicubic interpolation and 3-D / bicubic grid_sample.

Each compares forward values, input and parameter gradients (same weights in both frameworks),
default initialisation after the same seed, repr text and error messages with PyTorch; each new
differentiable functional also passes a float64 finite-difference gradcheck.
"""

import pytest

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402
from nn_oracle import T, check_vjp, close, copy_weights, same_error  # noqa: E402

import taimatsu as tm  # noqa: E402
import taimatsu.nn as tnn  # noqa: E402
import taimatsu.nn.functional as TF  # noqa: E402

F = torch.nn.functional


def _module_pair(name, *args, seed=0, **kwargs):
    torch.manual_seed(seed)
    o = getattr(torch.nn, name)(*args, **kwargs)
    tm.manual_seed(seed)
    t = getattr(tnn, name)(*args, **kwargs)
    return t, o


def _same_init(t, o):
    """Default initialisation after the same seed draws the same values."""
    ts, os_ = t.state_dict(), o.state_dict()
    assert list(ts) == list(os_)
    for k in os_:
        np.testing.assert_array_equal(ts[k].numpy(), os_[k].numpy())


def _run_module(t, o, inputs, rtol=1e-5, atol=1e-6):
    """Forward, input grads and parameter grads for a random cotangent."""
    o_in = [x.clone().requires_grad_() for x in inputs]
    t_in = [T(x, True) for x in inputs]
    o_out, t_out = o(*o_in), t(*t_in)
    close(t_out, o_out, rtol, atol)
    g = torch.randn(o_out.shape, dtype=o_out.dtype)
    o_out.backward(g)
    t_out.backward(T(g))
    for a, b in zip(t_in, o_in):
        close(a.grad, b.grad, rtol, atol)
    for (n, a), (_, b) in zip(t.named_parameters(), o.named_parameters()):
        close(a.grad, b.grad, rtol, atol)


def _gradcheck(fn, *arrays):
    xs = [tm.tensor(np.asarray(a, np.float64), requires_grad=True) for a in arrays]
    assert tm.autograd.gradcheck(fn, xs, eps=1e-6, atol=1e-5)


# ---- Bilinear ---------------------------------------------------------------------------------
@pytest.mark.parametrize("lead", [(), (4,), (2, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_module(lead, bias):
    t, o = _module_pair("Bilinear", 3, 4, 5, bias=bias)
    _same_init(t, o)
    assert repr(t) == repr(o)
    _run_module(t, o, [torch.randn(*lead, 3), torch.randn(*lead, 4)])


def test_bilinear_functional_graph_and_gradcheck():
    x1, x2, w = torch.randn(2, 3, requires_grad=True), torch.randn(2, 4), torch.randn(5, 3, 4)
    o = F.bilinear(x1, x2, w)
    t1 = T(x1, True)
    t = TF.bilinear(t1, T(x2), T(w))
    check_vjp(t, o, [t1], [x1])
    _gradcheck(lambda a, b, w, c: TF.bilinear(a, b, w, c), np.random.randn(2, 3), np.random.randn(2, 4),
               np.random.randn(5, 3, 4), np.random.randn(5))  # fmt: skip


@pytest.mark.parametrize(
    "a,b,w,bb",
    [((2, 3), (3, 4), (5, 3, 4), (5,)), ((2, 3), (2, 5), (5, 3, 4), (5,)), ((2, 2), (2, 4), (5, 3, 4), (5,)),
     ((2, 3), (2, 4), (5, 3, 4), (4,)), ((3,), (2, 4), (5, 3, 4), (5,))],
)  # fmt: skip
def test_bilinear_errors(a, b, w, bb):
    args = [torch.randn(s) for s in (a, b, w, bb)]
    same_error(lambda: TF.bilinear(*[T(x) for x in args]), lambda: F.bilinear(*args))


def test_bilinear_constructor_error():
    same_error(lambda: tnn.Bilinear(0, 4, 5), lambda: torch.nn.Bilinear(0, 4, 5))


# ---- RReLU ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4)])
def test_rrelu_training_draws_like_torch(dtype, shape):
    torch.manual_seed(5)
    tm.manual_seed(5)
    x = torch.randn(shape, dtype=dtype, requires_grad=True)
    tx = tm.randn(shape, dtype=getattr(tm, str(dtype).split(".")[1])).requires_grad_()
    close(tx, x, 0, 0)
    o = F.rrelu(x, 0.1, 0.4, training=True)
    t = TF.rrelu(tx, 0.1, 0.4, training=True)
    np.testing.assert_array_equal(t.detach().numpy(), o.detach().numpy())
    # the generator is left in the same state
    np.testing.assert_array_equal(tm.rand(3).numpy(), torch.rand(3).numpy())
    check_vjp(t, o, [tx], [x], rtol=0, atol=0)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("inplace", [True, False])
def test_rrelu_module(training, inplace):
    t, o = _module_pair("RReLU", 0.2, 0.3, inplace)
    assert repr(t) == repr(o)
    t.train(training)
    o.train(training)
    x = torch.randn(4, 6, requires_grad=True)
    tx = T(x, True)
    torch.manual_seed(1)
    tm.manual_seed(1)
    o_out = o(x * 1.0)
    t_out = t(tx * 1.0)
    check_vjp(t_out, o_out, [tx], [x])


def test_rrelu_functional_forms_and_errors():
    assert repr(tnn.RReLU()) == repr(torch.nn.RReLU())
    x = torch.randn(10)
    close(TF.rrelu(T(x)), F.rrelu(x))
    close(tm.rrelu(T(x)), torch.rrelu(x))
    y, ty = x.clone(), T(x)
    assert TF.rrelu_(ty) is ty
    close(ty, F.rrelu_(y))
    a = torch.randn(4, requires_grad=True)
    ta = T(a, True)
    assert TF.rrelu(ta * 1, training=True, inplace=True).grad_fn.name() == "RreluWithNoiseBackward1"
    same_error(lambda: TF.rrelu(T(x), 0.5, 0.1), lambda: F.rrelu(x, 0.5, 0.1))
    same_error(lambda: TF.rrelu(T(x), 0.5, 0.1, True), lambda: F.rrelu(x, 0.5, 0.1, True))
    i = torch.arange(3)
    same_error(lambda: TF.rrelu(T(i), training=True), lambda: F.rrelu(i, training=True))
    same_error(lambda: TF.rrelu(T(i)), lambda: F.rrelu(i))
    _gradcheck(lambda v: TF.rrelu(v, 0.1, 0.3), np.random.randn(6) + 0.05)


# ---- Unflatten -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dim,sizes", [(1, (2, 5)), (1, [2, 5]), (-1, (2, -1)), (0, (3, 1))])
def test_unflatten(dim, sizes):
    t, o = tnn.Unflatten(dim, sizes), torch.nn.Unflatten(dim, sizes)
    assert repr(t) == repr(o)
    _run_module(t, o, [torch.randn(3, 10)])


@pytest.mark.parametrize("args", [(1, 5), (1, (2.0, 5)), (1, ((2, "a"),))])
def test_unflatten_errors(args):
    same_error(lambda: tnn.Unflatten(*args), lambda: torch.nn.Unflatten(*args))
    m, tmod = torch.nn.Unflatten(1, (2, 5)), tnn.Unflatten(1, (2, 5))
    x = torch.randn(3, 7)
    same_error(lambda: tmod(T(x)), lambda: m(x))


# ---- ConvTranspose3d -----------------------------------------------------------------------------
CONV_T3D = [
    dict(args=(4, 6, 2), x=(2, 4, 3, 4, 5)),
    dict(args=(4, 6, (3, 2, 3)), kw=dict(stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 1)),
         x=(2, 4, 3, 4, 5)),
    dict(args=(4, 2, 2), kw=dict(groups=2, dilation=(2, 1, 2), stride=2, padding=1, output_padding=(1, 0, 1),
                                 bias=False), x=(1, 4, 3, 3, 3)),
    dict(args=(2, 3, 3), kw=dict(stride=3, padding=2, output_padding=2), x=(2, 2, 3, 3)),
]  # fmt: skip


@pytest.mark.parametrize("case", CONV_T3D)
def test_conv_transpose3d_module(case):
    t, o = _module_pair("ConvTranspose3d", *case["args"], **case.get("kw", {}))
    _same_init(t, o)
    assert repr(t) == repr(o)
    _run_module(t, o, [torch.randn(case["x"])], rtol=1e-4, atol=1e-5)


def test_conv_transpose3d_output_size_and_errors():
    t, o = _module_pair("ConvTranspose3d", 2, 3, 3, stride=2)
    x = torch.randn(1, 2, 3, 4, 3)
    close(t(T(x), output_size=[8, 9, 7]), o(x, output_size=[8, 9, 7]), 1e-4, 1e-5)
    same_error(lambda: t(T(x), output_size=[10, 9, 7]), lambda: o(x, output_size=[10, 9, 7]))
    w = torch.randn(3, 2, 2, 2, 2)
    for x, kw in [(torch.randn(1, 2, 3, 3, 3), {}), (torch.randn(2, 3, 3), {}),
                  (torch.randn(1, 3, 3, 3, 3), dict(output_padding=2))]:  # fmt: skip
        same_error(lambda: TF.conv_transpose3d(T(x), T(w), **kw), lambda: F.conv_transpose3d(x, w, **kw))
    assert TF.conv_transpose3d(T(x, True), T(w)).grad_fn.name() == "ConvolutionBackward0"


def test_conv_transpose3d_gradcheck():
    _gradcheck(lambda x, w, b: TF.conv_transpose3d(x, w, b, stride=(2, 1, 1), padding=1, output_padding=(1, 0, 0)),
               np.random.randn(1, 2, 2, 3, 2), np.random.randn(2, 2, 2, 2, 2), np.random.randn(2))  # fmt: skip


# ---- adaptive 3-D pooling ------------------------------------------------------------------------
ADAPTIVE_3D = [((2, 3, 5, 6, 7), (2, 3, 4)), ((3, 5, 6, 7), (5, None, 2)), ((1, 2, 4, 4, 4), 1),
               ((2, 1, 7, 5, 3), 3)]  # fmt: skip


@pytest.mark.parametrize("shape,out", ADAPTIVE_3D)
def test_adaptive_avg_pool3d(shape, out):
    t, o = tnn.AdaptiveAvgPool3d(out), torch.nn.AdaptiveAvgPool3d(out)
    assert repr(t) == repr(o)
    x = torch.randn(shape, requires_grad=True)
    tx = T(x, True)
    check_vjp(t(tx), o(x), [tx], [x])


@pytest.mark.parametrize("shape,out", ADAPTIVE_3D)
def test_adaptive_max_pool3d(shape, out):
    t, o = tnn.AdaptiveMaxPool3d(out, True), torch.nn.AdaptiveMaxPool3d(out, True)
    assert repr(t) == repr(o)
    x = torch.randn(shape, requires_grad=True)
    tx = T(x, True)
    (ov, oi), (tv, ti) = o(x), t(tx)
    np.testing.assert_array_equal(ti.numpy(), oi.numpy())
    check_vjp(tv, ov, [tx], [x])
    close(tnn.AdaptiveMaxPool3d(out)(tx), torch.nn.AdaptiveMaxPool3d(out)(x))


@pytest.mark.parametrize(
    "shape,out", [((2, 3, 4), 2), ((2, 3, 0, 4, 4), 2), ((2, 3, 4, 4, 4), (2, 2)), ((2, 3, 4, 4, 4, 4), 2)]
)
def test_adaptive_pool3d_errors(shape, out):
    x = torch.randn(shape)
    same_error(lambda: TF.adaptive_avg_pool3d(T(x), out), lambda: F.adaptive_avg_pool3d(x, out))
    same_error(lambda: TF.adaptive_max_pool3d(T(x), out), lambda: F.adaptive_max_pool3d(x, out))


def test_adaptive_pool3d_gradcheck():
    _gradcheck(lambda x: TF.adaptive_avg_pool3d(x, (2, 3, 2)), np.random.randn(1, 2, 3, 5, 4))
    _gradcheck(lambda x: TF.adaptive_max_pool3d(x, (2, 3, 2)), np.random.randn(1, 2, 3, 5, 4))


@pytest.mark.parametrize("name,n", [("ConvTranspose1d", 1), ("ConvTranspose2d", 2), ("ConvTranspose3d", 3)])
@pytest.mark.parametrize("batched", [True, False])
def test_conv_transpose_output_size_checks(name, n, batched):
    t, o = _module_pair(name, 2, 3, 3, stride=2)
    x = torch.randn(*((1,) if batched else ()), 2, *[3] * n)
    for size in ([8] * n, [7] * n, [1, 3, *[8] * n], [3, *[7] * n], [9] * n, [8] * (n + 3), [6] * n):
        try:
            expected = o(x, output_size=size)
        except ValueError:
            same_error(lambda: t(T(x), output_size=size), lambda: o(x, output_size=size))
            continue
        close(t(T(x), output_size=size), expected, 1e-4, 1e-5)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_conv_transpose_output_padding_error(n):
    fn, tfn = getattr(F, f"conv_transpose{n}d"), getattr(TF, f"conv_transpose{n}d")
    x, w = torch.randn(1, 3, *[3] * n), torch.randn(3, 2, *[2] * n)
    op = (2,) * n
    same_error(lambda: tfn(T(x), T(w), output_padding=op), lambda: fn(x, w, output_padding=op))


# ---- bicubic interpolation -------------------------------------------------------------------------
BICUBIC = [dict(size=(7, 9)), dict(scale_factor=1.7), dict(scale_factor=(0.6, 2.3), align_corners=True),
           dict(size=(3, 2), align_corners=False), dict(size=(1, 1), align_corners=True),
           dict(scale_factor=2.5, recompute_scale_factor=True), dict(size=(5, 6)),
           dict(size=(11, 4), align_corners=True)]  # fmt: skip


@pytest.mark.parametrize("kw", BICUBIC)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_interpolate_bicubic(kw, dtype):
    x = torch.randn(2, 3, 5, 6, dtype=dtype, requires_grad=True)
    tx = T(x, True)
    check_vjp(TF.interpolate(tx, mode="bicubic", **kw), F.interpolate(x, mode="bicubic", **kw), [tx], [x])


@pytest.mark.parametrize("kw", [dict(scale_factor=2), dict(size=(3, 8), align_corners=True)])
def test_upsample_bicubic_module(kw):
    t, o = tnn.Upsample(mode="bicubic", **kw), torch.nn.Upsample(mode="bicubic", **kw)
    assert repr(t) == repr(o)
    x = torch.randn(1, 2, 4, 5, requires_grad=True)
    tx = T(x, True)
    check_vjp(t(tx), o(x), [tx], [x])


def test_upsampling_modules_and_functions():
    x = torch.randn(1, 2, 3, 4)
    for name, kw in [("UpsamplingBilinear2d", dict(scale_factor=2)), ("UpsamplingNearest2d", dict(size=(5, 7)))]:
        t, o = getattr(tnn, name)(**kw), getattr(torch.nn, name)(**kw)
        assert repr(t) == repr(o)
        close(t(T(x)), o(x))
    with pytest.warns(UserWarning, match="upsample_bilinear` is deprecated"):
        close(TF.upsample_bilinear(T(x), scale_factor=2), F.upsample_bilinear(x, scale_factor=2))
    with pytest.warns(UserWarning, match="upsample_nearest` is deprecated"):
        close(TF.upsample_nearest(T(x), size=5), F.upsample_nearest(x, size=5))


def test_interpolate_bicubic_gradcheck_and_area_3d():
    _gradcheck(lambda x: TF.interpolate(x, scale_factor=1.5, mode="bicubic"), np.random.randn(1, 1, 3, 4))
    _gradcheck(lambda x: TF.interpolate(x, size=(2, 5), mode="bicubic", align_corners=True),
               np.random.randn(1, 2, 3, 3))  # fmt: skip
    x = torch.randn(1, 2, 4, 6, 5)
    close(TF.interpolate(T(x), scale_factor=0.5, mode="area"), F.interpolate(x, scale_factor=0.5, mode="area"))


INTERP_ERRORS = [
    ((2, 3, 5, 6), dict(mode="bicubic")), ((2, 3, 5), dict(scale_factor=2, mode="bicubic")),
    ((2, 3, 5, 5, 5), dict(scale_factor=2, mode="bicubic")), ((2, 3), dict(scale_factor=2)),
    ((2, 3), dict(size=2, mode="bilinear")), ((2, 3, 4), dict(scale_factor=(2, 2))), ((2, 3, 4), dict(size=(2, 2))),
    ((2, 3, 4), dict(size=(2.0,))), ((2, 3, 4), dict(size=2, recompute_scale_factor=True)),
    ((2, 3, 4), dict(scale_factor=2, antialias=True)), ((2, 3, 4, 4), dict(scale_factor=2, mode="lanczos")),
    ((2, 3, 4, 4), dict(scale_factor=2, mode="lanczos", align_corners=True)),
    ((2, 3, 4), dict(scale_factor=2, mode="bilinear")), ((2, 3, 4, 4), dict(scale_factor=2, mode="linear")),
    ((2, 3, 4, 4), dict(scale_factor=2, mode="foo")), ((2, 3, 4, 4), dict(scale_factor=2, align_corners=True)),
    ((2, 3, 4, 4), dict(size=(3, 3), scale_factor=2, mode="bicubic")),
]  # fmt: skip


@pytest.mark.parametrize("shape,kw", INTERP_ERRORS)
def test_interpolate_errors(shape, kw):
    x = torch.randn(shape)
    same_error(lambda: TF.interpolate(T(x), **kw), lambda: F.interpolate(x, **kw))


# ---- grid_sample: 5-D and bicubic ----------------------------------------------------------------
GRID_CASES = [((2, 3, 4, 5, 6), (2, 3, 4, 2, 3), "bilinear"), ((2, 3, 4, 5, 6), (2, 3, 4, 2, 3), "nearest"),
              ((2, 3, 5, 6), (2, 4, 3, 2), "bicubic"), ((2, 3, 5, 6), (2, 4, 3, 2), "bilinear")]  # fmt: skip


@pytest.mark.parametrize("shape,gshape,mode", GRID_CASES)
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_grid_sample(shape, gshape, mode, padding_mode, align_corners, dtype):
    x = torch.randn(shape, dtype=dtype, requires_grad=True)
    g = (torch.rand(gshape, dtype=dtype) * 2.6 - 1.3).requires_grad_()
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    o = F.grid_sample(x, g, **kw)
    tx, tg = T(x, True), T(g, True)
    t = TF.grid_sample(tx, tg, **kw)
    tol = (1e-4, 1e-5) if dtype == torch.float32 else (1e-10, 1e-12)
    close(t, o, *tol)
    cot = torch.randn(o.shape, dtype=dtype)
    og = torch.autograd.grad(o, (x, g), cot)
    tgx = tm.autograd.grad(t, tx, T(cot), retain_graph=True)[0]
    close(tgx, og[0], *tol)
    if mode != "nearest":  # (nearest: PyTorch returns a zero grid gradient, taimatsu no graph to the grid)
        close(tm.autograd.grad(t, tg, T(cot))[0], og[1], *tol)


@pytest.mark.parametrize("mode,shape,gshape", [("bilinear", (1, 2, 3, 3, 4), (1, 2, 2, 1, 3)),
                                               ("bicubic", (1, 2, 3, 4), (1, 2, 3, 2))])  # fmt: skip
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_gradcheck(mode, shape, gshape, padding_mode):
    rng = np.random.default_rng(0)
    g = rng.uniform(-1.2, 1.2, gshape)
    _gradcheck(lambda x, g: TF.grid_sample(x, g, mode, padding_mode, align_corners=False),
               rng.standard_normal(shape), g)  # fmt: skip


GRID_ERRORS = [((1, 2, 3, 3, 3), (1, 2, 2, 2, 3), "bicubic"), ((1, 2, 3, 3, 3), (1, 2, 2, 2, 2), "bilinear"),
               ((1, 2, 3, 3), (1, 2, 2, 3), "bilinear"), ((1, 2, 3), (1, 2, 2), "bilinear"),
               ((2, 2, 3, 3), (1, 2, 2, 2), "bilinear"), ((1, 2, 3, 3, 3), (2, 2, 2, 2, 3), "nearest"),
               ((1, 2, 3, 3), (1, 2, 2, 2, 2), "bilinear"), ((1, 2, 0, 3), (1, 2, 2, 2), "bilinear"),
               ((1, 2, 3), (1, 2, 1), "bilinear"), ((1, 2, 3, 3), (1, 2, 2, 2), "cubic")]  # fmt: skip


@pytest.mark.parametrize("shape,gshape,mode", GRID_ERRORS)
def test_grid_sample_errors(shape, gshape, mode):
    x, g = torch.randn(shape), torch.randn(gshape)
    same_error(lambda: TF.grid_sample(T(x), T(g), mode, align_corners=False),
               lambda: F.grid_sample(x, g, mode, align_corners=False))  # fmt: skip
    g64 = torch.randn(1, 2, 2, 2, dtype=torch.float64)
    x4 = torch.randn(1, 2, 3, 3)
    same_error(lambda: TF.grid_sample(T(x4), T(g64), align_corners=False),
               lambda: F.grid_sample(x4, g64, align_corners=False))  # fmt: skip


@pytest.mark.parametrize("align_corners", [True, False])
def test_affine_grid_5d_then_sample(align_corners):
    theta = torch.randn(2, 3, 4, requires_grad=True)
    tt = T(theta, True)
    size = (2, 3, 4, 5, 3)
    o = F.affine_grid(theta, size, align_corners=align_corners)
    t = TF.affine_grid(tt, size, align_corners=align_corners)
    check_vjp(t, o, [tt], [theta], name=False)
    x = torch.randn(size)
    close(TF.grid_sample(T(x), t, align_corners=align_corners), F.grid_sample(x, o, align_corners=align_corners),
          1e-4, 1e-5)  # fmt: skip


# ---- lazy modules ----------------------------------------------------------------------------------
LAZY = [("LazyLinear", (5,), {}, (2, 3)), ("LazyLinear", (4,), dict(bias=False), (2, 3, 6)),
        ("LazyConv1d", (4, 2), dict(stride=2, bias=False), (2, 3, 7)), ("LazyConv2d", (8, 3), {}, (1, 3, 5, 5)),
        ("LazyConv2d", (8, 3), dict(groups=2, padding=1), (4, 5, 5)), ("LazyConv3d", (2, 2), {}, (1, 3, 3, 3, 3)),
        ("LazyConvTranspose1d", (3, 2), dict(stride=2), (2, 4, 5)),
        ("LazyConvTranspose2d", (8, 3), dict(groups=2), (1, 4, 5, 5)),
        ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 2, 2, 2)),
        ("LazyBatchNorm1d", (), dict(momentum=0.2), (4, 3)), ("LazyBatchNorm2d", (), {}, (2, 3, 4, 4)),
        ("LazyBatchNorm3d", (), dict(affine=False), (2, 3, 2, 2, 2)), ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
        ("LazyInstanceNorm2d", (), dict(affine=False, track_running_stats=False), (2, 3, 4, 4)),
        ("LazyInstanceNorm3d", (), {}, (2, 3, 2, 3, 2))]  # fmt: skip


@pytest.mark.parametrize("name,args,kw,shape", LAZY)
def test_lazy_module_materializes_like_torch(name, args, kw, shape):
    x = torch.randn(shape)
    t, o = _module_pair(name, *args, **kw)
    assert repr(t) == repr(o)
    assert [k for k, _ in t.named_parameters()] == [k for k, _ in o.named_parameters()]
    assert all(tnn.parameter.is_lazy(p) for p in t.parameters())
    assert t.has_uninitialized_params() == o.has_uninitialized_params()
    torch.manual_seed(3)
    tm.manual_seed(3)
    _run_module(t, o, [x], rtol=1e-4, atol=1e-5)
    assert type(t).__name__ == type(o).__name__  # became the eager class
    assert repr(t) == repr(o)
    for (_, a), (_, b) in zip(t.named_parameters(), o.named_parameters()):  # the same default init draws
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    for (k, a), (_, b) in zip(t.state_dict().items(), o.state_dict().items()):
        close(a, b, 1e-5, 1e-6) if a.is_floating_point() else np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert len(t._forward_pre_hooks) == len(o._forward_pre_hooks) == 0


def test_lazy_linear_weights_equal_eager_linear():
    x = tm.randn(2, 3)
    tm.manual_seed(0)
    lazy = tnn.LazyLinear(5)
    lazy(x)
    tm.manual_seed(0)
    eager = tnn.Linear(3, 5)
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), eager.weight.detach().numpy())
    assert isinstance(lazy, tnn.Linear) and type(lazy.weight) is tnn.Parameter


def test_lazy_load_state_dict_and_errors():
    src = torch.nn.Linear(3, 5)
    t, o = tnn.LazyLinear(5), torch.nn.LazyLinear(5)
    t.load_state_dict({k: T(v) for k, v in src.state_dict().items()})
    o.load_state_dict(src.state_dict())
    assert repr(t) == repr(o) and type(t).__name__ == "LazyLinear"
    assert tuple(t.weight.shape) == tuple(o.weight.shape)
    x = torch.randn(2, 3)
    close(t(T(x)), o(x))
    assert repr(t) == repr(o)
    u, ou = tnn.LazyLinear(2), torch.nn.LazyLinear(2)
    assert repr(u.weight) == repr(ou.weight) == "<UninitializedParameter>"
    assert repr(tnn.UninitializedBuffer()) == repr(torch.nn.UninitializedBuffer())
    same_error(lambda: u.weight.shape, lambda: ou.weight.shape)
    c, oc = tnn.LazyConv2d(4, 3), torch.nn.LazyConv2d(4, 3)
    x = torch.randn(3, 5)
    same_error(lambda: c(T(x)), lambda: oc(x))
    c, oc = tnn.LazyConv2d(4, 3, groups=2), torch.nn.LazyConv2d(4, 3, groups=2)
    x = torch.randn(1, 3, 5, 5)
    same_error(lambda: c(T(x)), lambda: oc(x))


# ---- ParameterList / ParameterDict ---------------------------------------------------------------
def _both(build):
    """``build(nn, make_tensor)`` run with torch and with taimatsu on the same values."""
    vals = [torch.randn(2, 3), torch.randn(4, dtype=torch.float64), torch.randn(2), torch.randn(1), torch.randn(3, 3)]
    o = build(torch.nn, lambda i: vals[i].clone())
    t = build(tnn, lambda i: T(vals[i]))
    return t, o


def _pl(nn, v):
    pl = nn.ParameterList([nn.Parameter(v(0)), nn.Parameter(v(1)), v(2)])
    pl.append(nn.Parameter(v(3)))
    pl.extend([v(4), "foo", 3])
    return pl


def _pd(nn, v):
    pd = nn.ParameterDict({"b": nn.Parameter(v(0)), "a": v(1)})
    pd.update([("z", v(2)), ("c", "text")])
    pd["y"] = v(3)
    return pd


class _Holder:
    @staticmethod
    def make(nn, v):
        m = nn.Module()
        m.pl = nn.ParameterList([nn.Parameter(v(2))])
        m.pd = nn.ParameterDict({"x": nn.Parameter(v(3))})
        return m


@pytest.mark.parametrize("build", [_pl, _pd, _Holder.make])
def test_parameter_containers_match_torch(build):
    t, o = _both(build)
    assert repr(t) == repr(o)
    assert [k for k, _ in t.named_parameters()] == [k for k, _ in o.named_parameters()]
    assert list(t.state_dict()) == list(o.state_dict())
    for (_, a), (_, b) in zip(t.named_parameters(), o.named_parameters()):
        close(a, b)
        assert type(a).__name__ == type(b).__name__ == "Parameter"


def test_parameter_list_ops_and_errors():
    t, o = _both(_pl)
    assert len(t) == len(o) == 7
    assert repr(t[1:4]) == repr(o[1:4])
    close(t[-4], o[-4])
    same_error(lambda: t[10], lambda: o[10])
    same_error(lambda: t.extend(T(torch.randn(2))), lambda: o.extend(torch.randn(2)))
    same_error(lambda: t(), lambda: o())
    loss = sum((p * p).sum() for p in list(t)[:5])
    loss.backward()
    assert t[0].grad is not None


def test_parameter_dict_ops_and_errors():
    t, o = _both(_pd)
    assert list(t.keys()) == list(o.keys()) and len(t) == len(o)
    assert ("a" in t) and ("q" not in t) and t.get("q", 1) == 1
    assert repr(t | tnn.ParameterDict({"n": T(torch.ones(1))})) == repr(o | torch.nn.ParameterDict({"n": torch.ones(1)}))
    assert t.popitem()[0] == o.popitem()[0]
    close(t.pop("a"), o.pop("a"))
    assert repr(t) == repr(o)
    same_error(lambda: t[3], lambda: o[3])
    same_error(lambda: t.update(5), lambda: o.update(5))
    same_error(lambda: t.update([("a", 1, 2)]), lambda: o.update([("a", 1, 2)]))
    same_error(lambda: t.update([5]), lambda: o.update([5]))
    t.clear()
    o.clear()
    assert repr(t) == repr(o) == "ParameterDict()"


# ---- smaller additions: 3-D LP pooling and unpooling, pdist, conv_tbc, deprecated aliases, top-level ops --
@pytest.mark.parametrize("norm_type", [2, 1.5, float("inf"), -float("inf")])
def test_lp_pool3d_and_inf_norms(norm_type):
    x = torch.rand(2, 3, 4, 4, 4, requires_grad=True) + 0.1
    t, o = tnn.LPPool3d(norm_type, 2), torch.nn.LPPool3d(norm_type, 2)
    assert repr(t) == repr(o)
    xt = T(x, True)
    check_vjp(t(xt), o(x), [xt], [x], rtol=1e-4, atol=1e-5, name=False)
    x2 = x.detach()[0]
    close(TF.lp_pool2d(T(x2), norm_type, 2, 1), F.lp_pool2d(x2, norm_type, 2, 1), 1e-5, 1e-5)
    close(TF.lp_pool1d(T(x2[0]), norm_type, 2), F.lp_pool1d(x2[0], norm_type, 2), 1e-5, 1e-5)


def test_max_unpool3d():
    x = torch.randn(2, 3, 4, 4, 6)
    o, idx = F.max_pool3d(x, 2, return_indices=True)
    o.requires_grad_()
    t, m = tnn.MaxUnpool3d(2), torch.nn.MaxUnpool3d(2)
    assert repr(t) == repr(m)
    to = T(o, True)
    check_vjp(t(to, T(idx)), m(o, idx), [to], [o], name=False)
    close(t(to, T(idx), output_size=[5, 5, 7]), m(o, idx, output_size=[5, 5, 7]))


@pytest.mark.parametrize("p", [2, 1, 1.5, 0, float("inf")])
def test_pdist(p):
    x = torch.randn(6, 4, dtype=torch.float64, requires_grad=True)
    tx = T(x, True)
    if p == 0:  # (the 0-"norm" counts non-zeros: PyTorch gives a zero gradient, taimatsu no graph)
        close(TF.pdist(tx, p), F.pdist(x, p))
    else:
        check_vjp(TF.pdist(tx, p), F.pdist(x, p), [tx], [x], name=False)
    close(tm.pdist(T(x), p), torch.pdist(x, p))
    if p in (2, 1.5):
        _gradcheck(lambda v: TF.pdist(v, p), np.random.randn(4, 3))


def test_conv_tbc_and_top_level_ops():
    i, w, b = torch.randn(5, 2, 3, requires_grad=True), torch.randn(3, 3, 4), torch.randn(4)
    ti = T(i, True)
    check_vjp(tm.conv_tbc(ti, T(w), T(b), 1), torch.conv_tbc(i, w, b, 1), [ti], [i], rtol=1e-4, atol=1e-5,
              name=False)  # fmt: skip
    x = torch.randn(1, 2, 5)
    (a, ai), (b_, bi) = torch.adaptive_max_pool1d(x, 2), tm.adaptive_max_pool1d(T(x), 2)
    close(b_, a)
    np.testing.assert_array_equal(bi.numpy(), ai.numpy())
    np.testing.assert_array_equal(tm.max_pool1d_with_indices(T(x), 2)[1].numpy(),
                                  torch.max_pool1d_with_indices(x, 2)[1].numpy())  # fmt: skip
    inp, g = torch.randn(1, 2, 3, 3), torch.rand(1, 2, 2, 2) * 2 - 1
    for mode in (0, 1, 2):
        close(tm.grid_sampler(T(inp), T(g), mode, 1, False), torch.grid_sampler(inp, g, mode, 1, False), 1e-5, 1e-5)
    close(tm.grid_sampler_2d(T(inp), T(g), 0, 0, True), torch.grid_sampler_2d(inp, g, 0, 0, True))
    i5, g5 = torch.randn(1, 2, 3, 3, 3), torch.rand(1, 2, 2, 2, 3)
    close(tm.grid_sampler_3d(T(i5), T(g5), 0, 2, False), torch.grid_sampler_3d(i5, g5, 0, 2, False))
    same_error(lambda: tm.grid_sampler_2d(T(i5), T(g5), 0, 0, False), lambda: torch.grid_sampler_2d(i5, g5, 0, 0, False))
    same_error(lambda: tm.grid_sampler_3d(T(inp), T(g), 0, 0, False), lambda: torch.grid_sampler_3d(inp, g, 0, 0, False))
    th = torch.randn(1, 2, 3)
    close(tm.affine_grid_generator(T(th), [1, 1, 3, 3], False), torch.affine_grid_generator(th, [1, 1, 3, 3], False))
    x3 = torch.randn(1, 2, 4, 4, 4)
    close(tm.max_pool3d(T(x3), 2), torch.max_pool3d(x3, 2))
    w3 = torch.randn(3, 2, 2, 2, 2)
    close(tm.conv3d(T(x3), T(w3)), torch.conv3d(x3, w3), 1e-4, 1e-5)
    close(tm.conv_transpose3d(T(x3), T(w3.transpose(0, 1))), torch.conv_transpose3d(x3, w3.transpose(0, 1)), 1e-4, 1e-5)
    c = torch.arange(8.0).view(1, 4, 2)
    close(tm.channel_shuffle(T(c), 2), torch.channel_shuffle(c, 2))
    close(tm.native_channel_shuffle(T(c), 2), torch.native_channel_shuffle(c, 2))
    assert TF.GRID_SAMPLE_INTERPOLATION_MODES == F.GRID_SAMPLE_INTERPOLATION_MODES
    assert TF.GRID_SAMPLE_PADDING_MODES == F.GRID_SAMPLE_PADDING_MODES


def test_deprecated_aliases():
    with pytest.warns(FutureWarning, match="NLLLoss2d` has been deprecated"):
        t = tnn.NLLLoss2d(ignore_index=1)
    with pytest.warns(FutureWarning):
        o = torch.nn.NLLLoss2d(ignore_index=1)
    assert repr(t) == repr(o)
    x, y = torch.randn(2, 3, 4, 4).log_softmax(1), torch.randint(0, 3, (2, 4, 4))
    close(t(T(x), T(y)), o(x, y))
    with pytest.warns(FutureWarning, match="nn.Container` is deprecated"):
        c = tnn.Container(a=tnn.Linear(2, 3))
    with pytest.warns(FutureWarning):
        oc = torch.nn.Container(a=torch.nn.Linear(2, 3))
    assert repr(c) == repr(oc)


# ---- fractional max pooling ----------------------------------------------------------------------
FRACTIONAL = [(2, (2, 3, 7, 9), (2, 3), dict(output_size=(4, 5))), (2, (3, 10, 10), 3, dict(output_size=(5, 6))),
              (2, (1, 1, 5, 5), 2, dict(output_size=4)), (2, (2, 3, 8, 8), 2, dict(output_ratio=0.5)),
              (3, (2, 3, 7, 9, 6), (2, 3, 2), dict(output_size=(4, 5, 3))),
              (3, (3, 6, 6, 6), 2, dict(output_ratio=(0.5, 0.6, 0.7)))]  # fmt: skip


@pytest.mark.parametrize("n,shape,k,kw", FRACTIONAL)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fractional_max_pool_seeded(n, shape, k, kw, dtype):
    x = torch.randn(shape, dtype=dtype, requires_grad=True)
    tx = T(x, True)
    t, o = _module_pair(f"FractionalMaxPool{n}d", k, return_indices=True, **kw)
    assert repr(t) == repr(o)
    torch.manual_seed(7)
    tm.manual_seed(7)
    (ov, oi), (tv, ti) = o(x), t(tx)  # the windows come from the same torch.rand draws
    np.testing.assert_array_equal(ti.numpy(), oi.numpy())
    check_vjp(tv, ov, [tx], [x])


def test_fractional_max_pool_functional_and_errors():
    x = torch.randn(2, 3, 7, 9, requires_grad=True)
    s = torch.rand(2, 3, 2)
    tx = T(x, True)
    o = F.fractional_max_pool2d(x, (2, 3), output_size=(4, 5), _random_samples=s)
    check_vjp(TF.fractional_max_pool2d(tx, (2, 3), output_size=(4, 5), _random_samples=T(s)), o, [tx], [x])
    _gradcheck(lambda v: TF.fractional_max_pool2d(v, 2, output_size=3, _random_samples=tm.tensor([[[0.3, 0.6]]],
               dtype=tm.float64)), np.random.randn(1, 1, 5, 5))  # fmt: skip
    cases = [((1, 2, 5, 5), 2, dict(kernel_size=3, output_size=4)), ((2, 5), 2, dict(kernel_size=2, output_size=2)),
             ((1, 2, 5, 5), 2, dict(kernel_size=2, output_ratio=0.5)), ((1, 2, 5, 5), 2, dict(kernel_size=2)),
             ((1, 2, 5, 5), 2, dict(kernel_size=2, output_size=3, _random_samples=torch.rand(1, 3, 2))),
             ((1, 2, 6, 6, 6), 3, dict(kernel_size=2, output_size=(4, 5, 4))),
             ((1, 2, 5, 5), 2, dict(kernel_size=2, output_ratio=(0.5, 0.5, 0.5))),
             ((1, 2, 5, 5), 2, dict(kernel_size=2, output_size=(3,)))]  # fmt: skip
    for shape, n, kw in cases:
        x = torch.randn(shape)
        tkw = {k: T(v) if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
        fn, tfn = getattr(F, f"fractional_max_pool{n}d"), getattr(TF, f"fractional_max_pool{n}d")
        same_error(lambda: tfn(T(x), **tkw), lambda: fn(x, **kw))
    for kw in [dict(), dict(output_size=2, output_ratio=0.5), dict(output_ratio=1.5)]:
        same_error(lambda: tnn.FractionalMaxPool2d(2, **kw), lambda: torch.nn.FractionalMaxPool2d(2, **kw))
