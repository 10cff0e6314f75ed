"""Indexing: t[index] and t[index] = value (basic items as views, tensors, lists and masks
through one IndexBackward0), gather / scatter, index_select / index_add, masked_fill /
masked_select and take_along_dim."""
import builtins

import numpy as np

from . import _errors, _kernels as K, _ops, _tensor
from ._common import _C_TYPE_NAMES, _bool, _inplace, _int, _sum, apply, wrap_dim
from ._namespace import F  # the other families' functions, read at call time

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "gather", "scatter_into_zeros", "masked_fill", "embed_in_zeros", "getitem", "apply_slicing", "index_tuple",
    "numpy_index", "copy_to", "strip_leading_ones", "setitem", "index_select", "masked_select", "index_add",
    "index_add_", "index_add_source_grad", "scatter", "scatter_", "scatter_add", "scatter_add_", "take_along_dim",
)
TORCH = (
    "gather", "masked_fill", "index_select", "masked_select", "index_add", "scatter", "scatter_add", "take_along_dim",
)
METHODS = (
    "gather", "masked_fill", "index_select", "masked_select", "index_add", "index_add_", "scatter", "scatter_",
    "scatter_add", "scatter_add_", "take_along_dim",
)



def gather(input, dim, index):
    d = wrap_dim(dim, input._data.ndim)
    return apply(_ops.gather, (input,), {"dim": d, "index": index._data, "self_sym_sizes": input._data.shape})


def scatter_into_zeros(grad, sizes, dim, index):
    return apply(_ops.scatter_zeros, (grad,), {"sizes": sizes, "dim": dim, "index": index})


def masked_fill(input, mask, value):
    mask = mask._data if isinstance(mask, _tensor.Tensor) else np.asarray(mask)
    K.broadcast_shapes(mask.shape, input._data.shape)  # ATen's expand_outplace(mask, self), before any check
    if isinstance(value, _tensor.Tensor) and value._data.ndim != 0:  # checked before the mask's dtype
        raise _errors.masked_fill_value_dim(value._data.ndim)
    if mask.dtype != np.bool_:
        raise _errors.masked_fill_mask_dtype(_C_TYPE_NAMES.get(mask.dtype.name, mask.dtype.name))
    if isinstance(value, _tensor.Tensor):
        return apply(_ops.masked_fill_tensor, (input, value), {"mask": mask})
    return apply(_ops.masked_fill, (input,), {"mask": mask, "value": value})


def embed_in_zeros(grad, sizes, index, accumulate=False):
    return apply(_ops.index_put_zeros, (grad,), {"sizes": tuple(sizes), "indices": index, "accumulate": accumulate})


def getitem(self, index):
    """PyTorch's indexing: integers, slices, None and Ellipsis become select / slice /
    unsqueeze views, in order; tensors, lists and masks are then applied to that result
    through one IndexBackward0."""
    if isinstance(index, slice):
        # A lone slice always makes a SliceBackward0 in PyTorch, even x[:].
        return F._slice(self, 0, index.start, index.stop, index.step)
    out, advanced = apply_slicing(self, index_tuple(index))
    if advanced:
        return _advanced_getitem(out, advanced)
    if out is self:
        out = apply(_ops.alias, (self,), {})
    return out


