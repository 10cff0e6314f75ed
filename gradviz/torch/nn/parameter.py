"""torch.nn.Parameter: a leaf Tensor subclass that Modules register automatically."""
from .. import _dtypes
from .._tensor import Tensor


class Parameter(Tensor):
    # type(p) prints as PyTorch's class; its repr is "Parameter containing:\ntensor(...)".
    __module__ = "torch.nn.parameter"
    _repr_prefix = "Parameter containing:\ntensor("

    def __new__(cls, data=None, requires_grad=True):
        import numpy as np
        if data is None:
            data = Tensor._make(np.zeros((0,), dtype=_dtypes.DEFAULTS.float_dtype.np))
        # Shares storage and version counter with ``data``, as PyTorch's _make_subclass does.
        p = cls._make(data._data, None, data._vbox)
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data.copy(), self._requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(Tensor._make(data), requires_grad)


class Buffer:
    """torch.nn.Buffer: marks a tensor to be registered as a buffer when assigned."""
    __module__ = "torch.nn.parameter"

    def __new__(cls, data=None, *, persistent=True):
        from .._namespace import F
        t = data if data is not None else F.empty(0)
        t._buffer_persistent = persistent
        return t


def is_lazy(param):
    return False
