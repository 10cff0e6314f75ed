"""Making tensors and converting them: torch.tensor, the factories (zeros, ones, full, arange,
linspace, eye, the _like and new_ forms, the legacy torch.Tensor(...) constructor), to(), the
dtype methods (float(), long()...), clone, contiguous and detach; is_tensor and numel."""
import builtins
import math

import numpy as np

from . import _dtypes, _errors, _kernels as K, _meta, _ops, _scalar_store, _tensor
from ._device import device as _device_type, is_meta_device
from ._common import _bool, _float, _int, _max, _new_leaf, _resolve_dtype, _shape_args, apply

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "tensor", "as_tensor", "from_numpy", "scalar_tensor", "_check_sizes", "zeros", "ones", "empty", "full",
    "zeros_like", "ones_like", "empty_like", "full_like", "new_zeros", "new_ones", "new_empty", "new_full",
    "new_tensor", "arange", "linspace", "eye", "legacy_constructor", "to_dtype", "to", "float", "double", "half",
    "bfloat16", "long", "int", "bool", "byte", "char", "short", "cfloat", "cdouble", "type", "type_as", "cpu", "cuda",
    "clone", "contiguous", "detach", "is_tensor", "numel",
)
TORCH = (
    "tensor", "as_tensor", "from_numpy", "scalar_tensor", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
    "empty_like", "full_like", "arange", "linspace", "eye", "clone", "detach", "is_tensor", "numel",
)
METHODS = (
    "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor", "to", "float", "double", "half", "bfloat16",
    "long", "int", "bool", "byte", "char", "short", "cfloat", "cdouble", "type", "type_as", "cpu", "cuda", "clone",
    "contiguous",
)



def _infer_array(data, dtype=None):
    """A numpy array of ``data`` in ``dtype``, or in PyTorch's inferred dtype for Python data.

    Python numbers are unpacked one by one for that dtype (see _scalar_store), so a number
    the dtype cannot hold raises PyTorch's error instead of wrapping in numpy."""
    if isinstance(data, _tensor.Tensor):
        return data._data
    if isinstance(data, np.ndarray):
        return data
    if isinstance(data, (list, tuple)):
        flat = _flatten_python(data)
        if builtins.any(isinstance(v, _tensor.Tensor) for v in flat):
            data = _nested_map(data, lambda v: v._data if isinstance(v, _tensor.Tensor) else v)
            flat = [np.asarray(v).reshape(-1)[0] if isinstance(v, np.ndarray) else v for v in _flatten_python(data)]
        target = dtype or _inferred_dtype({_scalar_kind(v) for v in flat})
    else:
        target = dtype or _inferred_dtype({_scalar_kind(data)})
    stored = np.array(_scalar_store.store_nested(data, target))
    with np.errstate(over="ignore"):  # PyTorch rounds 1e19 to float16's inf without a word
        return stored.astype(target.np)


def _inferred_dtype(kinds):
    """PyTorch's dtype for Python data holding these kinds of scalars (empty: the default)."""
    if "c" in kinds:
        return _dtypes.DEFAULTS.float_dtype.to_complex()
    if "f" in kinds:
        return _dtypes.DEFAULTS.float_dtype
    if "i" in kinds:
        return _dtypes.int64
    if "b" in kinds:
        return _dtypes.bool
    return _dtypes.DEFAULTS.float_dtype


def _scalar_kind(v):
    if isinstance(v, (_bool, np.bool_)):
        return "b"
    if isinstance(v, (_int, np.integer)):
        return "i"
    if isinstance(v, complex):
        return "c"
    if isinstance(v, (_float, np.floating)):
        return "f" if not isinstance(v, np.floating) else "f"
    if isinstance(v, np.ndarray):
        return v.dtype.kind if v.dtype.kind != "u" else "i"
    raise TypeError(f"new(): invalid data type '{builtins.type(v).__name__}'")


def _flatten_python(data):
    out, stack = [], [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        else:
            out.append(item)
    return out


def _nested_map(data, fn):
    if isinstance(data, (list, tuple)):
        return [_nested_map(v, fn) for v in data]
    return fn(data)


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if isinstance(data, _tensor.Tensor):
        import warnings
        warnings.warn(_errors.COPY_CONSTRUCT_WARNING, UserWarning, stacklevel=2)
    dtype = _resolve_dtype(dtype)
    # Python numbers go straight to the requested dtype (0.3 stays 0.3 in float64, 10**19
    # is a float64 and not an int64 first), as PyTorch stores each one for it.
    array = np.array(_infer_array(data, dtype), copy=True)
    if dtype is not None:
        array = array.astype(dtype.np)
    return _new_leaf(_placed(array, device), requires_grad)


def _placed(array, device):
    """A new tensor's array on ``device``: a meta placeholder of its shape and dtype, or itself."""
    return _meta.placeholder(array.shape, array.dtype) if is_meta_device(device) else array


def _own_device(self, device):
    """The device of Tensor.new_*(): the tensor's own unless one is given."""
    return device if device is not None else self.device


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, _tensor.Tensor) and (dtype is None or data.dtype is _resolve_dtype(dtype)):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or _resolve_dtype(dtype).np == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array):
    _dtypes.of_array(array)
    return _new_leaf(array)


