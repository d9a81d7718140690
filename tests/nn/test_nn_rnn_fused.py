"""The fused recurrent layers (ops/nn/rnn.py) against PyTorch: values and gradients of outputs,
h_n and c_n under random cotangents, in float32 and float64, for every mode of the layers; one
node per layer and direction; double backward through the op-by-op fallback; saved-tensor checks.
(The wider behaviour of the modules -- errors, cells, packing helpers -- is in test_nn_rnn.py.)
"""

import numpy as np
import pytest

import taimatsu as tm
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
from nn_oracle import T

pytestmark = pytest.mark.oracle

DTYPES = [(torch.float32, 2e-5, 2e-6), (torch.float64, 1e-10, 1e-12)]

LAYERS = [
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("LSTM", {"proj_size": 3, "num_layers": 2, "bidirectional": True}),
    ("LSTM", {"bias": False, "batch_first": True}),
    ("GRU", {}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("GRU", {"bias": False, "num_layers": 2}),
    ("RNN", {"num_layers": 2, "bidirectional": True}),
    ("RNN", {"nonlinearity": "relu", "batch_first": True}),
]  # fmt: skip


def _modules(mode, kw, dtype):
    torch.manual_seed(0)
    o = getattr(onn, mode)(4, 5, **kw).to(dtype)
    t = getattr(tnn, mode)(4, 5, **kw).to(tm.float64 if dtype is torch.float64 else tm.float32)
    t.load_state_dict({k: T(v) for k, v in o.state_dict().items()})
    return t, o


def _state(o, batch, dtype, given):
    if not given:
        return None
    d = (2 if o.bidirectional else 1) * o.num_layers
    h = torch.randn(d, batch, o.proj_size or o.hidden_size, dtype=dtype, requires_grad=True)
    if o.mode != "LSTM":
        return h
    return (h, torch.randn(d, batch, o.hidden_size, dtype=dtype, requires_grad=True))


def _leaves(x):
    if x is None:
        return []
    return list(x) if isinstance(x, tuple) else [x]


def _to_tm(state):
    if state is None:
        return None
    if isinstance(state, tuple):
        return tuple(T(s, True) for s in state)
    return T(state, True)


def _outputs(res):
    out, hid = res
    out = out.data if hasattr(out, "batch_sizes") else out
    return [out, *(hid if isinstance(hid, tuple) else (hid,))]


def _compare(t_res, o_res, t_in, o_in, rtol, atol):
    compare_with_pytorch(_outputs(t_res), _outputs(o_res), t_in, o_in, rtol, atol)


def compare_with_pytorch(t_outs, o_outs, t_in, o_in, rtol, atol):
    """Values of every output; gradients of every input for one random cotangent per output
    (also used by test_nn_rnn_cell_fused.py)."""
    for a, b in zip(t_outs, o_outs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)
    cots = [torch.randn(o.shape, dtype=o.dtype) for o in o_outs]
    o_grads = torch.autograd.grad(o_outs, o_in, cots, allow_unused=True)
    t_grads = tm.autograd.grad(t_outs, t_in, [T(c) for c in cots], allow_unused=True)
    for a, b in zip(t_grads, o_grads):
        assert (a is None) == (b is None)
        if b is not None:
            assert a.dtype == T(b).dtype
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=10 * rtol, atol=10 * atol)


