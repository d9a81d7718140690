"""scaled_dot_product_attention's one-node CPU kernel (weights laid out keys first, softmax by
long loops along the keys) against PyTorch's flash kernel: causal masks of every (L, S)
shape (more queries than keys and fewer), bool and float masks broadcast over batches and
heads, queries that see no key, large scores (the row maximum keeps exp finite), NaN, and
every subset of inputs requiring grad. Values and gradients with random cotangents."""

import numpy as np
import pytest

import taimatsu as tm

TOL = {"float32": {"rtol": 2e-5, "atol": 2e-5}, "float64": {"rtol": 1e-10, "atol": 1e-12}}
SHAPES = [(32, 32), (7, 7), (40, 24), (24, 40), (1, 5), (5, 1), (64, 64)]


def _arrays(L, S, dtype, seed=0, spread=1.0, E=8, Ev=6):
    rng = np.random.default_rng(seed)
    shapes = ((2, 3, L, E), (2, 3, S, E), (2, 3, S, Ev), (2, 3, L, Ev))
    return [(rng.standard_normal(s) * spread).astype(dtype) for s in shapes]


def _run(lib, arrays, needs=(True, True, True), mask=None, **kw):
    q, k, v, cot = arrays
    xs = [lib.tensor(a, requires_grad=n) for a, n in zip((q, k, v), needs)]
    m = None if mask is None else lib.tensor(mask)
    out = lib.nn.functional.scaled_dot_product_attention(*xs, attn_mask=m, **kw)
    wanted = [x for x in xs if x.requires_grad]
    grads = lib.autograd.grad(out, wanted, lib.tensor(cot)) if wanted else ()
    return [out.detach().numpy(), *(g.numpy() for g in grads)], out


def _compare(torch, arrays, dtype, **kw):
    theirs, _ = _run(torch, arrays, **kw)
    mine, out = _run(tm, arrays, **kw)
    if any(kw.get("needs", (True,))):
        assert type(out.grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, equal_nan=True, **TOL[dtype])
    return mine


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("L,S", SHAPES)
def test_causal_matches_oracle(torch_oracle, dtype, L, S):
    _compare(torch_oracle, _arrays(L, S, dtype), dtype, is_causal=True)


@pytest.mark.parametrize("needs", [(True, False, False), (False, True, False), (False, False, True), (False, False, False)])  # fmt: skip
def test_gradient_subsets(torch_oracle, needs):
    _compare(torch_oracle, _arrays(9, 9, "float32", seed=1), "float32", needs=needs, is_causal=True)


@pytest.mark.parametrize("mask_shape", [(20, 24), (1, 1, 20, 24), (2, 1, 20, 24), (2, 3, 20, 24), (1, 24)])  # fmt: skip
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_masks_broadcast_over_batches_and_heads(torch_oracle, mask_shape, kind):
    rng = np.random.default_rng(5)
    if kind == "bool":
        mask = rng.random(mask_shape) > 0.4
    else:
        mask = rng.standard_normal(mask_shape).astype(np.float32)
        mask[rng.random(mask_shape) < 0.3] = -np.inf
    _compare(torch_oracle, _arrays(20, 24, "float32", seed=4), "float32", mask=mask)


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_queries_that_see_no_key_give_zero(torch_oracle, kind):
    mask = np.random.default_rng(6).random((20, 24)) > 0.4
    mask[3] = False
    if kind == "float":
        mask = np.where(mask, np.float32(0), np.float32(-np.inf))
    mine = _compare(torch_oracle, _arrays(20, 24, "float32", seed=7), "float32", mask=mask)
    out, gq = mine[0], mine[1]
    assert (out[..., 3, :] == 0).all() and (gq[..., 3, :] == 0).all()


def test_large_scores_stay_finite(torch_oracle):
    # scores up to ~1e3: without the row maximum's shift exp would overflow
    arrays = _arrays(16, 16, "float32", seed=8, spread=12.0)
    arrays[3] /= 12.0
    theirs, _ = _run(torch_oracle, arrays, is_causal=True)
    mine, _ = _run(tm, arrays, is_causal=True)
    assert np.isfinite(mine[0]).all()
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("where", ["causal", "bool mask", "op by op"])
def test_nan_score_at_a_hidden_key_makes_its_row_nan(torch_oracle, where):
    # PyTorch adds its masks (-inf at hidden keys; NaN + -inf is NaN): a NaN in key 2 reaches
    # queries 0 and 1 too, which may not see it, on its flash and math kernels alike
    arrays = _arrays(6, 6, "float32", seed=9)
    arrays[1][0, 0, 2, 1] = np.nan
    kw = {"is_causal": True}
    if where == "bool mask":
        kw = {"mask": np.tril(np.ones((6, 6), bool))}
    if where == "op by op":  # 3-D inputs take the op-by-op path
        arrays = [a[0] for a in arrays]
    theirs, _ = _run(torch_oracle, arrays, **kw)
    mine, _ = _run(tm, arrays, **kw)
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, equal_nan=True, **TOL["float32"])
    assert np.isnan(mine[0][0, 0] if where != "op by op" else mine[0][0]).all()


@pytest.mark.parametrize("shape", [(24,), ()])
@pytest.mark.parametrize("dtype", ["bool", "float32"])
def test_mask_of_fewer_than_two_dims_raises_pytorchs_index_error(torch_oracle, shape, dtype):
    # PyTorch's CPU flash kernel (4-D inputs, no dropout) indexes the mask's dim -2
    errors = []
    for lib in (torch_oracle, tm):
        q, k = lib.randn(2, 3, 20, 8), lib.randn(2, 3, 24, 8)
        mask = lib.ones(shape, dtype=getattr(lib, dtype))
        with pytest.raises(IndexError) as info:
            lib.nn.functional.scaled_dot_product_attention(q, k, k, attn_mask=mask)
        errors.append(str(info.value))
        out = lib.nn.functional.scaled_dot_product_attention(q[0], k[0], k[0], attn_mask=mask)
        assert tuple(out.shape) == (3, 20, 8)  # 3-D inputs (the math kernel) broadcast it
    assert errors[1] == errors[0]


ZERO_SIZES = [
    ((2, 3, 0, 8), (2, 3, 5, 8), (2, 3, 5, 4)),  # no queries
    ((2, 3, 4, 8), (2, 3, 0, 8), (2, 3, 0, 4)),  # no keys: the output is 0
    ((0, 3, 4, 8), (0, 3, 5, 8), (0, 3, 5, 4)),  # no batch
    ((2, 3, 4, 0), (2, 3, 5, 0), (2, 3, 5, 4)),  # heads of size 0: uniform weights
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 0)),  # values of size 0
    ((3, 4, 0), (3, 5, 0), (3, 5, 4)),  # 3-D (the op-by-op path), heads of size 0
    ((3, 4, 8), (3, 0, 8), (3, 0, 4)),  # 3-D, no keys
]


@pytest.mark.parametrize("shapes", ZERO_SIZES)
@pytest.mark.parametrize("mask", [None, "causal", "bool", "float"])
def test_zero_sizes_match_oracle(torch_oracle, shapes, mask):
    # no keys used to raise NumPy's "zero-size array to reduction operation maximum", heads of
    # size 0 a ZeroDivisionError (1 / sqrt(0))
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    L, S = shapes[0][-2], shapes[1][-2]
    res = []
    for lib in (torch_oracle, tm):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        kw = {"is_causal": True} if mask == "causal" else {}
        if mask == "bool":
            kw["attn_mask"] = lib.ones(L, S, dtype=lib.bool)
        if mask == "float":
            kw["attn_mask"] = lib.zeros(L, S)
        out = lib.nn.functional.scaled_dot_product_attention(*xs, **kw)
        out.backward(lib.ones(out.shape))
        res.append([out.detach().numpy(), *(x.grad.numpy() for x in xs)])
    for a, b in zip(res[1], res[0]):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, **TOL["float32"])
