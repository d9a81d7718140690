"""Adafactor, SparseAdam and optim.swa_utils against PyTorch.

Adafactor trains the small network of tests/optim/test_optim_coverage.py for 20 steps from PyTorch's
initial weights: parameters after every step and the final state_dict must equal PyTorch's.
SparseAdam: its argument checks and its dense-gradient error here (its trajectories on sparse
gradients are in tests/sparse/). swa_utils: an SGD training of 20 steps whose weights are averaged
(SWA, EMA through avg_fn and multi_avg_fn, with and without buffers) must give PyTorch's
averaged parameters after every step; SWALR's lrs and state_dict; update_bn's statistics.
"""

import math

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
import test_optim
import test_optim_coverage as cov
from nn_oracle import T

pytestmark = pytest.mark.oracle

STEPS = 20


def _load(lib, model, init):
    model.load_state_dict(init if lib is torch else {k: T(v) for k, v in init.items()})
    return model


def _flat(tensors):
    return np.concatenate([t.detach().numpy().ravel().astype(np.float64) for t in tensors])


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


# ---- Adafactor ------------------------------------------------------------------------------
ADAFACTOR_CASES = [
    {},
    {"lr": 0.05, "weight_decay": 0.1},
    {"lr": 0.03, "maximize": True},
    {"lr": 0.02, "eps": (1e-20, 1e-2), "d": 2.0, "beta2_decay": -0.5},
    {"lr": torch.tensor(0.05), "foreach": True},
]


def _train_adafactor(lib, kw, init):
    model = _load(lib, cov._model(lib), init)
    kw = {k: (T(v) if isinstance(v, torch.Tensor) and lib is tm else v) for k, v in kw.items()}
    opt = lib.optim.Adafactor(model.parameters(), **kw)
    x, y = lib.tensor(cov.X), lib.tensor(cov.Y)
    params = []
    for _ in range(STEPS):
        opt.zero_grad()
        lib.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        params.append(_flat(model.parameters()))
    return np.array(params), opt


@pytest.mark.parametrize("kw", ADAFACTOR_CASES, ids=[str(sorted(c)) for c in ADAFACTOR_CASES])
def test_adafactor_trajectory_and_state_dict_match_torch(kw):
    torch.manual_seed(0)
    init = cov._model(torch).state_dict()
    want, o_opt = _train_adafactor(torch, kw, init)
    got, t_opt = _train_adafactor(tm, kw, init)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11)
    assert np.abs(want[-1] - want[0]).max() > 1e-3  # it did train
    cov._same(test_optim._to_plain(o_opt.state_dict()), test_optim._to_plain(t_opt.state_dict()))


def test_adafactor_batched_matrix_scalar_and_float32_params():
    """A 3-D parameter is factored over its last two dims; a 0-d one keeps a full variance; in
    float32 the default eps1 is float32's machine epsilon."""
    rng = np.random.default_rng(3)
    arrays = [
        rng.standard_normal((3, 4, 5)).astype(np.float32),
        np.float32(0.7),
        rng.standard_normal(6).astype(np.float32),
    ]

    # The same gradients in both frameworks (float32 autograd may differ in the last ulp).
    grads = [
        [rng.standard_normal(np.shape(a)).astype(np.float32) for a in arrays] for _ in range(8)
    ]

    def run(lib):
        ps = [lib.tensor(a.copy(), requires_grad=True) for a in arrays]
        opt = lib.optim.Adafactor(ps, lr=0.05, weight_decay=0.01)
        out = []
        for step_grads in grads:
            for p, g in zip(ps, step_grads):
                p.grad = lib.tensor(g.copy())
            opt.step()
            out.append(_flat(ps))
        return np.array(out), opt

    want, o_opt = run(torch)
    got, t_opt = run(tm)
    # float32 norms are reduced in a different order: a few ulps
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    o_sd, t_sd = test_optim._to_plain(o_opt.state_dict()), test_optim._to_plain(t_opt.state_dict())
    assert [list(s) for s in t_sd["state"].values()] == [list(s) for s in o_sd["state"].values()]
    for i in o_sd["state"]:
        for k in o_sd["state"][i]:
            assert t_sd["state"][i][k][1:3] == o_sd["state"][i][k][1:3], (i, k)
            np.testing.assert_allclose(
                t_sd["state"][i][k][3], o_sd["state"][i][k][3], rtol=1e-5, atol=1e-8
            )
    assert t_sd["param_groups"] == o_sd["param_groups"]