def scalar_tensor(value, dtype=None):
    """A Python number as PyTorch wraps it: float -> float64, int -> int64, bool -> bool."""
    if dtype is None:
        dtype = {"b": _dtypes.bool, "i": _dtypes.int64, "f": _dtypes.float64, "c": _dtypes.complex128}[
            _scalar_kind(value)]
    return _new_leaf(np.array(value, dtype=_resolve_dtype(dtype).np))


def _factory(fill, size, dtype, requires_grad, default=None, device=None):
    shape = _shape_args(size)
    _check_sizes(shape)
    dt = _resolve_dtype(dtype) or default or _dtypes.DEFAULTS.float_dtype
    if is_meta_device(device):
        return _new_leaf(_meta.placeholder(shape, dt.np), requires_grad)  # any size: nothing is allocated
    K.check_allocation(math.prod(shape), dt.np)
    try:
        return _new_leaf(fill(shape, dt.np), requires_grad)
    except MemoryError as exc:
        raise _errors.from_memory_error(exc) from None


def _factory_size(name, size, keyword):
    """A factory's sizes, given positionally (zeros(2, 3), zeros((2, 3))) or as size=(2, 3)."""
    if keyword:
        unexpected = [k for k in keyword if k != "size"]
        if unexpected:
            raise TypeError(f"{name}() got an unexpected keyword argument '{unexpected[0]}'")
        if size:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        return (keyword["size"],)
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    return size


def _check_sizes(shape):
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, shape))}]")


def zeros(*size, dtype=None, device=None, requires_grad=False, layout=None, out=None, **keyword):
    size = _factory_size("zeros", size, keyword)
    if builtins.any(s < 0 for s in _shape_args(size)):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _factory(np.zeros, size, dtype, requires_grad, device=device)


def ones(*size, dtype=None, device=None, requires_grad=False, layout=None, out=None, **keyword):
    return _factory(np.ones, _factory_size("ones", size, keyword), dtype, requires_grad, device=device)


def empty(*size, dtype=None, device=None, requires_grad=False, layout=None, out=None, memory_format=None,
          **keyword):
    # Uninitialised in PyTorch; zeros here so runs repeat.
    return _factory(np.zeros, _factory_size("empty", size, keyword), dtype, requires_grad, device=device)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    default = _dtypes.scalar_dtype(fill_value)
    if default is _dtypes.float64:
        default = _dtypes.DEFAULTS.float_dtype
    return _factory(lambda s, d: np.full(s, fill_value, dtype=d), (tuple(size),), dtype, requires_grad, default,
                    device)


def _like(fill, t, dtype, requires_grad, device=None):
    """A new tensor shaped like ``t``, on ``t``'s device unless ``device`` names another (a
    device context does not apply to the _like factories, as in PyTorch)."""
    dt = _resolve_dtype(dtype) or t.dtype
    if is_meta_device(device) if device is not None else _meta.is_meta(t._data):
        return _new_leaf(_meta.placeholder(t._data.shape, dt.np), requires_grad)
    K.check_allocation(t._data.size, dt.np)
    return _new_leaf(fill(t._data.shape, dt.np), requires_grad)


