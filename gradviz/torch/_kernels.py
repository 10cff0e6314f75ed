"""numpy kernels with PyTorch's semantics where numpy's differ (dtypes, edge values, errors)."""
import os

import numpy as np

from . import _dtypes, _errors, _libm
from ._libm import fused_multiply_add, fused_multiply_add32
from ._meta import MetaArray
from . import _kernels_reduce as KR


def default_float():
    return _dtypes.DEFAULTS.float_dtype.np


# Python float -> the same value as a 0-d float32 / float64 array, per dtype.
# PyTorch's intra-op thread count (torch.set_num_threads); None: its default, one thread per
# CPU this process may run on.
INTRA_OP_THREADS = [None]


def intra_op_threads() -> int:
    if INTRA_OP_THREADS[0] is not None:
        return INTRA_OP_THREADS[0]
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class _Rounding:
    """The storage dtype an op's float32 computation stands in for: bfloat16 while an op
    on bfloat16 runs (see graph.apply), else None."""
    dtype = None


ROUNDING = _Rounding()


def at_op_boundary(x):
    """An intermediate of a kernel that PyTorch computes as several ATen ops, rounded as
    the op that makes it rounds its result: to bfloat16 while computing for bfloat16."""
    dtype = ROUNDING.dtype
    return x if dtype is None else np.asarray(x).astype(dtype).astype(np.float32)


_SCALAR_ARRAYS = {np.dtype(np.float32): {}, np.dtype(np.float64): {}}
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def scalar_as_array(value, like):
    """A Python float about to meet the array ``like`` in arithmetic, as a 0-d array of its dtype.

    numpy casts the float to ``like``'s dtype either way (NEP 50), so the result is the same
    to the bit; a bare Python float only takes numpy's slower scalar path (about 0.25 us on
    small arrays). Zero keeps its bare form (0.0 and -0.0 are one dict key), as do values
    float32 cannot hold and other dtypes.
    """
    cache = _SCALAR_ARRAYS.get(like.dtype)
    if cache is None:
        return value
    array = cache.get(value)
    if array is None:
        if not value or value != value or abs(value) > _FLOAT32_MAX:
            return value
        if len(cache) > 1024:
            cache.clear()
        array = cache[value] = np.array(value, dtype=like.dtype)
        array.flags.writeable = False
    return array


def expand_array(x, size):
    """A writable broadcast view (numpy's broadcast_to is read-only; PyTorch's expand is not)."""
    lead = len(size) - x.ndim
    strides = (0,) * lead + tuple(0 if (s == 1 and n != 1) else st for s, n, st in zip(x.shape, size[lead:], x.strides))
    return np.lib.stride_tricks.as_strided(x, shape=tuple(size), strides=strides, writeable=x.flags.writeable)


def true_divide_arrays(a, b):
    """Division always gives floats; integers divide into the default float dtype."""
    if _is_integral(a) and _is_integral(b):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.true_divide(a, b).astype(default_float())
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(a, b)


def _is_integral(x):
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "iub"
    return isinstance(x, (int, np.integer)) and not isinstance(x, float)


def power_arrays(a, b):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if _is_integral(a) and _is_integral(b):
            if np.any(np.asarray(b) < 0):
                raise RuntimeError("Integers to negative integer powers are not allowed.")
        out = np.power(a, b)
    if isinstance(a, np.ndarray) and a.dtype.kind in "iub" and isinstance(b, float):
        out = out.astype(default_float())  # an integer tensor to a float power gives the default dtype
    return out


def addmm_arrays(bias, mat1, mat2, beta, alpha):
    check_mm(mat1, mat2)
    product = mat1 @ mat2
    if alpha != 1:
        product *= alpha
    if beta == 0:
        return product
    product += bias if beta == 1 else beta * bias
    return product


def check_mm(a, b):
    if a.shape[1] != b.shape[0]:
        raise _errors.mm_shapes(a.shape, b.shape)


