"""Reductions: sum, mean, max / min, norms, var / std, prod, cumulative sums and products,
logsumexp, amax / amin, argmax / argmin, nansum / nanmean, median, softmax / log_softmax, and the
formula helpers of their gradients."""
import warnings

import numpy as np

from . import _errors, _errors_dtypes, _ops, _ops_nn, _tensor
from ._common import (
    _bool, _dims, _dtype_word, _float, _int, _max, _new_leaf, _require_tensor, _resolve_dtype, _return_type, apply,
    wrap_dim)
from ._namespace import F  # the other families' functions, read at call time

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "_check_floating", "_reduce_dims", "_correction",
    "sum", "mean", "MaxResult", "MinResult", "max", "min", "maximum", "minimum", "value_selecting_backward", "norm",
    "vector_norm", "var", "std", "prod", "cumsum", "cumprod", "logsumexp", "amax", "amin", "unsqueeze_dims",
    "norm_backward", "var_backward", "prod_backward", "cumprod_backward", "spread_to_ties", "argmax", "argmin",
    "nansum", "nanmean", "MedianResult", "median", "softmax", "log_softmax", "softmax_like",
)
TORCH = (
    "sum", "mean", "max", "min", "maximum", "minimum", "norm", "vector_norm", "var", "std", "prod", "cumsum",
    "cumprod", "logsumexp", "amax", "amin", "argmax", "argmin", "nansum", "nanmean", "median", "softmax", "log_softmax",
)
METHODS = (
    "sum", "mean", "max", "min", "maximum", "minimum", "norm", "var", "std", "prod", "cumsum", "cumprod", "logsumexp",
    "amax", "amin", "argmax", "argmin", "nansum", "nanmean", "median", "softmax", "log_softmax",
)



def sum(input, dim=None, keepdim=False, *, dtype=None):
    _require_tensor("sum", input)
    dtype = _resolve_dtype(dtype)
    shape = input._data.shape
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return apply(_ops.sum_all, (input,), {"self_sym_sizes": shape, "dtype": dtype})
    return apply(_ops.sum_dim, (input,), {"dim": _dims(dim, input._data.ndim), "keepdim": keepdim,
                                          "self_sym_sizes": shape, "dtype": dtype})


def mean(input, dim=None, keepdim=False, *, dtype=None):
    _require_tensor("mean", input)
    dtype = _resolve_dtype(dtype)
    if (dtype or input.dtype).np.kind not in "fcV":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {_dtype_word(dtype or input.dtype)}")
    shape = input._data.shape
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return apply(_ops.mean_all, (input,), {"self_sym_sizes": shape, "self_sym_numel": input._data.size,
                                               "dtype": dtype})
    return apply(_ops.mean_dim, (input,), {"dim": _dims(dim, input._data.ndim), "keepdim": keepdim,
                                           "self_sym_sizes": shape, "self_sym_numel": input._data.size,
                                           "dtype": dtype})


MaxResult, MinResult = _return_type("max"), _return_type("min")


