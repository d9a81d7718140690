"""``torch.distributions.Exponential``: waiting times of a Poisson process, parameterised by a
rate (``_Rate``, shared with ``Poisson``)."""

from __future__ import annotations

from numbers import Number

from .._size import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Exponential"]


class _Rate(Distribution):
    """Shared by the two: one ``rate`` parameter, broadcast to a tensor."""

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch = Size() if isinstance(rate, Number) else self.rate.size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        batch_shape = Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new


class Exponential(_Rate, ExponentialFamily):
    """``rsample`` is ``exponential_()`` draws divided by the rate (PyTorch's numbers)."""

    arg_constraints = {"rate": constraints.positive}  # noqa: RUF012
    support = constraints.nonnegative
    has_rsample = True

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        from .. import zeros_like

        return zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=_NO_SHAPE):
        from .. import empty

        shape = self._extended_shape(sample_shape)
        draws = empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_()
        return draws / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        return -(-value).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()
