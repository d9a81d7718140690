"""Argument checks and warnings of the sequence layers against PyTorch: ctc_loss's checks (a
length past the input was read as the input's length), pack_padded_sequence's batch-size
check, the deprecation warning for mismatched attention masks, the encoder's nested-tensor
inference path (its warning, +0 at padded positions), and no oneDNN warning for packed LSTMs."""

import warnings

import pytest

import taimatsu

CTC = {
    "target_length_past_targets": "F.ctc_loss(lp, tg, il, T.tensor([3, 1]))",
    "input_length_past_input": "F.ctc_loss(lp, tg, T.tensor([5, 4]), tl)",
    "input_length_list_past_input": "F.ctc_loss(lp, tg, [5, 3], [2, 1])",
    "negative_input_length": "F.ctc_loss(lp, tg, T.tensor([-1, 4]), tl)",
    "blank_past_labels": "F.ctc_loss(lp, tg, il, tl, blank=3)",
    "negative_blank": "F.ctc_loss(lp, tg, il, tl, blank=-1)",
    "concatenated_too_short": "F.ctc_loss(lp, T.tensor([1, 2]), il, tl)",
    "concatenated_too_long": "F.ctc_loss(lp, T.tensor([1, 2, 1, 1]), il, tl)",
    "input_lengths_count": "F.ctc_loss(lp, tg, T.tensor([4, 4, 4]), tl)",
    "target_lengths_count": "F.ctc_loss(lp, tg, il, T.tensor([2]))",
    "target_rows": "F.ctc_loss(lp, T.tensor([[1, 2]]), il, tl)",
    "unbatched_past_input": "F.ctc_loss(lp[:, 0], tg[0], T.tensor(5), T.tensor(2))",
    "valid": "F.ctc_loss(lp, tg, il, tl)",
    "valid_concatenated": "F.ctc_loss(lp, T.tensor([1, 2, 1]), il, tl)",
    "zero_infinity_grad_fn": "F.ctc_loss(lp.requires_grad_(), tg, il, tl, reduction='none', zero_infinity=True).grad_fn.name()",
}  # fmt: skip


def _ctc(T, expr):
    T.manual_seed(0)
    env = {"T": T, "F": T.nn.functional, "lp": T.randn(4, 2, 3).log_softmax(2)}
    env.update(tg=T.tensor([[1, 2], [1, 1]]), il=T.tensor([4, 4]), tl=T.tensor([2, 1]))
    try:
        r = eval(expr, env)
        return "value", r if isinstance(r, str) else round(r.item(), 5)
    except Exception as e:  # noqa: BLE001  the exception is the result compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("name", sorted(CTC))
def test_ctc_loss_checks(torch_oracle, name):
    assert _ctc(taimatsu, CTC[name]) == _ctc(torch_oracle, CTC[name])


PACK = [
    "P(T.zeros(3, 2, 2), T.tensor([3, 1, 1]))", "P(T.zeros(3, 2, 2), T.tensor([3, 0, 1]))",
    "P(T.zeros(2, 3, 2), T.tensor([3, 1]), batch_first=True)", "P(T.zeros(3, 2, 2), T.tensor([1, 3, 1]))",
    "P(T.zeros(0, 2, 2), T.tensor([1, 1]))", "P(T.zeros(3, 2, 2), T.tensor([3, 2])).batch_sizes",
    "P(T.ones(3, 2, 1), T.tensor([[3, 2]]), enforce_sorted=False)", "P(T.ones(3, 2, 1), T.tensor([[3, 2]]))",
    "P(T.ones(3, 2, 1), T.tensor(3))", "P(T.ones(3, 1, 1), T.tensor(3), enforce_sorted=False)",
    "P(T.ones(3, 2, 1), [[3, 2]])", "P(T.ones(3, 2, 1), 3)",
]  # fmt: skip


@pytest.mark.parametrize("expr", PACK)
def test_pack_padded_sequence_checks(torch_oracle, expr):
    def run(T):
        try:
            return "value", repr(eval(expr, {"T": T, "P": T.nn.utils.rnn.pack_padded_sequence}))
        except Exception as e:  # noqa: BLE001  the exception is the result compared
            return type(e).__name__, str(e)

    assert run(taimatsu) == run(torch_oracle)


def _mha(T):
    m = T.nn.MultiheadAttention(4, 1)
    q = T.randn(3, 2, 4)
    kpm = T.tensor([[False, False, True], [False, False, False]])
    m(q, q, q, key_padding_mask=kpm, attn_mask=T.nn.Transformer.generate_square_subsequent_mask(3))


def _encoder(T):
    layer = T.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)
    e = T.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    kpm = T.tensor([[False, False, True], [False, False, False]])
    mask = T.nn.Transformer.generate_square_subsequent_mask(3)
    e(T.randn(3, 2, 4), mask, src_key_padding_mask=kpm)


def _encoder_layer(T):
    layer = T.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)
    kpm = T.tensor([[False, False, True], [False, False, False]])
    layer(
        T.randn(3, 2, 4),
        T.nn.Transformer.generate_square_subsequent_mask(3),
        src_key_padding_mask=kpm,
    )


def _transformer(T):
    t = T.nn.Transformer(4, 2, 1, 1, 8, dropout=0.0)
    kpm = T.tensor([[False, False, True], [False, False, False]])
    mask = T.nn.Transformer.generate_square_subsequent_mask(3)
    t(T.randn(3, 2, 4), T.randn(3, 2, 4), tgt_mask=mask, tgt_key_padding_mask=kpm)


def _packed_lstm_with_projections(T):
    lstm = T.nn.LSTM(5, 4, proj_size=3)
    lstm(T.nn.utils.rnn.pack_padded_sequence(T.randn(3, 2, 5), T.tensor([3, 2])))


@pytest.mark.parametrize(
    "case", [_mha, _encoder, _encoder_layer, _transformer, _packed_lstm_with_projections],
    ids=lambda c: c.__name__.strip("_"),
)  # fmt: skip
def test_warnings(torch_oracle, case):
    # a bool padding mask with a float causal mask (the language-modelling tutorial's) warns
    seen = []
    for T in (torch_oracle, taimatsu):
        T.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            case(T)
        seen.append([(w.category, str(w.message)) for w in caught])
    assert seen[1] == seen[0]


def test_encoder_inference_path_pads_with_plus_zero(torch_oracle):
    # PyTorch's nested-tensor path: padded positions come back as +0, with its prototype warning
    import taimatsu._flags as flags

    flags._warned_once.discard("nested_tensor_prototype")
    out = []
    for T in (torch_oracle, taimatsu):
        T.manual_seed(0)
        layer = T.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)
        enc = T.nn.TransformerEncoder(layer, 1).eval()
        x = T.randn(2, 3, 4)
        kpm = T.tensor([[False, False, True], [False, False, False]])
        with warnings.catch_warnings(record=True) as caught, T.no_grad():
            warnings.simplefilter("always")
            y = enc(x, src_key_padding_mask=kpm)
        out.append((repr(y[0, 2]), ["nested tensors" in str(w.message) for w in caught]))
    assert out[1][0] == out[0][0] == "tensor([0., 0., 0., 0.])"
    assert True in out[1][1]
