"""numpy kernels of embedding_bag: bags of rows of a weight matrix reduced by sum (with
optional per-sample weights), mean or max, as ATen's CPU kernel reduces them; entries equal
to padding_idx are left out of their bag (and of its count); an empty bag is zeros."""
import numpy as np

MODE_SUM, MODE_MEAN, MODE_MAX = 0, 1, 2


def bag_of_each_entry(count, offsets, include_last_offset):
    """(offset2bag, number of bags): the bag each index belongs to."""
    bags = len(offsets) - 1 if include_last_offset else len(offsets)
    offset2bag = np.zeros(count, dtype=np.int64)
    starts = np.asarray(offsets[1:bags], dtype=np.int64)  # offsets[0] is 0: bag 0 starts there
    np.add.at(offset2bag, starts[starts < count], 1)
    return np.cumsum(offset2bag), bags


def _fast_path(weight, mode):
    """ATen's vectorised CPU path (float32 and the half types, sum or mean) ends the last bag
    at the last offset under include_last_offset; the generic path runs it to the input's end."""
    return mode != MODE_MAX and weight.dtype != np.float64


def embedding_bag(weight, psw, indices, offsets, mode, padding_idx, include_last_offset):
    """(output, offset2bag, bag_size, max_indices), PyTorch's four results."""
    offset2bag, bags = bag_of_each_entry(len(indices), offsets, include_last_offset)
    kept = (offset2bag < bags) & (indices != padding_idx if padding_idx is not None else True)
    # the fast path's counts still run to the input's end: its mean divides by them
    bag_size = np.bincount(offset2bag[kept], minlength=bags).astype(np.int64)
    if include_last_offset and _fast_path(weight, mode) and bags > 0:
        kept &= np.arange(len(indices)) < int(offsets[-1])
    rows = weight[indices[kept]]
    where = offset2bag[kept]
    output = np.zeros((bags, weight.shape[1]), dtype=weight.dtype)
    max_indices = np.zeros(bags, dtype=np.int64)
    if mode == MODE_MAX:
        max_indices = np.full((bags, weight.shape[1]), -1, dtype=np.int64)
        for bag in range(bags):
            members = np.nonzero(where == bag)[0]
            if members.size:
                arg = rows[members].argmax(axis=0)
                output[bag] = rows[members][arg, np.arange(weight.shape[1])]
                max_indices[bag] = indices[kept][members][arg]
        return output, offset2bag, bag_size, max_indices
    if psw is not None:
        rows = rows * psw[kept][:, None]
    np.add.at(output, where, rows)
    if mode == MODE_MEAN:
        output = np.where(bag_size[:, None] > 0, output / np.maximum(bag_size, 1)[:, None], 0).astype(weight.dtype)
    else:
        bag_size = np.zeros(bags, dtype=np.int64)  # the sum mode's kernel leaves its counts at zero
    return output, offset2bag, bag_size, max_indices


def embedding_bag_weight_grad(grad, indices, offset2bag, bag_size, max_indices, num_weights, mode, psw, padding_idx,
                              scale_grad_by_freq):
    """Each bag's gradient sent back to the rows it was made of (only the maximum's for max)."""
    out = np.zeros((num_weights, grad.shape[1]), dtype=grad.dtype)
    if mode == MODE_MAX:
        for bag, row in enumerate(max_indices):
            used = row >= 0
            np.add.at(out, (row[used], np.nonzero(used)[0]), grad[bag][used])
        return out
    bags = grad.shape[0]
    kept = (offset2bag < bags) & (indices != padding_idx if padding_idx is not None else True)
    where = offset2bag[kept]
    share = grad[where]
    if mode == MODE_MEAN:
        share = share / bag_size[where][:, None]
    if psw is not None:
        share = share * psw[kept][:, None]
    if scale_grad_by_freq:
        counts = np.bincount(indices[kept], minlength=num_weights)
        share = share / counts[indices[kept]][:, None]
    np.add.at(out, indices[kept], share.astype(grad.dtype, copy=False))
    return out


def embedding_bag_psw_grad(grad, weight, indices, offset2bag, padding_idx):
    """d output / d per_sample_weights[i]: the bag's gradient dotted with the entry's row."""
    bags = grad.shape[0]
    out = np.zeros(len(indices), dtype=grad.dtype)
    kept = (offset2bag < bags) & (indices != padding_idx if padding_idx is not None else True)
    out[kept] = (grad[offset2bag[kept]] * weight[indices[kept]]).sum(axis=1)
    return out
