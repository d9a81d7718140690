"""torch.distributions (and its transforms) against PyTorch: seeded samples (the same generator calls, so the same
numbers), log-densities and their gradients, KL pairs, shapes, reprs and validation errors.

Each snippet runs under both libraries (``D`` is ``T.distributions``); the value of its last
expression is compared by repr and, for floating tensors, by value (tests/oracle_expr.py).
"""

from __future__ import annotations

import numpy as np
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

# transforms, TransformedDistribution and the families built on them or sampled by one tensor call
TRANSFORMS = [
    "Tr = D.transforms; x = T.tensor([-2., -.3, 0., .7, 3.], dtype=T.float64); [(repr(t), t(x), t.inv(t(x)), t.log_abs_det_jacobian(x, t(x)), t.domain, t.codomain, t.event_dim, t.bijective) for t in (Tr.ExpTransform(), Tr.SigmoidTransform(), Tr.TanhTransform(), Tr.AffineTransform(1., -2.))] + [Tr.AbsTransform()(x), Tr.AbsTransform().inv(x), Tr.AbsTransform().codomain]",
    "Tr = D.transforms; x = T.tensor([[.5, 2., 3.]]); t = Tr.PowerTransform(T.tensor([2., .5, -1.])); (t(x), t.inv(t(x)), t.log_abs_det_jacobian(x, t(x)), t.sign, t.forward_shape((4, 3)), t.domain)",
    "Tr = D.transforms; x = T.tensor([[.3, -1., 2.], [0., 0., 0.]], dtype=T.float64); t = Tr.StickBreakingTransform(); y = t(x); (y, y.sum(-1), t.inv(y), t.log_abs_det_jacobian(x, y), t.forward_shape((2, 3)), t.inverse_shape((2, 4)), t.domain, t.codomain, t.event_dim)",
    "Tr = D.transforms; x = T.tensor([[.3, -1., 2.]]); t = Tr.SoftmaxTransform(); (t(x), t.inv(t(x)), t.bijective, repr(t.inv), t.inv.domain, t.inv.codomain)",
    "Tr = D.transforms; t = Tr.AffineTransform(T.zeros(2), T.tensor([2., -3.]), event_dim=1); x = T.ones(3, 2); (t(x), t.log_abs_det_jacobian(x, t(x)), t.sign, t.domain, t.event_dim, t.forward_shape((3, 2)), Tr.AffineTransform(0., -2.).sign, Tr.AffineTransform(0., -2.).log_abs_det_jacobian(x, x))",
    "Tr = D.transforms; c = Tr.ComposeTransform([Tr.AffineTransform(0., 2.), Tr.ExpTransform(), Tr.StickBreakingTransform().inv]); x = T.tensor([[.1, .2, .3]], dtype=T.float64); (repr(c), c.domain, c.codomain, c.bijective, c(x), c.log_abs_det_jacobian(x, c(x)), repr(c.inv), c.inv(c(x)), c.forward_shape((5, 3)))",
    "Tr = D.transforms; c = Tr.ComposeTransform([Tr.ExpTransform(), Tr.StickBreakingTransform()]); x = T.tensor([[.1, -.2]]); (c.domain, c.codomain, c.log_abs_det_jacobian(x, c(x)), Tr.identity_transform.domain, repr(Tr.identity_transform))",
    "Tr = D.transforms; t = Tr.ExpTransform(); (t.inv.inv is t, t.inv is t.inv, t == Tr.ExpTransform(), t.inv == Tr.ExpTransform().inv, Tr.AffineTransform(1., 2.) == Tr.AffineTransform(1., 2.), Tr.AffineTransform(1., 2.) == Tr.AffineTransform(1., 3.), Tr.SigmoidTransform() != Tr.TanhTransform())",
    "Tr = D.transforms; t = Tr.TanhTransform(cache_size=1); x = T.tensor([30.]); y = t(x); (t.inv(y) is x, t(x) is y, Tr.TanhTransform().inv(y), t.with_cache(0)._cache_size, Tr.ExpTransform().with_cache()._cache_size, Tr.AffineTransform(0., 1.).with_cache()._cache_size)",
    "D.transforms.ExpTransform(cache_size=2)",
    "D.transforms.StickBreakingTransform().forward_shape(())",
    "D.transforms.ComposeTransform([D.transforms.ExpTransform(), D.transforms.SoftmaxTransform()]).event_dim",
    "(D.transforms.ExpTransform().sign, D.transforms.ComposeTransform([D.transforms.ExpTransform(), D.transforms.AffineTransform(0., -1.)]).sign)",
    "D.transforms.SoftmaxTransform().sign",
    "D.transforms.SoftmaxTransform().log_abs_det_jacobian(T.ones(2), T.ones(2))",
    "x = T.tensor([-1., .5, 4.], requires_grad=True); t = D.transforms.ComposeTransform([D.transforms.SigmoidTransform(), D.transforms.PowerTransform(2.)]); y = t(x); g = T.autograd.grad((y * T.tensor([.3, -1.2, .7])).sum() + t.log_abs_det_jacobian(x, y).sum(), x); (y, g)",
]
TRANSFORMED = [
    "T.manual_seed(0); b = D.Normal(T.zeros(3), T.ones(3)); d = D.TransformedDistribution(b, [D.transforms.AffineTransform(1., 2.), D.transforms.TanhTransform(cache_size=1)]); x = d.rsample((2,)); (repr(d), d.batch_shape, d.event_shape, d.support, d.has_rsample, x, d.log_prob(x), d.log_prob(x * .5), d.sample())",
    "d = D.TransformedDistribution(D.Normal(T.zeros(2), 1.), D.transforms.AffineTransform(1., -2.)); v = T.tensor([.3, 1.5]); (d.cdf(v), d.icdf(T.tensor([.2, .9])), d.log_prob(v), d.expand((3, 2)).batch_shape, d.expand((3, 2)).log_prob(v))",
    "T.manual_seed(1); d = D.TransformedDistribution(D.Normal(T.zeros(2, 3), 1.), D.transforms.StickBreakingTransform()); x = d.sample(); (d.batch_shape, d.event_shape, d.support, x, d.log_prob(x), repr(d.base_dist))",
    "T.manual_seed(2); d = D.TransformedDistribution(D.Uniform(0., 1.), [D.transforms.AffineTransform(T.zeros(3), 1.)]); (d.batch_shape, d.base_dist.batch_shape, d.sample())",
    "m = T.tensor([.2, -.5], requires_grad=True); s = T.tensor([1., .4], requires_grad=True); T.manual_seed(3); d = D.TransformedDistribution(D.Normal(m, s), [D.transforms.TanhTransform(cache_size=1)]); a = d.rsample(); lp = d.log_prob(a); g = T.autograd.grad((a * T.tensor([.7, -1.1])).sum() + lp.sum(), (m, s)); (a, lp, g)",
    "D.TransformedDistribution(D.Normal(0., 1.), [1])",
    "D.TransformedDistribution(D.Normal(0., 1.), 1)",
    "D.TransformedDistribution(D.Normal(0., 1.), D.transforms.StickBreakingTransform())",
    "D.TransformedDistribution(D.Normal(0., 1.), D.transforms.ExpTransform()).log_prob(T.tensor(-1.))",
]
FAMILIES = [
    "T.manual_seed(0); d = D.LogNormal(T.tensor([0., 1.]), T.tensor([1., .5])); v = T.tensor([.5, 3.]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.cdf(v), d.icdf(T.tensor([.3, .6])), d.mean, d.mode, d.variance, d.stddev, d.entropy(), d.support, d.expand((3, 2)).batch_shape, type(d.expand((2,))).__name__)",
    "T.manual_seed(1); d = D.LogNormal(0., 1.); (d.sample((3,)), d.batch_shape, D.kl_divergence(d, D.LogNormal(1., 2.)), D.LogNormal.arg_constraints)",
    "loc = T.tensor([.3], requires_grad=True); sc = T.tensor([.8], requires_grad=True); T.manual_seed(2); d = D.LogNormal(loc, sc); a = d.rsample((3,)); lp = d.log_prob(T.tensor([.5, 1., 2.]).unsqueeze(-1)); g = T.autograd.grad((a * T.tensor([[.2], [-.9], [1.3]])).sum() + lp.sum(), (loc, sc)); (a, lp, g)",
    "D.LogNormal(0., -1.)",
    "D.LogNormal(0., 1.).log_prob(T.tensor([-1.]))",
    "T.manual_seed(3); d = D.HalfNormal(T.tensor([1., 2.])); v = T.tensor([.5, 3.]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.cdf(v), d.icdf(T.tensor([.3, .6])), d.mean, d.mode, d.variance, d.entropy(), d.support, d.expand((3, 2)).batch_shape, D.kl_divergence(d, D.HalfNormal(T.tensor([.5, 1.]))))",
    "D.HalfNormal(T.tensor([1.])).log_prob(T.tensor([-1.]))",
    "D.HalfNormal(T.tensor([-1.]))",
    "D.HalfNormal(1., validate_args=False).log_prob(T.tensor([-1., 1.]))",
    "T.manual_seed(4); d = D.Laplace(T.tensor([0., 1.]), T.tensor([1., .5])); v = T.tensor([.5, -3.]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.cdf(v), d.icdf(T.tensor([.3, .6])), d.mean, d.mode, d.variance, d.stddev, d.entropy(), d.support, d.expand((3, 2)).batch_shape, D.kl_divergence(d, D.Laplace(1., 2.)))",
    "loc = T.tensor([.3, 0.], requires_grad=True); sc = T.tensor([.8, 2.], requires_grad=True); T.manual_seed(5); d = D.Laplace(loc, sc); a = d.rsample(); lp = d.log_prob(T.tensor([.5, -1.])); g = T.autograd.grad((a * T.tensor([.2, -.9])).sum() + lp.sum(), (loc, sc)); (a, lp, g)",
    "T.manual_seed(6); (D.Laplace(0., 1.).sample((3,)), D.Laplace(T.zeros(2, dtype=T.float64), 1.).rsample())",
    "D.Laplace(0., 0.)",
    "T.manual_seed(7); d = D.Cauchy(T.tensor([0., 1.]), T.tensor([1., .5])); v = T.tensor([.5, -3.]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.cdf(v), d.icdf(T.tensor([.3, .6])), d.mean, d.mode, d.variance, d.entropy(), d.support, d.expand((3, 2)).batch_shape, D.kl_divergence(d, D.Cauchy(1., 2.)))",
    "loc = T.tensor([.3], requires_grad=True); sc = T.tensor([.8], requires_grad=True); T.manual_seed(8); d = D.Cauchy(loc, sc); a = d.rsample((2,)); lp = d.log_prob(T.tensor([.5])); g = T.autograd.grad((a * T.tensor([[.2], [-.9]])).sum() + lp.sum(), (loc, sc)); (a, lp, g)",
    "T.manual_seed(9); d = D.Gumbel(T.tensor([0., 1.]), T.tensor([1., .5])); v = T.tensor([.5, .2]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.cdf(v), d.icdf(T.tensor([.3, .6])), d.mean, d.mode, d.variance, d.stddev, d.entropy(), d.support, d.expand((3, 2)).batch_shape, D.kl_divergence(d, D.Gumbel(1., 2.)))",
    "T.manual_seed(10); d = D.Gumbel(1., 2.); (repr(d), d.sample((3,)), d.batch_shape, d.log_prob(T.tensor(.3)))",
    "loc = T.tensor([.3], requires_grad=True); sc = T.tensor([.8], requires_grad=True); T.manual_seed(11); d = D.Gumbel(loc, sc); a = d.rsample((2,)); lp = d.log_prob(T.tensor([.5])); g = T.autograd.grad((a * T.tensor([[.2], [-.9]])).sum() + lp.sum(), (loc, sc)); (a, lp, g)",
    "D.Gumbel(0., -1.)",
    "T.manual_seed(12); d = D.Geometric(T.tensor([.2, .7, 1.])); v = T.tensor([0., 3., 0.]); (repr(d), d.sample(), d.sample((2,)), d.log_prob(v), d.mean, d.mode, d.variance, d.entropy(), d.logits, d.support, d.expand((2, 3)).batch_shape)",
    "T.manual_seed(13); d = D.Geometric(logits=T.tensor([-1., 2.])); (repr(d), d.probs, d.sample((3,)), d.entropy(), D.kl_divergence(d, D.Geometric(T.tensor([.3, .6]))), repr(d))",
    "p = T.tensor([.3, .6], requires_grad=True); lp = D.Geometric(p).log_prob(T.tensor([2., 0.])); g = T.autograd.grad(lp.sum() + D.Geometric(p).entropy().sum(), p); (lp, g)",
    "D.Geometric(T.tensor([0., .5]))",
    "D.Geometric(T.tensor([1.5]))",
    "D.Geometric()",
    "D.Geometric(T.tensor([.5])).log_prob(T.tensor([1.5]))",
]

