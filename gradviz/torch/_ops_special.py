"""Op-table entries for torch.special's functions (and their torch.* / Tensor twins: erfc, i0,
sinc, mvlgamma...): the same ``Op`` rules as ``_ops`` (PyTorch's node name, a numpy forward,
one formula per differentiable input as derivatives.yaml writes it, in engine ops).

The Bessel functions of special (bessel_j0, modified_bessel_k1, airy_ai...) and the
orthogonal polynomials have no entry: PyTorch gives their results no gradient at all (no
node, requires_grad False), and so does ``_fn_special``."""
import math

import numpy as np

from . import _kernels_bessel as KB
from . import _kernels_special as KS
from ._namespace import F
from ._ops import Op

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)


def _divided_by_x_backward(grad, self, result, lead, shift):
    """I1' = I0 - I1 / x (and its scaled form), with PyTorch's guard: where |x| is at most the
    dtype's epsilon the derivative is its limit 1/2 (i1_backward, i1e_backward)."""
    eps = float(np.finfo(self._data.dtype).eps)
    not_tiny = self.abs() > eps
    safe = F.where(not_tiny, self, F.full((), eps, dtype=self.dtype))
    return grad * F.where(not_tiny, lead(safe) - result * shift(safe), F.full((), 0.5, dtype=self.dtype))


def _sinc_backward(grad, self):
    self_pi = self * math.pi
    self_squared_pi = self * self * math.pi
    out = grad * ((self_pi * self_pi.cos() - self_pi.sin()) / self_squared_pi)
    return F.where(self_squared_pi == 0, F.zeros_like(grad), out)


def _mvlgamma_backward(grad, self, p):
    args = F.arange(-p / 2.0 + 0.5, 0.5, 0.5, dtype=self.dtype)
    return grad * (args + self.unsqueeze(-1)).digamma().sum(-1)


erfc = Op("ErfcBackward0", lambda self: KS.erfc_array(self),
          self=lambda grad, self: F.scalar_mul(F.exp(-(self.pow(2))), -_TWO_OVER_SQRT_PI) * grad)
erfcx = Op("SpecialErfcxBackward0", lambda self: KS.erfcx_array(self),
           self=lambda grad, self, result: (2.0 * self * result - _TWO_OVER_SQRT_PI) * grad)
ndtri = Op("SpecialNdtriBackward0", lambda self: KS.ndtri_array(self),
           self=lambda grad, result: grad * _SQRT_2PI * (result.square() / 2).exp())
log_ndtr = Op("SpecialLogNdtrBackward0", lambda self: KS.log_ndtr_array(self),
              self=lambda grad, self, result: grad / _SQRT_2PI * (result + self.pow(2) / 2).neg().exp())
sinc = Op("SincBackward0", lambda self: KS.sinc_array(self), self=_sinc_backward)
entr = Op("SpecialEntrBackward0", lambda self: KS.entr_array(self),
          self=lambda grad, self: grad * (-(1 + self.log())))
i0 = Op("I0Backward0", lambda self: KB.i0(self), self=lambda grad, self: grad * F.special_i1(self))
i0e = Op("SpecialI0EBackward0", lambda self: KB.i0e(self),
         self=lambda grad, self, result: grad * (F.special_i1e(self) - self.sgn() * result))
i1 = Op("SpecialI1Backward0", lambda self: KB.i1(self),
        self=lambda grad, self, result: _divided_by_x_backward(grad, self, result, F.i0, F.reciprocal))
i1e = Op("SpecialI1EBackward0", lambda self: KB.i1e(self),
         self=lambda grad, self, result: _divided_by_x_backward(
             grad, self, result, F.special_i0e, lambda x: x.sgn() + x.reciprocal()))
mvlgamma = Op("MvlgammaBackward0", lambda self, *, p: KS.mvlgamma_array(self, p), self=_mvlgamma_backward)

# x log1p(y): PyTorch's three overloads, each with its node (a Python number on either side)
xlog1py = Op("SpecialXlog1PyBackward0", lambda self, other, *, dtype: KS.xlog1py_array(self, other, dtype=dtype),
             promotes=True,
             self=lambda grad, self, other: F.special_xlog1py(grad, other).masked_fill((self == 0.) & (other <= -1.), 0.),
             other=lambda grad, self, other: grad * self / (other + 1))
xlog1py_scalar_self = Op("SpecialXlog1PyBackward1",
                         lambda other, *, self, dtype: KS.xlog1py_array(self, other, dtype=dtype),
                         other=lambda grad, self, other: grad * self / (other + 1))
xlog1py_scalar_other = Op("SpecialXlog1PyBackward2",
                          lambda self, *, other, dtype: KS.xlog1py_array(self, other, dtype=dtype),
                          self=lambda grad, self, other: F.special_xlog1py(grad, other) if other > -1.0
                          else F.special_xlog1py(grad, other).masked_fill(self == 0., 0.))
# Tensor.polygamma_(n): ATen's in-place overload, a node of its own name
polygamma_inplace = Op("PolygammaBackward1", lambda self, *, n: KS.polygamma_array(n, self),
                       self=lambda grad, n, self: grad * F.polygamma(n + 1, self))
