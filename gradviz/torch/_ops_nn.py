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
from ._ops import Op
from .autograd import graph

# PyTorch's Reduction enum, as its nodes save it (``_saved_reduction`` is an int).
REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def _apply(op, inputs, **params):
    return graph.apply(op, inputs, params)


def _F():
    from . import _functions
    return _functions


def _const(array):
    """A numpy array as a tensor that needs no gradient (masks, coefficients)."""
    return _F().from_numpy(np.ascontiguousarray(array))


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
    self=lambda grads, self, result1: _apply(max_pool2d_backward, (grads[0],), indices=result1._data,
                                             input_sizes=tuple(self.shape)),
    keeps=("ceil_mode", "dilation", "kernel_size", "padding", "stride"))

max_pool2d_backward = Op(
    "MaxPool2DWithIndicesBackwardBackward0",
    lambda grad_output, *, indices, input_sizes: KN.batched(KN.max_pool2d_scatter, grad_output, indices, input_sizes),
    # The adjoint of scattering to the argmax positions is gathering from them.
    grad_output=lambda grad, indices: _F().gather(grad.flatten(-2), -1, _const(indices).flatten(-2)).view(
        indices.shape), keeps=("input_sizes",))

avg_pool2d = Op(
    "AvgPool2DBackward0",
    lambda self, *, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: KN.batched(
        KN.avg_pool2d, self, kernel_size, stride or kernel_size, padding, ceil_mode, count_include_pad,
        divisor_override),
    self=lambda grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: _apply(
        avg_pool2d_backward, (grad,), input_sizes=tuple(self.shape), kernel_size=kernel_size, stride=stride,
        padding=padding, ceil_mode=ceil_mode, count_include_pad=count_include_pad,
        divisor_override=divisor_override))

avg_pool2d_backward = Op(
    "AvgPool2DBackwardBackward0",
    lambda grad_output, *, input_sizes, kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override: KN.batched(KN.avg_pool2d_backward, grad_output, input_sizes, kernel_size,
                                 stride or kernel_size, padding, ceil_mode, count_include_pad, divisor_override),
    grad_output=lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: _apply(
        avg_pool2d, (grad,), kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
        count_include_pad=count_include_pad, divisor_override=divisor_override), keeps=("input_sizes",))

adaptive_avg_pool2d = Op(
    "AdaptiveAvgPool2DBackward0", lambda self, *, output_size: KN.adaptive_avg_pool2d(self, output_size),
    self=lambda grad, self: _apply(adaptive_avg_pool2d_backward, (grad,), input_sizes=tuple(self.shape)),
    keeps=("output_size",))

adaptive_avg_pool2d_backward = Op(
    "AdaptiveAvgPool2DBackwardBackward0",
    lambda grad_output, *, input_sizes: KN.adaptive_avg_pool2d_backward(grad_output, input_sizes),
    grad_output=lambda grad, input_sizes: _apply(adaptive_avg_pool2d, (grad,), output_size=tuple(grad.shape[-2:])))

# Padding's gradient is the opposite padding (a crop), the same op again, as in PyTorch.
constant_pad_nd = Op(
    "ConstantPadNdBackward0", lambda self, *, pad, value: KN.constant_pad(self, pad, value),
    self=lambda grad, pad: _apply(constant_pad_nd, (grad,), pad=tuple(-p for p in pad), value=0.0), keeps=("value",))

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
    bias=lambda grads: grads[0])


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
    bias=lambda grads: grads[0].sum(_bn_dims(grads[0])), keeps=("momentum",))

# ---------------------------------------------------------------------------------------
# softmax family
softmax = Op("SoftmaxBackward0", lambda self, *, dim: KN.softmax(self, dim),
             self=lambda grad, result, dim: _apply(softmax_backward_data, (grad, result), dim=dim))

softmax_backward_data = Op(
    "SoftmaxBackwardDataBackward0",
    lambda grad_output, output, *, dim: output * (grad_output - (grad_output * output).sum(axis=dim, keepdims=True)),
    # The softmax Jacobian is symmetric: its adjoint is the same map.
    grad_output=lambda grad, output, dim: _apply(softmax_backward_data, (grad, output), dim=dim),
    output=lambda grad, grad_output, output, dim: (
        grad * (grad_output - (grad_output * output).sum(dim, keepdim=True))
        - grad_output * (grad * output).sum(dim, keepdim=True)))

log_softmax = Op("LogSoftmaxBackward0", lambda self, *, dim: KN.log_softmax(self, dim),
                 self=lambda grad, result, dim: _apply(log_softmax_backward_data, (grad, result), dim=dim))

log_softmax_backward_data = Op(
    "LogSoftmaxBackwardDataBackward0",
    lambda grad_output, output, *, dim: grad_output - np.exp(output) * grad_output.sum(axis=dim, keepdims=True),
    grad_output=lambda grad, output, dim: grad - (grad * output.exp()).sum(dim, keepdim=True),
    output=lambda grad, grad_output, output, dim: -grad * output.exp() * grad_output.sum(dim, keepdim=True))


