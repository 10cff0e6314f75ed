"""Joining tensors: cat, stack, atleast_1d / 2d / 3d, hstack / vstack / dstack / column_stack,
and meshgrid."""
from . import _errors, _ops, _tensor
from ._common import _out_variant, apply, wrap_dim
from ._namespace import F  # the other families' functions, read at call time

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "cat", "concat", "concatenate", "cat_backward", "stack", "atleast_1d", "atleast_2d", "atleast_3d", "hstack",
    "vstack", "row_stack", "dstack", "column_stack", "meshgrid",
)
TORCH = (
    "cat", "concat", "concatenate", "stack", "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack",
    "dstack", "column_stack", "meshgrid",
)
METHODS = (
)



def cat(tensors, dim=0, *, out=None):
    if out is not None:
        return _out_variant("cat", out, tuple(tensors), lambda: F.cat(tensors, dim))
    tensors = tuple(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    # PyTorch skips legacy empty 1-D tensors when concatenating.
    tensors = tuple(t for t in tensors if t._data.shape != (0,)) or tensors[:1]
    d = wrap_dim(dim, tensors[0]._data.ndim)
    ref = tensors[0]._data.shape
    for i, t in enumerate(tensors[1:], 1):
        shape = t._data.shape
        if len(shape) != len(ref):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} and {len(shape)}")
        for k, (a, b) in enumerate(zip(ref, shape)):
            if k != d and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {a} but got "
                                   f"size {b} for tensor number {i} in the list.")
    return apply(_ops.cat, tensors, {"dim": d, "sizes": tuple(t._data.shape[d] for t in tensors)})


concat = concatenate = cat


def cat_backward(grad, sizes, dim):
    out, start = [], 0
    for size in sizes:
        out.append(F.narrow(grad, dim, start, size))
        start += size
    return out


def stack(tensors, dim=0, *, out=None):
    if out is not None:
        return _out_variant("stack", out, tuple(tensors), lambda: F.stack(tensors, dim))
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]._data.shape
    for i, t in enumerate(tensors[1:], 1):
        if t._data.shape != ref:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got [{', '.join(map(str, ref))}] at "
                               f"entry 0 and [{', '.join(map(str, t._data.shape))}] at entry {i}")
    return apply(_ops.stack, tensors, {"dim": wrap_dim(dim, len(ref) + 1)})


def _each_at_least(shape_for, tensors):
    """atleast_Nd: one tensor in, one out; several (or a list) in, a tuple out."""
    many = len(tensors) != 1 or isinstance(tensors[0], (list, tuple))
    items = tensors[0] if len(tensors) == 1 and many else tensors
    out = tuple(shape_for(t) for t in items)
    return out if many else out[0]


def atleast_1d(*tensors):
    return _each_at_least(lambda t: F.reshape(t, (1,)) if t.dim() == 0 else t, tensors)


def atleast_2d(*tensors):
    return _each_at_least(lambda t: F.reshape(t, (1, 1)) if t.dim() == 0 else F.unsqueeze(t, 0) if t.dim() == 1 else t,
                          tensors)


def atleast_3d(*tensors):
    def grow(t):
        if t.dim() == 0:
            return F.reshape(t, (1, 1, 1))
        if t.dim() == 1:
            return F.unsqueeze(F.unsqueeze(t, 0), -1)
        return F.unsqueeze(t, -1) if t.dim() == 2 else t
    return _each_at_least(grow, tensors)


def _stack_of(name, tensors, joined):
    if isinstance(tensors, _tensor.Tensor):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return joined(tensors)


def hstack(tensors, *, out=None):
    def joined(ts):
        ts = atleast_1d(ts)
        return F.cat(ts, 0 if ts[0].dim() == 1 else 1, out=out)
    return _stack_of("hstack", tensors, joined)


def vstack(tensors, *, out=None):
    return _stack_of("vstack", tensors, lambda ts: F.cat(atleast_2d(ts), 0, out=out))


row_stack = vstack


def dstack(tensors, *, out=None):
    return _stack_of("dstack", tensors, lambda ts: F.cat(atleast_3d(ts), 2, out=out))


def column_stack(tensors, *, out=None):
    return _stack_of("column_stack", tensors, lambda ts: hstack(
        [F.reshape(t, (t.numel(), 1)) if t.dim() <= 1 else t for t in ts], out=out))


def meshgrid(*tensors, indexing=None):
    """Each input viewed along its own dim and expanded to the grid (the first two swapped
    for indexing='xy'), as PyTorch builds it."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        _errors.warn_once(_errors.MESHGRID_INDEXING_WARNING)
        indexing = "ij"
    tensors = list(tensors)
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    shape = tuple(t._data.size for t in tensors)
    grids = []
    for i, t in enumerate(tensors):
        view_shape = [1] * len(tensors)
        view_shape[i] = -1
        grids.append(F.expand(F.view(t, view_shape), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)
