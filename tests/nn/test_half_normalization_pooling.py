"""Normalisation, pooling and interpolation of float16/bfloat16 inputs against PyTorch, bit for bit.

With parameters of the input's type, PyTorch's kernel keeps the batch mean and variance in
that type and rounds 1/sqrt(var + eps) to it too, then normalises in float32 and rounds once;
its backward works in float32 from those rounded statistics. Evaluation mode takes
``x * alpha + beta`` in float32. (The running statistics' update is not reproduced bit for
bit: about one element in four is one ulp off; not compared here.)
"""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _train(T, dtype, affine, mixed):
    m = T.nn.BatchNorm2d(4, affine=affine)
    if not mixed:
        m = m.to(getattr(T, dtype))
    if affine:
        with T.no_grad():
            m.weight.copy_(T.tensor([1.5, 0.7, -1.2, 2.0]))
            m.bias.copy_(T.tensor([0.1, -0.3, 0.25, 0.0]))
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((8, 4, 8, 8)) * 2 + 0.5).astype(np.float32)
    X = T.tensor(x).to(getattr(T, dtype)).requires_grad_()
    y = m(X)
    g = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(T.tensor(g).to(getattr(T, dtype)))
    out = [y.detach().float().numpy(), X.grad.float().numpy()]
    if affine and not mixed:  # (mixed: float32 parameter gradients, summed in another order)
        out += [m.weight.grad.float().numpy(), m.bias.grad.float().numpy()]
    return out


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize(("affine", "mixed"), [(True, False), (False, False), (True, True)])
def test_half_batch_norm_training_matches_pytorch(dtype, affine, mixed):
    for mine, theirs in zip(_train(tm, dtype, affine, mixed), _train(torch, dtype, affine, mixed)):
        off = mine != theirs
        assert off.sum() <= (0 if dtype == "bfloat16" else 2), off.sum()


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_batch_norm_evaluation_matches_pytorch(dtype):
    x = (np.random.default_rng(1).standard_normal((8, 4, 8, 8)) * 2 + 0.5).astype(np.float32)

    def run(T):
        m = T.nn.BatchNorm2d(4).to(getattr(T, dtype)).eval()
        with T.no_grad():
            m.weight.copy_(T.tensor([1.5, 0.7, -1.2, 2.0]))
            m.bias.copy_(T.tensor([0.1, -0.3, 0.25, 0.0]))
            m.running_mean.copy_(T.tensor([0.3, -0.2, 1.7, 0.01]))
            m.running_var.copy_(T.tensor([1.3, 0.9, 2.2, 0.5]))
            return m(T.tensor(x).to(getattr(T, dtype))).float().numpy()

    off = run(tm) != run(torch)
    assert off.sum() <= (0 if dtype == "bfloat16" else 2), off.sum()


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize(
    "kw",
    [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
     {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False, "ceil_mode": True},
     {"kernel_size": 2, "divisor_override": 3}],
)  # fmt: skip
def test_half_avg_pool_sums_in_float32(dtype, kw):
    # (in the half type the window sums rounded at every tap: ~30% of outputs an ulp off)
    x = np.random.default_rng(2).standard_normal((8, 4, 9, 9)).astype(np.float32)
    mine, theirs = (
        T.nn.functional.avg_pool2d(T.tensor(x).to(getattr(T, dtype)), **kw).float().numpy()
        for T in (tm, torch)
    )
    np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
