"""``torch.distributions.kl_divergence`` and ``register_kl``: KL(p || q) by the pair of types,
the most specific registered pair winning."""

from __future__ import annotations

import math

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import _EULER, Gumbel
from .half_normal import HalfNormal
from .independent import Independent, _sum_rightmost
from .laplace import Laplace
from .lowrank_multivariate_normal import (
    LowRankMultivariateNormal,
    _lowrank_log_det,
    _lowrank_mahalanobis,
)
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_KL = {}  # (type of p, type of q) -> function(p, q)


def register_kl(type_p, type_q):
    """Decorator: ``fn(p, q)`` computes KL(p || q) for p of ``type_p`` and q of ``type_q``."""

    def register(fn):
        _KL[type_p, type_q] = fn
        return fn

    return register


def _lookup(tp, tq):
    matches = [
        (tp.__mro__.index(a) + tq.__mro__.index(b), fn)
        for (a, b), fn in _KL.items()
        if issubclass(tp, a) and issubclass(tq, b)
    ]
    return min(matches, key=lambda m: m[0])[1] if matches else None


def kl_divergence(p, q):
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
            f"{q.__class__.__name__}"
        )
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    from ..nn.functional import softplus

    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = math.inf
    return result


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    t1 = -rate_ratio.log()
    return t1 + rate_ratio - 1


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    """Only for the same transforms (then KL is the bases'), as PyTorch."""
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    return -scale_ratio.log() + loc_abs_diff / q.scale + t3 - 1


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t3 = (ct2 + (1 + ct1).lgamma() - ct3).exp()
    return t1 + ct1 * _EULER + t3 - (1 + _EULER)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (sum_q - sum_p) * sum_p.digamma()
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if (p.total_count < q.total_count).any():
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented"
        )
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    kl[p.total_count > q.total_count] = math.inf  # q cannot reach p's top counts
    return kl


# ---- pairs of different families ------------------------------------------------------------------
def _x_log_x(t):
    return t * t.log()