def tanh_backward_array(grad_output, output):
    """PyTorch's tanh_backward: grad_output * (1 - output * output), where its AVX2 and
    AVX-512 kernels (vector loop and leftovers alike) fuse 1 - output * output into one FMA,
    rounded once; float16 is computed in float32 and rounded at the end, as ATen does."""
    code = output.dtype.char  # (a char, not the dtype: comparing a dtype to np.float32 is slow)
    if code == "f" or code == "d":
        return grad_output * _one_minus_square(output)
    if output.dtype.kind == "c":
        return grad_output * np.conj(1 - output * output)
    wide = _one_minus_square(output.astype(np.float32))
    return (np.asarray(grad_output, np.float32) * wide).astype(output.dtype)


_ONE = np.ones((), np.float64)  # a 0-d array: numpy's path for a scalar operand is slower


def _one_minus_square(y):
    """1 - y * y rounded once (the FMA), in y's dtype, float32 or float64."""
    if y.dtype.char == "f":  # the hot case: every tanh backward
        # In float64 y * y is exact, and 1 - y * y rounds to a float64 that lies exactly
        # halfway between two float32s only where it is itself exact (|y| >= 1/2): rounding
        # it to float32 is the FMA's one rounding. bench/fma_check.py checks every float32.
        wide = y.astype(np.float64)
        np.multiply(wide, wide, out=wide)
        np.subtract(_ONE, wide, out=wide)
        return wide.astype(np.float32)
    flat = y.reshape(-1)  # (the FMA helper indexes its halfway cases: at least 1-D)
    return fused_multiply_add(-flat, flat, 1.0).reshape(y.shape)


def lerp_array(self, end, weight):
    """ATen's lerp: self + weight * (end - self) while |weight| < 0.5, else end - (end - self)
    * (1 - weight), each a fused multiply-add in its CPU kernels, in the inputs' dtype (a 0-d
    weight of another dtype is read as a number of it, as ATen reads a CPU scalar)."""
    dtype = np.result_type(self, end)
    if dtype.kind not in "fV":
        return self + weight * (end - self)
    wide = np.dtype(np.float32) if dtype.itemsize < 4 else dtype  # float16 / bfloat16: float32, ATen's op math
    fma = fused_multiply_add32 if wide == np.float32 else fused_multiply_add
    weight = np.asarray(weight, dtype=wide)
    self, end, weight = np.broadcast_arrays(np.asarray(self, wide), np.asarray(end, wide), weight)
    difference = end - self
    with np.errstate(invalid="ignore", over="ignore"):
        near_self = fma(weight, difference, self)
        near_end = fma(-difference, dtype.type(1) - weight, end)
    return np.where(np.abs(weight) < 0.5, near_self, near_end).astype(dtype, copy=False)  # (float16: rounded)


def sigmoid_backward_array(grad_output, output):
    """PyTorch's sigmoid_backward: grad_output * (1 - output) * output."""
    if output.dtype.kind == "c":
        return grad_output * np.conj((1 - output) * output)
    return grad_output * (scalar_as_array(1.0, output) - output) * output


# The signed integer of each float width, to select a float's bits with a mask.
_SAME_WIDTH_INT = {2: np.int16, 4: np.int32, 8: np.int64}


def threshold_backward_array(grad_output, self, threshold):
    """PyTorch's threshold_backward (relu's backward): grad_output where self > threshold, else 0.

    For real floats of one shape and dtype the choice is made on the bits, without a branch:
    np.where branches on every element, and a ReLU's mask is as random as its input (about
    14x slower on a 128x512 float32 gradient). The mask as int8 is 0 where the gradient is
    kept and -1 where it is dropped; minus one more, it is all ones (kept) or zero (+0.0),
    widened with its sign to the float's width. The bits are those np.where gives, inf and
    NaN included."""
    as_int = _SAME_WIDTH_INT.get(grad_output.itemsize) if type(grad_output) is np.ndarray else None
    if (as_int is not None and type(self) is np.ndarray and grad_output.dtype.kind == "f" and grad_output.ndim
            and grad_output.dtype == self.dtype and grad_output.shape == self.shape
            and grad_output.flags.c_contiguous and self.flags.c_contiguous and not isinstance(threshold, complex)):
        keep_bits = (self <= threshold).view(np.int8) - np.int8(1)
        return np.bitwise_and(grad_output.view(as_int), keep_bits).view(grad_output.dtype)
    return np.where(self <= threshold, 0, grad_output).astype(grad_output.dtype, copy=False)


