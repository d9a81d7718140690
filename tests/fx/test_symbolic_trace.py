"""torch.fx.symbolic_trace against PyTorch: the same models traced by both give the same
graph text, generated code, ``print(gm)``, node list and outputs; tracing errors match."""

from __future__ import annotations

import math
from math import sqrt

import numpy as np
import pytest
from fx_models import build, copy_weights

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

MODULES = [
    "MLP",
    "ResidualConv",
    "WithBuffers",
    "Methods",
    "Mixed",
    "VarArgs",
    "GPTBlock",
    "Held",
    "ResNetLike",
]


@pytest.fixture(scope="module")
def models():
    return build(taimatsu), build(torch)


def nodes_summary(gm) -> list:
    return [
        (
            n.op,
            n.name,
            n.format_node(),
            [u.name for u in n.users],
            [a.name for a in n.all_input_nodes],
        )
        for n in gm.graph.nodes
    ]


@pytest.mark.parametrize("name", [*MODULES, "functional"])
def test_graph_code_and_printing_match(models, name):
    ours, theirs = (
        lib.fx.symbolic_trace(ns[name]() if name != "functional" else ns[name])
        for lib, ns in zip((taimatsu, torch), models)
    )
    assert str(ours.graph) == str(theirs.graph)
    assert ours.code == theirs.code
    assert str(ours) == str(theirs)
    assert repr(ours) == repr(theirs)
    assert nodes_summary(ours) == nodes_summary(theirs)
    assert type(ours).__name__ == type(theirs).__name__
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]


def to_np(x):
    return x.detach().numpy()


@pytest.mark.parametrize("name", ["MLP", "ResidualConv", "WithBuffers", "ResNetLike"])
def test_traced_module_computes_like_pytorch(models, name):
    ours_ns, theirs_ns = models
    t_model = theirs_ns[name]().eval()
    o_model = ours_ns[name]().eval()
    copy_weights(t_model, o_model, taimatsu.from_numpy)
    shape = {
        "MLP": (2, 4),
        "ResidualConv": (2, 2, 4, 4),
        "WithBuffers": (2, 3),
        "ResNetLike": (1, 3, 8, 8),
    }[name]
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ours = taimatsu.fx.symbolic_trace(o_model)(taimatsu.from_numpy(x))
    theirs = torch.fx.symbolic_trace(t_model)(torch.from_numpy(x))
    if isinstance(theirs, dict):
        np.testing.assert_allclose(to_np(ours["out"]), to_np(theirs["out"]), rtol=1e-5, atol=1e-6)
        for a, b in zip(ours["parts"], theirs["parts"]):
            np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-5, atol=1e-6)
        assert ours["rows"] == theirs["rows"] == 2
    else:
        np.testing.assert_allclose(to_np(ours), to_np(theirs), rtol=1e-5, atol=1e-6)
    # and the traced module equals the eager one
    np.testing.assert_allclose(
        to_np(
            taimatsu.fx.symbolic_trace(o_model)(taimatsu.from_numpy(x))["out"]
            if name == "WithBuffers"
            else ours
        ),
        to_np(
            o_model(taimatsu.from_numpy(x))["out"]
            if name == "WithBuffers"
            else o_model(taimatsu.from_numpy(x))
        ),
    )


def test_traced_gradients_flow(models):
    ours_ns, _ = models
    model = ours_ns["MLP"]()
    gm = taimatsu.fx.symbolic_trace(model)
    x = taimatsu.randn(3, 4)
    gm(x).sum().backward()
    assert gm.fc1.weight is model.fc1.weight  # parameters are shared, not copied
    assert model.fc1.weight.grad is not None


def outcome(lib, fn, **kwargs):
    try:
        lib.fx.symbolic_trace(fn, **kwargs)
    except Exception as e:  # noqa: BLE001  (the exception is what is compared)
        return type(e).__name__, str(e)
    return "ok", None


