"""``torch.distributions.Laplace`` and ``Cauchy``: two location-scale families sampled by one
tensor call each (``uniform_`` and ``cauchy_``, so PyTorch's numbers after a seed)."""

from __future__ import annotations

import math
from numbers import Number

from .. import _dtype as D
from .._size import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .utils import broadcast_all

__all__ = ["Cauchy", "Laplace"]


class _LocScale(Distribution):
    """``loc`` and ``scale`` broadcast to one shape; ``expand`` expands both."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}  # noqa: RUF012
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        scalars = isinstance(loc, Number) and isinstance(scale, Number)
        super().__init__(Size() if scalars else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mode(self):
        return self.loc


class Laplace(_LocScale):
    """``rsample`` inverts the cdf at ``uniform_(eps - 1, 1)`` draws (PyTorch's numbers)."""

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2**0.5) * self.scale

    def rsample(self, sample_shape=_NO_SHAPE):
        shape = self._extended_shape(sample_shape)
        eps = D.finfo(self.loc.dtype).eps
        u = self.loc.new(shape).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * (-d.abs() / self.scale).expm1()

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()


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
