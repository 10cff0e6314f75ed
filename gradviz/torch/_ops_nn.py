"""Op-table entries for torch.nn: the same ``Op`` rules as ``_ops`` (PyTorch's node name,
a numpy forward, one formula per differentiable input written with engine ops).

Where PyTorch's backward is itself a named op (ConvolutionBackwardBackward0, ...), the
formula applies a matching backward op here, whose own formulas close the loop, so
double backward works and shows PyTorch's node names. Normalisation formulas instead
recompute their statistics from the input with engine ops: that keeps every order of
derivative right without special double-backward code.
"""
import math

import numpy as np

from . import _kernels as K
from . import _kernels_nn as KN
from ._namespace import F
from ._ops import Op, derivative_not_implemented, div_scalar, mul_scalar, not_implemented  # noqa: F401 (nn code applies them from here)
from .autograd import graph

# PyTorch's Reduction enum, as its nodes save it (``_saved_reduction`` is an int).
REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def _apply(op, inputs, **params):
    return graph.apply(op, inputs, params)


def _const(array):
    """A numpy array as a tensor that needs no gradient (masks, coefficients)."""
    return F.from_numpy(np.ascontiguousarray(array))


# ---------------------------------------------------------------------------------------
# convolution: y = conv(x, w) + b, with the two linear backward maps as ops of their own
def _conv_forward(input, weight, bias, *, stride, padding, dilation, transposed, output_padding, groups,
                  bias_sym_sizes_opt):
    return KN.conv_nd(input, weight, bias, stride, padding, dilation, groups)


def _conv_input_grad(grad, weight, input_sizes, stride, padding, dilation, groups):
    return _apply(conv_input_backward, (grad, weight), input_sizes=tuple(input_sizes), stride=stride,
                  padding=padding, dilation=dilation, groups=groups)


def _conv_weight_grad(input, grad, weight_sizes, stride, padding, dilation, groups):
    return _apply(conv_weight_backward, (input, grad), weight_sizes=tuple(weight_sizes), stride=stride,
                  padding=padding, dilation=dilation, groups=groups)


def conv(input, weight, bias, stride, padding, dilation, groups):
    n = len(stride)
    return _apply(convolution, (input, weight, bias), stride=stride, padding=padding, dilation=dilation,
                  transposed=False, output_padding=(0,) * n, groups=groups,
                  bias_sym_sizes_opt=(0,) if bias is None else tuple(bias.shape))


convolution = Op(
    "ConvolutionBackward0", _conv_forward,
    input=lambda grad, input, weight, stride, padding, dilation, groups: _conv_input_grad(
        grad, weight, input.shape, stride, padding, dilation, groups),
    weight=lambda grad, input, weight, stride, padding, dilation, groups: _conv_weight_grad(
        input, grad, weight.shape, stride, padding, dilation, groups),
    bias=lambda grad: grad.sum([0] + list(range(2, grad.dim()))),
    keeps=("bias_sym_sizes_opt", "output_padding", "transposed"))

conv_input_backward = Op(
    "ConvolutionBackwardBackward0",
    lambda grad_output, weight, *, input_sizes, stride, padding, dilation, groups: KN.conv_nd_input_grad(
        grad_output, weight, input_sizes, stride, padding, dilation, groups),
    grad_output=lambda grad, weight, stride, padding, dilation, groups: conv(
        grad, weight, None, stride, padding, dilation, groups),
    weight=lambda grad, grad_output, weight, stride, padding, dilation, groups: _conv_weight_grad(
        grad, grad_output, weight.shape, stride, padding, dilation, groups), keeps=("input_sizes",))

conv_weight_backward = Op(
    "ConvolutionBackwardBackward0",
    lambda input, grad_output, *, weight_sizes, stride, padding, dilation, groups: KN.conv_nd_weight_grad(
        input, grad_output, weight_sizes, stride, padding, dilation, groups),
    input=lambda grad, input, grad_output, stride, padding, dilation, groups: _conv_input_grad(
        grad_output, grad, input.shape, stride, padding, dilation, groups),
    grad_output=lambda grad, input, stride, padding, dilation, groups: conv(
        input, grad, None, stride, padding, dilation, groups), keeps=("weight_sizes",))

# ---------------------------------------------------------------------------------------
# pooling
max_pool2d = Op(
    "MaxPool2DWithIndicesBackward0",
    lambda self, *, kernel_size, stride, padding, dilation, ceil_mode: KN.batched(
        KN.max_pool2d, self, kernel_size, stride or kernel_size, padding, dilation, ceil_mode),
    multi_output=True,
    self=lambda grads, self, result1: _apply(max_pool2d_backward, (grads[0], self), indices=result1._data),
    keeps=("ceil_mode", "dilation", "kernel_size", "padding", "stride"))

# The pooling backward ops take (grad_output, self) as PyTorch's do; self's gradient is zeros.
max_pool2d_backward = Op(
    "MaxPool2DWithIndicesBackwardBackward0",
    lambda grad_output, self, *, indices: KN.batched(KN.max_pool2d_scatter, grad_output, indices, self.shape),
    # The adjoint of scattering to the argmax positions is gathering from them.
    grad_output=lambda grad, indices: F.gather(grad.flatten(-2), -1, _const(indices).flatten(-2)).view(
        indices.shape), self=lambda grad: F.zeros_like(grad))

avg_pool2d = Op(
    "AvgPool2DBackward0",
    lambda self, *, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: KN.batched(
        KN.avg_pool2d, self, kernel_size, stride or kernel_size, padding, ceil_mode, count_include_pad,
        divisor_override),
    self=lambda grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: _apply(
        avg_pool2d_backward, (grad, self), kernel_size=kernel_size, stride=stride, padding=padding,
        ceil_mode=ceil_mode, count_include_pad=count_include_pad, divisor_override=divisor_override))

