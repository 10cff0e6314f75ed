"""numpy kernels for the nn ops (convolution, pooling, normalisation, attention, resampling);
softmax and the losses are in _kernels_softmax and _kernels_loss.

Everything works on 4-D (N, C, H, W) arrays; 1-D convolutions arrive as H == 1.
Convolution is im2col + one batched matmul; the backward scatter (col2im) loops only
over the kernel's taps, never over pixels.
"""
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from . import _kernels_conv as KC
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
    with np.errstate(over="ignore"):  # (ATen's kernel calls SLEEF's exp, closer to numpy's than VML's)
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
    if x.ndim == 5:
        return KC.conv(x, weight, bias, stride, padding, dilation, groups)
    s, p, d = _conv_params_2d(x, stride, padding, dilation)
    if x.ndim == 3:
        return conv2d(x[:, :, None], weight[:, :, None], bias, s, p, d, groups)[:, :, 0]
    return conv2d(x, weight, bias, s, p, d, groups)


def conv_nd_input_grad(grad, weight, input_sizes, stride, padding, dilation, groups):
    if grad.ndim == 5:
        return KC.conv_input_grad(grad, weight, tuple(input_sizes[2:]), stride, padding, dilation, groups)
    s, p, d = _conv_params_2d(grad, stride, padding, dilation)
    if grad.ndim == 3:
        return conv2d_input_grad(grad[:, :, None], weight[:, :, None], (1, input_sizes[-1]), s, p, d, groups)[:, :, 0]
    return conv2d_input_grad(grad, weight, tuple(input_sizes[2:]), s, p, d, groups)


def conv_nd_weight_grad(x, grad, weight_sizes, stride, padding, dilation, groups):
    if x.ndim == 5:
        return KC.conv_weight_grad(x, grad, tuple(weight_sizes), stride, padding, dilation, groups)
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


def contiguous_pooled(pooled):
    """einsum's result in PyTorch's layout: einsum may hand back a permuted array, and a
    non-contiguous pool output would make a following flatten copy (CloneBackward0 and
    UnsafeViewBackward0) where PyTorch's contiguous one takes a ViewBackward0."""
    return np.ascontiguousarray(pooled)


def adaptive_avg_pool2d(x, output_size):
    ah = adaptive_matrix(x.shape[-2], output_size[0], x.dtype)
    aw = adaptive_matrix(x.shape[-1], output_size[1], x.dtype)
    return contiguous_pooled(np.einsum("ih,...hw,jw->...ij", ah, x, aw, optimize=True))


def adaptive_avg_pool2d_backward(grad, input_sizes):
    ah = adaptive_matrix(input_sizes[-2], grad.shape[-2], grad.dtype)
    aw = adaptive_matrix(input_sizes[-1], grad.shape[-1], grad.dtype)
    return contiguous_pooled(np.einsum("ih,...ij,jw->...hw", ah, grad, aw, optimize=True))


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


