"""Causal scaled_dot_product_attention in float32 evaluates its softmax a band of 16 query rows
at a time (only the keys a band can see): the weights must be softmax's bits over whole rows,
whatever the SIMD width the float32 kernel reproduces, and match PyTorch."""

import numpy as np
import pytest

import taimatsu as tm
from taimatsu.backend.float32_math import softmax as f32_softmax

SHAPES = [(32, 32), (48, 48), (64, 64), (40, 40), (64, 32), (32, 64), (80, 48), (16, 16)]


def _arrays(L, S, seed=0, spread=3.0):
    rng = np.random.default_rng(seed)
    shapes = ((2, 3, L, 8), (2, 3, S, 8), (2, 3, S, 8))
    return [(rng.standard_normal(s) * spread).astype(np.float32) for s in shapes]


@pytest.mark.parametrize("lanes", [8, 16])
@pytest.mark.parametrize("L,S", SHAPES)
def test_causal_bands_equal_whole_row_softmax(monkeypatch, lanes, L, S):
    monkeypatch.setattr(f32_softmax, "LANES", lanes)
    arrays = _arrays(L, S)
    fused = tm.nn.functional.scaled_dot_product_attention(*map(tm.tensor, arrays), is_causal=True)
    # 3-D inputs take the op-by-op path: torch.softmax's kernel over whole rows
    plain = [
        tm.nn.functional.scaled_dot_product_attention(
            *[tm.tensor(a[i]) for a in arrays], is_causal=True
        )
        for i in range(2)
    ]
    np.testing.assert_array_equal(fused.numpy(), np.stack([p.numpy() for p in plain]))


def test_causal_bands_match_oracle(torch_oracle):
    torch = torch_oracle
    arrays = _arrays(64, 64, seed=1, spread=1.0)
    cot = np.random.default_rng(2).standard_normal((2, 3, 64, 8)).astype(np.float32)
    res = []
    for lib in (torch, tm):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = lib.nn.functional.scaled_dot_product_attention(*xs, is_causal=True)
        res.append(
            [
                out.detach().numpy(),
                *(g.numpy() for g in lib.autograd.grad(out, xs, lib.tensor(cot))),
            ]
        )
    for mine, theirs in zip(res[1], res[0]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("short", [0, 128])  # 0: rows of any length take the band path
@pytest.mark.parametrize("lanes", [8, 16])
@pytest.mark.parametrize("L,S", [(32, 32), (48, 48), (64, 32), (40, 40)])
def test_kept_keys_and_bands_agree(monkeypatch, short, lanes, L, S):
    # the weights from the exps at the kept keys only (keys up to _SHORT) and from bands
    monkeypatch.setattr(f32_softmax, "LANES", lanes)
    monkeypatch.setattr(f32_softmax, "_SHORT", short)
    arrays = _arrays(L, S, seed=3)
    fused = tm.nn.functional.scaled_dot_product_attention(*map(tm.tensor, arrays), is_causal=True)
    plain = [
        tm.nn.functional.scaled_dot_product_attention(
            *[tm.tensor(a[i]) for a in arrays], is_causal=True
        )
        for i in range(2)
    ]
    np.testing.assert_array_equal(fused.numpy(), np.stack([p.numpy() for p in plain]))


@pytest.mark.parametrize("mask_shape", [(20, 24), (1, 1, 20, 24), (24,)])
def test_shared_bool_mask_keeps_softmax_bits(mask_shape):
    # a bool mask shared by batches and heads: exps at the kept keys only, dead rows give 0
    arrays = _arrays(20, 24, seed=4)
    mask = np.random.default_rng(5).random(mask_shape) > 0.4
    if len(mask_shape) > 1:
        mask[..., 3, :] = False  # a query that sees no key
    fused = tm.nn.functional.scaled_dot_product_attention(
        *map(tm.tensor, arrays), attn_mask=tm.tensor(mask)
    )
    plain = [
        tm.nn.functional.scaled_dot_product_attention(
            *[tm.tensor(a[i]) for a in arrays],
            attn_mask=tm.tensor(mask.reshape(mask.shape[-2:]) if mask.ndim > 1 else mask),
        )
        for i in range(2)
    ]
    np.testing.assert_array_equal(fused.numpy(), np.stack([p.numpy() for p in plain]))
    if len(mask_shape) > 1:
        assert (fused.numpy()[..., 3, :] == 0).all()