def apply_slicing(self, index):
    """PyTorch's applySlicing: the basic items of ``index`` (a tuple) applied in order as
    views, and the advanced ones as [(dim of the result where it applies, numpy array)]."""
    n_real = _sum(_dims_consumed(i) for i in index if i is not None and i is not Ellipsis)
    if n_real > self._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self._data.ndim}")
    out, dim = self, 0
    advanced = []
    for position, i in enumerate(index):
        if i is Ellipsis:
            dim += self._data.ndim - n_real
        elif i is None:
            out = F.unsqueeze(out, dim)
            dim += 1
        elif isinstance(i, (_bool, np.bool_)) or (
                isinstance(i, _tensor.Tensor) and i._data.ndim == 0 and i._data.dtype == np.bool_):
            # A bool (a Python one or a 0-d bool tensor): a new dim of size 1 (True) or 0
            # (False), as an index into it; PyTorch writes through that unsqueezed view.
            out = F.unsqueeze(out, dim)
            advanced.append((dim, np.zeros(1 if _bool(i) else 0, dtype=np.int64)))
            dim += 1
        elif isinstance(i, slice):
            if not _whole_slice(i, out._data.shape[dim]):
                out = F._slice(out, dim, i.start, i.stop, i.step)
            dim += 1
        elif isinstance(i, (_int, np.integer)) or (
                isinstance(i, _tensor.Tensor) and i._data.ndim == 0 and i._data.dtype.kind in "iu"):
            # PyTorch's message names the item's position in the index as the dimension.
            out = F._select(out, dim, _int(i), indexing_position=position)
        elif _is_advanced(i):
            advanced.append((dim, _index_array(i)))
            dim += _dims_consumed(i)
        elif isinstance(i, str):  # PyTorch tries to make a tensor of it
            raise TypeError("new(): invalid data type 'str'")
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             "valid indices (got " + builtins.type(i).__name__ + ")")
    return out, advanced


def _whole_slice(item, size):
    """PyTorch skips a slice of an index tuple that keeps a whole dim: it starts at 0 as
    written (-size does not count), steps by 1 and stops at or past the end."""
    start = 0 if item.start is None else item.start
    stop = size if item.stop is None else item.stop
    step = 1 if item.step is None else item.step
    return start == 0 and step == 1 and stop >= size


