"""Graph nodes (grad_fn objects), AccumulateGrad, and saved tensors.

A node holds no reference to the tensors it produced: outputs are saved as data plus
version counter, so refcounting alone frees a graph (no cycles for the GC to walk).
"""
import itertools
import sys
import os
from types import MappingProxyType

from ...frame_lines import line_of
from .. import _errors
from .._namespace import F
from .grad_mode import ANOMALY, no_grad

_SEQUENCE = itertools.count()
_new = object.__new__
_ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_GRADVIZ_DIR = os.path.dirname(_ENGINE_DIR)


_INSIDE = {}  # filename -> whether it is gradviz's own code (cached: checked for every op)


def creation_site(depth=2):
    """(filename, line) of the innermost caller outside gradviz's engine."""
    return site_from(sys._getframe(depth))


def site_from(frame):
    """(filename, line) of ``frame`` or the innermost frame around it outside gradviz."""
    inside = _INSIDE
    while frame is not None:
        name = frame.f_code.co_filename
        own = inside.get(name)
        if own is None:
            own = inside[name] = name.startswith(_GRADVIZ_DIR)
        if not own:
            return (name, line_of(frame))
        frame = frame.f_back
    return None


class FreedSlot:
    """Marks a saved tensor released after backward; reading it raises PyTorch's error."""
    __slots__ = ("shape", "dtype", "saved_version", "is_tensor")

    def __init__(self, shape, dtype, saved_version, is_tensor=True):
        self.shape, self.dtype, self.saved_version = shape, dtype, saved_version
        self.is_tensor = is_tensor

    def __repr__(self):
        return "<freed>"


def _freed(shape, dtype, saved_version, is_tensor):
    """The FreedSlot for these facts. FreedSlots never change, so equal ones are one object:
    a backward pass frees a slot per saved tensor, mostly of a few shapes."""
    key = (shape, dtype, saved_version, is_tensor)
    slot = _FREED.get(key)
    if slot is None:
        if len(_FREED) > 4096:
            _FREED.clear()
        slot = _FREED[key] = _new(FreedSlot)
        slot.shape, slot.dtype, slot.saved_version, slot.is_tensor = key
    return slot


_FREED = {}


def freed_number(value):
    """The FreedSlot of a saved Python number (a float, most often: that one is made once)."""
    if type(value) is float:
        return _FREED_FLOAT
    return _freed((), _scalar_dtype(value), 0, False)


_SCALAR_DTYPES = {}


def _scalar_dtype(value):
    """numpy's dtype for a saved Python number, by type (asking numpy each time is slow)."""
    kind = type(value)
    dtype = _SCALAR_DTYPES.get(kind)
    if dtype is None or (kind is int and not -2**63 <= value < 2**63):
        import numpy as np
        dtype = np.asarray(value).dtype
        if kind in (float, bool, complex) or (kind is int and dtype.kind == "i"):
            _SCALAR_DTYPES[kind] = dtype
    return dtype


_FREED_FLOAT = FreedSlot((), _scalar_dtype(0.0), 0, False)


