"""Where a gradient stored in ``.grad`` lies in memory (its strides), by PyTorch's "gradient
layout contract" (torch/csrc/autograd/utils/grad_layout_contract.h, applied by
AccumulateGrad): a parameter's gradient is laid out as the parameter is, so that an
optimizer walks both in the same order. ``p.grad.stride()`` and ``p.grad.view(-1)`` show it.
"""
import numpy as np

from .._kernels import contiguous_strides
from . import policies


def element_strides(array):
    """The strides PyTorch reports, in elements (an empty array's are contiguous ones)."""
    if array.size == 0:
        return contiguous_strides(array.shape)
    return tuple(s // array.itemsize for s in array.strides)


def non_overlapping_and_dense(shape, strides):
    """c10's is_non_overlapping_and_dense: the elements fill a block of memory exactly once,
    in some order of the dims (size-1 dims, whose strides are never used, in any)."""
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == 1
    step = 1
    for dim in sorted(range(len(shape)), key=lambda d: (shape[d] < 2, strides[d])):
        if shape[dim] < 2:
            return True  # the rest are size 0 or 1 too (sorted last)
        if strides[dim] != step:
            return False
        step *= shape[dim]
    return True


def obeys_layout_contract(grad, variable):
    """utils::obeys_layout_contract: the gradient's strides are the variable's wherever a
    dim has more than one element (and no size-1 dim is a broadcast, stride 0); for a
    variable that is not dense, the gradient is row-major contiguous."""
    if grad.strides == variable.strides and variable.flags.c_contiguous and 0 not in grad.strides:
        return True  # the common case, without the walk: a row-major parameter, a row-major gradient
    variable_strides = element_strides(variable)
    if not non_overlapping_and_dense(variable.shape, variable_strides):
        return grad.flags.c_contiguous
    for size, grad_stride, variable_stride in zip(grad.shape, element_strides(grad), variable_strides):
        if (grad_stride != variable_stride) if size != 1 else grad_stride == 0:
            return False
    return True


def empty_like_variable(variable, dtype=None):
    """utils::clone_obey_contract's destination: an empty array with the variable's strides
    when it is dense, else a row-major one."""
    strides = element_strides(variable)
    if not non_overlapping_and_dense(variable.shape, strides):
        return np.empty(variable.shape, dtype or variable.dtype)
    return _empty_strided(variable.shape, strides, dtype or variable.dtype)


def stored_grad(grad, variable):
    """A fresh copy of the array ``grad`` laid out as AccumulateGrad stores a first gradient:
    PyTorch takes the incoming gradient itself when it obeys the contract (so its strides
    stay), and otherwise copies it into the variable's layout; with the layout policy relaxed
    (enforce_grad_layout_policy(False)) it keeps the gradient's own layout, as a stolen one."""
    if variable.flags.c_contiguous and 0 not in variable.strides and (
            grad.strides == variable.strides or 0 in grad.strides):
        # The common cases, without the walks: a row-major parameter and a gradient either laid
        # out as it is (it obeys) or broadcast (a stride 0: it does not); both end row-major.
        out = np.array(grad, order="C")
        if out.strides == variable.strides:
            return out
    if not policies.SWITCHES.grad_layout_enforced or obeys_layout_contract(grad, variable):
        out = _empty_strided(grad.shape, element_strides(grad), grad.dtype)
    else:
        out = empty_like_variable(variable, grad.dtype)
    out[...] = grad
    return out


def _empty_strided(shape, strides, dtype):
    """An uninitialised array of ``shape`` with these (dense) element strides."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    if count == 0:
        return np.empty(shape, dtype)
    buffer = np.empty(count, dtype)
    return np.lib.stride_tricks.as_strided(buffer, shape, tuple(s * dtype.itemsize for s in strides))
