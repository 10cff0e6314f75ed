"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode.

The state is one module-level object read on every op, so it stays a plain attribute.
"""
import functools

from .. import _errors


class _State:
    __slots__ = ("enabled", "inference")

    def __init__(self):
        self.enabled = True
        self.inference = False


STATE = _State()


class _Anomaly:
    """torch.autograd.set_detect_anomaly's switches: read by the backward engine and by the
    nodes' error messages."""
    enabled = False
    check_nan = True


ANOMALY = _Anomaly()


def set_anomaly_enabled(enabled, check_nan=True):
    """torch.set_anomaly_enabled: both switches at once, as the anomaly contexts set them.
    PyTorch has these three in torch only, not in torch.autograd."""
    ANOMALY.enabled, ANOMALY.check_nan = bool(enabled), bool(check_nan)


def is_anomaly_enabled(*args, **kwargs):
    if args or kwargs:
        raise _errors.takes_no_arguments("torch.is_anomaly_enabled", args, kwargs)
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled(*args, **kwargs):
    if args or kwargs:
        raise _errors.takes_no_arguments("torch.is_anomaly_check_nan_enabled", args, kwargs)
    return ANOMALY.check_nan


def is_grad_enabled(*args, **kwargs):
    if args or kwargs:
        raise _errors.takes_no_arguments("torch.is_grad_enabled", args, kwargs)
    return STATE.enabled


def is_inference_mode_enabled(*args, **kwargs):
    if args or kwargs:
        raise _errors.takes_no_arguments("torch.is_inference_mode_enabled", args, kwargs)
    return STATE.inference


class _DecoratorContextManager:
    """A context manager that also decorates functions (``@torch.no_grad()``)."""

    def __call__(self, func):
        if isinstance(func, type) or not callable(func):
            raise TypeError(f"{type(self).__name__} can only decorate functions")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()


class _NoParamDecorator(_DecoratorContextManager):
    """Also usable without parentheses: ``@torch.no_grad``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecorator):
    def __init__(self):
        self.prev = None

    def __enter__(self):
        self.prev = STATE.enabled
        STATE.enabled = False

    def __exit__(self, *exc):
        STATE.enabled = self.prev
        return False


class enable_grad(_NoParamDecorator):
    def __init__(self):
        self.prev = None

    def __enter__(self):
        self.prev = STATE.enabled
        STATE.enabled = True

    def __exit__(self, *exc):
        STATE.enabled = self.prev
        return False


class set_grad_enabled(_DecoratorContextManager):
    """Sets the mode at once (usable as a plain call), restores it on exit."""

    def __init__(self, mode):
        self.prev = STATE.enabled
        self.mode = bool(mode)
        STATE.enabled = self.mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        STATE.enabled = self.prev
        return False

    def __call__(self, func):
        # As a decorator the mode set by __init__ is undone: it applies only inside func.
        STATE.enabled = self.prev
        return super().__call__(func)

    def clone(self):
        return set_grad_enabled(self.mode)


class inference_mode(_DecoratorContextManager):
    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = bool(mode) if not callable(mode) else True
        self.prev = None

    def __enter__(self):
        self.prev = (STATE.enabled, STATE.inference)
        # inference_mode(False) is not a no-op: like PyTorch's guard it turns grad mode on.
        STATE.enabled, STATE.inference = (False, True) if self.mode else (True, False)

    def __exit__(self, *exc):
        STATE.enabled, STATE.inference = self.prev
        return False

    def clone(self):
        return inference_mode(self.mode)
