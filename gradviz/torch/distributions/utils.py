"""torch.distributions.utils: what the distributions share (broadcasting their parameters,
the standard normal draw, logits <-> probabilities, lazily computed parameters), each
the op sequence PyTorch 2.13 runs, so values, random streams and grad_fn names agree."""
import functools

from .. import _dtypes, _errors_func as E
from .._namespace import F
from .._tensor import Size, Tensor
from .._type_info import finfo
from ..autograd.grad_mode import enable_grad
from ..nn import functional as nn_functional

__all__ = [
    "broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits", "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant
#: What PyTorch counts as a number among a distribution's parameters (numpy's float64 is a float).
NUMBER_TYPES = (int, float, bool)


def broadcast_all(*values):
    """The parameters as tensors of one shape: numbers become tensors of the first tensor's
    dtype (the default dtype if all are numbers), then all are broadcast."""
    if not all(isinstance(v, (Tensor, *NUMBER_TYPES)) for v in values):
        raise E.distribution_broadcast_types()
    if not all(isinstance(v, Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, Tensor)), _dtypes.DEFAULTS.float_dtype)
        values = [v if isinstance(v, Tensor) else F.tensor(v, dtype=dtype) for v in values]
    return F.broadcast_tensors(*values)


def probs_or_logits(dist, probs, logits):
    """Sets ``dist.probs`` or ``dist.logits``, whichever is given (as a tensor), and
    ``dist._param`` to it; returns the batch shape it gives (none for a Python number)."""
    if (probs is None) == (logits is None):
        raise E.distribution_probs_or_logits()
    name, value = ("probs", probs) if probs is not None else ("logits", logits)
    (param,) = broadcast_all(value)
    setattr(dist, name, param)
    dist._param = param
    return Size() if isinstance(value, NUMBER_TYPES) else param.size()


def expand_probs_or_logits(source, new, shape):
    """``new``'s probs and logits: those ``source`` holds (given or already computed),
    expanded to ``shape``; ``_param`` the last of them, as PyTorch's expand leaves it."""
    for name in ("probs", "logits"):
        if name in source.__dict__:
            setattr(new, name, getattr(source, name).expand(shape))
            new._param = getattr(new, name)


def two_parameter_batch_shape(first, second, broadcast):
    """The batch shape of a distribution of two parameters (loc and scale, low and high):
    none for two Python numbers, else the broadcast parameters' shape (PyTorch's rule)."""
    if isinstance(first, NUMBER_TYPES) and isinstance(second, NUMBER_TYPES):
        return Size()
    return broadcast.size()


def expand_parameters(dist, cls, batch_shape, _instance, names):
    """``cls.expand``: a new instance (or ``_instance``) whose parameters ``names`` are the
    originals expanded to ``batch_shape``, validated as the original was."""
    new = dist._get_checked_instance(cls, _instance)
    batch_shape = Size(batch_shape)
    for name in names:
        setattr(new, name, getattr(dist, name).expand(batch_shape))
    super(cls, new).__init__(batch_shape, validate_args=False)
    new._validate_args = dist._validate_args
    return new


def standard_normal(shape, dtype):
    """PyTorch's _standard_normal outside tracing: torch.empty(shape).normal_()."""
    return F.empty(shape, dtype=dtype).normal_()


def sum_rightmost(value, dim):
    """``value`` with its ``dim`` rightmost dims summed out."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return F.sigmoid(logits)
    return nn_functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    """``probs`` clamped to [eps, 1 - eps], eps the dtype's machine epsilon."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return F.log(ps_clamped) - F.log1p(-ps_clamped)
    return F.log(ps_clamped)


class lazy_property:
    """A parameter computed from another on first read (Categorical's logits from its probs),
    under enable_grad so it stays differentiable, then stored on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return _LazyPropertyAndProperty(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _LazyPropertyAndProperty(lazy_property, property):
    """What a lazy property is on the class: a lazy_property to validation, a property to
    documentation tools."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle of the last two dims (up to diagonal ``diag``), row by row, as a vector."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise E.tril_diag_out_of_range(diag, n)
    arange = F.arange(n)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    return mat[..., tril_mask]


def vec_to_tril_matrix(vec, diag=0):
    """tril_matrix_to_vec undone: the vector placed in the lower triangle of a zero matrix."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise E.vec_not_tril(vec.shape[-1])
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    arange = F.arange(n)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    mat[..., tril_mask] = vec
    return mat
