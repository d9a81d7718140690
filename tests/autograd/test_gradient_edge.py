"""torch.autograd.graph.get_gradient_edge / GradientEdge against PyTorch: autograd.grad with
edges as inputs and outputs, backward from an edge, allow_unused / materialize_grads, errors."""

import io
from contextlib import redirect_stdout

import taimatsu as tm


def _program(T):
    G = T.autograd.graph

    def tr(f):
        try:
            return f()
        except (RuntimeError, TypeError) as ex:
            return f"{type(ex).__name__}: {ex}"

    x = T.ones(3, requires_grad=True)
    y = x * 2
    z = (y * y).sum()
    e = G.get_gradient_edge(y)
    print(type(e).__name__, type(e.node).__name__, e.output_nr, G.GradientEdge._fields)
    print(T.autograd.grad(z, e, retain_graph=True))
    print(T.autograd.grad(z, (G.get_gradient_edge(x), y), retain_graph=True))
    print(tr(lambda: G.get_gradient_edge(T.ones(2))))
    ex_ = G.get_gradient_edge(x)
    print(type(ex_.node).__name__, ex_.output_nr)
    print(T.autograd.grad(G.get_gradient_edge(y), x, grad_outputs=T.ones(3), retain_graph=True))
    print(tr(lambda: T.autograd.grad(G.get_gradient_edge(y), x, retain_graph=True)))
    print(T.autograd.grad(z, e, retain_graph=True, materialize_grads=True))
    w = T.ones(2, requires_grad=True)
    u = w * 3
    print(
        tr(lambda: T.autograd.grad(z, G.get_gradient_edge(u), allow_unused=True, retain_graph=True))
    )
    print(
        tr(
            lambda: T.autograd.grad(
                z,
                G.get_gradient_edge(u),
                allow_unused=True,
                materialize_grads=True,
                retain_graph=True,
            )
        )
    )
    T.autograd.backward(G.get_gradient_edge(y), T.ones(3))
    print(x.grad)
    print(tr(lambda: T.autograd.grad(z, 3)))
    print(G.GradientEdge(e.node, 0) == e, G.GradientEdge(e.node, 0).ownership_token)


def _output(lib) -> str:
    buf = io.StringIO()
    with redirect_stdout(buf):
        _program(lib)
    return buf.getvalue()


def test_gradient_edges_match_pytorch(torch_oracle):
    assert _output(tm) == _output(torch_oracle)
