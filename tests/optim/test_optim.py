"""taimatsu.optim against PyTorch: trajectories, state_dict layout, resuming, API behaviour.

Each optimizer runs the same deterministic loss from the same starting point in both
frameworks. float64 trajectories must agree to ~1e-10 (the formulas are identical); float32 to
rtol 1e-5 (PyTorch's vectorised CPU kernels fuse multiply-adds and its float32 sqrt is not
correctly rounded, so the last bit can differ from NumPy's).
"""

import copy
import warnings

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1234)
X0 = RNG.standard_normal((3, 4))
Y0 = RNG.standard_normal(5)
W = np.arange(1.0, 13.0).reshape(3, 4) / 4


def _loss(lib, x, y):
    """A smooth, non-separable loss with a well-conditioned minimum."""
    w = lib.tensor(W, dtype=x.dtype)
    quad = ((x - 0.5) ** 2 * w).sum()
    quartic = (0.5 * y**4 - y).sum() + 0.3 * (y[1:] * y[:-1]).sum()
    coupling = 0.1 * (x.sum(0) * y[:4]).sum()
    return quad + quartic + coupling


def _params(lib, dtype):
    dt = getattr(lib, dtype)
    return lib.tensor(X0, dtype=dt, requires_grad=True), lib.tensor(
        Y0, dtype=dt, requires_grad=True
    )


def _run(lib, name, kwargs, dtype="float32", steps=12, groups=False):
    x, y = _params(lib, dtype)
    cls = getattr(lib.optim, name)
    if groups:
        opt = cls([{"params": [x]}, {"params": [y], "lr": kwargs.get("lr", 0.01) / 2}], **kwargs)
    else:
        opt = cls([x, y], **kwargs)

    sign = -1 if kwargs.get("maximize") else 1  # maximize the negated loss: same path

    def closure():
        opt.zero_grad()
        loss = sign * _loss(lib, x, y)
        loss.backward()
        return loss

    traj = []
    for _ in range(steps):
        opt.step(closure)
        traj.append(np.concatenate([x.detach().numpy().ravel(), y.detach().numpy().ravel()]))
    return np.array(traj), opt, (x, y)


CASES = [
    ("SGD", {"lr": 0.02}),
    ("SGD", {"lr": 0.02, "momentum": 0.9}),
    ("SGD", {"lr": 0.02, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.02, "momentum": 0.9, "nesterov": True, "weight_decay": 0.05}),
    ("SGD", {"lr": 0.02, "momentum": 0.5, "maximize": True}),
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1, "betas": (0.8, 0.99)}),
    ("Adam", {"lr": 0.05, "maximize": True, "amsgrad": True}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.05}),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.2, "amsgrad": True}),
    ("Adamax", {"lr": 0.05}),
    ("Adamax", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.05}),
    (
        "RAdam",
        {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True, "betas": (0.9, 0.9)},
    ),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "alpha": 0.9, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.1, "initial_accumulator_value": 0.2},
    ),
    ("Adadelta", {"lr": 1.0}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.02}),
    ("ASGD", {"lr": 0.02, "t0": 4, "lambd": 0.01, "weight_decay": 0.1}),
    ("Rprop", {"lr": 0.02}),
    ("Rprop", {"lr": 0.02, "etas": (0.3, 1.5), "step_sizes": (1e-4, 0.1), "maximize": True}),
    ("LBFGS", {"lr": 0.5, "max_iter": 4}),
    ("LBFGS", {"lr": 1, "max_iter": 6, "history_size": 3, "line_search_fn": "strong_wolfe"}),
]


def _id(case):
    name, kw = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_trajectory_float64(case):
    name, kw = case
    steps = 4 if name == "LBFGS" else 15
    expected, _, _ = _run(torch, name, kw, "float64", steps)
    got, _, _ = _run(tm, name, kw, "float64", steps)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_trajectory_float32(case):
    name, kw = case
    steps = 2 if name == "LBFGS" else 15
    expected, _, _ = _run(torch, name, kw, "float32", steps)
    got, _, _ = _run(tm, name, kw, "float32", steps)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_param_groups_with_own_lr(name):
    kw = {"lr": 0.05, "momentum": 0.9} if name in ("SGD", "RMSprop") else {"lr": 0.05}
    expected, _, _ = _run(torch, name, kw, "float64", groups=True)
    got, _, _ = _run(tm, name, kw, "float64", groups=True)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def _to_plain(value):
    """state_dict values in a comparable form: tensors become (dtype name, shape, array)."""
    if isinstance(value, (torch.Tensor, tm.Tensor)):
        return (
            "tensor",
            str(value.dtype).replace("torch.", ""),
            tuple(value.shape),
            value.detach().numpy().copy(),
        )
    if isinstance(value, dict):
        return {k: _to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_plain(v) for v in value)
    return value


