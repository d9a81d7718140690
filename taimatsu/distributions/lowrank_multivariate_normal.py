"""``torch.distributions.LowRankMultivariateNormal``: a Gaussian over vectors whose covariance is
``W @ W.mT + diag(D)`` (``cov_factor`` W of rank m, ``cov_diag`` D), handled through the m x m
capacitance matrix ``I + W.mT D^-1 W`` (Woodbury identity, matrix determinant lemma)."""

from __future__ import annotations

import math

from .._size import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _capacitance_tril(cov_factor, cov_diag):
    """Lower Cholesky factor of ``I + W.mT D^-1 W`` (m x m, m the rank)."""
    from .. import eye
    from ..linalg import cholesky

    rank = cov_factor.shape[-1]
    scaled = cov_factor.mT / cov_diag.unsqueeze(-2)
    ident = eye(rank, dtype=cov_factor.dtype, device=cov_factor.device)
    return cholesky(ident + scaled @ cov_factor)


def _lowrank_log_det(cov_diag, capacitance_tril):
    """log det(W W^T + D) = log det(capacitance) + log det(D) (the matrix determinant lemma)."""
    diag = capacitance_tril.diagonal(dim1=-2, dim2=-1)
    return 2 * diag.log().sum(-1) + cov_diag.log().sum(-1)


def _lowrank_mahalanobis(cov_factor, cov_diag, diff, capacitance_tril):
    """x^T (W W^T + D)^-1 x by Woodbury: x^T D^-1 x - ||C^-1 W^T D^-1 x||^2, C the capacitance
    factor (no n x n matrix is formed)."""
    from .. import broadcast_shapes
    from ..linalg import solve_triangular

    scaled = (cov_factor.mT / cov_diag.unsqueeze(-2)) @ diff.unsqueeze(-1)
    rank = capacitance_tril.shape[-1]
    batch = broadcast_shapes(capacitance_tril.shape[:-2], scaled.shape[:-2])
    solved = solve_triangular(
        capacitance_tril.expand(batch + (rank, rank)), scaled.expand(batch + (rank, 1)), upper=False
    )
    return (diff.pow(2) / cov_diag).sum(-1) - solved.squeeze(-1).pow(2).sum(-1)


class LowRankMultivariateNormal(Distribution):
    """``rsample`` is ``loc + W @ eps_W + sqrt(D) * eps_D``, both from ``normal_()`` (eps_W of the
    rank's size first), as PyTorch draws them."""

    arg_constraints = {  # noqa: RUF012
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        from .. import broadcast_tensors

        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        n = loc.shape[-1]
        if cov_factor.dim() < 2:
            raise ValueError(
                "cov_factor must be at least two-dimensional, with optional leading batch dimensions"
            )
        if cov_factor.shape[-2:-1] != (n,):
            raise ValueError(f"cov_factor must be a batch of matrices with shape {n} x m")
        if cov_diag.shape[-1:] != (n,):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {loc.shape[-1:]}")
        try:
            loc_, self.cov_factor, diag_ = broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1)
            )
        except RuntimeError as e:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                f"cov_diag {cov_diag.shape}"
            ) from e
        self.loc = loc_[..., 0]
        self.cov_diag = diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        # before validation, as PyTorch: a non-positive cov_diag can fail here first
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], loc.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape + self._event_shape)
        new.cov_diag = self.cov_diag.expand(batch_shape + self._event_shape)
        new.cov_factor = self.cov_factor.expand(batch_shape + self.cov_factor.shape[-2:])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> Size:
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (w.pow(2).sum(-1) + d).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (w @ w.mT + d.diag_embed()).expand(self._matrix_shape())

    @lazy_property
    def scale_tril(self):
        from ..linalg import cholesky

        # the factor of W W^T + D itself: D is positive, so it is positive definite
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return cholesky(w @ w.mT + d.diag_embed()).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        from ..linalg import solve_triangular

        # Woodbury: D^-1 - (C^-1 W^T D^-1)^T (C^-1 W^T D^-1)
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        scaled = w.mT / d.unsqueeze(-2)
        a = solve_triangular(self._capacitance_tril, scaled, upper=False)
        return ((1.0 / d).diag_embed() - a.mT @ a).expand(self._matrix_shape())

    def rsample(self, sample_shape=_NO_SHAPE):
        from .. import empty

        shape = self._extended_shape(sample_shape)
        w = self._unbroadcasted_cov_factor
        opts = {"dtype": self.loc.dtype, "device": self.loc.device}
        eps_w = empty(shape[:-1] + w.shape[-1:], **opts).normal_()
        eps_d = empty(shape, **opts).normal_()
        low_rank = (w @ eps_w.unsqueeze(-1)).squeeze(-1)
        return self.loc + low_rank + self._unbroadcasted_cov_diag.sqrt() * eps_d

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        d = self._unbroadcasted_cov_diag
        mahalanobis = _lowrank_mahalanobis(
            self._unbroadcasted_cov_factor, d, diff, self._capacitance_tril
        )
        log_det = _lowrank_log_det(d, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + mahalanobis + log_det)

    def entropy(self):
        log_det = _lowrank_log_det(self._unbroadcasted_cov_diag, self._capacitance_tril)
        h = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
