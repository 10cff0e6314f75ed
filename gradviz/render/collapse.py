"""Collapsing a large graph into summary nodes so a picture stays readable.

Works on any DAG given as item ids, edges, a kind per item (the label counted in a
summary, e.g. 'TanhBackward0') and a weight per item (how many boxes it draws: a node
with two saved tensors weighs 3). Nothing happens while the total weight is within the
budget. Past it, three passes run until the graph fits, each iterative (no recursion):

1. Runs: a chain of items each with one predecessor and one successor keeps its first
   and last item; the inside becomes one summary ("×998 TanhBackward0"). Edges to hubs
   (items with 3+ edges in or out, such as a weight shared by every step of an RNN)
   do not break a chain, so repeated steps around shared weights collapse too.
2. Bands: items are placed at their longest-path depth; the top and bottom levels are
   kept while they fit, and each connected piece of the middle becomes one summary.
3. Siblings: whatever is still too many is grouped by (depth, kind).

Roots and other pinned items are never collapsed.
"""
import contextlib
import gc
from dataclasses import dataclass
from typing import Dict, Tuple

HUB_DEGREE = 3  # 3+ edges in or out: shared weight, wide join
MIN_RUN = 3  # a run collapses only when at least this many items are inside it
LONG_RUN = 12  # ... and before cutting into bands, only when this many are
# Bands keep this share of the budget for individual items: a summary picture reads
# better with a little detail at both ends than with the budget filled.
KEEP_FRACTION = 0.35


@dataclass(frozen=True, slots=True)
class Group:
    id: str  # 'g0', 'g1', ... in the order of their first member
    members: Tuple[str, ...]
    counts: Tuple[Tuple[str, int], ...]  # (kind, count), most frequent first
    weight: int  # boxes the members would have drawn

    @property
    def size(self):
        return len(self.members)


@dataclass(frozen=True, slots=True)
class Plan:
    groups: Tuple[Group, ...]
    group_of: Dict[str, str]  # member id -> group id
    total: int  # weight before collapsing
    after: int  # weight after (each group counts 1)
    budget: int

    @property
    def collapsed(self) -> bool:
        return bool(self.groups)

    def rep(self, item):
        """What stands for ``item`` in the picture: its group's id, or itself."""
        return self.group_of.get(item, item)