avg_pool2d_backward = Op(
    "AvgPool2DBackwardBackward0",
    lambda grad_output, self, *, kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override: KN.batched(KN.avg_pool2d_backward, grad_output, self.shape, kernel_size,
                                 stride or kernel_size, padding, ceil_mode, count_include_pad, divisor_override),
    grad_output=lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: _apply(
        avg_pool2d, (grad,), kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
        count_include_pad=count_include_pad, divisor_override=divisor_override), self=lambda grad: F.zeros_like(grad))

adaptive_avg_pool2d = Op(
    "AdaptiveAvgPool2DBackward0", lambda self, *, output_size: KN.adaptive_avg_pool2d(self, output_size),
    self=lambda grad, self: _apply(adaptive_avg_pool2d_backward, (grad, self),
                                   grad_output_sym_argsize_minus_2=grad.shape[-2],
                                   grad_output_sym_argsize_minus_1=grad.shape[-1]))

# Its gradient pools back to the pooled size, which PyTorch keeps as two numbers.
adaptive_avg_pool2d_backward = Op(
    "AdaptiveAvgPool2DBackwardBackward0",
    lambda grad_output, self, *, grad_output_sym_argsize_minus_2, grad_output_sym_argsize_minus_1: (
        KN.adaptive_avg_pool2d_backward(grad_output, self.shape)),
    grad_output=lambda grad, grad_output_sym_argsize_minus_2, grad_output_sym_argsize_minus_1: _apply(
        adaptive_avg_pool2d, (grad,), output_size=(grad_output_sym_argsize_minus_2, grad_output_sym_argsize_minus_1)),
    self=lambda grad: F.zeros_like(grad))

# Padding's gradient is the opposite padding (a crop), the same op again, as in PyTorch.
constant_pad_nd = Op(
    "ConstantPadNdBackward0", lambda self, *, pad, value: KN.constant_pad(self, pad, value),
    self=lambda grad, pad: _apply(constant_pad_nd, (grad,), pad=tuple(-p for p in pad), value=0.0))

# ---------------------------------------------------------------------------------------
# embedding
embedding = Op(
    "EmbeddingBackward0",
    lambda weight, indices, *, padding_idx, scale_grad_by_freq, sparse, weight_sym_argsize_0: np.take(
        weight, indices, axis=0),
    weight=lambda grad, indices, weight_sym_argsize_0, padding_idx, scale_grad_by_freq: _apply(
        embedding_dense_backward, (grad,), indices=indices._data, num_weights=weight_sym_argsize_0,
        padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq), keeps=("sparse",))

embedding_dense_backward = Op(
    "EmbeddingDenseBackwardBackward0",
    lambda grad_output, *, indices, num_weights, padding_idx, scale_grad_by_freq: KN.embedding_backward(
        grad_output, indices, num_weights, padding_idx, scale_grad_by_freq),
    grad_output=lambda grad, indices, padding_idx, scale_grad_by_freq: _apply(
        embedding, (grad, _const(indices)), padding_idx=-1, scale_grad_by_freq=False, sparse=False,
        weight_sym_argsize_0=grad.shape[0]) * _const(KN.embedding_row_scale(indices, padding_idx, scale_grad_by_freq,
                                                                            grad.dtype)), keeps=("num_weights",))


# ---------------------------------------------------------------------------------------
# normalisation (formulas recompute the statistics with engine ops)
def _normalize(x, dims, eps):
    mean = x.mean(dims, keepdim=True)
    centred = x - mean
    rstd = ((centred * centred).mean(dims, keepdim=True) + eps).rsqrt()
    return centred * rstd, rstd


def _norm_input_grad(g, xhat, rstd, dims):
    """d/dx of (x - mean) * rstd applied to g, with mean and rstd over ``dims``."""
    return rstd * (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True))


def _ln_dims(x, normalized_shape):
    return list(range(x.dim() - len(normalized_shape), x.dim()))


def _ln_input(grads, input, weight, normalized_shape, eps):
    dims = _ln_dims(input, normalized_shape)
    xhat, rstd = _normalize(input, dims, eps)
    g = grads[0] if weight is None else grads[0] * weight
    return _norm_input_grad(g, xhat, rstd, dims)


layer_norm = Op(
    "NativeLayerNormBackward0",
    lambda input, weight, bias, *, normalized_shape, eps: KN.layer_norm(input, weight, bias, len(normalized_shape),
                                                                        eps),
    multi_output=True,
    input=lambda grads, input, normalized_shape, weight, bias, result1, result2, eps: _ln_input(
        grads, input, weight, normalized_shape, eps),
    weight=lambda grads, input, normalized_shape, result1, result2, eps: grads[0] * _normalize(
        input, _ln_dims(input, normalized_shape), eps)[0],
    bias=lambda grads: grads[0], joint=True, hidden=("eps",))


def _bn_dims(x):
    return [0] + list(range(2, x.dim()))


def _channel(t, x):
    return t.view((1, -1) + (1,) * (x.dim() - 2))


def _bn_input(grads, input, weight, running_var, training, eps):
    g = grads[0] if weight is None else grads[0] * _channel(weight, input)
    if not training:
        return g * _channel((running_var + eps).rsqrt(), input)
    dims = _bn_dims(input)
    xhat, rstd = _normalize(input, dims, eps)
    return _norm_input_grad(g, xhat, rstd, dims)


