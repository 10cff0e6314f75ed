"""Elementwise math: arithmetic with PyTorch's operand rules, the unary and special functions,
clamp, where, lerp / addcmul / addcdiv, and the elementwise backward helpers of the op table."""
import builtins

import numpy as np

from . import _dtypes, _errors, _errors_dtypes, _kernels as K, _ops, _tensor
from ._common import (
    _C_TYPE_NAMES, _NO_OPTIONS, _alpha, _bool, _dtype_word, _float, _int, _is_number, _isinstance, _new_leaf, _other,
    _out_variant, apply, apply_binary, apply_unary)
from ._namespace import F  # the other families' functions, read at call time

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "as_tensor_like", "add", "sub", "subtract", "_check_no_bool_subtraction", "rsub", "scalar_add", "scalar_sub",
    "scalar_mul", "mul", "multiply", "div", "true_divide", "divide", "rdiv", "floor_divide", "remainder", "fmod",
    "lgamma", "digamma", "polygamma", "igamma", "igammac", "zeta", "neg", "negative", "reciprocal", "pow", "rpow",
    "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "abs", "absolute", "sign", "sgn", "log1p", "expm1",
    "rsqrt", "floor", "ceil", "trunc", "frac", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "log2", "log10", "erf", "erfinv", "fix", "arcsin", "arccos", "arctan",
    "round", "square", "atan2", "arctan2", "nan_to_num", "clamp", "clip", "clamp_min", "clamp_max", "clamp_mask",
    "clamp_min_taken", "clamp_max_taken", "threshold_backward", "tanh_backward", "sigmoid_backward", "tensor_where",
    "where", "_check_lerp_dtypes", "lerp", "addcmul", "addcdiv", "positive", "exp2", "logit", "logit_backward", "xlogy",
    "hypot", "logaddexp", "float_power",
)
TORCH = (
    "add", "sub", "subtract", "rsub", "mul", "multiply", "div", "true_divide", "divide", "floor_divide", "remainder",
    "fmod", "lgamma", "digamma", "polygamma", "igamma", "igammac", "neg", "negative", "reciprocal", "pow", "exp", "log",
    "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "abs", "absolute", "sign", "sgn", "log1p", "expm1", "rsqrt",
    "floor", "ceil", "trunc", "frac", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "log2", "log10", "erf", "erfinv", "fix", "arcsin", "arccos", "arctan", "round", "square",
    "atan2", "arctan2", "nan_to_num", "clamp", "clip", "clamp_min", "clamp_max", "where", "lerp", "addcmul", "addcdiv",
    "positive", "exp2", "logit", "xlogy", "hypot", "logaddexp", "float_power",
)
METHODS = (
    "add", "sub", "subtract", "mul", "multiply", "div", "true_divide", "divide", "floor_divide", "remainder", "fmod",
    "lgamma", "digamma", "polygamma", "igamma", "igammac", "neg", "negative", "reciprocal", "pow", "exp", "log", "sin",
    "cos", "tanh", "sigmoid", "relu", "sqrt", "abs", "absolute", "sign", "sgn", "log1p", "expm1", "rsqrt", "floor",
    "ceil", "trunc", "frac", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "log2", "log10", "erf", "erfinv", "fix", "arcsin", "arccos", "arctan", "round", "square", "atan2",
    "arctan2", "nan_to_num", "clamp", "clip", "clamp_min", "clamp_max", "lerp", "addcmul", "addcdiv", "positive",
    "exp2", "logit", "xlogy", "hypot", "logaddexp", "float_power",
)



def as_tensor_like(x, like):
    if isinstance(x, _tensor.Tensor):
        return x
    return F.scalar_tensor(x) if _is_number(x) else F.tensor(x)


def add(input, other, *, alpha=1, out=None):
    kind = builtins.type(other)
    if builtins.type(input) is _tensor.Tensor and (kind is _tensor.Tensor or kind is _float) and out is None:
        return apply_binary(_ops.add, input, other, _alpha(alpha))  # the checks below pass these by
    if out is not None:
        return _out_variant("add", out, (input, other), lambda: add(input, other, alpha=alpha))
    if _is_number(input):
        input, other = other, input
    return apply(_ops.add, (input, _other(other)), _alpha(alpha))


def sub(input, other, *, alpha=1, out=None):
    if out is not None:
        return _out_variant("sub", out, (input, other), lambda: sub(input, other, alpha=alpha))
    _check_no_bool_subtraction(input, other)
    return apply(_ops.sub, (input, _other(other)), _alpha(alpha))


subtract = sub


