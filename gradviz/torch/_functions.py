"""The torch-facing functions: PyTorch's signatures and argument rules, dispatching to
the op table (``_ops``) through ``autograd.graph.apply``. Tensor methods are these
functions with the tensor first (see TENSOR_METHODS)."""
import builtins
import copy as _copy
import functools
import math
import numbers

import numpy as np

from . import _dtypes, _errors, _kernels as K, _ops
from . import _tensor
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


class device:
    __module__ = "torch"

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type = type.type
        self.type = str(type).split(":")[0]
        self.index = index

    def __repr__(self):
        return f"device(type='{self.type}')"

    def __str__(self):
        return self.type

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(self.type)


CPU = device("cpu")


def _T():
    return _tensor.Tensor


def is_tensor(x):
    return isinstance(x, _tensor.Tensor)


def wrap_dim(dim, ndim):
    n = _max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


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


# =======================================================================================
# constructors
def _resolve_dtype(dtype):
    if dtype is None or isinstance(dtype, _dtypes.dtype):
        return dtype
    if isinstance(dtype, str):
        return _dtypes.ALIASES.get(dtype) or getattr(_dtypes, dtype)
    if dtype in (_float, _int, _bool):
        return {_float: _dtypes.float64, _int: _dtypes.int64, _bool: _dtypes.bool}[dtype]
    return _dtypes.FROM_NUMPY[np.dtype(dtype)]


def _infer_array(data):
    """A numpy array with PyTorch's inferred dtype for Python data."""
    if isinstance(data, _tensor.Tensor):
        return data._data
    if isinstance(data, np.ndarray):
        return data
    if isinstance(data, (list, tuple)):
        flat = _flatten_python(data)
        if builtins.any(isinstance(v, _tensor.Tensor) for v in flat):
            data = _nested_map(data, lambda v: v._data if isinstance(v, _tensor.Tensor) else v)
            flat = [np.asarray(v).reshape(-1)[0] if isinstance(v, np.ndarray) else v for v in _flatten_python(data)]
        kinds = {_scalar_kind(v) for v in flat}
        _check_nested_lengths(data)
        arr = np.array(data)
        if "c" in kinds:
            return arr.astype(_dtypes.DEFAULTS.float_dtype.to_complex().np)
        if "f" in kinds:
            return arr.astype(_dtypes.DEFAULTS.float_dtype.np)
        if "i" in kinds:
            return arr.astype(np.int64)
        if "b" in kinds:
            return arr.astype(np.bool_)
        return arr.astype(_dtypes.DEFAULTS.float_dtype.np)
    kind = _scalar_kind(data)
    return np.array(data, dtype={"c": _dtypes.DEFAULTS.float_dtype.to_complex().np,
                                 "f": _dtypes.DEFAULTS.float_dtype.np, "i": np.int64, "b": np.bool_}[kind])


def _check_nested_lengths(data):
    """PyTorch's ragged-list errors: every sequence at a depth has the length of the first
    one there (sizes follow the first elements), and sequences stop at the same depth."""
    sizes, probe = [], data
    while isinstance(probe, (list, tuple)):
        sizes.append(len(probe))
        if not probe:
            break
        probe = probe[0]
    stack = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        if depth == len(sizes):
            continue
        if not isinstance(item, (list, tuple)):
            if isinstance(item, (np.ndarray, _tensor.Tensor)):
                continue
            raise TypeError("not a sequence")
        if len(item) != sizes[depth]:
            raise ValueError(f"expected sequence of length {sizes[depth]} at dim {depth} (got {len(item)})")
        stack.extend((child, depth + 1) for child in reversed(item))


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


def _new_leaf(array, requires_grad=False, cls=None):
    t = (_tensor.Tensor if cls is None else cls)._make(array)
    if STATE.inference:
        t._inference = True
    if requires_grad:
        if array.dtype.kind not in "fc":
            raise _errors.factory_requires_grad_not_float()
        t._requires_grad = True
    return t


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if isinstance(data, _tensor.Tensor):
        import warnings
        warnings.warn(_errors.COPY_CONSTRUCT_WARNING, UserWarning, stacklevel=2)
    dtype = _resolve_dtype(dtype)
    if dtype is not None and dtype.is_floating_point and not isinstance(data, (_tensor.Tensor, np.ndarray)):
        # Python numbers go straight to the requested precision (0.3 stays 0.3 in float64),
        # rather than through the default dtype first.
        previous = _dtypes.DEFAULTS.float_dtype
        _dtypes.DEFAULTS.float_dtype = dtype if dtype.itemsize >= 4 else _dtypes.float32
        try:
            array = np.array(_infer_array(data), copy=True)
        finally:
            _dtypes.DEFAULTS.float_dtype = previous
    else:
        array = np.array(_infer_array(data), copy=True)
    if dtype is not None:
        array = array.astype(dtype.np)
    return _new_leaf(array, requires_grad)


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, _tensor.Tensor) and (dtype is None or data.dtype is _resolve_dtype(dtype)):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or _resolve_dtype(dtype).np == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def from_numpy(array):
    _dtypes.of_array(array)
    return _new_leaf(array)


def scalar_tensor(value, dtype=None):
    """A Python number as PyTorch wraps it: float -> float64, int -> int64, bool -> bool."""
    if dtype is None:
        dtype = {"b": _dtypes.bool, "i": _dtypes.int64, "f": _dtypes.float64, "c": _dtypes.complex128}[
            _scalar_kind(value)]
    return _new_leaf(np.array(value, dtype=_resolve_dtype(dtype).np))


