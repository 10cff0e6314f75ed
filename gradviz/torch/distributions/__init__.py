"""torch.distributions on the engine: PyTorch 2.13's Distribution base, Bernoulli,
Categorical, Normal, OneHotCategorical(StraightThrough), Uniform and kl_divergence, each
the op sequence PyTorch runs, so samples after manual_seed, values, gradients and grad_fn
names agree (docs/limits.md lists what is not here)."""
from . import constraints, kl  # noqa: F401
from .bernoulli import Bernoulli  # noqa: F401
from .categorical import Categorical  # noqa: F401
from .distribution import Distribution  # noqa: F401
from .exp_family import ExponentialFamily  # noqa: F401
from .kl import kl_divergence, register_kl  # noqa: F401
from .normal import Normal  # noqa: F401
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough  # noqa: F401
from .uniform import Uniform  # noqa: F401

__all__ = [
    "Bernoulli", "Categorical", "Distribution", "ExponentialFamily", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Uniform", "kl_divergence", "register_kl",
]