# the Gamma family (torch._standard_gamma: PyTorch's draws and gradient), Dirichlet, Beta, Binomial
GAMMA_FAMILY = [
    "T.manual_seed(0); d = D.Gamma(T.tensor([.3, 1., 2.5, 9.]), T.tensor([1., 2., .5, 3.])); v = T.tensor([.5, 3., 1., 2.]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.cdf(v), d.mean, d.mode, d.variance, d.stddev, d.entropy(), d.support, d.expand((3, 4)).batch_shape, D.kl_divergence(d, D.Gamma(2., 1.)), T.rand(2))",
    "T.manual_seed(1); d = D.Gamma(T.tensor([.5, 4.], dtype=T.float64), 2.); (d.sample((3,)), D.Gamma(2., 3.).sample((2,)), D.Gamma(2., 3.).batch_shape, T.randn(2))",
    "c = T.tensor([.4, 3., 12.], requires_grad=True); r = T.tensor([1.5, .5, 2.], requires_grad=True); T.manual_seed(2); x = D.Gamma(c, r).rsample((2,)); lp = D.Gamma(c, r).log_prob(T.tensor([.2, 4., 7.])); g = T.autograd.grad((x * T.tensor([[.3, -1., 2.], [1.1, .4, -.6]])).sum() + lp.sum(), (c, r)); (x, lp, g)",
    "c = T.tensor([.05, .7, 1., 30.], dtype=T.float64, requires_grad=True); T.manual_seed(3); x = T._standard_gamma(c.expand(3, 4)); g = T.autograd.grad((x * T.arange(12.).view(3, 4).double().sin()).sum(), c); (x, g, x.grad_fn.name())",
    "T._standard_gamma_grad(T.tensor([.3, .3, 2., 9., 9., 20., 50.], dtype=T.float64), T.tensor([.1, 2., 1.5, .5, 9.2, 25., 45.], dtype=T.float64))",
    "D.Gamma(T.tensor([1.]), T.tensor([-1.]))",
    "D.Gamma(1., 1.).log_prob(T.tensor([-1.]))",
    "T._standard_gamma(T.tensor([1, 2]))",
    "T.manual_seed(4); d = D.Chi2(T.tensor([1., 3.])); (repr(d), d.sample(), d.df, d.log_prob(T.tensor([.5, 2.])), d.mean, d.entropy(), d.expand((2, 2)).batch_shape, type(d.expand((2, 2))).__name__, D.Chi2.arg_constraints)",
    "D.Chi2(T.tensor([-1.]))",
    "T.manual_seed(5); d = D.StudentT(T.tensor([.5, 1.5, 3., 30.]), T.tensor([0., 1., -1., 2.]), T.tensor([1., .5, 2., 1.])); v = T.tensor([.5, 3., 1., 2.]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.mean, d.mode, d.variance, d.entropy(), d.support, d.expand((3, 4)).batch_shape, T.rand(2))",
    "df = T.tensor([2.5, 6.], requires_grad=True); s = T.tensor([1., .3], requires_grad=True); T.manual_seed(6); d = D.StudentT(df, 0., s); x = d.rsample(); lp = d.log_prob(T.tensor([.4, -1.])); g = T.autograd.grad((x * T.tensor([.7, -1.3])).sum() + lp.sum(), (df, s)); (x, lp, g, repr(D.StudentT(3.)))",
    "D.StudentT(T.tensor([-1.]))",
    "T.manual_seed(7); d = D.Dirichlet(T.tensor([[.5, 2., 3.], [1., 1., 1.]])); v = T.tensor([.2, .3, .5]); (repr(d), d.batch_shape, d.event_shape, d.sample(), d.rsample((2,)), d.log_prob(v), d.mean, d.mode, d.variance, d.entropy(), d.support, d.expand((4, 2)).batch_shape, D.kl_divergence(d, D.Dirichlet(T.tensor([2., 2., 1.]))))",
    "T.manual_seed(8); (D.Dirichlet(T.tensor([.1, .2, .3])).mode, D.Dirichlet(T.tensor([.5, .7], dtype=T.float64)).sample((3,)), T._sample_dirichlet(T.tensor([[.4, 4.], [2., 3.]])))",
    "D.Dirichlet(T.tensor(1.))",
    "D.Dirichlet(T.tensor([1., -1.]))",
    "D.Dirichlet(T.tensor([1., 2.])).log_prob(T.tensor([.5, .6]))",
    "T.manual_seed(9); d = D.Beta(T.tensor([.5, 2., 3.]), T.tensor([1., 4., .7])); v = T.tensor([.2, .3, .5]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.mean, d.mode, d.variance, d.entropy(), d.support, d.concentration1, d.concentration0, d.expand((2, 3)).batch_shape, D.kl_divergence(d, D.Beta(2., 2.)))",
    "T.manual_seed(10); d = D.Beta(2., 3.); (repr(d), d.batch_shape, d.sample((3,)), d.log_prob(T.tensor(.4)), d.concentration1)",
    "a = T.tensor([1.5, 3.], requires_grad=True); b = T.tensor([2., .8], requires_grad=True); lp = D.Beta(a, b).log_prob(T.tensor([.3, .9])); g = T.autograd.grad(lp.sum() + D.Beta(a, b).entropy().sum(), (a, b)); (lp, g)",
    "D.Beta(T.tensor([1.]), T.tensor([-1.]))",
    "D.Beta(1., 1.).log_prob(T.tensor([1.5]))",
    "T.manual_seed(11); d = D.Binomial(10, T.tensor([.2, .7, 1.])); v = T.tensor([3., 7., 10.]); (repr(d), d.sample(), d.sample((2,)), d.log_prob(v), d.mean, d.mode, d.variance, d.entropy(), d.support, d.logits, d.param_shape, d.expand((2, 3)).batch_shape, d.enumerate_support().shape, D.kl_divergence(d, D.Binomial(10, T.tensor([.5, .5, .5]))))",
    "T.manual_seed(12); d = D.Binomial(T.tensor([5., 20.]), logits=T.tensor([-1., 2.])); (repr(d), d.probs, d.sample((3,)), d.log_prob(T.tensor([2., 19.])), d.mode)",
    "p = T.tensor([.3, .6], requires_grad=True); lp = D.Binomial(4, p).log_prob(T.tensor([2., 0.])); g = T.autograd.grad(lp.sum() + D.Binomial(4, p).entropy().sum(), p); (lp, g)",
    "D.Binomial(T.tensor([5., 20.]), T.tensor([.5, .5])).entropy()",
    "D.Binomial(T.tensor([2.5]), T.tensor([.5]))",
    "D.Binomial(3, T.tensor([.5])).log_prob(T.tensor([4.]))",
    "D.kl_divergence(D.Binomial(3, T.tensor([.5])), D.Binomial(5, T.tensor([.5])))",
    "D.kl_divergence(D.Binomial(5, T.tensor([.5, .2])), D.Binomial(T.tensor([3., 5.]), T.tensor([.5, .3])))",
    "D.Binomial()",
]

