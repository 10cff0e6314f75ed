"""In-place ops (add_, clamp_, fill_, copy_, the unary ones, resize_...) with PyTorch's argument
rules; the autograd bookkeeping is in autograd/inplace.py."""
import numpy as np

from . import _errors, _errors_dtypes, _kernels as K, _ops, _ops_index as I, _ops_pointwise as P, _tensor
from ._common import (
    _C_TYPE_NAMES, _alpha, _dtype_word, _inplace, _int, _is_number, _min, _other, _resolve_dtype, _shape_args, apply, wrap_dim)
from .autograd.grad_mode import STATE
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
    "eq_", "ne_", "not_equal_", "lt_", "less_", "le_", "less_equal_", "gt_", "greater_", "ge_", "greater_equal_",
    "logical_and_", "logical_or_", "logical_xor_", "logical_not_", "t_", "transpose_", "swapaxes_", "swapdims_",
    "unsqueeze_", "squeeze_", "tril_", "triu_", "cumprod_", "atan2_", "arctan2_", "hypot_", "floor_divide_",
    "float_power_", "exp2_", "fill", "detach_",
)
# PyTorch's torch.<name>_ functions (torch.relu_(x) is x.relu_())
TORCH = (
    "clamp_", "clip_", "zero_", "fill_", "exp_", "relu_", "sigmoid_", "tanh_", "neg_", "abs_", "sin_", "cos_", "tan_",
    "asin_", "arcsin_", "acos_", "arccos_", "atan_", "arctan_", "sinh_", "cosh_", "log_", "log1p_", "log2_", "log10_",
    "expm1_", "erf_", "floor_", "ceil_", "round_", "trunc_", "fix_", "frac_", "reciprocal_", "rsqrt_", "negative_",
    "square_", "clamp_min_", "clamp_max_", "nan_to_num_", "sqrt_", "resize_as_", "exp2_", "fill", "detach_",
)
# the in-place ops (detach_ is the Tensor's own; fill is torch.fill only)
METHODS = (
    "add_", "sub_", "mul_", "div_", "clamp_", "clip_", "zero_", "fill_", "copy_", "exp_", "relu_", "sigmoid_",
    "tanh_", "neg_", "pow_", "abs_", "absolute_", "sin_", "cos_", "tan_", "asin_", "arcsin_", "acos_", "arccos_",
    "atan_", "arctan_", "sinh_", "cosh_", "log_", "log1p_", "log2_", "log10_", "expm1_", "erf_", "floor_", "ceil_",
    "round_", "trunc_", "fix_", "frac_", "sign_", "sgn_", "reciprocal_", "rsqrt_", "negative_", "lgamma_",
    "digamma_", "square_", "clamp_min_", "clamp_max_", "masked_fill_", "fmod_", "remainder_", "cumsum_",
    "nan_to_num_", "sqrt_", "resize_", "resize_as_", "addcmul_", "addcdiv_", "lerp_", "multiply_", "subtract_",
    "divide_", "true_divide_", "eq_", "ne_", "not_equal_", "lt_", "less_", "le_", "less_equal_", "gt_", "greater_",
    "ge_", "greater_equal_", "logical_and_", "logical_or_", "logical_xor_", "logical_not_", "t_", "transpose_",
    "swapaxes_", "swapdims_", "unsqueeze_", "squeeze_", "tril_", "triu_", "cumprod_", "atan2_", "arctan2_",
    "hypot_", "floor_divide_", "float_power_", "exp2_",
)


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
    if min is None and max is None:
        raise _errors_dtypes.clamp_without_bounds()
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
    if self._data.dtype.kind in "biu":
        return self  # nothing to replace in an integer tensor
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


# ---------------------------------------------------------------------------------------
# in-place comparisons (x.lt_(y): the result in x's dtype, a zero gradient) and logical ops
def _comparison_inplace(scalar_op, tensor_op, name):
    def fn(self, other):
        if isinstance(other, _tensor.Tensor):
            return _inplace(tensor_op, self, (self, other), {})
        return _inplace(scalar_op, self, (self,), {"other": other})
    fn.__name__ = fn.__qualname__ = name
    return fn


eq_ = _comparison_inplace(P.eq_scalar, P.eq_tensor, "eq_")
ne_ = not_equal_ = _comparison_inplace(P.ne_scalar, P.ne_tensor, "ne_")
lt_ = less_ = _comparison_inplace(P.lt_scalar, P.lt_tensor, "lt_")
le_ = less_equal_ = _comparison_inplace(P.le_scalar, P.le_tensor, "le_")
gt_ = greater_ = _comparison_inplace(P.gt_scalar, P.gt_tensor, "gt_")
ge_ = greater_equal_ = _comparison_inplace(P.ge_scalar, P.ge_tensor, "ge_")


