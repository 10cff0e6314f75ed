"""numpy kernels for pooling of any spatial rank (3-D max / average pooling, adaptive max
and average pooling of 2-D and 3-D, max unpooling): arrays are (N, C, *spatial), and an
unbatched input (C, *spatial) gets a batch of one on the way in and loses it on the way
out (``unbatched``). Indices are flat positions in each input plane, as PyTorch's are.
The 2-D max / average pooling of ``_kernels_nn`` stay where they are."""
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ._kernels_nn import contiguous_pooled, pooled_size


def unbatched(fn, spatial_rank, x, *args):
    """Run a batched kernel on an unbatched input too; array arguments get the batch of one."""
    if x.ndim == spatial_rank + 2:
        return fn(x, *args)
    args = [a[None] if isinstance(a, np.ndarray) else a for a in args]
    out = fn(x[None], *args)
    return tuple(o[0] for o in out) if isinstance(out, tuple) else out[0]


def _out_sizes(in_sizes, kernel, stride, padding, dilation, ceil_mode):
    return tuple(pooled_size(i, k, s, p, d, ceil_mode)
                 for i, k, s, p, d in zip(in_sizes, kernel, stride, padding, dilation))


def _padded_windows(x, kernel, stride, padding, dilation, outs, fill):
    """(N, C, *out, *kernel) view of every output position's taps over the padded input;
    ceil_mode's last windows get as much extra right padding as they reach."""
    nd = len(kernel)
    extra = [max(0, s * (o - 1) + d * (k - 1) + 1 - (i + 2 * p))
             for i, o, k, s, p, d in zip(x.shape[2:], outs, kernel, stride, padding, dilation)]
    if any(padding) or any(extra):
        widths = ((0, 0), (0, 0)) + tuple((p, p + e) for p, e in zip(padding, extra))
        x = np.pad(x, widths, constant_values=fill)
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    win = sliding_window_view(x, span, axis=tuple(range(2, 2 + nd)))
    index = (slice(None), slice(None)) + tuple(slice(0, s * (o - 1) + 1, s) for s, o in zip(stride, outs)) + \
        tuple(slice(None, None, d) for d in dilation)
    return win[index]


def _flat_positions(starts, offsets, in_sizes):
    """Flat input positions from per-dim (start + offset) coordinates, row-major."""
    flat = 0
    for start, offset, size in zip(starts, offsets, in_sizes):
        flat = flat * size + start + offset
    return flat


def max_pool(x, kernel, stride, padding, dilation, ceil_mode):
    """(values, indices) of max pooling; NaN wins, the first maximum wins ties (PyTorch's rule)."""
    nd = len(kernel)
    in_sizes = x.shape[2:]
    outs = _out_sizes(in_sizes, kernel, stride, padding, dilation, ceil_mode)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win = _padded_windows(x, kernel, stride, padding, dilation, outs, fill)
    flat = win.reshape(x.shape[:2] + outs + (math.prod(kernel),))
    arg = flat.argmax(axis=-1)
    values = np.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
    taps = np.unravel_index(arg, kernel)
    starts = [(np.arange(o) * s - p).reshape((o,) + (1,) * (nd - 1 - j))
              for j, (o, s, p) in enumerate(zip(outs, stride, padding))]
    offsets = [t * d for t, d in zip(taps, dilation)]
    return values, np.asarray(_flat_positions(starts, offsets, in_sizes), dtype=np.int64)


def scatter_to_indices(grad, indices, plane_shape):
    """Each value of ``grad`` added at its flat position in its (N, C) plane of ``plane_shape``:
    max pooling's gradient (windows that overlap may pick one position twice)."""
    n, c = grad.shape[:2]
    volume = math.prod(plane_shape)
    planes = (np.arange(n * c, dtype=np.int64) * volume).reshape((n, c) + (1,) * (grad.ndim - 2))
    flat = np.bincount((indices + planes).ravel(), weights=grad.ravel(), minlength=n * c * volume)
    return flat.astype(grad.dtype, copy=False).reshape((n, c) + tuple(plane_shape))


def gather_at_indices(values, indices):
    """values (N, C, *in) read at each plane's flat ``indices`` (N, C, *out): the adjoint of
    ``scatter_to_indices``."""
    n, c = values.shape[:2]
    flat = values.reshape(n, c, -1)
    return np.take_along_axis(flat, indices.reshape(n, c, -1), axis=-1).reshape(indices.shape)


