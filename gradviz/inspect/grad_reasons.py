"""Why a tensor that should have a gradient has none, or an all-zero one.

``Reach`` watches a run's backward calls, on either engine, and keeps the leaves each
reached (a walk of its graph as it starts: the ``AccumulateGrad`` nodes' variables).
After the run, ``reasons`` looks at each named tensor and gives the first that applies:

- ``frozen``: a module's parameter with ``requires_grad=False``;
- ``not-leaf``: a non-leaf, which keeps no ``.grad`` without ``retain_grad()``;
- ``autograd.grad``: reached only by ``torch.autograd.grad``, which returns gradients;
- ``unused``: on no path to the root of any backward call, nor in any graph the run kept;
- ``detached``: its path was cut by ``detach``, ``.data``, ``.item``, a NumPy round trip,
  or read by an op under the user's ``no_grad`` / ``inference_mode`` (the line named); or
  it is in a graph the run kept, which never reached a backward call (the graph's end
  named, with its line);
- ``reset``: reached by a backward, and its ``.grad`` set to None since (``zero_grad``);
- ``raised``: only a backward call that raised before reaching it would have;
- ``zero``: the gradient reached it and is all zero; where every path to it from the root
  ran through a node that passes no gradient (a ReLU whose output is all zero, a product
  with an all-zero factor), that node is named, with its line.
"""
import os

from .engines import grad_of
from .walk import walk


