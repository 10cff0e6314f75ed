"""Real PyTorch as a source of snapshots (``--engine torch``): the user's real model, drawn
from the same plain ``GraphSnapshot`` the renderers read for gradviz's own engine.

Two pieces, in the roles ``Recorder`` and ``snapshot`` play for the engine:

- ``TorchRecorder`` watches a run through PyTorch's own extension point, a
  ``TorchFunctionMode``: every torch-level call (``linear``, ``mul``, ``Tensor.backward``,
  ``torch.autograd.grad`` ...) with its arguments, result and the user's line. The
  grad_fn nodes a call creates are tied to it by a small mark in ``node.metadata``,
  which lives exactly as long as the node (a node cannot be weakly referenced, and
  its Python wrapper comes and goes): when the graph dies, the mark's weakref
  callback prunes the call's record. What each node saved is read as the call returns,
  so a slot that a backward frees later still has its shape. Around every backward
  call, the nodes whose buffers it freed are marked with the call.
- ``snapshot(roots, names, recorder)`` walks a real graph (``next_functions``, with an
  explicit stack), reads node names, edges, saved slots (``_saved_*``; freed ones from
  ``_raw_saved_*``), leaves (``AccumulateGrad.variable``) and output metadata, and
  names the forward values as the engine's snapshot does (the same ``_Forward``).

PyTorch is imported only here, and only when one of these runs.
"""
import os
import sys
import weakref

from .model import BackwardCallInfo, BackwardNode, Edge, GradInfo, GraphSnapshot, LeafInfo, Root, SavedInfo
from .recorder import OpRec, ValueRec

MIN_VERSION = (2, 0)
KEY = "gradviz"  # our entry in node.metadata


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
    return torch


def _is_gradviz_alias(module) -> bool:
    return module is not None and getattr(module, "__name__", "").startswith("gradviz.")


# --------------------------------------------------------------------------- recording


class _Mark:
    """Our note on a node (in ``node.metadata``): the call that made it, what it saved
    (``meta``: each slot's (shape, dtype, version) as saved, ``None`` for an undefined
    one, ``("scalar", dtype, text)`` for a Python number), the backward that freed its
    buffers. Its death tells us the node's."""

    __slots__ = ("op", "meta", "main", "freed_by", "__weakref__")

    def __init__(self, op, meta=None, main=False):
        self.op = op
        self.meta = meta or {}
        self.main = main  # the node of the call's output (composites make inner ones too)
        self.freed_by = None


