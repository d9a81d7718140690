"""torch.lstm / gru / rnn_tanh / rnn_relu (padded and packed overloads) against PyTorch: values
and gradients with random cotangents (input, states, every weight), grad_fn names where ours are
PyTorch's (h_n, c_n, a batch_first output), dropout between layers, and ATen's errors."""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu as T

torch = pytest.importorskip("torch")

GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}
STEPS, BATCH, N_IN, HIDDEN, PROJ = 4, 3, 3, 5, 2
PACKED_SIZES = [3, 3, 2, 1]


def _arrays(name, layers, bias, bidir, proj=0, seed=0):
    """Input, states and the flat weights in ``_flat_weights`` order, as NumPy arrays."""
    rng = np.random.default_rng(seed)
    dirs = 2 if bidir else 1
    out = proj or HIDDEN
    params = []
    for layer in range(layers):
        for _ in range(dirs):
            n_in = N_IN if layer == 0 else out * dirs
            shapes = [(GATES[name] * HIDDEN, n_in), (GATES[name] * HIDDEN, out)]
            shapes += [(GATES[name] * HIDDEN,)] * 2 if bias else []
            shapes += [(proj, HIDDEN)] if proj else []
            params += [rng.standard_normal(s) * 0.5 for s in shapes]
    return {
        "x": rng.standard_normal((STEPS, BATCH, N_IN)),
        "data": rng.standard_normal((sum(PACKED_SIZES), N_IN)),
        "h": rng.standard_normal((layers * dirs, BATCH, out)),
        "c": rng.standard_normal((layers * dirs, BATCH, HIDDEN)),
        "params": params,
    }


def _run(M, name, a, dtype, layers, bias, bidir, batch_first=False, packed=False, dropout=0.0,
         train=False):  # fmt: skip
    dt = getattr(M, dtype)

    def leaf(v):
        return M.tensor(v, dtype=dt, requires_grad=True)

    x = leaf(a["data"] if packed else a["x"])
    inp = x.transpose(0, 1) if batch_first else x  # a non-contiguous batch-first input
    h, c = leaf(a["h"]), leaf(a["c"])
    params = [leaf(p) for p in a["params"]]
    hx = (h, c) if name == "lstm" else h
    fn = getattr(M, name)
    if packed:
        sizes = M.tensor(PACKED_SIZES)
        out = fn(inp, sizes, hx, params, bias, layers, dropout, train, bidir)
    else:
        out = fn(inp, hx, params, bias, layers, dropout, train, bidir, batch_first)
    leaves = [x, h] + ([c] if name == "lstm" else []) + params
    return leaves, list(out)


def _compare(name, a, dtype, named_outputs, **kw):
    (lo, oo), (lt, ot) = _run(T, name, a, dtype, **kw), _run(torch, name, a, dtype, **kw)
    tol = 2e-5 if dtype == "float32" else 1e-11
    assert len(oo) == len(ot) == (3 if name == "lstm" else 2)
    for i, (x, y) in enumerate(zip(oo, ot)):
        assert x.dtype == getattr(T, dtype) and tuple(x.shape) == tuple(y.shape)
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=tol, atol=tol)
        if i > 0 or named_outputs:
            assert x.grad_fn.name() == y.grad_fn.name()
    rng = np.random.default_rng(7)
    cots = [rng.standard_normal(tuple(y.shape)) for y in ot]
    T.autograd.backward(oo, [T.tensor(c, dtype=x.dtype) for x, c in zip(oo, cots)])
    torch.autograd.backward(ot, [torch.tensor(c, dtype=y.dtype) for y, c in zip(ot, cots)])
    for i, (x, y) in enumerate(zip(lo, lt)):
        np.testing.assert_allclose(
            x.grad.numpy(), y.grad.numpy(), rtol=10 * tol, atol=10 * tol, err_msg=f"leaf {i}"
        )


# (layers, bias, bidirectional, batch_first)
PADDED = [(1, True, False, False), (2, False, False, True), (2, True, True, False),
          (1, True, True, True)]  # fmt: skip


