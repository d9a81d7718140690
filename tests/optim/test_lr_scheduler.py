"""taimatsu.optim.lr_scheduler against PyTorch: lr sequences bit for bit, momentum cycling,
state_dict contents, resuming, warnings."""

import copy
import math
import warnings

import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")

STEPS = 40


def _optimizer(lib, kind="sgd"):
    a = lib.zeros(2, requires_grad=True)
    b = lib.zeros(3, requires_grad=True)
    groups = [{"params": [a]}, {"params": [b], "lr": 0.03}]
    if kind == "adam":
        return lib.optim.Adam(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


def _lambda_lr(lib, o):
    return lib.optim.lr_scheduler.LambdaLR(o, [lambda e: 0.95**e, lambda e: 1 / (e + 1)])


class _Halving:
    """A callable object: its __dict__ goes into the state_dict."""

    def __init__(self):
        self.factor = 0.5

    def __call__(self, epoch):
        return self.factor if epoch % 7 == 0 else 1.0


def _seq(lib, o):
    S = lib.optim.lr_scheduler
    return S.SequentialLR(
        o, [S.LinearLR(o, 0.1, total_iters=5), S.CosineAnnealingLR(o, T_max=20)], milestones=[5]
    )


def _seq3(lib, o):
    S = lib.optim.lr_scheduler
    return S.SequentialLR(
        o,
        [S.ConstantLR(o, 0.5, total_iters=3), S.ExponentialLR(o, 0.9), S.StepLR(o, 4, 0.5)],
        milestones=[6, 15],
    )


def _chained(lib, o):
    S = lib.optim.lr_scheduler
    return S.ChainedScheduler(
        [S.ConstantLR(o, factor=0.2, total_iters=4), S.ExponentialLR(o, gamma=0.95)]
    )


SCHEDULERS = {
    "LambdaLR": (_lambda_lr, "sgd"),
    "MultiplicativeLR": (
        lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.97),
        "sgd",
    ),
    "MultiplicativeLR-object": (
        lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(o, _Halving()),
        "sgd",
    ),
    "StepLR": (lambda lib, o: lib.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.3), "sgd"),
    "MultiStepLR": (
        lambda lib, o: lib.optim.lr_scheduler.MultiStepLR(o, [3, 10, 10, 25], gamma=0.5),
        "sgd",
    ),
    "ConstantLR": (
        lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=0.25, total_iters=6),
        "sgd",
    ),
    "LinearLR": (
        lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, 0.2, 0.9, total_iters=13),
        "sgd",
    ),
    "ExponentialLR": (lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.93), "sgd"),
    "PolynomialLR": (
        lambda lib, o: lib.optim.lr_scheduler.PolynomialLR(o, total_iters=30, power=2.0),
        "sgd",
    ),
    "CosineAnnealingLR": (
        lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=12, eta_min=0.001),
        "sgd",
    ),
    "ChainedScheduler": (_chained, "sgd"),
    "SequentialLR": (_seq, "sgd"),
    "SequentialLR-3": (_seq3, "sgd"),
    "CyclicLR": (
        lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
            o, 0.01, 0.1, step_size_up=5, step_size_down=3
        ),
        "sgd",
    ),
    "CyclicLR-triangular2": (
        lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
            o, [0.01, 0.02], 0.1, step_size_up=4, mode="triangular2"
        ),
        "sgd",
    ),
    "CyclicLR-exp_range-adam": (
        lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
            o, 0.01, 0.1, step_size_up=6, mode="exp_range", gamma=0.97
        ),
        "adam",
    ),
    "CyclicLR-custom": (
        lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
            o,
            0.01,
            0.1,
            step_size_up=3,
            scale_fn=lambda x: 1 / (x + 1),
            scale_mode="iterations",
            cycle_momentum=False,
        ),
        "sgd",
    ),
    "OneCycleLR": (
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
            o, max_lr=[0.5, 0.2], total_steps=STEPS + 1
        ),
        "sgd",
    ),
    "OneCycleLR-linear-3phase-adam": (
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
            o,
            max_lr=0.5,
            epochs=4,
            steps_per_epoch=11,
            anneal_strategy="linear",
            three_phase=True,
            pct_start=0.25,
        ),
        "adam",
    ),
    "CosineAnnealingWarmRestarts": (
        lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
            o, T_0=4, T_mult=2, eta_min=0.002
        ),
        "sgd",
    ),
}