MORE_FAMILIES = [
    "T.manual_seed(13); d = D.LogisticNormal(T.tensor([[0., 1.], [.5, -1.]]), T.tensor([1., .5])); x = d.sample(); (repr(d), d.batch_shape, d.event_shape, x, d.rsample((2,)), d.log_prob(x), d.log_prob(T.tensor([.2, .3, .5])), d.support, d.loc, d.expand((3, 2)).batch_shape)",
    "T.manual_seed(14); d = D.LogisticNormal(0., 1.); (d.batch_shape, d.event_shape, d.sample((2,)))",
    "loc = T.tensor([.2, -.4], requires_grad=True); T.manual_seed(15); d = D.LogisticNormal(loc, 1.); x = d.rsample(); lp = d.log_prob(x.detach()); g = T.autograd.grad((x * T.tensor([.3, -1., .8])).sum() + lp, loc); (x, lp, g)",
]

MIXTURES = [
    "T.manual_seed(16); d = D.Multinomial(10, T.tensor([[.2, .3, .5], [.1, .1, .8]])); x = d.sample(); (repr(d), d.batch_shape, d.event_shape, x, d.sample((2,)), d.log_prob(x), d.log_prob(T.tensor([0., 4., 6.])), d.mean, d.variance, d.entropy(), d.support, d.expand((3, 2)).batch_shape, d.param_shape)",
    "T.manual_seed(17); d = D.Multinomial(logits=T.tensor([-1., 0., 2.])); (repr(d), d.sample((4,)), d.probs, d.log_prob(T.tensor([0., 0., 1.])), d.entropy())",
    "p = T.tensor([.2, .3, .5], requires_grad=True); lp = D.Multinomial(5, p).log_prob(T.tensor([1., 2., 2.])); g = T.autograd.grad(lp + D.Multinomial(5, p).entropy(), p); (lp, g)",
    "D.Multinomial(T.tensor(3), T.tensor([.5, .5]))",
    "D.Multinomial(3, T.tensor([.5, .5])).log_prob(T.tensor([-1., 2.]))",
    "(D.Multinomial(3, T.tensor([-.5, .5])), C.multinomial(3), C.multinomial(3).check(T.tensor([[1., 2.], [2., 2.]])))",
    "T.manual_seed(18); m = D.MixtureSameFamily(D.Categorical(T.tensor([.3, .7])), D.Normal(T.tensor([-1., 2.]), T.tensor([.5, 1.]))); x = m.sample((3,)); (repr(m), m.batch_shape, m.event_shape, x, m.log_prob(x), m.cdf(T.tensor([0., 1.])), m.mean, m.variance, m.support, m.has_rsample, m.expand((2,)).batch_shape, m.expand((2,)).log_prob(T.tensor(.5)))",
    "T.manual_seed(19); m = D.MixtureSameFamily(D.Categorical(logits=T.randn(4, 3)), D.Independent(D.Normal(T.randn(4, 3, 2), T.rand(4, 3, 2) + .5), 1)); x = m.sample((2,)); (m.batch_shape, m.event_shape, x, m.log_prob(x), m.mean, m.variance)",
    "w = T.tensor([.1, .5, -.2], requires_grad=True); mu = T.tensor([-1., 0., 3.], requires_grad=True); m = D.MixtureSameFamily(D.Categorical(logits=w), D.Normal(mu, T.ones(3))); lp = m.log_prob(T.tensor([.3, 2.5])).sum(); g = T.autograd.grad(lp, (w, mu)); (lp, g)",
    "D.MixtureSameFamily(D.Normal(0., 1.), D.Normal(T.zeros(2), 1.))",
    "D.MixtureSameFamily(D.Categorical(T.ones(3)), D.Normal(T.zeros(2), 1.))",
    "D.MixtureSameFamily(D.Categorical(T.ones(2, 3)), D.Normal(T.zeros(4, 3), 1.))",
]
MIXTURES += [
    "m = D.MixtureSameFamily(D.Categorical(T.ones(2)), D.Exponential(T.ones(2))); (m.support, m.support.event_dim, m.support.check(T.tensor([1., -1.])), m.log_prob(T.tensor([-1.])))",
]

HEAVY_TAILS = [
    "T.manual_seed(20); d = D.HalfCauchy(T.tensor([1., 2.])); v = T.tensor([.5, 3.]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.cdf(v), d.icdf(T.tensor([.3, .6])), d.mean, d.mode, d.variance, d.entropy(), d.support, d.expand((3, 2)).batch_shape)",
    "(D.HalfCauchy(1.).log_prob(T.tensor([-1.])), D.HalfCauchy(T.tensor([-1.])))",
    "D.HalfCauchy(T.tensor([1.])).log_prob(T.tensor([-1.]))",
    "T.manual_seed(21); d = D.Pareto(T.tensor([1., 2.]), T.tensor([.5, 3.])); v = T.tensor([1.5, 3.]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.cdf(v), d.icdf(T.tensor([.3, .6])), d.mean, d.mode, d.variance, d.entropy(), d.support, d.expand((3, 2)).batch_shape)",
    "D.Pareto(T.tensor([2.]), T.tensor([1.])).log_prob(T.tensor([1.]))",
    "s = T.tensor([1.5], requires_grad=True); a = T.tensor([2.5], requires_grad=True); T.manual_seed(22); d = D.Pareto(s, a); x = d.rsample((3,)); lp = d.log_prob(T.tensor([2., 3., 4.]).unsqueeze(-1)); g = T.autograd.grad((x * T.tensor([[.3], [-1.], [.6]])).sum() + lp.sum(), (s, a)); (x, lp, g)",
    "T.manual_seed(23); d = D.Weibull(T.tensor([1., 2.]), T.tensor([.5, 3.])); v = T.tensor([1.5, 3.]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.cdf(v), d.icdf(T.tensor([.3, .6])), d.mean, d.mode, d.variance, d.entropy(), d.support, d.expand((3, 2)).batch_shape, d.expand((3, 2)).log_prob(v))",
    "s = T.tensor([1.5], requires_grad=True); c = T.tensor([2.5], requires_grad=True); T.manual_seed(24); d = D.Weibull(s, c); x = d.rsample((3,)); lp = d.log_prob(T.tensor([2., 3., 4.]).unsqueeze(-1)); g = T.autograd.grad((x * T.tensor([[.3], [-1.], [.6]])).sum() + lp.sum(), (s, c)); (x, lp, g)",
    "D.Weibull(1., -1.)",
    "T.manual_seed(25); d = D.NegativeBinomial(T.tensor([3., 10., 0.]), T.tensor([.2, .7, .5])); v = T.tensor([1., 30., 0.]); (repr(d), d.sample(), d.sample((2,)), d.log_prob(v), d.mean, d.mode, d.variance, d.logits, d.support, d.expand((2, 3)).batch_shape, d.param_shape)",
    "T.manual_seed(26); d = D.NegativeBinomial(5., logits=T.tensor([-1., 2.])); (repr(d), d.probs, d.sample((3,)), d.log_prob(T.tensor([2., 19.])))",
    "p = T.tensor([.3, .6], requires_grad=True); lp = D.NegativeBinomial(4., p).log_prob(T.tensor([2., 0.])); g = T.autograd.grad(lp.sum(), p); (lp, g)",
    "D.NegativeBinomial(T.tensor([2.]), T.tensor([1.]))",
    "D.NegativeBinomial(T.tensor([-2.]), T.tensor([.5]))",
    "D.NegativeBinomial(2., T.tensor([.5])).log_prob(T.tensor([1.5]))",
]

