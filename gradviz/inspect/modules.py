"""Which ``nn.Module`` call is running: module structure for the snapshot, on both engines.

A ``ModuleTracker`` registers PyTorch's hooks common to all modules
(``torch.nn.modules.module.register_module_forward_pre_hook`` / ``..._forward_hook``, the
same API on gradviz's engine and on real PyTorch, so one code path) and keeps a stack of
the module calls running. The recorders ask ``current()`` for every op they record.

Paths: a module called with nothing on the stack is a *root*, named after the user's
variable that holds it (the calling frames' locals, then globals, or an attribute or
key of a plain object there: ``state.model``, ``models["gpt"]``), else its class name;
below it, ``root.named_modules()`` names (``model.transformer.h.3.attn``), computed once
per root. A module called outside its root's hierarchy is ``caller_path.attribute`` (or
its class name), best effort. Parameters and buffers are mapped to their owning module
(``owner``) and to their path (``model.fc1.weight``), which name leaves the script's
namespace does not (a model local to ``main()``).

Nothing here keeps a model alive: modules and parameters are held by weak references,
records by id checked against them. Watching must never break the program watched: an
exception inside a hook goes to ``errors`` (or the ``on_error`` callback).
"""
import os
import sys
import threading
import types
import weakref

from .model import ModuleInfo

MAX_FRAMES = 16  # calling frames searched for a root module's variable name
MAX_REMAPS = 4  # a root's named_modules() recomputed at most this often (its tree changed)


class ModuleRec:
    """One module seen by the tracker (called, or owning a parameter of the snapshot)."""
    __slots__ = ("path", "type", "calls", "parent", "order", "key", "ref", "__weakref__")

    def __init__(self, path, type_name, parent, order, module=None):
        self.path = path
        self.type = type_name
        self.calls = 0
        self.parent = parent  # the ModuleRec whose call ran its first call; None: a root
        self.order = order  # sort key: first call first, parents before children
        self.key = id(module) if module is not None else None
        self.ref = _weakref(module)


def _weakref(obj):
    if obj is None:
        return None
    try:
        return weakref.ref(obj)
    except TypeError:  # an object that cannot be weakly referenced: never matched again
        return None


class _Root:
    """A root module's names, computed once: {id(submodule): name}, {id(tensor): (owner name,
    tensor name, weakref)} for its parameters and buffers."""
    __slots__ = ("ref", "path", "subs", "tensors", "remaps")

    def __init__(self, module, path):
        self.ref = _weakref(module)
        self.path = path
        self.remaps = 0
        self.map(module)

    def map(self, module):
        self.subs, self.tensors = {}, {}
        for name, sub in module.named_modules():
            self.subs.setdefault(id(sub), name)
            for kind in ("_parameters", "_buffers"):
                for tname, t in (getattr(sub, kind, None) or {}).items():
                    if t is not None and id(t) not in self.tensors:
                        self.tensors[id(t)] = (name, tname, _weakref(t), type(sub).__name__)

    def full(self, name):
        return self.path + "." + name if name else self.path


