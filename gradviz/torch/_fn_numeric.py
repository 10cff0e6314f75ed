"""Elementwise functions beyond _fn_pointwise's: the inverse hyperbolics, angle conversions,
the float-bit functions (copysign, nextafter, ldexp, frexp, signbit), fmax / fmin,
logaddexp2, heaviside, the tests isneginf / isposinf / isreal, and the integer ones (gcd, lcm,
the bitwise operations); with their in-place forms."""
import numpy as np

from . import _dtypes, _ops_pointwise as P, _tensor
from ._kernels import default_float
from ._common import _dtype_word, _inplace, _is_number, _new_leaf, _return_type, apply
from ._namespace import F  # the other families' functions, read at call time

EXPORTS = (
    "acosh", "asinh", "atanh", "arccosh", "arcsinh", "arctanh", "acosh_", "asinh_", "atanh_", "arccosh_", "arcsinh_",
    "arctanh_", "deg2rad", "rad2deg", "deg2rad_", "rad2deg_", "copysign", "copysign_", "fmax", "fmin", "ldexp",
    "ldexp_", "logaddexp2", "nextafter", "nextafter_", "frexp", "heaviside", "heaviside_", "signbit", "isneginf",
    "isposinf", "isreal", "gcd", "gcd_", "lcm", "lcm_", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_left_shift", "bitwise_right_shift", "bitwise_and_", "bitwise_or_", "bitwise_xor_",
    "bitwise_left_shift_", "bitwise_right_shift_", "bitwise_not_",
)
TORCH = (
    "acosh", "asinh", "atanh", "arccosh", "arcsinh", "arctanh", "acosh_", "asinh_", "atanh_", "arccosh_", "arcsinh_",
    "arctanh_", "deg2rad", "rad2deg", "deg2rad_", "rad2deg_", "copysign", "fmax", "fmin", "ldexp", "ldexp_",
    "logaddexp2", "nextafter", "frexp", "heaviside", "signbit", "isneginf", "isposinf", "isreal", "gcd", "gcd_", "lcm",
    "lcm_", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
)
METHODS = EXPORTS


def _floating(input):
    """An integer or bool tensor as the default float dtype, as PyTorch's float ops promote it."""
    if input._data.dtype.kind in "fcV":
        return input
    return F.to_dtype(input, _dtypes.FROM_NUMPY[default_float()])


def _unary(op, name):
    def fn(input):
        return apply(op, (input,), {})  # an integer input is the op's to promote (Op.integers)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _unary_(op, name):
    def fn(self):
        return _inplace(op, self, (self,), {})
    fn.__name__ = fn.__qualname__ = name
    return fn


acosh = arccosh = _unary(P.acosh, "acosh")
asinh = arcsinh = _unary(P.asinh, "asinh")
atanh = arctanh = _unary(P.atanh, "atanh")
acosh_ = arccosh_ = _unary_(P.acosh_inplace, "acosh_")
asinh_ = arcsinh_ = _unary_(P.asinh_inplace, "asinh_")
atanh_ = arctanh_ = _unary_(P.atanh_inplace, "atanh_")
deg2rad = _unary(P.deg2rad, "deg2rad")
rad2deg = _unary(P.rad2deg, "rad2deg")
deg2rad_ = _unary_(P.deg2rad, "deg2rad_")
rad2deg_ = _unary_(P.rad2deg, "rad2deg_")


def copysign(input, other):
    if _is_number(other):
        return apply(P.copysign_scalar, (_floating(input),), {"other": other})
    return apply(P.copysign, (_floating(input), other), {})


def copysign_(self, other):
    if _is_number(other):
        return _inplace(P.copysign_scalar, self, (self,), {"other": other})
    return _inplace(P.copysign, self, (self, other), {})


def fmax(input, other):
    return apply(P.fmax, (input, other), {})


def fmin(input, other):
    return apply(P.fmin, (input, other), {})


def ldexp(input, other):
    return apply(P.ldexp, (input, other), {})


def ldexp_(self, other):
    return _inplace(P.ldexp, self, (self, other), {})


