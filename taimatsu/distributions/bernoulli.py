"""``torch.distributions.Bernoulli``: 1 with probability ``probs`` (or ``sigmoid(logits)``)."""

from __future__ import annotations

import math
from numbers import Number

from .._size import Size
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .exp_family import ExponentialFamily
from .utils import (
    BinaryProbsLogits,
    broadcast_all,
    expand_probs_or_logits,
)

__all__ = ["Bernoulli"]


class Bernoulli(BinaryProbsLogits, ExponentialFamily):
    """Samples are 0./1. in the parameter's dtype; log_prob and entropy go through
    ``binary_cross_entropy_with_logits`` as PyTorch's do."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}  # noqa: RUF012
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
            self._param = self.probs
        else:
            scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        super().__init__(Size() if scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = Size(batch_shape)
        expand_probs_or_logits(self, new, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape=_NO_SHAPE):
        from .. import bernoulli

        shape = self._extended_shape(sample_shape)
        with no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        from ..nn.functional import binary_cross_entropy_with_logits

        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        from ..nn.functional import binary_cross_entropy_with_logits

        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True):
        from .. import arange

        values = arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + self._batch_shape) if expand else values
