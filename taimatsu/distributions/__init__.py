"""``torch.distributions``: probability distributions with PyTorch's sampling streams,
log-densities, validation errors and reprs.

Here: ``Distribution``, ``Categorical``, ``Normal``, ``Bernoulli``, ``Uniform``, ``Exponential``,
``Poisson``, ``Independent``, ``OneHotCategorical``, ``MultivariateNormal``,
``kl_divergence``/``register_kl`` (their pairs) and ``constraints``. Samples come from the same
generator calls as PyTorch's (``multinomial``, ``normal``/``normal_``, ``bernoulli``, ``rand``),
so a seeded program draws PyTorch's numbers. Other distributions (Beta, Gamma, Dirichlet,
Binomial, transforms...) are not provided yet.
"""

from __future__ import annotations

from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical, OneHotCategorical
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson_process import Exponential, Poisson
from .uniform import Uniform

__all__ = [
    "Bernoulli",
    "Categorical",
    "Distribution",
    "Exponential",
    "Independent",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Poisson",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