class TorchRecorder:
    """Records a real PyTorch run; the same interface ``snapshot`` and ``Watch`` use of ``Recorder``.

    on_backward: ``fn(phase, roots, call)`` around every backward / autograd.grad call.
    capture: ``fn() -> names``; when given, each backward call's graph is snapshotted as the
    call returns (its freed buffers marked), the last ``keep`` in ``captures``.
    sites: how snapshots name places in the user's code (see ``snapshot``).
    Watching never breaks the program: errors of the recorder go to ``errors``.
    """

    MAX_ERRORS = 20

    def __init__(self, on_backward=None, capture=None, keep=1, sites=None):
        self.torch = import_torch()
        self.callback, self.capture, self.keep, self.sites = on_backward, capture, keep, sites
        self.captures = []
        self.errors = []
        self._ops = {}  # serial -> OpRec
        self._values = {}  # serial -> ValueRec
        self._tensors = {}  # id(tensor) -> ValueRec, its latest value
        self._mark_ops = {}  # weakref(mark) -> op serial
        self._dead = []
        self._on_dead = self._dead.append
        self._serial = 0
        self._calls = []  # BackwardCallInfo, in order
        self._walked = {}  # op serial -> node, while a snapshot walks
        self._mode = None
        self._slots = {}  # node type -> its saved slot names
        self._skip = _internal_dirs(self.torch)

    def __enter__(self):
        self._mode = _mode_class(self.torch)(self)
        self._mode.__enter__()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        mode, self._mode = self._mode, None
        if mode is not None:
            mode.__exit__(None, None, None)

    def _error(self, where, e):
        if len(self.errors) < self.MAX_ERRORS:
            self.errors.append(f"{where}: {type(e).__name__}: {e}")

    # -- calls -------------------------------------------------------------------------
    def on_call(self, func, args, kwargs, out):
        try:
            self._on_call(func, args, kwargs, out)
        except Exception as e:  # noqa: BLE001 - see the class docstring
            self._error("on_call", e)

    def _on_call(self, func, args, kwargs, out):
        if self._dead:
            self._prune()
        Tensor = self.torch.Tensor
        outs = [t for t in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(t, Tensor)]
        made = [t for t in outs if _grad_fn(t) is not None]
        if not made:
            return
        new_nodes = self._new_nodes([_grad_fn(t) for t in made])
        if not new_nodes:
            return
        inputs = _flat_inputs(func, args, kwargs, Tensor)
        in_vals = []
        for x in inputs:
            rec = self._value_for_input(x, Tensor)
            if rec is not None:
                in_vals.append((x, rec))
        inplace = any(o is x for o in outs for x, _ in in_vals)
        out_vals = [self._new_value(t, self._known(t)) for t in outs]
        node = _grad_fn(made[0])
        serial = self._next()
        name = _op_name(func, inplace)
        saved, meta = self._saved_of(node, in_vals, outs)
        op = OpRec(serial, None, name, type(node).__name__, tuple(r.serial for _, r in in_vals),
                   tuple(v.serial for v in out_vals), self._site(), saved, False)
        for _, v in in_vals:
            v.users += 1
        for v in out_vals:
            v.users += 1
            v.producer = serial
        self._ops[serial] = op
        for n in new_nodes:  # a composite call (multi_head_attention_forward) makes many
            mark = _Mark(serial, meta, True) if n is node else _Mark(serial, self._saved_of(n, (), ())[1])
            n.metadata[KEY] = mark
            self._mark_ops[weakref.ref(mark, self._on_dead)] = serial

    def _new_nodes(self, starts):
        """The nodes this call created: back from its outputs to nodes already marked."""
        found, seen, stack = [], set(), list(starts)
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if type(node).__name__ == "AccumulateGrad" or KEY in node.metadata:
                continue
            found.append(node)
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
                if state != "tensor":
                    continue
                index = next((k for k, (x, _) in enumerate(in_vals) if x is value), None)
                nr = None if index is not None else next((k for k, o in enumerate(outs) if _same_data(o, value)),
                                                         None)
                if index is None and nr is None and value.dim() == 0 and _wrapped_number(value):
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
        frame = sys._getframe(1)
        while frame is not None:
            name = frame.f_code.co_filename
            if not name.startswith(self._skip) and not name.startswith("<frozen"):
                return (name, frame.f_lineno)
            frame = frame.f_back
        return None

    # -- backward calls ------------------------------------------------------------------
    def run_backward(self, how, func, args, kwargs):
        """Run a backward call (``how``: 'tensor.backward', 'backward', 'autograd.grad'), then
        mark what it freed and take its snapshot."""
        edges = self._root_edges(how, args, kwargs)
        info = BackwardCallInfo(len(self._calls) + 1, "autograd.grad" if how == "autograd.grad" else "backward",
                                self._site())
        self._calls.append(info)
        self._notify("start", edges, info)
        try:
            return func(*args, **kwargs)
        finally:
            try:
                self._attribute_freed(edges, info)
                roots = [e for e in edges if e[0] is not None]
                if self.capture is not None and roots:  # no graph at all: the call raised at once
                    snap = snapshot(roots, self.capture(), self)
                    site = self.sites(info.site) if self.sites is not None and info.site else info.site
                    self.captures.append((BackwardCallInfo(info.index, info.kind, site), snap))
                    del self.captures[:-self.keep or None]
            except Exception as e:  # noqa: BLE001
                self._error("on_backward", e)
            self._notify("end", edges, info)

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
            mark = node.metadata.get(KEY)
            if (mark is None or mark.freed_by is None) and _any_freed(node, self.slots_of(node)):
                if mark is None:
                    mark = node.metadata[KEY] = _Mark(None)
                mark.freed_by = info
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

    def _prune(self):
        dead = self._dead[:]
        del self._dead[:len(dead)]
        for ref in dead:
            serial = self._mark_ops.pop(ref, None)
            op = self._ops.pop(serial, None) if serial is not None else None
            if op is None:
                continue
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
        if len(self._tensors) > 2 * len(self._values) + 64:
            self._tensors = {k: v for k, v in self._tensors.items() if v.serial in self._values}

    # -- what snapshot and _Forward ask -----------------------------------------------------
    def op_for_node(self, node):
        mark = node.metadata.get(KEY) if node is not None else None
        return self._ops.get(mark.op) if mark is not None and mark.op is not None else None

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
        if self._dead:
            self._prune()
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
        if self._dead:
            self._prune()
        return len(self._ops)


_MODES = {}


def _mode_class(torch):
    """The TorchFunctionMode subclass, made once PyTorch is imported."""
    cls = _MODES.get(id(torch))
    if cls is not None:
        return cls
    from torch.overrides import TorchFunctionMode

    backward_kinds = {torch.Tensor.backward: "tensor.backward", torch.autograd.backward: "backward",
                      torch.autograd.grad: "autograd.grad"}

    class _Mode(TorchFunctionMode):
        def __init__(self, recorder):
            super().__init__()
            self.recorder = recorder

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            kind = backward_kinds.get(func) or _backward_kind(func)
            if kind is not None:
                return self.recorder.run_backward(kind, func, args, kwargs)
            out = func(*args, **kwargs)
            self.recorder.on_call(func, args, kwargs, out)
            return out

    _MODES[id(torch)] = _Mode
    return _Mode


def _backward_kind(func):
    """``backward`` / ``grad`` patched by --retain-graph are still backward calls."""
    name, module = getattr(func, "__name__", ""), getattr(func, "__module__", "") or ""
    if module.startswith("torch.autograd") or module.startswith("gradviz"):
        if name == "backward":
            return "backward"
        if name == "grad":
            return "autograd.grad"
    return None


def _internal_dirs(torch):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return (os.path.dirname(os.path.abspath(torch.__file__)) + os.sep, here + os.sep)


_ARITHMETIC = {"add", "sub", "mul", "div", "pow", "rsub", "matmul", "true_divide", "multiply", "subtract",
               "divide", "remainder", "fmod", "floor_divide", "maximum", "minimum", "atan2"}


def _flat_inputs(func, args, kwargs, Tensor):
    """The call's operands: its tensors (those in a list too: cat, stack), and the Python
    numbers of arithmetic (``x * 2``), not options such as ``dim=1``."""
    arithmetic = _op_name(func, False).rstrip("_") in _ARITHMETIC
    out = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor) or (arithmetic and isinstance(a, (int, float, complex)) and not isinstance(a, bool)):
            out.append(a)
        elif isinstance(a, (list, tuple)) and a and all(isinstance(x, Tensor) for x in a):
            out.extend(a)
    return out


def _op_name(func, inplace):
    """'mul' for Tensor.__mul__, 'add_' for __iadd__, 'linear' for F.linear."""
    name = getattr(func, "__name__", None) or str(func)
    if name.startswith("__") and name.endswith("__"):
        name = name[2:-2]
        if name.startswith("i") and name[1:] in ("add", "sub", "mul", "truediv", "matmul", "pow", "and", "or"):
            name = name[1:] + "_"
        elif name.startswith("r") and name[1:] in ("add", "mul", "truediv", "matmul", "pow"):
            name = name[1:]
    name = {"truediv": "div", "truediv_": "div_", "getitem": "index"}.get(name, name)
    if inplace and not name.endswith("_"):
        name += "_"
    return name


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
        return [(f"saved_tensors[{k}]",) + _raw_state(node, attr, raw) for k, raw in enumerate(raws)]
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
    return [(slot,) + _raw_state(node, attr, raw)]