def _infinite_like(t):
    from .. import full_like

    return full_like(t, math.inf)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    mean = p.concentration1 / (p.concentration1 + p.concentration0)
    return -p.entropy() - q.rate.log() + q.rate * mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    c1, c0 = p.concentration1, p.concentration0
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (c1.digamma() - (c1 + c0).digamma())
    t4 = q.rate * c1 / (c1 + c0)
    return -p.entropy() + t2 - t3 + t4


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    c1, c0 = p.concentration1, p.concentration0
    mean = c1 / (c1 + c0)
    var_normal = q.scale.pow(2)
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (mean * (1 - mean) / (c1 + c0 + 1) + mean.pow(2)) * 0.5
    t4 = q.loc * mean
    t5 = q.loc.pow(2) * 0.5
    return -p.entropy() + t2 + (t3 - t4 + t5) / var_normal


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    result[(q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)] = math.inf
    return result


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    t1 = -q.concentration * ratio.log()
    return t1 + ratio + q.concentration.lgamma() + q.concentration * _EULER - (1 + _EULER)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    scale_rate_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = scale_rate_prod.log() - 1
    t2 = loc_scale_ratio.exp() * scale_rate_prod / (scale_rate_prod + 1)
    return t1 - loc_scale_ratio + t2 + scale_rate_prod.reciprocal()


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * (rate_sqr * var_normal * 2 * math.pi).log()
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc.pow(2) * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * (p.concentration / p.rate)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    c = p.concentration
    beta_scale_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = (c - 1) * c.digamma() - c.lgamma() - c
    t2 = beta_scale_prod.log() + c / beta_scale_prod
    t3 = loc_scale_ratio.exp() * (1 + beta_scale_prod.reciprocal()).pow(-c) - loc_scale_ratio
    return t1 + t2 + t3


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    c = p.concentration
    var_normal = q.scale.pow(2)
    beta_sqr = p.rate.pow(2)
    t1 = 0.5 * (beta_sqr * var_normal * 2 * math.pi).log() - c - c.lgamma()
    t2 = 0.5 * (c.pow(2) + c) / beta_sqr
    t3 = q.loc * c / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 + (c - 1) * c.digamma() + (t2 - t3 + t4) / var_normal


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_normal = q.scale.pow(2)
    scale_sqr_var_ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * (2 * scale_sqr_var_ratio / math.pi).log()
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + scale_sqr_var_ratio + (t2 - t3 + t4) / var_normal - 1


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_scale_ratio = p.loc / q.scale
    var_scale_sqr_ratio = (p.scale / q.scale).pow(2)
    loc_scale_ratio = q.loc / q.scale
    t1 = var_scale_sqr_ratio.log() * 0.5
    t2 = mean_scale_ratio - loc_scale_ratio
    t3 = (-mean_scale_ratio + 0.5 * var_scale_sqr_ratio + loc_scale_ratio).exp()
    return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    from .. import erf

    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    loc_diff_scale_ratio = loc_diff / p.scale
    t1 = scale_ratio.log()
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * loc_diff_scale_ratio.pow(2)).exp()
    t3 = loc_diff * erf(math.sqrt(0.5) * loc_diff_scale_ratio)
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    t1 = width.log()
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = (
        q.concentration1.lgamma()
        + q.concentration0.lgamma()
        - (q.concentration1 + q.concentration0).lgamma()
    )
    result = t3 + t4 - t1 - t2
    result[(p.high > q.support.upper_bound) | (p.low < q.support.lower_bound)] = math.inf
    return result


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    result[p.low < q.support.lower_bound] = math.inf
    return result


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t4 = q.rate * (p.high + p.low) / 2
    result = -width.log() + t2 + t3 + t4
    result[p.low < q.support.lower_bound] = math.inf
    return result


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    common = q.scale / (p.high - p.low)
    high_loc_diff = (p.high - q.loc) / q.scale
    low_loc_diff = (p.low - q.loc) / q.scale
    t1 = common.log() + 0.5 * (high_loc_diff + low_loc_diff)
    t2 = common * ((-high_loc_diff).exp() - (-low_loc_diff).exp())
    return t1 - t2


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """Reached only when no pair above matches, as in PyTorch (whose message this is)."""
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot"
            "                             be computed using Bregman divergences"
        )
    if hasattr(p, "_natural_params"):
        return _bregman_kl(p, q)
    # every other family here has its own pair above
    raise NotImplementedError(
        f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
        f"{q.__class__.__name__}"
    )


def _bregman_kl(p, q):
    """KL within one exponential family: the Bregman divergence of the log-normaliser A between
    the natural parameters, A(eta_q) - A(eta_p) - <eta_q - eta_p, grad A(eta_p)>, the gradient by
    autograd (each term summed over the event dims, as PyTorch does for every parameter)."""
    from ..autograd import grad

    p_params = [t.detach().requires_grad_() for t in p._natural_params]
    q_params = q._natural_params
    p_log_normalizer = p._log_normalizer(*p_params)
    gradients = grad(p_log_normalizer.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - p_log_normalizer
    for p_param, q_param, g in zip(p_params, q_params, gradients):
        result = result - _sum_rightmost((q_param - p_param) * g, len(q.event_shape))
    return result


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    # -H(p) + E_p[-log q]: Gumbel's mean loc + scale * gamma, variance (pi * scale)^2 / 6
    var_normal = q.scale.pow(2)
    t1 = 0.5 * (2 * math.pi * var_normal).log() - p.scale.log() - (1 + _EULER)
    second_moment = (math.pi * p.scale).pow(2) / 6 + (p.loc + p.scale * _EULER - q.loc).pow(2)
    return t1 + second_moment / (2 * var_normal)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    result[p.support.lower_bound < q.support.lower_bound] = math.inf
    return result


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    scale_rate_prod = p.scale * q.rate
    t1 = (p.alpha / scale_rate_prod).log()
    t3 = p.alpha * scale_rate_prod / (p.alpha - 1)
    result = t1 - p.alpha.reciprocal() + t3 - 1
    result[p.alpha <= 1] = math.inf  # p has no mean
    return result


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    common = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    result = t1 + t2 + t3 + t4 - 1
    result[p.alpha <= 1] = math.inf
    return result


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    var_normal = 2 * q.scale.pow(2)
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).pow(2)
    result = t1 - p.alpha.reciprocal() + (t3 + t4) / var_normal - 1
    result[p.alpha <= 2] = math.inf  # p has no variance
    return result


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = t2 * (q.alpha + 1) - t1
    result[p.low < q.support.lower_bound] = math.inf
    return result


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + (-p.probs).log1p()
    t3 = -q._cont_bern_log_norm() - (-q.probs).log1p()
    return t1 + t2 + t3


