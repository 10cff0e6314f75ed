"""torch.nn.functional: PyTorch's signatures, argument checks and composite decompositions
over the op table (``_ops_nn`` for nn kernels, the engine's own ops for the rest)."""
import numbers
import warnings

import numpy as np

from .._namespace import F as _F
from .._tensor import wrap_dim
from .. import _kernels_nn as _KN
from .. import _ops_nn as ops
from .. import _random
from ..autograd.graph import apply as _apply_op

# Re-exported elementwise functions PyTorch also offers here.
tanh = _F.tanh
sigmoid = _F.sigmoid


def _apply(op, inputs, **params):
    return _apply_op(op, inputs, params)


def _tuple(value, n):
    if isinstance(value, (list, tuple)):
        if len(value) == 1 and n > 1:
            return tuple(int(value[0]) for _ in range(n))
        return tuple(int(v) for v in value)
    return (int(value),) * n


def _size_list(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


# =======================================================================================
# linear and convolution
def linear(input, weight, bias=None):
    """At::linear: addmm for 2-D inputs with a bias; contiguous N-D inputs are flattened to
    2-D around one addmm (ViewBackward0 on both sides); otherwise matmul (+ bias)."""
    if bias is not None and input.dim() == 2:
        return _F.addmm(bias, input, weight.t())
    if bias is not None and input.dim() > 0 and input.is_contiguous():
        lead = tuple(input.shape[:-1])
        flat = input.reshape(int(np.prod(lead, dtype=np.int64)), input.shape[-1])
        return _F.addmm(bias, flat, weight.t()).view(lead + (weight.shape[0],))
    out = _F.matmul(input, weight.t())
    return out if bias is None else out + bias


def _conv_padding(padding, n, weight, dilation, stride):
    if isinstance(padding, str):
        if padding == "valid":
            return (0,) * n
        if padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            total = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
            if any(t % 2 for t in total):
                raise NotImplementedError("gradviz: padding='same' with an even effective kernel size")
            return tuple(t // 2 for t in total)
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    return _tuple(padding, n)


def _convnd(name, n, input, weight, bias, stride, padding, dilation, groups):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input of "
                           f"size: {_size_list(input.shape)}")
    stride, dilation = _tuple(stride, n), _tuple(dilation, n)
    padding = _conv_padding(padding, n, weight, dilation, stride)
    unbatched = input.dim() == n + 1
    x = input.unsqueeze(0) if unbatched else input
    if x.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_size_list(weight.shape)}, expected input"
                           f"{_size_list(x.shape)} to have {weight.shape[1] * groups} channels, but got {x.shape[1]} "
                           "channels instead")
    if weight.shape[0] % groups:
        raise RuntimeError("Given groups={}, expected weight to be divisible by {} at dimension 0, but got weight of "
                           "size {} instead".format(groups, groups, _size_list(weight.shape)))
    padded = [s + 2 * p for s, p in zip(x.shape[2:], padding)]
    kernel = [d * (k - 1) + 1 for d, k in zip(dilation, weight.shape[2:])]
    if any(p < k for p, k in zip(padded, kernel)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual input size")
    out = ops.conv(x, weight, bias, stride, padding, dilation, groups)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convnd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convnd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


# =======================================================================================
# pooling
def _pool_args(input, kernel_size, stride, padding, dilation, name):
    if input.dim() not in (3, 4):
        raise RuntimeError(f"{name}: Expected 3D or 4D tensor, but got: {_size_list(input.shape)}")
    kernel = _tuple(kernel_size, 2)
    # PyTorch keeps an omitted stride as () (it defaults to the kernel size in the kernel).
    stride = () if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _tuple(stride, 2)
    return kernel, stride, _tuple(padding, 2), _tuple(dilation, 2)


def _check_pool_output(input, kernel, stride, padding, dilation, ceil_mode):
    from .._kernels_nn import pooled_size
    h, w = input.shape[-2:]
    s = stride or kernel
    oh = pooled_size(h, kernel[0], s[0], padding[0], dilation[0], ceil_mode)
    ow = pooled_size(w, kernel[1], s[1], padding[1], dilation[1], ceil_mode)
    if oh < 1 or ow < 1:
        c = input.shape[-3]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). "
                           "Output size is too small")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    kernel, stride, padding, dilation = _pool_args(input, kernel_size, stride, padding, dilation, "max_pool2d")
    for p, k, d in zip(padding, kernel, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
    _check_pool_output(input, kernel, stride, padding, dilation, ceil_mode)
    out, indices = _apply(ops.max_pool2d, (input,), kernel_size=kernel, stride=stride, padding=padding,
                          dilation=dilation, ceil_mode=ceil_mode)
    return (out, indices) if return_indices else out


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """PyTorch runs the 2-D kernel on an unsqueezed input (stride defaulting to the kernel), then squeezes."""
    kernel = (1,) + _tuple(kernel_size, 1)
    stride = kernel if stride is None or stride == [] or stride == () else (1,) + _tuple(stride, 1)
    out = max_pool2d(input.unsqueeze(-2), kernel, stride, (0,) + _tuple(padding, 1),
                     (1,) + _tuple(dilation, 1), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    kernel, stride, padding, _ = _pool_args(input, kernel_size, stride, padding, 1, "avg_pool2d")
    for p, k in zip(padding, kernel):
        if p > k // 2:
            raise RuntimeError(f"pad should be at most half of kernel size, but got pad={p} and kernel_size={k}")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool_output(input, kernel, stride, padding, (1, 1), ceil_mode)
    return _apply(ops.avg_pool2d, (input,), kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode,
                  count_include_pad=count_include_pad, divisor_override=divisor_override)


def adaptive_avg_pool2d(input, output_size):
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {_size_list(input.shape)}")
    size = _tuple(output_size, 2) if not isinstance(output_size, (list, tuple)) else tuple(
        input.shape[-2 + i] if s is None else int(s) for i, s in enumerate(output_size))
    if size == (1, 1):
        return input.mean((-1, -2), keepdim=True)  # ATen's shortcut for global pooling
    return _apply(ops.adaptive_avg_pool2d, (input,), output_size=size)


def pad(input, pad, mode="constant", value=None):
    if mode != "constant":
        return _functional_resize.pad_modes(input, pad, mode, value)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    return _apply(ops.constant_pad_nd, (input,), pad=tuple(int(p) for p in pad),
                  value=0.0 if value is None else value)


# =======================================================================================
# activations
def relu(input, inplace=False):
    return _F.relu_(input) if inplace else _F.relu(input)


def relu_(input):
    return _F.relu_(input)


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _apply(ops.gelu, (input,), approximate=approximate)


def softplus(input, beta=1.0, threshold=20.0):
    return _apply(ops.softplus, (input,), beta=beta, threshold=threshold)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _F.softmax_like(ops.softmax, "softmax", input, dim, dtype, _stacklevel)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _F.softmax_like(ops.log_softmax, "log_softmax", input, dim, dtype, _stacklevel)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return _F.softmax_like(ops.softmax, "softmin", -input, dim, dtype, _stacklevel)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """PyTorch's op sequence, so that the draws and the graph are its own: Gumbel noise
    as -log of an exponential draw, softmax of (logits + noise) / tau, and for hard=True
    the one-hot of the argmax passed straight through (y_hard - y_soft.detach() + y_soft)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_F.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _F.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# =======================================================================================
# dropout
def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    if p == 1:
        mask = _F.zeros((), dtype=input.dtype)
    else:
        mask = _dropout_noise(input._data, p)
    return input.mul_(mask) if inplace else input * mask


def _dropout_noise(data, p):
    """ATen's CPU dropout noise: empty_like(input).bernoulli_(1 - p).div_(1 - p), drawn in
    the input's memory order from the default generator."""
    noise = np.empty_like(data)
    noise[...] = _random.in_memory_order(noise, _random.bernoulli_scalar(None, data.size, 1 - p))
    return _F.from_numpy(noise / noise.dtype.type(1 - p))


# =======================================================================================
# embedding and normalisation
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    if input.dtype.name not in ("int64", "int32"):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{input.type().split('.')[-1]} instead (while checking "
                           "arguments for embedding)")
    n = weight.shape[0]
    if padding_idx is not None:
        if padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx += n
        elif padding_idx >= n:
            raise AssertionError("Padding_idx must be within num_embeddings")
    idx = input._data
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm(weight, idx, max_norm, norm_type)
    return _apply(ops.embedding, (weight, input), padding_idx=-1 if padding_idx is None else padding_idx,
                  scale_grad_by_freq=scale_grad_by_freq, sparse=sparse, weight_sym_argsize_0=n)


def _embedding_renorm(weight, idx, max_norm, norm_type):
    """Rows looked up are rescaled in place to norm <= max_norm (no autograd, as in PyTorch)."""
    rows = np.unique(idx)
    data = weight._data
    norms = np.linalg.norm(data[rows], ord=norm_type, axis=1)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(data.dtype)
    data[rows] *= scale[:, None]
    weight._vbox[0] += 1


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else tuple(normalized_shape)
    if tuple(input.shape[input.dim() - len(shape):]) != shape or input.dim() < len(shape):
        raise RuntimeError(f"Given normalized_shape={_size_list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{_size_list(input.shape)}")
    out = _apply(ops.layer_norm, (input, weight, bias), normalized_shape=shape, eps=eps)
    return out[0]


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if training:
        size = input.shape[0]
        for s in input.shape[2:]:
            size *= s
        if size == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
    out = _apply(ops.batch_norm, (input, weight, bias, running_mean, running_var), training=training,
                 momentum=0.0 if momentum is None else momentum, eps=eps)
    return out[0]


# =======================================================================================
# losses
def _reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        if reduction not in ops.REDUCTION:
            raise ValueError(f"{reduction} is not a valid value for reduction")
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' instead.".format(
        "mean" if (size_average is None or size_average) and (reduce is None or reduce) else
        ("sum" if reduce is None or reduce else "none")), stacklevel=3)
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def _warn_target_size(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    _warn_target_size(input, target)
    return _apply(ops.mse_loss, (input, target), reduction=ops.REDUCTION[reduction])


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    _warn_target_size(input, target)
    return _reduce((input - target).abs(), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _reduction(size_average, reduce, reduction)
    _warn_target_size(input, target)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    return _apply(ops.smooth_l1_loss, (input, target), reduction=ops.REDUCTION[reduction], beta=float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _warn_target_size(input, target)
    return _apply(ops.huber_loss, (input, target), reduction=ops.REDUCTION[_reduction(None, None, reduction)],
                  delta=float(delta))


def _check_nll(input, target):
    if target.dtype.name not in ("int64", "uint8"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.type().split('.')[-1][:-6]}")
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() == 1:
        if target.dim() > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        return
    if input.shape[0] != (target.shape[0] if target.dim() else 1):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.dim() else 1}).")
    if input.dim() == 2 and target.dim() != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.dim() > 2 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        want = [input.shape[0]] + list(input.shape[2:])
        raise RuntimeError(f"Expected target size {_size_list(want)}, got {_size_list(target.shape)}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """ATen's nll_loss_nd: NllLoss up to 2-D, NllLoss2D for 4-D, and other ranks viewed as
    (N, C, 1, -1) around NllLoss2D."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_nll(input, target)
    params = {"reduction": ops.REDUCTION[reduction], "ignore_index": ignore_index}
    if input.dim() <= 2:
        return _apply(ops.nll_loss, (input, target, weight), **params)[0]
    if input.dim() == 4:
        return _apply(ops.nll_loss2d, (input, target, weight), **params)[0]
    n, c = input.shape[:2]
    out_size = (n,) + tuple(input.shape[2:])
    x = input.contiguous().view(n, c, 1, -1)
    t = target.contiguous().view(n, 1, -1)
    out = _apply(ops.nll_loss2d, (x, t, weight), **params)[0]
    return out.view(out_size) if reduction == "none" else out


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    reduction = _reduction(size_average, reduce, reduction)
    class_dim = 0 if input.dim() == 1 else 1
    if target.is_floating_point() and tuple(target.shape) == tuple(input.shape):
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing, class_dim)
    logp = log_softmax(input, class_dim)
    if label_smoothing > 0:
        return _cross_entropy_smoothed(logp, target, weight, reduction, ignore_index, label_smoothing, class_dim)
    return nll_loss(logp, target, weight, None, ignore_index, None, reduction)


def _scale(t, value):
    return _apply(ops.mul_scalar, (t,), other=value)


def _cross_entropy_smoothed(logp, target, weight, reduction, ignore_index, smoothing, class_dim):
    """PyTorch's composite: (1 - s) * nll + s / C * (weighted) sum of -log p over classes."""
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    n_classes = logp.shape[class_dim]
    if weight is not None:
        shape = [1] * logp.dim()
        shape[class_dim] = n_classes
        smooth = -(logp * weight.view(shape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    ignore = target == ignore_index
    smooth = smooth.masked_fill(ignore, 0.0)
    if reduction == "mean":
        if weight is not None:
            kept = target._data[~ignore._data]
            ret = smooth.sum() / _F.from_numpy(np.asarray(weight._data[kept].sum(), dtype=smooth._data.dtype))
        else:
            # The count is cast first: the core promotes float32 / int64 0-dim tensors to float64
            # (PyTorch keeps float32); the denominator needs no gradient, so the graph is unchanged.
            ret = smooth.sum() / (~ignore).sum().to(smooth.dtype)
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    return _scale(nll, 1 - smoothing) + _scale(ret, smoothing / n_classes)


def _cross_entropy_probs(input, target, weight, reduction, smoothing, class_dim):
    """Class-probability targets: -(log_softmax(input) * target [* weight]) summed, as ATen does."""
    logp = log_softmax(input, class_dim)
    n_classes = input.shape[class_dim]
    if smoothing > 0:
        target = target * (1 - smoothing) + smoothing / n_classes
    product = logp * target
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = n_classes
        product = product * weight.view(shape)
    if reduction == "mean":
        return _apply(ops.div_scalar, (-product.sum(),), other=input.numel() // n_classes)
    if reduction == "sum":
        return -product.sum()
    return -product.sum(class_dim)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(tuple(np.broadcast_shapes(tuple(target.shape), tuple(weight.shape))))
    return _apply(ops.binary_cross_entropy, (input, target, weight), reduction=ops.REDUCTION[reduction])


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return _apply(ops.binary_cross_entropy_with_logits, (input, target, weight, pos_weight),
                  reduction=ops.REDUCTION[reduction])


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _reduction(size_average, reduce, reduction) if reduction != "batchmean" else reduction
    if log_target:
        loss = target.exp() * (target - input)
    elif target.requires_grad:
        loss = target * target.log() - target * input
    else:
        # xlogy(t, t): 0 where t == 0, a constant when the target needs no gradient.
        t = target._data
        with np.errstate(divide="ignore", invalid="ignore"):
            # ATen's xlogy kernel: NaN where y is NaN, 0 where x == 0, else x * std::log(y)
            xlogy = np.where(np.isnan(t), t, np.where(t == 0, 0, t * _KN.c_log(t))).astype(t.dtype)
        loss = _F.from_numpy(xlogy) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() else loss.sum()
    return _reduce(loss, reduction)


# =======================================================================================
# misc
def one_hot(tensor, num_classes=-1):
    if tensor.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    data = tensor._data
    if num_classes == -1:
        num_classes = int(data.max()) + 1 if data.size else 0
    if data.size and (data.min() < 0 or data.max() >= num_classes):
        raise RuntimeError("Class values must be smaller than num_classes." if data.min() >= 0 else
                           "Class values must be non-negative.")
    out = np.zeros(data.shape + (num_classes,), dtype=np.int64)
    np.put_along_axis(out, data[..., None], 1, axis=-1)
    return _F.from_numpy(out)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    return input / denom


def unsafe_chunk(input, chunks, dim=0):
    """PyTorch's unsafe_chunk (used inside its RNN cells): one UnsafeSplitBackward0 node."""
    size = input.shape[dim]
    split = -(-size // chunks)
    return _apply(ops.unsafe_split, (input,), split_size=split, dim=wrap_dim(dim, input.dim()))


# activations, attention, resizing, padding modes and group norm live in modules of their own
from ._functional_activation import (  # noqa: E402,F401
    celu, celu_, elu, elu_, glu, hardshrink, hardsigmoid, hardswish, hardtanh, hardtanh_, leaky_relu, leaky_relu_,
    logsigmoid, mish, prelu, relu6, rrelu, rrelu_, selu, selu_, silu, softshrink, softsign, tanhshrink, threshold,
    threshold_)
from . import _functional_resize  # noqa: E402
from ._functional_resize import (  # noqa: E402,F401
    group_norm, interpolate, upsample, upsample_bilinear, upsample_nearest)
from ._functional_dropout import (  # noqa: E402,F401
    alpha_dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout)
from ._functional_pool_shuffle import (  # noqa: E402,F401
    adaptive_avg_pool1d, avg_pool1d, channel_shuffle, cosine_similarity, max_pool1d_with_indices,
    max_pool2d_with_indices, pairwise_distance, pixel_shuffle, pixel_unshuffle)
from ._functional_pool import (  # noqa: E402,F401
    adaptive_avg_pool3d, adaptive_max_pool1d, adaptive_max_pool1d_with_indices, adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices, adaptive_max_pool3d, adaptive_max_pool3d_with_indices, avg_pool3d, lp_pool1d,
    lp_pool2d, lp_pool3d, max_pool3d, max_pool3d_with_indices, max_unpool1d, max_unpool2d, max_unpool3d)
from ._functional_linear_more import bilinear  # noqa: E402,F401
from ._functional_embedding_bag import embedding_bag  # noqa: E402,F401
from ._functional_attention import (  # noqa: E402,F401
    _canonical_mask, _in_projection, _in_projection_packed, _mha_shape_check, _none_or_dtype,
    multi_head_attention_forward, scaled_dot_product_attention)
from ._functional_conv_more import conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d  # noqa: E402,F401,E501
from ._functional_norms_more import instance_norm, rms_norm  # noqa: E402,F401
from ._functional_sampling import affine_grid, fold, grid_sample, unfold  # noqa: E402,F401
from ._functional_losses_more import (  # noqa: E402,F401
    cosine_embedding_loss, ctc_loss, gaussian_nll_loss, hinge_embedding_loss, margin_ranking_loss, multi_margin_loss,
    multilabel_margin_loss, poisson_nll_loss, soft_margin_loss, triplet_margin_loss, triplet_margin_with_distance_loss)

__all__ = [name for name in dir() if not name.startswith("_") and name not in ("np", "numbers", "warnings", "ops")]


from .. import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
