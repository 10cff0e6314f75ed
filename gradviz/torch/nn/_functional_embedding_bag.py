"""torch.nn.functional's embedding_bag: torch/nn/functional.py's argument handling (a 2-D
input is fixed-length bags, offsets from arange), then one EmbeddingBagBackward0 node with
PyTorch's four results (output, offset2bag, bag_size, max_indices)."""
import numpy as np

from .. import _errors_nn_more as _errors_nn
from .. import _ops_nn_linear as _ops
from ..autograd.graph import apply as _apply_op

_MODES = {"sum": 0, "mean": 1, "max": 2}


def _flatten_bags(input, offsets, per_sample_weights):
    """(indices, offsets, per_sample_weights, include_last_offset or None to keep the caller's)."""
    if input.dim() == 2:
        if offsets is not None:
            raise _errors_nn.embedding_bag_2d_offsets(str(type(offsets)))
        starts = np.arange(0, input.numel(), input.shape[1], dtype=np.int64)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
        return input._data.reshape(-1), starts, psw, False
    if input.dim() == 1:
        if offsets is None:
            raise _errors_nn.embedding_bag_offsets_none()
        if offsets.dim() != 1:
            raise _errors_nn.embedding_bag_offsets_rank()
        return input._data, offsets._data, per_sample_weights, None
    raise _errors_nn.embedding_bag_input_rank(input.dim())


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    from . import functional as F
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise _errors_nn.embedding_bag_psw_shape(per_sample_weights.shape, input.shape)
    if weight.dim() != 2:
        raise _errors_nn.embedding_bag_weight_rank(weight.dim())
    indices, starts, per_sample_weights, fixed = _flatten_bags(input, offsets, per_sample_weights)
    include_last_offset = include_last_offset if fixed is None else fixed
    if mode not in _MODES:
        raise _errors_nn.embedding_bag_mode()
    if mode == "max" and scale_grad_by_freq:
        raise _errors_nn.embedding_bag_max_scale()
    if mode == "max" and sparse:
        raise _errors_nn.embedding_bag_max_sparse()
    if max_norm is not None:
        F._embedding_renorm(weight, indices, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise _errors_nn.embedding_bag_psw_mode(mode)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    out = _apply_op(_ops.embedding_bag, (weight, per_sample_weights), {
        "indices": np.asarray(indices, dtype=np.int64), "offsets": np.asarray(starts, dtype=np.int64),
        "mode": _MODES[mode], "padding_idx": -1 if padding_idx is None else padding_idx,
        "include_last_offset": include_last_offset, "scale_grad_by_freq": scale_grad_by_freq, "sparse": sparse,
        "weight_sym_argsize_0": weight.shape[0]})
    return out[0]
