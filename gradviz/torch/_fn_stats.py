"""Statistics and selections: std_mean / var_mean, aminmax, cummax / cummin, kthvalue,
nanmedian, msort, diff, cov / corrcoef, histc / bincount, and vdot / inner / kron / tensordot
(the products PyTorch composes of others)."""
import builtins

import numpy as np

from . import _dtypes, _errors, _errors_dtypes, _ops, _ops_stats as S, _tensor
from ._common import _bool, _dims, _new_leaf, _return_type, apply, wrap_dim
from ._namespace import F  # the other families' functions, read at call time

EXPORTS = (
    "std_mean", "var_mean", "aminmax", "cummax", "cummin", "kthvalue", "nanmedian", "msort", "diff", "cov", "corrcoef",
    "histc", "bincount", "vdot", "inner", "kron", "tensordot", "is_nonzero", "is_same_size", "is_signed",
)
TORCH = (
    "std_mean", "var_mean", "aminmax", "cummax", "cummin", "kthvalue", "nanmedian", "msort", "diff", "cov", "corrcoef",
    "histc", "bincount", "vdot", "inner", "kron", "tensordot", "is_nonzero", "is_same_size", "is_signed",
)
METHODS = (
    "std_mean", "var_mean", "aminmax", "cummax", "cummin", "kthvalue", "nanmedian", "msort", "diff", "cov", "corrcoef",
    "histc", "bincount", "vdot", "inner", "kron", "is_nonzero", "is_same_size", "is_signed",
)

AminmaxResult, CummaxResult, CumminResult = _return_type("aminmax"), _return_type("cummax"), _return_type("cummin")
KthvalueResult, NanmedianResult = _return_type("kthvalue"), _return_type("nanmedian")


def _moments(op, input, dim, unbiased, keepdim, correction):
    if input._data.dtype.kind not in "fcV":
        raise RuntimeError(f"{op is S.std_mean and 'std' or 'var'}_mean only support floating point and complex dtypes")
    if isinstance(dim, _bool):
        unbiased, dim = dim, None
    dim, correction = F._reduce_dims(input, dim), F._correction(unbiased, correction)
    return tuple(apply(op, (input,), {"dim": dim, "correction": correction, "keepdim": keepdim}))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _moments(S.std_mean, input, dim, unbiased, keepdim, correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _moments(S.var_mean, input, dim, unbiased, keepdim, correction)


def aminmax(input, *, dim=None, keepdim=False):
    if dim is not None:
        dim = wrap_dim(dim, input._data.ndim)
    return AminmaxResult(*apply(S.aminmax, (input,), {"dim": dim, "keepdim": keepdim}))


def cummax(input, dim):
    return CummaxResult(*apply(S.cummax, (input,), {"dim": wrap_dim(dim, input._data.ndim)}))


def cummin(input, dim):
    return CumminResult(*apply(S.cummin, (input,), {"dim": wrap_dim(dim, input._data.ndim)}))


def kthvalue(input, k, dim=-1, keepdim=False):
    d = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d] if input._data.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return KthvalueResult(*apply(S.kthvalue, (input,), {"k": k, "dim": d, "keepdim": keepdim,
                                                         "self_sym_sizes": input._data.shape}))


def nanmedian(input, dim=None, keepdim=False):
    if dim is None:
        return apply(S.nanmedian_all, (input,), {})
    d = wrap_dim(dim, input._data.ndim)
    return NanmedianResult(*apply(S.nanmedian_dim, (input,), {"dim": d, "keepdim": keepdim,
                                                               "self_sym_sizes": input._data.shape}))


def msort(input):
    return F.sort(input, 0).values


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """ATen's diff: prepend / append joined on, then n times the difference of neighbours
    (a logical xor for bool tensors)."""
    d = wrap_dim(dim, input._data.ndim)
    if prepend is not None or append is not None:
        input = F.cat([t for t in (prepend, input, append) if t is not None], d)
    for _ in range(n):
        length = input.shape[d]
        if length == 0:
            break
        late, early = F.narrow(input, d, 1, length - 1), F.narrow(input, d, 0, length - 1)
        input = F.logical_xor(late, early) if input._data.dtype == np.bool_ else late - early
    return input


