"""Rearranging and picking elements: fliplr / flipud / rot90, hsplit / vsplit / dsplit and
split_with_sizes, take / put, repeat_interleave, cartesian_prod / combinations,
diagflat, tril_indices / triu_indices, vander, unravel_index and the
conjugate transposes (adjoint, H, mH)."""
import builtins
import itertools

import numpy as np

from . import _dtypes, _errors, _errors_dtypes, _errors_func, _ops_index as I, _tensor
from ._common import _inplace, _int, _new_leaf, apply, wrap_dim
from ._namespace import F  # the other families' functions, read at call time

EXPORTS = (
    "fliplr", "flipud", "rot90", "hsplit", "vsplit", "dsplit", "split_with_sizes", "take", "put", "put_",
    "repeat_interleave", "cartesian_prod", "combinations", "diagflat", "tril_indices", "triu_indices",
    "vander", "unravel_index", "adjoint", "conj_transpose", "matrix_conj_transpose",
)
TORCH = (
    "fliplr", "flipud", "rot90", "hsplit", "vsplit", "dsplit", "split_with_sizes", "take", "put", "repeat_interleave",
    "cartesian_prod", "combinations", "diagflat", "tril_indices", "triu_indices", "vander",
    "unravel_index", "adjoint",
)
METHODS = (
    "fliplr", "flipud", "rot90", "hsplit", "vsplit", "dsplit", "split_with_sizes", "take", "put", "put_",
    "repeat_interleave", "diagflat", "adjoint",
)


def fliplr(input):
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return F.flip(input, [1])


def flipud(input):
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return F.flip(input, [0])


