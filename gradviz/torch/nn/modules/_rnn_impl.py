"""ATen's recurrent functions, public as ``torch.lstm``, ``torch.lstm_cell`` ... as in
PyTorch, where the modules call them through ``torch._VF`` (a forward view shows one
``lstm_cell`` call, as PyTorch's does).

The multi-layer ones (rnn_tanh, rnn_relu, gru, lstm) run on engine ops,
for padded (T, B, *) input and for packed data, decomposed as PyTorch's CPU build runs
them, so a graph shows PyTorch's nodes:

- every layer projects its whole input at once (AddmmBackward0 between two views, or a
  matmul), unbinds it into time steps (UnbindBackward0) and runs one cell per step;
- cells are RNN.cpp's: linear_hh(h) + x, then tanh/relu; LSTM and GRU gates through one
  UnsafeSplitBackward0 each;
- steps are stacked (StackBackward0), directions concatenated (CatBackward0), final
  states stacked; packed data is cut with narrow (SliceBackward0) and joined with cat;
- a float32 LSTM without projections goes to oneDNN as PyTorch's does: one
  MkldnnRnnLayerBackward0 node per layer and direction.
"""
from ... import _dtypes, _errors, _ops_nn
from ..._namespace import F as _F
from .. import functional as F
from ..utils.rnn import _transpose_in_place


