"""RNNCell and LSTMCell, decomposed exactly as ATen's rnn_tanh_cell / lstm_cell are, so
the graph shows PyTorch's nodes (AddmmBackward0, AddBackward0, UnsafeSplitBackward0, ...)."""
import math

from ... import _functions as _F
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module, torch_module_name


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_F.empty((num_chunks * hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(_F.empty((num_chunks * hidden_size, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_F.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(_F.empty(num_chunks * hidden_size, dtype=dtype))
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

    def _gates(self, input, hx):
        """linear(hx, W_hh, b_hh) + linear(input, W_ih, b_ih), in ATen's order."""
        if input.shape[1] != self.weight_ih.shape[1]:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected "
                               f"{self.weight_ih.shape[1]}")
        if input.shape[0] != hx.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden0 batch size {hx.shape[0]}")
        if hx.shape[1] != self.hidden_size:
            raise RuntimeError(f"hidden0 has inconsistent hidden_size: got {hx.shape[1]}, expected "
                               f"{self.hidden_size}")
        return F.linear(hx, self.weight_hh, self.bias_hh) + F.linear(input, self.weight_ih, self.bias_ih)


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
            ret = _F.tanh(self._gates(input, hx))
        elif self.nonlinearity == "relu":
            ret = _F.relu(self._gates(input, hx))
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
        hy, cy = self._cell(input, hx[0], hx[1])
        return (hy, cy) if is_batched else (hy.squeeze(0), cy.squeeze(0))

    def _cell(self, input, h, c):
        ingate, forgetgate, cellgate, outgate = F.unsafe_chunk(self._gates(input, h), 4, 1)
        ingate, forgetgate, cellgate, outgate = ingate.sigmoid(), forgetgate.sigmoid(), cellgate.tanh(), \
            outgate.sigmoid()
        cy = forgetgate * c + ingate * cellgate
        return outgate * cy.tanh(), cy


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        input, hx, is_batched = self._batched(input, hx)
        # ATen's gru_cell: chunk both linear maps, combine gate by gate.
        ir, iz, in_ = F.unsafe_chunk(F.linear(input, self.weight_ih, self.bias_ih), 3, 1)
        hr, hz, hn = F.unsafe_chunk(F.linear(hx, self.weight_hh, self.bias_hh), 3, 1)
        resetgate = (hr + ir).sigmoid()
        inputgate = (hz + iz).sigmoid()
        newgate = (in_ + hn * resetgate).tanh()
        hy = (hx - newgate) * inputgate + newgate
        return hy if is_batched else hy.squeeze(0)


torch_module_name(globals(), "torch.nn.modules.rnn")