@contextlib.contextmanager
def gc_paused():
    """Pause the cyclic GC while building big acyclic structures: with a large graph
    alive, every collection it would trigger rescans all of it (seconds per 100,000 nodes)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def plan(items, edges, kind, weight, pinned=(), budget=300) -> Plan:
    """Decide which items to collapse. items: ids in a stable order; edges: (u, v) pairs."""
    with gc_paused():
        return _plan(list(items), edges, kind, weight, pinned, budget)


def _plan(items, edges, kind, weight, pinned, budget):
    total = sum(weight[i] for i in items)
    if not budget or budget <= 0 or total <= budget:
        return Plan((), {}, total, total, budget or 0)
    pinned = set(pinned)
    order = {item: k for k, item in enumerate(items)}
    state = _State(items, order, kind, weight)
    _runs(state, edges, pinned, budget, MIN_RUN)
    if state.after() > budget:
        # Runs alone are not enough: start again with only the long runs (short ones
        # would litter the detailed ends with tiny summaries), then cut into bands.
        state = _State(items, order, kind, weight)
        _runs(state, edges, pinned, 0, LONG_RUN)
        _bands(state, edges, pinned, budget)
    if state.after() > budget:
        _siblings(state, edges, pinned, budget)
    return state.finish(total, budget)


class _State:
    """Union of items into groups; a group is named by its first member (item order)."""

    def __init__(self, items, order, kind, weight):
        self.items, self.order, self.kind, self.weight = items, order, kind, weight
        self.owner = {}  # item -> group key (the group's first member)
        self.members = {}  # group key -> [items]
        self._after = sum(weight[i] for i in items)  # kept up to date by merge()

    def rep(self, item):
        return self.owner.get(item, item)

    def merge(self, things):
        """Put items and/or existing groups (named by their key) into one group."""
        members = []
        for t in things:
            key = self.owner.get(t)
            if key is not None:
                if key in self.members:
                    members.extend(self.members.pop(key))
                    self._after -= 1
            else:
                members.append(t)
                self._after -= self.weight[t]
        members = sorted(set(members), key=self.order.__getitem__)
        key = members[0]
        self.members[key] = members
        for m in members:
            self.owner[m] = key
        self._after += 1

    def after(self):
        return self._after

    def contracted(self, edges):
        """Nodes (reps, in item order) and deduplicated edges of the current graph."""
        if not self.members:
            return self.items, list(dict.fromkeys(e for e in edges if e[0] != e[1]))
        nodes, seen = [], set()
        for i in self.items:
            r = self.rep(i)
            if r not in seen:
                seen.add(r)
                nodes.append(r)
        out = {}
        for u, v in edges:
            ru, rv = self.rep(u), self.rep(v)
            if ru != rv:
                out[(ru, rv)] = None
        return nodes, list(out)

    def node_weight(self, r):
        return 1 if r in self.members else self.weight[r]

    def finish(self, total, budget):
        groups, group_of = [], {}
        for key in sorted(self.members, key=self.order.__getitem__):
            members = self.members[key]
            counts = {}
            for m in members:
                counts[self.kind[m]] = counts.get(self.kind[m], 0) + 1
            gid = f"g{len(groups)}"
            groups.append(Group(gid, tuple(members), tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
                                sum(self.weight[m] for m in members)))
            for m in members:
                group_of[m] = gid
        return Plan(tuple(groups), group_of, total, self.after(), budget)


def _adjacency(nodes, edges):
    succ = {n: [] for n in nodes}
    pred = {n: [] for n in nodes}
    for u, v in edges:
        succ[u].append(v)
        pred[v].append(u)
    return succ, pred


def _runs(state, edges, pinned, budget, min_run):
    nodes, cedges = state.contracted(edges)
    outd, ind = dict.fromkeys(nodes, 0), dict.fromkeys(nodes, 0)
    for u, v in cedges:
        outd[u] += 1
        ind[v] += 1
    hub = {n for n in nodes if outd[n] >= HUB_DEGREE or ind[n] >= HUB_DEGREE}
    # The chain ("spine") ignores edges touching a hub; record each node's only spine
    # successor / predecessor and how many it has.
    nxt, prv, n_out, n_in = {}, {}, {}, {}
    for u, v in cedges:
        if u in hub or v in hub:
            continue
        nxt[u] = v
        prv[v] = u
        n_out[u] = n_out.get(u, 0) + 1
        n_in[v] = n_in.get(v, 0) + 1

    stops = hub | pinned  # a run passes through none of these

    runs = []  # (-weight of the inside, order of its first node, the inside)
    for n in nodes:
        if n in stops:
            continue
        if n_in.get(n) == 1:
            before = prv[n]
            if before not in stops and n_out.get(before) == 1:
                continue  # n continues the run through its predecessor: not the start of one
        run = [n]
        last = n
        while n_out.get(last) == 1:
            following = nxt[last]
            if following in stops or n_in.get(following) != 1:
                break
            run.append(following)
            last = following
        if len(run) - 2 >= min_run:
            inside = run[1:-1]
            # node_weight() is an item's own weight while nothing is grouped, as in a fresh state
            inside_weight = (sum(map(state.node_weight, inside)) if state.members
                             else sum(map(state.weight.__getitem__, inside)))
            runs.append((-inside_weight, state.order[inside[0]], inside))
    # Longest first; stop once the picture fits.
    runs.sort(key=lambda entry: entry[:2])
    for _, _, inside in runs:
        if state.after() <= budget:
            break
        state.merge(inside)


def _depths(nodes, edges):
    """Longest-path depth of each node from the sources (Kahn's order, iterative)."""
    succ, pred = _adjacency(nodes, edges)
    indeg = {n: len(pred[n]) for n in nodes}
    depth = {n: 0 for n in nodes}
    queue = [n for n in nodes if indeg[n] == 0]
    head = 0
    while head < len(queue):
        u = queue[head]
        head += 1
        for v in succ[u]:
            if depth[u] + 1 > depth[v]:
                depth[v] = depth[u] + 1
            indeg[v] -= 1
            if indeg[v] == 0:
                queue.append(v)
    return depth


def _bands(state, edges, pinned, budget):
    nodes, cedges = state.contracted(edges)
    depth = _depths(nodes, cedges)
    levels = {}
    for n in nodes:
        levels.setdefault(depth[n], []).append(n)
    keys = sorted(levels)
    weight = {d: sum(state.node_weight(n) for n in levels[d]) for d in keys}
    # Keep whole levels from the top (up to half the room; the roots' level always),
    # then from the bottom, then give the top whatever room is left.
    target = budget * KEEP_FRACTION
    kept, lo, hi, used = set(), 0, len(keys) - 1, 0
    while lo <= hi and (used + weight[keys[lo]] <= target / 2 or lo == 0):
        kept.add(keys[lo])
        used += weight[keys[lo]]
        lo += 1
    while lo <= hi and used + weight[keys[hi]] <= target:
        kept.add(keys[hi])
        used += weight[keys[hi]]
        hi -= 1
    while lo <= hi and used + weight[keys[lo]] <= target:
        kept.add(keys[lo])
        used += weight[keys[lo]]
        lo += 1
    middle = [n for n in nodes if depth[n] not in kept and n not in pinned]
    if not middle:
        return
    # Connected pieces of the middle, by union-find.
    parent = {n: n for n in middle}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in cedges:
        if u in parent and v in parent:
            ru, rv = find(u), find(v)
            if ru != rv:
                parent[max(ru, rv, key=state.order.get)] = min(ru, rv, key=state.order.get)
    pieces = {}
    for n in middle:
        pieces.setdefault(find(n), []).append(n)
    for piece in pieces.values():
        if len(piece) > 1 or piece[0] in state.members:
            state.merge(piece)


def _siblings(state, edges, pinned, budget):
    nodes, cedges = state.contracted(edges)
    depth = _depths(nodes, cedges)
    buckets = {}
    for n in nodes:
        if n in pinned:
            continue
        k = state.kind[n] if n not in state.members else "\0group"
        buckets.setdefault((depth[n], k), []).append(n)
    big = sorted((b for b in buckets.values() if len(b) > 1),
                 key=lambda b: (-sum(state.node_weight(x) for x in b), state.order[b[0]]))
    for b in big:
        if state.after() <= budget:
            break
        state.merge(b)
