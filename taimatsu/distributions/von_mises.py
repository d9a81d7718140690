"""``torch.distributions.VonMises``: a circular distribution on [-pi, pi) with density
``exp(concentration * cos(x - loc)) / (2 pi I0(concentration))``."""

from __future__ import annotations

import math

from .._size import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Abramowitz & Stegun 9.8.1-9.8.4 (the polynomial fits PyTorch evaluates, so that log_prob and
# its gradient in the concentration are PyTorch's, not the exact Bessel function's): I_n(x) for
# x < 3.75 as a polynomial in (x / 3.75)^2 (times x for n = 1), and x^1/2 e^-x I_n(x) beyond as
# a polynomial in 3.75 / x. Coefficients from the lowest power up.
_SMALL = (
    (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2),
    (0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3),
)
_LARGE = (
    (0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
     -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2),
    (0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
     0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2),
)  # fmt: skip


def _horner(coefficients, y):
    result = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel(x, order: int):
    """log I_order(x) for x >= 0 (order 0 or 1), by the polynomial fits above."""
    from .. import where

    y = x / 3.75
    small = _horner(_SMALL[order], y * y).log()
    if order == 1:
        small = x.log() + small
    large = x - 0.5 * x.log() + _horner(_LARGE[order], 1.0 / y).log()
    return where(x < 3.75, small, large)


def _best_fisher(loc, concentration, proposal_r, shape):
    """Best & Fisher's (1979) rejection sampler, in float64: each round draws one ``rand`` of
    shape (3, *shape) (the proposal's angle, the acceptance test, the sign), and an element keeps
    the first proposal it accepts; the result is wrapped to [-pi, pi)."""
    from .. import bool as bool_
    from .. import float64, rand, where, zeros

    x = zeros(shape, dtype=float64, device=loc.device)
    done = zeros(shape, dtype=bool_, device=loc.device)
    while not done.all():
        u1, u2, u3 = rand((3, *shape), dtype=float64, device=loc.device).unbind()
        z = (math.pi * u1).cos()
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if accept.any():
            x = where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """``sample`` replays PyTorch's draws (Best & Fisher's rejection loop in float64: one
    ``rand((3, *shape))`` per round until every element accepted); no ``rsample``."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}  # noqa: RUF012
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        density = k * (value - self.loc).cos()
        return density - math.log(2 * math.pi) - _log_modified_bessel(k, order=0)

    @lazy_property
    def _loc(self):
        from .. import float64

        return self.loc.to(float64)

    @lazy_property
    def _concentration(self):
        from .. import float64

        return self.concentration.to(float64)

    @lazy_property
    def _proposal_r(self):
        from .. import where

        k = self._concentration
        tau = 1 + (1 + 4 * k**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * k)
        # (1 + rho^2) / (2 rho) loses every digit as kappa -> 0: its expansion there
        return where(k < 1e-5, 1 / k + k, (1 + rho**2) / (2 * rho))

    def sample(self, sample_shape=_NO_SHAPE):
        from .. import no_grad

        shape = self._extended_shape(sample_shape)
        with no_grad():
            x = _best_fisher(self._loc, self._concentration, self._proposal_r, shape)
        return x.to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(VonMises, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        k = self.concentration
        ratio = (_log_modified_bessel(k, order=1) - _log_modified_bessel(k, order=0)).exp()
        return 1 - ratio
