"""Complex parameters against PyTorch: optimizers update them as pairs of reals (each state
tensor read through ``view_as_real``), so Adam's second moment holds the squares of the real and
imaginary parts, and LBFGS counts twice as many numbers. Parameters and state after a few steps
of a loss over complex parameters, for each optimizer and its main options."""

import numpy as np
import pytest

import taimatsu as tm

CASES = [
    ("SGD", {"momentum": 0.9, "nesterov": True}),
    ("Adam", {}),
    ("Adam", {"amsgrad": True, "weight_decay": 0.1, "maximize": True}),
    ("Adam", {"foreach": True}),
    ("AdamW", {"amsgrad": True}),
    ("RMSprop", {"momentum": 0.5, "centered": True}),
    ("Adagrad", {"lr_decay": 0.01, "weight_decay": 0.1, "initial_accumulator_value": 0.5}),
    ("Adadelta", {"weight_decay": 0.1}),
    ("NAdam", {"decoupled_weight_decay": True, "weight_decay": 0.1}),
    ("RAdam", {"weight_decay": 0.1}),
    ("Adamax", {"weight_decay": 0.1}),
    ("Rprop", {}),
    ("ASGD", {"t0": 2}),
    ("LBFGS", {"history_size": 3, "max_iter": 4}),
]


def _program(T, name, options):
    g = np.random.default_rng(11)
    z = g.standard_normal((2, 3)) + 1j * g.standard_normal((2, 3))
    p = T.nn.Parameter(T.tensor(z, dtype=T.complex64))
    q = T.nn.Parameter(T.tensor(g.standard_normal(3), dtype=T.float32))
    target = T.tensor(g.standard_normal(3) + 1j * g.standard_normal(3), dtype=T.complex64)
    opt = getattr(T.optim, name)([p, q], lr=0.1, **options)

    def closure():
        opt.zero_grad()
        loss = ((p * q).sum(0) - target).abs().pow(2).sum() + (p.real * p.imag).sum()
        loss.backward()
        return loss

    for _ in range(6):
        opt.step(closure)
    state = {
        k: v.numpy() if v.ndim else float(v)
        for k, v in opt.state[p].items()
        if hasattr(v, "numpy") and k != "step"
    }
    return p.detach().numpy(), q.detach().numpy(), state


@pytest.mark.parametrize("name,options", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_complex_parameter(torch_oracle, name, options):
    gp, gq, gs = _program(tm, name, options)
    wp, wq, ws = _program(torch_oracle, name, options)
    # LBFGS's float32 dot products over 24 evaluations drift apart in the last digits
    tol = {"rtol": 2e-4, "atol": 2e-5} if name == "LBFGS" else {"rtol": 2e-5, "atol": 2e-6}
    np.testing.assert_allclose(gp, wp, **tol)
    np.testing.assert_allclose(gq, wq, **tol)
    assert sorted(gs) == sorted(ws)
    for k in ws:
        np.testing.assert_allclose(gs[k], ws[k], **tol, err_msg=k)
        assert np.asarray(gs[k]).dtype == np.asarray(ws[k]).dtype, k
