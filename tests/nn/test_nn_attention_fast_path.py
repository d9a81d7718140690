"""Fully masked query rows on PyTorch's inference fast paths (MultiheadAttention's
``_native_multi_head_attention``, TransformerEncoderLayer's ``_transformer_encoder_layer_fwd``):
NaN there, 0 on the reference path's fused attention. Which path a call takes follows PyTorch's
conditions, ``torch.backends.mha.set_fastpath_enabled`` included; compared with the oracle."""

import numpy as np
import pytest

import taimatsu as tm


def _mha_outputs(T, heads, batch_first, train, grad, need_weights, fastpath, mask_kind):
    T.manual_seed(0)
    T.backends.mha.set_fastpath_enabled(fastpath)
    try:
        mha = T.nn.MultiheadAttention(8, heads, batch_first=batch_first).train(train)
        x = T.randn(2, 3, 8)
        pad = T.tensor([[False, False, True], [True, True, True]])
        if not batch_first:
            pad_x = x.transpose(0, 1).contiguous()
        masks = {
            "padding": {"key_padding_mask": pad},
            "causal": {
                "attn_mask": T.ones(3, 3, dtype=T.bool).triu(1) | T.tensor([True, False, False])
            },
            "float": {"key_padding_mask": T.zeros(2, 3).masked_fill(pad, float("-inf"))},
        }[mask_kind]
        q = x if batch_first else pad_x
        with T.set_grad_enabled(grad):
            out, w = mha(q, q, q, need_weights=need_weights, **masks)
        return out.detach().numpy(), None if w is None else w.detach().numpy()
    finally:
        T.backends.mha.set_fastpath_enabled(True)


@pytest.mark.parametrize("mask_kind", ["padding", "causal", "float"])
@pytest.mark.parametrize(
    "heads, batch_first, train, grad, need_weights, fastpath",
    [
        (2, True, False, False, False, True),  # the fast path
        (2, True, False, False, True, True),  # the fast path, weights returned
        (2, True, False, False, False, False),  # switched off
        (1, True, False, False, False, True),  # odd heads
        (2, False, False, False, False, True),  # sequence first
        (2, True, True, False, False, True),  # training (dropout 0)
        (2, True, False, True, False, True),  # grad enabled, parameters require it
    ],
)
def test_multihead_attention_fully_masked_rows(
    torch_oracle, mask_kind, heads, batch_first, train, grad, need_weights, fastpath
):
    args = (heads, batch_first, train, grad, need_weights, fastpath, mask_kind)
    theirs = _mha_outputs(torch_oracle, *args)
    mine = _mha_outputs(tm, *args)
    for a, b in zip(mine, theirs, strict=True):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)


def _encoder_outputs(T, norm_first, eps2, nested, hook):
    T.manual_seed(0)
    layer = T.nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    layer.norm2.eps = eps2
    if hook:
        layer.linear1.register_forward_hook(lambda m, i, o: None)
    x = T.randn(2, 3, 8)
    pad = T.tensor([[False, False, True], [True, True, True]])
    model = (
        T.nn.TransformerEncoder(layer, 2, enable_nested_tensor=nested)
        if nested is not None
        else layer
    )
    model.eval()
    with T.no_grad():
        return model(x, src_key_padding_mask=pad).numpy()


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("eps2", [1e-5, 1e-6])
@pytest.mark.parametrize("nested", [None, False, True])
@pytest.mark.parametrize("hook", [False, True])
def test_encoder_fully_masked_rows(torch_oracle, norm_first, eps2, nested, hook):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _encoder_outputs(torch_oracle, norm_first, eps2, nested, hook)
        mine = _encoder_outputs(tm, norm_first, eps2, nested, hook)
    np.testing.assert_array_equal(np.isnan(mine), np.isnan(theirs))
    np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-5, equal_nan=True)


def test_fastpath_switch_stores_any_value(torch_oracle):
    for T in (torch_oracle, tm):
        T.backends.mha.set_fastpath_enabled(0)
        assert T.backends.mha.get_fastpath_enabled() == 0
        T.backends.mha.set_fastpath_enabled(True)
        assert T.backends.mha.get_fastpath_enabled() is True