@pytest.mark.parametrize("size", [(4, 3), (5, 5), (2, 7), (1, 3)])
def test_adaptive_avg_pool_windows_summed_in_order(dtype, size):
    # PyTorch's kernel: each window summed row by row, then / kh / kw (the averaging matrices'
    # products gave other last bits in every dtype); 3-d pooling for float32/float64 too
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
    mine, theirs = (
        T.nn.functional.adaptive_avg_pool2d(T.tensor(x).to(getattr(T, dtype)), size)
        .double()
        .numpy()
        for T in (tm, torch)
    )
    np.testing.assert_array_equal(mine, theirs)
    if dtype in ("float32", "float64"):
        x3 = rng.standard_normal((2, 3, 5, 9, 7)).astype(np.float32)
        mine, theirs = (
            T.nn.functional.adaptive_avg_pool3d(T.tensor(x3).to(getattr(T, dtype)), (2, *size))
            .double()
            .numpy()
            for T in (tm, torch)
        )
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    ("shape", "normalized"), [((8, 16), 16), ((5, 16), 16), ((33, 24), 24), ((3, 4, 6), (4, 6))]
)
def test_half_layer_norm_backward_matches_pytorch(dtype, threads, shape, normalized):
    # from the mean and 1/std PyTorch saves in the half type; weight and bias gradients summed
    # row by row in the half type within each thread's rows (so the thread count matters: set
    # alike on both sides)
    saved = torch.get_num_threads(), tm.get_num_threads()
    torch.set_num_threads(threads)
    tm.set_num_threads(threads)
    try:
        rng = np.random.default_rng(shape[0])
        x = (rng.standard_normal(shape) * 2).astype(np.float32)
        g = rng.standard_normal(shape).astype(np.float32)
        w = rng.standard_normal(normalized).astype(np.float32)

        def run(T):
            m = T.nn.LayerNorm(normalized).to(getattr(T, dtype))
            with T.no_grad():
                m.weight.copy_(T.tensor(w))
            X = T.tensor(x).to(getattr(T, dtype)).requires_grad_()
            y = m(X)
            y.backward(T.tensor(g).to(getattr(T, dtype)))
            grads = (X.grad, m.weight.grad, m.bias.grad)
            return [y.detach().float().numpy()] + [t.float().numpy() for t in grads]

        for i, (mine, theirs) in enumerate(zip(run(tm), run(torch))):
            if dtype == "float16":
                # float32 orders (PyTorch's vector lanes in the row sums) show in float16's
                # extra bits in a few gradient elements, by an ulp or two
                off = mine != theirs
                assert off.sum() <= max(1, off.size // 100), off.sum()
                np.testing.assert_allclose(mine[off], theirs[off], rtol=2**-9)
            else:
                np.testing.assert_array_equal(mine, theirs)
    finally:
        torch.set_num_threads(saved[0])
        tm.set_num_threads(saved[1])


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize(
    ("shape", "groups"), [((4, 4, 6), 2), ((6, 6, 5), 3), ((2, 8, 3, 3), 4), ((3, 4, 7), 1)]
)
def test_half_group_norm_backward_matches_pytorch(dtype, shape, groups):
    # from the group statistics PyTorch saves in the half type, its sums in float32
    rng = np.random.default_rng(shape[0] + groups)
    x = (rng.standard_normal(shape) * 2).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(shape[1]).astype(np.float32)

    def run(T):
        m = T.nn.GroupNorm(groups, shape[1]).to(getattr(T, dtype))
        with T.no_grad():
            m.weight.copy_(T.tensor(w))
        X = T.tensor(x).to(getattr(T, dtype)).requires_grad_()
        y = m(X)
        y.backward(T.tensor(g).to(getattr(T, dtype)))
        return [t.float().numpy() for t in (y.detach(), X.grad, m.weight.grad, m.bias.grad)]

    for mine, theirs in zip(run(tm), run(torch)):
        off = mine != theirs
        assert off.sum() <= (0 if dtype == "bfloat16" else max(1, off.size // 50)), off.sum()


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_rms_norm_matches_pytorch(dtype):
    # half types in float32 with float32's eps, converted back at the end (ToCopyBackward0)
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((8, 16)) * 1.5).astype(np.float32)
    g = rng.standard_normal((8, 16)).astype(np.float32)
    w = rng.standard_normal(16).astype(np.float32)

    def run(T):
        m = T.nn.RMSNorm(16).to(getattr(T, dtype))
        with T.no_grad():
            m.weight.copy_(T.tensor(w))
        X = T.tensor(x).to(getattr(T, dtype)).requires_grad_()
        y = m(X)
        y.backward(T.tensor(g).to(getattr(T, dtype)))
        name = type(y.grad_fn).__name__
        return name, [t.float().numpy() for t in (y.detach(), X.grad, m.weight.grad)]

    (mine_name, mine), (their_name, theirs) = run(tm), run(torch)
    assert mine_name == their_name
    for a, b in zip(mine, theirs):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize(
    "kw",
    [{"scale_factor": 2, "mode": "bilinear"}, {"size": (7, 9), "mode": "bilinear", "align_corners": True},
     {"scale_factor": 2, "mode": "bicubic"}, {"scale_factor": 1.5, "mode": "nearest"}],
)  # fmt: skip
def test_half_interpolation_in_float32(dtype, kw):
    # the interpolation weights and sums in float32, rounded once (they were rounded to the
    # half type: ~60% of bilinear outputs an ulp off)
    x = (np.random.default_rng(5).standard_normal((2, 3, 4, 5)) * 1.5).astype(np.float32)
    mine, theirs = (
        T.nn.functional.interpolate(T.tensor(x).to(getattr(T, dtype)), **kw).float().numpy()
        for T in (tm, torch)
    )
    np.testing.assert_array_equal(mine, theirs)


def test_bfloat16_conv_transpose_matches_pytorch():
    # the float32 sums and the bias added before the one rounding (the bias was added to the
    # rounded sums: every output an ulp off somewhere)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    g = rng.standard_normal((2, 4, 11, 11)).astype(np.float32)

    def run(T):
        T.manual_seed(0)
        m = T.nn.ConvTranspose2d(3, 4, 3, stride=2).to(T.bfloat16)
        X = T.tensor(x).to(T.bfloat16).requires_grad_()
        y = m(X)
        y.backward(T.tensor(g).to(T.bfloat16))
        return [t.float().numpy() for t in (y.detach(), X.grad, m.weight.grad, m.bias.grad)]

    for mine, theirs in zip(run(tm), run(torch)):
        np.testing.assert_array_equal(mine, theirs)
