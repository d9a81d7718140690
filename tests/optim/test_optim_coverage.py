"""Every optimizer and every lr scheduler of issue #4 on a real training problem, against PyTorch.

tests/optim/test_optim.py checks the optimizers' update rules on a fixed loss (15 steps) and
tests/optim/test_lr_scheduler.py the schedulers' lr sequences (with parameters that never get a
gradient). Here each scheduler drives an optimizer that trains a small network from PyTorch's
initial weights for 20 steps: the parameters after every step, the lrs, and at the end the
optimizer's and the scheduler's state_dict (structure and values) must equal PyTorch's. The 15
pairs below use every optimizer and every scheduler at least once; a meta-test checks that.
"""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
import test_lr_scheduler
import test_optim
from nn_oracle import T

pytestmark = pytest.mark.oracle

STEPS = 20
OPTIMIZERS = [
    "SGD",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "RAdam",
    "RMSprop",
    "Adagrad",
    "Adadelta",
    "ASGD",
    "Rprop",
    "LBFGS",
]
SCHEDULERS = [
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "PolynomialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "SequentialLR",
    "ReduceLROnPlateau",
    "CyclicLR",
    "OneCycleLR",
    "CosineAnnealingWarmRestarts",
]


def _S(lib):
    return lib.optim.lr_scheduler


def _chained(lib, o):
    return _S(lib).ChainedScheduler([_S(lib).ConstantLR(o, 0.5, 3), _S(lib).ExponentialLR(o, 0.9)])


def _sequential(lib, o):
    S = _S(lib)
    return S.SequentialLR(o, [S.LinearLR(o, 0.2, total_iters=4), S.StepLR(o, 5, 0.5)], [4])


# (optimizer, kwargs, scheduler factory)
PAIRS = [
    ("SGD", {"lr": 0.05, "momentum": 0.9},
     lambda lib, o: _S(lib).CyclicLR(o, 0.01, 0.1, step_size_up=4)),
    ("Adam", {"lr": 0.01, "amsgrad": True},
     lambda lib, o: _S(lib).OneCycleLR(o, max_lr=0.05, total_steps=STEPS)),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1},
     lambda lib, o: _S(lib).CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2, eta_min=1e-3)),
    ("Adamax", {"lr": 0.02}, lambda lib, o: _S(lib).LambdaLR(o, lambda e: 1 / (1 + 0.1 * e))),
    ("NAdam", {"lr": 0.01}, lambda lib, o: _S(lib).MultiplicativeLR(o, lambda e: 0.95)),
    ("RAdam", {"lr": 0.02, "weight_decay": 0.01}, lambda lib, o: _S(lib).StepLR(o, 6, 0.5)),
    ("RMSprop", {"lr": 0.005, "momentum": 0.5, "centered": True},
     lambda lib, o: _S(lib).ExponentialLR(o, 0.9)),
    ("Adagrad", {"lr": 0.05, "lr_decay": 0.01}, lambda lib, o: _S(lib).MultiStepLR(o, [5, 12], 0.3)),
    ("Adadelta", {"lr": 1.0, "weight_decay": 0.01},
     lambda lib, o: _S(lib).ConstantLR(o, factor=0.5, total_iters=8)),
    ("ASGD", {"lr": 0.05, "t0": 5}, lambda lib, o: _S(lib).LinearLR(o, 0.3, 1.0, total_iters=10)),
    ("Rprop", {"lr": 0.01}, lambda lib, o: _S(lib).PolynomialLR(o, total_iters=15, power=2.0)),
    ("LBFGS", {"lr": 0.5, "max_iter": 3, "history_size": 4},
     lambda lib, o: _S(lib).CosineAnnealingLR(o, T_max=10, eta_min=0.05)),
    ("SGD", {"lr": 0.05, "nesterov": True, "momentum": 0.8}, _chained),
    ("Adam", {"lr": 0.02}, _sequential),
    ("SGD", {"lr": 0.1, "momentum": 0.5},
     lambda lib, o: _S(lib).ReduceLROnPlateau(o, factor=0.5, patience=1, threshold=0.05)),
]  # fmt: skip

