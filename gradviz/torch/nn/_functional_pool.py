"""torch.nn.functional's pooling beyond 2-D max / average and 1-D: 3-D max and average
pooling, adaptive max pooling (1-D runs the 2-D op on an unsqueezed input, as ATen does),
3-D adaptive average pooling, power-average (LP) pooling as torch/nn/functional.py
composes it, and max unpooling with Python's output-size rule."""
import math
import numbers

from .._namespace import F as _F
from .. import _errors, _errors_nn_layers, _errors_nn_more as _errors_nn
from .. import _ops_nn_pool as _ops
from .._kernels_nn import pooled_size
from ..autograd.graph import apply as _apply_op


def _apply(op, inputs, **params):
    return _apply_op(op, inputs, params)


def _ntuple(value, n):
    if isinstance(value, (list, tuple)):
        return tuple(int(v) for v in value) if len(value) != 1 else (int(value[0]),) * n
    return (int(value),) * n


def _dtype_word(tensor):
    return tensor.dtype.scalar_type


def _pool3d_args(input, kernel_size, stride, padding, dilation, name):
    """ATen's max_pool3d / avg_pool3d argument checks, in its order; an omitted stride stays ()."""
    if isinstance(kernel_size, (list, tuple)) and len(kernel_size) not in (1, 3):
        raise _errors_nn.pool3d_kernel_arity(name)
    kernel = _ntuple(kernel_size, 3)
    stride = () if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _ntuple(stride, 3)
    if any(s == 0 for s in (stride or kernel)):
        raise _errors_nn.pool_stride_zero()
    if input.dim() not in (4, 5):
        raise _errors_nn.pool3d_rank()
    return kernel, stride, _ntuple(padding, 3), _ntuple(dilation, 3)


def _pool3d_output(input, kernel, stride, padding, dilation, ceil_mode, check_input_size):
    sizes = tuple(input.shape[-3:])
    for p, k, d in zip(padding, kernel, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise _errors_nn.pool_pad_half(p, k, d)
    outs = tuple(pooled_size(i, k, s, p, d, ceil_mode)
                 for i, k, s, p, d in zip(sizes, kernel, stride or kernel, padding, dilation))
    if check_input_size and any(i < k for i, k in zip(sizes, kernel)):
        raise _errors_nn.avg_pool3d_input_smaller(sizes, kernel)
    if any(o < 1 for o in outs):
        raise _errors_nn.pool_output_too_small(input.shape[-4], sizes, outs)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    kernel, stride, padding, dilation = _pool3d_args(input, kernel_size, stride, padding, dilation, "max_pool3d")
    _pool3d_output(input, kernel, stride, padding, dilation, ceil_mode, False)
    return _apply(_ops.max_pool3d, (input,), kernel_size=kernel, stride=stride, padding=padding, dilation=dilation,
                  ceil_mode=ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    out, indices = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    kernel, stride, padding, _ = _pool3d_args(input, kernel_size, stride, padding, 1, "avg_pool3d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _pool3d_output(input, kernel, stride, padding, (1, 1, 1), ceil_mode, True)
    return _apply(_ops.avg_pool3d, (input,), kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode,
                  count_include_pad=count_include_pad, divisor_override=divisor_override)


# ---------------------------------------------------------------------------------------
# adaptive pooling
def _adaptive_size(input, output_size, rank):
    """torch/nn/functional.py's _list_with_default: None keeps the input's size."""
    if not isinstance(output_size, (list, tuple)):
        return (int(output_size),) * rank
    return tuple(int(input.shape[-len(output_size) + i]) if s is None else int(s) for i, s in enumerate(output_size))


def _check_adaptive(input, size, rank, name, colon):
    if input.dim() not in (rank + 1, rank + 2):
        raise _errors_nn.adaptive_rank(name, (rank + 1, rank + 2), input.shape, colon)
    for dim in range(1, input.dim()):
        if input.shape[dim] == 0:
            raise _errors_nn.adaptive_empty_dim(name, input.shape, dim)
    if len(size) != rank:
        raise _errors_nn.adaptive_output_arity(name, rank)


def adaptive_avg_pool3d(input, output_size):
    size = _adaptive_size(input, output_size, 3)
    _check_adaptive(input, size, 3, "adaptive_avg_pool3d", False)
    if size == (1, 1, 1):
        return input.mean((-1, -2, -3), keepdim=True)  # ATen's shortcut for global pooling
    return _apply(_ops.adaptive_avg_pool3d, (input,), output_size=size)


def _adaptive_max(input, output_size, rank):
    name = f"adaptive_max_pool{rank}d"
    size = _adaptive_size(input, output_size, rank)
    _check_adaptive(input, size, rank, name, True)
    if not input.dtype.is_floating_point:
        raise _errors.kernel_not_implemented(name, _dtype_word(input))
    op = _ops.adaptive_max_pool2d if rank == 2 else _ops.adaptive_max_pool3d
    return _apply(op, (input,), output_size=size)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """torch.adaptive_max_pool1d: the 2-D op on an unsqueezed input, squeezed back."""
    size = tuple(output_size) if isinstance(output_size, (list, tuple)) else (output_size,)
    if len(size) != 1:
        raise _errors_nn.adaptive_max_pool1d_output_size(len(size))
    if input.dim() not in (2, 3):
        raise _errors_nn_layers.pool1d_rank(input.dim(), "adaptive_max_pool1d")
    out, indices = _adaptive_max(input.unsqueeze(-2), (1,) + size, 2)
    return out.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, 2)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, 3)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


# ---------------------------------------------------------------------------------------
# power-average pooling: torch/nn/functional.py's composition, statement for statement
def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, rank):
    from . import functional as F
    max_pool = (F.max_pool1d, F.max_pool2d, max_pool3d)[rank - 1]
    avg_pool = (F.avg_pool1d, F.avg_pool2d, avg_pool3d)[rank - 1]
    taps = kernel_size if rank == 1 else math.prod(_ntuple(kernel_size, rank))
    if isinstance(norm_type, numbers.Real):
        if norm_type == float("inf"):
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_F.sign(out) * F.relu(_F.abs(out))).mul(taps).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