def index_tuple(index):
    """The index as a tuple. A list holding sequences, tensors, slices, None or Ellipsis is
    still read as a tuple, with PyTorch's deprecation warning."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and len(index) < 32 and builtins.any(
            isinstance(i, (list, tuple, slice, _tensor.Tensor, np.ndarray)) or i is None or i is Ellipsis
            for i in index):
        import warnings
        warnings.warn(_errors.SEQUENCE_INDEX_WARNING, UserWarning, stacklevel=3)
        return tuple(index)
    return (index,)


def _dims_consumed(i):
    """How many dims of the tensor an index item uses up (a mask: its own ndim)."""
    if isinstance(i, (_bool, np.bool_)):
        return 0
    if isinstance(i, _tensor.Tensor) and i._data.dtype == np.bool_:
        return i._data.ndim
    if isinstance(i, np.ndarray) and i.dtype == np.bool_:
        return i.ndim
    return 1


def _is_advanced(i):
    """Tensor, list and mask indices (and Python bools, which PyTorch turns into one)."""
    if isinstance(i, _tensor.Tensor):
        return i._data.ndim > 0 or i._data.dtype.kind == "b"
    return isinstance(i, (list, tuple, range, np.ndarray, _bool, np.bool_))


def _index_array(i):
    array = i._data if isinstance(i, _tensor.Tensor) else np.asarray(i)
    if array.dtype.kind == "f" and not isinstance(i, _tensor.Tensor):
        array = array.astype(np.int64)  # PyTorch reads a Python list of floats as indices
    if array.dtype.kind not in "iub":
        raise _errors.index_dtype()
    return array


def numpy_index(shape, advanced):
    """The numpy index applying ``advanced`` to a tensor of ``shape``, with PyTorch's
    checks of masks, bounds and broadcasting."""
    items, dim = [], 0
    for k, (position, array) in enumerate(advanced):
        items.extend([slice(None)] * (position - dim))
        dim = position
        if array.dtype == np.bool_:
            for j, size in enumerate(array.shape):
                if dim + j >= len(shape) or shape[dim + j] != size:
                    raise _errors.index_mask_shape(array.shape, j, shape, dim + j)
            dim += array.ndim
        else:
            size = shape[dim]
            bad = (array >= size) | (array < -size)
            if bad.any():
                raise _errors.index_out_of_bounds(_int(array[bad].reshape(-1)[0]), k, size)
            dim += 1
        items.append(array)
    arrays = [a for a in items if isinstance(a, np.ndarray) and a.dtype != np.bool_]
    try:
        np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        raise _errors.index_broadcast([a.shape for a in arrays]) from None
    return tuple(items)


def _advanced_getitem(self, advanced):
    np_index = numpy_index(self._data.shape, advanced)
    return apply(_ops.index, (self,), {"indices": np_index, "self_sym_sizes": self._data.shape})


def copy_to(dst, src):
    """at::indexing::copy_to, for ``t[basic index] = value``: copy_ when the shapes agree,
    fill_ with a 0-dim value, else the value (leading 1s dropped) expanded, then copy_."""
    if dst._data.shape == src._data.shape:
        return F.copy_(dst, src)
    if src._data.ndim == 0:
        return F.fill_(dst, src)
    src = strip_leading_ones(src, always_view=True)
    if src._data.shape != dst._data.shape:
        src = F.expand(src, dst._data.shape)
    return F.copy_(dst, src)


def strip_leading_ones(t, always_view=False):
    """PyTorch's slicePrefix1sSize: a value's leading size-1 dims viewed away (copy_to
    takes that view even when there are none)."""
    shape = t._data.shape
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return F.view(t, shape[k:]) if k or always_view else t


def setitem(self, index, value):
    from .autograd import inplace
    inplace.setitem(self, index, value)


def index_select(input, dim, index):
    d = wrap_dim(dim, input._data.ndim)
    return apply(_ops.index_select, (input,), {"dim": d, "index": index._data, "self_sym_sizes": input._data.shape})


def masked_select(input, mask):
    mask = mask._data if isinstance(mask, _tensor.Tensor) else np.asarray(mask)
    if mask.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    K.broadcast_shapes(input._data.shape, mask.shape)
    return apply(_ops.masked_select, (input,), {"mask": mask, "self_sym_sizes": input._data.shape})


def index_add(input, dim, index, source, *, alpha=1):
    d = wrap_dim(dim, input._data.ndim)
    return apply(_ops.index_add, (input, source), {"dim": d, "index": index._data, "alpha": alpha})


def index_add_(self, dim, index, source, *, alpha=1):
    d = wrap_dim(dim, self._data.ndim)
    return _inplace(_ops.index_add, self, (self, source), {"dim": d, "index": index._data, "alpha": alpha})


def index_add_source_grad(grad, dim, index, alpha, source):
    g = F.index_select(grad, dim, F.from_numpy(index)) if grad._data.ndim else grad
    if g._data.shape != source._data.shape:
        g = F.expand_as(g, source)
    return g if alpha == 1 else g * alpha


def _scatter_args(input, dim, index, src, value):
    src = value if src is None else src
    return wrap_dim(dim, input._data.ndim), index._data, src


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    d, index, src = _scatter_args(input, dim, index, src, value)
    if isinstance(src, _tensor.Tensor):
        return apply(_ops.scatter_src, (input, src), {"dim": d, "index": index})
    return apply(_ops.scatter_value, (input,), {"dim": d, "index": index, "value": src})


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    d, index, src = _scatter_args(self, dim, index, src, value)
    if isinstance(src, _tensor.Tensor):
        return _inplace(_ops.scatter_src, self, (self, src), {"dim": d, "index": index})
    return _inplace(_ops.scatter_value, self, (self,), {"dim": d, "index": index, "value": src})


def scatter_add(input, dim, index, src):
    return apply(_ops.scatter_add, (input, src), {"dim": wrap_dim(dim, input._data.ndim), "index": index._data})


def scatter_add_(self, dim, index, src):
    return _inplace(_ops.scatter_add, self, (self, src), {"dim": wrap_dim(dim, self._data.ndim), "index": index._data})


def take_along_dim(input, indices, dim=None):
    """PyTorch's take_along_dim: both sides expanded to a common shape (except along dim), then gather."""
    if dim is None:
        return F.gather(F.reshape(input, -1), 0, F.reshape(indices, -1))
    d = wrap_dim(dim, input._data.ndim)
    sizes = list(input._data.shape)
    sizes[d] = indices._data.shape[d]
    shape = list(K.broadcast_shapes(tuple(sizes), indices._data.shape))
    indices = F.expand(indices, shape)
    shape[d] = input._data.shape[d]
    return F.gather(F.expand(input, shape), d, indices)
