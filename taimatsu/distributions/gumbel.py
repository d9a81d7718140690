"""``torch.distributions.Gumbel``: the law of a maximum, built as PyTorch builds it (a Uniform
on [tiny, 1 - eps] through -log, -log and an affine map), so samples are PyTorch's numbers."""

from __future__ import annotations

import math
from numbers import Number

from .. import _dtype as D
from .._size import Size
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Gumbel"]

_EULER = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}  # noqa: RUF012
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        from .. import full_like, ones_like

        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = D.finfo(self.loc.dtype)
        if isinstance(loc, Number) and isinstance(scale, Number):
            base_dist = Uniform(finfo.tiny, 1 - finfo.eps, validate_args=validate_args)
        else:
            low = full_like(self.loc, finfo.tiny)
            high = full_like(self.loc, 1 - finfo.eps)
            base_dist = Uniform(low, high, validate_args=validate_args)
        transforms = [
            ExpTransform().inv,
            AffineTransform(loc=0, scale=-ones_like(self.scale)),
            ExpTransform().inv,
            AffineTransform(loc=self.loc, scale=-self.scale),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(Size(batch_shape))
        new.scale = self.scale.expand(Size(batch_shape))
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + _EULER)
