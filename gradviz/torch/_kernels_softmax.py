"""numpy kernels for softmax and log_softmax and their gradients, rounded as PyTorch's
CPU kernels round them: ATen's vectorized lanes (16 float32 on AVX-512), SLEEF's exp and
log in the vector body, the C library's in the scalar tails, sums in the kernel's lane
order, and the work split across intra-op threads as at::parallel_for splits it."""
import numpy as np

from . import _kernels as K
from . import _libm, _sleef


def softmax(x, dim):
    if x.dtype == np.float32 and x.size and K.ROUNDING.dtype is None:
        return _softmax_float(x, dim, log=False)
    shifted = x - x.max(axis=dim, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=dim, keepdims=True)


def log_softmax(x, dim):
    if x.dtype == np.float32 and x.size and K.ROUNDING.dtype is None:
        return _softmax_float(x, dim, log=True)
    shifted = x - x.max(axis=dim, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))


def softmax_backward(grad_output, output, dim):
    """softmax's backward: output * (grad_output - sum(grad_output * output))."""
    if output.dtype == np.float32 and output.size and K.ROUNDING.dtype is None:
        return _softmax_backward_float(grad_output, output, dim, log=False)
    return output * (grad_output - (grad_output * output).sum(axis=dim, keepdims=True))


def log_softmax_backward(grad_output, output, dim):
    """log_softmax's backward: grad_output - exp(output) * sum(grad_output)."""
    if output.dtype == np.float32 and output.size and K.ROUNDING.dtype is None:
        return _softmax_backward_float(grad_output, output, dim, log=True)
    return grad_output - np.exp(output) * grad_output.sum(axis=dim, keepdims=True)


# float32 softmax in ATen's order (aten/src/ATen/native/cpu/SoftMaxKernel.cpp, its AVX2 build,
# which AVX-512 machines run too): SLEEF's expf / logf on vectors, glibc's expf on the
# scalar tails, sums in the kernel's lane order.
SOFTMAX_LANES = 16

def _threads():
    return K.intra_op_threads()


def _lane_tree(acc):
    """vec_reduce_all's shuffles: lane i plus lane i + half, halving down to lane 0."""
    while acc.shape[-1] > 1:
        half = acc.shape[-1] // 2
        acc = acc[..., :half] + acc[..., half:]
    return acc[..., 0]


def _reduce_all_sum(rows, times=None):
    """vec::reduce_all(+) over each row of a 2-D float32 array: lanes accumulate whole vectors,
    the partial last vector adds into the first lanes, then the lanes are folded; a row shorter
    than a vector is added element by element. With ``times``, vec::map2_reduce_all of
    rows * times: where at::parallel_for calls the kernel inline (one thread, or a single row:
    no more than its grain), the compiled code fuses the product into the add of the partial
    last vector (one FMA), never into the loop's; inside the threaded region it fuses none (as
    measured on PyTorch 2.13, AVX-512, with one and with two threads)."""
    if times is not None and rows.shape[0] > 1 and _threads() > 1:
        return _reduce_all_sum(rows * times)
    if times is not None:
        n = rows.shape[1]
        full = n - n % SOFTMAX_LANES
        if n < SOFTMAX_LANES or full == n:
            return _reduce_all_sum(rows * times)
        acc = _reduce_all_lanes(rows[:, :full] * times[:, :full])
        acc[:, :n - full] = _sleef._fma(rows[:, full:], times[:, full:], acc[:, :n - full])
        return _lane_tree(acc)
    n = rows.shape[1]
    lanes = SOFTMAX_LANES
    if n < lanes:
        acc = rows[:, 0].copy()
        for i in range(1, n):
            acc = acc + rows[:, i]
        return acc
    full = n - n % lanes
    acc = _reduce_all_lanes(rows[:, :full])
    if full < n:
        acc[:, :n - full] = acc[:, :n - full] + rows[:, full:]
    return _lane_tree(acc)


def _reduce_all_lanes(rows):
    """The lanes after the whole vectors of each row (a multiple of the width) are added."""
    lanes = SOFTMAX_LANES
    acc = rows[:, :lanes].copy()
    for start in range(lanes, rows.shape[1], lanes):
        acc = acc + rows[:, start:start + lanes]
    return acc


