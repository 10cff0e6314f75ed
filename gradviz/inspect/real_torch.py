"""Real PyTorch as a source of snapshots (``--engine torch``): the user's real model, drawn
from the same plain ``GraphSnapshot`` the renderers read for gradviz's own engine.

Two pieces, in the roles ``Recorder`` and ``snapshot`` play for the engine:

- ``TorchRecorder`` watches a run through PyTorch's own extension point, a
  ``TorchFunctionMode``: every torch-level call (``linear``, ``mul``, ``Tensor.backward``,
  ``torch.autograd.grad`` ...) with its arguments, result and the user's line. The
  grad_fn nodes a call creates are tied to it by their sequence numbers (a node cannot
  be weakly referenced, its Python wrapper comes and goes, and anything Python hung on
  a node, even in ``node.metadata``, makes PyTorch crash freeing a 50,000-node chain).
  What each node saved is read as the call returns, so a slot that a backward frees
  later still has its shape. Around every backward call, the nodes whose buffers it
  freed are noted with the call. The records are bounded: past ``MAX_OPS`` calls the
  oldest go first (each backward's graph was captured when it ran).
- ``snapshot(roots, names, recorder)`` walks a real graph (``next_functions``, with an
  explicit stack), reads node names, edges, saved slots (``_saved_*``; freed ones from
  ``_raw_saved_*``), leaves (``AccumulateGrad.variable``) and output metadata, and
  names the forward values as the engine's snapshot does (the same ``Forward``). Its
  nodes are numbered by the same ``walk``. ``gradviz.inspect.snapshot`` calls it for
  real PyTorch objects: that is where the engine is picked.

PyTorch is imported only here, and only when one of these runs.
"""
import contextlib
import sys
import weakref

from ..frame_lines import line_of
from .engines import is_gradviz_alias as _is_gradviz_alias
from .engines import is_real_node as _is_real_node
from .engines import real_torch_module as _real_torch
from .formulas import formula_texts
from .forward import Forward
from .calls import source_of
from .torch_calls import (flat_inputs, internal_dirs, mode_class, op_name_of_call, scaffolding,
                          watch_function_apply)
from .torch_nodes import HOOKS, forget_number, readable_saved_tensors, sequence_nr, unpacked_state
from .model import BackwardCallInfo, BackwardNode, Edge, GradInfo, GraphSnapshot, LeafInfo, Root, SavedInfo
from .modules import ModuleTracker
from .modules import tensor_names as _with_module_names
from .records import OpRec, ValueRec, recomputes, relabel_sites
from .replay import Lanes
from .records import call_info as _call_info
from .walk import walk

MIN_VERSION = (2, 0)
MAX_OPS = 150_000  # recorded calls kept; the oldest go first


class TorchUnavailable(Exception):
    """PyTorch is not installed, or too old: one line for the user."""


def import_torch():
    """The real ``torch`` module (not gradviz's stand-in), or TorchUnavailable."""
    import importlib

    hidden = {k: sys.modules.pop(k) for k in list(sys.modules)
              if (k == "torch" or k.startswith("torch.")) and _is_gradviz_alias(sys.modules[k])}
    try:
        torch = importlib.import_module("torch")
    except ImportError as e:
        raise TorchUnavailable(f"--engine torch needs PyTorch, which is not installed ({e}); "
                               "pip install torch, or use gradviz's own engine (--engine gradviz)") from None
    finally:
        sys.modules.update({k: v for k, v in hidden.items() if k not in sys.modules})
    version = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2] if p.isdigit())
    if version < MIN_VERSION:
        raise TorchUnavailable(f"--engine torch needs PyTorch 2.0 or newer; this is {torch.__version__}")
    _room_for_deep_graphs()
    return torch


STACK_BYTES = 512 << 20


def _room_for_deep_graphs() -> None:
    """Let the main thread's stack grow to STACK_BYTES (Linux grows it on demand).

    PyTorch frees a graph whose nodes have had Python wrappers recursively, one C frame
    per node, and a snapshot (or any reading of ``grad_fn``) gives every node a wrapper:
    with the usual 8 MiB stack, freeing such a chain of 60,000 nodes crashes the process.
    """
    try:
        import resource
    except ImportError:  # Windows: no such limit to raise
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    want = STACK_BYTES if hard == resource.RLIM_INFINITY else min(hard, STACK_BYTES)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
        except (ValueError, OSError):
            pass


# --------------------------------------------------------------------------- recording


ACTIVE = []  # the recorders entered, in order: other threads follow them (follow_active)


@contextlib.contextmanager
def follow_active():
    """In another thread, record for the recorders entered in the calling one (a
    TorchFunctionMode is per thread). gradviz runs its own passes on a bare thread."""
    with contextlib.ExitStack() as stack:
        for rec in list(ACTIVE):
            stack.enter_context(mode_class(rec.torch)(rec))
        yield


class TorchOpRec(OpRec):
    """A recorded call, and the sequence numbers of the nodes it made."""

    __slots__ = ("nodes",)


_NO_SEQUENCE = 1 << 63  # what nodes without a sequence number (AccumulateGrad) report, or more