RNG = np.random.default_rng(7)
X = RNG.standard_normal((24, 5))
Y = np.sin(X @ RNG.standard_normal((5, 2)))


def _model(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 2)).double()


def _train(lib, pair, init):
    name, kw, sched_fn = pair
    model = _model(lib)
    model.load_state_dict(init if lib is torch else {k: T(v) for k, v in init.items()})
    opt = getattr(lib.optim, name)(model.parameters(), **kw)
    sched = sched_fn(lib, opt)
    x, y = lib.tensor(X), lib.tensor(Y)
    plateau = isinstance(sched, lib.optim.lr_scheduler.ReduceLROnPlateau)

    def closure():
        opt.zero_grad()
        loss = lib.nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss

    params, lrs = [], []
    for _ in range(STEPS):
        loss = opt.step(closure)
        if plateau:
            sched.step(loss.item())
        else:
            sched.step()
        params.append(np.concatenate([p.detach().numpy().ravel() for p in model.parameters()]))
        lrs.append(opt.param_groups[0]["lr"])
    return np.array(params), lrs, opt, sched


def _pair_id(pair):
    return f"{pair[0]}-{pair[2](torch, torch.optim.SGD([torch.zeros(1)], lr=0.1, momentum=0.9)).__class__.__name__}"


@pytest.mark.parametrize("pair", PAIRS, ids=[_pair_id(p) for p in PAIRS])
def test_trajectory_and_state_dicts_match_torch(pair):
    torch.manual_seed(0)
    init = _model(torch).state_dict()
    want, want_lrs, o_opt, o_sched = _train(torch, pair, init)
    got, got_lrs, t_opt, t_sched = _train(tm, pair, init)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11)
    assert got_lrs == pytest.approx(want_lrs, rel=1e-12)
    assert len(set(want_lrs)) > 1  # the scheduler did change the lr
    _same(test_optim._to_plain(o_opt.state_dict()), test_optim._to_plain(t_opt.state_dict()))
    plain = test_lr_scheduler._plain_state
    _same(plain(o_sched.state_dict()), plain(t_sched.state_dict()))


def _same(a, b, path="sd"):
    """Same structure, key order, types, dtypes and shapes; values to rtol 1e-7 (20 steps of
    float64 rounding: L-BFGS's curvature history divides small differences)."""
    if isinstance(a, tuple) and a and a[0] == "tensor":
        assert isinstance(b, tuple) and b[0] == "tensor" and a[1:3] == b[1:3], path
        np.testing.assert_allclose(b[3], a[3], rtol=1e-7, atol=1e-12, err_msg=path)
    elif isinstance(a, dict):
        assert type(b) is dict and list(a) == list(b), path
        for k in a:
            _same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), path
        for i, (u, v) in enumerate(zip(a, b)):
            _same(u, v, f"{path}[{i}]")
    else:
        assert type(a) is type(b), f"{path}: {type(a)} vs {type(b)}"
        assert b == pytest.approx(a, rel=1e-9) if isinstance(a, float) else a == b, path


def test_every_optimizer_and_scheduler_is_covered():
    assert {p[0] for p in PAIRS} == set(OPTIMIZERS)
    sched_names = {_pair_id(p).split("-", 1)[1] for p in PAIRS}
    assert sched_names == set(SCHEDULERS)
    # and each also has its own trajectory / state_dict / lr-sequence tests
    assert {c[0] for c in test_optim.CASES} == set(OPTIMIZERS)
    listed = {n.split("-")[0] for n in test_lr_scheduler.SCHEDULERS} | {"ReduceLROnPlateau"}
    assert listed == set(SCHEDULERS)
    assert hasattr(test_lr_scheduler, "test_reduce_lr_on_plateau")
