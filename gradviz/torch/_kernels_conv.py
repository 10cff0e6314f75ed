"""numpy kernels for convolutions of any spatial rank (3-D convolutions, and the transposed
convolutions of every rank): im2col columns and one GEMM per group, and the adjoint
(col2im) that the input gradient and the transposed convolution share. 1-D and 2-D
ordinary convolutions keep ``_kernels_nn``'s 2-D kernels."""
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def out_size(size, k, s, p, d):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _im2col(x, kernel, stride, padding, dilation, groups):
    """(G, Cg*prod(k), N*prod(out)) columns and the output sizes."""
    n, c = x.shape[:2]
    nd = len(kernel)
    spatial = tuple(range(2, 2 + nd))
    outs = tuple(out_size(i, k, s, p, d) for i, k, s, p, d in zip(x.shape[2:], kernel, stride, padding, dilation))
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in padding)) if any(padding) else x
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    win = sliding_window_view(xp, span, axis=spatial)
    index = (slice(None), slice(None)) + tuple(slice(0, s * (o - 1) + 1, s) for s, o in zip(stride, outs)) + \
        tuple(slice(None, None, d) for d in dilation)
    win = win[index]  # (N, C, *out, *k)
    order = (1,) + tuple(range(2 + nd, 2 + 2 * nd)) + (0,) + spatial
    cols = win.transpose(order).reshape(groups, (c // groups) * math.prod(kernel), n * math.prod(outs))
    return cols, outs


def _col2im(cols, in_size, kernel, stride, padding, dilation):
    """Adjoint of _im2col's windows: cols (N, C, *k, *out) added back into the padded input."""
    n, c = cols.shape[:2]
    nd = len(kernel)
    outs = cols.shape[2 + nd:]
    padded = tuple(max(i + 2 * p, d * (k - 1) + s * (o - 1) + 1)
                   for i, p, k, s, o, d in zip(in_size, padding, kernel, stride, outs, dilation))
    out = np.zeros((n, c) + padded, dtype=cols.dtype)
    for tap in np.ndindex(*kernel):
        index = (slice(None), slice(None)) + tuple(slice(t * d, t * d + s * (o - 1) + 1, s)
                                                   for t, d, s, o in zip(tap, dilation, stride, outs))
        out[index] += cols[(slice(None), slice(None)) + tap]
    return out[(slice(None), slice(None)) + tuple(slice(p, p + i) for p, i in zip(padding, in_size))]


def _per_group(product, groups):
    if groups == 1:
        return product(0)[None]
    return np.stack([product(k) for k in range(groups)])


def _grouped(grad, groups):
    """(N, O, *out) -> (G, O/G, N*prod(out))."""
    n, o = grad.shape[:2]
    order = (1, 0) + tuple(range(2, grad.ndim))
    return grad.transpose(order).reshape(groups, o // groups, n * math.prod(grad.shape[2:]))


def conv(x, weight, bias, stride, padding, dilation, groups):
    o = weight.shape[0]
    kernel = weight.shape[2:]
    cols, outs = _im2col(x, kernel, stride, padding, dilation, groups)
    w = weight.reshape(groups, o // groups, -1)
    out = _per_group(lambda k: w[k] @ cols[k], groups).reshape((o, x.shape[0]) + outs)
    out = np.ascontiguousarray(np.moveaxis(out, 0, 1))
    if bias is not None:
        out += bias.reshape((1, o) + (1,) * len(outs))
    return out


def conv_input_grad(grad, weight, in_size, stride, padding, dilation, groups):
    """Gradient of conv with respect to its input: the transposed convolution of ``grad``."""
    n, o = grad.shape[:2]
    cg, kernel = weight.shape[1], weight.shape[2:]
    w = weight.reshape(groups, o // groups, -1)
    g = _grouped(grad, groups)
    cols = _per_group(lambda k: w[k].T @ g[k], groups)
    cols = cols.reshape((groups * cg,) + tuple(kernel) + (n,) + tuple(grad.shape[2:]))
    nd = len(kernel)
    cols = cols.transpose((1 + nd, 0) + tuple(range(1, 1 + nd)) + tuple(range(2 + nd, 2 + 2 * nd)))
    return np.ascontiguousarray(_col2im(cols, tuple(in_size), kernel, stride, padding, dilation))


def conv_weight_grad(x, grad, weight_shape, stride, padding, dilation, groups):
    cols, _ = _im2col(x, tuple(weight_shape[2:]), stride, padding, dilation, groups)
    g = _grouped(grad, groups)
    return _per_group(lambda k: g[k] @ cols[k].T, groups).reshape(weight_shape)


def transposed_size(in_size, kernel, stride, padding, output_padding, dilation):
    return tuple((i - 1) * s - 2 * p + d * (k - 1) + op + 1
                 for i, k, s, p, op, d in zip(in_size, kernel, stride, padding, output_padding, dilation))


def conv_transpose(x, weight, bias, stride, padding, output_padding, dilation, groups):
    size = transposed_size(x.shape[2:], weight.shape[2:], stride, padding, output_padding, dilation)
    out = conv_input_grad(x, weight, size, stride, padding, dilation, groups)
    if bias is not None:
        out += bias.reshape((1, -1) + (1,) * len(size))
    return out
