"""The few ATen CPU kernels the optimizers' single-tensor updates are written in, as they
round. Measured against PyTorch 2.13 bit for bit (float32 and float64, vector bodies and
tails alike): the compiled kernels fuse the multiply and the add of

- ``add(a, b, alpha=s)``: ``fma(s, b, a)`` (plain ``a + b`` when alpha is 1),
- ``addcmul(a, b, c, value=s)``: ``fma(s * b, c, a)``,
- ``lerp(a, end, w)``: ``fma(w, end - a, a)`` for ``|w| < 0.5``, else
  ``fma(-(end - a), 1 - w, end)`` with ``1 - w`` in the tensor's dtype,

while ``addcdiv(a, b, c, value=s)`` is ``a + (s * b) / c`` with no fusing. Each in-place
helper writes into the tensor's own storage and bumps its version as the ATen op does.
What these cannot reach: ``sqrt`` of a contiguous tensor goes to MKL's VML in PyTorch,
which is not correctly rounded (about one float32 in six is one ulp off); numpy's
``sqrt`` here is.
"""
import numpy as np

from .. import _libm
from .optimizer import bump, scalar


def fma(a, b, c):
    """a * b + c rounded once, in the dtype of c's array (float32 or float64); other
    dtypes (half precision) in two roundings."""
    dtype = np.result_type(np.asarray(c).dtype, np.asarray(b).dtype)
    if dtype == np.float32:
        if np.ndim(a) == np.ndim(b) == np.ndim(c) == 0:
            # _libm's halfway redo indexes its arrays, which a 0-dim array cannot be
            return _libm.fused_multiply_add32(np.reshape(a, 1), np.reshape(b, 1), np.reshape(c, 1)).reshape(())
        return _libm.fused_multiply_add32(a, b, c)
    if dtype == np.float64:
        return _libm.fused_multiply_add(a, b, c)
    return np.asarray(a * b + c, dtype=dtype)


def add(a, b, alpha=1):
    """torch.add(a, b, alpha=alpha) on arrays."""
    if alpha == 1:
        return a + b
    return fma(scalar(alpha, a), b, a)


def add_(t, b, alpha=1):
    t._data[...] = add(t._data, b, alpha)
    bump(t)


def mul_(t, value):
    t._data *= scalar(value, t._data)
    bump(t)


def addcmul(a, b, c, value=1):
    return fma(scalar(value, a) * b, c, a)


def addcmul_(t, b, c, value=1):
    t._data[...] = addcmul(t._data, b, c, value)
    bump(t)


def addcdiv_(t, b, c, value=1):
    a = t._data
    a[...] = a + (scalar(value, a) * b) / c
    bump(t)


def lerp_(t, end, weight):
    a = t._data
    diff = end - a
    if abs(weight) < 0.5:
        a[...] = fma(scalar(weight, a), diff, a)
    else:
        a[...] = fma(-diff, scalar(1, a) - scalar(weight, a), end)
    bump(t)
