"""The op table, continued: statistics and selections beyond _ops.py's (std_mean / var_mean,
aminmax, cummax / cummin, kthvalue, nanmedian) and vdot. Same rules as _ops.py."""
import numpy as np

from . import _kernels as K
from ._namespace import F
from . import _kernels_search as K_search
from ._ops import Op, derivative_not_implemented


def _mean_array(x, dim, keepdim):
    return np.asarray(np.mean(x, axis=dim, keepdims=keepdim, dtype=x.dtype), dtype=x.dtype)


def mean_backward(grad, sizes, dim, keepdim):
    """The gradient of a mean: grad spread evenly over the reduced elements."""
    dims = tuple(range(len(sizes))) if dim is None else dim
    if not keepdim and dim is not None:
        grad = F.unsqueeze_dims(grad, dims)
    count = int(np.prod([sizes[d] for d in dims])) if sizes else 1
    return F.scalar_mul(grad.expand(sizes), 1.0 / count) if count else grad.expand(sizes) / count


def std_mean_backward(grads, self, dim, correction, keepdim, result0):
    grad_std, grad_mean = grads
    out = None
    if grad_std is not None:
        out = F.var_backward(F.where(result0 == 0, 0.0, grad_std / (result0 * 2)), self, dim, correction, keepdim)
    if grad_mean is not None:
        part = mean_backward(grad_mean, self.shape, dim, keepdim)
        out = part if out is None else out + part
    return out


def var_mean_backward(grads, self, dim, correction, keepdim):
    grad_var, grad_mean = grads
    out = None
    if grad_var is not None:
        out = F.var_backward(grad_var, self, dim, correction, keepdim)
    if grad_mean is not None:
        part = mean_backward(grad_mean, self.shape, dim, keepdim)
        out = part if out is None else out + part
    return out


std_mean = Op("StdMeanBackward0", lambda self, *, dim, correction, keepdim: (
    np.sqrt(K.var_array(self, dim, correction, keepdim)), _mean_array(self, dim, keepdim)), multi_output=True,
    self=lambda grads, self, dim, correction, keepdim, result0: std_mean_backward(
        grads, self, dim, correction, keepdim, result0))
var_mean = Op("VarMeanBackward0", lambda self, *, dim, correction, keepdim: (
    K.var_array(self, dim, correction, keepdim), _mean_array(self, dim, keepdim)), multi_output=True,
    self=lambda grads, self, dim, correction, keepdim: var_mean_backward(grads, self, dim, correction, keepdim))


def _scale_grad_by_count(grad, extreme, self, dims, keepdim):
    """ATen's scale_grad_by_count: the gradient shared evenly by the elements equal to the extreme."""
    if not keepdim and dims:
        grad, extreme = F.unsqueeze_dims(grad, dims), F.unsqueeze_dims(extreme, dims)
    mask = self == extreme
    count = mask.sum(list(dims) if dims else None, keepdim=True) if dims else mask.sum()
    return (grad / count) * mask


def aminmax_backward(grads, self, dim, keepdim, result0, result1):
    dims = (dim,) if dim is not None else ()
    out = None
    for grad, extreme in zip(grads, (result0, result1)):
        if grad is not None:
            part = _scale_grad_by_count(grad, extreme, self, dims, keepdim)
            out = part if out is None else out + part
    return out


def _aminmax_arrays(self, dim, keepdim):
    if dim is None:
        low, high = np.min(self), np.max(self)
        shape = (1,) * self.ndim if keepdim else ()
        return np.asarray(low).reshape(shape), np.asarray(high).reshape(shape)
    return np.min(self, axis=dim, keepdims=keepdim), np.max(self, axis=dim, keepdims=keepdim)


aminmax = Op("AminmaxBackward0", lambda self, *, dim, keepdim: _aminmax_arrays(self, dim, keepdim), multi_output=True,
             self=lambda grads, self, dim, keepdim, result0, result1: aminmax_backward(
                 grads, self, dim, keepdim, result0, result1))


def _cumulative_extreme(x, dim, better):
    """cummax / cummin: the running extreme and where it was last reached (NaN wins and stays)."""
    moved = np.moveaxis(x, dim, 0)
    values, indices = np.empty_like(moved), np.zeros(moved.shape, np.int64)
    if moved.shape[0]:
        best, where = moved[0].copy(), np.zeros(moved.shape[1:], np.int64)
        values[0], indices[0] = best, where
        for k in range(1, moved.shape[0]):
            item = moved[k]
            with np.errstate(invalid="ignore"):
                take = (better(item, best) | (item == best) | np.isnan(item)) & ~np.isnan(best)
            best, where = np.where(take, item, best), np.where(take, k, where)
            values[k], indices[k] = best, where
    return np.moveaxis(values, 0, dim), np.moveaxis(indices, 0, dim)