def _extreme(op_all, op_dim, result_type, input, dim, keepdim, other):
    if isinstance(dim, _tensor.Tensor):
        other, dim = dim, None
    if other is not None:
        return (maximum if op_all is _ops.max_all else minimum)(input, other)
    if dim is None:
        if input._data.size == 0:
            raise RuntimeError(f"{'max' if op_all is _ops.max_all else 'min'}(): Expected reduction dim to be "
                               "specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
        return apply(op_all, (input,), {})
    d = wrap_dim(dim, input._data.ndim)
    values, indices = apply(op_dim, (input,), {"dim": d, "keepdim": keepdim, "self_sym_sizes": input._data.shape})
    return result_type(values, indices)


def max(input, dim=None, keepdim=False, *, other=None):
    return _extreme(_ops.max_all, _ops.max_dim, MaxResult, input, dim, keepdim, other)


def min(input, dim=None, keepdim=False, *, other=None):
    return _extreme(_ops.min_all, _ops.min_dim, MinResult, input, dim, keepdim, other)


def maximum(input, other):
    return apply(_ops.maximum, (input, other), {})


def minimum(input, other):
    return apply(_ops.minimum, (input, other), {})


def value_selecting_backward(grad, dim, indices, sizes, keepdim):
    if not keepdim:
        grad = grad.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    return F.scatter_into_zeros(grad, sizes, dim, indices._data)


def _reduce_dims(input, dim):
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return None
    return _dims(dim, input._data.ndim)


def _check_floating(input, what):
    if input._data.dtype.kind not in "fcV":
        if what == "var":
            raise RuntimeError("std and var only support floating point and complex dtypes")
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype_word(input.dtype)}")


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    _check_floating(input, "norm")
    ord = 2.0 if p in ("fro", None) else (_float(p) if not isinstance(p, str) else p)
    if isinstance(ord, str):
        raise RuntimeError(f"norm(): unsupported norm type {p}")
    return apply(_ops.norm, (input,), {"ord": ord, "dim": _reduce_dims(input, dim), "keepdim": keepdim})


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    _check_floating(x, "norm")
    return apply(_ops.norm, (x,), {"ord": _float(ord), "dim": _reduce_dims(x, dim), "keepdim": keepdim})


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    _check_floating(input, "var")
    if isinstance(dim, _bool):
        unbiased, dim = dim, None
    dim, correction = _reduce_dims(input, dim), _correction(unbiased, correction)
    _warn_degrees_of_freedom("var", input, dim, correction)
    return apply(_ops.var, (input,), {"dim": dim, "correction": correction, "keepdim": keepdim})


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    _check_floating(input, "var")
    if isinstance(dim, _bool):
        unbiased, dim = dim, None
    dim, correction = _reduce_dims(input, dim), _correction(unbiased, correction)
    _warn_degrees_of_freedom("std", input, dim, correction)
    return apply(_ops.std, (input,), {"dim": dim, "correction": correction, "keepdim": keepdim})


def _warn_degrees_of_freedom(name, input, dim, correction):
    """ATen's warn_invalid_degrees_of_freedom: each reduced slice has (input numel / output
    numel, 0 when there is no output) elements; at most ``correction`` of them warns."""
    shape = input._data.shape
    reduced = range(len(shape)) if dim is None else dim
    outputs = _int(np.prod([size for d, size in enumerate(shape) if d not in reduced]))
    per_slice = 0 if outputs == 0 else input._data.size // outputs
    if per_slice - correction <= 0:
        _errors.warn_at_user(_errors.degrees_of_freedom_warning(name))


def prod(input, dim=None, keepdim=False, *, dtype=None):
    dtype = _resolve_dtype(dtype)
    if dim is None:
        return apply(_ops.prod_all, (input,), {"dtype": dtype})
    return apply(_ops.prod_dim, (input,), {"dim": wrap_dim(dim, input._data.ndim), "keepdim": keepdim,
                                           "dtype": dtype})


def cumsum(input, dim, *, dtype=None):
    return apply(_ops.cumsum, (input,), {"dim": wrap_dim(dim, input._data.ndim), "dtype": _resolve_dtype(dtype)})


def cumprod(input, dim, *, dtype=None):
    return apply(_ops.cumprod, (input,), {"dim": wrap_dim(dim, input._data.ndim), "dtype": _resolve_dtype(dtype)})


def logsumexp(input, dim, keepdim=False):
    return apply(_ops.logsumexp, (input,), {"dim": _dims(dim, input._data.ndim), "keepdim": keepdim})


def amax(input, dim=(), keepdim=False):
    return apply(_ops.amax, (input,), {"dim": _reduce_dims(input, dim) or tuple(range(input._data.ndim)),
                                       "keepdim": keepdim})


def amin(input, dim=(), keepdim=False):
    return apply(_ops.amin, (input,), {"dim": _reduce_dims(input, dim) or tuple(range(input._data.ndim)),
                                       "keepdim": keepdim})