class SavedTensor:
    """One saved slot: the tensor (for inputs) or its data (for outputs), and the version
    of its storage when it was saved, checked when backward unpacks it."""
    # An input's version counter is read through the tensor it keeps (made lazily, see
    # Tensor._vbox); an output is not kept, so its counter is held here (``_vb``).
    __slots__ = ("tensor", "data", "_vb", "version", "output_nr", "grad_fn", "requires_grad", "is_output", "hooks")

    @classmethod
    def of_input(cls, tensor):
        """The slot for an input: it keeps the tensor itself (``_saved_self is x``, as in PyTorch)."""
        slot = _new(cls)
        slot.hooks = None
        slot._vb = None
        vbox = tensor._vb
        slot.version = 0 if vbox is None else vbox[0]
        slot.is_output = False
        slot.requires_grad = tensor._requires_grad
        slot.output_nr = tensor._output_nr
        slot.tensor = tensor
        slot.data = tensor._data
        slot.grad_fn = tensor._grad_fn
        return slot

    @classmethod
    def of_output(cls, tensor):
        """The slot for an output: its data and version counter, not the tensor (which would make
        output -> node -> output a cycle)."""
        slot = _new(cls)
        slot.hooks = None
        vbox = slot._vb = tensor._vbox
        slot.version = vbox[0]
        slot.is_output = True
        slot.requires_grad = tensor._requires_grad
        slot.output_nr = tensor._output_nr
        slot.tensor = None
        slot.data = tensor._data
        slot.grad_fn = None
        return slot

    @property
    def vbox(self):
        vbox = self._vb
        return vbox if vbox is not None else self.tensor._vbox

    def current_version(self):
        vbox = self._vb
        return vbox[0] if vbox is not None else self.tensor._version

    @property
    def shape(self):
        return self.data.shape

    def unpack(self, owner):
        from .._tensor import Tensor
        if self.hooks is not None:
            return self._unpack_with_hook(owner)
        self.check(owner)
        if not self.is_output:
            return self.tensor
        t = Tensor._make(self.data, owner if self.requires_grad else None, self.vbox)
        t._output_nr = self.output_nr
        return t

    def check(self, owner):
        """PyTorch's refusals when a saved tensor is used: detached in place, or modified."""
        if not self.is_output and self.grad_fn is not None and self.tensor._grad_fn is None:
            # A saved non-leaf input lost its history through detach_() (PyTorch refuses).
            raise _errors.saved_detached_inplace()
        if self.current_version() != self.version:
            # PyTorch names the tensor's current history for inputs, the owner for outputs.
            # (.grad_fn, not ._grad_fn: a view whose base changed reports its regenerated AsStrided node)
            grad_fn = owner if self.is_output else self.tensor.grad_fn
            output_of = None
            if grad_fn is not None:
                output_of = (_forward_name(grad_fn.name()), self.output_nr)
            from .. import _dtypes
            raise _errors.version_mismatch(
                _dtypes.FROM_NUMPY[self.data.dtype], self.data.shape, output_of, self.version, self.current_version(),
                anomaly=_anomaly_enabled(), node=owner)

    def freed(self):
        return _freed(self.data.shape, self.data.dtype, self.version, True)

    def register_hooks(self, pack_hook, unpack_hook, owner, detached=False):
        """Pack the saved tensor, as PyTorch's SavedVariable::set_hooks_and_pack_data does: under
        no_grad, refusing a hook that modifies it in place. saved_tensors_hooks' pack hook sees
        the tensor itself; one registered through ``_raw_saved_*`` (``detached``) sees it
        without autograd (requires_grad False), sharing its data and version counter."""
        if self.hooks is not None:
            raise _errors.saved_hooks_already_set()
        tensor = self.unpack(owner)
        if detached:
            from .._tensor import Tensor
            tensor = Tensor._make(self.data, None, self.vbox)
        version = self.current_version()
        with no_grad():
            packed = pack_hook(tensor)
        if self.current_version() != version:
            raise _errors.pack_hook_modified_input()
        self.hooks = (packed, unpack_hook)

    def _unpack_with_hook(self, owner):
        """The unpack hook's data, given back the saved tensor's place in the graph (its
        grad_fn, or for a leaf requires_grad and the same AccumulateGrad), as PyTorch does."""
        from .._tensor import Tensor
        from .graph import accumulator_of
        packed, unpack_hook = self.hooks
        data = unpacked_tensor(unpack_hook(packed))._data
        grad_fn = owner if self.is_output else self.grad_fn
        if grad_fn is not None and self.requires_grad:
            t = Tensor._make(data, grad_fn)
            t._output_nr = self.output_nr
            return t
        t = Tensor._make(data)
        if self.requires_grad:
            t._requires_grad = True
            if not self.is_output:
                import weakref
                t._accumulator = weakref.ref(accumulator_of(self.tensor))
        return t


class RawSavedTensor:
    """What ``grad_fn._raw_saved_<name>`` returns: a handle on one saved slot, where
    pack / unpack hooks can be registered (torch._C._autograd.SavedTensor)."""
    __slots__ = ("_node", "_key")

    def __init__(self, node, key):
        self._node, self._key = node, key

    def _slot(self):
        """The slot, or None where the node saved nothing under this name."""
        saved = self._node._saved
        return self._node._slot(self._key) if saved is not None and self._key in saved else None

    def register_hooks(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): incompatible function arguments. The following argument types are "
                            "supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                            "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\nInvoked with: "
                            f"{self!r}, {pack_hook!r}, {unpack_hook!r}")
        slot = self._slot()
        if isinstance(slot, FreedSlot):
            raise _errors.saved_hooks_after_free()
        if slot is None:
            raise _errors.saved_hooks_on_none()
        slot.register_hooks(pack_hook, unpack_hook, self._node, detached=True)

    def unpack(self):
        slot = self._slot()
        if slot is None:
            return None
        if isinstance(slot, FreedSlot):
            raise _errors.freed(node=self._node, freed_by=self._node._freed_by)
        return slot.as_tensor() if isinstance(slot, SavedScalar) else slot.unpack(self._node)

    @property
    def data(self):
        return self.unpack()

    @property
    def unpack_hook(self):
        slot = self._slot()
        hooks = getattr(slot, "hooks", None)
        return None if hooks is None else hooks[1]