def _raw_state(node, attr, raw):
    if raw.unpack_hook is not None:
        return "packed", None
    data = raw.data
    if data is not None:
        return "tensor", data
    try:  # an undefined slot reads None; a freed one raises
        getattr(node, attr)
    except RuntimeError:
        return "freed", None
    return "undefined", None


def _any_freed(node, slots) -> bool:
    return any(state == "freed" for slot, attr in slots for _, state, _ in _slot_states(node, slot, attr))


def _grad_fn(t):
    """``t.grad_fn``, which raises for a view made under no_grad whose base changed in place."""
    try:
        return t.grad_fn
    except RuntimeError:
        return None


def _dtype(dtype) -> str:
    return str(dtype).replace("torch.", "")


def grad_info(t):
    try:
        g = t.grad if t.is_leaf or getattr(t, "retains_grad", False) else None
    except RuntimeError:  # a view made under no_grad whose base changed in place: no reading it
        return None
    if g is None:
        return None
    d = g.detach()
    if d.is_complex() or not d.is_floating_point():
        d = d.double() if not d.is_complex() else d.abs().double()
    norm = float(d.norm()) if d.numel() else 0.0
    has_nan = bool(d.isnan().any()) if d.is_floating_point() else False
    return GradInfo(tuple(g.shape), _dtype(g.dtype), norm, has_nan)


# --------------------------------------------------------------------------- the snapshot


def is_torch_object(x) -> bool:
    """A real torch tensor, grad_fn node, GradientEdge, or a (node, nr) pair of them."""
    real = _real_torch()
    if real is None:
        return False
    if isinstance(x, (list, tuple)) and not (len(x) == 2 and isinstance(x[1], int)):
        return bool(x) and all(is_torch_object(r) for r in x)
    if isinstance(x, real.Tensor):
        return True
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], int):
        return x[0] is not None and _is_real_node(x[0])
    return _is_real_node(x) or (hasattr(x, "node") and hasattr(x, "output_nr") and _is_real_node(x.node))


def _real_torch():
    """The real torch module, if the process has imported it."""
    mod = sys.modules.get("torch")
    return mod if mod is not None and not _is_gradviz_alias(mod) else None


def _is_real_node(x) -> bool:
    return hasattr(x, "next_functions") and hasattr(x, "metadata") and not hasattr(x, "saved_items")


def snapshot(roots, names=None, recorder=None, sites=None) -> GraphSnapshot:
    """The snapshot of a real PyTorch graph: the same plain data as the engine's."""
    from .snapshot import _Forward, relabel_sites

    torch = _real_torch() or import_torch()
    names = _names(names, torch)
    many = isinstance(roots, list) or (isinstance(roots, tuple) and not (len(roots) == 2 and isinstance(roots[1], int)))
    specs = [_root_spec(r, torch) for r in (roots if many else [roots])]
    order, index = _walk([s[1] for s in specs if s[1] is not None])
    reader = _Reader(recorder, torch)
    forward = None
    try:
        if recorder is not None:
            recorder._walked = {m.op: n for n in order for m in [n.metadata.get(KEY)]
                                if m is not None and m.op is not None}
            forward = _Forward(recorder, names, order, index, specs)
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
                         notes=tuple(notes))
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


def _walk(roots):
    """Depth-first preorder over next_functions with an explicit stack, as the engine's walk."""
    order, index = [], {}
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if id(node) in index:
            continue
        index[id(node)] = f"n{len(order)}"
        order.append(node)
        nexts = node.next_functions
        for i in range(len(nexts) - 1, -1, -1):
            nxt = nexts[i][0]
            if nxt is not None and id(nxt) not in index:
                stack.append(nxt)
    return order, index


