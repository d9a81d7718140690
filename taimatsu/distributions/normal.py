"""``torch.distributions.Normal``: Gaussian with mean ``loc`` and standard deviation ``scale``."""

from __future__ import annotations

import math
from numbers import Number, Real

from .._size import Size
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    """``rsample`` is ``loc + eps * scale`` with ``eps`` from ``normal_()`` (differentiable in
    both parameters); ``sample`` draws ``torch.normal(loc, scale)``: the same numbers."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}  # noqa: RUF012
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        scalars = isinstance(loc, Number) and isinstance(scale, Number)
        super().__init__(Size() if scalars else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=_NO_SHAPE):
        from .. import normal

        shape = self._extended_shape(sample_shape)
        with no_grad():
            return normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=_NO_SHAPE):
        from .. import empty

        shape = self._extended_shape(sample_shape)
        eps = empty(shape, dtype=self.loc.dtype, device=self.loc.device).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        log_scale = math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        from .. import erf

        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        from .. import erfinv

        return self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
