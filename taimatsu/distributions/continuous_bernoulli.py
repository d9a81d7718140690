"""``torch.distributions.ContinuousBernoulli``: density proportional to p^x (1 - p)^(1 - x) on
[0, 1] (Loaiza-Ganem & Cunningham, 2019). Near p = 1/2 the closed forms lose precision, so
inside ``lims`` the log-normaliser and moments use their Taylor expansions, as PyTorch."""

from __future__ import annotations

import math
from numbers import Number

from .._size import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .exp_family import ExponentialFamily
from .utils import (
    broadcast_all,
    clamp_probs,
    expand_probs_or_logits,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """``rsample`` is ``icdf`` at ``torch.rand`` draws (PyTorch's numbers after a seed)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}  # noqa: RUF012
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
            # checked before clamping, which would make any value pass (PyTorch's order)
            if (
                validate_args is not None
                and not self.arg_constraints["probs"].check(self.probs).all()
            ):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(Size() if is_scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = Size(batch_shape)
        expand_probs_or_logits(self, new, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        from .. import ones_like, where

        inside = self._lims[0] * ones_like(self.probs)
        return where(self._outside_unstable_region(), self.probs, inside)

    def _cont_bern_log_norm(self):
        from .. import ones_like, where, zeros_like

        p = self._cut_probs()
        below_half = where(p <= 0.5, p, zeros_like(p))
        above_half = where(p >= 0.5, p, ones_like(p))
        log_norm = ((-p).log1p() - p.log()).abs().log() - where(
            p <= 0.5, (-2.0 * below_half).log1p(), (2.0 * above_half - 1.0).log()
        )
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        from .. import where

        p = self._cut_probs()
        mus = p / (2.0 * p - 1.0) + 1.0 / ((-p).log1p() - p.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        from .. import where

        p = self._cut_probs()
        variances = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + 1.0 / ((-p).log1p() - p.log()).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), variances, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=_NO_SHAPE):
        from .. import rand
        from ..autograd.grad_mode import no_grad

        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=_NO_SHAPE):
        from .. import rand

        shape = self._extended_shape(sample_shape)
        return self.icdf(rand(shape, dtype=self.probs.dtype, device=self.probs.device))

    def log_prob(self, value):
        from ..nn.functional import binary_cross_entropy_with_logits

        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value):
        from .. import ones_like, where, zeros_like

        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        cdfs = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        unbounded = where(self._outside_unstable_region(), cdfs, value)
        inner = where(value >= 1.0, ones_like(value), unbounded)
        return where(value <= 0.0, zeros_like(value), inner)

    def icdf(self, value):
        from .. import where

        p = self._cut_probs()
        inverted = ((-p + value * (2.0 * p - 1.0)).log1p() - (-p).log1p()) / (
            p.log() - (-p).log1p()
        )
        return where(self._outside_unstable_region(), inverted, value)

    def entropy(self):
        log_probs0 = (-self.probs).log1p()
        log_probs1 = self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0
