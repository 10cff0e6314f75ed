"""Op-table entries for nn's bilinear and bag layers. at::_trilinear, the product of three
tensors each unsqueezed at its ``expand`` dims, summed over ``sumdim`` (F.bilinear is one).
Its gradients are _trilinear again, with the roles of the expand lists and sumdim
exchanged, as ATen's _trilinear_backward computes them: double backward is the same op. embedding_bag's
gradients are ATen's backward kernels, which are not differentiable again (their results
need no gradient, as PyTorch's)."""
import numpy as np

from . import _kernels_embedding as KE
from ._ops import Op, derivative_not_implemented, not_implemented
from .autograd import graph


def _letters(count):
    return "abcdefghijklmnopqrstuvwxyz"[:count]


def trilinear_array(i1, i2, i3, expand1, expand2, expand3, sumdim):
    """One einsum: each input's subscripts are the dims it is not expanded at, the result's
    those not summed."""
    total = i1.ndim + len(expand1)
    letters = _letters(total)

    def subscripts(expand):
        return "".join(letters[d] for d in range(total) if d not in expand)

    spec = f"{subscripts(expand1)},{subscripts(expand2)},{subscripts(expand3)}->{subscripts(sumdim)}"
    return np.einsum(spec, i1, i2, i3, optimize=True).astype(np.result_type(i1, i2, i3), copy=False)


def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim):
    return graph.apply(_trilinear, (i1, i2, i3), {"expand1": tuple(expand1), "expand2": tuple(expand2),
                                                   "expand3": tuple(expand3), "sumdim": tuple(sumdim)})


_trilinear = Op(
    "TrilinearBackward0",
    lambda i1, i2, i3, *, expand1, expand2, expand3, sumdim: trilinear_array(
        i1, i2, i3, expand1, expand2, expand3, sumdim),
    i1=lambda grad, i2, i3, expand1, expand2, expand3, sumdim: trilinear(
        grad, i2, i3, sumdim, expand2, expand3, expand1),
    i2=lambda grad, i1, i3, expand1, expand2, expand3, sumdim: trilinear(
        i1, grad, i3, expand1, sumdim, expand3, expand2),
    i3=lambda grad, i1, i2, expand1, expand2, expand3, sumdim: trilinear(
        i1, i2, grad, expand1, expand2, sumdim, expand3))


def _no_padding(padding_idx):
    return None if padding_idx < 0 else padding_idx


# ATen's two backward kernels: not differentiable again (PyTorch's words when it is tried)
embedding_bag_weight_backward = Op(
    "NotImplemented",
    lambda grad, per_sample_weights, *, indices, offset2bag, bag_size, max_indices, num_weights, mode, padding_idx,
    scale_grad_by_freq: KE.embedding_bag_weight_grad(grad, indices, offset2bag, bag_size, max_indices, num_weights,
                                                     mode, per_sample_weights, _no_padding(padding_idx),
                                                     scale_grad_by_freq),
    grad=lambda grad: derivative_not_implemented("_embedding_bag_backward"),
    per_sample_weights=lambda grad: derivative_not_implemented("_embedding_bag_backward"))

embedding_bag_psw_backward = Op(
    "NotImplemented",
    lambda grad, weight, *, indices, offset2bag, padding_idx: KE.embedding_bag_psw_grad(
        grad, weight, indices, offset2bag, _no_padding(padding_idx)),
    grad=lambda grad: not_implemented("_embedding_bag_per_sample_weights_backward"),
    weight=lambda grad: not_implemented("_embedding_bag_per_sample_weights_backward"))


def _embedding_bag_weight_grad(grads, indices, offsets, result1, result2, result3, weight_sym_argsize_0,
                               scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx):
    return graph.apply(embedding_bag_weight_backward, (grads[0], per_sample_weights), {
        "indices": indices, "offset2bag": result1._data, "bag_size": result2._data,
        "max_indices": result3._data,
        "num_weights": weight_sym_argsize_0, "mode": mode, "padding_idx": padding_idx,
        "scale_grad_by_freq": scale_grad_by_freq})


def _embedding_bag_psw_grad(grads, weight, indices, offsets, result1, mode, padding_idx):
    return graph.apply(embedding_bag_psw_backward, (grads[0], weight), {
        "indices": indices, "offset2bag": result1._data, "padding_idx": padding_idx})


# padding_idx is -1 when there is none, as torch.embedding_bag receives it from Python.
embedding_bag = Op(
    "EmbeddingBagBackward0",
    lambda weight, per_sample_weights, *, indices, offsets, mode, padding_idx, include_last_offset,
    scale_grad_by_freq, sparse, weight_sym_argsize_0: KE.embedding_bag(
        weight, per_sample_weights, indices, offsets, mode, _no_padding(padding_idx), include_last_offset),
    multi_output=True, weight=_embedding_bag_weight_grad, per_sample_weights=_embedding_bag_psw_grad)
