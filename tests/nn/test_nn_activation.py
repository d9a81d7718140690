"""Activation functions and modules against PyTorch: values, grad_fn names, VJPs, reprs, errors."""

import pytest

import taimatsu as tm
import taimatsu.nn.functional as TF
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
import torch.nn.functional as OF
from nn_oracle import T, check_vjp, close, pair, same_error

pytestmark = pytest.mark.oracle

CASES = [
    ("gelu", (), {}), ("gelu", (), {"approximate": "tanh"}), ("silu", (), {}), ("mish", (), {}),
    ("leaky_relu", (0.2,), {}), ("leaky_relu", (), {}), ("elu", (), {}), ("elu", (0.5,), {}), ("selu", (), {}),
    ("celu", (0.7,), {}), ("softplus", (), {}), ("softplus", (2.0, 1.0), {}), ("hardtanh", (), {}),
    ("hardtanh", (-0.5, 0.7), {}), ("relu6", (), {}), ("hardsigmoid", (), {}), ("hardswish", (), {}),
    ("logsigmoid", (), {}), ("softsign", (), {}), ("tanhshrink", (), {}), ("softshrink", (), {}),
    ("softshrink", (0.2,), {}), ("hardshrink", (0.3,), {}), ("threshold", (0.1, -2.0), {}), ("glu", (), {}),
    ("glu", (1,), {}), ("sigmoid", (), {}), ("tanh", (), {}),
]  # fmt: skip


@pytest.mark.parametrize("name,args,kwargs", CASES, ids=[f"{c[0]}{i}" for i, c in enumerate(CASES)])
def test_functional_activation(name, args, kwargs):
    torch.manual_seed(0)
    (tx,), (ox,) = pair((4, 6))
    ox.data.mul_(3)
    tx.data.copy_(T(ox))
    check_vjp(
        getattr(TF, name)(tx, *args, **kwargs), getattr(OF, name)(ox, *args, **kwargs), [tx], [ox]
    )


@pytest.mark.parametrize(
    "name", ["gelu", "silu", "elu", "softplus", "mish", "hardswish", "logsigmoid"]
)
def test_activation_double_backward(name):
    x = tm.randn(5, dtype=tm.float64, requires_grad=True)
    assert tm.autograd.gradcheck(getattr(TF, name), (x,))
    assert tm.autograd.gradgradcheck(getattr(TF, name), (x,))


@pytest.mark.parametrize("name", ["hardswish", "hardsigmoid", "relu6", "hardtanh"])
@pytest.mark.parametrize("module", [False, True])
def test_hard_activation_kinks(name, module):
    """At the kinks (±3 for hardswish/hardsigmoid) PyTorch picks one side's slope; check both
    orders of derivative, through the functional and the module."""
    vals = [-6.0, -3.0001, -3.0, -2.9999, -1.0, -0.0, 0.0, 1.0, 2.9999, 3.0, 3.0001, 6.0]
    ox = torch.tensor(vals, dtype=torch.float64, requires_grad=True)
    tx = T(ox, True)
    cls = {"hardswish": "Hardswish", "hardsigmoid": "Hardsigmoid", "relu6": "ReLU6"}.get(
        name, "Hardtanh"
    )
    of = getattr(onn, cls)() if module else getattr(OF, name)
    tf = getattr(tnn, cls)() if module else getattr(TF, name)
    o_out, t_out = of(ox), tf(tx)
    close(t_out, o_out)
    g = torch.randn(len(vals), dtype=torch.float64)
    (og,) = torch.autograd.grad(o_out, ox, g, create_graph=True)
    (tg,) = tm.autograd.grad(t_out, tx, T(g), create_graph=True)
    close(tg, og)
    if name == "hardswish":  # second order (PyTorch has none for the others), another cotangent
        h = torch.randn(len(vals), dtype=torch.float64)
        (ogg,) = torch.autograd.grad(og, ox, h, allow_unused=True)
        (tgg,) = tm.autograd.grad(tg, tx, T(h), allow_unused=True)
        close(tgg, ogg if ogg is not None else torch.zeros(len(vals), dtype=torch.float64))