def _is_bool_operand(x):
    return x._data.dtype == np.bool_ if isinstance(x, _tensor.Tensor) else isinstance(x, (_bool, np.bool_))


def _check_no_bool_subtraction(a, b):
    """PyTorch refuses `-` with bool operands (a mask is inverted with ~)."""
    a_bool, b_bool = _is_bool_operand(a), _is_bool_operand(b)
    if a_bool and b_bool:
        raise _errors.bool_subtraction(both=True)
    if a_bool or b_bool:
        raise _errors.bool_subtraction(both=False)


def rsub(input, other, *, alpha=1):
    _check_no_bool_subtraction(input, other)
    if _is_number(other):
        return apply(_ops.rsub_scalar, (input, other), _alpha(alpha))
    return apply(_ops.rsub, (input, other), _alpha(alpha))


# C++ gradient formulas combine a tensor with a number through ATen's Scalar overloads, whose
# nodes (AddBackward1, MulBackward1...) differ from those of Python's ``t + 1`` (AddBackward0);
# the op table's formulas use these where PyTorch's do, so double-backward graphs match.
def scalar_add(input, number):
    return apply(_ops.add_scalar, (input, number), _ops.ALPHA_ONE)


def scalar_sub(input, number):
    return apply(_ops.sub_scalar, (input, number), _ops.ALPHA_ONE)


def scalar_mul(input, number):
    return apply(_ops.mul_scalar, (input,), {"other": number})


def mul(input, other, *, out=None):
    kind = builtins.type(other)
    if builtins.type(input) is _tensor.Tensor and (kind is _tensor.Tensor or kind is _float) and out is None:
        return apply_binary(_ops.mul, input, other, _NO_OPTIONS)  # the checks below pass these by
    if out is not None:
        return _out_variant("mul", out, (input, other), lambda: mul(input, other))
    if _is_number(input):
        input, other = other, input
    return apply(_ops.mul, (input, _other(other)), {})


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    if out is not None:
        return _out_variant("div", out, (input, other), lambda: div(input, other, rounding_mode=rounding_mode))
    if rounding_mode is not None:
        return _rounded_div(input, other, rounding_mode)
    return apply(_ops.div, (input, _other(other)), {})


true_divide = divide = div


def rdiv(input, other):
    """other / input for a Python number ``other``: PyTorch computes reciprocal * other."""
    if _is_number(other):
        return mul(apply(_ops.reciprocal, (input,), {}), other)
    return div(other, input)


def _rounded_div(input, other, mode):
    return apply(_ops.div_rounding, (input, _other(other)), {"rounding_mode": mode})


def floor_divide(input, other):
    return apply(_ops.floor_divide, (input, _other(other)), {})


def remainder(input, other):
    if _is_number(other):
        return apply(_ops.remainder, (input,), {"other": other})
    return apply(_ops.remainder_tensor, (input, other), {})


def fmod(input, other):
    if _is_number(other):
        return apply(_ops.fmod, (input,), {"other": other})
    return apply(_ops.fmod_tensor, (input, other), {})


# ----- special functions --------------------------------------------------------------
def lgamma(input):
    return apply(_ops.lgamma, (input,), {})


def digamma(input):
    return apply(_ops.digamma, (input,), {})


def polygamma(n, input):
    return apply(_ops.polygamma, (input,), {"n": _int(n)})


def igamma(input, other):
    return apply(_ops.igamma, (input, _other(other)), {})


def igammac(input, other):
    return apply(_ops.igammac, (input, _other(other)), {})


def zeta(input, other):
    """torch.special.zeta (Hurwitz): either argument may be a Python number."""
    if _is_number(input):
        return apply(_ops.zeta_scalar_self, (other,), {"self": input})
    if _is_number(other):
        return apply(_ops.zeta_scalar_other, (input,), {"other": other})
    return apply(_ops.zeta, (input, other), {})


def neg(input):
    if input._data.dtype == np.bool_:
        raise _errors.bool_negation()
    return apply(_ops.neg, (input,), {})


negative = neg


def reciprocal(input):
    return apply(_ops.reciprocal, (input,), {})


def pow(input, exponent):
    if _is_number(input):
        return rpow(exponent, input)
    if _is_number(exponent):
        return apply(_ops.pow_scalar, (input,), {"exponent": exponent})
    return apply(_ops.pow_tensor, (input, exponent), {})


def rpow(input, base):
    """base ** input for a Python number ``base``."""
    return apply(_ops.pow_scalar_base, (base, input), {})


def _unary(op, name):
    """A torch function that applies one elementwise op to one tensor."""
    def fn(input):
        return apply_unary(op, input)
    fn.__name__ = fn.__qualname__ = name
    return fn