def zeros_like(input, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    return _like(np.zeros, input, dtype, requires_grad, device)


def ones_like(input, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    return _like(np.ones, input, dtype, requires_grad, device)


def empty_like(input, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    return _like(np.zeros, input, dtype, requires_grad, device)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _like(lambda s, d: np.full(s, fill_value, dtype=d), input, dtype, requires_grad, device)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, **keyword):
    size = _factory_size("new_zeros", size, keyword)  # PyTorch also takes size=(2, 3)
    return zeros(*size, dtype=dtype or self.dtype, device=_own_device(self, device), requires_grad=requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False, **keyword):
    size = _factory_size("new_ones", size, keyword)  # PyTorch also takes size=(2, 3)
    return ones(*size, dtype=dtype or self.dtype, device=_own_device(self, device), requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False, **keyword):
    size = _factory_size("new_empty", size, keyword)  # PyTorch also takes size=(2, 3)
    return zeros(*size, dtype=dtype or self.dtype, device=_own_device(self, device), requires_grad=requires_grad)


def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or self.dtype, device=_own_device(self, device),
                requires_grad=requires_grad)


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    return tensor(data, dtype=dtype or self.dtype, device=_own_device(self, device), requires_grad=requires_grad)


def arange(*args, dtype=None, device=None, requires_grad=False, out=None, **bounds):
    values = list(_arange_bounds(args, bounds))
    values = [v.item() if isinstance(v, _tensor.Tensor) else v for v in values]
    if dtype is None:
        dtype = (_dtypes.DEFAULTS.float_dtype if builtins.any(isinstance(v, _float) for v in values) else _dtypes.int64)
    dt = _resolve_dtype(dtype)
    if values[2] == 0:
        raise RuntimeError("step must be nonzero")
    if (values[1] - values[0]) * values[2] < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = _max(0, _int(np.ceil((values[1] - values[0]) / values[2])))
    if is_meta_device(device):
        return _new_leaf(_meta.placeholder((n,), dt.np), requires_grad)
    K.check_allocation(n, dt.np)
    data = (values[0] + np.arange(n, dtype=np.float64) * values[2]).astype(dt.np)
    return _new_leaf(data, requires_grad)


def _arange_bounds(args, bounds):
    """(start, end, step) from PyTorch's overloads arange(end), arange(start, end) and
    arange(start, end, step), each bound given by position or by name."""
    if len(args) == 1 and not bounds:
        if args[0] is None:
            raise _errors.argument_type("arange", "end", 1, "Number", "NoneType")
        return 0, args[0], 1
    if not args and builtins.list(bounds) == ["end"]:
        return 0, bounds["end"], 1
    named = dict(zip(("start", "end", "step"), args))
    fits = len(args) <= 3 and builtins.all(k in ("start", "end", "step") and k not in named for k in bounds)
    named.update(bounds)
    if fits and "start" in named and "end" in named and None not in named.values():
        return named["start"], named["end"], named.get("step", 1)
    if len(args) + len(bounds) == 1 and "end" not in named:
        raise TypeError('arange() missing 1 required positional arguments: "end"')
    raise _errors.invalid_arguments("arange", _errors.parser_got(args, bounds))


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None):
    dt = _resolve_dtype(dtype) or _dtypes.DEFAULTS.float_dtype
    steps = _int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    K.check_allocation(steps, dt.np)
    if steps == 1:  # a single step is the start (PyTorch fills it), not the end
        values = np.array([start], dtype=np.float64)
    else:
        values = _fused_ramp(start, end, steps, dt.np if dt.is_floating_point else np.float64)
    return _new_leaf(_placed(values.astype(dt.np), device), requires_grad)


def _fused_ramp(start, end, steps, np_dtype):
    """PyTorch's CPU linspace: the first half counts up from start, the second half down
    from end, each value one fused multiply-add in the output precision. float64 holds a
    float32 product exactly, which reproduces the single rounding of the FMA bit for bit."""
    kind = np.dtype(np_dtype).type
    start, end = kind(start), kind(end)
    step = (end - start) / kind(steps - 1) if steps > 1 else kind(0)
    idx = np.arange(steps, dtype=np.float64)
    if kind is np.float64:
        up = K.fma64(np.float64(step), idx, np.float64(start))
        down = K.fma64(-np.float64(step), steps - 1 - idx, np.float64(end))
    else:
        up = np.float64(start) + np.float64(step) * idx
        down = np.float64(end) - np.float64(step) * (steps - 1 - idx)
    return np.where(idx < steps // 2, up, down).astype(np_dtype)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    dt = _resolve_dtype(dtype) or _dtypes.DEFAULTS.float_dtype
    K.check_allocation(n * (n if m is None else m), dt.np)
    return _new_leaf(_placed(np.eye(n, m, dtype=dt.np), device), requires_grad)


def legacy_constructor(cls, args, kwargs, dtype=None):
    """torch.Tensor(3, 5) (sizes) and torch.Tensor([[1, 2]]) (data), always floating."""
    dt = _resolve_dtype(kwargs.pop("dtype", None)) or dtype or _dtypes.DEFAULTS.float_dtype
    kwargs.pop("device", None)
    if not args:
        return _new_leaf(np.zeros((0,), dtype=dt.np), cls=cls)
    if len(args) == 1 and isinstance(args[0], np.ndarray):
        return _new_leaf(args[0].astype(dt.np), cls=cls)
    if len(args) == 1 and isinstance(args[0], _tensor.Tensor):
        return args[0]
    if builtins.all(isinstance(a, (_int, np.integer)) and not isinstance(a, _bool) for a in args):
        K.check_allocation(math.prod(_int(a) for a in args), dt.np)
        return _new_leaf(np.zeros(tuple(args), dtype=dt.np), cls=cls)
    if len(args) == 1 and isinstance(args[0], _tensor.Size):
        return _new_leaf(np.zeros(tuple(args[0]), dtype=dt.np), cls=cls)
    return _new_leaf(np.array(_infer_array(args[0], dt), dtype=dt.np), cls=cls)


def to_dtype(input, dtype):
    if input._data.dtype == dtype.np:
        return input
    return apply(_ops.to_copy, (input,), {"dtype": dtype})


def to(self, *args, **kwargs):
    dtype, device = kwargs.get("dtype"), kwargs.get("device")
    for a in args:
        if isinstance(a, _dtypes.dtype):
            dtype = a
        elif isinstance(a, _tensor.Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, _device_type)):
            device = a
    dtype = _resolve_dtype(dtype) if dtype is not None else self.dtype
    if device is not None and is_meta_device(device) != _meta.is_meta(self._data):
        return _to_other_device(self, dtype, is_meta_device(device))
    if kwargs.get("copy") and dtype is self.dtype:
        return apply(_ops.to_copy, (self,), {"dtype": dtype})
    return to_dtype(self, dtype)


