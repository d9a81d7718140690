"""torch.distributions against PyTorch: seeded samples (the same generator calls, so the same
numbers), log-densities and their gradients, KL pairs, shapes, reprs and validation errors.

Each snippet runs under both libraries (``D`` is ``T.distributions``); the value of its last
expression is compared by repr and, for floating tensors, by value (tests/oracle_expr.py).
"""

from __future__ import annotations

import pytest
from oracle_expr import same

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

_PRE = "D = T.distributions; C = D.constraints\n"


@pytest.fixture(autouse=True)
def _validation_on():
    """A fresh program validates distribution arguments (``__debug__``), but ``torch.compile``
    (PyTorch's dynamo set-up, and taimatsu's as PyTorch's) turns the default off for good, and
    other tests in this process compile: compare both libraries at a fresh program's default."""
    classes = (torch.distributions.Distribution, taimatsu.distributions.Distribution)
    before = [c._validate_args for c in classes]
    for c in classes:
        c.set_default_validate_args(True)
    yield
    for c, b in zip(classes, before):
        c.set_default_validate_args(b)


SAMPLING = [
    "T.manual_seed(0); c = D.Categorical(T.tensor([0.1, 0.2, 0.7])); (c.sample(), c.sample((2, 3)), T.rand(2))",
    "T.manual_seed(1); D.Categorical(logits=T.randn(2, 4)).sample((3,))",
    "T.manual_seed(2); D.Categorical(T.ones(3, dtype=T.float64)).sample((2, 2))",
    "T.manual_seed(3); n = D.Normal(T.zeros(3), T.tensor([1., .5, 2.])); (n.sample(), n.rsample((2,)), T.rand(1))",
    "T.manual_seed(4); (D.Normal(1, 2).sample((4,)), D.Normal(T.tensor(1., dtype=T.float64), 2).rsample())",
    "T.manual_seed(5); b = D.Bernoulli(logits=T.tensor([-1., 0., 2.])); (b.sample((2,)), b.sample())",
    "T.manual_seed(6); u = D.Uniform(T.tensor([0., 1.]), T.tensor([1., 3.])); (u.sample(), u.rsample((2,)))",
    "T.manual_seed(7); D.Uniform(T.zeros(2, dtype=T.float64), 1).rsample()",
    "T.manual_seed(8); D.Categorical(T.tensor([0.3, 0.7])).expand((4, 2)).sample()",
]
DENSITIES = [
    "c = D.Categorical(logits=T.tensor([[1., 2., 0.5], [0., 0., 3.]])); (c.log_prob(T.tensor([2, 0])), c.entropy(), c.perplexity())",
    "c = D.Categorical(T.tensor([0., .5, .5])); (c.entropy(), c.logits, c.probs, c.mode, c.mean, c.variance)",
    "c = D.Categorical(T.tensor([[1., 3.], [2., 2.]])); (c.probs, c.batch_shape, c.event_shape, c.param_shape)",
    "x = T.tensor([[1., 2., 0.5]], requires_grad=True); lp = D.Categorical(logits=x).log_prob(T.tensor([1])); lp.backward(); (lp, x.grad)",
    "c = D.Categorical(T.ones(2, 3)); (c.enumerate_support(), c.enumerate_support(False).shape, c.log_prob(T.ones(3, 1).long()))",
    "n = D.Normal(T.zeros(3), T.tensor([1., .5, 2.])); (n.log_prob(T.tensor([[.1], [2.]])), n.cdf(T.tensor(.3)), n.icdf(T.tensor([.1, .5, .9])))",
    "n = D.Normal(0., 2.); (n.entropy(), n.stddev, n.variance, n.mean, n.mode, n.log_prob(T.tensor(.5)), n.batch_shape)",
    "m = T.zeros(2, requires_grad=True); s = T.ones(2, requires_grad=True); T.manual_seed(0); q = D.Normal(m, s); x = q.rsample(); (x ** 2).sum().backward(); (x, m.grad, s.grad)",
    "m = T.tensor([.3], requires_grad=True); y = D.Normal(m, 2.).log_prob(T.tensor([1.])); y.backward(); (y, m.grad)",
    "b = D.Bernoulli(T.tensor([.3, .9])); (b.log_prob(T.tensor([1., 0.])), b.entropy(), b.logits, b.mean, b.variance, b.mode)",
    "b = D.Bernoulli(logits=T.tensor([-1., 0., 2.])); (b.probs, b.enumerate_support(), D.Bernoulli(.5).mode)",
    "u = D.Uniform(T.tensor([0., 1.]), T.tensor([1., 3.])); (u.log_prob(T.tensor([.5, 2.9])), u.cdf(T.tensor([.5, 2.5])), u.icdf(T.tensor([.5, .5])), u.entropy(), u.stddev, u.variance, u.mode)",
]
KL = [
    "D.kl_divergence(D.Normal(0., 1.), D.Normal(1., 2.))",
    "D.kl_divergence(D.Normal(T.zeros(2), 1.), D.Normal(T.tensor([1., -1.]), T.tensor([2., .5])))",
    "D.kl_divergence(D.Categorical(T.tensor([0., .5, .5])), D.Categorical(T.tensor([.2, .3, .5])))",
    "D.kl_divergence(D.Categorical(T.tensor([.2, .3, .5])), D.Categorical(T.tensor([0., .5, .5])))",
    "D.kl_divergence(D.Bernoulli(T.tensor([.3, 0.])), D.Bernoulli(T.tensor([.6, .5])))",
    "D.kl_divergence(D.Bernoulli(.3), D.Bernoulli(T.tensor(0.)))",
    "(D.kl_divergence(D.Uniform(0., 1.), D.Uniform(-1., 2.)), D.kl_divergence(D.Uniform(0., 1.), D.Uniform(.5, 2.)))",
    "D.kl_divergence(D.Normal(0., 1.), D.Categorical(T.ones(2)))",
]
MORE = [
    "T.manual_seed(2); d = D.Independent(D.Normal(T.zeros(3, 2), T.ones(3, 2)), 1); (repr(d), d.batch_shape, d.event_shape, d.sample(), d.log_prob(T.zeros(3, 2)), d.entropy(), d.support, d.has_rsample)",
    "d = D.Independent(D.Normal(T.zeros(3, 2), 1.), 1); (d.expand((4, 3)).batch_shape, D.kl_divergence(d, D.Independent(D.Normal(T.ones(3, 2), 2.), 1)))",
    "m = T.zeros(2, requires_grad=True); T.manual_seed(3); p = D.Independent(D.Normal(m, T.ones(2) * .5), 1); a = p.sample(); lp = p.log_prob(a); lp.backward(); (a, lp, m.grad)",
    "D.Independent(D.Normal(T.zeros(3, 2), 1.), 3)",
    "D.Independent(D.Bernoulli(T.ones(2) * .3), 1).enumerate_support()",
    "T.manual_seed(4); e = D.Exponential(T.tensor([1., .5])); (repr(e), e.sample(), e.rsample((2,)), e.log_prob(T.tensor([.3, 2.])), e.cdf(T.tensor([1., 1.])), e.icdf(T.tensor([.5, .5])), e.entropy(), e.mean, e.mode, e.variance, e.stddev)",
    "r = T.tensor([1., .5], requires_grad=True); T.manual_seed(5); x = D.Exponential(r).rsample(); x.sum().backward(); (x, r.grad, D.kl_divergence(D.Exponential(r), D.Exponential(T.tensor([2., 2.]))))",
    "T.manual_seed(6); p = D.Poisson(T.tensor([3., 12., 0.])); (repr(p), p.sample(), p.sample((2,)), p.log_prob(T.tensor([2., 10., 0.])), p.mode, D.kl_divergence(p, D.Poisson(T.tensor([2., 2., 1.]))))",
    "D.Exponential(T.tensor([-1.]))",
    "D.Poisson(T.tensor([2.])).log_prob(T.tensor([1.5]))",
    "T.manual_seed(4); d = D.OneHotCategorical(T.tensor([.1, .2, .7])); (repr(d), d.event_shape, d.sample(), d.sample((2, 2)), d.log_prob(T.tensor([0., 0., 1.])), d.entropy(), d.mode, d.variance)",
    "T.manual_seed(5); d = D.OneHotCategorical(logits=T.randn(2, 4)); (d.sample(), d.enumerate_support().shape, d.expand((3, 2)).batch_shape, d.support, D.kl_divergence(d, D.OneHotCategorical(T.ones(4))))",
    "D.OneHotCategorical(T.tensor([.1, .2, .7])).log_prob(T.tensor([0., 1., 1.]))",
    "T.manual_seed(7); A = T.randn(3, 3); cov = A @ A.T + T.eye(3); loc = T.tensor([.5, -1., 2.], requires_grad=True); m = D.MultivariateNormal(loc, cov); x = m.rsample((2,)); lp = m.log_prob(x.detach()); (x.sum() + lp.sum()).backward(); (repr(m), x, lp, loc.grad, m.entropy(), m.variance, m.scale_tril, m.precision_matrix)",
    "T.manual_seed(8); L = T.tensor([[1., 0.], [.5, 2.]]); m = D.MultivariateNormal(T.zeros(3, 2), scale_tril=L); (repr(m), m.sample(), m.log_prob(T.ones(2)), m.entropy(), m.covariance_matrix, m.expand((4, 3)).batch_shape)",
    "T.manual_seed(9); m = D.MultivariateNormal(T.zeros(2), precision_matrix=T.tensor([[2., .5], [.5, 1.]])); (repr(m), m.scale_tril, m.log_prob(T.ones(3, 2)), m.sample((2,)))",
    "D.MultivariateNormal(T.zeros(2), -T.eye(2))",
    "D.MultivariateNormal(T.zeros(2), scale_tril=T.ones(2, 2))",
    "D.MultivariateNormal(T.zeros(2), T.eye(2), scale_tril=T.eye(2))",
    "D.MultivariateNormal(T.zeros(2), T.ones(2))",
]
REPRS_ERRORS = [
    "(repr(D.Normal(0., 1.)), repr(D.Normal(T.tensor([0.]), 1.)), repr(D.Normal(T.zeros(2), 1.)))",
    "c = D.Categorical(logits=T.tensor([1., 2.])); r = repr(c); c.probs; (r, repr(c))",
    "(repr(D.Bernoulli(.3)), repr(D.Bernoulli(logits=T.tensor([.3]))), repr(D.Uniform(0, 1)))",
    "(C.simplex, C.real, C.positive, C.integer_interval(0, 2), C.unit_interval, C.boolean, C.real_vector, C.nonnegative_integer, C.greater_than_eq(0), C.dependent, C.less_than(1.), C.half_open_interval(0., 1.))",
    "(C.simplex.check(T.tensor([[.5, .5], [1., -1.]])), C.real_vector.check(T.tensor([[1., float('nan')]])), C.integer_interval(0, 2).check(T.tensor([0., 1.5, 2.])))",
    "(D.Normal.arg_constraints, D.Categorical.has_enumerate_support, D.Normal.has_rsample, D.Normal(0., 1.).support)",
    "u = D.Uniform(T.tensor([0., 1.]), T.tensor([1., 3.])); (u.support, u.arg_constraints, u.expand((2, 2)).batch_shape)",
    "D.Normal(0., -1.)",
    "D.Normal(T.zeros(2), T.tensor([1., -1.]))",
    "D.Normal(T.tensor([float('nan')]), 1.)",
    "D.Categorical(T.tensor([[-1., 2.]]))",
    "D.Categorical(T.ones(2), T.ones(2))",
    "D.Categorical(T.tensor(.5))",
    "D.Categorical(logits=T.tensor(.5))",
    "D.Categorical(T.tensor([.2, .8])).log_prob(T.tensor([3]))",
    "D.Categorical(T.tensor([.2, .8])).log_prob([1])",
    "D.Categorical(T.ones(2, 3)).log_prob(T.ones(4))",
    "D.Bernoulli(T.tensor([1.5]))",
    "D.Bernoulli(.3).log_prob(T.tensor(.5))",
    "D.Uniform(2., 1.)",
    "D.Uniform(0., 1.).log_prob(T.tensor([2.]))",
    "D.Normal('a', 1.)",
    "D.Distribution(validate_args=False).mean",
    "(D.Normal(0., -1., validate_args=False).scale, D.Uniform(0., 1., validate_args=False).log_prob(T.tensor([2.])))",
]


@pytest.mark.parametrize("code", SAMPLING + DENSITIES + KL + MORE + REPRS_ERRORS)
def test_same_as_pytorch(code):
    same(_PRE + code, torch, taimatsu)


def test_default_validation_switch():
    out = []
    for lib in (torch, taimatsu):
        lib.distributions.Distribution.set_default_validate_args(False)
        try:
            c = lib.distributions.Categorical(lib.tensor([0.2, 0.8]))
            out.append(
                (c.log_prob(lib.tensor([1])).tolist(), repr(lib.distributions.Normal(0.0, -2.0)))
            )
        finally:
            lib.distributions.Distribution.set_default_validate_args(True)
    assert out[0] == out[1]


def test_register_kl():
    D = taimatsu.distributions

    class MyNormal(D.Normal):
        pass

    @D.register_kl(D.Normal, D.Uniform)
    def _kl(p, q):
        return taimatsu.tensor(42.0)

    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Uniform(0.0, 1.0)).item() == 42.0
    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 0.0
