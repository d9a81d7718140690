"""torch.rnn_tanh_cell / rnn_relu_cell / lstm_cell / gru_cell against PyTorch: values, gradients
with random cotangents (input, state, weights, biases), grad_fn names, and ATen's errors."""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu as T

torch = pytest.importorskip("torch")

GATES = {"rnn_tanh_cell": 1, "rnn_relu_cell": 1, "lstm_cell": 4, "gru_cell": 3}


def _arrays(name, batch=3, n_in=4, hid=5, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    g = GATES[name]
    return {
        "x": rng.standard_normal((batch, n_in)), "h": rng.standard_normal((batch, hid)),
        "c": rng.standard_normal((batch, hid)), "w_ih": rng.standard_normal((g * hid, n_in)) * 0.5,
        "w_hh": rng.standard_normal((g * hid, hid)) * 0.5, "b_ih": rng.standard_normal(g * hid),
        "b_hh": rng.standard_normal(g * hid),
    } | {"dtype": dtype}  # fmt: skip


def _call(M, name, a, bias=True):
    dt = getattr(M, a["dtype"])
    t = {k: M.tensor(v, dtype=dt, requires_grad=True) for k, v in a.items() if k != "dtype"}
    hx = (t["h"], t["c"]) if name == "lstm_cell" else t["h"]
    biases = (t["b_ih"], t["b_hh"]) if bias else ()
    out = getattr(M, name)(t["x"], hx, t["w_ih"], t["w_hh"], *biases)
    outs = list(out) if isinstance(out, tuple) else [out]
    return t, outs


@pytest.mark.parametrize("name", sorted(GATES))
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients(name, bias, dtype):
    a = _arrays(name, dtype=dtype)
    (to, oo), (tt, ot) = _call(T, name, a, bias), _call(torch, name, a, bias)
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert len(oo) == len(ot)
    for x, y in zip(oo, ot):
        assert x.dtype == T.float32 if dtype == "float32" else x.dtype == T.float64
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=tol, atol=tol)
        assert type(x.grad_fn).__name__ == type(y.grad_fn).__name__
    rng = np.random.default_rng(9)
    cots = [rng.standard_normal(tuple(y.shape)) for y in ot]
    sum(
        ((x * T.tensor(c, dtype=x.dtype)).sum() for x, c in zip(oo, cots)), T.tensor(0.0)
    ).backward()
    sum(
        ((y * torch.tensor(c, dtype=y.dtype)).sum() for y, c in zip(ot, cots)), torch.tensor(0.0)
    ).backward()
    for k in to:
        if tt[k].grad is None:
            assert to[k].grad is None, k
            continue
        np.testing.assert_allclose(
            to[k].grad.numpy(), tt[k].grad.numpy(), rtol=10 * tol, atol=10 * tol
        )


def test_lstm_cell_takes_a_list_of_states():
    a = _arrays("lstm_cell")
    for M in (T, torch):
        t = {k: M.tensor(v) for k, v in a.items() if k != "dtype"}
        h, c = M.lstm_cell(t["x"], [t["h"], t["c"]], t["w_ih"], t["w_hh"])
        assert tuple(h.shape) == tuple(c.shape) == (3, 5)


def _err(M, name, **change):
    a = _arrays(name, dtype="float32")
    t = {k: M.tensor(v, dtype=M.float32) for k, v in a.items() if k != "dtype"}
    t.update({k: v(M) for k, v in change.items()})
    hx = t.pop("hx", (t["h"], t["c"]) if name == "lstm_cell" else t["h"])
    return getattr(M, name)(t["x"], hx, t["w_ih"], t["w_hh"], t["b_ih"], t["b_hh"])


ERRORS = [
    ("lstm_cell", {"hx": lambda M: (M.ones(3, 5),)}),
    ("lstm_cell", {"hx": lambda M: M.ones(3, 5)}),
    ("lstm_cell", {"x": lambda M: M.ones(4)}),
    ("lstm_cell", {"w_ih": lambda M: M.ones(15, 4)}),
    ("lstm_cell", {"x": lambda M: M.ones(3, 6)}),
    ("lstm_cell", {"hx": lambda M: (M.ones(3, 6), M.ones(3, 5))}),
    ("lstm_cell", {"hx": lambda M: (M.ones(3, 5), M.ones(2, 5))}),
    ("gru_cell", {"w_hh": lambda M: M.ones(20, 5)}),
    ("gru_cell", {"x": lambda M: M.ones(3, 7)}),
    ("gru_cell", {"hx": lambda M: None}),
    ("rnn_tanh_cell", {"x": lambda M: M.ones(2, 3, 4)}),
    ("rnn_tanh_cell", {"w_ih": lambda M: M.ones(6, 4)}),
    ("rnn_relu_cell", {"hx": lambda M: M.ones(2, 5)}),
    ("rnn_relu_cell", {"x": lambda M: M.ones(3, 4, dtype=M.float64)}),
    ("rnn_relu_cell", {"x": lambda M: M.ones(3, 4, dtype=M.float64), "b_ih": lambda M: None}),
]


@pytest.mark.parametrize(
    "name, change", ERRORS, ids=lambda v: v if isinstance(v, str) else "-".join(v)
)
def test_errors(name, change):
    with pytest.raises(Exception) as theirs:
        _err(torch, name, **change)
    with pytest.raises(Exception) as ours:
        _err(T, name, **change)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)