ERRORS = {
    "if": lambda x: 1 if x.sum() > 0 else 2,
    "len": lambda x: len(x),
    "iter": lambda x: [a for a in x],
    "int": lambda x: int(x),
    "and": lambda x: x.shape[0] > 2 and x,
    "while": lambda x: [x for _ in range(3) if x],
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_control_flow_errors_match(case):
    assert outcome(taimatsu, ERRORS[case]) == outcome(torch, ERRORS[case])


def test_unpacking_a_proxy_records_getitems():
    def f(x):
        a, b = x
        return a + b

    assert taimatsu.fx.symbolic_trace(f).code == torch.fx.symbolic_trace(f).code


@pytest.mark.parametrize("value", [True, 3, None])
def test_concrete_args(value):
    def f(x, flag):
        return x * 2 if flag else x

    ours = taimatsu.fx.symbolic_trace(f, concrete_args={"flag": value})
    theirs = torch.fx.symbolic_trace(f, concrete_args={"flag": value})
    assert str(ours.graph) == str(theirs.graph)
    assert ours.code == theirs.code
    out = ours(taimatsu.ones(2), value)
    assert out.tolist() == theirs(torch.ones(2), value).tolist()


def test_custom_tracer_leaf_modules(models):
    results = []
    for lib, ns in zip((taimatsu, torch), models):

        class NoLeaves(lib.fx.Tracer):
            def is_leaf_module(self, m, qualname):
                return False

        graph = NoLeaves().trace(ns["MLP"]())
        results.append(str(graph))
    # Linear and Dropout are traced through to their functionals
    assert "call_module" not in results[0]
    assert results[0].replace("torch._C._nn.linear", "LINEAR") == results[1].replace(
        "torch._C._nn.linear", "LINEAR"
    )


def test_proxy_repr_and_tensor_constants():
    def f(x):
        c = taimatsu.ones(2) if isinstance(x, taimatsu.fx.Proxy) else None
        return x + c, c * x, repr(x)

    gm = taimatsu.fx.symbolic_trace(f)
    assert gm.code.splitlines()[4:8] == [
        "    _tensor_constant0 = self._tensor_constant0",
        "    add = x + _tensor_constant0;  _tensor_constant0 = None",
        "    _tensor_constant0_1 = self._tensor_constant0",
        "    mul = _tensor_constant0_1.mul(x);  _tensor_constant0_1 = x = None",
    ]
    assert gm(taimatsu.tensor([1.0, 2.0]))[2] == "Proxy(x)"


def test_functions_are_restored_after_a_failed_trace():
    relu, add = taimatsu.relu, taimatsu.Tensor.__add__
    with pytest.raises(taimatsu.fx.proxy.TraceError):
        taimatsu.fx.symbolic_trace(lambda x: taimatsu.relu(x) if x else x)
    assert taimatsu.relu is relu
    assert taimatsu.Tensor.__add__ is add
    assert (
        "__call__" not in vars(taimatsu.nn.Module)
        or taimatsu.nn.Module.__call__.__name__ == "__call__"
    )


def test_sequential_root_and_mixed_module_run(models):
    outs = []
    for lib, ns in zip((taimatsu, torch), models):
        seq = lib.fx.symbolic_trace(lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.ReLU()))
        mixed = lib.fx.symbolic_trace(ns["Mixed"]())
        x = lib.ones(2, 3)
        res = mixed(x, x > 0)
        var = lib.fx.symbolic_trace(ns["VarArgs"]())
        outs.append(
            (
                str(seq),
                [
                    tuple(t.shape) if hasattr(t, "shape") else t
                    for t in res
                    if not isinstance(t, tuple)
                ],
                res[1][0].dtype == lib.float64,
                var(lib.ones(2), lib.ones(2), 5, k=lib.ones(2)).tolist(),
            )
        )
    assert outs[0] == outs[1]


def test_traced_through_leaves_run(models):
    """A tracer with no leaf modules records torch._C._nn.linear; the code still runs."""
    results = []
    for lib, ns in zip((taimatsu, torch), models):

        class NoLeaves(lib.fx.Tracer):
            def is_leaf_module(self, m, qualname):
                return False

        model = ns["Mixed"]()
        gm = lib.fx.GraphModule(model, NoLeaves().trace(model))
        x = lib.ones(2, 3)
        results.append((gm.code, tuple(gm(x, x > 0)[0].shape)))
    assert results[0] == results[1]
    assert "torch._C._nn.linear" in results[0][0]


def test_param_shapes_constant():
    def trace(lib):
        class P(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.ones(2, 3))

            def forward(self, x):
                return (
                    x.view(self.w.shape[0], -1) + self.w.size()[1] + self.w.dim() + self.w.numel()
                )

        return str(lib.fx.Tracer(param_shapes_constant=True).trace(P()))

    assert trace(taimatsu) == trace(torch)