@pytest.mark.parametrize("name", sorted(GATES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layers, bias, bidir, batch_first", PADDED)
def test_padded(name, dtype, layers, bias, bidir, batch_first):
    a = _arrays(name, layers, bias, bidir)
    _compare(name, a, dtype, batch_first, layers=layers, bias=bias, bidir=bidir,
             batch_first=batch_first)  # fmt: skip


@pytest.mark.parametrize("name", sorted(GATES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias, bidir", [(True, True), (False, False)])
def test_packed(name, dtype, bias, bidir):
    a = _arrays(name, 2, bias, bidir, seed=1)
    _compare(name, a, dtype, False, layers=2, bias=bias, bidir=bidir, packed=True)


@pytest.mark.filterwarnings("ignore:LSTM with projections")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("packed, bias, bidir", [(False, True, True), (True, False, False)])
def test_lstm_with_projections(dtype, packed, bias, bidir):
    a = _arrays("lstm", 2, bias, bidir, proj=PROJ, seed=2)
    _compare("lstm", a, dtype, False, layers=2, bias=bias, bidir=bidir, packed=packed)


def test_dropout_between_layers_follows_the_generator():
    a = _arrays("gru", 2, True, False, seed=3)
    outs = []
    for M in (T, torch):
        M.manual_seed(0)
        outs.append(_run(M, "gru", a, "float64", 2, True, False, dropout=0.5, train=True)[1])
    for x, y in zip(*outs):
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-12)


def test_keywords_and_lists():
    a = _arrays("lstm", 1, True, False)
    for M in (T, torch):
        x, h, c = (M.tensor(a[k]) for k in ("x", "h", "c"))
        params = tuple(M.tensor(p) for p in a["params"])
        out, _, c_n = M.lstm(x, [h, c], params, has_biases=True, num_layers=1, dropout=0.0,
                               train=False, bidirectional=False, batch_first=False)  # fmt: skip
        assert tuple(out.shape) == (STEPS, BATCH, HIDDEN) and tuple(c_n.shape) == (1, BATCH, HIDDEN)
        (out,) = M.gru(
            data=M.tensor(a["data"]), batch_sizes=M.tensor(PACKED_SIZES), hx=h,
            params=[M.tensor(p) for p in _arrays("gru", 1, False, False)["params"]],
            has_biases=False, num_layers=1, dropout=0.0, train=False, bidirectional=False,
        )[:1]  # fmt: skip
        assert tuple(out.shape) == (sum(PACKED_SIZES), HIDDEN)


# --- errors ------------------------------------------------------------------------------------


def _bad(M, name, dtype="float32", layers=2, bias=True, bidir=False, packed=False, **change):
    """Call ``name`` with one argument changed: ``change`` maps an argument to f(M, args)."""
    a = _arrays(name, 2, bias, bidir)
    dt = getattr(M, dtype)
    args = {
        "input": M.tensor(a["x"], dtype=dt), "h": M.tensor(a["h"], dtype=dt),
        "c": M.tensor(a["c"], dtype=dt), "params": [M.tensor(p, dtype=dt) for p in a["params"]],
        "has_biases": bias, "num_layers": layers, "dropout": 0.0, "train": False,
        "bidirectional": bidir, "batch_first": False,
    }  # fmt: skip
    for k, f in change.items():
        args[k] = f(M, args)
    h, c = args.pop("h"), args.pop("c")
    if packed and "h" not in change:
        h, c = h[:, :2], c[:, :2]
    hx = args.pop("hx", (h, c) if name == "lstm" else h)
    if packed:
        x, sizes = args.pop("input"), args.pop("batch_sizes", M.tensor([2] * STEPS))
        data = x[:, :2].reshape(-1, N_IN)  # 4 steps of batch 2
        return getattr(M, name)(data, sizes, hx, *list(args.values())[:-1])
    x = args.pop("input")
    return getattr(M, name)(x, hx, *args.values())


ERRORS = {
    "lstm: one state": ("lstm", {"hx": lambda M, a: (a["h"],)}),
    "lstm: three states": ("lstm", {"hx": lambda M, a: (a["h"], a["c"], a["c"])}),
    "lstm: a tensor for hx": ("lstm", {"hx": lambda M, a: a["h"]}),
    "lstm: 2-D states": ("lstm", {"hx": lambda M, a: (a["h"][0], a["c"][0])}),
    "lstm: c0 of another hidden size": (
        "lstm",
        {"dtype": "float64", "c": lambda M, a: M.zeros(2, 3, 6, dtype=M.float64)},
    ),
    "lstm: c0 of another batch": (
        "lstm",
        {"dtype": "float64", "c": lambda M, a: M.zeros(2, 4, HIDDEN, dtype=M.float64)},
    ),
    "lstm: input float64, weights float32": (
        "lstm",
        {"input": lambda M, a: a["input"].double(), "h": lambda M, a: a["h"].double()},
    ),
    "gru: 7 params": ("gru", {"params": lambda M, a: a["params"][:7]}),
    "gru: more layers than states": ("gru", {"num_layers": lambda M, a: 3}),
    "gru: fewer layers than states": ("gru", {"num_layers": lambda M, a: 1}),
    "gru: one layer of weights": ("gru", {"params": lambda M, a: a["params"][:4]}),
    "gru: weights without biases": ("gru", {"has_biases": lambda M, a: False}),
    "gru: bidirectional with 3 states": (
        "gru",
        {"bidirectional": lambda M, a: True, "h": lambda M, a: M.zeros(3, 3, HIDDEN)},
    ),
    "gru: bidirectional, 2 layers of weights": ("gru", {"bidirectional": lambda M, a: True}),
    "gru: 2-D state": ("gru", {"h": lambda M, a: a["h"][0, :2]}),
    "gru: state of batch 4": ("gru", {"h": lambda M, a: M.zeros(2, 4, HIDDEN)}),
    "gru: state of batch 1": ("gru", {"h": lambda M, a: M.zeros(2, 1, HIDDEN)}),
    "gru: state float64, no biases": ("gru", {"bias": False, "h": lambda M, a: a["h"].double()}),
    "gru: empty sequence": ("gru", {"input": lambda M, a: a["input"][:0]}),
    "gru: dropout 1.5 in training": (
        "gru",
        {"dropout": lambda M, a: 1.5, "train": lambda M, a: True},
    ),
    "gru: a tuple for hx": ("gru", {"hx": lambda M, a: (a["h"],)}),
    "gru: int has_biases": ("gru", {"has_biases": lambda M, a: 1}),
    "gru: None batch_first": ("gru", {"batch_first": lambda M, a: None}),
    "rnn_tanh: state of hidden size 6": ("rnn_tanh", {"h": lambda M, a: M.zeros(2, 3, 6)}),
    "rnn_tanh: input of 6 features": ("rnn_tanh", {"input": lambda M, a: M.zeros(4, 3, 6)}),
    "rnn_relu: state of batch 1": ("rnn_relu", {"h": lambda M, a: M.zeros(2, 1, HIDDEN)}),
    "rnn_relu: input int64": ("rnn_relu", {"input": lambda M, a: a["input"].long()}),
    "gru packed: int32 batch_sizes": (
        "gru",
        {"packed": True, "batch_sizes": lambda M, a: M.tensor([2] * 4, dtype=M.int32)},
    ),
    "gru packed: batch_sizes past the data": (
        "gru",
        {"packed": True, "batch_sizes": lambda M, a: M.tensor([2] * 5)},
    ),
    "gru packed: state of batch 3 for batch 2": ("gru", {"packed": True, "h": lambda M, a: a["h"]}),
    "lstm packed: one state": ("lstm", {"packed": True, "hx": lambda M, a: [a["h"]]}),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    name, change = ERRORS[case]
    change = dict(change)
    options = {k: change.pop(k) for k in ("dtype", "bias", "packed") if k in change}
    with pytest.raises(Exception) as theirs:
        _bad(torch, name, **options, **change)
    with pytest.raises(Exception) as ours:
        _bad(T, name, **options, **change)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((1, 1), {}),
        ((1, 1, 1, 1, 1, 1, 1, 1), {"batch_first": 1}),
        ((1, 1, 1, 1, 1, 1, 1, 1), {"bad": 1}),
    ],
)
def test_no_overload_fits(args, kwargs):
    def call(M):
        x, h = M.zeros(2, 1, 3), M.zeros(1, 1, 4)
        values = [x, h, [M.zeros(4, 3)] * 2] + [True, 1, 0.0, False, False][: len(args) - 3]
        return M.gru(*values, **kwargs)

    with pytest.raises(TypeError) as theirs:
        call(torch)
    with pytest.raises(TypeError) as ours:
        call(T)
    assert str(ours.value) == str(theirs.value)
