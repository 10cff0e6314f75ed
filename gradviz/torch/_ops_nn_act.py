"""Op-table entries for nn's activations beyond the core ones (``_ops_nn``): the ELU family
(ELU, SELU, CELU and their in-place forms), Mish, the hard and soft shrinks, Hardswish /
Hardsigmoid, LogSigmoid, Threshold, RReLU, GLU and PReLU. The same ``Op`` rules as ``_ops``:
PyTorch's node name, a numpy forward in ATen's CPU arithmetic, one formula per
differentiable input written with engine ops (so that they differentiate again).

In-place forms whose PyTorch node reads the result (EluBackward1, CeluBackward1,
RreluWithNoiseBackward1) are ops of their own, as derivatives.yaml lists them.
"""
import numpy as np

from . import _kernels_rounded as KU, _ops_nn
from ._namespace import F
from ._ops import Op, not_implemented
from .autograd import graph


def _scalar(x, value):
    """A Python number as ATen's kernel sees it: converted to the tensor's scalar type."""
    return x.dtype.type(value)


def _as(x, out):
    return np.asarray(out).astype(x.dtype, copy=False)


# ---------------------------------------------------------------------------------------
# the ELU family: elu(x) = x * scale for x > 0, else (exp(x * input_scale) - 1) * alpha * scale
def elu_array(x, alpha, scale, input_scale):
    negcoef = _scalar(x, alpha) * _scalar(x, scale)
    with np.errstate(over="ignore", invalid="ignore"):  # ATen's expm1: -0.0 stays -0.0
        negative = KU.expm1_array(x * _scalar(x, input_scale)) * negcoef
    return _as(x, np.where(x > 0, x * _scalar(x, scale), negative))


def _elu_grad(grad, self, alpha, scale, input_scale):
    negative = grad * input_scale * (alpha * scale) * (self * input_scale).exp()
    return F.where(self > 0, grad * scale, negative)


def _elu_grad_from_result(grad, result, alpha, scale, input_scale):
    return F.where(result > 0, grad * scale, grad * input_scale * (result + alpha * scale))


elu = Op("EluBackward0", lambda self, *, alpha, scale, input_scale: elu_array(self, alpha, scale, input_scale),
         self=lambda grad, self, alpha, scale, input_scale: _elu_grad(grad, self, alpha, scale, input_scale))
elu_inplace = Op(
    "EluBackward1", lambda self, *, alpha, scale, input_scale: elu_array(self, alpha, scale, input_scale),
    self=lambda grad, result, alpha, scale, input_scale: _elu_grad_from_result(grad, result, alpha, scale,
                                                                               input_scale))

# CELU is ELU with input_scale 1 / alpha; its node keeps alpha alone. Its derivative
# (derivatives.yaml) divides by alpha.toFloat(): alpha rounded to float first.
def _celu_grad_scale(alpha):
    return 1.0 / float(np.float32(alpha))


celu = Op("CeluBackward0", lambda self, *, alpha: elu_array(self, alpha, 1.0, 1.0 / alpha),
          self=lambda grad, self, alpha: _elu_grad(grad, self, alpha, 1.0, _celu_grad_scale(alpha)))
celu_inplace = Op("CeluBackward1", lambda self, *, alpha: elu_array(self, alpha, 1.0, 1.0 / alpha),
                  self=lambda grad, result, alpha: _elu_grad_from_result(grad, result, alpha, 1.0,
                                                                         _celu_grad_scale(alpha)))


# ---------------------------------------------------------------------------------------
# smooth and piecewise activations
def _rounded_steps(x, *steps):
    """Each elementwise step rounded to the tensor's dtype, as ATen's kernels round each
    vector function's result (computed in double, where numpy's float32 functions are
    less accurate than the correctly rounded values SLEEF's come within an ulp of)."""
    wide = x.astype(np.float64) if x.dtype == np.float32 else x
    with np.errstate(over="ignore"):
        for step in steps:
            wide = step(wide)
            if x.dtype == np.float32:
                wide = wide.astype(np.float32).astype(np.float64)
    return wide.astype(x.dtype, copy=False)


def _mish_array(x):
    return _as(x, x * _rounded_steps(x, np.exp, np.log1p, np.tanh))


def _mish_grad(grad, self):
    tanh_softplus = self.exp().log1p().tanh()
    return grad * (tanh_softplus + self * self.sigmoid() * (1 - tanh_softplus * tanh_softplus))


mish = Op("MishBackward0", lambda self: _mish_array(self), self=lambda grad, self: _mish_grad(grad, self))


# ATen's hardsigmoid_backward multiplies by 1.0f / 6.0f, a float even for double tensors.
_ONE_SIXTH = float(np.float32(1.0) / np.float32(6.0))


def _hardsigmoid_array(x):
    three, six = _scalar(x, 3), _scalar(x, 6)
    return _as(x, np.minimum(np.maximum(x + three, _scalar(x, 0)), six) / six)


