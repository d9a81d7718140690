"""The fused forward/backward paths of the ops a transformer training step runs (GELU,
scaled_dot_product_attention, layer_norm): values and gradients against PyTorch with random
cotangents, float32 and float64, and the op-by-op fallback under create_graph (double backward)."""

import contextlib

import numpy as np
import pytest

import taimatsu as tm

TOL = {"float32": {"rtol": 1e-5, "atol": 1e-5}, "float64": {"rtol": 1e-10, "atol": 1e-12}}
DTYPES = ["float32", "float64"]


def _pair(torch, a: np.ndarray, grad: bool = True):
    t = torch.tensor(a, requires_grad=grad)
    m = tm.tensor(a, requires_grad=grad)
    return t, m


def _close(mine, theirs, dtype, scale: float = 1.0):
    tol = TOL[dtype]
    mine = mine.detach().numpy() if hasattr(mine, "detach") else mine
    np.testing.assert_allclose(
        mine, theirs.detach().numpy(), rtol=tol["rtol"] * scale, atol=tol["atol"] * scale
    )
    assert str(mine.dtype) == dtype


def _grads(outs, ins, cot):
    """Gradients of ``outs`` with cotangent ``cot`` (both frameworks' ``autograd.grad``)."""
    lib = tm if isinstance(outs, tm.Tensor) else __import__("torch")
    return lib.autograd.grad(outs, ins, lib.tensor(cot))


# ---- GELU ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_backward_matches_oracle(torch_oracle, dtype, approximate):
    torch = torch_oracle
    rng = np.random.default_rng(0)
    # blockwise-sized in float32; float32 GELU cancels in 1 + erf(x) for x < -3 (atol 1e-5)
    a = (rng.standard_normal((64, 300)) * 3).astype(dtype)
    cot = rng.standard_normal(a.shape).astype(dtype)
    t, m = _pair(torch, a)
    yt = torch.nn.functional.gelu(t, approximate=approximate)
    ym = tm.nn.functional.gelu(m, approximate=approximate)
    _close(ym, yt, dtype)
    assert type(ym.grad_fn).__name__ == "GeluBackward0"
    (gt,), (gm,) = _grads(yt, [t], cot), _grads(ym, [m], cot)
    _close(gm, gt, dtype, scale=4)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_double_backward_uses_the_op_graph(torch_oracle, approximate):
    torch = torch_oracle
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 7))
    cot, cot2 = rng.standard_normal(a.shape), rng.standard_normal(a.shape)
    res = []
    for lib in (torch, tm):
        x = lib.tensor(a, requires_grad=True)
        y = lib.nn.functional.gelu(x, approximate=approximate)
        (g,) = lib.autograd.grad(y, [x], lib.tensor(cot), create_graph=True)
        assert g.requires_grad
        (gg,) = lib.autograd.grad(g, [x], lib.tensor(cot2))
        res.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-10, atol=1e-12)


def test_gelu_inplace_and_half_backward(torch_oracle):
    torch = torch_oracle
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 6)).astype(np.float32)
    cot = rng.standard_normal(a.shape).astype(np.float32)
    res = []
    for lib in (torch, tm):
        x = lib.tensor(a, requires_grad=True)
        y = lib.nn.functional.gelu(x.to(lib.bfloat16))
        (g,) = lib.autograd.grad(y, [x], lib.tensor(cot).to(lib.bfloat16))
        res.append(g.float().numpy())
    np.testing.assert_allclose(res[1], res[0], rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gelu_backward_special_values(torch_oracle, dtype):
    """0, +-inf, nan, tiny and very negative inputs (where out / x cannot give Phi(x))."""
    torch = torch_oracle
    a = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, -20.0, 20.0, -6.0], dtype)
    cot = np.linspace(-1.5, 2.0, a.size).astype(dtype)
    t, m = _pair(torch, a)
    (gt,) = _grads(torch.nn.functional.gelu(t), [t], cot)
    (gm,) = _grads(tm.nn.functional.gelu(m), [m], cot)
    np.testing.assert_allclose(gm.numpy(), gt.numpy(), rtol=1e-6, atol=1e-7, equal_nan=True)


# ---- scaled_dot_product_attention ------------------------------------------------------------
def _sdpa_case(lib, arrays, cots, mask=None, **kw):
    q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)
    m = None if mask is None else lib.tensor(mask)
    out = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, **kw)
    grads = lib.autograd.grad(out, [q, k, v], lib.tensor(cots))
    return out, grads


def _masks(rng, L, S, dtype):
    bool_mask = rng.random((L, S)) > 0.4
    bool_mask[1] = False  # a query that may attend to nothing: output and gradients 0
    return {
        "none": None,
        "bool": bool_mask,
        "float": rng.standard_normal((1, 1, L, S)).astype(dtype),
    }


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask_kind", ["none", "bool", "float", "causal"])
def test_sdpa_fused_matches_oracle(torch_oracle, dtype, mask_kind):
    torch = torch_oracle
    rng = np.random.default_rng(3)
    B, H, L, S, E, Ev = 2, 3, 6, 5, 8, 4
    arrays = [
        rng.standard_normal(s).astype(dtype) for s in ((B, H, L, E), (B, H, S, E), (B, H, S, Ev))
    ]
    cots = rng.standard_normal((B, H, L, Ev)).astype(dtype)
    mask = _masks(rng, L, S, dtype).get(mask_kind)
    kw = {"is_causal": True} if mask_kind == "causal" else {"scale": 0.3}
    ot, gt = _sdpa_case(torch, arrays, cots, mask, **kw)
    om, gm = _sdpa_case(tm, arrays, cots, mask, **kw)
    assert type(om.grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    _close(om, ot, dtype)
    for a, b in zip(gm, gt):
        _close(a, b, dtype)


def test_sdpa_fused_agrees_with_op_by_op():
    """The fused node and the op-by-op graph (3-D inputs take it) agree to float rounding (as
    PyTorch's flash and math kernels do: not to the bit)."""
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((1, 2, 7, 4)).astype(np.float32) for _ in range(3)]
    cots = rng.standard_normal((1, 2, 7, 4)).astype(np.float32)
    fused, gf = _sdpa_case(tm, arrays, cots, is_causal=True)
    plain, gp = _sdpa_case(tm, [a[0] for a in arrays], cots[0], is_causal=True)
    assert type(plain.grad_fn).__name__ != type(fused.grad_fn).__name__
    np.testing.assert_allclose(
        fused.detach().numpy()[0], plain.detach().numpy(), rtol=1e-6, atol=1e-6
    )
    for a, b in zip(gf, gp):
        np.testing.assert_allclose(a.numpy()[0], b.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mask_kind", ["bool", "causal"])
def test_sdpa_double_backward_falls_back_to_the_op_graph(torch_oracle, mask_kind):
    """Deviation: PyTorch's CPU flash node has no double backward (it raises); taimatsu's does,
    through the op-by-op graph, compared here with PyTorch's math backend."""
    torch = torch_oracle
    from torch.nn.attention import SDPBackend, sdpa_kernel

    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal((2, 2, 5, 3)) for _ in range(3)]
    cot, cot2 = rng.standard_normal((2, 2, 5, 3)), rng.standard_normal((3, 2, 2, 5, 3))
    mask = _masks(rng, 5, 5, "float64")["bool"] if mask_kind == "bool" else None
    res = []
    for lib in (torch, tm):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        m = None if mask is None else lib.tensor(mask)
        kw = {"is_causal": True} if mask is None else {"attn_mask": m}
        with sdpa_kernel(SDPBackend.MATH) if lib is torch else contextlib.nullcontext():
            out = lib.nn.functional.scaled_dot_product_attention(*xs, **kw)
        gs = lib.autograd.grad(out, xs, lib.tensor(cot), create_graph=True)
        assert all(g.requires_grad for g in gs)
        total = sum((g * lib.tensor(c)).sum() for g, c in zip(gs, cot2))
        res.append([t.detach().numpy() for t in (*gs, *lib.autograd.grad(total, xs))])
    for a, b in zip(res[1], res[0]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


def test_sdpa_no_grad_and_fallbacks(torch_oracle):
    torch = torch_oracle
    rng = np.random.default_rng(6)
    arrays = [rng.standard_normal((2, 4, 5, 3)).astype(np.float32) for _ in range(3)]
    with tm.no_grad():
        out = tm.nn.functional.scaled_dot_product_attention(*map(tm.tensor, arrays), is_causal=True)
    ref = torch.nn.functional.scaled_dot_product_attention(
        *map(torch.tensor, arrays), is_causal=True
    )
    assert out.grad_fn is None
    _close(out, ref, "float32")
    # grouped-query heads and a broadcast batch take the op-by-op path and still match
    q = rng.standard_normal((2, 4, 5, 3)).astype(np.float32)
    kv = [rng.standard_normal((2, 2, 5, 3)).astype(np.float32) for _ in range(2)]
    cot = rng.standard_normal((2, 4, 5, 3)).astype(np.float32)
    res = []
    for lib in (torch, tm):
        xs = [lib.tensor(a, requires_grad=True) for a in (q, *kv)]
        o = lib.nn.functional.scaled_dot_product_attention(*xs, enable_gqa=True)
        res.append([t.detach().numpy() for t in (o, *lib.autograd.grad(o, xs, lib.tensor(cot)))])
    for a, b in zip(res[1], res[0]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# ---- layer_norm ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
@pytest.mark.parametrize(
    "shape,normalized", [((4, 6, 10), (10,)), ((3, 5, 4), (5, 4)), ((7,), (7,))]
)
def test_layer_norm_backward_matches_oracle(torch_oracle, dtype, affine, shape, normalized):
    torch = torch_oracle
    rng = np.random.default_rng(7)
    a = (rng.standard_normal(shape) * 2 + 1).astype(dtype)
    w = rng.standard_normal(normalized).astype(dtype) if affine != "none" else None
    b = rng.standard_normal(normalized).astype(dtype) if affine == "both" else None
    cot = rng.standard_normal(shape).astype(dtype)
    res = []
    for lib in (torch, tm):
        xs = [lib.tensor(t, requires_grad=True) for t in (a, w, b) if t is not None]
        ws = xs[1:] + [None] * (3 - len(xs))
        out = lib.nn.functional.layer_norm(xs[0], normalized, ws[0], ws[1], eps=1e-5)
        assert type(out.grad_fn).__name__ == "NativeLayerNormBackward0"
        res.append([out, *lib.autograd.grad(out, xs, lib.tensor(cot))])
    for mine, theirs in zip(res[1], res[0]):
        _close(mine, theirs, dtype)


def test_layer_norm_rows_whose_mean_dwarfs_their_spread(torch_oracle):
    """float32 rows with |mean| ~ 2.5e5 * std (beside ordinary rows): their variance is summed
    centred (E[x^2] - mean^2 would be ~1e-4 off), so the row's mean and 1/std are PyTorch's
    float64 ones and y is the float32 formula ``(x * rstd + (-mean * rstd)) * w + b`` on them."""
    torch = torch_oracle
    rng = np.random.default_rng(10)
    a = rng.standard_normal((6, 64)) * 4
    a[::2] += 1e6
    a = a.astype(np.float32)
    w, b = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    _, mean, rstd = torch.native_layer_norm(
        torch.tensor(a, dtype=torch.float64), [64], None, None, 1e-5
    )
    mean, rstd = mean.numpy()[:, 0], rstd.numpy()[:, 0]
    r32, s32 = rstd.astype(np.float32)[:, None], (-mean * rstd).astype(np.float32)[:, None]
    expect = (a * r32 + s32) * w + b
    mine = tm.nn.functional.layer_norm(tm.tensor(a), (64,), tm.tensor(w), tm.tensor(b)).numpy()
    np.testing.assert_allclose(mine, expect, rtol=1e-6, atol=1e-6 * np.abs(expect).max())


def test_layer_norm_only_some_inputs_need_grad(torch_oracle):
    torch = torch_oracle
    rng = np.random.default_rng(8)
    a, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((5, 8), (8,), (8,)))
    cot = rng.standard_normal((5, 8)).astype(np.float32)
    res = []
    for lib in (torch, tm):
        x, wt, bt = lib.tensor(a), lib.tensor(w, requires_grad=True), lib.tensor(b)
        out = lib.nn.functional.layer_norm(x, (8,), wt, bt)
        res.append(lib.autograd.grad(out, [wt], lib.tensor(cot))[0])
    _close(res[1], res[0], "float32")


def test_layer_norm_double_backward_uses_the_op_graph(torch_oracle):
    torch = torch_oracle
    rng = np.random.default_rng(9)
    a, w, b = (rng.standard_normal(s) for s in ((4, 6), (6,), (6,)))
    cot, cot2 = rng.standard_normal((4, 6)), [rng.standard_normal(s) for s in ((4, 6), (6,), (6,))]
    res = []
    for lib in (torch, tm):
        xs = [lib.tensor(t, requires_grad=True) for t in (a, w, b)]
        out = lib.nn.functional.layer_norm(xs[0], (6,), xs[1], xs[2])
        gs = lib.autograd.grad(out, xs, lib.tensor(cot), create_graph=True)
        total = sum((g * lib.tensor(c)).sum() for g, c in zip(gs, cot2))
        res.append([t.detach().numpy() for t in (*gs, *lib.autograd.grad(total, xs[:2]))])
    for mine, theirs in zip(res[1], res[0]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-10)


def test_layer_norm_and_embedding_gradients_are_kept_not_copied():
    """The array backwards hand AccumulateGrad arrays of the parameters' shapes, not reshaped
    views of them, so it keeps them as ``.grad`` rather than copying (where it keeps any: see
    tests/autograd/test_ownership.py)."""
    import sys
    import weakref

    from taimatsu.autograd import ownership

    if not ownership.COUNTED or sys.version_info[:2] < (3, 11):
        pytest.skip("AccumulateGrad copies every gradient on this interpreter")

    ln, emb = tm.nn.LayerNorm(6), tm.nn.Embedding(5, 6)
    out = ln(emb(tm.tensor([[0, 1, 1], [4, 2, 0]])))
    refs = []
    out.grad_fn.register_hook(lambda gi, go: refs.extend(weakref.ref(g._data) for g in gi[1:]))
    out.grad_fn.next_functions[0][0].register_hook(
        lambda gi, go: refs.append(weakref.ref(gi[0]._data))
    )
    out.sum().backward()
    kept = (ln.weight.grad._data, ln.bias.grad._data, emb.weight.grad._data)
    assert len(refs) == 3
    assert all(a is r() for a, r in zip(kept, refs))


# ---- linear / addmm --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 5), (2, 3, 5)])
def test_linear_backward_on_arrays_matches_oracle(torch_oracle, dtype, shape):
    torch = torch_oracle
    rng = np.random.default_rng(10)
    a, w, b = (rng.standard_normal(s).astype(dtype) for s in (shape, (4, 5), (4,)))
    cot = rng.standard_normal(shape[:-1] + (4,)).astype(dtype)
    res = []
    for lib in (torch, tm):
        xs = [lib.tensor(t, requires_grad=True) for t in (a, w, b)]
        out = lib.nn.functional.linear(*xs)
        res.append([out, *lib.autograd.grad(out, xs, lib.tensor(cot))])
    for mine, theirs in zip(res[1], res[0]):
        _close(mine, theirs, dtype)


@pytest.mark.parametrize("rows", [2, 64])
def test_linear_few_rows_long_weight_matches_oracle(torch_oracle, rows):
    """A few rows times a long weight (k >= 512, n >= 128) runs transposed on OpenBLAS's
    AVX-512 kernels (``matmul._few_rows_by_weight``): rows laid out as PyTorch's, its values."""
    torch = torch_oracle
    rng = np.random.default_rng(14)
    a, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((rows, 520), (130, 520), (130,)))
    cot = rng.standard_normal((rows, 130)).astype(np.float32)
    res = []
    for lib in (torch, tm):
        xs = [lib.tensor(t, requires_grad=True) for t in (a, w, b)]
        out = lib.nn.functional.linear(*xs)
        res.append(
            [out, lib.matmul(xs[0], xs[1].t()), *lib.autograd.grad(out, xs, lib.tensor(cot))]
        )
    assert res[1][0].stride() == res[0][0].stride() == res[1][1].stride()
    for mine, theirs in zip(res[1], res[0]):
        _close(mine, theirs, "float32", scale=10)


