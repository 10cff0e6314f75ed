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

from .engines import grad_of
from .model import ReplayLane, ReplayStep, TensorStats
from .walk import hook_nodes, unhook, walk

MAX_VALUES = 16  # a gradient with at most this many elements keeps its values
MAX_STEPS = 200_000  # a longer backward keeps its first steps (the page says how many ran)
MAX_LANES = 8  # earlier backward calls kept for the explorer's lanes
MAX_LANE_NODES = 300_000  # and at most this many of their nodes, all calls together


class ReplayRecorder:
    """Hooks one backward call's graph. ``start(roots)`` before it runs, ``stop()`` after:
    the steps, in the order the nodes ran. ``next_nodes`` and ``stats`` are the engine's:
    a node's next nodes for ``walk``, a gradient's TensorStats, and ``identity``: what
    names a node across calls (``keys``, in the walk's order; see ``Lanes``)."""

    def __init__(self, next_nodes, stats, identity):
        self.next_nodes, self.stats, self.identity = next_nodes, stats, identity
        self.steps = []
        self.keys = []
        self.ran = 0
        self._handles = []

    def start(self, root_nodes):
        order, _ = walk([n for n in root_nodes if n is not None], self.next_nodes)
        self.keys = [self.identity(n) for n in order]
        # AccumulateGrad: its leaf's .grad, before and after
        self._handles = hook_nodes(order, lambda k, node: self._hook(f"n{k}", getattr(node, "variable", None)))

    def _hook(self, node_id, leaf):
        steps, stats = self.steps, self.stats
        before = stats(grad_of(leaf)) if leaf is not None else None

        def hook(grad_inputs, grad_outputs):
            self.ran += 1
            if len(steps) < MAX_STEPS:
                after = stats(grad_of(leaf)) if leaf is not None else None
                steps.append(ReplayStep(node_id, tuple(stats(g) for g in grad_outputs),
                                        tuple(stats(g) for g in grad_inputs), before, after))
        return hook

    def stop(self):
        unhook(self._handles)
        self._handles = []
        return tuple(self.steps)


class Lanes:
    """The replays of the last backward calls, as lanes of a later call's explorer: each
    earlier call's steps on the nodes it shares with the later call's graph (all of them
    after ``retain_graph=True`` and backward again; the leaves and what the first pass
    built, for a ``create_graph`` pass), renumbered as that graph's snapshot numbers them.
    Nodes are matched by ``ReplayRecorder.identity``."""

    def __init__(self):
        self._calls = []  # (BackwardCallInfo, steps, ran, keys)

    def attach(self, snap, info, replaying):
        """``snap`` (the graph of the call ``replaying`` recorded) with its replay and lanes."""
        number = {key: k for k, key in enumerate(replaying.keys)}
        lanes = []
        for call, steps, ran, keys in self._calls:
            moved = []
            for step in steps:
                k = number.get(keys[int(step.node[1:])])
                if k is not None:
                    moved.append(dataclasses.replace(step, node=f"n{k}"))
            if moved:
                lanes.append(ReplayLane(call, tuple(moved), ran))
        self._calls.append((info, tuple(replaying.steps), replaying.ran, replaying.keys))
        del self._calls[:-MAX_LANES]
        while len(self._calls) > 1 and sum(len(c[3]) for c in self._calls) > MAX_LANE_NODES:
            del self._calls[0]  # bounded by nodes kept, whatever the graphs' sizes
        return dataclasses.replace(snap, replay=tuple(replaying.steps), replay_ran=replaying.ran, lanes=tuple(lanes))


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
