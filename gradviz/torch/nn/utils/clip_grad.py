"""Gradient clipping as PyTorch 2.13 splits it: get_total_norm (the norm of the per-tensor
norms, grouped by dtype as its foreach path groups them), clip_grads_with_norm_ (scaling by
min(max_norm / (total + 1e-6), 1)), clip_grad_norm_ (both), the deprecated clip_grad_norm,
and clip_grad_value_."""
import functools
import types
import warnings

from ... import _errors_nn_utils as E
from ..._namespace import F as _F
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad


def _no_grad(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)
    return wrapper


def _by_dtype(tensors):
    """The tensors grouped by dtype, groups in first-seen order (PyTorch's foreach grouping)."""
    groups = {}
    for t in tensors:
        groups.setdefault(t.dtype, []).append(t)
    return list(groups.values())


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return _F.tensor(0.0)
    norms = [_F.vector_norm(t, norm_type) for group in _by_dtype(tensors) for t in group]
    total_norm = _F.vector_norm(_F.stack(norms), norm_type)
    if error_if_nonfinite and bool(total_norm.isnan() | total_norm.isinf()):
        raise E.nonfinite_total_norm(norm_type)
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = _F.clamp(clip_coef, max=1.0)
    for group in _by_dtype(grads):
        # PyTorch's promotion: a 0-dim coefficient takes a dimensioned gradient's dtype before
        # the product; against a 0-dim gradient it promotes (float64 math, then the cast back)
        cast = clip_coef_clamped.to(group[0].dtype)
        for g in group:
            g.mul_(clip_coef_clamped if g.dim() == 0 else cast)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)  # a generator would be spent by the first pass
        if is_generator and len(parameters) == 0:
            warnings.warn(E.EMPTY_GENERATOR, stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn(E.CLIP_GRAD_NORM_DEPRECATED, FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for group in _by_dtype(grads):
        for g in group:
            g.clamp_(min=-clip_value, max=clip_value)


__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grads_with_norm_", "clip_grad_value_", "get_total_norm"]
