"""torch.save / torch.load in PyTorch's own zip format, so that real PyTorch reads the
engine's files and the engine reads PyTorch's: an archive ``<name>/`` holding ``data.pkl``
(the object, pickled with protocol 2, each tensor as ``torch._utils._rebuild_tensor_v2``
over a persistent ``('storage', torch.<T>Storage, key, 'cpu', numel)``), ``data/<key>`` (each
storage's raw little-endian bytes, aligned to 64 bytes as PyTorch aligns them), ``version``,
``byteorder`` and the format records. Tensors that share memory share one storage, in
files as in PyTorch. ``torch.load`` defaults to ``weights_only=True`` as PyTorch 2.6 and later
do: only tensors, containers, numbers, strings and PyTorch's allowlisted globals load; any
other global is refused in PyTorch's words."""
import collections
import io
import os
import pickle
import struct
import uuid
import zipfile

import numpy as np

from . import _dtypes, _errors_serialization as E, _kernels as K
from ._device import device
from ._meta import MetaArray
from ._tensor import Size, Tensor
from .nn.parameter import Parameter

_STORAGE_NAMES = {
    _dtypes.float32: "FloatStorage", _dtypes.float64: "DoubleStorage", _dtypes.float16: "HalfStorage",
    _dtypes.bfloat16: "BFloat16Storage", _dtypes.int64: "LongStorage", _dtypes.int32: "IntStorage",
    _dtypes.int16: "ShortStorage", _dtypes.int8: "CharStorage", _dtypes.uint8: "ByteStorage",
    _dtypes.bool: "BoolStorage", _dtypes.complex64: "ComplexFloatStorage", _dtypes.complex128: "ComplexDoubleStorage",
}
ALIGNMENT = 64  # PyTorch's zip writer starts every record's bytes at a multiple of 64


# -- the globals a file names, and what they rebuild --------------------------------------

class _StorageType:
    """torch.<T>Storage as a pickle names it: the dtype of its storage's bytes."""

    def __init__(self, dtype):
        self.dtype = dtype


class _LoadedStorage:
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    array = storage.array
    view = np.lib.stride_tricks.as_strided(array[storage_offset:], shape=tuple(size),
                                           strides=tuple(s * array.itemsize for s in stride))
    tensor = Tensor._make(view)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, False, None)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = Parameter(data, requires_grad)
    for name, value in (state or {}).items():
        setattr(param, name, value)
    return param


def _rebuild_from_type_v2(func, new_type, args, state):
    result = func(*args)
    for name, value in (state or {}).items():
        setattr(result, name, value)
    return result


def _get_layout(name):
    return name


class _Global:
    """A PyTorch global, pickled under PyTorch's name (``GLOBAL torch._utils _rebuild_tensor_v2``)
    since the engine cannot (and must not) import real torch for pickle to look it up; calling
    it calls the engine's counterpart, what loading the name gives."""
    __slots__ = ("module", "name", "function")

    def __init__(self, module, name, function):
        self.module, self.name, self.function = module, name, function

    def __call__(self, *args):
        return self.function(*args)


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2", _rebuild_tensor_v2)
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter", _rebuild_parameter)
_SIZE, _DEVICE = _Global("torch", "Size", Size), _Global("torch", "device", device)
_STORAGE_GLOBALS = {d: _Global("torch", name, _StorageType(d)) for d, name in _STORAGE_NAMES.items()}


# -- saving ---------------------------------------------------------------------------------

class _StorageRef:
    """A storage as the pickle names it; its bytes go to ``data/<key>``."""
    __slots__ = ("key", "dtype", "numel")

    def __init__(self, key, dtype, numel):
        self.key, self.dtype, self.numel = key, dtype, numel




