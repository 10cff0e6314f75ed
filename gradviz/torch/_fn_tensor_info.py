"""What a tensor is and the legacy per-element methods: result_type / can_cast, get_device,
dim_order, is_set_to, the default device, Tensor.new / new_empty_strided and the Python-callback
methods apply_ / map_ / map2_ (CPU only in PyTorch, as every tensor is here)."""
import numpy as np

from . import _dtypes, _tensor
from ._common import _resolve_dtype, _shape_args
from ._device import CPU
from ._namespace import F  # the other families' functions, read at call time

EXPORTS = (
    "result_type", "can_cast", "get_device", "dim_order", "is_set_to", "get_default_device", "new", "new_empty_strided",
    "apply_", "map_", "map2_",
)
TORCH = ("result_type", "can_cast", "get_device", "get_default_device")
METHODS = ("get_device", "dim_order", "is_set_to", "new", "new_empty_strided", "apply_", "map_", "map2_")


def result_type(tensor, other):
    """The dtype an op of the two would compute in (numbers and 0-dim tensors weigh less)."""
    operands = [x._data if isinstance(x, _tensor.Tensor) else x for x in (tensor, other)]
    return _dtypes.result_type(operands)


def can_cast(from_, to):
    """c10's canCast: no complex to a non-complex type, no float to an integer, nothing but
    bool to bool."""
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and not (to.is_floating_point or to.is_complex):
        return False
    return not (from_ is not _dtypes.bool and to is _dtypes.bool)


def get_device(input):
    return -1  # the CPU's index, as PyTorch gives it


def dim_order(self, *, ambiguity_check=False):
    """The dims from the outermost to the innermost by stride (ties keep their order)."""
    strides = self._data.strides
    return tuple(sorted(range(self._data.ndim), key=lambda d: -strides[d]))


def is_set_to(self, tensor):
    """Same memory, offset, sizes and strides."""
    a, b = self._data, tensor._data
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.shape == b.shape
            and a.strides == b.strides)


def get_default_device():
    return CPU


def new(self, *args, **kwargs):
    """Tensor.new: the legacy constructor in self's dtype."""
    return F.legacy_constructor(_tensor.Tensor, args, kwargs, dtype=self.dtype)


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None,
                      pin_memory=False):
    dtype = _resolve_dtype(dtype) or self.dtype
    return F.empty(_shape_args((size,)), dtype=dtype, requires_grad=requires_grad)


def _check_no_grad(name, *tensors):
    if any(t._requires_grad for t in tensors):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")


def _write_elementwise(self, values):
    np.copyto(self._data, np.asarray(values, dtype=object).astype(self._data.dtype), casting="unsafe")
    self._vbox[0] += 1
    return self


def apply_(self, callable):
    _check_no_grad("apply_", self)
    return _write_elementwise(self, np.vectorize(callable, otypes=[object])(self._data.astype(object)))


def map_(self, tensor, callable):
    _check_no_grad("map_", self, tensor)
    if tensor._data.shape != self._data.shape:
        F._check_expand(tensor._data.shape, self._data.shape)
    other = np.broadcast_to(tensor._data, self._data.shape)
    return _write_elementwise(self, np.vectorize(callable, otypes=[object])(self._data.astype(object),
                                                                             other.astype(object)))


def map2_(self, x, y, callable):
    _check_no_grad("map2_", self, x, y)
    shape = self._data.shape
    for t in (x, y):
        if t._data.shape != shape:
            F._check_expand(t._data.shape, shape)
    xs, ys = (np.broadcast_to(t._data, shape).astype(object) for t in (x, y))
    return _write_elementwise(self, np.vectorize(callable, otypes=[object])(self._data.astype(object), xs, ys))
