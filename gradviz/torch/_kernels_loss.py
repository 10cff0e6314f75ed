"""numpy kernels for the losses (nll, mse, l1, smooth_l1, huber, binary cross entropy,
with logits), each in ATen's order of operations and summation, so values and gradients
are PyTorch's to the bit; composite kernels round at each ATen op for bfloat16."""
import numpy as np

from . import _kernels as K, _kernels_reduce as KR
from . import _errors_nn_more, _libm, _sleef


NONE, MEAN, SUM = 0, 1, 2  # PyTorch's Reduction enum


def _segment_sums(items, ends):
    """Each run items[previous end + 1 : end + 1] added one by one from +0.0, and what follows
    the last end (the unfinished run): one vector step per position within the runs."""
    starts = np.concatenate(([0], ends[:-1] + 1)) if ends.size else np.zeros(0, np.int64)
    lengths = ends - starts + 1
    sums = np.zeros(ends.size, dtype=items.dtype)
    for k in range(int(lengths.max()) if ends.size else 0):
        take = lengths > k
        sums[take] = sums[take] + items[starts[take] + k]
    rest = np.zeros((), dtype=items.dtype)
    for value in items[(int(ends[-1]) + 1 if ends.size else 0):]:
        rest = rest + value
    return sums, rest


def _nll_cascade(terms, valid):
    """ATen's nll_loss / nll_loss2d reduction: terms (in target order) are added into the first
    of eight partial sums; after each counted one whose linear index i has its lowest j
    ``level_power``-bit digits all zero, partial sums 0..j-1 are each added into the next and
    cleared. The partial sums are finally added from +0.0 in order."""
    count = terms.size
    power = max(4, (count - 1).bit_length() // 8) if count > 1 else 4
    index = np.flatnonzero(valid)
    items = terms.reshape(-1)[index]
    positions = index
    total = np.zeros((), dtype=terms.dtype)
    partials = []
    for level in range(7):
        flushing = positions % (1 << (power * (level + 1))) == 0
        ends = np.flatnonzero(flushing)
        sums, rest = _segment_sums(items, ends)
        partials.append(rest)
        items, positions = sums, positions[ends]
    last = np.zeros((), dtype=terms.dtype)
    for value in items:
        last = last + value
    partials.append(last)
    for value in partials:
        total = total + value
    return total


def _nll_targets(input_shape, target, ignore_index):
    """(class index made safe, valid mask), both shaped as the target (1 sample for 1-D input)."""
    batched = len(input_shape) > 1
    t = target if batched else target.reshape(1)
    n_classes = input_shape[1] if batched else input_shape[0]
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
    return np.where(valid, t, 0), valid


def nll_loss(x, target, weight, ignore_index, reduction):
    """(loss, total_weight) as ATen's nll_loss(2d)_forward_out_frame: -x[t] * w[t] per sample
    (+0 where ignored); reduced by its cascade of partial sums, 'mean' dividing by the total
    weight (the count of kept samples without a weight)."""
    safe, valid = _nll_targets(x.shape, target, ignore_index)
    xb = x if x.ndim > 1 else x[None]
    picked = np.take_along_axis(xb, safe[:, None], axis=1)[:, 0]
    w = weight[safe].astype(x.dtype, copy=False) if weight is not None else None
    if reduction == NONE:
        per = -picked if w is None else -picked * w
        per = np.where(valid, per, x.dtype.type(0))
        return (per if x.ndim > 1 else per[0]).astype(x.dtype, copy=False), np.zeros((), x.dtype)
    loss_terms = -picked if w is None else -(picked * w)
    out = _nll_cascade(loss_terms, valid)
    total = (np.asarray(valid.sum(), dtype=x.dtype) if w is None else _nll_cascade(w, valid))
    if reduction == MEAN:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = out / total
    if safe.size == 0:
        out = np.asarray(np.nan if reduction == MEAN else 0, dtype=x.dtype)
        total = np.zeros((), x.dtype)
    return np.asarray(out, dtype=x.dtype), np.asarray(total, dtype=x.dtype)


def nll_coefficients(input_shape, dtype, target, weight, ignore_index, reduction):
    """The loss as a linear map of the input: d loss / d input, per sample for 'none'."""
    safe, valid = _nll_targets(input_shape, target, ignore_index)
    w = (weight[safe].astype(dtype) if weight is not None else np.ones(safe.shape, dtype)) * valid
    total = w.sum(dtype=dtype)
    if reduction == MEAN:
        with np.errstate(divide="ignore", invalid="ignore"):
            w = w / total
    coef = np.zeros((safe.shape[0], input_shape[1] if len(input_shape) > 1 else input_shape[0]) + safe.shape[1:],
                    dtype=dtype)
    np.put_along_axis(coef, safe[:, None], -w[:, None].astype(dtype), axis=1)
    return (coef if len(input_shape) > 1 else coef[0]), total


def nll_backward(grad, input_shape, target, weight, ignore_index, total_weight, reduction):
    """ATen's nll_loss(2d)_backward_out_frame: zeros, and at each kept sample's class
    w[t] * -(grad / total_weight) ('mean'), w[t] * -grad ('sum'), or -w[t] * grad[i] ('none')."""
    dtype = grad.dtype
    safe, valid = _nll_targets(input_shape, target, ignore_index)
    w = weight[safe].astype(dtype, copy=False) if weight is not None else None
    if reduction == NONE:
        g = grad if len(input_shape) > 1 else grad.reshape(1)
        values = -g if w is None else -w * g
    else:
        g = grad.reshape(())
        with np.errstate(divide="ignore", invalid="ignore"):
            step = -(g / total_weight.astype(dtype)) if reduction == MEAN else -g
        values = np.broadcast_to(step, safe.shape) if w is None else w * step
    values = np.where(valid, values, dtype.type(0)).astype(dtype, copy=False)
    out = np.zeros((safe.shape[0], input_shape[1] if len(input_shape) > 1 else input_shape[0]) + safe.shape[1:],
                   dtype=dtype)
    np.put_along_axis(out, safe[:, None], values[:, None], axis=1)
    return out if len(input_shape) > 1 else out[0]


def reduce(loss, reduction):
    """A loss's reduction: ATen's loss.mean() or loss.sum(), summed as its CPU sum is."""
    if reduction == MEAN:
        return np.asarray(KR.cascade_mean(loss), dtype=loss.dtype)
    if reduction == SUM:
        return np.asarray(KR.cascade_sum(loss), dtype=loss.dtype)
    return loss


def smooth_l1(x, target, reduction, beta):
    z = np.abs(x - target)
    return reduce(np.where(z < beta, 0.5 * z * z / (beta or 1), z - 0.5 * beta).astype(z.dtype), reduction)


def vector_count(size, dtype=None):
    """How many leading elements of a contiguous elementwise loop ATen's cpu_kernel_vec runs
    through its vectorized op: whole steps of two 32-byte vectors (its AVX2 kernels, which an
    AVX-512 machine runs too); the rest go through the scalar op, whose arithmetic may differ."""
    itemsize = np.dtype(K.ROUNDING.dtype or dtype).itemsize
    step = 2 * (KR.SIMD_BYTES // itemsize)
    return size - size % step


def _loss_norm(size, reduction, dtype, numerator=1.0):
    """ATen's ``norm`` (numerator / numel for 'mean') as the kernel's scalar_t holds it."""
    value = numerator / size if reduction == MEAN and size else numerator
    return K.at_op_boundary(np.asarray(value, dtype=dtype)) if K.ROUNDING.dtype is None else \
        K.at_op_boundary(np.float32(value))


def _split_paths(vector, scalar, size, *arrays):
    """An elementwise result computed as ATen's cpu_kernel_vec does: ``vector(*arrays)`` for the
    leading vector_count elements, ``scalar(*arrays)`` for the tail (flattened, C order)."""
    flat = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
    cut = vector_count(size, flat[0].dtype)
    if cut == size:
        return vector(*flat)
    if cut == 0:
        return scalar(*flat)
    return np.concatenate((vector(*(a[:cut] for a in flat)), scalar(*(a[cut:] for a in flat))))


def smooth_l1_backward(grad, x, target, reduction, beta):
    """ATen's smooth_l1_backward_cpu_kernel: the vector op is norm * blend(x / beta, sign(x),
    |x| >= beta) * grad; the scalar tail compares x with the double beta and divides the
    product norm * x * grad by it in double."""
    shape = np.broadcast_shapes(x.shape, target.shape)
    dtype = np.result_type(x, target)
    norm = _loss_norm(int(np.prod(shape)), reduction, dtype)
    b = K.at_op_boundary(np.asarray(beta, dtype=dtype))
    one = dtype.type(1)
    x, target, grad = (np.broadcast_to(a, shape) for a in (x, target, grad))

    def vector(x, t, g):
        d = K.at_op_boundary(x - t)
        sign = np.where(d > 0, one, -one)
        out = np.where(np.abs(d) >= b, sign, K.at_op_boundary(d / b))
        return K.at_op_boundary(K.at_op_boundary(norm * out) * g)

    def scalar(x, t, g):
        d = K.at_op_boundary(x - t)
        ng = K.at_op_boundary(norm * g)
        inner = K.at_op_boundary((K.at_op_boundary(K.at_op_boundary(norm * d) * g).astype(np.float64)
                                  / beta).astype(dtype))
        wide = d.astype(np.float64)
        return np.where(wide <= -beta, -ng, np.where(wide >= beta, ng, inner))

    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return _split_paths(vector, scalar, int(np.prod(shape)), x, target, grad).reshape(shape)


def huber_backward(grad, x, target, reduction, delta):
    """ATen's huber_backward_cpu_kernel: the vector op is norm * blend(x, sign(x) * delta,
    |x| >= delta) * grad; the scalar tail gives norm * grad * delta (delta a double) outside."""
    shape = np.broadcast_shapes(x.shape, target.shape)
    dtype = np.result_type(x, target)
    norm = _loss_norm(int(np.prod(shape)), reduction, dtype)
    dl = K.at_op_boundary(np.asarray(delta, dtype=dtype))
    one = dtype.type(1)
    x, target, grad = (np.broadcast_to(a, shape) for a in (x, target, grad))

    def vector(x, t, g):
        d = K.at_op_boundary(x - t)
        bound = K.at_op_boundary(np.where(d > 0, one, -one) * dl)
        out = np.where(np.abs(d) >= dl, bound, d)
        return K.at_op_boundary(K.at_op_boundary(norm * out) * g)

    def scalar(x, t, g):
        d = K.at_op_boundary(x - t)
        ng = K.at_op_boundary(norm * g)
        outer = K.at_op_boundary((ng.astype(np.float64) * delta).astype(dtype))
        inner = K.at_op_boundary(K.at_op_boundary(norm * d) * g)
        wide = d.astype(np.float64)
        return np.where(wide <= -delta, -outer, np.where(wide >= delta, outer, inner))

    with np.errstate(invalid="ignore", over="ignore"):
        return _split_paths(vector, scalar, int(np.prod(shape)), x, target, grad).reshape(shape)


def huber(x, target, reduction, delta):
    z = np.abs(x - target)
    return reduce(np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)).astype(z.dtype), reduction)


