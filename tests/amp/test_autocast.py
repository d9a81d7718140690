# ruff: noqa: B023, B018  (lambdas run inside their loop iteration; 1 / 0 raises on purpose)
"""Autocast vs PyTorch: output dtypes of every listed CPU op, values, gradients, nesting, API."""

import warnings

import numpy as np
import pytest

import taimatsu as tm
import taimatsu.nn.functional as TF


def _pair(torch, shape, seed, dtype="float32", requires_grad=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    t = torch.tensor(a, requires_grad=requires_grad)
    m = tm.tensor(a, requires_grad=requires_grad)
    return m, t


def _probs(torch, shape, seed):
    a = np.random.default_rng(seed).uniform(0.05, 0.95, shape).astype("float32")
    return tm.tensor(a), torch.tensor(a)


# (name, builder(lib, F, x(shape, seed)) -> output); x makes float32 leaves of a given shape.
CASES = {
    # lower precision
    "mm": lambda L, F, x: L.mm(x((3, 4), 0), x((4, 5), 1)),
    "bmm": lambda L, F, x: L.bmm(x((2, 3, 4), 0), x((2, 4, 5), 1)),
    "matmul": lambda L, F, x: L.matmul(x((2, 3, 4), 0), x((4,), 1)),
    "matmul_op": lambda L, F, x: x((3, 4), 0) @ x((4, 5), 1),
    "addmm": lambda L, F, x: L.addmm(x((3, 5), 2), x((3, 4), 0), x((4, 5), 1)),
    "baddbmm": lambda L, F, x: L.baddbmm(x((2, 3, 5), 2), x((2, 3, 4), 0), x((2, 4, 5), 1)),
    "addbmm": lambda L, F, x: L.addbmm(x((3, 5), 2), x((2, 3, 4), 0), x((2, 4, 5), 1)),
    "linear": lambda L, F, x: F.linear(x((3, 4), 0), x((2, 4), 1), x((2,), 2)),
    "linear_3d": lambda L, F, x: F.linear(x((2, 3, 4), 0), x((2, 4), 1)),
    "vecdot": lambda L, F, x: L.linalg.vecdot(x((3, 4), 0), x((3, 4), 1)),
    "conv1d": lambda L, F, x: F.conv1d(x((1, 2, 6), 0), x((3, 2, 3), 1), x((3,), 2)),
    "conv2d": lambda L, F, x: F.conv2d(x((1, 2, 5, 5), 0), x((3, 2, 3, 3), 1), padding=1),
    "conv3d": lambda L, F, x: F.conv3d(x((1, 2, 4, 4, 4), 0), x((3, 2, 2, 2, 2), 1)),
    "conv_transpose1d": lambda L, F, x: F.conv_transpose1d(x((1, 2, 5), 0), x((2, 3, 3), 1)),
    "conv_transpose2d": lambda L, F, x: F.conv_transpose2d(x((1, 2, 4, 4), 0), x((2, 3, 3, 3), 1)),
    "conv_transpose3d": lambda L, F, x: F.conv_transpose3d(
        x((1, 2, 3, 3, 3), 0), x((2, 3, 2, 2, 2), 1)
    ),
    "prelu": lambda L, F, x: F.prelu(x((2, 3, 4), 0), x((3,), 1)),
    "sdpa": lambda L, F, x: F.scaled_dot_product_attention(
        x((2, 3, 4), 0), x((2, 3, 4), 1), x((2, 3, 4), 2)
    ),
    "conv_tbc": lambda L, F, x: L.conv_tbc(x((5, 2, 3), 0), x((3, 3, 4), 1), x((4,), 2)),
    # float32
    "prod": lambda L, F, x: F.linear(x((3, 4), 0), x((2, 4), 1)).prod(),
    "trace": lambda L, F, x: L.trace(L.mm(x((3, 4), 0), x((4, 3), 1))),
    "cdist": lambda L, F, x: L.cdist(L.mm(x((3, 4), 0), x((4, 4), 1)), x((2, 4), 2)),
    "quantile": lambda L, F, x: L.quantile(L.mm(x((3, 4), 0), x((4, 4), 1)), 0.3),
    "mse_loss": lambda L, F, x: F.mse_loss(L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2)),
    "l1_loss": lambda L, F, x: F.l1_loss(L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2)),
    "smooth_l1_loss": lambda L, F, x: F.smooth_l1_loss(
        L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2)
    ),
    "huber_loss": lambda L, F, x: F.huber_loss(L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2)),
    "cross_entropy": lambda L, F, x: F.cross_entropy(
        L.mm(x((3, 4), 0), x((4, 5), 1)), L.tensor([0, 4, 2])
    ),
    "nll_loss": lambda L, F, x: F.nll_loss(L.mm(x((3, 4), 0), x((4, 5), 1)), L.tensor([0, 4, 2])),
    "bce_logits": lambda L, F, x: F.binary_cross_entropy_with_logits(
        L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2).sigmoid()
    ),
    "bce": lambda L, F, x: F.binary_cross_entropy(
        L.mm(x((3, 4), 0), x((4, 2), 1)).sigmoid(), x((3, 2), 2).sigmoid().detach()
    ),
    "kl_div": lambda L, F, x: F.kl_div(
        L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2).softmax(1), reduction="batchmean"
    ),
    "soft_margin": lambda L, F, x: F.soft_margin_loss(
        L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2).sign().detach()
    ),
    "margin_ranking": lambda L, F, x: F.margin_ranking_loss(
        L.mm(x((3, 4), 0), x((4, 1), 1)).flatten(), x((3,), 2), x((3,), 3).sign().detach()
    ),
    "hinge_embedding": lambda L, F, x: F.hinge_embedding_loss(
        L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2).sign().detach()
    ),
    "cosine_embedding": lambda L, F, x: F.cosine_embedding_loss(
        L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2), x((3,), 3).sign().detach()
    ),
    "triplet_margin": lambda L, F, x: F.triplet_margin_loss(
        L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2), x((3, 2), 3)
    ),
    "poisson_nll": lambda L, F, x: F.poisson_nll_loss(
        L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2).abs().detach()
    ),
    "multi_margin": lambda L, F, x: F.multi_margin_loss(
        L.mm(x((3, 4), 0), x((4, 5), 1)), L.tensor([0, 4, 2])
    ),
    "avg_pool3d": lambda L, F, x: F.avg_pool3d(
        F.conv3d(x((1, 2, 4, 4, 4), 0), x((3, 2, 1, 1, 1), 1)), 2
    ),
    "max_pool3d": lambda L, F, x: F.max_pool3d(
        F.conv3d(x((1, 2, 4, 4, 4), 0), x((3, 2, 1, 1, 1), 1)), 2
    ),
    "adaptive_avg_pool3d": lambda L, F, x: F.adaptive_avg_pool3d(
        F.conv3d(x((1, 2, 4, 4, 4), 0), x((3, 2, 1, 1, 1), 1)), 2
    ),
    "grid_sample": lambda L, F, x: F.grid_sample(
        F.conv2d(x((1, 2, 4, 4), 0), x((2, 2, 1, 1), 1)),
        x((1, 3, 3, 2), 2).tanh(),
        align_corners=False,
    ),
    # promote
    "cat_mixed": lambda L, F, x: L.cat([L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2)]),
    "cat_low": lambda L, F, x: L.cat(
        [L.mm(x((3, 4), 0), x((4, 2), 1)), L.mm(x((3, 4), 2), x((4, 2), 3))]
    ),
    "stack_mixed": lambda L, F, x: L.stack([L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2)]),
    "cat_double": lambda L, F, x: L.cat([L.mm(x((3, 4), 0), x((4, 2), 1)), x((3, 2), 2).double()]),
    "index_copy": lambda L, F, x: x((4, 2), 2).index_copy(
        0, L.tensor([1, 3]), L.mm(x((2, 4), 0), x((4, 2), 1))
    ),
    # not listed on the CPU: run in the input dtype
    "mv": lambda L, F, x: L.mv(x((3, 4), 0), x((4,), 1)),
    "softmax": lambda L, F, x: F.softmax(L.mm(x((3, 4), 0), x((4, 2), 1)), dim=1),
    "layer_norm": lambda L, F, x: F.layer_norm(L.mm(x((3, 4), 0), x((4, 2), 1)), (2,)),
    "relu": lambda L, F, x: F.relu(x((3, 4), 0)),
    "add_mixed": lambda L, F, x: L.mm(x((3, 4), 0), x((4, 2), 1)) + x((3, 2), 2),
    "mm_double": lambda L, F, x: L.mm(x((3, 4), 0).double(), x((4, 2), 1).double()),
    "mm_half": lambda L, F, x: L.mm(x((3, 4), 0).half(), x((4, 2), 1).half()),
}


