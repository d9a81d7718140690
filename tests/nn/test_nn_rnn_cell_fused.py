"""The fused cells (ops/nn/rnn_cell.py) against PyTorch: values and gradients of h (and c) under
random cotangents in float32 and float64, the grad_fn names a user sees, one node per call,
double backward through the op-by-op fallback, in-place checks, a loop over time steps."""

import numpy as np
import pytest

import taimatsu as tm
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
from nn_oracle import T
from test_nn_rnn_fused import compare_with_pytorch

pytestmark = pytest.mark.oracle

DTYPES = [(torch.float32, 2e-5, 2e-6), (torch.float64, 1e-10, 1e-12)]
CELLS = [
    ("LSTMCell", {}), ("LSTMCell", {"bias": False}), ("GRUCell", {}), ("GRUCell", {"bias": False}),
    ("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}), ("RNNCell", {"bias": False}),
]  # fmt: skip


def _pair(name, kw, dtype, size=(4, 5)):
    torch.manual_seed(0)
    o = getattr(onn, name)(*size, **kw).to(dtype)
    t = getattr(tnn, name)(*size, **kw).to(tm.float64 if dtype is torch.float64 else tm.float32)
    t.load_state_dict({k: T(v) for k, v in o.state_dict().items()})
    return t, o


def _state(name, batch, dtype):
    shape = (batch, 5) if batch is not None else (5,)
    n = 2 if name == "LSTMCell" else 1
    hs = [torch.randn(shape, dtype=dtype, requires_grad=True) for _ in range(n)]
    return hs, [T(h, True) for h in hs]


def _flat(r):
    return list(r) if isinstance(r, tuple) else [r]


@pytest.mark.parametrize("dtype,rtol,atol", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("batch", [3, 0, None], ids=["batched", "empty", "unbatched"])
@pytest.mark.parametrize("name,kw", CELLS, ids=[f"{n}-{kw}" for n, kw in CELLS])
def test_cell_matches_pytorch(name, kw, batch, dtype, rtol, atol):
    t, o = _pair(name, kw, dtype)
    torch.manual_seed(1)
    ox = torch.randn(*((batch,) if batch is not None else ()), 4, dtype=dtype, requires_grad=True)
    hs, ths = _state(name, batch, dtype)
    tx = T(ox, True)
    hx = (tuple(hs), tuple(ths)) if name == "LSTMCell" else (hs[0], ths[0])
    o_outs, t_outs = _flat(o(ox, hx[0])), _flat(t(tx, hx[1]))
    compare_with_pytorch(
        t_outs, o_outs, [tx, *ths, *t.parameters()], [ox, *hs, *o.parameters()], rtol, atol
    )


@pytest.mark.parametrize("which", [0, 1])
def test_lstm_cell_gradient_of_h_or_c_only(which):
    t, o = _pair("LSTMCell", {}, torch.float64)
    ox = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    hs, ths = _state("LSTMCell", 3, torch.float64)
    tx = T(ox, True)
    o_out, t_out = o(ox, tuple(hs))[which], t(tx, tuple(ths))[which]
    compare_with_pytorch(
        [t_out], [o_out], [tx, *ths, *t.parameters()], [ox, *hs, *o.parameters()], 1e-10, 1e-12
    )


def test_grad_fn_names_are_pytorchs():
    x = torch.randn(2, 4)
    for name, kw in CELLS + [("LSTMCell", {}), ("GRUCell", {})]:
        t, o = _pair(name, kw, torch.float32)
        for shape in ((2, 4), (4,)):
            o_outs, t_outs = (
                _flat(o(x[: shape[0]] if len(shape) == 2 else x[0])),
                _flat(t(T(x[: shape[0]]) if len(shape) == 2 else T(x[0]))),
            )
            for a, b in zip(t_outs, o_outs):
                assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__, (name, kw, shape)
    with tm.no_grad():
        h, c = tnn.LSTMCell(4, 5)(tm.randn(2, 4))
    assert h.grad_fn is None and c.grad_fn is None and not h.requires_grad


def test_one_fused_node_per_call():
    cell = tnn.LSTMCell(4, 5)
    h, c = cell(tm.randn(2, 4))
    assert h.grad_fn.next_functions[3][0].__class__.__name__ == "AccumulateGrad"  # weight_ih
    (inner, nr) = c.grad_fn.next_functions[0]
    assert inner is h.grad_fn and nr == 1


@pytest.mark.parametrize("name,kw", CELLS, ids=[f"{n}-{kw}" for n, kw in CELLS])
def test_double_backward_matches_pytorch(name, kw):
    t, o = _pair(name, kw, torch.float64)
    ox = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    hs, ths = _state(name, 3, torch.float64)
    tx = T(ox, True)
    hx = (tuple(hs), tuple(ths)) if name == "LSTMCell" else (hs[0], ths[0])
    o_out, t_out = _flat(o(ox, hx[0]))[0], _flat(t(tx, hx[1]))[0]
    (og,) = torch.autograd.grad((o_out * o_out).sum(), ox, create_graph=True)
    (tg,) = tm.autograd.grad((t_out * t_out).sum(), tx, create_graph=True)
    np.testing.assert_allclose(tg.detach().numpy(), og.detach().numpy(), rtol=1e-10)
    o_gg = torch.autograd.grad(og.pow(3).sum(), [ox, *hs, o.weight_hh])
    t_gg = tm.autograd.grad(tg.pow(3).sum(), [tx, *ths, t.weight_hh])
    for a, b in zip(t_gg, o_gg):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-12)


def test_gradcheck_float64():
    cell = tnn.LSTMCell(3, 2).double()
    x = tm.randn(2, 3, dtype=tm.float64, requires_grad=True)
    h = tm.randn(2, 2, dtype=tm.float64, requires_grad=True)
    c = tm.randn(2, 2, dtype=tm.float64, requires_grad=True)
    assert tm.autograd.gradcheck(lambda x, h, c: cell(x, (h, c)), (x, h, c))
    gru = tnn.GRUCell(3, 2).double()
    assert tm.autograd.gradcheck(lambda x, h: gru(x, h), (x, h))


def test_input_modified_in_place_after_forward_raises():
    for name in ("LSTMCell", "GRUCell", "RNNCell"):
        results = []
        for lib, nn in ((torch, onn), (tm, tnn)):
            lib.manual_seed(0)
            cell = getattr(nn, name)(4, 5)
            x = lib.randn(2, 4, requires_grad=True)
            h = lib.randn(2, 5, requires_grad=True) * 1
            out = _flat(cell(x, (h, h) if name == "LSTMCell" else h))[0]
            with lib.no_grad():
                cell.weight_hh.add_(1)
            with pytest.raises(RuntimeError) as e:
                out.sum().backward()
            results.append("modified by an inplace operation" in str(e.value))
        assert results == [True, True], name


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_rnn_cell_output_modified_in_place_raises(nonlinearity):
    for lib, nn in ((torch, onn), (tm, tnn)):
        cell = nn.RNNCell(4, 5, nonlinearity=nonlinearity)
        out = cell(lib.randn(2, 4))
        out.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


def test_lstm_cell_state_written_in_place_keeps_gradients():
    res = []
    for lib, nn in ((torch, onn), (tm, tnn)):
        lib.manual_seed(0)
        cell = nn.LSTMCell(4, 5)
        x = lib.randn(2, 4, requires_grad=True)
        h, c = cell(x)
        c.mul_(3)
        (h.sum() + c.sum()).backward()
        res.append(x.grad.numpy().copy())
    np.testing.assert_allclose(res[1], res[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["LSTMCell", "GRUCell"])
def test_loop_over_time_matches_pytorch(name):
    """A user loop over ``x[:, t]``: the input, the states and the weights' gradients."""
    t, o = _pair(name, {}, torch.float32, size=(6, 8))
    ox = torch.randn(3, 7, 6, requires_grad=True)
    tx = T(ox, True)
    outs = []
    for lib, cell, x in ((torch, o, ox), (tm, t, tx)):
        h = c = lib.zeros(3, 8)
        for step in range(x.shape[1]):
            if name == "LSTMCell":
                h, c = cell(x[:, step], (h, c))
            else:
                h = cell(x[:, step], h)
        (h.square().sum() + (c.sum() if name == "LSTMCell" else 0)).backward()
        outs.append(
            [h.detach().numpy(), x.grad.numpy(), *(p.grad.numpy() for p in cell.parameters())]
        )
    for a, b in zip(outs[1], outs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def _exact_pair(make, dtype):
    """A module whose products and sums are exact (small dyadic values): any difference from
    the op-by-op graph is then in the gate kernels."""
    m = make().to(dtype)
    gen = np.random.default_rng(5)
    with tm.no_grad():
        for p in m.parameters():
            p.copy_(tm.tensor(gen.integers(-4, 5, tuple(p.shape)) / 8, dtype=dtype))
    return m


@pytest.mark.parametrize("dtype", [tm.float32, tm.float64], ids=["float32", "float64"])
@pytest.mark.parametrize(
    "mode,make",
    [("LSTM", lambda: tnn.LSTMCell(6, 5)), ("GRU", lambda: tnn.GRUCell(6, 5)),
     ("RNN_TANH", lambda: tnn.RNNCell(6, 5)), ("RNN_RELU", lambda: tnn.RNNCell(6, 5, nonlinearity="relu"))],
    ids=["LSTMCell", "GRUCell", "RNNCell", "RNNCell-relu"],
)  # fmt: skip
def test_cell_gates_use_the_ops_kernels_bit_for_bit(mode, make, dtype):
    from taimatsu.ops.nn.rnn_cell import cell_ops

    m = _exact_pair(make, dtype)
    gen = np.random.default_rng(6)
    x = tm.tensor(gen.integers(-8, 9, (4, 6)) / 4, dtype=dtype, requires_grad=True)
    h = tm.tensor(gen.integers(-8, 9, (4, 5)) / 8, dtype=dtype)
    c = tm.tensor(gen.integers(-8, 9, (4, 5)) / 8, dtype=dtype)
    fused = _flat(m(x, (h, c)) if mode == "LSTM" else m(x, h))
    ref = cell_ops(
        mode, x, h, c if mode == "LSTM" else None, m.weight_ih, m.weight_hh, m.bias_ih, m.bias_hh
    )
    for a, b in zip(fused, ref):
        if b is not None:
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


@pytest.mark.parametrize("dtype", [tm.float32, tm.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("mode", ["GRU", "RNN", "LSTM"])
def test_layer_gates_use_the_ops_kernels_bit_for_bit(mode, dtype):
    """The fused GRU / RNN layers (and the float64 LSTM) agree bit for bit with the op-by-op
    cells on exact products; the float32 LSTM (oneDNN's in PyTorch) takes its own form."""
    from taimatsu.ops.nn.rnn import _layer_ops

    if mode == "LSTM" and dtype is tm.float32:
        pytest.skip("the float32 LSTM computes sigmoid as (tanh(x / 2) + 1) / 2")
    m = _exact_pair(lambda: getattr(tnn, mode)(6, 5), dtype)
    with tm.no_grad():  # h of later steps is not dyadic: h @ W_hh would round
        m.weight_hh_l0.zero_()
    gen = np.random.default_rng(7)
    x = tm.tensor(gen.integers(-8, 9, (3, 4, 6)) / 4, dtype=dtype, requires_grad=True)
    out, _ = m(x)
    c0 = tm.zeros(4, 5, dtype=dtype) if mode == "LSTM" else None
    ref, _, _ = _layer_ops(
        m.mode, x.reshape(12, 6), [4, 4, 4], tm.zeros(4, 5, dtype=dtype), c0,
        m.weight_ih_l0, m.weight_hh_l0, m.bias_ih_l0, m.bias_hh_l0, None, False,
    )  # fmt: skip
    np.testing.assert_array_equal(out.detach().numpy().reshape(12, 5), ref.detach().numpy())


def test_cells_run_op_by_op_while_ops_are_watched():
    """The profiler (and ONNX export, which traces op calls) sees the cell's ops."""
    cell = tnn.LSTMCell(3, 4)
    with tm.profiler.profile() as prof:
        h, _ = cell(tm.randn(2, 3, requires_grad=True))
    names = {e.key for e in prof.key_averages()}
    assert {"aten::linear", "aten::sigmoid", "aten::tanh"} <= names, names
    assert type(h.grad_fn.next_functions[0][0]).__name__ == "SigmoidBackward0"


@pytest.mark.parametrize("lengths", [[3, 3, 3, 3, 3], [3, 3, 2, 2, 1]], ids=["equal", "packed"])
def test_gru_layer_gates_bit_for_bit_at_vector_sizes(lengths):
    """batch * hidden = 100, not a multiple of the SIMD width: the float32 sigmoid's bits
    depend on the layout it is given (vectorised loop, scalar tail); the fused GRU layer,
    step-major or packed, gives every gate the bits of the op-by-op cell's."""
    from taimatsu.ops.nn.rnn import _layer_ops

    m = _exact_pair(lambda: tnn.GRU(6, 20), tm.float32)
    with tm.no_grad():
        m.weight_hh_l0.zero_()
    gen = np.random.default_rng(8)
    x = tm.tensor(gen.integers(-8, 9, (3, 5, 6)) / 4, dtype=tm.float32, requires_grad=True)
    packed = tnn.utils.rnn.pack_padded_sequence(x, lengths)
    out, _ = m(packed)
    bs = [int(b) for b in packed.batch_sizes]
    ref, _, _ = _layer_ops(
        "GRU", packed.data, bs, tm.zeros(5, 20), None,
        m.weight_ih_l0, m.weight_hh_l0, m.bias_ih_l0, m.bias_hh_l0, None, False,
    )  # fmt: skip
    np.testing.assert_array_equal(out.data.detach().numpy(), ref.detach().numpy())


def test_gru_cell_gates_bit_for_bit_at_vector_sizes():
    from taimatsu.ops.nn.rnn_cell import cell_ops

    m = _exact_pair(lambda: tnn.GRUCell(6, 20), tm.float32)
    gen = np.random.default_rng(9)
    x = tm.tensor(gen.integers(-8, 9, (5, 6)) / 4, dtype=tm.float32, requires_grad=True)
    h = tm.tensor(gen.integers(-8, 9, (5, 20)) / 8, dtype=tm.float32)
    ref, _ = cell_ops("GRU", x, h, None, m.weight_ih, m.weight_hh, m.bias_ih, m.bias_hh)
    np.testing.assert_array_equal(m(x, h).detach().numpy(), ref.detach().numpy())


def _gate_pre(batch, width, seed):
    gen = np.random.default_rng(seed)
    return (gen.standard_normal((batch, width)) * 4).astype(np.float32)


def _per_view(fn, a, hid):
    """One call per (batch, hid) gate view: the layout PyTorch's cells give the kernel."""
    return np.concatenate([fn(a[:, j : j + hid]) for j in range(0, a.shape[1], hid)], 1)


def _same_bits(got, per_view, torch_bits, exact_vs_torch):
    """``got`` has the per-view calls' bits; those are PyTorch's (on large arrays the float32
    sigmoid emulation itself still differs from PyTorch in a few elements per 100000)."""
    np.testing.assert_array_equal(got, per_view)
    if exact_vs_torch:
        np.testing.assert_array_equal(got, torch_bits)
    assert np.count_nonzero(got != torch_bits) <= got.size // 10000


# hid 128: a multiple of the SIMD width (one joined call where the thread chunks allow); hid
# 100: row tails run the scalar loop (one call per gate; joined, ~100 elements would differ).
# Over 32768 elements per gate, at 3 threads the chunks are cut inside rows: batch 300 at
# multiples of the width (joined), batch 301 not for the joined block (per gate; joined, the
# pieces' scalar tails would differ).
@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("hid,batch", [(128, 4), (128, 300), (128, 301), (100, 300)])
def test_joined_gate_calls_keep_pytorchs_bits(hid, batch, threads):
    """``gru_sigmoid`` (r and z) and LSTMCell's i and f gates may run as one sigmoid call; the
    bits stay those of one call per gate view, as PyTorch's cells run them."""
    from taimatsu.ops.nn.rnn import GateKernels
    from taimatsu.ops.nn.rnn_cell import _lstm_forward

    k = GateKernels(tm.float32, tm.device("cpu"))
    before_t, before_tm = torch.get_num_threads(), tm.get_num_threads()
    torch.set_num_threads(threads)
    tm.set_num_threads(threads)
    small = batch == 4  # see _same_bits
    try:
        rz = _gate_pre(batch, 2 * hid, hid + batch)
        t = torch.from_numpy(rz)
        want = torch.cat([torch.sigmoid(t[:, :hid]), torch.sigmoid(t[:, hid:])], 1).numpy()
        want_rz = want
        _same_bits(k.gru_sigmoid(rz), _per_view(k.sigmoid, rz, hid), want, small)
        # a strided view (the layer's gates[:, :2 hid]), as the fused GRU layer passes it
        g = _gate_pre(batch, 3 * hid, batch)[:, : 2 * hid]
        want = torch.cat([torch.sigmoid(torch.from_numpy(g[:, j : j + hid])) for j in (0, hid)], 1)
        _same_bits(k.gru_sigmoid(g), _per_view(k.sigmoid, g, hid), want.numpy(), small)
        # the step-major GRU layer's (2 hid, batch) block, in place
        from taimatsu.ops.nn.rnn_step_major import _gru_sigmoid_

        sm = np.ascontiguousarray(rz.T)
        _gru_sigmoid_(k, sm)
        _same_bits(sm.T, _per_view(k.sigmoid, rz, hid), want_rz, small)

        # LSTMCell: x @ I.T + 0 is exact, so the gates are x's values
        x = _gate_pre(batch, 4 * hid, hid)
        eye, zero = np.eye(4 * hid, dtype=np.float32), np.zeros((4 * hid, hid), np.float32)
        h = c = np.zeros((batch, hid), np.float32)
        _, _, (s, _, _) = _lstm_forward(k, x, h, c, eye, zero, None, None)
        i, f, o = s
        tx = torch.from_numpy(x)
        for gate, lo in ((i, 0), (f, hid), (o, 3 * hid)):
            want = torch.sigmoid(tx[:, lo : lo + hid]).numpy()
            _same_bits(gate, k.sigmoid(x[:, lo : lo + hid]), want, small)
    finally:
        torch.set_num_threads(before_t)
        tm.set_num_threads(before_tm)