# ---------------------------------------------------------------------------------------
# losses
def _nll_ops(name):
    """NllLoss (inputs up to 2-D) and NllLoss2D (4-D) share kernels and formulas."""
    def backward_formula(grads, self, target, weight, reduction, ignore_index, result1):
        coef, _ = KN.nll_coefficients(tuple(self.shape), self._data.dtype, target._data,
                                      None if weight is None else weight._data, ignore_index, reduction)
        return _apply(backward, (grads[0],), coef=coef, reduction=reduction)

    backward = Op(f"{name}BackwardBackward0",
                  lambda grad_output, *, coef, reduction: KN.nll_backward(grad_output, coef, reduction),
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
    lambda self, target, *, reduction: KN.reduce(np.square(self - target), reduction), promotes=True,
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


def _smooth_l1_grad(grad, self, target, reduction, beta):
    d = self - target
    inner = d / beta if beta > 0 else d * 0
    return _loss_scale(grad * _F().where(d.abs() < beta, inner, d.sign()), None, d.numel(), reduction)


smooth_l1_loss = Op(
    "SmoothL1LossBackward0",
    lambda self, target, *, reduction, beta: KN.smooth_l1(self, target, reduction, beta), promotes=True,
    self=lambda grad, self, target, reduction, beta: _smooth_l1_grad(grad, self, target, reduction, beta),
    target=lambda grad, self, target, reduction, beta: -_smooth_l1_grad(grad, self, target, reduction, beta))


def _huber_grad(grad, self, target, reduction, delta):
    d = self - target
    return _loss_scale(grad * d.clamp(min=-delta, max=delta), None, d.numel(), reduction)


huber_loss = Op(
    "HuberLossBackward0",
    lambda self, target, *, reduction, delta: KN.huber(self, target, reduction, delta), promotes=True,
    self=lambda grad, self, target, reduction, delta: _huber_grad(grad, self, target, reduction, delta),
    target=lambda grad, self, target, reduction, delta: -_huber_grad(grad, self, target, reduction, delta))


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
    self=lambda grad: _F().zeros_like(grad))
leaky_relu = Op("LeakyReluBackward0",
                lambda self, *, negative_slope: np.where(self > 0, self, self * negative_slope).astype(self.dtype),
                self=lambda grad, self, negative_slope: _apply(leaky_relu_backward, (grad, self),
                                                               negative_slope=negative_slope))

silu = Op("SiluBackward0", lambda self: (self * K.sigmoid_array(self)).astype(self.dtype),
          self=lambda grad, self: grad * self.sigmoid() * (1 + self * (1 - self.sigmoid())))

softplus = Op("SoftplusBackward0",
              lambda self, *, beta, threshold: KN.softplus(self, beta, threshold),
              self=lambda grad, self, beta, threshold: _F().where(self * beta > threshold, grad,
                                                                  grad * (self * beta).sigmoid()))

hardtanh_backward = Op(
    "HardtanhBackwardBackward0",
    lambda grad_output, self, *, min_val, max_val: np.where((self > min_val) & (self < max_val), grad_output,
                                                            0).astype(grad_output.dtype, copy=False),
    grad_output=lambda grad, self, min_val, max_val: _apply(hardtanh_backward, (grad, self), min_val=min_val,
                                                            max_val=max_val),
    self=lambda grad: _F().zeros_like(grad))
hardtanh = Op("HardtanhBackward0", lambda self, *, min_val, max_val: np.clip(self, min_val, max_val),
              self=lambda grad, self, min_val, max_val: _apply(hardtanh_backward, (grad, self), min_val=min_val,
                                                             max_val=max_val))

elu = Op("EluBackward0", lambda self, *, alpha: np.where(self > 0, self, alpha * np.expm1(self)).astype(self.dtype),
         self=lambda grad, self, alpha: _F().where(self > 0, grad, grad * self.exp() * alpha))

# ---------------------------------------------------------------------------------------
# shape helpers PyTorch's composites use internally
unsafe_split = Op(
    "UnsafeSplitBackward0",
    lambda self, *, split_size, dim: tuple(a.copy() for a in K.split_array(self, split_size, dim)),
    multi_output=True,
    self=lambda grads, dim: _F().cat(grads, dim), keeps=("split_size",))

# C++ composites multiply and divide by Python scalars through the Scalar overloads.
mul_scalar = Op("MulBackward1", lambda self, *, other: (self * other).astype(self.dtype, copy=False),
                self=lambda grad, other: grad * other)
div_scalar = Op("DivBackward1", lambda self, *, other: (self / other).astype(self.dtype, copy=False),
                self=lambda grad, other: grad / other)

# ---------------------------------------------------------------------------------------
# recurrent layers (nn.LSTM and packed sequences)
from . import _kernels_rnn as KR  # noqa: E402

# An in-place transpose (ATen's RNNs turn a batch-first output back with transpose_).
transpose_inplace = Op("TransposeBackward1", lambda self, *, dim0, dim1: np.swapaxes(self, dim0, dim1),
                       self=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))

# The last backward of an LSTM layer and its gradients: the formulas of the layer's seven
# inputs share one backward through time, so the first of them to run does it for all.
_LAST_LSTM_BACKWARD = [None, None]


def _lstm_layer_grads(grads, input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, has_biases):
    if _LAST_LSTM_BACKWARD[0] is grads:
        return _LAST_LSTM_BACKWARD[1]
    F = _F()
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
    has_biases, bidirectional, batch_first, train: KR.lstm_layer(input, weight0, weight1, weight2, weight3, hx_, cx_,
                                                                 reverse, has_biases),
    multi_output=True, keeps=("batch_sizes", "mode", "hidden_size", "num_layers", "bidirectional", "batch_first",
                              "train"),
    **{name: _lstm_formula(k) for k, name in enumerate(("input", "weight0", "weight1", "weight2", "weight3", "hx_",
                                                        "cx_"))})


def _unpack_into_padded(grad, input_sym_sizes, result1, batch_first):
    """The gradient of packing: each time step's rows back in place, zeros in the padding."""
    F = _F()
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
    lambda input, *, lengths, batch_first, input_sym_sizes: KR.pack_padded(input, lengths, batch_first),
    multi_output=True,
    input=lambda grads, input_sym_sizes, result1, batch_first: _unpack_into_padded(grads[0], input_sym_sizes, result1,
                                                                                   batch_first))
