"""torch.ctc_loss, as ATen composes it (LossCTC.cpp's ctc_loss and ctc_loss_impl): the
lengths read as integers, an unbatched input given a batch of one (UnsqueezeBackward0),
the kernel (CtcLossBackward0, ``_ops_nn_more.ctc_loss``), infinite losses zeroed by
``where`` with zero_infinity, then the reduction: 'mean' divides each loss by its target
length (at least 1) before the mean, 'sum' sums, 'none' keeps them (squeezed back for an
unbatched input).
"""
import numbers

import numpy as np

from . import _dtypes, _errors, _errors_nn_more as E, _ops_nn_more
from ._common import _dtype_word
from ._namespace import F  # the other families' functions, read at call time
from ._tensor import Tensor
from .autograd.graph import apply as _apply

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "ctc_loss",
)
TORCH = (
    "ctc_loss",
)
METHODS = (
)

_NONE, _MEAN, _SUM = 0, 1, 2


def _is_tensor(value):
    return isinstance(value, Tensor)


def _is_int_list(value):
    return isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                                                     for v in value)


def _match_word(value):
    """How PyTorch's parser names an argument when it explains a mismatch."""
    if _is_tensor(value):
        return "Tensor"
    if isinstance(value, (list, tuple)):
        items = ", ".join(_errors.python_type_name(v) for v in value)
        return f"list of [{items}]" if isinstance(value, list) else f"tuple of ({items})"
    return _errors.python_type_name(value)


def _check_arguments(args):
    """Refuse what neither overload (int lists or tensors for the lengths) takes, in the
    parser's words. Explaining a mismatch, its formatter marks every argument but a tensor
    in a Tensor slot (ints in int slots and lists in int-list slots included)."""
    is_int = lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool)  # noqa: E731
    scalars = (is_int, is_int, lambda v: isinstance(v, bool))
    overloads = ((_is_tensor, _is_tensor, _is_int_list, _is_int_list) + scalars, (_is_tensor,) * 4 + scalars)
    if any(all(check(a) for check, a in zip(checks, args)) for checks in overloads):
        return
    marks = [[_match_word(a) if check is _is_tensor and _is_tensor(a) else f"!{_match_word(a)}!"
              for check, a in zip(checks, args)] for checks in overloads]
    raise E.ctc_invalid_arguments(["Tensor" if _is_tensor(a) else _errors.python_type_name(a) for a in args], marks)


def _lengths(value, name):
    if not _is_tensor(value):
        return tuple(int(v) for v in value)
    if value._data.dtype.kind not in "iu":
        raise E.ctc_lengths_not_integral(name)
    return tuple(int(v) for v in value._data.reshape(-1))


def _dtype_name(array):
    return _dtype_word(array.dtype)


def _check_kernel_inputs(log_probs, targets, input_lengths, target_lengths, blank):
    """ATen's checks, in its order (the kernel's dtype dispatch first)."""
    data = log_probs._data
    if data.dtype not in (np.float32, np.float64):
        raise _errors.kernel_not_implemented("ctc_loss_cpu", _dtype_name(data))
    if data.size == 0:
        raise E.ctc_empty_log_probs()
    if data.ndim != 3:
        raise E.ctc_log_probs_dim(data.ndim)
    if not 1 <= targets.ndim < 3:
        raise E.ctc_targets_dim(targets.ndim)
    steps, batch, labels = data.shape
    if not 0 <= blank < labels:
        raise E.ctc_blank_range()
    if len(input_lengths) != batch:
        raise E.ctc_lengths_size("input_lengths")
    if len(target_lengths) != batch:
        raise E.ctc_lengths_size("target_lengths")
    for length in target_lengths:
        if length < 0:
            raise E.ctc_length_at_least_zero("target_lengths", length)
    if targets.ndim == 1:
        if targets.shape[0] != sum(target_lengths):
            raise E.ctc_targets_size(sum(target_lengths), 0, targets.shape[0])
    else:
        if targets.shape[0] != batch:
            raise E.ctc_targets_size(batch, 0, targets.shape[0])
        if targets.shape[1] < max(target_lengths, default=0):
            raise E.ctc_targets_too_short(max(target_lengths), targets.shape[1])
    for length in input_lengths:
        if length < 0:
            raise E.ctc_length_at_least_zero("input_lengths", length)
        if length > steps:
            raise E.ctc_input_length_at_most(steps, length)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=_NONE, zero_infinity=False):
    # torch.ctc_loss's schema says reduction=at::Reduction::Mean, but the Python binding
    # cannot read that default and passes 0: called without it, the losses come unreduced.
    _check_arguments((log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity))
    input_lengths = _lengths(input_lengths, "input_lengths")
    target_lengths = _lengths(target_lengths, "target_lengths")
    batched = log_probs.dim() == 3
    if not batched:
        log_probs = log_probs.unsqueeze(1)
    targets = targets.to(_dtypes.int64)
    _check_kernel_inputs(log_probs, targets._data, input_lengths, target_lengths, blank)
    losses = _apply(_ops_nn_more.ctc_loss, (log_probs, targets),
                    {"input_lengths": input_lengths, "target_lengths": target_lengths, "blank": blank,
                     "zero_infinity": zero_infinity})[0]
    if zero_infinity:
        losses = F.where(losses == float("inf"), F.zeros((), dtype=losses.dtype), losses)
    if reduction == _MEAN:
        divisor = F.tensor(target_lengths, dtype=losses.dtype).clamp_min(1)
        return (losses / divisor).mean()
    if reduction == _SUM:
        return losses.sum()
    return losses if batched else losses.squeeze(0)