class Reach:
    """Context manager watching the backward calls of a run on ``engine`` (gradviz's
    module or PyTorch's): ``reached`` and ``by_grad`` are the ids of the leaves reached by
    ``backward`` and by ``autograd.grad`` calls."""

    def __init__(self, engine, real):
        self.engine, self.real = engine, real
        self.internal = (_GRADVIZ_DIR,) + ((os.path.dirname(engine.__file__) + os.sep,) if real else ())
        self.reached, self.by_grad = set(), set()
        self.calls = 0  # backward and autograd.grad calls seen
        self.cuts = {}  # id(leaf) -> (how its path was cut, (file, line)): detach, .data, .item ...
        self._cut_at = set()  # (how, site) already walked
        self._undo = []
        self.no_grad = []  # the user's grad-mode blocks running: how each was entered ('no_grad')
        self.zeroed = {}  # id(leaf) -> what passed it no gradient in the last backward that reached it
        self._running = []  # what each backward call running on the engine will reach, innermost last
        self.failed = set()  # ids of the leaves a backward call would have reached, had it not raised
        self.describe = None  # fn(node) -> (op name, (file, line), ...) of what made a node, when recorded

    def __enter__(self):
        if self.real:
            self._undo.append(_patch_torch(self.engine, self))
        else:
            from gradviz.torch.autograd import graph
            graph.EVENT_LISTENERS.append(self)  # backward calls only: the ops keep their fast paths
            self._undo.append(lambda: graph.EVENT_LISTENERS.remove(self))
        self._undo.append(_patch_cuts(self.engine.Tensor, self))
        self._undo.append(_patch_grad_modes(self.engine, self.real, self))
        return self

    def __exit__(self, *exc):
        while self._undo:
            self._undo.pop()()
        return False

    def cut(self, t, how, site):
        """``t``, which needs grad, left the graph by ``how`` at ``site``: its leaves' paths end there.
        Once per place: a training loop's ``loss.item()`` walks its graph the first time only."""
        fn = t.grad_fn
        key = (how, site) if fn is not None else (how, site, id(t))  # a leaf costs no walk
        if key in self._cut_at:
            return
        self._cut_at.add(key)
        try:
            leaves = {id(t)} if fn is None else leaves_of([fn])
        except Exception:  # noqa: BLE001 - a graph we cannot walk (a torch.func transform's) cuts nothing
            return
        for leaf in leaves:
            self.cuts.setdefault(leaf, (how, site))

    # gradviz's engine tells its event listeners of every backward call
    def on_backward(self, phase, roots, call):
        if phase == "start":
            self._running.append(self.start(lambda edges: [n for n, _ in edges], roots,
                                            getattr(call, "kind", "backward") == "autograd.grad"))
        elif self._running:
            pending = self._running.pop()
            if getattr(call, "error", None) is None:
                self.commit(pending)
            elif pending is not None:
                self.failed.update(pending[0])

    def on_no_grad_read(self, inputs):
        """An op read ``inputs`` with grad mode off: inside the user's ``no_grad`` block,
        that cuts their paths (gradviz's engine tells its event listeners; on PyTorch a
        function mode does, while such a block runs)."""
        if not self.no_grad:
            return
        where = _user_site(self.internal)
        if where is None:
            return
        for x in inputs:
            if isinstance(x, self.engine.Tensor) and x.requires_grad:
                self.cut(x, self.no_grad[-1], where)

    def start(self, roots_of, tensors, by_grad=False):
        """What a backward call about to run will reach: kept until it returns (``commit``);
        a call that raises reached nothing. Never raises: watching must not break the run
        (under ``torch.func`` transforms, reading a wrapped tensor's values is refused)."""
        self.calls += 1
        try:
            return self._reach(roots_of(tensors), by_grad)
        except Exception:  # noqa: BLE001
            return None

    def commit(self, pending):
        if pending is None:
            return
        leaves, by_grad, zeroed = pending
        (self.by_grad if by_grad else self.reached).update(leaves)
        for leaf in leaves:
            self.zeroed.pop(leaf, None)
        self.zeroed.update(zeroed)

    def _reach(self, nodes, by_grad):
        """(leaves reached, by autograd.grad, {leaf: what zeroed it}) of a call's graph, read
        before it runs: the saved tensors that tell what zeroes a gradient are freed after."""
        order, _ = walk([n for n in nodes if n is not None], _next_nodes)
        leaves = set()
        blocked = False
        for node in order:
            variable = getattr(node, "variable", None)
            if variable is not None:
                leaves.add(id(variable))
            elif not blocked and type(node).__name__ in _ZEROING:
                blocked = bool(self._zero_edges(node))
        zeroed = {}
        if blocked:
            try:
                zeroed = self._zeroed_leaves(order)
            except Exception:  # noqa: BLE001 - the reasons are a help; a node we cannot read names nothing
                pass
        return leaves, by_grad, zeroed

    def _zero_edges(self, node):
        """The positions of ``node``'s inputs that get an all-zero gradient from it, whatever
        flows in (see _ZEROING); empty when unknown."""
        rule = _ZEROING.get(type(node).__name__)
        if rule is None:
            return ()
        out = []
        for edges, factor in rule:
            value = self._saved(node, factor)
            if value is not None and _all_zero(value):
                out.extend(edges)
        return out

    def _saved(self, node, name):
        """A node's saved tensor, read without unpacking it (no hook runs), or None."""
        try:
            if self.real:
                raw = getattr(node, "_raw_saved_" + name, None)
                return None if raw is None or raw.unpack_hook is not None else raw.data
            for key, value in node.saved_items():
                if key == name:
                    return getattr(value, "data", None)
        except (RuntimeError, AttributeError):  # freed, or not a tensor
            return None
        return None

    def _zeroed_leaves(self, order):
        """{id(leaf): the node that passed it no gradient} for the leaves of a graph that every
        path from the root reaches only through such a node, in topological order."""
        index = {id(n): k for k, n in enumerate(order)}
        waiting = [0] * len(order)
        nexts = []
        for node in order:
            row = [(i, index[id(n)]) for i, (n, _) in enumerate(node.next_functions) if n is not None]
            nexts.append(row)
            for _, j in row:
                waiting[j] += 1
        live = [False] * len(order)
        blocker = [None] * len(order)
        ready = [k for k in range(len(order)) if waiting[k] == 0]
        for k in ready:
            live[k] = True  # a root
        while ready:
            k = ready.pop()
            zero = set(self._zero_edges(order[k])) if live[k] else ()
            for i, j in nexts[k]:
                if live[k] and i not in zero:
                    live[j] = True
                elif blocker[j] is None:
                    blocker[j] = order[k] if live[k] else blocker[k]
                waiting[j] -= 1
                if waiting[j] == 0:
                    ready.append(j)
        out = {}
        for k, node in enumerate(order):
            variable = getattr(node, "variable", None)
            if variable is not None and not live[k] and blocker[k] is not None:
                out[id(variable)] = self._what_zeroed(blocker[k])
        return out

    def _what_zeroed(self, node):
        name = type(node).__name__
        site = getattr(node, "_site", None)
        if self.describe is not None:
            try:
                site = self.describe(node)[1] or site
            except Exception:  # noqa: BLE001 - a node the recorder never saw
                pass
        where = f" at line {site[1]} of {os.path.basename(str(site[0]))}" if site else ""
        return _ZERO_TEXT.get(name, "a product with an all-zero factor") + f" ({name}{where})"


