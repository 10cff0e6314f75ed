"""The hook-based weight normalisation (deprecated in PyTorch for
parametrizations.weight_norm, and still public): ``weight`` becomes ``weight_g`` (its norm
over every dim but ``dim``) and ``weight_v`` (its direction), recombined before each forward
by a forward pre-hook.

PyTorch computes the recombination with ``torch._weight_norm``, which for ``dim`` 0 or the
last dim is one fused node (``WeightNormInterfaceBackward0``); the engine has no such node
and records it as its composite, ``v * (g / norm_except_dim(v))``, the very formula
PyTorch takes for every other ``dim``."""
import warnings

from ... import _errors_nn_utils as E
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of v over every dim but dim, kept in v's shape (size 1 elsewhere);
    dim -1 means the norm of the whole tensor (0-dim)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        return v.contiguous().view(v.size(0), -1).norm(pow, dim=1).view([v.size(0)] + [1] * (v.dim() - 1))
    if dim == v.dim() - 1:
        return v.contiguous().view(-1, v.size(-1)).norm(pow, dim=0).view([1] * (v.dim() - 1) + [v.size(-1)])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


class WeightNorm:
    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / norm_except_dim(v, 2, self.dim))

    @staticmethod
    def apply(module, name, dim):
        warnings.warn(E.WEIGHT_NORM_DEPRECATED, FutureWarning, stacklevel=2)  # at its caller, weight_norm(), as PyTorch's decorator reports it
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise E.two_hooks("weight_norm", name)
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise E.hook_not_found("weight_norm", name, module)