RawSavedTensor.__name__ = RawSavedTensor.__qualname__ = "SavedTensor"
RawSavedTensor.__module__ = "torch._C._autograd"


_NODE_DIR = (*dir(object), "__call__", "_input_metadata", "_register_hook_dict", "_sequence_nr", "_set_sequence_nr",
             "metadata", "name", "next_functions", "register_hook", "register_prehook", "requires_grad")


def _is_tensor_slot(op, key):
    """Does ``op``'s node save a tensor (an input or an output) under ``key`` when needed?"""
    return any(name == key and (position >= 0 or result_index >= 0 or op.variadic)
               for plan in op.save_plan for name, position, result_index in plan)


def _anomaly_enabled():
    return ANOMALY.enabled


def _forward_name(node_name):
    """The name PyTorch's version errors give a node: 'SigmoidBackward0' -> 'Sigmoid',
    'ClampBackward1' -> 'Clamp1'."""
    if node_name.endswith("Backward0"):
        return node_name[:-len("Backward0")]
    return node_name.replace("Backward", "", 1)


class SavedScalar:
    """A Python number an op saved (PyTorch wraps it as a 0-dim tensor); freed like a tensor.
    Hooks registered through ``_raw_saved_*`` apply when the slot is read as an attribute;
    the engine's formulas read the number itself."""
    __slots__ = ("value", "hooks")

    def __init__(self, value):
        self.value = value
        self.hooks = None

    def unpack(self, owner):
        return self.value

    def as_tensor(self):
        # An absent optional input (clamp's min=None) reads back as None, as in PyTorch.
        if self.value is None:
            return None
        if self.hooks is not None:
            packed, unpack_hook = self.hooks
            return unpacked_tensor(unpack_hook(packed))
        return F.scalar_tensor(self.value)

    def register_hooks(self, pack_hook, unpack_hook, owner, detached=True):
        if self.hooks is not None:
            raise _errors.saved_hooks_already_set()
        with no_grad():
            self.hooks = (pack_hook(self.as_tensor()), unpack_hook)

    def freed(self):
        return freed_number(self.value)


def unpacked_tensor(result):
    """What an unpack hook returned, refused unless it is a tensor (PyTorch's TypeError)."""
    from .._tensor import Tensor
    if not isinstance(result, Tensor):
        raise _errors.unpack_hook_not_tensor(result)
    return result


# What a node shares with the other nodes of the same op, call site and shapes, kept in one
# interned tuple (``Node._sig``): the op-table entry, which inputs need a gradient, the
# output number each edge points at, the inputs' and outputs' (shape, dtype), and the
# creation site. A node is then five words, and the cyclic collector, which walks every
# live node again and again while a long graph is recorded, touches half the memory.
SIG_OP, SIG_NEEDS, SIG_NRS, SIG_INPUT_META, SIG_OUTPUT_META, SIG_SITE = range(6)
EMPTY_SIG = (None, (), (), (), (), None)
_SIGS = {}
SHARED_FREED = {}  # id(sig) -> (sig, the freed slots its nodes share; see Node.release_saved)


def shared_sig(sig):
    """The one interned copy of ``sig`` (the cache restarts when it grows large)."""
    if len(_SIGS) > 8192:
        _SIGS.clear()
    return _SIGS.setdefault(sig, sig)


def _sig_field(index, doc):
    def get(self):
        return self._sig[index]

    def set(self, value):
        sig = list(self._sig)
        sig[index] = value
        self._sig = shared_sig(tuple(sig))
    return property(get, set, doc=doc)


def new_node(node_class, _new=_new, _next_seq_nr=_SEQUENCE.__next__):
    """A node of ``node_class`` for the recorder to wire (edges, facts, saved slots): the one
    place a recorded node is made. Without __init__'s frame, and with its helpers bound as
    arguments (local reads): this runs for every op."""
    node = _new(node_class)
    node._seq_nr = _next_seq_nr()
    node._freed_by = None
    return node