def _seq(node) -> int:
    """A node's sequence number: stable and unique in its thread (AccumulateGrad: 2**64-1);
    gradviz's own where the release does not tell it (torch_nodes)."""
    return sequence_nr(node)


class TorchRecorder:
    """Records a real PyTorch run; the same interface ``snapshot`` and ``Watch`` use of ``Recorder``.

    on_backward: ``fn(phase, roots, call)`` around every backward / autograd.grad call.
    capture: ``fn() -> names``; when given, each backward call's graph is snapshotted as the
    call returns (its freed buffers marked), the last ``keep`` in ``captures``.
    sites: how snapshots name places in the user's code (see ``snapshot``).
    Watching never breaks the program: errors of the recorder go to ``errors``.
    """

    MAX_ERRORS = 20

    def __init__(self, on_backward=None, capture=None, keep=1, sites=None, replay=False):
        self.torch = import_torch()
        self.replay = replay  # hook every backward call's nodes, for the explorer (inspect.replay)
        self.nonfinite = None  # inspect.nonfinite.NonFiniteWatch: where a NaN starts (run --nan)
        self.memory = None  # inspect.memory.MemoryWatch: what each backward's graph holds (run --memory)
        self._depth = 0  # backward calls running: a checkpoint's inner one is part of the outer
        self._lanes = Lanes()  # the replays of the backward calls through one graph
        self.callback, self.capture, self.keep, self.sites = on_backward, capture, keep, sites
        self.captures = []
        self.errors = []
        self._ops = {}  # serial -> OpRec
        self._values = {}  # serial -> ValueRec
        self._tensors = {}  # id(tensor) -> ValueRec, its latest value
        # per node, by sequence number: the call that made it (None: made where we could
        # not see, by a backward), what it saved (see _saved_of), the backward that freed it
        self._node_op = {}
        self._node_meta = {}
        self._main = set()  # the nodes of the calls' outputs (composites make inner ones too)
        self._newest = -1  # the highest sequence number recorded
        self._freed = {}
        self._serial = 0
        self._calls = []  # BackwardCallInfo, in order
        self._walked = {}  # op serial -> node, while a snapshot walks
        self._mode = None
        self._slots = {}  # node type -> its saved slot names
        self._sites = {}
        self._skip = internal_dirs(self.torch)
        self.scaffolding = scaffolding(self.torch)
        self.tracker = ModuleTracker(self.torch, on_error=self._error)  # which module call runs each op

    def __enter__(self):
        self._mode = mode_class(self.torch)(self)
        self._mode.__enter__()
        ACTIVE.append(self)
        self._unpatch = watch_function_apply(self.torch, self)
        self._unhook = None if readable_saved_tensors(self.torch) else HOOKS.start(self.torch)
        if self.memory is not None:  # each module call's inputs: what checkpointing it keeps
            self.tracker.on_call = self.memory.module_called
        try:
            self.tracker.start()
        except Exception as e:  # noqa: BLE001 - without it the ops just have no module
            self._error("module tracker", e)
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        mode, self._mode = self._mode, None
        unpatch, self._unpatch = getattr(self, "_unpatch", None), None
        if unpatch is not None:
            unpatch()
        unhook, self._unhook = getattr(self, "_unhook", None), None
        if unhook is not None:
            unhook()
        self.tracker.stop()
        if mode is not None:
            mode.__exit__(None, None, None)
        if self in ACTIVE:
            ACTIVE.remove(self)

    def _error(self, where, e):
        if len(self.errors) < self.MAX_ERRORS:
            self.errors.append(f"{where}: {type(e).__name__}: {e}")

    # -- calls -------------------------------------------------------------------------
    def on_call(self, func, args, kwargs, out):
        try:
            self._on_call(func, args, kwargs, out)
        except Exception as e:  # noqa: BLE001 - see the class docstring
            self._error("on_call", e)

    def on_function(self, cls, args, kwargs, out):
        """A custom ``autograd.Function``'s apply returned (no torch function sees it)."""
        try:
            self._on_call(cls.apply, args, kwargs, out, cls.__name__ + ".apply")
        except Exception as e:  # noqa: BLE001 - see the class docstring
            self._error("on_function", e)

    def _on_call(self, func, args, kwargs, out, name=None):
        Tensor = self.torch.Tensor
        outs = [t for t in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(t, Tensor)]
        made = [t for t in outs if _grad_fn(t) is not None]
        if self.nonfinite is not None and self.nonfinite.found is None and outs and not _uninitialized(func):
            self._check_nonfinite(func, args, kwargs, outs, name, _grad_fn(made[0]) if made else None)
        if not made:
            return
        node = _grad_fn(made[0])
        new_nodes = self._new_nodes([_grad_fn(t) for t in made], functions=name is not None)
        if not new_nodes:
            return
        own = _seq(node)  # the node of the first result made is the call's own
        new_nodes.sort(key=lambda n: _seq(n) != own)
        inputs = flat_inputs(func, args, kwargs, Tensor)
        in_vals = []
        for x in inputs:
            rec = self._value_for_input(x, Tensor)
            if rec is not None:
                in_vals.append((x, rec))
        inplace = any(o is x for o in outs for x, _ in in_vals)
        out_vals = [self._new_value(t, self._known(t)) for t in outs]
        serial = self._next()
        name = name or op_name_of_call(func, inplace)
        saved, meta = self._saved_of(node, in_vals, outs)
        where, span = self._site_and_span()
        op = TorchOpRec(serial, None, name, type(node).__name__, tuple(r.serial for _, r in in_vals),
                        tuple(v.serial for v in out_vals), where, saved, False, *(self.tracker.current() or ()))
        op.span = span
        op.nodes = [_seq(n) for n in new_nodes]
        for _, v in in_vals:
            v.users += 1
        for v in out_vals:
            v.users += 1
            v.producer = serial
        self._ops[serial] = op
        for n, seq in zip(new_nodes, op.nodes):  # a composite call (multi_head_attention_forward) makes many
            self._node_op[seq] = serial
            self._node_meta[seq] = meta if seq == own else self._saved_of(n, (), ())[1]
        self._main.add(op.nodes[0])
        if len(self._ops) > MAX_OPS:
            self._forget(next(iter(self._ops)))

    def _new_nodes(self, starts, functions=False):
        """The nodes this call created: back from its outputs to nodes already known.
        Sequence numbers only grow: an unknown node older than the newest one recorded was
        made where we could not see; it is noted as such (with what it saved), and the walk
        stops there, so no later call walks that graph again. ``functions``: the call is a
        custom Function's apply, whose nodes ``starts`` are."""
        own = {id(n) for n in starts} if functions else ()
        found, seen, stack = [], set(), list(starts)
        newest = self._newest
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            seq = _seq(node)
            if seq >= _NO_SEQUENCE or seq in self._node_op:  # AccumulateGrad and the like have no number
                continue
            if seq <= newest or (hasattr(node, "_forward_cls") and id(node) not in own):
                # made where we could not see: by a backward, before recording began, or by
                # a custom Function's apply (not a torch function): what it saved, no call
                self._node_op[seq] = None
                self._node_meta[seq] = self._saved_of(node, (), ())[1]
                continue
            found.append(node)
            self._newest = max(self._newest, seq)
            stack.extend(n for n, _ in node.next_functions)
        return found

    def _saved_of(self, node, in_vals, outs):
        """((slot, is_output, index), ...) for the snapshot's names, and each slot's
        (shape, dtype, version) while the slots are still there (see ``_Mark``)."""
        saved, meta = [], {}
        for slot, attr in self.slots_of(node):
            for slot, state, value in _slot_states(node, slot, attr):
                if state == "undefined":
                    meta[slot] = None  # a tensor the formula does not need: it stays undefined
                if state == "recomputed":  # nothing to read: reading would run the checkpoint again
                    meta[slot] = _RECOMPUTED
                if state == "packed":  # a release that can only unpack it must remember not to
                    meta[slot] = _PACKED
                if state != "tensor":
                    continue
                index = next((k for k, (x, _) in enumerate(in_vals) if x is value), None)
                nr = None if index is not None else next((k for k, o in enumerate(outs) if _same_data(o, value)),
                                                         None)
                if index is None and nr is None and value.dim() == 0 and not value.is_meta and _wrapped_number(value):
                    meta[slot] = ("scalar", _dtype(value.dtype), _short(value.item()))  # x * 2.0's 2.0
                    continue
                meta[slot] = (tuple(value.shape), _dtype(value.dtype), int(value._version))
                if index is not None:
                    saved.append((slot, False, index))
                elif nr is not None:
                    saved.append((slot, True, nr))
        return tuple(saved), meta

    def slots_of(self, node):
        """[(slot, attribute)] of a node: ``_saved_*`` names, or a custom Function's saved_tensors."""
        cls = type(node)
        slots = self._slots.get(cls)
        if slots is None:
            names = dir(node)
            if "_raw_saved_tensors" in names and "_forward_cls" in names:  # a custom autograd.Function
                slots = [("saved_tensors", "saved_tensors")]
            else:
                slots = [(a[len("_saved_"):], a) for a in names if a.startswith("_saved_")]
            self._slots[cls] = slots
        return slots

    def _site(self):
        """The user's line: the innermost frame outside PyTorch and gradviz."""
        return self._site_and_span()[0]

    def _site_and_span(self):
        """(the user's line, the span of the call in it): the innermost frame outside
        PyTorch and gradviz, and where in its line it is when it called PyTorch directly,
        not through a module's forward or other Python-level scaffolding (see ``calls``)."""
        frame = sys._getframe(2)
        direct = True
        while frame is not None:
            name = frame.f_code.co_filename
            if not name.startswith(self._skip) and not name.startswith("<frozen"):
                site = (name, line_of(frame))
                site = self._sites.setdefault(site, site)  # one tuple per line: a loop repeats them
                return site, ((frame.f_code, frame.f_lasti) if direct else None)
            if direct and name.startswith(self.scaffolding):
                direct = False
            frame = frame.f_back
        return None, None

    # -- backward calls ------------------------------------------------------------------
    def run_backward(self, how, func, args, kwargs):
        """Run a backward call (``how``: 'tensor.backward', 'backward', 'autograd.grad'), then
        mark what it freed and take its snapshot."""
        edges = self._root_edges(how, args, kwargs)
        info = BackwardCallInfo(len(self._calls) + 1, "autograd.grad" if how == "autograd.grad" else "backward",
                                self._site())
        self._calls.append(info)
        self._notify("start", edges, info)
        replaying = None
        if self.nonfinite is not None and self._depth == 0:
            self.nonfinite.start([n for n, _ in edges], _next_nodes, self.describe)
        if self.memory is not None and self._depth == 0:
            site = self.sites(info.site) if self.sites is not None and info.site else info.site
            self.memory.start([n for n, _ in edges], _next_nodes, info.index, site)
        if self.replay and self._depth == 0:
            replaying = self._replay_recorder()
            replaying.start([n for n, _ in edges])
        self._depth += 1
        try:
            return func(*args, **kwargs)
        finally:
            self._depth -= 1
            if self.nonfinite is not None and self._depth == 0:
                self.nonfinite.stop()
            if self.memory is not None and self._depth == 0:
                self.memory.end()
            if replaying is not None:
                replaying.stop()
            try:
                self._attribute_freed(edges, info)
                roots = [e for e in edges if e[0] is not None]
                if self.capture is not None and roots:  # no graph at all: the call raised at once
                    snap = snapshot(roots, self.capture(), self)
                    site = self.sites(info.site) if self.sites is not None and info.site else info.site
                    called = BackwardCallInfo(info.index, info.kind, site)
                    if replaying is not None:
                        snap = self._lanes.attach(snap, called, replaying)
                    self.captures.append((called, snap))
                    del self.captures[:-self.keep or None]
            except Exception as e:  # noqa: BLE001
                self._error("on_backward", e)
            self._notify("end", edges, info)

    def _check_nonfinite(self, func, args, kwargs, outs, name, node):
        where, span = self._site_and_span()
        code, text = source_of(where, span)
        Tensor = self.torch.Tensor
        self.nonfinite.forward(name or op_name_of_call(func, False), where, code, text,
                               [x for x in flat_inputs(func, args, kwargs, Tensor) if isinstance(x, Tensor)], outs,
                               node)

    def describe(self, node):
        """(forward op name, site, line of code, source text) of the call that made ``node``."""
        op = self.op_for_node(node)
        if op is None:
            return type(node).__name__, None, "", None
        code, text = source_of(op.site, op.span)
        return op.name, op.site, code, text

    def memory_storages(self, node):
        """[(storage key, bytes)] of what ``node`` saved (inspect.memory):
        each saved tensor read (not unpacked through a hook: a checkpoint's are not kept)."""
        Tensor = self.torch.Tensor
        out = []
        meta = self._node_meta.get(_seq(node))
        for slot, attr in self.slots_of(node):
            for _, state, value in _slot_states(node, slot, attr, meta):
                if state != "tensor" or not isinstance(value, Tensor):
                    continue
                out.append((self.memory_key(value), int(value.untyped_storage().nbytes())))
        return out

    @staticmethod
    def memory_key(tensor):
        storage = tensor.untyped_storage()
        return storage.data_ptr() or id(storage)

    def memory_place(self, node):
        """(module path or None, site) of the call that made ``node``."""
        op = self.op_for_node(node)
        if op is None:
            return None, None
        module = getattr(op.module, "path", None) if op.module is not None else None
        return module, (self.sites(op.site) if self.sites is not None and op.site else op.site)

    def torch_check(self, t, inf):
        """inspect.nonfinite's check of a PyTorch tensor."""
        from .nonfinite import numpy_check
        if not t.is_floating_point() and not t.is_complex():
            return None
        t = t.detach()
        return numpy_check((t.float() if t.dtype in (self.torch.bfloat16, self.torch.float16) else t).cpu().numpy(), inf)

    def _replay_recorder(self):
        from .replay import ReplayRecorder, numpy_stats
        torch = self.torch

        def stats(g):
            if g is None:
                return None
            g = g.detach()
            values = (g.abs() if g.is_complex() else g).to("cpu", torch.float64).numpy()
            return numpy_stats(values, _dtype(g.dtype))

        def identity(node):  # PyTorch's node wrappers come and go: its sequence number, a leaf's tensor
            variable = getattr(node, "variable", None)
            return ("leaf", id(variable)) if variable is not None else (_seq(node), type(node).__name__)
        return ReplayRecorder(_next_nodes, stats, identity)

    def _notify(self, phase, edges, info):
        if self.callback is not None:
            try:
                self.callback(phase, edges, info)
            except Exception as e:  # noqa: BLE001
                self._error("on_backward", e)

    def _root_edges(self, how, args, kwargs):
        torch = self.torch
        if how == "tensor.backward":
            roots = [args[0]]
        else:
            key = "outputs" if how == "autograd.grad" else "tensors"
            roots = args[0] if args else kwargs.get(key)
            roots = [roots] if isinstance(roots, torch.Tensor) or not isinstance(roots, (list, tuple)) else roots
        edges = []
        for r in roots:
            if isinstance(r, torch.Tensor):
                fn = _grad_fn(r)
                edges.append((fn, r.output_nr if fn is not None else 0))
            elif hasattr(r, "node") and hasattr(r, "output_nr"):  # a GradientEdge
                edges.append((r.node, r.output_nr))
        return edges

    def _attribute_freed(self, edges, info):
        """Mark the nodes whose buffers this backward call freed."""
        seen, stack = set(), [n for n, _ in edges if n is not None]
        keep = []  # the nodes stay alive, so their ids stay theirs, while we walk
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            keep.append(node)
            seq = _seq(node)
            if seq not in self._freed and _any_freed(node, self.slots_of(node), self._node_meta.get(seq)):
                self._freed[seq] = info
            stack.extend(n for n, _ in node.next_functions if n is not None)

    # -- values -------------------------------------------------------------------------
    def _next(self):
        self._serial += 1
        return self._serial

    def _known(self, t):
        rec = self._tensors.get(id(t))
        if rec is not None and rec.ref is not None and rec.ref() is t:
            return rec
        return None

    def _value_for_input(self, x, Tensor):
        if isinstance(x, Tensor):
            return self._known(x) or self._new_value(x, None)
        if isinstance(x, (bool, int, float, complex)):
            rec = ValueRec(self._next(), None, None, None, False, True, const=repr(x))
            self._values[rec.serial] = rec
            return rec
        return None

    def _new_value(self, t, old):
        rec = ValueRec(self._next(), old.ref if old is not None else weakref.ref(t), tuple(t.shape), _dtype(t.dtype),
                       bool(t.requires_grad), _grad_fn(t) is None, prev=old)
        self._values[rec.serial] = rec
        self._tensors[id(t)] = rec
        return rec

    def _forget(self, serial):
        """Drop the oldest record (the recorder keeps MAX_OPS)."""
        op = self._ops.pop(serial, None)
        if op is None:
            return
        for seq in op.nodes:
            self._node_op.pop(seq, None)
            self._node_meta.pop(seq, None)
            self._freed.pop(seq, None)
            self._main.discard(seq)
            forget_number(seq)
        for s in op.inputs + op.outputs:  # the values only this record used go with it
            v = self._values.get(s)
            if v is None:
                continue
            v.users -= 1
            if v.users <= 0:
                del self._values[s]
                t = v.ref() if v.ref is not None else None
                if t is not None and self._tensors.get(id(t)) is v:
                    del self._tensors[id(t)]
        if len(self._tensors) > 2 * len(self._values) + 64:
            self._tensors = {k: v for k, v in self._tensors.items() if v.serial in self._values}

    # -- what snapshot and _Forward ask -----------------------------------------------------
    def op_for_node(self, node):
        serial = self._node_op.get(_seq(node)) if node is not None else None
        return self._ops.get(serial) if serial is not None else None

    def node_of(self, op):
        return self._walked.get(op.serial)

    def value_of(self, tensor):
        rec = self._known(tensor)
        return rec if rec is not None and rec.serial in self._values else None

    def value(self, serial):
        return self._values.get(serial)

    def op(self, serial):
        return self._ops.get(serial)

    def ops(self):
        """The recorded calls, in order; while a snapshot walks, only those that made its
        nodes (the others cannot be in it, and a long run keeps many)."""
        if self._walked:
            return [self._ops[s] for s in sorted(self._walked)]
        return list(self._ops.values())

    def backward_calls(self):
        return tuple(self._calls)

    def grad_info(self, t):
        return grad_info(t)

    def op_params(self, node):
        """pow's exponent, when it is a plain number (it names the value: ``x**2``)."""
        try:
            value = getattr(node, "_saved_exponent", None)
        except RuntimeError:  # a tensor exponent, freed
            return {}
        return {"exponent": value} if isinstance(value, (int, float)) and not isinstance(value, bool) else {}

    def __len__(self):
        return len(self._ops)


