"""Op-table entries for nn's rearrangements and distances: pixel shuffle / unshuffle and
channel shuffle (each one's gradient is the inverse rearrangement, an op of the table
again, as in derivatives.yaml), and at::norm's NormBackward1, the node of the C++ norm
that F.pairwise_distance calls (Python's torch.norm records LinalgVectorNormBackward0)."""
import numpy as np

from . import _kernels as K
from ._namespace import F
from ._ops import Op
from .autograd import graph


def _pixel_shuffle_array(x, r):
    *lead, c, h, w = x.shape
    out = x.reshape(*lead, c // (r * r), r, r, h, w)
    n = len(lead)
    out = out.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return np.ascontiguousarray(out.reshape(*lead, c // (r * r), h * r, w * r))


def _pixel_unshuffle_array(x, r):
    *lead, c, h, w = x.shape
    out = x.reshape(*lead, c, h // r, r, w // r, r)
    n = len(lead)
    out = out.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return np.ascontiguousarray(out.reshape(*lead, c * r * r, h // r, w // r))


def _channel_shuffle_array(x, groups):
    n, c = x.shape[:2]
    rest = x.shape[2:]
    out = x.reshape(n, groups, c // groups, *rest).swapaxes(1, 2)
    return np.ascontiguousarray(out.reshape(x.shape))


pixel_shuffle = Op(
    "PixelShuffleBackward0", lambda self, *, upscale_factor: _pixel_shuffle_array(self, upscale_factor),
    self=lambda grad, upscale_factor: graph.apply(pixel_unshuffle, (grad,), {"downscale_factor": upscale_factor}))
pixel_unshuffle = Op(
    "PixelUnshuffleBackward0", lambda self, *, downscale_factor: _pixel_unshuffle_array(self, downscale_factor),
    self=lambda grad, downscale_factor: graph.apply(pixel_shuffle, (grad,), {"upscale_factor": downscale_factor}))
channel_shuffle = Op(
    "ChannelShuffleBackward0", lambda self, *, groups: _channel_shuffle_array(self, groups),
    self=lambda grad, groups: graph.apply(channel_shuffle, (grad,), {"groups": grad.shape[1] // groups}))

norm_dim = Op(
    "NormBackward1", lambda self, *, p, dim, keepdim: K.vector_norm(self, p, dim, keepdim),
    self=lambda grad, self, p, dim, keepdim, result: F.norm_backward(grad, self, p, dim, keepdim, result))
