"""``torch.distributions.Wishart``: the distribution of ``sum x_i x_i^T`` over ``df`` Gaussian
vectors of a given covariance (or precision, or lower Cholesky factor of the covariance)."""

from __future__ import annotations

import math
import warnings
from numbers import Number

from .._size import Size
from . import constraints
from .chi2 import Chi2
from .distribution import _NO_SHAPE
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _bartlett_chi2(df, p: int, dtype, device):
    """Chi2(df - i) for i < p: the squared diagonal of Bartlett's factor."""
    from .. import arange

    return Chi2(df.unsqueeze(-1) - arange(p, dtype=dtype, device=device).expand(df.shape + (-1,)))


def _mvdigamma(x, p: int):
    """The multivariate digamma: sum over i < p of digamma(x - i / 2)."""
    from .. import arange

    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = arange(p, dtype=x.dtype, device=x.device).div(2)
    return (x.unsqueeze(-1) - halves.expand(x.shape + (-1,))).digamma().sum(-1)


class Wishart(ExponentialFamily):
    """``rsample`` draws by Bartlett's decomposition as PyTorch: the Chi2 diagonal (PyTorch's gamma
    draws), then one ``randn`` for the strictly lower part, ``L A A^T L^T``. Its follow-up
    replays PyTorch's: the samples its support check *passes* are flagged (PyTorch's test
    lacks a negation), which warns "Singular sample detected." and draws them again, up to
    ``max_try_correction`` rounds while the redraws fail the check; so a seeded program draws
    PyTorch's numbers and leaves the generator where PyTorch does."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(
        self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None
    ):
        from .. import broadcast_shapes, tensor
        from ..linalg import cholesky

        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix),
                 ("precision_matrix", precision_matrix), ("scale_tril", scale_tril)) if m is not None]  # fmt: skip
        if len(given) != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified."
            )
        name, param = given[0]
        if param.dim() < 2:  # PyTorch names scale_tril whichever was given
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch dimensions"
            )
        if isinstance(df, Number):
            batch_shape = Size(param.shape[:-2])
            self.df = tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = Size(broadcast_shapes(param.shape[:-2], df.shape))
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if self.df.le(p - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        setattr(self, name, param.expand(batch_shape + (-1, -1)))
        if self.df.lt(p).any():
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = param
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = cholesky(param)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(param)
        lower = self._unbroadcasted_scale_tril
        self._dist_chi2 = _bartlett_chi2(self.df, p, lower.dtype, lower.device)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        matrix_shape = batch_shape + self._event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(matrix_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(matrix_shape))
        lower = new._unbroadcasted_scale_tril
        new._dist_chi2 = _bartlett_chi2(new.df, self._event_shape[-1], lower.dtype, lower.device)
        ExponentialFamily.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> Size:
        return self._batch_shape + self._event_shape

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

    def _df_matrix(self):
        return self.df.view(self._batch_shape + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        from .. import where

        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = where(factor <= 0, math.nan, factor)
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        cov = self.covariance_matrix
        diag = cov.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (cov.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape):
        from .. import finfo, randn, tril_indices, zeros

        p = self._event_shape[-1]
        root = self._dist_chi2.rsample(sample_shape).sqrt()
        diagonal = root.clamp(min=finfo(root.dtype).eps).diag_embed(dim1=-2, dim2=-1)
        rows, cols = tril_indices(p, p, offset=-1)
        shape = Size(sample_shape) + self._batch_shape
        below = zeros(shape + (p, p), dtype=diagonal.dtype, device=diagonal.device)
        below[..., rows, cols] = randn(shape + (p * (p - 1) // 2,), dtype=diagonal.dtype,
                                       device=diagonal.device)  # fmt: skip
        factor = self._unbroadcasted_scale_tril @ (diagonal + below)
        return factor @ factor.mT

    def _flag(self, sample):
        """PyTorch's per-sample flag: the support check itself, any over the batch."""
        flag = self.support.check(sample)
        return flag.amax(self._batch_dims) if self._batch_shape else flag

    def rsample(self, sample_shape=_NO_SHAPE, max_try_correction=None):
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        flagged = self._flag(sample)
        if not flagged.any():
            return sample
        warnings.warn("Singular sample detected.", stacklevel=2)
        for _ in range(max_try_correction):
            count = int(flagged.sum())
            redrawn = self._bartlett_sampling(Size((count,)))
            sample[flagged] = redrawn
            # the redraws that fail the check stay flagged
            still = ~self.support.check(redrawn)
            still = still.amax(self._batch_dims) if self._batch_shape else still
            if flagged.dim() == 0:
                flagged = still[0]
            else:  # in place, as PyTorch: backward through the redraw then refuses (version)
                flagged[flagged.clone()] = still
            if not flagged.any():
                break
        return sample

    def _half_log_det_scale(self):
        diag = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1)
        return self._event_shape[-1] * _LOG_2 / 2 + diag.log().sum(-1)

    def log_prob(self, value):
        from .. import cholesky_solve, mvlgamma
        from ..linalg import slogdet

        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        trace = cholesky_solve(value, self._unbroadcasted_scale_tril)
        trace = trace.diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (
            -nu * self._half_log_det_scale()
            - mvlgamma(nu / 2, p=p)
            + (nu - p - 1) / 2 * slogdet(value).logabsdet
            - trace / 2
        )

    def entropy(self):
        from .. import mvlgamma

        nu = self.df
        p = self._event_shape[-1]
        return (
            (p + 1) * self._half_log_det_scale()
            + mvlgamma(nu / 2, p=p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
            + nu * p / 2
        )

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        from .. import mvlgamma
        from ..linalg import slogdet

        p = self._event_shape[-1]
        half = y + (p + 1) / 2
        return half * (-slogdet(-2 * x).logabsdet + _LOG_2 * p) + mvlgamma(half, p=p)
