"""``torch.distributions.Gamma``."""

from __future__ import annotations

from numbers import Number

from .. import _dtype as D
from .._size import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """``rsample`` is ``torch._standard_gamma(concentration) / rate``: PyTorch's numbers after a
    seed, and PyTorch's reparameterised gradient in both parameters."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}  # noqa: RUF012
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalars = isinstance(concentration, Number) and isinstance(rate, Number)
        batch = Size() if scalars else self.concentration.size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=_NO_SHAPE):
        from .. import _standard_gamma

        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=D.finfo(value.dtype).tiny)  # a huge rate underflows to 0
        return value

    def log_prob(self, value):
        from .. import as_tensor

        value = as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return c.xlogy(self.rate) + (c - 1).xlogy(value) - self.rate * value - c.lgamma()

    def entropy(self):
        c = self.concentration
        return c - self.rate.log() + c.lgamma() + (1.0 - c) * c.digamma()

    def cdf(self, value):
        from ..special import gammainc

        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)
