"""The Tensor: a numpy array plus autograd metadata. No math lives here: every
operation delegates to the engine's functions (the families ``_fn_*.py``, read through
the ``F`` namespace at call time) and from there to the op table. The methods that are
exactly a function with the tensor first are installed by ``_functions.build()``."""
import builtins
import copy
import warnings

import numpy as np

from . import _dtypes, _errors
from . import _kernels as K
from ._device import CPU, META
from ._meta import MetaArray
from ._namespace import F
from .autograd.grad_mode import STATE
from .autograd import graph as _graph_module
from .autograd.graph import refresh_view
from .autograd.node import add_hook


class Size(tuple):
    """torch.Size: a tuple that prints as ``torch.Size([2, 3])``."""
    __slots__ = ()
    __module__ = "torch"

    def __repr__(self):
        return f"torch.Size([{', '.join(map(str, self))}])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        out = tuple.__getitem__(self, item)
        return Size(out) if isinstance(item, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):  # a tuple plus a Size is a Size, as in PyTorch
        return Size(tuple.__add__(tuple(other), self))


def wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n



class Tensor:
    # Hot fields are slots; rarely-set state lives in the instance dict, defaulting to
    # the class attributes below, so making a tensor costs five assignments.
    __slots__ = ("_data", "_grad_fn", "_requires_grad", "_vb", "_output_nr", "__dict__", "__weakref__")
    __module__ = "torch"
    _grad = None
    _base = None
    _retains_grad = False
    _hooks = None
    _post_accumulate_hooks = None
    _accumulator = None
    _site = None
    _inference = False
    _view_created_in_no_grad = False
    _multi_output_view_of = None
    _view_chain = ()
    _tangent = None  # forward AD's tangent while a dual level is open (autograd/forward_ad.py)
    _view_of_no_grad_view = None  # (output_nr, op) when a view is taken of a view made under no_grad
    _view_version = 0
    __array_priority__ = 1000  # numpy defers `array * tensor` to us

    def __new__(cls, *args, **kwargs):
        return F.legacy_constructor(cls, args, kwargs)

    @classmethod
    def _make(cls, data, grad_fn=None, vbox=None):
        t = object.__new__(cls)
        t._data = data
        t._grad_fn = grad_fn
        t._requires_grad = grad_fn is not None
        t._vb = vbox
        t._output_nr = 0
        return t

    # The version counter ([n], shared by a tensor and its views) is made on first use:
    # most tensors are never modified in place, and a list per tensor is one more object
    # for the cyclic collector to walk. Until then the version is 0.
    @property
    def _vbox(self):
        vbox = self._vb
        if vbox is None:
            vbox = self._vb = [0]
        return vbox

    @_vbox.setter
    def _vbox(self, vbox):
        self._vb = vbox

    # -- metadata ------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self):
        return _dtypes.FROM_NUMPY[self._data.dtype]

    @property
    def device(self):
        return META if type(self._data) is MetaArray else CPU

    @property
    def is_meta(self):
        return type(self._data) is MetaArray

    @property
    def is_cuda(self):
        return False

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    @property
    def is_cpu(self):
        return True

    def stride(self, dim=None):
        if self._data.size and type(self._data) is not MetaArray:
            strides = tuple(s // self._data.itemsize for s in self._data.strides)
        else:  # numpy zeroes an empty array's strides (and a meta placeholder's); PyTorch keeps contiguous ones
            strides = K.contiguous_strides(self._data.shape)
        return strides if dim is None else strides[wrap_dim(dim, self._data.ndim)]

    def storage_offset(self):
        """Elements between the storage's start and this tensor's first element."""
        start = K.storage_root(self._data).__array_interface__["data"][0]
        return (self._data.__array_interface__["data"][0] - start) // self._data.itemsize

    def is_contiguous(self, memory_format=None):
        return self._data.flags.c_contiguous or type(self._data) is MetaArray

    def is_floating_point(self):
        return self._data.dtype.kind in "fV"  # V: bfloat16, the one numpy "void" kind dtype here

    def is_complex(self):
        return self._data.dtype.kind == "c"

    @property
    def is_leaf(self):
        return self.grad_fn is None  # (the property: a stale view is regenerated, or refused)

    @property
    def grad_fn(self):
        if self._base is not None and self._view_version != self._vbox[0]:
            refresh_view(self)
        return self._grad_fn

    @property
    def T(self):
        return F.T(self)

    @property
    def mT(self):
        return F.transpose(self, -2, -1)

    @property
    def requires_grad(self):
        if self._base is not None and self._view_version != self._vbox[0] and not self._view_created_in_no_grad:
            refresh_view(self)  # a view of a base that started requiring grad in place
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        if self._grad_fn is not None:
            if not flag:
                raise _errors.requires_grad_nonleaf()
            return
        if flag and self._data.dtype.kind not in "fcV":
            raise _errors.requires_grad_not_float()
        if flag and self._inference and not STATE.inference:
            raise _errors.inference_requires_grad()
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    @property
    def retains_grad(self):
        return self._retains_grad

    @property
    def _version(self):
        vbox = self._vb
        return 0 if vbox is None else vbox[0]

    @property
    def is_inference(self):
        return lambda: self._inference

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def _is_view(self):
        return lambda: self._base is not None

    # -- grad ----------------------------------------------------------------------
    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad:
            warnings.warn(_errors.NONLEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise _errors.grad_assign_size(value._data.shape, self._data.shape)
            if value._data.dtype != self._data.dtype:
                raise _errors.grad_assign_dtype(_type_name(value), _type_name(self).capitalize())
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    def retain_grad(self):
        if not self._requires_grad:
            raise _errors.retain_grad_no_requires_grad()
        if self._grad_fn is None:
            return
        self._retains_grad = True
        self._grad_fn._retain_grad_for(self)

    def register_hook(self, hook):
        if not self._requires_grad:
            raise _errors.hook_no_requires_grad()
        if self._grad_fn is None:
            if self._hooks is None:
                self._hooks = {}
            return add_hook(self._hooks, hook)
        return self._grad_fn._add_tensor_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = {}
        return add_hook(self._post_accumulate_hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        # Looked up when called, so that replacing entry.backward (see retain_graph_patch) applies.
        from .autograd import entry  # (entry imports this module)
        entry.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # -- data access ---------------------------------------------------------------
    @property
    def data(self):
        # A fresh alias of the storage with its own version counter: the autograd-invisible
        # view PyTorch's .data is.
        return Tensor._make(self._data)

    @data.setter
    def data(self, value):
        self._data = value._data

    def detach(self):
        return F.detach(self)

    def detach_(self):
        if self._base is not None:
            raise _errors.detach_inplace_view()
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    def item(self):
        if self._data.size != 1:
            raise _errors.item_multi_element(self._data.size)
        if type(self._data) is MetaArray:
            raise _errors.meta_item()
        return self._data.reshape(()).item()

    def tolist(self):
        if type(self._data) is MetaArray:
            raise _errors.meta_no_data()
        return self._data.tolist()

    def numpy(self, *, force=False):
        if type(self._data) is MetaArray:
            raise _errors.meta_numpy()
        if self._requires_grad and not force:
            raise _errors.numpy_requires_grad()
        if self._data.dtype.kind == "V":
            raise _errors.numpy_unsupported_dtype(self.dtype)
        return self._data

    def __array__(self, dtype=None, copy=None):
        if type(self._data) is MetaArray:
            raise _errors.meta_numpy()
        if self._requires_grad:
            raise _errors.numpy_requires_grad()
        return self._data if dtype is None else self._data.astype(dtype)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self._data.size == 0:
            raise _errors.bool_ambiguous_empty()
        if self._data.size != 1:
            raise _errors.bool_ambiguous()
        if type(self._data) is MetaArray:
            raise _errors.meta_item()
        return bool(self._data.reshape(()))

    def _scalar(self, warn=False):
        if self._data.size != 1:
            raise _errors.python_scalar_multi_element()
        if warn and self._requires_grad:
            # PyTorch warns once per process, and only for float() and complex(), not int().
            _errors.warn_once(_errors.SCALAR_CONVERSION_WARNING)
        if type(self._data) is MetaArray:
            raise _errors.meta_item()
        return self._data.reshape(()).item()

    def __float__(self):
        return float(self._scalar(warn=True))

    def __int__(self):
        return int(self._scalar())

    def __complex__(self):
        return complex(self._scalar(warn=True))

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def __hash__(self):
        return id(self)

    def __repr__(self, *, tensor_contents=None):
        return tensor_repr(self)

    def __format__(self, spec):
        # PyTorch formats a 0-dim tensor as its Python number (f"{t}" gives "1.0").
        if self._data.ndim == 0 and type(self) is Tensor and type(self._data) is not MetaArray:
            return format(self._data.item(), spec)
        return object.__format__(self, spec) if spec else repr(self)

    def __deepcopy__(self, memo):
        return deepcopy(self, memo)

    def __reduce_ex__(self, protocol):
        return (rebuild_tensor, (self._data.copy(), self._requires_grad))

    def __setitem__(self, index, value):
        F.setitem(self, index, value)

    def __getitem__(self, index):
        return F.getitem(self, index)

    def __contains__(self, item):
        if type(self._data) is MetaArray:
            raise _errors.meta_item()  # PyTorch's (item == self).any().item()
        return bool((self._data == (item._data if isinstance(item, Tensor) else item)).any())

    # -- operators (math is in _functions) -------------------------------------------
    def __sub__(self, other):
        return F.sub(self, other)

    def __rsub__(self, other):
        return F.rsub(self, other)

    def __truediv__(self, other):
        return F.div(self, other)

    def __rtruediv__(self, other):
        return F.rdiv(self, other)

    def __floordiv__(self, other):
        return F.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return F.floor_divide(F.as_tensor_like(other, self), self)

    def __mod__(self, other):
        return F.remainder(self, other)

    def __pow__(self, exponent):
        return F.pow(self, exponent)

    def __rpow__(self, base):
        return F.rpow(self, base)

    def __matmul__(self, other):
        return F.matmul(self, other)

    def __rmatmul__(self, other):
        return F.matmul(F.as_tensor_like(other, self), self)

    def __neg__(self):
        return F.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return F.abs(self)

    def __invert__(self):
        return F.bitwise_not(self)

    def __and__(self, other):
        return F._compare(np.bitwise_and, self, other)

    def __or__(self, other):
        return F._compare(np.bitwise_or, self, other)

    def __xor__(self, other):
        return F._compare(np.bitwise_xor, self, other)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def __eq__(self, other):
        return F.eq(self, other)

    def __ne__(self, other):
        return F.ne(self, other)

    def __lt__(self, other):
        return F.lt(self, other)

    def __le__(self, other):
        return F.le(self, other)

    def __gt__(self, other):
        return F.gt(self, other)

    def __ge__(self, other):
        return F.ge(self, other)

    def __iadd__(self, other):
        return F.add_(self, other)

    def __isub__(self, other):
        return F.sub_(self, other)

    def __imul__(self, other):
        return F.mul_(self, other)

    def __itruediv__(self, other):
        return F.div_(self, other)


def tensor_repr(t):
    from . import _format
    suffixes = []
    grad_fn = t.grad_fn  # the property: a view whose base changed in place shows its regenerated node
    if grad_fn is not None:
        # PyTorch prints the node's type name (CopySlices), not its name() (torch::autograd::CopySlices).
        suffixes.append(f"grad_fn=<{builtins.type(grad_fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    if t._tangent is not None:
        suffixes.append(f"tangent={tensor_repr(t._tangent)}")
    prefix = "tensor("
    if getattr(builtins.type(t), "_repr_prefix", None):
        prefix = builtins.type(t)._repr_prefix
    if type(t._data) is MetaArray:
        return _format.format_meta(t._data.shape, dtype_name=t.dtype.name,
                                   default_dtype_name=_dtypes.DEFAULTS.float_dtype.name, suffixes=suffixes, prefix=prefix)
    return _format.format_tensor(t._data, dtype_name=t.dtype.name, default_dtype_name=_dtypes.DEFAULTS.float_dtype.name,
                                 suffixes=suffixes, prefix=prefix)


def deepcopy(t, memo):
    if t._grad_fn is not None:
        raise _errors.deepcopy_nonleaf()
    new = builtins.type(t)._make(t._data.copy())
    new._requires_grad = t._requires_grad
    if t._grad is not None:
        new._grad = deepcopy(t._grad, memo)
    new.__dict__.update({k: copy.deepcopy(v, memo) for k, v in t.__dict__.items()
                         if k not in ("_grad", "_accumulator", "_hooks", "_base")})
    memo[id(t)] = new
    return new


def rebuild_tensor(data, requires_grad):
    t = Tensor._make(data)
    t._requires_grad = requires_grad
    return t


def _type_name(t):
    return {"float32": "float", "float64": "double", "int64": "long", "int32": "int", "bool": "bool",
            "float16": "half"}.get(t.dtype.name, t.dtype.name)


def zero_grads(tensors, set_to_none=True):
    """Module.zero_grad and Optimizer.zero_grad: drop each .grad, or zero it in place after
    cutting it from any graph, as PyTorch does."""
    for t in tensors:
        if t.grad is not None:
            if set_to_none:
                t.grad = None
            else:
                if t.grad.grad_fn is not None:
                    t.grad.detach_()
                else:
                    t.grad.requires_grad_(False)
                t.grad.zero_()


def wrap(array):
    """A new leaf tensor around a numpy result (0-dim results arrive as numpy scalars)."""
    if type(array) is not np.ndarray and type(array) is not MetaArray:
        array = np.asarray(array)
    t = object.__new__(Tensor)
    t._data = array
    t._grad_fn = None
    t._requires_grad = False
    t._vb = None
    t._output_nr = 0
    return t


# The recording hot path makes tensors directly; it needs the class, which imports it.
_graph_module.Tensor = Tensor