RELAXED = [
    "T.manual_seed(27); d = D.RelaxedBernoulli(T.tensor(.5), T.tensor([.2, .7])); x = d.rsample((2,)); (repr(d), x, d.sample(), d.log_prob(x), d.support, d.temperature, d.probs, d.logits, d.expand((3, 2)).batch_shape)",
    "T.manual_seed(28); d = D.relaxed_bernoulli.LogitRelaxedBernoulli(T.tensor(2.), logits=T.tensor([-1., 3.])); x = d.rsample(); (repr(d), x, d.log_prob(x), d.probs, d.param_shape)",
    "T.manual_seed(29); d = D.RelaxedOneHotCategorical(T.tensor(.7), logits=T.tensor([[1., 2., .5], [0., 0., 3.]])); x = d.rsample(); (repr(d), d.batch_shape, d.event_shape, x, d.sample((2,)), d.log_prob(x), d.support, d.probs, d.expand((4, 2)).batch_shape)",
    "T.manual_seed(30); d = D.relaxed_categorical.ExpRelaxedCategorical(T.tensor(1.5), T.tensor([.2, .3, .5])); x = d.rsample((2,)); (repr(d), x, d.log_prob(x), d.support, d.param_shape)",
    "t = T.tensor(.5, requires_grad=True); lg = T.tensor([1., -1., .3], requires_grad=True); T.manual_seed(31); d = D.RelaxedOneHotCategorical(t, logits=lg); x = d.rsample(); lp = d.log_prob(x.detach()); g = T.autograd.grad((x * T.tensor([.3, -1., .8])).sum() + lp, (t, lg)); (x, lp, g)",
    "p = T.tensor([.3, .6], requires_grad=True); T.manual_seed(32); d = D.RelaxedBernoulli(T.tensor(.4), p); x = d.rsample(); lp = d.log_prob(x.detach()); g = T.autograd.grad((x * T.tensor([.3, -1.])).sum() + lp.sum(), p); (x, lp, g)",
    "D.RelaxedBernoulli(T.tensor(.5))",
    "D.RelaxedOneHotCategorical(T.tensor(.5), T.tensor([.5, -.5]))",
]

REGISTRY = [
    "[(repr(D.biject_to(c)), repr(D.transform_to(c))) for c in (C.positive, C.nonnegative, C.greater_than(2.), C.unit_interval, C.interval(-1., 2.), C.real, C.simplex, C.real_vector, C.less_than(1.), C.half_open_interval(0., 1.), C.independent(C.positive, 2))]",
    "x = T.tensor([[-1., .3, 2.]], dtype=T.float64); [(t(x), t.inv(t(x)), t.log_abs_det_jacobian(x, t(x)), t.domain, t.codomain) for t in (D.biject_to(C.greater_than(2.)), D.biject_to(C.interval(-1., 2.)), D.transform_to(C.less_than(1.)), D.biject_to(C.real_vector), D.biject_to(C.independent(C.positive, 1)))]",
    "x = T.tensor([[-1., .3]]); (D.biject_to(C.simplex)(x), D.transform_to(C.simplex)(x), D.biject_to(D.Beta(1., 2.).support)(x), D.transform_to(D.Gamma(1., 2.).support)(x))",
    "t = D.transforms.IndependentTransform(D.transforms.ExpTransform(), 1); x = T.ones(2, 3); (repr(t), t(x), t.log_abs_det_jacobian(x, t(x)), t.domain, t.codomain, t.event_dim, t.sign, t.bijective, t.inv(t(x)).round(decimals=4), t.with_cache()._cache_size)",
    "D.transforms.IndependentTransform(D.transforms.ExpTransform(), 2)(T.ones(3))",
    "D.biject_to(C.boolean)",
    "D.biject_to.register(3, lambda c: c)",
    "p = D.biject_to(C.positive); u = T.tensor([-.5, 1.], requires_grad=True); y = p(u); g = T.autograd.grad((D.Gamma(2., 1.).log_prob(y) + p.log_abs_det_jacobian(u, y)).sum(), u); (y, g)",
]

GAMMA_TRANSFORMED = [
    "T.manual_seed(33); d = D.InverseGamma(T.tensor([.5, 1.5, 3.]), T.tensor([1., 2., .5])); v = T.tensor([.5, 3., 1.]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.cdf(v), d.mean, d.mode, d.variance, d.entropy(), d.support, d.concentration, d.expand((2, 3)).batch_shape)",
    "c = T.tensor([2.5], requires_grad=True); r = T.tensor([1.5], requires_grad=True); T.manual_seed(34); d = D.InverseGamma(c, r); x = d.rsample((2,)); lp = d.log_prob(T.tensor([[.5], [2.]])); g = T.autograd.grad((x * T.tensor([[.3], [-1.]])).sum() + lp.sum(), (c, r)); (x, lp, g)",
    "D.InverseGamma(T.tensor([-1.]), T.tensor([1.]))",
    "T.manual_seed(35); d = D.FisherSnedecor(T.tensor([1., 3., 6.]), T.tensor([2., 5., 10.])); v = T.tensor([.5, 3., 1.]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.mean, d.mode, d.variance, d.support, d.expand((2, 3)).batch_shape, T.rand(2))",
    "a = T.tensor([4.], requires_grad=True); b = T.tensor([7.], requires_grad=True); T.manual_seed(36); d = D.FisherSnedecor(a, b); x = d.rsample((2,)); lp = d.log_prob(T.tensor([[.5], [2.]])); g = T.autograd.grad((x * T.tensor([[.3], [-1.]])).sum() + lp.sum(), (a, b)); (x, lp, g, repr(D.FisherSnedecor(1., 2.)))",
    "D.FisherSnedecor(T.tensor([-1.]), T.tensor([1.]))",
    "T.manual_seed(37); d = D.Kumaraswamy(T.tensor([.5, 2., 3.]), T.tensor([1., 4., .7])); v = T.tensor([.2, .3, .5]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.cdf(v), d.mean, d.mode, d.variance, d.entropy(), d.support, d.expand((2, 3)).batch_shape)",
    "a = T.tensor([2.], requires_grad=True); b = T.tensor([3.], requires_grad=True); T.manual_seed(38); d = D.Kumaraswamy(a, b); x = d.rsample((2,)); lp = d.log_prob(T.tensor([[.2], [.7]])); g = T.autograd.grad((x * T.tensor([[.3], [-1.]])).sum() + lp.sum(), (a, b)); (x, lp, g, d.mode, D.Kumaraswamy(T.tensor([2., 1.5, 2.]), T.tensor([.5, .9, 1.])).mode)",
    "D.Kumaraswamy(T.tensor([1.]), T.tensor([-1.]))",
]

MVN_KL = [
    "T.manual_seed(40); A = T.randn(3, 3); B = T.randn(2, 3, 3); p = D.MultivariateNormal(T.randn(3), A @ A.T + T.eye(3)); q = D.MultivariateNormal(T.randn(2, 3), scale_tril=T.tril(B).abs() + T.eye(3)); (D.kl_divergence(p, q), D.kl_divergence(q, p), D.kl_divergence(p, p))",
    "m = T.tensor([.3, -.2], requires_grad=True); L = T.tensor([[1., 0.], [.5, 2.]], requires_grad=True); kl = D.kl_divergence(D.MultivariateNormal(m, scale_tril=L), D.MultivariateNormal(T.zeros(2), T.eye(2))); g = T.autograd.grad(kl, (m, L)); (kl, g)",
    "D.kl_divergence(D.MultivariateNormal(T.zeros(2), T.eye(2)), D.MultivariateNormal(T.zeros(3), T.eye(3)))",
]