def _same_data(a, b) -> bool:
    try:
        ptr = a.data_ptr()
        return ptr != 0 and ptr == b.data_ptr() and a.shape == b.shape and a.stride() == b.stride()
    except Exception:  # noqa: BLE001 - tensors without storage
        return False


def _slot_states(node, slot, attr, meta=None):
    """[(slot, state, value)] of a saved slot, read without unpacking it (unpacking checks
    versions, and re-runs a checkpointed forward). States: 'tensor' (value: the tensor),
    'undefined' (a tensor the formula does not need), 'freed', 'packed' (by a
    saved-tensor hook; value: None), 'value' (a plain option such as dim).
    A custom Function's saved_tensors give one entry per tensor: saved_tensors[0] ..."""
    if attr == "saved_tensors":
        try:
            raws = getattr(node, "_raw_saved_tensors", None) or ()
        except RuntimeError:  # freed: how many there were, the record knows
            known = sorted((k for k in (meta or {}) if k.startswith("saved_tensors[")), key=lambda k: int(k[14:-1]))
            return [(k, "freed", None) for k in known]
        return [(f"saved_tensors[{k}]",) + _raw_state(node, attr, raw, (meta or {}).get(f"saved_tensors[{k}]"), k)
                for k, raw in enumerate(raws)]
    try:
        raw = getattr(node, "_raw" + attr, None)
    except RuntimeError:  # a list of saved tensors, freed
        return [(slot, "freed", None)]
    if raw is None or isinstance(raw, (list, tuple)):  # an option (None too), or a list of tensors
        try:
            value = getattr(node, attr)
        except RuntimeError:
            return [(slot, "freed", None)]
        return [(slot, "value", value)]
    return [(slot,) + _raw_state(node, attr, raw, (meta or {}).get(slot))]