def _assert_same(a, b, path="sd"):
    if isinstance(a, tuple) and a and a[0] == "tensor":
        assert isinstance(b, tuple) and b[0] == "tensor", path
        assert a[1:3] == b[1:3], path
        np.testing.assert_allclose(b[3], a[3], rtol=1e-10, atol=1e-12, err_msg=path)
        return
    assert type(a) is type(b), f"{path}: {type(a)} vs {type(b)}"
    if isinstance(a, dict):
        assert list(a.keys()) == list(b.keys()), path
        for k in a:
            _assert_same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (u, v) in enumerate(zip(a, b)):
            _assert_same(u, v, f"{path}[{i}]")
    elif isinstance(a, float):
        assert b == pytest.approx(a, rel=1e-12), path
    else:
        assert a == b, path


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_state_dict_layout(case):
    name, kw = case
    steps = 2 if name == "LBFGS" else 3
    _, topt, _ = _run(torch, name, kw, "float64", steps)
    _, mopt, _ = _run(tm, name, kw, "float64", steps)
    _assert_same(_to_plain(topt.state_dict()), _to_plain(mopt.state_dict()))


def _torch_state_to_tm(value):
    if isinstance(value, torch.Tensor):
        return tm.tensor(
            value.detach().numpy().copy(), dtype=getattr(tm, str(value.dtype).replace("torch.", ""))
        )
    if isinstance(value, dict):
        return {k: _torch_state_to_tm(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_torch_state_to_tm(v) for v in value)
    return value


def _resume(lib, name, kw, state_dict, x0, y0):
    """A fresh optimizer loaded with ``state_dict`` continues from (x0, y0) for 4 steps."""
    x = lib.tensor(x0, requires_grad=True)
    y = lib.tensor(y0, requires_grad=True)
    opt = getattr(lib.optim, name)([x, y], **kw)
    opt.load_state_dict(state_dict)
    sign = -1 if kw.get("maximize") else 1
    traj = []
    for _ in range(4):
        opt.zero_grad()
        (sign * _loss(lib, x, y)).backward()
        opt.step()
        traj.append(np.concatenate([x.detach().numpy().ravel(), y.detach().numpy().ravel()]))
    return np.array(traj)


RESUMABLE = [c for c in CASES if c[0] != "LBFGS"]


@pytest.mark.parametrize("case", RESUMABLE, ids=[_id(c) for c in RESUMABLE])
def test_load_state_dict_resumes_identically(case):
    """A taimatsu optimizer loaded with PyTorch's state continues as PyTorch's does; and
    taimatsu's own state_dict round trip continues as if never interrupted."""
    name, kw = case
    _, topt, (tx, ty) = _run(torch, name, kw, "float64", steps=4)
    x0, y0 = tx.detach().numpy().copy(), ty.detach().numpy().copy()
    saved = copy.deepcopy(topt.state_dict())  # loading shares the tensors: resuming mutates them
    expected = _resume(torch, name, kw, copy.deepcopy(saved), x0, y0)
    got = _resume(tm, name, kw, _torch_state_to_tm(saved), x0, y0)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)

    _, mopt, (mx, my) = _run(tm, name, kw, "float64", steps=4)
    own = _resume(
        tm,
        name,
        kw,
        copy.deepcopy(mopt.state_dict()),
        mx.detach().numpy().copy(),
        my.detach().numpy().copy(),
    )
    np.testing.assert_allclose(own, expected, rtol=1e-10, atol=1e-12)


def test_load_state_dict_casts_and_keeps_step():
    x = tm.zeros(3, dtype=tm.float64, requires_grad=True)
    opt = tm.optim.Adam([x])
    x.grad = tm.ones(3, dtype=tm.float64)
    opt.step()
    sd = copy.deepcopy(opt.state_dict())
    sd["state"][0]["exp_avg"] = sd["state"][0]["exp_avg"].float()
    sd["param_groups"][0]["lr"] = 0.5
    opt2 = tm.optim.Adam([x])
    opt2.load_state_dict(sd)
    st = opt2.state[x]
    assert st["exp_avg"].dtype is tm.float64  # cast to the parameter's dtype
    assert st["step"].dtype is tm.float32 and st["step"].item() == 1.0  # step kept as is
    assert opt2.param_groups[0]["lr"] == 0.5
    assert opt2.param_groups[0]["params"][0] is x


