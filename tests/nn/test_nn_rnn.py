"""nn.RNN / LSTM / GRU, their cells and nn.utils.rnn packing against PyTorch."""

import warnings

import pytest

import taimatsu as tm
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
from nn_oracle import T, check_vjp, close, same_error

pytestmark = pytest.mark.oracle


def _pair(make, seed=0):
    torch.manual_seed(seed)
    o = make(onn)
    tm.manual_seed(seed)
    t = make(tnn)
    assert repr(t) == repr(o)
    assert [n for n, _ in t.named_parameters()] == [n for n, _ in o.named_parameters()]
    for (tk, tv), (ok, ov) in zip(t.state_dict().items(), o.state_dict().items()):
        assert tk == ok
        close(tv, ov, 0, 0)  # default init draws PyTorch's numbers in PyTorch's order
    return t, o


def _flat(out):
    """The tensors of an RNN's (output, hidden) result, in order."""
    if hasattr(out, "batch_sizes"):
        return [out.data]
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flat(o)]
    return [out]


def _check(t_out, o_out, t_in, o_in, rtol=1e-5, atol=1e-6):
    t_all, o_all = _flat(t_out), _flat(o_out)
    assert len(t_all) == len(o_all)
    for tx, ox in zip(t_all, o_all):
        close(tx, ox, rtol, atol)
    # one random cotangent over every output at once
    gs = [torch.randn(o.shape) for o in o_all]
    o_loss = sum((o * g).sum() for o, g in zip(o_all, gs))
    t_loss = sum((t * T(g)).sum() for t, g in zip(t_all, gs))
    o_grads = torch.autograd.grad(o_loss, o_in, allow_unused=True, retain_graph=True)
    t_grads = tm.autograd.grad(t_loss, t_in, allow_unused=True, retain_graph=True)
    for tg, og in zip(t_grads, o_grads):
        close(tg, og, 1e-4, 1e-5)


RNNS = [
    (lambda nn: nn.RNN(3, 4), (5, 2, 3), False),
    (lambda nn: nn.RNN(3, 4, 2, nonlinearity="relu", bias=False), (5, 2, 3), True),
    (lambda nn: nn.RNN(3, 4, num_layers=2, batch_first=True, bidirectional=True), (2, 5, 3), True),
    (lambda nn: nn.LSTM(3, 4), (5, 2, 3), True),
    (lambda nn: nn.LSTM(3, 5, num_layers=2, bidirectional=True, batch_first=True), (3, 4, 3), True),
    (lambda nn: nn.LSTM(3, 5, proj_size=2, num_layers=2, bidirectional=True), (4, 3, 3), True),
    (lambda nn: nn.LSTM(3, 4, bias=False), (4, 3), False),  # unbatched
    (lambda nn: nn.GRU(3, 4), (5, 2, 3), True),
    (lambda nn: nn.GRU(3, 4, num_layers=3, bidirectional=True, bias=False), (4, 2, 3), True),
    (lambda nn: nn.GRU(3, 4, batch_first=True), (6, 3), True),  # unbatched
    (lambda nn: nn.RNN(3, 4, 2, 'relu', True, False, 0.0, True), (4, 2, 3), True),  # positional args
]  # fmt: skip


def _initial(o, shape):
    """Random (h0[, c0]) for module ``o`` and input ``shape``."""
    d = 2 if o.bidirectional else 1
    unbatched = len(shape) == 2
    b = () if unbatched else (shape[0] if o.batch_first else shape[1],)
    hs = o.proj_size if o.proj_size else o.hidden_size
    h = torch.randn(o.num_layers * d, *b, hs, requires_grad=True)
    if o.mode == "LSTM":
        return (h, torch.randn(o.num_layers * d, *b, o.hidden_size, requires_grad=True))
    return h


@pytest.mark.parametrize("make,shape,with_h0", RNNS, ids=[str(i) for i in range(len(RNNS))])
def test_rnn_matches_pytorch(make, shape, with_h0):
    t, o = _pair(make)
    torch.manual_seed(1)
    ox = torch.randn(shape, requires_grad=True)
    o_in, t_in = [ox], [T(ox, True)]
    if with_h0:
        h = _initial(o, shape)
        hs = list(h) if isinstance(h, tuple) else [h]
        o_in += hs
        t_in += [T(x, True) for x in hs]
        o_out = o(ox, h)
        t_h = tuple(t_in[1:]) if isinstance(h, tuple) else t_in[1]
        t_out = t(t_in[0], t_h)
    else:
        o_out, t_out = o(ox), t(t_in[0])
    _check(t_out, o_out, t_in + list(t.parameters()), o_in + list(o.parameters()))