def _bn_weight(grads, input, running_mean, running_var, training, eps):
    if training:
        xhat = _normalize(input, _bn_dims(input), eps)[0]
    else:
        xhat = (input - _channel(running_mean, input)) * _channel((running_var + eps).rsqrt(), input)
    return (grads[0] * xhat).sum(_bn_dims(input))


batch_norm = Op(
    "NativeBatchNormBackward0",
    lambda input, weight, bias, running_mean, running_var, *, training, momentum, eps: KN.batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps),
    multi_output=True,
    input=lambda grads, input, weight, running_mean, running_var, training, eps, result1, result2: _bn_input(
        grads, input, weight, running_var, training, eps),
    weight=lambda grads, input, running_mean, running_var, training, eps, result1, result2: _bn_weight(
        grads, input, running_mean, running_var, training, eps),
    bias=lambda grads: grads[0].sum(_bn_dims(grads[0])), joint=True)

# ---------------------------------------------------------------------------------------
# softmax family
softmax = Op("SoftmaxBackward0", lambda self, *, dim: KN.softmax(self, dim),
             self=lambda grad, result, dim: _apply(softmax_backward_data, (grad, result), dim=dim))

softmax_backward_data = Op(
    "SoftmaxBackwardDataBackward0",
    lambda grad_output, output, *, dim: KN.softmax_backward(grad_output, output, dim),
    # The softmax Jacobian is symmetric: its adjoint is the same map.
    grad_output=lambda grad, output, dim: _apply(softmax_backward_data, (grad, output), dim=dim),
    output=lambda grad, grad_output, output, dim: (
        grad * (grad_output - (grad_output * output).sum(dim, keepdim=True))
        - grad_output * (grad * output).sum(dim, keepdim=True)))

log_softmax = Op("LogSoftmaxBackward0", lambda self, *, dim: KN.log_softmax(self, dim),
                 self=lambda grad, result, dim: _apply(log_softmax_backward_data, (grad, result), dim=dim))

log_softmax_backward_data = Op(
    "LogSoftmaxBackwardDataBackward0",
    lambda grad_output, output, *, dim: KN.log_softmax_backward(grad_output, output, dim),
    grad_output=lambda grad, output, dim: grad - (grad * output.exp()).sum(dim, keepdim=True),
    output=lambda grad, grad_output, output, dim: -grad * output.exp() * grad_output.sum(dim, keepdim=True))


# ---------------------------------------------------------------------------------------
# losses
def _nll_ops(name):
    """NllLoss (inputs up to 2-D) and NllLoss2D (4-D) share kernels and formulas."""
    def backward_formula(grads, self, target, weight, reduction, ignore_index, result1):
        weight_data = None if weight is None else weight._data
        coef, _ = KN.nll_coefficients(tuple(self.shape), self._data.dtype, target._data, weight_data,
                                      ignore_index, reduction)
        return _apply(backward, (grads[0],), coef=coef, reduction=reduction, input_shape=tuple(self.shape),
                      target=target._data, weight=weight_data, ignore_index=ignore_index,
                      total_weight=result1._data)

    # ``coef`` (the map as coefficients) serves the double backward; the kernel redoes ATen's arithmetic.
    backward = Op(f"{name}BackwardBackward0",
                  lambda grad_output, *, coef, reduction, input_shape, target, weight, ignore_index, total_weight:
                  KN.nll_backward(grad_output, input_shape, target, weight, ignore_index, total_weight, reduction),
                  grad_output=lambda grad, coef, reduction: _class_sum(grad, coef, reduction))
    forward = Op(f"{name}Backward0",
                 lambda self, target, weight, *, reduction, ignore_index: KN.nll_loss(self, target, weight,
                                                                                      ignore_index, reduction),
                 multi_output=True, self=backward_formula)
    return forward, backward


def _class_sum(grad, coef, reduction):
    """Adjoint of ``grad_output -> grad_output * coef``: sum over what was broadcast."""
    product = grad * _const(coef)
    if reduction != REDUCTION["none"]:
        return product.sum()
    return product.sum(1 if product.dim() > 1 else 0)


nll_loss, nll_loss_backward = _nll_ops("NllLoss")
nll_loss2d, nll_loss2d_backward = _nll_ops("NllLoss2D")


def _mse_grad(grad, self, target, reduction):
    return _apply(mse_loss_backward, (grad, self, target), reduction=reduction)


mse_loss = Op(
    "MseLossBackward0",
    lambda self, target, *, reduction: KN.mse(self, target, reduction), promotes=True,
    self=lambda grad, self, target, reduction: _mse_grad(grad, self, target, reduction),
    target=lambda grad, self, target, reduction: _mse_grad(grad, target, self, reduction))


def _mse_scale(numel, reduction):
    return 2.0 / numel if reduction == REDUCTION["mean"] else 2.0


mse_loss_backward = Op(
    "MseLossBackwardBackward0",
    lambda grad_output, self, target, *, reduction: KN.mse_backward(grad_output, self, target, reduction),
    grad_output=lambda grad, self, target, reduction: grad * (self - target) * _mse_scale(grad.numel(), reduction),
    self=lambda grad, grad_output, reduction: grad * grad_output * _mse_scale(grad.numel(), reduction),
    target=lambda grad, grad_output, reduction: grad * grad_output * -_mse_scale(grad.numel(), reduction))


