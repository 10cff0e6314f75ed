"""numpy kernels for the margin losses ATen writes as kernels of their own (soft margin,
multi margin, multilabel margin), in the order of operations of its CPU kernels: a
sample's terms summed one class after another in the input's dtype, the samples then
summed in double (``acc_type`` on CPU) for a reduced loss."""
import numpy as np

from . import _kernels_loss as KL

NONE, MEAN, SUM = KL.NONE, KL.MEAN, KL.SUM


def soft_margin(x, target, reduction):
    """ATen: neg(input).mul_(target).exp_().log1p_(), then the loss reduction."""
    loss = np.log1p(np.exp((-x) * target)).astype(x.dtype, copy=False)
    return KL.reduce(loss, reduction)


def soft_margin_backward(grad_output, x, target, reduction):
    """ATen: -norm * target * z / (1 + z) * grad_output with z = exp(-target * input)."""
    norm = x.dtype.type(1.0 / x.size if reduction == MEAN and x.size else 1.0)
    z = np.exp((-target) * x).astype(x.dtype, copy=False)
    out = (target * z) * (-norm)
    return ((out / (z + x.dtype.type(1))) * grad_output).astype(x.dtype, copy=False)


def _frames(x):
    """(nframe, dim) of a 0-, 1- or 2-D margin-loss input, and the input as a 2-D array."""
    if x.ndim <= 1:
        return x.reshape(1, -1)
    return x


def _reduce_frames(per_frame, reduction, shape, dtype):
    if reduction == NONE and len(shape) > 1:
        return per_frame.astype(dtype)
    if reduction == NONE:
        return np.asarray(per_frame[0], dtype=dtype)
    total = np.float64(0.0)
    for value in per_frame:  # the samples are accumulated in double, one after another
        total += np.float64(value)
    if reduction == MEAN:
        total /= len(per_frame)
    return np.asarray(total, dtype=dtype)


def multi_margin(x, target, weight, p, margin, reduction):
    rows = _frames(x)
    n, dim = rows.shape
    t = target.reshape(-1)
    picked = rows[np.arange(n), t]
    margin = x.dtype.type(margin)
    total = np.zeros(n, dtype=x.dtype)
    for d in range(dim):
        z = (margin - picked) + rows[:, d]
        h = z if p == 1 else z * z
        if weight is not None:
            h = h * weight[t]
        total = np.where((z > 0) & (t != d), total + h, total).astype(x.dtype)
    total = (total / x.dtype.type(dim)).astype(x.dtype)
    return _reduce_frames(total, reduction, x.shape, x.dtype)


def multi_margin_backward(grad_output, x, target, weight, p, margin, reduction):
    rows = _frames(x)
    n, dim = rows.shape
    t = target.reshape(-1)
    g = x.dtype.type(1.0 / (n * dim) if reduction == MEAN else 1.0 / dim)
    picked = rows[np.arange(n), t]
    z = (x.dtype.type(margin) - picked)[:, None] + rows
    h = g if p == 1 else (2 * g) * z
    h = np.broadcast_to(h, rows.shape)
    if weight is not None:
        h = h * weight[t][:, None]
    active = (z > 0) & (np.arange(dim)[None, :] != t[:, None])
    grad = np.where(active, h, 0).astype(x.dtype)
    grad[np.arange(n), t] = -grad.sum(axis=1)
    scale = grad_output.reshape(-1, 1) if grad_output.size == n and reduction == NONE else grad_output.reshape(())
    return (grad * scale).astype(x.dtype).reshape(x.shape)


def _label_sets(target, dim):
    """is_target as ATen fills it: the classes listed before the first negative entry."""
    rows = target.reshape(-1, dim)
    valid = np.cumprod(rows >= 0, axis=1).astype(bool)
    is_target = np.zeros(rows.shape, dtype=bool)
    for i in range(rows.shape[0]):
        is_target[i, rows[i][valid[i]]] = True
    return rows, valid, is_target


def multilabel_margin(x, target, reduction):
    """(loss, is_target): for each listed class j and each class k not listed,
    max(0, 1 - (x[j] - x[k])), summed and divided by the number of classes."""
    rows = _frames(x)
    n, dim = rows.shape
    labels, valid, is_target = _label_sets(target, dim)
    one = x.dtype.type(1)
    per_frame = np.zeros(n, dtype=x.dtype)
    for i in range(n):
        total = x.dtype.type(0)
        for j in labels[i][valid[i]]:
            z = (one - rows[i, j]) + rows[i][~is_target[i]]
            for value in z[z > 0]:
                total = x.dtype.type(total + value)
        per_frame[i] = total
    per_frame = (per_frame / x.dtype.type(dim)).astype(x.dtype)
    return _reduce_frames(per_frame, reduction, x.shape, x.dtype), is_target.astype(x.dtype).reshape(x.shape)


def multilabel_margin_backward(grad_output, x, target, is_target, reduction):
    rows = _frames(x)
    n, dim = rows.shape
    labels, valid, member = _label_sets(target, dim)
    g = x.dtype.type(1.0 / (n * dim) if reduction == MEAN else 1.0 / dim)
    grad = np.zeros(rows.shape, dtype=x.dtype)
    for i in range(n):
        for j in labels[i][valid[i]]:
            active = (~member[i]) & (((x.dtype.type(1) - rows[i, j]) + rows[i]) > 0)
            grad[i, j] -= g * active.sum()
            grad[i, active] += g
    scale = grad_output.reshape(-1, 1) if grad_output.size == n and reduction == NONE else grad_output.reshape(())
    return (grad * scale).astype(x.dtype).reshape(x.shape)
