"""torch.distributions on the engine: PyTorch 2.13's Distribution base and the distributions,
transforms, constraints, constraint registries (biject_to / transform_to) and KL divergences
listed in docs/api-coverage.md, each the op sequence PyTorch runs, so samples after
manual_seed, values, gradients and grad_fn names agree (docs/real-pytorch.md says what is not here)."""
from ..nn.modules.module import torch_module_name
from . import (bernoulli, categorical, cauchy, constraint_registry, constraints, distribution, exp_family,  # noqa: F401
               exponential, geometric, gumbel, half_normal, independent, kl, kl_continuous, laplace, log_normal,
               normal, one_hot_categorical, pareto, transformed_distribution, transforms, transforms_elementwise,
               transforms_structured, uniform, utils)
from .bernoulli import Bernoulli  # noqa: F401
from .categorical import Categorical  # noqa: F401
from .cauchy import Cauchy  # noqa: F401
from .constraint_registry import biject_to, transform_to  # noqa: F401
from .distribution import Distribution  # noqa: F401
from .exp_family import ExponentialFamily  # noqa: F401
from .exponential import Exponential  # noqa: F401
from .geometric import Geometric  # noqa: F401
from .gumbel import Gumbel  # noqa: F401
from .half_normal import HalfCauchy, HalfNormal  # noqa: F401
from .independent import Independent  # noqa: F401
from .kl import kl_divergence, register_kl  # noqa: F401
from .laplace import Laplace  # noqa: F401
from .log_normal import LogNormal  # noqa: F401
from .normal import Normal  # noqa: F401
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough  # noqa: F401
from .pareto import Pareto, Weibull  # noqa: F401
from .transformed_distribution import TransformedDistribution  # noqa: F401
from .transforms import *  # noqa: F401,F403 - PyTorch exports every transform at the package level
from .uniform import Uniform  # noqa: F401

__all__ = [
    "Bernoulli", "Categorical", "Cauchy", "Distribution", "Exponential", "ExponentialFamily", "Geometric", "Gumbel",
    "HalfCauchy", "HalfNormal", "Independent", "Laplace", "LogNormal", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Pareto", "TransformedDistribution", "Uniform", "Weibull", "biject_to",
    "kl_divergence", "register_kl", "transform_to", *transforms.__all__,
]

# type(d) prints as PyTorch's <class 'torch.distributions.normal.Normal'>, and so do the
# messages that name a class. The transforms all live in torch.distributions.transforms, and
# HalfCauchy in half_cauchy, Weibull in weibull.
_PYTORCH_MODULE = {"transforms_elementwise": "transforms", "transforms_structured": "transforms"}
for _module in (bernoulli, categorical, cauchy, constraint_registry, constraints, distribution, exp_family,
                exponential, geometric, gumbel, half_normal, independent, laplace, log_normal, normal,
                one_hot_categorical, pareto, transformed_distribution, transforms_elementwise, transforms_structured,
                uniform, utils):
    _short = _module.__name__.rpartition(".")[2]
    torch_module_name(vars(_module), "torch.distributions." + _PYTORCH_MODULE.get(_short, _short))
HalfCauchy.__module__ = "torch.distributions.half_cauchy"
Weibull.__module__ = "torch.distributions.weibull"

from . import (kl_multivariate, lowrank_multivariate_normal, mixture_same_family, multivariate_normal,  # noqa: E402
               relaxed_bernoulli, relaxed_categorical)
from .lowrank_multivariate_normal import LowRankMultivariateNormal  # noqa: E402,F401
from .mixture_same_family import MixtureSameFamily  # noqa: E402,F401
from .multivariate_normal import MultivariateNormal  # noqa: E402,F401
from .relaxed_bernoulli import RelaxedBernoulli  # noqa: E402,F401 - its base only in the submodule, as in PyTorch
from .relaxed_categorical import RelaxedOneHotCategorical  # noqa: E402,F401

__all__ += ["LowRankMultivariateNormal", "MixtureSameFamily", "MultivariateNormal", "RelaxedBernoulli",
            "RelaxedOneHotCategorical"]
for _module in (lowrank_multivariate_normal, mixture_same_family, multivariate_normal, relaxed_bernoulli,
                relaxed_categorical):
    torch_module_name(vars(_module), "torch.distributions." + _module.__name__.rpartition(".")[2])


# The Gamma family and the counting distributions.
from . import dirichlet, gamma, kl_gamma, poisson, student_t  # noqa: E402,F401
from .dirichlet import Beta, Dirichlet  # noqa: E402,F401
from .gamma import Chi2, Gamma, InverseGamma  # noqa: E402,F401
from .poisson import Binomial, NegativeBinomial, Poisson  # noqa: E402,F401
from .student_t import FisherSnedecor, Kumaraswamy, StudentT  # noqa: E402,F401

__all__ += ["Beta", "Binomial", "Chi2", "Dirichlet", "FisherSnedecor", "Gamma", "InverseGamma", "Kumaraswamy",
            "NegativeBinomial", "Poisson", "StudentT"]
for _module, _short in ((dirichlet, "dirichlet"), (gamma, "gamma"), (kl_gamma, "kl"), (poisson, "poisson"),
                        (student_t, "studentT")):
    torch_module_name(vars(_module), "torch.distributions." + _short)
for _cls, _short in ((Beta, "beta"), (Binomial, "binomial"), (Chi2, "chi2"), (InverseGamma, "inverse_gamma"),
                     (NegativeBinomial, "negative_binomial"), (StudentT, "studentT"),
                     (FisherSnedecor, "fishersnedecor"), (Kumaraswamy, "kumaraswamy")):
    _cls.__module__ = "torch.distributions." + _short


# The last names: Multinomial, ContinuousBernoulli, LogisticNormal, GeneralizedPareto, VonMises.
from . import (continuous_bernoulli, generalized_pareto, kl_continuous_bernoulli, lkj_cholesky,  # noqa: E402
               logistic_normal, multinomial, von_mises)
from .continuous_bernoulli import ContinuousBernoulli  # noqa: E402,F401
from .generalized_pareto import GeneralizedPareto  # noqa: E402,F401
from .lkj_cholesky import LKJCholesky  # noqa: E402,F401
from .logistic_normal import LogisticNormal  # noqa: E402,F401
from .multinomial import Multinomial  # noqa: E402,F401
from .von_mises import VonMises  # noqa: E402,F401

__all__ += ["ContinuousBernoulli", "GeneralizedPareto", "LKJCholesky", "LogisticNormal", "Multinomial", "VonMises"]
for _module in (continuous_bernoulli, generalized_pareto, lkj_cholesky, logistic_normal, multinomial, von_mises):
    torch_module_name(vars(_module), "torch.distributions." + _module.__name__.rpartition(".")[2])
torch_module_name(vars(kl_continuous_bernoulli), "torch.distributions.kl")

from .. import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
