"""float32 exp, expm1 and tanh as PyTorch's CPU kernels round them: the exact value rounded
once to float32. ATen hands these to vectorised math (MKL's VML, SLEEF's 1.0-ULP
versions) accurate to well under an ulp, so their float32 results are the correctly rounded
ones on all but about one input in a hundred (exp) or a thousand (expm1, tanh); numpy's own
float32 approximations differ from them in the last bit on a tenth to a third of inputs,
which a few steps of training with a large learning rate make visible. (Kernels that call
SLEEF's vector functions themselves, softplus's exp for one, keep numpy's, which agree with
SLEEF more often; docs/limits.md has the fractions.) The float64 function rounded to
float32 is the exact value rounded once, but for the vanishing set of inputs whose float64
result lands on a float32 halfway point.

Other dtypes (float64, complex, integers promoted elsewhere) and the meta device's
placeholders go to numpy unchanged: float64 is numpy's libm, as PyTorch's is, and a
placeholder has no values to round."""
import numpy as np


def _rounded_from_float64(function, _float32=np.dtype(np.float32), _float64=np.dtype(np.float64), _array=np.ndarray):
    # The kernel is the op's forward itself (its input is ``self``): one frame less per op, and it
    # reads only its closure (tanh runs for a quarter of W1's ops). exp(89) overflows to inf in the
    # cast, as in PyTorch; the engine's filter (float_noise) keeps it quiet.
    def kernel(self):
        if self.dtype is _float32 and type(self) is _array:
            return function(self.astype(_float64)).astype(_float32)
        return function(self)
    kernel.__name__ = kernel.__qualname__ = function.__name__ + "_float32"
    return kernel


exp_array = _rounded_from_float64(np.exp)
expm1_array = _rounded_from_float64(np.expm1)
tanh_array = _rounded_from_float64(np.tanh)
