"""torch.special's functions under their ATen names (special_erfcx, special_i1...) and their
torch.* / Tensor twins (erfc, i0, sinc, mvlgamma and the in-place forms); ``special.py``
gives them their SciPy-style names. Integer inputs compute in the default float dtype, as
PyTorch's promotion does for these ops. The Bessel functions and orthogonal polynomials
of special record no node: PyTorch gives their results no gradient."""
import math

import numpy as np

from . import _dtypes, _errors_special, _kernels_bessel as KB, _kernels_polynomials as KP, _ops, _ops_special, _tensor
from ._common import _inplace, _int, _is_number, _new_leaf, _out_variant, apply
from ._namespace import F  # the other families' functions, read at call time

_BESSEL = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0", "airy_ai")
_POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
                "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
                "laguerre_polynomial_l", "legendre_polynomial_p")

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "erfc", "erfc_", "sinc", "sinc_", "i0", "i0_", "mvlgamma", "mvlgamma_", "xlogy_", "logit_", "polygamma_",
    "special_erfcx", "special_ndtr", "special_ndtri", "special_log_ndtr", "special_entr", "special_i0e", "special_i1",
    "special_i1e", "special_xlog1py", "special_round", "special_logsumexp",
    "special_bessel_j0", "special_bessel_j1", "special_bessel_y0", "special_bessel_y1",
    "special_modified_bessel_i0", "special_modified_bessel_i1", "special_modified_bessel_k0",
    "special_modified_bessel_k1", "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
    "special_spherical_bessel_j0", "special_airy_ai", "special_chebyshev_polynomial_t",
    "special_chebyshev_polynomial_u", "special_chebyshev_polynomial_v", "special_chebyshev_polynomial_w",
    "special_shifted_chebyshev_polynomial_t", "special_shifted_chebyshev_polynomial_u",
    "special_shifted_chebyshev_polynomial_v", "special_shifted_chebyshev_polynomial_w",
    "special_hermite_polynomial_h", "special_hermite_polynomial_he", "special_laguerre_polynomial_l",
    "special_legendre_polynomial_p",
)
TORCH = ("erfc", "erfc_", "sinc", "sinc_", "i0", "i0_", "mvlgamma", "xlogy_", "logit_")
METHODS = ("erfc", "erfc_", "sinc", "sinc_", "i0", "i0_", "mvlgamma", "mvlgamma_", "xlogy_", "logit_",
           "polygamma_")

_SCALAR_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                      "bool": "Bool"}


def _floating(input):
    """An integer or bool tensor as the default float dtype (it never needs a gradient)."""
    if input._data.dtype.kind in "fcV":
        return input
    return _tensor.Tensor._make(input._data.astype(_dtypes.DEFAULTS.float_dtype.np))


def _float_result(*operands):
    """PyTorch's result dtype of a binary special op, the default float for integers."""
    dtype = _dtypes.result_type([getattr(x, "_data", x) for x in operands])
    return dtype.np if dtype.is_floating_point else _dtypes.DEFAULTS.float_dtype.np


def _unary(op, name):
    def fn(input, *, out=None):
        if out is not None:
            return _out_variant(name, out, (input,), lambda: fn(input))
        return apply(op, (_floating(input),), {})
    fn.__name__ = fn.__qualname__ = name
    return fn


def _inplace_unary(op, name):
    def fn(self):
        return _inplace(op, self, (self,), {})
    fn.__name__ = fn.__qualname__ = name
    return fn


erfc, erfc_ = _unary(_ops_special.erfc, "erfc"), _inplace_unary(_ops_special.erfc, "erfc_")
sinc, sinc_ = _unary(_ops_special.sinc, "sinc"), _inplace_unary(_ops_special.sinc, "sinc_")
i0, i0_ = _unary(_ops_special.i0, "i0"), _inplace_unary(_ops_special.i0, "i0_")
special_erfcx = _unary(_ops_special.erfcx, "special_erfcx")
special_ndtri = _unary(_ops_special.ndtri, "special_ndtri")
special_log_ndtr = _unary(_ops_special.log_ndtr, "special_log_ndtr")
special_entr = _unary(_ops_special.entr, "special_entr")
special_i0e = _unary(_ops_special.i0e, "special_i0e")
special_i1 = _unary(_ops_special.i1, "special_i1")
special_i1e = _unary(_ops_special.i1e, "special_i1e")


