"""nn.RNN, nn.LSTM, nn.GRU and their cells, as PyTorch 2.13's Python modules are: the
same parameters, checks, errors and printed form. The multi-layer modules run ATen's
layer stacks (_rnn_impl); the cells are decomposed exactly as ATen's rnn_tanh_cell /
lstm_cell / gru_cell are, so the graph shows PyTorch's nodes (AddmmBackward0,
AddBackward0, UnsafeSplitBackward0, ...)."""
import math
import numbers
import warnings
import weakref

from ..._namespace import F as _F
from .. import functional as F, init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from . import _rnn_impl
from .module import Module, torch_module_name


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weight_refs = []
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=2)
        self._check_sizes(bias, batch_first, input_size, hidden_size, num_layers, proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                shapes = [(gate_size, layer_input_size), (gate_size, real_hidden_size)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    shapes += [(gate_size,), (gate_size,)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    shapes.append((proj_size, hidden_size))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [name.format(layer, suffix) for name in names]
                for name, shape in zip(names, shapes):
                    setattr(self, name, Parameter(_F.empty(shape, dtype=dtype, device=device)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    @staticmethod
    def _check_sizes(bias, batch_first, input_size, hidden_size, num_layers, proj_size):
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, name) if hasattr(self, name) else None
                              for name in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None for w in self._flat_weights]
        self.flatten_parameters()

    def __setattr__(self, attr, value):
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            # keeps _flat_weights current when a weight is replaced (self.weight_ih_l0 = ...)
            self._flat_weights[self._flat_weights_names.index(attr)] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self):
        """Packs the weights for cuDNN in PyTorch; on the CPU it does nothing."""

    def _apply(self, fn, *args, **kwargs):
        self._flat_weight_refs = []
        result = super()._apply(fn, *args, **kwargs)
        self._init_flat_weights()
        return result

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes):
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                             f"Convert input: input.to({weight_dtype}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.size(-1)}")

    def _mini_batch(self, input, batch_sizes):
        if batch_sizes is not None:
            return int(batch_sizes[0])
        return input.size(0) if self.batch_first else input.size(1)

    def get_expected_hidden_size(self, input, batch_sizes):
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, self._mini_batch(input, batch_sizes),
                self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def _weights_have_changed(self):
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _update_flat_weights(self):
        if self._weights_have_changed():
            self._init_flat_weights()

    def __getstate__(self):
        self._update_flat_weights()
        state = self.__dict__.copy()
        del state["_flat_weight_refs"]  # weak references cannot be pickled
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None for w in self._flat_weights]

    @property
    def all_weights(self):
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def _zeros_hidden(self, input, batch, size):
        num_directions = 2 if self.bidirectional else 1
        return _F.zeros(self.num_layers * num_directions, batch, size, dtype=input.dtype)

    def _unpack(self, input, hx):
        """(input, batch_sizes, sorted_indices, unsorted_indices, is_batched, batch_dim) of a
        tensor or a PackedSequence; unbatched input gets its batch dimension."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            return data, batch_sizes, sorted_indices, unsorted_indices, True, None
        if input.dim() not in (2, 3):
            name, suffix = {"LSTM": ("LSTM", ""), "GRU": ("GRU", "")}.get(self.mode, ("RNN", " tensor"))
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{suffix} instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        return input, None, None, None, is_batched, batch_dim

    def _one_hidden_forward(self, input, hx):
        """RNN's and GRU's forward (one hidden state tensor)."""
        self._update_flat_weights()
        orig_input = input
        input, batch_sizes, sorted_indices, unsorted_indices, is_batched, batch_dim = self._unpack(input, hx)
        if batch_sizes is None and hx is not None:
            if not is_batched:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
            elif hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if hx is None:
            hx = self._zeros_hidden(input, self._mini_batch(input, batch_sizes), self.hidden_size)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        function = {"RNN_TANH": _rnn_impl.rnn_tanh, "RNN_RELU": _rnn_impl.rnn_relu, "GRU": _rnn_impl.gru}[self.mode]
        if batch_sizes is None:
            output, hidden = function(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                                      self.training, self.bidirectional, self.batch_first)
        else:
            output, hidden = function(input, batch_sizes, hx, self._flat_weights, self.bias, self.num_layers,
                                      self.dropout, self.training, self.bidirectional)
        if isinstance(orig_input, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._one_hidden_forward(input, hx)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        num_directions = 2 if self.bidirectional else 1
        return self.num_layers * num_directions, self._mini_batch(input, batch_sizes), self.hidden_size

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        self._update_flat_weights()
        orig_input = input
        input, batch_sizes, sorted_indices, unsorted_indices, is_batched, batch_dim = self._unpack(input, hx)
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            batch = self._mini_batch(input, batch_sizes)
            hx = (self._zeros_hidden(input, batch, real_hidden_size), self._zeros_hidden(input, batch,
                                                                                        self.hidden_size))
            if batch_sizes is None:
                self.check_forward_args(input, hx, batch_sizes)
        elif batch_sizes is not None:
            hx = self.permute_hidden(hx, sorted_indices)
        else:
            if is_batched:
                if hx[0].dim() != 3 or hx[1].dim() != 3:
                    raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            else:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            self.check_forward_args(input, hx, batch_sizes)
            hx = self.permute_hidden(hx, sorted_indices)
        if batch_sizes is None:
            output, hy, cy = _rnn_impl.lstm(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                                            self.training, self.bidirectional, self.batch_first)
        else:
            output, hy, cy = _rnn_impl.lstm(input, batch_sizes, hx, self._flat_weights, self.bias, self.num_layers,
                                            self.dropout, self.training, self.bidirectional)
        hidden = (hy, cy)
        if isinstance(orig_input, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._one_hidden_forward(input, hx)


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_F.empty((num_chunks * hidden_size, input_size), dtype=dtype, device=device))
        self.weight_hh = Parameter(_F.empty((num_chunks * hidden_size, hidden_size), dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(_F.empty(num_chunks * hidden_size, dtype=dtype, device=device))
            self.bias_hh = Parameter(_F.empty(num_chunks * hidden_size, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input, hx):
        """(input, hx, is_batched) with a batch dim added to unbatched input and a zero state
        when none is given, as PyTorch's RNNCell and GRUCell prepare them."""
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _F.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        return input, hx, is_batched

    def _weights(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        input, hx, is_batched = self._batched(input, hx)
        if self.nonlinearity == "tanh":
            ret = _rnn_impl.rnn_tanh_cell(input, hx, *self._weights())
        elif self.nonlinearity == "relu":
            ret = _rnn_impl.rnn_relu_cell(input, hx, *self._weights())
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _F.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        hy, cy = _rnn_impl.lstm_cell(input, hx, *self._weights())
        return (hy, cy) if is_batched else (hy.squeeze(0), cy.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        input, hx, is_batched = self._batched(input, hx)
        hy = _rnn_impl.gru_cell(input, hx, *self._weights())
        return hy if is_batched else hy.squeeze(0)


torch_module_name(globals(), "torch.nn.modules.rnn")