# Nodes that can pass an input no gradient whatever flows in: node name -> ((input positions,
# the saved tensor that, all zero, zeroes them), ...). A ReLU's output all zero; a product's
# other factor all zero (a mask, or a layer's input that a dead ReLU zeroed).
_ZEROING = {
    "ReluBackward0": (((0,), "result"),),
    "MulBackward0": (((0,), "other"), ((1,), "self")),
    "MmBackward0": (((0,), "mat2"), ((1,), "self")),
    "AddmmBackward0": (((1,), "mat2"), ((2,), "mat1")),
    "BmmBackward0": (((0,), "mat2"), ((1,), "self")),
}
_ZERO_TEXT = {
    "ReluBackward0": "a ReLU that never fired",
    "MulBackward0": "a product with an all-zero factor (a mask)",
    "MmBackward0": "a matrix product whose other factor is all zero",
    "AddmmBackward0": "a matrix product whose other factor is all zero",
    "BmmBackward0": "a matrix product whose other factor is all zero",
}


def leaves_of(nodes) -> set:
    """ids of the leaves whose AccumulateGrad nodes are reachable from ``nodes``."""
    order, _ = walk([n for n in nodes if n is not None], _next_nodes)
    out = set()
    for node in order:
        variable = getattr(node, "variable", None)
        if variable is not None:
            out.add(id(variable))
    return out


_GRADVIZ_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_site(internal):
    """(file, line) of the innermost frame outside gradviz and the engine, or None."""
    import sys

    from ..frame_lines import line_of

    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(internal) and not name.startswith("<frozen"):
            return name, line_of(frame)
        frame = frame.f_back
    return None


def _next_nodes(node):
    return [n for n, _ in node.next_functions if n is not None]


def _patch_torch(torch, reach):
    """Wrap ``torch.autograd.backward`` and ``grad`` (``Tensor.backward`` calls the
    first) to note the leaves each call reaches; returns the undo."""
    autograd = torch.autograd
    backward, grad = autograd.backward, autograd.grad

    def roots(tensors):
        tensors = tensors if isinstance(tensors, (list, tuple)) else (tensors,)
        return [t.grad_fn for t in tensors if isinstance(t, torch.Tensor) and t.grad_fn is not None]

    def watched(call, tensors, args, kwargs, by_grad):
        pending = reach.start(roots, tensors, by_grad)
        try:
            result = call(tensors, *args, **kwargs)
        except BaseException:
            if pending is not None:
                reach.failed.update(pending[0])
            raise
        reach.commit(pending)
        return result

    def watched_backward(tensors, *args, **kwargs):
        return watched(backward, tensors, args, kwargs, False)

    def watched_grad(outputs, *args, **kwargs):
        return watched(grad, outputs, args, kwargs, True)

    autograd.backward, autograd.grad = watched_backward, watched_grad

    def undo():
        if autograd.backward is watched_backward:
            autograd.backward = backward
        if autograd.grad is watched_grad:
            autograd.grad = grad
    return undo


_CUTS = (("detach", ".detach()"), ("item", ".item()"), ("numpy", ".numpy()"), ("tolist", ".tolist()"))