def mse(x, target, reduction):
    diff = K.at_op_boundary(x - target)
    return reduce(K.at_op_boundary(diff * diff), reduction)


def mse_backward(grad, x, target, reduction):
    diff = K.at_op_boundary(x - target)
    scale = 2.0 / diff.size if reduction == MEAN else 2.0
    # ATen's kernel: alpha * (a - b) * grad, alpha the scale in the tensor's dtype
    scaled = K.at_op_boundary(np.asarray(K.at_op_boundary(np.float32(scale)) if K.ROUNDING.dtype is not None
                                         else scale, diff.dtype) * diff)
    return (scaled * grad).astype(diff.dtype, copy=False)


def c_log(x):
    """std::log as ATen's scalar kernels call it: glibc's logf on float32, else numpy's log."""
    return _libm.logf(x) if x.dtype == np.float32 else np.log(x)


def c_log1p(x):
    """std::log1p as ATen's scalar kernels call it: glibc's log1pf on float32, else numpy's."""
    return _libm.log1pf(x) if x.dtype == np.float32 else np.log1p(x)


def _check_bce_range(x, target):
    """ATen checks element by element, the input's value before the target's, so the first
    element out of [0, 1] (or NaN) in either names which one is wrong."""
    with np.errstate(invalid="ignore"):
        bad_input = ~((x >= 0) & (x <= 1))
        bad_target = ~((target >= 0) & (target <= 1))
    bad_input, bad_target = np.broadcast_arrays(bad_input, bad_target)
    either = (bad_input | bad_target).ravel()
    if either.any():
        first = int(np.argmax(either))
        raise _errors_nn_more.bce_out_of_range("input" if bad_input.ravel()[first] else "target")