def _raw_state(node, attr, raw, known=None, index=None):
    if not hasattr(raw, "unpack_hook"):  # an older PyTorch: unpacking is the only reading (torch_nodes)
        if known is _RECOMPUTED or known is _PACKED:
            return known[0], None
        hook = HOOKS.top_unpack() if known is None else None  # None: the node is being recorded now
        if hook is not None:
            return ("recomputed" if recomputes(hook) else "packed"), None
        return unpacked_state(node, attr, index)
    if raw.unpack_hook is not None:
        return ("recomputed" if recomputes(raw.unpack_hook) else "packed"), None
    data = raw.data
    if data is not None:
        return "tensor", data
    try:  # an undefined slot reads None; a freed one raises
        getattr(node, attr)
    except RuntimeError:
        return "freed", None
    return "undefined", None


def _any_freed(node, slots, meta=None) -> bool:
    return any(state == "freed" for slot, attr in slots for _, state, _ in _slot_states(node, slot, attr, meta))


_EMPTY = frozenset({"empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided"})


def _uninitialized(func) -> bool:
    """Whether ``func`` makes a tensor whose values are whatever memory held (``torch.empty``,
    as nn.Linear's init makes its weight): a NaN there is no finding."""
    return getattr(func, "__name__", None) in _EMPTY


def _grad_fn(t):
    """``t.grad_fn``, which raises for a view made under no_grad whose base changed in place."""
    try:
        return t.grad_fn
    except RuntimeError:
        return None


_DTYPES = {}


def _dtype(dtype) -> str:
    """'float32' for torch.float32 (str() of a dtype is slow, and asked 100,000s of times)."""
    name = _DTYPES.get(dtype)
    if name is None:
        name = _DTYPES[dtype] = str(dtype).replace("torch.", "")
    return name


def grad_info(t):
    try:
        g = t.grad if t.is_leaf or getattr(t, "retains_grad", False) else None
    except RuntimeError:  # a view made under no_grad whose base changed in place: no reading it
        return None
    return None if g is None else GradInfo(tuple(g.shape), _dtype(g.dtype))


# --------------------------------------------------------------------------- the snapshot


def snapshot(roots, names=None, recorder=None, sites=None) -> GraphSnapshot:
    """The snapshot of a real PyTorch graph: the same plain data as the engine's."""
    import gc

    # As for the engine's snapshot: no reference cycles are made, and the cyclic GC would
    # scan the growing records again and again.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _snapshot(roots, names, recorder, sites)
    finally:
        if paused:
            gc.enable()


def _snapshot(roots, names, recorder, sites):
    torch = _real_torch() or import_torch()
    _room_for_deep_graphs()
    names = _with_module_names(recorder, _names(names, torch))
    many = isinstance(roots, list) or (isinstance(roots, tuple) and not (len(roots) == 2 and isinstance(roots[1], int)))
    specs = [_root_spec(r, torch) for r in (roots if many else [roots])]
    order, index = walk([s[1] for s in specs if s[1] is not None], _next_nodes)
    reader = _Reader(recorder, torch)
    forward = None
    try:
        if recorder is not None:
            made, walked = recorder._node_op, {}
            for n in order:  # each call's own node, or another it made when its own is not here
                seq = _seq(n)
                serial = made.get(seq)
                if serial is not None and (serial not in walked or seq in recorder._main):
                    walked[serial] = n
            recorder._walked = walked
            forward = Forward(recorder, names, order, index, specs)
        out_names = _output_names(specs, names, index, forward)
        calls = {}
        nodes = tuple(reader.node(index[id(n)], n, index, names, forward, out_names.get(index[id(n)]), calls)
                      for n in order)
        root_infos = tuple(_root(spec, names, index, forward) for spec in specs)
    finally:
        if recorder is not None:
            recorder._walked = {}
    notes = []
    if recorder is not None and forward is not None and not forward.ops and nodes:
        notes.append("the forward pass of these roots was not recorded")
    if recorder is not None and recorder.errors:
        notes.append(f"the recorder hit {len(recorder.errors)} error(s); first: {recorder.errors[0]}")
    snap = GraphSnapshot(roots=root_infos, nodes=nodes, values=forward.values if forward else (),
                         ops=forward.ops if forward else (), has_forward=recorder is not None,
                         backward_calls=recorder.backward_calls() if recorder is not None else (),
                         notes=tuple(notes), modules=forward.modules.infos() if forward else ())
    sites = sites if sites is not None else getattr(recorder, "sites", None)
    return relabel_sites(snap, sites) if sites is not None else snap