def _canonical(x, dim):
    dim = dim % x.ndim if x.ndim else 0
    shape = x.shape if x.ndim else (1,)
    outer = int(np.prod(shape[:dim], dtype=np.int64))
    inner = int(np.prod(shape[dim + 1:], dtype=np.int64))
    return np.ascontiguousarray(x).reshape(outer, shape[dim], inner)


def _last_dim(x, dim):
    """ATen takes its lastdim kernels only for dim == -1 (a trailing size-1 dim does not count)."""
    return x.ndim == 0 or dim % x.ndim == x.ndim - 1


def _vector_positions(inner, dim_size, log):
    """Which inner positions of the dim != -1 kernels run vectorized (SLEEF's exp) rather than
    through the scalar tail (std::exp): per chunk of positions, whole vectors from its start."""
    lanes = SOFTMAX_LANES
    position = np.arange(inner)
    if log:  # _vec_logsoftmax: chunks of CHUNK_SIZE positions within each outer index
        chunk = max(128 * 1024 // dim_size // 4, lanes) // lanes * lanes
        start = position // chunk * chunk
        size = np.minimum(chunk, inner - start)
        return (position - start) < size - size % lanes
    return None


def _softmax_float(x, dim, log):
    shape = x.shape
    data = _canonical(x, dim)
    outer, n, inner = data.shape
    with np.errstate(all="ignore"):
        if _last_dim(x, dim):
            rows = data[:, :, 0]
            top = rows.max(axis=1, keepdims=True)
            shifted = rows - top
            e = _sleef.expf(shifted)
            total = _reduce_all_sum(e)[:, None]
            if log:
                out = shifted - _sleef.logf(total)
            else:
                out = e * (np.float32(1) / total)
            return out.reshape(shape)
        top = data.max(axis=1, keepdims=True)
        shifted = data - top
        if log:
            vector = _vector_positions(inner, n, True)[None, None, :]
        else:
            vector = _softmax_vector_mask(outer, n, inner)
        e = np.where(vector, _sleef.expf(shifted), _libm.expf(shifted))
        total = e[:, 0].copy()
        for i in range(1, n):
            total = total + e[:, i]
        total = total[:, None]
        out = shifted - _sleef.logf(total) if log else e / total
    return out.reshape(shape)


def _softmax_vector_mask(outer, n, inner):
    """_vec_softmax walks flat (outer, inner) indices in per-thread ranges: a step of a whole
    vector where it fits in both the range and the row of inner positions, else scalars."""
    lanes = SOFTMAX_LANES
    total = outer * inner
    ranges = [(0, total)]
    if total > 1 and _threads() > 1:  # a grain size of 0: every thread takes a share
        chunk = -(-total // _threads())
        ranges = [(b, min(total, b + chunk)) for b in range(0, total, chunk)]
    vector = np.zeros(total, dtype=bool)
    for begin, end in ranges:
        idx = begin
        while idx < end:
            inner_idx = idx % inner
            if inner_idx + lanes <= inner and idx + lanes <= end:
                vector[idx:idx + lanes] = True
                idx += lanes
            else:
                idx += (end - idx) if idx + lanes > end else (inner - inner_idx)
    return vector.reshape(outer, 1, inner)


def _softmax_backward_float(grad_output, output, dim, log):
    shape = output.shape
    g = _canonical(grad_output.astype(np.float32, copy=False), dim)
    y = _canonical(output, dim)
    outer, n, inner = y.shape
    with np.errstate(all="ignore"):
        if _last_dim(output, dim):
            g2, y2 = g[:, :, 0], y[:, :, 0]
            if log:
                total = _reduce_all_sum(g2)[:, None]
                out = _sleef._fma(-_sleef.expf(y2), total, g2)  # the compiler fuses x - e * sum
            else:
                total = _reduce_all_sum(g2, y2)[:, None]
                out = (g2 - total) * y2
            return out.reshape(shape)
        if log:
            total = g[:, 0].copy()
            for i in range(1, n):
                total = total + g[:, i]
            vector = _vector_positions(inner, n, True)[None, None, :]
            e = np.where(vector, _sleef.expf(y), _libm.expf(y))
            out = _sleef._fma(-e, total[:, None], g)
        else:
            total = np.zeros((outer, inner), np.float32)
            for i in range(n):  # sum += g * y, fused by the compiler
                total = _sleef._fma(g[:, i], y[:, i], total)
            out = y * (g - total[:, None])
    return out.reshape(shape)