@pytest.mark.parametrize("dtype,rtol,atol", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("given", [False, True], ids=["no_h0", "h0"])
@pytest.mark.parametrize("mode,kw", LAYERS, ids=[f"{m}{i}" for i, (m, _) in enumerate(LAYERS)])
def test_layer_matches_pytorch(mode, kw, given, dtype, rtol, atol):
    t, o = _modules(mode, kw, dtype)
    torch.manual_seed(1)
    shape = (3, 6, 4) if kw.get("batch_first") else (6, 3, 4)
    ox = torch.randn(shape, dtype=dtype, requires_grad=True)
    oh = _state(o, 3, dtype, given)
    tx, th = T(ox, True), _to_tm(oh)
    o_in = [ox, *_leaves(oh), *o.parameters()]
    t_in = [tx, *_leaves(th), *t.parameters()]
    _compare(t(tx, th), o(ox, oh), t_in, o_in, rtol, atol)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("dtype,rtol,atol", DTYPES, ids=["float32", "float64"])
def test_packed_unsorted_bidirectional_matches_pytorch(mode, dtype, rtol, atol):
    kw = {"num_layers": 2, "bidirectional": True, "batch_first": True}
    if mode == "LSTM":
        kw["proj_size"] = 2
    t, o = _modules(mode, kw, dtype)
    torch.manual_seed(2)
    ox = torch.randn(4, 7, 4, dtype=dtype, requires_grad=True)
    lengths = [3, 7, 1, 5]
    op = onn.utils.rnn.pack_padded_sequence(ox, lengths, batch_first=True, enforce_sorted=False)
    tx = T(ox, True)
    tp = tnn.utils.rnn.pack_padded_sequence(tx, lengths, batch_first=True, enforce_sorted=False)
    oh = _state(o, 4, dtype, True)
    th = _to_tm(oh)
    o_in = [ox, *_leaves(oh), *o.parameters()]
    t_in = [tx, *_leaves(th), *t.parameters()]
    _compare(t(tp, th), o(op, oh), t_in, o_in, rtol, atol)


@pytest.mark.parametrize("which", [1, 2], ids=["h_n_only", "c_n_only"])
def test_gradient_of_one_final_state_only(which):
    t, o = _modules("LSTM", {"num_layers": 2}, torch.float64)
    ox = torch.randn(5, 2, 4, dtype=torch.float64, requires_grad=True)
    tx = T(ox, True)
    o_out, t_out = _outputs(o(ox)), _outputs(t(tx))
    g = torch.randn(o_out[which].shape, dtype=torch.float64)
    o_gr = torch.autograd.grad(o_out[which], [ox, *o.parameters()], g)
    t_gr = tm.autograd.grad(t_out[which], [tx, *t.parameters()], T(g))
    for a, b in zip(t_gr, o_gr):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


def _nodes(root):
    seen, stack = set(), [root]
    while stack:
        n = stack.pop()
        if n is not None and n not in seen:
            seen.add(n)
            stack.extend(f for f, _ in n.next_functions)
    return seen


def test_one_node_per_layer_and_direction():
    t = tnn.LSTM(4, 8, num_layers=2, bidirectional=True, batch_first=True)
    out, (h, _c) = t(tm.randn(3, 50, 4))
    from taimatsu.ops.nn.rnn import RnnLayerBackward

    nodes = _nodes(out.grad_fn) | _nodes(h.grad_fn)
    names = [type(n).__name__ for n in nodes]
    # each layer's node carries the name PyTorch's oneDNN layer shows
    assert [isinstance(n, RnnLayerBackward) for n in nodes].count(True) == 4
    assert names.count("MkldnnRnnLayerBackward0") == 4
    assert len(names) < 40  # op by op, 50 steps made thousands of nodes


def test_double_backward_matches_pytorch():
    for mode in ("LSTM", "GRU", "RNN"):
        t, o = _modules(mode, {"bidirectional": True}, torch.float64)
        ox = torch.randn(4, 2, 4, dtype=torch.float64, requires_grad=True)
        tx = T(ox, True)
        v = torch.randn(4, 2, 4, dtype=torch.float64)

        def second(lib, mod, x, v):
            outs = _outputs(mod(x))
            loss = sum((o**2).sum() for o in outs)
            (gx,) = lib.autograd.grad(loss, x, create_graph=True)
            return lib.autograd.grad((gx * v).sum(), [x, *mod.parameters()])

        o_gr = second(torch, o, ox, v)
        t_gr = second(tm, t, tx, T(v))
        for a, b in zip(t_gr, o_gr):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11)


