"""Views and shapes: view / reshape, flatten, permute / transpose, (un)squeeze, expand, select /
narrow / slices, unbind / split / chunk, repeat, flip / roll, tril / triu, movedim, diagonals, and
the view helpers of backward."""
from . import _dtypes, _errors, _errors_dtypes, _kernels as K, _ops, _tensor
from ._common import _int, _max, _new_leaf, _shape_args, _sizes_or_keyword, _sum, apply, wrap_dim
from ._namespace import F  # the other families' functions, read at call time

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "view", "reshape", "view_as", "reshape_as", "flatten", "t", "permute", "transpose", "swapaxes", "swapdims", "T",
    "unsqueeze", "squeeze", "expand", "_check_expand", "expand_as", "sum_to_size", "select", "_select", "narrow",
    "_slice", "embed_view", "replay_view", "unbind", "split", "chunk", "tensor_split", "repeat", "repeat_backward",
    "flip", "roll", "tril", "triu", "movedim", "moveaxis", "broadcast_to", "tile", "unflatten", "ravel", "diagonal",
    "diagonal_backward", "diag_embed", "diag", "broadcast_tensors", "broadcast_shapes",
)
TORCH = (
    "reshape", "flatten", "t", "permute", "transpose", "swapaxes", "swapdims", "unsqueeze", "squeeze", "select", "narrow", "unbind", "split",
    "chunk", "tensor_split", "flip", "roll", "tril", "triu", "movedim", "moveaxis", "broadcast_to", "tile",
    "unflatten", "ravel", "diagonal", "diag_embed", "diag", "broadcast_tensors", "broadcast_shapes",
)
METHODS = (
    "view", "reshape", "view_as", "reshape_as", "flatten", "t", "permute", "transpose", "swapaxes", "swapdims",
    "unsqueeze", "squeeze", "expand", "expand_as", "sum_to_size", "select", "narrow", "unbind", "split", "chunk",
    "tensor_split", "repeat", "flip", "roll", "tril", "triu", "movedim", "moveaxis", "broadcast_to", "tile",
    "unflatten", "ravel", "diagonal", "diag_embed", "diag",
)



def _infer_size(size, numel):
    size = list(size)
    if size.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in size:
        rest = 1
        for s in size:
            if s != -1:
                rest *= s
        if rest == 0 or numel % rest:
            raise _errors.view_invalid_shape(size, numel)
        size[size.index(-1)] = numel // rest
    n = 1
    for s in size:
        n *= s
    if n != numel:
        raise _errors.view_invalid_shape(size, numel)
    return tuple(size)


def view(self, *size, **keyword):
    size = _sizes_or_keyword(size, keyword, "size")
    if len(size) == 1 and isinstance(size[0], _dtypes.dtype):
        return _new_leaf(self._data.view(size[0].np))
    shape = _infer_size(_shape_args(size), self._data.size)
    return apply(_ops.view, (self,), {"size": shape, "self_sym_sizes": self._data.shape})


def reshape(self, *shape, **keyword):
    """PyTorch's reshape: a view of a contiguous tensor; _reshape_alias when the strides
    still allow a view (ReshapeAliasBackward0); otherwise a contiguous copy, then a view of it."""
    shape = _infer_size(_shape_args(_sizes_or_keyword(shape, keyword, "shape")), self._data.size)
    if self._data.flags.c_contiguous:
        return view(self, shape)
    try:
        K.view_array(self._data, shape)
    except RuntimeError:
        copied = F.clone(self)
        return apply(_ops.unsafe_view, (copied,), {"size": shape, "self_sym_sizes": self._data.shape})
    return apply(_ops.reshape_alias, (self,), {"size": shape, "self_sym_sizes": self._data.shape})


def view_as(self, other):
    return view(self, other._data.shape)


def reshape_as(self, other):
    return reshape(self, other._data.shape)


def flatten(self, start_dim=0, end_dim=-1):
    nd = self._data.ndim
    if nd == 0:
        return reshape(self, 1)
    s, e = wrap_dim(start_dim, nd), wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    shape = self._data.shape
    return reshape(self, shape[:s] + (-1,) + shape[e + 1:])


def t(self):
    if self._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D")
    return apply(_ops.t, (self,), {})