def storage_root(array):
    """The array that owns ``array``'s memory: its storage, since views are numpy views here
    (numpy's broadcast views hold their array through a wrapper object, skipped)."""
    root, owner = array, array.base
    while owner is not None:
        if isinstance(owner, np.ndarray):
            root = owner
        owner = getattr(owner, "base", None)
    return root


def sign_array(x):
    """PyTorch's sign: a bool tensor is its own sign (numpy's sign has no bool loop)."""
    return x.copy() if x.dtype.kind == "b" else np.sign(x)


def relu_array(x):
    """PyTorch's relu: x where x is not below 0 (NaN and -0.0 kept, as PyTorch keeps them;
    numpy's maximum(-0.0, 0) gives +0.0), else +0.0. For real floats the choice is made on
    the bits, as threshold_backward_array does: no branch per element, and the layout of x."""
    as_int = _SAME_WIDTH_INT.get(x.itemsize)
    if as_int is not None and x.dtype.kind == "f":
        keep_bits = np.asarray(x < 0).view(np.int8) - np.int8(1)
        return np.asarray(np.bitwise_and(x.view(as_int), keep_bits)).view(x.dtype)  # asarray: 0-d stays an array
    return np.maximum(x, 0).astype(x.dtype, copy=False)


def sigmoid_array(x):
    if x.dtype == np.float32 and ROUNDING.dtype is None and x.size:
        return _sigmoid_float(x)
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-x))).astype(x.dtype, copy=False)


SIGMOID_STEP = 32  # cpu_kernel_vec's step for sigmoid: two 16-float vectors (its AVX-512 build)
_GRAIN = 32768