MORE_TRANSFORMS = [
    "Tr = D.transforms; x = T.tensor([-30., -1., 0., 2., 40.], dtype=T.float64); t = Tr.SoftplusTransform(); (repr(t), t(x), t.inv(t(x)), t.log_abs_det_jacobian(x, t(x)), t.domain, t.codomain, t.sign, D.SoftplusTransform() == t)",
    "Tr = D.transforms; t = Tr.ReshapeTransform((2, 3), (3, 2)); x = T.arange(12.).view(2, 2, 3); (t(x).shape, t.inv(t(x)).shape, t.log_abs_det_jacobian(x, t(x)), t.domain, t.codomain, t.forward_shape((5, 2, 3)), t.inverse_shape((3, 2)), t.with_cache()._cache_size)",
    "D.transforms.ReshapeTransform((2, 3), (4, 2))",
    "D.transforms.ReshapeTransform((2, 3), (3, 2)).forward_shape((3, 2))",
    "D.transforms.ReshapeTransform((2, 3), (3, 2)).forward_shape((3,))",
    "Tr = D.transforms; x = T.tensor([[[.5, 1.], [-2., .3]]], dtype=T.float64); l = Tr.LowerCholeskyTransform(); p = Tr.PositiveDefiniteTransform(); (l(x), l.inv(l(x)), p(x), p.inv(p(x)), l.domain, l.codomain, p.codomain, repr(D.transform_to(C.lower_cholesky)), repr(D.transform_to(C.positive_definite)))",
    "D.biject_to(C.positive_definite)",
    "Tr = D.transforms; n = D.Normal(T.tensor([0., 1.]), T.tensor([1., 2.])); t = Tr.CumulativeDistributionTransform(n); x = T.tensor([.3, -1.]); (t(x), t.inv(t(x)), t.log_abs_det_jacobian(x, t(x)), t.domain, t.codomain, t.sign, t.with_cache()._cache_size)",
    "T.manual_seed(41); lg = T.tensor([[.5, 1., -1.]], requires_grad=True); d = D.OneHotCategoricalStraightThrough(logits=lg); x = d.rsample((2,)); g = T.autograd.grad((x * T.tensor([.3, -1., .8])).sum(), lg); (repr(d), d.has_rsample, x, g)",
    "(repr(D.identity_transform), D.identity_transform(T.ones(2)))",
    # matrix constraints: square, symmetric, positive (semi)definite, lower triangular
    "x = T.tensor([[[1., 2.], [2., 5.]], [[1., 0.], [3., 1.]]]); [(repr(c), c.check(x), c.event_dim) for c in (C.square, C.symmetric, C.positive_semidefinite, C.lower_triangular, C.positive_definite)]",
    "[c.check(T.ones(2, 3)) for c in (C.square, C.symmetric, C.positive_semidefinite)]",
    "z = T.tensor([[1., 0.], [0., 0.]]); (C.positive_semidefinite.check(z), C.positive_definite.check(z), repr(C.MixtureSameFamilyConstraint(C.real)))",
]

CONTINUOUS_BERNOULLI = [
    "T.manual_seed(42); d = D.ContinuousBernoulli(T.tensor([.1, .4995, .5, .7, .99])); v = T.tensor([.2, .3, .5, .9, 1.]); (repr(d), d.sample(), d.rsample((2,)), d.log_prob(v), d.cdf(v), d.icdf(T.tensor([.1, .3, .5, .7, .9])), d.mean, d.variance, d.stddev, d.entropy(), d.logits, d.support, d.expand((2, 5)).batch_shape)",
    "T.manual_seed(43); d = D.ContinuousBernoulli(logits=T.tensor([-2., 0., 3.])); (repr(d), d.probs, d.sample((2,)), d.log_prob(T.tensor([.3, .5, .8])), d.mean, d.entropy(), d.param_shape)",
    "lg = T.tensor([-1., .002, 2.], requires_grad=True); T.manual_seed(44); d = D.ContinuousBernoulli(logits=lg); x = d.rsample(); lp = d.log_prob(T.tensor([.3, .5, .8])); g = T.autograd.grad((x * T.tensor([.3, -1., .8])).sum() + lp.sum() + d.entropy().sum(), lg); (x, lp, g)",
    "D.ContinuousBernoulli(T.tensor([1.5]), validate_args=True)",
    "D.ContinuousBernoulli(T.tensor([1.5]))",
    "D.ContinuousBernoulli(T.tensor([.5])).log_prob(T.tensor([1.5]))",
    "D.ContinuousBernoulli()",
]


LOWRANK_MVN = [
    "T.manual_seed(3); W = T.randn(2, 3, 2, dtype=T.float64); d = T.rand(3, dtype=T.float64) + .5; loc = T.randn(3, dtype=T.float64, requires_grad=True); m = D.LowRankMultivariateNormal(loc, W, d); x = m.rsample((4,)); lp = m.log_prob(x.detach()); (x.sum() + lp.sum()).backward(); (repr(m), m.batch_shape, m.event_shape, x, lp, loc.grad, m.entropy(), m.mean, m.mode, m.variance, m.covariance_matrix, m.scale_tril, m.precision_matrix, T.rand(1))",
    "T.manual_seed(4); m = D.LowRankMultivariateNormal(T.zeros(2, 3), T.ones(3, 1), T.tensor([1., 2., .5])); e = m.expand((4, 2)); (m.sample(), e.batch_shape, e.sample(), e.log_prob(T.ones(3)), e.entropy(), repr(e), m.support, m.arg_constraints)",
    "W = T.tensor([[1., .5], [0., 2.], [-1., 1.]], requires_grad=True); d = T.tensor([1., .5, 2.], requires_grad=True); T.manual_seed(5); x = D.LowRankMultivariateNormal(T.zeros(3), W, d).rsample((2,)); lp = D.LowRankMultivariateNormal(T.zeros(3), W, d).log_prob(T.ones(3)); g = T.autograd.grad(x.sum() + lp, (W, d)); (x, lp, g)",
    "T.manual_seed(41); A = T.randn(3, 3, dtype=T.float64); W = T.randn(2, 3, 2, dtype=T.float64); d = T.rand(3, dtype=T.float64) + .5; p = D.LowRankMultivariateNormal(T.randn(3, dtype=T.float64), W, d); q = D.LowRankMultivariateNormal(T.randn(3, dtype=T.float64), W[0] * 2, d.flip(0)); m = D.MultivariateNormal(T.randn(2, 3, dtype=T.float64), A @ A.T + T.eye(3)); (D.kl_divergence(p, q), D.kl_divergence(q, p), D.kl_divergence(p, m), D.kl_divergence(m, p), D.kl_divergence(m, q))",
    "W = T.tensor([[1., .5], [0., 2.]], dtype=T.float64, requires_grad=True); kl = D.kl_divergence(D.LowRankMultivariateNormal(T.zeros(2, dtype=T.float64), W, T.ones(2, dtype=T.float64)), D.MultivariateNormal(T.ones(2, dtype=T.float64), T.eye(2, dtype=T.float64) * 2)); (kl, T.autograd.grad(kl, W))",
    "D.kl_divergence(D.LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(2)), D.LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(3)))",
    "D.kl_divergence(D.LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(2)), D.MultivariateNormal(T.zeros(3), T.eye(3)))",
    "D.kl_divergence(D.MultivariateNormal(T.zeros(3), T.eye(3)), D.LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(2)))",
    "D.LowRankMultivariateNormal(T.tensor(0.), T.ones(2, 1), T.ones(2))",
    "D.LowRankMultivariateNormal(T.zeros(2), T.ones(2), T.ones(2))",
    "D.LowRankMultivariateNormal(T.zeros(2), T.ones(3, 1), T.ones(2))",
    "D.LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(3))",
    "D.LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), -T.ones(2))",
    "D.LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.tensor([1., 0.]))",
    "D.LowRankMultivariateNormal(T.zeros(2, 2), T.ones(3, 2, 1), T.ones(2))",
    "D.LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(2)).log_prob(T.ones(3))",
    "D.LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(2)).cdf(T.ones(2))",
]


