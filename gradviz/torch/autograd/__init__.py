"""torch.autograd: backward, grad, Variable, Function, grad modes, anomaly detection."""
from .engine import is_checkpoint_valid as _is_checkpoint_valid  # noqa: F401
from .entry import backward, grad  # noqa: F401
from .._errors import anomaly_mode_enabled, warn_at_user
from .grad_mode import (ANOMALY, enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                        no_grad, set_grad_enabled)
from .grad_mode import set_anomaly_enabled as _set_anomaly_enabled


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        from .._tensor import Tensor
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """The pre-0.4 wrapper: today it returns the tensor itself, with requires_grad set."""
    __module__ = "torch.autograd.variable"

    def __new__(cls, data, requires_grad=False, volatile=False):
        if requires_grad:
            data.requires_grad_(True)
        return data


class set_detect_anomaly:
    """Switches anomaly mode on construction, so that a plain call works too; the with block
    restores what was on before."""
    __module__ = "torch.autograd.anomaly_mode"

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = ANOMALY.enabled, ANOMALY.check_nan
        _set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _set_anomaly_enabled(self.prev, self.prev_check_nan)


class detect_anomaly:
    """Warns when made (PyTorch's reminder of the cost) and switches anomaly mode on only
    inside the block (PyTorch 2.13's is no decorator)."""
    __module__ = "torch.autograd.anomaly_mode"

    def __init__(self, check_nan=True):
        self.prev, self.prev_check_nan = ANOMALY.enabled, ANOMALY.check_nan
        self.check_nan = check_nan
        warn_at_user(anomaly_mode_enabled())

    def __enter__(self):
        _set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc):
        _set_anomaly_enabled(self.prev, self.prev_check_nan)


from .function import Function, FunctionCtx, once_differentiable  # noqa: E402,F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402,F401
from . import graph as graph  # noqa: E402,F401
from . import functional as functional  # noqa: E402,F401
from . import forward_ad as forward_ad  # noqa: E402,F401
from .legacy import NestedIOFunction, variable  # noqa: E402,F401
from .policies import enforce_grad_layout_policy, set_multithreading_enabled  # noqa: E402,F401


from .. import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
