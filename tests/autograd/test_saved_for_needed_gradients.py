"""Which tensors a node saves, against PyTorch: a tensor is saved only when a gradient that reads
it will be computed. In ``x * w`` with only ``w`` requiring grad, ``w`` is not saved, so it may
change in place before the backward (the common case: a weight updated under ``no_grad`` after
a forward whose input needs no gradient). Checked by running the same program both ways: the
backward succeeds or raises alike, with the same gradients, and ``grad_fn._saved_*`` is None
where PyTorch's is."""

import numpy as np
import pytest

import taimatsu as tm

# (a, b) -> result; ``a`` and ``b`` are float vectors of 3 in (0.5, 1.5)
BINARY = {
    "mul": lambda T, a, b: T.mul(a, b),
    "div": lambda T, a, b: T.div(a, b),
    "remainder": lambda T, a, b: T.remainder(a, b),
    "fmod": lambda T, a, b: T.fmod(a, b),
    "atan2": lambda T, a, b: T.atan2(a, b),
    "hypot": lambda T, a, b: T.hypot(a, b),
    "pow": lambda T, a, b: T.pow(a, b),
    "maximum": lambda T, a, b: T.maximum(a, b),
    "copysign": lambda T, a, b: T.copysign(a, b),
    "xlogy": lambda T, a, b: T.xlogy(a, b),
    "ldexp": lambda T, a, b: T.ldexp(a, b),
    "logaddexp": lambda T, a, b: T.logaddexp(a, b),
    "sub": lambda T, a, b: T.sub(a, b),
    "div_floor": lambda T, a, b: T.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda T, a, b: T.div(a, b, rounding_mode="trunc"),
    "lerp": lambda T, a, b: T.lerp(a, b, 0.3),
    "lerp_tensor_weight": lambda T, a, b: T.lerp(a, b, T.full((3,), 0.3)),
    "weight_of_lerp": lambda T, a, b: T.lerp(T.full((3,), 0.3), b, a),
    "addcmul": lambda T, a, b: T.addcmul(T.zeros(3), a, b),
    "addcmul_input": lambda T, a, b: T.addcmul(a, b, b),
    "addcdiv": lambda T, a, b: T.addcdiv(T.zeros(3), a, b),
    "addcdiv_input": lambda T, a, b: T.addcdiv(a, b, b + 5),
    "mse_loss": lambda T, a, b: T.nn.functional.mse_loss(a, b),
    "dot": lambda T, a, b: T.dot(a, b),
    "outer": lambda T, a, b: T.outer(a, b),
    "mv": lambda T, a, b: T.mv(T.outer(a, b), b),
    "mm": lambda T, a, b: T.mm(a[:, None], b[None]),
    "matmul_3d": lambda T, a, b: T.matmul(a.expand(2, 4, 3), b[:, None]),
    "bmm": lambda T, a, b: T.bmm(a.expand(2, 1, 3), b[:, None].expand(2, 3, 1)),
    "addmm": lambda T, a, b: T.addmm(T.ones(3, 3), a[:, None], b[None]),
    "addmv": lambda T, a, b: T.addmv(T.ones(3), T.outer(a, a), b),
    "addr": lambda T, a, b: T.addr(T.ones(3, 3), a, b),
    "baddbmm": lambda T, a, b: T.baddbmm(
        T.ones(2, 3, 3), a[:, None].expand(2, 3, 1), b.expand(2, 1, 3)
    ),
    "addbmm": lambda T, a, b: T.addbmm(T.ones(3, 3), a[:, None].expand(2, 3, 1), b.expand(2, 1, 3)),
    "linear": lambda T, a, b: T.nn.functional.linear(a.expand(4, 3), b.expand(2, 3), b[:2]),
    "linear_3d": lambda T, a, b: T.nn.functional.linear(a.expand(2, 4, 3), b.expand(2, 3)),
}


def _run(T, name, grad_of, modify):
    """Forward with input ``grad_of`` (0 or 1) requiring grad, then ``modify`` (0 or 1) changed
    in place under no_grad, then backward: ("ok", gradient) or ("raises", type, message)."""
    g = np.random.default_rng(3)
    a, b = (T.tensor(g.uniform(0.5, 1.5, 3), dtype=T.float32) for _ in range(2))
    leaf = (a, b)[grad_of].requires_grad_()
    y = BINARY[name](T, a, b)
    with T.no_grad():
        (a, b)[modify].mul_(1.5)
    try:
        y.sum().backward()
    except RuntimeError as e:
        return ("raises", str(e)[:80])
    return ("ok", leaf.grad.numpy().tolist())


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("grad_of", [0, 1])
def test_change_of_an_operand_before_backward(torch_oracle, name, grad_of):
    for modify in (0, 1):
        want = _run(torch_oracle, name, grad_of, modify)
        got = _run(tm, name, grad_of, modify)
        assert got[0] == want[0], (modify, got, want)
        if want[0] == "ok":
            np.testing.assert_allclose(got[1], want[1], rtol=2e-6, atol=1e-7)
        else:
            assert got[1] == want[1]


