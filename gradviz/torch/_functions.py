"""The torch-facing functions: PyTorch's signatures and argument rules, dispatching to
the op table (``_ops``) through ``autograd.graph.apply``. Tensor methods are these
functions with the tensor first (see TENSOR_METHODS).

This module holds what the families share (dims, dtypes, new leaves, operands, out= and
in-place dispatch, the Tensor's repr and pickling) and gathers the families, one module
each, so that ``_functions.<name>`` reaches every function:

    _fn_creation   tensor(), factories, ranges, conversions (to, float(), clone, detach)
    _fn_pointwise  arithmetic, unary and special functions, clamp, where, lerp
    _fn_linalg     mm, mv, dot, bmm, addmm, matmul, outer, trace
    _fn_reduce     sum, mean, max / min, norms, var / std, prod, cumulative ops, median
    _fn_compare    comparisons, logical ops, isclose / isnan..., sort and topk
    _fn_shape      views and shapes: view / reshape, permute, squeeze, expand, split...
    _fn_index      t[index], t[index] = v, gather / scatter, index_select, masked ops
    _fn_join       cat, stack, hstack / vstack..., meshgrid
    _fn_inplace    the in-place ops (add_, clamp_, fill_, copy_, resize_...)
    _fn_complex    complex numbers
    _fn_random     seeding, random factories and in-place fills

(_fn_distance's cdist and _fn_einsum's einsum / baddbmm are imported by the package itself.)
"""
import builtins
import copy as _copy
import functools
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
        return from_numpy(x)
    raise TypeError(f"unsupported operand type: '{builtins.type(x).__name__}'")


_ALPHA_ONE = _ops.ALPHA_ONE


def _alpha(alpha):
    return _ALPHA_ONE if builtins.type(alpha) is _int and alpha == 1 else {"alpha": alpha}


_NO_OPTIONS = graph._NO_OPTIONS  # shared by the calls of ops without options (nothing writes to it)


def not_implemented(what):
    raise _errors.aten_derivative_not_implemented(what)


def derivative_not_implemented(what):
    """A formula PyTorch lists as not_implemented("..."): raised when backward reaches it."""
    raise _errors.derivative_not_implemented(what)


# =======================================================================================
# PyTorch's names in messages and results
_C_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
                 "int8": "signed char", "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half"}


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
# the families (see the docstring)
from ._fn_creation import (  # noqa: E402,F401
    tensor, as_tensor, from_numpy, scalar_tensor, _check_sizes, zeros, ones, empty, full, zeros_like, ones_like,
    empty_like, full_like, new_zeros, new_ones, new_empty, new_full, new_tensor, arange, linspace, eye,
    legacy_constructor, to_dtype, to, float, double, half, bfloat16, long, int, bool, type, type_as, cpu, cuda, clone, contiguous,
    detach)
from ._fn_pointwise import (  # noqa: E402,F401
    as_tensor_like, add, sub, subtract, _check_no_bool_subtraction, rsub, scalar_add, scalar_sub, scalar_mul, mul,
    multiply, div, true_divide, divide, rdiv, floor_divide, remainder, fmod, lgamma, digamma, polygamma, igamma,
    igammac, zeta, neg, negative, reciprocal, pow, rpow, exp, log, sin, cos, tanh, sigmoid, relu, sqrt, abs, absolute,
    sign, sgn, log1p, expm1, rsqrt, floor, ceil, trunc, frac, tan, asin, acos, atan, sinh, cosh, log2, log10, erf, fix,
    arcsin, arccos, arctan, round, square, atan2, arctan2, nan_to_num, clamp, clip, clamp_min, clamp_max, clamp_mask,
    clamp_min_taken, clamp_max_taken, threshold_backward, tanh_backward, sigmoid_backward, tensor_where, where,
    _check_lerp_dtypes, lerp, addcmul, addcdiv, positive, exp2, logit, logit_backward, xlogy, hypot, logaddexp,
    float_power)
