"""Transformer decoder / nn.Transformer, module hooks, parametrizations, EmbeddingBag, more pooling,
layers and losses against PyTorch."""

import warnings

import numpy as np
import pytest

import taimatsu as tm
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
from nn_oracle import T, check_vjp, close, copy_weights, same_error

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
    for (tk, tv), (ok, ov) in zip(t.state_dict().items(), o.state_dict().items(), strict=True):
        assert tk == ok
        close(tv, ov, 0, 0)
    return t, o


# ---- transformer decoder ----------------------------------------------------------------------
DEC = [{}, {"batch_first": True, "activation": "gelu"}, {"norm_first": True}, {"bias": False}]


@pytest.mark.parametrize("kw", DEC, ids=[str(i) for i in range(len(DEC))])
def test_decoder_layer_matches_pytorch(kw):
    t, o = _pair(lambda nn: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **kw))
    B, L, S = 2, 4, 5
    bf = kw.get("batch_first", False)
    torch.manual_seed(1)
    ox = torch.randn((B, L, 8) if bf else (L, B, 8), requires_grad=True)
    om = torch.randn((B, S, 8) if bf else (S, B, 8), requires_grad=True)
    tx, tmem = T(ox, True), T(om, True)
    kpm = torch.zeros(B, S, dtype=torch.bool)
    kpm[1, 3:] = True
    mask = onn.Transformer.generate_square_subsequent_mask(L)
    okw = {"tgt_mask": mask, "memory_key_padding_mask": kpm, "tgt_is_causal": True}
    tkw = {k: T(v) if isinstance(v, torch.Tensor) else v for k, v in okw.items()}
    check_vjp(t(tx, tmem, **tkw), o(ox, om, **okw), [tx, tmem, *t.parameters()],
              [ox, om, *o.parameters()], 1e-4, 1e-5, name=False)  # fmt: skip
    close(t(tx, tmem), o(ox, om), 1e-4, 1e-5)


def test_transformer_matches_pytorch():
    def make(nn):
        return nn.Transformer(8, 2, 2, 2, 16, dropout=0.1, batch_first=True)

    t, o = _pair(make)
    t.eval()
    o.eval()
    torch.manual_seed(1)
    osrc = torch.randn(2, 5, 8, requires_grad=True)
    otgt = torch.randn(2, 4, 8, requires_grad=True)
    tsrc, ttgt = T(osrc, True), T(otgt, True)
    m = onn.Transformer.generate_square_subsequent_mask(4)
    check_vjp(t(tsrc, ttgt, tgt_mask=T(m)), o(osrc, otgt, tgt_mask=m), [tsrc, ttgt, *t.parameters()],
              [osrc, otgt, *o.parameters()], 1e-4, 1e-5, name=False)  # fmt: skip
    close(t(tsrc[0], ttgt[0]), o(osrc[0], otgt[0]), 1e-4, 1e-5)
    # unbatched + default (time-major) construction, and the default-init numbers
    t2, o2 = _pair(lambda nn: nn.Transformer(4, 2, 1, 1, 8))
    same_error(lambda: t2(T(osrc[:, :, :4]), T(otgt[:1, :, :4])), lambda: o2(osrc[:, :, :4], otgt[:1, :, :4]))
    same_error(lambda: t2(T(osrc), T(otgt[:, :, :4])), lambda: o2(osrc, otgt[:, :, :4]))
    for sz, dt in [(3, None), (1, torch.float64)]:
        a = tm.nn.Transformer.generate_square_subsequent_mask(sz, dtype=getattr(tm, str(dt)[6:]) if dt else None)
        close(a, onn.Transformer.generate_square_subsequent_mask(sz, dtype=dt), 0, 0)
