"""torch.distributions on the engine: PyTorch 2.13's Distribution base, Bernoulli,
Categorical, Normal, OneHotCategorical(StraightThrough), Uniform and kl_divergence, each
the op sequence PyTorch runs, so samples after manual_seed, values, gradients and grad_fn
names agree (docs/real-pytorch.md says what is not here)."""
from ..nn.modules.module import torch_module_name
from . import (bernoulli, categorical, constraints, distribution, exp_family, kl, normal,  # noqa: F401
               one_hot_categorical, uniform, utils)
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

# type(d) prints as PyTorch's <class 'torch.distributions.normal.Normal'>, and so do the
# messages that name a class.
for _module in (bernoulli, categorical, constraints, distribution, exp_family, normal, one_hot_categorical, uniform,
                utils):
    torch_module_name(vars(_module), _module.__name__.partition(".")[2])


from .. import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