def _output_names(specs, names, index, forward):
    """{node id: {output_nr: name}} from the named roots and the recorded outputs."""
    out = {}
    for t, node, nr in specs:
        if t is not None and node is not None and id(t) in names and _grad_fn(t) is node:
            out.setdefault(index[id(node)], {})[nr] = names[id(t)]
    if forward is not None:
        for k, nr, name in forward.named_outputs():
            out.setdefault(k, {}).setdefault(nr, name)
    return out


def _names(names, torch):
    if not names:
        return {}
    out = {}
    for key, value in names.items():
        if isinstance(key, int):
            out[key] = str(value)
        elif isinstance(key, str) and isinstance(value, torch.Tensor):
            out[id(value)] = key
    return out


def _root_spec(r, torch):
    if isinstance(r, torch.Tensor):
        fn = _grad_fn(r)
        return (r, fn, r.output_nr if fn is not None else 0)
    if isinstance(r, tuple):
        return (None, r[0], r[1])
    if hasattr(r, "node") and hasattr(r, "output_nr"):
        return (None, r.node, r.output_nr)
    if _is_real_node(r):
        return (None, r, 0)
    raise TypeError(f"snapshot: a root must be a tensor, a grad_fn node or a (node, output_nr) edge, "
                    f"not {type(r).__name__}")


