"""Forward-mode AD, anomaly detection and gradcheck against PyTorch (see tests/autograd/autograd_oracle.py)."""

import numpy as np
import pytest
from autograd_oracle import assert_same

import taimatsu

torch = pytest.importorskip("torch")

SNIPPETS = {
    "fwad": """
fwAD = torch.autograd.forward_ad
x = torch.tensor([1., 2., 3.])
v = torch.tensor([0.5, -1., 2.])
with fwAD.dual_level():
    d = fwAD.make_dual(x, v)
    print(fwAD.unpack_dual(d).tangent)
    y = (d.sin() * d + d.exp() / (d + 1)).tanh()
    p, t = fwAD.unpack_dual(y)
    print(p, t)
    print(type(fwAD.unpack_dual(y)).__name__)
    print(fwAD.unpack_dual(x))
    W = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
    z = W @ d
    print(fwAD.unpack_dual(z).tangent)
    s = d.sum(); print(fwAD.unpack_dual(s).tangent)
    m = d.reshape(3, 1) * d; print(fwAD.unpack_dual(m).tangent)
    q = d ** 2; print(fwAD.unpack_dual(q).tangent)
    r = 2 ** d; print(fwAD.unpack_dual(r).tangent)
print(fwAD.unpack_dual(y).tangent)
try: fwAD.make_dual(x, v)
except RuntimeError as e: print(e)
with fwAD.dual_level():
    try: fwAD.make_dual(x, torch.ones(2))
    except RuntimeError as e: print(e)
""",
    "fwad_rg": """
fwAD = torch.autograd.forward_ad
x = torch.tensor([1., 2.], requires_grad=True)
with fwAD.dual_level():
    d = fwAD.make_dual(x, torch.ones(2))
    y = (d * d).sum()
    print(fwAD.unpack_dual(y).tangent.tolist(), y.grad_fn)
    y.backward()
    print(x.grad)
""",
    "fn_jvp": """
fwAD = torch.autograd.forward_ad
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_forward(x)
        return x ** 2
    @staticmethod
    def jvp(ctx, t):
        x, = ctx.saved_tensors
        return 2 * x * t
    @staticmethod
    def backward(ctx, g): return g
with fwAD.dual_level():
    d = fwAD.make_dual(torch.tensor([1., 3.]), torch.tensor([1., 1.]))
    print(fwAD.unpack_dual(F.apply(d)).tangent)
""",
    "anomaly": """
class F5(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x * 2
    @staticmethod
    def backward(ctx, g): return g*float('nan')
x = torch.ones(2, requires_grad=True)
with torch.autograd.detect_anomaly():
    pass
with torch.autograd.detect_anomaly(check_nan=False):
    F5.apply(x).sum().backward(); print(x.grad)
print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
torch.autograd.set_detect_anomaly(True); print(torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(False); print(torch.is_anomaly_enabled())
with torch.autograd.set_detect_anomaly(True): print(torch.is_anomaly_enabled())
print(torch.is_anomaly_enabled())
""",
    "gradcheck": """
gradcheck, gradgradcheck = torch.autograd.gradcheck, torch.autograd.gradgradcheck
x = torch.randn(3, dtype=torch.double, requires_grad=True)
print(gradcheck(lambda a: (a.sin() * a).sum(), (x,)))
print(gradgradcheck(lambda a: (a.sin() * a), (x,)))
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a); return a ** 2
    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors; return g * a
print(gradcheck(Bad.apply, (x,), raise_exception=False))
try: gradcheck(Bad.apply, (x,))
except Exception as e: print(type(e).__name__, str(e).splitlines()[0])
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet(name):
    assert_same(SNIPPETS[name])


def test_anomaly_nan_message():
    for mod in (torch, taimatsu):
        x = mod.tensor([0.0, 1.0], requires_grad=True)
        msg = r"^Function 'SqrtBackward0' returned nan values in its 0th output\.$"
        # detect_anomaly warns "Anomaly Detection has been enabled..." (torch also a traceback)
        with (
            pytest.warns(UserWarning),
            mod.autograd.detect_anomaly(),
            pytest.raises(RuntimeError, match=msg),
        ):
            (x.sqrt() * 0).sum().backward()


_JVP_CASES = [
    (lambda a, b: (a * b).sin() + a.exp() / (b * b + 1), [(3, 4), (3, 4)]),
    (lambda a, b: a @ b, [(2, 3), (3, 4)]),
    (lambda a, b: (a - b).tanh() * a.sigmoid(), [(4,), (4,)]),
    (lambda a, b: a.pow(3) + b.sqrt() + a.log1p(), [(5,), (5,)]),
]


@pytest.mark.parametrize("i", range(len(_JVP_CASES)))
def test_jvp_matches_torch_func(i):
    fn, shapes = _JVP_CASES[i]
    rng = np.random.default_rng(i)
    primals = [np.abs(rng.standard_normal(s)) + 0.1 for s in shapes]
    tangents = [rng.standard_normal(s) for s in shapes]
    _, expected = torch.func.jvp(
        fn, tuple(map(torch.tensor, primals)), tuple(map(torch.tensor, tangents))
    )
    fwAD = taimatsu.autograd.forward_ad
    with fwAD.dual_level():
        duals = [
            fwAD.make_dual(taimatsu.tensor(p), taimatsu.tensor(t))
            for p, t in zip(primals, tangents)
        ]
        out = fn(*duals)
        got = fwAD.unpack_dual(out).tangent
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-7, atol=1e-12)
    assert fwAD.unpack_dual(out).tangent is None  # cleared when the level exited


def test_nested_level_error():
    fwAD = taimatsu.autograd.forward_ad
    msg = "Nested forward mode AD is not supported at the moment"
    with fwAD.dual_level(), pytest.raises(RuntimeError, match=msg):
        fwAD.enter_dual_level()


def test_inplace_on_a_view_updates_the_base_tangent():
    """copy_ of a tangent-less value zeroes the tangent; in-place ops through a view write the
    base's tangent too (PyTorch's in-place forward formulas copy into self's tangent)."""
    out = []
    for L in (taimatsu, torch):
        fw = L.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(L.ones(3, dtype=L.float64), L.tensor([1.0, 2.0, 3.0], dtype=L.float64))
            y = x * 2
            y.copy_(L.zeros(3, dtype=L.float64))
            z = x * 2
            z[1:].copy_(L.zeros(2, dtype=L.float64))
            w = x * 2
            w[:2].mul_(3)
            out.append([fw.unpack_dual(t).tangent.tolist() for t in (y, z, w)])
    assert out[0] == out[1]


def test_a_dual_tensor_prints_its_tangent(torch_oracle):
    shown = []
    for lib in (taimatsu, torch_oracle):
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            d = fwad.make_dual(lib.tensor([1.0, 2.0]), lib.ones(2))
            e = fwad.make_dual(lib.tensor([1.0, 2.0], requires_grad=True), lib.tensor([0.5, -1.0]))
            shown.append([str(d), str(d * 2), str(d.sin()), str(e), str(lib.tensor([3.0]))])
        shown[-1].append(str(d))  # outside the level: no tangent
    assert shown[0] == shown[1]


@pytest.mark.parametrize(
    "outputs, noncontiguous",
    [(lambda t: (t**3).sum(), False), (lambda t: (t**3, t.sin()), False), (lambda t: t**3, True)],
)
def test_gradgradcheck_draws_its_cotangents_from_the_global_generator(
    torch_oracle, outputs, noncontiguous
):
    """PyTorch's gradgradcheck draws random cotangents with the global generator: the numbers
    drawn after it follow from the same stream."""
    after = []
    for lib in (taimatsu, torch_oracle):
        x = lib.tensor([0.3, -1.2, 0.7], dtype=lib.float64, requires_grad=True)
        lib.manual_seed(0)
        assert lib.autograd.gradgradcheck(outputs, (x,), gen_non_contig_grad_outputs=noncontiguous)
        after.append(lib.rand(3).tolist())
    assert after[0] == after[1]


@pytest.mark.parametrize(
    "name", ["relu", "leaky_relu", "hardtanh", "relu6", "threshold", "softshrink", "hardshrink"]
)
def test_second_derivative_of_piecewise_linear_ops(torch_oracle, name):
    """The gradient of a piecewise-linear op keeps an edge to its input under create_graph
    (PyTorch's XBackwardBackward0 node), so a second derivative is zeros, not an error."""
    calls = {
        "relu": lambda L, t: t.relu(), "leaky_relu": lambda L, t: L.nn.functional.leaky_relu(t, 0.1),
        "hardtanh": lambda L, t: L.nn.functional.hardtanh(t), "relu6": lambda L, t: L.nn.functional.relu6(t),
        "threshold": lambda L, t: L.nn.functional.threshold(t, 0.2, 0.0),
        "softshrink": lambda L, t: L.nn.functional.softshrink(t, 0.3),
        "hardshrink": lambda L, t: L.nn.functional.hardshrink(t, 0.3),
    }  # fmt: skip
    shown = []
    for lib in (taimatsu, torch_oracle):
        x = lib.tensor([1.0, -1.0, 0.5], requires_grad=True)
        (g,) = lib.autograd.grad(calls[name](lib, x).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        hess = lib.autograd.functional.hessian(
            lambda v: calls[name](lib, v).sum(), x.detach(), strict=True
        )
        shown.append((g.tolist(), g.grad_fn.name(), h.tolist(), hess.tolist()))
    assert shown[0] == shown[1]