def _sigmoid_float(x):
    """ATen's float32 sigmoid: 1 / ((0 - x).exp() + 1) with SLEEF's expf on whole steps of the
    vectorized loop, 1 / (1 + std::exp(-x)) (glibc's expf) on each loop's leftover elements.
    A tensor of GRAIN or more elements is split across threads, each with its own leftovers."""
    from . import _libm, _sleef
    flat = np.ascontiguousarray(x).reshape(-1)
    n = flat.size
    ranges = [(0, n)]
    if n >= _GRAIN:
        threads = _threads()
        threads = min(threads, -(-n // _GRAIN))
        chunk = -(-n // threads)
        ranges = [(b, min(n, b + chunk)) for b in range(0, n, chunk)]
    vector = np.zeros(n, dtype=bool)
    for begin, end in ranges:
        vector[begin:end - (end - begin) % SIGMOID_STEP] = True
    one = np.float32(1)
    with np.errstate(all="ignore"):
        out = np.empty(n, np.float32)
        out[vector] = one / (_sleef.expf(np.float32(0) - flat[vector]) + one)
        rest = ~vector
        if rest.any():
            out[rest] = one / (one + _libm.expf(-flat[rest]))
    return out.reshape(x.shape)


def _threads():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def clamp_array(x, lo, hi):
    """min(max(x, lo), hi): with lo > hi every element becomes hi, as in PyTorch. Python
    bounds promote here (an integer tensor clamped at 0.5 becomes floating); tensor bounds
    promote in apply()."""
    keep = None
    if not isinstance(lo, np.ndarray) and not isinstance(hi, np.ndarray):
        keep = x.dtype if x.dtype.kind == "f" else _dtypes.result_type([x, lo, hi]).np
    out = x
    with np.errstate(invalid="ignore"):
        if lo is not None:  # ATen's vector max(bound, x) and scalar std::max(x, bound) keep x on a tie (-0.0 vs 0.0)
            out = np.where(out == lo, out, np.maximum(out, lo))
        if hi is not None:
            out = np.where(out == hi, out, np.minimum(out, hi))
    return out.astype(keep, copy=False) if keep is not None else out


def extreme_of_two(choose, a, b, vector_keeps_b=True):
    """maximum / minimum / fmax / fmin (``choose``: numpy's, which give b where a == b) with
    ATen's ties (-0.0 against 0.0): its scalar loop gives a; its AVX-512 vector loop, over
    whole registers of each row (16 float32s, 8 float64s), b for maximum / minimum and a
    for fmax / fmin (``vector_keeps_b``). A row is the whole tensor when the operands have
    one shape (or one is a number), else the last dimension."""
    out = np.asarray(choose(a, b))
    if out.dtype.kind != "f":
        return out
    if not out.ndim:  # one element: the scalar loop
        return np.asarray(a, dtype=out.dtype) if a == b else out
    same = np.shape(a) == np.shape(b) or np.ndim(a) == 0 or np.ndim(b) == 0
    row = out.size if same else out.shape[-1]
    step = 64 // out.dtype.itemsize
    vectorized = (row // step) * step if vector_keeps_b else 0
    if vectorized == row:
        return out
    ties = np.broadcast_to(a == b, out.shape)
    if not ties.any():
        return out
    positions = np.arange(out.size).reshape(out.shape) if same else np.arange(out.shape[-1])
    leftover = ties & (np.broadcast_to(positions % row, out.shape) >= vectorized)
    return np.where(leftover, np.broadcast_to(a, out.shape), out).astype(out.dtype, copy=False)


def sum_dtype(x, dtype=None):
    """The accumulation dtype: a requested torch dtype, else int64 for bool and integer
    tensors (as in PyTorch), else the tensor's own."""
    if dtype is not None:
        return dtype.np
    return np.int64 if x.dtype.kind in "biu" else x.dtype


def can_cast(from_dtype, to_dtype):
    """PyTorch's canCast for writing results: never floating into integral, complex into
    real, or anything but bool into bool."""
    kinds = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2, "c": 3}  # V: bfloat16
    from_kind, to_kind = kinds[np.dtype(from_dtype).kind], kinds[np.dtype(to_dtype).kind]
    return from_kind <= to_kind and not (to_kind == 0 and from_kind != 0)


def cast(x, dtype):
    """``x`` in a requested torch dtype (None keeps it)."""
    return x if dtype is None or x.dtype == dtype.np else x.astype(dtype.np)


def extreme_dim(argfn, x, dim, keepdim):
    """(values, indices) of max/min along one dim."""
    idx = argfn(x, axis=dim)
    idx_k = np.expand_dims(idx, dim)
    values = np.take_along_axis(x, idx_k, axis=dim)
    if not keepdim:
        values = np.squeeze(values, dim)
        return values, idx.astype(np.int64)
    return values, idx_k.astype(np.int64)


def view_array(x, size):
    """A reshape that never copies: PyTorch's view()."""
    out = x.view()
    try:
        out.shape = size
    except AttributeError:
        raise _errors.view_noncontiguous() from None
    return out


def scatter_into_zeros(grad, sizes, indices, accumulate):
    out = np.zeros(sizes, dtype=grad.dtype)
    if accumulate:
        np.add.at(out, indices, grad)
    else:
        out[indices] = grad
    return out


def broadcast_shapes(a, b, *more):
    """Broadcast shapes left to right, raising PyTorch's message on a mismatch."""
    out = _broadcast_two(a, b)
    for c in more:
        out = _broadcast_two(out, c)
    return out


def _broadcast_two(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = [0] * n
    for i in range(n - 1, -1, -1):  # PyTorch reports the trailing-most mismatch
        x, y = a[i], b[i]
        if x != y and x != 1 and y != 1:
            raise _errors.broadcast_sizes(x, y, i)
        out[i] = y if x == 1 else x
    return tuple(out)


def where_arrays(condition, a, b):
    from . import _dtypes
    out = np.where(condition, a, b)
    target = _dtypes.result_type([x for x in (a, b)])
    return out.astype(target.np, copy=False)


def scatter_dim_into_zeros(grad, sizes, dim, index):
    """Zeros with ``grad`` added at ``index`` along ``dim``; repeated indices accumulate."""
    out = np.zeros(sizes, dtype=grad.dtype)
    where = list(np.indices(index.shape, sparse=True))
    where[dim] = index
    np.add.at(out, tuple(where), grad)
    return out


def embed_view_array(grad, sizes, chain, replay):
    out = np.zeros(sizes, dtype=grad.dtype)
    region = replay(out, chain)
    region += grad
    return out


def index_put_array(self, values, indices):
    out = self.copy()
    out[indices] = values
    return out


def index_mask(shape, indices):
    mask = np.zeros(shape, dtype=np.bool_)
    mask[indices] = True
    return mask


def rsqrt_array(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return (1 / np.sqrt(x)).astype(x.dtype, copy=False)


def erf_array(x):
    import math
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x.copy()


def vector_norm(x, ord, dim, keepdim):
    if x.dtype in (np.float32, np.float64) and ord not in (0, float("inf"), float("-inf")) and ord > 0:
        return KR.vector_norm(x, ord, dim, keepdim)  # added in PyTorch's order, to round as it does
    a = np.abs(x)
    if ord == float("inf"):
        out = a.max(axis=dim, keepdims=keepdim)
    elif ord == float("-inf"):
        out = a.min(axis=dim, keepdims=keepdim)
    elif ord == 0:
        out = (a != 0).sum(axis=dim, keepdims=keepdim).astype(x.dtype)
    elif ord == 1:
        out = a.sum(axis=dim, keepdims=keepdim)
    elif ord == 2:
        out = np.sqrt((a * a).sum(axis=dim, keepdims=keepdim))
    else:
        out = (a ** ord).sum(axis=dim, keepdims=keepdim) ** (1.0 / ord)
    return np.asarray(out, dtype=x.dtype)


def var_array(x, dim, correction, keepdim):
    """The variance with ``correction`` (PyTorch's sum of squares / max(0, n - correction)):
    nan for an empty input, as ATen fills a trivial reduction, and for a slice of one
    element; inf where no degrees of freedom are left over unequal values."""
    if x.size == 0:
        return np.full(np.sum(x, axis=dim, keepdims=keepdim).shape, np.nan, x.dtype)
    n = x.size if dim is None else int(np.prod([x.shape[d] for d in dim]))
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.float64(n) / np.float64(max(n - correction, 0))
        return np.asarray(np.var(x, axis=dim, keepdims=keepdim, dtype=x.dtype) * scale, dtype=x.dtype)


def logsumexp_array(x, dim, keepdim):
    m = np.amax(x, axis=dim, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=dim, keepdims=True)) + m
    return out if keepdim else np.squeeze(out, axis=dim)


def split_array(x, split, dim):
    size = x.shape[dim]
    if isinstance(split, int):
        bounds = list(range(split, size, split)) if split > 0 else []
    else:
        bounds = list(np.cumsum(split)[:-1])
    return tuple(np.split(x, bounds, axis=dim))


def sort_array(x, dim, descending):
    idx = np.argsort(-x if descending else x, axis=dim, kind="stable")
    return np.take_along_axis(x, idx, axis=dim), idx.astype(np.int64)


def topk_array(x, k, dim, largest):
    values, idx = sort_array(x, dim, largest)
    sl = (slice(None),) * dim + (slice(0, k),)
    return values[sl].copy(), idx[sl].copy()


def fma64(a, b, c):
    """a*b + c with one rounding, in float64 (error-free product and sum, Dekker/Knuth)."""
    a, b, c = np.broadcast_arrays(np.float64(a), np.asarray(b, np.float64), np.float64(c))
    p = a * b
    split = 134217729.0  # 2**27 + 1
    ah = a * split - (a * split - a)
    al = a - ah
    bh = b * split - (b * split - b)
    bl = b - bh
    p_err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    s_err = (p - (s - bb)) + (c - bb)
    return s + (s_err + p_err)


def addcmul_array(self, tensor1, tensor2, value):
    """ATen's CPU addcmul fuses its multiply and add: fma(value * tensor1, tensor2, self),
    rounded once (float32 and float64; other dtypes in two roundings)."""
    scaled = value * tensor1
    dtype = np.result_type(self, scaled, tensor2)
    if dtype == np.float32:
        return _libm.fused_multiply_add32(scaled, tensor2, self)
    if dtype == np.float64:
        return np.asarray(_libm.fused_multiply_add(scaled, tensor2, self))
    return self + scaled * tensor2


def check_integer_divisor(a, b):
    """Integer division and remainder by zero raise in PyTorch (floats give inf / nan)."""
    if type(a) is MetaArray or type(b) is MetaArray:
        return  # the meta device has no values to divide by
    if _is_integral(a) and _is_integral(b) and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


def remainder(a, b):
    check_integer_divisor(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.mod(a, b)


def fmod(a, b):
    check_integer_divisor(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.fmod(a, b)


def rounded_divide(a, b, mode):
    check_integer_divisor(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        if mode == "floor":
            return np.floor_divide(a, b)
        if mode == "trunc":
            out = np.true_divide(a, b)
            return np.trunc(out).astype(np.result_type(a, b), copy=False)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")


def masked_select_array(x, mask):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    return np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)]


def diagonal_view(x, offset, dim1, dim2):
    """A writable view of a diagonal, moved to the last dim (as PyTorch's diagonal)."""
    out = np.diagonal(x, offset, dim1, dim2)
    if x.flags.writeable:
        out.setflags(write=True)  # numpy hands out diagonals read-only by default
    return out


def diagonal_into_zeros(grad, sizes, offset, dim1, dim2):
    out = np.zeros(sizes, dtype=grad.dtype)
    diagonal_view(out, offset, dim1, dim2)[...] = grad
    return out


def diag_embed_array(x, offset, dim1, dim2):
    n = x.shape[-1] + abs(offset)
    out_ndim = x.ndim + 1
    dim1, dim2 = dim1 % out_ndim, dim2 % out_ndim
    batch = list(x.shape[:-1])
    sizes = [0] * out_ndim
    rest = iter(batch)
    for d in range(out_ndim):
        sizes[d] = n if d in (dim1, dim2) else next(rest)
    out = np.zeros(sizes, dtype=x.dtype)
    diagonal_view(out, offset, dim1, dim2)[...] = x
    return out


def index_add_array(x, dim, index, source, alpha):
    out = np.array(x, copy=True)
    moved = np.moveaxis(out, dim, 0)
    np.add.at(moved, index, np.moveaxis(np.asarray(source * alpha if alpha != 1 else source), dim, 0))
    return out


def scatter_array(x, dim, index, src):
    out = np.array(x, copy=True)
    if isinstance(src, np.ndarray):
        src = src[tuple(slice(0, s) for s in index.shape)]
    np.put_along_axis(out, index, src, axis=dim)
    return out


def scatter_add_array(x, dim, index, src):
    out = np.array(x, copy=True)
    src = src[tuple(slice(0, s) for s in index.shape)]
    grids = list(np.indices(index.shape, sparse=True))
    grids[dim] = index
    np.add.at(out, tuple(grids), src)
    return out


def logit_array(x, eps):
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x / (1 - x)).astype(x.dtype, copy=False)


def xlogy_array(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        out = x * np.log(y)
    out = np.where((x == 0) & ~np.isnan(y), 0, out)
    return np.asarray(out)


def median_all(x):
    """The lower median (NaN if any element is NaN), as PyTorch's median()."""
    flat = x.reshape(-1)
    if flat.size and np.isnan(flat).any():
        return np.asarray(np.nan, dtype=x.dtype)
    return np.asarray(np.sort(flat)[(flat.size - 1) // 2])


def median_dim(x, dim, keepdim):
    order = np.argsort(x, axis=dim, kind="stable")
    k = (x.shape[dim] - 1) // 2
    idx = np.take(order, [k], axis=dim)
    values = np.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        values, idx = np.squeeze(values, dim), np.squeeze(idx, dim)
    return values, idx.astype(np.int64)


def _memory_limit():
    """The most one tensor may take: the machine's RAM plus swap, or the process's address
    space limit. Beyond it the allocation fails at once, as PyTorch's does, instead of
    filling memory piece by piece until the system kills the process."""
    import os
    import resource
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 1 << 62
    try:
        with open("/proc/meminfo") as f:
            swap = next((int(line.split()[1]) * 1024 for line in f if line.startswith("SwapTotal:")), 0)
    except OSError:
        swap = 0
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    return min(total + swap, limit) if limit != resource.RLIM_INFINITY else total + swap


_MEMORY_LIMIT = []


# Guards a caller above the engine installs (``gradviz graph`` bounds what an untrusted
# expression may allocate): each has .elements(count, what) and .pieces(count, what), which
# raise to refuse. The engine consults them wherever it makes an array, whatever call and
# argument form asked for it: before a factory or random draw allocates, before and after
# every op (graph.apply), and before a split, unbind or chunk makes its pieces.
GUARDS = []


def guard_elements(count, what):
    for guard in GUARDS:
        guard.elements(int(count), what)


def guard_pieces(count, what):
    for guard in GUARDS:
        guard.pieces(int(count), what)


def check_allocation(count, dtype):
    """Refuse, with PyTorch's error, a tensor of ``count`` elements that cannot fit."""
    if GUARDS:
        guard_elements(count, "a new tensor")
    nbytes = int(count) * np.dtype(dtype).itemsize
    if nbytes > (1 << 30):  # small tensors need no check
        if not _MEMORY_LIMIT:
            _MEMORY_LIMIT.append(_memory_limit())
        if nbytes > _MEMORY_LIMIT[0]:
            raise _errors.out_of_memory(nbytes)


def conj_array(x):
    """The complex conjugate; a real array or number is returned as it is."""
    if isinstance(x, complex):
        return x.conjugate()
    return np.conj(x) if getattr(x, "dtype", None) is not None and x.dtype.kind == "c" else x


def real_dtype(dtype):
    """The real dtype of a complex one (complex64 -> float32); a real dtype stays."""
    return np.empty(0, dtype=dtype).real.dtype


def complex_array(real, imag):
    """real + i*imag in the complex dtype of their (common) float dtype."""
    out = np.empty(np.broadcast_shapes(np.shape(real), np.shape(imag)),
                   dtype=np.result_type(real, imag, np.complex64))
    out.real, out.imag = real, imag
    return out


def view_as_real_array(x):
    """A complex array seen as floats with a last dim of 2 (real, imaginary): a true view."""
    return x[..., None].view(real_dtype(x.dtype))


def view_as_complex_array(x):
    """Floats with a last dim of 2 seen as complex numbers: a true view."""
    return x.view(np.complex64 if x.dtype == np.float32 else np.complex128)[..., 0]


def contiguous_strides(shape):
    """PyTorch's strides, in elements, for a contiguous tensor of ``shape`` (a size-0 dim
    counts as 1, so an empty tensor's strides are those of a non-empty one)."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def unsqueeze_array(x, dim):
    """A view with a new dim of size 1 at ``dim``, strided as PyTorch strides it: the new dim
    steps over the dim after it (1 at the end), where numpy's expand_dims would pick another
    stride that a size-1 dim never uses but ``stride()`` shows."""
    dim = dim % (x.ndim + 1)
    step = x.strides[dim] * x.shape[dim] if dim < x.ndim else x.itemsize
    return np.lib.stride_tricks.as_strided(x, x.shape[:dim] + (1,) + x.shape[dim:],
                                           x.strides[:dim] + (step,) + x.strides[dim:], writeable=x.flags.writeable)


def sum_to_shape(x, shape):
    """Sum a broadcast gradient back down to ``shape`` (the array form of sum_to_size)."""
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and x.shape[i + lead] != 1)
    if axes:  # one sum over every reduced axis, as PyTorch's sum_to, rounding as its sum does
        x = KR.cascade_sum(x, axes, keepdims=True)
    return x.reshape(shape)


def copy_like(values, layout):
    """``values`` in a new array laid out in memory like ``layout`` (preserve_format)."""
    out = np.empty_like(layout)
    out[...] = values
    return out
