"""graph_view: the DOT graph of known programs has exactly PyTorch's node names and edges.

Each program runs with taimatsu and with PyTorch; PyTorch's graph is walked through
``grad_fn.next_functions`` in the same order graph_view walks it, and the DOT text must name
the same nodes (``type(node).__name__``) in the same order and hold the same edges.
"""

import re
import shutil

import numpy as np
import pytest

import taimatsu
from taimatsu.autograd.graph_view import graph_view


def _walk(root):
    """PyTorch's graph (or taimatsu's), walked as graph_view walks it: names and edges."""
    order, seen, stack = [], {}, [root]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen[n] = len(order)
        order.append(n)
        stack.extend(nxt for nxt, _ in reversed(n.next_functions) if nxt is not None)
    edges = set()
    none_edges = 0
    for n in order:
        for nxt, _ in n.next_functions:
            if nxt is None:
                none_edges += 1
            else:
                edges.add((seen[nxt], seen[n]))
    return [type(n).__name__ for n in order], edges, none_edges


def _parse_dot(dot):
    names = {}
    for m in re.finditer(r'^  n(\d+) \[label="([^"\\]+)', dot, re.MULTILINE):
        names[int(m.group(1))] = m.group(2)
    edges = {(int(a), int(b)) for a, b in re.findall(r"^  n(\d+) -> n(\d+)", dot, re.MULTILINE)}
    none_edges = len(re.findall(r"^  none\d+ -> ", dot, re.MULTILINE))
    return [names[i] for i in sorted(names)], edges, none_edges


def _mlp(lib, x, w1, b1, w2):
    h = lib.nn.functional.linear(x, w1, b1).relu()
    return (h @ w2).sum()


def _inplace_view(lib, x, w1, b1, w2):
    a = (x @ w1.t()).clone()
    a[:, 0] = b1[0] * 2  # in-place write into a view: CopySlices
    a.mul_(3)
    return a.exp().mean()


def _detached_and_multi(lib, x, w1, b1, w2):
    h = x @ w1.t() + b1.detach()
    p, q = h.unbind(1)[:2]
    return (p * q + lib.sigmoid(h).sum(1)).pow(2).sum() + w2.sum()


def _broadcast_and_reductions(lib, x, w1, b1, w2):
    y = (x.unsqueeze(1) - w1).abs().max(dim=-1).values
    return lib.where(y > 0.5, y, y * y).logsumexp(0).sum() + b1.norm()


PROGRAMS = [_mlp, _inplace_view, _detached_and_multi, _broadcast_and_reductions]


def _inputs(lib):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((5, 3)), dtype=lib.float32)
    w1 = lib.tensor(rng.standard_normal((4, 3)), dtype=lib.float32, requires_grad=True)
    b1 = lib.tensor(rng.standard_normal(4), dtype=lib.float32, requires_grad=True)
    w2 = lib.tensor(rng.standard_normal((4, 2)), dtype=lib.float32, requires_grad=True)
    return x, w1, b1, w2


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_dot_matches_pytorch_graph(torch_oracle, program):
    ours = program(taimatsu, *_inputs(taimatsu))
    theirs = program(torch_oracle, *_inputs(torch_oracle))
    expected = _walk(theirs.grad_fn)
    assert _parse_dot(graph_view(ours).dot) == expected
    assert _walk(ours.grad_fn) == expected


def test_leaf_names_shapes_saved_versions_and_hooks():
    x, w1, b1, _ = _inputs(taimatsu)
    y = (x @ w1.t()) * b1
    y.register_hook(lambda g: g)
    view = graph_view(y, params={"fc.weight": w1, "fc.bias": b1})
    text = str(view)
    assert "AccumulateGrad" in text and "fc.weight (4, 3) float32" in text
    assert "fc.bias (4) float32" in text
    assert "hooks: 1" in text
    assert "saved (5, 4) float32 v0" in text  # MulBackward0 saved x @ w1.t()
    b1.data.zero_()  # .data does not bump b1's version
    with taimatsu.no_grad():
        b1.add_(1)  # this does: MulBackward0's saved b1 is now stale
    assert "MODIFIED in place (now v1)" in str(graph_view(y))
    z = x.exp() * w1[0]
    z.sum().backward()
    assert "saved tensors freed" in str(graph_view(z))


def test_module_names_and_views_highlighted():
    taimatsu.manual_seed(0)
    model = taimatsu.nn.Sequential(taimatsu.nn.Linear(3, 4), taimatsu.nn.Linear(4, 2))
    out = model(taimatsu.randn(2, 3)).t()
    dot = graph_view(out, params=model).dot
    assert "0.weight (4, 3) float32" in dot and "1.bias (2) float32" in dot
    assert re.search(r'TBackward0\\nview", fillcolor="#dff4ff"', dot)


def test_no_graph_and_bad_input():
    t = taimatsu.ones(2)
    assert "no grad_fn" in str(graph_view(t))
    with pytest.raises(TypeError, match="expects Tensors"):
        graph_view([1, 2])


def test_collapse_repeated_blocks():
    taimatsu.manual_seed(0)
    blocks = taimatsu.nn.ModuleList([taimatsu.nn.Linear(4, 4) for _ in range(6)])
    h = taimatsu.randn(2, 4)
    for blk in blocks:
        h = (blk(h).tanh() + h) * 0.5
    full = graph_view(h, params=blocks.named_parameters(prefix="blocks"), collapse=False)
    small = graph_view(h, params=dict(blocks.named_parameters(prefix="blocks")), collapse=True)
    assert sorted(small.blocks) == [f"blocks.{k}" for k in range(1, 5)]
    assert "blocks.3 (" in small.dot and "blocks.0.weight" in small.dot
    assert "blocks.5.weight" in small.dot and "blocks.3.weight" not in small.dot
    assert small.dot.count(" -> ") < full.dot.count(" -> ")


def test_render_files(tmp_path):
    x, w1, b1, w2 = _inputs(taimatsu)
    view = graph_view(_mlp(taimatsu, x, w1, b1, w2))
    assert view.render(tmp_path / "g.dot").read_text() == view.dot
    assert "ReluBackward0" in view.render(tmp_path / "g.txt").read_text()
    if shutil.which("dot") is None:
        with pytest.raises(RuntimeError, match="Graphviz"):
            view.render(tmp_path / "g.svg")
        assert view._repr_svg_() is None
        return
    svg = view.render(tmp_path / "g.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "ReluBackward0" in svg
    assert view.render(tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in view._repr_svg_()
