"""``torch.distributions.LKJCholesky``: the LKJ distribution over correlation matrices, on their
lower Cholesky factors (density proportional to det(corr)^(concentration - 1))."""

from __future__ import annotations

import math

from .._size import Size
from . import constraints
from .beta import Beta
from .distribution import _NO_SHAPE, Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


def _onion_beta(dim: int, concentration):
    """The Beta of the onion method (Ghosh & Henderson; Lewandowski, Kurowicka & Joe): row i of
    the factor has squared off-diagonal norm ~ Beta(i'/2, eta + (d - 2)/2 - i'/2) with
    i' = 0, 0, 1, ..., d - 2 (row 0's draw is unused, kept for PyTorch's stream)."""
    from .. import arange, cat, zeros

    opts = {"dtype": concentration.dtype, "device": concentration.device}
    offset = cat((zeros(1, **opts), arange(dim - 1, **opts)))
    marginal = concentration + 0.5 * (dim - 2)
    return Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)


class LKJCholesky(Distribution):
    """``sample`` draws PyTorch's numbers: the onion method's Beta draws (``_sample_dirichlet``),
    then one ``normal_`` matrix whose strictly lower rows are normalised onto the sphere."""

    arg_constraints = {"concentration": constraints.positive}  # noqa: RUF012
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        if not isinstance(dim, int):  # torch.Size's refusal, before the Beta as in PyTorch
            raise TypeError(
                f"torch.Size() takes an iterable of 'int' (item 0 is '{type(dim).__name__}')"
            )
        event_shape = Size((dim, dim))
        self._beta = _onion_beta(dim, self.concentration)  # before validation, as PyTorch
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=_NO_SHAPE):
        from .. import finfo, no_grad, randn

        with no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            shape = self._extended_shape(sample_shape)
            normal = randn(shape, dtype=y.dtype, device=y.device).tril(-1)
            on_sphere = normal / normal.norm(dim=-1, keepdim=True)
            on_sphere[..., 0, :] = 0.0  # row 0 divided 0 by 0: its off-diagonal is empty
            w = y.sqrt() * on_sphere
            tiny = finfo(w.dtype).tiny
            diagonal = (1 - w.pow(2).sum(-1)).clamp(min=tiny).sqrt()
            return w + diagonal.diag_embed()

    def log_prob(self, value):
        from .. import arange, lgamma, mvlgamma

        if self._validate_args:
            self._validate_sample(value)
        d = self.dim
        eta = self.concentration
        # density of the factor: prod over rows i = 2..d of L_ii^(d - i + 2 eta - 2)
        powers = arange(2, d + 1, dtype=eta.dtype, device=eta.device)
        powers = 2 * (eta - 1).unsqueeze(-1) + d - powers
        unnormalized = (powers * value.diagonal(dim1=-2, dim2=-1)[..., 1:].log()).sum(-1)
        # its normaliser (the LKJ paper's, in multivariate log-gammas)
        alpha = eta + 0.5 * (d - 1)
        log_normalizer = (
            0.5 * (d - 1) * math.log(math.pi)
            + mvlgamma(alpha - 0.5, d - 1)
            - lgamma(alpha) * (d - 1)
        )
        return unnormalized - log_normalizer
