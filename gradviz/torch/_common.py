"""What the function families (``_fn_*.py``) share: dims, dtypes, new leaves, operands,
PyTorch's names in messages and results, and the out= and in-place dispatch.

Imports no family: the families import this module, and the gatherer
(``_functions.py``) imports the families.
"""
import builtins
import numbers

import numpy as np

from . import _dtypes, _errors, _kernels as K, _ops
from . import _tensor
from ._namespace import F
from ._tensor import wrap_dim  # noqa: F401 (the families take it from here)
from .autograd import graph
from .autograd.grad_mode import STATE

apply = graph.apply
apply_unary = graph.apply_unary
apply_binary = graph.apply_binary
_float = builtins.float
_int = builtins.int
_bool = builtins.bool
_max = builtins.max
_min = builtins.min
_abs = builtins.abs
_sum = builtins.sum


def _dims(dim, ndim):
    if isinstance(dim, (list, tuple)):
        dims = [wrap_dim(d, ndim) for d in dim]
        for d in dims:
            if dims.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        return tuple(sorted(dims))
    return (wrap_dim(dim, ndim),)


def _sizes_or_keyword(sizes, keyword, name):
    """Sizes given positionally (``x.view(2, 3)``) or as PyTorch's keyword (``size=(2, 3)``)."""
    if keyword:
        unexpected = [k for k in keyword if k != name]
        if unexpected or sizes:
            raise TypeError(f"got an unexpected keyword argument '{(unexpected or [name])[0]}'")
        return (keyword[name],)
    return sizes


def _shape_args(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(_int(s) for s in size)


#: isinstance as it was when the engine was imported: a script may patch builtins.isinstance
#: (its cells run with its builtins), and PyTorch's C++ argument parser is not affected by that
_isinstance = isinstance


def _require_tensor(function, value, name="input", position=1):
    """PyTorch's argument parser refusing a non-tensor where its only overloads take a Tensor
    (sum(x.grad_fn)); checked first, before anything reads the value as a tensor."""
    if not _isinstance(value, _tensor.Tensor):
        raise _errors.argument_type(function, name, position, "Tensor", _errors.python_type_name(value))


# =======================================================================================
# dtypes and new leaves
def _resolve_dtype(dtype):
    if dtype is None or isinstance(dtype, _dtypes.dtype):
        return dtype
    if isinstance(dtype, str):
        return _dtypes.ALIASES.get(dtype) or getattr(_dtypes, dtype)
    if dtype in (_float, _int, _bool):
        return {_float: _dtypes.float64, _int: _dtypes.int64, _bool: _dtypes.bool}[dtype]
    return _dtypes.FROM_NUMPY[np.dtype(dtype)]


def _new_leaf(array, requires_grad=False, cls=None):
    if K.GUARDS:
        K.guard_elements(np.size(array), "a new tensor")
    t = (_tensor.Tensor if cls is None else cls)._make(array)
    if STATE.inference:
        t._inference = True
    if requires_grad:
        if array.dtype.kind not in "fcV":
            raise _errors.factory_requires_grad_not_float()
        t._requires_grad = True
    return t


# =======================================================================================
# operands
def _is_number(x):
    kind = builtins.type(x)
    if kind is _float or kind is _int:
        return True
    return kind is not _tensor.Tensor and isinstance(x, numbers.Number) and not isinstance(x, _tensor.Tensor)


def _other(x):
    kind = builtins.type(x)
    if kind is _tensor.Tensor or kind is _float or kind is _int or isinstance(x, _tensor.Tensor) or _is_number(x):
        return x
    if isinstance(x, np.ndarray):
        return F.from_numpy(x)
    raise TypeError(f"unsupported operand type: '{builtins.type(x).__name__}'")


_ALPHA_ONE = _ops.ALPHA_ONE


def _alpha(alpha):
    return _ALPHA_ONE if builtins.type(alpha) is _int and alpha == 1 else {"alpha": alpha}


_NO_OPTIONS = graph._NO_OPTIONS  # shared by the calls of ops without options (nothing writes to it)


# =======================================================================================
# PyTorch's names in messages and results
_C_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
                 "int8": "signed char", "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half"}


def _dtype_word(dt):
    """PyTorch's ScalarType name (Float, Long, BFloat16...) of a torch or numpy dtype, as its
    messages print it (dtype.scalar_type; a numpy dtype torch lacks, capitalized)."""
    torch_dtype = dt if isinstance(dt, _dtypes.dtype) else _dtypes.FROM_NUMPY.get(np.dtype(dt))
    return torch_dtype.scalar_type if torch_dtype is not None else dt.name.capitalize()


class _ReturnType(tuple):
    """torch.return_types.max and friends: a named (values, indices) pair."""
    _name = "max"

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return f"torch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _return_type(name):
    return builtins.type(name, (_ReturnType,), {"_name": name, "__module__": "torch.return_types"})


# =======================================================================================
# in-place ops (the autograd bookkeeping is in autograd/inplace.py) and out= variants
def _inplace(op, self, inputs, params):
    from .autograd import inplace
    return inplace.apply_inplace(op, self, inputs, params)


def _out_variant(name, out, inputs, compute):
    """op(..., out=t): never differentiable (PyTorch refuses when grad mode would need it);
    the result is computed without a graph and written into ``out``, which PyTorch resizes
    (with a deprecation warning when it had elements) and casts into."""
    Tensor = _tensor.Tensor
    if STATE.enabled and (out._requires_grad or builtins.any(
            isinstance(x, Tensor) and x._requires_grad for x in inputs)):
        raise _errors.out_requires_grad(name)
    prev, STATE.enabled = STATE.enabled, False
    try:
        data = compute()._data
    finally:
        STATE.enabled = prev
    if data.dtype != out._data.dtype and not K.can_cast(data.dtype, out._data.dtype):
        raise _errors.result_type_cast(_dtype_word(_dtypes.FROM_NUMPY[data.dtype]), _dtype_word(out.dtype))
    if data.shape != out._data.shape:
        if out._data.size:
            import warnings
            warnings.warn(_errors.out_resized_warning(out._data.shape, data.shape), UserWarning, stacklevel=3)
        out._data = np.empty(data.shape, dtype=out._data.dtype)
    np.copyto(out._data, data, casting="unsafe")
    out._vbox[0] += 1
    return out
