"""More losses of torch.nn.functional: the margin, embedding, Poisson, Gaussian, triplet and
CTC losses (ctc_loss is torch.ctc_loss given the reduction's number, as in PyTorch). Where
ATen composes a loss of other ops (cosine_embedding_loss, hinge_embedding_loss,
margin_ranking_loss, poisson_nll_loss, triplet_margin_loss) it is composed here of the
same ops in the same order, so the graph shows PyTorch's nodes; where PyTorch writes it in
Python (gaussian_nll_loss, triplet_margin_with_distance_loss)
so is it here. The rest are op-table kernels (``_ops_nn_more``)."""
import math

from .. import _errors_nn_more as E
from .. import _ops_nn, _ops_nn_more as ops
from .._namespace import F as _F
from ..autograd.graph import apply as _apply_op
from ..autograd.grad_mode import no_grad
from . import functional as _functional

_EPSILON = 1e-12  # ATen's cosine_embedding_loss guard on the squared magnitudes


def _enum(size_average, reduce, reduction):
    return _ops_nn.REDUCTION[_functional._reduction(size_average, reduce, reduction)]


def _reduce(loss, reduction_enum):
    """ATen's apply_loss_reduction."""
    if reduction_enum == _ops_nn.REDUCTION["mean"]:
        return loss.mean()
    if reduction_enum == _ops_nn.REDUCTION["sum"]:
        return loss.sum()
    return loss


def _scalar_minus(value, tensor):
    """C++'s ``Scalar - Tensor``: empty_like(t).fill_(value).sub_(t) (SubBackward0, no edge for the fill)."""
    return _F.full_like(tensor, value).sub_(tensor)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction_enum = _enum(size_average, reduce, reduction)
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise E.multi_target_not_supported()
    if targ_dim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise E.cosine_embedding_input_dims("1D", "2D", input1.shape, input2.shape)
    if targ_dim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise E.cosine_embedding_input_dims("0D", "1D", input1.shape, input2.shape)
    prod_sum = (input1 * input2).sum(targ_dim)
    mag_square1 = _F.scalar_add((input1 * input1).sum(targ_dim), _EPSILON)
    mag_square2 = _F.scalar_add((input2 * input2).sum(targ_dim), _EPSILON)
    denom = (mag_square1 * mag_square2).sqrt_()
    cos = prod_sum / denom
    zeros = _F.zeros_like(cos)
    pos = _scalar_minus(1, cos)
    neg = _F.scalar_sub(cos, margin).clamp_min_(0)
    output = _F.where(target == 1, pos, zeros) + _F.where(target == -1, neg, zeros)
    return _reduce(output, reduction_enum)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    reduction_enum = _enum(size_average, reduce, reduction)
    zeros = _F.zeros_like(input)
    margin_clamp = _scalar_minus(margin, input).clamp_min_(0)
    output = _F.where(target != 1, margin_clamp, zeros) + _F.where(target != -1, input, zeros)
    return _reduce(output, reduction_enum)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction_enum = _enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise E.margin_ranking_dims(input1.shape, input2.shape, target.shape)
    output = _F.scalar_add(-target * (input1 - input2), margin).clamp_min_(0)
    return _reduce(output, reduction_enum)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction_enum = _enum(size_average, reduce, reduction)
    if target.requires_grad:
        raise E.not_differentiable("soft_margin_loss", "target")
    return _apply_op(ops.soft_margin_loss, (input, target), {"reduction": reduction_enum})


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    reduction_enum = _enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    nframe = 1 if input.dim() <= 1 else input.shape[0]
    dim = 1 if input.dim() == 0 else input.shape[-1]
    if input.dim() > 2 or (input.dim() >= 1 and dim == 0):
        raise E.margin_input_shape(input.shape)
    if target.dim() > 1 or target.numel() != nframe:
        raise E.multi_margin_target_size(nframe, target.shape, input.shape)
    data = target._data
    if data.size and (data.min() < 0 or data.max() >= dim):
        raise RuntimeError("target out of range")
    if weight is not None and weight.numel() != dim:
        raise E.multi_margin_weight_size(dim, weight.shape)
    return _apply_op(ops.multi_margin_loss, (input, target, weight),
                     {"p": p, "margin": margin, "reduction": reduction_enum})


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction_enum = _enum(size_average, reduce, reduction)
    if input.dim() > 2 or (input.dim() >= 1 and input.shape[-1] == 0):
        raise E.margin_input_shape(input.shape)
    if tuple(target.shape) != tuple(input.shape) and not (input.dim() <= 1 and target.numel() == input.numel()):
        raise E.multilabel_target_size(target.shape, input.shape)
    data = target._data
    dim = 1 if input.dim() == 0 else input.shape[-1]
    if data.size and (data.min() < -1 or data.max() >= dim):
        raise E.multilabel_target_range()
    return _apply_op(ops.multilabel_margin_loss, (input, target), {"reduction": reduction_enum})[0]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    return _F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                       _ops_nn.REDUCTION[_functional._reduction(None, None, reduction)], zero_infinity)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    reduction_enum = _enum(size_average, reduce, reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * _F.scalar_add(input, eps).log()
    if full:
        stirling = target * target.log() - target + _F.scalar_mul(_F.scalar_mul(target, 2 * math.pi).log(), 0.5)
        loss += stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction_enum)


def _gaussian_var(input, var):
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        return var * _F.ones_like(input)
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            return var.unsqueeze(-1)
        mismatched = sum(v for i, v in zip(input.shape, var.shape) if i != v)
        if not (input.dim() == var.dim() and mismatched == 1):
            raise ValueError("var is of incorrect size")
    return var


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    var = _gaussian_var(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """ATen's pairwise_distance: at::norm(x1 - x2 + eps, p, last dim) (AddBackward1, NormBackward1)."""
    last = max(x1.dim(), x2.dim()) - 1
    diff = _F.scalar_add(x1 - x2, eps)
    return _apply_op(ops.norm_p_dim, (diff,), {"p": float(p), "dim": (last,), "keepdim": keepdim})


def _check_triplet_dims(anchor, positive, negative):
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise E.triplet_dims(anchor.dim(), positive.dim(), negative.dim())


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    reduction_enum = _enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    dist_pos = _pairwise_distance(anchor, positive, p, eps)
    dist_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = _F.minimum(dist_neg, _pairwise_distance(positive, negative, p, eps))
    output = _F.clamp_min(_F.scalar_add(dist_pos, margin) - dist_neg, 0)
    return _reduce(output, reduction_enum)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    distance = distance_function if distance_function is not None else _pairwise_distance
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = _F.minimum(dist_neg, distance(positive, negative))
    loss = _F.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss
