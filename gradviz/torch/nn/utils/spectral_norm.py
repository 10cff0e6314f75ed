"""The hook-based spectral normalisation: ``weight`` becomes ``weight_orig`` with the
buffers ``weight_u`` and ``weight_v``, and before each forward the weight is divided by
its largest singular value, estimated by power iteration (in training mode) from the
vectors kept in the buffers. ``u`` and ``v`` start as normalised draws of PyTorch's normal
stream (``u`` first), so a seeded run draws what PyTorch draws.

Left out: PyTorch's state-dict hooks, which only version the saved keys for its loaders
of checkpoints older than 1.0 (the engine's Module keeps no state-dict metadata)."""
from ... import _errors_nn_utils as E
from ..._namespace import F as _F
from ...autograd.grad_mode import no_grad
from .. import functional as F_nn
from ..parameter import Parameter

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


def _normalize_into(out, x, eps):
    """F.normalize(x, dim=0, eps=eps, out=out): written into out's storage."""
    out.copy_(x / x.norm(2, 0, keepdim=True).clamp(min=eps).expand_as(x))
    return out


class SpectralNorm:
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise E.power_iterations(n_power_iterations)
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        height = weight_mat.size(0)
        return weight_mat.reshape(height, -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v = _normalize_into(v, _F.mv(weight_mat.t(), u), self.eps)
                    u = _normalize_into(u, _F.mv(weight_mat, v), self.eps)
                # clones, so that the backward sees the u and v of this forward
                u = u.clone()
                v = v.clone()
        sigma = _F.dot(u, _F.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise E.two_hooks("spectral_norm", name)
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise E.spectral_norm_none(name)
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = F_nn.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F_nn.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    if dim is None:
        transposed = type(module).__name__ in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
        dim = 1 if transposed else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise E.hook_not_found("spectral_norm", name, module)