class _CellParams:
    """One layer-direction's weights, as ATen's CellParams uses them."""
    __slots__ = ("w_ih", "w_hh", "b_ih", "b_hh", "w_hr")

    def __init__(self, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
        self.w_ih, self.w_hh, self.b_ih, self.b_hh, self.w_hr = w_ih, w_hh, b_ih, b_hh, w_hr

    def linear_ih(self, input):
        return F.linear(input, self.w_ih, self.b_ih)

    def linear_hh(self, hidden):
        return F.linear(hidden, self.w_hh, self.b_hh)

    def project(self, hidden):
        return hidden if self.w_hr is None else _F.matmul(hidden, self.w_hr.t())


def _gather_params(flat, has_biases, has_projections=False):
    count = (4 if has_biases else 2) + (1 if has_projections else 0)
    if len(flat) % count:
        raise RuntimeError("got an incorrect number of RNN parameters")
    params = []
    for start in range(0, len(flat), count):
        group = flat[start:start + count]
        w_hr = group[-1] if has_projections else None
        params.append(_CellParams(group[0], group[1], *(group[2:4] if has_biases else ()), w_hr=w_hr))
    return params


# ---------------------------------------------------------------------------------------
# cells: the input is already projected (x W_ih^T + b_ih), as on CPU
def _tanh_cell(input, hidden, params):
    return _F.tanh(params.linear_hh(hidden) + input)


def _relu_cell(input, hidden, params):
    return _F.relu(params.linear_hh(hidden) + input)


def _lstm_cell(input, hidden, params):
    hx, cx = hidden
    ingate, forgetgate, cellgate, outgate = F.unsafe_chunk(params.linear_hh(hx) + input, 4, 1)
    ingate, forgetgate, cellgate, outgate = ingate.sigmoid(), forgetgate.sigmoid(), cellgate.tanh(), outgate.sigmoid()
    cy = forgetgate * cx + ingate * cellgate
    return params.project(outgate * cy.tanh()), cy


def _gru_cell(input, hidden, params):
    input_r, input_z, input_n = F.unsafe_chunk(input, 3, 1)
    hidden_r, hidden_z, hidden_n = F.unsafe_chunk(params.linear_hh(hidden), 3, 1)
    resetgate = (hidden_r + input_r).sigmoid()
    inputgate = (hidden_z + input_z).sigmoid()
    newgate = (input_n + hidden_n * resetgate).tanh()
    return (hidden - newgate) * inputgate + newgate


# A hidden state is one tensor, or (h, c) for an LSTM.
def _output_of(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _narrow(hidden, start, end):
    if isinstance(hidden, tuple):
        return tuple(_narrow(h, start, end) for h in hidden)
    return hidden.narrow(0, start, end - start)


def _concat(hiddens):
    if isinstance(hiddens[0], tuple):
        return tuple(_F.cat(list(parts), 0) for parts in zip(*hiddens))
    return _F.cat(hiddens, 0)


# ---------------------------------------------------------------------------------------
# layers over padded input: (output, final hidden)
def _run_steps(cell, steps, hidden, params):
    outputs = []
    for step in steps:
        hidden = cell(step, hidden, params)
        outputs.append(_output_of(hidden))
    if not outputs:
        raise _errors.rnn_empty_sequence()
    return outputs, hidden


def _full_layer(cell, input, hidden, params):
    outputs, hidden = _run_steps(cell, params.linear_ih(input).unbind(0), hidden, params)
    return _F.stack(outputs, 0), hidden


def _full_bidirectional_layer(cell, input, hidden, params):
    forward, forward_hidden = _full_layer(cell, input, hidden[0], params[0])
    outputs, backward_hidden = _run_steps(cell, params[1].linear_ih(input).unbind(0)[::-1], hidden[1], params[1])
    backward = _F.stack(outputs[::-1], 0)
    return _F.cat([forward, backward], forward.dim() - 1), (forward_hidden, backward_hidden)


# ---------------------------------------------------------------------------------------
# layers over packed data (data, batch sizes as a list): ((data, batch sizes), final hidden)
def _packed_layer(cell, packed, hidden, params):
    data, batch_sizes = packed
    projected = params.linear_ih(data)
    outputs, finished, offset, last = [], [], 0, batch_sizes[0]
    for size in batch_sizes:
        step = projected.narrow(0, offset, size)
        offset += size
        if last > size:  # sequences that ended: their final state is kept aside
            finished.append(_narrow(hidden, size, last))
            hidden = _narrow(hidden, 0, size)
        last = size
        hidden = cell(step, hidden, params)
        outputs.append(_output_of(hidden))
    finished.append(hidden)
    return (_F.cat(outputs, 0), batch_sizes), _concat(finished[::-1])


def _reversed_packed_layer(cell, packed, hidden, params):
    data, batch_sizes = packed
    projected = params.linear_ih(data)
    outputs, offset, last = [], data.shape[0], batch_sizes[-1]
    initial, hidden = hidden, _narrow(hidden, 0, batch_sizes[-1])
    for size in reversed(batch_sizes):
        if size > last:  # sequences that start here (read from their end) join with their initial state
            hidden = _concat([hidden, _narrow(initial, last, size)])
        step = projected.narrow(0, offset - size, size)
        offset -= size
        last = size
        hidden = cell(step, hidden, params)
        outputs.append(_output_of(hidden))
    return (_F.cat(outputs[::-1], 0), batch_sizes), hidden


def _packed_bidirectional_layer(cell, packed, hidden, params):
    (forward, batch_sizes), forward_hidden = _packed_layer(cell, packed, hidden[0], params[0])
    (backward, _), backward_hidden = _reversed_packed_layer(cell, packed, hidden[1], params[1])
    return (_F.cat([forward, backward], -1), batch_sizes), (forward_hidden, backward_hidden)


# ---------------------------------------------------------------------------------------
# layer stacks
def _dropout(io, p):
    if isinstance(io, tuple):
        return F.dropout(io[0], p, True), io[1]
    return F.dropout(io, p, True)


def _pairs(values):
    if len(values) % 2:
        raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
    return [(values[i], values[i + 1]) for i in range(0, len(values), 2)]


def _layer_stack(cell, layer, bidirectional_layer, input, params, hiddens, num_layers, dropout, train, bidirectional):
    """(last layer's output, every layer-direction's final hidden, in h_n's order)."""
    if bidirectional:
        layer, params, hiddens = bidirectional_layer, _pairs(params), _pairs(hiddens)
    if num_layers != len(hiddens):
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if num_layers != len(params):
        raise RuntimeError("Expected more weights in stacked_rnn")
    finals = []
    for index in range(num_layers):
        input, final = layer(cell, input, hiddens[index], params[index])
        finals.extend(final if bidirectional else (final,))
        if dropout != 0 and train and index < num_layers - 1:
            input = _dropout(input, dropout)
    return input, finals


def _batch_sizes_list(batch_sizes):
    return [int(size) for size in batch_sizes.tolist()]


def _one_hidden_rnn(mode, input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first,
                   batch_sizes=None):
    """ATen's rnn_tanh / rnn_relu / gru: (output, h_n). With ``batch_sizes`` the input is
    packed data, and so is the output."""
    cell = {"RNN_TANH": _tanh_cell, "RNN_RELU": _relu_cell, "GRU": _gru_cell}[mode]
    params = _gather_params(params, has_biases)
    if batch_sizes is not None:
        (output, _), finals = _layer_stack(cell, _packed_layer, _packed_bidirectional_layer,
                                           (input, _batch_sizes_list(batch_sizes)), params, hx.unbind(0), num_layers,
                                           dropout, train, bidirectional)
        return output, _F.stack(finals, 0)
    if batch_first:
        input = input.transpose(0, 1)
    output, finals = _layer_stack(cell, _full_layer, _full_bidirectional_layer, input, params, hx.unbind(0),
                                  num_layers, dropout, train, bidirectional)
    hy = _F.stack(finals, 0)
    if batch_first:  # ATen turns the output back in place
        output = _transpose_in_place(output)
    return output, hy


def _lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first, batch_sizes=None):
    """ATen's lstm: (output, h_n, c_n); packed data in and out with ``batch_sizes``."""
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    has_projections = hx[0].shape[2] != hx[1].shape[2]
    onednn = input.dtype == _dtypes.float32 and input.numel() != 0
    if batch_sizes is None and onednn:
        if not has_projections:
            return _lstm_onednn(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
        _errors.warn_once(_errors.LSTM_PROJECTIONS_ONEDNN_WARNING)
    if batch_sizes is not None and onednn and not has_projections:
        sizes = _batch_sizes_list(batch_sizes)
        if sizes[0] == sizes[-1]:  # packed sequences of one length: a padded batch, without padding
            padded = input.view((len(sizes), sizes[0]) + tuple(input.shape[1:]))
            output, hy, cy = _lstm_onednn(padded, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                                          False)
            return output.view(input.shape[0], output.shape[2]), hy, cy
    params = _gather_params(params, has_biases, has_projections)
    hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
    if batch_sizes is not None:
        (output, _), finals = _layer_stack(_lstm_cell, _packed_layer, _packed_bidirectional_layer,
                                           (input, _batch_sizes_list(batch_sizes)), params, hiddens, num_layers,
                                           dropout, train, bidirectional)
    else:
        if batch_first:
            input = input.transpose(0, 1)
        output, finals = _layer_stack(_lstm_cell, _full_layer, _full_bidirectional_layer, input, params, hiddens,
                                      num_layers, dropout, train, bidirectional)
        if batch_first:
            output = output.transpose(0, 1)
    return output, _F.stack([h for h, _ in finals], 0), _F.stack([c for _, c in finals], 0)


# ideep's rnn_kind for an LSTM, as MkldnnRnnLayerBackward0 saves it (_saved_mode)
_ONEDNN_LSTM_MODE = 2


def _lstm_onednn(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """ATen's mkldnn_rnn: the layers one by one, each direction one oneDNN layer."""
    if batch_first:
        input = input.transpose(0, 1)
    input = input.contiguous()
    h0, c0 = hx[0].contiguous(), hx[1].contiguous()
    directions = 2 if bidirectional else 1
    count = 4 if has_biases else 2
    hidden_size = h0.shape[2]
    layer_input = input
    hy, cy = [None] * (num_layers * directions), [None] * (num_layers * directions)
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            weights = params[index * count:(index + 1) * count]
            if has_biases:
                biases = weights[2], weights[3]
            else:  # oneDNN gets zero biases, shaped like the weights
                biases = (_F.zeros(tuple(weights[0].shape), dtype=weights[0].dtype),
                          _F.zeros(tuple(weights[1].shape), dtype=weights[1].dtype))
            output, hy[index], cy[index], _ = _ops_nn._apply(
                _ops_nn.mkldnn_rnn_layer, (layer_input, weights[0], weights[1], *biases, h0.select(0, index),
                                           c0.select(0, index)),
                reverse=direction > 0, batch_sizes=(), mode=_ONEDNN_LSTM_MODE, hidden_size=hidden_size,
                num_layers=num_layers, has_biases=has_biases, bidirectional=bidirectional, batch_first=batch_first,
                train=train)
            outputs.append(output)
        layer_input = outputs[0] if directions == 1 else _F.cat(outputs, -1)
        if dropout != 0 and train and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    output = layer_input.transpose(0, 1) if batch_first else layer_input
    return output, _F.stack(hy, 0), _F.stack(cy, 0)


# ---------------------------------------------------------------------------------------
# The public functions, with ATen's two overloads: padded input
# (input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
# and packed data (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
# bidirectional).
def _overload(args):
    """(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first, batch_sizes) from either overload's arguments."""
    if len(args) == 9 and hasattr(args[1], "dim") and args[1].dim() == 1 and args[1].dtype == _dtypes.int64:
        data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = args
        return data, hx, params, has_biases, num_layers, dropout, train, bidirectional, False, batch_sizes
    return tuple(args) + (None,)


def lstm(*args):
    """torch.lstm: (output, h_n, c_n)."""
    return _lstm(*_overload(args))


def gru(*args):
    """torch.gru: (output, h_n)."""
    return _one_hidden_rnn("GRU", *_overload(args))


def rnn_tanh(*args):
    """torch.rnn_tanh: (output, h_n)."""
    return _one_hidden_rnn("RNN_TANH", *_overload(args))


def rnn_relu(*args):
    """torch.rnn_relu: (output, h_n)."""
    return _one_hidden_rnn("RNN_RELU", *_overload(args))


def _check_cell(input, hidden, w_ih, w_hh, k=0):
    """ATen's check_rnn_cell_forward_input and _hidden: input and hidden{k} fit the weights."""
    if k == 0 and input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}")
    if input.shape[0] != hidden.shape[0]:
        raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} batch size {hidden.shape[0]}")
    if hidden.shape[1] != w_hh.shape[1]:
        raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {hidden.shape[1]}, expected "
                           f"{w_hh.shape[1]}")