def test_dropout_between_layers_draws_pytorch_stream():
    t, o = _pair(lambda nn: nn.LSTM(3, 4, num_layers=3, dropout=0.4, bidirectional=True))
    ox = torch.randn(5, 2, 3)
    torch.manual_seed(7)
    o_out = o(ox)
    tm.manual_seed(7)
    t_out = t(T(ox))
    for tx, ox_ in zip(_flat(t_out), _flat(o_out)):
        close(tx, ox_)
    t.eval()
    o.eval()
    close(t(T(ox))[0], o(ox)[0])


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequences(mode, enforce_sorted):
    make = lambda nn: getattr(nn, mode)(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    t, o = _pair(make)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    torch.manual_seed(2)
    ox = torch.randn(4, 5, 3, requires_grad=True)
    tx = T(ox, True)
    o_p = onn.utils.rnn.pack_padded_sequence(
        ox, lengths, batch_first=True, enforce_sorted=enforce_sorted
    )
    t_p = tnn.utils.rnn.pack_padded_sequence(
        tx, lengths, batch_first=True, enforce_sorted=enforce_sorted
    )
    close(t_p.data, o_p.data)
    close(t_p.batch_sizes, o_p.batch_sizes, 0, 0)
    if enforce_sorted:
        assert t_p.sorted_indices is None and t_p.unsorted_indices is None
    else:
        close(t_p.sorted_indices, o_p.sorted_indices, 0, 0)
        close(t_p.unsorted_indices, o_p.unsorted_indices, 0, 0)
    h = _initial(o, (4, 5, 3))
    hs = list(h) if isinstance(h, tuple) else [h]
    t_hs = [T(x, True) for x in hs]
    o_out = o(o_p, h)
    t_out = t(t_p, tuple(t_hs) if isinstance(h, tuple) else t_hs[0])
    assert type(t_out[0]).__name__ == "PackedSequence"
    _check(t_out, o_out, [tx, *t_hs, *t.parameters()], [ox, *hs, *o.parameters()])
    o_pad, o_len = onn.utils.rnn.pad_packed_sequence(o_out[0], batch_first=True, total_length=6)
    t_pad, t_len = tnn.utils.rnn.pad_packed_sequence(t_out[0], batch_first=True, total_length=6)
    close(t_pad, o_pad)
    close(t_len, o_len, 0, 0)
    check_vjp(t_pad, o_pad, [tx], [ox], 1e-4, 1e-5, name=False)


def test_pad_and_pack_sequence():
    seqs = [torch.randn(n, 2, requires_grad=True) for n in (2, 4, 1)]
    tseqs = [T(s, True) for s in seqs]
    U = tnn.utils.rnn
    for kw in ({}, {"batch_first": True, "padding_value": -1.0}, {"padding_side": "left"}):
        check_vjp(U.pad_sequence(tseqs, **kw), onn.utils.rnn.pad_sequence(seqs, **kw), tseqs, seqs,
                  name=False)  # fmt: skip
    o_p = onn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
    t_p = U.pack_sequence(tseqs, enforce_sorted=False)
    for a, b in zip(t_p, o_p):
        close(a, b, 0, 0)
    assert repr(U.pack_sequence([tm.tensor([1, 2, 3]), tm.tensor([4])])) == repr(
        onn.utils.rnn.pack_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])])
    )
    for a, b in zip(U.unpack_sequence(t_p), onn.utils.rnn.unpack_sequence(o_p)):
        close(a, b)
    same_error(lambda: U.pack_sequence(tseqs), lambda: onn.utils.rnn.pack_sequence(seqs))
    same_error(
        lambda: U.pad_packed_sequence(t_p, total_length=2),
        lambda: onn.utils.rnn.pad_packed_sequence(o_p, total_length=2),
    )
    same_error(
        lambda: U.pack_padded_sequence(tm.randn(3, 2), [3, 0]),
        lambda: onn.utils.rnn.pack_padded_sequence(torch.randn(3, 2), [3, 0]),
    )