def test_activation_inplace_and_errors():
    for name, args in [("leaky_relu", (0.1,)), ("elu", ()), ("hardtanh", ()), ("relu6", ()), ("silu", ()),
                       ("threshold", (0.0, 1.0)), ("hardswish", ()), ("selu", ())]:  # fmt: skip
        ox = torch.randn(3, 4)
        tx = T(ox)
        o = getattr(OF, name)(ox, *args, inplace=True)
        t = getattr(TF, name)(tx, *args, inplace=True)
        assert t is tx and o is ox
        close(tx, ox)
    # in-place on a non-leaf keeps the graph right
    oa = torch.randn(3, 4, requires_grad=True)
    ta = T(oa, True)
    ob, tb = OF.leaky_relu(oa * 2, 0.1, inplace=True), TF.leaky_relu(ta * 2, 0.1, inplace=True)
    ob.sum().backward()
    tb.sum().backward()
    close(ta.grad, oa.grad)
    for name in ["gelu", "silu", "elu", "softplus", "mish", "logsigmoid", "hardswish", "glu"]:
        same_error(
            lambda: getattr(TF, name)(tm.tensor([1, 2])),  # noqa: B023
            lambda: getattr(OF, name)(torch.tensor([1, 2])),  # noqa: B023
        )
    same_error(lambda: TF.glu(tm.randn(3)), lambda: OF.glu(torch.randn(3)))


def test_prelu():
    torch.manual_seed(0)
    for shape, n in [((2, 3, 4), 3), ((2, 3, 4), 1), ((5,), 1), ((2, 3), 3)]:
        (tx, tw), (ox, ow) = pair(shape, (n,))
        check_vjp(TF.prelu(tx, tw), OF.prelu(ox, ow), [tx, tw], [ox, ow])


MODULES = [
    lambda nn: nn.GELU(), lambda nn: nn.GELU("tanh"), lambda nn: nn.SiLU(), lambda nn: nn.SiLU(True),
    lambda nn: nn.Mish(), lambda nn: nn.LeakyReLU(), lambda nn: nn.LeakyReLU(0.2, True), lambda nn: nn.ELU(),
    lambda nn: nn.ELU(0.5, True), lambda nn: nn.SELU(), lambda nn: nn.CELU(), lambda nn: nn.Softplus(),
    lambda nn: nn.Softplus(2, 5), lambda nn: nn.Hardtanh(), lambda nn: nn.Hardtanh(-2, 3), lambda nn: nn.ReLU6(),
    lambda nn: nn.ReLU6(True), lambda nn: nn.Hardsigmoid(), lambda nn: nn.Hardswish(), lambda nn: nn.LogSigmoid(),
    lambda nn: nn.Softsign(), lambda nn: nn.Tanhshrink(), lambda nn: nn.Softshrink(), lambda nn: nn.Hardshrink(0.3),
    lambda nn: nn.Threshold(0.1, 20), lambda nn: nn.GLU(), lambda nn: nn.PReLU(), lambda nn: nn.PReLU(6),
    lambda nn: nn.Softmin(1), lambda nn: nn.Softmax2d(), lambda nn: nn.LogSoftmax(dim=1), lambda nn: nn.Sigmoid(),
]  # fmt: skip


@pytest.mark.parametrize("make", MODULES)
def test_activation_modules(make):
    torch.manual_seed(0)
    o = make(onn)
    t = make(tnn)
    assert repr(t) == repr(o)
    for (tk, tv), (ok, ov) in zip(t.state_dict().items(), o.state_dict().items()):
        assert tk == ok
        close(tv, ov)
    ox = torch.randn(3, 6, 4, 2)
    close(t(T(ox)), o(ox.clone()))


def test_softmax_dtype_and_tensor_methods():
    ox = torch.randn(3, 4, requires_grad=True)
    tx = T(ox, True)
    check_vjp(
        TF.softmax(tx, 1, dtype=tm.float64), OF.softmax(ox, 1, dtype=torch.float64), [tx], [ox]
    )
    check_vjp(
        TF.log_softmax(tx, 0, dtype=tm.float64),
        OF.log_softmax(ox, 0, dtype=torch.float64),
        [tx],
        [ox],
    )
    check_vjp(tx.softmax(-1), ox.softmax(-1), [tx], [ox])
    check_vjp(tx.log_softmax(dim=0), ox.log_softmax(dim=0), [tx], [ox])
    check_vjp(tm.softmax(tx, 1), torch.softmax(ox, 1), [tx], [ox])
    check_vjp(tm.log_softmax(tx, 1), torch.log_softmax(ox, 1), [tx], [ox])


def test_leaky_relu_in_place_node():
    """leaky_relu_ saves its result (LeakyReluBackward1), and refuses the backward for a negative
    slope, as PyTorch."""
    import torch

    def program(T):
        x = T.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        y = x.clone()
        T.nn.functional.leaky_relu_(y, 0.2)
        out = [type(y.grad_fn).__name__, y.grad_fn._saved_result.tolist()]
        (y * T.tensor([1.0, 2.0, 3.0])).sum().backward()
        out.append(x.grad.tolist())
        z = T.tensor([-1.0, 2.0], requires_grad=True).clone()
        T.nn.LeakyReLU(-0.5, inplace=True)(z)
        try:
            z.sum().backward()
        except RuntimeError as e:
            out.append(str(e))
        return out

    assert program(tm) == program(torch)