class Node:
    """Base of every grad_fn. Subclasses are made per op (MulBackward0, ...) by the op table."""
    # Every node sets the slots; rarely-used state lives in the instance dict, defaulting to
    # the class attributes below, so recording a node stays cheap.
    # Edges are kept flat (``_fns``: the next node per input; the output numbers are in
    # ``_sig``) so a node costs one container the cyclic collector has to walk, not one per edge.
    __slots__ = ("_fns", "_sig", "_seq_nr", "_saved", "_freed_by", "__weakref__", "__dict__")
    _hooked = False  # set once any of the four hook tables below is made: the engine's quick test
    _tensor_pre_hooks = None
    _retain_grad = None
    _pre_hooks = None
    _post_hooks = None
    _metadata = None

    _op = _sig_field(SIG_OP, "the op-table entry (None for hand-written nodes)")
    _needs = _sig_field(SIG_NEEDS, "per input: does it need a gradient")
    _nrs = _sig_field(SIG_NRS, "per input: which output of the next node its edge points at")
    _input_meta = _sig_field(SIG_INPUT_META, "per input: (shape, dtype), or None for a number")
    _output_meta = _sig_field(SIG_OUTPUT_META, "per output: (shape, dtype)")
    _site = _sig_field(SIG_SITE, "(filename, line) that created the node")

    def __init__(self):
        self._seq_nr = next(_SEQUENCE)
        self._fns = ()
        self._sig = EMPTY_SIG
        self._saved = None
        self._freed_by = None  # the backward call that released the saved tensors

    # -- PyTorch's public node API -------------------------------------------------
    @property
    def next_functions(self):
        return tuple(zip(self._fns, self._nrs))

    @next_functions.setter
    def next_functions(self, edges):
        self._fns = tuple([fn for fn, _ in edges])
        self._nrs = tuple([nr for _, nr in edges])

    def name(self):
        return type(self).__name__

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) runs after this node computed its gradients."""
        if self._post_hooks is None:
            self._post_hooks = {}
            self._hooked = True
        return _add_hook(self._post_hooks, fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) runs before this node; it may return replacement gradients."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
            self._hooked = True
        return _add_hook(self._pre_hooks, fn)

    def _sequence_nr(self):
        """PyTorch's: the order the node was made in; backward runs later nodes first."""
        return self._seq_nr

    def __dir__(self):
        """What dir() lists for PyTorch's node of the op: its methods and its saved values
        (``_saved_self``, and ``_raw_saved_self`` for a tensor), not the engine's fields."""
        op = self._sig[SIG_OP]
        if op is None:
            return object.__dir__(self)
        names = list(_NODE_DIR)
        for key in op.saved_names:
            names.append("_saved_" + key)
            if _is_tensor_slot(op, key):
                names.append("_raw_saved_" + key)
        return sorted(names)

    def __getattr__(self, attr):
        # _saved_self, _saved_other, _saved_result, _saved_dim, ... as PyTorch's nodes expose them.
        if attr.startswith("_raw_saved_"):
            saved = object.__getattribute__(self, "_saved")
            key = attr[len("_raw_saved_"):]
            value = self._slot(key) if saved is not None and key in saved else None
            # Tensor slots (wrapped numbers too) have a raw form; freed ones too: their hooks then raise.
            if isinstance(value, (SavedTensor, FreedSlot)) or (isinstance(value, SavedScalar)
                                                               and value.value is not None):
                return RawSavedTensor(self, key)
            op = object.__getattribute__(self, "_op")
            if value is None and op is not None and _is_tensor_slot(op, key):
                return RawSavedTensor(self, key)  # a tensor slot this node did not need: PyTorch's empty one
        if attr.startswith("_saved_"):
            saved = object.__getattribute__(self, "_saved")
            key = attr[len("_saved_"):]
            op = object.__getattribute__(self, "_op")
            if saved is not None and key in saved and (op is None or key not in op.hidden):
                value = self._slot(key)
                if isinstance(value, SavedTensor):
                    return value.unpack(self)
                if isinstance(value, SavedScalar):
                    return value.as_tensor()
                if isinstance(value, FreedSlot):
                    raise _errors.freed(node=self, freed_by=self._freed_by)
                return value
            if op is not None and key in op.saved_names:
                return None
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")

    def _add_tensor_hook(self, output_nr, fn):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
            self._hooked = True
        return _add_hook(self._tensor_pre_hooks.setdefault(output_nr, {}), fn)

    def _retain_grad_for(self, tensor):
        import weakref
        if self._retain_grad is None:
            self._retain_grad = {}
            self._hooked = True
        self._retain_grad[tensor._output_nr] = weakref.ref(tensor)

    def __call__(self, *grads):
        from . import engine
        return engine.call_node(self, grads)

    # -- engine side ---------------------------------------------------------------
    def _scalar_input(self, key, value):
        """Is this saved value a number given in place of a tensor input (mul(x, 2.0)'s other)?
        Those are kept bare, and wrapped as a SavedScalar only when asked for as a slot."""
        op = self._sig[SIG_OP]
        return op is not None and value is not None and type(value) is not SavedTensor and \
            type(value) is not FreedSlot and type(value) is not SavedScalar and key in op.input_index

    def _slot(self, key):
        saved = self._saved
        value = saved[key]
        if self._scalar_input(key, value):
            value = saved[key] = SavedScalar(value)
        return value

    def saved_items(self):
        """[(name, SavedTensor | SavedScalar | FreedSlot | plain value)] for inspection."""
        saved = self._saved
        if not saved:
            return []
        op = self._sig[SIG_OP]
        hidden = op.hidden if op is not None else ()
        return [(key, self._slot(key)) for key in saved if key not in hidden]

    def release_saved(self, freed_by=None):
        saved = self._saved
        if not saved:
            return
        self._freed_by = freed_by
        # Most op nodes saved what every node of their facts (op, needs, shapes) saves: tensors
        # at version 0 and floats given for tensor inputs, nothing else. Their freed slots are
        # the same, so such nodes share one read-only set of them, made by the first one freed.
        # The recorder's fast paths say so with the type of the dict (FreshSaves): no loop here.
        sig = self._sig
        if type(saved) is FreshSaves or _only_fresh_saves(saved, sig[SIG_OP]):
            shared = SHARED_FREED.get(id(sig))
            if shared is None or shared[0] is not sig:
                shared = _share_freed_slots(sig, saved)
            self._saved = shared[1]
            return
        for key, value in saved.items():
            cls = type(value)
            if cls is SavedTensor or cls is SavedScalar:
                saved[key] = value.freed()
            elif self._scalar_input(key, value):
                saved[key] = freed_number(value)


