"""torch.nn.functional's resizing and re-padding: interpolate (and its deprecated
spellings), the reflect / replicate / circular modes of pad, and group_norm."""
import math
import numbers
import warnings

import numpy as np

from .._namespace import F as _F
from .. import _ops_nn as ops
from ..autograd.graph import apply as _apply_op

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
# The interpolating mode each input rank accepts, and the mode -> rank it needs otherwise.
_SMOOTH_RANK = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def _apply(op, inputs, **params):
    return _apply_op(op, inputs, params)


def _size_list(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


# =======================================================================================
# interpolate
def _is_integer(x):
    from .._tensor import Tensor
    if isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, bool):
        return True
    return isinstance(x, Tensor) and not x.is_floating_point()


def _output_and_scales(input, size, scale_factor, recompute_scale_factor, mode):
    """(output sizes or None, scale factors or None) as F.interpolate settles them."""
    dims = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dims:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor "
                    "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(s) for s in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(s) for s in size]}")
            output_size, scales = [int(s) for s in size], None
        else:
            output_size, scales = [int(size)] * dims, None
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dims:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. Please "
                    "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                    "format.")
            output_size, scales = None, list(scale_factor)
        else:
            output_size, scales = None, [scale_factor] * dims
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size, scales = [int(input.shape[i + 2] * scales[i]) for i in range(dims)], None
    return output_size, scales


def _upsample(input, mode, output_size, scales, align_corners):
    dims = input.dim() - 2
    in_sizes = tuple(input.shape[2:])
    if scales is not None:
        output_size = [int(math.floor(s * f)) for s, f in zip(in_sizes, scales)]
        scales = [float(f) for f in scales]
    else:
        scales = [None] * dims
    if any(s <= 0 for s in in_sizes) or any(s <= 0 for s in output_size):
        names = ("D", "H", "W")[3 - dims:]
        given = " ".join(f"{n}: {s}," for n, s in zip(names, in_sizes))[:-1]
        wanted = " ".join(f"{n}: {s}," for n, s in zip(names, output_size))[:-1]
        joint = " and" if dims == 1 else ""
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({given}){joint} output "
                           f"({wanted})")
    options = {"output_size": tuple(output_size)}
    if mode in _SMOOTH_RANK:
        options["align_corners"] = bool(align_corners)
    if dims == 1:
        options["scales"] = scales[0]
    else:
        options.update(zip(("scales_d", "scales_h", "scales_w")[3 - dims:], scales))
    return _apply(ops.UPSAMPLE[(mode, dims)], (input,), **options, self_sym_sizes=tuple(input.shape))


