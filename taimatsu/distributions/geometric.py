"""``torch.distributions.Geometric``: the number of failures before the first success."""

from __future__ import annotations

from numbers import Number

from .. import _dtype as D
from .._size import Size
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .utils import (
    BinaryProbsLogits,
    broadcast_all,
    expand_probs_or_logits,
)

__all__ = ["Geometric"]


class Geometric(BinaryProbsLogits, Distribution):
    """Given ``probs`` or ``logits``. ``sample`` is floor(log(u) / log1p(-p)) with u from
    ``uniform_(tiny, 1)``: PyTorch's draw, so PyTorch's numbers."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}  # noqa: RUF012
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        given = probs if probs is not None else logits
        batch = Size() if isinstance(given, Number) else given.size()
        super().__init__(batch, validate_args=validate_args)
        if self._validate_args and probs is not None:
            self._check_positive()

    def _check_positive(self) -> None:
        """p = 0 lies in the unit interval but gives no distribution (PyTorch's extra check)."""
        value = self.probs
        valid = value > 0
        if not valid.all():
            raise ValueError(
                f"Expected parameter probs ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) of distribution {self!r} to be positive but found "
                f"invalid values:\n{value.data[~valid]}"
            )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = Size(batch_shape)
        expand_probs_or_logits(self, new, batch_shape, param=False)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        from .. import zeros_like

        return zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=_NO_SHAPE):
        shape = self._extended_shape(sample_shape)
        tiny = D.finfo(self.probs.dtype).tiny
        with no_grad():
            u = self.probs.new(shape).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0  # 0 * log(0) is 0 here, not nan
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        from ..nn.functional import binary_cross_entropy_with_logits

        bce = binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs
