"""nn.MultiheadAttention, TransformerEncoderLayer and TransformerEncoder against PyTorch."""

import warnings

import pytest

import taimatsu as tm
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
from nn_oracle import T, check_vjp, close, same_error

pytestmark = pytest.mark.oracle


def _pair(make, seed=0):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.manual_seed(seed)
        o = make(onn)
        tm.manual_seed(seed)
        t = make(tnn)
    msgs = [str(x.message) for x in w]
    assert msgs[: len(msgs) // 2] == msgs[len(msgs) // 2 :]
    assert repr(t) == repr(o)
    for (tk, tv), (ok, ov) in zip(t.state_dict().items(), o.state_dict().items()):
        assert tk == ok
        close(tv, ov, 0, 0)
    return t, o


def _masks(kind, B, L, S, H):
    torch.manual_seed(5)
    if kind is None:
        return {}
    out = {}
    if "kpm" in kind:
        kpm = torch.zeros(B, S, dtype=torch.bool)
        kpm[0, -1] = True
        kpm[-1, -2:] = True
        out["key_padding_mask"] = kpm if "bool" in kind else kpm.float() * -1e9
    if "attn" in kind:
        causal = torch.ones(L, S, dtype=torch.bool).triu(1)
        out["attn_mask"] = causal if "bool" in kind else torch.randn(L, S)
    if "3d" in kind:
        out["attn_mask"] = torch.randn(B * H, L, S)
    return out


MHA = [
    ({}, {}, None), ({"batch_first": True}, {}, "kpm-bool"),
    ({}, {"need_weights": False}, "attn-bool"), ({}, {"average_attn_weights": False}, "kpm-attn-float"),
    ({"bias": False, "kdim": 3, "vdim": 5}, {}, "3d"), ({"batch_first": True}, {"need_weights": False}, "kpm-attn-bool"),
]  # fmt: skip


@pytest.mark.parametrize("ctor,call,masks", MHA, ids=[str(i) for i in range(len(MHA))])
def test_mha_matches_pytorch(ctor, call, masks):
    t, o = _pair(lambda nn: nn.MultiheadAttention(4, 2, **ctor))
    B, L, S = 3, 4, 5
    kdim, vdim = ctor.get("kdim", 4), ctor.get("vdim", 4)
    bf = ctor.get("batch_first", False)
    shp = lambda n, d: (B, n, d) if bf else (n, B, d)
    torch.manual_seed(1)
    oq, ok, ov = (
        torch.randn(shp(n, d), requires_grad=True) for n, d in ((L, 4), (S, kdim), (S, vdim))
    )
    tq, tk, tv = (T(x, True) for x in (oq, ok, ov))
    m = _masks(masks, B, L, S, 2)
    tm_ = {k: T(v) for k, v in m.items()}
    o_out, o_w = o(oq, ok, ov, **m, **call)
    t_out, t_w = t(tq, tk, tv, **tm_, **call)
    check_vjp(
        t_out,
        o_out,
        [tq, tk, tv, *t.parameters()],
        [oq, ok, ov, *o.parameters()],
        1e-4,
        1e-5,
        name=False,
    )
    if o_w is None:
        assert t_w is None
    else:
        close(t_w, o_w, 1e-5, 1e-6)


def test_mha_unbatched_and_eval_no_grad():
    t, o = _pair(lambda nn: nn.MultiheadAttention(6, 3))
    ox = torch.randn(4, 6)
    for a, b in zip(t(T(ox), T(ox), T(ox)), o(ox, ox, ox)):
        close(a, b, 1e-5, 1e-6)
    t.eval()
    o.eval()
    ox = torch.randn(4, 2, 6)
    with torch.no_grad(), tm.no_grad():  # PyTorch's fast path
        for a, b in zip(t(T(ox), T(ox), T(ox)), o(ox, ox, ox)):
            close(a, b, 1e-5, 1e-6)


LAYERS = [
    {}, {"batch_first": True, "activation": "gelu"}, {"norm_first": True}, {"bias": False, "layer_norm_eps": 1e-3},
]  # fmt: skip


@pytest.mark.parametrize("kw", LAYERS, ids=[str(i) for i in range(len(LAYERS))])
@pytest.mark.parametrize("masks", [None, "kpm-bool", "attn-bool", "kpm-attn-float"])
def test_encoder_layer_matches_pytorch(kw, masks):
    t, o = _pair(lambda nn: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw))
    B, L = 2, 5
    torch.manual_seed(1)
    ox = torch.randn((B, L, 8) if kw.get("batch_first") else (L, B, 8), requires_grad=True)
    tx = T(ox, True)
    m = _masks(masks, B, L, L, 2)
    names = {"key_padding_mask": "src_key_padding_mask", "attn_mask": "src_mask"}
    om = {names[k]: v for k, v in m.items()}
    tmk = {k: T(v) for k, v in om.items()}
    check_vjp(
        t(tx, **tmk),
        o(ox, **om),
        [tx, *t.parameters()],
        [ox, *o.parameters()],
        1e-4,
        1e-5,
        name=False,
    )
    t.eval()
    o.eval()
    close(t(tx, **tmk), o(ox, **om), 1e-4, 1e-5)