def _layer_program(T, layer, update):
    """A layer's forward on an input needing no gradient, its weight updated under no_grad (an
    optimizer step between forward and backward), then the backward: the weight's gradient."""
    T.manual_seed(0)
    m = {
        "linear": lambda: T.nn.Linear(3, 2),
        "linear_no_bias": lambda: T.nn.Linear(3, 2, bias=False),
        "bilinear_free": lambda: T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Linear(4, 2)),
        "embedding": lambda: T.nn.Embedding(5, 3),
        "layer_norm": lambda: T.nn.LayerNorm(3),
        "conv": lambda: T.nn.Conv1d(3, 2, 2),
    }[layer]()
    x = T.tensor([1, 2, 4]) if layer == "embedding" else T.randn(4, 3, 5 if layer == "conv" else 3)
    if layer != "conv":
        x = x if layer == "embedding" else x[..., 0]
    loss = m(x).pow(2).sum()
    if update:
        with T.no_grad():
            for p in m.parameters():
                p.mul_(0.5)
    try:
        loss.backward()
    except RuntimeError as e:
        return str(e)[:80]
    return [p.grad.numpy().tolist() for p in m.parameters()]


@pytest.mark.parametrize(
    "layer", ["linear", "linear_no_bias", "bilinear_free", "embedding", "layer_norm", "conv"]
)
def test_weights_updated_between_forward_and_backward(torch_oracle, layer):
    want = _layer_program(torch_oracle, layer, True)
    got = _layer_program(tm, layer, True)
    if isinstance(want, str):
        assert got == want
    else:
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


SAVED = [
    ("mul", lambda T, x, w: x * w, ("self", "other")),
    ("mul_scalar", lambda T, x, w: w * 2.5, ("self", "other")),
    ("mul_int_scalar", lambda T, x, w: w * 2, ("self", "other")),
    ("div", lambda T, x, w: w / x, ("self", "other")),
    ("div_of", lambda T, x, w: x / w, ("self", "other")),
    ("div_floor", lambda T, x, w: T.div(w, x, rounding_mode="floor"), ("self", "other")),
    ("hypot", lambda T, x, w: T.hypot(x, w), ("self", "other", "result")),
    ("ldexp", lambda T, x, w: T.ldexp(w, x), ("other", "result")),
    ("mm", lambda T, x, w: T.mm(x[None], w[:, None]), ("self", "mat2")),
    ("mm_of", lambda T, x, w: T.mm(w[None], x[:, None]), ("self", "mat2")),
    ("mv", lambda T, x, w: T.mv(T.outer(x, x), w), ("self", "vec")),
    ("dot", lambda T, x, w: T.dot(x, w), ("self", "tensor")),
    ("bmm", lambda T, x, w: T.bmm(x.view(1, 1, 3), w.view(1, 3, 1)), ("self", "mat2")),
    ("addmm", lambda T, x, w: T.addmm(T.ones(1, 1), x[None], w[:, None]), ("mat1", "mat2")),
    ("addmv", lambda T, x, w: T.addmv(T.ones(3), T.outer(x, x), w), ("mat", "vec")),
    ("addr", lambda T, x, w: T.addr(T.ones(3, 3), x, w), ("vec1", "vec2")),
    (
        "baddbmm",
        lambda T, x, w: T.baddbmm(T.ones(1, 1, 1), x.view(1, 1, 3), w.view(1, 3, 1)),
        ("batch1", "batch2"),
    ),  # fmt: skip
    ("linear", lambda T, x, w: T.nn.functional.linear(x[None], w[None], w[:1]), ("mat1", "mat2")),
    ("linear_no_bias", lambda T, x, w: T.nn.functional.linear(x[None], w[None]), ("self", "mat2")),
    ("addcmul", lambda T, x, w: T.addcmul(x, x, w), ("tensor1", "tensor2")),
    ("addcdiv", lambda T, x, w: T.addcdiv(x, x, w), ("tensor1", "tensor2")),
    ("lerp", lambda T, x, w: T.lerp(x, w, x), ("self", "end", "weight")),
    ("copysign", lambda T, x, w: T.copysign(x, w), ("self", "result")),
]


