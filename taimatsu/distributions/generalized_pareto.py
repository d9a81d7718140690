"""``torch.distributions.GeneralizedPareto``: the peaks-over-threshold family with ``loc``,
``scale`` and ``concentration`` (xi); xi = 0 is the exponential limit, xi < 0 a bounded support."""

from __future__ import annotations

import math

from .._size import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """``rsample`` is ``icdf(rand(shape))`` (PyTorch's numbers). Each formula takes its xi -> 0
    limit where |xi| <= 1e-8, by ``where`` against a xi of 1 (so the gradient in xi is 0 there,
    as PyTorch's); values outside the support follow PyTorch's (``xlog1py``, nan where a log1p is)."""

    arg_constraints = {  # noqa: RUF012
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _xi(self, against_default_dtype: bool):
        """(xi is close to 0, xi with those replaced by 1): the mask and a safe divisor.
        PyTorch tests ``isclose(xi, 0)`` (|xi| <= 1e-8); in log_prob and the survival function
        against a default-dtype zero, so that another dtype raises isclose's error there."""
        from .. import isclose, tensor, where, zeros_like

        xi = self.concentration
        # isclose refuses two dtypes ("Double did not match Float"), as PyTorch's
        zero = isclose(
            xi, tensor(0.0, device=xi.device) if against_default_dtype else zeros_like(xi)
        )
        return zero, where(zero, 1.0, xi)

    def _z(self, value):
        return (value - self.loc) / self.scale

    def rsample(self, sample_shape=_NO_SHAPE):
        from .. import rand

        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        from .. import where
        from ..special import xlog1py

        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, xi = self._xi(True)
        # xlog1py: a zero power (xi == -1) gives 0 even beyond the support's end, as PyTorch's
        tail = where(zero, z, xlog1py(1 / xi + 1, xi * z))
        return -self.scale.log() - tail

    def log_survival_function(self, value):
        from .. import where

        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, xi = self._xi(True)
        return where(zero, -z, -(xi * z).log1p() / xi)

    def log_cdf(self, value):
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        from .. import where

        zero, xi = self._xi(False)
        log_tail = (-value).log1p()  # log(1 - p)
        exponential = self.loc - self.scale * log_tail
        return where(zero, exponential, self.loc + self.scale * (-xi * log_tail).expm1() / xi)

    @property
    def mean(self):
        from .. import where

        xi = self.concentration
        finite = xi < 1
        safe = where(finite, xi, 0.0)  # masked before 1 - xi: a +0 gradient where infinite
        return where(finite, self.loc + self.scale / (1 - safe), math.nan)

    @property
    def variance(self):
        from .. import where

        xi = self.concentration
        finite = xi < 0.5
        safe = where(finite, xi, 0.0)
        return where(finite, self.scale.pow(2) / ((1 - safe).pow(2) * (1 - 2 * safe)), math.nan)

    def entropy(self):
        return (self.scale.log() + self.concentration + 1).expand(self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        from .. import where

        xi = self.concentration
        # no safe divisor, as PyTorch: its gradient at xi == 0 is nan
        end = self.loc - self.scale / xi
        return constraints.interval(self.loc, where(xi < 0, end, math.inf))