from ._fn_linalg import mm, mv, dot, bmm, addmm, matmul, outer, ger, trace  # noqa: E402,F401
from ._fn_reduce import (  # noqa: E402,F401
    sum, mean, MaxResult, MinResult, max, min, maximum, minimum, value_selecting_backward, norm, vector_norm, var, std,
    prod, cumsum, cumprod, logsumexp, amax, amin, unsqueeze_dims, norm_backward, var_backward, prod_backward,
    cumprod_backward, spread_to_ties, argmax, argmin, nansum, nanmean, MedianResult, median, softmax, log_softmax)
from ._fn_compare import (  # noqa: E402,F401
    _compare, eq, ne, lt, le, gt, ge, logical_and, logical_or, logical_xor, greater, greater_equal, less, less_equal,
    not_equal, bitwise_not, logical_not, count_nonzero, nonzero, argwhere, equal, allclose, isclose, isnan, isinf,
    isfinite, all, any, SortResult, TopkResult, sort, argsort, topk)
from ._fn_shape import (  # noqa: E402,F401
    view, reshape, view_as, reshape_as, flatten, t, permute, transpose, swapaxes, swapdims, T, unsqueeze, squeeze,
    expand, _check_expand, expand_as, sum_to_size, select, _select, narrow, _slice, embed_view, replay_view, unbind,
    split, chunk, tensor_split, repeat, repeat_backward, flip, roll, tril, triu, movedim, moveaxis, broadcast_to, tile,
    unflatten, ravel, diagonal, diagonal_backward, diag_embed, diag)
from ._fn_index import (  # noqa: E402,F401
    gather, scatter_into_zeros, masked_fill, embed_in_zeros, getitem, apply_slicing, index_tuple, numpy_index, copy_to,
    strip_leading_ones, setitem, index_select, masked_select, index_add, index_add_, index_add_source_grad, scatter,
    scatter_, scatter_add, scatter_add_, take_along_dim)
from ._fn_join import (  # noqa: E402,F401
    cat, concat, concatenate, cat_backward, stack, atleast_1d, atleast_2d, atleast_3d, hstack, vstack, row_stack,
    dstack, column_stack, meshgrid)
from ._fn_inplace import (  # noqa: E402,F401
    add_, sub_, mul_, div_, clamp_, clip_, zero_, fill_, copy_, exp_, relu_, sigmoid_, tanh_, neg_, pow_, abs_,
    absolute_, sin_, cos_, tan_, asin_, arcsin_, acos_, arccos_, atan_, arctan_, sinh_, cosh_, log_, log1p_, log2_,
    log10_, expm1_, erf_, floor_, ceil_, round_, trunc_, fix_, frac_, sign_, sgn_, reciprocal_, rsqrt_, negative_,
    lgamma_, digamma_, square_, clamp_min_, clamp_max_, masked_fill_, fmod_, remainder_, cumsum_, nan_to_num_, sqrt_,
    resize_, resize_as_, addcmul_, addcdiv_, lerp_, multiply_, subtract_, divide_, true_divide_)

# ----- complex numbers (_fn_complex) ------------------------------------------------------
from ._fn_complex import angle, conj, imag, polar, real, view_as_complex, view_as_real  # noqa: E402,F401

# ----- random numbers: PyTorch's generator and draws (_fn_random) ---------------------
from ._fn_random import (  # noqa: E402,F401
    Generator, default_generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state, rand, randn,
    randint, randperm, normal, bernoulli, multinomial, rand_like, randn_like, randint_like, uniform_, normal_,
    bernoulli_, exponential_, cauchy_, log_normal_, geometric_, random_)


TENSOR_METHODS = (
    "add", "sub", "mul", "div", "neg", "pow", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "abs",
    "clamp", "clip", "sgn", "sign", "reciprocal", "to", "float", "double", "half", "bfloat16", "long", "int", "bool",
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
