"""``torch.distributions``: probability distributions with PyTorch's sampling streams,
log-densities, validation errors and reprs.

Here: ``Distribution``, ``Categorical``, ``Normal``, ``Bernoulli``, ``Uniform``, ``Exponential``,
``Poisson``, ``Independent``, ``OneHotCategorical``, ``MultivariateNormal``,
``TransformedDistribution`` with ``transforms`` (exp, affine, sigmoid, tanh, power, softmax,
stick-breaking, abs, compose), ``LogNormal``, ``HalfNormal``, ``Laplace``, ``Cauchy``,
``Gumbel``, ``Geometric``, ``kl_divergence``/``register_kl`` (their pairs) and
``constraints``. Samples come from the same
generator calls as PyTorch's (``multinomial``, ``normal``/``normal_``, ``bernoulli``, ``rand``, ``uniform_``,
``cauchy_``),
so a seeded program draws PyTorch's numbers. Other distributions (Beta, Gamma, Dirichlet,
Binomial, StudentT...) are not provided yet.
"""

from __future__ import annotations

from . import constraints, transforms
from .bernoulli import Bernoulli
from .categorical import Categorical, OneHotCategorical
from .distribution import Distribution
from .geometric import Geometric
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Cauchy, Laplace
from .log_normal import HalfNormal, LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson_process import Exponential, Poisson
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    SoftmaxTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
)
from .uniform import Uniform

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "Bernoulli",
    "Categorical",
    "Cauchy",
    "ComposeTransform",
    "Distribution",
    "ExpTransform",
    "Exponential",
    "Geometric",
    "Gumbel",
    "HalfNormal",
    "Independent",
    "Laplace",
    "LogNormal",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Poisson",
    "PowerTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "TransformedDistribution",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transforms",
]