def _run(torch, name, dtype="bfloat16", enabled=True):
    made = {"tm": [], "torch": []}

    def maker(lib_key, lib):
        def x(shape, seed):
            a = np.random.default_rng(seed).standard_normal(shape).astype("float32")
            t = lib.tensor(a, requires_grad=True)
            made[lib_key].append(t)
            return t

        return x

    with tm.autocast("cpu", dtype=getattr(tm, dtype), enabled=enabled):
        ours = CASES[name](tm, TF, maker("tm", tm))
    with torch.autocast("cpu", dtype=getattr(torch, dtype), enabled=enabled):
        theirs = CASES[name](torch, torch.nn.functional, maker("torch", torch))
    return ours, theirs, made


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_op_dtype_and_value(torch_oracle, name, dtype):
    ours, theirs, _ = _run(torch_oracle, name, dtype)
    assert str(ours.dtype) == str(theirs.dtype), name
    assert tuple(ours.shape) == tuple(theirs.shape)
    low = theirs.dtype in (torch_oracle.bfloat16, torch_oracle.float16)
    tol = 3e-2 if low else 1e-2  # a float32 op fed by a lower-precision one inherits its rounding
    np.testing.assert_allclose(
        ours.detach().float().numpy(), theirs.detach().float().numpy(), rtol=tol, atol=tol * 4
    )