# =======================================================================================
# attention, resampling, padding by reflection/replication, group norm, distances
def _repeat_heads(x, heads):
    """Grouped-query attention: each key/value head serves heads // x.shape[-3] query heads."""
    return x if x.shape[-3] == heads else np.repeat(x, heads // x.shape[-3], axis=-3)


def _attention_probs(query, key, mask, scale, is_causal):
    """(probabilities, logsumexp) of softmax(q k^T * scale + mask) over the keys, in float64.
    A row whose every key is masked out gives zeros (and logsumexp 0), as the CPU kernel does."""
    scores = np.matmul(query.astype(np.float64), np.swapaxes(key, -1, -2).astype(np.float64)) * scale
    if is_causal:
        length, source = scores.shape[-2:]
        scores = np.where(np.tril(np.ones((length, source), dtype=bool)), scores, -np.inf)
    if mask is not None:
        scores = scores + mask.astype(np.float64)
    peak = scores.max(axis=-1, keepdims=True)
    empty = ~np.isfinite(peak)
    peak = np.where(empty, 0.0, peak)
    weights = np.exp(scores - peak)
    total = weights.sum(axis=-1, keepdims=True)
    probs = np.where(empty, 0.0, weights / np.where(empty, 1.0, total))
    with np.errstate(divide="ignore"):
        lse = np.where(empty, 0.0, peak + np.log(np.where(empty, 1.0, total)))[..., 0]
    return probs, lse


def sdpa_flash(query, key, value, mask, scale, is_causal):
    """The fused CPU attention kernel: (output, logsumexp)."""
    heads = query.shape[-3]
    probs, lse = _attention_probs(query, _repeat_heads(key, heads), mask, scale, is_causal)
    # The output takes the query's memory layout (it decides whether later reshapes are views).
    out = np.empty_like(query)
    out[...] = np.matmul(probs, _repeat_heads(value, heads).astype(np.float64))
    lse_dtype = np.float64 if query.dtype == np.float64 else np.float32
    return out, lse.astype(lse_dtype)


def _fold_heads(grad, heads):
    """Sum the gradient of repeated key/value heads back onto the shared head."""
    if grad.shape[-3] == heads:
        return grad
    shape = grad.shape[:-3] + (heads, grad.shape[-3] // heads) + grad.shape[-2:]
    return grad.reshape(shape).sum(axis=-3)


def sdpa_flash_grad(grad_out, query, key, value, mask, scale, is_causal, which):
    """Gradient of sdpa_flash for query (0), key (1) or value (2)."""
    heads = query.shape[-3]
    k, v = _repeat_heads(key, heads).astype(np.float64), _repeat_heads(value, heads).astype(np.float64)
    probs, _ = _attention_probs(query, k, mask, scale, is_causal)
    g = grad_out.astype(np.float64)
    if which == 2:
        return _fold_heads(np.matmul(np.swapaxes(probs, -1, -2), g), value.shape[-3]).astype(value.dtype)
    dprobs = np.matmul(g, np.swapaxes(v, -1, -2))
    dscores = probs * (dprobs - (dprobs * probs).sum(axis=-1, keepdims=True)) * scale
    if which == 0:
        return np.matmul(dscores, k).astype(query.dtype)
    return _fold_heads(np.matmul(np.swapaxes(dscores, -1, -2), query.astype(np.float64)),
                       key.shape[-3]).astype(key.dtype)


def safe_softmax(x, dim):
    """Softmax whose rows of only -inf give zeros instead of NaN."""
    peak = x.max(axis=dim, keepdims=True)
    empty = np.isneginf(peak)
    e = np.exp(x - np.where(empty, 0, peak))
    out = e / np.where(empty, 1, e.sum(axis=dim, keepdims=True))
    return np.where(empty, 0, out).astype(x.dtype, copy=False)


def baddbmm(self, batch1, batch2, beta, alpha):
    product = np.matmul(batch1, batch2)
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product.astype(batch1.dtype, copy=False)
    return (product + (self if beta == 1 else self * beta)).astype(batch1.dtype, copy=False)


def group_norm(x, weight, bias, n, c, hxw, group, eps):
    """(out, mean, rstd), mean and rstd of shape (N, group)."""
    grouped = x.reshape(n, group, -1)
    mean = grouped.mean(axis=-1, keepdims=True)
    centred = grouped - mean
    rstd = (1.0 / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + eps)).astype(x.dtype, copy=False)
    out = (centred * rstd).reshape(x.shape)
    shape = channel_shape(x)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out.astype(x.dtype, copy=False), mean[..., 0].astype(x.dtype, copy=False), rstd[..., 0]


# ---------------------------------------------------------------------------------------
# resampling and padding as one linear map per spatial axis: an (out, in) matrix
def map_axes(x, matrices):
    """Apply one (out, in) matrix to each of the trailing len(matrices) axes of x."""
    first = x.ndim - len(matrices)
    for k, matrix in enumerate(matrices):
        axis = first + k
        x = np.moveaxis(np.tensordot(x, matrix.astype(x.dtype, copy=False), axes=([axis], [1])), -1, axis)
    return np.ascontiguousarray(x)


def map_axes_adjoint(grad, matrices):
    return map_axes(grad, [m.T for m in matrices])


def _compute_type(dtype):
    """The precision PyTorch's CPU kernels compute source indices and weights in."""
    return np.float64 if np.dtype(dtype) == np.float64 else np.float32


def _scale_value(scale, in_size, out_size, ctype):
    return ctype(1.0 / scale) if scale is not None and scale > 0 else ctype(in_size) / ctype(out_size)


def nearest_matrix(in_size, out_size, scale, exact):
    m = np.zeros((out_size, in_size))
    dst = np.arange(out_size)
    if not exact and out_size == in_size:
        src = dst
    elif not exact and out_size == 2 * in_size:
        src = dst >> 1
    else:
        s = _scale_value(scale, in_size, out_size, np.float32)
        pos = ((dst + 0.5) * np.float64(s)).astype(np.float32) if exact else dst.astype(np.float32) * s
        src = np.minimum(np.floor(pos).astype(np.int64), in_size - 1)
    m[dst, src] = 1.0
    return m


def _source_positions(in_size, out_size, scale, align_corners, cubic, ctype):
    dst = np.arange(out_size).astype(ctype)
    if align_corners:
        step = ctype(in_size - 1) / ctype(out_size - 1) if out_size > 1 else ctype(0)
        return step * dst
    s = _scale_value(scale, in_size, out_size, ctype)
    src = s * (dst + ctype(0.5)) - ctype(0.5)
    return src if cubic else np.maximum(src, ctype(0))


def linear_matrix(in_size, out_size, scale, align_corners, dtype):
    ctype = _compute_type(dtype)
    src = _source_positions(in_size, out_size, scale, align_corners, False, ctype)
    lo = src.astype(np.int64)
    hi = lo + (lo < in_size - 1)
    frac = np.clip(src - lo.astype(ctype), 0, 1).astype(ctype)
    m = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    np.add.at(m, (rows, lo), (ctype(1) - frac).astype(np.float64))
    np.add.at(m, (rows, hi), frac.astype(np.float64))
    return m


def cubic_matrix(in_size, out_size, scale, align_corners, dtype):
    ctype = _compute_type(dtype)
    a = ctype(-0.75)
    src = _source_positions(in_size, out_size, scale, align_corners, True, ctype)
    base = np.floor(src)
    t = np.clip(src - base, 0, 1).astype(ctype)

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    coefficients = (far(t + 1), near(t), near(1 - t), far(2 - t))
    m = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    for k, coefficient in enumerate(coefficients):
        np.add.at(m, (rows, np.clip(base.astype(np.int64) - 1 + k, 0, in_size - 1)), coefficient.astype(np.float64))
    return m


def resample_matrices(mode, in_sizes, out_sizes, scales, align_corners, dtype):
    if mode in ("nearest", "nearest-exact"):
        return [nearest_matrix(i, o, s, mode == "nearest-exact") for i, o, s in zip(in_sizes, out_sizes, scales)]
    build = cubic_matrix if mode == "bicubic" else linear_matrix
    return [build(i, o, s, align_corners, dtype) for i, o, s in zip(in_sizes, out_sizes, scales)]


def pad_matrices(in_sizes, padding, mode):
    """Selection matrices of reflection / replication padding; padding pairs start at the last axis."""
    matrices = []
    for k, size in enumerate(in_sizes):
        lo, hi = padding[2 * (len(in_sizes) - 1 - k)], padding[2 * (len(in_sizes) - 1 - k) + 1]
        src = np.arange(size + lo + hi) - lo
        if mode == "reflect":
            src = np.abs(src)
            src = np.where(src >= size, 2 * (size - 1) - src, src)
        else:
            src = np.clip(src, 0, size - 1)
        m = np.zeros((size + lo + hi, size))
        m[np.arange(len(src)), src] = 1.0
        matrices.append(m)
    return matrices


# ---------------------------------------------------------------------------------------
# pairwise distances
def cdist(x1, x2, p):
    diff = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        out = (diff != 0).sum(axis=-1)
    elif p == 1:
        out = diff.sum(axis=-1)
    elif p == 2:
        out = np.sqrt((diff * diff).sum(axis=-1))
    elif math.isinf(p):
        out = diff.max(axis=-1) if diff.shape[-1] else np.zeros(diff.shape[:-1], diff.dtype)
    else:
        out = (diff ** p).sum(axis=-1) ** (1.0 / p)
    return np.asarray(out).astype(x1.dtype, copy=False)


def cdist_backward(grad, x1, x2, p, dist):
    """Gradient of cdist for x1, over the broadcast batch shape."""
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    g = grad[..., None]
    d = dist[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            terms = np.zeros_like(diff)
        elif p == 1:
            terms = g * np.sign(diff)
        elif p == 2:
            terms = np.where(d == 0, 0, g * diff / d)
        elif math.isinf(p):
            terms = g * np.sign(diff) * (np.abs(diff) == d)
        elif p < 2:
            terms = np.where(d == 0, 0, np.sign(diff) * np.abs(diff) ** (p - 1) * g / d ** (p - 1))
            if p < 1:
                terms = np.where(diff == 0, 0, terms)
        else:
            terms = np.where(d == 0, 0, diff * np.abs(diff) ** (p - 2) * g / d ** (p - 1))
    return terms.sum(axis=-2).astype(x1.dtype, copy=False)


def euclidean_dist(x1, x2):
    """||a - b|| as one matmul of [-2a, |a|^2, 1] with [b, 1, |b|^2], clamped at 0 before the root."""
    n1 = (x1 * x1).sum(axis=-1, keepdims=True)
    n2 = (x2 * x2).sum(axis=-1, keepdims=True)
    left = np.concatenate([x1 * -2, n1, np.ones_like(n1)], axis=-1)
    right = np.concatenate([x2, np.ones_like(n2), n2], axis=-1)
    return np.sqrt(np.maximum(np.matmul(left, np.swapaxes(right, -1, -2)), 0)).astype(x1.dtype, copy=False)



# the families split out of this file, re-exported: the op table reads them as KN.<name>
from ._kernels_softmax import log_softmax, log_softmax_backward, softmax, softmax_backward  # noqa: E402,F401
from ._kernels_loss import (  # noqa: E402,F401
    MEAN, NONE, SUM, bce_with_logits, binary_cross_entropy, c_log, huber, huber_backward, mse, mse_backward,
    nll_backward, nll_coefficients, nll_loss, reduce, smooth_l1, smooth_l1_backward)
