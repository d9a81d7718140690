"""``torch.distributions.MultivariateNormal``: a Gaussian over vectors, given by a covariance,
a precision or a lower Cholesky factor of the covariance."""

from __future__ import annotations

import math

from .._size import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def _precision_to_scale_tril(precision):
    """The lower Cholesky factor of precision^-1, through the flipped matrix's Cholesky factor
    (no explicit inverse of the precision)."""
    from .. import eye, flip
    from ..linalg import cholesky, solve_triangular

    flipped = cholesky(flip(precision, (-2, -1)))
    inverse_factor = flip(flipped, (-2, -1)).transpose(-2, -1)
    ident = eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return solve_triangular(inverse_factor, ident, upper=False)


class MultivariateNormal(Distribution):
    """``rsample`` is ``loc + L @ eps`` with ``eps`` from ``normal_()``, L the lower Cholesky
    factor; ``log_prob`` solves with L (a Mahalanobis distance) and adds log det L."""

    arg_constraints = {  # noqa: RUF012
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ):
        from .. import broadcast_shapes
        from ..linalg import cholesky

        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, scale_tril, precision_matrix)]
        if sum(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified."
            )
        name, matrix = next(
            (n, m)
            for n, m in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                         ("precision_matrix", precision_matrix))
            if m is not None
        )  # fmt: skip
        if matrix.dim() < 2:
            label = "scale_tril matrix" if name == "scale_tril" else name  # PyTorch's wording
            raise ValueError(
                f"{label} must be at least two-dimensional, with optional leading batch dimensions"
            )
        batch_shape = Size(broadcast_shapes(matrix.shape[:-2], loc.shape[:-1]))
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> Size:
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        lower = self._unbroadcasted_scale_tril
        return (lower @ lower.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        from .. import cholesky_inverse

        return cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        lower = self._unbroadcasted_scale_tril
        return lower.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=_NO_SHAPE):
        from .. import empty

        shape = self._extended_shape(sample_shape)
        eps = empty(shape, dtype=self.loc.dtype, device=self.loc.device).normal_()
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        from .. import broadcast_shapes
        from ..linalg import solve_triangular

        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        lower = self._unbroadcasted_scale_tril
        shape = broadcast_shapes(lower.shape[:-2], diff.shape[:-1])
        n = self._event_shape[0]
        solved = solve_triangular(
            lower.expand(shape + (n, n)), diff.expand(shape + (n,)).unsqueeze(-1), upper=False
        ).squeeze(-1)
        mahalanobis = solved.pow(2).sum(-1)
        return -0.5 * (n * math.log(2 * math.pi) + mahalanobis) - self._half_log_det()

    def entropy(self):
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