def _write_underivable(self, values):
    """An op with no derivative written in place: PyTorch checks nothing of autograd's (a leaf
    that requires grad is allowed) and leaves the tensor's history as it was."""
    if values.shape != self._data.shape:
        K.broadcast_shapes(self._data.shape, values.shape)
        raise RuntimeError(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the broadcast "
                           f"shape [{', '.join(map(str, values.shape))}]")
    np.copyto(self._data, values, casting="unsafe")
    self._vbox[0] += 1
    return self


def _logical_inplace(ufunc, name):
    def fn(self, other):
        return _write_underivable(self, ufunc(self._data, other._data if isinstance(other, _tensor.Tensor) else other))
    fn.__name__ = fn.__qualname__ = name
    return fn


logical_and_ = _logical_inplace(np.logical_and, "logical_and_")
logical_or_ = _logical_inplace(np.logical_or, "logical_or_")
logical_xor_ = _logical_inplace(np.logical_xor, "logical_xor_")


def logical_not_(self):
    return _write_underivable(self, np.logical_not(self._data))


# ---------------------------------------------------------------------------------------
# in-place views: the tensor takes the view's shape over its own memory
def _inplace_view(op, self, params):
    if STATE.enabled and self._requires_grad:
        if self._base is None and self._grad_fn is None:
            raise _errors.inplace_on_leaf()
        if self._base is not None and self._base._requires_grad and self._base._grad_fn is None:
            raise _errors.inplace_on_view_of_leaf()
    result = apply(op, (self,), params)
    self._data = result._data
    if result._grad_fn is not None:
        self._grad_fn, self._output_nr = result._grad_fn, 0
    self._vbox[0] += 1
    if self._base is not None:
        self._view_version = self._vbox[0]  # its new node is its history: nothing to regenerate
    return self


def t_(self):
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D")
    return _inplace_view(I.t_inplace, self, {})


def transpose_(self, dim0, dim1):
    nd = self._data.ndim
    return _inplace_view(I.transpose_inplace, self, {"dim0": wrap_dim(dim0, nd), "dim1": wrap_dim(dim1, nd)})


swapaxes_ = swapdims_ = transpose_


def unsqueeze_(self, dim):
    return _inplace_view(I.unsqueeze_inplace, self, {"dim": wrap_dim(dim, self._data.ndim + 1)})


def squeeze_(self, dim=None):
    shape = self._data.shape
    if dim is None:
        return _inplace_view(I.squeeze_inplace_all, self, {"self_sym_sizes": shape})
    if isinstance(dim, (tuple, list)):
        dims = tuple(sorted({wrap_dim(d, len(shape)) for d in dim}))
        return _inplace_view(I.squeeze_inplace_dims, self, {"dim": dims, "self_sym_sizes": shape})
    return _inplace_view(I.squeeze_inplace_dim, self, {"dim": wrap_dim(dim, len(shape)), "self_sym_sizes": shape})


# ---------------------------------------------------------------------------------------
# in-place forms of other ops
def tril_(self, diagonal=0):
    return _inplace(_ops.tril, self, (self,), {"diagonal": diagonal})


def triu_(self, diagonal=0):
    return _inplace(_ops.triu, self, (self,), {"diagonal": diagonal})


def cumprod_(self, dim, *, dtype=None):
    return _inplace(_ops.cumprod, self, (self,), {"dim": wrap_dim(dim, self._data.ndim), "dtype": _resolve_dtype(dtype)})


def atan2_(self, other):
    return _inplace(_ops.atan2, self, (self, _other(other)), {})


arctan2_ = atan2_


def hypot_(self, other):
    return _inplace(_ops.hypot, self, (self, other), {})


def floor_divide_(self, other):
    return _inplace(P.floor_divide_inplace, self, (self, _other(other)), {})


def float_power_(self, exponent):
    wanted = "ComplexDouble" if self._data.dtype.kind == "c" else "Double"
    if self._data.dtype not in (np.float64, np.complex128):
        raise RuntimeError(f"the base given to float_power_ has dtype {_dtype_word(self._data.dtype)} but the "
                           f"operation's result requires dtype {wanted}")
    return pow_(self, exponent)


def exp2_(self):
    return _inplace(_ops.exp2, self, (self,), {})


def detach_(self):
    return self.detach_()


def fill(input, value):
    """torch.fill: fill_'s out-of-place twin."""
    if isinstance(value, _tensor.Tensor):
        if value._data.ndim != 0:
            raise _errors.fill_value_dim(value._data.ndim)
        return apply(I.fill_tensor, (input, value), {})
    return apply(I.fill_scalar, (input,), {"value": value})
