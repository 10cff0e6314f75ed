"""Why a tensor that should have a gradient has none, or an all-zero one.

``Reach`` watches a run's backward calls, on either engine, and keeps the leaves each
reached (a walk of its graph as it starts: the ``AccumulateGrad`` nodes' variables).
After the run, ``reasons`` looks at each named tensor and gives the first that applies:

- ``frozen``: a module's parameter with ``requires_grad=False``;
- ``not-leaf``: a non-leaf, which keeps no ``.grad`` without ``retain_grad()``;
- ``autograd.grad``: reached only by ``torch.autograd.grad``, which returns gradients;
- ``unused``: on no path to the root of any backward call, nor in any graph the run kept;
- ``detached``: in a graph the run kept, which never reached a backward call: a path was
  cut by ``detach``, ``.data``, ``no_grad``, ``.item`` or a NumPy round trip (the graph's
  end named, with its line);
- ``reset``: reached by a backward, and its ``.grad`` set to None since (``zero_grad``);
- ``zero``: the gradient reached it and is all zero.
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
        self.reached, self.by_grad = set(), set()
        self.calls = 0  # backward and autograd.grad calls seen
        self.cuts = {}  # id(leaf) -> (how its path was cut, (file, line)): detach, .data, .item ...
        self._cut_at = set()  # (how, site) already walked
        self._undo = []

    def __enter__(self):
        if self.real:
            self._undo.append(_patch_torch(self.engine, self))
        else:
            from gradviz.torch.autograd import graph
            graph.EVENT_LISTENERS.append(self)  # backward calls only: the ops keep their fast paths
            self._undo.append(lambda: graph.EVENT_LISTENERS.remove(self))
        self._undo.append(_patch_cuts(self.engine.Tensor, self))
        return self

    def __exit__(self, *exc):
        while self._undo:
            self._undo.pop()()
        return False

    def cut(self, t, how, site):
        """``t``, which needs grad, left the graph by ``how`` at ``site``: its leaves' paths end there.
        Once per place: a training loop's ``loss.item()`` walks its graph the first time only."""
        if (how, site) in self._cut_at:
            return
        self._cut_at.add((how, site))
        fn = t.grad_fn
        for leaf in ({id(t)} if fn is None else leaves_of([fn])):
            self.cuts.setdefault(leaf, (how, site))

    # gradviz's engine tells its event listeners of every backward call
    def on_backward(self, phase, roots, call):
        if phase == "start":
            self.add([n for n, _ in roots], getattr(call, "kind", "backward") == "autograd.grad")

    def add(self, nodes, by_grad=False):
        self.calls += 1
        (self.by_grad if by_grad else self.reached).update(leaves_of(nodes))


def leaves_of(nodes) -> set:
    """ids of the leaves whose AccumulateGrad nodes are reachable from ``nodes``."""
    order, _ = walk([n for n in nodes if n is not None], _next_nodes)
    out = set()
    for node in order:
        variable = getattr(node, "variable", None)
        if variable is not None:
            out.add(id(variable))
    return out


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

    def watched_backward(tensors, *args, **kwargs):
        reach.add(roots(tensors))
        return backward(tensors, *args, **kwargs)

    def watched_grad(outputs, *args, **kwargs):
        reach.add(roots(outputs), by_grad=True)
        return grad(outputs, *args, **kwargs)

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

    gradviz_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

    def site():
        """The caller's line, or None for gradviz's own reads (its tables detach tensors)."""
        frame = sys._getframe(2)
        name = frame.f_code.co_filename
        return None if name.startswith(gradviz_dir) else (name, line_of(frame))

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
        return "zero: the gradient reached it and is all zero (a ReLU that never fired, a zero mask, or a zero " \
               "weight after it)"
    return None


def _all_zero(grad) -> bool:
    data = getattr(grad, "_data", None)
    if data is not None:
        return data.size > 0 and not data.any()
    return grad.numel() > 0 and not bool(grad.detach().ne(0).any())
