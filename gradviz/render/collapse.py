"""Collapsing a large graph into summary nodes so a picture stays readable.

Works on any DAG given as item ids, edges, a kind per item (the label counted in a
summary, e.g. 'TanhBackward0') and a weight per item (how many boxes it draws: a node
with two saved tensors weighs 3). Nothing happens while the total weight is within the
budget (or when the caller asks, because the picture would be too big). Past it, the
passes below run until the graph fits, each iterative (no recursion):

0. Repeats: the steps of a loop (an RNN unrolled 60 times, the layers of an MLP) are
   found by the sequence of kinds along the graph's longest path, which repeats with
   the step's period. Consecutive blocks with the same kinds are folded: the first and
   last are kept as they are, as representatives, and the ones between become one
   summary that says how many repeats it holds ("×58 repeats of the block above").
1. Runs: a chain of items each with one predecessor and one successor keeps its first
   and last item; the inside becomes one summary ("×998 TanhBackward0"). Edges to hubs
   (items with 3+ edges in or out, such as a weight shared by every step of an RNN)
   do not break a chain, so repeated steps around shared weights collapse too.
2. Bands: items are placed at their longest-path depth; the top and bottom levels are
   kept while they fit, and each connected piece of the middle becomes one summary.
3. Siblings: whatever is still too many is grouped by (depth, kind).
4. Named items too: pinned items (named tensors and leaves) are kept by passes 1-3,
   but the budget is a promise, so a graph of thousands of them (a fan of 10,000
   `x.unbind()[i]`, a script with 3,000 named scalars) has them collapsed as well:
   siblings first, a few of each kind kept drawn (the summary lists the names), then
   runs, then whole levels; as a last resort every level band of the graph becomes one
   box. After this pass the weight is within the budget whatever the graph's shape,
   unless the roots alone exceed it.

Roots are never collapsed. Other pinned items may also be folded with the repeat they
belong to, as the summary counts them.
"""
import contextlib
import gc
from dataclasses import dataclass
from typing import Dict, Tuple

from .options import DEFAULT_MAX_NODES

HUB_DEGREE = 3  # 3+ edges in or out: shared weight, wide join
MIN_RUN = 3  # a run collapses only when at least this many items are inside it
LONG_RUN = 12  # ... and before cutting into bands, only when this many are
# Bands keep this share of the budget for individual items: a summary picture reads
# better with a little detail at both ends than with the budget filled.
KEEP_FRACTION = 0.35
MAX_PERIOD = 64  # longest loop step looked for, in nodes along the longest path
KEEP_BLOCKS = 1  # repeats drawn in full at each end of a folded loop
MIN_FOLDED = 2  # fold only when at least this many repeats go into the summary
MAX_LOOKS = 64  # stretches of the longest path searched for loops, at most
SIBLINGS_KEPT = 2  # pass 4: items of a wide fan drawn as they are, before its summary


@dataclass(frozen=True, slots=True)
class Group:
    id: str  # 'g0', 'g1', ... in the order of their first member
    members: Tuple[str, ...]
    counts: Tuple[Tuple[str, int], ...]  # (kind, count), most frequent first
    weight: int  # boxes the members would have drawn
    repeats: int = 0  # > 0: a folded loop of this many identical blocks

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


def plan(items, edges, kind, weight, pinned=(), budget=DEFAULT_MAX_NODES, *, fold=False, roots=None) -> Plan:
    """Decide which items to collapse. items: ids in a stable order; edges: (u, v) pairs.

    fold: fold repeated structure even when the weight is within the budget (the caller
    measured the picture and found it too big). roots: items never collapsed at all
    (default: the pinned ones).
    """
    with gc_paused():
        return _plan(list(items), edges, kind, weight, pinned, budget, fold, roots)


def _plan(items, edges, kind, weight, pinned, budget, fold, roots):
    total = sum(weight[i] for i in items)
    over = bool(budget) and budget > 0 and total > budget
    if not over and not fold:
        return Plan((), {}, total, total, budget if budget and budget > 0 else 0)
    budget = budget if budget and budget > 0 else 0
    pinned = set(pinned)
    roots = pinned if roots is None else set(roots)
    order = {item: k for k, item in enumerate(items)}
    folded = _State(items, order, kind, weight)
    _fold(folded, edges, roots)
    state = folded.copy()
    if budget and state.after() > budget:
        _runs(state, edges, pinned, budget, MIN_RUN)
    if budget and state.after() > budget:
        # Runs alone are not enough: start again with only the long runs (short ones
        # would litter the detailed ends with tiny summaries), then cut into bands.
        state = folded.copy()
        _runs(state, edges, pinned, 0, LONG_RUN)
        _bands(state, edges, pinned, budget)
    if budget and state.after() > budget:
        _siblings(state, edges, pinned, budget)
    if budget and state.after() > budget:
        _named_too(state, edges, roots, budget)
    return state.finish(total, budget)