def rot90(input, k=1, dims=(0, 1)):
    ndim = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = wrap_dim(dims[0], ndim), wrap_dim(dims[1], ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return apply(I.rot90, (input,), {"k": k, "dims": (d0, d1)})


def _directional_split(input, sections, dim, name, least):
    """hsplit / vsplit / dsplit: tensor_split's pieces, each a narrow (a slice) of the input."""
    if input._data.ndim < least:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {least} dimension, but got a tensor with "
                           f"{input._data.ndim} dimensions!")
    size = input.shape[dim]
    if isinstance(sections, int):
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {sections}!")
        bounds = [size // sections * k for k in range(1, sections)]
    else:
        bounds = list(sections)
    starts = [builtins.min(b, size) for b in [0] + bounds]
    ends = [builtins.min(b, size) for b in bounds + [size]]
    return tuple(F.narrow(input, dim, start, builtins.max(start, end) - start) for start, end in zip(starts, ends))


def hsplit(input, indices_or_sections):
    return _directional_split(input, indices_or_sections, 1 if input._data.ndim > 1 else 0, "hsplit", 1)


def vsplit(input, indices_or_sections):
    return _directional_split(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input, indices_or_sections):
    return _directional_split(input, indices_or_sections, 2, "dsplit", 3)


def split_with_sizes(input, split_sizes, dim=0):
    return F.split(input, list(split_sizes), dim)


def _flat_index(input, index):
    count = input._data.size
    data = index._data
    if data.size and (data.max() >= count or data.min() < -count):
        bad = _int(data[(data >= count) | (data < -count)].reshape(-1)[0])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {count} elements.")
    return np.where(data < 0, data + count, data)


def take(input, index):
    return apply(I.take, (input,), {"index": _flat_index(input, index)})


def put(input, index, source, accumulate=False):
    return apply(I.put, (input, source), {"index": _flat_index(input, index), "accumulate": accumulate})


def put_(self, index, source, accumulate=False):
    return _inplace(I.put, self, (self, source), {"index": _flat_index(self, index), "accumulate": accumulate})


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """ATen's repeat_interleave: a tensor of repeats becomes an index_select; a number, an
    expand of a new dim then a flattening view."""
    if repeats is None:  # torch.repeat_interleave(repeats): the indices repeated, in the repeats' dtype
        counts = input._data
        if counts.dtype not in (np.int32, np.int64):  # ATen's kernel takes these two
            raise _errors.kernel_not_implemented("repeat_interleave_cpu", input.dtype.scalar_type)
        if counts.ndim != 1:
            raise _errors_dtypes.repeats_not_a_vector()
        return _new_leaf(np.repeat(np.arange(counts.size, dtype=counts.dtype), counts))
    if dim is None:
        input, dim = input.flatten(), 0
    dim = wrap_dim(dim, input._data.ndim)
    if isinstance(repeats, _tensor.Tensor) and repeats._data.size != 1:
        index = np.repeat(np.arange(input.shape[dim], dtype=np.int64), repeats._data)
        return F.index_select(input, dim, F.from_numpy(index))
    count = _int(repeats.item() if isinstance(repeats, _tensor.Tensor) else repeats)
    shape = list(input.shape)
    expanded = input.unsqueeze(dim + 1).expand(shape[:dim + 1] + [count] + shape[dim + 1:])
    return expanded.contiguous().view(shape[:dim] + [shape[dim] * count] + shape[dim + 1:])


def cartesian_prod(*tensors):
    if len(tensors) == 1:
        return tensors[0]
    grids = F.meshgrid(*tensors, indexing="ij")
    return F.stack([g.flatten() for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r == 0:
        return _new_leaf(np.empty((0,), input._data.dtype))
    picker = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    chosen = np.array(list(picker(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return F.stack([F.index_select(input, 0, F.from_numpy(chosen[:, k].copy())) for k in range(r)], 1)


def diagflat(input, offset=0):
    return F.diag_embed(input.reshape(-1) if input._data.ndim != 1 else input, offset)


def _triangle_indices(row, col, offset, lower, dtype):
    grid = np.tril(np.ones((row, col), bool), offset) if lower else np.triu(np.ones((row, col), bool), offset)
    rows, cols = np.nonzero(grid)
    return _new_leaf(np.stack([rows, cols]).astype((dtype or _dtypes.int64).np))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
    return _triangle_indices(row, col, offset, True, dtype)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
    return _triangle_indices(row, col, offset, False, dtype)


def vander(x, N=None, increasing=False):
    """ATen's vander: a cumulative product of x repeated, with a column of ones first, flipped
    unless increasing."""
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    result = F.empty(x.shape[0], n, dtype=x.dtype if x.is_floating_point() or x.is_complex() else _dtypes.int64)
    if n > 0:
        result.fill_(1)
    if n > 1:
        result[:, 1:].copy_(x.unsqueeze(1).expand(x.shape[0], n - 1))
        result[:, 1:].copy_(F.cumprod(result[:, 1:], 1))
    return result if increasing else F.flip(result, [1])


def unravel_index(indices, shape):
    if not isinstance(indices, _tensor.Tensor):
        indices = F.tensor(indices)
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    count = int(np.prod(shape))
    data = indices._data
    if data.size and (data.max() >= count or data.min() < -count):
        raise RuntimeError("'indices' must be in range [-{0}, {0})".format(count))
    parts = np.unravel_index(np.where(data < 0, data + count, data), shape)
    return tuple(_new_leaf(np.asarray(p, dtype=np.int64)) for p in parts)


def adjoint(input):
    if input._data.ndim < 2:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of matrices. "
                           f"Got {input._data.ndim}-D tensor.")
    return F.conj(input.transpose(-2, -1))


def conj_transpose(input):
    """Tensor.H: matrices only."""
    if input._data.ndim not in (0, 2):
        hint = " For batches of matrices, consider using tensor.mH" if input._data.ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {input._data.ndim}-D tensor."
                           + hint)
    if input._data.ndim == 0:
        _errors.warn_once(_errors_func.H_ZERO_DIM_WARNING)
        return F.conj(input)
    return F.conj(input.transpose(-2, -1))


def matrix_conj_transpose(input):
    """Tensor.mH: matrices and batches of them."""
    if input._data.ndim == 0:
        _errors.warn_once(_errors_func.MH_ZERO_DIM_WARNING)
        return F.conj(input)
    if input._data.ndim < 2:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {input._data.ndim}-D tensor.")
    return F.conj(input.transpose(-2, -1))