def _cell_gates(input, hx, w_ih, w_hh, b_ih, b_hh):
    """linear(hx, w_hh, b_hh) + linear(input, w_ih, b_ih), in ATen's order."""
    return F.linear(hx, w_hh, b_hh) + F.linear(input, w_ih, b_ih)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    _check_cell(input, hx, w_ih, w_hh)
    return _F.tanh(_cell_gates(input, hx, w_ih, w_hh, b_ih, b_hh))


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    _check_cell(input, hx, w_ih, w_hh)
    return _F.relu(_cell_gates(input, hx, w_ih, w_hh, b_ih, b_hh))


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.lstm_cell: (h', c') of hx = (h, c)."""
    h, c = hx
    _check_cell(input, h, w_ih, w_hh, 0)
    _check_cell(input, c, w_ih, w_hh, 1)
    ingate, forgetgate, cellgate, outgate = F.unsafe_chunk(_cell_gates(input, h, w_ih, w_hh, b_ih, b_hh), 4, 1)
    ingate, forgetgate, cellgate, outgate = ingate.sigmoid(), forgetgate.sigmoid(), cellgate.tanh(), \
        outgate.sigmoid()
    cy = forgetgate * c + ingate * cellgate
    return outgate * cy.tanh(), cy


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.gru_cell: both linear maps chunked, combined gate by gate."""
    _check_cell(input, hx, w_ih, w_hh)
    ir, iz, in_ = F.unsafe_chunk(F.linear(input, w_ih, b_ih), 3, 1)
    hr, hz, hn = F.unsafe_chunk(F.linear(hx, w_hh, b_hh), 3, 1)
    resetgate = (hr + ir).sigmoid()
    inputgate = (hz + iz).sigmoid()
    newgate = (in_ + hn * resetgate).tanh()
    return (hx - newgate) * inputgate + newgate
