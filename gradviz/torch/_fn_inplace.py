"""In-place ops (add_, clamp_, fill_, copy_, the unary ones, resize_...) with PyTorch's argument
rules; the autograd bookkeeping is in autograd/inplace.py."""
import numpy as np

from . import _errors, _kernels as K, _ops, _tensor
from ._common import (
    _C_TYPE_NAMES, _alpha, _inplace, _int, _is_number, _min, _other, _resolve_dtype, _shape_args, wrap_dim)
from ._namespace import F  # the other families' functions, read at call time

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "add_", "sub_", "mul_", "div_", "clamp_", "clip_", "zero_", "fill_", "copy_", "exp_", "relu_", "sigmoid_", "tanh_",
    "neg_", "pow_", "abs_", "absolute_", "sin_", "cos_", "tan_", "asin_", "arcsin_", "acos_", "arccos_", "atan_",
    "arctan_", "sinh_", "cosh_", "log_", "log1p_", "log2_", "log10_", "expm1_", "erf_", "floor_", "ceil_", "round_",
    "trunc_", "fix_", "frac_", "sign_", "sgn_", "reciprocal_", "rsqrt_", "negative_", "lgamma_", "digamma_", "square_",
    "clamp_min_", "clamp_max_", "masked_fill_", "fmod_", "remainder_", "cumsum_", "nan_to_num_", "sqrt_", "resize_",
    "resize_as_", "addcmul_", "addcdiv_", "lerp_", "multiply_", "subtract_", "divide_", "true_divide_",
)
TORCH = ()
METHODS = EXPORTS  # every in-place op is a Tensor method


def add_(self, other, *, alpha=1):
    return _inplace(_ops.add, self, (self, _other(other)), _alpha(alpha))


def sub_(self, other, *, alpha=1):
    F._check_no_bool_subtraction(self, other)
    return _inplace(_ops.sub, self, (self, _other(other)), _alpha(alpha))


def mul_(self, other):
    return _inplace(_ops.mul, self, (self, _other(other)), {})


def div_(self, other, *, rounding_mode=None):
    return _inplace(_ops.div, self, (self, _other(other)), {})


def clamp_(self, min=None, max=None):
    if isinstance(min, _tensor.Tensor) or isinstance(max, _tensor.Tensor):
        bounds = [b if b is None or isinstance(b, _tensor.Tensor) else F.scalar_tensor(b, self.dtype)
                  for b in (min, max)]
        return _inplace(_ops.clamp_tensor, self, (self, *bounds), {})
    return _inplace(_ops.clamp, self, (self,), {"min": min, "max": max})


clip_ = clamp_


def zero_(self):
    return _inplace(_ops.zero, self, (self,), {})


def fill_(self, value):
    if isinstance(value, _tensor.Tensor):
        if value._data.ndim != 0:
            raise _errors.fill_value_dim(value._data.ndim)
        return _inplace(_ops.fill_tensor, self, (self, value), {})
    return _inplace(_ops.fill, self, (self,), {"value": value})


def copy_(self, src, non_blocking=False):
    F._check_expand(src._data.shape, self._data.shape)
    return _inplace(_ops.copy, self, (self, src), {"src_dtype": src.dtype if isinstance(src, _tensor.Tensor)
                                                   else self.dtype})


def exp_(self):
    return _inplace(_ops.exp, self, (self,), {})


def relu_(self):
    return _inplace(_ops.relu, self, (self,), {})


def sigmoid_(self):
    return _inplace(_ops.sigmoid, self, (self,), {})


def tanh_(self):
    return _inplace(_ops.tanh, self, (self,), {})


def neg_(self):
    if self._data.dtype == np.bool_:
        raise _errors.bool_negation()
    return _inplace(_ops.neg, self, (self,), {})


def pow_(self, exponent):
    if isinstance(exponent, _tensor.Tensor):
        return _inplace(_ops.pow_tensor, self, (self, exponent), {})
    return _inplace(_ops.pow_scalar, self, (self,), {"exponent": exponent})


def _unary_inplace(op):
    def fn(self):
        return _inplace(op, self, (self,), {})
    fn.__name__ = op.node_name
    return fn


abs_ = absolute_ = _unary_inplace(_ops.abs)
sin_, cos_, tan_ = _unary_inplace(_ops.sin), _unary_inplace(_ops.cos), _unary_inplace(_ops.tan)
asin_ = arcsin_ = _unary_inplace(_ops.asin)
acos_ = arccos_ = _unary_inplace(_ops.acos)
atan_ = arctan_ = _unary_inplace(_ops.atan)
sinh_, cosh_ = _unary_inplace(_ops.sinh), _unary_inplace(_ops.cosh)
log_, log1p_, log2_, log10_ = (_unary_inplace(_ops.log), _unary_inplace(_ops.log1p), _unary_inplace(_ops.log2),
                               _unary_inplace(_ops.log10))
