"""torch.compile: PyTorch's arguments and errors, PyTorch's wrapper shapes (OptimizedModule,
``_orig_mod.`` keys), and the numbers of an eager run (PyTorch's ``backend="eager"``)."""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")


# PyTorch's dynamo, once it has traced a call in this process, leaves its frame-evaluation hook
# installed, and Python's reference counts then read one higher in later frames: taimatsu's
# engine, which reuses a gradient's memory only when its count says nobody else holds it, would
# copy instead for the rest of the test session (three gradient-reuse tests failed after this
# file). So the PyTorch side of the tests that run a dynamo trace runs in a child process.
def _in_torch_process(code: str):
    """The JSON value ``code`` (a script using ``torch``, ``T`` = torch) prints last."""
    import json
    import subprocess
    import sys
    import textwrap

    prelude = "import json, torch\nT = torch\n"
    out = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True, text=True, timeout=240, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


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


def _backend_calls(T, fn, calls_args):
    """Compile ``fn`` with a recording backend; call it with each argument tuple; return the
    backend's call count after each call and the results."""
    seen = []

    def backend(gm, example_inputs):
        seen.append(len([e for e in example_inputs if isinstance(e, T.Tensor)]))
        return gm.forward

    opt = T.compile(fn, backend=backend)
    counts, results = [], []
    for args in calls_args:
        out = opt(*args)
        results.append(out[0] if isinstance(out, tuple) else out)
        counts.append(len(seen))
    return counts, results


def _foo(T):
    def foo(x, y):
        a = T.sin(x)
        b = T.cos(y)
        return a + b

    return foo


def test_callable_backend_gets_a_graph_and_recompiles_like_pytorch():
    """Same shapes: no new backend call; a second shape: one (dynamic) recompile; a third shape
    of the same ranks: none; after reset: one more."""
    sizes = (3, 3, 4, 5)
    T = taimatsu
    T._dynamo.reset()
    args = [(T.ones(n), T.ones(n) * 2) for n in sizes]
    counts, results = _backend_calls(T, _foo(T), args)
    counts.append(len(results))
    expect = np.sin(np.ones(5)) + np.cos(2 * np.ones(5))
    np.testing.assert_allclose(results[-1].numpy(), expect.astype(np.float32), rtol=1e-6)
    theirs = _in_torch_process(
        """
        seen, counts = [], []
        def backend(gm, example_inputs):
            seen.append(1)
            return gm.forward
        def foo(x, y):
            return T.sin(x) + T.cos(y)
        opt = T.compile(foo, backend=backend)
        for n in (3, 3, 4, 5):
            opt(T.ones(n), T.ones(n) * 2)
            counts.append(len(seen))
        print(json.dumps(counts + [4]))
        """
    )
    assert counts == theirs == [1, 1, 2, 2, 4]


def test_callable_backend_graph_code_and_reset():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append((gm, example_inputs))
        return gm.forward

    foo = _foo(taimatsu)
    opt = taimatsu.compile(foo, backend=backend)
    x, y = taimatsu.ones(3), taimatsu.zeros(3)
    assert opt(x, y).tolist() == foo(x, y).tolist()
    gm, example_inputs = graphs[0]
    assert isinstance(gm, taimatsu.fx.GraphModule)
    assert example_inputs[0] is x and example_inputs[1] is y
    assert "torch.sin(x)" in gm.code and "torch.cos(y)" in gm.code
    opt(x, y)
    taimatsu.compiler.reset()
    opt(x, y)
    assert len(graphs) == 2
    # a module: the backend sees the module's graph, the wrapper keeps its shape
    lin = taimatsu.nn.Linear(2, 3)
    opt_mod = taimatsu.compile(lin, backend=backend)
    inp = taimatsu.ones(4, 2)
    np.testing.assert_allclose(opt_mod(inp).detach().numpy(), lin(inp).detach().numpy())
    assert len(graphs) == 3 and "linear" in graphs[2][0].code.lower()


def _branchy(T):
    def branchy(x):
        if x.sum() > 0:
            return x + 1
        return x - 1

    return branchy


def test_untraceable_function_runs_eagerly_or_raises_with_fullgraph():
    def never(gm, example_inputs):
        raise AssertionError("not traceable: no graph")

    opt = taimatsu.compile(_branchy(taimatsu), backend=never)
    assert opt(taimatsu.ones(2)).tolist() == [2.0, 2.0]
    assert opt(-taimatsu.ones(2)).tolist() == [-2.0, -2.0]
    T = taimatsu
    with pytest.raises(T._dynamo.exc.Unsupported, match="Data-dependent branching") as info:
        T.compile(_branchy(T), backend=lambda gm, ex: gm.forward, fullgraph=True)(T.ones(2))
    theirs = _in_torch_process(
        """
        def branchy(x):
            if x.sum() > 0:
                return x + 1
            return x - 1
        try:
            T.compile(branchy, backend=lambda gm, ex: gm.forward, fullgraph=True)(T.ones(2))
        except T._dynamo.exc.Unsupported as e:
            print(json.dumps([c.__name__ for c in type(e).__mro__[1:3]] + [
                "Data-dependent branching" in str(e)]))
        """
    )
    assert [c.__name__ for c in type(info.value).__mro__[1:3]] + [True] == theirs


def test_string_backends_and_disable_keep_running_eagerly():
    x = taimatsu.tensor([1.0, 2.0])
    for name in ("eager", "aot_eager", "inductor"):
        assert (
            taimatsu.compile(_foo(taimatsu), backend=name)(x, x).tolist()
            == _foo(taimatsu)(x, x).tolist()
        )
    foo = _foo(taimatsu)
    assert taimatsu.compiler.disable(foo)(x, x).tolist() == foo(x, x).tolist()


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