def _area(input, output_size):
    from . import functional as F
    if input.dim() == 4:
        return F.adaptive_avg_pool2d(input, output_size)
    if input.dim() == 3:  # adaptive_avg_pool1d runs the 2-D kernel on an unsqueezed input
        return F.adaptive_avg_pool2d(input.unsqueeze(-2), (1, output_size[0])).squeeze(-2)
    raise NotImplementedError("gradviz: interpolate mode 'area' needs a 3-D or 4-D input")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear "
                             "| bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    output_size, scales = _output_and_scales(input, size, scale_factor, recompute_scale_factor, mode)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    rank = input.dim()
    if rank in (3, 4, 5) and mode in ("nearest", "nearest-exact"):
        return _upsample(input, mode, output_size, scales, None)
    if rank in (3, 4, 5) and mode == "area":
        return _area(input, output_size)
    if mode in _SMOOTH_RANK and rank == _SMOOTH_RANK[mode]:
        if antialias:
            raise NotImplementedError("gradviz: interpolate with antialias=True is not supported yet")
        return _upsample(input, mode, output_size, scales, align_corners)
    if mode == "lanczos" and rank == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        raise NotImplementedError("gradviz: interpolate mode 'lanczos' is not supported yet")
    if mode in ("linear", "bilinear", "trilinear") and rank in (3, 4, 5):
        raise NotImplementedError(f"Got {rank}D input, but {mode} mode needs {_SMOOTH_RANK[mode]}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {rank}D) for the modes: "
                              f"{_MODES} (got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# =======================================================================================
# pad: reflect, replicate, circular
_UNSUPPORTED_PAD = ("Padding size {n} is not supported for {d}D input tensor.\n"
                    "Supported combinations for non-constant padding:\n"
                    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
_AXIS_NAMES = ("D", "H", "W")


def check_pad_arguments(input, pad, mode, value):
    """The checks at.pad makes before choosing a kernel, in its order."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    for i, p in enumerate(pad):
        if not isinstance(p, (numbers.Integral, np.integer)) or isinstance(p, bool):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                            f"{type(p).__name__} at pos {i}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")


def pad_modes(input, pad, mode, value=None):
    """F.pad for the modes other than 'constant'."""
    check_pad_arguments(input, pad, mode, value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    pad = tuple(int(p) for p in pad)
    dims = len(pad) // 2
    if dims not in (1, 2, 3) or input.dim() not in (dims + 1, dims + 2):
        raise NotImplementedError(_UNSUPPORTED_PAD.format(n=len(pad), d=input.dim()))
    if mode == "circular":
        return _pad_circular(input, pad)
    _check_pad_sizes(input, pad, mode, dims)
    return _apply(ops.PAD[(mode, dims)], (input,), padding=pad)


def _check_pad_sizes(input, pad, mode, dims):
    shape = tuple(input.shape)
    batched = input.dim() == dims + 2
    if 0 in (shape[1:] if batched else shape):  # only the batch may be empty
        batch = "2D or 3D" if dims == 1 else ("3D or 4D" if dims == 2 else "4D or 5D")
        raise RuntimeError(f"Expected {batch} (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {_size_list(shape)}")
    first = input.dim() - dims
    if mode == "reflect":
        for k in range(dims):  # the last dim first, as the kernels check W, then H, then D
            dim = input.dim() - 1 - k
            lo, hi = pad[2 * k], pad[2 * k + 1]
            if not (lo < shape[dim] and hi < shape[dim]):
                raise RuntimeError(f"Argument #{4 + 2 * k}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({lo}, {hi}) at dimension {dim} of input "
                                   f"{_size_list(shape)}")
    out = [shape[first + i] + pad[2 * (dims - 1 - i)] + pad[2 * (dims - 1 - i) + 1] for i in range(dims)]
    if dims == 1 and out[0] < 1:
        raise RuntimeError(f"input (W: {shape[-1]}) is too small. Calculated output W: {out[0]}")
    for size in out:
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: "
                               f"{_size_list(shape[:first] + tuple(out))}")


def _pad_circular(input, pad):
    """ATen's _pad_circular: copy the input into the middle of a new tensor, then copy each
    padded border from the opposite side of that tensor (so corners wrap as well)."""
    dims = len(pad) // 2
    shape = tuple(input.shape)
    out_shape = list(shape)
    for k in range(dims):
        dim = input.dim() - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        if lo > shape[dim] or hi > shape[dim]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out_shape[dim] = shape[dim] + lo + hi
        if out_shape[dim] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = input.new_empty(out_shape)
    target, source = out, input
    for k in range(dims):
        dim = input.dim() - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        target = _F.narrow(target, dim, max(lo, 0), out_shape[dim] - max(lo, 0) - max(hi, 0))
        source = _F.narrow(source, dim, max(-lo, 0), shape[dim] - max(-lo, 0) - max(-hi, 0))
    target.copy_(source)
    for k in range(dims):
        dim = input.dim() - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        if lo > 0:
            _F.narrow(out, dim, 0, lo).copy_(_F.narrow(out, dim, out_shape[dim] - lo - max(hi, 0), lo))
        if hi > 0:
            _F.narrow(out, dim, out_shape[dim] - hi, hi).copy_(_F.narrow(out, dim, max(lo, 0), hi))
    return out


# =======================================================================================
# group_norm
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    n, c = input.shape[0], input.shape[1]
    sizes = [n * c // num_groups, num_groups] + list(input.shape[2:])
    if math.prod(sizes[:1] + sizes[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {sizes}")
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {_size_list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            # PyTorch's bias message shows the weight's shape ([0] without a weight).
            shown = t.shape if name == "weight" else (weight.shape if weight is not None else (0,))
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {_size_list(shown)} and input of shape "
                               f"{_size_list(input.shape)}")
    hxw = math.prod(input.shape[2:])
    out = _apply(ops.native_group_norm, (input, weight, bias), N=n, C=c, HxW=hxw, group=num_groups, eps=eps)
    return out[0]