def binary_cross_entropy(x, target, weight, reduction):
    """ATen's kernel: (t - 1) * max(log1p(-x), -100) - t * max(log(x), -100), in the input's
    dtype, each log clamped at -100 so that 0 * log(0) stays finite; then * weight, reduced."""
    _check_bce_range(x, target)
    dtype = x.dtype
    floor = dtype.type(-100)
    target = target.astype(dtype, copy=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_rest = np.maximum(c_log1p(-x), floor)
        log_x = np.maximum(c_log(x), floor)
        loss = K.at_op_boundary((target - dtype.type(1)) * log_rest - target * log_x)
    if weight is not None:
        loss = K.at_op_boundary(loss * weight)
    return reduce(loss.astype(dtype, copy=False), reduction)


def bce_with_logits(x, target, weight, pos_weight, reduction):
    if x.dtype == np.float32 and K.ROUNDING.dtype is None and np.result_type(x, target) == np.float32:
        # ATen's composite: log_sigmoid(x) (min(x, 0) - log1p(exp(-|x|)), SLEEF's expf and
        # log1pf), times (pos_weight - 1) * target + 1, subtracted from (1 - target) * x
        one = np.float32(1)
        with np.errstate(all="ignore"):
            log_sig = np.minimum(x, np.float32(0)) - _sleef.log1pf(_sleef.expf(-np.abs(x)))
            if pos_weight is not None:
                log_sig = log_sig * ((pos_weight - one) * target + one)
            loss = (one - target) * x - log_sig
            if weight is not None:
                loss = loss * weight
        return reduce(loss.astype(x.dtype, copy=False), reduction)
    # log(1 + exp(-x)) written to stay finite: max(-x, 0) + log(exp(-max) + exp(-x - max)).
    softplus_neg = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))
    if pos_weight is not None:
        loss = (1 - target) * x + (1 + (pos_weight - 1) * target) * softplus_neg
    else:
        loss = (1 - target) * x + softplus_neg
    if weight is not None:
        loss = loss * weight
    return reduce(loss.astype(x.dtype, copy=False), reduction)