def _named_too(state, edges, roots, budget):
    """Pass 4: collapse pinned items too, only the roots stay (see the module's docstring)."""
    steps = (lambda: _siblings(state, edges, roots, budget, keep=SIBLINGS_KEPT),
             lambda: _runs(state, edges, roots, budget, MIN_RUN),
             lambda: _siblings(state, edges, roots, budget),
             lambda: _strata(state, edges, roots, budget))
    for step in steps:
        if state.after() <= budget:
            break
        step()


class _State:
    """Union of items into groups; a group is named by its first member (item order)."""

    def __init__(self, items, order, kind, weight):
        self.items, self.order, self.kind, self.weight = items, order, kind, weight
        self.owner = {}  # item -> group key (the group's first member)
        self.members = {}  # group key -> [items]
        self.repeats = {}  # group key -> blocks, for a folded loop
        self._after = sum(weight[i] for i in items)  # kept up to date by merge()

    def copy(self):
        other = _State(self.items, self.order, self.kind, self.weight)
        other.owner, other.repeats, other._after = dict(self.owner), dict(self.repeats), self._after
        other.members = {k: list(v) for k, v in self.members.items()}
        return other

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
                    self.repeats.pop(key, None)  # merged into something bigger: no longer a loop
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
        return key

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
                                sum(self.weight[m] for m in members), self.repeats.get(key, 0)))
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


def _fold(state, edges, roots):
    """Pass 0: fold the repeated blocks of loops (see the module's docstring)."""
    import numpy as np

    nodes, cedges = state.contracted(edges)
    if len(nodes) < 2 * KEEP_BLOCKS + MIN_FOLDED:
        return
    succ, pred = _adjacency(nodes, cedges)
    # Shared items (a weight every step uses) have many users; they belong to no block.
    shared = {n for n in nodes if len(pred[n]) >= HUB_DEGREE}
    spine = _longest_path(nodes, cedges, succ, shared, state.order)
    if len(spine) < 2 * KEEP_BLOCKS + MIN_FOLDED:
        return
    # Every other unshared item joins the block of the nearest spine item (breadth first,
    # ties to the earlier spine item, so equal steps get equal members).
    pos = {n: k for k, n in enumerate(spine)}
    queue, head = list(spine), 0
    while head < len(queue):
        u = queue[head]
        head += 1
        k = pos[u]
        for near in (succ[u], pred[u]):
            for v in near:
                if v not in pos and v not in shared:
                    pos[v] = k
                    queue.append(v)
    # A shared item whose every neighbour sits at one spine item (h used by four gates
    # of one LSTM step) is part of that step after all.
    for n in sorted(shared, key=state.order.__getitem__):
        near = {pos.get(v) for v in succ[n] + pred[n]}
        if len(near) == 1 and None not in near:
            pos[n] = near.pop()
    side = [[] for _ in spine]
    for n in nodes:
        k = pos.get(n)
        if k is not None and spine[k] != n:
            side[k].append(n)
    codes, kinds = [], {}
    for k, n in enumerate(spine):
        # A root (or a spine item with a root beside it) matches nothing: it is never folded.
        if n in roots or any(x in roots for x in side[k]):
            codes.append(-1 - k)
        else:
            codes.append(kinds.setdefault(_kind_of(state, n), len(kinds)))
    codes = np.asarray(codes, dtype=np.int64)
    # What hangs off each spine item, by kind; blocks match when these match too (the
    # spine's own kinds match by the choice of the period).
    beside = [tuple(sorted(kinds.setdefault(_kind_of(state, x), len(kinds)) for x in xs)) if xs else ()
              for xs in side]

    def signature(lo, p):
        return tuple(beside[lo:lo + p])

    segments = [(0, len(spine))]
    looked = 0
    while segments and looked < MAX_LOOKS:
        looked += 1
        lo, hi = segments.pop()
        found = period(codes[lo:hi], 2 * KEEP_BLOCKS + MIN_FOLDED, MAX_PERIOD)
        if found is None:
            continue
        start, p, count = found
        start += lo
        # The blocks' side items must match too: take the longest stretch of equal blocks.
        sigs = [signature(start + b * p, p) for b in range(count)]
        best, run_start = (0, 0), 0
        for b in range(1, count + 1):
            if b == count or sigs[b] != sigs[run_start]:
                if b - run_start > best[1] - best[0]:
                    best = (run_start, b)
                run_start = b
        first, last = best
        if last - first < 2 * KEEP_BLOCKS + MIN_FOLDED:
            # Not here; what is left around the stretch may still hold a loop.
            segments += [(lo, start), (start + count * p, hi)]
            continue
        fold_lo = start + (first + KEEP_BLOCKS) * p
        fold_hi = start + (last - KEEP_BLOCKS) * p
        members = [x for k in range(fold_lo, fold_hi) for x in (spine[k], *side[k])]
        key = state.merge(members)
        state.repeats[key] = (fold_hi - fold_lo) // p
        segments += [(lo, start + first * p), (start + last * p, hi)]


