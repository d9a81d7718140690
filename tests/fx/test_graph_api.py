"""The Graph/Node editing API against PyTorch: the same edits made on both libraries' traces
give the same graph text, code and results, and the same errors."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from fx_models import build

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def both(fn):
    """``fn(lib, models)`` run with taimatsu and with PyTorch."""
    return fn(taimatsu, build(taimatsu)), fn(torch, build(torch))


def test_replace_add_with_mul_by_editing_nodes():
    def edit(lib, ns):
        gm = lib.fx.symbolic_trace(ns["ResidualConv"]())
        for node in gm.graph.nodes:
            if node.op == "call_function" and node.target == operator.add:
                node.target = operator.mul
            if node.op == "call_function" and node.target == lib.flatten:
                with gm.graph.inserting_after(node):
                    new = gm.graph.call_function(lib.relu, args=(node,))
                    node.replace_all_uses_with(new)
                    new.args = (node,)  # the replacement made new use itself: point it back
        gm.graph.lint()
        gm.recompile()
        return str(gm.graph), gm.code, [(n.name, n.format_node()) for n in gm.graph.nodes]

    ours, theirs = both(edit)
    assert ours == theirs
    assert "add = body_1 * x" in ours[1]


def test_insert_erase_and_dead_code():
    def edit(lib, ns):
        gm = lib.fx.symbolic_trace(ns["functional"])
        g = gm.graph
        nodes = list(g.nodes)
        out = []
        x = nodes[0]
        with g.inserting_before(nodes[1]):
            extra = g.call_function(lib.sigmoid, (x,))
            unused = g.call_method("exp", (extra,))
        out.append(len(g.nodes))
        try:
            g.erase_node(extra)
        except RuntimeError as e:
            out.append(("erase", str(e)))
        out.append(g.eliminate_dead_code())
        out.append(unused._erased if hasattr(unused, "_erased") else None)
        out.append(g.eliminate_dead_code())
        with g.inserting_after(None):
            pass
        with g.inserting_before(None):
            g.placeholder("z")
        out.append(str(g))
        gm.recompile()
        out.append(gm.code)
        return out

    ours, theirs = both(edit)
    assert ours == theirs


def test_node_api():
    def probe(lib, ns):
        gm = lib.fx.symbolic_trace(ns["WithBuffers"]())
        nodes = {n.name: n for n in gm.graph.nodes}
        mul = nodes["mul"]
        out = [
            (mul.op, mul.name, str(mul.target), repr(mul), mul.prev.name, mul.next.name),
            [n.name for n in mul.all_input_nodes],
            sorted(u.name for u in nodes["x"].users),
            dict(nodes["bias"].meta),
            nodes["bias"].args,
        ]
        mul.replace_input_with(nodes["scale"], nodes["x"])
        out.append(mul.format_node())
        out.append(len(nodes["scale"].users))
        nodes["add"].update_arg(1, 5.0)
        nodes["sum_1"].update_kwarg("keepdim", False)
        out.append((str(nodes["add"].args), str(nodes["sum_1"].kwargs)))
        nodes["view"].prepend(nodes["offset"])
        nodes["x"].append(nodes["inner_weight"])
        out.append([n.name for n in gm.graph.nodes])
        try:
            mul.args[0] = None
        except TypeError as e:
            out.append(str(e))
        try:
            list(gm.graph.nodes)[-1].kwargs["k"] = 1
        except TypeError as e:
            out.append(str(e))
        return out

    ours, theirs = both(probe)
    assert ours == theirs


def test_build_a_graph_by_hand():
    def make(lib, _):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        w = g.get_attr("w")
        mm = g.call_function(operator.matmul, (x, w))
        s = g.call_method("sum", (mm,), {"dim": 0})
        r = g.call_function(lib.relu, (s,), name="relu_out")
        g.output((r, s))
        root = lib.nn.Module()
        root.register_buffer("w", lib.ones(2, 2))
        gm = lib.fx.GraphModule(root, g)
        gm2 = lib.fx.GraphModule({"w": lib.full((2, 2), 2.0)}, g, class_name="FromDict")
        res = gm(lib.tensor([[1.0, -3.0]]))
        return str(g), gm.code, str(gm2), [t.tolist() for t in res], type(gm2).__name__

    assert both(make)[0] == both(make)[1]


def test_graph_errors():
    def probe(lib, ns):
        out = []
        gm = lib.fx.symbolic_trace(ns["MLP"]())
        g = gm.graph
        nodes = list(g.nodes)
        for bad in (
            lambda: g.erase_node(nodes[1]),
            lambda: lib.fx.Graph().erase_node(nodes[-1]),
            lambda: lib.fx.GraphModule({}, g),
            lambda: lib.fx.GraphModule(3, g),
        ):
            try:
                bad()
                out.append("ok")
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        nodes[2].args = (nodes[4],)  # relu now uses fc2 before fc2 runs
        try:
            g.lint()
        except RuntimeError as e:
            out.append(str(e).split("\n")[0])
        return out

    ours, theirs = both(probe)
    assert ours == theirs


def test_print_tabular_needs_tabulate(capsys):
    try:
        import tabulate  # noqa: F401

        pytest.skip("tabulate is installed")
    except ImportError:
        pass
    gm = taimatsu.fx.symbolic_trace(lambda x: x + 1)
    with pytest.raises(ModuleNotFoundError, match="No module named 'tabulate'"):
        gm.graph.print_tabular()
    printed = capsys.readouterr().out
    theirs = torch.fx.symbolic_trace(lambda x: x + 1)
    with pytest.raises(ModuleNotFoundError):
        theirs.graph.print_tabular()
    assert printed == capsys.readouterr().out


def test_print_readable_and_deepcopy():
    import copy

    def probe(lib, ns):
        gm = lib.fx.symbolic_trace(ns["WithBuffers"]())
        dup = copy.deepcopy(gm)
        x = lib.ones(2, 3)
        same = np.allclose(dup(x)["out"].detach().numpy(), gm(x)["out"].detach().numpy())
        return gm.print_readable(print_output=False), dup.code == gm.code, same, type(dup).__name__

    ours, theirs = both(probe)
    assert ours == theirs
