"""Comparisons and tests (never differentiable): eq / lt / ..., the logical ops, nonzero,
equal / allclose / isclose, isnan / isinf / isfinite, all / any; and sorting: sort, argsort, topk."""
import numpy as np

from . import _kernels as K, _meta, _ops, _tensor
from ._common import _bool, _dims, _dtype_word, _new_leaf, _return_type, apply, wrap_dim
from ._namespace import F  # the other families' functions, read at call time

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "_compare", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "greater",
    "greater_equal", "less", "less_equal", "not_equal", "bitwise_not", "logical_not", "count_nonzero", "nonzero",
    "argwhere", "equal", "allclose", "isclose", "isnan", "isinf", "isfinite", "all", "any", "SortResult", "TopkResult",
    "sort", "argsort", "topk",
)
TORCH = (
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "greater", "greater_equal", "less",
    "less_equal", "not_equal", "bitwise_not", "logical_not", "count_nonzero", "nonzero", "argwhere", "equal",
    "allclose", "isclose", "isnan", "isinf", "isfinite", "all", "any", "sort", "argsort", "topk",
)
METHODS = (
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "greater", "greater_equal", "less",
    "less_equal", "not_equal", "bitwise_not", "logical_not", "count_nonzero", "nonzero", "argwhere", "equal",
    "allclose", "isclose", "isnan", "isinf", "isfinite", "all", "any", "sort", "argsort", "topk",
)



def _compare(fn, input, other):
    b = other._data if isinstance(other, _tensor.Tensor) else other
    if type(input._data) is _meta.MetaArray or type(b) is _meta.MetaArray:
        _meta.check_same_device((input._data, b))
        _meta.check_broadcast((input._data, b))
    try:
        return _new_leaf(np.asanyarray(fn(input._data, b)))
    except ValueError:
        K.broadcast_shapes(input._data.shape, np.shape(b))
        raise


def _comparison(ufunc, name):
    """A torch function comparing (or logically combining) two operands: a new leaf."""
    def fn(input, other):
        return _compare(ufunc, input, other)
    fn.__name__ = fn.__qualname__ = name
    return fn


eq = _comparison(np.equal, "eq")
ne = _comparison(np.not_equal, "ne")
lt = _comparison(np.less, "lt")
le = _comparison(np.less_equal, "le")
gt = _comparison(np.greater, "gt")
ge = _comparison(np.greater_equal, "ge")
logical_and = _comparison(np.logical_and, "logical_and")
logical_or = _comparison(np.logical_or, "logical_or")
logical_xor = _comparison(np.logical_xor, "logical_xor")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def bitwise_not(input):
    return _new_leaf(np.invert(input._data))


def logical_not(input):
    return _new_leaf(np.logical_not(input._data))


def count_nonzero(input, dim=None):
    dims = None if dim is None else _dims(dim, input._data.ndim)
    return _new_leaf(np.asanyarray(np.count_nonzero(input._data, axis=dims), dtype=np.int64))


def nonzero(input, *, as_tuple=False):
    indices = np.nonzero(input._data) if input._data.ndim else np.nonzero(input._data.reshape(1))
    if as_tuple:
        return tuple(_new_leaf(i.astype(np.int64)) for i in indices)
    return _new_leaf(np.stack(indices, axis=1).astype(np.int64) if indices else
                     np.zeros((0, 0), dtype=np.int64))


def argwhere(input):
    return nonzero(input)


def equal(input, other):
    return input._data.shape == other._data.shape and _bool(np.array_equal(input._data, other._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{_dtype_word(input.dtype)} did not match {_dtype_word(other.dtype)}")
    K.broadcast_shapes(input._data.shape, other._data.shape)
    return _bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if input._data.dtype != other._data.dtype:  # no type promotion, as in allclose
        raise RuntimeError(f"{_dtype_word(input.dtype)} did not match {_dtype_word(other.dtype)}")
    return _new_leaf(np.isclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isnan(input):
    return _new_leaf(np.isnan(input._data))


def isinf(input):
    return _new_leaf(np.isinf(input._data))


def isfinite(input):
    return _new_leaf(np.isfinite(input._data))


def all(input, dim=None, keepdim=False):
    return _new_leaf(_truth_result(np.all(input._data, axis=dim, keepdims=keepdim), input))


def any(input, dim=None, keepdim=False):
    return _new_leaf(_truth_result(np.any(input._data, axis=dim, keepdims=keepdim), input))


def _truth_result(result, input):
    """all / any give bool, but uint8 for a uint8 tensor (as PyTorch's kept from its byte masks)."""
    result = np.asanyarray(result)
    return result.astype(np.uint8) if input._data.dtype == np.uint8 else result


SortResult, TopkResult = _return_type("sort"), _return_type("topk")


def sort(input, dim=-1, descending=False, stable=False):
    d = wrap_dim(dim, input._data.ndim)
    values, indices = apply(_ops.sort, (input,), {"dim": d, "descending": descending,
                                                  "self_sym_sizes": input._data.shape})
    return SortResult(values, indices)


def argsort(input, dim=-1, descending=False, stable=False):
    return F.sort(input, dim, descending)[1]


def topk(input, k, dim=-1, largest=True, sorted=True):
    d = wrap_dim(dim, input._data.ndim)
    values, indices = apply(_ops.topk, (input,), {"k": k, "dim": d, "largest": largest,
                                                  "self_sym_sizes": input._data.shape})
    return TopkResult(values, indices)
