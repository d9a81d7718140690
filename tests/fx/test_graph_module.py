"""GraphModule beyond tracing: submodule management against PyTorch, pickling round trips,
and Proxies used outside a trace failing instead of recording a wrong graph."""

from __future__ import annotations

import io
import pickle
import warnings

import pytest
from fx_models import build

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def test_submodule_management_matches():
    def probe(lib):
        gm = lib.fx.symbolic_trace(build(lib)["ResidualConv"]())
        out = [gm.add_submodule("extra.deep", lib.nn.ReLU()), gm.delete_submodule("nope")]
        out.append(gm.delete_submodule("head.weight"))
        out.append([n for n, _ in gm.named_modules()])
        gm.delete_all_unused_submodules()
        out.append([n for n, _ in gm.named_modules()])
        node = next(n for n in gm.graph.nodes if n.target == "head")
        try:
            gm.graph.call_module("act.inner", (node,))
        except AttributeError as e:
            out.append(str(e))
        out.append(gm.add_submodule("act.inner", lib.nn.Tanh()))
        with gm.graph.inserting_after(node):
            act = gm.graph.call_module("act.inner", (node,))
        node.replace_all_uses_with(act)
        act.args = (node,)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with gm.graph.inserting_before(node):
                gm.graph.get_attr("act.missing")
                gm.graph.get_attr("head.weight")
        out.append([str(w.message) for w in caught])
        gm.recompile()
        out.append(gm.code)
        out.append(str(gm))
        return out

    assert probe(taimatsu) == probe(torch)


@pytest.mark.parametrize("name", ["MLP", "ResidualConv"])
def test_pickle_round_trip(name):
    gm = taimatsu.fx.symbolic_trace(build(taimatsu)[name]().eval())
    x = taimatsu.randn(2, 2, 4, 4) if name == "ResidualConv" else taimatsu.randn(2, 4)
    buf = io.BytesIO()
    taimatsu.save(gm, buf)
    buf.seek(0)
    for again in (taimatsu.load(buf, weights_only=False), pickle.loads(pickle.dumps(gm))):
        assert type(again).__name__ == name
        assert again.code == gm.code
        assert str(again.graph) == str(gm.graph)
        assert list(again.state_dict()) == list(gm.state_dict())
        assert taimatsu.equal(again(x), gm(x))


def test_torch_function_on_a_proxy_outside_a_trace_fails_cleanly():
    graph = taimatsu.fx.Graph()
    tracer = taimatsu.fx.proxy.GraphAppendingTracer(graph)
    x = taimatsu.fx.Proxy(graph.placeholder("x"), tracer)
    y = (x > 0) * x  # operators and methods record outside a trace too
    z = y.sqrt()
    for call in (taimatsu.relu, taimatsu.nn.functional.gelu, lambda p: taimatsu.cat([p, p])):
        with pytest.raises((AttributeError, TypeError)):
            call(x)
    graph.output(z.node)
    assert [n.name for n in graph.nodes] == ["x", "gt", "mul", "sqrt", "output"]
    theirs = torch.fx.Graph()
    tp = torch.fx.Proxy(theirs.placeholder("x"), torch.fx.proxy.GraphAppendingTracer(theirs))
    theirs.output(((tp > 0) * tp).sqrt().node)
    assert str(graph) == str(theirs)


def test_meta_is_kept_by_copies():
    import copy

    def probe(lib):
        gm = lib.fx.symbolic_trace(lib.nn.Sequential(lib.nn.ReLU()))
        gm.meta["k"] = [1]
        return gm.meta, copy.copy(gm).meta, copy.deepcopy(gm).meta

    assert probe(taimatsu) == probe(torch)