def _history(lib, name, steps=STEPS):
    factory, kind = SCHEDULERS[name]
    opt = _optimizer(lib, kind)
    sched = factory(lib, opt)
    hist = [(list(sched.get_last_lr()), _momenta(opt))]
    for _ in range(steps):
        opt.step()
        sched.step()
        hist.append((list(sched.get_last_lr()), _momenta(opt)))
    return hist, sched, opt


def _momenta(opt):
    return [(g.get("momentum"), g.get("betas")) for g in opt.param_groups]


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_lr_sequence_matches_bit_for_bit(name):
    expected, _, _ = _history(torch, name)
    got, _, _ = _history(tm, name)
    assert got == expected  # exact: the same float arithmetic in the same order


def _plain_state(sd):
    """A scheduler state_dict without what cannot compare across frameworks."""
    out = {}
    for k, v in sd.items():
        if k == "_schedulers":
            v = [_plain_state(s) for s in v]
        elif k == "milestones":
            v = dict(v)
        out[k] = v
    return out


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_state_dict_matches(name):
    _, tsched, _ = _history(torch, name, steps=9)
    _, msched, _ = _history(tm, name, steps=9)
    tsd, msd = _plain_state(tsched.state_dict()), _plain_state(msched.state_dict())
    assert msd == tsd
    assert list(msd) == list(tsd)


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_load_state_dict_resumes(name):
    full, _, _ = _history(tm, name)
    _, sched, opt = _history(tm, name, steps=10)
    saved_sched = copy.deepcopy(sched.state_dict())
    saved_groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]

    factory, kind = SCHEDULERS[name]
    opt2 = _optimizer(tm, kind)
    sched2 = factory(tm, opt2)
    for g, saved in zip(opt2.param_groups, saved_groups):
        g.update(saved)
    sched2.load_state_dict(saved_sched)
    hist = full[:11]
    for _ in range(STEPS - 10):
        opt2.step()
        sched2.step()
        hist.append((list(sched2.get_last_lr()), _momenta(opt2)))
    assert hist == full


def test_reduce_lr_on_plateau():
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.89, 0.9, 0.91, 0.92, 0.93, 0.94, 0.95] * 3
    configs = [
        {"patience": 2},
        {
            "mode": "max",
            "factor": 0.5,
            "patience": 1,
            "threshold": 0.01,
            "threshold_mode": "abs",
            "cooldown": 2,
        },
        {"patience": 0, "min_lr": [0.02, 0.001], "factor": 0.3},
    ]
    for kw in configs:
        results = []
        for lib in (torch, tm):
            opt = _optimizer(lib)
            sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
            hist = []
            for m in metrics:
                opt.step()
                sched.step(lib.tensor(m))
                hist.append(
                    (
                        list(sched.get_last_lr()),
                        sched.num_bad_epochs,
                        sched.cooldown_counter,
                        sched.best,
                    )
                )
            results.append((hist, sched.state_dict()))
        assert results[1] == results[0]


def test_epoch_argument_uses_closed_form_with_warning():
    results = []
    for lib in (torch, tm):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            opt.step()
            sched.step(7)
        assert any("The epoch parameter in `scheduler.step()`" in str(x.message) for x in w)
        results.append(sched.get_last_lr())
    assert results[1] == results[0]


def test_warns_when_scheduler_steps_before_optimizer():
    for lib in (torch, tm):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.9)
        with pytest.warns(
            UserWarning,
            match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`",
        ):
            sched.step()
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
            sched.get_lr()


def test_initial_lr_and_errors():
    for lib in (torch, tm):
        opt = _optimizer(lib)
        S = lib.optim.lr_scheduler
        S.StepLR(opt, 2)
        assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.03]
        with pytest.raises(
            KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"
        ):
            S.StepLR(_optimizer(lib), 2, last_epoch=3)
        with pytest.raises(TypeError, match="list is not an Optimizer"):
            S.StepLR([], 2)
        with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
            S.LambdaLR(opt, [lambda e: 1.0])
        with pytest.raises(ValueError, match="Tried to step 3 times"):
            s = S.OneCycleLR(_optimizer(lib), 0.1, total_steps=2)
            for _ in range(3):
                s.optimizer.step()
                s.step()
        with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
            S.CyclicLR(lib.optim.Adagrad([lib.zeros(1, requires_grad=True)]), 0.01, 0.1)


def test_lr_values_are_plain_floats():
    _, sched, opt = _history(tm, "CosineAnnealingLR", steps=5)
    assert all(type(lr) is float for lr in sched.get_last_lr())
    assert math.isclose(opt.param_groups[0]["lr"], sched.get_last_lr()[0])
