"""Finding values: unique / unique_consecutive, searchsorted / bucketize, and quantile /
nanquantile (composed of sort, gather and lerp as ATen composes them, so their graphs are
PyTorch's)."""
import builtins

import numpy as np

from . import _dtypes, _errors_search as E, _kernels_search as K_search, _ops_stats as S
from ._common import _dtype_word, _new_leaf, apply, wrap_dim
from ._namespace import F  # the other families' functions, read at call time
from ._tensor import Tensor

EXPORTS = ("unique", "unique_consecutive", "searchsorted", "bucketize", "quantile", "nanquantile")
TORCH = ("unique", "unique_consecutive", "searchsorted", "bucketize", "quantile", "nanquantile")
METHODS = ("unique", "unique_consecutive", "quantile", "nanquantile")


def _unique_result(outputs, return_inverse, return_counts):
    """What torch.unique returns: the values alone, or with the inverse and / or counts."""
    values, inverse, counts = outputs
    if return_inverse and return_counts:
        return values, inverse, counts
    if return_inverse:
        return values, inverse
    if return_counts:
        return values, counts
    return values


def _unique_dim_check(input, dim):
    dim = wrap_dim(dim, input._data.ndim)
    if input._data.size == 0 and input._data.shape[dim] != 0:
        raise RuntimeError(E.UNIQUE_ZERO_SIZED)
    return dim


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    # ATen's CPU unique sorts whatever ``sorted`` says
    if dim is None:
        outputs = apply(S.unique2, (input,), {"consecutive": False})
    else:
        outputs = apply(S.unique_dim, (input,), {"dim": _unique_dim_check(input, dim), "consecutive": False})
    return _unique_result(outputs, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        dim = _unique_dim_check(input, dim)
    outputs = apply(S.unique_consecutive, (input,), {"dim": dim})
    return _unique_result(outputs, return_inverse, return_counts)


def _check_searchsorted(boundaries, values, right, side, sorter):
    if side is not None:
        if side not in ("left", "right"):
            raise E.searchsorted_side(side)
        if right and side != "right":
            raise E.searchsorted_opposites(side)
    if sorter is not None:
        if tuple(sorter.shape) != tuple(boundaries.shape):
            raise E.sorter_size(boundaries.shape, sorter.shape)
        if sorter._data.dtype != np.int64:
            raise E.sorter_dtype(_dtype_word(sorter._data.dtype))
    if values.ndim == 0 and boundaries.ndim != 1:
        raise E.searchsorted_scalar(boundaries.ndim, values.ndim, values.numel())
    if boundaries.ndim == 0:
        raise RuntimeError(E.SEARCHSORTED_ZERO_DIM)
    if boundaries.ndim != 1 and (boundaries.ndim != values.ndim or boundaries.shape[:-1] != values.shape[:-1]):
        raise E.searchsorted_dims(boundaries.shape, values.shape)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    values = input
    if not isinstance(input, Tensor):
        # a Python number takes the boundaries' dtype unless it needs a higher category
        values = F.tensor(input, dtype=_dtypes.result_type([sorted_sequence._data, input]))
    _check_searchsorted(sorted_sequence, values, right, side, sorter)
    common = _dtypes.result_type([sorted_sequence._data, values._data]).np
    result = K_search.search_sorted(sorted_sequence._data.astype(common, copy=False),
                                    values._data.astype(common, copy=False), right or side == "right",
                                    None if sorter is None else sorter._data, np.int32 if out_int32 else np.int64)
    return _new_leaf(result)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    if boundaries.ndim != 1:
        raise E.bucketize_dim(boundaries.ndim)
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    """ATen's quantile_compute, statement for statement: checks, sort along the reduced dim,
    ranks from q, gather below (and above, lerped), then the quantiles moved to the front."""
    if not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            raise E.quantile_q_range(q)
        q = F.scalar_tensor(q, dtype=input.dtype)
    if input.numel() == 0:
        raise RuntimeError(E.QUANTILE_EMPTY)
    if q.ndim > 1:
        raise RuntimeError(E.QUANTILE_Q_DIM)
    if input.dtype not in (_dtypes.float32, _dtypes.float64):
        raise RuntimeError(E.QUANTILE_DTYPE)
    if q.dtype is not input.dtype:
        raise RuntimeError(E.QUANTILE_Q_DTYPE)
    if interpolation not in _INTERPOLATIONS:
        raise E.quantile_interpolation(interpolation)
    wrapped = wrap_dim(dim, builtins.max(input.ndim, 1)) if dim is not None else 0
    out_shape = _quantile_out_shape(input, q, dim, keepdim, wrapped)
    if not builtins.bool(F.logical_and(q.ge(0), q.le(1)).all()):
        raise RuntimeError(E.QUANTILE_Q_VALUES)
    if dim is None:
        sorted_values = F.sort(input.flatten())[0]
    elif wrapped == input.ndim - 1:
        sorted_values = F.sort(input)[0]
    else:
        sorted_values = F.sort(input.unsqueeze(-1).transpose(wrapped, -1))[0]
    if q.ndim == 0:
        out_shape.insert(0, q.numel())
    sorted_values = sorted_values.view(out_shape[1:] + [sorted_values.shape[-1]])
    ranks = _ranks(sorted_values, q, ignore_nan)
    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()
    ranks_below = ranks.long()
    values_below = sorted_values.gather(-1, ranks_below)
    if interpolation in ("linear", "midpoint"):
        weights = F.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - ranks_below
        ranks_above = ranks.ceil_().long()
        values_above = sorted_values.gather(-1, ranks_above)
        values_below.lerp_(values_above, weights)
    if q.ndim == 0:
        values_below.squeeze_(-1)
    else:
        values_below.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)
    return values_below


def _quantile_out_shape(input, q, dim, keepdim, wrapped):
    out_shape = []
    if dim is not None and input.ndim > 0:
        out_shape = list(input.shape)
        if keepdim:
            out_shape[wrapped] = 1
        else:
            del out_shape[wrapped]
    elif keepdim:
        out_shape = [1] * input.ndim
    if q.ndim > 0:
        out_shape.insert(0, q.numel())
    return out_shape


def _ranks(sorted_values, q, ignore_nan):
    """q in [0, 1] as ranks along the last dim: over the non-NaN count (nanquantile), or the
    last index wherever a row holds a NaN (quantile), so that NaN comes out."""
    if ignore_nan:
        ranks = q * (sorted_values.isnan().logical_not_().sum(-1, True) - 1)
        ranks.masked_fill_(ranks < 0, 0)
        return ranks
    last_index = sorted_values.shape[-1] - 1
    scaled, has_nan = F.broadcast_tensors(q * last_index, sorted_values.isnan().any(-1, True))
    return F.masked_fill(scaled, has_nan, last_index)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(input, q, dim, keepdim, interpolation, True)
