"""torch.nn.utils.stateless: functional_call, deprecated since PyTorch 2.0 for
torch.func.functional_call, which it runs after its FutureWarning."""
import warnings

from ... import _errors_nn_utils as E
from ...func import functional_call as _func_functional_call

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    # at the caller, as PyTorch's typing_extensions.deprecated decorator reports it
    warnings.warn(E.STATELESS_DEPRECATED, FutureWarning, stacklevel=2)
    return _func_functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                                 strict=strict)