# VonMises: PyTorch's Bessel polynomial fits (values and gradients) and its rejection draws
VON_MISES = [
    "v = D.VonMises(T.tensor([0., 1., -2.]), T.tensor([.5, 3., 20.])); (repr(v), v.log_prob(T.tensor([4., 0., -2.1])), v.mean, v.mode, v.variance, v.support, v.arg_constraints, v.has_rsample, v.batch_shape)",
    "v = D.VonMises(T.tensor([0., 1., -2., .3], dtype=T.float64), T.tensor([.5, 3., 20., 3.75], dtype=T.float64)); (v.log_prob(T.tensor([4., 0., -2.1, 1.], dtype=T.float64)), v.variance)",
    "k = T.tensor([.5, 3., 20.], requires_grad=True); m = T.tensor([.1, .2, .3], requires_grad=True); lp = D.VonMises(m, k).log_prob(T.tensor([1., 0., -1.])); (lp, T.autograd.grad(lp.sum(), (m, k)))",
    "T.manual_seed(0); v = D.VonMises(T.tensor([0., 1., -2.]), T.tensor([.5, 3., 20.])); (v.sample(), v.sample((4,)), T.rand(2))",
    "T.manual_seed(1); v = D.VonMises(T.tensor(3., dtype=T.float64), T.tensor(1e-6, dtype=T.float64)); (v.sample((5,)), T.rand(1))",
    "T.manual_seed(2); v = D.VonMises(T.zeros(2, 1), T.tensor([.01, 1., 100.])); e = v.expand((3, 2, 3)); (e.sample(), repr(e), e.log_prob(T.ones(3)), e.variance, T.rand(1))",
    "T.manual_seed(4); D.VonMises(T.tensor([3., -3.], dtype=T.float64), T.tensor([1e-3, 5.], dtype=T.float64)).sample((200,))",
    "D.VonMises(0., -1.)",
    "D.VonMises(T.tensor([0., float('nan')]), 1.)",
    "D.VonMises(0., 1.).rsample()",
    "D.VonMises(0., 1.).entropy()",
    "D.VonMises(0., 1.).cdf(T.tensor(1.))",
    "D.VonMises(0., 1.).log_prob(1.)",
    "D.kl_divergence(D.VonMises(0., 1.), D.VonMises(0., 2.))",
]


# GeneralizedPareto: its xi -> 0 limits (isclose), out-of-support values and gradients as PyTorch's
GENERALIZED_PARETO = [
    "g = D.GeneralizedPareto(T.tensor([0., 1., -1.]), T.tensor([1., 2., .5]), T.tensor([0., .5, -.5])); x = T.tensor([.5, 2., -.5]); (repr(g), g.support, g.arg_constraints, g.has_rsample, g.log_prob(x), g.cdf(x), g.log_cdf(x), g.log_survival_function(x), g.icdf(T.tensor([.1, .5, .9])), g.entropy(), g.mean, g.mode, g.variance)",
    "g = D.GeneralizedPareto(T.zeros(5), 1., T.tensor([0., .5, 1., 2., -1.]), validate_args=False); x = T.tensor([-1., -1., -1., -1., 3.]); (g.mean, g.variance, g.entropy(), g.log_prob(x), g.cdf(x), g.log_cdf(x), g.log_survival_function(x), g.icdf(T.tensor([0., 1., 1., 0., 1.])), g.icdf(T.tensor([-.1, 1.1, 1.1, 0., 1.5])))",
    "c = T.tensor([0., .5, -.5, 1e-9, -2e-9], requires_grad=True); s = T.tensor([1., 2., .5, 1., 3.], requires_grad=True); m = T.zeros(5, requires_grad=True); g = D.GeneralizedPareto(m, s, c); x = T.tensor([.5, 2., .5, 1., 2.]); fs = (g.log_prob(x), g.cdf(x), g.log_cdf(x), g.log_survival_function(x), g.icdf(T.tensor([.1, .5, .9, .3, .7])), g.entropy(), g.mean, g.variance, g.support.upper_bound); (fs, [T.autograd.grad(f.sum(), (c, s, m), allow_unused=True) for f in fs])",
    "T.manual_seed(0); c = T.tensor([0., .5, -.5], requires_grad=True); g = D.GeneralizedPareto(T.tensor([0., 1., -1.]), T.tensor([1., 2., .5]), c); x = g.rsample((2,)); (x, T.autograd.grad(x.sum(), c), g.sample(), T.rand(1))",
    "T.manual_seed(1); g = D.GeneralizedPareto(T.zeros(2, dtype=T.float64), 1., T.tensor([.3, -.3], dtype=T.float64)); e = g.expand((3, 2)); (e.sample(), repr(e), e.support, e.icdf(T.full((2,), .5, dtype=T.float64)), e.entropy(), e.mean, e.variance)",
    "(D.GeneralizedPareto(0., 1., 0.).support, D.GeneralizedPareto(1., 2., -.5).support, D.GeneralizedPareto(T.tensor([0.]), 1., -.5).support, D.GeneralizedPareto(0., 1., 0.).batch_shape, D.GeneralizedPareto(0., 1., 0.).entropy())",
    "D.GeneralizedPareto(T.zeros(2, dtype=T.float64), 1., .5).log_prob(T.ones(2, dtype=T.float64))",
    "D.GeneralizedPareto(T.zeros(2, dtype=T.float64), 1., .5).cdf(T.ones(2, dtype=T.float64))",
    "D.GeneralizedPareto(T.zeros(2, dtype=T.float16), 1., .5).log_survival_function(T.ones(2, dtype=T.float16))",
    "D.GeneralizedPareto(0., -1., 0.)",
    "D.GeneralizedPareto(0., 1., float('nan'))",
    "D.GeneralizedPareto(T.tensor([0., 1., -1.]), T.tensor([1., 2., .5]), T.tensor([0., .5, -.5])).log_prob(T.tensor([-5., 5., 10.]))",
    "D.GeneralizedPareto(0., 1., -.5).cdf(T.tensor(3.))",
    "D.GeneralizedPareto(0., 1., -.5).log_cdf(T.tensor(3.))",
    "D.GeneralizedPareto(0., 1., -.5).icdf(T.tensor(3.))",
    "D.kl_divergence(D.GeneralizedPareto(0., 1., 0.), D.GeneralizedPareto(0., 1., 0.))",
    "c = T.tensor([1., 2., .5, .7], requires_grad=True); s = T.tensor([1., 2., .5, 1.], requires_grad=True); g = D.GeneralizedPareto(T.zeros(4), s, c); fs = (g.mean, g.variance, g.support.upper_bound); (fs, [T.autograd.grad(f.sum(), (c, s)) for f in fs])",
]


# LKJCholesky: the onion method's draws (Beta, then normal_) and the LKJ normaliser
LKJ_CHOLESKY = [
    "T.manual_seed(0); l = D.LKJCholesky(3, T.tensor([.5, 2.])); x = l.sample(); (repr(l), l.arg_constraints, l.support, l.has_rsample, l.batch_shape, l.event_shape, repr(l._beta), x, l.log_prob(x), T.rand(1))",
    "T.manual_seed(1); l = D.LKJCholesky(4, T.tensor([[.3], [1.], [5.]], dtype=T.float64)); x = l.sample((2,)); (x, l.log_prob(x), C.corr_cholesky.check(x), T.rand(1))",
    "T.manual_seed(2); l = D.LKJCholesky(2); e = l.expand((3,)); x = e.sample(); (repr(l), l.concentration, repr(e), x, e.log_prob(x), l.log_prob(x))",
    "k = T.tensor([.5, 2.], requires_grad=True); x = T.tensor([[1., 0., 0.], [.6, .8, 0.], [0., .6, .8]]); lp = D.LKJCholesky(3, k).log_prob(x); (lp, T.autograd.grad(lp.sum(), k))",
    "T.manual_seed(3); D.LKJCholesky(5, 1.5).sample((2,))",
    "(C.corr_cholesky, C.corr_cholesky.event_dim, C.corr_cholesky.check(T.tensor([[[1., 0.], [.6, .8]], [[1., 0.], [.6, .7]], [[1., .1], [.6, .8]]])))",
    "D.LKJCholesky(1, 1.)",
    "D.LKJCholesky(3, -1.)",
    "D.LKJCholesky(3, T.tensor([[1.]]))",
    "D.LKJCholesky(2.5, -1.)",
    "D.LKJCholesky(3, 'a')",
    "D.LKJCholesky(2, 1.).log_prob(T.tensor([[1., 0.], [.6, .7]]))",
    "D.LKJCholesky(2, 1.).entropy()",
    "D.LKJCholesky(2, 1.).rsample()",
    "D.LKJCholesky(2, 1.).mean",
]


# Wishart: Bartlett draws and PyTorch's follow-up redraw (its warnings), densities, moments
WISHART = [
    "T.manual_seed(0); A = T.tensor([[2., .5], [.5, 1.]]); w = D.Wishart(T.tensor([3., 4.5]), A); x = w.rsample(); (repr(w), w.arg_constraints, w.support, w.has_rsample, w.batch_shape, w.event_shape, x, T.rand(1), w.log_prob(x), w.entropy(), w.mean, w.mode, w.variance, w.scale_tril, w.precision_matrix, repr(w._dist_chi2))",
    "T.manual_seed(2); P = T.tensor([[2., .5], [.5, 1.]], dtype=T.float64); w = D.Wishart(T.tensor([[2.5], [6.]], dtype=T.float64), precision_matrix=P); e = w.expand((3, 2)); (w.rsample((3,)), repr(w), w.scale_tril, repr(e), e.sample(), e.log_prob(T.eye(2, dtype=T.float64)), e.mean, T.rand(1))",
    "T.manual_seed(3); w = D.Wishart(1.2, T.eye(2)); (w.sample((4,)), w.sample((4,), max_try_correction=0), w.rsample(max_try_correction=1), T.rand(1))",
    "df = T.tensor([3., 6.], requires_grad=True); w = D.Wishart(df, T.tensor([[2., .5], [.5, 1.]])); lp = w.log_prob(T.tensor([[1., .2], [.2, 2.]])); (lp, T.autograd.grad(lp.sum() + w.entropy().sum(), df))",
    "D.Wishart(T.tensor(.5), T.eye(2))",
    "D.Wishart(3., T.ones(2))",
    "D.Wishart(3.)",
    "D.Wishart(3., T.eye(2), T.eye(2))",
    "D.Wishart(3., -T.eye(2))",
    "D.Wishart(3., T.eye(2)).log_prob(T.ones(2, 2))",
    "D.Wishart(3., T.eye(2)).log_prob(T.ones(3, 3))",
    "T.manual_seed(1); L = T.tensor([[1., 0.], [.5, 2.]], dtype=T.float64, requires_grad=True); x = D.Wishart(5., scale_tril=L).rsample(); (x, T.autograd.grad(x.sum(), L))",
    "T.manual_seed(1); L = T.tensor([[1., 0.], [.5, 2.]], dtype=T.float64, requires_grad=True); x = D.Wishart(T.tensor([5., 3.], dtype=T.float64), scale_tril=L).rsample(); (x, T.autograd.grad(x.sum(), L))",
    "T.manual_seed(1); L = T.tensor([[1., 0., 0.], [.5, 2., 0.], [-.3, .2, .7]], dtype=T.float64); w = D.Wishart(5., scale_tril=L); x = w.rsample((2,)); (x, w.log_prob(x), w.entropy(), w.covariance_matrix, T.rand(1))",
    "D.kl_divergence(D.Wishart(3., T.eye(2)), D.Wishart(4., T.eye(2) * 2))",
    "A = T.tensor([[2., .5], [.5, 1.]], dtype=T.float64); p = D.Wishart(T.tensor([3., 4.5], dtype=T.float64), A); q = D.Wishart(5., scale_tril=T.tensor([[1., 0.], [.3, .8]], dtype=T.float64)); (D.kl_divergence(p, q), D.kl_divergence(q, p))",
    "df = T.tensor(4., dtype=T.float64, requires_grad=True); kl = D.kl_divergence(D.Wishart(df, T.eye(2, dtype=T.float64)), D.Wishart(3., T.eye(2, dtype=T.float64) * 2)); (kl, T.autograd.grad(kl, df))",
    "D.kl_divergence(D.Wishart(3., T.eye(2)), D.Normal(0., 1.))",
    "D.kl_divergence(D.Wishart(3., T.eye(2)), D.Wishart(3., T.eye(3)))",
]


# CorrCholeskyTransform and biject_to(corr_cholesky)
CORR_CHOLESKY = [
    "t = D.transforms.CorrCholeskyTransform(); x = T.tensor([[.3, -1.2, 2.], [0., 0., 0.]], dtype=T.float64); y = t(x); (repr(t), y, t.inv(y), t.log_abs_det_jacobian(x, y), t.domain, t.codomain, t.bijective, t.event_dim, t == D.transforms.CorrCholeskyTransform(), C.corr_cholesky.check(y))",
    "t = D.transforms.CorrCholeskyTransform(); x = T.tensor([.5, -.4, 1.1, 30., -2., .2], requires_grad=True); y = t(x); j = t.log_abs_det_jacobian(x, y); g = T.autograd.grad(y.sum() + j, x); (y, j, g, t.inv(y.detach()))",
    "t = D.transforms.CorrCholeskyTransform(); (t.forward_shape((2, 6)), t.inverse_shape((3, 4, 4)), t.forward_shape((1,)), t.inverse_shape((2, 2)))",
    "D.transforms.CorrCholeskyTransform().forward_shape((2, 4))",
    "D.transforms.CorrCholeskyTransform().inverse_shape((2, 3))",
    "D.transforms.CorrCholeskyTransform()(T.ones(4))",
    "(D.biject_to(C.corr_cholesky), D.transform_to(C.corr_cholesky), D.transforms.CorrCholeskyTransform().with_cache())",
    "T.manual_seed(5); l = D.LKJCholesky(3, 2.); x = l.sample((2,)); t = D.biject_to(l.support); u = t.inv(x); (u, t(u), t.log_abs_det_jacobian(u, x))",
    "D.transforms.CorrCholeskyTransform()(T.ones(2, 5))",
    "D.transforms.CorrCholeskyTransform()(T.ones(7))",
]


# CatTransform, StackTransform and their constraints (cat, stack) with biject_to/transform_to
CAT_STACK = [
    "Tr = D.transforms; t = Tr.CatTransform([Tr.ExpTransform(), Tr.AffineTransform(1., 2.)], dim=0, lengths=[2, 3]); x = T.arange(5.); y = t(x); (repr(t), y, t.inv(y).round(decimals=4), t.log_abs_det_jacobian(x, y), t.domain, t.codomain, t.bijective, t.event_dim, t.length, t.dim, t.lengths, t.codomain.check(T.tensor([-1., 2., 1., -3., 0.])), t.codomain.event_dim, repr(t.inv), t == t, t == Tr.CatTransform([Tr.ExpTransform()]))",
    "Tr = D.transforms; t = Tr.CatTransform([Tr.StickBreakingTransform(), Tr.ExpTransform()], dim=-1, lengths=[2, 2]); x = T.tensor([[.3, -.5, 1., 2.], [0., 0., 0., 0.]], dtype=T.float64, requires_grad=True); y = t(x); j = t.log_abs_det_jacobian(x, y); (y, j, t.event_dim, t.domain.event_dim, T.autograd.grad(y.sum() + j.sum(), x))",
    "Tr = D.transforms; t = Tr.CatTransform([Tr.ExpTransform(), Tr.SigmoidTransform()], dim=1, lengths=[1, 2]); x = T.tensor([[.3, -.5, 1.], [0., 2., -1.]]); y = t(x); (y, t.inv(y), t.log_abs_det_jacobian(x, y), t.with_cache()._cache_size, t.with_cache(0) is t)",
    "Tr = D.transforms; s = Tr.StackTransform([Tr.ExpTransform(), Tr.AffineTransform(1., 2.)], dim=1); x = T.arange(6.).view(3, 2); y = s(x); (repr(s), y, s.inv(y), s.log_abs_det_jacobian(x, y), s.domain, s.codomain, s.bijective, s.event_dim, s.codomain.check(T.tensor([[-1., 2.], [1., -3.]])), s.with_cache()._cache_size)",
    "(C.cat([C.positive, C.real], 0, [2, 3]).event_dim, C.stack([C.positive, C.simplex]).event_dim, C.stack([C.positive, C.simplex], -1).event_dim, C.cat([C.positive, C.real_vector]).event_dim, C.stack([C.positive, C.real]).is_discrete, C.cat([C.nonnegative_integer, C.real]).is_discrete)",
    "(D.biject_to(C.cat([C.positive, C.real], 0, [2, 3])), D.transform_to(C.stack([C.positive, C.unit_interval], 0)), D.biject_to(C.stack([C.positive, C.unit_interval], 0)).transforms, D.transform_to(C.cat([C.simplex, C.positive], 0, [3, 1])).transforms)",
    "x = T.tensor([.5, -1., 2., .1], requires_grad=True); t = D.biject_to(C.cat([C.positive, C.interval(0., 3.)], 0, [2, 2])); y = t(x); (y, t.inv(y), T.autograd.grad(t.log_abs_det_jacobian(x, y).sum(), x))",
    "D.transforms.CatTransform([D.transforms.ExpTransform()], lengths=[1, 2])",
    "D.transforms.CatTransform([D.transforms.ExpTransform(), 1])",
    "D.transforms.CatTransform([D.transforms.ExpTransform()], lengths=[5])(T.ones(4))",
    "D.transforms.CatTransform([D.transforms.ExpTransform()], dim=2, lengths=[4])(T.ones(4))",
    "D.transforms.CatTransform([D.transforms.ExpTransform()], lengths=[4]).log_abs_det_jacobian(T.ones(4), T.ones(3))",
    "D.transforms.StackTransform([D.transforms.ExpTransform(), D.transforms.ExpTransform()], dim=0)(T.ones(3))",
    "D.transforms.StackTransform([D.transforms.ExpTransform()], dim=1)(T.ones(3))",
    "D.transforms.StackTransform([D.transforms.ExpTransform()]).log_abs_det_jacobian(T.ones(1), T.ones(2))",
    "C.cat([C.positive, C.real], 0, [1])",
    "C.stack([C.positive, 3])",
    "C.stack([C.positive]).check(T.tensor(1.))",
]