# ---------------------------------------------------------------------------------------
# max unpooling
def _unpool_output_size(input, kernel, stride, padding, output_size):
    """torch/nn/functional.py's _unpool_output_size: the default size, or the caller's
    checked against it."""
    default = [(input.shape[-len(kernel) + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(len(kernel))]
    if output_size is None:
        return default
    if len(output_size) == len(kernel) + 2:
        output_size = output_size[2:]
    if len(output_size) != len(kernel):
        raise _errors_nn.unpool_output_arity(len(kernel), len(output_size))
    for d in range(len(kernel)):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise _errors_nn.unpool_output_range(output_size, d, low, high)
    return output_size


def _max_unpool(input, indices, output_size, rank):
    if indices.dtype.name != "int64":
        raise _errors_nn.unpool_indices_dtype(_dtype_word(indices))
    if input.dim() not in (rank + 1, rank + 2):
        raise _errors_nn.unpool_rank(rank, input.dim())
    if tuple(indices.shape) != tuple(input.shape):
        raise _errors_nn.unpool_indices_shape(input.shape, indices.shape)
    size = tuple(int(s) for s in output_size)
    volume = math.prod(size)
    flat = indices._data.reshape(-1)
    bad = (flat < 0) | (flat >= volume)
    if bad.any():  # ATen goes on past a bad index and reports the last one it met
        raise _errors_nn.unpool_invalid_index(int(flat[bad.nonzero()[0][-1]]), size)
    op = _ops.max_unpool2d if rank == 2 else _ops.max_unpool3d
    return _apply(op, (input,), indices=indices._data, output_size=size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel = _ntuple(kernel_size, 1)
    stride = _ntuple(stride, 1) if stride is not None else kernel
    size = _unpool_output_size(input, kernel, stride, _ntuple(padding, 1), output_size)
    size = list(size) + [1] if isinstance(size, list) else tuple(size) + (1,)
    return _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), size, 2).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel = _ntuple(kernel_size, 2)
    stride = _ntuple(stride, 2) if stride is not None else kernel
    size = _unpool_output_size(input, kernel, stride, _ntuple(padding, 2), output_size)
    return _max_unpool(input, indices, size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel = _ntuple(kernel_size, 3)
    stride = _ntuple(stride, 3) if stride is not None else kernel
    size = _unpool_output_size(input, kernel, stride, _ntuple(padding, 3), output_size)
    return _max_unpool(input, indices, size, 3)
