"""torch.autograd.graph.saved_tensors_hooks / save_on_cpu / disable_saved_tensors_hooks against
PyTorch: which tensors are packed and in what order, when unpack runs, the values and gradients
(double backward through tensors the hooks copied), the errors."""

import io
import os
import tempfile
from contextlib import redirect_stdout

import pytest

import taimatsu as tm


def _log_program(T):
    """The "hooks for saved tensors" tutorial's kind of program, printing what the hooks see."""
    a = T.ones(5, requires_grad=True)
    b = T.full((5,), 2.0, requires_grad=True) * 1.5

    def pack(x):
        print(
            "pack", tuple(x.shape), type(x.grad_fn).__name__, x.requires_grad, T.is_grad_enabled()
        )
        return ("p", x)

    def unpack(p):
        print("unpack", tuple(p[1].shape), T.is_grad_enabled())
        return p[1]

    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = a * b
        z = a.exp()
        w = a.pow(2)
        s = a.sin()
    print("backward")
    (y.sum() + z.sum() + w.sum() + s.sum()).backward()
    print(a.grad.tolist())
    c = T.full((3,), 2.0, requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: print("P") or t, lambda t: print("U") or t):
        q = c * c
        with T.no_grad():
            c * c  # nothing saved
    q.sum().backward(retain_graph=True)
    q.sum().backward()
    print(c.grad.tolist())
    with T.autograd.graph.saved_tensors_hooks(lambda t: print("outer") or t, lambda t: t):
        with T.autograd.graph.saved_tensors_hooks(lambda t: print("inner") or t, lambda t: t):
            c * c
        c.sin()


def _order_program(T):
    a = T.full((2,), 1.5, requires_grad=True)
    b = T.full((2,), 2.5, requires_grad=True)
    names = {id(a): "a", id(b): "b"}

    def pack(t):
        print(names.get(id(t), "out" if t.grad_fn is not None else "?"), end=" ")
        return t

    ops = {
        "mul": lambda: a * b, "div": lambda: a / b, "pow": lambda: a**b,
        "atan2": lambda: T.atan2(a, b), "hypot": lambda: T.hypot(a, b),
        "maximum": lambda: T.maximum(a, b), "sub": lambda: a - b, "matmul": lambda: a @ b,
        "addcmul": lambda: T.addcmul(a, a, b), "xlogy": lambda: T.xlogy(a, b),
        "fmod": lambda: T.fmod(a, b), "copysign": lambda: T.copysign(a, b),
    }  # fmt: skip
    for name, f in ops.items():
        print(name, end=": ")
        with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            f()
        print()


def _values_program(T):
    x = T.ones(3, requires_grad=True).clone()
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        q = x * x
    x.add_(1)  # no version check once hooks hold the saved tensors
    q.sum().backward()
    c = T.full((3,), 2.0, requires_grad=True)
    with T.autograd.graph.save_on_cpu():
        q = c * c.exp()
    q.sum().backward()
    print(c.grad.tolist())

    class Double(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x

    with T.autograd.graph.saved_tensors_hooks(
        lambda t: print("PF", type(t.grad_fn).__name__) or t, lambda t: print("UF") or t
    ):
        r = Double.apply(c)
    r.sum().backward()
    print(c.grad.tolist())
    d = T.full((3,), 0.5, requires_grad=True)  # copies: the graph must still reach d
    with T.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        e = d.exp() * d
        h = (d * 3).tanh()
    (g,) = T.autograd.grad(e.sum() + h.sum(), d, create_graph=True)
    g.sum().backward()
    print([round(v, 6) for v in g.tolist()], [round(v, 6) for v in d.grad.tolist()])


def _disk_program(T):
    tmp = tempfile.mkdtemp()
    names = iter(range(100))

    def pack(t):
        name = os.path.join(tmp, f"{next(names)}.pt")
        T.save(t, name)
        return name

    def unpack(name):
        return T.load(name, weights_only=True)

    f = T.full((4,), 0.3, requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = (f * f.sin()).sum()
    out.backward()
    print(sorted(os.listdir(tmp)), [round(v, 6) for v in f.grad.tolist()])


def _errors_program(T):
    a = T.ones(2, requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
        q = a * a
    try:
        q.sum().backward()
    except TypeError as e:
        print("TypeError", e)
    with T.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        try:
            with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
        except RuntimeError as e:
            print("RuntimeError", e)

    @T.autograd.graph.disable_saved_tensors_hooks("not in f")
    def f():
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass

    try:
        f()
    except RuntimeError as e:
        print("RuntimeError", e)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):  # usable again
        print((a * a).sum().item())


def _saved_attributes_program(T):
    """``grad_fn._saved_*`` and ``_raw_saved_*`` as the saved-tensor-hooks tutorial reads them."""

    def tr(f):
        try:
            return f()
        except (AttributeError, RuntimeError, TypeError) as e:
            return f"{type(e).__name__}: {str(e)[:90]}"

    T.manual_seed(0)
    a, b = T.randn(3, requires_grad=True), T.randn(3, requires_grad=True)
    c = a * b
    print(c.grad_fn._saved_self is a, c.grad_fn._saved_other is b)
    x = T.randn(5, requires_grad=True)
    y = x.pow(2)
    print(x.equal(y.grad_fn._saved_self), x is y.grad_fn._saved_self, y.grad_fn._saved_exponent)
    y = x.exp()
    print(y.equal(y.grad_fn._saved_result), y is y.grad_fn._saved_result)
    print(type(y.grad_fn._saved_result.grad_fn).__name__, tr(lambda: y.grad_fn._saved_foo))
    y.sum().backward()
    print(tr(lambda: y.grad_fn._saved_result))
    s = x.sin()
    raw = s.grad_fn._raw_saved_self
    raw.register_hooks(lambda t: print("pack", tuple(t.shape)) or t, lambda t: print("unpack") or t)
    print(tr(lambda: raw.register_hooks(lambda t: t, lambda t: t)))
    s.sum().backward()
    print(tr(lambda: x.cos().grad_fn._raw_saved_self.register_hooks(1, 2)).split("\n")[0])
    t = x.tanh()
    print(t.grad_fn._saved_result.equal(t), tuple(T.sigmoid(x).grad_fn._saved_result.shape))
    print((a / b).grad_fn._saved_other is b, T.atan2(a, b).grad_fn._saved_self is a)
    p = a**b
    print(
        p.grad_fn._saved_self is a, p.grad_fn._saved_exponent is b, p.grad_fn._saved_result.equal(p)
    )
    r = 2**a
    print(r.grad_fn._saved_self, r.grad_fn._saved_result.equal(r))
    print(T.nn.functional.gelu(a).grad_fn._saved_self is a, T.relu(a).grad_fn._saved_result.shape)
    z = x * x  # hooks on one raw saved tensor, then a double backward through the copy
    z.grad_fn._raw_saved_self.register_hooks(lambda t: t.detach().clone(), lambda t: t)
    (gx,) = T.autograd.grad(z.sum(), x, create_graph=True)
    gx.sum().backward()
    print([round(v, 5) for v in x.grad.tolist()])


def _output(program, lib) -> str:
    buf = io.StringIO()
    with redirect_stdout(buf):
        program(lib)
    return buf.getvalue()


@pytest.mark.parametrize(
    "program",
    [
        _log_program, _order_program, _values_program, _disk_program, _errors_program,
        _saved_attributes_program,
    ],
)  # fmt: skip
def test_saved_tensor_hooks_match_pytorch(torch_oracle, program):
    assert _output(program, tm) == _output(program, torch_oracle)


def test_hooks_are_per_thread():
    import threading

    seen = []
    a = tm.ones(2, requires_grad=True)
    with tm.autograd.graph.saved_tensors_hooks(lambda t: seen.append("main") or t, lambda t: t):
        worker = threading.Thread(target=lambda: a * a)
        worker.start()
        worker.join()
        assert seen == []
        a * a
    assert seen == ["main", "main"]


def test_increment_version_matches_pytorch(torch_oracle):
    for lib in (tm, torch_oracle):
        a = lib.ones(2)
        b = a[:1]
        lib.autograd.graph.increment_version(a)
        assert (a._version, b._version) == (1, 1)
        lib.autograd.graph.increment_version([a, lib.ones(1)])
        assert a._version == 2
        with lib.inference_mode():
            x = lib.ones(2)
        lib.autograd.graph.increment_version(x)  # no counter: nothing happens
        with pytest.raises(
            RuntimeError, match=r"^increment_version expect a Iterable\[Tensor\] as input$"
        ):
            lib.autograd.graph.increment_version(3)
        w = lib.ones(2, requires_grad=True)
        y = w * w.clone()
        lib.autograd.graph.increment_version(w)  # a saved input "modified": backward refuses
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def _multithreading_switch(lib) -> list:
    import threading

    A = lib.autograd
    seen = [A.is_multithreading_enabled()]
    with A.set_multithreading_enabled(False):
        seen.append(A.is_multithreading_enabled())
        worker = threading.Thread(target=lambda: seen.append(A.is_multithreading_enabled()))
        worker.start()
        worker.join()  # per thread: the other thread keeps the default
    seen.append(A.is_multithreading_enabled())
    A.set_multithreading_enabled(False)  # a plain call sets it until set back
    seen.append(A.is_multithreading_enabled())
    A.set_multithreading_enabled(True)

    @A.set_multithreading_enabled(False)
    def inside():
        return A.is_multithreading_enabled()

    seen += [inside(), A.is_multithreading_enabled()]  # decorating sets it, as PyTorch's
    A.set_multithreading_enabled(True)
    return seen


def test_multithreading_switch_matches_pytorch(torch_oracle):
    assert _multithreading_switch(tm) == _multithreading_switch(torch_oracle)
    assert _multithreading_switch(tm) == [True, False, True, True, False, False, False]
