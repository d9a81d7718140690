"""taimatsu.nn (first slice) against PyTorch: parameters and init, module structure, reprs,
state_dict, and layers. (Losses, training loops, forward AD: test_nn_basic_training.py.)

Identical weights go into both frameworks (through state_dict), then outputs, gradients (random
cotangents), grad_fn names, printed text and error messages are compared.
"""

import warnings
from collections import OrderedDict

import numpy as np
import pytest

import taimatsu as tm
import taimatsu.nn.functional as TF
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
import torch.nn.functional as OF

pytestmark = pytest.mark.oracle

from nn_oracle import T, check_vjp, close, copy_weights, same_error  # noqa: E402


# ---- Parameter and default initialisation ------------------------------------------------------
def test_parameter_repr_and_flags():
    p = tnn.Parameter(tm.tensor([1.0, 2.0]))
    q = onn.Parameter(torch.tensor([1.0, 2.0]))
    assert repr(p) == repr(q)
    assert p.requires_grad and p.is_leaf and isinstance(p, tm.Tensor)
    assert repr(tnn.Parameter(tm.ones(2), requires_grad=False)) == repr(
        onn.Parameter(torch.ones(2), False)
    )
    # A Parameter shares memory with the tensor it wraps; ops on it give plain tensors.
    base = tm.zeros(3)
    p = tnn.Parameter(base)
    base.add_(1)
    assert p.tolist() == [1.0, 1.0, 1.0]
    assert type(p * 2) is tm.Tensor
    same_error(
        lambda: tnn.Parameter(tm.tensor([1, 2])), lambda: onn.Parameter(torch.tensor([1, 2]))
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.Linear(3, 2),
        lambda nn: nn.Linear(30, 64),
        lambda nn: nn.Linear(5, 4, bias=False),
        lambda nn: nn.Conv2d(1, 6, 3),
        lambda nn: nn.Conv2d(4, 8, (3, 5), stride=2, padding=1, groups=2),
        lambda nn: nn.Sequential(nn.Conv2d(2, 3, 3, bias=False), nn.ReLU(), nn.Linear(7, 3)),
    ],
)
def test_default_init_matches_pytorch(make):
    torch.manual_seed(0)
    o = make(onn)
    o_next = torch.rand(3)
    tm.manual_seed(0)
    t = make(tnn)
    t_next = tm.rand(3)
    for (tk, tv), (ok, ov) in zip(t.state_dict().items(), o.state_dict().items()):
        assert tk == ok
        close(tv, ov, rtol=0, atol=0)
    close(t_next, o_next, rtol=0, atol=0)  # the generator was consumed the same way
    assert repr(next(t.parameters())) == repr(next(o.parameters()))


def test_init_functions():
    for name, args in [
        ("uniform_", (-2.0, 3.0)), ("normal_", (1.0, 0.5)), ("xavier_uniform_", ()), ("xavier_normal_", (2.0,)),
        ("kaiming_uniform_", ()), ("kaiming_normal_", (0, "fan_out", "relu")), ("constant_", (0.25,)),
        ("zeros_", ()), ("ones_", ()),
    ]:  # fmt: skip
        torch.manual_seed(1)
        o = getattr(onn.init, name)(torch.empty(4, 5, 3), *args)
        tm.manual_seed(1)
        t = getattr(tnn.init, name)(tm.empty(4, 5, 3), *args)
        close(t, o, rtol=1e-6, atol=1e-7)
    for args in [
        ("linear",),
        ("relu",),
        ("tanh",),
        ("leaky_relu",),
        ("leaky_relu", 0.2),
        ("selu",),
        ("conv2d",),
    ]:
        assert tnn.init.calculate_gain(*args) == onn.init.calculate_gain(*args)
    same_error(lambda: tnn.init.calculate_gain("foo"), lambda: onn.init.calculate_gain("foo"))
    same_error(
        lambda: tnn.init.calculate_gain("leaky_relu", True),
        lambda: onn.init.calculate_gain("leaky_relu", True),
    )
    same_error(
        lambda: tnn.init.xavier_uniform_(tm.empty(3)),
        lambda: onn.init.xavier_uniform_(torch.empty(3)),
    )
    same_error(
        lambda: tnn.init.kaiming_uniform_(tm.empty(3, 3), mode="fan"),
        lambda: onn.init.kaiming_uniform_(torch.empty(3, 3), mode="fan"),
    )