class _Storages:
    """The storages of one save, keyed '0', '1'... in the order the pickle meets them; a
    tensor that views a contiguous owner of the same dtype shares that owner's storage."""

    def __init__(self):
        self.records = []  # (key, bytes)
        self._by_root = {}
        self._keep = []  # the arrays keyed by id() stay alive while the save runs

    def place(self, tensor):
        """(storage ref, storage offset, stride) of ``tensor``."""
        array = tensor._data
        if type(array) is MetaArray:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        root = K.storage_root(array)
        shared = (root.dtype == array.dtype and (root.flags.c_contiguous or root.flags.f_contiguous)
                  and all(s >= 0 for s in array.strides))
        if not shared:
            root = np.ascontiguousarray(array)
        ref = self._by_root.get(id(root))
        if ref is None:
            ref = _StorageRef(str(len(self.records)), _dtypes.of_array(root), root.size)
            self._by_root[id(root)] = ref
            self._keep.append(root)
            self.records.append((ref.key, root.tobytes(order="A")))
        if not shared:
            return ref, 0, tensor.stride()
        return ref, tensor.storage_offset(), tensor.stride()


class _TorchPickler(pickle._Pickler):  # the Python pickler: its dispatch table takes the raw globals
    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = _Storages()

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            return ("storage", _STORAGE_GLOBALS[obj.dtype], obj.key, "cpu", obj.numel)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            if isinstance(obj, Parameter):
                plain = Tensor._make(obj._data)
                return (_REBUILD_PARAMETER, (plain, obj.requires_grad, collections.OrderedDict()))
            ref, offset, stride = self.storages.place(obj)
            return (_REBUILD_TENSOR, (ref, offset, tuple(obj.shape), tuple(stride), obj.requires_grad,
                                      collections.OrderedDict()))
        if isinstance(obj, Size):
            return (_SIZE, (tuple(obj),))
        if isinstance(obj, device):
            return (_DEVICE, (str(obj),))
        return NotImplemented

    def _write_global(self, obj, module, name):
        self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))
        self.memoize(obj)

    def save_global(self, obj, name=None):
        """Engine classes and functions under PyTorch's module paths (``torch.nn.modules.
        linear.Linear``), written without importing them."""
        module = getattr(obj, "__module__", None) or ""
        if module.startswith("gradviz.torch"):
            module = module[len("gradviz."):]
        if module == "torch" or module.startswith("torch."):
            self._write_global(obj, module, name or obj.__qualname__)
        else:
            super().save_global(obj, name)

    def _save_named_global(self, obj):
        self._write_global(obj, obj.module, obj.name)

    def _save_dtype(self, obj):
        self._write_global(obj, "torch", obj.name)

    dispatch[_Global] = _save_named_global
    dispatch[_dtypes.dtype] = _save_dtype


def _archive_name(f):
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0]
    return "archive"


def _zip_records(archive, records):
    """The zip PyTorch writes: stored (uncompressed) records, each record's bytes starting at a
    multiple of ALIGNMENT (the local header's extra field, id 'FB', pads it there)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive_file:
        for name, data in records:
            info = zipfile.ZipInfo(f"{archive}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            header_end = buffer.tell() + 30 + len(info.filename.encode("utf-8")) + 4
            padding = -header_end % ALIGNMENT
            info.extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
            archive_file.writestr(info, data)
    return buffer.getvalue()


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise E.save_target(f)
    data = io.BytesIO()
    pickler = _TorchPickler(data, pickle_protocol)
    pickler.dump(obj)
    records = [("data.pkl", data.getvalue()), (".format_version", b"1"), (".storage_alignment", b"64")]
    if not _disable_byteorder_record:
        records.append(("byteorder", b"little"))
    records += [(f"data/{key}", raw) for key, raw in pickler.storages.records]
    records += [("version", b"3\n"), (".data/serialization_id", str(uuid.uuid4().int).encode())]
    archive = _zip_records(_archive_name(f), records)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as out:
            out.write(archive)
    else:
        f.write(archive)


# -- loading ----------------------------------------------------------------------------------

def _allowed_globals():
    """PyTorch's default weights-only allowlist, as the engine's objects."""
    import codecs
    allowed = {
        "collections.OrderedDict": collections.OrderedDict, "collections.Counter": collections.Counter,
        "torch.nn.parameter.Parameter": Parameter, "torch.serialization._get_layout": _get_layout,
        "torch.Size": Size, "torch.Tensor": Tensor, "torch.device": device, "_codecs.encode": codecs.encode,
        "builtins.bytearray": bytearray, "builtins.set": set, "builtins.complex": complex,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2, "torch._utils._rebuild_tensor": _rebuild_tensor,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
    }
    allowed.update({f"torch.{d.name}": d for d in _dtypes.ALL})
    allowed.update({f"torch.{name}": _StorageType(d) for d, name in _STORAGE_NAMES.items()})
    return allowed


_SAFE_GLOBALS = {}  # torch.serialization.add_safe_globals's


def add_safe_globals(safe_globals):
    for item in safe_globals:
        obj = item[0] if isinstance(item, tuple) else item
        name = item[1] if isinstance(item, tuple) else f"{obj.__module__}.{obj.__qualname__}"
        _SAFE_GLOBALS[name] = obj


def get_safe_globals():
    return list(_SAFE_GLOBALS.values())


def clear_safe_globals():
    _SAFE_GLOBALS.clear()


class safe_globals:
    """``with torch.serialization.safe_globals([...]):`` allowlists globals for its body."""

    def __init__(self, safe_globals):
        self._globals = safe_globals

    def __enter__(self):
        self._before = dict(_SAFE_GLOBALS)
        add_safe_globals(self._globals)

    def __exit__(self, *exc):
        _SAFE_GLOBALS.clear()
        _SAFE_GLOBALS.update(self._before)


def _engine_global(module, name):
    """A PyTorch global of a full pickle (weights_only=False) as the engine's object: the
    engine module of the same path, else the engine's public class with that module path."""
    import importlib
    from . import nn, optim
    try:
        return getattr(importlib.import_module("gradviz." + module), name)
    except (ImportError, AttributeError):
        pass
    for namespace in (nn, optim, nn.functional):
        found = namespace.__dict__.get(name)
        if found is not None and getattr(found, "__module__", None) == module:
            return found
    raise AttributeError(f"Can't get attribute '{name}' on <module '{module}'>")