def _kind_of(state, n):
    return "\0group" if n in state.members else state.kind[n]


def _longest_path(nodes, edges, succ, skip, order):
    """The longest path through the items not in ``skip`` (Kahn's order, iterative);
    ties go to the earlier item, so the path is the same every time."""
    indeg = {n: 0 for n in nodes if n not in skip}
    for u, v in edges:
        if u not in skip and v not in skip:
            indeg[v] += 1
    dist = dict.fromkeys(indeg, 0)
    back = {}
    queue = [n for n in nodes if n in indeg and indeg[n] == 0]
    head = 0
    while head < len(queue):
        u = queue[head]
        head += 1
        for v in succ[u]:
            if v in skip:
                continue
            if dist[u] + 1 > dist[v] or (dist[u] + 1 == dist[v] and order[u] < order[back[v]]):
                dist[v] = dist[u] + 1
                back[v] = u
            indeg[v] -= 1
            if indeg[v] == 0:
                queue.append(v)
    if not dist:
        return []
    end = max(dist, key=lambda n: (dist[n], -order[n]))
    path = [end]
    while path[-1] in back:
        path.append(back[path[-1]])
    path.reverse()
    return path


def period(codes, need, max_period):
    """(start, period, repeats) of the longest periodic stretch of ``codes`` (a numpy array of
    ints) with at least ``need`` repeats of a period of at most ``max_period``, or None.
    Shorter periods win ties. Loops along a spine here, repeated siblings in ``modules``."""
    import numpy as np

    n = len(codes)
    best = None
    for p in range(1, min(max_period, n // need) + 1):
        eq = np.concatenate(([False], codes[:-p] == codes[p:], [False]))
        edges = np.flatnonzero(eq[1:] != eq[:-1])  # starts and ends of the runs of matches
        if not len(edges):
            continue
        starts, ends = edges[0::2], edges[1::2]
        lengths = ends - starts
        k = int(np.argmax(lengths))
        # positions starts[k] .. ends[k] + p - 1 repeat with period p
        repeats = (int(lengths[k]) + p) // p
        if repeats >= need and (best is None or repeats * p > best[1] * best[2]):
            best = (int(starts[k]), p, repeats)
    return best


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


def _siblings(state, edges, pinned, budget, keep=0):
    """Group items by (depth, kind), biggest groups first, until the budget holds.
    keep: the first items of each group stay drawn (a fan reads better with a few of
    its members shown beside the box that stands for the rest)."""
    nodes, cedges = state.contracted(edges)
    depth = _depths(nodes, cedges)
    buckets = {}
    for n in nodes:
        if n in pinned:
            continue
        k = state.kind[n] if n not in state.members else "\0group"
        buckets.setdefault((depth[n], k), []).append(n)
    big = sorted((b[keep:] for b in buckets.values() if len(b) - keep > 1),
                 key=lambda b: (-sum(state.node_weight(x) for x in b), state.order[b[0]]))
    for b in big:
        if state.after() <= budget:
            break
        state.merge(b)


def _strata(state, edges, pinned, budget):
    """The last resort: cut the graph by depth into as many bands as the budget has room
    for beside the pinned items, and make each band one box. Bounds the weight by the
    budget whatever the graph's shape (a graph of only roots aside)."""
    nodes, cedges = state.contracted(edges)
    depth = _depths(nodes, cedges)
    rest = [n for n in nodes if n not in pinned]
    if not rest:
        return
    room = max(1, budget - sum(state.node_weight(n) for n in nodes if n in pinned))
    deepest = max(depth[n] for n in rest) + 1
    bands = {}
    for n in rest:
        bands.setdefault(depth[n] * room // deepest, []).append(n)
    for band in bands.values():
        if len(band) > 1:
            state.merge(band)
