"""torch's samplers of a varying number of draws per element: the gamma and Dirichlet
samplers behind torch.distributions (torch._standard_gamma, torch._sample_dirichlet and
their reparameterized gradients), torch.poisson and torch.binomial, with ATen's argument
and dtype checks. The numbers come from ``_random_counts``, in the order ATen draws them."""
import numpy as np

from . import _errors, _errors_random as ER, _kernels as K, _ops_gamma
from ._common import _dtype_word, apply

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (none here).
EXPORTS = ("_standard_gamma", "_standard_gamma_grad", "_sample_dirichlet", "_dirichlet_grad", "poisson", "binomial")
TORCH = EXPORTS
METHODS = ()

_FLOAT_AND_DOUBLE = (np.dtype(np.float32), np.dtype(np.float64))


def _dispatched(tensor, kernel, allowed=_FLOAT_AND_DOUBLE):
    """AT_DISPATCH_FLOATING_TYPES: float and double only (poisson adds the half types)."""
    if tensor._data.dtype not in allowed:
        raise _errors.kernel_not_implemented(kernel, _dtype_word(tensor._data.dtype))


def _same_dtype(first, *others):
    """TensorIterator's check that the inputs share the first one's dtype."""
    for other in others:
        if other._data.dtype != first._data.dtype:
            raise ER.operand_dtype(_dtype_word(other._data.dtype), _dtype_word(first._data.dtype))


def _standard_gamma(input, generator=None):
    _dispatched(input, "gamma_cpu")
    return apply(_ops_gamma.standard_gamma, (input,), {"generator": generator})


def _standard_gamma_grad(input, output):
    K.broadcast_shapes(input.shape, output.shape)
    _same_dtype(input, output)
    _dispatched(input, "_standard_gamma_grad_cpu")
    return apply(_ops_gamma.standard_gamma_grad, (input, output), {})


def _sample_dirichlet(input, generator=None):
    _dispatched(input, "dirichlet")
    return apply(_ops_gamma.sample_dirichlet, (input,), {"generator": generator})


def _dirichlet_grad(x, alpha, total):
    K.broadcast_shapes(x.shape, alpha.shape, total.shape)
    _same_dtype(x, alpha, total)
    _dispatched(x, "_dirichlet_grad_cpu")
    return apply(_ops_gamma.dirichlet_grad, (x, alpha, total), {})


def poisson(input, generator=None):
    dtype = input._data.dtype
    if dtype.kind not in "fV":
        raise _errors.kernel_not_implemented("poisson_cpu", _dtype_word(dtype))
    return apply(_ops_gamma.poisson, (input,), {"generator": generator})


def binomial(count, prob, generator=None):
    for name, tensor in (("count", count), ("prob", prob)):
        if tensor._data.dtype.kind not in "fV":
            raise ER.binomial_dtype(name, _dtype_word(tensor._data.dtype))
    K.broadcast_shapes(count.shape, prob.shape)
    _same_dtype(count, prob)
    _dispatched(count, "binomial_cpu")
    return apply(_ops_gamma.binomial, (count, prob), {"generator": generator})