class FreshSaves(dict):
    """A node's saved slots, as the recorder's fast paths make them: tensors saved at
    version 0 and floats given for tensor inputs, all of them inputs or outputs whose shapes
    the node's facts record (elementwise ops of one or two differentiable inputs), so that
    release_saved needs none of _only_fresh_saves' checks."""
    __slots__ = ()


def _only_fresh_saves(saved, op):
    """Did this op node save only tensors at version 0 and floats for tensor inputs, and only
    tensors whose shape its facts record (outputs and differentiable inputs: where's
    condition is neither, so its nodes of one sig may have saved conditions of two shapes)?"""
    if op is None:
        return False
    for key, value in saved.items():
        if type(value) is SavedTensor:
            position = op.input_index.get(key)
            if value.version or (position is not None and position not in op.positions):
                return False
        elif type(value) is not float or key not in op.input_index:
            return False
    return True


def _share_freed_slots(sig, saved):
    """The read-only freed slots every fresh-saving node of ``sig`` shares, made once."""
    if len(SHARED_FREED) > 4096:
        SHARED_FREED.clear()
    shared = SHARED_FREED[id(sig)] = (sig, MappingProxyType({
        key: value.freed() if type(value) is SavedTensor else freed_number(value)
        for key, value in saved.items()}))
    return shared


class AccumulateGrad(Node):
    """The sink for a leaf: adds the incoming gradient into ``variable.grad``."""
    __slots__ = ("variable",)
    __module__ = "builtins"  # PyTorch's node types print without a module

    def __init__(self, variable):
        # Made for every leaf of every graph, so the slots are set here directly. Like
        # PyTorch's, it takes no sequence number: it runs as soon as it is ready.
        self._seq_nr = sys.maxsize
        self._fns = ()
        self._sig = EMPTY_SIG
        self._saved = None
        self._freed_by = None
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"


class RemovableHandle:
    __slots__ = ("hooks", "key")

    def __init__(self, hooks, key):
        self.hooks, self.key = hooks, key

    def remove(self):
        self.hooks.pop(self.key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


_HOOK_IDS = itertools.count()


def _add_hook(hooks, fn):
    key = next(_HOOK_IDS)
    hooks[key] = fn
    return RemovableHandle(hooks, key)


def add_hook(hooks, fn):
    return _add_hook(hooks, fn)
