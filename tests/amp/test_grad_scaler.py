"""GradScaler vs PyTorch: the same steps with injected infs give the same scales, skipped steps
and parameters; stage errors; state_dict round trip."""

import pickle

import numpy as np
import pytest

import taimatsu as tm


def _model(lib, seed=0):
    rng = np.random.default_rng(seed)
    lin = lib.nn.Linear(4, 3)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(rng.standard_normal((3, 4)).astype("float32")))
        lin.bias.copy_(lib.tensor(rng.standard_normal(3).astype("float32")))
    return lin


def _train(lib, steps=8, bad=(2, 3, 6), **scaler_kwargs):
    model = _model(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", **scaler_kwargs)
    rng = np.random.default_rng(1)
    trace = []
    for i in range(steps):
        x = lib.tensor(rng.standard_normal((5, 4)).astype("float32"))
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        scaler.scale(loss).backward()
        if i in bad:  # inject an overflow into one gradient
            model.weight.grad[0, 0] = float("inf") if i % 2 else float("nan")
        ret = scaler.step(opt)
        scaler.update()
        trace.append((scaler.get_scale(), ret is None, scaler._get_growth_tracker()))
    return trace, model, scaler


def test_same_scales_skips_and_parameters(torch_oracle):
    kw = {"init_scale": 2.0**10, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 2}
    ours, m1, s1 = _train(tm, **kw)
    theirs, m2, s2 = _train(torch_oracle, **kw)
    assert ours == theirs
    np.testing.assert_allclose(
        m1.weight.detach().numpy(), m2.weight.detach().numpy(), rtol=1e-6, atol=1e-7
    )
    np.testing.assert_allclose(
        m1.bias.detach().numpy(), m2.bias.detach().numpy(), rtol=1e-6, atol=1e-7
    )
    assert s1.state_dict() == s2.state_dict()


def test_unscale_then_clip_matches(torch_oracle):
    grads = []
    for lib in (tm, torch_oracle):
        model = _model(lib)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu", init_scale=1000.0)
        scaler.scale(model(lib.ones(2, 4)).sum()).backward()
        scaler.unscale_(opt)
        grads.append(model.weight.grad.numpy().copy())
        with pytest.raises(
            RuntimeError,
            match=r"^unscale_\(\) has already been called on this optimizer since the last update\(\)\.$",
        ):
            scaler.unscale_(opt)
        scaler.step(opt)
        with pytest.raises(RuntimeError, match=r"^unscale_\(\) is being called after step\(\)\.$"):
            scaler.unscale_(opt)
        with pytest.raises(
            RuntimeError, match=r"^step\(\) has already been called since the last update\(\)\.$"
        ):
            scaler.step(opt)
        with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
            scaler.step(opt, closure=lambda: 0)
        scaler.update()
    np.testing.assert_array_equal(grads[0], grads[1])


def test_errors_before_scale_and_bad_factors(torch_oracle):
    for lib in (tm, torch_oracle):
        opt = lib.optim.SGD(_model(lib).parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu")
        with pytest.raises(AssertionError, match=r"Attempted step but _scale is None\."):
            scaler.step(opt)
        with pytest.raises(AssertionError, match="The growth factor must be > 1.0."):
            lib.amp.GradScaler("cpu", growth_factor=1.0)
        with pytest.raises(AssertionError, match="The backoff factor must be < 1.0."):
            lib.amp.GradScaler("cpu", backoff_factor=1.0)
        with pytest.raises(RuntimeError, match="The source state dict is empty"):
            scaler.load_state_dict({})
        scaler.scale(lib.ones(()))
        with pytest.raises(AssertionError, match="No inf checks were recorded prior to update."):
            scaler.update()


def test_scale_containers_dtype_and_disabled(torch_oracle):
    for lib in (tm, torch_oracle):
        scaler = lib.amp.GradScaler("cpu", init_scale=4.0)
        a, b = lib.ones(2), lib.ones(3, dtype=lib.bfloat16)
        out = scaler.scale([a, (b,)])
        assert isinstance(out, list) and isinstance(out[1], tuple)
        assert out[0].tolist() == [4.0, 4.0] and str(out[1][0].dtype).endswith("bfloat16")
        with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
            scaler.scale([1])
        off = lib.amp.GradScaler("cpu", enabled=False)
        assert off.scale(a) is a and off.get_scale() == 1.0 and off.state_dict() == {}


def test_state_dict_round_trip_and_pickle():
    _, _, scaler = _train(tm, steps=3, bad=(1,), init_scale=8.0, growth_interval=5)
    sd = scaler.state_dict()
    fresh = tm.amp.GradScaler("cpu")
    fresh.load_state_dict(sd)
    assert fresh.state_dict() == sd
    clone = pickle.loads(pickle.dumps(scaler))
    assert clone.state_dict() == sd and clone._scale is None


def test_cuda_spellings_warn_and_disable_without_gpu(torch_oracle):
    if tm.cuda.is_available():
        pytest.skip("a GPU is present")
    for lib in (tm, torch_oracle):
        with (
            pytest.warns(
                FutureWarning, match=r"`torch.cuda.amp.GradScaler\(args...\)` is deprecated"
            ),
            pytest.warns(UserWarning, match="CUDA is not available.  Disabling."),
        ):
            s = lib.cuda.amp.GradScaler()
        assert not s.is_enabled()
        with pytest.warns(
            FutureWarning, match=r"`torch.cpu.amp.GradScaler\(args...\)` is deprecated"
        ):
            assert lib.cpu.amp.GradScaler().is_enabled()


def test_sparse_embedding_gradients(torch_oracle):
    results = []
    for lib in (tm, torch_oracle):
        lib.manual_seed(0)
        emb = lib.nn.Embedding(5, 3, sparse=True)
        opt = lib.optim.SGD(emb.parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu", init_scale=4.0, growth_interval=1)
        for step in range(3):
            opt.zero_grad()
            scaler.scale(emb(lib.tensor([1, 2, 1])).pow(2).sum()).backward()
            if step == 1:
                emb.weight.grad._values()[0, 0] = float("inf")
            scaler.step(opt)
            scaler.update()
        results.append((scaler.get_scale(), emb.weight.detach().numpy().copy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)