# SmoothL1Loss / HuberLoss: the loss op and its backward op (ATen's kernels); the backward op's
# own formulas are PyTorch's *_double_backward: the derivative inside the quadratic zone of
# |self - target| (1/beta there for smooth L1, 1 for Huber), and for grad_output the backward
# op again (summed for a reduced loss).
def _quadratic_zone(grad, self, target, reduction, beta=None, delta=None):
    d = self - target
    if beta is not None:
        inside = grad * (d.abs() < beta).to(grad.dtype) / beta
    else:
        inside = grad * (d < -delta).logical_or(d > delta).logical_not().to(d.dtype)
    return inside / self.numel() if reduction == REDUCTION["mean"] else inside


def _backward_for_grad_output(op, grad, grad_output, self, target, reduction, **param):
    if reduction == REDUCTION["none"]:
        return _apply(op, (grad, self, target), reduction=reduction, **param)
    return (_apply(op, (F.ones_like(grad_output), self, target), reduction=reduction, **param) * grad).sum()


smooth_l1_loss = Op(
    "SmoothL1LossBackward0",
    lambda self, target, *, reduction, beta: KN.smooth_l1(self, target, reduction, beta), promotes=True,
    self=lambda grad, self, target, reduction, beta: _apply(smooth_l1_loss_backward, (grad, self, target),
                                                            reduction=reduction, beta=beta),
    target=lambda grad, self, target, reduction, beta: _apply(smooth_l1_loss_backward, (grad, target, self),
                                                              reduction=reduction, beta=beta))

smooth_l1_loss_backward = Op(
    "SmoothL1LossBackwardBackward0",
    lambda grad_output, self, target, *, reduction, beta: KN.smooth_l1_backward(grad_output, self, target,
                                                                                reduction, beta),
    grad_output=lambda grad, grad_output, self, target, reduction, beta: _backward_for_grad_output(
        smooth_l1_loss_backward, grad, grad_output, self, target, reduction, beta=beta),
    self=lambda grad, grad_output, self, target, reduction, beta: _quadratic_zone(
        grad * grad_output, self, target, reduction, beta=beta),
    target=lambda grad, grad_output, self, target, reduction, beta: -_quadratic_zone(
        grad * grad_output, self, target, reduction, beta=beta))

huber_loss = Op(
    "HuberLossBackward0",
    lambda self, target, *, reduction, delta: KN.huber(self, target, reduction, delta), promotes=True,
    self=lambda grad, self, target, reduction, delta: _apply(huber_loss_backward, (grad, self, target),
                                                             reduction=reduction, delta=delta),
    target=lambda grad, self, target, reduction, delta: _apply(huber_loss_backward, (grad, target, self),
                                                               reduction=reduction, delta=delta))

huber_loss_backward = Op(
    "HuberLossBackwardBackward0",
    lambda grad_output, self, target, *, reduction, delta: KN.huber_backward(grad_output, self, target,
                                                                             reduction, delta),
    grad_output=lambda grad, grad_output, self, target, reduction, delta: _backward_for_grad_output(
        huber_loss_backward, grad, grad_output, self, target, reduction, delta=delta),
    self=lambda grad, grad_output, self, target, reduction, delta: _quadratic_zone(
        grad * grad_output, self, target, reduction, delta=delta),
    target=lambda grad, grad_output, self, target, reduction, delta: -_quadratic_zone(
        grad * grad_output, self, target, reduction, delta=delta))


def _loss_scale(grad, weight, n, reduction):
    """grad times the element weight, divided by n for 'mean'."""
    if weight is not None:
        grad = grad * weight
    return grad / n if reduction == REDUCTION["mean"] else grad


binary_cross_entropy = Op(
    "BinaryCrossEntropyBackward0",
    lambda self, target, weight, *, reduction: KN.binary_cross_entropy(self, target, weight, reduction),
    self=lambda grad, self, target, weight, reduction: _loss_scale(
        grad * (self - target) / (self * (1 - self)).clamp(min=1e-12), weight, self.numel(), reduction),
    target=lambda grad, self, weight, reduction: _loss_scale(
        grad * ((1 - self).log() - self.log()), weight, self.numel(), reduction))


def _softplus_neg(x):
    """log(1 + exp(-x)) with engine ops, safe for large |x|."""
    return (-x.abs()).exp().log1p() + (-x).clamp(min=0)


def _bce_logits_self(grad, self, target, weight, pos_weight, reduction):
    if pos_weight is None:
        g = self.sigmoid() - target
    else:
        t = pos_weight * target
        g = (t + 1 - target) * self.sigmoid() - t
    return _loss_scale(grad * g, weight, self.numel(), reduction)


def _bce_logits_target(grad, self, weight, pos_weight, reduction):
    g = -self if pos_weight is None else (pos_weight - 1) * _softplus_neg(self) - self
    return _loss_scale(grad * g, weight, self.numel(), reduction)


binary_cross_entropy_with_logits = Op(
    "BinaryCrossEntropyWithLogitsBackward0",
    lambda self, target, weight, pos_weight, *, reduction: KN.bce_with_logits(self, target, weight, pos_weight,
                                                                              reduction),
    self=lambda grad, self, target, weight, pos_weight, reduction: _bce_logits_self(
        grad, self, target, weight, pos_weight, reduction),
    target=lambda grad, self, weight, pos_weight, reduction: _bce_logits_target(
        grad, self, weight, pos_weight, reduction))

# ---------------------------------------------------------------------------------------
# activations
_SQRT_2_PI = math.sqrt(2 / math.pi)
_KAPPA = 0.044715


def _gelu_second(self, approximate):
    """d^2 gelu / dx^2 with engine ops."""
    if approximate == "tanh":
        x2 = self * self
        du = (x2 * (3 * _KAPPA) + 1) * _SQRT_2_PI
        th = ((self + self * x2 * _KAPPA) * _SQRT_2_PI).tanh()
        sech2 = 1 - th * th
        return sech2 * (du - self * th * du * du + x2 * (3 * _KAPPA * _SQRT_2_PI))
    x2 = self * self
    return (x2 * -0.5).exp() * (1 / math.sqrt(2 * math.pi)) * (2 - x2)