@pytest.mark.parametrize("name", ["linear", "conv2d", "matmul", "mse_loss", "cat_mixed", "sdpa"])
def test_gradients_reach_float32_leaves(torch_oracle, name):
    ours, theirs, made = _run(torch_oracle, name)
    g = np.random.default_rng(7).standard_normal(tuple(theirs.shape)).astype("float32")
    ours.backward(tm.tensor(g).to(ours.dtype))
    theirs.backward(torch_oracle.tensor(g).to(theirs.dtype))
    for a, b in zip(made["tm"], made["torch"]):
        assert a.grad.dtype is tm.float32
        assert str(b.grad.dtype) == "torch.float32"
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=3e-2, atol=0.1)


def test_disabled_region_runs_float32(torch_oracle):
    ours, theirs, _ = _run(torch_oracle, "mm", enabled=False)
    assert ours.dtype is tm.float32 and str(theirs.dtype) == "torch.float32"


def test_nesting_and_state():
    a, b = tm.randn(3, 4), tm.randn(4, 2)
    assert not tm.is_autocast_enabled("cpu")
    with tm.autocast("cpu"):
        assert tm.is_autocast_enabled("cpu") and not tm.is_autocast_enabled()
        assert tm.mm(a, b).dtype is tm.bfloat16
        with tm.autocast("cpu", enabled=False):
            assert not tm.is_autocast_enabled("cpu")
            assert tm.mm(a, b).dtype is tm.float32
            with tm.autocast("cpu", dtype=tm.float16):
                assert tm.get_autocast_dtype("cpu") is tm.float16
                assert tm.mm(a, b).dtype is tm.float16
        assert tm.get_autocast_dtype("cpu") is tm.bfloat16
        assert tm.mm(a, b).dtype is tm.bfloat16
        assert tm.mm(a, b, out=tm.empty(3, 2)).dtype is tm.float32  # out= is not autocast
    assert not tm.is_autocast_enabled("cpu")
    assert tm.mm(a, b).dtype is tm.float32


def test_decorator_and_exception_restore():
    @tm.autocast("cpu")
    def f(a, b):
        return a @ b

    assert f(tm.randn(2, 2), tm.randn(2, 2)).dtype is tm.bfloat16
    with pytest.raises(ZeroDivisionError), tm.autocast("cpu"):
        1 / 0
    assert not tm.is_autocast_enabled("cpu")