# ----- formula helpers for the reductions above (engine ops, so double backward works) ---
def unsqueeze_dims(t, dims):
    for d in sorted(dims):
        t = F.unsqueeze(t, d)
    return t


def _keep(t, dim, keepdim):
    if keepdim or dim is None:
        return t
    return unsqueeze_dims(t, dim)


def norm_backward(grad, self, ord, dim, keepdim, result):
    grad, result = _keep(grad, dim, keepdim), _keep(result, dim, keepdim)
    if ord == 0:
        return F.zeros_like(self)
    if ord == 1:
        return grad * F.sgn(self)
    if ord == 2:
        return F.where(result == 0, 0.0, grad * self / result)
    if ord in (_float("inf"), _float("-inf")):
        mask = (F.abs(self) == result)
        return grad * F.sgn(self) * mask / F.sum(mask, dim, keepdim=True)
    scale = self * F.abs(self).pow(ord - 2) / result.pow(ord - 1)
    return F.where(result == 0, 0.0, grad * scale)


def var_backward(grad, self, dim, correction, keepdim):
    """PyTorch's var_backward, in its order: (2 / (n - correction)) * grad * (self - mean).
    Over every element with no degrees of freedom left it is inf, and nan where self is its
    mean; over dims, 2 / 0 is C++'s inf (and a negative count a negative factor)."""
    if self._data.ndim == 0 or dim is None:
        dof = self._data.size - correction
        if dof <= 0:
            return grad * F.where(self == F.mean(self), _float("nan"), _float("inf"))
        return (2.0 / dof) * grad * (self - F.mean(self))
    dof = _int(np.prod([self._data.shape[d] for d in dim])) - correction
    grad = _keep(grad, dim, keepdim)
    with np.errstate(divide="ignore"):
        factor = _float(np.divide(2.0, np.float64(dof)))
    return factor * grad * (self - F.mean(self, dim, keepdim=True))


def prod_backward(grad, input, result, dim, keepdim):
    """PyTorch's prod_backward: result / input without zeros; with zeros, the product of
    the other elements from exclusive cumulative products (differentiable again)."""
    if input._data.ndim == 0:
        return grad
    if dim is not None and not keepdim:
        grad, result = F.unsqueeze(grad, dim), F.unsqueeze(result, dim)
    if not (input._data == 0).any():
        return grad * (result / input)
    if dim is None:
        return F.view_as(_prod_safe_zeros_backward(grad, F.view(F.contiguous(input), -1), 0), input)
    return _prod_safe_zeros_backward(grad, input, dim)


def _prod_safe_zeros_backward(grad, input, dim):
    size = input._data.shape[dim]
    if input._data.size == 0:
        return F.expand_as(grad, input)
    ones_size = list(input._data.shape)
    ones_size[dim] = 1
    ones_ = F.ones(*ones_size, dtype=grad.dtype)
    before = F.cumprod(F.cat([ones_, F.narrow(input, dim, 0, size - 1)], dim), dim)
    after = F.flip(F.cumprod(F.cat([ones_, F.flip(F.narrow(input, dim, 1, size - 1), dim)], dim), dim), dim)
    return grad * (before * after)


