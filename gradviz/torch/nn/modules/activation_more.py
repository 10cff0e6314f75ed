"""The activation modules beyond activation.py's: PReLU (a learnable slope), SELU, CELU,
Mish, Hardswish, Hardsigmoid, the shrinks, Softsign, LogSigmoid, Threshold, RReLU, GLU and
Softmax2d, with PyTorch's constructors and reprs. PyTorch defines them all in
torch.nn.modules.activation, and so they name themselves."""
from ..._namespace import F as _F
from ... import _errors_nn_layers as _errors_nn
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module, torch_module_name


def _inplace_text(inplace):
    return ", inplace=True" if inplace else ""


class _InplaceActivation(Module):
    """An activation whose only option is ``inplace``, shown as PyTorch shows it."""
    _fn = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)


class SELU(_InplaceActivation):
    _fn = staticmethod(F.selu)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Mish(_InplaceActivation):
    _fn = staticmethod(F.mish)


class Hardswish(_InplaceActivation):
    _fn = staticmethod(F.hardswish)


class Hardsigmoid(_InplaceActivation):
    _fn = staticmethod(F.hardsigmoid)


class CELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_text(self.inplace)}"


class _Shrink(Module):
    _fn = None

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return type(self)._fn(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    _fn = staticmethod(F.hardshrink)


class Softshrink(_Shrink):
    _fn = staticmethod(F.softshrink)


class Tanhshrink(Module):
    def forward(self, input):
        return F.tanhshrink(input)


class Softsign(Module):
    def forward(self, input):
        return F.softsign(input)


class LogSigmoid(Module):
    def forward(self, input):
        return F.logsigmoid(input)


class Threshold(Module):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_text(self.inplace)}"


class RReLU(Module):
    """Random slopes for negative inputs while training (drawn from the default generator),
    their mean in evaluation."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_text(self.inplace)}"


class GLU(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(_F.empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softmax2d(Module):
    def forward(self, input):
        if input.dim() not in (3, 4):
            raise _errors_nn.softmax2d_rank(input.dim())
        return F.softmax(input, -3, _stacklevel=5)


torch_module_name(globals(), "torch.nn.modules.activation")