def _cross_entropy_continuous_bernoulli(p, q):
    """-E_p[log q] for q continuous Bernoulli and p on [0, 1] with a mean."""
    return -p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() + _cross_entropy_continuous_bernoulli(p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    from .. import ones_like, where

    result = -p.entropy() + _cross_entropy_continuous_bernoulli(p, q)
    outside = (p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound)
    return where(outside, ones_like(result) * math.inf, result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).square()) + q.scale.log()
    t3 = (p.variance + p.mean.square() - 2.0 * q.loc * p.mean) / (2.0 * q.scale.square())
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    from .. import ones_like, where

    result = -p.entropy() + (q.high - q.low).log()
    outside = (q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound)
    return where(outside, ones_like(result) * math.inf, result)


# a q whose support misses part of p's: KL is infinite
def _register_infinite(pairs, param):
    for tp, tq in pairs:
        register_kl(tp, tq)(lambda p, q: _infinite_like(getattr(p, param)))


_register_infinite(
    [
        (Exponential, Beta),
        (Exponential, ContinuousBernoulli),
        (Exponential, Pareto),
        (Exponential, Uniform),
        (Poisson, Bernoulli),
        (Poisson, Binomial),
    ],
    "rate",
)
_register_infinite(
    [(Gamma, Beta), (Gamma, ContinuousBernoulli), (Gamma, Pareto), (Gamma, Uniform)],
    "concentration",
)
_register_infinite([(Beta, Pareto)], "concentration1")
_register_infinite([(ContinuousBernoulli, Pareto)], "probs")
_register_infinite([(Pareto, Beta), (Pareto, ContinuousBernoulli), (Pareto, Uniform)], "scale")
_register_infinite(
    [
        (Gumbel, Beta),
        (Gumbel, ContinuousBernoulli),
        (Gumbel, Exponential),
        (Gumbel, Gamma),
        (Gumbel, Pareto),
        (Gumbel, Uniform),
        (Laplace, Beta),
        (Laplace, ContinuousBernoulli),
        (Laplace, Exponential),
        (Laplace, Gamma),
        (Laplace, Pareto),
        (Laplace, Uniform),
        (Normal, Beta),
        (Normal, ContinuousBernoulli),
        (Normal, Exponential),
        (Normal, Gamma),
        (Normal, Pareto),
        (Normal, Uniform),
    ],
    "loc",
)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    from .. import broadcast_shapes
    from ..linalg import solve_triangular

    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with"
            "                          different event shapes cannot be computed"
        )
    p_tril, q_tril = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = q._half_log_det() - p._half_log_det()
    n = p.event_shape[0]
    diff = q.loc - p.loc
    batch = broadcast_shapes(q_tril.shape[:-2], p_tril.shape[:-2], diff.shape[:-1])
    q_tril = q_tril.expand(batch + (n, n))
    # trace(Sq^-1 Sp) = ||Lq^-1 Lp||_F^2; the Mahalanobis term ||Lq^-1 (mq - mp)||^2
    term2 = (
        solve_triangular(q_tril, p_tril.expand(batch + (n, n)), upper=False).pow(2).sum((-2, -1))
    )
    solved = solve_triangular(q_tril, diff.expand(batch + (n,)).unsqueeze(-1), upper=False)
    term3 = solved.squeeze(-1).pow(2).sum(-1)
    return half_term1 + 0.5 * (term2 + term3 - n)


