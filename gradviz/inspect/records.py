"""The plain pieces both engines' recorders and snapshots share.

- ``ValueRec`` and ``OpRec``: what a recorder keeps per tensor state and per op;
- ``site``, ``call_info``, ``relabel_sites``: places in the user's code and backward
  calls, as the snapshot holds them;
- ``dtype_name``: numpy's dtype name, cached.

Imports only ``model``: the recorders (``recorder``, ``real_torch``) and the snapshots
(``snapshot``, ``real_torch``) import this, never each other through it.
"""
import dataclasses

import numpy as np

from .model import BackwardCallInfo, GraphSnapshot


class ValueRec:
    """One tensor state (or a constant) seen by the recorder."""
    __slots__ = ("serial", "ref", "version", "prev", "shape", "dtype", "requires_grad", "is_leaf",
                 "const", "users", "producer")

    def __init__(self, serial, ref, shape, dtype, requires_grad, is_leaf, const=None, prev=None):
        self.serial = serial
        self.ref = ref  # weakref to the tensor; None for constants
        # The same tensor's previous value (before an in-place op): a serial, not the
        # record, so a long in-place chain is not a long linked list of objects.
        self.prev = None if prev is None else prev.serial
        self.version = 0 if prev is None else prev.version + 1
        self.shape = shape
        self.dtype = dtype
        self.requires_grad = requires_grad
        self.is_leaf = is_leaf
        self.const = const  # text of a constant (a Python number, an array's shape)
        self.users = 0  # live ops that refer to it; 0 -> pruned
        self.producer = None  # serial of the op that made it


class OpRec:
    """One recorded op. ``saved`` says where each saved tensor came from:
    (slot, is_output, index) -- an index into ``inputs``, or the output number.

    ``call`` groups the ops one torch-level call made (``F.linear`` makes a transpose and
    an addmm): the serial of its first op, and ``call_name`` its name (``linear``);
    ``span`` is where in the user's code the call is, when the user's code made it
    directly: the caller's (code, instruction offset), which ``calls.span_at`` turns into
    (line, end_line, col, end_col) for the ops a snapshot shows; ``call_args`` the values of the tensors
    it was given, in argument order, when it made more than one node."""
    __slots__ = ("serial", "node_ref", "name", "node_name", "inputs", "outputs", "site", "saved",
                 "during_backward", "module", "module_call", "call", "call_name", "span", "call_args",
                 "recomputed")

    def __init__(self, serial, node_ref, name, node_name, inputs, outputs, site, saved, during_backward,
                 module=None, module_call=0):
        self.serial = serial
        self.node_ref = node_ref
        self.name = name
        self.node_name = node_name
        self.inputs = inputs  # value serials
        self.outputs = outputs
        self.site = site
        self.saved = saved
        self.during_backward = during_backward
        self.module = module  # the ModuleRec (inspect.modules) of the module call that ran it
        self.module_call = module_call  # which call of it (1, 2, ...)
        self.call = serial
        self.call_name = name
        self.span = None
        self.call_args = None
        self.recomputed = ()  # slots saved through torch.utils.checkpoint's hooks


_CHECKPOINT_MODULES = ("torch.utils.checkpoint", "gradviz.torch.utils.checkpoint")


def recomputes(unpack_hook) -> bool:
    """Whether a saved-tensor unpack hook is torch.utils.checkpoint's (either engine's):
    the tensor is not kept, backward recomputes it."""
    return getattr(unpack_hook, "__module__", None) in _CHECKPOINT_MODULES


_DTYPE_NAMES = {}


def dtype_name(dtype):
    """numpy's dtype.name, cached: it is surprisingly slow and asked 100,000s of times."""
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = np.dtype(dtype).name
    return name


def site(where):
    """A place in the user's code as plain ``(str, int)``, or None."""
    if not where:
        return None
    if type(where) is tuple and type(where[0]) is str and type(where[1]) is int:
        return where  # already plain (the engine's own tuple, shared by its nodes)
    return (str(where[0]), int(where[1]))


def call_info(call, known):
    """The plain record of a backward call; ``known`` keeps it per call for one snapshot
    (every node a pass freed names the same call)."""
    if call is None:
        return None
    info = known.get(id(call))
    if info is None:
        info = known[id(call)] = BackwardCallInfo(int(getattr(call, "index", 0)),
                                                  str(getattr(call, "kind", "backward")),
                                                  site(getattr(call, "site", None)))
    return info


def relabel_sites(snap: GraphSnapshot, place) -> GraphSnapshot:
    """``snap`` with every site passed through ``place`` once; what shared a record
    (the nodes one backward call freed) still shares one."""
    mapped = {}

    def relabel(s):
        if s is None:
            return None
        if s not in mapped:
            mapped[s] = place(s)
        return mapped[s]

    calls = {}

    def call(c):
        if c is None:
            return None
        if id(c) not in calls:
            calls[id(c)] = dataclasses.replace(c, site=relabel(c.site))
        return calls[id(c)]

    return dataclasses.replace(
        snap,
        nodes=tuple(dataclasses.replace(n, site=relabel(n.site), freed_by=call(n.freed_by)) for n in snap.nodes),
        ops=tuple(dataclasses.replace(op, site=relabel(op.site)) for op in snap.ops),
        backward_calls=tuple(call(c) for c in snap.backward_calls))
