"""``torch.distributions.Independent``: a distribution whose rightmost batch dims are read as
event dims (a diagonal Gaussian as one multivariate event, say)."""

from __future__ import annotations

from .._size import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution

__all__ = ["Independent"]


def _sum_rightmost(value, dims: int):
    return value.reshape(value.shape[: value.dim() - dims] + (-1,)).sum(-1) if dims else value


class Independent(Distribution):
    """``log_prob`` and ``entropy`` sum the base's over the reinterpreted dims; sampling is the
    base's."""

    arg_constraints = {}  # noqa: RUF012

    def __init__(self, base_distribution, reinterpreted_batch_ndims: int, validate_args=None):
        n = reinterpreted_batch_ndims
        base_batch = base_distribution.batch_shape
        if n > len(base_batch):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {n} vs {len(base_batch)}"
            )
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        cut = len(base_batch) - n
        event = base_batch[cut:] + base_distribution.event_shape
        super().__init__(base_batch[:cut], event, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = Size(batch_shape)
        n = self.reinterpreted_batch_ndims
        new.base_dist = self.base_dist.expand(batch_shape + self.event_shape[:n])
        new.reinterpreted_batch_ndims = n
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        return False if self.reinterpreted_batch_ndims > 0 else self.base_dist.has_enumerate_support

    @property
    def support(self):
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=_NO_SHAPE):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=_NO_SHAPE):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