@pytest.mark.parametrize(
    "code",
    SAMPLING
    + DENSITIES
    + KL
    + MORE
    + REPRS_ERRORS
    + TRANSFORMS
    + TRANSFORMED
    + FAMILIES
    + GAMMA_FAMILY
    + MORE_FAMILIES
    + MIXTURES
    + HEAVY_TAILS
    + RELAXED
    + REGISTRY
    + GAMMA_TRANSFORMED
    + MVN_KL
    + MORE_TRANSFORMS
    + CONTINUOUS_BERNOULLI
    + LOWRANK_MVN
    + VON_MISES
    + GENERALIZED_PARETO
    + LKJ_CHOLESKY
    + WISHART
    + CORR_CHOLESKY
    + CAT_STACK,
)
def test_same_as_pytorch(code):
    same(_PRE + code, torch, taimatsu)


def test_classes_live_in_pytorchs_modules():
    # `from torch.distributions.beta import Beta` and the like: each class in its PyTorch module.
    import importlib

    missing = []
    for name in taimatsu.distributions.__all__:
        ours, theirs = getattr(taimatsu.distributions, name), getattr(torch.distributions, name)
        if isinstance(theirs, type) and theirs.__module__.startswith("torch.distributions."):
            module = theirs.__module__.replace("torch.", "taimatsu.", 1)
            if getattr(importlib.import_module(module), name, None) is not ours:
                missing.append(f"{module}.{name}")
    assert not missing


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

    before = dict(taimatsu.distributions.kl._KL)

    @D.register_kl(D.Normal, D.Uniform)
    def _kl(p, q):
        return taimatsu.tensor(42.0)

    try:
        assert D.kl_divergence(MyNormal(0.0, 1.0), D.Uniform(0.0, 1.0)).item() == 42.0
        assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 0.0
    finally:  # the registry is global: leave PyTorch's (Normal, Uniform) pair for other tests
        taimatsu.distributions.kl._KL.clear()
        taimatsu.distributions.kl._KL.update(before)


@pytest.mark.parametrize("family", ["Dirichlet", "Beta"])
def test_dirichlet_rsample_gradient(family):
    """The same draws as PyTorch; the gradient through them (implicit reparameterisation)
    agrees with PyTorch's to PyTorch's own approximation error (~1e-3), not to rounding."""
    out = []
    for lib in (torch, taimatsu):
        c = lib.tensor([[0.3, 2.0, 5.0], [1.0, 1.5, 12.0]], dtype=lib.float64, requires_grad=True)
        lib.manual_seed(7)
        if family == "Dirichlet":
            d = lib.distributions.Dirichlet(c)
        else:
            d = lib.distributions.Beta(c[:, 0], c[:, 1] + c[:, 2])
        x = d.rsample((4,))
        cot = lib.linspace(-1.3, 2.1, x.numel(), dtype=lib.float64).sin().view(x.shape)
        (g,) = lib.autograd.grad((x * cot).sum(), c)
        out.append((x.detach().numpy(), g.numpy()))
    (x0, g0), (x1, g1) = out
    np.testing.assert_allclose(x1, x0, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(g1, g0, rtol=5e-3, atol=1e-6)


_KL_FAMILIES = [
    "D.Bernoulli(T.tensor([.3, .6]))",
    "D.Poisson(T.tensor([2., 3.]))",
    "D.Binomial(4, T.tensor([.3, .6]))",
    "D.Beta(T.tensor([2., .7]), T.tensor([3., 1.5]))",
    "D.Exponential(T.tensor([1.5, .5]))",
    "D.Gamma(T.tensor([2., .7]), T.tensor([3., 1.5]))",
    "D.Normal(T.tensor([.3, -1.]), T.tensor([1., 2.]))",
    "D.Uniform(T.tensor([.1, .2]), T.tensor([.5, .9]))",
    "D.Uniform(T.tensor([-.1, .2]), T.tensor([.5, 1.9]))",
    "D.Gumbel(T.tensor([.3, -1.]), T.tensor([1., 2.]))",
    "D.Laplace(T.tensor([.3, -1.]), T.tensor([1., 2.]))",
    "D.Cauchy(T.tensor([.3, -1.]), T.tensor([1., 2.]))",
    "D.Geometric(T.tensor([.3, .6]))",
    "D.HalfNormal(T.tensor([1., 2.]))",
    "D.LogNormal(T.tensor([.3, -1.]), T.tensor([1., 2.]))",
    "D.Dirichlet(T.tensor([[2., .7], [3., 1.5]]))",
    "D.StudentT(T.tensor([2., 5.]))",
    "D.Chi2(T.tensor([2., 5.]))",
    "D.Categorical(T.tensor([.3, .7]))",
    "D.LogisticNormal(T.tensor([.3, -1.]), T.tensor([1., 2.]))",
    "D.Pareto(T.tensor([1., 2.]), T.tensor([.5, 3.]))",
    "D.Pareto(T.tensor([.5, 2.]), T.tensor([1.5, 2.]))",
    "D.Weibull(T.tensor([1., 2.]), T.tensor([.5, 3.]))",
    "D.HalfCauchy(T.tensor([1., 2.]))",
    "D.NegativeBinomial(T.tensor([3., 10.]), T.tensor([.2, .7]))",
    "D.Uniform(T.tensor([2.1, 3.2]), T.tensor([2.5, 3.9]))",
    "D.InverseGamma(T.tensor([2., .7]), T.tensor([3., 1.5]))",
    "D.FisherSnedecor(T.tensor([2., 5.]), T.tensor([3., 7.]))",
    "D.Kumaraswamy(T.tensor([2., .7]), T.tensor([3., 1.5]))",
    "D.RelaxedBernoulli(T.tensor(.5), T.tensor([.2, .7]))",
    "D.Multinomial(3, T.tensor([.2, .8]))",
    "D.MixtureSameFamily(D.Categorical(T.ones(2)), D.Normal(T.zeros(2), 1.))",
    "D.OneHotCategorical(T.tensor([.3, .7]))",
    "D.Independent(D.Normal(T.zeros(2), 1.), 1)",
    "D.MultivariateNormal(T.zeros(2), T.eye(2))",
    "D.ContinuousBernoulli(T.tensor([.2, .7]))",
    "D.ContinuousBernoulli(T.tensor([.4995, .9]))",
    "D.LowRankMultivariateNormal(T.tensor([.5, -1.]), T.eye(2), T.ones(2))",
]


# one pair per KL function PyTorch registers among the families above (indices into
# _KL_FAMILIES), and pairs PyTorch refuses (different exponential families, no pair at all)
_KL_PAIRS = [
    (0, 0), (0, 1), (1, 0), (1, 1), (2, 2), (3, 3), (3, 4), (3, 5), (3, 6), (3, 7), (3, 20),
    (3, 35), (4, 3), (4, 4), (4, 5), (4, 6), (4, 9), (5, 3), (5, 4), (5, 5), (5, 6), (5, 9),
    (6, 3), (6, 6), (6, 9), (6, 10), (7, 3), (7, 4), (7, 5), (7, 6), (7, 7), (7, 9), (7, 20),
    (7, 35), (9, 3), (9, 6), (9, 9), (10, 3), (10, 6), (10, 10), (11, 11), (12, 12), (13, 13),
    (14, 14), (15, 15), (18, 18), (20, 3), (20, 4), (20, 5), (20, 6), (20, 20), (32, 32),
    (33, 33), (34, 34), (35, 4), (35, 6), (35, 7), (35, 20), (35, 35),
    (0, 3), (6, 1), (11, 0), (19, 19), (14, 9), (16, 16), (36, 6), (34, 6),
    (37, 37), (37, 34), (34, 37), (37, 6),
]  # fmt: skip


def test_kl_divergence_registered_pairs():
    """KL for each registered pair (and a few refused ones): PyTorch's value, inf or error."""
    for i, j in _KL_PAIRS:
        same(f"{_PRE}D.kl_divergence({_KL_FAMILIES[i]}, {_KL_FAMILIES[j]})", torch, taimatsu)


@pytest.mark.slow
@pytest.mark.parametrize("p", _KL_FAMILIES)
def test_kl_divergence_every_pair(p):
    """KL(p || q) for q over every family here: PyTorch's value, inf or its error."""
    for q in _KL_FAMILIES:
        same(f"{_PRE}D.kl_divergence({p}, {q})", torch, taimatsu)
