"""numpy kernels for the nn ops (convolution, pooling, normalisation, losses).

Everything works on 4-D (N, C, H, W) arrays; 1-D convolutions arrive as H == 1.
Convolution is im2col + one batched matmul; the backward scatter (col2im) loops only
over the kernel's taps, never over pixels.
"""
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ._kernels import erf_array


# ---------------------------------------------------------------------------------------
# shapes
def pooled_size(size, k, s, p, d, ceil_mode=False):
    """PyTorch's pooling/convolution output length along one spatial dim."""
    span = size + 2 * p - d * (k - 1) - 1
    if ceil_mode:
        out = -(-span // s) + 1
        # The last window must start inside the input or its left padding.
        if (out - 1) * s >= size + p:
            out -= 1
        return out
    return span // s + 1


def _windows(xp, kernel, stride, dilation, out_hw):
    """(N, C, Ho, Wo, kh, kw) strided view of the taps of every output position."""
    (kh, kw), (sh, sw), (dh, dw), (ho, wo) = kernel, stride, dilation, out_hw
    win = sliding_window_view(xp, (dh * (kh - 1) + 1, dw * (kw - 1) + 1), axis=(2, 3))
    return win[:, :, :sh * (ho - 1) + 1:sh, :sw * (wo - 1) + 1:sw, ::dh, ::dw]


def _pad(x, padding, value=0.0, extra=(0, 0)):
    (ph, pw), (eh, ew) = padding, extra
    if not (ph or pw or eh or ew):
        return x
    return np.pad(x, ((0, 0), (0, 0), (ph, ph + eh), (pw, pw + ew)), constant_values=value)


def _col2im(cols, in_hw, kernel, stride, padding, dilation):
    """Adjoint of _windows: add every tap's (N, C, Ho, Wo) plane back into the padded input."""
    n, c, kh, kw, ho, wo = cols.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    hp = max(in_hw[0] + 2 * ph, dh * (kh - 1) + sh * (ho - 1) + 1)
    wp = max(in_hw[1] + 2 * pw, dw * (kw - 1) + sw * (wo - 1) + 1)
    out = np.zeros((n, c, hp, wp), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh:i * dh + sh * (ho - 1) + 1:sh, j * dw:j * dw + sw * (wo - 1) + 1:sw] += cols[:, :, i, j]
    return out[:, :, ph:ph + in_hw[0], pw:pw + in_hw[1]]


# ---------------------------------------------------------------------------------------
# convolution
def _im2col(x, kernel, stride, padding, dilation, groups):
    """(G, Cg*kh*kw, N*Ho*Wo) columns and the output size: one large GEMM per group."""
    n, c, h, w = x.shape
    ho = pooled_size(h, kernel[0], stride[0], padding[0], dilation[0])
    wo = pooled_size(w, kernel[1], stride[1], padding[1], dilation[1])
    win = _windows(_pad(x, padding), kernel, stride, dilation, (ho, wo))
    cols = win.transpose(1, 4, 5, 0, 2, 3).reshape(groups, (c // groups) * kernel[0] * kernel[1], n * ho * wo)
    return cols, (ho, wo)


def _grouped(grad, groups):
    """(N, O, Ho, Wo) -> (G, O/G, N*Ho*Wo), the layout the column GEMMs use."""
    n, o, ho, wo = grad.shape
    return grad.transpose(1, 0, 2, 3).reshape(groups, o // groups, n * ho * wo)


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    o, cg, kh, kw = weight.shape
    n = x.shape[0]
    cols, (ho, wo) = _im2col(x, (kh, kw), stride, padding, dilation, groups)
    w = weight.reshape(groups, o // groups, cg * kh * kw)
    out = _per_group(lambda k: w[k] @ cols[k], groups)
    out = np.ascontiguousarray(out.reshape(o, n, ho, wo).transpose(1, 0, 2, 3))
    if bias is not None:
        out += bias.reshape(1, o, 1, 1)
    return out


def conv2d_input_grad(grad, weight, input_hw, stride, padding, dilation, groups):
    """Gradient of conv2d with respect to its input (a transposed convolution)."""
    n, o, ho, wo = grad.shape
    _, cg, kh, kw = weight.shape
    w = weight.reshape(groups, o // groups, cg * kh * kw)
    g = _grouped(grad, groups)
    cols = _per_group(lambda k: w[k].T @ g[k], groups)  # (G, Cg*kh*kw, N*Ho*Wo)
    cols = cols.reshape(groups * cg, kh, kw, n, ho, wo).transpose(3, 0, 1, 2, 4, 5)
    return _col2im(cols, input_hw, (kh, kw), stride, padding, dilation)


def conv2d_weight_grad(x, grad, weight_shape, stride, padding, dilation, groups):
    """Gradient of conv2d with respect to its weight."""
    o, cg, kh, kw = weight_shape
    cols, _ = _im2col(x, (kh, kw), stride, padding, dilation, groups)
    g = _grouped(grad, groups)
    return _per_group(lambda k: g[k] @ cols[k].T, groups).reshape(weight_shape)


def _per_group(product, groups):
    """Stack one 2-D matmul per group: 2-D operands (even transposed views) go straight to BLAS,
    where numpy's batched matmul falls back to a slow loop for strided batches."""
    if groups == 1:
        return product(0)[None]
    return np.stack([product(k) for k in range(groups)])


# ---------------------------------------------------------------------------------------
# pooling
def max_pool2d(x, kernel, stride, padding, dilation, ceil_mode):
    """(values, indices): indices are flat positions in each (H, W) plane, as PyTorch's."""
    n, c, h, w = x.shape
    ho = pooled_size(h, kernel[0], stride[0], padding[0], dilation[0], ceil_mode)
    wo = pooled_size(w, kernel[1], stride[1], padding[1], dilation[1], ceil_mode)
    extra = _ceil_extra((h, w), (ho, wo), kernel, stride, padding, dilation)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win = _windows(_pad(x, padding, fill, extra), kernel, stride, dilation, (ho, wo))
    flat = win.reshape(n, c, ho, wo, kernel[0] * kernel[1])
    arg = flat.argmax(axis=-1)
    values = np.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
    ki, kj = np.divmod(arg, kernel[1])
    rows = np.arange(ho).reshape(ho, 1) * stride[0] - padding[0] + ki * dilation[0]
    cols = np.arange(wo).reshape(1, wo) * stride[1] - padding[1] + kj * dilation[1]
    return values, (rows * w + cols).astype(np.int64)


def _ceil_extra(in_hw, out_hw, kernel, stride, padding, dilation):
    """Extra right/bottom padding so the last ceil_mode window exists."""
    return tuple(max(0, s * (o - 1) + d * (k - 1) + 1 - (i + 2 * p))
                 for i, o, k, s, p, d in zip(in_hw, out_hw, kernel, stride, padding, dilation))


def max_pool2d_scatter(grad, indices, input_shape):
    """Adjoint of max pooling: each output gradient goes to its argmax position."""
    n, c, h, w = input_shape
    planes = (np.arange(n * c, dtype=np.int64) * (h * w)).reshape(n, c, 1, 1)
    flat = np.bincount((indices + planes).ravel(), weights=grad.ravel(), minlength=n * c * h * w)
    return flat.astype(grad.dtype, copy=False).reshape(input_shape)


def avg_pool2d_divisor(in_hw, out_hw, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """(Ho, Wo) divisors by PyTorch's rule: windows are clipped to the padded input, and
    without count_include_pad further to the input itself."""
    if divisor_override:
        return np.full(out_hw, divisor_override, dtype=np.float64)
    sizes = []
    for i, o, k, s, p in zip(in_hw, out_hw, kernel, stride, padding):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, i + p)
        if count_include_pad:
            sizes.append(end - start)
        else:
            sizes.append(np.minimum(end, i) - np.maximum(start, 0))
    return np.outer(sizes[0], sizes[1]).astype(np.float64)


def avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    n, c, h, w = x.shape
    ho = pooled_size(h, kernel[0], stride[0], padding[0], 1, ceil_mode)
    wo = pooled_size(w, kernel[1], stride[1], padding[1], 1, ceil_mode)
    extra = _ceil_extra((h, w), (ho, wo), kernel, stride, padding, (1, 1))
    win = _windows(_pad(x, padding, 0.0, extra), kernel, stride, (1, 1), (ho, wo))
    div = avg_pool2d_divisor((h, w), (ho, wo), kernel, stride, padding, ceil_mode, count_include_pad,
                             divisor_override)
    return (win.sum(axis=(-2, -1)) / div).astype(x.dtype, copy=False)


def avg_pool2d_backward(grad, input_shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    n, c, ho, wo = grad.shape
    div = avg_pool2d_divisor(input_shape[2:], (ho, wo), kernel, stride, padding, ceil_mode, count_include_pad,
                             divisor_override)
    share = (grad / div).astype(grad.dtype, copy=False)
    cols = np.broadcast_to(share[:, :, None, None], (n, c) + tuple(kernel) + (ho, wo))
    return _col2im(cols, input_shape[2:], kernel, stride, padding, (1, 1))


# ---------------------------------------------------------------------------------------
# normalisation, softmax, losses
def layer_norm(x, weight, bias, normalized_ndim, eps):
    """(out, mean, rstd) with mean/rstd keeping the normalised dims as size 1."""
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=axes, keepdims=True)
    rstd = (1.0 / np.sqrt(var + eps)).astype(x.dtype, copy=False)
    out = centred * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out.astype(x.dtype, copy=False), mean, rstd


def channel_shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps):
    """(out, save_mean, save_invstd). In training the running stats are updated in place
    (PyTorch's kernel does this without bumping their version counters)."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = channel_shape(x)
    if training:
        mean = x.mean(axis=axes)
        var = ((x - mean.reshape(shape)) ** 2).mean(axis=axes)
        invstd = (1.0 / np.sqrt(var + eps)).astype(x.dtype, copy=False)
        if running_mean is not None:
            n = x.size // x.shape[1]
            running_mean *= 1 - momentum
            running_mean += momentum * mean
            running_var *= 1 - momentum
            running_var += momentum * var * (n / (n - 1))
        use_mean, use_invstd = mean, invstd
        saved = (mean.astype(x.dtype, copy=False), invstd)
    else:
        use_mean = running_mean
        use_invstd = (1.0 / np.sqrt(running_var + eps)).astype(x.dtype, copy=False)
        saved = (np.zeros(0, x.dtype), np.zeros(0, x.dtype))
    out = (x - use_mean.reshape(shape)) * use_invstd.reshape(shape)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return (out.astype(x.dtype, copy=False),) + saved


def softmax(x, dim):
    shifted = x - x.max(axis=dim, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=dim, keepdims=True)


def log_softmax(x, dim):
    shifted = x - x.max(axis=dim, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))


NONE, MEAN, SUM = 0, 1, 2  # PyTorch's Reduction enum


def _nll_targets(input_shape, dtype, target, weight, ignore_index):
    """Per-sample (class index made safe, weight that is 0 where ignored); (N, ...) shaped."""
    batched = len(input_shape) > 1
    t = target if batched else target.reshape(1)
    n_classes = input_shape[1] if batched else input_shape[0]
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
    safe = np.where(valid, t, 0)
    w = (weight[safe] if weight is not None else np.ones(safe.shape, dtype)).astype(dtype) * valid
    return safe, w


def nll_loss(x, target, weight, ignore_index, reduction):
    """(loss, total_weight): -w[t] * x[t] per sample, reduced; 'mean' divides by the total weight."""
    safe, w = _nll_targets(x.shape, x.dtype, target, weight, ignore_index)
    xb = x if x.ndim > 1 else x[None]
    per = -w * np.take_along_axis(xb, safe[:, None], axis=1)[:, 0]
    total = np.asarray(w.sum(), dtype=x.dtype)
    if reduction == NONE:
        return (per if x.ndim > 1 else per[0]).astype(x.dtype, copy=False), total
    out = per.sum(dtype=x.dtype)
    if reduction == MEAN:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = out / total
    return np.asarray(out, dtype=x.dtype), total


def nll_coefficients(input_shape, dtype, target, weight, ignore_index, reduction):
    """The loss as a linear map of the input: d loss / d input, per sample for 'none'."""
    safe, w = _nll_targets(input_shape, dtype, target, weight, ignore_index)
    total = w.sum(dtype=dtype)
    if reduction == MEAN:
        with np.errstate(divide="ignore", invalid="ignore"):
            w = w / total
    coef = np.zeros((safe.shape[0], input_shape[1] if len(input_shape) > 1 else input_shape[0]) + safe.shape[1:],
                    dtype=dtype)
    np.put_along_axis(coef, safe[:, None], -w[:, None].astype(dtype), axis=1)
    return (coef if len(input_shape) > 1 else coef[0]), total


def nll_backward(grad, coef, reduction):
    if reduction == NONE and coef.ndim > 1:
        grad = np.expand_dims(grad, 1)
    return (grad * coef).astype(coef.dtype, copy=False)


def reduce(loss, reduction):
    if reduction == MEAN:
        return np.asarray(loss.mean(dtype=loss.dtype), dtype=loss.dtype)
    if reduction == SUM:
        return np.asarray(loss.sum(dtype=loss.dtype), dtype=loss.dtype)
    return loss


def smooth_l1(x, target, reduction, beta):
    z = np.abs(x - target)
    return reduce(np.where(z < beta, 0.5 * z * z / (beta or 1), z - 0.5 * beta).astype(z.dtype), reduction)


def huber(x, target, reduction, delta):
    z = np.abs(x - target)
    return reduce(np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)).astype(z.dtype), reduction)


def mse_backward(grad, x, target, reduction):
    diff = x - target
    scale = 2.0 / diff.size if reduction == MEAN else 2.0
    return (diff * grad * np.asarray(scale, diff.dtype)).astype(diff.dtype, copy=False)


def binary_cross_entropy(x, target, weight, reduction):
    if np.any((x < 0) | (x > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore", invalid="ignore"):
        # PyTorch clamps each log at -100 so that 0 * log(0) stays finite.
        loss = -(target * np.maximum(np.log(x), -100) + (1 - target) * np.maximum(np.log1p(-x), -100))
    if weight is not None:
        loss = loss * weight
    return reduce(loss.astype(x.dtype, copy=False), reduction)


def bce_with_logits(x, target, weight, pos_weight, reduction):
    # log(1 + exp(-x)) written to stay finite: max(-x, 0) + log(exp(-max) + exp(-x - max)).
    softplus_neg = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))
    if pos_weight is not None:
        loss = (1 - target) * x + (1 + (pos_weight - 1) * target) * softplus_neg
    else:
        loss = (1 - target) * x + softplus_neg
    if weight is not None:
        loss = loss * weight
    return reduce(loss.astype(x.dtype, copy=False), reduction)


def gelu(x, approximate):
    if approximate == "tanh":
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)
        return (0.5 * x * (1 + np.tanh(inner))).astype(x.dtype, copy=False)
    return (0.5 * x * (1 + erf_array(x * x.dtype.type(1 / math.sqrt(2))))).astype(x.dtype, copy=False)


def gelu_derivative(x, approximate):
    if approximate == "tanh":
        beta, kappa = math.sqrt(2 / math.pi), 0.044715
        x2 = x * x
        th = np.tanh(beta * (x + kappa * x2 * x))
        return (0.5 * (1 + th) + 0.5 * x * (1 - th * th) * beta * (1 + 3 * kappa * x2)).astype(x.dtype, copy=False)
    cdf = 0.5 * (1 + erf_array(x * x.dtype.type(1 / math.sqrt(2))))
    pdf = np.exp(-0.5 * x * x) * (1 / math.sqrt(2 * math.pi))
    return (cdf + x * pdf).astype(x.dtype, copy=False)


def softplus(x, beta, threshold):
    with np.errstate(over="ignore"):
        soft = np.log1p(np.exp(x * beta)) / beta
    return np.where(x * beta > threshold, x, soft).astype(x.dtype, copy=False)


# ---------------------------------------------------------------------------------------
# embedding
def embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """Sum each row's gradients into its index; the padding row gets none."""
    dim = grad.shape[-1]
    idx = indices.reshape(-1)
    rows = grad.reshape(-1, dim) * embedding_row_scale(indices, padding_idx, scale_grad_by_freq,
                                                       grad.dtype).reshape(-1, 1)
    out = np.zeros((num_weights, dim), dtype=grad.dtype)
    np.add.at(out, idx, rows)
    return out


def embedding_row_scale(indices, padding_idx, scale_grad_by_freq, dtype):
    """Per-lookup factor: 0 for padding_idx, 1/count with scale_grad_by_freq; shaped (*indices, 1)."""
    scale = np.ones(indices.shape, dtype=dtype)
    if scale_grad_by_freq:
        _, inverse, counts = np.unique(indices, return_inverse=True, return_counts=True)
        scale = scale / counts[inverse.reshape(indices.shape)]
    if padding_idx is not None and padding_idx >= 0:
        scale = scale * (indices != padding_idx)
    return scale.astype(dtype)[..., None]


# ---------------------------------------------------------------------------------------
# 1-D convolutions and unbatched pooling reuse the 2-D batched kernels
def _conv_params_2d(x, stride, padding, dilation):
    if x.ndim == 3:
        return (1,) + tuple(stride), (0,) + tuple(padding), (1,) + tuple(dilation)
    return stride, padding, dilation


def conv_nd(x, weight, bias, stride, padding, dilation, groups):
    s, p, d = _conv_params_2d(x, stride, padding, dilation)
    if x.ndim == 3:
        return conv2d(x[:, :, None], weight[:, :, None], bias, s, p, d, groups)[:, :, 0]
    return conv2d(x, weight, bias, s, p, d, groups)


def conv_nd_input_grad(grad, weight, input_sizes, stride, padding, dilation, groups):
    s, p, d = _conv_params_2d(grad, stride, padding, dilation)
    if grad.ndim == 3:
        return conv2d_input_grad(grad[:, :, None], weight[:, :, None], (1, input_sizes[-1]), s, p, d, groups)[:, :, 0]
    return conv2d_input_grad(grad, weight, tuple(input_sizes[2:]), s, p, d, groups)


def conv_nd_weight_grad(x, grad, weight_sizes, stride, padding, dilation, groups):
    s, p, d = _conv_params_2d(x, stride, padding, dilation)
    if x.ndim == 3:
        o, cg, k = weight_sizes
        return conv2d_weight_grad(x[:, :, None], grad[:, :, None], (o, cg, 1, k), s, p, d, groups)[:, :, 0]
    return conv2d_weight_grad(x, grad, tuple(weight_sizes), s, p, d, groups)


def batched(fn, x, *args):
    """Run a 4-D pooling kernel on a 3-D (unbatched) input too, as PyTorch's kernels do."""
    if x.ndim == 4:
        return fn(x, *args)
    args = [a[None] if isinstance(a, np.ndarray) else ((1,) + tuple(a) if isinstance(a, tuple) and len(a) == 3
                                                         else a) for a in args]
    out = fn(x[None], *args)
    return tuple(o[0] for o in out) if isinstance(out, tuple) else out[0]


# ---------------------------------------------------------------------------------------
# adaptive average pooling and constant padding
def adaptive_matrix(in_size, out_size, dtype):
    """(out, in) averaging weights of PyTorch's adaptive windows [floor(i*in/out), ceil((i+1)*in/out))."""
    m = np.zeros((out_size, in_size), dtype=np.float64)
    for i in range(out_size):
        start, end = (i * in_size) // out_size, -(-((i + 1) * in_size) // out_size)
        m[i, start:end] = 1.0 / (end - start)
    return m.astype(dtype)


def adaptive_avg_pool2d(x, output_size):
    ah = adaptive_matrix(x.shape[-2], output_size[0], x.dtype)
    aw = adaptive_matrix(x.shape[-1], output_size[1], x.dtype)
    return np.einsum("ih,...hw,jw->...ij", ah, x, aw, optimize=True)


def adaptive_avg_pool2d_backward(grad, input_sizes):
    ah = adaptive_matrix(input_sizes[-2], grad.shape[-2], grad.dtype)
    aw = adaptive_matrix(input_sizes[-1], grad.shape[-1], grad.dtype)
    return np.einsum("ih,...ij,jw->...hw", ah, grad, aw, optimize=True)


def constant_pad(x, pad, value):
    """F.pad's constant mode: pairs from the last dim backwards; negative amounts crop."""
    widths = [(0, 0)] * x.ndim
    crops = [slice(None)] * x.ndim
    for k in range(len(pad) // 2):
        d = x.ndim - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        widths[d] = (max(lo, 0), max(hi, 0))
        crops[d] = slice(max(-lo, 0), x.shape[d] - max(-hi, 0))
    return np.pad(x[tuple(crops)], widths, constant_values=value)