def test_pad_sequence_follows_the_first_sequence():
    """The first sequence gives the trailing sizes and dtype; the others are copied in (cast,
    broadcast, or copy_'s size error); grad_fn CopySlices; PyTorch's input checks."""
    U, O = tnn.utils.rnn, onn.utils.rnn
    a, b = torch.randn(3, 2, requires_grad=True), torch.randn(1, 2, requires_grad=True)
    ta, tb = T(a, True), T(b, True)
    check_vjp(U.pad_sequence([ta, tb]), O.pad_sequence([a, b]), [ta, tb], [a, b])
    i64, half = torch.ones(2, dtype=torch.int64), torch.full((3,), 2.5)
    cases = [
        ([torch.ones(2, 3), torch.ones(1, 1)], {"batch_first": True}),
        ([torch.ones(2, 3), torch.ones(1)], {"padding_side": "left"}),
        ([i64, half], {"padding_value": 7}),
        ([half, i64], {"padding_value": 0.5}),
    ]
    for seqs, kw in cases:
        t = U.pad_sequence([T(s) for s in seqs], **kw)
        o = O.pad_sequence(seqs, **kw)
        assert t.dtype == T(o).dtype
        close(t, o, 0, 0)
    bad = [
        ([], {}),
        ([torch.zeros(2, 3), torch.zeros(2, 4)], {}),
        ([torch.zeros(2, 3), torch.zeros(2, 4)], {"batch_first": True}),
        ([torch.zeros(2, 3), torch.zeros(2)], {}),
        ([torch.zeros(2)], {"padding_side": "mid"}),
        ([torch.tensor(1.0)], {}),
        ([torch.zeros(2, 3), torch.tensor(1.0)], {}),
    ]
    for seqs, kw in bad:
        same_error(lambda: U.pad_sequence([T(s) for s in seqs], **kw),  # noqa: B023
                   lambda: O.pad_sequence(seqs, **kw))  # noqa: B023  # fmt: skip
    same_error(lambda: U.pad_sequence(5), lambda: O.pad_sequence(5))


CELLS = [
    (lambda nn: nn.RNNCell(3, 4), (2, 3)), (lambda nn: nn.RNNCell(3, 4, bias=False, nonlinearity="relu"), (2, 3)),
    (lambda nn: nn.LSTMCell(3, 4), (2, 3)), (lambda nn: nn.LSTMCell(3, 4, bias=False), (3,)),
    (lambda nn: nn.GRUCell(3, 4), (2, 3)), (lambda nn: nn.GRUCell(3, 4), (3,)),
]  # fmt: skip


@pytest.mark.parametrize("make,shape", CELLS, ids=[str(i) for i in range(len(CELLS))])
def test_cells_match_pytorch(make, shape):
    t, o = _pair(make)
    torch.manual_seed(3)
    ox = torch.randn(shape, requires_grad=True)
    hshape = (*shape[:-1], 4)
    lstm = isinstance(o, onn.LSTMCell)
    hs = [torch.randn(hshape, requires_grad=True) for _ in range(2 if lstm else 1)]
    ths = [T(h, True) for h in hs]
    o_out = o(ox, tuple(hs) if lstm else hs[0])
    tx = T(ox, True)
    t_out = t(tx, tuple(ths) if lstm else ths[0])
    _check(t_out, o_out, [tx, *ths, *t.parameters()], [ox, *hs, *o.parameters()])
    for a, b in zip(_flat(t(tx)), _flat(o(ox))):  # zero initial state
        close(a, b)