def test_weight_cast_is_cached_inside_region():
    w = tm.randn(4, 4, requires_grad=True)
    x = tm.randn(2, 4)
    with tm.autocast("cpu"):
        y1, y2 = tm.mm(x, w), tm.mm(x, w)
        # both products hang off the same ToCopyBackward0 node, as PyTorch's cache makes them
        assert y1.grad_fn.next_functions[1][0] is y2.grad_fn.next_functions[1][0]
    with tm.autocast("cpu", cache_enabled=False):
        y1, y2 = tm.mm(x, w), tm.mm(x, w)
        assert y1.grad_fn.next_functions[1][0] is not y2.grad_fn.next_functions[1][0]


def test_errors_and_warnings_match(torch_oracle):
    torch = torch_oracle
    texts = {}
    for lib in (tm, torch):
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.autocast(1)
        with pytest.raises(RuntimeError, match="at start of device string: xyz"):
            lib.autocast("xyz")
        with pytest.raises(TypeError, match="requires a callable, but got int"):
            lib.autocast("cpu")(3)
        with pytest.raises(TypeError, match="must be bool, not int"):
            lib.set_autocast_enabled("cpu", 1)
        for i, (call, category) in enumerate(
            (
                (lambda: lib.autocast("cpu", dtype=lib.float32), UserWarning),
                (lambda: lib.cpu.amp.autocast(), FutureWarning),
                (lambda: lib.cuda.amp.autocast(), FutureWarning),
                (lambda: lib.get_autocast_cpu_dtype(), DeprecationWarning),
            )
        ):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                call()
            msgs = [str(x.message).split(" (Triggered")[0] for x in w if x.category is category]
            assert msgs, (lib, category)
            texts.setdefault(i, []).append(msgs)
    assert all(ours == theirs for ours, theirs in texts.values()), texts
    assert (
        tm.get_autocast_dtype("cpu") is tm.bfloat16 and tm.get_autocast_dtype("cuda") is tm.float16
    )
    assert tm.amp.is_autocast_available("cpu") and not tm.amp.is_autocast_available("meta")


def test_autocast_state_is_per_thread():
    import threading

    seen = []
    with tm.autocast("cpu"):
        t = threading.Thread(
            target=lambda: seen.append(tm.mm(tm.randn(2, 2), tm.randn(2, 2)).dtype)
        )
        t.start()
        t.join(10)
    assert seen == [tm.float32]


def test_custom_fwd_casts_inputs(torch_oracle):
    class Double(tm.autograd.Function):
        @staticmethod
        @tm.amp.custom_fwd(device_type="cpu", cast_inputs=tm.float32)
        def forward(ctx, x):
            ctx.inner = tm.is_autocast_enabled("cpu")
            return x * 2

        @staticmethod
        @tm.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            return g * 2

    x = tm.randn(3, requires_grad=True)
    with tm.autocast("cpu"):
        y = Double.apply(x.bfloat16())
    assert y.dtype is tm.float32
    y.sum().backward()
    assert x.grad.dtype is tm.float32


def _spd(L, x):
    a = x((3, 3), 0)
    return (a @ a.mT + 4 * L.eye(3)).bfloat16()


