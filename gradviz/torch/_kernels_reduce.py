"""Floating-point sums in PyTorch's CPU order, so results round as PyTorch's do.

numpy sums pairwise; PyTorch's CPU ``sum`` (and ``mean``, which is a sum divided) adds in
the tensor's own precision in another order: a *cascade*. Elements are added one by one
into a first accumulator; every ``2**level_power`` elements that accumulator is added into
a second one, every ``2**(2*level_power)`` the second into a third, and so on (four levels).
A contiguous row is read as 32-byte vectors (8 floats), each lane summed that way, four
vectors at a time side by side ("ILP"); the leftover elements are added one by one, then
the lanes in order. Near-zero results, and so their printed signs, then agree with PyTorch.

``cascade_sum(x, axis, keepdims)`` covers float32 and float64, a whole-tensor sum and a sum
over one axis (reduced rows, as ``x.sum(-1)``, or reduced columns, as ``x.sum(0)``, each
with PyTorch's own path), read in memory order as PyTorch reads it. Other reductions fall
back to numpy. A single reduction longer than ``GRAIN`` elements is split across threads
by PyTorch in a way that depends on the machine; there the cascade runs without the split.

Every helper reduces axis 0 and treats any further axes as independent lanes, so many rows
are summed by one numpy call per step instead of a Python loop per row.
"""
import math

import numpy as np

GRAIN = 32768  # PyTorch's grain size: a reduction this long or shorter runs on one thread
LEVELS = 4
ILP = 4
# The vector width PyTorch's sum kernel runs with: 32 bytes on every CPU it ships for. Its
# sum is not among the kernels built for AVX-512, so an AVX-512 machine runs the AVX2 one.
SIMD_BYTES = 32


def _lanes(dtype) -> int:
    return SIMD_BYTES // np.dtype(dtype).itemsize


def _ceil_log2(n: int) -> int:
    return 0 if n <= 1 else int(n - 1).bit_length()


def _running_sum(items):
    """items[0] + items[1] + ... one by one from +0.0, as a C accumulator adds them, lane by
    lane. (Starting from +0.0 only matters when every item is -0.0: the sum is then +0.0.)"""
    count = items.shape[0]
    if count and items[0].size < 64:  # few lanes: one numpy call beats a loop
        return np.add.accumulate(items, axis=0)[-1] + items.dtype.type(0)
    total = np.zeros(items.shape[1:], dtype=items.dtype)
    for k in range(count):  # many lanes: a vector add per item streams through memory
        total += items[k]
    return total


def _group_sums(items, size):
    """Running sums of consecutive groups of ``size`` items, and of the incomplete tail."""
    full = items.shape[0] // size
    groups = items[:full * size].reshape((full, size) + items.shape[1:])
    return _running_sum(groups.swapaxes(0, 1)), _running_sum(items[full * size:])