def _hardswish_array(x):
    three, six = _scalar(x, 3), _scalar(x, 6)
    return _as(x, x * np.minimum(np.maximum(x + three, _scalar(x, 0)), six) / six)


# hardsigmoid_backward has no derivative in PyTorch: its node refuses a double backward.
hardsigmoid_backward = Op(
    "NotImplemented",
    lambda grad_output, self: _as(grad_output, np.where((self > -3) & (self < 3),
                                                        grad_output * grad_output.dtype.type(_ONE_SIXTH), 0)),
    grad_output=lambda grad: not_implemented("hardsigmoid_backward"),
    self=lambda grad: not_implemented("hardsigmoid_backward"))
hardsigmoid = Op("HardsigmoidBackward0", lambda self: _hardsigmoid_array(self),
                 self=lambda grad, self: graph.apply(hardsigmoid_backward, (grad, self), {}))
hardswish = Op("HardswishBackward0", lambda self: _hardswish_array(self),
               self=lambda grad, self: F.where(self < -3.0, F.zeros_like(grad),
                                               F.where(self <= 3.0, grad * (self / 3.0 + 0.5), grad)))


def _masked_kernel(masked):
    """A backward kernel that zeroes the gradient where ``masked(self, **options)`` holds."""
    def kernel(grad_output, self, **options):
        return _as(grad_output, np.where(masked(self, **options), grad_output.dtype.type(0), grad_output))
    return kernel


def _shrink_masked(self, *, lambd):
    return (self >= -lambd) & (self <= lambd)


def _threshold_masked(self, *, threshold):
    return self <= threshold


_shrink_kernel = _masked_kernel(_shrink_masked)
_threshold_kernel = _masked_kernel(_threshold_masked)


def _backward_op(name, kernel, option):
    """A masked backward as an op of its own, named as PyTorch names its node: its gradient
    for grad_output is itself again, for self zeros (PyTorch's *_backward derivatives), so a
    double backward gives PyTorch's zeros, not None."""
    def forward(grad_output, self, **options):
        return kernel(grad_output, self, **options)
    op = Op(name, _with_option(forward, option),
            grad_output=_grad_output_formula(option, lambda: op),
            self=lambda grad: F.zeros_like(grad))
    return op


def _with_option(forward, option):
    if option == "lambd":
        return lambda grad_output, self, *, lambd: forward(grad_output, self, lambd=lambd)
    return lambda grad_output, self, *, threshold: forward(grad_output, self, threshold=threshold)


def _grad_output_formula(option, op_of):
    if option == "lambd":
        return lambda grad, self, lambd: graph.apply(op_of(), (grad, self), {"lambd": lambd})
    return lambda grad, self, threshold: graph.apply(op_of(), (grad, self), {"threshold": threshold})


hardshrink_backward = _backward_op("HardshrinkBackwardBackward0", _shrink_kernel, "lambd")
softshrink_backward = _backward_op("SoftshrinkBackwardBackward0", _shrink_kernel, "lambd")
threshold_backward = _backward_op("ThresholdBackwardBackward0", _threshold_kernel, "threshold")


def _softshrink_array(x, lambd):
    lam = _scalar(x, lambd)
    return _as(x, np.where(x > lam, x - lam, np.where(x < -lam, x + lam, _scalar(x, 0))))


hardshrink = Op(
    "HardshrinkBackward0",
    lambda self, *, lambd: _as(self, np.where((self >= -_scalar(self, lambd)) & (self <= _scalar(self, lambd)),
                                              _scalar(self, 0), self)),
    self=lambda grad, self, lambd: graph.apply(hardshrink_backward, (grad, self), {"lambd": lambd}))
softshrink = Op("SoftshrinkBackward0", lambda self, *, lambd: _softshrink_array(self, lambd),
                self=lambda grad, self, lambd: graph.apply(softshrink_backward, (grad, self), {"lambd": lambd}))


def _log_sigmoid_array(x):
    """ATen's kernel: min(x, 0) - log1p(exp(-|x|)), keeping exp(-|x|) as the buffer."""
    buffer = _rounded_steps(-np.abs(x), np.exp)
    return _as(x, np.minimum(x, _scalar(x, 0)) - _rounded_steps(buffer, np.log1p)), buffer


def _log_sigmoid_backward_array(grad_output, self, buffer):
    """ATen's kernel: (max_deriv - sign * buffer / (1 + buffer)) * grad."""
    one = grad_output.dtype.type(1)
    negative = self < 0
    max_deriv = np.where(negative, one, grad_output.dtype.type(0))
    sign = np.where(negative, one, -one)
    return _as(grad_output, (max_deriv - sign * (buffer / (one + buffer))) * grad_output)


def _sigmoid_of_negative(self):
    return (-self).sigmoid()


# The backward is an op; its formulas are log_sigmoid's second derivative, -sigmoid(x) * sigmoid(-x).
log_sigmoid_backward = Op(
    "LogSigmoidBackwardBackward0",
    lambda grad_output, self, buffer: _log_sigmoid_backward_array(grad_output, self, buffer),
    grad_output=lambda grad, self: grad * _sigmoid_of_negative(self),
    self=lambda grad, grad_output, self: -grad * grad_output * self.sigmoid() * _sigmoid_of_negative(self))