def annotated_and_nested(lib):
    def f(x: lib.Tensor, n: int = 2) -> lib.Tensor:
        lib._assert(x.dim() == 2, "need 2d")
        lib.relu(x)
        return x * n

    g = lib.fx.symbolic_trace(f)
    out = [str(g.graph), g.code, g.graph.eliminate_dead_code()]
    g.recompile()
    out += [g.code, g(lib.ones(2, 2)).tolist()]
    try:
        g(lib.ones(2))
    except AssertionError as e:
        out.append(str(e))

    class Outer(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = lib.fx.symbolic_trace(lib.nn.Sequential(lib.nn.Linear(2, 2)))

        def forward(self, x):
            return self.inner(x).relu()

    class Leafy(lib.fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return True

    outer = lib.fx.symbolic_trace(Outer())
    gm = lib.fx.GraphModule(Outer(), Leafy().trace(Outer()))
    out += [
        str(outer),
        gm.print_readable(print_output=False),
        [n.name for n in reversed(gm.graph.nodes)],
    ]
    return out


def test_annotations_dead_code_and_nested_graph_modules():
    assert annotated_and_nested(taimatsu) == annotated_and_nested(torch)


def nested_trace(lib):
    codes = []

    class Inner(lib.nn.Module):
        def forward(self, x):
            codes.append(
                lib.fx.symbolic_trace(lambda y: lib.relu(y) + 1).code
            )  # a trace in a trace
            return lib.sigmoid(x) * 2

    class Outer(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def forward(self, x):
            return self.inner(x)

    codes.append(lib.fx.symbolic_trace(Outer()).code)
    return codes


def test_trace_inside_a_trace():
    assert nested_trace(taimatsu) == nested_trace(torch)


def test_traces_from_threads_restore_the_functions():
    import threading

    relu = taimatsu.relu
    codes = []

    def work():
        for _ in range(4):
            codes.append(taimatsu.fx.symbolic_trace(lambda x: taimatsu.relu(x) + x.sum()).code)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(codes) == 12
    assert set(codes) == {torch.fx.symbolic_trace(lambda x: torch.relu(x) + x.sum()).code}
    assert taimatsu.relu is relu


def autowrapped(lib):
    def f(x):
        return x / sqrt(x.size(1)) + math.sqrt(x.size(0))

    def myf(x):
        return x + 1

    def h(x):
        return myf(x) * 2

    g = lib.fx.symbolic_trace(f)
    custom = lib.fx.Tracer(autowrap_functions=(myf,)).trace(h)
    return g.code, g(lib.ones(4, 4)).tolist(), str(custom).replace("test_symbolic_trace.", "")


def test_math_functions_and_autowrap_functions_are_recorded():
    assert autowrapped(taimatsu) == autowrapped(torch)


def test_gpt_block_runs_like_pytorch(models):
    ours_ns, theirs_ns = models
    t_model, o_model = theirs_ns["GPTBlock"]().eval(), ours_ns["GPTBlock"]().eval()
    copy_weights(t_model, o_model, taimatsu.from_numpy)
    idx = np.array([[1, 2, 3, 4]])
    x = np.random.default_rng(2).standard_normal((1, 4, 8)).astype(np.float32)
    ours = taimatsu.fx.symbolic_trace(o_model)(taimatsu.from_numpy(idx), taimatsu.from_numpy(x))
    theirs = torch.fx.symbolic_trace(t_model)(torch.from_numpy(idx), torch.from_numpy(x))
    np.testing.assert_allclose(to_np(ours), to_np(theirs), rtol=1e-4, atol=1e-5)


INDEXES = {
    "proxy": lambda b: lambda x: b[x],
    "tuple": lambda b: lambda x: b[x, 0],
    "slice_then_proxy": lambda b: lambda x: b[:, x],
    "list": lambda b: lambda x: b[[x]],
    "nested_list": lambda b: lambda x: b[0, [x]],
    "proxy_in_slice": lambda b: lambda x: b[: x.size(0)],
}


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")
@pytest.mark.parametrize("case", list(INDEXES))
def test_tensor_indexed_by_a_proxy(case):
    results = []
    for lib in (taimatsu, torch):
        try:
            results.append(lib.fx.symbolic_trace(INDEXES[case](lib.ones(3, 3))).code)
        except TypeError:
            results.append("TypeError")
    assert results[0] == results[1]


def retraced(lib, ns):
    out = []
    for name in ["Mixed", "GPTBlock", "WithBuffers"]:
        gm = lib.fx.symbolic_trace(ns[name]())
        again = lib.fx.symbolic_trace(gm)
        out.append((again.code == gm.code, str(again.graph) == str(gm.graph)))

    class NoLeaves(lib.fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return False

    model = ns["Mixed"]()
    gm = lib.fx.GraphModule(model, NoLeaves().trace(model))
    out.append(lib.fx.symbolic_trace(gm).code)
    return out


def test_tracing_a_graph_module_again(models):
    ours, theirs = (retraced(lib, ns) for lib, ns in zip((taimatsu, torch), models))
    assert ours == theirs
    assert ours[:3] == [(True, True)] * 3


def tensor_methods_given_proxies(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("b", lib.ones(3))

        def forward(self, x):
            m = self.b.to(x.device)
            e = self.b.expand_as(x)
            k = self.b.mul(x)
            c = lib.ones(3).new_zeros(x.size())
            u = self.b.unflatten(0, (x.size(0), -1))
            return m, e, k, c, u

    gm = lib.fx.symbolic_trace(M())
    out = gm(lib.ones(3, 3))
    return str(gm.graph), gm.code, [t.tolist() for t in out]


def test_real_tensor_methods_given_proxies():
    assert tensor_methods_given_proxies(taimatsu) == tensor_methods_given_proxies(torch)


def compare_functions_during_trace(lib):
    class Act(lib.nn.Module):
        def __init__(self, act):
            super().__init__()
            self.act = act

        def forward(self, x):
            if self.act == lib.nn.functional.relu:  # read before the trace, compared during it
                return x.clamp(min=0)
            return {lib.sigmoid: "sigmoid"}.get(self.act, "other"), self.act(x)

    return [lib.fx.symbolic_trace(Act(f)).code for f in (lib.nn.functional.relu, lib.sigmoid)]


def test_functions_compare_equal_during_a_trace():
    assert compare_functions_during_trace(taimatsu) == compare_functions_during_trace(torch)


EDGE_CASES = {
    "returns_none": lambda lib: lambda x: None,
    "returns_constants": lambda lib: lambda x: [1, "a", None],
    "dtype_and_device": lambda lib: lambda x: (x, lib.float16, lib.device("cpu")),
    "dtype_kwarg": lambda lib: lambda x: x.to(dtype=lib.int64),
    "nan_constant": lambda lib: lambda x: lib.full((2,), float("nan")) + x,
    "tuple_dim": lambda lib: lambda x: x.sum(dim=(0, 1)),
    "dict_output": lambda lib: lambda x: {"k": x, 1: x + 1},
    "ellipsis_index": lambda lib: lambda x: x[..., None],
    "abs": lambda lib: lambda x: abs(x),
    "negative_power": lambda lib: lambda x: x**-1,
    "unbind": lambda lib: lambda x: lib.stack([x, x]).unbind(0),
    "wrapped_function_name": lambda lib: lambda x: lib.zeros_like(x, dtype=lib.bool),
}


@pytest.mark.parametrize("case", list(EDGE_CASES))
def test_edge_cases(case):
    results = []
    for lib in (taimatsu, torch):
        gm = lib.fx.symbolic_trace(EDGE_CASES[case](lib))
        out = gm(lib.ones(2, 2))
        results.append((str(gm.graph), gm.code, type(out).__name__))
    assert results[0] == results[1]


def aliases(lib):
    def f(x):
        parts = [
            lib.concat([x, x]) + lib.cat([x, x]),
            lib.absolute(x),
            lib.layer_norm(x, (2,)),
            lib.nn.functional.layer_norm(x, (2,)),
            lib.linalg.matrix_exp(x),
            lib.arccos(x),
        ]
        return [p.sum() for p in parts]

    import copy
    import pickle

    g = lib.fx.symbolic_trace(f)
    values = [float(v) for v in g(lib.ones(2, 2) / 2)]
    return str(g.graph), g.code, copy.deepcopy(g).code, pickle.loads(pickle.dumps(g)).code, values


def test_functions_under_several_names_print_as_called():
    ours, theirs = aliases(taimatsu), aliases(torch)
    assert ours[:4] == theirs[:4]
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-5)
