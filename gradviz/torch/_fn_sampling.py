"""Sampling images: im2col / col2im (F.unfold / F.fold's cores), affine_grid_generator and
grid_sampler (F.affine_grid / F.grid_sample's cores), with ATen's argument checks."""
import numpy as np

from . import _errors_sampling as E, _ops_nn_sampling as S
from ._common import apply
from ._namespace import F  # the other families' functions, read at call time

EXPORTS = ("im2col", "col2im", "affine_grid_array", "affine_grid_backward", "affine_grid_generator",
           "grid_sampler", "grid_sampler_2d")
TORCH = ("affine_grid_generator", "grid_sampler", "grid_sampler_2d")
METHODS = ()


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def im2col(input, kernel_size, dilation, padding, stride):
    kernel_size, dilation, padding, stride = (_pair(v) for v in (kernel_size, dilation, padding, stride))
    size = tuple(input.shape[-2:])
    if any(b < 1 for b in S.KS.blocks(size, kernel_size, dilation, padding, stride)):
        raise E.im2col_blocks(size, kernel_size, dilation, padding, stride)
    return apply(S.im2col, (input,), {"kernel_size": kernel_size, "dilation": dilation, "padding": padding,
                                      "stride": stride, "self_sym_argsize_minus_2": size[0],
                                      "self_sym_argsize_minus_1": size[1]})


def col2im(input, output_size, kernel_size, dilation, padding, stride):
    output_size, kernel_size, dilation, padding, stride = (
        _pair(v) for v in (output_size, kernel_size, dilation, padding, stride))
    columns, count = input.shape[-2], input.shape[-1]
    if columns % (kernel_size[0] * kernel_size[1]):
        raise E.col2im_channels(columns, kernel_size)
    blocks = S.KS.blocks(output_size, kernel_size, dilation, padding, stride)
    if blocks[0] * blocks[1] != count:
        raise E.col2im_blocks(output_size, kernel_size, dilation, padding, stride, blocks, count)
    return apply(S.col2im, (input,), {"output_size": output_size, "kernel_size": kernel_size, "dilation": dilation,
                                      "padding": padding, "stride": stride})


def _linspace_from_neg_one(num_steps, align_corners, dtype):
    if num_steps <= 1:
        return np.zeros((), dtype=dtype)
    steps = F.linspace(-1, 1, num_steps, dtype=F.tensor(np.zeros(0, dtype)).dtype)._data
    return steps if align_corners else steps * dtype.type(num_steps - 1) / dtype.type(num_steps)


def _base_grid(size, align_corners, dtype):
    """(N, H, W, 3): each output pixel's [x, y, 1] in [-1, 1], ATen's make_base_grid_4D."""
    n, _, h, w = size
    grid = np.empty((n, h, w, 3), dtype=dtype)
    grid[..., 0] = _linspace_from_neg_one(w, align_corners, dtype)
    grid[..., 1] = _linspace_from_neg_one(h, align_corners, dtype)[..., None]
    grid[..., 2] = 1
    return grid


def affine_grid_array(theta, size, align_corners):
    n, _, h, w = size
    base = _base_grid(size, align_corners, theta.dtype).reshape(n, h * w, 1, 3)
    rows = theta[:, None, :, :]  # (N, 1, 2, 3): the bmm's three products added in order, unfused
    out = (base[..., 0] * rows[..., 0] + base[..., 1] * rows[..., 1]) + base[..., 2] * rows[..., 2]
    return out.reshape(n, h, w, 2)


def affine_grid_backward(grad, size, align_corners):
    n, _, h, w = size
    base = F.tensor(_base_grid(size, align_corners, grad._data.dtype)).view(n, h * w, 3)
    return base.transpose(1, 2).bmm(grad.reshape(n, h * w, 2)).transpose(1, 2)


def affine_grid_generator(theta, size, align_corners):
    return apply(S.affine_grid_generator, (theta,), {"size": tuple(size), "align_corners": align_corners})


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    if grid.shape[-1] != 2:
        raise E.grid_last_dim(grid.shape)
    if interpolation_mode not in (S.KS.BILINEAR, S.KS.NEAREST):
        raise E.bicubic_missing()
    return apply(S.grid_sampler_2d, (input, grid), {"interpolation_mode": interpolation_mode,
                                                    "padding_mode": padding_mode, "align_corners": align_corners})


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    if input.ndim != 4:
        raise E.grid_sampler_3d_missing()
    return grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners)
