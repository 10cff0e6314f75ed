"""numpy kernels for the recurrent ops that are nodes of their own in PyTorch: oneDNN's
LSTM layer (mkldnn_rnn_layer) and packing a padded batch (_pack_padded_sequence)."""
import numpy as np

from ._kernels import sigmoid_array

# The byte size of oneDNN's LSTM workspace (a saved output nothing here reads) depends on
# oneDNN's internal blocking; this is the size it has for small layers.
_WORKSPACE_BYTES = 28672


def lstm_layer(input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse, has_biases):
    """One LSTM layer over a (T, B, I) sequence, one direction: (output, hy, cy, workspace).
    A reverse layer reads the sequence from its end; its outputs stay at their time steps."""
    steps, batch, _ = input.shape
    hidden = w_hh.shape[1]
    dtype = input.dtype
    projected = input.reshape(steps * batch, -1) @ w_ih.T
    if has_biases:
        projected = projected + (b_ih + b_hh)
    projected = projected.reshape(steps, batch, -1).astype(dtype, copy=False)
    output = np.empty((steps, batch, hidden), dtype=dtype)
    recurrent = np.ascontiguousarray(w_hh.T)  # one copy: BLAS is faster on it at every step
    h, c = hx, cx
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        gates = projected[t] + h @ recurrent
        i, f, g, o = np.split(gates, 4, axis=1)
        c = sigmoid_array(f) * c + sigmoid_array(i) * np.tanh(g)
        h = sigmoid_array(o) * np.tanh(c)
        output[t] = h
    return output, h.astype(dtype, copy=False), c.astype(dtype, copy=False), np.zeros(_WORKSPACE_BYTES, np.uint8)


def pack_padded(input, lengths, batch_first):
    """(data, batch_sizes) of a padded (T, B, *) batch (B, T, * when batch_first) whose
    sequences have the given lengths, longest first: time step by time step, the rows of
    the sequences still running. Blocks of steps with the same batch size are cut at once,
    as ATen cuts them (so lengths beyond T cut short blocks there too)."""
    if batch_first:
        input = np.swapaxes(input, 0, 1)
    batch = len(lengths)
    blocks, batch_sizes, done = [], [], 0
    for running in range(batch, 0, -1):
        length = int(lengths[running - 1])
        if length > done:
            block = input[done:length, :running]
            blocks.append(block.reshape((-1,) + input.shape[2:]))
            batch_sizes += [running] * (length - done)
            done = length
    return np.ascontiguousarray(np.concatenate(blocks, axis=0)), np.array(batch_sizes, dtype=np.int64)
