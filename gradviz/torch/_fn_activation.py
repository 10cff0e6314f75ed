"""torch's own activation functions (selu, celu, rrelu, threshold, hardshrink, prelu and
their in-place forms), with ATen's argument checks; torch.nn.functional's spellings call
these. The ops are ``_ops_nn_act``'s; the RReLU slopes come from ``_random`` in the order
ATen draws them."""
import numpy as np

from . import _errors, _errors_nn_layers as _errors_nn, _ops_nn_act as _ops, _random as R
from ._common import _dtype_word, _inplace, apply, wrap_dim
from ._namespace import F  # the other families' functions, read at call time

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "selu", "selu_", "celu", "celu_", "elu_inplace", "rrelu", "rrelu_", "threshold", "threshold_", "hardshrink",
    "prelu", "softshrink", "mish", "hardswish", "hardsigmoid", "log_sigmoid", "glu", "elu_scaled",
)
TORCH = (
    "selu", "selu_", "celu", "celu_", "rrelu", "rrelu_", "threshold", "threshold_", "hardshrink", "prelu",
)
METHODS = (
    "hardshrink", "prelu",
)

# SELU's constants (Klambauer et al.), as ATen spells them.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _floating_kernel(x, kernel):
    """ATen dispatches these kernels for floating dtypes only."""
    if x._data.dtype.kind not in "fV":
        raise _errors.kernel_not_implemented(kernel, _dtype_word(x._data.dtype))


def elu_scaled(input, alpha=1.0, scale=1.0, input_scale=1.0, inplace=False):
    """at::elu with its three coefficients (F.elu, selu and celu are spellings of it)."""
    _floating_kernel(input, "elu_cpu")
    params = {"alpha": alpha, "scale": scale, "input_scale": input_scale}
    if inplace:
        return _inplace(_ops.elu_inplace, input, (input,), params)
    return apply(_ops.elu, (input,), params)


def elu_inplace(input, alpha=1.0):
    return elu_scaled(input, alpha, inplace=True)


def selu(input):
    return elu_scaled(input, SELU_ALPHA, SELU_SCALE)


def selu_(input):
    return elu_scaled(input, SELU_ALPHA, SELU_SCALE, inplace=True)


def _celu(input, alpha, inplace):
    if alpha == 0:
        raise _errors_nn.celu_zero_alpha()
    _floating_kernel(input, "elu_cpu")
    op = _ops.celu_inplace if inplace else _ops.celu
    return (_inplace if inplace else _apply_plain)(op, input, (input,), {"alpha": alpha})


def _apply_plain(op, _self, inputs, params):
    return apply(op, inputs, params)


def celu(input, alpha=1.0):
    return _celu(input, alpha, False)


def celu_(input, alpha=1.0):
    return _celu(input, alpha, True)


def threshold(input, threshold, value):
    return apply(_ops.threshold, (input,), {"threshold": threshold, "value": value})


def threshold_(input, threshold, value):
    return _inplace(_ops.threshold_inplace, input, (input,), {"threshold": threshold, "value": value})


def _shrink_checked(input, lambd, kernel):
    _floating_kernel(input, kernel)
    if lambd < 0:
        info = np.finfo(input._data.dtype if input._data.dtype.kind == "f" else np.float32)
        raise _errors_nn.shrink_lambda(_errors.c_number(lambd), _dtype_word(input._data.dtype),
                                       _errors.c_number(float(info.max)))


def hardshrink(input, lambd=0.5):
    _floating_kernel(input, "hardshrink_cpu")
    return apply(_ops.hardshrink, (input,), {"lambd": lambd})


def softshrink(input, lambd=0.5):
    _shrink_checked(input, lambd, "softshrink_cpu")
    return apply(_ops.softshrink, (input,), {"lambd": lambd})


def mish(input, inplace=False):
    _floating_kernel(input, "mish_cpu")
    return _inplace(_ops.mish, input, (input,), {}) if inplace else apply(_ops.mish, (input,), {})


def hardswish(input, inplace=False):
    _floating_kernel(input, "hardswish_cpu")
    return _inplace(_ops.hardswish, input, (input,), {}) if inplace else apply(_ops.hardswish, (input,), {})


def hardsigmoid(input, inplace=False):
    _floating_kernel(input, "hardsigmoid_cpu")
    return _inplace(_ops.hardsigmoid, input, (input,), {}) if inplace else apply(_ops.hardsigmoid, (input,), {})


def log_sigmoid(input):
    _floating_kernel(input, "log_sigmoid_cpu")
    return apply(_ops.log_sigmoid, (input,), {})[0]


def glu(input, dim=-1):
    if input.dim() == 0:
        raise _errors_nn.glu_scalar()
    wrapped = wrap_dim(dim, input.dim())
    if input.shape[wrapped] % 2:
        raise _errors_nn.glu_odd(wrapped, input.shape[wrapped])
    return apply(_ops.glu, (input,), {"dim": dim})


# ---------------------------------------------------------------------------------------
# RReLU
def _rrelu_noise(input, lower, upper, training):
    """The slope of each element: in training, ATen's loop over the contiguous input draws
    uniform_real_distribution<double>(lower, upper) for each element <= 0 (1 elsewhere)."""
    data = np.ascontiguousarray(input._data)
    noise = np.ones(data.shape, dtype=data.dtype) if training else np.zeros(data.shape, dtype=data.dtype)
    if training:
        negative = data <= 0
        count = int(negative.sum())
        if count:
            # the bounds are the kernel's opmath type (float for float tensors) widened to double
            low, high = (float(data.dtype.type(b)) for b in (lower, upper))
            draws = R.standard_uniform64(R.engine_of(None), count) * (high - low) + low
            noise[negative] = draws.astype(data.dtype)
    return F.from_numpy(noise)


def _rrelu(input, lower, upper, training, inplace):
    if lower > upper:
        raise _errors_nn.rrelu_bounds()
    if input._data.dtype.kind not in "fV":
        raise _errors.kernel_not_implemented("leaky_relu_cpu", _dtype_word(input._data.dtype))
    noise = _rrelu_noise(input, lower, upper, training)
    params = {"lower": lower, "upper": upper, "training": training}
    if inplace:
        return _inplace(_ops.rrelu_with_noise_inplace, input, (input, noise), params)
    return apply(_ops.rrelu_with_noise, (input, noise), params)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _rrelu(input, lower, upper, training, False)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _rrelu(input, lower, upper, training, True)


# ---------------------------------------------------------------------------------------
# PReLU
def prelu(input, weight):
    """at::prelu: the weight (one value, or one per channel: dim 1) viewed to broadcast over
    the input, then the kernel."""
    weight_num = weight.numel()
    if weight_num != 1:
        channels = input.shape[1] if input.dim() > 1 else 1
        if channels != weight_num:
            raise _errors_nn.prelu_weight_count(weight_num, channels)
    if weight.dim() > 1:
        raise _errors_nn.prelu_weight_dim(weight.dim())
    if input.dim() != weight.dim():
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = weight_num
        weight = weight.reshape(shape)
    return apply(_ops.prelu_kernel, (input, weight), {})