def _patch_cuts(Tensor, reach):
    """Note where a tensor that needs grad leaves its graph (``.detach()``, ``.data``,
    ``.item()``, ``.numpy()``, ``.tolist()``): wrappers on the Tensor class, either engine's;
    returns the undo."""
    import sys

    from ..frame_lines import line_of

    def site():
        """The caller's line, or None for gradviz's own reads (its tables detach tensors)."""
        frame = sys._getframe(2)
        name = frame.f_code.co_filename
        return None if name.startswith(_GRADVIZ_DIR) else (name, line_of(frame))

    originals = []
    for attr, how in _CUTS:
        method = Tensor.__dict__.get(attr) or getattr(Tensor, attr, None)
        if method is None:
            continue

        def wrapped(self, *args, _method=method, _how=how, **kwargs):
            if self.requires_grad and (where := site()) is not None:
                reach.cut(self, _how, where)
            return _method(self, *args, **kwargs)
        originals.append((attr, Tensor.__dict__.get(attr)))
        setattr(Tensor, attr, wrapped)
    data = next((k.__dict__["data"] for k in Tensor.__mro__ if "data" in k.__dict__), None)  # PyTorch: a base's
    if hasattr(data, "__get__"):
        def read_data(self, _get=data.__get__):
            if self.requires_grad and (where := site()) is not None:
                reach.cut(self, ".data", where)
            return _get(self, type(self))
        setter = getattr(data, "__set__", None)
        originals.append(("data", Tensor.__dict__.get("data")))
        setattr(Tensor, "data", property(read_data, (lambda self, v, _set=setter: _set(self, v)) if setter else None))

    def undo():
        for attr, original in reversed(originals):
            if original is None:
                delattr(Tensor, attr)
            else:
                setattr(Tensor, attr, original)
    return undo


def _patch_grad_modes(engine, real, reach):
    """Note the user's own ``no_grad``, ``inference_mode`` and ``set_grad_enabled(False)``
    blocks (a ``with`` or a decorated function in the user's code, not the library's
    ``no_grad`` inside ``nn.init``), so that the ops they run can be watched; on PyTorch a
    function mode watches them, pushed while the outermost such block runs. Returns the undo."""
    import sys

    mode_class = _no_grad_reads_mode(engine, reach) if real else None
    active = {}  # id(grad-mode object) -> the mode it pushed, or None

    def entered_by_user(frame):
        name = frame.f_code.co_filename
        if not name.startswith(reach.internal):
            return True
        func = frame.f_locals.get("func")  # a decorator's wrapper: the decorated function's own
        code = getattr(func, "__code__", None)
        return code is not None and not code.co_filename.startswith(reach.internal)

    originals = []
    for cls_name, how in (("no_grad", "no_grad"), ("inference_mode", "inference_mode"),
                          ("set_grad_enabled", "set_grad_enabled(False)")):
        cls = getattr(engine, cls_name, None)
        if cls is None:
            continue
        enter, leave = cls.__enter__, cls.__exit__

        def watched_enter(self, _enter=enter, _how=how):
            result = _enter(self)
            if _how != "no_grad" and getattr(self, "mode", None) is not (_how == "inference_mode"):
                return result  # set_grad_enabled(True), inference_mode(False): no block to watch
            if entered_by_user(sys._getframe(1)):
                mode = None
                if mode_class is not None and not reach.no_grad:
                    mode = mode_class()
                    mode.__enter__()
                reach.no_grad.append(_how)
                active[id(self)] = mode
            return result

        def watched_exit(self, *exc, _leave=leave):
            if id(self) in active:
                mode = active.pop(id(self))
                if reach.no_grad:
                    reach.no_grad.pop()
                if mode is not None:
                    try:
                        mode.__exit__(None, None, None)
                    except Exception:  # noqa: BLE001 - the user's own modes unbalanced it: stop watching
                        pass
            return _leave(self, *exc)
        originals.append((cls, cls.__dict__.get("__enter__"), cls.__dict__.get("__exit__")))
        cls.__enter__, cls.__exit__ = watched_enter, watched_exit

    def undo():
        for cls, enter, leave in reversed(originals):
            for attr, original in (("__enter__", enter), ("__exit__", leave)):
                if original is None:
                    delattr(cls, attr)
                else:
                    setattr(cls, attr, original)
    return undo


