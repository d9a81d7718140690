"""Custom ``torch.autograd.Function`` against PyTorch (snippets; see tests/autograd/autograd_oracle.py)."""

import numpy as np
import pytest
from autograd_oracle import assert_same

import taimatsu

torch = pytest.importorskip("torch")

SNIPPETS = {
    "fn_basic": """
class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y
    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y
x = torch.tensor([0., 1., 2.], requires_grad=True)
y = MyExp.apply(x)
print(y, y.grad_fn.name(), type(y.grad_fn).__name__, y.grad_fn.next_functions, y.is_leaf)
y.sum().backward(); print(x.grad)
try: y.sum().backward()
except RuntimeError as e: print(e)
try: y.grad_fn.saved_tensors
except RuntimeError as e: print(e)
with torch.no_grad(): z = MyExp.apply(x)
print(z.requires_grad, z.grad_fn)
print(MyExp.apply(torch.ones(2)).requires_grad)
""",
    "fn_needs_input_grad": """
class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, k):
        print("needs", ctx.needs_input_grad)
        ctx.save_for_backward(a, b)
        ctx.k = k
        return a * b * k
    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        print("bw needs", ctx.needs_input_grad)
        return (g * b * ctx.k if ctx.needs_input_grad[0] else None,
                g * a * ctx.k if ctx.needs_input_grad[1] else None, None)
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.])
out = Mul.apply(a, b, 2.0)
out.sum().backward(); print(a.grad, b.grad)
b.requires_grad_()
out = Mul.apply(a, b, 3)
gg = torch.autograd.grad(out.sum(), [a, b]); print(gg)
""",
    "fn_multi_out": """
class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3, 5
    @staticmethod
    def backward(ctx, g1, g2, g3):
        print(g1, g2, g3)
        return g1 * 2 + g2 * 3
x = torch.tensor([1., 2.], requires_grad=True)
a, b, c = Split.apply(x)
print(a.grad_fn is b.grad_fn, c, a.grad_fn.name())
a.sum().backward(); print(x.grad)
""",
    "fn_materialize": """
class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3
    @staticmethod
    def backward(ctx, g1, g2):
        print(g1, g2)
        return g1 * 2 if g1 is not None else None
x = torch.tensor([1., 2.], requires_grad=True)
a, b = Split.apply(x)
a.sum().backward(); print(x.grad)
""",
    "fn_dirty": """
class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g): return g * 2
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 1
c = AddOne.apply(b)
print(c is b, c, b, b._version)
c.sum().backward(); print(a.grad)
try: AddOne.apply(a)
except RuntimeError as e: print(e)
""",
    "fn_return_input": """
class Id(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x
    @staticmethod
    def backward(ctx, g): return g * 3
a = torch.tensor([1., 2.], requires_grad=True)
b = Id.apply(a)
print(b is a, b.grad_fn.name(), b.data_ptr() == a.data_ptr())
b.sum().backward(); print(a.grad)
""",
    "fn_once_diff": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2
    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        print(torch.is_grad_enabled())
        return 2 * x * g
x = torch.tensor([1., 2.], requires_grad=True)
y = F.apply(x).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
print(g, g.requires_grad)
try: g.sum().backward()
except RuntimeError as e: print(e)
""",
    "fn_double": """
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * g
x = torch.tensor([1., 2.], requires_grad=True)
g, = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
print(g)
h, = torch.autograd.grad(g.sum(), x); print(h)
""",
    "fn_setup_context": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(x, k):
        return x * k
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, k = inputs
        ctx.k = k
        ctx.save_for_backward(x)
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * ctx.k, None
x = torch.tensor([1., 2.], requires_grad=True)
y = F.apply(x, 3.0)
print(y, y.grad_fn.name())
y.sum().backward(); print(x.grad)
""",
    "fn_errors": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x * 2
    @staticmethod
    def backward(ctx, g): return g, g
x = torch.tensor([1., 2.], requires_grad=True)
try: F.apply(x).sum().backward()
except RuntimeError as e: print(e)
class G(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x * 2
try: G.apply(x).sum().backward()
except NotImplementedError as e: print(e)
class H(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y): return x * 2
    @staticmethod
    def backward(ctx, g): return g
try: H.apply(x, torch.ones(2, requires_grad=True)).sum().backward()
except RuntimeError as e: print(e)
try: H.apply(x, 1).sum().backward(); print(x.grad)
except RuntimeError as e: print(e)
class K(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x * 2
    @staticmethod
    def backward(ctx, g): return g, None, None
x.grad = None
K.apply(x).sum().backward(); print(x.grad)
try: F()(x)
except RuntimeError as e: print(e)
""",
    "fn_kwargs_nontensor": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale=2.0, names=None):
        ctx.scale = scale
        return x * scale
    @staticmethod
    def backward(ctx, g): return g * ctx.scale, None, None
x = torch.tensor([1., 2.], requires_grad=True)
y = F.apply(x, 5.0, ["a"]); y.sum().backward(); print(x.grad)
""",
    "fn_save_intermediate_input_modified": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 1
y = F.apply(b)
b.add_(1)
try: y.sum().backward()
except RuntimeError as e: print(e)
""",
}

SNIPPETS["fn_non_diff"] = """
class Max(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        i = x.argmax()
        ctx.mark_non_differentiable(i)
        ctx.save_for_backward(i)
        return x.max(), i
    @staticmethod
    def backward(ctx, gv, gi):
        i, = ctx.saved_tensors
        print("gi", gi)
        r = torch.zeros(3)
        r[i] = gv
        return r
x = torch.tensor([3., 1., 2.], requires_grad=True)
v, i = Max.apply(x)
print(v, i, i.requires_grad, i.grad_fn)
(v * 3).backward(); print(x.grad)
class ND(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        ctx.mark_non_differentiable(y)
        return y
    @staticmethod
    def backward(ctx, g): return g
y = ND.apply(x)
print(y.requires_grad, y.grad_fn)
"""
SNIPPETS["fn_kwargs_bind"] = """
class G(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, s=2.0):
        print(ctx.needs_input_grad)
        return x * s
    @staticmethod
    def backward(ctx, g): return g
x = torch.tensor([1., 2.], requires_grad=True)
G.apply(x).sum().backward(); print(x.grad)
try: G.apply(x, s=3.0).sum().backward()
except RuntimeError as e: print(e)
with torch.no_grad(): print(G.apply(x).requires_grad)
"""
SNIPPETS["fn_dirty_not_returned"] = """
class D(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x * 2
    @staticmethod
    def backward(ctx, g): return g
x = torch.tensor([1., 2.], requires_grad=True)
try: D.apply(x * 1)
except RuntimeError as e: print(e)
"""
SNIPPETS["fn_wrong_grad_shape"] = """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x * 2
    @staticmethod
    def backward(ctx, g): return torch.ones(3)
class F2(F):
    @staticmethod
    def backward(ctx, g): return torch.ones(2, 2)
class F3(F):
    @staticmethod
    def backward(ctx, g): return g.double()
class F4(F):
    @staticmethod
    def backward(ctx, g): return "a"
class F5(F):
    @staticmethod
    def backward(ctx, g): return None
for C in (F, F2, F3, F4, F5):
    x = torch.ones(2, requires_grad=True)
    try: C.apply(x).sum().backward(); print(x.grad, x.grad.dtype if x.grad is not None else None)
    except Exception as e: print(type(e).__name__, e)
"""
SNIPPETS["fn_repr"] = """
class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x * x
    @staticmethod
    def backward(ctx, g): return g
y = Sq.apply(torch.ones(2, requires_grad=True))
print(y.grad_fn, y.grad_fn.name(), y)
"""


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet(name):
    assert_same(SNIPPETS[name])


class _Cube(taimatsu.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * x * g


class _BadCube(_Cube):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * g  # wrong


class _BadSecond(taimatsu.autograd.Function):
    """First derivative right, second wrong (its backward is itself a Function)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return _BadGrad.apply(x, g)


class _BadGrad(taimatsu.autograd.Function):
    @staticmethod
    def forward(ctx, x, g):
        ctx.save_for_backward(x, g)
        return 3 * x * x * g

    @staticmethod
    def backward(ctx, gg):
        x, g = ctx.saved_tensors
        return 5 * x * g * gg, 3 * x * x * gg  # d/dx should be 6 x g gg


def test_gradcheck_passes_and_fails():
    x = taimatsu.tensor([0.5, -1.2, 2.0], dtype=taimatsu.float64, requires_grad=True)
    ag = taimatsu.autograd
    assert ag.gradcheck(_Cube.apply, (x,))
    assert ag.gradgradcheck(_Cube.apply, (x,))
    assert not ag.gradcheck(_BadCube.apply, (x,), raise_exception=False)
    with pytest.raises(
        ag.gradcheck_module.GradcheckError if hasattr(ag, "gradcheck_module") else RuntimeError,
        match="Jacobian mismatch for output 0 with respect to input 0",
    ):
        ag.gradcheck(_BadCube.apply, (x,))
    assert ag.gradcheck(_BadSecond.apply, (x,))
    assert not ag.gradgradcheck(_BadSecond.apply, (x,), raise_exception=False)


def test_double_backward_through_function_matches_torch():
    xa = np.array([0.3, -0.7, 1.1])
    res = []
    for mod in (torch, taimatsu):

        class Cube(mod.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 3 * x * x * g

        x = mod.tensor(xa, requires_grad=True)
        (g,) = mod.autograd.grad((Cube.apply(x) * x.sin()).sum(), x, create_graph=True)
        (h,) = mod.autograd.grad(g, x, mod.tensor([1.0, -2.0, 0.5]))
        res.append((g.detach().numpy(), h.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-7)


def _view_outputs_program(T):
    """A custom Function's input returned as is, and a view made inside forward, are views of
    the input (``_base``), and modifying them in place is refused, as in PyTorch; outside grad
    mode nothing is a view."""

    class Ret(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class View(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view(-1)

        @staticmethod
        def backward(ctx, g):
            return g.view(2, 2)

    out = []
    a = T.ones(2, requires_grad=True)
    o = Ret.apply(a)
    out += [o._base is a, o.is_leaf, type(o.grad_fn).__name__]
    b = a * 1
    for f, x in ((Ret.apply, b), (View.apply, T.ones(2, 2, requires_grad=True) * 1)):
        r = f(x)
        out.append(r._base is x)
        try:
            r.mul_(2)
            out.append("modified")
        except RuntimeError as e:
            out.append(str(e))
    with T.no_grad():
        r = Ret.apply(b)
    out.append(r._base is b)
    return out


def test_views_returned_by_a_custom_function():
    assert _view_outputs_program(taimatsu) == _view_outputs_program(torch)


def test_an_input_returned_as_is_and_marked_non_differentiable(torch_oracle):
    """The alias of an input returned as is keeps its mark: it needs no gradient, and backward
    gets zeros for it (before, the alias escaped the mark and carried a gradient)."""
    seen = []
    for lib in (taimatsu, torch_oracle):

        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, *args):
                ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
                return args

            @staticmethod
            def backward(ctx, *grads):
                seen.append([g.tolist() for g in grads])
                return grads

        x, y = lib.ones(2, requires_grad=True), lib.ones(2)
        a, b = Identity.apply(x, y)
        assert (a.requires_grad, b.requires_grad, b.grad_fn) == (True, False, None)
        (a * 2 + b * 3).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]
    assert seen[0] == seen[1] == [[2.0, 2.0], [0.0, 0.0]]