# CPU float32-list ops fed bfloat16 tensors (linalg, fft, padding); `values` says whether the
# result is unique enough to compare (decompositions have sign/phase freedom).
LOW_INPUT_CASES = {
    "cholesky": (lambda L, F, x: L.cholesky(_spd(L, x)), True),
    "linalg.cholesky": (lambda L, F, x: L.linalg.cholesky(_spd(L, x)), True),
    "cholesky_inverse": (lambda L, F, x: L.cholesky_inverse(_spd(L, x)), True),
    "cholesky_solve": (lambda L, F, x: L.cholesky_solve(x((3, 2), 1).bfloat16(), _spd(L, x)), True),
    "inverse": (lambda L, F, x: L.inverse(_spd(L, x)), True),
    "linalg.inv": (lambda L, F, x: L.linalg.inv(_spd(L, x)), True),
    "linalg.inv_ex": (lambda L, F, x: L.linalg.inv_ex(_spd(L, x))[0], True),
    "pinverse": (lambda L, F, x: L.pinverse(x((3, 4), 1).bfloat16()), True),
    "linalg.solve": (lambda L, F, x: L.linalg.solve(_spd(L, x), x((3,), 1).bfloat16()), True),
    "linalg.svdvals": (lambda L, F, x: L.linalg.svdvals(x((3, 4), 1).bfloat16()), True),
    "linalg.eigvalsh": (lambda L, F, x: L.linalg.eigvalsh(_spd(L, x)), True),
    "linalg.eigh": (lambda L, F, x: L.linalg.eigh(_spd(L, x))[0], True),
    "linalg.eigvals": (lambda L, F, x: L.linalg.eigvals(_spd(L, x)), False),
    "linalg.svd": (lambda L, F, x: L.linalg.svd(x((3, 4), 1).bfloat16())[1], True),
    "linalg.qr": (lambda L, F, x: L.linalg.qr(x((3, 4), 1).bfloat16())[0], False),
    "linalg.lstsq": (lambda L, F, x: L.linalg.lstsq(_spd(L, x), x((3, 2), 1).bfloat16())[0], True),
    "linalg.cond": (lambda L, F, x: L.linalg.cond(_spd(L, x)), True),
    "linalg.matrix_rank": (lambda L, F, x: L.linalg.matrix_rank(_spd(L, x)), True),
    "linalg.tensorinv": (lambda L, F, x: L.linalg.tensorinv(_spd(L, x), 1), True),
    "triangular_solve": (
        lambda L, F, x: L.triangular_solve(x((3, 2), 1).bfloat16(), _spd(L, x))[0],
        True,
    ),
    "geqrf": (lambda L, F, x: L.geqrf(x((3, 2), 1).bfloat16())[0], False),
    "orgqr": (lambda L, F, x: L.orgqr(x((3, 2), 1).bfloat16(), x((2,), 2).bfloat16()), True),
    "fft.fft": (lambda L, F, x: L.fft.fft(x((8,), 1).bfloat16()), True),
    "fft.rfft2": (lambda L, F, x: L.fft.rfft2(x((4, 4), 1).bfloat16()), True),
    "fft.irfft": (lambda L, F, x: L.fft.irfft(x((8,), 1).bfloat16()), True),
    "fft.hfft": (lambda L, F, x: L.fft.hfft(x((8,), 1).bfloat16()), True),
    "fft.ihfft": (lambda L, F, x: L.fft.ihfft(x((8,), 1).bfloat16()), True),
    "pad_reflect1d": (
        lambda L, F, x: F.pad(x((1, 2, 5), 1).bfloat16(), (1, 2), mode="reflect"),
        True,
    ),
    "pad_reflect2d": (
        lambda L, F, x: F.pad(x((1, 2, 5, 5), 1).bfloat16(), (1, 1, 2, 0), mode="reflect"),
        True,
    ),
    "pad_reflect3d": (
        lambda L, F, x: F.pad(x((1, 2, 3, 3, 3), 1).bfloat16(), (1,) * 6, mode="reflect"),
        True,
    ),
    "pad_replicate3d": (
        lambda L, F, x: F.pad(x((1, 2, 3, 3, 3), 1).bfloat16(), (1,) * 6, mode="replicate"),
        True,
    ),
    "pad_circular": (
        lambda L, F, x: F.pad(x((1, 2, 5), 1).bfloat16(), (1, 1), mode="circular"),
        True,
    ),
    "max_unpool2d": (
        lambda L, F, x: F.max_unpool2d(
            *F.max_pool2d(x((1, 1, 4, 4), 1).bfloat16(), 2, return_indices=True), 2
        ),
        True,
    ),
}