@pytest.mark.parametrize("shape", [(7,), (32, 16, 8, 8)])
def test_relu_keeps_the_sign_of_zero_and_nan(shape):
    # PyTorch's relu is max(0, x) with x kept at a tie: relu(-0.) is -0.; NaNs pass unchanged.
    # Both the kept-zeros path (contiguous float) and the scalar one (strided) are checked.
    import numpy as np

    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[:5] = [-0.0, np.nan, -np.nan, np.inf, -np.inf]
    for a in (x, x[..., ::2]):
        want = torch.relu(torch.from_numpy(np.ascontiguousarray(a))).numpy()
        for got in (
            tm.relu(tm.from_numpy(a)),
            TF.relu(tm.from_numpy(a)),
            tnn.ReLU()(tm.from_numpy(a)),
        ):
            np.testing.assert_array_equal(got.numpy().view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("slope", [0.01, 0.2, 1.0, 0.0, -0.5, 2.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_leaky_relu_bits_at_zeros_nans_and_infinities(slope, dtype):
    # maximum(x, x * slope) for slopes in (0, 1] on contiguous arrays, where(...) otherwise:
    # PyTorch's x if x > 0 else x * slope, bit for bit
    import numpy as np

    x = np.random.default_rng(1).standard_normal((40, 64)).astype(dtype)
    x.reshape(-1)[:7] = [
        -0.0,
        0.0,
        np.nan,
        -np.nan,
        np.inf,
        -np.inf,
        5e-324 if dtype == "float64" else 1e-45,
    ]
    uint = np.uint32 if dtype == "float32" else np.uint64
    g = np.random.default_rng(2).standard_normal(x.shape).astype(dtype)
    g.reshape(-1)[7:11] = [-0.0, np.nan, np.inf, -np.inf]
    for a, ga in ((x, g), (x[:, ::2], g[:, ::2])):
        ox = torch.from_numpy(np.ascontiguousarray(a)).requires_grad_()
        want = OF.leaky_relu(ox, slope)
        want.backward(torch.from_numpy(np.ascontiguousarray(ga)))
        tx = tm.from_numpy(a).requires_grad_()
        got = TF.leaky_relu(tx, slope)
        got.backward(tm.from_numpy(ga))
        np.testing.assert_array_equal(
            got.detach().numpy().view(uint), want.detach().numpy().view(uint)
        )
        np.testing.assert_array_equal(tx.grad.numpy().view(uint), ox.grad.numpy().view(uint))


@pytest.mark.parametrize("name,args", [("threshold", (0.1, -2.0)), ("threshold", (0.0, 0.0)),
                                       ("hardshrink", (0.5,)), ("hardshrink", (0.0,))])  # fmt: skip
def test_masked_activations_bits_on_large_arrays(name, args):
    # threshold / hardshrink select by bit masks on contiguous float arrays of 1024+ elements
    import numpy as np

    x = np.random.default_rng(3).standard_normal((64, 48)).astype(np.float32)
    x.reshape(-1)[:7] = [-0.0, 0.0, np.nan, np.inf, -np.inf, 0.1, -0.5]
    for a in (x, x[:, ::2]):
        want = getattr(OF, name)(torch.from_numpy(np.ascontiguousarray(a)), *args).numpy()
        got = getattr(TF, name)(tm.from_numpy(a), *args).numpy()
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("name,args", [("hardtanh", ()), ("relu6", ()), ("threshold", (0.1, 0.0)),
                                       ("hardshrink", (0.5,)), ("softshrink", (0.5,)), ("hardsigmoid", ()),
                                       ("hardswish", ())])  # fmt: skip
@pytest.mark.parametrize("create_graph", [False, True])
def test_masked_backward_gives_zero_for_nan_and_inf_gradients(name, args, create_graph):
    # PyTorch's backward kernels choose between g (scaled) and 0: a NaN or infinite gradient
    # where the derivative is 0 gives 0, not g * 0
    import numpy as np

    x = np.array([-2.0, 0.5, 3.0, -4.0, 4.0, 0.3, -3.0, -1.5] * 200, np.float32)
    g = np.array([np.nan, np.inf, np.nan, -np.inf, 2.0, -np.inf, np.nan, np.nan] * 200, np.float32)
    grads = []
    for lib, F in ((torch, OF), (tm, TF)):
        xt = lib.tensor(x, requires_grad=True)
        y = getattr(F, name)(xt, *args)
        (gx,) = lib.autograd.grad(y, xt, lib.tensor(g), create_graph=create_graph)
        grads.append(gx.detach().numpy())
    np.testing.assert_array_equal(grads[1].view(np.uint32), grads[0].view(np.uint32))