def test_adafactor_defaults_repr_and_module():
    def make(lib):
        return lib.optim.Adafactor([lib.zeros(2, requires_grad=True)])

    o, t = make(torch), make(tm)
    assert t.defaults == o.defaults
    assert repr(t) == repr(o)
    assert tm.optim.Adafactor.__module__ == "taimatsu.optim"


@pytest.mark.parametrize(
    "kw",
    [{"lr": -1.0}, {"beta2_decay": 0.1}, {"eps": (-1.0, 1e-3)}, {"eps": (None, -1.0)}, {"d": 0.5},
     {"weight_decay": -0.1}],
)  # fmt: skip
def test_adafactor_argument_errors_match_torch(kw):
    want = _error(lambda: torch.optim.Adafactor([torch.zeros(2, requires_grad=True)], **kw))
    got = _error(lambda: tm.optim.Adafactor([tm.zeros(2, requires_grad=True)], **kw))
    assert got == want


def test_adafactor_complex_param_error_matches_torch():
    def run(lib):
        q = lib.ones(2, 3, requires_grad=True)
        q.grad = lib.ones(2, 3)
        p = lib.zeros(2, dtype=lib.complex64, requires_grad=True)
        p.grad = lib.ones(2, dtype=lib.complex64)
        opt = lib.optim.Adafactor([q, p])
        err = _error(opt.step)
        # q's state was created but q was not updated
        return err, test_optim._to_plain(opt.state_dict()["state"]), q.tolist()

    got, want = run(tm), run(torch)
    cov._same(want, got)


# ---- SparseAdam -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kw", [{"lr": 0.0}, {"eps": 0.0}, {"betas": (1.0, 0.9)}, {"betas": (0.9, -0.1)}]
)
def test_sparse_adam_argument_errors_match_torch(kw):
    want = _error(lambda: torch.optim.SparseAdam([torch.zeros(2, requires_grad=True)], **kw))
    got = _error(lambda: tm.optim.SparseAdam([tm.zeros(2, requires_grad=True)], **kw))
    assert got == want


def test_sparse_adam_complex_params_error_matches_torch():
    def run(lib):
        groups = [{"params": [lib.zeros(2, requires_grad=True)]},
                  {"params": [lib.zeros(1), lib.zeros(2, dtype=lib.complex64)]}]  # fmt: skip
        return _error(lambda: lib.optim.SparseAdam(groups))

    assert run(tm) == run(torch)


def test_sparse_adam_dense_gradient_error_and_no_grad_step_match_torch():
    def run(lib):
        emb = lib.nn.Embedding(5, 3)
        opt = lib.optim.SparseAdam(emb.parameters(), lr=0.1)
        calls = []
        # no gradient yet: nothing to do
        loss = opt.step(lambda: calls.append(1) or lib.tensor(2.5))
        emb(lib.tensor([1, 3])).sum().backward()
        err = _error(opt.step)
        return repr(opt), opt.defaults, loss.item(), calls, err, dict(opt.state)

    got, want = run(tm), run(torch)
    assert got == want
    assert got[4] == (
        "RuntimeError",
        "SparseAdam does not support dense gradients, please consider Adam instead",
    )


# ---- swa_utils: averaging ---------------------------------------------------------------------
def _bn_model(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 2)).double()


def _avg_kwargs(lib, kind):
    S = lib.optim.swa_utils
    return {
        "swa": {},
        "swa_buffers": {"use_buffers": True},
        "swa_multi": {"multi_avg_fn": S.get_swa_multi_avg_fn()},
        "swa_avg_fn": {"avg_fn": S.get_swa_avg_fn()},
        "ema_multi": {"multi_avg_fn": S.get_ema_multi_avg_fn(0.8)},
        "ema_multi_buffers": {"multi_avg_fn": S.get_ema_multi_avg_fn(0.7), "use_buffers": True},
        "ema_avg_fn": {"avg_fn": S.get_ema_avg_fn(0.9)},
        "ema_avg_fn_buffers": {"avg_fn": S.get_ema_avg_fn(0.75), "use_buffers": True},
    }[kind]