log_sigmoid = Op("LogSigmoidBackward0", lambda self: _log_sigmoid_array(self), multi_output=True,
                 outputs=("output", "buffer"),
                 self=lambda grads, self, buffer: graph.apply(log_sigmoid_backward, (grads[0], self, buffer), {}))


def _threshold_array(x, threshold, value):
    return _as(x, np.where(x <= _scalar(x, threshold), _scalar(x, value), x))


def _threshold_grad(grad, self, threshold):
    return graph.apply(threshold_backward, (grad, self), {"threshold": threshold})


threshold = Op("ThresholdBackward0", lambda self, *, threshold, value: _threshold_array(self, threshold, value),
               self=lambda grad, self, threshold: _threshold_grad(grad, self, threshold))
threshold_inplace = Op(
    "ThresholdBackward1", lambda self, *, threshold, value: _threshold_array(self, threshold, value),
    self=lambda grad, self, threshold: _threshold_grad(grad, self, threshold))


# ---------------------------------------------------------------------------------------
# RReLU: the noise (a slope per element, drawn by the caller in training) is an input that
# takes no gradient; in evaluation it is leaky_relu with the mean slope.
def _rrelu_array(x, noise, lower, upper, training):
    if training:
        return _as(x, x * noise)
    slope = _scalar(x, (lower + upper) / 2)
    return _as(x, np.where(x > 0, x, x * slope))


def _rrelu_backward_array(grad_output, self, noise, lower, upper, training):
    if training and upper - lower > 1e-6:
        return _as(grad_output, grad_output * noise)
    slope = grad_output.dtype.type((lower + upper) / 2)
    return _as(grad_output, np.where(self > 0, grad_output, grad_output * slope))


# Its gradient for grad_output is itself again, for self zeros (PyTorch's derivatives).
rrelu_with_noise_backward = Op(
    "RreluWithNoiseBackwardBackward0",
    lambda grad_output, self, noise, *, lower, upper, training: _rrelu_backward_array(
        grad_output, self, noise, lower, upper, training),
    grad_output=lambda grad, self, noise, lower, upper, training: _rrelu_grad(grad, self, noise, lower, upper,
                                                                              training),
    self=lambda grad: F.zeros_like(grad))


def _rrelu_grad(grad, self, noise, lower, upper, training):
    return graph.apply(rrelu_with_noise_backward, (grad, self, noise),
                       {"lower": lower, "upper": upper, "training": training})


rrelu_with_noise = Op(
    "RreluWithNoiseBackward0",
    lambda self, noise, *, lower, upper, training: _rrelu_array(self, noise, lower, upper, training),
    self=lambda grad, self, noise, lower, upper, training: _rrelu_grad(grad, self, noise, lower, upper, training))
rrelu_with_noise_inplace = Op(
    "RreluWithNoiseBackward1",
    lambda self, noise, *, lower, upper, training: _rrelu_array(self, noise, lower, upper, training),
    self=lambda grad, result, noise, lower, upper, training: _rrelu_grad(grad, result, noise, lower, upper,
                                                                         training))


# ---------------------------------------------------------------------------------------
# GLU and PReLU
def _glu_array(x, dim):
    a, b = np.split(x, 2, axis=dim)
    with np.errstate(over="ignore"):
        return _as(x, a * (_scalar(x, 1) / (_scalar(x, 1) + np.exp(-b))))


def _glu_grad(grad, self, dim):
    a, b = self.chunk(2, dim)
    gate = b.sigmoid()
    return F.cat([grad * gate, (1 - gate) * gate * a * grad], dim)


glu = Op("GluBackward0", lambda self, *, dim: _glu_array(self, dim),
         self=lambda grad, self, dim: _glu_grad(grad, self, dim))

# The weight arrives viewed to broadcast against the input; the engine sums the weight's
# gradient back to that shape, as autograd does with _prelu_kernel_backward's full-size one.
prelu_kernel = Op(
    "PreluKernelBackward0", lambda self, weight: _as(self, np.where(self > 0, self, weight * self)), promotes=True,
    self=lambda grad, self, weight: F.where(self > 0, grad, weight * grad),
    weight=lambda grad, self, weight: F.where(self > 0, F.zeros_like(grad), self * grad))


# ---------------------------------------------------------------------------------------
# leaky_relu_: its node reads the result (leaky_relu's own, LeakyReluBackward0, the input)
def _leaky_relu_backward(grad, result, negative_slope):
    # the out-of-place op's backward op: both nodes apply it
    return graph.apply(_ops_nn.leaky_relu_backward, (grad, result), {"negative_slope": negative_slope})


leaky_relu_inplace = Op(
    "LeakyReluBackward1",
    lambda self, *, negative_slope: np.where(self > 0, self, self * negative_slope).astype(self.dtype),
    self=lambda grad, result, negative_slope: _leaky_relu_backward(grad, result, negative_slope))