gelu = Op("GeluBackward0", lambda self, *, approximate: KN.gelu(self, approximate),
          self=lambda grad, self, approximate: _apply(gelu_backward, (grad, self), approximate=approximate))

gelu_backward = Op(
    "GeluBackwardBackward0",
    lambda grad_output, self, *, approximate: grad_output * KN.gelu_derivative(self, approximate),
    grad_output=lambda grad, self, approximate: _apply(gelu_backward, (grad, self), approximate=approximate),
    self=lambda grad, grad_output, self, approximate: grad * grad_output * _gelu_second(self, approximate))

# The backwards of leaky_relu and hardtanh are ops of their own (as relu's is), so a second
# derivative reaches the input: zeros, not None.
leaky_relu_backward = Op(
    "LeakyReluBackwardBackward0",
    lambda grad_output, self, *, negative_slope: np.where(self > 0, grad_output, grad_output * negative_slope).astype(
        grad_output.dtype, copy=False),
    grad_output=lambda grad, self, negative_slope: _apply(leaky_relu_backward, (grad, self),
                                                          negative_slope=negative_slope),
    self=lambda grad: F.zeros_like(grad))
leaky_relu = Op("LeakyReluBackward0",
                lambda self, *, negative_slope: np.where(self > 0, self, self * negative_slope).astype(self.dtype),
                self=lambda grad, self, negative_slope: _apply(leaky_relu_backward, (grad, self),
                                                               negative_slope=negative_slope))

silu = Op("SiluBackward0", lambda self: (self * K.sigmoid_array(self)).astype(self.dtype),
          self=lambda grad, self: grad * self.sigmoid() * (1 + self * (1 - self.sigmoid())))

def _softplus_backward(grad, self, beta, threshold):
    """ATen's softplus_backward: z = exp(x * beta), grad * z / (z + 1), grad where x * beta
    passes the threshold."""
    scaled = self * beta
    z = scaled.exp()
    return F.where(scaled > threshold, grad, grad * z / F.scalar_add(z, 1))


softplus = Op("SoftplusBackward0",
              lambda self, *, beta, threshold: KN.softplus(self, beta, threshold),
              self=lambda grad, self, beta, threshold: _softplus_backward(grad, self, beta, threshold))

hardtanh_backward = Op(
    "HardtanhBackwardBackward0",
    lambda grad_output, self, *, min_val, max_val: np.where((self > min_val) & (self < max_val), grad_output,
                                                            0).astype(grad_output.dtype, copy=False),
    grad_output=lambda grad, self, min_val, max_val: _apply(hardtanh_backward, (grad, self), min_val=min_val,
                                                            max_val=max_val),
    self=lambda grad: F.zeros_like(grad))
hardtanh = Op("HardtanhBackward0", lambda self, *, min_val, max_val: np.clip(self, min_val, max_val),
              self=lambda grad, self, min_val, max_val: _apply(hardtanh_backward, (grad, self), min_val=min_val,
                                                             max_val=max_val))

# elu (and selu, celu) live in _ops_nn_act with the rest of the ELU family.

# ---------------------------------------------------------------------------------------
# shape helpers PyTorch's composites use internally
unsafe_split = Op(
    "UnsafeSplitBackward0",
    lambda self, *, split_size, dim: tuple(a.copy() for a in K.split_array(self, split_size, dim)),
    multi_output=True,
    self=lambda grads, dim: F.cat(grads, dim), keeps=("split_size",))


# ---------------------------------------------------------------------------------------
# recurrent layers (nn.LSTM and packed sequences)
from . import _kernels_rnn as KRNN  # noqa: E402

# An in-place transpose (ATen's RNNs turn a batch-first output back with transpose_).
transpose_inplace = Op("TransposeBackward1", lambda self, *, dim0, dim1: np.swapaxes(self, dim0, dim1),
                       self=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))

# The last backward of an LSTM layer and its gradients: the formulas of the layer's seven
# inputs share one backward through time, so the first of them to run does it for all.
_LAST_LSTM_BACKWARD = [None, None]


def _lstm_layer_grads(grads, input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, has_biases):
    if _LAST_LSTM_BACKWARD[0] is grads:
        return _LAST_LSTM_BACKWARD[1]
    steps = input.shape[0]
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    # The forward again, with engine ops, so that the gradients are differentiable too.
    projected = F.matmul(input, weight0.t())
    if has_biases:
        projected = projected + (weight2 + weight3)
    h, c, states = hx_, cx_, []
    for t in order:
        i, f, g, o = (projected[t] + h.mm(weight1.t())).chunk(4, 1)
        i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
        c_next = f * c + i * g
        tanh_c = c_next.tanh()
        states.append((t, h, c, i, f, g, o, tanh_c))
        h, c = o * tanh_c, c_next
    grad_h, grad_c = grads[1], grads[2]
    gate_grads, previous = [None] * steps, [None] * steps
    for t, h, c, i, f, g, o, tanh_c in reversed(states):
        grad_h = grad_h + grads[0][t]
        grad_c = grad_c + grad_h * o * (1 - tanh_c * tanh_c)
        gate_grads[t] = F.cat([grad_c * g * i * (1 - i), grad_c * c * f * (1 - f), grad_c * i * (1 - g * g),
                               grad_h * tanh_c * o * (1 - o)], 1)
        previous[t] = h
        grad_c = grad_c * f
        grad_h = gate_grads[t].mm(weight1)
    gates = F.stack(gate_grads)
    flat_gates = gates.reshape(-1, gates.shape[-1]).t()
    grad_bias = gates.sum((0, 1))
    result = (F.matmul(gates, weight0), flat_gates.mm(input.reshape(-1, input.shape[-1])),
              flat_gates.mm(F.stack(previous).reshape(-1, weight1.shape[1])), grad_bias, grad_bias, grad_h, grad_c)
    _LAST_LSTM_BACKWARD[:] = [grads, result]
    return result


