"""torch.utils.checkpoint against PyTorch: values and gradients (random cotangents) with dropout
inside, how many times the function runs, grad_fn names, warnings and errors, both modes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")

MODES = [True, False]


def _model(lib, seed=0):
    """The same weights in both frameworks: PyTorch initialises, taimatsu copies."""
    torch.manual_seed(seed)
    ref = torch.nn.Sequential(
        torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Dropout(0.3), torch.nn.Linear(8, 5)
    )
    if lib is torch:
        return ref
    ours = taimatsu.nn.Sequential(
        taimatsu.nn.Linear(6, 8),
        taimatsu.nn.Tanh(),
        taimatsu.nn.Dropout(0.3),
        taimatsu.nn.Linear(8, 5),
    )
    ours.load_state_dict({k: taimatsu.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    return ours


def _data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal((4, 5)).astype(
        np.float32
    )


def _run(lib, use_reentrant, *, preserve=True, retain=False):
    """Checkpointed forward/backward with dropout; returns output, grads and the call count."""
    model = _model(lib)
    x_np, cot_np = _data()
    x = lib.tensor(x_np, requires_grad=True)
    calls = []

    def fn(a, scale):
        calls.append(1)
        return model(a) * scale

    lib.manual_seed(123)
    y = lib.utils.checkpoint.checkpoint(
        fn, x, 2.0, use_reentrant=use_reentrant, preserve_rng_state=preserve
    )
    y.backward(lib.tensor(cot_np), retain_graph=retain)
    if retain:
        y.backward(lib.tensor(cot_np))
    grads = [x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()]
    return y.detach().numpy(), grads, len(calls), type(y.grad_fn).__name__


@pytest.mark.parametrize("use_reentrant", MODES)
@pytest.mark.parametrize("preserve", [True, False])
def test_values_grads_and_calls_match_pytorch(use_reentrant, preserve):
    y_ref, g_ref, n_ref, fn_ref = _run(torch, use_reentrant, preserve=preserve)
    y, g, n, fn_name = _run(taimatsu, use_reentrant, preserve=preserve)
    np.testing.assert_allclose(y, y_ref, rtol=1e-5, atol=1e-6)
    for a, b in zip(g, g_ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert (n, fn_name) == (n_ref, fn_ref)


def test_dropout_mask_is_replayed():
    """With the state preserved, the checkpointed gradients equal the uncheckpointed ones."""
    model = _model(taimatsu)
    x_np, cot_np = _data()
    grads = []
    for wrap in (False, True):
        model.zero_grad()
        x = taimatsu.tensor(x_np, requires_grad=True)
        taimatsu.manual_seed(7)
        y = (
            taimatsu.utils.checkpoint.checkpoint(model, x, use_reentrant=False)
            if wrap
            else model(x)
        )
        y.backward(taimatsu.tensor(cot_np))
        grads.append([x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()])
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)


def test_retain_graph_recomputes_again_as_pytorch():
    _, g_ref, n_ref, _ = _run(torch, False, retain=True)
    _, g, n, _ = _run(taimatsu, False, retain=True)
    assert n == n_ref
    for a, b in zip(g, g_ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("lib", [torch, taimatsu], ids=["torch", "taimatsu"])
def test_second_backward_refused(lib):
    for mode in MODES:
        x = lib.randn(3, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda a: a.exp().sum(), x, use_reentrant=mode)
        y.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()


def _warnings_and_error(lib, call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, error = call(lib), None
        except Exception as e:  # noqa: BLE001
            result, error = None, e
    return result, [(w.category, str(w.message)) for w in caught], error


CASES = {
    "no use_reentrant": lambda lib: lib.utils.checkpoint.checkpoint(
        lambda a: a * 2, lib.ones(2, requires_grad=True)
    ),
    "sequential without use_reentrant": lambda lib: lib.utils.checkpoint.checkpoint_sequential(
        [lambda a: a * 2, lambda a: a + 1], 2, lib.ones(2, requires_grad=True)
    ),
    "no input requires grad": lambda lib: lib.utils.checkpoint.checkpoint(
        lambda a: a * 2, lib.ones(2), use_reentrant=True
    ),
    "kwargs with reentrant": lambda lib: lib.utils.checkpoint.checkpoint(
        lambda a, b=1: a, lib.ones(2), use_reentrant=True, b=2
    ),
    "context_fn with reentrant": lambda lib: lib.utils.checkpoint.checkpoint(
        lambda a: a, lib.ones(2), use_reentrant=True, context_fn=lambda: (None, None)
    ),
    "debug with reentrant": lambda lib: lib.utils.checkpoint.checkpoint(
        lambda a: a, lib.ones(2), use_reentrant=True, debug=True
    ),
    "bad determinism_check": lambda lib: lib.utils.checkpoint.checkpoint(
        lambda a: a, lib.ones(2), use_reentrant=False, determinism_check="always"
    ),
    "sequential kwargs": lambda lib: lib.utils.checkpoint.checkpoint_sequential(
        [lambda a: a], 1, lib.ones(2), use_reentrant=False, foo=1
    ),
    "sequential zero segments": lambda lib: lib.utils.checkpoint.checkpoint_sequential(
        [lambda a: a], 0, lib.ones(2), use_reentrant=False
    ),
    "sequential too many segments": lambda lib: lib.utils.checkpoint.checkpoint_sequential(
        [lambda a: a, lambda a: a], 3, lib.ones(2), use_reentrant=False
    ),
    "grad() with reentrant": lambda lib: lib.autograd.grad(
        lib.utils.checkpoint.checkpoint(
            lambda a: a.exp(), x := lib.ones(2, requires_grad=True), use_reentrant=True
        ).sum(),
        x,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_warnings_and_errors_match_pytorch(case):
    _, w_ref, e_ref = _warnings_and_error(torch, CASES[case])
    _, w, e = _warnings_and_error(taimatsu, CASES[case])
    assert w == w_ref
    assert type(e) is type(e_ref)
    assert str(e) == str(e_ref)


def test_non_reentrant_grad_kwargs_and_parameters():
    """grad() through a non-reentrant checkpoint, keyword arguments, a parameter only fn sees."""
    results = []
    for lib in (torch, taimatsu):
        w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        x = lib.tensor([[1.0, 2.0]], requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(
            lambda a, *, power, w=w: (a @ w).sigmoid() ** power, x, use_reentrant=False, power=3
        )
        results.append([t.numpy() for t in lib.autograd.grad((y * y).sum(), (x, w))])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("use_reentrant", MODES)
def test_non_tensor_and_tuple_outputs(use_reentrant):
    out = []
    for lib in (torch, taimatsu):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        y, n, s = lib.utils.checkpoint.checkpoint(
            lambda a: (a.sin(), 5, a.cos().sum()), x, use_reentrant=use_reentrant
        )
        (y.sum() * s).backward()
        out.append((n, type(y.grad_fn).__name__, x.grad.numpy()))
    assert out[0][:2] == out[1][:2]
    np.testing.assert_allclose(out[1][2], out[0][2], rtol=1e-6)


@pytest.mark.parametrize("lib", [torch, taimatsu], ids=["torch", "taimatsu"])
def test_under_no_grad(lib):
    for mode in MODES:
        with lib.no_grad():
            y = lib.utils.checkpoint.checkpoint(
                lambda a: a * 2, lib.ones(2, requires_grad=True), use_reentrant=mode
            )
        assert not y.requires_grad


@pytest.mark.parametrize("use_reentrant", MODES)
@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential(use_reentrant, segments):
    out = []
    for lib in (torch, taimatsu):
        torch.manual_seed(0)
        layers = [torch.nn.Linear(4, 4) for _ in range(5)]
        if lib is taimatsu:
            ours = [taimatsu.nn.Linear(4, 4) for _ in range(5)]
            for a, b in zip(ours, layers):
                a.load_state_dict(
                    {k: taimatsu.tensor(v.numpy()) for k, v in b.state_dict().items()}
                )
            layers = ours
        model = lib.nn.Sequential(*[m for layer in layers for m in (layer, lib.nn.ReLU())])
        x = lib.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4), requires_grad=True)
        y = lib.utils.checkpoint.checkpoint_sequential(
            model, segments, x, use_reentrant=use_reentrant
        )
        y.backward(lib.tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 7))
        out.append(
            [y.detach().numpy(), x.grad.numpy(), *[p.grad.numpy() for p in model.parameters()]]
        )
    for a, b in zip(*out):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_nondeterministic_function_is_caught():
    calls = []

    def fn(a):
        calls.append(1)
        return a.exp() if len(calls) == 1 else a.exp().exp()

    y = taimatsu.utils.checkpoint.checkpoint(
        fn, taimatsu.ones(2, requires_grad=True), use_reentrant=False
    )
    with pytest.raises(taimatsu.utils.checkpoint.CheckpointError, match="Recomputed values"):
        y.sum().backward()
    assert issubclass(torch.utils.checkpoint.CheckpointError, RuntimeError)
