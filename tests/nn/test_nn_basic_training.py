"""taimatsu.nn (first slice) against PyTorch: losses, training loops, forward-mode AD, dtype and
shape errors. (Parameters, modules and layers: test_nn_basic.py.)

Identical weights go into both frameworks (through state_dict), then outputs, gradients (random
cotangents), grad_fn names and error messages are compared.
"""

import math
import warnings

import numpy as np
import pytest

import taimatsu as tm
import taimatsu.nn.functional as TF
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
import torch.nn.functional as OF

pytestmark = pytest.mark.oracle

from nn_oracle import T, check_vjp, close, same_error  # noqa: E402


# ---- losses ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss(reduction):
    x = torch.randn(4, 3, requires_grad=True)
    y = torch.randn(4, 3, requires_grad=True)
    tx, ty = T(x, True), T(y, True)
    check_vjp(
        tnn.MSELoss(reduction=reduction)(tx, ty),
        onn.MSELoss(reduction=reduction)(x, y),
        [tx, ty],
        [x, y],
    )
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = TF.mse_loss(tx, ty[0], reduction=reduction)
    assert "Using a target size (torch.Size([3])) that is different to the input size" in str(
        w[0].message
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o = OF.mse_loss(x, y[0], reduction=reduction)
    check_vjp(t, o, [tx, ty], [x, y])
    same_error(
        lambda: TF.mse_loss(tx, ty, reduction="foo"), lambda: OF.mse_loss(x, y, reduction="foo")
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(
    "kw", [{}, {"weight": [0.2, 1.0, 3.0, 0.5]}, {"ignore_index": 1}, {"label_smoothing": 0.1},
           {"weight": [0.2, 1.0, 3.0, 0.5], "ignore_index": 2, "label_smoothing": 0.2}],
)  # fmt: skip
@pytest.mark.parametrize("shape", [(5, 4), (4,), (2, 4, 3), (2, 4, 3, 2)])
def test_cross_entropy_and_nll(reduction, kw, shape):
    torch.manual_seed(0)
    x = torch.randn(shape, requires_grad=True)
    tshape = () if len(shape) == 1 else (shape[0], *shape[2:])
    target = torch.randint(0, 4, tshape)
    o_kw = {k: torch.tensor(v) if k == "weight" else v for k, v in kw.items()}
    t_kw = {k: tm.tensor(v) if k == "weight" else v for k, v in kw.items()}
    tx, tt = T(x, True), T(target)
    check_vjp(
        TF.cross_entropy(tx, tt, reduction=reduction, **t_kw),
        OF.cross_entropy(x, target, reduction=reduction, **o_kw),
        [tx], [x],
    )  # fmt: skip
    module_t = tnn.CrossEntropyLoss(reduction=reduction, **t_kw)
    module_o = onn.CrossEntropyLoss(reduction=reduction, **o_kw)
    close(module_t(tx, tt), module_o(x, target))
    assert list(module_t.state_dict()) == list(module_o.state_dict())
    kw.pop("label_smoothing", None)
    o_kw.pop("label_smoothing", None)
    t_kw.pop("label_smoothing", None)
    lp = OF.log_softmax(x, 0 if len(shape) == 1 else 1).detach().requires_grad_()
    tlp = T(lp, True)
    check_vjp(
        tnn.NLLLoss(reduction=reduction, **t_kw)(tlp, tt), onn.NLLLoss(reduction=reduction, **o_kw)(lp, target),
        [tlp], [lp],
    )  # fmt: skip


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_probabilities(reduction):
    torch.manual_seed(0)
    x = torch.randn(3, 5, requires_grad=True)
    p = torch.randn(3, 5).softmax(1)
    tx = T(x, True)
    t = TF.cross_entropy(tx, T(p), reduction=reduction, label_smoothing=0.1)
    o = OF.cross_entropy(x, p, reduction=reduction, label_smoothing=0.1)
    close(t, o)
    assert t.grad_fn.name() == o.grad_fn.name()  # mean: DivBackward1 (a C++ Scalar division)
    g = torch.randn(o.shape)
    close(tm.autograd.grad(t, tx, T(g))[0], torch.autograd.grad(o, x, g)[0])


def test_loss_errors():
    def cases(F, mk):
        return [
            lambda: F.cross_entropy(mk.randn(3, 4), mk.tensor([0, 1, 5])),
            lambda: F.cross_entropy(mk.randn(3, 4), mk.tensor([0, 1, 2], dtype=mk.int32)),
            lambda: F.nll_loss(mk.randn(3, 4), mk.tensor([0, 1, 2], dtype=mk.int32)),
            lambda: F.cross_entropy(mk.randn(3, 4), mk.tensor([0.0, 1, 2])),
            lambda: F.cross_entropy(mk.randn(3, 4), mk.tensor([0, 1])),
            lambda: F.cross_entropy(mk.randn(3, 4), mk.tensor([0, 1, 2]), reduction="foo"),
        ]

    for tf, of in zip(cases(TF, tm), cases(OF, torch)):
        same_error(tf, of)


# ---- a training loop -------------------------------------------------------------------------------
def _train(nn, mk, F, x, y, steps=20, lr=0.1):
    mk.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3)
    )
    losses = []
    for _ in range(steps):
        loss = F.cross_entropy(model(x), y)
        model.zero_grad()
        loss.backward()
        with mk.no_grad():
            for p in model.parameters():
                p.data.add_(-lr * p.grad)
        losses.append(loss.item())
    return losses, model