def _lstm_formula(k):
    return lambda grads, input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, has_biases, result0, result1, \
        result2, result3: _lstm_layer_grads(grads, input, weight0, weight1, weight2, weight3, hx_, cx_, reverse,
                                            has_biases)[k]


mkldnn_rnn_layer = Op(
    "MkldnnRnnLayerBackward0",
    lambda input, weight0, weight1, weight2, weight3, hx_, cx_, *, reverse, batch_sizes, mode, hidden_size, num_layers,
    has_biases, bidirectional, batch_first, train: KRNN.lstm_layer(input, weight0, weight1, weight2, weight3, hx_, cx_,
                                                                 reverse, has_biases),
    multi_output=True, keeps=("batch_sizes", "mode", "hidden_size", "num_layers", "bidirectional", "batch_first",
                              "train"),
    **{name: _lstm_formula(k) for k, name in enumerate(("input", "weight0", "weight1", "weight2", "weight3", "hx_",
                                                        "cx_"))})


def _unpack_into_padded(grad, input_sym_sizes, result1, batch_first):
    """The gradient of packing: each time step's rows back in place, zeros in the padding."""
    sizes = list(input_sym_sizes)
    if batch_first:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    padded = F.zeros(sizes, dtype=grad.dtype)
    offset = 0
    for t, size in enumerate(result1.tolist()):
        padded[t].narrow(0, 0, size).copy_(grad.narrow(0, offset, size))
        offset += size
    return padded.transpose(0, 1) if batch_first else padded


pack_padded_sequence = Op(
    "PackPaddedSequenceBackward0",
    lambda input, *, lengths, batch_first, input_sym_sizes: KRNN.pack_padded(input, lengths, batch_first),
    multi_output=True,
    input=lambda grads, input_sym_sizes, result1, batch_first: _unpack_into_padded(grads[0], input_sym_sizes, result1,
                                                                                   batch_first))

# =======================================================================================
# attention, batched matmul-add, group norm, resampling, padding modes, distances
safe_softmax = Op("SafeSoftmaxBackward0", lambda self, *, dim: KN.safe_softmax(self, dim),
                  self=lambda grad, result, dim: _apply(softmax_backward_data, (grad, result), dim=dim))

baddbmm = Op(
    "BaddbmmBackward0", lambda self, batch1, batch2, *, beta, alpha: KN.baddbmm(self, batch1, batch2, beta, alpha),
    self=lambda grad, beta: grad if beta == 1 else grad * beta,
    batch1=lambda grad, batch2, alpha: (grad.bmm(batch2.transpose(1, 2)) if alpha == 1 else
                                        grad.bmm(batch2.transpose(1, 2)) * alpha),
    batch2=lambda grad, batch1, alpha: (batch1.transpose(1, 2).bmm(grad) if alpha == 1 else
                                        batch1.transpose(1, 2).bmm(grad) * alpha))


def sdpa_scale(query, scale):
    return 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale


def _flash_grad(which):
    # Reading logsumexp and dropout_p (unused here) saves them, as PyTorch's node does.
    def formula(grads, query, key, value, attn_mask, output, dropout_p, is_causal, scale, logsumexp):
        return _apply(sdpa_flash_backward, (grads[0], query, key, value, output), which=which,
                      mask=None if attn_mask is None else attn_mask._data, is_causal=is_causal,
                      scale=sdpa_scale(query, scale))
    return formula


# The fused CPU attention of F.scaled_dot_product_attention; its backward has no derivative.
sdpa_flash = Op(
    "ScaledDotProductFlashAttentionForCpuBackward0",
    lambda query, key, value, attn_mask, *, dropout_p, is_causal, scale: KN.sdpa_flash(
        query, key, value, attn_mask, sdpa_scale(query, scale), is_causal),
    multi_output=True, outputs=("output", "logsumexp"),
    query=_flash_grad(0), key=_flash_grad(1), value=_flash_grad(2))

_FLASH_BACKWARD = "_scaled_dot_product_flash_attention_for_cpu_backward"
sdpa_flash_backward = Op(
    "NotImplemented",
    lambda grad_out, query, key, value, output, *, which, mask, is_causal, scale: KN.sdpa_flash_grad(
        grad_out, query, key, value, mask, scale, is_causal, which),
    grad_out=lambda grad: not_implemented(_FLASH_BACKWARD),
    query=lambda grad: not_implemented(_FLASH_BACKWARD),
    key=lambda grad: not_implemented(_FLASH_BACKWARD),
    value=lambda grad: not_implemented(_FLASH_BACKWARD),
    output=lambda grad: not_implemented(_FLASH_BACKWARD))


def _gn_grouped(x, n, group):
    return x.reshape(n, group, -1)


def _gn_input(grads, input, weight, n, group, eps):
    g = grads[0] if weight is None else grads[0] * _channel(weight, input)
    xhat, rstd = _normalize(_gn_grouped(input, n, group), [2], eps)
    return _norm_input_grad(_gn_grouped(g, n, group), xhat, rstd, [2]).reshape(input.shape)


