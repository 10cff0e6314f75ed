"""The op table, continued: elementwise ops beyond _ops.py's (inverse hyperbolics, angle
conversions, copysign, fmax / fmin, ldexp, logaddexp2, nextafter, frexp, heaviside) and the
nodes of in-place comparisons. Same rules as _ops.py: PyTorch's node name, the forward on
numpy arrays, one formula per differentiable input (derivatives.yaml's)."""
import numpy as np

from . import _kernels as K
from ._kernels import default_float
from ._namespace import F
from ._ops import Op, derivative_not_implemented, not_implemented

_RADIANS_PER_DEGREE = np.pi / 180
_DEGREES_PER_RADIAN = 180 / np.pi


def _times_constant(x, constant):
    """x times a constant rounded to x's dtype first, as ATen multiplies by a wrapped scalar."""
    return np.multiply(x, np.asarray(constant, dtype=x.dtype))


acosh = Op("AcoshBackward0", np.arccosh, self=lambda grad, self: grad * F.scalar_add(self * self, -1).rsqrt())
asinh = Op("AsinhBackward0", np.arcsinh, self=lambda grad, self: grad * F.scalar_add(self.pow(2), 1).rsqrt())
atanh = Op("AtanhBackward0", np.arctanh, self=lambda grad, self: grad / F.scalar_add(-self.pow(2), 1))
# derivatives.yaml leaves the in-place inverse hyperbolics unimplemented: backward refuses.
acosh_inplace = Op("AcoshBackward1", np.arccosh,
                   self=lambda grad: derivative_not_implemented("inplace version of acosh"))
asinh_inplace = Op("AsinhBackward1", np.arcsinh,
                   self=lambda grad: derivative_not_implemented("inplace version of asinh"))
atanh_inplace = Op("AtanhBackward1", np.arctanh,
                   self=lambda grad: derivative_not_implemented("inplace version of atanh"))
deg2rad = Op("Deg2RadBackward0", lambda self: _times_constant(self, _RADIANS_PER_DEGREE), integers="float",
             self=lambda grad: F.scalar_mul(grad, _RADIANS_PER_DEGREE))
rad2deg = Op("Rad2DegBackward0", lambda self: _times_constant(self, _DEGREES_PER_RADIAN), integers="float",
             self=lambda grad: F.scalar_mul(grad, _DEGREES_PER_RADIAN))


def copysign_self_backward(grad, self, result):
    """copysign_tensor_self_backward: result / self, zero where self is zero."""
    return grad * F.masked_fill(result / self, self == 0, 0)


copysign = Op("CopysignBackward0", lambda self, other: np.copysign(self, other), promotes=True,
              self=lambda grad, self, result: copysign_self_backward(grad, self, result),
              other=lambda grad, other: F.zeros_like(other))
copysign_scalar = Op("CopysignBackward1",
                     lambda self, *, other: np.copysign(self, np.asarray(other, dtype=self.dtype)),
                     self=lambda grad, self, result: copysign_self_backward(grad, self, result))
fmax = Op("FmaxBackward0", lambda self, other: K.extreme_of_two(np.fmax, self, other, vector_keeps_b=False), promotes=True,
          self=lambda grad, self, other: grad.masked_fill(((self >= other) | other.isnan()).logical_not(), 0),
          other=lambda grad, self, other: grad.masked_fill((self >= other) | other.isnan(), 0))
fmin = Op("FminBackward0", lambda self, other: K.extreme_of_two(np.fmin, self, other, vector_keeps_b=False), promotes=True,
          self=lambda grad, self, other: grad.masked_fill(((self <= other) | other.isnan()).logical_not(), 0),
          other=lambda grad, self, other: grad.masked_fill((self <= other) | other.isnan(), 0))


def _ldexp_array(self, other):
    """ATen's ldexp: self * pow(2., other), the power in other's float dtype (the default one
    for an integer exponent)."""
    kind = other.dtype if other.dtype.kind in "fc" else default_float()
    return np.multiply(self, np.power(np.asarray(2.0, dtype=kind), other.astype(kind, copy=False)))


ldexp = Op("LdexpBackward0", _ldexp_array, promotes=True,
           self=lambda grad, other: grad * F.pow(2.0, other),
           other=lambda grad, result: F.scalar_mul(grad * result, 0.6931471805599453))
logaddexp2 = Op("Logaddexp2Backward0", lambda self, other: np.logaddexp2(self, other), promotes=True,
                self=lambda grad, self, other: grad / F.scalar_add(F.pow(2.0, other - self), 1),
                other=lambda grad, self, other: grad / F.scalar_add(F.pow(2.0, self - other), 1))
nextafter = Op("NextafterBackward0", lambda self, other: np.nextafter(self, other), promotes=True,
               self=lambda grad, self, other: F.where(self != other, grad, 0.0),
               other=lambda grad, other: F.zeros_like(other))
frexp = Op("FrexpBackward0", lambda self: _frexp_arrays(self), multi_output=True,
           self=lambda grads, result1: grads[0] / result1.exp2())


def _frexp_arrays(x):
    mantissa, exponent = np.frexp(x)
    return mantissa.astype(x.dtype, copy=False), exponent.astype(np.int32, copy=False)


heaviside = Op("NotImplemented", lambda self, values: np.heaviside(self, values).astype(self.dtype, copy=False),
               self=lambda grad: not_implemented("heaviside"), values=lambda grad: not_implemented("heaviside"))


# ---------------------------------------------------------------------------------------
# in-place comparisons (x.eq_(y)): the boolean result written in x's dtype; the gradient is zero
def _comparison_ops(name, ufunc):
    scalar = Op(f"{name}Backward0", lambda self, *, other: ufunc(self, other), self=lambda grad: F.zeros_like(grad))
    tensor = Op(f"{name}Backward1", lambda self, other: ufunc(self, other), self=lambda grad: F.zeros_like(grad),
                other=lambda grad, other: F.zeros_like(other))
    return scalar, tensor


eq_scalar, eq_tensor = _comparison_ops("Eq", np.equal)
ne_scalar, ne_tensor = _comparison_ops("Ne", np.not_equal)
lt_scalar, lt_tensor = _comparison_ops("Lt", np.less)
le_scalar, le_tensor = _comparison_ops("Le", np.less_equal)
gt_scalar, gt_tensor = _comparison_ops("Gt", np.greater)
ge_scalar, ge_tensor = _comparison_ops("Ge", np.greater_equal)

# In-place forms whose backward names the in-place op
floor_divide_inplace = Op("NotImplemented", lambda self, other: K.rounded_divide(self, other, "floor"), promotes=True,
                          self=lambda grad: not_implemented("floor_divide_"),
                          other=lambda grad: not_implemented("floor_divide_"))
heaviside_inplace = Op("NotImplemented", lambda self, values: np.heaviside(self, values).astype(self.dtype, copy=False),
                       self=lambda grad: not_implemented("heaviside_"), values=lambda grad: not_implemented("heaviside_"))
