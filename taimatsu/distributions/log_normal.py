"""``torch.distributions.LogNormal``, ``HalfNormal`` and ``LogisticNormal``: a Normal pushed
through ``exp``, ``abs`` and stick-breaking onto the simplex. Samples are the Normal's
(PyTorch's numbers) mapped by the transform."""

from __future__ import annotations

import math

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform, ExpTransform, StickBreakingTransform

__all__ = ["HalfNormal", "LogNormal", "LogisticNormal"]


class LogNormal(TransformedDistribution):
    """exp(X) for X ~ Normal(loc, scale). Its repr shows no parameters (they live on the base
    Normal), as PyTorch's."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}  # noqa: RUF012
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        scale2 = self.scale.pow(2)
        return scale2.expm1() * (2 * self.loc + scale2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class HalfNormal(TransformedDistribution):
    """|X| for X ~ Normal(0, scale)."""

    arg_constraints = {"scale": constraints.positive}  # noqa: RUF012
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        from .. import zeros_like

        return zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value):
        from .. import where

        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class LogisticNormal(TransformedDistribution):
    """StickBreakingTransform(X) for X ~ Normal(loc, scale) over the last dim: a K-vector
    parameter gives a distribution on the (K + 1)-simplex."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}  # noqa: RUF012
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale
