"""Recording the forward graph as the engine builds it.

A ``Recorder`` is a listener on ``gradviz.torch.autograd.graph.LISTENERS``: the engine
calls ``on_node`` for every grad_fn it creates and ``on_backward`` around every
backward / autograd.grad. It keeps only small records, never a tensor or a node:

- a *value* per tensor state (a tensor modified in place gets a new value), holding a
  weak reference to the tensor so a snapshot can read its name and ``.grad`` later;
- an *op* per node (name, input and output values, creation site), holding the node
  weakly: when a graph is garbage collected its ops are dropped, so a long training
  loop does not grow the recorder without bound.

Weakref callbacks only append to a list (they may fire in the middle of anything,
including a loop over our dicts); the dead records are pruned on the next event.
"""
import sys
import weakref

from .calls import EngineCalls, node_op_name, source_of
from .engines import is_engine_tensor as _is_tensor
from .model import BackwardCallInfo
from .modules import ModuleTracker
from .records import OpRec, ValueRec, dtype_name, recomputes
from .replay import Lanes



def forward_name(node):
    """The forward op behind a node: MulBackward0 -> 'mul', MyExpBackward -> 'MyExp.apply'."""
    cls = type(node)
    forward_cls = getattr(cls, "_forward_cls", None)
    if forward_cls is not None:  # a custom autograd.Function
        return forward_cls.__name__ + ".apply"
    return node_op_name(cls.__name__)


