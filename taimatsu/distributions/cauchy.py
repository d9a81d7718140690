"""``torch.distributions.Cauchy``: a location-scale family sampled by one ``cauchy_`` call
(PyTorch's numbers after a seed)."""

from __future__ import annotations

import math

from .distribution import _NO_SHAPE
from .laplace import _LocScale

__all__ = ["Cauchy"]


class Cauchy(_LocScale):
    """``rsample`` is ``loc + cauchy_() * scale`` (PyTorch's numbers); no mean or variance."""

    @property
    def mean(self):
        from .. import full

        return full(self._extended_shape(), math.nan, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def variance(self):
        from .. import full

        return full(self._extended_shape(), math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape=_NO_SHAPE):
        shape = self._extended_shape(sample_shape)
        eps = self.loc.new(shape).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (z**2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