def test_gradcheck_and_gradgradcheck_float64():
    # Finite differences (no oracle): the fused backward, and the op-by-op double backward.
    tm.manual_seed(0)
    lstm = tnn.LSTM(2, 3, proj_size=2, bidirectional=True).double()
    x = tm.randn(3, 1, 2, dtype=tm.float64, requires_grad=True)
    h0 = tm.randn(2, 1, 2, dtype=tm.float64, requires_grad=True)
    c0 = tm.randn(2, 1, 3, dtype=tm.float64, requires_grad=True)

    def f(x, h0, c0, w):
        out, (h, c) = tm.func.functional_call(lstm, {"weight_hh_l0": w}, (x, (h0, c0)))
        return out, h, c

    assert tm.autograd.gradcheck(f, (x, h0, c0, lstm.weight_hh_l0))
    gru = tnn.GRU(2, 2).double()

    def g(x, w):
        return tm.func.functional_call(gru, {"weight_ih_l0": w}, (x,))[0]

    assert tm.autograd.gradgradcheck(g, (x[:2], gru.weight_ih_l0))


def test_weight_modified_in_place_after_forward_raises():
    t = tnn.GRU(4, 5)
    out, _ = t(tm.randn(3, 2, 4))
    with tm.no_grad():
        t.weight_hh_l0.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize(
    "name", ["LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"]
)  # fmt: skip
def test_bias_modified_in_place_after_forward(name, dtype):
    """PyTorch's composite cells and layers do not save their biases (their linear layers do
    not): a bias changed in place after the forward is no error, and the gradients are those of
    the forward's values. Its oneDNN LSTM layer (float32) saves them: an error there."""
    t, o = _modules(name, {}, dtype)
    results = []
    for lib, m in ((torch, o), (tm, t)):
        lib.manual_seed(0)
        shape = (3, 4) if name.endswith("Cell") else (2, 3, 4)
        x = lib.randn(shape, requires_grad=True, dtype=lib.float64)
        x = (x if dtype is torch.float64 else x.float()).detach().requires_grad_()
        out = m(x)
        out = out[0] if isinstance(out, tuple) else out
        bias = m.bias_ih if name.endswith("Cell") else m.bias_ih_l0
        with lib.no_grad():
            bias.add_(1)
        try:
            out.square().sum().backward()
        except RuntimeError as e:
            assert "modified by an inplace operation" in str(e)
            results.append(None)
            continue
        results.append(x.grad.numpy())
    if results[0] is None:
        assert name == "LSTM" and dtype is torch.float32
    assert (results[1] is None) == (results[0] is None)
    if results[0] is not None:
        np.testing.assert_allclose(results[1], results[0], rtol=1e-4, atol=1e-6)


def test_second_backward_needs_retain_graph():
    t = tnn.LSTM(4, 5)
    out, _ = t(tm.randn(3, 2, 4))
    out.sum().backward(retain_graph=True)
    g1 = t.weight_ih_l0.grad.clone()
    out.sum().backward()
    np.testing.assert_allclose(t.weight_ih_l0.grad.numpy(), 2 * g1.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.sum().backward()


@pytest.mark.parametrize("batch_first", [False, True])
def test_output_written_in_place_after_forward_keeps_gradients(batch_first):
    # The backward must not read the states from the output's memory.
    t, o = _modules("LSTM", {"batch_first": batch_first}, torch.float64)
    ox = torch.randn(5, 3, 4, dtype=torch.float64, requires_grad=True)
    tx = T(ox, True)
    g = torch.randn(5, 3, 5, dtype=torch.float64)
    grads = []
    for lib, mod, x, gg in ((torch, o, ox, g), (tm, t, tx, T(g))):
        out, (h, c) = mod(x)
        out.mul_(3)
        loss = (out * gg).sum() + h.sum() + c.sum()
        grads.append(lib.autograd.grad(loss, [x, *mod.parameters()]))
    for a, b in zip(*grads[::-1]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


LONG = [
    ("LSTM", {"bidirectional": True}),
    ("LSTM", {"proj_size": 3, "batch_first": True}),
    ("GRU", {"bidirectional": True}),
    ("GRU", {"bias": False, "batch_first": True}),
]


@pytest.mark.parametrize("dtype,rtol,atol", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("mode,kw", LONG, ids=[f"{m}{i}" for i, (m, _) in enumerate(LONG)])
def test_long_layer_matches_pytorch(mode, kw, dtype, rtol, atol):
    # 29 steps: the backward runs by chunks of steps (LSTM 15 + 14, GRU 10 + 10 + 9)
    t, o = _modules(mode, kw, dtype)
    torch.manual_seed(3)
    ox = torch.randn((2, 29, 4) if kw.get("batch_first") else (29, 2, 4), dtype=dtype)
    ox.requires_grad_(True)
    oh = _state(o, 2, dtype, True)
    tx, th = T(ox, True), _to_tm(oh)
    o_in = [ox, *_leaves(oh), *o.parameters()]
    t_in = [tx, *_leaves(th), *t.parameters()]
    _compare(t(tx, th), o(ox, oh), t_in, o_in, 5 * rtol, 5 * atol)


@pytest.mark.parametrize("dtype,rtol,atol", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_benchmark_sized_layer_matches_pytorch(mode, dtype, rtol, atol):
    # nn.LSTM/GRU(32, 128) on a batch of 32 (benchmarks/bench_training.py): each step's
    # product is above OpenBLAS's small-matrix limit and runs in row blocks where its
    # AVX-512 kernels take them (threads.small_kernel_rows)
    torch.manual_seed(0)
    o = getattr(onn, mode)(32, 128, batch_first=True).to(dtype)
    t = getattr(tnn, mode)(32, 128, batch_first=True).to(
        tm.float64 if dtype is torch.float64 else tm.float32
    )
    t.load_state_dict({k: T(v) for k, v in o.state_dict().items()})
    ox = torch.randn(32, 2, 32, dtype=dtype, requires_grad=True)
    oh = _state(o, 32, dtype, True)
    tx, th = T(ox, True), _to_tm(oh)
    o_in = [ox, *_leaves(oh), *o.parameters()]
    t_in = [tx, *_leaves(th), *t.parameters()]
    _compare(t(tx, th), o(ox, oh), t_in, o_in, 5 * rtol, 5 * atol)


def _output_node_names(T, cls, batch_first, layers, bidirectional, dtype, packed):
    T.manual_seed(0)
    m = getattr(T.nn, cls)(
        4, 5, num_layers=layers, bidirectional=bidirectional, batch_first=batch_first
    )
    m = m.to(dtype)
    x = T.randn(3, 2, 4, dtype=dtype)
    if packed:
        lengths = [2, 2, 1] if batch_first else [3, 2]  # (batch, steps) = (3, 2) or (2, 3)
        x = T.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=batch_first)
    out, h = m(x)
    out = out.data if packed else out
    states = h if isinstance(h, tuple) else (h,)
    return [type(t.grad_fn).__name__ for t in (out, *states)]


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("layers, bidirectional", [(1, False), (2, True)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("packed", [False, True])
def test_output_grad_fn_names_match_pytorch(cls, batch_first, layers, bidirectional, dtype, packed):
    # a learner's print(out.grad_fn): StackBackward0, MkldnnRnnLayerBackward0 (float32 LSTM),
    # CatBackward0 (two directions, or a packed input), Transpose of a batch_first output
    args = (cls, batch_first, layers, bidirectional)
    theirs = _output_node_names(torch, *args, getattr(torch, dtype), packed)
    mine = _output_node_names(tm, *args, getattr(tm, dtype), packed)
    assert mine == theirs