@pytest.mark.parametrize("name", sorted(LOW_INPUT_CASES))
def test_float32_list_with_low_precision_inputs(torch_oracle, name):
    build, values = LOW_INPUT_CASES[name]

    def maker(lib):
        return lambda shape, seed: lib.tensor(
            np.random.default_rng(seed).standard_normal(shape).astype("float32")
        )

    with tm.autocast("cpu"):
        ours = build(tm, TF, maker(tm))
    with torch_oracle.autocast("cpu"):
        theirs = build(torch_oracle, torch_oracle.nn.functional, maker(torch_oracle))
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    if values:
        np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-4, atol=1e-4)


def _np(t):
    t = t.resolve_conj()
    return (t.float() if t.is_floating_point() else t).numpy()


RNN_CASES = {
    "lstm": lambda L, x: L.nn.LSTM(4, 3)(x),
    "lstm_2layer_bi": lambda L, x: L.nn.LSTM(4, 3, num_layers=2, bidirectional=True)(x),
    "lstm_proj": lambda L, x: L.nn.LSTM(4, 3, proj_size=2)(x),
    "lstm_packed": lambda L, x: L.nn.LSTM(4, 3)(L.nn.utils.rnn.pack_sequence([x[:, 0], x[:2, 1]])),
    "lstm_bf16_input": lambda L, x: L.nn.LSTM(4, 3)(x.bfloat16()),
    "rnn_tanh": lambda L, x: L.nn.RNN(4, 3)(x),
    "rnn_relu": lambda L, x: L.nn.RNN(4, 3, nonlinearity="relu")(x),
    "gru": lambda L, x: L.nn.GRU(4, 3)(x),
    "lstm_cell": lambda L, x: L.nn.LSTMCell(4, 3)(x[0]),
    "gru_cell": lambda L, x: (L.nn.GRUCell(4, 3)(x[0]),),
    "rnn_cell": lambda L, x: (L.nn.RNNCell(4, 3)(x[0]),),
}


def _flat(out):
    if hasattr(out, "data") and hasattr(out, "batch_sizes"):
        return [out.data]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


@pytest.mark.parametrize("name", sorted(RNN_CASES))
def test_recurrent_layers_match(torch_oracle, name):
    """PyTorch's CPU autocast: an LSTM layer runs in the lower precision (oneDNN), other layers
    op by op with lower-precision matmuls and the float32 state promoting the recurrence."""
    x = np.random.default_rng(0).standard_normal((3, 2, 4)).astype("float32")
    results = []
    for lib in (tm, torch_oracle):
        lib.manual_seed(0)
        with lib.autocast("cpu"):
            results.append(_flat(RNN_CASES[name](lib, lib.tensor(x))))
    ours, theirs = results
    assert [str(t.dtype) for t in ours] == [str(t.dtype) for t in theirs]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(
            a.detach().float().numpy(), b.detach().float().numpy(), atol=3e-2
        )


def test_warnings_still_point_at_the_caller():
    """Ops that warn check autocast inline, so outside autocast their warnings keep naming the
    user's line (a wrapper frame would make them name taimatsu/_autocast.py)."""
    calls = (
        lambda: TF.softmax(tm.randn(3)),
        lambda: TF.mse_loss(tm.randn(3), tm.randn(3, 1)),
        lambda: TF.kl_div(tm.randn(3), tm.randn(3).abs()),
        lambda: TF.grid_sample(tm.randn(1, 1, 3, 3), tm.randn(1, 2, 2, 2)),
    )
    for call in calls:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            call()
        names = [x.filename for x in w if x.category is UserWarning]
        assert names and set(names) == {__file__}, names


# addmm, baddbmm and addmv in float16/bfloat16 (a Linear under autocast) add the bias to the
# float32 product and round once, as PyTorch's CPU kernels: bit-exact, not just close.
ROUNDED_ONCE = {
    "linear": lambda L, F, x: F.linear(x((6, 16), 0), x((8, 16), 1), x((8,), 2)),
    "addmm": lambda L, F, x: L.addmm(x((6, 8), 2), x((6, 16), 0), x((16, 8), 1), beta=0.5, alpha=2),
    "baddbmm": lambda L, F, x: L.baddbmm(x((2, 6, 8), 2), x((2, 6, 16), 0), x((2, 16, 8), 1)),
    "addmv": lambda L, F, x: L.addmv(x((6,), 2), x((6, 16), 0), x((16,), 1)),
    "conv2d": lambda L, F, x: F.conv2d(x((2, 3, 6, 6), 0), x((4, 3, 3, 3), 1), x((4,), 2)),
    "conv1d": lambda L, F, x: F.conv1d(x((2, 3, 9), 0), x((4, 3, 3), 1), x((4,), 2), padding=1),
}


