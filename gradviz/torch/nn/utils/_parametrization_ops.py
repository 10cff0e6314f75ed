"""The node torch.nn.utils.parametrizations.weight_norm records that the rest of the op
table does not: ``_weight_norm_interface`` (WeightNormInterfaceBackward0), its formula
derivatives.yaml's, written in engine functions so that it differentiates again.
(orthogonal's matrix_exp and solve are torch.linalg's own.)"""
import numpy as np

from ..._ops import Op
from ...autograd.graph import apply
from .weight_norm import norm_except_dim


def _weight_norm_forward(v, g, *, dim):
    axes = tuple(d for d in range(v.ndim) if d != dim)
    norms = np.sqrt(np.sum(v * v, axis=axes, keepdims=True)).astype(v.dtype)
    return (v * (g / norms)).astype(v.dtype), norms


def weight_norm_backward(grads, v, g, dim, result1):
    """ATen's _weight_norm_differentiable_backward: the sums of grad * v over every dim but
    ``dim``, against the saved norms."""
    grad = grads[0]
    axes = [d for d in range(v.dim()) if d != dim]
    per_dim_sums = (grad * v).sum(axes, keepdim=True)
    grad_v = (g / result1) * (grad - v * (per_dim_sums / (result1 * result1)))
    grad_g = per_dim_sums / result1
    return grad_v, grad_g


weight_norm_interface = Op(
    "WeightNormInterfaceBackward0", _weight_norm_forward, multi_output=True,
    v=lambda grads, v, g, dim, result1: weight_norm_backward(grads, v, g, dim, result1)[0],
    g=lambda grads, v, g, dim, result1: weight_norm_backward(grads, v, g, dim, result1)[1])


def weight_norm(v, g, dim=0):
    """torch._weight_norm: one fused node for dim 0 or the last dim (as ATen's CPU path),
    else the composite v * (g / norm_except_dim(v))."""
    if dim == 0 or dim == v.dim() - 1:
        return apply(weight_norm_interface, (v, g), {"dim": dim})[0]
    return v * (g / norm_except_dim(v, 2, dim))