expm1_, erf_ = _unary_inplace(_ops.expm1), _unary_inplace(_ops.erf)
floor_, ceil_, round_ = _unary_inplace(_ops.floor), _unary_inplace(_ops.ceil), _unary_inplace(_ops.round)
trunc_ = fix_ = _unary_inplace(_ops.trunc)
frac_, sign_, sgn_ = _unary_inplace(_ops.frac), _unary_inplace(_ops.sign), _unary_inplace(_ops.sgn)
reciprocal_, rsqrt_ = _unary_inplace(_ops.reciprocal), _unary_inplace(_ops.rsqrt)
negative_ = neg_
lgamma_, digamma_ = _unary_inplace(_ops.lgamma), _unary_inplace(_ops.digamma)


def square_(self):
    return pow_(self, 2)


def clamp_min_(self, min):
    if isinstance(min, _tensor.Tensor):
        return _inplace(_ops.clamp_min_tensor, self, (self, min), {})
    return _inplace(_ops.clamp_min, self, (self,), {"min": min})


def clamp_max_(self, max):
    if isinstance(max, _tensor.Tensor):
        return _inplace(_ops.clamp_max_tensor, self, (self, max), {})
    return _inplace(_ops.clamp_max, self, (self,), {"max": max})


def masked_fill_(self, mask, value):
    mask = mask._data if isinstance(mask, _tensor.Tensor) else np.asarray(mask)
    if isinstance(value, _tensor.Tensor) and value._data.ndim != 0:  # checked before the mask's dtype
        raise _errors.masked_fill_value_dim(value._data.ndim)
    if mask.dtype != np.bool_:
        raise _errors.masked_fill_mask_dtype(_C_TYPE_NAMES.get(mask.dtype.name, mask.dtype.name))
    K.broadcast_shapes(self._data.shape, mask.shape)  # TensorIterator: the output (self) first, then the mask
    if isinstance(value, _tensor.Tensor):
        return _inplace(_ops.masked_fill_tensor, self, (self, value), {"mask": mask})
    return _inplace(_ops.masked_fill, self, (self,), {"mask": mask, "value": value})


def fmod_(self, other):
    if _is_number(other):
        return _inplace(_ops.fmod, self, (self,), {"other": other})
    return _inplace(_ops.fmod_tensor, self, (self, other), {})


def remainder_(self, other):
    if _is_number(other):
        return _inplace(_ops.remainder, self, (self,), {"other": other})
    return _inplace(_ops.remainder_tensor, self, (self, other), {})


def cumsum_(self, dim, *, dtype=None):
    return _inplace(_ops.cumsum, self, (self,), {"dim": wrap_dim(dim, self._data.ndim), "dtype": _resolve_dtype(dtype)})


def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    info = np.finfo(self._data.dtype)
    return _inplace(_ops.nan_to_num, self, (self,), {"nan": nan, "posinf": info.max if posinf is None else posinf,
                                                     "neginf": info.min if neginf is None else neginf})


def sqrt_(self):
    return _inplace(_ops.sqrt, self, (self,), {})


def resize_(self, *sizes, memory_format=None):
    """Tensor.resize_: a new shape over the same elements in order (kept storage when it is
    large enough; new elements are zeros here, uninitialised in PyTorch)."""
    if self._requires_grad:
        raise _errors.resize_requires_grad()
    shape = _shape_args(sizes)
    F._check_sizes(shape)
    count = _int(np.prod(shape, dtype=np.int64))
    flat = self._data.reshape(-1)
    if count <= flat.size and np.shares_memory(flat, self._data):
        self._data = flat[:count].reshape(shape)
    else:
        data = np.zeros(count, dtype=self._data.dtype)
        data[:_min(count, flat.size)] = flat[:count]
        self._data = data.reshape(shape)
    return self


def resize_as_(self, the_template, memory_format=None):
    return resize_(self, the_template._data.shape)


def addcmul_(self, tensor1, tensor2, *, value=1):
    return _inplace(_ops.addcmul, self, (self, tensor1, tensor2), {"value": value})


def addcdiv_(self, tensor1, tensor2, *, value=1):
    return _inplace(_ops.addcdiv, self, (self, tensor1, tensor2), {"value": value})


def lerp_(self, end, weight):
    F._check_lerp_dtypes(self, end, weight)
    if isinstance(weight, _tensor.Tensor):
        return _inplace(_ops.lerp_tensor, self, (self, end, weight), {})
    return _inplace(_ops.lerp, self, (self, end), {"weight": weight})


multiply_, subtract_ = mul_, sub_
divide_ = true_divide_ = div_