def logaddexp2(input, other):
    return apply(P.logaddexp2, (input, other), {})


def nextafter(input, other):
    return apply(P.nextafter, (input, other), {})


def nextafter_(self, other):
    return _inplace(P.nextafter, self, (self, other), {})


FrexpResult = _return_type("frexp")


def frexp(input):
    if input._data.dtype.kind not in "fV":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = apply(P.frexp, (input,), {})
    return FrexpResult(mantissa, exponent)


def heaviside(input, values):
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return apply(P.heaviside, (input, values), {})


def heaviside_(self, values):
    if self.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _inplace(P.heaviside_inplace, self, (self, values), {})


def signbit(input):
    return _new_leaf(np.signbit(input._data))


def isneginf(input):
    return _new_leaf(np.isneginf(input._data) if input._data.dtype.kind == "f" else np.zeros(input._data.shape, bool))


def isposinf(input):
    return _new_leaf(np.isposinf(input._data) if input._data.dtype.kind == "f" else np.zeros(input._data.shape, bool))


def isreal(input):
    data = input._data
    return _new_leaf(np.imag(data) == 0 if data.dtype.kind == "c" else np.ones(data.shape, bool))


# ---------------------------------------------------------------------------------------
# integer and bitwise operations: never differentiable, only for integer (and bool) tensors
_BITWISE_NAMES = {"bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
                  "bitwise_left_shift": "lshift", "bitwise_right_shift": "rshift", "gcd": "gcd", "lcm": "lcm"}


def _integer_operands(name, input, other):
    a = input._data if isinstance(input, _tensor.Tensor) else np.asarray(input)
    b = other._data if isinstance(other, _tensor.Tensor) else np.asarray(other, dtype=None if isinstance(
        other, float) else a.dtype)
    for array in (a, b):
        if array.dtype.kind in "fcV":
            raise NotImplementedError(f'"{_BITWISE_NAMES[name]}_cpu" not implemented for \'{_dtype_word(array.dtype)}\'')
    return a, b


def _integer_function(name, ufunc):
    def fn(input, other):
        a, b = _integer_operands(name, input, other)
        return _new_leaf(np.asarray(ufunc(a, b)))

    def fn_(self, other):
        a, b = _integer_operands(name, self, other)
        np.copyto(self._data, ufunc(a, b), casting="unsafe")
        self._vbox[0] += 1
        return self
    fn.__name__ = fn.__qualname__ = name
    fn_.__name__ = fn_.__qualname__ = name + "_"
    return fn, fn_


def _shift(ufunc):
    """A shift by the operand's bit width or more gives zero (a right shift, the sign) in PyTorch."""
    def shifted(a, b):
        bits = a.dtype.itemsize * 8
        wide = (b < 0) | (b >= bits)
        out = ufunc(a, np.where(wide, 0, b).astype(a.dtype, copy=False))
        if ufunc is np.right_shift:
            return np.where(wide, np.where(a < 0, -1, 0).astype(a.dtype), out)
        return np.where(wide, 0, out).astype(out.dtype, copy=False)
    return shifted


gcd, gcd_ = _integer_function("gcd", np.gcd)
lcm, lcm_ = _integer_function("lcm", np.lcm)
bitwise_and, bitwise_and_ = _integer_function("bitwise_and", np.bitwise_and)
bitwise_or, bitwise_or_ = _integer_function("bitwise_or", np.bitwise_or)
bitwise_xor, bitwise_xor_ = _integer_function("bitwise_xor", np.bitwise_xor)
bitwise_left_shift, bitwise_left_shift_ = _integer_function("bitwise_left_shift", _shift(np.left_shift))
bitwise_right_shift, bitwise_right_shift_ = _integer_function("bitwise_right_shift", _shift(np.right_shift))


def bitwise_not_(self):
    if self._data.dtype.kind in "fcV":
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{_dtype_word(self._data.dtype)}'")
    np.invert(self._data, out=self._data)
    self._vbox[0] += 1
    return self