def permute(self, *dims, **keyword):
    dims = _shape_args(_sizes_or_keyword(dims, keyword, "dims"))
    if len(dims) != self._data.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
                           f"the desired ordering of dimensions i.e. input.dim() = {self._data.ndim} is not equal to "
                           f"len(dims) = {len(dims)}")
    dims = tuple(wrap_dim(d, self._data.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return apply(_ops.permute, (self,), {"dims": dims})


def transpose(self, dim0, dim1):
    nd = self._data.ndim
    return apply(_ops.transpose, (self,), {"dim0": wrap_dim(dim0, nd), "dim1": wrap_dim(dim1, nd)})


swapaxes = swapdims = transpose


def T(self):
    if self._data.ndim == 2:
        return permute(self, 1, 0)
    _errors.warn_once(_errors.T_ZERO_DIM_WARNING if self._data.ndim == 0 else _errors.T_NOT_2D_WARNING)
    return permute(self, *reversed(range(self._data.ndim)))


def unsqueeze(self, dim):
    return apply(_ops.unsqueeze, (self,), {"dim": wrap_dim(dim, self._data.ndim + 1)})


def squeeze(self, dim=None):
    if dim is None:
        return apply(_ops.squeeze_all, (self,), {"self_sym_sizes": self._data.shape})
    if isinstance(dim, (tuple, list)):
        dims = tuple(sorted({wrap_dim(d, self._data.ndim) for d in dim}))
        return apply(_ops.squeeze_dims, (self,), {"dim": dims, "self_sym_sizes": self._data.shape})
    return apply(_ops.squeeze_dim, (self,), {"dim": wrap_dim(dim, self._data.ndim), "self_sym_sizes": self._data.shape})


def expand(self, *sizes, **keyword):
    if not sizes and not keyword:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    sizes = _shape_args(_sizes_or_keyword(sizes, keyword, "size"))
    shape = self._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand({self.type()}{{[{', '.join(map(str, shape))}]}}, size=[{', '.join(map(str, sizes))}]): "
                           "the number of sizes provided (%d) must be greater or equal to the number of dimensions in "
                           "the tensor (%d)" % (len(sizes), len(shape)))
    return apply(_ops.expand, (self,), {"size": _check_expand(shape, sizes), "self_sym_sizes": shape})


def _check_expand(shape, sizes):
    """The size ``shape`` expands to (-1 keeps a size), with PyTorch's errors."""
    lead = len(sizes) - len(shape)
    full_size = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise _errors.expand_leading_minus_one(i)
        elif s == -1:
            s = shape[i - lead]
        elif shape[i - lead] != 1 and shape[i - lead] != s:
            raise _errors.expand_size(s, shape[i - lead], i, sizes, shape)
        full_size.append(s)
    return tuple(full_size)


def expand_as(self, other):
    return expand(self, other._data.shape)


def sum_to_size(grad, sizes):
    """Sum a broadcast gradient back down to ``sizes`` (undoing expand / broadcasting)."""
    shape = grad._data.shape
    if shape == tuple(sizes):
        return grad
    lead = len(shape) - len(sizes)
    dims = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(sizes) if s == 1 and shape[i + lead] != 1)
    if dims:
        grad = F.sum(grad, dims, keepdim=True)
    if lead:
        grad = view(grad, tuple(sizes)) if grad._data.flags.c_contiguous else reshape(grad, tuple(sizes))
    return grad


def select(self, dim, index):
    return _select(self, wrap_dim(dim, self._data.ndim), index)


def _select(self, dim, index, indexing_position=None):
    """select(); from indexing, errors name the item's position in the index."""
    size = self._data.shape[dim]
    if not -size <= index < size:
        if indexing_position is not None:
            raise IndexError(f"index {index} is out of bounds for dimension {indexing_position} with size {size}")
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"[{', '.join(map(str, self._data.shape))}] at dimension {dim}")
    return apply(_ops.select, (self,), {"dim": dim, "index": index % size if size else index,
                                        "self_sym_sizes": self._data.shape})


def narrow(self, dim, start, length):
    dim = wrap_dim(dim, self._data.ndim)
    size = self._data.shape[dim]
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice(self, dim, start, start + length, 1)


def _slice(self, dim, start, end, step):
    size = self._data.shape[dim]
    start, end, step = slice(start, end, step).indices(size)
    end = _max(end, start)
    return apply(_ops.slice_op, (self,), {"dim": dim, "start": start, "end": end, "step": step,
                                          "self_sym_sizes": self._data.shape})


