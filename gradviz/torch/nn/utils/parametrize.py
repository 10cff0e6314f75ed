"""torch.nn.utils.parametrize: a parameter or buffer computed, on every read, by a chain of
modules from the tensors they keep (PyTorch 2.13's behaviour).

register_parametrization moves ``module.weight`` into
``module.parametrizations.weight`` (a ParametrizationList, holding it as ``original``, or as
``original0``, ``original1``... when the first parametrization's ``right_inverse`` returns
several tensors), swaps the module's class for a ``Parametrized<Class>`` subclass and puts
a property named ``weight`` on that subclass: reading it runs the chain, assigning to it
runs the ``right_inverse`` methods backwards into the originals.

The originals are updated as PyTorch's ``set_`` does (the same tensor object, now over
the new value's storage, one version later), so optimizers that hold them keep working.
PyTorch's swap_tensors route (``torch.__future__``) and its opaque objects are not
modelled; scripting and tracing do not exist here."""
import collections.abc
import copyreg
from contextlib import contextmanager
from copy import deepcopy

from ... import _errors_nn_utils as E
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import torch_module_name
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params"]

PUBLIC_MODULE = "torch.nn.utils.parametrize"

# How many cached() blocks are open, and what they computed: {(id(module), name): tensor}.
_cache_enabled = 0
_cache = {}


@contextmanager
def cached():
    """Within the block, each parametrized tensor is computed once, on its first read."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, tensor):
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


def _set_storage(dest, src):
    """dest.set_(src): dest keeps its identity (and its own version counter, one step on)
    and now shares src's storage, as the optimizers holding dest need."""
    dest._data = src._data
    dest._vbox[0] += 1


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in registration order, and its original(s)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise E.parametrization_list_empty()
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass  # taken for the identity, as a missing right_inverse is
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise E.right_inverse_not_sequence(new)
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            self._adopt_one(original, new)
        else:
            self._adopt_several(original, new)
        if not self.unsafe:
            Z = self()
            if not isinstance(Z, Tensor):
                raise E.parametrization_not_tensor(Z)
            if Z.dtype != original_dtype:
                raise E.first_parametrization_changes("dtype", original_dtype, Z.dtype)
            if Z.shape != original_shape:
                raise E.first_parametrization_changes("shape", original_shape, Z.shape)

    def _adopt_one(self, original, new):
        """One tensor: the original object itself holds right_inverse's value, so that an
        optimizer given it before registration still updates it."""
        if original.dtype != new.dtype:
            raise E.right_inverse_changes("dtype", original, new)
        if original.device != new.device:
            raise E.right_inverse_changes("device", original, new)
        with no_grad():
            _set_storage(original, new)
        _register_parameter_or_buffer(self, "original", original)

    def _adopt_several(self, original, new):
        for i, tensor in enumerate(new):
            if not isinstance(tensor, Tensor):
                raise E.right_inverse_element(i, tensor)
            if isinstance(original, Parameter):
                tensor = Parameter(tensor, original.requires_grad)
            tensor.requires_grad_(original.requires_grad)
            _register_parameter_or_buffer(self, f"original{i}", tensor)

    def right_inverse(self, value):
        """The right_inverses, last registered first, into ``original`` (or ``original0``...)."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise E.no_right_inverse(module)
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise E.right_inverse_not_a_tensor(value)
                if value.dtype != self.original.dtype:
                    raise E.right_inverse_dtype(value, self.original)
                _set_storage(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise E.right_inverse_not_a_sequence(value)
            if len(value) != self.ntensors:
                raise E.right_inverse_length(self.ntensors, len(value))
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise E.right_inverse_element_at(i, tensor)
                if original_i.dtype != tensor.dtype:
                    raise E.right_inverse_dtype_at(i, tensor, original_i)
                _set_storage(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        index = 1
        while hasattr(self, str(index)):  # the numbered children only
            x = self[index](x)
            index += 1
        return x


def _default_deepcopy(self, memo):
    """copy.deepcopy of a parametrized module (its class forbids pickling): a new instance
    of the same class with a deep copy of the instance dict and slots."""
    obj = memo.get(id(self), None)
    if obj is not None:
        return obj
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, deepcopy(getattr(self, slot), memo))
    return replica


def _refuse_pickling(self):
    raise RuntimeError(E.SERIALIZE_PARAMETRIZED)


def _inject_new_class(module):
    """module's class becomes ``Parametrized<Class>``, a subclass made for this one
    module, which the properties of its parametrized tensors go on."""
    cls = module.__class__
    namespace = {"__getstate__": _refuse_pickling, "__module__": PUBLIC_MODULE}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name):
    if hasattr(module, tensor_name):
        raise E.attribute_exists(tensor_name)

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(module), tensor_name)  # the module registered on, as PyTorch keys it
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_next_parametrization(module, tensor_name, parametrization):
    """A parametrization added to a chain must map module.<tensor_name>'s space to itself,
    and so must its right_inverse, if it has one that works."""
    Y = getattr(module, tensor_name)
    X = parametrization(Y)
    if not isinstance(X, Tensor):
        raise E.parametrization_not_tensor(X)
    if X.dtype != Y.dtype:
        raise E.next_parametrization_changes("dtype", tensor_name, Y.dtype, X.dtype)
    if X.shape != Y.shape:
        raise E.next_parametrization_changes("shape", tensor_name, Y.shape, X.shape)
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        Z = parametrization.right_inverse(X)
    except NotImplementedError:
        return
    if not isinstance(Z, Tensor):
        raise E.next_right_inverse_not_tensor(Z)
    if Z.dtype != Y.dtype:
        raise E.next_right_inverse_changes("dtype", tensor_name, Y.dtype, Z.dtype)
    if Z.shape != Y.shape:
        raise E.next_right_inverse_changes("shape", tensor_name, Y.shape, Z.shape)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_next_parametrization(module, tensor_name, parametrization)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe  # once unsafe, the chain stays so
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)  # may raise: first
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise E.nothing_to_parametrize(module, tensor_name)
    return module


def is_parametrized(module, tensor_name=None):
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """module.<tensor_name> back as a plain parameter or buffer: the original object, which
    holds the parametrized value when leave_parametrized (one original), or a new
    Parameter of that value (several originals)."""
    if not is_parametrized(module, tensor_name):
        raise E.not_parametrized(module, tensor_name)
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _set_storage(original, t)
    else:
        if not leave_parametrized:
            raise E.cannot_leave_unparametrized()
        t = getattr(module, tensor_name)  # with grad: whether an original required it decides
        original = Parameter(t) if t.requires_grad else t
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register from_module's parametrizations (all, or tensor_name's) on to_module, making
    the parameter there first if to_module lacks it, and share from_module's originals."""
    if not is_parametrized(from_module):
        return to_module
    names = from_module.parametrizations if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module


torch_module_name(globals(), PUBLIC_MODULE)
