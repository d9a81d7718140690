"""``torch.distributions.RelaxedBernoulli`` (and its logit, ``LogitRelaxedBernoulli`` in
``torch.distributions.relaxed_bernoulli``): a reparameterised stand-in for a Bernoulli draw at a
``temperature`` (Concrete / Gumbel-softmax). Samples use ``torch.rand`` clamped away from 0 and
1, as PyTorch's: PyTorch's numbers after a seed."""

from __future__ import annotations

from numbers import Number

from .._size import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import (
    BinaryProbsLogits,
    broadcast_all,
    clamp_probs,
    expand_probs_or_logits,
)

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


def _rand(shape, like):
    from .. import rand

    return clamp_probs(rand(shape, dtype=like.dtype, device=like.device))


class LogitRelaxedBernoulli(BinaryProbsLogits, Distribution):
    """The logit of a RelaxedBernoulli sample."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}  # noqa: RUF012
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch = Size() if is_scalar else self._param.size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        expand_probs_or_logits(self, new, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self):
        return self._param.size()

    def rsample(self, sample_shape=_NO_SHAPE):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = _rand(shape, probs)
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """sigmoid of a LogitRelaxedBernoulli sample: values in (0, 1)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}  # noqa: RUF012
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
