"""``torch.distributions.ExponentialFamily``: the base PyTorch gives its exponential-family
distributions (Bernoulli, Beta, Chi2, Dirichlet, Exponential, Gamma, Normal, Poisson).

Here it marks the family (``isinstance`` and KL lookup as in PyTorch: a KL between two
different exponential families raises PyTorch's NotImplementedError); the natural-parameter
machinery PyTorch uses for a generic Bregman-divergence KL and entropy is not provided, since
every family here has its own closed forms."""

from __future__ import annotations

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    pass