def _train_averaged(lib, kind, init):
    model = _load(lib, _bn_model(lib), init)
    avg = lib.optim.swa_utils.AveragedModel(model, **_avg_kwargs(lib, kind))
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = lib.tensor(cov.X), lib.tensor(cov.Y)
    history = []
    for _ in range(STEPS):
        opt.zero_grad()
        lib.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        avg.update_parameters(model)
        sd = avg.state_dict()
        history.append(_flat([v for k, v in sd.items() if v.is_floating_point()]))
        history.append(_flat([v for k, v in sd.items() if not v.is_floating_point()]))
    return history, avg


AVG_KINDS = ["swa", "swa_buffers", "swa_multi", "swa_avg_fn", "ema_multi", "ema_multi_buffers", "ema_avg_fn",
             "ema_avg_fn_buffers"]  # fmt: skip


@pytest.mark.parametrize("kind", AVG_KINDS)
def test_averaged_model_matches_torch_every_step(kind):
    torch.manual_seed(1)
    init = _bn_model(torch).state_dict()
    want, o_avg = _train_averaged(torch, kind, init)
    got, t_avg = _train_averaged(tm, kind, init)
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-12, err_msg=f"update {i // 2}")
    assert list(t_avg.state_dict()) == list(o_avg.state_dict())
    assert t_avg.n_averaged.dtype == tm.int64 and t_avg.n_averaged.item() == STEPS
    # the average differs from the trained model (it really averaged)
    x = cov.X[:4]
    t_avg.eval(), o_avg.eval()
    np.testing.assert_allclose(
        t_avg(tm.tensor(x)).detach().numpy(), o_avg(torch.tensor(x)).detach().numpy(), rtol=1e-6
    )


def test_swa_multi_avg_fn_on_integer_buffers_raises_like_torch():
    """PyTorch's integer branch of get_swa_multi_avg_fn divides with addcdiv, which refuses
    integer tensors: averaging BatchNorm's num_batches_tracked this way fails in both."""

    def run(lib):
        model = _bn_model(lib)
        avg = lib.optim.swa_utils.AveragedModel(
            model, multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn(), use_buffers=True
        )
        avg.update_parameters(model)
        return _error(lambda: avg.update_parameters(model))

    got, want = run(tm), run(torch)
    assert got == want and got[0] == "RuntimeError"


def test_averaged_model_repr_keys_and_copy():
    def make(lib):
        model = _bn_model(lib)
        return model, lib.optim.swa_utils.AveragedModel(model)

    (_, oa), (tm_, ta) = make(torch), make(tm)
    assert repr(ta) == repr(oa)
    assert list(ta.state_dict()) == list(oa.state_dict())
    assert [n for n, _ in ta.named_parameters()] == [n for n, _ in oa.named_parameters()]
    assert ta.module is not tm_ and ta.module[0].weight is not tm_[0].weight
    assert repr(ta.n_averaged) == repr(oa.n_averaged) == "tensor(0)"


def test_averaged_model_errors_match_torch():
    def run(lib):
        S = lib.optim.swa_utils
        m = lib.nn.Linear(2, 2)
        return [
            _error(
                lambda: S.AveragedModel(
                    m, avg_fn=S.get_swa_avg_fn(), multi_avg_fn=S.get_swa_multi_avg_fn()
                )
            ),
            _error(lambda: S.get_ema_avg_fn(1.5)),
            _error(lambda: S.get_ema_multi_avg_fn(-0.1)),
        ]

    assert run(tm) == run(torch)