def _factory(fill, size, dtype, requires_grad, default=None):
    shape = _shape_args(size)
    _check_sizes(shape)
    dt = _resolve_dtype(dtype) or default or _dtypes.DEFAULTS.float_dtype
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
    return _factory(np.zeros, size, dtype, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, layout=None, out=None, **keyword):
    return _factory(np.ones, _factory_size("ones", size, keyword), dtype, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, layout=None, out=None, memory_format=None,
          **keyword):
    # Uninitialised in PyTorch; zeros here so runs repeat.
    return _factory(np.zeros, _factory_size("empty", size, keyword), dtype, requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    default = _dtypes.scalar_dtype(fill_value)
    if default is _dtypes.float64:
        default = _dtypes.DEFAULTS.float_dtype
    return _factory(lambda s, d: np.full(s, fill_value, dtype=d), (tuple(size),), dtype, requires_grad, default)


def _like(fill, t, dtype, requires_grad):
    dt = _resolve_dtype(dtype) or t.dtype
    return _new_leaf(fill(t._data.shape, dt.np), requires_grad)


def zeros_like(input, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    return _like(np.zeros, input, dtype, requires_grad)


def ones_like(input, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    return _like(np.ones, input, dtype, requires_grad)


def empty_like(input, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    return _like(np.zeros, input, dtype, requires_grad)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _like(lambda s, d: np.full(s, fill_value, dtype=d), input, dtype, requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None):
    if end is None:
        start, end = 0, start
    values = [start, end, step]
    values = [v.item() if isinstance(v, _tensor.Tensor) else v for v in values]
    if dtype is None:
        dtype = (_dtypes.DEFAULTS.float_dtype if builtins.any(isinstance(v, _float) for v in values) else _dtypes.int64)
    dt = _resolve_dtype(dtype)
    if values[2] == 0:
        raise RuntimeError("step must be nonzero")
    if (values[1] - values[0]) * values[2] < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = _max(0, _int(np.ceil((values[1] - values[0]) / values[2])))
    data = (values[0] + np.arange(n, dtype=np.float64) * values[2]).astype(dt.np)
    return _new_leaf(data, requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None):
    dt = _resolve_dtype(dtype) or _dtypes.DEFAULTS.float_dtype
    steps = _int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if steps == 1:  # a single step is the start (PyTorch fills it), not the end
        values = np.array([start], dtype=np.float64)
    else:
        values = _fused_ramp(start, end, steps, dt.np if dt.is_floating_point else np.float64)
    return _new_leaf(values.astype(dt.np), requires_grad)


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
    return _new_leaf(np.eye(n, m, dtype=dt.np), requires_grad)


# ----- complex numbers (_fn_complex) ------------------------------------------------------
from ._fn_complex import angle, conj, imag, polar, real, view_as_complex, view_as_real  # noqa: E402,F401

# ----- random numbers: PyTorch's generator and draws (_fn_random) ---------------------
from ._fn_random import (  # noqa: E402,F401
    Generator, default_generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state, rand, randn,
    randint, randperm, normal, bernoulli, multinomial, rand_like, randn_like, randint_like, uniform_, normal_,
    bernoulli_, exponential_, cauchy_, log_normal_, geometric_, random_)


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
        return _new_leaf(np.zeros(tuple(args), dtype=dt.np), cls=cls)
    if len(args) == 1 and isinstance(args[0], _tensor.Size):
        return _new_leaf(np.zeros(tuple(args[0]), dtype=dt.np), cls=cls)
    return _new_leaf(np.array(_infer_array(args[0]), dtype=dt.np), cls=cls)


# =======================================================================================
# arithmetic
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
        return from_numpy(x)
    raise TypeError(f"unsupported operand type: '{builtins.type(x).__name__}'")


def as_tensor_like(x, like):
    if isinstance(x, _tensor.Tensor):
        return x
    return scalar_tensor(x) if _is_number(x) else tensor(x)


_ALPHA_ONE = _ops.ALPHA_ONE


def _alpha(alpha):
    return _ALPHA_ONE if builtins.type(alpha) is _int and alpha == 1 else {"alpha": alpha}


def add(input, other, *, alpha=1, out=None):
    kind = builtins.type(other)
    if builtins.type(input) is _tensor.Tensor and (kind is _tensor.Tensor or kind is _float) and out is None:
        return apply_binary(_ops.add, input, other, _alpha(alpha))  # the checks below pass these by
    if out is not None:
        return _out_variant("add", out, (input, other), lambda: add(input, other, alpha=alpha))
    if _is_number(input):
        input, other = other, input
    return apply(_ops.add, (input, _other(other)), _alpha(alpha))


def sub(input, other, *, alpha=1, out=None):
    if out is not None:
        return _out_variant("sub", out, (input, other), lambda: sub(input, other, alpha=alpha))
    _check_no_bool_subtraction(input, other)
    return apply(_ops.sub, (input, _other(other)), _alpha(alpha))


subtract = sub


def _is_bool_operand(x):
    return x._data.dtype == np.bool_ if isinstance(x, _tensor.Tensor) else isinstance(x, (_bool, np.bool_))


def _check_no_bool_subtraction(a, b):
    """PyTorch refuses `-` with bool operands (a mask is inverted with ~)."""
    a_bool, b_bool = _is_bool_operand(a), _is_bool_operand(b)
    if a_bool and b_bool:
        raise _errors.bool_subtraction(both=True)
    if a_bool or b_bool:
        raise _errors.bool_subtraction(both=False)


def rsub(input, other, *, alpha=1):
    _check_no_bool_subtraction(input, other)
    if _is_number(other):
        return apply(_ops.rsub_scalar, (input, other), _alpha(alpha))
    return apply(_ops.rsub, (input, other), _alpha(alpha))


# C++ gradient formulas combine a tensor with a number through ATen's Scalar overloads, whose
# nodes (AddBackward1, MulBackward1...) differ from those of Python's ``t + 1`` (AddBackward0);
# the op table's formulas use these where PyTorch's do, so double-backward graphs match.
def scalar_add(input, number):
    return apply(_ops.add_scalar, (input, number), _ops.ALPHA_ONE)


def scalar_sub(input, number):
    return apply(_ops.sub_scalar, (input, number), _ops.ALPHA_ONE)


def scalar_mul(input, number):
    return apply(_ops.mul_scalar, (input,), {"other": number})


_NO_OPTIONS = graph._NO_OPTIONS  # shared by the calls of ops without options (nothing writes to it)


def mul(input, other, *, out=None):
    kind = builtins.type(other)
    if builtins.type(input) is _tensor.Tensor and (kind is _tensor.Tensor or kind is _float) and out is None:
        return apply_binary(_ops.mul, input, other, _NO_OPTIONS)  # the checks below pass these by
    if out is not None:
        return _out_variant("mul", out, (input, other), lambda: mul(input, other))
    if _is_number(input):
        input, other = other, input
    return apply(_ops.mul, (input, _other(other)), {})


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    if out is not None:
        return _out_variant("div", out, (input, other), lambda: div(input, other, rounding_mode=rounding_mode))
    if rounding_mode is not None:
        return _rounded_div(input, other, rounding_mode)
    return apply(_ops.div, (input, _other(other)), {})


true_divide = divide = div


def rdiv(input, other):
    """other / input for a Python number ``other``: PyTorch computes reciprocal * other."""
    if _is_number(other):
        return mul(apply(_ops.reciprocal, (input,), {}), other)
    return div(other, input)


def _rounded_div(input, other, mode):
    return apply(_ops.div_rounding, (input, _other(other)), {"rounding_mode": mode})


def floor_divide(input, other):
    return apply(_ops.floor_divide, (input, _other(other)), {})


def remainder(input, other):
    if _is_number(other):
        return apply(_ops.remainder, (input,), {"other": other})
    return apply(_ops.remainder_tensor, (input, other), {})


def fmod(input, other):
    if _is_number(other):
        return apply(_ops.fmod, (input,), {"other": other})
    return apply(_ops.fmod_tensor, (input, other), {})


def not_implemented(what):
    raise _errors.aten_derivative_not_implemented(what)


def derivative_not_implemented(what):
    """A formula PyTorch lists as not_implemented("..."): raised when backward reaches it."""
    raise _errors.derivative_not_implemented(what)


# ----- special functions --------------------------------------------------------------
def lgamma(input):
    return apply(_ops.lgamma, (input,), {})


def digamma(input):
    return apply(_ops.digamma, (input,), {})


def polygamma(n, input):
    return apply(_ops.polygamma, (input,), {"n": _int(n)})


def igamma(input, other):
    return apply(_ops.igamma, (input, _other(other)), {})


def igammac(input, other):
    return apply(_ops.igammac, (input, _other(other)), {})


def zeta(input, other):
    """torch.special.zeta (Hurwitz): either argument may be a Python number."""
    if _is_number(input):
        return apply(_ops.zeta_scalar_self, (other,), {"self": input})
    if _is_number(other):
        return apply(_ops.zeta_scalar_other, (input,), {"other": other})
    return apply(_ops.zeta, (input, other), {})


def neg(input):
    if input._data.dtype == np.bool_:
        raise _errors.bool_negation()
    return apply(_ops.neg, (input,), {})


negative = neg


def reciprocal(input):
    return apply(_ops.reciprocal, (input,), {})


def pow(input, exponent):
    if _is_number(input):
        return rpow(exponent, input)
    if _is_number(exponent):
        return apply(_ops.pow_scalar, (input,), {"exponent": exponent})
    return apply(_ops.pow_tensor, (input, exponent), {})


def rpow(input, base):
    """base ** input for a Python number ``base``."""
    return apply(_ops.pow_scalar_base, (base, input), {})


def _unary(op, name):
    """A torch function that applies one elementwise op to one tensor."""
    def fn(input):
        return apply_unary(op, input)
    fn.__name__ = fn.__qualname__ = name
    return fn


exp = _unary(_ops.exp, "exp")
log = _unary(_ops.log, "log")
sin = _unary(_ops.sin, "sin")
cos = _unary(_ops.cos, "cos")
tanh = _unary(_ops.tanh, "tanh")
sigmoid = _unary(_ops.sigmoid, "sigmoid")
relu = _unary(_ops.relu, "relu")
sqrt = _unary(_ops.sqrt, "sqrt")
abs = _unary(_ops.abs, "abs")


absolute = abs


sign = _unary(_ops.sign, "sign")
sgn = _unary(_ops.sgn, "sgn")
log1p = _unary(_ops.log1p, "log1p")
expm1 = _unary(_ops.expm1, "expm1")
rsqrt = _unary(_ops.rsqrt, "rsqrt")
floor = _unary(_ops.floor, "floor")
ceil = _unary(_ops.ceil, "ceil")
trunc = _unary(_ops.trunc, "trunc")
frac = _unary(_ops.frac, "frac")
tan = _unary(_ops.tan, "tan")
asin = _unary(_ops.asin, "asin")
acos = _unary(_ops.acos, "acos")
atan = _unary(_ops.atan, "atan")
sinh = _unary(_ops.sinh, "sinh")
cosh = _unary(_ops.cosh, "cosh")
log2 = _unary(_ops.log2, "log2")
log10 = _unary(_ops.log10, "log10")
erf = _unary(_ops.erf, "erf")
fix = trunc
arcsin, arccos, arctan = asin, acos, atan


def round(input, *, decimals=0):
    if decimals:
        return apply(_ops.round_decimals, (input,), {"decimals": decimals})
    return apply(_ops.round, (input,), {})


def square(input):
    return pow(input, 2)


def atan2(input, other):
    return apply(_ops.atan2, (input, _other(other)), {})


arctan2 = atan2


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    info = np.finfo(input._data.dtype)
    return apply(_ops.nan_to_num, (input,), {"nan": nan, "posinf": info.max if posinf is None else posinf,
                                             "neginf": info.min if neginf is None else neginf})


def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, _tensor.Tensor) or isinstance(max, _tensor.Tensor):
        bounds = [b if b is None or isinstance(b, _tensor.Tensor) else scalar_tensor(b, input.dtype) for b in (min, max)]
        return apply(_ops.clamp_tensor, (input, *bounds), {})
    return apply(_ops.clamp, (input,), {"min": min, "max": max})


clip = clamp


def clamp_min(input, min):
    if isinstance(min, _tensor.Tensor):
        return apply(_ops.clamp_min_tensor, (input, min), {})
    return apply(_ops.clamp_min, (input,), {"min": min})


def clamp_max(input, max):
    if isinstance(max, _tensor.Tensor):
        return apply(_ops.clamp_max_tensor, (input, max), {})
    return apply(_ops.clamp_max, (input,), {"max": max})


def _data_of(x):
    return x._data if isinstance(x, _tensor.Tensor) else x


def clamp_mask(t, lo, hi):
    """Where clamp passed its input through (the gradient mask)."""
    data = t._data
    mask = np.ones(data.shape, dtype=np.bool_)
    if lo is not None:
        mask = mask & (data >= _data_of(lo))
    if hi is not None:
        mask = mask & (data <= _data_of(hi))
    return _new_leaf(mask)


def clamp_min_taken(t, lo, hi):
    """Where a tensor lower bound was clamp's value (PyTorch: not where it lost to max)."""
    data, lo = t._data, _data_of(lo)
    mask = data < lo
    if hi is not None:
        mask = mask & (lo < _data_of(hi))
    return _new_leaf(np.asarray(mask))


def clamp_max_taken(t, lo, hi):
    """Where a tensor upper bound was clamp's value (including every place where max < min)."""
    data, hi = t._data, _data_of(hi)
    mask = data > hi
    if lo is not None:
        mask = mask | (hi < _data_of(lo))
    return _new_leaf(np.asarray(mask))


def threshold_backward(grad, self, threshold):
    return apply(_ops.threshold_backward, (grad, self), {"threshold": threshold})


def tanh_backward(grad_output, output):
    return apply(_ops.tanh_backward, (grad_output, output), _NO_OPTIONS)


def sigmoid_backward(grad_output, output):
    return apply(_ops.sigmoid_backward, (grad_output, output), _NO_OPTIONS)


def tensor_where(self, condition, y):
    """Tensor.where(condition, y): self where condition holds, else y."""
    return where(condition, self, y)


def where(condition, input=None, other=None):
    if input is None:
        return tuple(_new_leaf(i.astype(np.int64)) for i in np.nonzero(condition._data))
    if condition._data.dtype != np.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_dtype_word(condition.dtype)}")
    input, other = _other(input), _other(other)
    K.broadcast_shapes(*(np.shape(getattr(x, "_data", x)) for x in (condition, input, other)))
    return apply(_ops.where, (condition, input, other), {})


def to_dtype(input, dtype):
    if input._data.dtype == dtype.np:
        return input
    return apply(_ops.to_copy, (input,), {"dtype": dtype})


def to(self, *args, **kwargs):
    dtype = kwargs.get("dtype")
    for a in args:
        if isinstance(a, _dtypes.dtype):
            dtype = a
        elif isinstance(a, _tensor.Tensor):
            dtype = a.dtype
    dtype = _resolve_dtype(dtype) if dtype is not None else self.dtype
    if kwargs.get("copy") and dtype is self.dtype:
        return apply(_ops.to_copy, (self,), {"dtype": dtype})
    return to_dtype(self, dtype)


def _converter(dtype, name):
    """Tensor.float(), .double(), ...: to_dtype with a fixed dtype."""
    def convert(self, memory_format=None):
        return to_dtype(self, dtype)
    convert.__name__ = convert.__qualname__ = name
    return convert


float = _converter(_dtypes.float32, "float")
double = _converter(_dtypes.float64, "double")
half = _converter(_dtypes.float16, "half")
long = _converter(_dtypes.int64, "long")
int = _converter(_dtypes.int32, "int")
bool = _converter(_dtypes.bool, "bool")


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
# linear algebra
def mm(input, mat2, *, out=None):
    if out is not None:
        return _out_variant("mm", out, (input, mat2), lambda: mm(input, mat2))
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    K.check_mm(input._data, mat2._data)
    _check_same_dtype(input, mat2, "mm")
    return apply(_ops.mm, (input, mat2), {})


_C_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
                 "int8": "signed char", "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half"}


def _check_same_dtype(a, b, what):
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_C_TYPE_NAMES[a.dtype.name]} != "
                           f"{_C_TYPE_NAMES[b.dtype.name]}")


