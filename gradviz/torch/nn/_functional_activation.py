"""torch.nn.functional's activations beyond relu / gelu / softmax: PyTorch's signatures
over the engine's functions (``_fn_activation``), and the compositions PyTorch writes in
Python (tanhshrink, softsign), whose nodes are then the primitives' own."""
from .._namespace import F as _F
from .. import _ops_nn, _ops_nn_act
from ..autograd.graph import apply as _apply_op
from ..autograd.inplace import apply_inplace as _apply_inplace


def _apply(op, inputs, **params):
    return _apply_op(op, inputs, params)


def elu(input, alpha=1.0, inplace=False):
    return _F.elu_scaled(input, alpha, inplace=inplace)


def elu_(input, alpha=1.0):
    return _F.elu_scaled(input, alpha, inplace=True)


def selu(input, inplace=False):
    return _F.selu_(input) if inplace else _F.selu(input)


def selu_(input):
    return _F.selu_(input)


def celu(input, alpha=1.0, inplace=False):
    return _F.celu_(input, alpha) if inplace else _F.celu(input, alpha)


def celu_(input, alpha=1.0):
    return _F.celu_(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return _apply_inplace(_ops_nn_act.leaky_relu_inplace, input, (input,), {"negative_slope": negative_slope})
    return _apply(_ops_nn.leaky_relu, (input,), negative_slope=negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if inplace:
        return _apply_inplace(_ops_nn.hardtanh, input, (input,), {"min_val": min_val, "max_val": max_val})
    return _apply(_ops_nn.hardtanh, (input,), min_val=min_val, max_val=max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def silu(input, inplace=False):
    if inplace:
        return _apply_inplace(_ops_nn.silu, input, (input,), {})
    return _apply(_ops_nn.silu, (input,))


def mish(input, inplace=False):
    return _F.mish(input, inplace)


def hardswish(input, inplace=False):
    return _F.hardswish(input, inplace)


def hardsigmoid(input, inplace=False):
    return _F.hardsigmoid(input, inplace)


def hardshrink(input, lambd=0.5):
    return _F.hardshrink(input, lambd)


def softshrink(input, lambd=0.5):
    return _F.softshrink(input, lambd)


def logsigmoid(input):
    return _F.log_sigmoid(input)


def tanhshrink(input):
    return input - input.tanh()


def softsign(input):
    return input / (input.abs() + 1)


def threshold(input, threshold, value, inplace=False):
    return _F.threshold_(input, threshold, value) if inplace else _F.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return _F.threshold_(input, threshold, value)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    return _F.rrelu_(input, lower, upper, training) if inplace else _F.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return _F.rrelu_(input, lower, upper, training)


def glu(input, dim=-1):
    return _F.glu(input, dim)


def prelu(input, weight):
    return _F.prelu(input, weight)