def _avg_divisor(in_sizes, outs, kernel, stride, padding, count_include_pad, divisor_override):
    """Per output position divisors by PyTorch's rule: windows clipped to the padded input,
    and without count_include_pad further to the input itself."""
    if divisor_override:
        return np.full(outs, divisor_override, dtype=np.float64)
    divisor = np.ones(outs, dtype=np.float64)
    for j, (i, o, k, s, p) in enumerate(zip(in_sizes, outs, kernel, stride, padding)):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, i + p)
        size = end - start if count_include_pad else np.minimum(end, i) - np.maximum(start, 0)
        divisor = divisor * size.reshape((o,) + (1,) * (len(outs) - 1 - j))
    return divisor


def avg_pool(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    nd = len(kernel)
    outs = _out_sizes(x.shape[2:], kernel, stride, padding, (1,) * nd, ceil_mode)
    win = _padded_windows(x, kernel, stride, padding, (1,) * nd, outs, 0.0)
    total = win.sum(axis=tuple(range(-nd, 0)))
    divisor = _avg_divisor(x.shape[2:], outs, kernel, stride, padding, count_include_pad, divisor_override)
    return (total / divisor).astype(x.dtype, copy=False)


def avg_pool_backward(grad, input_sizes, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """Each output's share (gradient / divisor) added back over its window's taps."""
    nd = len(kernel)
    in_sizes = tuple(input_sizes[-nd:])
    outs = grad.shape[2:]
    divisor = _avg_divisor(in_sizes, outs, kernel, stride, padding, count_include_pad, divisor_override)
    share = (grad / divisor).astype(grad.dtype, copy=False)
    padded = tuple(max(i + 2 * p, s * (o - 1) + k) for i, p, k, s, o in zip(in_sizes, padding, kernel, stride, outs))
    out = np.zeros(grad.shape[:2] + padded, dtype=grad.dtype)
    for tap in np.ndindex(*kernel):
        index = (slice(None), slice(None)) + tuple(slice(t, t + s * (o - 1) + 1, s)
                                                   for t, s, o in zip(tap, stride, outs))
        out[index] += share
    crop = (slice(None), slice(None)) + tuple(slice(p, p + i) for p, i in zip(padding, in_sizes))
    return out[crop]


def _adaptive_bounds(in_size, out_size):
    """PyTorch's adaptive windows [floor(i*in/out), ceil((i+1)*in/out)) along one dim."""
    return [((i * in_size) // out_size, -(-((i + 1) * in_size) // out_size)) for i in range(out_size)]


def _adaptive_matrix(in_size, out_size, dtype):
    m = np.zeros((out_size, in_size), dtype=np.float64)
    for i, (start, end) in enumerate(_adaptive_bounds(in_size, out_size)):
        m[i, start:end] = 1.0 / (end - start)
    return m.astype(dtype)


def adaptive_avg_pool3d(x, output_size):
    ad, ah, aw = (_adaptive_matrix(i, o, x.dtype) for i, o in zip(x.shape[-3:], output_size))
    return contiguous_pooled(np.einsum("id,...dhw,jh,kw->...ijk", ad, x, ah, aw, optimize=True))


def adaptive_avg_pool3d_backward(grad, input_sizes):
    ad, ah, aw = (_adaptive_matrix(i, o, grad.dtype) for i, o in zip(input_sizes[-3:], grad.shape[-3:]))
    return contiguous_pooled(np.einsum("id,...ijk,jh,kw->...dhw", ad, grad, ah, aw, optimize=True))


def adaptive_max_pool(x, output_size):
    """(values, indices) over PyTorch's adaptive windows, one output position at a time."""
    in_sizes = x.shape[2:]
    bounds = [_adaptive_bounds(i, o) for i, o in zip(in_sizes, output_size)]
    values = np.empty(x.shape[:2] + tuple(output_size), dtype=x.dtype)
    indices = np.empty(values.shape, dtype=np.int64)
    for position in np.ndindex(*output_size):
        window = [bounds[j][k] for j, k in enumerate(position)]
        patch = x[(slice(None), slice(None)) + tuple(slice(a, b) for a, b in window)]
        flat = patch.reshape(x.shape[:2] + (-1,))
        arg = flat.argmax(axis=-1)
        where = (slice(None), slice(None)) + position
        values[where] = np.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
        offsets = np.unravel_index(arg, patch.shape[2:])
        indices[where] = _flat_positions([a for a, _ in window], offsets, in_sizes)
    return values, indices


def max_unpool(x, indices, output_size):
    """Each value written at its flat position in a zero plane of ``output_size``; PyTorch
    writes rather than adds, so where an index repeats the last value stays."""
    n, c = x.shape[:2]
    out = np.zeros((n * c, math.prod(output_size)), dtype=x.dtype)
    rows = np.arange(n * c).reshape(n * c, 1)
    out[rows, indices.reshape(n * c, -1)] = x.reshape(n * c, -1)
    return out.reshape((n, c) + tuple(output_size))