def test_addmm_scaled_backward_and_double_backward(torch_oracle):
    torch = torch_oracle
    rng = np.random.default_rng(11)
    i, m1, m2 = (rng.standard_normal(s) for s in ((3, 4), (3, 2), (2, 4)))
    cot, cot2 = (
        rng.standard_normal((3, 4)),
        [rng.standard_normal(s) for s in ((3, 4), (3, 2), (2, 4))],
    )
    res = []
    for lib in (torch, tm):
        xs = [lib.tensor(t, requires_grad=True) for t in (i, m1, m2)]
        out = lib.addmm(*xs, beta=0.5, alpha=-2.0)
        plain = lib.autograd.grad(out, xs, lib.tensor(cot), retain_graph=True)
        gs = lib.autograd.grad(out, xs, lib.tensor(cot), create_graph=True)
        total = sum((g * lib.tensor(c)).sum() for g, c in zip(gs[1:], cot2[1:]))
        res.append([t.detach().numpy() for t in (*plain, *gs, *lib.autograd.grad(total, xs[1:]))])
    for mine, theirs in zip(res[1], res[0]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-12)


def test_linear_backward_on_arrays_equals_the_op_graph():
    """The array backward (no create_graph) and the Tensor-op one give the same bits, bias
    gradient (summed over the batch) included."""
    rng = np.random.default_rng(12)
    x, w, b, g = (
        tm.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=r)
        for s, r in (((32, 50), True), ((20, 50), True), ((20,), True), ((32, 20), False))
    )
    out = tm.nn.functional.linear(x, w, b)
    fast = tm.autograd.grad(out, [x, w, b], g, retain_graph=True)
    graph = tm.autograd.grad(out, [x, w, b], g, create_graph=True)
    for a, c in zip(fast, graph):
        np.testing.assert_array_equal(a.numpy(), c.detach().numpy())