@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_matches_pytorch(batch_first):
    def make(nn):
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=batch_first)
        return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8))

    t, o = _pair(make)
    t.eval()
    o.eval()
    torch.manual_seed(1)
    ox = torch.randn((2, 5, 8) if batch_first else (5, 2, 8), requires_grad=True)
    tx = T(ox, True)
    kpm = torch.zeros(2, 5, dtype=torch.bool)
    kpm[1, 3:] = True
    mask = onn.Transformer.generate_square_subsequent_mask(5)
    check_vjp(t(tx, mask=T(mask)), o(ox, mask=mask), [tx, *t.parameters()], [ox, *o.parameters()], 1e-4, 1e-5,
              name=False)  # fmt: skip
    close(t(tx, src_key_padding_mask=T(kpm)), o(ox, src_key_padding_mask=kpm), 1e-4, 1e-5)
    with torch.no_grad(), tm.no_grad():  # the nested-tensor inference path zeroes padded positions
        close(
            t(T(ox), src_key_padding_mask=T(kpm)),
            o(ox.detach(), src_key_padding_mask=kpm),
            1e-4,
            1e-5,
        )


def test_errors_match_pytorch():
    for make in [
        lambda nn: nn.MultiheadAttention(5, 2), lambda nn: nn.MultiheadAttention(0, 2),
        lambda nn: nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    ]:  # fmt: skip
        same_error(lambda: make(tnn), lambda: make(onn))  # noqa: B023
    x = torch.randn(3, 2, 4)
    for kw in [
        {"attn_mask": torch.zeros(2, 3)}, {"attn_mask": torch.zeros(2, 3, 3)},
        {"key_padding_mask": torch.zeros(2, 3, dtype=torch.long)},
    ]:  # fmt: skip
        same_error(
            lambda: tnn.MultiheadAttention(4, 2)(
                T(x),
                T(x),
                T(x),
                **{k: T(v) for k, v in kw.items()},  # noqa: B023
            ),
            lambda: onn.MultiheadAttention(4, 2)(x, x, x, **kw),  # noqa: B023
        )


def test_nested_tensor_warning_points_at_the_line_building_the_encoder():
    # PyTorch warns from TransformerEncoder.__init__ at its caller's line (stacklevel 2): here
    # nn.Transformer's own line for its encoder, the user's line for a TransformerEncoder
    def where(nn, build):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            build(nn)
        (warning,) = [x for x in w if "enable_nested_tensor" in str(x.message)]
        return warning.filename, warning.message

    layer = lambda nn: nn.TransformerEncoderLayer(8, 2)  # noqa: E731  batch_first False: warns
    mine, theirs = (where(nn, lambda nn: nn.TransformerEncoder(layer(nn), 2)) for nn in (tnn, onn))
    assert mine[0] == theirs[0] == __file__ and str(mine[1]) == str(theirs[1])
    mine, theirs = (where(nn, lambda nn: nn.Transformer(8, 2)) for nn in (tnn, onn))
    assert mine[0].endswith("taimatsu/nn/modules/transformer.py")
    assert theirs[0].endswith("torch/nn/modules/transformer.py")