def special_ndtr(input, *, out=None):
    """The normal CDF, as ATen composes it: (1 + erf(x / sqrt 2)) * 0.5 (three nodes)."""
    if out is not None:
        return _out_variant("special_ndtr", out, (input,), lambda: special_ndtr(input))
    scaled = F.scalar_mul(_floating(input), math.sqrt(0.5))
    return F.scalar_mul(F.scalar_add(F.erf(scaled), 1), 0.5)


def mvlgamma(input, p):
    p = _int(p)
    if p < 1:
        raise _errors_special.mvlgamma_order(p)
    return apply(_ops_special.mvlgamma, (_floating(input),), {"p": p})


def mvlgamma_(self, p):
    p = _int(p)
    if p < 1:
        raise _errors_special.mvlgamma_order(p)
    return _inplace(_ops_special.mvlgamma, self, (self,), {"p": p})


def xlogy_(self, other):
    if not isinstance(other, _tensor.Tensor):
        return _inplace(_ops.xlogy_scalar_other, self, (self,), {"other": other})
    return _inplace(_ops.xlogy, self, (self, other), {})


def logit_(self, eps=None):
    return _inplace(_ops.logit, self, (self,), {"eps": eps})


def polygamma_(self, n):
    return _inplace(_ops_special.polygamma_inplace, self, (self,), {"n": _int(n)})


def special_xlog1py(input, other, *, out=None):
    if out is not None:
        return _out_variant("special_xlog1py", out, (input, other), lambda: special_xlog1py(input, other))
    dtype = _float_result(input, other)
    if _is_number(input):
        return apply(_ops_special.xlog1py_scalar_self, (other,), {"self": input, "dtype": dtype})
    if _is_number(other):
        return apply(_ops_special.xlog1py_scalar_other, (input,), {"other": other, "dtype": dtype})
    return apply(_ops_special.xlog1py, (input, other), {"dtype": dtype})


def special_round(input, *, decimals=0, out=None):
    """special.round always passes decimals: RoundBackward1, and no integer kernel."""
    if out is not None:
        return _out_variant("special_round", out, (input,), lambda: special_round(input, decimals=decimals))
    kind = input._data.dtype
    if kind.kind in "biu":
        raise _errors_special.round_integer_input(_SCALAR_TYPE_NAMES.get(kind.name, kind.name))
    return apply(_ops.round_decimals, (input,), {"decimals": _int(decimals)})


def special_logsumexp(input, dim, keepdim=False, *, out=None):
    return F.logsumexp(input, dim, keepdim) if out is None else F.logsumexp(input, dim, keepdim, out=out)


# ----- no gradient: the Bessel functions and the orthogonal polynomials ------------------------
def _without_gradient(name, compute):
    """A function whose result PyTorch gives no node and no requires_grad, whatever its inputs."""
    def fn(*args, out=None):
        result = _new_leaf(np.ascontiguousarray(compute(*args)))
        if out is None:
            return result
        return _out_variant(name, out, (), lambda: result)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _bessel(name):
    kernel = getattr(KB, name)
    return _without_gradient("special_" + name, lambda input: kernel(input._data))


def _polynomial(name):
    """f(input, n): either may be a Python number; n is truncated to an integer per element."""
    if "chebyshev" in name:
        kind, shifted = name[-1], name.startswith("shifted")
        kernel = lambda x, n, dtype: KP.chebyshev_polynomial(x, n, kind=kind, shifted=shifted, dtype=dtype)  # noqa: E731
    else:
        kernel = lambda x, n, dtype, _f=getattr(KP, name): _f(x, n, dtype=dtype)  # noqa: E731

    def compute(input, n):
        dtype = _float_result(input, n)
        return kernel(getattr(input, "_data", input), getattr(n, "_data", n), np.dtype(dtype))
    return _without_gradient("special_" + name, compute)


for _name in _BESSEL:
    globals()["special_" + _name] = _bessel(_name)
for _name in _POLYNOMIALS:
    globals()["special_" + _name] = _polynomial(_name)
del _name