class ModuleTracker:
    """The stack of module calls running in the thread that started it; see the module doc.

    torch: the torch module in use (``gradviz.torch`` or the real ``torch``).
    """

    MAX_ERRORS = 20

    def __init__(self, torch, on_error=None):
        self.torch = torch
        self.on_error = on_error
        self.errors = []
        self._stack = []  # [(ModuleRec, call number)]
        self._recs = {}  # id(module) -> ModuleRec (checked against rec.ref)
        self._paths = {}  # path -> ModuleRec
        self._roots = {}  # id(root module) -> _Root
        self._tensors = {}  # id(parameter or buffer) -> _Root that names it
        self._handles = ()
        self._thread = None
        self._order = 0
        self._skip = _internal_dirs(torch)
        self.on_call = None  # optional fn(path, module, args) as each module call starts (inspect.memory)

    # -- starting and stopping ----------------------------------------------------------
    def start(self):
        if self._handles:
            return self
        hooks = self.torch.nn.modules.module
        self._thread = threading.get_ident()
        del self._stack[:]
        pre = hooks.register_module_forward_pre_hook(self._pre)
        try:
            post = hooks.register_module_forward_hook(self._post, always_call=True)
        except TypeError:  # PyTorch 2.0 has no always_call: a call that raised is dropped by _post later
            post = hooks.register_module_forward_hook(self._post)
        self._handles = (pre, post)
        return self

    def stop(self):
        handles, self._handles = self._handles, ()
        for h in handles:
            h.remove()
        del self._stack[:]

    # -- the hooks -----------------------------------------------------------------------
    def _pre(self, module, args):
        if threading.get_ident() != self._thread:
            return None
        try:
            rec = self._rec_of(module)
            rec.calls += 1
            self._stack.append((rec, rec.calls))
            if self.on_call is not None:
                self.on_call(rec.path, module, args)
        except Exception as e:  # noqa: BLE001 - see the module doc
            self._error(e)
        return None

    def _post(self, module, args, output):
        stack = self._stack
        if not stack or threading.get_ident() != self._thread:
            return None
        key = id(module)
        for i in range(len(stack) - 1, -1, -1):  # the top, unless a hook before ours raised
            if stack[i][0].key == key:
                del stack[i:]
                break
        return None

    def _error(self, e):
        if self.on_error is not None:
            self.on_error("module tracker", e)
        elif len(self.errors) < self.MAX_ERRORS:
            self.errors.append(f"module tracker: {type(e).__name__}: {e}")

    # -- queries -------------------------------------------------------------------------
    def current(self):
        """(ModuleRec, call number) of the innermost module call running, or None."""
        stack = self._stack
        if stack and threading.get_ident() == self._thread:
            return stack[-1]
        return None

    def tensor_path(self, t):
        """(owner ModuleRec, 'model.fc1.weight') of a parameter or buffer of a module tree
        called while tracking, else None."""
        root = self._tensors.get(id(t))
        if root is None:
            return None
        found = root.tensors.get(id(t))
        if found is None or found[2] is None or found[2]() is not t or root.ref() is None:
            return None
        owner_name, tname, _, type_name = found
        return self._owner(root.full(owner_name), type_name), root.full(owner_name) + "." + tname

    def tensor_names(self):
        """{id(tensor): path} of every live parameter and buffer of the trees seen."""
        out = {}
        for tid, root in list(self._tensors.items()):
            found = root.tensors.get(tid)
            if found is not None and found[2] is not None and found[2]() is not None:
                out[tid] = root.full(found[0]) + "." + found[1]
        return out

    # -- records -------------------------------------------------------------------------
    def _rec_of(self, module):
        rec = self._recs.get(id(module))
        if rec is not None and rec.ref is not None and rec.ref() is module:
            return rec
        parent = self._stack[-1][0] if self._stack else None
        path = self._path_of(module, parent)
        self._order += 1
        rec = ModuleRec(self._unique(path, module), type(module).__name__, parent, (self._order, 0, ""), module)
        if len(self._recs) > 4096 and len(self._recs) > 2 * len(self._paths):
            self._prune()
        self._recs[id(module)] = rec
        self._paths[rec.path] = rec
        return rec

    def _path_of(self, module, parent):
        if parent is None:
            return self._root(module).path
        root = self._root_of(parent)
        if root is not None:
            name = root.subs.get(id(module))
            if name is None and root.remaps < MAX_REMAPS and root.ref() is not None:
                root.remaps += 1  # the tree changed since it was mapped (a module added later)
                root.map(root.ref())
                self._index_tensors(root)
                name = root.subs.get(id(module))
            if name is not None:
                return root.full(name)
        caller = parent.ref() if parent.ref is not None else None
        attr = next((k for k, v in (getattr(caller, "__dict__", None) or {}).items() if v is module), None)
        return parent.path + "." + (attr or type(module).__name__)

    def _root_of(self, rec):
        """The _Root whose tree holds ``rec``'s module: walk its callers up to a root."""
        while rec is not None:
            if rec.parent is None:
                return self._roots.get(rec.key)
            rec = rec.parent
        return None

    def _root(self, module):
        root = self._roots.get(id(module))
        if root is not None and root.ref is not None and root.ref() is module:
            return root
        root = self._roots[id(module)] = _Root(module, self._unique(self._root_name(module), module))
        self._index_tensors(root)
        return root

    def _root_name(self, module):
        """The user's variable holding ``module``, else its path in a module tree the user
        holds (``model.fc1`` called on its own), else its class name."""
        name, holders = self._variable_name(module)
        if name is not None:
            return name
        for held_name, holder in holders:  # map the trees the user holds; their tensors get names too
            if id(holder) not in self._roots:
                root = self._roots[id(holder)] = _Root(holder, self._unique(held_name, holder))
                self._index_tensors(root)
        for root in list(self._roots.values()):
            sub = root.subs.get(id(module))
            if sub and root.ref is not None and root.ref() is not None:
                return root.full(sub)
        return type(module).__name__

    def _index_tensors(self, root):
        for tid in root.tensors:
            held = self._tensors.get(tid)
            if held is None or not self._still_names(held, tid):
                # an id freed by a dead tensor and reused by this one: the new tree names it
                self._tensors[tid] = root

    @staticmethod
    def _still_names(root, tid):
        """Whether ``root`` still holds the live tensor whose id is ``tid``."""
        found = root.tensors.get(tid)
        return found is not None and found[2] is not None and found[2]() is not None and root.ref() is not None

    def _unique(self, path, module):
        """``path``, or ``path#2`` ... when another live module already has it."""
        k, candidate = 1, path
        while True:
            rec = self._paths.get(candidate)
            if rec is None or rec.ref is None or rec.ref() is None or rec.ref() is module:
                return candidate
            k += 1
            candidate = f"{path}#{k}"

    def _owner(self, path, type_name):
        """The ModuleRec of a parameter's owner, made (with no call) when it was never called."""
        rec = self._paths.get(path)
        if rec is not None:
            return rec
        parent, cut = None, path
        while parent is None and "." in cut:
            cut = cut.rsplit(".", 1)[0]
            parent = self._paths.get(cut)
        rec = ModuleRec(path, type_name, parent, (parent.order[0], 1, path) if parent is not None else (0, 1, path))
        self._paths[path] = rec
        return rec

    def _prune(self):
        self._recs = {k: r for k, r in self._recs.items() if r.ref is not None and r.ref() is not None}
        self._roots = {k: r for k, r in self._roots.items() if r.ref is not None and r.ref() is not None}
        live = set(map(id, self._roots.values()))
        self._tensors = {k: r for k, r in self._tensors.items() if id(r) in live}

    def _variable_name(self, module):
        """(the user's variable holding ``module``, [other modules the user holds]): the
        first MAX_FRAMES calling frames outside torch and gradviz, locals then globals."""
        Module = self.torch.nn.Module
        holders = []
        frame, looked = sys._getframe(1), 0
        while frame is not None and looked < MAX_FRAMES:
            filename = frame.f_code.co_filename
            if not filename.startswith(self._skip) and not filename.startswith("<frozen"):
                looked += 1
                inside = []  # (name, object) of plain holders: a dataclass, a dict of models
                for scope in (frame.f_locals, frame.f_globals):
                    for name, value in list(scope.items()):
                        if name == "self" or not isinstance(name, str) or not name.isidentifier():
                            continue
                        if value is module:
                            return name, ()
                        if isinstance(value, Module):
                            if len(holders) < MAX_FRAMES:
                                holders.append((name, value))
                        elif len(inside) < MAX_HOLDERS and _may_hold_modules(value):
                            inside.append((name, value))
                for name, value in inside:
                    found = _held_in(value, module)
                    if found is not None:
                        return name + found, ()
            frame = frame.f_back
        return None, holders