def test_sgd_training_loop_matches_pytorch():
    torch.manual_seed(1)
    x = torch.randn(32, 4)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
    o_losses, o_model = _train(onn, torch, OF, x, y)
    t_losses, t_model = _train(tnn, tm, TF, T(x), T(y))
    np.testing.assert_allclose(t_losses, o_losses, rtol=1e-5)
    assert t_losses[-1] < t_losses[0]
    for tp, op in zip(t_model.parameters(), o_model.parameters()):
        close(tp, op, rtol=1e-4, atol=1e-5)


def test_conv_net_training_step_matches_pytorch():
    """The tutorial net of seed 1: conv, pool, linear, MSE; a few SGD steps."""

    def build(nn, F):
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 6, 3)
                self.conv2 = nn.Conv2d(6, 16, 3)
                self.fc1 = nn.Linear(16 * 6 * 6, 120)
                self.fc2 = nn.Linear(120, 84)
                self.fc3 = nn.Linear(84, 10)

            def forward(self, x):
                x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
                x = F.max_pool2d(F.relu(self.conv2(x)), 2)
                x = x.view(x.size(0), -1)
                return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

        return Net()

    torch.manual_seed(0)
    o = build(onn, OF)
    tm.manual_seed(0)
    t = build(tnn, TF)
    x, target = torch.randn(2, 1, 32, 32), torch.randn(2, 10)
    for _ in range(3):
        ol = onn.MSELoss()(o(x), target)
        tl = tnn.MSELoss()(t(T(x)), T(target))
        assert tl.grad_fn.name() == "MseLossBackward0"
        close(tl, ol, rtol=1e-5)
        o.zero_grad(), t.zero_grad()
        ol.backward(), tl.backward()
        for tp, op in zip(t.parameters(), o.parameters()):
            close(tp.grad, op.grad, rtol=1e-4, atol=1e-6)
            with torch.no_grad():
                op.add_(-0.01 * op.grad)
            tp.data.add_(-0.01 * tp.grad)
    assert math.isfinite(tl.item())


# ---- forward-mode AD -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    [
        "conv2d",
        "unfold",
        "max_pool2d",
        "softmax",
        "log_softmax",
        "mse_loss",
        "cross_entropy",
        "linear",
    ],
)
def test_jvp_matches_pytorch(name):
    from torch.func import jvp

    import taimatsu.autograd.forward_ad as tfw

    torch.manual_seed(0)
    w = torch.randn(4, 3, 3, 3, dtype=torch.float64)
    target = torch.randn(2, 3, 6, 5, dtype=torch.float64)
    labels = torch.tensor([1, 0])
    fns = {
        "conv2d": lambda F, x, mk: F.conv2d(x, mk(w), stride=2, padding=1),
        "unfold": lambda F, x, mk: F.unfold(x, 2, padding=1),
        "max_pool2d": lambda F, x, mk: F.max_pool2d(x, 2, ceil_mode=True),
        "softmax": lambda F, x, mk: F.softmax(x, 1),
        "log_softmax": lambda F, x, mk: F.log_softmax(x, -1),
        "mse_loss": lambda F, x, mk: F.mse_loss(x, mk(target)),
        "cross_entropy": lambda F, x, mk: F.cross_entropy(x.flatten(1), mk(labels)),
        "linear": lambda F, x, mk: F.linear(x, mk(torch.randn(2, 5, dtype=torch.float64))),
    }
    x = torch.randn(2, 3, 6, 5, dtype=torch.float64)
    v = torch.randn_like(x)
    fn = fns[name]
    torch.manual_seed(1)
    o_out, o_tan = jvp(lambda a: fn(OF, a, lambda t: t), (x,), (v,))
    torch.manual_seed(1)
    with tfw.dual_level():
        out = fn(TF, tfw.make_dual(T(x), T(v)), T)
        t_out, t_tan = tfw.unpack_dual(out)
    close(t_out, o_out, rtol=1e-10, atol=1e-10)
    close(t_tan, o_tan, rtol=1e-10, atol=1e-10)


def test_dtype_and_shape_errors():
    def cases(nn, F, mk):
        x, w, b = mk.ones(1, 2), mk.ones(2, 2, dtype=mk.float64), mk.ones(2)
        xi, wi = mk.ones(1, 1, 5, 5), mk.ones(2, 1, 3, 3)
        return [
            lambda: F.linear(x, w),
            lambda: F.linear(x, w, b),
            lambda: F.linear(x, w.float(), b.double()),
            lambda: F.linear(mk.ones(2, 1, 2), w, b),
            lambda: F.linear(mk.ones(1, 2, dtype=mk.int64), w.float(), b),
            lambda: F.conv2d(xi, wi.double()),
            lambda: F.conv2d(xi.double(), wi),
            lambda: F.conv2d(xi, wi, mk.ones(2).double()),
            lambda: F.conv2d(xi, wi.double(), mk.ones(2).double()),
            lambda: nn.Sequential(nn.Linear(2, 3), nn.Linear(2, 1))(mk.ones(4, 2)),
            lambda: nn.MSELoss()(mk.randn(3), mk.randn(3, 2)),
        ]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for tf, of in zip(cases(tnn, TF, tm), cases(onn, OF, torch)):
            same_error(tf, of)
    # Integer convolution works in PyTorch too.
    xi, wi = torch.randint(0, 5, (1, 2, 4, 4)), torch.randint(0, 5, (3, 2, 2, 2))
    assert TF.conv2d(T(xi), T(wi)).tolist() == OF.conv2d(xi, wi).tolist()