def _next_nodes(node):
    """The nodes a real node's edges lead to, for ``walk``."""
    return [fn for fn, _ in node.next_functions]


class _Reader:
    """Reads one real node into a BackwardNode."""

    def __init__(self, recorder, torch):
        global _SavedTensor
        self.recorder = recorder
        self.torch = torch
        _SavedTensor = torch._C._autograd.SavedTensor if readable_saved_tensors(torch) else None
        self.slots = recorder.slots_of if recorder is not None else _SlotCache().slots_of
        self._ordered = {}  # (node type, where its saved tensors came from) -> its slots, in the engine's order
        self._shapes = {}  # (shape, dtype) -> one plain tuple, shared by the nodes that have it
        self._edges = {}  # (input, target, nr) -> one Edge

    def node(self, node_id, node, index, names, forward, out_names, calls):
        cls = type(node).__name__
        edges, shared = [], self._edges
        for i, (n, nr) in enumerate(node.next_functions):
            key = (i, None if n is None else index[id(n)], nr)
            edge = shared.get(key)
            if edge is None:
                edge = shared[key] = Edge(*key)
            edges.append(edge)
        seq = _seq(node)
        rec = self.recorder
        if rec is not None:
            serial = rec._node_op.get(seq)
            op = rec._ops.get(serial) if serial is not None else None
            meta, main, freed_by = rec._node_meta.get(seq) or {}, seq in rec._main, rec._freed.get(seq)
        else:
            op, meta, main, freed_by = None, {}, False, None
        saved = tuple(self._saved(node, op, names, forward, meta, main))
        variable = node.variable if cls == "AccumulateGrad" else None
        leaf = self._leaf(variable, names, forward) if variable is not None else None
        module, module_call = (None, 0) if forward is None else \
            forward.modules.of_tensor(variable) if variable is not None else forward.modules.of_op(op)
        try:
            outputs = tuple([self._shape(tuple(m.shape), m.dtype) for m in node._input_metadata])
        except AttributeError:  # an older PyTorch: the outputs of the call that made the node
            outputs = self._call_outputs(op) if main and op is not None else ()
        except Exception:  # noqa: BLE001
            outputs = ()
        return BackwardNode(
            id=node_id, name=node.name(), type=cls, site=op.site if op is not None else None, sequence_nr=seq,
            edges=tuple(edges), saved=saved, outputs=outputs,
            freed_by=_call_info(freed_by, calls), leaf=leaf,
            output_names=tuple(out_names[nr] for nr in sorted(out_names)) if out_names else (),
            module=module, module_call=module_call, formulas=formula_texts(cls))  # gradviz's table, where it knows cls

    def _call_outputs(self, op):
        """A node's outputs as the recorder saw its call's results (those with a grad_fn),
        for a PyTorch without ``node._input_metadata``."""
        values = [self.recorder.value(serial) for serial in op.outputs]
        return tuple((v.shape, v.dtype) for v in values if v is not None and not v.is_leaf)

    def _shape(self, shape, dtype):
        key = (shape, dtype)
        plain = self._shapes.get(key)
        if plain is None:
            plain = self._shapes[key] = (shape, _dtype(dtype))
        return plain

    def _saved(self, node, op, names, forward, meta, main):
        key = (type(node), op.saved if op is not None and main else ())
        found = self._ordered.get(key)
        if found is None:
            origins = {slot: (is_out, i) for slot, is_out, i in key[1]}
            ordered = [(slot, attr, "_raw" + attr if attr != "saved_tensors" else None)
                       for slot, attr in sorted(self.slots(node), key=lambda s: _slot_order(s[0], origins))]
            found = self._ordered[key] = (ordered, origins)
        ordered, origins = found
        out = []
        for slot, attr, raw_attr in ordered:
            try:
                raw = getattr(node, raw_attr, None) if raw_attr is not None else None
            except RuntimeError:  # a list of saved tensors, freed: _slot_states says so
                raw = None
            if raw is not None and raw.__class__ is _SavedTensor and raw.unpack_hook is None:
                data = raw.data  # the common case, a saved tensor read in place: no list, no exception
                states = ((slot, "tensor", data),) if data is not None else _slot_states(node, slot, attr, meta)
            else:
                states = _slot_states(node, slot, attr, meta)
            for slot, state, value in states:
                if state == "undefined":
                    continue  # PyTorch shows None: nothing was saved
                shown = slot if attr == "saved_tensors" else attr
                if state == "value":
                    out.append(SavedInfo(slot, shown, "none") if value is None
                               else SavedInfo(slot, shown, "value", text=_short(value)))
                    continue
                value_id = tensor_name = None
                if slot in origins and forward is not None:
                    is_out, i = origins[slot]
                    serials = op.outputs if is_out else op.inputs
                    value_id, tensor_name = forward.describe(serials[i] if i < len(serials) else None)
                known = meta.get(slot) or _UNKNOWN
                known = _UNKNOWN if known is _PACKED else known
                is_output = origins[slot][0] if slot in origins else slot.startswith("result")
                if known is _RECOMPUTED or state == "recomputed":
                    out.append(SavedInfo(slot, shown, "freed" if state == "freed" else "tensor", is_output=is_output,
                                         tensor_name=tensor_name, value=value_id, recomputed=True))
                elif known[0] == "scalar":  # a Python number PyTorch saved as a 0-dim tensor
                    out.append(SavedInfo(slot, shown, "freed", (), known[1], is_output=False) if state == "freed"
                               else SavedInfo(slot, shown, "scalar", (), known[1], text=known[2]))
                elif state == "freed":
                    out.append(SavedInfo(slot, shown, "freed", known[0], known[1], known[2], None, is_output,
                                         tensor_name, value_id))
                elif state in ("packed", "modified"):  # modified: an older PyTorch will not unpack it
                    out.append(SavedInfo(slot, shown, "tensor", known[0], known[1], known[2], None, is_output,
                                         tensor_name, value_id, text="packed by a saved-tensor hook"
                                         if state == "packed" else "modified in place since it was saved"))
                elif not known[0] and slot not in origins and value.dim() == 0 and not value.requires_grad \
                        and not value.is_meta and _wrapped_number(value):
                    out.append(SavedInfo(slot, shown, "scalar", (), _dtype(value.dtype), text=_short(value.item())))
                else:
                    if tensor_name is None:
                        tensor_name = names.get(id(value))
                    version = value._version
                    shape, dtype = self._shape(tuple(value.shape), value.dtype)
                    out.append(SavedInfo(slot, shown, "tensor", shape, dtype, known[2] if known[2] is not None
                                         else version, version, is_output, tensor_name, value_id))
        return out

    def _leaf(self, t, names, forward):
        value_id = forward.value_id_of_tensor(t) if forward is not None else None
        return LeafInfo(name=names.get(id(t)), shape=tuple(t.shape), dtype=_dtype(t.dtype),
                        requires_grad=bool(t.requires_grad), version=int(t._version), grad=grad_info(t), value=value_id)