# ---- cross_entropy: log_softmax + nll_loss, softmax ------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_backward_matches_oracle(torch_oracle, dtype, reduction):
    torch = torch_oracle
    rng = np.random.default_rng(13)
    a = rng.standard_normal((9, 7)).astype(dtype)
    w = rng.random(7).astype(dtype) + 0.5
    target = rng.integers(0, 7, 9)
    target[2] = -100  # ignored
    cot = rng.standard_normal(() if reduction != "none" else (9,)).astype(dtype)
    res = []
    for lib in (torch, tm):
        x = lib.tensor(a, requires_grad=True)
        out = lib.nn.functional.cross_entropy(
            x, lib.tensor(target), weight=lib.tensor(w), reduction=reduction
        )
        res.append([out, *lib.autograd.grad(out, [x], lib.tensor(cot))])
    for mine, theirs in zip(res[1], res[0]):
        _close(mine, theirs, dtype)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_and_nll_backward_on_arrays_equal_the_op_graph(log):
    rng = np.random.default_rng(14)
    x = tm.tensor(rng.standard_normal((6, 5, 4)).astype(np.float32), requires_grad=True)
    g = tm.tensor(rng.standard_normal((6, 5, 4)).astype(np.float32))
    fn = tm.log_softmax if log else tm.softmax
    out = fn(x, 1)
    fast = tm.autograd.grad(out, [x], g, retain_graph=True)[0]
    graph = tm.autograd.grad(out, [x], g, create_graph=True)[0]
    np.testing.assert_array_equal(fast.numpy(), graph.detach().numpy())
    y = tm.tensor(rng.integers(0, 4, 6))
    for inp in (x[:, 0], x[0, 0]):
        loss = tm.nn.functional.nll_loss(inp, y if inp.dim() == 2 else y[:1].squeeze(0))
        fast = tm.autograd.grad(loss, [x], retain_graph=True)[0]
        graph = tm.autograd.grad(loss, [x], create_graph=True)[0]
        np.testing.assert_array_equal(fast.numpy(), graph.detach().numpy())