def test_errors_match_pytorch():
    cases = [
        lambda nn: nn.RNN(3, 4, nonlinearity="x"), lambda nn: nn.GRU(3, 4, proj_size=2),
        lambda nn: nn.RNN(3, 4, dropout=2), lambda nn: nn.RNN(3, 4.0), lambda nn: nn.RNN(3, 0),
        lambda nn: nn.RNN(3, 4, num_layers=0), lambda nn: nn.LSTM(3, 4, proj_size=4),
        lambda nn: nn.LSTM(3, 4, proj_size=-1),
    ]  # fmt: skip
    for c in cases:
        same_error(lambda: c(tnn), lambda: c(onn))  # noqa: B023
    calls = [
        (lambda nn: nn.RNN(3, 4), [(2, 3, 4)]), (lambda nn: nn.RNN(3, 4), [(2, 3, 3), (1, 2, 4)]),
        (lambda nn: nn.RNN(3, 4), [(2, 3, 3, 1)]), (lambda nn: nn.RNN(3, 4), [(2, 3, 3), (2, 4)]),
        (lambda nn: nn.GRU(3, 4), [(3, 3), (1, 2, 4)]),
        (lambda nn: nn.RNNCell(3, 4), [(2, 4)]), (lambda nn: nn.RNNCell(3, 4), [(2, 3), (3, 4)]),
        (lambda nn: nn.RNNCell(3, 4), [(2, 3, 3)]), (lambda nn: nn.GRUCell(3, 4), [(2, 3), (2, 5)]),
        (lambda nn: nn.GRUCell(3, 4), [(4, 3), (4,)]), (lambda nn: nn.GRUCell(3, 4), [(2, 3), (4,)]),
        (lambda nn: nn.RNNCell(3, 4), [(3,), (1, 4)]),
    ]  # fmt: skip
    for make, shapes in calls:
        ts, os_ = [tm.randn(*s) for s in shapes], [torch.randn(*s) for s in shapes]
        same_error(lambda: make(tnn)(*ts), lambda: make(onn)(*os_))  # noqa: B023
    for hs in [((1, 2, 4), (1, 3, 4)), ((1, 3, 4), (3, 4))]:
        same_error(
            lambda: tnn.LSTM(3, 4)(tm.randn(2, 3, 3), tuple(tm.randn(*s) for s in hs)),  # noqa: B023
            lambda: onn.LSTM(3, 4)(torch.randn(2, 3, 3), tuple(torch.randn(*s) for s in hs)),  # noqa: B023
        )
    for hs in [((2, 4), (3, 4)), ((4,), (4,)), ((2, 4), (2, 5))]:
        x = 4 if hs[0] == (4,) else 2
        same_error(
            lambda: tnn.LSTMCell(3, 4)(tm.randn(x, 3), tuple(tm.randn(*s) for s in hs)),  # noqa: B023
            lambda: onn.LSTMCell(3, 4)(torch.randn(x, 3), tuple(torch.randn(*s) for s in hs)),  # noqa: B023
        )
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tnn.RNN(3, 4, dropout=0.5)
        onn.RNN(3, 4, dropout=0.5)
    assert str(w[0].message) == str(w[1].message)


def test_input_dtype_must_match_weights():
    """PyTorch's ValueError (before any shape check) when input and weights differ in dtype."""

    def packed(lib):
        return lib.nn.utils.rnn.pack_padded_sequence(lib.ones(2, 1, 3), [2])

    cases = [
        (lambda nn: nn.RNN(3, 4).double(), lambda lib: lib.ones(2, 1, 3)),
        (lambda nn: nn.GRU(3, 4, batch_first=True).double(), lambda lib: lib.ones(1, 2, 3)),
        (lambda nn: nn.LSTM(3, 4).double(), lambda lib: lib.ones(2, 3)),  # unbatched
        (lambda nn: nn.LSTM(3, 4), lambda lib: lib.ones(2, 1, 3, dtype=lib.float64)),
        (lambda nn: nn.RNN(3, 4), lambda lib: lib.ones(2, 1, 3, dtype=lib.float16)),
        (lambda nn: nn.RNN(3, 4), lambda lib: lib.ones(2, 1, 3, dtype=lib.long)),
        (lambda nn: nn.RNN(3, 4).double(), lambda lib: lib.ones(2, 1, 5)),  # wrong size too
        (lambda nn: nn.RNN(3, 4).double(), lambda lib: lib.ones(2, 1, 1, 3)),  # 4-D: dims first
        (lambda nn: nn.GRU(3, 4).double(), packed),
    ]
    for make, inp in cases:
        same_error(lambda: make(tnn)(inp(tm)), lambda: make(onn)(inp(torch)))  # noqa: B023


def test_state_dict_roundtrip_and_double():
    o = onn.GRU(3, 4, num_layers=2, bidirectional=True)
    t = tnn.GRU(3, 4, num_layers=2, bidirectional=True)
    t.load_state_dict({k: T(v) for k, v in o.state_dict().items()})
    ox = torch.randn(3, 2, 3, dtype=torch.float64)
    close(t.double()(T(ox))[0], o.double()(ox)[0], 1e-10, 1e-12)
    assert len(t.all_weights) == 4 and t._flat_weights_names == o._flat_weights_names
