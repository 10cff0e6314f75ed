"""The engine's two thread-local switches of torch.autograd.grad_mode that change no value:
set_multithreading_enabled (whether backward may run on device worker threads; gradviz's
CPU engine always runs it on the calling thread, as PyTorch's does for CPU tensors, so
only the state is kept) and enforce_grad_layout_policy (whether AccumulateGrad forces a
first gradient into the parameter's layout: layout.stored_grad reads it)."""
import threading

from .grad_mode import _DecoratorContextManager


class _Switches(threading.local):
    multithreading = True
    grad_layout_enforced = True


SWITCHES = _Switches()


class set_multithreading_enabled(_DecoratorContextManager):
    """Set on construction (a plain call works too); the with block restores the previous state."""
    __module__ = "torch.autograd.grad_mode"

    def __init__(self, mode):
        self.prev = SWITCHES.multithreading
        SWITCHES.multithreading = bool(mode)
        self.mode = mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        SWITCHES.multithreading = self.prev

    def clone(self):
        return self.__class__(self.mode)


class enforce_grad_layout_policy(_DecoratorContextManager):
    """Set on construction; as a decorator PyTorch first restores the previous state, so the
    switch holds only inside the decorated calls."""
    __module__ = "torch.autograd.grad_mode"

    def __init__(self, enable=True):
        self.prev = SWITCHES.grad_layout_enforced
        SWITCHES.grad_layout_enforced = bool(enable)
        self.mode = enable

    def __call__(self, orig_func):
        SWITCHES.grad_layout_enforced = self.prev
        return super().__call__(orig_func)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        SWITCHES.grad_layout_enforced = self.prev

    def clone(self):
        return self.__class__(self.mode)


def is_multithreading_enabled():
    return SWITCHES.multithreading


def is_grad_layout_enforcement_enabled():
    return SWITCHES.grad_layout_enforced