def cov(input, *, correction=1, fweights=None, aweights=None):
    """ATen's cov (weights left out), step by step: its graph ends in a squeeze."""
    if input._data.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._data.ndim} dimensions")
    if input._data.dtype.kind == "b":
        raise _errors_dtypes.bool_not_supported("cov")
    if input._data.dtype.kind in "iu":  # ATen's mean takes integers as the default float dtype
        input = input.to(_dtypes.DEFAULTS.float_dtype)
    observations = input if input._data.ndim == 2 else input.view(1, -1)
    count = observations.shape[1]
    avg = observations.mean(1)
    norm_factor = count - correction
    if norm_factor <= 0:
        norm_factor = 0
    centered = observations - avg.unsqueeze(1)
    c = F.mm(centered, centered.t().conj())
    return c.div(norm_factor).squeeze()


def corrcoef(input):
    c = cov(input)
    if c._data.ndim == 0:
        return c / c
    d = F.diagonal(c)
    stddev = F.sqrt(d.real if c.is_complex() else d)
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return F.clamp(c, -1, 1) if not c.is_complex() else c


def histc(input, bins=100, min=0, max=0):
    data = input._data
    low, high = builtins.float(min), builtins.float(max)
    if low == high and data.size:
        low, high = builtins.float(data.min()), builtins.float(data.max())
    if low == high:
        low, high = low - 1, high + 1
    counts, _ = np.histogram(data[(data >= low) & (data <= high)].astype(np.float64), bins=bins, range=(low, high))
    return _new_leaf(counts.astype(data.dtype))


def bincount(input, weights=None, minlength=0):
    data = input._data
    if data.dtype.kind == "b":
        raise _errors.kernel_not_implemented("bincount_cpu", "Bool")
    if data.ndim != 1 or data.dtype.kind not in "iu":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if data.size and data.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _new_leaf(np.bincount(data, minlength=minlength).astype(np.int64))
    dtype = weights._data.dtype if weights._data.dtype.kind == "f" else np.float64
    return _new_leaf(np.bincount(data, weights._data.astype(np.float64), minlength).astype(dtype))


def vdot(input, other):
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    return apply(S.vdot, (input, other), {})


def inner(input, other):
    if input._data.ndim == 0 or other._data.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def kron(input, other):
    """ATen's kron: both to the same rank, an outer product through a reshape, then one more."""
    ndim = builtins.max(input._data.ndim, other._data.ndim)
    a = input.reshape((1,) * (ndim - input._data.ndim) + tuple(input.shape))
    b = other.reshape((1,) * (ndim - other._data.ndim) + tuple(other.shape))
    a_shape, b_shape = [1] * (2 * ndim), [1] * (2 * ndim)
    for k in range(ndim):
        a_shape[2 * k], b_shape[2 * k + 1] = a.shape[k], b.shape[k]
    result_shape = [a.shape[k] * b.shape[k] for k in range(ndim)]
    product = F.mul(a.reshape(a_shape), b.reshape(b_shape))
    return apply(_ops.unsafe_view, (product,), {"size": tuple(result_shape), "self_sym_sizes": product._data.shape})


def tensordot(a, b, dims=2, out=None):
    """ATen's tensordot: the summed dims moved last in a and first in b, an mm, then a view."""
    if isinstance(dims, _tensor.Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    dims_a = [wrap_dim(d, a._data.ndim) for d in dims_a]
    dims_b = [wrap_dim(d, b._data.ndim) for d in dims_b]
    free_a = [d for d in range(a._data.ndim) if d not in dims_a]
    free_b = [d for d in range(b._data.ndim) if d not in dims_b]
    size = 1
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} "
                               f"and second has size {b.shape[db]} in dim {db}")
        size *= a.shape[da]
    left = a.permute(free_a + dims_a).reshape(-1, size)
    right = b.permute(dims_b + free_b).reshape(size, -1)
    return F.mm(left, right).view([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


def is_nonzero(input):
    if input._data.size == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input._data.size > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return _bool(input._data.reshape(()).item())


def is_same_size(input, other):
    return input._data.shape == other._data.shape


def is_signed(input):
    return input.dtype.is_signed