def _to_other_device(self, dtype, to_meta):
    """cpu -> meta: a copy (ToCopyBackward0 when it needs grad) that keeps the shape and dtype
    and drops the data; meta -> cpu: PyTorch's refusal, there is nothing to copy."""
    if not to_meta:
        raise _errors.meta_no_data()
    result = apply(_ops.to_copy, (self,), {"dtype": dtype})
    result._data = _meta.placeholder(result._data.shape, result._data.dtype)  # not yet seen by anyone
    return result


def _converter(dtype, name):
    """Tensor.float(), .double(), ...: to_dtype with a fixed dtype."""
    def convert(self, memory_format=None):
        return to_dtype(self, dtype)
    convert.__name__ = convert.__qualname__ = name
    return convert


float = _converter(_dtypes.float32, "float")
double = _converter(_dtypes.float64, "double")
half = _converter(_dtypes.float16, "half")
bfloat16 = _converter(_dtypes.bfloat16, "bfloat16")
long = _converter(_dtypes.int64, "long")
int = _converter(_dtypes.int32, "int")
bool = _converter(_dtypes.bool, "bool")
byte = _converter(_dtypes.uint8, "byte")
char = _converter(_dtypes.int8, "char")
short = _converter(_dtypes.int16, "short")
cfloat = _converter(_dtypes.complex64, "cfloat")
cdouble = _converter(_dtypes.complex128, "cdouble")


def type(self, dtype=None, non_blocking=False):
    if dtype is None:
        return "torch." + self.dtype.legacy_name
    if isinstance(dtype, str):
        name = dtype.split(".")[-1]
        for d in _dtypes.ALL:
            if d.legacy_name == name:
                return to_dtype(self, d)
    if isinstance(dtype, builtins.type) and hasattr(dtype, "_dtype"):
        return to_dtype(self, dtype._dtype)
    return to_dtype(self, _resolve_dtype(dtype))


def type_as(self, other):
    return to_dtype(self, other.dtype)


def cpu(self, memory_format=None):
    if _meta.is_meta(self._data):
        raise _errors.meta_no_data()
    return self


def cuda(self, device=None, non_blocking=False, memory_format=None):
    raise AssertionError("Torch not compiled with CUDA enabled")


def clone(input, *, memory_format=None):
    contiguous = memory_format is not None and "contiguous" in str(memory_format)
    return apply(_ops.clone, (input,), {"memory_format": "contiguous" if contiguous else "preserve"})


def contiguous(self, memory_format=None):
    if self._data.flags.c_contiguous:
        return self
    return apply(_ops.clone, (self,), {"memory_format": "contiguous"})


def detach(input):
    # Shares storage and version counter, so in-place changes are still caught at backward.
    t = _tensor.Tensor._make(input._data, None, input._vbox)
    if input._inference:
        t._inference = True
    return t


# =======================================================================================
# questions about a tensor (torch.is_tensor, torch.numel)
def is_tensor(x):
    return isinstance(x, _tensor.Tensor)


def numel(input):
    return input._data.size