def _no_grad_reads_mode(torch, reach):
    """A PyTorch function mode telling ``reach`` of every op's tensor inputs."""
    Tensor = torch.Tensor

    class NoGradReads(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            try:
                tensors = [a for a in args if isinstance(a, Tensor)]
                for a in args:
                    if isinstance(a, (list, tuple)):
                        tensors.extend(x for x in a if isinstance(x, Tensor))
                if tensors and not torch.is_grad_enabled():
                    reach.on_no_grad_read(tensors)
            except Exception:  # noqa: BLE001 - watching must not break the user's run
                pass
            return func(*args, **kwargs)
    return NoGradReads


def reasons(named, reach) -> dict:
    """{name: reason} for the named tensors that need one (see the module's docstring).
    ``named``: (name, tensor) pairs, the first name of a tensor first. A run that made no
    backward call asked for no gradient: nothing is missing."""
    if not reach.calls:
        return {}
    kept = {}  # id(leaf) -> (the graph's end: its name and line)
    for name, t in named:
        fn = t.grad_fn
        if fn is not None:
            for leaf in leaves_of([fn]):
                kept.setdefault(leaf, (name, getattr(fn, "_site", None)))
    out = {}
    seen = set()
    for name, t in named:
        if id(t) in seen:
            continue
        seen.add(id(t))
        reason = _reason(name, t, reach, kept)
        if reason is not None:
            out[name] = reason
    return out


def _reason(name, t, reach, kept):
    if not t.requires_grad:
        return "frozen: requires_grad=False, so no gradient is computed for it" if "." in name and t.is_leaf \
            else None
    if not t.is_leaf:
        if t.retains_grad:
            return None if grad_of(t) is not None else "not-reached: retain_grad() was called, but no backward " \
                                                         "reached it since"
        return "not-leaf: a non-leaf keeps no .grad; call retain_grad() on it before backward"
    grad = grad_of(t)
    if grad is None:
        if id(t) in reach.reached:
            return "reset: a backward reached it, and its .grad was set to None since (zero_grad)"
        if id(t) in reach.by_grad:
            return "autograd.grad: only torch.autograd.grad reached it, which returns gradients and keeps no .grad"
        if id(t) in reach.failed:
            return "raised: the backward call that would have reached it raised an error first"
        if id(t) in reach.cuts:
            how, site = reach.cuts[id(t)]
            where = f" at line {site[1]} of {os.path.basename(str(site[0]))}" if site else ""
            return f"detached: its path to the loss was cut by {how}{where}"
        if id(t) in kept:
            end, site = kept[id(t)]
            where = f" (line {site[1]} of {os.path.basename(str(site[0]))})" if site else ""
            return (f"detached: its graph, which ends at {end}{where}, never reached a backward call; a path to "
                    "the loss was cut by detach, .data, no_grad, .item or a NumPy round trip")
        return "unused: on no path to the root of any backward call"
    if _all_zero(grad):
        if id(t) in reach.zeroed:
            return f"zero: the gradient reached it and is all zero: it passes through {reach.zeroed[id(t)]}"
        return "zero: the gradient reached it and is all zero (a ReLU that never fired, a zero mask, or a zero " \
               "weight after it)"
    return None


def _all_zero(tensor) -> bool:
    """Whether a tensor (either engine's) or a NumPy array has elements, all zero. A meta
    tensor (or the engine's meta placeholder array) has no values: never known to be zero."""
    if getattr(tensor, "is_meta", False):
        return False
    data = getattr(tensor, "_data", None)
    if data is None and not hasattr(tensor, "numel"):
        data = tensor  # a NumPy array: the engine's saved data
    if data is not None:
        return data.size > 0 and not data.any()
    return tensor.numel() > 0 and not bool(tensor.detach().ne(0).any())