exp = _unary(_ops.exp, "exp")
log = _unary(_ops.log, "log")
sin = _unary(_ops.sin, "sin")
cos = _unary(_ops.cos, "cos")
tanh = _unary(_ops.tanh, "tanh")
sigmoid = _unary(_ops.sigmoid, "sigmoid")
relu = _unary(_ops.relu, "relu")
sqrt = _unary(_ops.sqrt, "sqrt")
abs = _unary(_ops.abs, "abs")


absolute = abs


sign = _unary(_ops.sign, "sign")
sgn = _unary(_ops.sgn, "sgn")
log1p = _unary(_ops.log1p, "log1p")
expm1 = _unary(_ops.expm1, "expm1")
rsqrt = _unary(_ops.rsqrt, "rsqrt")
floor = _unary(_ops.floor, "floor")
ceil = _unary(_ops.ceil, "ceil")
trunc = _unary(_ops.trunc, "trunc")
frac = _unary(_ops.frac, "frac")
tan = _unary(_ops.tan, "tan")
asin = _unary(_ops.asin, "asin")
acos = _unary(_ops.acos, "acos")
atan = _unary(_ops.atan, "atan")
sinh = _unary(_ops.sinh, "sinh")
cosh = _unary(_ops.cosh, "cosh")
log2 = _unary(_ops.log2, "log2")
log10 = _unary(_ops.log10, "log10")
erf = _unary(_ops.erf, "erf")
erfinv = _unary(_ops.erfinv, "erfinv")
fix = trunc
arcsin, arccos, arctan = asin, acos, atan


def round(input, *, decimals=0):
    if decimals:
        return apply(_ops.round_decimals, (input,), {"decimals": decimals})
    return apply(_ops.round, (input,), {})


def square(input):
    return pow(input, 2)


def atan2(input, other):
    return apply(_ops.atan2, (input, _other(other)), {})


arctan2 = atan2


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    if input._data.dtype.kind in "biu":
        return F.clone(input)  # nothing to replace, as ATen's integer path
    info = np.finfo(input._data.dtype)
    return apply(_ops.nan_to_num, (input,), {"nan": nan, "posinf": info.max if posinf is None else posinf,
                                             "neginf": info.min if neginf is None else neginf})


def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise _errors_dtypes.clamp_without_bounds()
    if isinstance(min, _tensor.Tensor) or isinstance(max, _tensor.Tensor):
        bounds = [b if b is None or isinstance(b, _tensor.Tensor) else F.scalar_tensor(b, input.dtype)
                  for b in (min, max)]
        return apply(_ops.clamp_tensor, (input, *bounds), {})
    return apply(_ops.clamp, (input,), {"min": min, "max": max})


clip = clamp


def clamp_min(input, min):
    if isinstance(min, _tensor.Tensor):
        return apply(_ops.clamp_min_tensor, (input, min), {})
    return apply(_ops.clamp_min, (input,), {"min": min})


def clamp_max(input, max):
    if isinstance(max, _tensor.Tensor):
        return apply(_ops.clamp_max_tensor, (input, max), {})
    return apply(_ops.clamp_max, (input,), {"max": max})


def _data_of(x):
    return x._data if isinstance(x, _tensor.Tensor) else x


def clamp_mask(t, lo, hi):
    """Where clamp passed its input through (the gradient mask)."""
    data = t._data
    mask = np.ones(data.shape, dtype=np.bool_)
    if lo is not None:
        mask = mask & (data >= _data_of(lo))
    if hi is not None:
        mask = mask & (data <= _data_of(hi))
    return _new_leaf(mask)


def clamp_min_taken(t, lo, hi):
    """Where a tensor lower bound was clamp's value (PyTorch: not where it lost to max)."""
    data, lo = t._data, _data_of(lo)
    mask = data < lo
    if hi is not None:
        mask = mask & (lo < _data_of(hi))
    return _new_leaf(np.asanyarray(mask))


def clamp_max_taken(t, lo, hi):
    """Where a tensor upper bound was clamp's value (including every place where max < min)."""
    data, hi = t._data, _data_of(hi)
    mask = data > hi
    if lo is not None:
        mask = mask | (hi < _data_of(lo))
    return _new_leaf(np.asanyarray(mask))


def threshold_backward(grad, self, threshold):
    return apply(_ops.threshold_backward, (grad, self), {"threshold": threshold})


def tanh_backward(grad_output, output):
    return apply(_ops.tanh_backward, (grad_output, output), _NO_OPTIONS)