def cummaxmin_backward(grad, self, indices, dim):
    if self.numel() == 0:
        return self
    return F.zeros_like(self).scatter_add(dim, indices, grad)


cummax = Op("CummaxBackward0", lambda self, *, dim: _cumulative_extreme(self, dim, np.greater), multi_output=True,
            self=lambda grads, self, dim, result1: cummaxmin_backward(grads[0], self, result1, dim))
cummin = Op("CumminBackward0", lambda self, *, dim: _cumulative_extreme(self, dim, np.less), multi_output=True,
            self=lambda grads, self, dim, result1: cummaxmin_backward(grads[0], self, result1, dim))


def _kthvalue_arrays(x, k, dim, keepdim):
    order = np.argsort(x, axis=dim, kind="stable")
    index = np.take(order, [k - 1], axis=dim)
    values = np.take_along_axis(x, index, axis=dim)
    if not keepdim:
        values, index = np.squeeze(values, dim), np.squeeze(index, dim)
    return values, index.astype(np.int64)


kthvalue = Op("KthvalueBackward0", lambda self, *, k, dim, keepdim, self_sym_sizes: _kthvalue_arrays(
    self, k, dim, keepdim), multi_output=True,
    self=lambda grads, dim, keepdim, self_sym_sizes, result1: F.value_selecting_backward(
        grads[0], dim, result1, self_sym_sizes, keepdim))


def _nanmedian_dim(x, dim, keepdim):
    """The lower median of the non-NaN values (NaN where there are none): NaNs sort last."""
    order = np.argsort(x, axis=dim, kind="stable")
    count = np.sum(~np.isnan(x), axis=dim, keepdims=True)
    k = np.where(count > 0, (count - 1) // 2, x.shape[dim] - 1 if x.shape[dim] else 0)
    index = np.take_along_axis(order, k, axis=dim)
    values = np.take_along_axis(x, index, axis=dim)
    if not keepdim:
        values, index = np.squeeze(values, dim), np.squeeze(index, dim)
    return values, index.astype(np.int64)


def _nanmedian_all(self):
    x = self
    kept = np.sort(x[~np.isnan(x)], kind="stable")
    return np.asarray(kept[(kept.size - 1) // 2] if kept.size else np.nan, dtype=x.dtype)


def evenly_distribute_backward(grad, self, result):
    """The gradient of a median over all elements: shared by the elements equal to it."""
    mask = (self == result) | (self.isnan() & result.isnan())
    return F.where(mask, grad / mask.sum(), 0.0)


nanmedian_all = Op("NanmedianBackward0", _nanmedian_all, integers=("median_cpu", "b"),
                   self=lambda grad, self, result: evenly_distribute_backward(grad, self, result))
nanmedian_dim = Op("NanmedianBackward1", lambda self, *, dim, keepdim, self_sym_sizes: _nanmedian_dim(
    self, dim, keepdim), multi_output=True, integers=("median_cpu", "b"),
    self=lambda grads, dim, keepdim, self_sym_sizes, result1: F.value_selecting_backward(
        grads[0], dim, result1, self_sym_sizes, keepdim))
vdot = Op("VdotBackward0", lambda self, other: np.asarray(np.vdot(self, other)),
          self=lambda grad, other: F.conj(grad) * other, other=lambda grad, self: grad * self)


# unique's outputs are what the input holds, but PyTorch gives them no derivative: a node
# whose backward refuses, in PyTorch's words, under the op's name in derivatives.yaml.
unique2 = Op("Unique2Backward0", lambda self, *, consecutive: K_search.unique_flat(self, consecutive),
             multi_output=True, self=lambda grads: derivative_not_implemented("_unique2"))
unique_dim = Op("UniqueDimBackward0", lambda self, *, dim, consecutive: K_search.unique_dim(self, dim, consecutive),
                multi_output=True, self=lambda grads: derivative_not_implemented("unique_dim"))
unique_consecutive = Op("UniqueConsecutiveBackward0", lambda self, *, dim: (
    K_search.unique_flat(self, True) if dim is None else K_search.unique_dim(self, dim, True)),
    multi_output=True, self=lambda grads: derivative_not_implemented("unique_consecutive"))
