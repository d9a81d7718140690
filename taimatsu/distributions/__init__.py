"""``torch.distributions``: probability distributions with PyTorch's sampling streams,
log-densities, validation errors, reprs and KL pairs (see docs/distributions.md).

Here: ``Distribution``, ``ExponentialFamily``, ``Bernoulli``, ``Binomial``, ``Categorical``,
``OneHotCategorical`` (+``StraightThrough``), ``Geometric``, ``Poisson``, ``NegativeBinomial``,
``Multinomial``, ``Normal``, ``MultivariateNormal``, ``LowRankMultivariateNormal``, ``LogNormal``, ``HalfNormal``,
``LogisticNormal``, ``Uniform``, ``Exponential``, ``Laplace``, ``Cauchy``, ``HalfCauchy``,
``Gumbel``, ``VonMises``, ``Pareto``, ``GeneralizedPareto``, ``Weibull``, ``Gamma``, ``Chi2``, ``InverseGamma``, ``StudentT``,
``FisherSnedecor``, ``Beta``, ``Kumaraswamy``, ``ContinuousBernoulli``, ``Dirichlet``, ``LKJCholesky``, ``Wishart``, the relaxed
(Gumbel-softmax) ones, ``Independent``, ``TransformedDistribution``, ``MixtureSameFamily``;
``transforms``, ``biject_to``/``transform_to``, ``kl_divergence``/``register_kl`` and
``constraints``. Samples come from the same generator calls as PyTorch's (``multinomial``,
``normal_``, ``bernoulli``, ``rand``, ``uniform_``, ``exponential_``, ``cauchy_``, ``poisson``,
``binomial``), and Gamma-based draws replay PyTorch's CPU sampler (``torch._standard_gamma``), so
a seeded program draws PyTorch's numbers. Dirichlet/Beta ``rsample`` gradients agree with
PyTorch's to its approximation error (~1e-3), not to rounding.
"""

from __future__ import annotations

from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "Bernoulli",
    "Beta",
    "Binomial",
    "CatTransform",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ComposeTransform",
    "ContinuousBernoulli",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "Dirichlet",
    "Distribution",
    "ExpTransform",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "IndependentTransform",
    "InverseGamma",
    "Kumaraswamy",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LowRankMultivariateNormal",
    "LowerCholeskyTransform",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "StudentT",
    "TanhTransform",
    "Transform",
    "TransformedDistribution",
    "Uniform",
    "VonMises",
    "Weibull",
    "Wishart",
    "biject_to",
    "identity_transform",
    "kl_divergence",
    "register_kl",
    "transform_to",
]