def mv(input, vec, *, out=None):
    if out is not None:
        return _out_variant("mv", out, (input, vec), lambda: mv(input, vec))
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise _errors.mv_dims(input._data.ndim, vec._data.ndim)
    if input._data.dtype != vec._data.dtype:  # mv's result takes the vector's dtype
        raise _errors.addmv_dtypes(*(_dtype_word(d) for d in (vec.dtype, input.dtype, vec.dtype)))
    if input._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0]}), mat ({input._data.shape[0]}x"
                           f"{input._data.shape[1]}), vec ({vec._data.shape[0]})")
    return apply(_ops.mv, (input, vec), {})


def dot(input, tensor, *, out=None):
    if out is not None:
        return _out_variant("dot", out, (input, tensor), lambda: dot(input, tensor))
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise _errors.dot_dims(input._data.ndim, tensor._data.ndim)
    if input._data.dtype != tensor._data.dtype:
        raise _errors.dot_dtypes(_dtype_word(input.dtype), _dtype_word(tensor.dtype))
    if input._data.shape != tensor._data.shape:
        raise RuntimeError("inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of "
                           "elements, but got {} and {} elements respectively".format(
                               input._data.size, tensor._data.size, input._data.size, tensor._data.size))
    return apply(_ops.dot, (input, tensor), {})


def bmm(input, mat2, *, out=None):
    if out is not None:
        return _out_variant("bmm", out, (input, mat2), lambda: bmm(input, mat2))
    for name, t in (("batch1", input), ("batch2", mat2)):
        if t._data.ndim != 3:
            raise _errors.bmm_not_3d(name)
    batch, n, k = input._data.shape
    if mat2._data.shape[:2] != (batch, k):
        raise _errors.bmm_batch2_size((batch, k), mat2._data.shape[:2])
    if input._data.dtype != mat2._data.dtype:
        raise _errors.scalar_type_mismatch(_dtype_word(input.dtype), _dtype_word(mat2.dtype))
    return apply(_ops.bmm, (input, mat2), {})


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    if out is not None:
        return _out_variant("addmm", out, (input, mat1, mat2), lambda: addmm(input, mat1, mat2, beta=beta, alpha=alpha))
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if t._data.ndim != 2:
            raise _errors.not_a_matrix(name, t._data.ndim)
    K.check_mm(mat1._data, mat2._data)
    for name, t in (("self", input), ("mat1", mat1)):  # ATen checks the bias first
        if isinstance(t, _tensor.Tensor) and t._data.dtype != mat2._data.dtype:
            raise _errors.same_dtype(name, "mat2", _dtype_word(t.dtype), _dtype_word(mat2.dtype))
    _check_expand(input._data.shape, (mat1._data.shape[0], mat2._data.shape[1]))
    return apply(_ops.addmm, (input, mat1, mat2), {"beta": beta, "alpha": alpha})


def matmul(input, other, *, out=None):
    """PyTorch's _matmul_impl: dot / mv / mm for 1-D and 2-D operands; a 3-D+ operand against
    a 1-D or 2-D one is folded into one mm or mv when PyTorch folds it (see _should_fold);
    everything else is expanded to a common batch and goes through one bmm."""
    if out is not None:
        return _out_variant("matmul", out, (input, other), lambda: matmul(input, other))
    a, b = input._data.ndim, other._data.ndim
    if a == 0 or b == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a}D and {b}D")
    if a == 1 and b == 1:
        return dot(input, other)
    if a == 2 and b == 1:
        return mv(input, other)
    if a == 1 and b == 2:
        return _squeeze_result(mm(unsqueeze(input, 0), other), 0)
    if a == 2 and b == 2:
        return mm(input, other)
    if _should_fold(input, other):
        return _folded_matmul(input, other, b > a)
    return _batched_matmul(input, other)


