"""torch.compile: PyTorch's arguments and errors, PyTorch's wrapper shapes (OptimizedModule,
``_orig_mod.`` keys), and the numbers of an eager run (PyTorch's ``backend="eager"``)."""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")


def _pair_of_mlps():
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(), torch.nn.Linear(8, 3))
    ours = taimatsu.nn.Sequential(
        taimatsu.nn.Linear(4, 8), taimatsu.nn.GELU(), taimatsu.nn.Linear(8, 3)
    )
    ours.load_state_dict({k: taimatsu.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    return ref, ours


def test_compiled_module_matches_eager_values_and_grads():
    ref, ours = _pair_of_mlps()
    compiled_ref = torch.compile(ref, backend="eager")
    compiled = taimatsu.compile(ours)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    cot = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    # backend="eager" computes exactly the uncompiled module's numbers; running Dynamo here takes seconds
    y_ref = ref(torch.tensor(x))
    y = compiled(taimatsu.tensor(x))
    np.testing.assert_allclose(y.detach().numpy(), y_ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    y_ref.backward(torch.tensor(cot))
    y.backward(taimatsu.tensor(cot))
    for (name, p_ref), p in zip(compiled_ref.named_parameters(), compiled.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), p_ref.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert [n for n, _ in compiled.named_parameters()] == [
        n for n, _ in compiled_ref.named_parameters()
    ]
    assert repr(compiled) == repr(compiled_ref)
    assert list(compiled.state_dict()) == list(compiled_ref.state_dict())
    assert type(compiled).__name__ == type(compiled_ref).__name__ == "OptimizedModule"
    assert compiled._orig_mod is ours
    with pytest.raises(TypeError, match="not subscriptable"):  # as in PyTorch: no __getitem__
        compiled[0]


def test_optimized_module_forwards_attributes_and_training():
    ours = taimatsu.nn.Linear(2, 3)
    compiled = taimatsu.compile(ours)
    assert compiled.in_features == 2 and compiled.weight is ours.weight
    compiled.note = "x"
    assert ours.note == "x" and "note" not in vars(compiled)
    compiled.eval()
    assert not ours.training and not compiled.training
    ours.train()
    assert compiled.training
    del compiled.note
    assert not hasattr(ours, "note")


def test_compiled_state_dict_loads_after_stripping_the_prefix():
    """nanoGPT's sample.py: strip '_orig_mod.' from a compiled model's checkpoint."""
    _, ours = _pair_of_mlps()
    state = taimatsu.compile(ours).state_dict()
    prefix = "_orig_mod."
    fresh = taimatsu.nn.Sequential(
        taimatsu.nn.Linear(4, 8), taimatsu.nn.GELU(), taimatsu.nn.Linear(8, 3)
    )
    with pytest.raises(RuntimeError, match="Missing key"):
        fresh.load_state_dict(state)
    fresh.load_state_dict({k.removeprefix(prefix): v for k, v in state.items()})
    x = taimatsu.randn(2, 4)
    assert taimatsu.equal(fresh(x), ours(x))


def test_function_forms():
    def f(x):
        return x.sin() * 2

    g = taimatsu.compile(f)
    ref_g = torch.compile(f, backend="eager")
    assert g is not f and g.__wrapped__ is f and g.__name__ == ref_g.__name__ == "f"
    x = taimatsu.linspace(0, 1, 5)
    assert taimatsu.equal(g(x), f(x))

    @taimatsu.compile
    def h(x):
        return x + 1

    @taimatsu.compile(fullgraph=True, dynamic=False, mode="max-autotune")
    def k(x):
        return x - 1

    assert h.__name__ == "h" and k.__name__ == "k"
    assert h(taimatsu.tensor(1.0)).item() == 2.0 and k(taimatsu.tensor(1.0)).item() == 0.0


def test_disable_returns_the_model_itself():
    m = taimatsu.nn.Linear(2, 2)
    assert taimatsu.compile(m, disable=True) is m
    assert torch.compile(torch.nn.Linear(2, 2), disable=True).__class__ is torch.nn.Linear


@pytest.mark.parametrize(
    "kwargs",
    [
        {"mode": "fastest"},
        {"mode": "default", "options": {"max_autotune": True}},
        {"backend": "nope"},
        {"backend": "eager", "mode": "anything"},
        {"backend": "aot_eager", "fullgraph": True, "dynamic": True},
    ],
)
def test_arguments_checked_as_pytorch(kwargs):
    def f(x):
        return x

    try:
        torch.compile(f, **kwargs)
        expected = None
    except Exception as e:  # noqa: BLE001
        expected = e
    if expected is None:
        taimatsu.compile(f, **kwargs)
        return
    with pytest.raises(Exception) as got:
        taimatsu.compile(f, **kwargs)
    assert type(got.value).__name__ == type(expected).__name__
    assert isinstance(got.value, RuntimeError) == isinstance(expected, RuntimeError)
    assert str(got.value) == str(expected)


@pytest.mark.parametrize("bad", [5, "model"])
def test_not_callable(bad):
    with pytest.raises(AssertionError) as expected:
        torch.compile(bad, backend="eager")
    with pytest.raises(AssertionError) as got:
        taimatsu.compile(bad)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize(
    "call",
    [
        "T.compile(lambda x: x)",
        "T.compile(5, backend='nope')",
        "T.compile(5, mode='bad')",
        "T.compile(5)",
        "T.compile(lambda x: x, disable=True)",
        "T.compile(None)",
        "T.nn.Linear(2, 2).compile()",
    ],
)
def test_compile_turns_distribution_validation_off(call):
    """The first compile's dynamo set-up turns distribution argument validation off; the backend
    and mode are checked before it and before the model is. (Each library's set-up runs once per
    process: the test forgets that it ran.)"""
    from torch._dynamo.eval_frame import TorchPatcher

    seen = []
    for T in (torch, taimatsu):
        Distribution = T.distributions.Distribution
        before = Distribution._validate_args
        Distribution.set_default_validate_args(True)
        once = TorchPatcher.patch if T is torch else taimatsu.compiler._set_up_dynamo
        once.cache_clear()
        try:
            try:
                eval(call, {"T": T})
                error = None
            except Exception as e:  # noqa: BLE001
                error = (type(e).__name__, str(e))
            seen.append((error, Distribution._validate_args))
            Distribution.set_default_validate_args(True)
            eval(call, {"T": T}) if error is None else None
            seen.append(Distribution._validate_args)  # the set-up ran already: no change
        finally:
            Distribution.set_default_validate_args(before)
    assert seen[:2] == seen[2:]


def test_callable_backend_runs_eagerly_and_says_so():
    def backend(gm, example_inputs):
        raise AssertionError("never called")

    with pytest.warns(UserWarning, match="custom backend is not called"):
        g = taimatsu.compile(lambda x: x * 3, backend=backend)
    assert g(taimatsu.tensor(2.0)).item() == 6.0


def test_dynamo_bits_scripts_touch():
    assert taimatsu._dynamo.list_backends() == torch._dynamo.list_backends()
    # PyTorch also lists the backends its own test suite registers (relu_compile_error_TESTING_ONLY, ...)
    every = [n for n in torch.compiler.list_backends(exclude_tags=()) if "TESTING_ONLY" not in n]
    assert taimatsu.compiler.list_backends(exclude_tags=()) == every
    for name in ("suppress_errors", "cache_size_limit", "recompile_limit", "verbose"):
        assert getattr(taimatsu._dynamo.config, name) == getattr(torch._dynamo.config, name)
    assert taimatsu._dynamo.reset() is None
    assert taimatsu.compiler.is_compiling() is torch.compiler.is_compiling() is False

    @taimatsu.compiler.disable
    def d(x):
        return x

    @taimatsu._dynamo.disable(recursive=False)
    def e(x):
        return x

    assert d(3) == 3 and e(4) == 4


def test_module_compile_in_place():
    """nn.Module.compile keeps the state_dict keys (no _orig_mod.) and checks the arguments."""
    ref, ours = _pair_of_mlps()
    ref.compile(backend="eager")
    assert ours.compile() is None
    assert list(ours.state_dict()) == list(ref.state_dict())
    x = np.ones((2, 4), np.float32)
    np.testing.assert_allclose(
        ours(taimatsu.tensor(x)).detach().numpy(), ref(torch.tensor(x)).detach().numpy(), rtol=1e-5
    )
    with pytest.raises(RuntimeError, match="Unrecognized mode=fast"):
        ours.compile(mode="fast")
