"""torch.autograd: backward, grad, Variable, Function, grad modes, anomaly detection."""
from .engine import is_checkpoint_valid as _is_checkpoint_valid  # noqa: F401
from .entry import backward, grad  # noqa: F401
from .grad_mode import (ANOMALY, enable_grad, inference_mode, is_anomaly_enabled, is_grad_enabled,  # noqa: F401
                        no_grad, set_grad_enabled)
from .. import _errors


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
    def __init__(self, mode, check_nan=True):
        self.prev = (ANOMALY.enabled, ANOMALY.check_nan)
        ANOMALY.enabled, ANOMALY.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        ANOMALY.enabled, ANOMALY.check_nan = self.prev
        return False


class detect_anomaly(set_detect_anomaly):
    """Unlike set_detect_anomaly, switches on when entered (and warns when made), as PyTorch's."""

    def __init__(self, check_nan=True):
        self.prev = (ANOMALY.enabled, ANOMALY.check_nan)
        self.check_nan = bool(check_nan)
        _errors.warn_at_user(_errors.ANOMALY_ENABLED_WARNING)

    def __enter__(self):
        ANOMALY.enabled, ANOMALY.check_nan = True, self.check_nan
        return self


from .function import Function, FunctionCtx, once_differentiable  # noqa: E402,F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402,F401
from . import graph as graph  # noqa: E402,F401
from . import functional as functional  # noqa: E402,F401
from . import forward_ad as forward_ad  # noqa: E402,F401


from .. import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