MAX_HOLDERS = 64  # plain objects per frame looked into for a model (cfg.model, models["gpt"])


def _may_hold_modules(value):
    """A dict, or an instance of a plain class (a dataclass, a config): not a module, a
    class, a function or a builtin."""
    if isinstance(value, dict):
        return True
    return hasattr(value, "__dict__") and not isinstance(value, (type, types.ModuleType, types.FunctionType,
                                                                 types.MethodType))


def _held_in(holder, module):
    """``.attr`` or ``["key"]`` where ``holder`` holds ``module`` directly, else None."""
    if isinstance(holder, dict):
        items = ((f"[{k!r}]", v) for k, v in list(holder.items())[:MAX_HOLDERS] if isinstance(k, (str, int)))
    else:
        items = ((f".{k}", v) for k, v in list(vars(holder).items())[:MAX_HOLDERS]
                 if isinstance(k, str) and k.isidentifier() and not k.startswith("_"))
    for suffix, value in items:
        if value is module:
            return suffix
    return None


def module_infos(recs) -> tuple:
    """ModuleInfos of ``recs`` and of their ancestors, in the order of their first call,
    parents first (no recursion: a loop up each chain)."""
    seen = {}
    for rec in recs:
        while rec is not None and id(rec) not in seen:
            seen[id(rec)] = rec
            rec = rec.parent
    ordered = sorted(seen.values(), key=lambda r: r.order)
    return tuple(ModuleInfo(r.path, r.type, r.calls, r.parent.path if r.parent is not None else None)
                 for r in ordered)


def _internal_dirs(torch):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    engine = os.path.dirname(os.path.abspath(getattr(torch, "__file__", "") or here)) + os.sep
    return (here, engine)


class SnapshotModules:
    """The modules one snapshot names, gathered while its ops and nodes are built."""

    def __init__(self, tracker):
        self.tracker = tracker
        self._recs = {}

    def of_op(self, op):
        """(path, call) of the module call that ran a recorded op; (None, 0) outside any."""
        rec = getattr(op, "module", None) if op is not None else None
        if rec is None:
            return None, 0
        self._recs[id(rec)] = rec
        return rec.path, op.module_call

    def of_tensor(self, t):
        """(owner path, 0) of a parameter or buffer (an AccumulateGrad's variable)."""
        found = self.tracker.tensor_path(t) if self.tracker is not None and t is not None else None
        if found is None:
            return None, 0
        self._recs[id(found[0])] = found[0]
        return found[0].path, 0

    def infos(self) -> tuple:
        return module_infos(self._recs.values())


def tensor_names(recorder, names: dict) -> dict:
    """``names`` ({id(tensor): name}) plus the module paths of the parameters and buffers the
    recorder's tracker knows, for those ``names`` does not name (a model local to main())."""
    tracker = getattr(recorder, "tracker", None)
    if tracker is None:
        return names
    out = dict(tracker.tensor_names())
    out.update(names)
    return out
