"""``torch.distributions.Kumaraswamy``: (1 - (1 - U) ** (1 / b)) ** (1 / a) for U uniform, a
Beta look-alike with a closed-form cdf."""

from __future__ import annotations

from .._size import Size
from . import constraints
from .gumbel import _EULER
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """E[X ** n] = b * B(1 + n / a, b)."""
    arg1 = 1 + n / a
    return b * (arg1.lgamma() + b.lgamma() - (arg1 + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """Samples are the Uniform's (``rand``: PyTorch's numbers) transformed."""

    arg_constraints = {  # noqa: RUF012
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        from .. import full_like

        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        c0 = self.concentration0
        base_dist = Uniform(full_like(c0, 0), full_like(c0, 1), validate_args=validate_args)
        transforms = [
            PowerTransform(exponent=c0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(Size(batch_shape))
        new.concentration0 = self.concentration0.expand(Size(batch_shape))
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        # PyTorch's expression, in log space: NaN wherever concentration0 >= 1 too
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        log_mode[(b < 1) | (a < 1)] = float("nan")
        return log_mode.exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = (self.concentration0 + 1).digamma() + _EULER
        return t0 + t1 * h0 - self.concentration1.log() - self.concentration0.log()