def _multi_row_sum(rows):
    """PyTorch's multi_row_sum: the cascade down axis 0 of ``rows``, lane by lane.

    Blocks of ``step`` rows are summed into level 0; level j adds up level j-1's results
    and hands its own on every ``step`` of them; the last level keeps adding. At the end
    the unfinished levels are added, lowest first, to the rows left over."""
    step = 1 << max(4, _ceil_log2(rows.shape[0]) // LEVELS)
    if rows.shape[0] < step:
        return _running_sum(rows)
    sums, leftover = _group_sums(rows, step)
    unfinished = []
    for _ in range(1, LEVELS - 1):
        if sums.shape[0] < step:
            # No group fills up from here on: this level's running sum is its tail and each
            # level above adds +0.0, which changes nothing (no running sum is -0.0).
            break
        sums, tail = _group_sums(sums, step)
        unfinished.append(tail)
    unfinished.append(_running_sum(sums))
    total = leftover
    for tail in unfinished:
        total = total + tail
    return total


def _row_sum(items):
    """PyTorch's row_sum down axis 0 of ``items``: four ILP partial sums, the leftovers
    added to the first, then the other three."""
    n = items.shape[0]
    size_ilp = n // ILP
    partial = _multi_row_sum(items[:size_ilp * ILP].reshape((size_ilp, ILP) + items.shape[1:]))
    return _running_sum(np.concatenate((partial[:1], items[size_ilp * ILP:], partial[1:])))


def _inner_sums(rows):
    """Sums down axis 0 where axis 0 is contiguous in memory (vectorized_inner_sum: the row
    read as vectors; a row shorter than a vector goes through the scalar row_sum)."""
    width = _lanes(rows.dtype)
    n = rows.shape[0]
    if n < width:
        return _row_sum(rows)
    count = n // width
    vectors = _row_sum(rows[:count * width].reshape((count, width) + rows.shape[1:]))
    return _running_sum(np.concatenate((rows[count * width:], vectors)))


def _column_sums(block, vectorized):
    """Sums down axis 0 of ``block`` (n, cols, *lanes) column by column: vectorized_outer_sum
    takes groups of four vectors of columns (no ILP), single vectors, then single columns
    with ILP; scalar_outer_sum takes four columns at a time, then one by one. Each column's
    arithmetic is its own, so all columns of one kind are summed by one call."""
    width = _lanes(block.dtype)
    cols = block.shape[1]
    out = np.empty(block.shape[1:], dtype=block.dtype)
    group = ILP * width if vectorized else ILP
    grouped = cols - cols % group
    if grouped:
        out[:grouped] = _multi_row_sum(block[:, :grouped])
    single = grouped + ((cols - grouped) // width * width if vectorized else 0)
    if single > grouped:
        out[grouped:single] = _row_sum(block[:, grouped:single])
    if single < cols:
        out[single:] = _row_sum(block[:, single:])
    return out


def _loop_dims(x, reduced):
    """The loop TensorIterator builds for reducing ``reduced`` axes of ``x``, innermost first:
    reduced dimensions first (by stride), then kept ones (the output is contiguous, so last
    axis innermost), neighbours merged where memory allows. Each is [axes, size, stride]."""
    dims = [a for a in range(x.ndim) if x.shape[a] > 1]
    order = sorted((a for a in dims if a in reduced), key=lambda a: abs(x.strides[a]))
    order += [a for a in reversed(dims) if a not in reduced]
    loop = []
    for a in order:
        last = loop[-1] if loop else None
        if (last and (last[0][0] in reduced) == (a in reduced)
                and x.strides[a] == last[2] * last[1]):
            last[0].append(a)
            last[1] *= x.shape[a]
        else:
            loop.append([[a], x.shape[a], x.strides[a]])
    return loop


def _reduce(x, reduced):
    """Sum over the ``reduced`` axes as PyTorch's cascade_sum loop does: the first two loop
    dimensions go through one of its four kernels; every result it produces, from those and
    from the outer loops, is added in iteration order into an output that starts at zero."""
    loop = _loop_dims(x, reduced)
    kept_shape = [x.shape[a] for a in range(x.ndim) if a not in reduced]
    if not loop or loop[0][0][0] not in reduced:  # nothing to add up: each output is 0 + x
        return (x + x.dtype.type(0)).reshape(kept_shape)
    # the values arranged as the loop visits them: loop dims, innermost first
    outermost_first = [a for dim in reversed(loop) for a in reversed(dim[0])]
    values = x.transpose(outermost_first + [a for a in range(x.ndim) if x.shape[a] == 1])
    values = values.reshape([dim[1] for dim in reversed(loop)])
    values = values.transpose(list(reversed(range(len(loop)))))
    size0, stride0 = loop[0][1], loop[0][2]
    size1, stride1 = (loop[1][1], loop[1][2]) if len(loop) > 1 else (1, 0)
    item = x.dtype.itemsize
    width = _lanes(x.dtype)
    if stride0 == item and size0 >= width:
        partials = _inner_sums(values)
    elif stride1 == item and size1 >= width:
        partials = _column_sums(values, vectorized=True)
    elif abs(stride0) < abs(stride1):
        partials = _row_sum(values)
    else:
        partials = _column_sums(values, vectorized=False) if len(loop) > 1 else _row_sum(values)
    # partials: the loop dims after the first; the reduced ones among them are added in
    # iteration order (outermost slowest), the kept ones index the output
    rest = loop[1:]
    summed = [i for i, dim in enumerate(rest) if dim[0][0] in reduced]
    kept = [i for i, dim in enumerate(rest) if dim[0][0] not in reduced]
    partials = partials.transpose(list(reversed(summed)) + list(reversed(kept)))
    contributions = partials.reshape((-1,) + partials.shape[len(summed):])
    return _running_sum(contributions).reshape(kept_shape)


def cascade_sum(x, axis=None, keepdims=False):
    """x.sum(axis) rounded as PyTorch's CPU sum rounds it (see the module doc)."""
    x = np.asarray(x)
    if x.dtype not in (np.float32, np.float64) or x.size == 0 or x.ndim == 0:
        return x.sum(axis=axis, keepdims=keepdims)
    axes = tuple(range(x.ndim)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
    reduced = {a % x.ndim for a in axes}
    if x.flags.c_contiguous and (len(reduced) == x.ndim or reduced == {x.ndim - 1}):
        # the common layouts, without the general loop's bookkeeping: rows along the last axis
        rows = x.reshape(-1, x.shape[-1] if len(reduced) == 1 else x.size).T
        sums = _inner_sums(rows) if rows.shape[0] >= _lanes(x.dtype) else _row_sum(rows)
        result = sums.reshape([n for a, n in enumerate(x.shape) if a not in reduced])
    else:
        result = _reduce(x, reduced)
    return result.reshape([1 if a in reduced else n for a, n in enumerate(x.shape)]) if keepdims else result


def cascade_mean(x, axis=None, keepdims=False):
    """x.mean(axis): PyTorch's CPU mean is its sum divided by the count."""
    x = np.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        return x.mean(axis=axis, keepdims=keepdims, dtype=x.dtype)
    total = cascade_sum(x, axis, keepdims)
    axes = range(x.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64)) if x.ndim else 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(total / x.dtype.type(count), dtype=x.dtype)


def _sequential_per_output(terms, reduced):
    """For each output, its terms added one by one in TensorIterator's order (the reduced
    dims innermost by stride, the innermost fastest), as binary_kernel_reduce adds them."""
    kept = [a for a in range(terms.ndim) if a not in reduced]
    inner_first = sorted(reduced, key=lambda a: abs(terms.strides[a]) if terms.shape[a] > 1 else 0)
    ordered = terms.transpose(list(reversed(inner_first)) + kept)
    count = int(np.prod([terms.shape[a] for a in reduced], dtype=np.int64))
    return _running_sum(ordered.reshape((count,) + ordered.shape[len(reduced):]))


def vector_norm(x, ord, axis=None, keepdims=False):
    """‖x‖_ord over ``axis`` (None: all) for finite ord > 0, rounded as PyTorch's CPU norm:
    the 2-norm over a contiguous last dim runs ATen's vectorized kernel (eight lanes of
    running sums of squares, folded in order, the leftover squares added, then sqrt); any
    other norm adds |x|**ord one by one per output, then takes the ord-th root."""
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
    reduced = {a % x.ndim for a in axes} if x.ndim else set()
    kept_shape = [n for a, n in enumerate(x.shape) if a not in reduced]
    magnitude = np.abs(x)
    rows = _contiguous_rows(x, reduced) if ord == 2 and x.size else None
    if all(x.shape[a] == 1 for a in reduced):  # one element per output: ATen gives |x| as it is
        result = magnitude.reshape(kept_shape)
    elif rows is not None:
        n = rows.shape[1]
        whole = n - n % _lanes(x.dtype)
        squares = rows[:, :whole].reshape(rows.shape[0], -1, _lanes(x.dtype))
        lanes = _running_sum((squares * squares).transpose(1, 0, 2))
        total = _running_sum(lanes.T)
        tail = rows[:, whole:]
        # The compiler turned ATen's scalar tail loop into four-wide steps (squares rounded,
        # then added) and, for the last few, fused multiply-adds (rounded once).
        grouped = tail.shape[1] - tail.shape[1] % 4
        for k in range(tail.shape[1]):
            value = tail[:, k]
            total = total + value * value if k < grouped else _fused_multiply_add(value, value, total)
        result = np.sqrt(total).reshape(kept_shape)
    else:
        terms = magnitude * magnitude if ord == 2 else magnitude if ord == 1 else _pow(magnitude, ord)
        total = _sequential_per_output(terms, reduced) if reduced else terms + x.dtype.type(0)
        root = x.dtype.type(1) / x.dtype.type(ord)  # computed in the tensor's precision, as ATen does
        result = (np.sqrt(total) if ord == 2 else total if ord == 1 else _pow(total, root)).reshape(kept_shape)
    if keepdims:
        result = result.reshape([1 if a in reduced else n for a, n in enumerate(x.shape)])
    return np.asarray(result, dtype=x.dtype)


def _pow(base, exponent):
    """C's powf / pow, elementwise, as ATen's scalar kernels call them (numpy's power may be a
    SIMD approximation, off in the last bit); the exponent is first rounded to the base's
    precision. Slow, one call per element, but only the rare p-norms with p not 1 or 2 use it."""
    exponent = base.dtype.type(exponent)
    if not base.size:
        return base.copy()
    powf = _c_powf() if base.dtype == np.float32 else None
    scalar_pow = powf if powf is not None else math.pow
    return np.vectorize(scalar_pow, otypes=[np.float64])(base, float(exponent)).astype(base.dtype)


_POWF = []


def _c_powf():
    """The C library's powf (float32 pow rounds differently from float64 pow rounded again)."""
    if not _POWF:
        import ctypes
        import ctypes.util
        try:
            powf = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6").powf
            powf.restype, powf.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
        except (OSError, AttributeError):
            powf = None
        _POWF.append(powf)
    return _POWF[0]


def _fused_multiply_add(a, b, c):
    """a * b + c rounded once (nearly: the wider type's rounding comes first), as FMA does."""
    wide = np.float64 if a.dtype == np.float32 else np.longdouble
    return (a.astype(wide) * b.astype(wide) + c.astype(wide)).astype(a.dtype)


def _contiguous_rows(x, reduced):
    """The rows ATen's is_reduce_lastdim path reads, or None when it is not taken: the reduced
    dims must merge into one run of memory with unit stride (read in memory order), giving
    one row per output, in output order."""
    if not _dense(x, reduced):
        return None
    kept = [a for a in range(x.ndim) if a not in reduced]
    by_stride = sorted(reduced, key=lambda a: -abs(x.strides[a]))
    count = int(np.prod([x.shape[a] for a in reduced], dtype=np.int64))
    return x.transpose(kept + by_stride).reshape(-1, count)


def _dense(x, axes):
    """Do x's elements along ``axes`` fill one unit-stride block of memory, in some order?"""
    step = x.itemsize
    for axis in sorted(axes, key=lambda a: abs(x.strides[a])):
        if x.shape[axis] == 1:
            continue
        if abs(x.strides[axis]) != step:
            return False
        step *= x.shape[axis]
    return True
