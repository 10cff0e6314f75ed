"""What a backward call did, node by node, for the explorer's replay: the order the engine
ran the nodes, and the gradients that arrived at each and left it along each edge.

Both engines through the same public API: as a backward call starts, a post hook
(``node.register_hook(fn(grad_inputs, grad_outputs))``) goes on every node of its graph,
numbered by the same walk the snapshot numbers its nodes with (``n<k>``); the hooks run
in execution order and are removed as the call returns. A hook keeps statistics of each
gradient, and its values only when it is small (``MAX_VALUES``), so the record is
bounded by the graph's size, never by its tensors'.
"""
import math

import dataclasses

from .model import ReplayLane, ReplayStep, TensorStats
from .walk import walk

MAX_VALUES = 16  # a gradient with at most this many elements keeps its values
MAX_STEPS = 200_000  # a longer backward keeps its first steps (the page says how many ran)
MAX_LANES = 8  # earlier backward calls through one graph kept for the explorer


class ReplayRecorder:
    """Hooks one backward call's graph. ``start(roots)`` before it runs, ``stop()`` after:
    the steps, in the order the nodes ran. ``next_nodes`` and ``stats`` are the engine's:
    a node's next nodes for ``walk``, and a gradient's TensorStats."""

    def __init__(self, next_nodes, stats):
        self.next_nodes, self.stats = next_nodes, stats
        self.steps = []
        self.ran = 0
        self._handles = []

    def start(self, root_nodes):
        order, _ = walk([n for n in root_nodes if n is not None], self.next_nodes)
        for k, node in enumerate(order):
            leaf = getattr(node, "variable", None)  # AccumulateGrad: its leaf's .grad, before and after
            try:
                self._handles.append(node.register_hook(self._hook(f"n{k}", leaf)))
            except (RuntimeError, AttributeError, TypeError):  # a node that takes no hooks
                continue

    def _hook(self, node_id, leaf):
        steps, stats = self.steps, self.stats
        before = stats(_grad_of(leaf)) if leaf is not None else None

        def hook(grad_inputs, grad_outputs):
            self.ran += 1
            if len(steps) < MAX_STEPS:
                after = stats(_grad_of(leaf)) if leaf is not None else None
                steps.append(ReplayStep(node_id, tuple(stats(g) for g in grad_outputs),
                                        tuple(stats(g) for g in grad_inputs), before, after))
        return hook

    def stop(self):
        for handle in self._handles:
            try:
                handle.remove()
            except Exception:  # noqa: BLE001 - a node already gone
                pass
        self._handles = []
        return tuple(self.steps)


class Lanes:
    """The replays of the backward calls that ran through one graph: calls whose graphs
    have the same nodes in the same walk order (``retain_graph=True``, then backward
    again) are lanes of one explorer. ``attach`` gives a call's snapshot its replay and
    the earlier lanes."""

    def __init__(self):
        self._key, self._lanes = None, []

    def attach(self, snap, info, replaying):
        key = tuple(n.name for n in snap.nodes)
        if key != self._key:
            self._key, self._lanes = key, []
        earlier = tuple(self._lanes)
        self._lanes.append(ReplayLane(info, tuple(replaying.steps), replaying.ran))
        del self._lanes[:-MAX_LANES]
        return dataclasses.replace(snap, replay=tuple(replaying.steps), replay_ran=replaying.ran, lanes=earlier)


def _grad_of(t):
    """A leaf's ``.grad``, read without the warning PyTorch gives for non-leaves."""
    grad = getattr(t, "_grad", None)
    if grad is not None:
        return grad
    try:
        return t.grad
    except Exception:  # noqa: BLE001 - nothing to show
        return None


def stats_of(values, shape, dtype):
    """TensorStats of a flat list of Python numbers (a small gradient's values)."""
    finite = [v for v in values if math.isfinite(v)]
    norm = math.sqrt(math.fsum(v * v for v in values)) if len(finite) == len(values) else math.nan
    if not values:
        return TensorStats(tuple(shape), dtype, 0.0, math.nan, math.nan, math.nan, ())
    return TensorStats(tuple(shape), dtype, norm, min(values), max(values), math.fsum(values) / len(values),
                       tuple(values) if len(values) <= MAX_VALUES else None)


def numpy_stats(array, dtype):
    """TensorStats of a numpy array (gradviz's engine holds its tensors' data so)."""
    import numpy as np

    if array.size <= MAX_VALUES:
        values = array.astype(np.float64).ravel().tolist() if not np.iscomplexobj(array) else \
            np.abs(array).astype(np.float64).ravel().tolist()
        return stats_of(values, array.shape, dtype)
    a = np.abs(array) if np.iscomplexobj(array) else array
    a = a.astype(np.float64, copy=False)
    with np.errstate(all="ignore"):
        return TensorStats(tuple(array.shape), dtype, float(np.sqrt(np.sum(a * a))), float(a.min()), float(a.max()),
                           float(a.mean()), None)
