"""Linear algebra: mm, mv, dot, bmm, addmm and matmul (PyTorch's _matmul_impl: folded into one
mm / mv, or expanded to one bmm), outer and trace."""
import builtins

import numpy as np

from . import _errors, _errors_dtypes, _kernels as K, _ops, _tensor
from ._common import _C_TYPE_NAMES, _dtype_word, _int, _max, _out_variant, apply
from ._namespace import F  # the other families' functions, read at call time

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "mm", "mv", "dot", "bmm", "addmm", "matmul", "outer", "ger", "trace",
)
TORCH = (
    "mm", "mv", "dot", "bmm", "addmm", "matmul", "outer", "trace", "ger",
)
METHODS = EXPORTS  # every one of them is a Tensor method too


def mm(input, mat2, *, out=None):
    if out is not None:
        return _out_variant("mm", out, (input, mat2), lambda: mm(input, mat2))
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    K.check_mm(input._data, mat2._data)
    _check_same_dtype(input, mat2, "mm")
    return apply(_ops.mm, (input, mat2), {
        "self_sym_sizes": input._data.shape, "self_sym_strides": _strides_for_grad(input),
        "mat2_sym_sizes": mat2._data.shape, "mat2_sym_strides": _strides_for_grad(mat2)})


def _strides_for_grad(t):
    """What mm's node keeps of an operand's layout (PyTorch's strides_or_error): its
    strides when it requires grad, its gradient's layout follows them; else ()."""
    return t.stride() if t._requires_grad else ()


def _check_same_dtype(a, b, what):
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_C_TYPE_NAMES[a.dtype.name]} != "
                           f"{_C_TYPE_NAMES[b.dtype.name]}")


def mv(input, vec, *, out=None):
    if out is not None:
        return _out_variant("mv", out, (input, vec), lambda: mv(input, vec))
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise _errors.mv_dims(input._data.ndim, vec._data.ndim)
    if input._data.dtype != vec._data.dtype:  # mv's result takes the vector's dtype
        raise _errors.addmv_dtypes(*(_dtype_word(d) for d in (vec.dtype, input.dtype, vec.dtype)))
    if input._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0]}), mat ({input._data.shape[0]}x"
                           f"{input._data.shape[1]}), vec ({vec._data.shape[0]})")
    return apply(_ops.mv, (input, vec), {})


def dot(input, tensor, *, out=None):
    if out is not None:
        return _out_variant("dot", out, (input, tensor), lambda: dot(input, tensor))
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise _errors.dot_dims(input._data.ndim, tensor._data.ndim)
    if input._data.dtype != tensor._data.dtype:
        raise _errors.dot_dtypes(_dtype_word(input.dtype), _dtype_word(tensor.dtype))
    if input._data.shape != tensor._data.shape:
        raise RuntimeError("inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of "
                           "elements, but got {} and {} elements respectively".format(
                               input._data.size, tensor._data.size, input._data.size, tensor._data.size))
    return apply(_ops.dot, (input, tensor), {})


def bmm(input, mat2, *, out=None):
    if out is not None:
        return _out_variant("bmm", out, (input, mat2), lambda: bmm(input, mat2))
    for name, t in (("batch1", input), ("batch2", mat2)):
        if t._data.ndim != 3:
            raise _errors.bmm_not_3d(name)
    batch, n, k = input._data.shape
    if mat2._data.shape[:2] != (batch, k):
        raise _errors.bmm_batch2_size((batch, k), mat2._data.shape[:2])
    if input._data.dtype != mat2._data.dtype:
        raise _errors.scalar_type_mismatch(_dtype_word(input.dtype), _dtype_word(mat2.dtype))
    return apply(_ops.bmm, (input, mat2), {})


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    if out is not None:
        return _out_variant("addmm", out, (input, mat1, mat2), lambda: addmm(input, mat1, mat2, beta=beta, alpha=alpha))
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if t._data.ndim != 2:
            raise _errors.not_a_matrix(name, t._data.ndim)
    K.check_mm(mat1._data, mat2._data)
    for name, t in (("self", input), ("mat1", mat1)):  # ATen checks the bias first
        if isinstance(t, _tensor.Tensor) and t._data.dtype != mat2._data.dtype:
            raise _errors.same_dtype(name, "mat2", _dtype_word(t.dtype), _dtype_word(mat2.dtype))
    F._check_expand(input._data.shape, (mat1._data.shape[0], mat2._data.shape[1]))
    return apply(_ops.addmm, (input, mat1, mat2), {"beta": beta, "alpha": alpha,
                                                   "mat1_sym_strides": _strides_for_grad(mat1),
                                                   "mat2_sym_strides": _strides_for_grad(mat2)})


