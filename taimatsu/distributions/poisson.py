"""``torch.distributions.Poisson``: counts of a Poisson process (``torch.poisson`` draws:
PyTorch's numbers after a seed)."""

from __future__ import annotations

from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import _NO_SHAPE
from .exp_family import ExponentialFamily
from .exponential import _Rate
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(_Rate, ExponentialFamily):
    """Counts drawn by ``torch.poisson`` (PyTorch's numbers)."""

    arg_constraints = {"rate": constraints.nonnegative}  # noqa: RUF012
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=_NO_SHAPE):
        from .. import poisson

        shape = self._extended_shape(sample_shape)
        with no_grad():
            return poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()