_UNKNOWN = (None, None, None)
_RECOMPUTED = ("recomputed", None, None)  # a slot torch.utils.checkpoint's hooks hold
_PACKED = ("packed", None, None)  # a slot other saved-tensor hooks hold
_SavedTensor = None  # torch._C._autograd.SavedTensor, once PyTorch is imported


class _SlotCache:
    def __init__(self):
        self._slots = {}

    def slots_of(self, node):
        return TorchRecorder.slots_of(self, node)


def _slot_order(slot, origins):
    """Inputs in argument order (self, other), then results, then options: the engine's order."""
    if slot in origins and not origins[slot][0]:
        return (0, origins[slot][1], slot)
    if slot in ("self", "other", "input", "mat1", "mat2", "weight", "bias"):
        return (0, ("self", "input", "other", "mat1", "mat2", "weight", "bias").index(slot), slot)
    if slot.startswith("result"):
        return (1, 0, slot)
    return (2, 0, slot)


def _wrapped_number(t) -> bool:
    """A Python number PyTorch saved as a 0-dim tensor (``x * 2.0``'s other)."""
    return str(t.dtype) in ("torch.float64", "torch.int64", "torch.complex128", "torch.bool") and _grad_fn(t) is None


def _short(value, limit=40):
    text = repr(value)
    if "tensor(" in text:
        text = text.replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _root(spec, names, index, forward):
    t, node, nr = spec
    node_id = index[id(node)] if node is not None else None
    if t is not None:
        value_id = forward.value_id_of_tensor(t) if forward is not None else None
        name = names.get(id(t))
        if name is None and value_id is not None:
            name = forward.values[int(value_id[1:])].name
        return Root(name, node_id, nr, tuple(t.shape), _dtype(t.dtype), bool(t.requires_grad), value_id)
    shape = dtype = None
    if node is not None:
        try:
            meta = node._input_metadata[nr]
            shape, dtype = tuple(meta.shape), _dtype(meta.dtype)
        except Exception:  # noqa: BLE001
            pass
    value_id = forward.value_id_of_output(node, nr) if forward is not None and node is not None else None
    value = forward.values[int(value_id[1:])] if value_id is not None else None
    if value is not None and shape is None:  # an older PyTorch, without node._input_metadata
        shape, dtype = value.shape, value.dtype
    return Root(value.name if value is not None else None, node_id, nr, shape, dtype, node is not None, value_id)