class _TorchUnpickler(pickle.Unpickler):
    def __init__(self, file, archive, prefix, weights_only, map_location, **kwargs):
        super().__init__(file, **kwargs)
        self._archive, self._prefix = archive, prefix
        self._weights_only, self._map_location = weights_only, map_location
        self._allowed = _allowed_globals()
        self._loaded = {}

    def find_class(self, module, name):
        module = {"__builtin__": "builtins", "copy_reg": "copyreg"}.get(module, module)
        full = f"{module}.{name}"
        if full in self._allowed:
            return self._allowed[full]
        if full in _SAFE_GLOBALS:
            return _SAFE_GLOBALS[full]
        if self._weights_only:
            raise E.unsupported_global(full)
        if module == "torch" or module.startswith("torch."):
            return _engine_global(module, name)
        return super().find_class(module, name)

    def persistent_load(self, pid):
        kind, storage_type, key, location, numel = pid
        if key not in self._loaded:
            _check_location(_mapped_location(location, self._map_location))
            raw = self._archive.read(f"{self._prefix}data/{key}")
            dtype = storage_type.dtype.np if isinstance(storage_type, _StorageType) else storage_type.np
            self._loaded[key] = _LoadedStorage(np.frombuffer(raw, dtype=dtype).copy())
        return self._loaded[key]


def _mapped_location(location, map_location):
    if map_location is None:
        return location
    if isinstance(map_location, dict):
        return str(map_location.get(location, location))
    if callable(map_location):
        return "cpu"  # the engine's storages are CPU arrays whatever the callable would move them to
    return str(map_location)


def _check_location(location):
    backend = location.split(":")[0]
    if backend == "cuda":
        raise E.no_cuda(backend)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    if weights_only is None:
        weights_only = pickle_module is None
    elif weights_only and pickle_module is not None:
        raise RuntimeError(E.PICKLE_MODULE_WITH_WEIGHTS_ONLY)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as source:
            raw = source.read()
    else:
        if not hasattr(f, "seek"):
            raise E.load_not_seekable(f)
        raw = f.read()
    if not zipfile.is_zipfile(io.BytesIO(raw)):
        if not raw:
            raise EOFError("")
        raise E.legacy_format()
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        pickle_name = next(n for n in archive.namelist() if n.endswith("data.pkl"))
        prefix = pickle_name[:-len("data.pkl")]
        unpickler = _TorchUnpickler(io.BytesIO(archive.read(pickle_name)), archive, prefix, weights_only,
                                    map_location, **pickle_load_args)
        return unpickler.load()
