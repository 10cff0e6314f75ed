"""torch.nn.functional's 1-D pooling (PyTorch runs the 2-D kernels on an unsqueezed input),
the ``*_with_indices`` spellings, pixel / channel shuffles and the distances (pairwise
distance and cosine similarity as ATen composes them, so the graphs are its own)."""
import numpy as np

from .._namespace import F as _F
from .. import _errors_nn_layers as _errors_nn, _ops_nn_shuffle as _ops
from ..autograd.grad_mode import no_grad
from ..autograd.graph import apply as _apply_op


def _apply(op, inputs, **params):
    return _apply_op(op, inputs, params)


def _one(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _check_1d(input, name):
    if input.dim() not in (2, 3):
        raise _errors_nn.pool1d_rank(input.dim(), name)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    from . import functional as F
    _check_1d(input, "avg_pool1d")
    kernel = _one(kernel_size)
    stride = kernel if stride is None or _one(stride) == () else _one(stride)
    out = F.avg_pool2d(input.unsqueeze(-2), (1,) + kernel, (1,) + stride, (0,) + _one(padding), ceil_mode,
                       count_include_pad)
    return out.squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    from . import functional as F
    _check_1d(input, "adaptive_avg_pool1d")
    return F.adaptive_avg_pool2d(input.unsqueeze(-2), (1,) + _one(output_size)).squeeze(-2)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    from . import functional as F
    return F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    from . import functional as F
    return F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


# ---------------------------------------------------------------------------------------
# shuffles
def pixel_shuffle(input, upscale_factor):
    if input.dim() < 3:
        raise _errors_nn.shuffle_rank("pixel_shuffle", input.dim())
    if upscale_factor <= 0:
        raise _errors_nn.shuffle_factor("pixel_shuffle", "upscale_factor", upscale_factor)
    channels = input.shape[-3]
    if channels % (upscale_factor * upscale_factor):
        raise _errors_nn.pixel_shuffle_channels(channels, upscale_factor * upscale_factor)
    return _apply(_ops.pixel_shuffle, (input,), upscale_factor=upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    if input.dim() < 3:
        raise _errors_nn.shuffle_rank("pixel_unshuffle", input.dim())
    if downscale_factor <= 0:
        raise _errors_nn.shuffle_factor("pixel_unshuffle", "downscale_factor", downscale_factor)
    for name, axis in (("height", -2), ("width", -1)):
        if input.shape[axis] % downscale_factor:
            raise _errors_nn.pixel_unshuffle_size(name, axis, input.shape[axis], downscale_factor)
    return _apply(_ops.pixel_unshuffle, (input,), downscale_factor=downscale_factor)


def channel_shuffle(input, groups):
    if input.dim() <= 2:
        raise _errors_nn.channel_shuffle_rank(tuple(input.shape))
    if groups <= 0:
        raise _errors_nn.channel_shuffle_groups(groups)
    if input.shape[1] % groups:
        raise _errors_nn.channel_shuffle_divisible(input.shape[1], groups)
    return _apply(_ops.channel_shuffle, (input,), groups=groups)


# ---------------------------------------------------------------------------------------
# distances
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """ATen: at::norm(x1 - x2 + eps, p, innermost dim, keepdim)."""
    innermost = max(x1.dim(), x2.dim()) - 1
    difference = _F.scalar_add(x1 - x2, eps)  # C++ adds the Scalar: AddBackward1
    return _apply(_ops.norm_dim, (difference,), p=float(p), dim=(innermost,), keepdim=keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """ATen's composite: each input divided by its (cloned, then clamped without grad) norm,
    multiplied and summed."""
    if x1.shape != x2.shape:  # expand_outplace
        shape = tuple(np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))
        x1, x2 = x1.expand(shape), x2.expand(shape)
    x1_norm = _F.vector_norm(x1, 2, dim, True).clone()
    x2_norm = _F.vector_norm(x2, 2, dim, True).clone()
    with no_grad():
        x1_norm.clamp_min_(eps)
        x2_norm.clamp_min_(eps)
    return ((x1 / x1_norm) * (x2 / x2_norm)).sum(dim)