def sigmoid_backward(grad_output, output):
    return apply(_ops.sigmoid_backward, (grad_output, output), _NO_OPTIONS)


def tensor_where(self, condition, y):
    """Tensor.where(condition, y): self where condition holds, else y."""
    return where(condition, self, y)


def where(condition, input=None, other=None):
    if not _isinstance(condition, _tensor.Tensor):  # the engine's own isinstance: a script may patch it
        _refuse_where(condition, input, other)
    if input is None:
        return tuple(_new_leaf(i.astype(np.int64)) for i in np.nonzero(condition._data))
    if condition._data.dtype != np.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_dtype_word(condition.dtype)}")
    input, other = _other(input), _other(other)
    K.broadcast_shapes(*(np.shape(getattr(x, "_data", x)) for x in (condition, input, other)))
    return apply(_ops.where, (condition, input, other), {})


def _refuse_where(condition, input, other):
    """PyTorch's parser on a condition that is not a tensor (where(True, x, x)): one
    argument has a single overload to blame, three get the list of overloads."""
    given = [condition] + [v for v in (input, other) if v is not None]
    if len(given) != 3:
        raise _errors.argument_type("where", "condition", 1, "Tensor", _errors.python_type_name(condition))
    raise _errors.where_invalid_arguments([_parser_words(v) for v in given])


def _parser_words(value):
    """(type word, matching word, 'Tensor' or None) as PyTorch's parser describes a value."""
    if isinstance(value, _tensor.Tensor):
        return "Tensor", "Tensor", "Tensor"
    word = _errors.python_type_name(value)
    if isinstance(value, (list, tuple)):
        items = ", ".join(_errors.python_type_name(v) for v in value)
        match = f"list of [{items}]" if isinstance(value, list) else f"tuple of ({items}{',' if len(value) == 1 else ''})"
        return word, match, None
    return word, word, None


def _check_lerp_dtypes(input, end, weight):
    """lerp does not promote: end (and a tensor weight) must have the input's dtype; a 0-d
    weight is read as a number, as ATen reads a CPU scalar."""
    for name, other in (("end", end), ("weight", weight)):
        if isinstance(other, _tensor.Tensor) and other._data.dtype != input._data.dtype and not (
                name == "weight" and other._data.ndim == 0):
            raise RuntimeError(f"expected dtype {_C_TYPE_NAMES[input.dtype.name]} for `{name}` but got dtype "
                               f"{_C_TYPE_NAMES[other.dtype.name]}")


def lerp(input, end, weight):
    _check_lerp_dtypes(input, end, weight)
    if isinstance(weight, _tensor.Tensor):
        return apply(_ops.lerp_tensor, (input, end, weight), {})
    return apply(_ops.lerp, (input, end), {"weight": weight})


def addcmul(input, tensor1, tensor2, *, value=1):
    return apply(_ops.addcmul, (input, tensor1, tensor2), {"value": value})


def addcdiv(input, tensor1, tensor2, *, value=1):
    return apply(_ops.addcdiv, (input, tensor1, tensor2), {"value": value})


def positive(input):
    if input._data.dtype == np.bool_:
        raise _errors_dtypes.positive_of_bool()
    return input


def exp2(input):
    return apply(_ops.exp2, (input,), {})


def logit(input, eps=None):
    return apply(_ops.logit, (input,), {"eps": eps})


def logit_backward(grad, self, eps):
    inside = (self >= eps) & (self <= 1 - eps) if eps is not None else (self >= 0) & (self <= 1)
    outside = 0.0 if eps is not None else _float("nan")
    return where(inside, grad / (self * (1 - self)), outside)


def xlogy(input, other):
    if _is_number(input) and isinstance(other, _tensor.Tensor):
        return apply(_ops.xlogy_scalar_self, (other,), {"self": input})
    if _is_number(other) and isinstance(input, _tensor.Tensor):
        return apply(_ops.xlogy_scalar_other, (input,), {"other": other})
    return apply(_ops.xlogy, (input, other), {})


def hypot(input, other):
    return apply(_ops.hypot, (input, other), {})


def logaddexp(input, other):
    return apply(_ops.logaddexp, (input, other), {})


def float_power(input, exponent):
    """Always in float64 (complex128 for complex inputs), then pow."""
    if _is_number(input):
        input = F.scalar_tensor(input, _dtypes.float64)
    target = _dtypes.complex128 if input.is_complex() else _dtypes.float64
    if isinstance(exponent, _tensor.Tensor):
        exponent = F.to_dtype(exponent, target)
    return pow(F.to_dtype(input, target), exponent)