class Recorder:
    """Context manager recording the forward graph::

        with Recorder() as rec:
            loss = model(x).sum()
            loss.backward()
        snap = snapshot(loss, names, recorder=rec)

    on_backward: optional ``fn(phase, roots, call)`` called on every backward event
    ('start' / 'end'), e.g. to take a snapshot right after buffers were freed.
    capture: optional ``fn() -> names`` ({id(tensor): name}); when given, the graph of
    every backward / autograd.grad call is snapshotted as the call returns (its buffers
    freed), and the last ``keep`` of them are kept in ``captures`` as
    (BackwardCallInfo, GraphSnapshot) pairs.
    sites: optional ``fn((filename, line)) -> (filename, line)``, the names its
    snapshots give places in the user's code (a notebook's cells).

    Watching must never break the program watched: an exception inside the recorder
    (or the callback) is kept in ``errors`` instead of reaching the engine.
    """

    MAX_ERRORS = 20

    def __init__(self, on_backward=None, capture=None, keep=1, sites=None, replay=False):
        self.callback = on_backward
        self.capture = capture
        self.replay = replay  # hook every backward call's nodes, for the explorer (inspect.replay)
        self.nonfinite = None  # inspect.nonfinite.NonFiniteWatch: where a NaN starts (run --nan)
        self.memory = None  # inspect.memory.MemoryWatch: what each backward's graph holds (run --memory)
        self._replaying = None
        self._lanes = Lanes()  # the replays of the backward calls through one graph
        self.sites = sites  # how snapshots name places in the user's code (see ``snapshot``)
        self.keep = keep
        self.captures = []
        self._ops = {}  # serial -> OpRec, in execution order
        self._values = {}  # serial -> ValueRec
        self._tensors = {}  # id(tensor) -> ValueRec, its latest value (checked via .ref)
        self._node_ops = {}  # weakref(node) -> op serial (weakrefs hash like their node)
        self._dead = []  # weakrefs of nodes that died, pruned lazily
        self._on_dead = self._dead.append  # one callback shared by every node's weakref
        self._serial = 0
        self._shapes = {}  # interned shapes and saved maps: a chain repeats the same few
        self._in_backward = 0
        self._backward_calls = []  # (BackwardCallInfo, ((weakref(node), nr), ...))
        self._listeners = None
        self.errors = []  # repr() of exceptions caught in on_node / on_backward
        self.tracker = None  # which module call runs each op (inspect.modules), while entered
        self._calls = None  # EngineCalls: the torch-level call that makes each node
        # The frame of the call being recorded and its first op: the nodes one call makes are
        # one op of the forward view. The frame is held so no later call can reuse its id.
        self._call_frame = None
        self._call_op = None

    # -- context manager -----------------------------------------------------------
    def __enter__(self):
        from gradviz.torch.autograd import graph
        self._listeners = graph.LISTENERS
        self._listeners.append(self)
        import gradviz.torch as engine
        try:
            if self.tracker is None:
                self.tracker = ModuleTracker(engine, on_error=self._error)
            if self.memory is not None:  # each module call's inputs: what checkpointing it keeps
                self.tracker.on_call = self.memory.module_called
            self.tracker.start()
        except Exception as e:  # noqa: BLE001 - without it the ops just have no module
            self._error("module tracker", e)
        try:
            self._calls = _engine_calls(engine)
        except Exception as e:  # noqa: BLE001 - without it every node is its own op
            self._error("engine calls", e)
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        """Stop listening (the records stay readable)."""
        listeners, self._listeners = self._listeners, None
        self._call_frame = self._call_op = None
        if self.tracker is not None:
            self.tracker.stop()
        if listeners is not None:
            for i, x in enumerate(listeners):  # remove *this* recorder, by identity
                if x is self:
                    del listeners[i]
                    break

    # -- engine events -------------------------------------------------------------
    def on_node(self, node, inputs, outputs):
        try:
            self._on_node(node, inputs, outputs)
        except Exception as e:  # noqa: BLE001 - see the class docstring
            self._error("on_node", e)

    def on_backward(self, phase, roots, call):
        try:
            self._on_backward(phase, roots, call)
        except Exception as e:  # noqa: BLE001
            self._error("on_backward", e)

    def _error(self, where, e):
        if len(self.errors) < self.MAX_ERRORS:
            self.errors.append(f"{where}: {type(e).__name__}: {e}")

    def _on_node(self, node, inputs, outputs):
        if self._dead:
            self._prune()
        node_type = type(node).__name__
        # An in-place op records a throwaway "before" tensor as its first input; it stands
        # for the previous value of the tensor being modified (its only output).
        before_of = None
        if inputs and outputs and _is_tensor(inputs[0]) and inputs[0] is not outputs[0] \
                and self._known(inputs[0]) is None and self._known(outputs[0]) is not None:
            before_of = self._known(outputs[0])
        in_vals = []
        positions = {}  # argument position -> index into in_vals
        for i, x in enumerate(inputs):
            rec = before_of if (i == 0 and before_of is not None) else self._value_for_input(x)
            if rec is not None:
                positions[i] = len(in_vals)
                in_vals.append(rec)
        inplace = False
        out_vals = []
        for t in outputs:
            old = self._known(t)
            inplace = inplace or old is not None
            out_vals.append(self._new_value(t, old))
        copy_of = getattr(node, "fn", None) if node_type == "CopySlices" else None
        name = forward_name(copy_of if copy_of is not None else node)
        if (copy_of is not None or inplace) and node_type != "AsStridedBackward0" and not name.endswith("_"):
            name += "_"
        serial = self._next()
        ref = weakref.ref(node, self._on_dead)
        call = self.tracker.current() if self.tracker is not None else None
        saved, recomputed = _saved_map(node, inputs, outputs, positions)
        op = OpRec(serial, ref, name, node_type, tuple(v.serial for v in in_vals),
                   tuple(v.serial for v in out_vals), getattr(node, "_site", None),
                   self._intern(saved), self._in_backward > 0, *(call or ()))
        op.recomputed = recomputed
        for v in in_vals:
            v.users += 1
        for v in out_vals:
            v.users += 1
            v.producer = serial
        self._ops[serial] = op
        self._node_ops[ref] = serial
        if self._calls is not None and not self._in_backward:
            self._join_call(op, node)
        if copy_of is not None:
            self._fold_copy_slices(copy_of, op)
        if self.nonfinite is not None and self.nonfinite.found is None and not self._in_backward:
            code, text = source_of(op.site, op.span)
            self.nonfinite.forward(op.call_name or name, op.site, code, text,
                                   [x for x in inputs if _is_tensor(x)], [t for t in outputs if _is_tensor(t)], node)

    def _reads_plain_tensor(self, op):
        """Whether ``op`` read a tensor that needs no grad (indices, a mask, data): ops
        take those in their own order (embedding's node: the weight first)."""
        values = self._values
        for s in op.inputs:
            v = values[s]
            if v.const is None and not v.requires_grad:
                return True
        return False

    def _join_call(self, op, node):
        """Ties ``op`` to the torch-level call that made its node (see ``calls``)."""
        # frames: this method, _on_node, on_node, the engine code that made the node
        frame, name, caller, users = self._calls.find(sys._getframe(3))
        if frame is None:
            self._call_frame = self._call_op = None
            if getattr(node, "_forward_cls", None) is not None:  # Function.apply: the user's call
                caller = self._calls.caller_of_apply(caller)
                op.span = (caller.f_code, caller.f_lasti) if caller is not None else None
            return
        first = self._call_op
        if frame is self._call_frame and first is not None:
            op.call, op.call_name, op.span = first.call, first.call_name, first.span
            if first.call_args is None:  # a composite: its inputs are its arguments, in order
                first.call_args = tuple(self._value_for_input(t).serial for t in _tensor_args(frame))
            return
        self._call_frame, self._call_op = frame, op
        op.call_name = name or op.name
        op.span = (caller.f_code, caller.f_lasti) if users else None
        if len(op.inputs) > 1 and not op.name.endswith("_") and self._reads_plain_tensor(op):
            op.call_args = tuple(self._value_for_input(t).serial for t in _tensor_args(frame))

    def _on_backward(self, phase, roots, call):
        if phase == "start":
            self._in_backward += 1
            self._call_frame = self._call_op = None
            info = BackwardCallInfo(call.index, call.kind, call.site)
            edges = tuple((weakref.ref(n), nr) for n, nr in roots if n is not None)
            self._backward_calls.append((info, edges))
            if self.replay and self._in_backward == 1:  # a checkpoint's inner backward is part of this one
                self._replaying = _engine_replay()
                self._replaying.start([n for n, _ in roots])
            if self.nonfinite is not None and self._in_backward == 1:
                from .snapshot import next_nodes
                self.nonfinite.start([n for n, _ in roots], next_nodes, self.describe)
            if self.memory is not None and self._in_backward == 1:
                from .snapshot import next_nodes
                site = self.sites(call.site) if self.sites is not None and call.site else call.site
                self.memory.start([n for n, _ in roots], next_nodes, call.index, site)
        else:
            self._in_backward = max(0, self._in_backward - 1)
            replaying = self._replaying if self._in_backward == 0 else None
            if self.nonfinite is not None and self._in_backward == 0:
                self.nonfinite.stop()
            if self.memory is not None and self._in_backward == 0:
                self.memory.end()
            if replaying is not None:
                self._replaying = None
                replaying.stop()
            if self.capture is not None:
                from .snapshot import snapshot
                snap = snapshot([(n, nr) for n, nr in roots if n is not None], self.capture(), self)
                site = self.sites(call.site) if self.sites is not None and call.site else call.site
                info = BackwardCallInfo(call.index, call.kind, site)
                if replaying is not None:
                    snap = self._lanes.attach(snap, info, replaying)
                self.captures.append((info, snap))
                del self.captures[:-self.keep or None]
        if self.callback is not None:
            self.callback(phase, roots, call)

    def memory_storages(self, node):
        """[(storage key, bytes)] of what ``node`` saved (inspect.memory)."""
        from .memory import numpy_storage
        out = []
        for _, value in node.saved_items():
            data = getattr(value, "data", None)
            if data is None or not hasattr(data, "nbytes") or _kept_by_checkpoint(value):
                continue
            out.append(numpy_storage(data))
        return out

    @staticmethod
    def memory_key(tensor):
        from .memory import numpy_storage
        return numpy_storage(tensor._data)[0]

    def memory_place(self, node):
        """(module path or None, site) of the op that made ``node``."""
        op = self.op_for_node(node)
        module = getattr(op.module, "path", None) if op is not None and op.module is not None else None
        site = getattr(node, "_site", None)
        return module, (self.sites(site) if self.sites is not None and site else site)

    def describe(self, node):
        """(forward op name, site, line of code, source text) of what made ``node``."""
        op = self.op_for_node(node)
        if op is None:
            return forward_name(node), getattr(node, "_site", None), "", None
        code, text = source_of(op.site, op.span)
        return op.call_name or op.name, op.site, code, text

    # -- queries (used by snapshot) ------------------------------------------------
    def op_for_node(self, node):
        if self._dead:
            self._prune()
        serial = self._node_ops.get(weakref.ref(node))
        return self._ops.get(serial) if serial is not None else None

    def value_of(self, tensor):
        """The latest value of a live tensor, or None if the recorder never saw it."""
        rec = self._known(tensor)
        return rec if rec is not None and rec.serial in self._values else None

    def value(self, serial):
        return self._values.get(serial)

    def op(self, serial):
        return self._ops.get(serial)

    def ops(self):
        if self._dead:
            self._prune()
        return list(self._ops.values())

    def backward_calls(self):
        return tuple(info for info, _ in self._backward_calls)

    def node_of(self, op):
        """The node an op made, while it lives."""
        return op.node_ref()

    def grad_info(self, t):
        from .snapshot import grad_info

        return grad_info(t)

    def op_params(self, node):
        """The plain numbers a node saved (pow's exponent), for naming its value."""
        return {k: v for k, v in node.saved_items() if isinstance(v, (int, float)) and not isinstance(v, bool)}

    def backward_roots(self, index=-1):
        """Root edges [(node, nr)] of a recorded backward call, those still alive."""
        if not self._backward_calls:
            return []
        out = []
        for ref, nr in self._backward_calls[index][1]:
            node = ref()
            if node is not None:
                out.append((node, nr))
        return out

    def __len__(self):
        if self._dead:
            self._prune()
        return len(self._ops)

    # -- internals -----------------------------------------------------------------
    def _next(self):
        self._serial += 1
        return self._serial

    def _intern(self, t):
        return self._shapes.setdefault(t, t)

    def _known(self, t):
        rec = self._tensors.get(id(t))
        if rec is not None and rec.ref() is t:
            return rec
        return None  # never seen, or the id belonged to a tensor that died

    def _value_for_input(self, x):
        if _is_tensor(x):
            rec = self._known(x)
            if rec is None:  # first seen as an input: a leaf, a constant tensor, a detached one
                rec = self._new_value(x, None)
            return rec
        if isinstance(x, (bool, int, float, complex)):
            return self._constant(repr(x))
        shape = getattr(x, "shape", None)
        if shape is not None and hasattr(x, "dtype"):  # a numpy array
            return self._constant("array" + _shape_text(shape), tuple(shape), str(x.dtype))
        return None

    def _constant(self, text, shape=None, dtype=None):
        rec = ValueRec(self._next(), None, shape, dtype, False, True, const=text)
        self._values[rec.serial] = rec
        return rec

    def _new_value(self, t, old):
        data = t._data
        shape = data.shape
        shape = self._shapes.setdefault(shape, shape)  # one tuple per distinct shape
        rec = ValueRec(self._next(), old.ref if old is not None else weakref.ref(t), shape,
                       dtype_name(data.dtype), bool(t._requires_grad), t._grad_fn is None, prev=old)
        self._values[rec.serial] = rec
        self._tensors[id(t)] = rec
        return rec

    def _fold_copy_slices(self, fn, copy_op):
        """An in-place op on a view: the engine recorded the op's own node on a shadow
        tensor, then refreshed the view (AsStridedBackward0), then CopySlices on the base.
        Keep one op ``base -> add_ -> base``, followed by the view's refresh."""
        inner = self.op_for_node(fn)
        first = 0
        if inner is not None:
            first = inner.serial
            self._drop_op(inner)
        new_base = self._values.get(copy_op.outputs[0]) if copy_op.outputs else None
        old_base = self._values.get(new_base.prev) if new_base is not None else None
        for serial in [s for s in self._ops if first < s < copy_op.serial]:
            op = self._ops[serial]
            if op.node_name != "AsStridedBackward0" or not op.inputs or old_base is None \
                    or op.inputs[0] != old_base.serial:
                continue
            # Move the refresh after the copy, reading the base's new value.
            del self._ops[serial]
            old_base.users -= 1
            new_base.users += 1
            op.inputs = (new_base.serial,) + op.inputs[1:]
            op.serial = self._next()
            self._ops[op.serial] = op
            self._node_ops[op.node_ref] = op.serial
            for s in op.outputs:
                v = self._values.get(s)
                if v is not None:
                    v.producer = op.serial

    def _drop_op(self, op):
        self._ops.pop(op.serial, None)
        self._node_ops.pop(op.node_ref, None)
        for s in op.inputs + op.outputs:
            v = self._values.get(s)
            if v is None:
                continue
            v.users -= 1
            if v.users <= 0:
                del self._values[s]
                t = v.ref() if v.ref is not None else None
                if t is not None and self._tensors.get(id(t)) is v:
                    del self._tensors[id(t)]

    def _prune(self):
        dead = self._dead[:]
        del self._dead[:len(dead)]  # the same list: the weakrefs' callback appends to it
        for ref in dead:
            serial = self._node_ops.pop(ref, None)
            op = self._ops.get(serial) if serial is not None else None
            if op is not None:
                self._drop_op(op)
        # Entries of tensors that died after their values were pruned.
        if len(self._tensors) > 2 * len(self._values) + 64:
            self._tensors = {k: v for k, v in self._tensors.items() if v.serial in self._values}


_ENGINE_CALLS = {}


def _kept_by_checkpoint(value):
    hooks = getattr(value, "hooks", None)
    return hooks is not None and recomputes(hooks[1])


def _engine_replay():
    from .replay import ReplayRecorder, numpy_stats
    from .snapshot import next_nodes

    def stats(g):
        return None if g is None else numpy_stats(g._data, dtype_name(g._data.dtype))

    def identity(node):  # a node of the engine is the same object for as long as it lives
        return weakref.ref(node)
    return ReplayRecorder(next_nodes, stats, identity)


def _tensor_args(frame):
    """The tensors a function was called with, in argument order (those in a tuple or list
    argument too: ``lstm_cell(x, (h, c), ...)``)."""
    code = frame.f_code
    named = code.co_argcount + code.co_kwonlyargcount
    local = frame.f_locals
    values = [local.get(name) for name in code.co_varnames[:named]]
    if code.co_flags & 0x04:  # CO_VARARGS: *args, after the named ones
        values.extend(local.get(code.co_varnames[named], ()))
    out = []
    for value in values:
        for x in (value if isinstance(value, (tuple, list)) else (value,)):
            if _is_tensor(x):
                out.append(x)
    return out


def _engine_calls(engine):
    """One EngineCalls per engine module: finding its public functions takes milliseconds."""
    calls = _ENGINE_CALLS.get(id(engine))
    if calls is None or calls.engine is not engine:
        calls = _ENGINE_CALLS[id(engine)] = EngineCalls(engine)
    return calls


def _saved_map(node, inputs, outputs, positions):
    """Where each saved tensor came from, captured while the tensors are still there, and
    the slots a checkpoint recomputes in backward (they are freed like others after it)."""
    items = node.saved_items()
    if not items:
        return (), ()
    out, recomputed = [], []
    for slot, value in items:
        hooks = getattr(value, "hooks", None)
        if hooks is not None and recomputes(hooks[1]):
            recomputed.append(slot)
        tensor = getattr(value, "tensor", None)
        if getattr(value, "is_output", False):
            out.append((slot, True, getattr(value, "output_nr", 0)))
        elif tensor is not None:
            index = next((i for i, x in enumerate(inputs) if x is tensor), None)
            if index in positions:
                out.append((slot, False, positions[index]))
    return tuple(out), tuple(recomputed)


def _shape_text(shape):
    return "(" + ", ".join(str(s) for s in shape) + ")"
