"""torch.nn.functional's channel-wise and alpha dropouts, written as PyTorch writes them:
the Python checks and warnings of dropout1d / 2d / 3d, then ATen's _dropout_impl with its
noise drawn by bernoulli_ from the default generator (one draw per (N, C) channel for the
feature forms), so the masks and the graph (MulBackward0, and AddBackward0 for alpha
dropout) are PyTorch's."""
import math
import warnings

from .._namespace import F as _F
from .. import _errors_nn_layers as _errors_nn

# SELU's alpha * scale: the value alpha dropout drops to (ATen's constant).
_ALPHA = 1.7580993408473766


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_impl(input, p, train, inplace, feature, alpha):
    """ATen's _dropout_impl<feature_dropout, alpha_dropout>."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zeros = _F.zeros((), dtype=input.dtype)
        return input.mul_(zeros) if inplace else input * zeros
    if feature:
        if input.dim() < 2:
            raise _errors_nn.feature_dropout_rank()
        sizes = [input.shape[0], input.shape[1]] + [1] * (input.dim() - 2)
    else:
        sizes = list(input.shape)
    noise = _F.empty(sizes, dtype=input.dtype).bernoulli_(1 - p)
    if not alpha:
        noise.div_(1 - p)
        return input.mul_(noise) if inplace else input * noise
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
    noise.mul_(a)
    return (input.mul_(noise) if inplace else input * noise).add_(b)


def feature_dropout(input, p, train, inplace=False):
    return _dropout_impl(input, p, train, inplace, True, False)


def _channel_dropout(input, batched, p, training, inplace):
    """Channel dropout, an unbatched input given a batch dim of one for the draw (as ATen)."""
    if batched:
        return _dropout_impl(input, p, training, inplace, True, False)
    input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, inplace, True, False)
    return result.squeeze_(0) if inplace else result.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    ndim = input.dim()
    if ndim not in (2, 3):
        raise _errors_nn.dropout1d_rank(ndim)
    return _channel_dropout(input, ndim == 3, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    ndim = input.dim()
    if ndim not in (3, 4):
        warnings.warn(_errors_nn.dropout_nd_rank_warning(2, ndim), stacklevel=2)
    if ndim == 3:
        warnings.warn(_errors_nn.DROPOUT2D_3D_WARNING, stacklevel=2)
    return _dropout_impl(input, p, training, inplace, True, False)


def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        warnings.warn(_errors_nn.dropout_nd_rank_warning(3, ndim), stacklevel=2)
    return _channel_dropout(input, ndim == 5, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, True, True)