def test_load_state_dict_errors_match():
    for lib in (torch, tm):
        a = lib.zeros(2, requires_grad=True)
        b = lib.zeros(2, requires_grad=True)
        sd = lib.optim.SGD([a, b], lr=0.1).state_dict()
        with pytest.raises(ValueError, match="different number of parameter groups"):
            lib.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).load_state_dict(sd)
        with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
            lib.optim.SGD([a], lr=0.1).load_state_dict(sd)


def test_state_dict_ids_number_across_groups():
    for lib in (torch, tm):
        a, b, c = (lib.zeros(2, requires_grad=True) for _ in range(3))
        opt = lib.optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.5}], lr=0.1, momentum=0.9)
        for p in (a, b, c):
            p.grad = lib.ones(2)
        opt.step()
        sd = opt.state_dict()
        assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
        assert list(sd["state"].keys()) == [0, 1, 2]
        assert sd["param_groups"][1]["lr"] == 0.5
        assert (
            sd["state"][2]["momentum_buffer"] is opt.state[c]["momentum_buffer"]
        )  # live, not copied


@pytest.mark.parametrize(
    "name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Rprop", "LBFGS", "NAdam", "ASGD"]
)
def test_param_groups_defaults_and_repr_match(name):
    t = getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)])
    m = getattr(tm.optim, name)([tm.zeros(2, requires_grad=True)])
    tg = {k: v for k, v in t.param_groups[0].items() if k != "params"}
    mg = {k: v for k, v in m.param_groups[0].items() if k != "params"}
    assert mg == tg
    assert list(mg) == list(tg)
    assert repr(m) == repr(t)
    assert m.defaults == t.defaults


def test_zero_grad():
    x = tm.ones(3, requires_grad=True)
    opt = tm.optim.SGD([x], lr=0.1)
    (x * 2).sum().backward()
    g = x.grad
    opt.zero_grad(set_to_none=False)
    assert x.grad is g and x.grad.tolist() == [0.0, 0.0, 0.0]
    opt.zero_grad()
    assert x.grad is None


def test_params_without_grad_are_skipped():
    x = tm.ones(3, requires_grad=True)
    y = tm.ones(3, requires_grad=True)
    opt = tm.optim.Adam([x, y], lr=0.1)
    x.sum().backward()
    opt.step()
    assert y.tolist() == [1.0, 1.0, 1.0]
    assert y not in opt.state and x in opt.state


def test_step_returns_closure_loss_and_runs_without_grad():
    x = tm.ones(3, requires_grad=True)
    opt = tm.optim.SGD([x], lr=0.1)

    def closure():
        assert tm.is_grad_enabled()
        opt.zero_grad()
        loss = (x**2).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 3.0
    assert x.grad_fn is None and x.requires_grad
    assert tm.is_grad_enabled()


def test_add_param_group_and_errors():
    for lib in (torch, tm):
        a = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([a], lr=0.1)
        b = lib.zeros(2, requires_grad=True)
        opt.add_param_group({"params": b, "momentum": 0.5})
        assert opt.param_groups[1]["lr"] == 0.1 and opt.param_groups[1]["momentum"] == 0.5
        with pytest.raises(
            ValueError, match="some parameters appear in more than one parameter group"
        ):
            opt.add_param_group({"params": [a]})
        with pytest.raises(
            TypeError, match="params argument given to the optimizer should be an iterable"
        ):
            lib.optim.SGD(a, lr=0.1)
        with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
            lib.optim.SGD([], lr=0.1)
        with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
            lib.optim.SGD([a * 2], lr=0.1)
        with pytest.raises(TypeError, match="ordered collections"):
            opt.add_param_group({"params": {lib.zeros(1, requires_grad=True)}})
        with pytest.raises(ValueError, match="Invalid learning rate: -1"):
            lib.optim.Adam([a], lr=-1)
        with pytest.raises(
            ValueError, match="Nesterov momentum requires a momentum and zero dampening"
        ):
            lib.optim.SGD([a], lr=0.1, nesterov=True)
        with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
            lib.optim.Adam([a], betas=(0.9, 1.0))
        with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
            lib.optim.LBFGS([{"params": [a]}, {"params": [b]}])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.optim.SGD([a, a], lr=0.1)
        assert any("duplicate parameters" in str(x.message) for x in w)


