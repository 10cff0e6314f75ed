"""skip_init: a module built without running its parameter initialisation. PyTorch builds
it on the meta device and then allocates uninitialised storage (``to_empty``); the
engine has no meta device, so it builds the module with the random generator's state
saved and put back (the initialisation leaves no trace on the stream, as on meta) and
then swaps every parameter and buffer for fresh empty storage."""
import inspect

from ... import _errors_nn_utils as E
from ..._namespace import F as _F
from ...autograd.grad_mode import no_grad
from ..modules.module import Module


def skip_init(module_cls, *args, **kwargs):
    if not issubclass(module_cls, Module):
        raise E.skip_init_not_module(module_cls)
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError(E.SKIP_INIT_NO_DEVICE)
    kwargs.pop("device", "cpu")
    state = _F.get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        _F.set_rng_state(state)
    with no_grad():
        for sub in module.modules():
            for table in (sub._parameters, sub._buffers):
                for key, value in table.items():
                    if value is not None:
                        value.data = _F.empty_like(value)
    return module