def test_avg_fns_on_tensors_match_torch():
    a, b = np.array([1.0, -2.0, 4.0]), np.array([3.0, 5.0, -1.0])

    def run(lib):
        S = lib.optim.swa_utils
        out = [
            S.get_swa_avg_fn()(lib.tensor(a), lib.tensor(b), lib.tensor(2)).numpy(),
            S.get_ema_avg_fn(0.6)(lib.tensor(a), lib.tensor(b), 3).numpy(),
        ]
        for fn, n in ((S.get_swa_multi_avg_fn(), lib.tensor(3)), (S.get_swa_multi_avg_fn(), 3),
                      (S.get_ema_multi_avg_fn(0.6), None)):  # fmt: skip
            for dtype in (lib.float32, lib.int64):
                avg = [lib.tensor(a).to(dtype), lib.tensor(a * 2).to(dtype)]
                cur = [lib.tensor(b).to(dtype), lib.tensor(-b).to(dtype)]
                try:  # PyTorch's integer SWA branch refuses both (addcdiv, float alpha)
                    fn(avg, cur, n)
                except RuntimeError as e:
                    out.append(str(e))
                    continue
                out += [t.numpy() for t in avg]
        return out

    got, want = run(tm), run(torch)
    assert sum(isinstance(w, str) for w in want) == 2
    for g, w in zip(got, want, strict=True):
        if isinstance(w, str):
            assert g == w
        else:
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


# ---- update_bn --------------------------------------------------------------------------------
def test_update_bn_matches_torch():
    rng = np.random.default_rng(5)
    data = rng.standard_normal((30, 5))

    torch.manual_seed(2)
    init = _bn_model(torch).state_dict()

    def run(lib, tuples):
        model = _load(lib, _bn_model(lib), init)
        model.eval()
        ds = lib.utils.data.TensorDataset(lib.tensor(data), lib.zeros(30))
        loader = lib.utils.data.DataLoader(ds, batch_size=8)
        if not tuples:
            loader = [b[0] for b in loader]
        lib.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        return (bn.running_mean.numpy(), bn.running_var.numpy(), bn.num_batches_tracked.item(), bn.momentum,
                model.training)  # fmt: skip

    for tuples in (True, False):
        got, want = run(tm, tuples), run(torch, tuples)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
        assert got[2:] == want[2:] == (4, 0.1, False)


def test_update_bn_without_batchnorm_leaves_the_model_alone():
    model = tm.nn.Linear(5, 2)
    model.eval()
    loader = [tm.ones(2, 5)]
    tm.optim.swa_utils.update_bn(loader, model)
    assert not model.training


# ---- SWALR ------------------------------------------------------------------------------------
SWALR_CASES = [
    {"swa_lr": 0.05},
    {"swa_lr": 0.5, "anneal_epochs": 5, "anneal_strategy": "linear"},
    {"swa_lr": [0.01, 0.2], "anneal_epochs": 3},
    {"swa_lr": 0.02, "anneal_epochs": 0},
    {"swa_lr": 0.02, "anneal_epochs": 1, "anneal_strategy": "linear"},
]


def _swalr_history(lib, kw, steps=15):
    a, b = lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)
    opt = lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.3}], lr=0.1)
    sched = lib.optim.swa_utils.SWALR(opt, **kw)
    lrs = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
    return lrs, sched, opt


@pytest.mark.parametrize("kw", SWALR_CASES, ids=[str(c) for c in SWALR_CASES])
def test_swalr_lrs_and_state_dict_match_torch(kw):
    want, o_sched, o_opt = _swalr_history(torch, kw)
    got, t_sched, t_opt = _swalr_history(tm, kw)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == pytest.approx(w, rel=1e-12, abs=1e-15)
    assert [g["swa_lr"] for g in t_opt.param_groups] == [g["swa_lr"] for g in o_opt.param_groups]
    o_sd, t_sd = o_sched.state_dict(), t_sched.state_dict()
    assert list(t_sd) == list(o_sd)
    assert {k: v for k, v in t_sd.items() if k != "_last_lr"} == {
        k: v for k, v in o_sd.items() if k != "_last_lr"
    }


