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