@pytest.mark.parametrize("autocast", [True, False])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(ROUNDED_ONCE))
def test_half_fused_products_round_once(torch_oracle, name, dtype, autocast):
    if autocast and name == "addmv":
        pytest.skip("CPU autocast leaves addmv in float32")

    def run(lib, F):
        def x(shape, seed):
            a = np.random.default_rng(seed).standard_normal(shape).astype("float32")
            t = lib.tensor(a)
            return t if autocast else t.to(getattr(lib, dtype))

        with lib.autocast("cpu", dtype=getattr(lib, dtype), enabled=autocast):
            return ROUNDED_ONCE[name](lib, F, x)

    ours, theirs = run(tm, TF), run(torch_oracle, torch_oracle.nn.functional)
    assert str(ours.dtype) == str(theirs.dtype) == f"torch.{dtype}"
    np.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy())


LEGACY_ACCESSORS = [
    ("is_autocast_cpu_enabled", ()),
    ("get_autocast_cpu_dtype", ()),
    ("set_autocast_cpu_enabled", (False,)),
    ("set_autocast_cpu_dtype", ("bfloat16",)),
    ("get_autocast_gpu_dtype", ()),
    ("set_autocast_gpu_dtype", ("float16",)),
]


@pytest.mark.parametrize("name,args", LEGACY_ACCESSORS, ids=[n for n, _ in LEGACY_ACCESSORS])
def test_legacy_accessor_deprecation_texts(torch_oracle, name, args):
    def run(lib):
        call = [getattr(lib, a) if isinstance(a, str) else a for a in args]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(lib, name)(*call)
        return [(w.category, str(w.message)) for w in caught]

    before = (tm.get_autocast_dtype("cpu"), tm.get_autocast_dtype("cuda"))
    try:
        assert run(tm) == run(torch_oracle)
    finally:
        tm.set_autocast_dtype("cpu", before[0])
        tm.set_autocast_dtype("cuda", before[1])
        tm.set_autocast_enabled("cpu", False)
        torch_oracle.set_autocast_dtype("cpu", torch_oracle.bfloat16)
        torch_oracle.set_autocast_dtype("cuda", torch_oracle.float16)
        torch_oracle.set_autocast_enabled("cpu", False)


def test_conv_and_batch_norm_backward_under_autocast(torch_oracle):
    """A conv + batch-norm block under bf16 autocast: conv gradients are float32 sums rounded
    once, batch norm works in float32 (its float32 parameters' gradients unrounded)."""

    def run(lib):
        rng = np.random.default_rng(3)
        x = lib.tensor(rng.standard_normal((4, 2, 6, 6)).astype("float32"), requires_grad=True)
        w = lib.tensor(rng.standard_normal((3, 2, 3, 3)).astype("float32"), requires_grad=True)
        b = lib.tensor(rng.standard_normal(3).astype("float32"), requires_grad=True)
        gamma = lib.tensor(rng.uniform(0.5, 1.5, 3).astype("float32"), requires_grad=True)
        beta = lib.tensor(rng.standard_normal(3).astype("float32"), requires_grad=True)
        cot = rng.standard_normal((4, 3, 4, 4)).astype("float32")
        with lib.autocast("cpu", dtype=lib.bfloat16):
            h = lib.nn.functional.conv2d(x, w, b)
            h.retain_grad()
            y = lib.nn.functional.batch_norm(h, None, None, gamma, beta, training=True)
        y.backward(lib.tensor(cot).to(y.dtype))
        return [
            t.float().detach().numpy()
            for t in (y, h.grad, x.grad, w.grad, b.grad, beta.grad, gamma.grad)
        ]

    ours, theirs = run(tm), run(torch_oracle)
    for a, b in zip(ours[:-1], theirs[:-1]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(ours[-1], theirs[-1], rtol=1e-5)  # summation order (float32)