def test_swalr_in_a_swa_training_matches_torch():
    """The documented recipe: cosine schedule, then SWA with SWALR, averaged model, update_bn."""

    torch.manual_seed(4)
    init = _bn_model(torch).state_dict()

    def run(lib):
        model = _load(lib, _bn_model(lib), init)
        opt = lib.optim.SGD(model.parameters(), lr=0.2)
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=STEPS)
        swa_model = lib.optim.swa_utils.AveragedModel(model)
        swa_sched = lib.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=4)
        x, y = lib.tensor(cov.X), lib.tensor(cov.Y)
        out = []
        for i in range(STEPS):
            opt.zero_grad()
            lib.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            if i >= 8:
                swa_model.update_parameters(model)
                swa_sched.step()
            else:
                sched.step()
            out.append(opt.param_groups[0]["lr"])
            out.append(_flat(swa_model.parameters()))
        lib.optim.swa_utils.update_bn([x[:12], x[12:]], swa_model)
        out.append(_flat(swa_model.buffers()))
        return out

    for g, w in zip(run(tm), run(torch), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-12)


def test_swalr_load_state_dict_restores_anneal_func():
    _, sched, _ = _swalr_history(tm, {"swa_lr": 0.05, "anneal_strategy": "linear"}, steps=3)
    _, other, _ = _swalr_history(tm, {"swa_lr": 0.05}, steps=1)
    other.load_state_dict(sched.state_dict())
    assert other._anneal_strategy == "linear" and other.anneal_func(0.25) == 0.25
    assert math.isclose(tm.optim.swa_utils.SWALR._cosine_anneal(0.5), 0.5)


@pytest.mark.parametrize(
    "kw",
    [{"swa_lr": 0.1, "anneal_strategy": "exp"}, {"swa_lr": 0.1, "anneal_epochs": -1},
     {"swa_lr": 0.1, "anneal_epochs": 2.0}, {"swa_lr": [0.1]}],
)  # fmt: skip
def test_swalr_errors_match_torch(kw):
    def run(lib):
        opt = lib.optim.SGD([{"params": [lib.zeros(1, requires_grad=True)]},
                             {"params": [lib.zeros(1, requires_grad=True)]}], lr=0.1)  # fmt: skip
        return _error(lambda: lib.optim.swa_utils.SWALR(opt, **kw))

    assert run(tm) == run(torch)


def test_adafactor_resumes_from_state_dict_like_torch():
    """Train 5 steps, save, load into a fresh optimizer, train 5 more: PyTorch's result."""
    torch.manual_seed(0)
    init = cov._model(torch).state_dict()

    def run(lib):
        model = _load(lib, cov._model(lib), init)
        x, y = lib.tensor(cov.X), lib.tensor(cov.Y)
        opt = lib.optim.Adafactor(model.parameters(), lr=0.04, weight_decay=0.05)
        for i in range(10):
            if i == 5:
                sd = opt.state_dict()
                opt = lib.optim.Adafactor(model.parameters())
                opt.load_state_dict(sd)
            opt.zero_grad()
            lib.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        return _flat(model.parameters()), test_optim._to_plain(opt.state_dict())

    (got, got_sd), (want, want_sd) = run(tm), run(torch)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11)
    cov._same(want_sd, got_sd)


def test_averaged_model_state_dict_round_trip_and_device():
    torch.manual_seed(6)
    init = _bn_model(torch).state_dict()

    def run(lib):
        model = _load(lib, _bn_model(lib), init)
        avg = lib.optim.swa_utils.AveragedModel(model, device="cpu")
        for scale in (1.0, 3.0):
            with lib.no_grad():
                model[0].weight.mul_(scale)
            avg.update_parameters(model)
        other = lib.optim.swa_utils.AveragedModel(_load(lib, _bn_model(lib), init))
        other.load_state_dict(avg.state_dict())
        other.update_parameters(model)  # third model: averaged with n_averaged == 2
        return other.n_averaged.item(), _flat(other.parameters()), str(avg.n_averaged.device)

    got, want = run(tm), run(torch)
    assert got[0] == want[0] == 3 and got[2] == want[2] == "cpu"
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)


def test_swalr_get_lr_outside_step_warns_like_torch():
    def run(lib):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        sched = lib.optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_epochs=3)
        with pytest.warns(UserWarning) as record:
            lrs = sched.get_lr()
        return lrs, [str(w.message) for w in record]

    assert run(tm) == run(torch)