def cumprod_backward(grad, input, dim, output):
    """PyTorch's cumprod_backward. Without zeros: a reversed cumulative sum divided by the
    input. With zeros: PyTorch's O(n^2) form, written with engine ops so that it is the true
    derivative at every order."""
    if input._data.size <= 1 or input._data.shape[dim] == 1:
        return grad
    w = output * grad
    if not (input._data == 0).any():
        return F.flip(F.cumsum(F.flip(w, dim), dim), dim) / input
    size = input._data.shape[dim]
    ones_size = list(input._data.shape)
    ones_size[dim] = 1
    ones_ = F.ones(*ones_size, dtype=grad.dtype)
    pieces = []
    for k in range(size):
        if k == 0:
            omitted = F.cat([ones_, F.cumprod(F.narrow(input, dim, 1, size - 1), dim)], dim)
        elif k == size - 1:
            omitted = F.prod(F.narrow(input, dim, 0, k), dim, keepdim=True)
        else:
            until_k = F.prod(F.narrow(input, dim, 0, k), dim, keepdim=True)
            from_k_plus_1 = F.cumprod(F.narrow(input, dim, k + 1, size - k - 1), dim)
            omitted = F.cat([until_k, F.expand_as(until_k, from_k_plus_1) * from_k_plus_1], dim)
        pieces.append(F.sum(F.narrow(grad, dim, k, size - k) * omitted, dim))
    return F.stack(pieces, dim)


def spread_to_ties(grad, self, dim, keepdim, result):
    grad, result = _keep(grad, dim, keepdim), _keep(result, dim, keepdim)
    mask = (self == result)
    return grad * mask / F.sum(mask, dim, keepdim=True)


def argmax(input, dim=None, keepdim=False):
    if input._data.dtype.kind == "b":
        raise _errors_dtypes.no_bool_input("argmax")
    if dim is not None:
        dim = wrap_dim(dim, input._data.ndim)
    if dim is None:
        return _new_leaf(np.asanyarray(np.argmax(input._data), dtype=np.int64))
    return _new_leaf(np.argmax(input._data, axis=dim, keepdims=keepdim).astype(np.int64))


def argmin(input, dim=None, keepdim=False):
    if input._data.dtype.kind == "b":
        raise _errors_dtypes.no_bool_input("argmin")
    if dim is not None:
        dim = wrap_dim(dim, input._data.ndim)
    if dim is None:
        return _new_leaf(np.asanyarray(np.argmin(input._data), dtype=np.int64))
    return _new_leaf(np.argmin(input._data, axis=dim, keepdims=keepdim).astype(np.int64))


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    dims = None if dim is None or (isinstance(dim, (list, tuple)) and not dim) else _dims(dim, input._data.ndim)
    return apply(_ops.nansum, (input,), {"dim": dims, "keepdim": keepdim, "dtype": _resolve_dtype(dtype),
                                         "self_sym_sizes": input._data.shape})


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if input._data.dtype.kind in "biu":
        raise _errors_dtypes.needs_floating_input("nanmean", input.dtype.scalar_type)
    count = F.logical_not(F.isnan(input)).sum(dim, keepdim=keepdim)
    return F.div(F.nansum(input, dim, keepdim, dtype=dtype), count)


MedianResult = _return_type("median")


def median(input, dim=None, keepdim=False):
    if dim is None:
        return apply(_ops.median_all, (input,), {})
    d = wrap_dim(dim, input._data.ndim)
    values, indices = apply(_ops.median_dim, (input,), {"dim": d, "keepdim": keepdim,
                                                        "self_sym_sizes": input._data.shape})
    return MedianResult(values, indices)


# =======================================================================================
# softmax family: torch.softmax / Tensor.softmax (dim is required) and, through
# softmax_like, nn.functional's softmax, log_softmax and softmin (dim may be left out)
def _implicit_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an "
                  "argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax_like(op, name, input, dim, dtype, stacklevel):
    if dim is None:
        dim = _implicit_softmax_dim(name, input.dim(), stacklevel + 1)
    if dtype is not None:
        input = input.to(dtype)
    wrap_dim(dim, input.dim())  # range check only: the node saves dim as given, as PyTorch's does
    return apply(op, (input,), {"dim": dim})


# stacklevel 2: an implicit-dim warning names the frame it named when these called nn.functional
def softmax(input, dim, dtype=None):
    return softmax_like(_ops_nn.softmax, "softmax", input, dim, dtype, 2)


def log_softmax(input, dim, dtype=None):
    return softmax_like(_ops_nn.log_softmax, "log_softmax", input, dim, dtype, 2)
