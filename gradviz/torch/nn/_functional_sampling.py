"""torch.nn.functional's sliding blocks and sampling grids: unfold / fold (im2col / col2im)
and affine_grid / grid_sample (spatial transformers), with functional.py's checks and warnings."""
import warnings

from .. import _errors_sampling as E
from .._namespace import F as _F

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    return _F.im2col(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    return _F.col2im(input, output_size, kernel_size, dilation, padding, stride)


def affine_grid(theta, size, align_corners=None):
    if align_corners is None:
        warnings.warn(E.ALIGN_CORNERS_DEFAULT, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise E.theta_dtype(theta.dtype)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise E.theta_shape(size, theta.shape)
        spatial_size = size[-2:]
    elif len(size) == 5:
        raise E.affine_grid_3d_missing()
    else:
        raise E.affine_grid_rank(size)
    if align_corners and min(spatial_size) == 1:
        warnings.warn(E.UNIT_SIZE_GRID, stacklevel=2)
    elif min(size) <= 0:
        raise E.affine_grid_nonpositive(size)
    return _F.affine_grid_generator(theta, size, align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in _MODES:
        raise E.grid_mode(mode)
    if padding_mode not in _PADDING_MODES:
        raise E.grid_padding_mode(padding_mode)
    if align_corners is None:
        warnings.warn(E.ALIGN_CORNERS_DEFAULT, stacklevel=2)
        align_corners = False
    return _F.grid_sampler(input, grid, _MODES[mode], _PADDING_MODES[padding_mode], align_corners)
