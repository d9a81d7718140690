"""Weight normalisation and parametrizations against PyTorch: torch.norm_except_dim and
torch._weight_norm (values, the fused WeightNormInterfaceBackward0 node over the first or last
dim, gradients with random cotangents, double backward), both weight_norm APIs, dims out of range,
remove_parametrizations after a multi-tensor parametrization, and
transfer_parametrizations_and_params."""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")


def _weight_norm_program(T, shape, dim):
    g = np.random.default_rng(4)
    v = T.tensor(g.standard_normal(shape), dtype=T.float64, requires_grad=True)
    gshape = T.norm_except_dim(v.detach(), 2, dim).shape
    w_g = T.tensor(g.uniform(0.5, 2, tuple(gshape)), dtype=T.float64, requires_grad=True)
    w = T._weight_norm(v, w_g, dim)
    cot = T.tensor(g.standard_normal(shape), dtype=T.float64)
    gv, gg = T.autograd.grad(w, (v, w_g), cot, create_graph=True)
    second = T.autograd.grad((gv * gv).sum() + gg.sum(), (v, w_g))
    return (type(w.grad_fn).__name__, w.detach().numpy(), T.norm_except_dim(v, 2, dim).detach().numpy(),
            gv.detach().numpy(), gg.detach().numpy(), second[0].numpy(), second[1].numpy())  # fmt: skip


@pytest.mark.parametrize(
    "shape,dim",
    [
        ((4, 3), 0),
        ((4, 3), 1),
        ((4, 3), -1),
        ((2, 3, 4, 2), 0),
        ((2, 3, 4, 2), 1),
        ((2, 3, 4, 2), 3),
        ((2, 3, 4, 2), -1),
        ((5,), 0),
    ],
)
def test_weight_norm_op(shape, dim):
    got, want = _weight_norm_program(tm, shape, dim), _weight_norm_program(torch, shape, dim)
    assert got[0] == want[0]
    for a, b in zip(got[1:], want[1:], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def _modules_program(T):
    from importlib import import_module

    P = import_module(T.__name__ + ".nn.utils.parametrize")
    PZ = import_module(T.__name__ + ".nn.utils.parametrizations")
    T.manual_seed(0)
    out = []
    for make in (lambda: PZ.weight_norm(T.nn.Linear(3, 2)), lambda: T.nn.utils.weight_norm(T.nn.Linear(3, 2)),
                 lambda: PZ.weight_norm(T.nn.Conv2d(2, 3, 2), dim=1), lambda: PZ.weight_norm(T.nn.Linear(3, 2), dim=None)):  # fmt: skip
        m = make()
        y = m(T.ones(1, 2, 3, 3) if isinstance(m, T.nn.Conv2d) else T.ones(4, 3))
        y.pow(2).sum().backward()
        out.append((type(m.weight.grad_fn).__name__, sorted(n for n, _ in m.named_parameters())))
        out.append(
            np.concatenate([p.grad.numpy().ravel() for _, p in sorted(m.named_parameters())])
        )
    for dim in (5, -3):
        try:
            PZ.weight_norm(T.nn.Linear(3, 2), dim=dim)
            out.append("accepted")
        except IndexError as e:
            out.append(str(e))
    m = PZ.weight_norm(T.nn.Linear(3, 2))
    P.remove_parametrizations(m, "weight")
    out.append(
        (
            sorted(n for n, _ in m.named_parameters()),
            m.weight.requires_grad,
            type(m.weight).__name__,
        )
    )
    a = T.nn.Linear(3, 2)
    PZ.weight_norm(a)
    b = T.nn.Linear(3, 2)
    P.transfer_parametrizations_and_params(a, b)
    c = T.nn.Module()
    P.transfer_parametrizations_and_params(a, c, "weight")
    out.append((sorted(n for n, _ in b.named_parameters()), sorted(n for n, _ in c.named_parameters()),
                b.parametrizations.weight.original1 is a.parametrizations.weight.original1,
                bool(T.equal(c.weight, a.weight)), P.transfer_parametrizations_and_params(T.nn.Linear(1, 1), c) is c))  # fmt: skip
    return out


def test_weight_norm_modules_and_parametrize_utilities():
    got, want = _modules_program(tm), _modules_program(torch)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        if isinstance(b, np.ndarray):  # gradients (float32)
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        else:
            assert a == b


def _module_to_program(T):
    import warnings

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = T.nn.Linear(2, 2).to(T.complex64)
        first = (str(m.weight.dtype), [str(x.message)[:60] for x in w])
    m = m.to(T.float64)  # complex parameters take the dtype too
    return first, str(m.weight.dtype), str(m.bias.dtype)


def test_module_to_complex_dtype():
    assert _module_to_program(tm) == _module_to_program(torch)


def _old_checkpoint_program(T):
    """A state_dict from the older nn.utils.weight_norm (weight_g, weight_v) loads into
    parametrizations.weight_norm, at the top level and inside a Sequential."""
    from importlib import import_module

    PZ = import_module(T.__name__ + ".nn.utils.parametrizations")
    T.manual_seed(0)
    out = []
    for wrap in (lambda m: m, lambda m: T.nn.Sequential(T.nn.ReLU(), m)):
        old = wrap(T.nn.utils.weight_norm(T.nn.Linear(3, 2)))
        new = wrap(PZ.weight_norm(T.nn.Linear(3, 2)))
        result = new.load_state_dict(old.state_dict())
        x = T.ones(4, 3)
        out.append((sorted(old.state_dict()), str(result), bool(T.allclose(new(x), old(x)))))
    return out


def test_old_weight_norm_checkpoint_loads():
    assert _old_checkpoint_program(tm) == _old_checkpoint_program(torch)
