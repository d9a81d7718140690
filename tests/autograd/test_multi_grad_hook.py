"""torch.autograd.graph.register_multi_grad_hook against PyTorch: "all" (the list of the
gradients a backward pass computes, None for tensors it does not reach) and "any" (the first,
once per pass), removal, the order beside tensor hooks, autograd.grad, errors."""

import io
from contextlib import redirect_stdout

import taimatsu as tm


def _program(T):
    T.manual_seed(0)
    G = T.autograd.graph
    a, b = T.rand(2, 3, requires_grad=True), T.rand(2, 3, requires_grad=True)
    c, d = a * b, a * b

    def show(grads):
        print(type(grads).__name__, [g is not None for g in grads])

    h = G.register_multi_grad_hook((a, b, c, d), show)
    print(type(h).__name__)
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    (c.sum() + d.sum()).backward(retain_graph=True)
    h.remove()
    c.sum().backward(retain_graph=True)
    print("removed")
    h2 = G.register_multi_grad_hook(
        (a, b), lambda g: print("any", type(g).__name__, tuple(g.shape)), mode="any"
    )
    c.sum().backward(retain_graph=True)
    c.sum().backward(retain_graph=True)
    h2.remove()
    for bad in [lambda: G.register_multi_grad_hook((a,), show, mode="some"),
                lambda: G.register_multi_grad_hook((a, T.ones(2)), show)]:  # fmt: skip
        try:
            bad()
        except (ValueError, AssertionError) as e:
            print(type(e).__name__, e)
    x = T.ones(2, requires_grad=True)
    y = x * 3
    order = []
    x.register_hook(lambda g: order.append("tensor hook x"))
    G.register_multi_grad_hook((x, y), lambda g: order.append("multi"))
    y.register_hook(lambda g: order.append("tensor hook y"))
    y.sum().backward()
    print(order)
    p = T.ones(2, requires_grad=True)
    q = p * 2
    G.register_multi_grad_hook((q,), lambda g: print("q", g[0]))
    T.autograd.grad(q.sum(), q)
    with G.register_multi_grad_hook((p,), lambda g: print("with", g[0])):
        (p * 5).sum().backward()
    (p * 5).sum().backward()
    print(p.grad)


def _output(lib) -> str:
    buf = io.StringIO()
    with redirect_stdout(buf):
        _program(lib)
    return buf.getvalue()


def test_multi_grad_hook_matches_pytorch(torch_oracle):
    assert _output(tm) == _output(torch_oracle)