def embed_view(grad, sizes, chain):
    return apply(_ops.as_strided_scatter, (grad,), {"chain": chain, "sizes": tuple(sizes)})


def replay_view(t, chain):
    return apply(_ops.as_strided, (t,), {"chain": chain, "self_sym_sizes": t._data.shape})


def unbind(self, dim=0):
    d = wrap_dim(dim, self._data.ndim)
    if K.GUARDS:
        K.guard_pieces(self._data.shape[d], "unbind")
    return _multi_view(_ops.unbind, self, {"dim": d}, "Unbind")


def _multi_view(op, self, params, name):
    outs = apply(op, (self,), params)
    for i, o in enumerate(outs):
        o._multi_output_view_of = (i, name)
    return outs


def split(self, split_size_or_sections=None, dim=0, *, split_size=None):
    # Tensor.split names its size ``split_size``; torch.split ``split_size_or_sections``.
    if split_size_or_sections is None:
        split_size_or_sections = split_size
    d = wrap_dim(dim, self._data.ndim)
    if isinstance(split_size_or_sections, (list, tuple)):
        if K.GUARDS:
            K.guard_pieces(len(split_size_or_sections), "split")
        sizes = tuple(_int(s) for s in split_size_or_sections)
        if _sum(sizes) != self._data.shape[d]:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {self._data.shape[d]} (input "
                               f"tensor's size at dimension {d}), but got split_sizes=[{', '.join(map(str, sizes))}]")
        return _multi_view(_ops.split_with_sizes, self, {"split_sizes": sizes, "dim": d,
                                                          "self_sym_sizes": self._data.shape}, "SplitWithSizes")
    size = _int(split_size_or_sections)
    if K.GUARDS and size > 0:
        K.guard_pieces(-(-self._data.shape[d] // size), "split")
    if size == 0 and self._data.shape[d] != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of "
                           f"{self._data.shape[d]}")
    return _multi_view(_ops.split, self, {"split_size": size, "dim": d,
                                          "self_sym_sizes": self._data.shape}, "Split")


def chunk(self, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, self._data.ndim)
    size = self._data.shape[d]
    return F.split(self, -(-size // chunks) if size else 1, d)


def tensor_split(self, sections, dim=0):
    d = wrap_dim(dim, self._data.ndim)
    size = self._data.shape[d]
    if K.GUARDS:
        K.guard_pieces(sections if isinstance(sections, _int) else len(sections) + 1, "tensor_split")
    if isinstance(sections, _int):
        base, extra = divmod(size, sections)
        sizes = [base + 1] * extra + [base] * (sections - extra)
    else:
        bounds = [0] + list(sections) + [size]
        sizes = [b - a for a, b in zip(bounds, bounds[1:])]
    return F.split(self, sizes, d)


def repeat(self, *repeats, **keyword):
    repeats = _shape_args(_sizes_or_keyword(repeats, keyword, "repeats"))
    if len(repeats) < self._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    return apply(_ops.repeat, (self,), {"repeats": repeats, "self_sym_sizes": self._data.shape})


def repeat_backward(grad, repeats, sizes):
    """PyTorch's repeat_backward: sum away the new leading dims, then one reshape and sum
    over the repeated dims only (none at all when every repeat is 1: grad passes through)."""
    if 0 in repeats:
        return F.zeros(*sizes, dtype=grad.dtype)
    for _ in range(len(repeats) - len(sizes)):
        grad = F.sum(grad, 0)
    split_shape, sum_dims = [], []
    for r, s in zip(repeats[len(repeats) - len(sizes):], sizes):
        if r != 1:
            split_shape.append(r)
            sum_dims.append(len(split_shape) - 1)
        split_shape.append(s)
    if sum_dims:
        grad = F.sum(reshape(grad, split_shape), sum_dims)
    return grad


def flip(input, dims):
    dims = (dims,) if isinstance(dims, _int) else tuple(dims)
    return apply(_ops.flip, (input,), {"dims": tuple(wrap_dim(d, input._data.ndim) for d in dims)})


def roll(input, shifts, dims=None):
    if dims is None:
        return view(roll(flatten(input), shifts, 0), input._data.shape)
    shifts = (shifts,) if isinstance(shifts, _int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, _int) else tuple(dims)
    return apply(_ops.roll, (input,), {"shifts": shifts, "dims": dims})


def tril(input, diagonal=0):
    if input._data.ndim < 2:
        raise _errors_dtypes.needs_a_matrix("tril")
    return apply(_ops.tril, (input,), {"diagonal": diagonal})


def triu(input, diagonal=0):
    if input._data.ndim < 2:
        raise _errors_dtypes.needs_a_matrix("triu")
    return apply(_ops.triu, (input,), {"diagonal": diagonal})


def movedim(input, source, destination):
    source = list(source) if isinstance(source, (list, tuple)) else [source]
    destination = list(destination) if isinstance(destination, (list, tuple)) else [destination]
    if len(source) != len(destination):
        raise _errors.movedim_count_mismatch(source, destination)
    ndim = input.dim()
    moved = [wrap_dim(_int(d), ndim) for d in source]
    targets = [wrap_dim(_int(d), ndim) for d in destination]
    for which, given, dims in (("source", source, moved), ("destination", destination, targets)):
        if len(set(dims)) != len(dims):
            raise _errors.movedim_repeated(which, given)
    # result dim i reads input dim order[i]: moved dims at their targets, the rest in order
    staying = iter(d for d in range(ndim) if d not in moved)
    placed = dict(zip(targets, moved))
    order = [placed[i] if i in placed else next(staying) for i in range(ndim)]
    return permute(input, *order)


moveaxis = movedim


def broadcast_to(input, size):
    return expand(input, size)


def tile(input, dims, *more):
    dims = _shape_args((dims,) + more)
    dims = (1,) * (input._data.ndim - len(dims)) + tuple(dims)
    return repeat(input, dims)


def unflatten(input, dim, sizes):
    d = wrap_dim(dim, input._data.ndim)
    shape = input._data.shape
    return view(input, shape[:d] + tuple(sizes) + shape[d + 1:])


def ravel(input):
    return view(F.contiguous(input), -1)


def diagonal(input, offset=0, dim1=0, dim2=1):
    nd = input._data.ndim
    return apply(_ops.diagonal, (input,), {"offset": offset, "dim1": wrap_dim(dim1, nd), "dim2": wrap_dim(dim2, nd),
                                           "self_sym_sizes": input._data.shape})


def diagonal_backward(grad, sizes, offset, dim1, dim2):
    return apply(_ops.diagonal_backward, (grad,), {"sizes": tuple(sizes), "offset": offset, "dim1": dim1,
                                                   "dim2": dim2})


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    nd = input._data.ndim + 1
    return apply(_ops.diag_embed, (input,), {"offset": offset, "dim1": wrap_dim(dim1, nd), "dim2": wrap_dim(dim2, nd)})


def diag(input, diagonal=0):
    """A 1-D input becomes a diagonal matrix; a 2-D input gives (a copy of) its diagonal."""
    if input._data.ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input._data.ndim != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input._data.ndim}D")
    return apply(_ops.diag_copy, (input,), {"offset": diagonal, "dim1": 0, "dim2": 1,
                                            "self_sym_sizes": input._data.shape})


def broadcast_tensors(*tensors):
    """Each tensor expanded to the common shape (ExpandBackward0 views); one already of that
    shape comes back as itself, as ATen's expand_outplace returns it."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = tuple(tensors[0].shape)
    for t in tensors[1:]:
        shape = K.broadcast_shapes(shape, tuple(t.shape))
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in tensors)


def broadcast_shapes(*shapes):
    """The shape all ``shapes`` broadcast to (an int is a 1-dim shape), in torch._refs' words."""
    shapes = tuple((s,) if isinstance(s, int) else s for s in shapes if s is not None)
    if not shapes:
        return _tensor.Size([])
    for shape in shapes:
        if isinstance(shape, (str, bytes)) or not hasattr(shape, "__len__"):
            raise _errors.broadcast_shapes_not_sequence(shape)
    common_shape = [1] * _max(len(shape) for shape in shapes)
    for arg_idx, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            if shape[idx] == common_shape[idx]:
                continue
            if common_shape[idx] == 1:
                common_shape[idx] = shape[idx]
            elif shape[idx] != 1:
                raise _errors.broadcast_shapes_mismatch(shape[idx], idx, arg_idx, shape, common_shape)
    return _tensor.Size(common_shape)
