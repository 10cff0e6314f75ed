"""instance_norm and rms_norm of torch.nn.functional, composed as ATen composes them:
instance norm is batch norm over a (1, N*C, ...) view with the affine parameters and the
running statistics repeated N times (the statistics then averaged back); RMS norm is
x * rsqrt(mean(x^2) + eps) (* weight), computed in float for reduced-precision inputs."""
import numbers

import numpy as np

from .. import _dtypes
from .. import _errors_nn_more as E
from .. import _ops_nn
from .._namespace import F as _F
from ..autograd.graph import apply as _apply_op
from ..autograd.grad_mode import no_grad


def _verify_spatial_size(shape):
    if int(np.prod(shape[2:], dtype=np.int64)) == 1:
        raise E.spatial_size(shape)


def _repeated(t, times):
    return None if t is None else t.repeat(times)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    if use_input_stats:
        _verify_spatial_size(tuple(input.shape))
    b, c = input.shape[0], input.shape[1]
    reshaped = input.contiguous().view((1, b * c) + tuple(input.shape[2:]))
    mean_, var_ = _repeated(running_mean, b), _repeated(running_var, b)
    out = _apply_op(_ops_nn.batch_norm, (reshaped, _repeated(weight, b), _repeated(bias, b), mean_, var_),
                    {"training": use_input_stats, "momentum": momentum, "eps": eps})[0]
    with no_grad():  # ATen writes the averaged statistics back through an alias
        if running_mean is not None:
            running_mean.copy_(mean_.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(var_.view(b, c).mean(0))
    return out.view(tuple(input.shape))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else tuple(normalized_shape)
    if input.dim() < len(shape) or tuple(input.shape[input.dim() - len(shape):]) != shape:
        raise E.rms_norm_shape(shape, tuple(input.shape))
    reduced = input.dtype in (_dtypes.float16, _dtypes.bfloat16)
    upcast = input.to(_dtypes.float32) if reduced else input
    if eps is None:
        eps = float(np.finfo(upcast._data.dtype).eps)
    dims = list(range(input.dim() - len(shape), input.dim()))
    rsqrt = _F.scalar_add(upcast.pow(2).mean(dims, keepdim=True), eps).rsqrt()
    result = upcast.mul(rsqrt)
    if reduced:
        result = result.type_as(input)
    return result if weight is None else result.mul(weight)
