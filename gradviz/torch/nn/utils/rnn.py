"""torch.nn.utils.rnn: PackedSequence and the functions that pack, pad and unpad batches
of sequences, with PyTorch 2.13's values, graphs (PackPaddedSequenceBackward0; the
CopySlices of padding) and errors."""
from collections import namedtuple
from collections.abc import Iterable

import numpy as np

from ... import _dtypes, _errors, _ops_nn
from ..._namespace import F as _F
from ..._tensor import Tensor
from ...autograd.grad_mode import STATE
from ..modules.module import torch_module_name

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

PackedSequence_ = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(PackedSequence_):
    """A batch of sequences of different lengths, packed time step by time step: ``data``
    holds at step t the rows of the ``batch_sizes[t]`` sequences still running."""
    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        return self

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args, **kwargs):
        return self.to(*args, **kwargs)

    def cuda(self, *args, **kwargs):
        raise AssertionError("Torch not compiled with CUDA enabled")

    def double(self):
        return self.to(dtype=_dtypes.float64)

    def float(self):
        return self.to(dtype=_dtypes.float32)

    def half(self):
        return self.to(dtype=_dtypes.float16)

    def long(self):
        return self.to(dtype=_dtypes.int64)

    def int(self):
        return self.to(dtype=_dtypes.int32)

    def short(self):
        return self.to(dtype=_dtypes.int16)

    def char(self):
        return self.to(dtype=_dtypes.int8)

    def byte(self):
        return self.to(dtype=_dtypes.uint8)

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    if permutation is None:
        return None
    inverse = np.empty_like(permutation.numpy())
    inverse[permutation.numpy()] = np.arange(permutation.numel())
    return _F.from_numpy(inverse)


# ---------------------------------------------------------------------------------------
# ATen's halves of packing and padding
def _pack_padded(input, lengths, batch_first):
    """ATen's _pack_padded_sequence: (data, batch_sizes), one PackPaddedSequenceBackward0 node."""
    if lengths.dim() != 1 or lengths.dtype != _dtypes.int64:
        raise _errors.pack_lengths_type(lengths)
    values = lengths.numpy()
    batch_size = input.shape[0 if batch_first else 1] if input.dim() > 1 else 0
    if input.numel() == 0:
        raise _errors.pack_empty()
    if len(values) != batch_size:
        raise _errors.pack_lengths_count(len(values), batch_size)
    if values[-1] <= 0:
        raise _errors.pack_length_not_positive()
    if (values[1:] > values[:-1]).any():
        raise _errors.pack_lengths_unsorted()
    return _ops_nn._apply(_ops_nn.pack_padded_sequence, (input,), lengths=values.copy(), batch_first=batch_first,
                          input_sym_sizes=tuple(input.shape))


def _pad_packed(data, batch_sizes, batch_first, padding_value, total_length):
    """ATen's _pad_packed_sequence: the padded batch (blocks of steps with one batch size
    copied in, each a CopySlices) and the lengths."""
    sizes = [int(size) for size in batch_sizes.tolist()]
    max_batch, steps = sizes[0], len(sizes)
    output = _F.full((max(total_length, steps), max_batch) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    lengths = np.empty(max_batch, dtype=np.int64)
    offset, previous, start = 0, max_batch, 0
    for step in range(steps + 1):
        size = sizes[step] if step != steps else 0
        if size != previous:
            count = previous * (step - start)
            block = data.narrow(0, offset, count).view((step - start, previous) + tuple(data.shape[1:]))
            output.narrow(0, start, step - start).narrow(1, 0, previous).copy_(block)
            offset += count
            start = step
        lengths[size:previous] = step
        previous = size
    return (output.transpose(0, 1) if batch_first else output), _F.from_numpy(lengths)


def _pad(sequences, batch_first, padding_value, padding_side):
    """ATen's pad_sequence: a filled batch with each sequence copied in (CopySlices)."""
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    max_len = max(seq.shape[0] for seq in sequences)
    trailing = tuple(sequences[0].shape[1:])
    dims = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    out = _F.full(dims + trailing, padding_value, dtype=sequences[0].dtype)
    for index, seq in enumerate(sequences):
        length = seq.shape[0]
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, index).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, index).copy_(seq)
    return out


# ---------------------------------------------------------------------------------------
# the public functions
def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    if not isinstance(lengths, Tensor):
        lengths = _F.as_tensor(lengths, dtype=_dtypes.int64)
    else:
        lengths = lengths.to(dtype=_dtypes.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = _F.sort(lengths, descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_padded(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first, padding_value,
                                         max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded_output.index_select(batch_dim, unsorted_indices), lengths[unsorted_indices]
    return padded_output, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    return _pad(tuple(sequences), batch_first, padding_value, padding_side)


def _transpose_in_place(tensor):
    """tensor.transpose_(0, 1): the tensor itself turns (TransposeBackward1, one more
    version). A view is left alone and a transposed copy of it returned."""
    if STATE.enabled and tensor._requires_grad and tensor._grad_fn is None and tensor._base is None:
        raise _errors.inplace_on_leaf()
    turned = _ops_nn._apply(_ops_nn.transpose_inplace, (tensor,), dim0=0, dim1=1)
    if tensor._base is not None:
        return turned
    tensor._data = turned._data
    if turned._grad_fn is not None:
        tensor._grad_fn, tensor._output_nr = turned._grad_fn, 0
    tensor._vbox[0] += 1
    return tensor


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    unpadded_sequences = []
    if not batch_first:
        padded_sequences = _transpose_in_place(padded_sequences)
    max_length = padded_sequences.shape[1]
    idx = _F.arange(max_length)
    for seq, length in zip(padded_sequences, lengths):
        unpadded_sequences.append(seq[idx < length])
    return unpadded_sequences


def pack_sequence(sequences, enforce_sorted=True):
    lengths = _F.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)


torch_module_name(globals(), "torch.nn.utils.rnn")