# ---- embedding -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding_idx", [None, 3])
def test_embedding_backward_matches_oracle_and_the_op_graph(torch_oracle, dtype, padding_idx):
    torch = torch_oracle
    rng = np.random.default_rng(15)
    w = rng.standard_normal((11, 6)).astype(dtype)
    idx = rng.integers(0, 11, (4, 25))  # many repeats: the accumulation order matters
    cot = rng.standard_normal((4, 25, 6)).astype(dtype)
    res = []
    for lib in (torch, tm):
        wt = lib.tensor(w, requires_grad=True)
        out = lib.nn.functional.embedding(lib.tensor(idx), wt, padding_idx=padding_idx)
        res.append([out, *lib.autograd.grad(out, [wt], lib.tensor(cot), retain_graph=True)])
    _close(res[1][0], res[0][0], dtype)
    _close(res[1][1], res[0][1], dtype)
    # the Tensor-op backward (index_add), taken under create_graph, gives the same bits
    (graph,) = tm.autograd.grad(res[1][0], [wt], tm.tensor(cot), create_graph=True)
    np.testing.assert_array_equal(res[1][1].numpy(), graph.detach().numpy())


def test_sdpa_saved_weights_are_freed_after_backward(torch_oracle):
    """A second backward without retain_graph raises PyTorch's error; with it, it works."""
    torch = torch_oracle
    errors = []
    for lib in (torch, tm):
        q = lib.randn(2, 2, 4, 3, requires_grad=True)
        out = lib.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
        out.sum().backward(retain_graph=True)
        out.sum().backward()
        with pytest.raises(RuntimeError) as info:
            out.sum().backward()
        errors.append(str(info.value).split(".")[0])
    assert errors[1] == errors[0]