def _should_fold(tensor1, tensor2):
    """PyTorch's should_fold: can the larger operand (>= 3-D, against a 1-D or 2-D one) be
    folded into a matrix for mm / mv? Always when the smaller one requires grad (so its
    gradient is not a batch to sum); otherwise only when folding needs no copy."""
    larger = tensor1._data.ndim >= tensor2._data.ndim
    t1 = tensor1._data if larger else np.swapaxes(tensor2._data, -1, -2)
    small = tensor2 if larger else tensor1
    if not (t1.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small._requires_grad:
        return True
    if tensor1._data.ndim == 2:
        return False
    if t1.size == 0:
        return True
    strides = [st // t1.itemsize for st in t1.strides]
    return builtins.all(strides[i] == strides[i + 1] * t1.shape[i + 1] for i in range(t1.ndim - 2))


def _folded_matmul(input, other, fold_other):
    """One mm / mv on the larger operand folded to a matrix; when that operand is ``other``,
    on its transpose (other^T @ input^T), transposed back."""
    if fold_other:
        t1 = transpose(other, -2, -1)
        t2 = t(input) if input._data.ndim == 2 else input
    else:
        t1, t2 = input, other
    output_shape = tuple(t1._data.shape[:-1])
    folded = reshape(t1, _int(np.prod(output_shape, dtype=np.int64)), t1._data.shape[-1])
    if t2._data.ndim == 2:
        output = _unsafe_view(mm(folded, t2), output_shape + (t2._data.shape[1],))
        # PyTorch copies here (2-D @ 3-D with grad): the transposed result made contiguous.
        return contiguous(transpose(output, -2, -1)) if fold_other else output
    return _unsafe_view(mv(folded, t2), output_shape)


def _unsafe_view(t, size):
    return apply(_ops.unsafe_view, (t,), {"size": tuple(size), "self_sym_sizes": t._data.shape})


def _squeeze_result(t, dim):
    """matmul squeezes its result in place (PyTorch's SqueezeBackward4)."""
    return apply(_ops.squeeze_inplace_dim, (t,), {"dim": dim, "self_sym_sizes": t._data.shape})


def _batched_matmul(input, other):
    a, b = input._data.shape, other._data.shape
    n = a[-2] if len(a) > 1 else 1
    m1 = a[-1]
    m2 = b[0] if len(b) == 1 else b[-2]
    p = b[-1] if len(b) > 1 else 1
    batch_a, batch_b = a[:_max(len(a) - 2, 0)], b[:_max(len(b) - 2, 0)]
    if len(a) == 3 and len(b) == 3 and batch_a[0] != batch_b[0]:
        # A batch of one that requires grad is squeezed rather than expanded (PyTorch's shortcut).
        if batch_a[0] == 1 and input._requires_grad:
            return matmul(squeeze(input, 0), other)
        if batch_b[0] == 1 and other._requires_grad:
            return matmul(input, squeeze(other, 0))
    batch = K.broadcast_shapes(batch_a, batch_b)
    count = _int(np.prod(batch, dtype=np.int64))
    input3 = reshape(expand(input, batch + (n, m1)), count, n, m1)
    output_shape = batch + ((n,) if len(a) > 1 else ()) + ((p,) if len(b) > 1 else ())
    if len(b) == 1:
        other3 = unsqueeze(reshape(expand(other, batch + (m2,)), count, m2), 2)
        return _unsafe_view(squeeze(bmm(input3, other3), -1), output_shape)
    other3 = reshape(expand(other, batch + (m2, p)), count, m2, p)
    return _unsafe_view(bmm(input3, other3), output_shape)


# =======================================================================================
# reductions
def sum(input, dim=None, keepdim=False, *, dtype=None):
    dtype = _resolve_dtype(dtype)
    shape = input._data.shape
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return apply(_ops.sum_all, (input,), {"self_sym_sizes": shape, "dtype": dtype})
    return apply(_ops.sum_dim, (input,), {"dim": _dims(dim, input._data.ndim), "keepdim": keepdim,
                                          "self_sym_sizes": shape, "dtype": dtype})


def mean(input, dim=None, keepdim=False, *, dtype=None):
    dtype = _resolve_dtype(dtype)
    if (dtype or input.dtype).np.kind not in "fc":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {_dtype_word(dtype or input.dtype)}")
    shape = input._data.shape
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return apply(_ops.mean_all, (input,), {"self_sym_sizes": shape, "self_sym_numel": input._data.size,
                                               "dtype": dtype})
    return apply(_ops.mean_dim, (input,), {"dim": _dims(dim, input._data.ndim), "keepdim": keepdim,
                                           "self_sym_sizes": shape, "self_sym_numel": input._data.size,
                                           "dtype": dtype})


def _dtype_word(dt):
    """PyTorch's ScalarType name (Float, Long, ...) as its messages print it."""
    return {"int64": "Long", "int32": "Int", "bool": "Bool", "uint8": "Byte", "int16": "Short", "int8": "Char",
            "float32": "Float", "float64": "Double", "float16": "Half", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble"}.get(dt.name, dt.name.capitalize())


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


MaxResult, MinResult = _return_type("max"), _return_type("min")


def _extreme(op_all, op_dim, result_type, input, dim, keepdim, other):
    if isinstance(dim, _tensor.Tensor):
        other, dim = dim, None
    if other is not None:
        return (maximum if op_all is _ops.max_all else minimum)(input, other)
    if dim is None:
        if input._data.size == 0:
            raise RuntimeError(f"{'max' if op_all is _ops.max_all else 'min'}(): Expected reduction dim to be "
                               "specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
        return apply(op_all, (input,), {})
    d = wrap_dim(dim, input._data.ndim)
    values, indices = apply(op_dim, (input,), {"dim": d, "keepdim": keepdim, "self_sym_sizes": input._data.shape})
    return result_type(values, indices)


def max(input, dim=None, keepdim=False, *, other=None):
    return _extreme(_ops.max_all, _ops.max_dim, MaxResult, input, dim, keepdim, other)


def min(input, dim=None, keepdim=False, *, other=None):
    return _extreme(_ops.min_all, _ops.min_dim, MinResult, input, dim, keepdim, other)


def maximum(input, other):
    return apply(_ops.maximum, (input, other), {})


def minimum(input, other):
    return apply(_ops.minimum, (input, other), {})


def value_selecting_backward(grad, dim, indices, sizes, keepdim):
    if not keepdim:
        grad = grad.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    return scatter_into_zeros(grad, sizes, dim, indices._data)


def gather(input, dim, index):
    d = wrap_dim(dim, input._data.ndim)
    return apply(_ops.gather, (input,), {"dim": d, "index": index._data, "self_sym_sizes": input._data.shape})


def scatter_into_zeros(grad, sizes, dim, index):
    return apply(_ops.scatter_zeros, (grad,), {"sizes": sizes, "dim": dim, "index": index})


def masked_fill(input, mask, value):
    mask = mask._data if isinstance(mask, _tensor.Tensor) else np.asarray(mask)
    if mask.dtype != np.bool_:
        raise _errors.masked_fill_mask_dtype(_C_TYPE_NAMES.get(mask.dtype.name, mask.dtype.name))
    if isinstance(value, _tensor.Tensor):
        if value._data.ndim != 0:
            raise _errors.masked_fill_value_dim(value._data.ndim)
        return apply(_ops.masked_fill_tensor, (input, value), {"mask": mask})
    return apply(_ops.masked_fill, (input,), {"mask": mask, "value": value})


def _reduce_dims(input, dim):
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return None
    return _dims(dim, input._data.ndim)


def _check_floating(input, what):
    if input._data.dtype.kind not in "fc":
        if what == "var":
            raise RuntimeError("std and var only support floating point and complex dtypes")
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype_word(input.dtype)}")


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    _check_floating(input, "norm")
    ord = 2.0 if p in ("fro", None) else (_float(p) if not isinstance(p, str) else p)
    if isinstance(ord, str):
        raise RuntimeError(f"norm(): unsupported norm type {p}")
    return apply(_ops.norm, (input,), {"ord": ord, "dim": _reduce_dims(input, dim), "keepdim": keepdim})


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    _check_floating(x, "norm")
    return apply(_ops.norm, (x,), {"ord": _float(ord), "dim": _reduce_dims(x, dim), "keepdim": keepdim})


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    _check_floating(input, "var")
    if isinstance(dim, _bool):
        unbiased, dim = dim, None
    return apply(_ops.var, (input,), {"dim": _reduce_dims(input, dim), "correction": _correction(unbiased, correction),
                                      "keepdim": keepdim})


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    _check_floating(input, "var")
    if isinstance(dim, _bool):
        unbiased, dim = dim, None
    return apply(_ops.std, (input,), {"dim": _reduce_dims(input, dim), "correction": _correction(unbiased, correction),
                                      "keepdim": keepdim})


def prod(input, dim=None, keepdim=False, *, dtype=None):
    dtype = _resolve_dtype(dtype)
    if dim is None:
        return apply(_ops.prod_all, (input,), {"dtype": dtype})
    return apply(_ops.prod_dim, (input,), {"dim": wrap_dim(dim, input._data.ndim), "keepdim": keepdim,
                                           "dtype": dtype})


def cumsum(input, dim, *, dtype=None):
    return apply(_ops.cumsum, (input,), {"dim": wrap_dim(dim, input._data.ndim), "dtype": _resolve_dtype(dtype)})


def cumprod(input, dim, *, dtype=None):
    return apply(_ops.cumprod, (input,), {"dim": wrap_dim(dim, input._data.ndim), "dtype": _resolve_dtype(dtype)})


def logsumexp(input, dim, keepdim=False):
    return apply(_ops.logsumexp, (input,), {"dim": _dims(dim, input._data.ndim), "keepdim": keepdim})


def amax(input, dim=(), keepdim=False):
    return apply(_ops.amax, (input,), {"dim": _reduce_dims(input, dim) or tuple(range(input._data.ndim)),
                                       "keepdim": keepdim})


def amin(input, dim=(), keepdim=False):
    return apply(_ops.amin, (input,), {"dim": _reduce_dims(input, dim) or tuple(range(input._data.ndim)),
                                       "keepdim": keepdim})


# ----- formula helpers for the reductions above (engine ops, so double backward works) ---
def unsqueeze_dims(t, dims):
    for d in sorted(dims):
        t = unsqueeze(t, d)
    return t


def _keep(t, dim, keepdim):
    if keepdim or dim is None:
        return t
    return unsqueeze_dims(t, dim)


def norm_backward(grad, self, ord, dim, keepdim, result):
    grad, result = _keep(grad, dim, keepdim), _keep(result, dim, keepdim)
    if ord == 0:
        return zeros_like(self)
    if ord == 1:
        return grad * sgn(self)
    if ord == 2:
        return where(result == 0, 0.0, grad * self / result)
    if ord in (_float("inf"), _float("-inf")):
        mask = (abs(self) == result)
        return grad * sgn(self) * mask / sum(mask, dim, keepdim=True)
    scale = self * abs(self).pow(ord - 2) / result.pow(ord - 1)
    return where(result == 0, 0.0, grad * scale)


def var_backward(grad, self, dim, correction, keepdim):
    n = self._data.size if dim is None else _int(np.prod([self._data.shape[d] for d in dim]))
    grad = _keep(grad, dim, keepdim)
    centred = self - (mean(self) if dim is None else mean(self, dim, keepdim=True))
    return grad * centred * (2.0 / _max(n - correction, 0))


def prod_backward(grad, input, result, dim, keepdim):
    """PyTorch's prod_backward: result / input without zeros; with zeros, the product of
    the other elements from exclusive cumulative products (differentiable again)."""
    if input._data.ndim == 0:
        return grad
    if dim is not None and not keepdim:
        grad, result = unsqueeze(grad, dim), unsqueeze(result, dim)
    if not (input._data == 0).any():
        return grad * (result / input)
    if dim is None:
        return view_as(_prod_safe_zeros_backward(grad, view(contiguous(input), -1), 0), input)
    return _prod_safe_zeros_backward(grad, input, dim)


def _prod_safe_zeros_backward(grad, input, dim):
    size = input._data.shape[dim]
    if input._data.size == 0:
        return expand_as(grad, input)
    ones_size = list(input._data.shape)
    ones_size[dim] = 1
    ones_ = ones(*ones_size, dtype=grad.dtype)
    before = cumprod(cat([ones_, narrow(input, dim, 0, size - 1)], dim), dim)
    after = flip(cumprod(cat([ones_, flip(narrow(input, dim, 1, size - 1), dim)], dim), dim), dim)
    return grad * (before * after)


def cumprod_backward(grad, input, dim, output):
    """PyTorch's cumprod_backward. Without zeros: a reversed cumulative sum divided by the
    input. With zeros: PyTorch's O(n^2) form, written with engine ops so that it is the true
    derivative at every order."""
    if input._data.size <= 1 or input._data.shape[dim] == 1:
        return grad
    w = output * grad
    if not (input._data == 0).any():
        return flip(cumsum(flip(w, dim), dim), dim) / input
    size = input._data.shape[dim]
    ones_size = list(input._data.shape)
    ones_size[dim] = 1
    ones_ = ones(*ones_size, dtype=grad.dtype)
    pieces = []
    for k in range(size):
        if k == 0:
            omitted = cat([ones_, cumprod(narrow(input, dim, 1, size - 1), dim)], dim)
        elif k == size - 1:
            omitted = prod(narrow(input, dim, 0, k), dim, keepdim=True)
        else:
            until_k = prod(narrow(input, dim, 0, k), dim, keepdim=True)
            from_k_plus_1 = cumprod(narrow(input, dim, k + 1, size - k - 1), dim)
            omitted = cat([until_k, expand_as(until_k, from_k_plus_1) * from_k_plus_1], dim)
        pieces.append(sum(narrow(grad, dim, k, size - k) * omitted, dim))
    return stack(pieces, dim)


def spread_to_ties(grad, self, dim, keepdim, result):
    grad, result = _keep(grad, dim, keepdim), _keep(result, dim, keepdim)
    mask = (self == result)
    return grad * mask / sum(mask, dim, keepdim=True)


def argmax(input, dim=None, keepdim=False):
    if dim is not None:
        dim = wrap_dim(dim, input._data.ndim)
    if dim is None:
        return _new_leaf(np.asarray(np.argmax(input._data), dtype=np.int64))
    return _new_leaf(np.argmax(input._data, axis=dim, keepdims=keepdim).astype(np.int64))


def argmin(input, dim=None, keepdim=False):
    if dim is not None:
        dim = wrap_dim(dim, input._data.ndim)
    if dim is None:
        return _new_leaf(np.asarray(np.argmin(input._data), dtype=np.int64))
    return _new_leaf(np.argmin(input._data, axis=dim, keepdims=keepdim).astype(np.int64))


# =======================================================================================
# comparisons (never differentiable)
def _compare(fn, input, other):
    b = other._data if isinstance(other, _tensor.Tensor) else other
    try:
        return _new_leaf(np.asarray(fn(input._data, b)))
    except ValueError:
        K.broadcast_shapes(input._data.shape, np.shape(b))
        raise


def _comparison(ufunc, name):
    """A torch function comparing (or logically combining) two operands: a new leaf."""
    def fn(input, other):
        return _compare(ufunc, input, other)
    fn.__name__ = fn.__qualname__ = name
    return fn


eq = _comparison(np.equal, "eq")
ne = _comparison(np.not_equal, "ne")
lt = _comparison(np.less, "lt")
le = _comparison(np.less_equal, "le")
gt = _comparison(np.greater, "gt")
ge = _comparison(np.greater_equal, "ge")
logical_and = _comparison(np.logical_and, "logical_and")
logical_or = _comparison(np.logical_or, "logical_or")
logical_xor = _comparison(np.logical_xor, "logical_xor")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def bitwise_not(input):
    return _new_leaf(np.invert(input._data))


def logical_not(input):
    return _new_leaf(np.logical_not(input._data))


def count_nonzero(input, dim=None):
    dims = None if dim is None else _dims(dim, input._data.ndim)
    return _new_leaf(np.asarray(np.count_nonzero(input._data, axis=dims), dtype=np.int64))


def nonzero(input, *, as_tuple=False):
    indices = np.nonzero(input._data) if input._data.ndim else np.nonzero(input._data.reshape(1))
    if as_tuple:
        return tuple(_new_leaf(i.astype(np.int64)) for i in indices)
    return _new_leaf(np.stack(indices, axis=1).astype(np.int64) if indices else
                     np.zeros((0, 0), dtype=np.int64))


def argwhere(input):
    return nonzero(input)


def equal(input, other):
    return input._data.shape == other._data.shape and _bool(np.array_equal(input._data, other._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{_dtype_word(input.dtype)} did not match {_dtype_word(other.dtype)}")
    K.broadcast_shapes(input._data.shape, other._data.shape)
    return _bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _new_leaf(np.isclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isnan(input):
    return _new_leaf(np.isnan(input._data))


def isinf(input):
    return _new_leaf(np.isinf(input._data))


def isfinite(input):
    return _new_leaf(np.isfinite(input._data))


def all(input, dim=None, keepdim=False):
    return _new_leaf(np.asarray(np.all(input._data, axis=dim, keepdims=keepdim)))


def any(input, dim=None, keepdim=False):
    return _new_leaf(np.asarray(np.any(input._data, axis=dim, keepdims=keepdim)))


# =======================================================================================
# views and shapes
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
        copied = clone(self)
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
        grad = sum(grad, dims, keepdim=True)
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


def embed_in_zeros(grad, sizes, index, accumulate=False):
    return apply(_ops.index_put_zeros, (grad,), {"sizes": tuple(sizes), "indices": index, "accumulate": accumulate})


def getitem(self, index):
    """PyTorch's indexing: integers, slices, None and Ellipsis become select / slice /
    unsqueeze views, in order; tensors, lists and masks are then applied to that result
    through one IndexBackward0."""
    if isinstance(index, slice):
        # A lone slice always makes a SliceBackward0 in PyTorch, even x[:].
        return _slice(self, 0, index.start, index.stop, index.step)
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
            out = unsqueeze(out, dim)
            dim += 1
        elif isinstance(i, (_bool, np.bool_)):
            # A Python bool: a new dim of size 1 (True) or 0 (False), as an index into it.
            out = unsqueeze(out, dim)
            advanced.append((dim, np.zeros(1 if i else 0, dtype=np.int64)))
            dim += 1
        elif isinstance(i, slice):
            if not _whole_slice(i, out._data.shape[dim]):
                out = _slice(out, dim, i.start, i.stop, i.step)
            dim += 1
        elif isinstance(i, (_int, np.integer)) or (
                isinstance(i, _tensor.Tensor) and i._data.ndim == 0 and i._data.dtype.kind in "iu"):
            # PyTorch's message names the item's position in the index as the dimension.
            out = _select(out, dim, _int(i), indexing_position=position)
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
        return copy_(dst, src)
    if src._data.ndim == 0:
        return fill_(dst, src)
    src = strip_leading_ones(src, always_view=True)
    if src._data.shape != dst._data.shape:
        src = expand(src, dst._data.shape)
    return copy_(dst, src)


def strip_leading_ones(t, always_view=False):
    """PyTorch's slicePrefix1sSize: a value's leading size-1 dims viewed away (copy_to
    takes that view even when there are none)."""
    shape = t._data.shape
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return view(t, shape[k:]) if k or always_view else t


def setitem(self, index, value):
    from .autograd import inplace
    inplace.setitem(self, index, value)


def unbind(self, dim=0):
    d = wrap_dim(dim, self._data.ndim)
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
        sizes = tuple(_int(s) for s in split_size_or_sections)
        if _sum(sizes) != self._data.shape[d]:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {self._data.shape[d]} (input "
                               f"tensor's size at dimension {d}), but got split_sizes=[{', '.join(map(str, sizes))}]")
        return _multi_view(_ops.split_with_sizes, self, {"split_sizes": sizes, "dim": d,
                                                          "self_sym_sizes": self._data.shape}, "SplitWithSizes")
    size = _int(split_size_or_sections)
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
    return split(self, -(-size // chunks) if size else 1, d)


def tensor_split(self, sections, dim=0):
    d = wrap_dim(dim, self._data.ndim)
    size = self._data.shape[d]
    if isinstance(sections, _int):
        base, extra = divmod(size, sections)
        sizes = [base + 1] * extra + [base] * (sections - extra)
    else:
        bounds = [0] + list(sections) + [size]
        sizes = [b - a for a, b in zip(bounds, bounds[1:])]
    return split(self, sizes, d)


def cat(tensors, dim=0, *, out=None):
    if out is not None:
        return _out_variant("cat", out, tuple(tensors), lambda: cat(tensors, dim))
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
        out.append(narrow(grad, dim, start, size))
        start += size
    return out


def stack(tensors, dim=0, *, out=None):
    if out is not None:
        return _out_variant("stack", out, tuple(tensors), lambda: stack(tensors, dim))
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
    return _each_at_least(lambda t: reshape(t, (1,)) if t.dim() == 0 else t, tensors)


def atleast_2d(*tensors):
    return _each_at_least(lambda t: reshape(t, (1, 1)) if t.dim() == 0 else unsqueeze(t, 0) if t.dim() == 1 else t,
                          tensors)


def atleast_3d(*tensors):
    def grow(t):
        if t.dim() == 0:
            return reshape(t, (1, 1, 1))
        if t.dim() == 1:
            return unsqueeze(unsqueeze(t, 0), -1)
        return unsqueeze(t, -1) if t.dim() == 2 else t
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
        return cat(ts, 0 if ts[0].dim() == 1 else 1, out=out)
    return _stack_of("hstack", tensors, joined)


def vstack(tensors, *, out=None):
    return _stack_of("vstack", tensors, lambda ts: cat(atleast_2d(ts), 0, out=out))


row_stack = vstack


def dstack(tensors, *, out=None):
    return _stack_of("dstack", tensors, lambda ts: cat(atleast_3d(ts), 2, out=out))


def column_stack(tensors, *, out=None):
    return _stack_of("column_stack", tensors, lambda ts: hstack(
        [reshape(t, (t.numel(), 1)) if t.dim() <= 1 else t for t in ts], out=out))


def repeat(self, *repeats, **keyword):
    repeats = _shape_args(_sizes_or_keyword(repeats, keyword, "repeats"))
    if len(repeats) < self._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    return apply(_ops.repeat, (self,), {"repeats": repeats, "self_sym_sizes": self._data.shape})


def repeat_backward(grad, repeats, sizes):
    """PyTorch's repeat_backward: sum away the new leading dims, then one reshape and sum
    over the repeated dims only (none at all when every repeat is 1: grad passes through)."""
    if 0 in repeats:
        return zeros(*sizes, dtype=grad.dtype)
    for _ in range(len(repeats) - len(sizes)):
        grad = sum(grad, 0)
    split_shape, sum_dims = [], []
    for r, s in zip(repeats[len(repeats) - len(sizes):], sizes):
        if r != 1:
            split_shape.append(r)
            sum_dims.append(len(split_shape) - 1)
        split_shape.append(s)
    if sum_dims:
        grad = sum(reshape(grad, split_shape), sum_dims)
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
    return apply(_ops.tril, (input,), {"diagonal": diagonal})


def triu(input, diagonal=0):
    return apply(_ops.triu, (input,), {"diagonal": diagonal})


def index_select(input, dim, index):
    d = wrap_dim(dim, input._data.ndim)
    return apply(_ops.index_select, (input,), {"dim": d, "index": index._data, "self_sym_sizes": input._data.shape})


SortResult, TopkResult = _return_type("sort"), _return_type("topk")


def sort(input, dim=-1, descending=False, stable=False):
    d = wrap_dim(dim, input._data.ndim)
    values, indices = apply(_ops.sort, (input,), {"dim": d, "descending": descending,
                                                  "self_sym_sizes": input._data.shape})
    return SortResult(values, indices)


def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending)[1]


def topk(input, k, dim=-1, largest=True, sorted=True):
    d = wrap_dim(dim, input._data.ndim)
    values, indices = apply(_ops.topk, (input,), {"k": k, "dim": d, "largest": largest,
                                                  "self_sym_sizes": input._data.shape})
    return TopkResult(values, indices)


def outer(input, vec2):
    return mul(reshape(input, input._data.shape[0], 1), vec2)


ger = outer


def trace(input):
    return apply(_ops.trace, (input,), {"self_sym_sizes": input._data.shape})


def _check_lerp_dtypes(input, end, weight):
    """lerp does not promote: end (and a tensor weight) must have the input's dtype."""
    for name, other in (("end", end), ("weight", weight)):
        if isinstance(other, _tensor.Tensor) and other._data.dtype != input._data.dtype:
            raise RuntimeError(f"expected dtype {_C_TYPE_NAMES[input.dtype.name]} for `{name}` but got dtype "
                               f"{_C_TYPE_NAMES[other.dtype.name]}")


def lerp(input, end, weight):
    _check_lerp_dtypes(input, end, weight)
    if isinstance(weight, _tensor.Tensor):
        return apply(_ops.lerp_tensor, (input, end, weight), {})
    return apply(_ops.lerp, (input, end), {"weight": weight})


def addcmul(input, tensor1, tensor2, *, value=1):
    return apply(_ops.addcmul, (input, tensor1, tensor2), {"value": value})


def addcdiv(input, tensor1, tensor2, *, value=1):
    return apply(_ops.addcdiv, (input, tensor1, tensor2), {"value": value})


def addcmul_(self, tensor1, tensor2, *, value=1):
    return _inplace(_ops.addcmul, self, (self, tensor1, tensor2), {"value": value})


def addcdiv_(self, tensor1, tensor2, *, value=1):
    return _inplace(_ops.addcdiv, self, (self, tensor1, tensor2), {"value": value})


def lerp_(self, end, weight):
    _check_lerp_dtypes(self, end, weight)
    if isinstance(weight, _tensor.Tensor):
        return _inplace(_ops.lerp_tensor, self, (self, end, weight), {})
    return _inplace(_ops.lerp, self, (self, end), {"weight": weight})


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


# =======================================================================================
# in-place ops (the autograd bookkeeping is in autograd/inplace.py)
def _inplace(op, self, inputs, params):
    from .autograd import inplace
    return inplace.apply_inplace(op, self, inputs, params)


def add_(self, other, *, alpha=1):
    return _inplace(_ops.add, self, (self, _other(other)), _alpha(alpha))


def sub_(self, other, *, alpha=1):
    _check_no_bool_subtraction(self, other)
    return _inplace(_ops.sub, self, (self, _other(other)), _alpha(alpha))


def mul_(self, other):
    return _inplace(_ops.mul, self, (self, _other(other)), {})


def div_(self, other, *, rounding_mode=None):
    return _inplace(_ops.div, self, (self, _other(other)), {})


def clamp_(self, min=None, max=None):
    if isinstance(min, _tensor.Tensor) or isinstance(max, _tensor.Tensor):
        bounds = [b if b is None or isinstance(b, _tensor.Tensor) else scalar_tensor(b, self.dtype) for b in (min, max)]
        return _inplace(_ops.clamp_tensor, self, (self, *bounds), {})
    return _inplace(_ops.clamp, self, (self,), {"min": min, "max": max})


clip_ = clamp_


def zero_(self):
    return _inplace(_ops.zero, self, (self,), {})


def fill_(self, value):
    if isinstance(value, _tensor.Tensor):
        if value._data.ndim != 0:
            raise _errors.fill_value_dim(value._data.ndim)
        return _inplace(_ops.fill_tensor, self, (self, value), {})
    return _inplace(_ops.fill, self, (self,), {"value": value})


def copy_(self, src, non_blocking=False):
    _check_expand(src._data.shape, self._data.shape)
    return _inplace(_ops.copy, self, (self, src), {"src_dtype": src.dtype if isinstance(src, _tensor.Tensor)
                                                   else self.dtype})


def exp_(self):
    return _inplace(_ops.exp, self, (self,), {})


def relu_(self):
    return _inplace(_ops.relu, self, (self,), {})


def sigmoid_(self):
    return _inplace(_ops.sigmoid, self, (self,), {})


def tanh_(self):
    return _inplace(_ops.tanh, self, (self,), {})


def neg_(self):
    if self._data.dtype == np.bool_:
        raise _errors.bool_negation()
    return _inplace(_ops.neg, self, (self,), {})


def pow_(self, exponent):
    if isinstance(exponent, _tensor.Tensor):
        return _inplace(_ops.pow_tensor, self, (self, exponent), {})
    return _inplace(_ops.pow_scalar, self, (self,), {"exponent": exponent})


def _unary_inplace(op):
    def fn(self):
        return _inplace(op, self, (self,), {})
    fn.__name__ = op.node_name
    return fn


abs_ = absolute_ = _unary_inplace(_ops.abs)
sin_, cos_, tan_ = _unary_inplace(_ops.sin), _unary_inplace(_ops.cos), _unary_inplace(_ops.tan)
asin_ = arcsin_ = _unary_inplace(_ops.asin)
acos_ = arccos_ = _unary_inplace(_ops.acos)
atan_ = arctan_ = _unary_inplace(_ops.atan)
sinh_, cosh_ = _unary_inplace(_ops.sinh), _unary_inplace(_ops.cosh)
log_, log1p_, log2_, log10_ = (_unary_inplace(_ops.log), _unary_inplace(_ops.log1p), _unary_inplace(_ops.log2),
                               _unary_inplace(_ops.log10))
expm1_, erf_ = _unary_inplace(_ops.expm1), _unary_inplace(_ops.erf)
floor_, ceil_, round_ = _unary_inplace(_ops.floor), _unary_inplace(_ops.ceil), _unary_inplace(_ops.round)
trunc_ = fix_ = _unary_inplace(_ops.trunc)
frac_, sign_, sgn_ = _unary_inplace(_ops.frac), _unary_inplace(_ops.sign), _unary_inplace(_ops.sgn)
reciprocal_, rsqrt_ = _unary_inplace(_ops.reciprocal), _unary_inplace(_ops.rsqrt)
negative_ = neg_
lgamma_, digamma_ = _unary_inplace(_ops.lgamma), _unary_inplace(_ops.digamma)


def square_(self):
    return pow_(self, 2)


def clamp_min_(self, min):
    if isinstance(min, _tensor.Tensor):
        return _inplace(_ops.clamp_min_tensor, self, (self, min), {})
    return _inplace(_ops.clamp_min, self, (self,), {"min": min})


def clamp_max_(self, max):
    if isinstance(max, _tensor.Tensor):
        return _inplace(_ops.clamp_max_tensor, self, (self, max), {})
    return _inplace(_ops.clamp_max, self, (self,), {"max": max})


def masked_fill_(self, mask, value):
    mask = mask._data if isinstance(mask, _tensor.Tensor) else np.asarray(mask)
    if mask.dtype != np.bool_:
        raise _errors.masked_fill_mask_dtype(_C_TYPE_NAMES.get(mask.dtype.name, mask.dtype.name))
    if isinstance(value, _tensor.Tensor):
        if value._data.ndim != 0:
            raise _errors.masked_fill_value_dim(value._data.ndim)
        return _inplace(_ops.masked_fill_tensor, self, (self, value), {"mask": mask})
    return _inplace(_ops.masked_fill, self, (self,), {"mask": mask, "value": value})


def fmod_(self, other):
    if _is_number(other):
        return _inplace(_ops.fmod, self, (self,), {"other": other})
    return _inplace(_ops.fmod_tensor, self, (self, other), {})


def remainder_(self, other):
    if _is_number(other):
        return _inplace(_ops.remainder, self, (self,), {"other": other})
    return _inplace(_ops.remainder_tensor, self, (self, other), {})


def cumsum_(self, dim, *, dtype=None):
    return _inplace(_ops.cumsum, self, (self,), {"dim": wrap_dim(dim, self._data.ndim), "dtype": _resolve_dtype(dtype)})


def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    info = np.finfo(self._data.dtype)
    return _inplace(_ops.nan_to_num, self, (self,), {"nan": nan, "posinf": info.max if posinf is None else posinf,
                                                     "neginf": info.min if neginf is None else neginf})


def sqrt_(self):
    return _inplace(_ops.sqrt, self, (self,), {})


def resize_(self, *sizes, memory_format=None):
    """Tensor.resize_: a new shape over the same elements in order (kept storage when it is
    large enough; new elements are zeros here, uninitialised in PyTorch)."""
    if self._requires_grad:
        raise _errors.resize_requires_grad()
    shape = _shape_args(sizes)
    _check_sizes(shape)
    count = _int(np.prod(shape, dtype=np.int64))
    flat = self._data.reshape(-1)
    if count <= flat.size and np.shares_memory(flat, self._data):
        self._data = flat[:count].reshape(shape)
    else:
        data = np.zeros(count, dtype=self._data.dtype)
        data[:_min(count, flat.size)] = flat[:count]
        self._data = data.reshape(shape)
    return self


def resize_as_(self, the_template, memory_format=None):
    return resize_(self, the_template._data.shape)


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


# =======================================================================================
# misc
def tensor_repr(t):
    from . import _format
    suffixes = []
    if t._grad_fn is not None:
        # PyTorch prints the node's type name (CopySlices), not its name() (torch::autograd::CopySlices).
        suffixes.append(f"grad_fn=<{builtins.type(t._grad_fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    prefix = "tensor("
    if getattr(builtins.type(t), "_repr_prefix", None):
        prefix = builtins.type(t)._repr_prefix
    return _format.format_tensor(t._data, dtype_name=t.dtype.name, default_dtype_name=_dtypes.DEFAULTS.float_dtype.name,
                                 suffixes=suffixes, prefix=prefix)


def deepcopy(t, memo):
    if t._grad_fn is not None:
        raise _errors.deepcopy_nonleaf()
    new = builtins.type(t)._make(t._data.copy())
    new._requires_grad = t._requires_grad
    if t._grad is not None:
        new._grad = deepcopy(t._grad, memo)
    new.__dict__.update({k: _copy.deepcopy(v, memo) for k, v in t.__dict__.items()
                         if k not in ("_grad", "_accumulator", "_hooks", "_base")})
    memo[id(t)] = new
    return new


def rebuild_tensor(data, requires_grad):
    t = _tensor.Tensor._make(data)
    t._requires_grad = requires_grad
    return t


def numel(input):
    return input._data.size


# =======================================================================================
# more shape, selection and elementwise ops
def masked_select(input, mask):
    mask = mask._data if isinstance(mask, _tensor.Tensor) else np.asarray(mask)
    if mask.dtype != np.bool_:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask")
    K.broadcast_shapes(input._data.shape, mask.shape)
    return apply(_ops.masked_select, (input,), {"mask": mask, "self_sym_sizes": input._data.shape})


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
    return view(contiguous(input), -1)


def positive(input):
    if input._data.dtype == np.bool_:
        raise TypeError("The `+` operator, on a bool tensor is not supported.")
    return input


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


def index_add(input, dim, index, source, *, alpha=1):
    d = wrap_dim(dim, input._data.ndim)
    return apply(_ops.index_add, (input, source), {"dim": d, "index": index._data, "alpha": alpha})


def index_add_(self, dim, index, source, *, alpha=1):
    d = wrap_dim(dim, self._data.ndim)
    return _inplace(_ops.index_add, self, (self, source), {"dim": d, "index": index._data, "alpha": alpha})


def index_add_source_grad(grad, dim, index, alpha, source):
    g = index_select(grad, dim, from_numpy(index)) if grad._data.ndim else grad
    if g._data.shape != source._data.shape:
        g = expand_as(g, source)
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
        return gather(reshape(input, -1), 0, reshape(indices, -1))
    d = wrap_dim(dim, input._data.ndim)
    sizes = list(input._data.shape)
    sizes[d] = indices._data.shape[d]
    shape = list(K.broadcast_shapes(tuple(sizes), indices._data.shape))
    indices = expand(indices, shape)
    shape[d] = input._data.shape[d]
    return gather(expand(input, shape), d, indices)


def exp2(input):
    return apply(_ops.exp2, (input,), {})


def logit(input, eps=None):
    return apply(_ops.logit, (input,), {"eps": eps})


def logit_backward(grad, self, eps):
    inside = (self >= eps) & (self <= 1 - eps) if eps is not None else (self >= 0) & (self <= 1)
    outside = 0.0 if eps is not None else _float("nan")
    return where(inside, grad / (self * (1 - self)), outside)


def xlogy(input, other):
    if _is_number(input):
        input = scalar_tensor(input)
    return apply(_ops.xlogy, (input, _other(other)), {})


def hypot(input, other):
    return apply(_ops.hypot, (input, other), {})


def logaddexp(input, other):
    return apply(_ops.logaddexp, (input, other), {})


def float_power(input, exponent):
    """Always in float64 (complex128 for complex inputs), then pow."""
    if _is_number(input):
        input = scalar_tensor(input, _dtypes.float64)
    target = _dtypes.complex128 if input.is_complex() else _dtypes.float64
    if isinstance(exponent, _tensor.Tensor):
        exponent = to_dtype(exponent, target)
    return pow(to_dtype(input, target), exponent)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    dims = None if dim is None or (isinstance(dim, (list, tuple)) and not dim) else _dims(dim, input._data.ndim)
    return apply(_ops.nansum, (input,), {"dim": dims, "keepdim": keepdim, "dtype": _resolve_dtype(dtype),
                                         "self_sym_sizes": input._data.shape})


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    count = logical_not(isnan(input)).sum(dim, keepdim=keepdim)
    return div(nansum(input, dim, keepdim, dtype=dtype), count)


MedianResult = _return_type("median")


def median(input, dim=None, keepdim=False):
    if dim is None:
        return apply(_ops.median_all, (input,), {})
    d = wrap_dim(dim, input._data.ndim)
    values, indices = apply(_ops.median_dim, (input,), {"dim": d, "keepdim": keepdim,
                                                        "self_sym_sizes": input._data.shape})
    return MedianResult(values, indices)


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
        grids.append(expand(view(t, view_shape), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# =======================================================================================
# softmax family: the torch / Tensor entry points of nn.functional's (dim is required here)
def softmax(input, dim, dtype=None):
    from .nn import functional
    return functional.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, dtype=None):
    from .nn import functional
    return functional.log_softmax(input, dim, dtype=dtype)


TENSOR_METHODS = (
    "add", "sub", "mul", "div", "neg", "pow", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "abs",
    "clamp", "clip", "sgn", "sign", "reciprocal", "to", "float", "double", "half", "long", "int", "bool",
    "type", "type_as", "cpu", "cuda", "clone", "contiguous", "mm", "mv", "dot", "bmm", "addmm", "matmul", "sum",
    "mean", "max", "min", "maximum", "minimum", "argmax", "argmin", "eq", "ne", "lt", "le", "gt", "ge", "equal",
    "allclose", "isclose", "isnan", "isinf", "isfinite", "all", "any", "view", "reshape", "view_as", "reshape_as",
    "flatten", "t", "permute", "transpose", "swapaxes", "swapdims", "unsqueeze", "squeeze", "expand", "expand_as",
    "select", "narrow", "unbind", "add_", "sub_", "mul_", "div_", "clamp_", "zero_", "fill_", "copy_", "exp_",
    "relu_", "sigmoid_", "tanh_", "neg_", "pow_", "sqrt_", "new_zeros", "new_ones", "new_empty", "new_full",
    "new_tensor", "subtract", "multiply", "true_divide", "divide", "negative", "absolute", "floor_divide",
    "remainder", "fmod", "logical_not", "bitwise_not", "greater", "greater_equal", "less", "less_equal", "not_equal",
    "sum_to_size", "gather", "masked_fill", "log1p", "expm1", "rsqrt", "floor", "ceil", "trunc", "fix", "frac",
    "tan", "asin", "acos", "atan", "arcsin", "arccos", "arctan", "sinh", "cosh", "log2", "log10", "erf", "round",
    "square", "atan2", "arctan2", "nan_to_num", "norm", "var", "std", "prod", "cumsum", "logsumexp", "amax", "amin",
    "split", "chunk", "tensor_split", "repeat", "flip", "roll", "tril", "triu", "index_select", "movedim",
    "moveaxis", "sort", "argsort", "topk", "outer", "ger", "trace", "lerp", "addcmul", "addcdiv", "cumsum",
    "cumprod", "clamp_min", "clamp_max", "softmax", "log_softmax", "lgamma", "digamma", "igamma", "igammac",
    "resize_", "resize_as_", "uniform_", "normal_", "bernoulli_", "exponential_", "cauchy_", "log_normal_",
    "geometric_", "random_", "bernoulli", "addcmul_", "addcdiv_", "lerp_", "multinomial",
    "abs_", "absolute_", "sin_", "cos_", "tan_", "asin_", "arcsin_", "acos_", "arccos_", "atan_", "arctan_",
    "sinh_", "cosh_", "log_", "log1p_", "log2_", "log10_", "expm1_", "erf_", "floor_", "ceil_", "round_", "trunc_",
    "fix_", "frac_", "sign_", "sgn_", "reciprocal_", "rsqrt_", "negative_", "lgamma_", "digamma_", "square_",
    "clamp_min_", "clamp_max_", "clip_", "masked_fill_", "fmod_", "remainder_", "cumsum_", "nan_to_num_",
    "multiply_", "subtract_", "divide_", "true_divide_", "polygamma",
    "logical_and", "logical_or", "logical_xor", "count_nonzero", "nonzero", "argwhere", "masked_select",
    "broadcast_to", "tile", "unflatten", "ravel", "positive", "diagonal", "diag_embed", "diag", "index_add",
    "index_add_", "scatter", "scatter_", "scatter_add", "scatter_add_", "take_along_dim", "exp2", "logit", "xlogy",
    "hypot", "logaddexp", "float_power", "nansum", "nanmean", "median", "conj", "angle",
)
multiply_, subtract_ = mul_, sub_
divide_ = true_divide_ = div_


# ----- numpy's argument names ---------------------------------------------------------
# PyTorch's argument parser also accepts numpy's names: axis for dim, keepdims for keepdim.
_NUMPY_NAMES = (("axis", "dim"), ("keepdims", "keepdim"))


def _accept_numpy_names(fn):
    def with_numpy_names(*args, **kwargs):
        if kwargs:
            for numpy_name, name in _NUMPY_NAMES:
                if numpy_name in kwargs:
                    kwargs[name] = kwargs.pop(numpy_name)
        return fn(*args, **kwargs)
    functools.update_wrapper(with_numpy_names, fn)
    return with_numpy_names


def _takes_dim(fn):
    code = getattr(fn, "__code__", None)
    return code is not None and builtins.any(
        n in ("dim", "keepdim") for n in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])


for _name in [n for n in TENSOR_METHODS + ("cat", "concat", "concatenate", "stack") if _takes_dim(globals()[n])]:
    globals()[_name] = _accept_numpy_names(globals()[_name])
del _name
_tensor_T = property(T)