def test_named_parameters():
    a, b = tm.zeros(2, requires_grad=True), tm.zeros(2, requires_grad=True)
    opt = tm.optim.SGD([("w", a), ("b", b)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["w", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["w", "b"]


def test_step_hooks():
    x = tm.ones(2, requires_grad=True)
    opt = tm.optim.SGD([x], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))
    h3 = tm.optim.optimizer.register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global"))
    x.grad = tm.ones(2)
    opt.step()
    assert calls == ["global", "pre", "post"]
    h1.remove()
    h3.remove()
    opt.step()
    assert calls == ["global", "pre", "post", "post"]


def _hook_program(T):
    """What step hooks see, against PyTorch: the call's positional arguments with the optimizer
    first; a subclass's step wrapped when its first instance is made, so a super().step() runs
    the hooks again once the parent class has an instance of its own; new arguments from a
    pre-hook reach the step."""
    log = []
    w = T.nn.Parameter(T.ones(2))

    class Base(T.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

        def step(self, closure=None):
            log.append(("base step", closure))

    class Child(Base):
        def step(self, closure=None):
            log.append("child step")
            return super().step(closure)

    def hook(o, args, kwargs):
        log.append(("hook", len(args), args[0] is o, args[1:], kwargs))

    c = Child([w])
    c.register_step_pre_hook(hook)
    c.register_step_post_hook(hook)
    c.step()
    c.step(closure=None)
    Base([w])  # patches Base.step: Child's super().step() now runs the hooks too
    c.step()
    c.register_step_pre_hook(lambda o, a, k: ((o, "new"), {}))
    c.step()
    return log


def test_step_hook_arguments(torch_oracle):
    assert _hook_program(tm) == _hook_program(torch_oracle)


def test_deepcopy_and_state_dict_roundtrip():
    x = tm.ones(3, requires_grad=True)
    opt = tm.optim.Adam([x], lr=0.1)
    x.grad = tm.ones(3)
    opt.step()
    sd = copy.deepcopy(opt.state_dict())
    opt.step()
    assert sd["state"][0]["step"].item() == 1.0
    assert opt.state_dict()["state"][0]["step"].item() == 2.0


def test_lbfgs_converges_like_torch_on_rosenbrock():
    def run(lib):
        p = lib.tensor([-1.5, 2.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([p], lr=1, max_iter=50, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = 100 * (p[1] - p[0] ** 2) ** 2 + (1 - p[0]) ** 2
            loss.backward()
            return loss

        opt.step(closure)
        return p.detach().numpy().copy(), opt.state[p]["func_evals"], opt.state[p]["n_iter"]

    (tp, tev, tit), (mp, mev, mit) = run(torch), run(tm)
    np.testing.assert_allclose(mp, tp, rtol=1e-9)
    assert (mev, mit) == (tev, tit)


@pytest.mark.parametrize(
    ("name", "kw"),
    [("SGD", {"lr": 0.01, "momentum": 0.9}), ("Adam", {"lr": 0.01}), ("AdamW", {"amsgrad": True})],
)
def test_training_loop_with_nn_dataloader_and_scheduler(name, kw):
    """The usual loop: seeded model init, shuffled DataLoader, optimizer, StepLR."""

    def train(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 1))
        X = lib.randn(40, 4)
        Y = X.sum(1, keepdim=True) ** 2
        data = lib.utils.data.TensorDataset(X, Y)
        loader = lib.utils.data.DataLoader(data, batch_size=8, shuffle=True)
        opt = getattr(lib.optim, name)(model.parameters(), **kw)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2, 0.5)
        losses = []
        for _ in range(4):
            for xb, yb in loader:
                opt.zero_grad()
                loss = lib.nn.functional.mse_loss(model(xb), yb)
                loss.backward()
                opt.step()
                losses.append(loss.item())
            sched.step()
        return np.array(losses), [p.detach().numpy().copy() for p in model.parameters()]

    (tl, tp), (ml, mp) = train(torch), train(tm)
    np.testing.assert_allclose(ml, tl, rtol=1e-5)
    for a, b in zip(mp, tp):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
