"""The meta device's storage: none. A meta tensor's ``_data`` is a ``MetaArray``, a zero-stride
numpy view of one 0-d value (``np.broadcast_to``), so it has the tensor's shape and dtype and
costs one element of memory whatever its size.

Why a numpy subclass and not a flag on the tensor: every op of the engine already runs on
numpy, so the op table, the kernels and autograd need no meta branch at all. numpy hands any
ufunc or array function that meets a ``MetaArray`` to the two hooks below; they run the
numpy call on plain views and turn its results back into placeholders, so a result is meta
exactly when an input was, with the shape and dtype numpy (and so the engine) computed.

Exactness: shapes, dtypes, and every error that depends on them come from running the op
itself. Values are garbage by definition (PyTorch has none to compare); the placeholder's one
value is the first element of what the op computed, starting from zero, so data-dependent
branches inside kernels see a consistent, finite-ish value. Elementwise ufuncs run on one
element and are broadcast; other functions (matmul, reductions, convolutions) run on the
zero-stride inputs at full size for a moment before their result is folded back.
Imports numpy and the messages only."""
import numpy as np

from . import _errors

_plain = np.ndarray


class MetaArray(np.ndarray):
    """A placeholder array: shape and dtype, no data (see the module's note)."""
    #: read as a tensor's is_meta is, by inspectors that meet the engine's saved arrays
    is_meta = True

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        writes_meta = out is not None and any(type(o) is MetaArray for o in out)
        if method == "at" and type(inputs[0]) is MetaArray:
            return None  # ufunc.at writes into its first input: nothing to write into
        if method == "__call__" and ufunc.signature is None and "where" not in kwargs:
            return _elementwise(ufunc, inputs, kwargs, out if not writes_meta else None)
        if out is not None and not writes_meta:
            kwargs["out"] = tuple(_unwrap(o) for o in out)
        result = getattr(ufunc, method)(*(_unwrap(x) for x in inputs), **kwargs)
        if writes_meta:
            return out[0] if len(out) == 1 else out
        return fold(result)

    def __array_function__(self, func, types, args, kwargs):
        if func in _WRITERS:
            if type(args[0] if args else kwargs.get("dst", kwargs.get("a"))) is MetaArray:
                return None  # a write into a meta tensor: nothing to write into
        result = func(*_unwrap_nested(args), **{k: _unwrap_nested(v) for k, v in kwargs.items()})
        return fold(result)

    def __setitem__(self, index, value):
        # Checked as numpy checks it (an index out of range, a shape that does not broadcast
        # still raise), then dropped: a meta tensor has nothing to write into.
        target = self.view(_plain)[index]
        np.broadcast_to(_unwrap(value) if isinstance(value, np.ndarray) else np.asarray(value), np.shape(target))

    def astype(self, dtype, *args, **kwargs):
        return placeholder(self.shape, dtype, self.view(_plain).reshape(-1)[:1].astype(dtype) if self.size else None)

    def copy(self, order="C"):
        return placeholder(self.shape, self.dtype, _first(self))

    def fill(self, value):
        return None

    def sort(self, *args, **kwargs):
        return None


def _compute_method(name):
    def method(self, *args, **kwargs):
        return fold(getattr(self.view(_plain), name)(*_unwrap_nested(args), **_unwrap_nested(kwargs)))
    method.__name__ = name
    return method


# ndarray methods that compute without calling a ufunc (numpy would hand back plain results)
for _name in ("argmax", "argmin", "argsort", "argpartition", "flatten", "ravel", "repeat", "take", "compress",
              "searchsorted", "dot", "cumsum", "cumprod", "round", "clip", "nonzero", "tobytes"):
    setattr(MetaArray, _name, _compute_method(_name))

# numpy functions that write into their first argument
_WRITERS = frozenset((np.copyto, np.put, np.place, np.putmask, np.put_along_axis, np.fill_diagonal))


def placeholder(shape, dtype, value=None):
    """A meta array of ``shape`` and ``dtype``: one element of memory, broadcast."""
    dtype = np.dtype(dtype)
    one = np.zeros((), dtype) if value is None else np.asarray(value).reshape(-1)[:1].astype(dtype).reshape(())
    return np.broadcast_to(one, tuple(shape)).view(MetaArray)


def is_meta(array):
    return type(array) is MetaArray


def _first(array):
    return array.view(_plain)[(0,) * array.ndim] if array.size else None


def _unwrap(x):
    return x.view(_plain) if type(x) is MetaArray else x


def _unwrap_nested(value):
    kind = type(value)
    if kind is MetaArray:
        return value.view(_plain)
    if kind is list or kind is tuple:
        return kind(_unwrap_nested(v) for v in value)
    return value


def fold(result):
    """numpy's result with every array in it turned into a placeholder of its shape and dtype."""
    if isinstance(result, np.ndarray):
        return placeholder(result.shape, result.dtype, _first(result) if result.size else None)
    if isinstance(result, np.generic):
        return placeholder((), result.dtype, result)
    if type(result) is tuple or type(result) is list:
        return type(result)(fold(r) for r in result)
    return result


def check_same_device(arrays):
    """PyTorch's TensorIterator rule: the first operand that is not a CPU scalar (a 0-d CPU
    tensor, which any device accepts) sets the device; any other operand elsewhere is refused,
    in its words. Python numbers are not operands here."""
    expected = None
    for a in arrays:
        if not isinstance(a, np.ndarray):
            continue
        meta = type(a) is MetaArray
        if expected is None:
            if meta or a.ndim:
                expected = meta
        elif meta != expected and (meta or a.ndim):
            raise _errors.device_mismatch(*(("meta", "cpu") if meta else ("cpu", "meta")))


def check_broadcast(arrays):
    """The meta device broadcasts in Python (torch._refs), with its own message: each tensor
    operand's shape, right-aligned, against the common shape so far."""
    shapes = [a.shape for a in arrays if isinstance(a, np.ndarray)]
    if not shapes:
        return
    common = [1] * max(len(shape) for shape in shapes)
    for index, shape in enumerate(shapes):
        for dim in range(-1, -1 - len(shape), -1):
            if shape[dim] == common[dim]:
                continue
            if common[dim] == 1:
                common[dim] = shape[dim]
            elif shape[dim] != 1:
                raise _errors.meta_broadcast(shape[dim], dim, index, shape, common)


def _elementwise(ufunc, inputs, kwargs, out):
    """An elementwise ufunc on one element of each input, broadcast to the inputs' common
    shape: the same dtype numpy's full call resolves (arrays keep their dtypes, Python numbers
    stay weak), and the same broadcasting error for shapes that do not fit."""
    shapes, stand_ins = [], []
    for x in inputs:
        if isinstance(x, np.ndarray):
            shapes.append(x.shape)
            value = x.view(_plain)[(0,) * x.ndim] if x.size else np.zeros((), x.dtype)
            stand_ins.append(np.asarray(value, dtype=x.dtype).reshape(()))
        else:
            stand_ins.append(x)
    shape = np.broadcast_shapes(*shapes) if shapes else ()
    if out is not None:  # a plain out= array: numpy's own call writes it
        return ufunc(*(_unwrap(x) for x in inputs), out=tuple(_unwrap(o) for o in out), **kwargs)
    with np.errstate(all="ignore"):
        result = ufunc(*stand_ins, **kwargs)
    if type(result) is tuple:
        return tuple(placeholder(shape, np.asarray(r).dtype, r) for r in result)
    return placeholder(shape, np.asarray(result).dtype, result)