def test_dirac_init():
    shapes = [((4, 2, 3), 2), ((6, 3, 3, 3), 1), ((4, 4, 3, 2, 5), 2), ((2, 5, 3), 1),
              ((5, 2, 3, 3), 1), ((6, 2, 4, 4), 3), ((3, 0, 3), 1)]  # fmt: skip
    for shape, groups in shapes:
        o = onn.init.dirac_(torch.full(shape, 7.0), groups)
        t = tnn.init.dirac_(tm.full(shape, 7.0), groups)
        close(t, o)
    ot = torch.randn(4, 2, 3, requires_grad=True)  # a leaf parameter: written without a graph
    tt = T(ot, True)
    assert tnn.init.dirac_(tt) is tt and tt.requires_grad and tt.grad_fn is None
    w = onn.init.dirac_(torch.empty(3, 3, 5))  # an identity conv1d
    x = torch.randn(2, 3, 7)
    close(TF.conv1d(T(x), T(w), padding=2), x)
    for shape, groups in [((2, 2), 1), ((3, 2, 3), 2), ((2, 2, 2, 2, 2, 2), 1)]:
        same_error(
            lambda: tnn.init.dirac_(tm.empty(shape), groups),  # noqa: B023
            lambda: onn.init.dirac_(torch.empty(shape), groups),  # noqa: B023
        )