def _gn_weight(grads, input, n, group, eps):
    xhat = _normalize(_gn_grouped(input, n, group), [2], eps)[0].reshape(input.shape)
    return (grads[0] * xhat).sum(_bn_dims(input))


native_group_norm = Op(
    "NativeGroupNormBackward0",
    lambda input, weight, bias, *, N, C, HxW, group, eps: KN.group_norm(input, weight, bias, N, C, HxW, group, eps),
    multi_output=True,
    input=lambda grads, input, weight, N, C, HxW, group, eps, result1, result2: _gn_input(
        grads, input, weight, N, group, eps),
    weight=lambda grads, input, N, C, HxW, group, eps, result1, result2: _gn_weight(grads, input, N, group, eps),
    bias=lambda grads: grads[0].sum(_bn_dims(grads[0])), joint=True)


# ---------------------------------------------------------------------------------------
# upsampling: one linear map per spatial axis; the backward applies its adjoint and is an
# op of its own (UpsampleNearest2DBackwardBackward0...), whose gradient is the upsampling.
def _resample(x, mode, output_size, scales, align_corners):
    matrices = KN.resample_matrices(mode, x.shape[-len(output_size):], output_size, scales, align_corners, x.dtype)
    return KN.map_axes(x, matrices)


def _resample_grad(grad, mode, output_size, input_size, scales, align_corners):
    sizes = tuple(input_size[-len(output_size):])
    return KN.map_axes_adjoint(grad, KN.resample_matrices(mode, sizes, output_size, scales, align_corners, grad.dtype))


def _upsample_ops(name, mode):
    """The op of one upsampling kernel; its formula applies the matching backward op. Their
    options, which the nodes save, are PyTorch's: ``scales`` (1-D), ``scales_h, scales_w``
    (2-D) or ``scales_d, scales_h, scales_w`` (3-D), and ``align_corners`` for the
    interpolating modes; the parameter lists are spelled out per case because the op table
    reads an op's options and a formula's slots from the names of its parameters."""
    dims = int(name[-2])
    smooth = mode not in ("nearest", "nearest-exact")
    fwd, bwd = {}, {}

    def up(grad, **options):
        return _apply(fwd["op"], (grad,), **options, self_sym_sizes=tuple(grad.shape))

    def down(grad, self_sym_sizes, **options):
        return _apply(bwd["op"], (grad,), **options, input_size=tuple(self_sym_sizes))

    if dims == 1 and smooth:
        fwd["kernel"] = lambda self, *, output_size, align_corners, scales, self_sym_sizes: _resample(
            self, mode, output_size, (scales,), align_corners)
        fwd["self"] = lambda grad, output_size, align_corners, scales, self_sym_sizes: down(
            grad, self_sym_sizes, output_size=output_size, align_corners=align_corners, scales=scales)
        bwd["kernel"] = lambda grad_output, *, output_size, input_size, align_corners, scales: _resample_grad(
            grad_output, mode, output_size, input_size, (scales,), align_corners)
        bwd["grad_output"] = lambda grad, output_size, align_corners, scales: up(
            grad, output_size=output_size, align_corners=align_corners, scales=scales)
    elif dims == 1:
        fwd["kernel"] = lambda self, *, output_size, scales, self_sym_sizes: _resample(
            self, mode, output_size, (scales,), False)
        fwd["self"] = lambda grad, output_size, scales, self_sym_sizes: down(
            grad, self_sym_sizes, output_size=output_size, scales=scales)
        bwd["kernel"] = lambda grad_output, *, output_size, input_size, scales: _resample_grad(
            grad_output, mode, output_size, input_size, (scales,), False)
        bwd["grad_output"] = lambda grad, output_size, scales: up(grad, output_size=output_size, scales=scales)
    elif dims == 2 and smooth:
        fwd["kernel"] = lambda self, *, output_size, align_corners, scales_h, scales_w, self_sym_sizes: _resample(
            self, mode, output_size, (scales_h, scales_w), align_corners)
        fwd["self"] = lambda grad, output_size, align_corners, scales_h, scales_w, self_sym_sizes: down(
            grad, self_sym_sizes, output_size=output_size, align_corners=align_corners, scales_h=scales_h,
            scales_w=scales_w)
        bwd["kernel"] = lambda grad_output, *, output_size, input_size, align_corners, scales_h, scales_w: (
            _resample_grad(grad_output, mode, output_size, input_size, (scales_h, scales_w), align_corners))
        bwd["grad_output"] = lambda grad, output_size, align_corners, scales_h, scales_w: up(
            grad, output_size=output_size, align_corners=align_corners, scales_h=scales_h, scales_w=scales_w)
    elif dims == 2:
        fwd["kernel"] = lambda self, *, output_size, scales_h, scales_w, self_sym_sizes: _resample(
            self, mode, output_size, (scales_h, scales_w), False)
        fwd["self"] = lambda grad, output_size, scales_h, scales_w, self_sym_sizes: down(
            grad, self_sym_sizes, output_size=output_size, scales_h=scales_h, scales_w=scales_w)
        bwd["kernel"] = lambda grad_output, *, output_size, input_size, scales_h, scales_w: _resample_grad(
            grad_output, mode, output_size, input_size, (scales_h, scales_w), False)
        bwd["grad_output"] = lambda grad, output_size, scales_h, scales_w: up(
            grad, output_size=output_size, scales_h=scales_h, scales_w=scales_w)
    elif smooth:
        fwd["kernel"] = lambda self, *, output_size, align_corners, scales_d, scales_h, scales_w, self_sym_sizes: (
            _resample(self, mode, output_size, (scales_d, scales_h, scales_w), align_corners))
        fwd["self"] = lambda grad, output_size, align_corners, scales_d, scales_h, scales_w, self_sym_sizes: down(
            grad, self_sym_sizes, output_size=output_size, align_corners=align_corners, scales_d=scales_d,
            scales_h=scales_h, scales_w=scales_w)
        bwd["kernel"] = lambda grad_output, *, output_size, input_size, align_corners, scales_d, scales_h, scales_w: (
            _resample_grad(grad_output, mode, output_size, input_size, (scales_d, scales_h, scales_w), align_corners))
        bwd["grad_output"] = lambda grad, output_size, align_corners, scales_d, scales_h, scales_w: up(
            grad, output_size=output_size, align_corners=align_corners, scales_d=scales_d, scales_h=scales_h,
            scales_w=scales_w)
    else:
        fwd["kernel"] = lambda self, *, output_size, scales_d, scales_h, scales_w, self_sym_sizes: _resample(
            self, mode, output_size, (scales_d, scales_h, scales_w), False)
        fwd["self"] = lambda grad, output_size, scales_d, scales_h, scales_w, self_sym_sizes: down(
            grad, self_sym_sizes, output_size=output_size, scales_d=scales_d, scales_h=scales_h, scales_w=scales_w)
        bwd["kernel"] = lambda grad_output, *, output_size, input_size, scales_d, scales_h, scales_w: _resample_grad(
            grad_output, mode, output_size, input_size, (scales_d, scales_h, scales_w), False)
        bwd["grad_output"] = lambda grad, output_size, scales_d, scales_h, scales_w: up(
            grad, output_size=output_size, scales_d=scales_d, scales_h=scales_h, scales_w=scales_w)
    fwd["op"] = Op(f"{name}Backward0", fwd["kernel"], self=fwd["self"])
    bwd["op"] = Op(f"{name}BackwardBackward0", bwd["kernel"], grad_output=bwd["grad_output"])
    return fwd["op"]


