"""``torch.distributions.NegativeBinomial``: failures before ``total_count`` successes."""

from __future__ import annotations

from .._size import Size
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .gamma import Gamma
from .utils import (
    BinaryProbsLogits,
    broadcast_all,
    expand_probs_or_logits,
    lazy_property,
)

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryProbsLogits, Distribution):
    """``sample`` is ``torch.poisson`` of a Gamma draw (both replay PyTorch's sampler, so
    PyTorch's numbers after a seed)."""

    arg_constraints = {  # noqa: RUF012
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        expand_probs_or_logits(self, new, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    @property
    def param_shape(self):
        return self._param.size()

    @lazy_property
    def _gamma(self):
        # not validated: a total_count of 0 is allowed here
        return Gamma(self.total_count, (-self.logits).exp(), validate_args=False)

    def sample(self, sample_shape=_NO_SHAPE):
        from .. import poisson

        with no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        from ..nn.functional import logsigmoid

        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_unnormalized = n * logsigmoid(-logits) + value * logsigmoid(logits)
        log_normalization = -(n + value).lgamma() + (1.0 + value).lgamma() + n.lgamma()
        # n = 0 and value = 0 has probability 1, though lgamma(0) is infinite
        log_normalization = log_normalization.masked_fill(n + value == 0.0, 0.0)
        return log_unnormalized - log_normalization