def _saved_program(T, make, names):
    x = T.tensor([0.5, -1.0, 2.0])
    w = T.tensor([1.5, 0.25, -3.0], requires_grad=True)
    f = make(T, x, w).grad_fn
    out = [type(f).__name__]
    for n in names:
        s = getattr(f, "_saved_" + n)
        out.append(None if s is None else (str(s.dtype), s.tolist()))
    return out


@pytest.mark.parametrize("name,make,names", SAVED, ids=[c[0] for c in SAVED])
def test_saved_attributes(torch_oracle, name, make, names):
    want = _saved_program(torch_oracle, make, names)
    got = _saved_program(tm, make, names)
    assert got[0] == want[0]
    for g, w in zip(got[1:], want[1:], strict=True):
        assert (g is None) == (w is None), (got, want)
        if w is not None:
            assert g[0].replace("taimatsu", "torch") == w[0]
            np.testing.assert_allclose(g[1], w[1], rtol=1e-6)


def _packed_program(T):
    """How many tensors saved_tensors_hooks' pack sees: only those a gradient will read."""
    seen = []
    x = T.randn(4, 3)
    w = T.randn(3, 2, requires_grad=True)
    v = T.randn(3, requires_grad=True)
    lin = T.nn.Linear(3, 2)
    with T.autograd.graph.saved_tensors_hooks(
        lambda t: seen.append(tuple(t.shape)) or t, lambda t: t
    ):
        y = (x @ w).sum() + (x * v).sum() + (v / x).sum() + lin(x).sum() + T.mv(x, v).sum()
        x.clone().mul_(v)
    y.backward()
    return sorted(seen), w.grad.numpy().tolist(), v.grad.numpy().tolist()


def test_packed_tensors(torch_oracle):
    T = torch_oracle
    T.manual_seed(0)
    want = _packed_program(T)
    tm.manual_seed(0)
    got = _packed_program(tm)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-5)


def _layout_program(T, which):
    """Gradients keep their operand's layout when the operand itself was not saved."""
    g = np.random.default_rng(5)
    a = T.tensor(g.standard_normal((3, 4)), dtype=T.float32).t()  # column-major (4, 3)
    b = T.tensor(g.standard_normal((3, 5)), dtype=T.float32)
    leaf = (a, b)[which].requires_grad_()
    bias = T.ones(4, 5)
    for f in (T.mm, lambda p, q: T.addmm(bias, p, q)):
        leaf.grad = None
        f(a, b).pow(3).sum().backward()
        yield leaf.grad.stride(), leaf.grad.numpy().tolist()
    x = T.tensor(g.standard_normal((2, 3)), dtype=T.float32)
    lin = T.nn.Linear(3, 4)
    lin(x.t().contiguous().t()).pow(2).sum().backward()
    yield lin.weight.grad.stride(), lin.weight.grad.numpy().tolist()


@pytest.mark.parametrize("which", [0, 1])
def test_gradient_layouts(torch_oracle, which):
    for (gs, gv), (ws, wv) in zip(
        _layout_program(tm, which), _layout_program(torch_oracle, which), strict=True
    ):
        assert gs == ws
        np.testing.assert_allclose(gv, wv, rtol=1e-5, atol=1e-6)


def test_double_backward_with_one_factor_constant(torch_oracle):
    def program(T):
        g = np.random.default_rng(7)
        m = T.tensor(g.standard_normal((4, 3)), dtype=T.float64)
        w = T.tensor(g.standard_normal((3, 2)), dtype=T.float64, requires_grad=True)
        v = T.tensor(g.standard_normal(3), dtype=T.float64, requires_grad=True)
        out = []
        for y in ((m @ w).pow(2).sum(), T.addmm(T.ones(4, 2, dtype=T.float64), m, w).pow(3).sum(),
                  (m * v).pow(2).sum() + (v / m).pow(2).sum()):  # fmt: skip
            grads = T.autograd.grad(y, (w, v), create_graph=True, allow_unused=True)
            used = [(t, gr) for t, gr in zip((w, v), grads) if gr is not None]
            second = T.autograd.grad(sum(gr.sum() for _, gr in used), [t for t, _ in used])
            out.append([s.detach().numpy().tolist() for s in second])
        return out

    got, want = program(tm), program(torch_oracle)
    for g, w in zip(got, want, strict=True):
        for a, b in zip(g, w, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12)