def matmul(input, other, *, out=None):
    """PyTorch's _matmul_impl: dot / mv / mm for 1-D and 2-D operands; a 3-D+ operand against
    a 1-D or 2-D one is folded into one mm or mv when PyTorch folds it (see _should_fold);
    everything else is expanded to a common batch and goes through one bmm."""
    if out is not None:
        return _out_variant("matmul", out, (input, other), lambda: matmul(input, other))
    a, b = input._data.ndim, other._data.ndim
    if a == 0 or b == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a}D and {b}D")
    if a == 1 and b == 1:
        return dot(input, other)
    if a == 2 and b == 1:
        return mv(input, other)
    if a == 1 and b == 2:
        return _squeeze_result(mm(F.unsqueeze(input, 0), other), 0)
    if a == 2 and b == 2:
        return mm(input, other)
    if _should_fold(input, other):
        return _folded_matmul(input, other, b > a)
    return _batched_matmul(input, other)


def _should_fold(tensor1, tensor2):
    """PyTorch's should_fold: can the larger operand (>= 3-D, against a 1-D or 2-D one) be
    folded into a matrix for mm / mv? Always when the smaller one requires grad (so its
    gradient is not a batch to sum); otherwise only when folding needs no copy."""
    larger = tensor1._data.ndim >= tensor2._data.ndim
    t1 = tensor1._data if larger else np.swapaxes(tensor2._data, -1, -2)
    small = tensor2 if larger else tensor1
    if not (t1.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small._requires_grad:
        return True
    if tensor1._data.ndim == 2:
        return False
    if t1.size == 0:
        return True
    strides = [st // t1.itemsize for st in t1.strides]
    return builtins.all(strides[i] == strides[i + 1] * t1.shape[i + 1] for i in range(t1.ndim - 2))


def _folded_matmul(input, other, fold_other):
    """One mm / mv on the larger operand folded to a matrix; when that operand is ``other``,
    on its transpose (other^T @ input^T), transposed back."""
    if fold_other:
        t1 = F.transpose(other, -2, -1)
        t2 = F.t(input) if input._data.ndim == 2 else input
    else:
        t1, t2 = input, other
    output_shape = tuple(t1._data.shape[:-1])
    folded = F.reshape(t1, _int(np.prod(output_shape, dtype=np.int64)), t1._data.shape[-1])
    if t2._data.ndim == 2:
        output = _unsafe_view(mm(folded, t2), output_shape + (t2._data.shape[1],))
        # PyTorch copies here (2-D @ 3-D with grad): the transposed result made contiguous.
        return F.contiguous(F.transpose(output, -2, -1)) if fold_other else output
    return _unsafe_view(mv(folded, t2), output_shape)


def _unsafe_view(t, size):
    return apply(_ops.unsafe_view, (t,), {"size": tuple(size), "self_sym_sizes": t._data.shape})


def _squeeze_result(t, dim):
    """matmul squeezes its result in place (PyTorch's SqueezeBackward4)."""
    return apply(_ops.squeeze_inplace_dim, (t,), {"dim": dim, "self_sym_sizes": t._data.shape})


def _batched_matmul(input, other):
    a, b = input._data.shape, other._data.shape
    n = a[-2] if len(a) > 1 else 1
    m1 = a[-1]
    m2 = b[0] if len(b) == 1 else b[-2]
    p = b[-1] if len(b) > 1 else 1
    batch_a, batch_b = a[:_max(len(a) - 2, 0)], b[:_max(len(b) - 2, 0)]
    if len(a) == 3 and len(b) == 3 and batch_a[0] != batch_b[0]:
        # A batch of one that requires grad is squeezed rather than expanded (PyTorch's shortcut).
        if batch_a[0] == 1 and input._requires_grad:
            return matmul(F.squeeze(input, 0), other)
        if batch_b[0] == 1 and other._requires_grad:
            return matmul(input, F.squeeze(other, 0))
    batch = K.broadcast_shapes(batch_a, batch_b)
    count = _int(np.prod(batch, dtype=np.int64))
    input3 = F.reshape(F.expand(input, batch + (n, m1)), count, n, m1)
    output_shape = batch + ((n,) if len(a) > 1 else ()) + ((p,) if len(b) > 1 else ())
    if len(b) == 1:
        other3 = F.unsqueeze(F.reshape(F.expand(other, batch + (m2,)), count, m2), 2)
        return _unsafe_view(F.squeeze(bmm(input3, other3), -1), output_shape)
    other3 = F.reshape(F.expand(other, batch + (m2, p)), count, m2, p)
    return _unsafe_view(bmm(input3, other3), output_shape)


def outer(input, vec2):
    return F.mul(F.reshape(input, input._data.shape[0], 1), vec2)


ger = outer


def trace(input):
    if input._data.ndim != 2:
        raise _errors_dtypes.trace_needs_a_matrix(input._data.ndim)
    if input._data.dtype.kind == "b":
        raise _errors.kernel_not_implemented("trace", "Bool")
    return apply(_ops.trace, (input,), {"self_sym_sizes": input._data.shape})
