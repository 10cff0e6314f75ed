"""torch.storage: a tensor's memory as PyTorch shows it, ``untyped_storage()`` (its bytes)
and the deprecated ``storage()`` (its elements in the tensor's dtype). Views here are numpy
views, so a tensor's storage is the array at the end of its ``.base`` chain: a slice, a
transpose or an ``expand`` shares its base's storage, and ``data_ptr()`` is where the
tensor's first element lies in it. Both print as PyTorch prints them, one value a line
then ``[torch.storage.UntypedStorage(device=cpu) of size N]``."""
import numpy as np

from ._meta import MetaArray


def data_address(array):
    """The address of ``array``'s first element; 0 on the meta device, as in PyTorch."""
    return 0 if type(array) is MetaArray else array.__array_interface__["data"][0]


def _root_bytes(root):
    return np.ascontiguousarray(root).reshape(-1).view(np.uint8)


class _Storage:
    _kind = "Storage"

    def __init__(self, root, device):
        self._root = root
        self.device = device

    def data_ptr(self):
        return data_address(self._root)

    def __len__(self):
        return self.size()

    def _info(self):
        return f"[torch.storage.{self._kind}({self._info_fields()}) of size {len(self)}]"

    def __str__(self):
        if type(self._root) is MetaArray:
            return "...\n" + self._info()
        return " " + "\n ".join(str(value) for value in self.tolist()) + "\n" + self._info()

    __repr__ = __str__


class UntypedStorage(_Storage):
    """The storage's bytes, each an int from 0 to 255."""
    _kind = "UntypedStorage"

    def nbytes(self):
        return self._root.nbytes

    size = nbytes

    def element_size(self):
        return 1

    def tolist(self):
        return _root_bytes(self._root).tolist()

    def __getitem__(self, index):
        return _root_bytes(self._root).tolist()[index]

    def _info_fields(self):
        return f"device={self.device}"


class TypedStorage(_Storage):
    """The storage's elements in the tensor's dtype, as Python numbers."""
    _kind = "TypedStorage"

    def __init__(self, root, device, dtype, element_dtype):
        super().__init__(root, device)
        self.dtype = dtype
        self._element_dtype = element_dtype

    def nbytes(self):
        return self._root.nbytes

    def element_size(self):
        return self._element_dtype.itemsize

    def size(self):
        return self._root.nbytes // self._element_dtype.itemsize

    def untyped(self):
        return UntypedStorage(self._root, self.device)

    def tolist(self):
        return _root_bytes(self._root).view(self._element_dtype).tolist()

    def __getitem__(self, index):
        return self.tolist()[index]

    def _info_fields(self):
        return f"dtype={self.dtype!r}, device={self.device}"
