"""Where a tensor's values live: data_ptr, untyped_storage and the deprecated storage
(the classes are torch.storage's, ``storage.py``)."""
from . import _errors
from ._kernels import storage_root
from .storage import TypedStorage, UntypedStorage, data_address

EXPORTS = ("data_ptr", "untyped_storage", "storage")
TORCH = ()
METHODS = ("data_ptr", "untyped_storage", "storage")


def data_ptr(self):
    return data_address(self._data)


def untyped_storage(self):
    return UntypedStorage(storage_root(self._data), self.device)


def storage(self):
    _errors.warn_once(_errors.TYPED_STORAGE_DEPRECATED)
    return TypedStorage(storage_root(self._data), self.device, self.dtype, self._data.dtype)