UPSAMPLE = {(mode, dims): _upsample_ops(name, mode) for mode, dims, name in (
    ("nearest", 1, "UpsampleNearest1D"), ("nearest", 2, "UpsampleNearest2D"), ("nearest", 3, "UpsampleNearest3D"),
    ("nearest-exact", 1, "UpsampleNearestExact1D"), ("nearest-exact", 2, "UpsampleNearestExact2D"),
    ("nearest-exact", 3, "UpsampleNearestExact3D"), ("linear", 1, "UpsampleLinear1D"),
    ("bilinear", 2, "UpsampleBilinear2D"), ("bicubic", 2, "UpsampleBicubic2D"),
    ("trilinear", 3, "UpsampleTrilinear3D"))}


# ---------------------------------------------------------------------------------------
# reflection and replication padding: a selection per padded axis; the backward (the
# adjoint: sums into the source positions) is an op whose gradient is the padding again.
def _pad_ops(name, mode, dims):
    def pad(x, padding):
        return KN.map_axes(x, KN.pad_matrices(x.shape[-dims:], padding, mode))

    def unpad(grad, self, padding):
        return KN.map_axes_adjoint(grad, KN.pad_matrices(self.shape[-dims:], padding, mode))

    forward = Op(f"{name}Backward0", lambda self, *, padding: pad(self, padding),
                 self=lambda grad, self, padding: _apply(backward, (grad, self), padding=padding))
    backward = Op(f"{name}BackwardBackward0", lambda grad_output, self, *, padding: unpad(grad_output, self, padding),
                  grad_output=lambda grad, padding: _apply(forward, (grad,), padding=padding),
                  self=lambda grad: F.zeros_like(grad))
    return forward


PAD = {(mode, dims): _pad_ops(f"{kind}Pad{dims}D", mode, dims)
       for mode, kind in (("reflect", "Reflection"), ("replicate", "Replication")) for dims in (1, 2, 3)}


# ---------------------------------------------------------------------------------------
# pairwise distances: cdist's own kernel, and the matmul form PyTorch differentiates itself
_CDIST_BACKWARD = "_cdist_backward"
cdist_backward = Op(
    "CdistBackwardBackward0", lambda grad, x1, x2, cdist, *, p: KN.cdist_backward(grad, x1, x2, p, cdist),
    grad=lambda grad: derivative_not_implemented(_CDIST_BACKWARD),
    x1=lambda grad: derivative_not_implemented(_CDIST_BACKWARD),
    x2=lambda grad: derivative_not_implemented(_CDIST_BACKWARD),
    cdist=lambda grad: derivative_not_implemented(_CDIST_BACKWARD))

cdist = Op(
    "CdistBackward0", lambda x1, x2, *, p: KN.cdist(x1, x2, p),
    x1=lambda grad, x1, x2, p, result: _apply(cdist_backward, (grad.contiguous(), x1, x2, result), p=p),
    x2=lambda grad, x1, x2, p, result: _apply(cdist_backward, (grad.mT.contiguous(), x2, x1, result.mT.contiguous()),
                                              p=p))


def _euclidean_ratio(grad, result):
    return (grad / result).masked_fill(result == 0, 0)


euclidean_dist = Op(
    "EuclideanDistBackward0", lambda x1, x2: KN.euclidean_dist(x1, x2),
    x1=lambda grad, x1, x2, result: (x1 * _euclidean_ratio(grad, result).sum(-1, keepdim=True)
                                     - _euclidean_ratio(grad, result).matmul(x2)),
    x2=lambda grad, x1, x2, result: (x2 * _euclidean_ratio(grad, result).sum(-2).unsqueeze(-1)
                                     - _euclidean_ratio(grad, result).mT.matmul(x1)))