class _Reader:
    """Reads one real node into a BackwardNode."""

    def __init__(self, recorder, torch):
        self.recorder = recorder
        self.torch = torch
        self.slots = recorder.slots_of if recorder is not None else _SlotCache().slots_of

    def node(self, node_id, node, index, names, forward, out_names, calls):
        from .snapshot import _call_info

        cls = type(node).__name__
        edges = tuple(Edge(i, None if n is None else index[id(n)], nr) for i, (n, nr) in enumerate(node.next_functions))
        mark = node.metadata.get(KEY)
        op = self.recorder.op_for_node(node) if self.recorder is not None else None
        saved = tuple(self._saved(node, op, names, forward))
        leaf = self._leaf(node.variable, names, forward) if cls == "AccumulateGrad" else None
        try:
            outputs = tuple((tuple(m.shape), _dtype(m.dtype)) for m in node._input_metadata)
        except Exception:  # noqa: BLE001
            outputs = ()
        try:
            seq = int(node._sequence_nr())
        except Exception:  # noqa: BLE001
            seq = -1
        return BackwardNode(
            id=node_id, name=node.name(), type=cls, site=op.site if op is not None else None, sequence_nr=seq,
            edges=edges, saved=saved, outputs=outputs,
            freed_by=_call_info(mark.freed_by if mark is not None else None, calls), leaf=leaf,
            output_names=tuple(out_names[nr] for nr in sorted(out_names)) if out_names else ())

    def _saved(self, node, op, names, forward):
        mark = node.metadata.get(KEY)
        origins = ({slot: (is_out, i) for slot, is_out, i in op.saved}
                   if op is not None and mark is not None and mark.main else {})
        meta = mark.meta if mark is not None else {}
        for slot, attr in sorted(self.slots(node), key=lambda s: _slot_order(s[0], origins)):
            for slot, state, value in _slot_states(node, slot, attr, meta):
                if state == "undefined":
                    continue  # PyTorch shows None: nothing was saved
                shown = slot if attr == "saved_tensors" else attr
                if state == "value":
                    yield (SavedInfo(slot, shown, "none") if value is None
                           else SavedInfo(slot, shown, "value", text=_short(value)))
                    continue
                value_id = tensor_name = None
                if slot in origins and forward is not None:
                    is_out, i = origins[slot]
                    serials = op.outputs if is_out else op.inputs
                    value_id, tensor_name = forward.describe(serials[i] if i < len(serials) else None)
                known = meta.get(slot) or (None, None, None)
                is_output = origins[slot][0] if slot in origins else slot.startswith("result")
                if known[0] == "scalar":  # a Python number PyTorch saved as a 0-dim tensor
                    if state == "freed":
                        yield SavedInfo(slot, shown, "freed", (), known[1], is_output=False)
                    else:
                        yield SavedInfo(slot, shown, "scalar", (), known[1], text=known[2])
                    continue
                if state == "freed":
                    yield SavedInfo(slot, shown, "freed", known[0], known[1], known[2], None, is_output, tensor_name,
                                    value_id)
                    continue
                if state == "packed":
                    yield SavedInfo(slot, shown, "tensor", known[0], known[1], known[2], None, is_output, tensor_name,
                                    value_id, text="packed by a saved-tensor hook")
                    continue
                if value.dim() == 0 and not value.requires_grad and slot not in origins and not known[0] \
                        and _wrapped_number(value):
                    yield SavedInfo(slot, shown, "scalar", (), _dtype(value.dtype), text=_short(value.item()))
                    continue
                if tensor_name is None:
                    tensor_name = names.get(id(value))
                saved_version = known[2] if known[2] is not None else int(value._version)
                yield SavedInfo(slot, shown, "tensor", tuple(value.shape), _dtype(value.dtype), saved_version,
                                int(value._version), is_output, tensor_name, value_id)

    def _leaf(self, t, names, forward):
        value_id = forward.value_id_of_tensor(t) if forward is not None else None
        return LeafInfo(name=names.get(id(t)), shape=tuple(t.shape), dtype=_dtype(t.dtype),
                        requires_grad=bool(t.requires_grad), version=int(t._version), grad=grad_info(t), value=value_id)


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
    name = forward.values[int(value_id[1:])].name if value_id is not None else None
    return Root(name, node_id, nr, shape, dtype, node is not None, value_id)