# KL between Gaussians given as LowRankMultivariateNormal or MultivariateNormal: with Sp = F F^T
# (F = [Wp, sqrt(Dp)] for a low-rank p, Lp otherwise) the trace term is ||Lq^-1 F||_F^2, or by
# Woodbury ||F / sqrt(Dq)||_F^2 - ||Cq^-1 Wq^T Dq^-1 F||_F^2 for a low-rank q.


def _gaussian_factor(p):
    """F with F F^T the covariance of p, unbroadcasted."""
    from .. import broadcast_shapes, cat

    if isinstance(p, LowRankMultivariateNormal):
        w, d = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
        batch = broadcast_shapes(w.shape[:-2], d.shape[:-1])
        n = d.shape[-1]
        diag = d.sqrt().diag_embed().expand(batch + (n, n))
        return cat((w.expand(batch + w.shape[-2:]), diag), -1)
    return p._unbroadcasted_scale_tril


def _gaussian_log_det(p):
    if isinstance(p, LowRankMultivariateNormal):
        return _lowrank_log_det(p._unbroadcasted_cov_diag, p._capacitance_tril)
    return 2 * p._half_log_det()


def _trace_q_inv_p(q, factor):
    from .. import broadcast_shapes
    from ..linalg import solve_triangular

    if isinstance(q, LowRankMultivariateNormal):
        w, d, cap = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, q._capacitance_tril
        scaled = (w.mT / d.unsqueeze(-2)) @ factor
        batch = broadcast_shapes(cap.shape[:-2], scaled.shape[:-2])
        rank = cap.shape[-1]
        a = solve_triangular(
            cap.expand(batch + (rank, rank)), scaled.expand(batch + scaled.shape[-2:]), upper=False
        )
        whitened = factor.pow(2) / d.unsqueeze(-1)
        return whitened.sum((-2, -1)) - a.pow(2).sum((-2, -1))
    tril = q._unbroadcasted_scale_tril
    batch = broadcast_shapes(tril.shape[:-2], factor.shape[:-2])
    n = tril.shape[-1]
    solved = solve_triangular(
        tril.expand(batch + (n, n)), factor.expand(batch + factor.shape[-2:]), upper=False
    )
    return solved.pow(2).sum((-2, -1))


def _mahalanobis_q(q, diff):
    from .. import broadcast_shapes
    from ..linalg import solve_triangular

    if isinstance(q, LowRankMultivariateNormal):
        w, d = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
        return _lowrank_mahalanobis(w, d, diff, q._capacitance_tril)
    tril = q._unbroadcasted_scale_tril
    batch = broadcast_shapes(tril.shape[:-2], diff.shape[:-1])
    n = tril.shape[-1]
    solved = solve_triangular(
        tril.expand(batch + (n, n)), diff.expand(batch + (n,)).unsqueeze(-1), upper=False
    )
    return solved.squeeze(-1).pow(2).sum(-1)


def _kl_gaussians(p, q, message):
    if p.event_shape != q.event_shape:
        raise ValueError(message)
    term1 = _gaussian_log_det(q) - _gaussian_log_det(p)
    term2 = _trace_q_inv_p(q, _gaussian_factor(p))
    term3 = _mahalanobis_q(q, q.loc - p.loc)
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


_MIXED_MESSAGE = (
    "KL-divergence between two (Low Rank) Multivariate Normals with"
    "                          different event shapes cannot be computed"
)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    return _kl_gaussians(
        p,
        q,
        "KL-divergence between two Low Rank Multivariate Normals with"
        "                          different event shapes cannot be computed",
    )


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    return _kl_gaussians(p, q, _MIXED_MESSAGE)


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    return _kl_gaussians(p, q, _MIXED_MESSAGE)