@pytest.mark.parametrize(
    "name, shape, args",
    [
        ("trunc_normal_", (40, 30), {}),  # most of the mass inside: normal draws, redrawn
        ("trunc_normal_", (6, 5), {"std": 0.02}),
        ("trunc_normal_", (50,), {"a": 1.0, "b": 3.0}),  # 16% of the mass: rejection sampling
        ("trunc_normal_", (7, 3), {"mean": 5.0}),
        ("orthogonal_", (5, 3), {}),
        ("orthogonal_", (3, 5), {"gain": 2.0}),
        ("orthogonal_", (2, 3, 2), {}),
        ("sparse_", (6, 4), {"sparsity": 0.4, "std": 1.0}),
    ],
)
def test_seeded_init_draws_pytorch_numbers(name, shape, args):
    """Seeded, the same draws as PyTorch's (values to float32 rounding, QR's included), and the
    generator left in the same place."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # trunc_normal_'s 'mean is more than 2 std' (both)
        torch.manual_seed(3)
        o = getattr(onn.init, name)(torch.empty(shape), **args)
        tm.manual_seed(3)
        t = getattr(tnn.init, name)(tm.empty(shape), **args)
    close(t, o, rtol=1e-5, atol=1e-6)
    close(tm.rand(3), torch.rand(3), rtol=0, atol=0)


def test_orthogonal_sparse_errors_and_deprecated_names():
    same_error(
        lambda: tnn.init.orthogonal_(tm.empty(3)), lambda: onn.init.orthogonal_(torch.empty(3))
    )
    same_error(
        lambda: tnn.init.sparse_(tm.empty(3), 0.1), lambda: onn.init.sparse_(torch.empty(3), 0.1)
    )
    assert tnn.init.orthogonal_(tm.empty(0, 3)).shape == (0, 3)
    for name in ["orthogonal", "sparse", "eye", "dirac"]:
        with pytest.warns(FutureWarning, match=f"`nn.init.{name}` is now deprecated"):
            getattr(tnn.init, name)(tm.empty(2, 2, 1) if name == "dirac" else tm.empty(2, 2), *(
                (0.5,) if name == "sparse" else ()))  # fmt: skip


# ---- Module structure, repr, state_dict ----------------------------------------------------------
def _net(nn):
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 3, 3, padding="same", bias=False)
            self.register_buffer("running", tm.zeros(3) if nn is tnn else torch.zeros(3))
            self.register_buffer(
                "scratch", tm.ones(1) if nn is tnn else torch.ones(1), persistent=False
            )

        def forward(self, x):
            return self.conv(x).relu()

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 3, kernel_size=3, stride=1, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
                Block(), nn.Dropout(0.25), nn.Flatten(),
            )  # fmt: skip
            self.heads = nn.ModuleList([nn.Linear(12, 4) for _ in range(3)] + [nn.Identity()])
            self.extra = nn.ModuleDict({"out": nn.Linear(4, 2, bias=False), "act": nn.ReLU()})
            self.scale = nn.Parameter(tm.ones(1) if nn is tnn else torch.ones(1))
            self.loss = nn.CrossEntropyLoss()

        def forward(self, x):
            h = self.features(x)
            for head in self.heads:
                h = head(h) if not isinstance(head, nn.Linear) or h.shape[-1] == 12 else h
            return self.extra["out"](self.extra["act"](h)) * self.scale

    return Net()


def test_print_model_and_registries():
    torch.manual_seed(0)
    o = _net(onn)
    tm.manual_seed(0)
    t = _net(tnn)
    assert repr(t) == repr(o)
    assert [n for n, _ in t.named_parameters()] == [n for n, _ in o.named_parameters()]
    assert [n for n, _ in t.named_buffers()] == [n for n, _ in o.named_buffers()]
    assert [n for n, _ in t.named_modules()] == [n for n, _ in o.named_modules()]
    assert [n for n, _ in t.named_children()] == [n for n, _ in o.named_children()]
    assert [type(m).__name__ for m in t.modules()] == [type(m).__name__ for m in o.modules()]
    assert list(t.state_dict()) == list(o.state_dict())
    assert "features.3.scratch" not in t.state_dict()
    copy_weights(t, o)
    x = torch.randn(2, 1, 4, 4)
    t.eval(), o.eval()
    close(t(T(x)), o(x), rtol=1e-4, atol=1e-5)
    assert not t.features[4].training and not t.training
    t.train()
    assert t.features[4].training


def test_reprs_of_layers():
    for make in [
        lambda nn: nn.Conv2d(4, 8, 3, padding="same", bias=False, groups=2, dilation=2),
        lambda nn: nn.Conv2d(4, 8, (3, 5), stride=(2, 1), padding=(1, 2)),
        lambda nn: nn.Conv2d(4, 8, 3, padding="valid"),
        lambda nn: nn.MaxPool2d((2, 3), stride=1, padding=1, dilation=2, ceil_mode=True),
        lambda nn: nn.MaxPool2d(2),
        lambda nn: nn.Sequential(OrderedDict([("a", nn.Linear(2, 2)), ("b", nn.Softmax(dim=1))])),
        lambda nn: nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Linear(1, 1), nn.ReLU()]),
        lambda nn: nn.ModuleList(),
        lambda nn: nn.Sequential(),
        lambda nn: nn.ModuleDict({"x": nn.Sequential(nn.Linear(1, 2), nn.LogSoftmax(1))}),
        lambda nn: nn.NLLLoss(),
        lambda nn: nn.MSELoss(reduction="sum"),
        lambda nn: nn.Dropout(p=0.1, inplace=True),
        lambda nn: nn.Flatten(0, 2),
        lambda nn: nn.Softmax(),
    ]:
        assert repr(make(tnn)) == repr(make(onn))


def test_containers():
    torch.manual_seed(0)
    o = onn.Sequential(onn.Linear(2, 3), onn.ReLU(), onn.Linear(3, 1))
    tm.manual_seed(0)
    t = tnn.Sequential(tnn.Linear(2, 3), tnn.ReLU(), tnn.Linear(3, 1))
    assert repr(t[1:]) == repr(o[1:]) and repr(t[-1]) == repr(o[-1]) and len(t) == 3
    same_error(lambda: t[3], lambda: o[3])
    del t[1], o[1]
    assert list(t.state_dict()) == list(o.state_dict())
    t.append(tnn.ReLU()), o.append(onn.ReLU())
    t.insert(0, tnn.Identity()), o.insert(0, onn.Identity())
    assert repr(t) == repr(o)
    ml_t, ml_o = tnn.ModuleList([tnn.ReLU()]), onn.ModuleList([onn.ReLU()])
    ml_t.extend([tnn.Linear(1, 1)]), ml_o.extend([onn.Linear(1, 1)])
    ml_t += [tnn.Tanh()]
    ml_o += [onn.Tanh()]
    assert repr(ml_t) == repr(ml_o) and repr(ml_t[1:]) == repr(ml_o[1:])
    same_error(lambda: ml_t[5], lambda: ml_o[5])
    md_t, md_o = tnn.ModuleDict(), onn.ModuleDict()
    md_t["b"], md_o["b"] = tnn.ReLU(), onn.ReLU()
    md_t.update([("a", tnn.Sigmoid())]), md_o.update([("a", onn.Sigmoid())])
    assert list(md_t) == list(md_o) and "a" in md_t and repr(md_t) == repr(md_o)


def test_load_state_dict_errors():
    torch.manual_seed(0)
    o = onn.Sequential(onn.Linear(2, 3), onn.Linear(3, 1))
    t = tnn.Sequential(tnn.Linear(2, 3), tnn.Linear(3, 1))
    sd_o = o.state_dict()
    sd_t = {k: T(v) for k, v in sd_o.items()}
    assert (
        repr(t.load_state_dict(sd_t))
        == repr(o.load_state_dict(sd_o))
        == "<All keys matched successfully>"
    )
    for edit in [
        lambda d: d.pop("1.bias"),
        lambda d: d.__setitem__("2.weight", d["1.weight"]),
        lambda d: (d.pop("0.weight"), d.__setitem__("extra", d["1.bias"])),
        lambda d: d.__setitem__("0.bias", d["1.bias"]),
        lambda d: d.__setitem__("0.bias", 3),
    ]:
        bad_o, bad_t = OrderedDict(sd_o), OrderedDict(sd_t)
        edit(bad_o), edit(bad_t)
        same_error(
            lambda t_sd=bad_t: t.load_state_dict(t_sd), lambda o_sd=bad_o: o.load_state_dict(o_sd)
        )
    bad_o, bad_t = OrderedDict(sd_o), OrderedDict(sd_t)
    del bad_o["0.weight"], bad_t["0.weight"]
    bad_o["x.y"], bad_t["x.y"] = torch.ones(1), tm.ones(1)
    assert repr(t.load_state_dict(bad_t, strict=False)) == repr(
        o.load_state_dict(bad_o, strict=False)
    )
    same_error(lambda: t.load_state_dict([1]), lambda: o.load_state_dict([1]))
    close(t[0].bias, o[0].bias)


def test_module_attribute_errors():
    for nn, mk in ((tnn, tm), (onn, torch)):
        m = nn.Linear(2, 2)
        m.scratch = 3  # a plain attribute
        assert m.scratch == 3

    def cases(nn, mk):
        m = nn.Linear(2, 2)
        return [
            lambda: setattr(m, "weight", mk.ones(2, 2)),
            lambda: m.register_buffer("weight", mk.ones(1)),
            lambda: m.register_buffer("a.b", mk.ones(1)),
            lambda: m.register_buffer("buf", 3),
            lambda: m.register_parameter("p", mk.ones(1)),
            lambda: m.register_parameter("p", nn.Parameter(mk.ones(1)) * 2),
            lambda: m.add_module("x", 3),
            lambda: m.add_module("", nn.ReLU()),
            lambda: m.nothing,
            lambda: m.train(1),
            lambda: nn.Module()(1),
            lambda: m.to(mk.int64),
        ]

    for tf, of in zip(cases(tnn, tm), cases(onn, torch)):
        same_error(tf, of)

    class Early(tnn.Module):
        def __init__(self):
            self.w = tnn.Parameter(tm.ones(1))

    class EarlyO(onn.Module):
        def __init__(self):
            self.w = onn.Parameter(torch.ones(1))

    same_error(Early, EarlyO)


def test_module_utilities():
    torch.manual_seed(0)
    o = onn.Sequential(onn.Linear(3, 4), onn.ReLU(), onn.Linear(4, 2))
    t = tnn.Sequential(tnn.Linear(3, 4), tnn.ReLU(), tnn.Linear(4, 2))
    copy_weights(t, o)
    x = torch.randn(5, 3)
    o(x).sum().backward()
    t(T(x)).sum().backward()
    for tp, op in zip(t.parameters(), o.parameters()):
        close(tp.grad, op.grad)
    t.zero_grad(set_to_none=False)
    assert all(p.grad is not None and p.grad.abs().sum().item() == 0 for p in t.parameters())
    t.zero_grad()
    assert all(p.grad is None for p in t.parameters())
    params = list(t.parameters())
    t.double()
    assert all(p.dtype is tm.float64 for p in t.parameters())
    assert [id(p) for p in t.parameters()] == [id(p) for p in params]  # same Parameter objects
    assert t(T(x).double()).dtype is tm.float64
    t.to(tm.float32)
    seen = []
    t.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "Linear", "Sequential"]
    calls = []
    h1 = t[0].register_forward_pre_hook(lambda m, args: calls.append("pre"))
    h2 = t[0].register_forward_hook(lambda m, args, out: out * 0)
    assert t[0](T(x)).abs().sum().item() == 0 and calls == ["pre"]
    h1.remove(), h2.remove()
    close(t[0](T(x)), o[0](x))
    t.requires_grad_(False)
    assert not any(p.requires_grad for p in t.parameters())
    assert t.get_submodule("2") is t[2] and t.get_parameter("2.bias") is t[2].bias


# ---- layers against PyTorch ----------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 3), (2, 5, 3), (3,), (2, 2, 2, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear(shape, bias):
    torch.manual_seed(0)
    o = onn.Linear(3, 2, bias=bias)
    t = tnn.Linear(3, 2, bias=bias)
    copy_weights(t, o)
    x = torch.randn(shape, requires_grad=True)
    tx = T(x, True)
    check_vjp(t(tx), o(x), [tx, *t.parameters()], [x, *o.parameters()])


def test_linear_graph_and_errors():
    w, b = tnn.Parameter(tm.randn(2, 3)), tnn.Parameter(tm.randn(2))
    out = TF.linear(tm.randn(4, 3), w, b)
    assert out.grad_fn.name() == "AddmmBackward0"
    assert [f.name() if f else None for f, _ in out.grad_fn.next_functions] == [
        "torch::autograd::AccumulateGrad", None, "TBackward0",
    ]  # fmt: skip
    same_error(lambda: TF.linear(tm.ones(3)), lambda: OF.linear(torch.ones(3)))
    same_error(lambda: TF.linear(), lambda: OF.linear())
    same_error(
        lambda: TF.linear(tm.ones(2), tm.ones(2, 3)),
        lambda: OF.linear(torch.ones(2), torch.ones(2, 3)),
    )


CONV_CASES = [
    {"cin": 1, "cout": 6, "k": 3},
    {"cin": 4, "cout": 8, "k": 3, "stride": 2, "padding": 1},
    {"cin": 4, "cout": 6, "k": (3, 2), "stride": (2, 1), "padding": (1, 0), "dilation": (1, 2)},
    {"cin": 4, "cout": 6, "k": 3, "groups": 2, "bias": False},
    {"cin": 3, "cout": 3, "k": 3, "groups": 3, "padding": "same", "dilation": 2},
    {"cin": 2, "cout": 4, "k": (2, 4), "padding": "same"},
    {"cin": 2, "cout": 4, "k": 3, "padding": "valid"},
]


@pytest.mark.parametrize(
    "case", CONV_CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items())
)
@pytest.mark.parametrize("batched", [True, False])
def test_conv2d(case, batched):
    c = dict(case)
    cin, cout, k = c.pop("cin"), c.pop("cout"), c.pop("k")
    torch.manual_seed(0)
    o = onn.Conv2d(cin, cout, k, **c)
    t = tnn.Conv2d(cin, cout, k, **c)
    copy_weights(t, o)
    assert repr(t) == repr(o)
    shape = (2, cin, 7, 8) if batched else (cin, 6, 5)
    x = torch.randn(shape, requires_grad=True)
    tx = T(x, True)
    tout, oout = t(tx), o(x)
    assert tout.is_contiguous() and tout.stride() == oout.stride()
    check_vjp(tout, oout, [tx, *t.parameters()], [x, *o.parameters()], rtol=1e-4, atol=1e-5)


def test_conv2d_float64_and_double_backward():
    torch.manual_seed(0)
    x = torch.randn(2, 4, 5, 6, dtype=torch.float64, requires_grad=True)
    w = torch.randn(6, 2, 3, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(6, dtype=torch.float64, requires_grad=True)
    tx, tw, tb = T(x, True), T(w, True), T(b, True)
    kw = {"stride": (2, 1), "padding": 1, "dilation": (1, 2), "groups": 2}
    o, t = OF.conv2d(x, w, b, **kw), TF.conv2d(tx, tw, tb, **kw)
    check_vjp(t, o, [tx, tw, tb], [x, w, b], rtol=1e-10, atol=1e-10)
    # Second order: gradients of a gradient's norm.
    g = torch.randn(o.shape, dtype=torch.float64)
    og = torch.autograd.grad(OF.conv2d(x, w, b, **kw), (x, w), g, create_graph=True)
    tg = tm.autograd.grad(TF.conv2d(tx, tw, tb, **kw), (tx, tw), T(g), create_graph=True)
    o2 = torch.autograd.grad(sum((a * a).sum() for a in og), (x, w))
    t2 = tm.autograd.grad(sum((a * a).sum() for a in tg), (tx, tw))
    for a, bb in zip(t2, o2):
        close(a, bb, rtol=1e-10, atol=1e-10)


def test_unfold_fold():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 6, 5, requires_grad=True)
    tx = T(x, True)
    kw = {"kernel_size": (2, 3), "dilation": (2, 1), "padding": 1, "stride": (1, 2)}
    check_vjp(TF.unfold(tx, **kw), OF.unfold(x, **kw), [tx], [x])
    cols = torch.randn(2, 3 * 6, 18, requires_grad=True)
    tc = T(cols, True)
    check_vjp(
        TF.fold(tc, (6, 5), **kw), OF.fold(cols, (6, 5), **kw), [tc], [cols], rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize(
    "shape, kw",
    [
        ((1, 1, 3), {"kernel_size": 2}),  # unbatched (C, H, W): H = 1 gives no block
        ((1, 1, 2, 3), {"kernel_size": (3, 1), "padding": (0, 1)}),
        ((1, 1, 2, 3), {"kernel_size": 2, "dilation": 3}),
        ((1, 1, 5, 5), {"kernel_size": 0, "stride": 0, "dilation": 0, "padding": -1}),
        ((1, 1, 5, 5), {"kernel_size": 2, "stride": 0, "dilation": 0, "padding": -1}),
        ((1, 1, 5, 5), {"kernel_size": 2, "stride": 0, "padding": -1}),
        ((1, 1, 5, 5), {"kernel_size": (2, 3), "stride": (1, 0)}),
        ((5, 5), {"kernel_size": 0}),
        ((5, 5), {"kernel_size": 2}),
        ((), {"kernel_size": 2}),
        ((5,), {"kernel_size": 2}),
        ((2, 1, 5, 5, 5), {"kernel_size": 2}),
        ((0, 5, 5), {"kernel_size": 2}),
    ],
)
def test_unfold_errors(shape, kw):
    same_error(lambda: TF.unfold(tm.ones(shape), **kw), lambda: OF.unfold(torch.ones(shape), **kw))


def test_unfold_of_an_empty_batch():
    x = torch.ones(0, 1, 5, 5, requires_grad=True)
    tx = T(x, True)
    check_vjp(TF.unfold(tx, 2), OF.unfold(x, 2), [tx], [x])


def test_parameter_of_a_non_tensor():
    for data in ([1, 2], np.ones(2), 3):
        same_error(lambda: tnn.Parameter(data), lambda: onn.Parameter(data))  # noqa: B023


def test_conv2d_errors():
    def cases(F, mk):
        return [
            lambda: F.conv2d(mk.randn(1, 1, 3, 3).double(), mk.randn(1, 1, 2, 2)),
            lambda: F.conv2d(mk.randn(1, 3, 5, 5), mk.randn(8, 4, 3, 3)),
            lambda: F.conv2d(mk.randn(1, 4, 2, 2), mk.randn(8, 4, 3, 3)),
            lambda: F.conv2d(mk.randn(2, 2), mk.randn(8, 4, 1, 1)),
            lambda: F.conv2d(mk.randn(1, 4, 5, 5), mk.randn(8, 4, 3, 3), stride=2, padding="same"),
            lambda: F.conv2d(mk.randn(1, 4, 5, 5), mk.randn(8, 4, 3, 3), padding="foo"),
            lambda: F.conv2d(mk.randn(1, 4, 5, 5), mk.randn(8, 4, 3, 3), mk.randn(7)),
        ]

    for tf, of in zip(cases(TF, tm), cases(OF, torch)):
        same_error(tf, of)
    for args, kw in [((4, 8, 3), {"padding": "foo"}), ((4, 8, 3), {"groups": 3}), ((4, 6, 3), {"groups": 4}),
                     ((4, 8, 3), {"stride": 2, "padding": "same"}), ((4, 8, 3), {"groups": 0})]:  # fmt: skip
        same_error(
            lambda a=args, k=kw: tnn.Conv2d(*a, **k), lambda a=args, k=kw: onn.Conv2d(*a, **k)
        )


# Shape errors of every convolution rank name the caller's own sizes (conv1d runs on height-1
# views, conv3d on depth slices), in PyTorch's order: groups, channels, bias, kernel size.
CONV_SHAPE_ERRORS = {
    "1d_channels": ("conv1d", (2, 4, 8), (3, 3, 3), None, {}),
    "1d_unbatched": ("conv1d", (4, 8), (3, 3, 3), None, {}),
    "1d_groups": ("conv1d", (2, 4, 8), (3, 2, 3), None, {"groups": 2}),
    "1d_bias": ("conv1d", (2, 3, 8), (4, 3, 3), (5,), {}),
    "1d_kernel": ("conv1d", (2, 3, 5), (4, 3, 3), None, {"dilation": 3}),
    "2d_groups_first": ("conv2d", (1, 5, 8, 8), (3, 2, 3, 3), None, {"groups": 2}),
    "2d_at_least": ("conv2d", (1, 4, 8, 8), (1, 2, 3, 3), None, {"groups": 2}),
    "3d_groups": ("conv3d", (1, 4, 3, 3, 3), (3, 2, 1, 1, 1), None, {"groups": 2}),
    "3d_bias": ("conv3d", (1, 3, 3, 3, 3), (4, 3, 1, 1, 1), (3,), {}),
    "3d_kernel": ("conv3d", (1, 3, 3, 3, 3), (4, 3, 6, 1, 1), None, {"padding": 1}),
    "3d_bias_dtype": ("conv3d", (1, 3, 3, 3, 3), (4, 3, 1, 1, 1), "double", {}),
    "t1d_channels": ("conv_transpose1d", (2, 4, 8), (3, 3, 3), None, {}),
    "t1d_bias": ("conv_transpose1d", (2, 3, 8), (3, 3, 3), (5,), {}),
    "t1d_groups": ("conv_transpose1d", (2, 4, 8), (4, 3, 3), None, {"groups": 3}),
    "t2d_at_least": ("conv_transpose2d", (1, 1, 8, 8), (1, 2, 3, 3), None, {"groups": 2}),
    "t2d_bias_2d": ("conv_transpose2d", (1, 4, 8, 8), (4, 2, 3, 3), (2, 1), {}),
    "t3d_bias": ("conv_transpose3d", (1, 3, 3, 3, 3), (3, 3, 1, 1, 1), (4,), {}),
}


@pytest.mark.parametrize("case", sorted(CONV_SHAPE_ERRORS))
def test_conv_shape_errors_of_every_rank(case):
    fn, x, w, b, kw = CONV_SHAPE_ERRORS[case]

    def run(F, lib):
        bias = (
            lib.ones(4, dtype=lib.float64) if b == "double" else None if b is None else lib.ones(b)
        )
        return lambda: getattr(F, fn)(lib.ones(x), lib.ones(w), bias, **kw)

    same_error(run(TF, tm), run(OF, torch))


POOL_CASES = [
    {"kernel_size": 2},
    {"kernel_size": (2, 3), "stride": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 2, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True, "padding": 1},
    {"kernel_size": 2, "dilation": 2, "stride": (1, 2)},
]


@pytest.mark.parametrize(
    "case", POOL_CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items())
)
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 5, 5)])
def test_max_pool2d(case, shape):
    torch.manual_seed(0)
    x = torch.randn(shape, requires_grad=True)
    tx = T(x, True)
    o, oi = OF.max_pool2d(x, return_indices=True, **case)
    t, ti = TF.max_pool2d(tx, return_indices=True, **case)
    assert ti.tolist() == oi.tolist() and ti.dtype is tm.int64
    check_vjp(t, o, [tx], [x])
    assert repr(tnn.MaxPool2d(**case)) == repr(onn.MaxPool2d(**case))
    close(tnn.MaxPool2d(**case)(tx), onn.MaxPool2d(**case)(x))


def test_max_pool2d_ties_nan_and_double_backward():
    x = torch.tensor(
        [[[[1.0, 1.0, 0.0], [1.0, float("nan"), 2.0], [0.0, 2.0, 2.0]]]], requires_grad=True
    )
    tx = T(x, True)
    o, oi = OF.max_pool2d(x, 2, 1, return_indices=True)
    t, ti = TF.max_pool2d(tx, 2, 1, return_indices=True)
    assert ti.tolist() == oi.tolist()
    np.testing.assert_array_equal(t.detach().numpy(), o.detach().numpy())
    x = torch.randn(1, 2, 4, 4, dtype=torch.float64, requires_grad=True)
    tx = T(x, True)
    g = torch.randn(1, 2, 2, 2, dtype=torch.float64, requires_grad=True)
    tg = T(g, True)
    (ogx,) = torch.autograd.grad(OF.max_pool2d(x, 2), x, g, create_graph=True)
    (tgx,) = tm.autograd.grad(TF.max_pool2d(tx, 2), tx, tg, create_graph=True)
    assert tgx.grad_fn.name() == ogx.grad_fn.name()
    check_vjp(tgx, ogx, [tg], [g])


def test_max_pool2d_errors():
    def cases(F, mk):
        return [
            lambda: F.max_pool2d(mk.randn(1, 1, 4, 4), 2, padding=2),
            lambda: F.max_pool2d(mk.randn(1, 1, 1, 1), 2),
            lambda: F.max_pool2d(mk.randn(4, 4), 2),
        ]

    for tf, of in zip(cases(TF, tm), cases(OF, torch)):
        same_error(tf, of)


def test_relu_flatten_identity_dropout():
    x = torch.randn(2, 3, 4, requires_grad=True)
    tx = T(x, True)
    check_vjp(tnn.ReLU()(tx), onn.ReLU()(x), [tx], [x])
    check_vjp(tnn.Flatten()(tx), onn.Flatten()(x), [tx], [x])
    assert tnn.Identity(3, k=1)(tx) is tx
    torch.manual_seed(3)
    o = onn.Dropout(0.3)(x)
    tm.manual_seed(3)
    t = tnn.Dropout(0.3)(tx)
    check_vjp(t, o, [tx], [x])
    d = tnn.Dropout(0.3).eval()
    assert d(tx) is tx and TF.dropout(tx, 0.0) is tx
    same_error(lambda: TF.dropout(tx, 1.5), lambda: OF.dropout(x, 1.5))
    close(TF.dropout(tx, 1.0), OF.dropout(x, 1.0))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_log_softmax(dim):
    x = torch.randn(3, 4, 2, requires_grad=True)
    tx = T(x, True)
    check_vjp(TF.softmax(tx, dim), OF.softmax(x, dim), [tx], [x])
    check_vjp(TF.log_softmax(tx, dim), OF.log_softmax(x, dim), [tx], [x])
    check_vjp(tnn.LogSoftmax(dim)(tx), onn.LogSoftmax(dim)(x), [tx], [x])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        TF.softmax(tx)
    assert "Implicit dimension choice for softmax" in str(w[0].message)
    big = torch.tensor([[1000.0, 0.0, -1000.0]])
    close(TF.log_softmax(T(big), 1), OF.log_softmax(big, 1))
    same_error(
        lambda: TF.softmax(tm.tensor([1, 2]), 0), lambda: OF.softmax(torch.tensor([1, 2]), 0)
    )
