"""Grouping a graph by the nn.Modules that made it (issue 25): clusters, module boxes,
folded repeats, and the guarantee that none of it invents a cycle.

Works on any DAG given as item ids and edges (the backward graph's nodes, or the forward
graph's values and ops), a place per item (the module path and which call of it made the
item, or None) and the module tree (``GraphSnapshot.modules``). For a depth D:

1. Modules at levels 1..D (a root module is level 1) are drawn as clusters, nested by
   their parent; a module at level D+1 becomes one box per call ("path (Class)", "×37
   nodes"), holding everything its call made, submodules included.
2. Repeated siblings (consecutive children whose classes and contents repeat with a
   period of 1 to MAX_PERIOD: GPT2Block ×12, or (Linear, LayerNorm, GELU) ×50) keep their
   first block as it is and fold the rest into one summary box, both inside a cluster
   labelled ``model.transformer.h.0–11 (GPT2Block) ×12``. A module called many times (a
   cell reused per time step) keeps its first call and folds the others the same way.
3. A summary also takes in what lies between its members and belongs to no box (the
   ops a loop's body runs between two calls of the cell): otherwise contracting it would
   make a cycle.
4. The drawn graph is checked for cycles (Kahn's order both ways, iterative); a box or
   fold on a cycle is refused and its members drawn one level finer, until none is left.
5. If the boxes are still over the budget, ``collapse`` runs on the grouped graph.

The default depth is the deepest whose boxes fit the budget. Everything is iterative;
work is per (module, call) pair where it can be, so 100,000 items cost little.
"""
import zlib
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

from . import collapse
from .options import DEFAULT_MAX_NODES
from .module_labels import (Cluster, Keys, ModuleGroup, build_groups, clusters_of,  # noqa: F401 - re-exported
                            merge_groups)

MIN_REPEATS = 3  # a run of siblings (or calls) folds when it holds this many blocks: one drawn, 2+ summarised
MAX_PERIOD = 8  # the longest block of siblings looked for: (Linear, LayerNorm, GELU) is 3
MAX_DEPTH = 64  # module nesting considered, at most


@dataclass(frozen=True)
class Module:
    path: str
    type: str
    calls: int
    parent: Optional[str]
    level: int  # 1: a root module


class ModuleTree:
    """The modules of a snapshot, parents first, with the chain of each (root .. itself)."""

    def __init__(self, infos, extra_paths=()):
        self.modules: Dict[str, Module] = {}
        self.children: Dict[Optional[str], list] = {}
        self.chain: Dict[str, tuple] = {}
        for info in infos:
            self._add(info.path, info.type, max(1, info.calls), info.parent)
        for path, calls in extra_paths:  # a place no ModuleInfo names: a root of unknown class
            if path not in self.modules:
                self._add(path, "?", max(1, calls), None)

    def _add(self, path, type_, calls, parent):
        if parent is not None and parent not in self.modules:
            parent = None  # its parent was never seen: a root (parents come first)
        chain = (self.chain[parent] if parent is not None else ()) + (path,)
        if len(chain) > MAX_DEPTH:
            chain, parent = (path,), None
        self.modules[path] = Module(path, type_, calls, parent, len(chain))
        self.chain[path] = chain
        self.children.setdefault(parent, []).append(path)

    @property
    def levels(self) -> int:
        return max((m.level for m in self.modules.values()), default=0)


def call_of(call, inner, outer):
    """Which call of the enclosing module ``outer`` ran call ``call`` of ``inner`` (the
    schema does not say): calls are spread evenly, as a cell's submodules run once per call."""
    if outer.calls <= 1 or call <= 1:
        return 1
    if inner.calls <= outer.calls:
        return min(call, outer.calls)
    return (call - 1) * outer.calls // inner.calls + 1


@dataclass(frozen=True)
class ModulePlan:
    groups: Tuple[ModuleGroup, ...]
    group_of: Dict[str, str]  # member id -> group id
    cluster_of: Dict[str, str]  # drawn item or group id -> cluster key (absent: outside every module)
    clusters: Tuple[Cluster, ...]  # parents first
    total: int
    after: int
    budget: int
    depth: int
    levels: int  # the deepest module level: a depth of this much draws every module open
    refused: int = 0  # boxes and folds refused because they would have made a cycle
    summarized: int = 0  # items in collapse's summaries (the budget was not enough)

    @property
    def collapsed(self) -> bool:
        return bool(self.groups)

    def rep(self, item):
        return self.group_of.get(item, item)


@dataclass
class _Folds:
    """The folds found in the module tree, by their key: ('sib', k) or ('loop', k)."""
    sib_of: Dict[str, tuple] = field(default_factory=dict)  # folded module -> key
    rep_of: Dict[str, tuple] = field(default_factory=dict)  # first module of the first block -> key
    loop_of: Dict[tuple, tuple] = field(default_factory=dict)  # (module, call) -> key
    info: Dict[tuple, dict] = field(default_factory=dict)  # key -> title, parent, repeats


def has_modules(places) -> bool:
    return any(p is not None for p in places.values())


def plan(items, edges, kind, weight, place, modules, *, roots=(), pinned=(), budget=DEFAULT_MAX_NODES, depth=None,
         fold=False, noun="nodes", repeats=True, cache=None) -> ModulePlan:
    """Group ``items`` by module (see the module's docstring). place: item -> (path, call)
    or None; modules: ModuleInfo tuple. depth None: the deepest that fits ``budget``.
    repeats False: fold no repeated siblings or calls (--max-nodes 0 draws everything).
    cache: a dict kept between calls on the same graph (a picture tried at several
    budgets): what does not depend on the budget is worked out once."""
    with collapse.gc_paused():
        g = cache.get(repeats) if cache is not None else None
        if g is None:
            g = _Graph(list(items), edges, kind, weight, place, modules, set(roots), repeats)
            if cache is not None:
                cache[repeats] = g
        levels = g.tree.levels
        if depth is None:
            depth = g.choose_depth(budget)
        depth = max(0, min(depth, levels))
        return g.finish(depth, levels, set(pinned), budget, fold, noun)


class _Graph:
    def __init__(self, items, edges, kind, weight, place, modules, roots, repeats=True):
        self.items, self.kind, self.weight, self.roots = items, kind, weight, roots
        self.order = {item: k for k, item in enumerate(items)}
        self.edges = [(u, v) for u, v in edges if u != v]
        self.place = place
        seen = {}
        for item in items:
            p = place.get(item)
            if p is not None:
                seen[p[0]] = max(seen.get(p[0], 1), p[1])
        self.tree = ModuleTree(modules, sorted(seen.items()))
        # Items by (module, call): decisions are made once per pair, not per item.
        self.pairs: Dict[tuple, list] = {}
        for item in items:
            p = place.get(item)
            if p is not None and p[0] in self.tree.modules:
                self.pairs.setdefault((p[0], max(1, p[1])), []).append(item)
        self.folds = _find_folds(self) if repeats else _Folds()
        self._topo = None
        self._hulls = {}  # (fold key, members) -> what lies between them: the same at every depth
        self._boxes = {}  # depth -> boxes before any refusal or collapse
        self._fold_members = {}
        self._grouped = {}  # (depth, noun) -> what finish builds before collapsing: the same at every budget

    def assignment(self, depth, refused):
        """item -> group key for a depth, skipping refused keys: ('box', path, call), or a fold's key."""
        assign = {}
        self._fold_members = {}  # fold key -> its pairs' item lists, for _widen (no second pass over items)
        for (path, call), members in self.pairs.items():
            key = self._key(path, call, depth, refused)
            if key is not None:
                for m in members:
                    if m not in self.roots:
                        assign[m] = key
                if key[0] != "box":
                    self._fold_members.setdefault(key, []).append(members)
        return assign

    def _key(self, path, call, depth, refused):
        mod = self.tree.modules[path]
        for outer_path in self.tree.chain[path]:
            outer = self.tree.modules[outer_path]
            c = call_of(call, mod, outer) if outer_path != path else call
            key = self.folds.sib_of.get(outer_path)
            if key is not None and key not in refused:
                return key
            key = self.folds.loop_of.get((outer_path, c))
            if key is not None and key not in refused:
                return key
            if outer.level > depth and ("box", outer_path, c) not in refused:
                return ("box", outer_path, c)
        return None

    def boxes(self, assign):
        return sum(self.weight[i] for i in self.items if i not in assign) + len(set(assign.values()))

    def choose_depth(self, budget):
        """The deepest depth whose picture fits the box budget (0: every root module one box)."""
        levels = self.tree.levels
        if not budget or budget <= 0:
            return levels
        for depth in range(levels, -1, -1):
            if depth not in self._boxes:  # the same for every budget: a picture tries several
                assign = self.assignment(depth, frozenset())
                self._widen(assign)
                self._boxes[depth] = self.boxes(assign)
            if self._boxes[depth] <= budget:
                return depth
        return 0

    def acyclic_assignment(self, depth):
        """The assignment with summaries widened (step 3) and whatever makes a cycle refused (step 4)."""
        refused = set()
        while True:
            assign = self.assignment(depth, refused)
            self._widen(assign)
            bad = _on_cycles(self.items, self.edges, assign.get)
            keys = {assign[i] for i in bad if i in assign}
            if not keys:
                return assign, len(refused)
            refused |= keys

    def _widen(self, assign):
        """Step 3: a fold's summary takes in the unboxed items between its members."""
        by_key = self._fold_members
        if not by_key:
            return
        pos, succ, pred = self.topo()
        for key in sorted(by_key, key=lambda k: self.order[by_key[k][0][0]]):
            size = sum(map(len, by_key[key]))
            hull = self._hulls.get((key, size))
            if hull is None:
                members = [m for ms in by_key[key] for m in ms if m not in self.roots]
                hull = self._hulls[(key, size)] = _between(members, pos, succ, pred) if members else []
            for item in hull:
                if item not in assign and item not in self.roots:
                    assign[item] = key

    def topo(self):
        if self._topo is None:
            succ = {i: [] for i in self.items}
            pred = {i: [] for i in self.items}
            for u, v in self.edges:
                succ[u].append(v)
                pred[v].append(u)
            indeg = {i: len(pred[i]) for i in self.items}
            queue = [i for i in self.items if indeg[i] == 0]
            head = 0
            while head < len(queue):
                u = queue[head]
                head += 1
                for v in succ[u]:
                    indeg[v] -= 1
                    if indeg[v] == 0:
                        queue.append(v)
            pos = {i: k for k, i in enumerate(queue)}
            self._topo = (pos, succ, pred)
        return self._topo

    def finish(self, depth, levels, pinned, budget, fold, noun):
        if (depth, noun) not in self._grouped:
            assign, refused = self.acyclic_assignment(depth)
            self._grouped[(depth, noun)] = (refused, self.boxes(assign), build_groups(self, assign, noun))
        refused, after, (groups, group_of, cluster_of, clusters) = self._grouped[(depth, noun)]
        total = sum(self.weight[i] for i in self.items)
        summarized = 0
        # Within the budget, nothing more is collapsed, even when the picture is too big
        # (``fold``): grouped by module, repeats are folded already, and the caller asks
        # for a smaller budget, a shallower depth, which keeps the modules readable; the
        # generic passes would fold the groups' own sequence away (one box for a GPT-2).
        if budget and budget > 0 and after > budget:
            groups, group_of, cluster_of, summarized = _collapse_more(self, groups, group_of, cluster_of, pinned,
                                                                      budget, fold)
            after = sum(self.weight[i] for i in self.items if i not in group_of) + len(groups)
            clusters = clusters_of(Keys(self), cluster_of)
        return ModulePlan(tuple(groups), group_of, cluster_of, tuple(clusters), total, after,
                          budget if budget and budget > 0 else 0, depth, levels, refused, summarized)


def _find_folds(g):
    """Repeated siblings and repeated calls (steps 2): which modules and calls fold."""
    tree = g.tree
    folds = _Folds()
    # A cheap, deterministic signature of what each (module, call) holds: how many items
    # and a sum of their kinds' checksums, over the module and everything inside it.
    crc = {}
    per_call: Dict[tuple, tuple] = {}
    for (path, call), members in g.pairs.items():
        n, h = 0, 0
        for m in members:
            k = g.kind[m]
            if k not in crc:
                crc[k] = zlib.crc32(k.encode("utf-8", "replace"))
            n += 1
            h += crc[k]
        mod = tree.modules[path]
        for outer_path in tree.chain[path]:
            c = call_of(call, mod, tree.modules[outer_path]) if outer_path != path else call
            old = per_call.get((outer_path, c), (0, 0))
            per_call[(outer_path, c)] = (old[0] + n, old[1] + h)
    whole = {}
    for (path, call), (n, h) in per_call.items():
        old = whole.get(path, (0, 0))
        whole[path] = (old[0] + n, old[1] + h)
    for parent in sorted(tree.children, key=lambda p: (p is not None, tree.chain.get(p, ()))):
        kids = [k for k in tree.children[parent] if k in whole]
        codes = [(tree.modules[k].type, tree.modules[k].calls, whole[k]) for k in kids]
        _fold_siblings(folds, kids, codes, parent, tree)
    for path, mod in tree.modules.items():
        if mod.calls >= MIN_REPEATS:
            _fold_calls(folds, path, mod, [per_call.get((path, c)) for c in range(1, mod.calls + 1)])
    return folds


def _fold_siblings(folds, kids, codes, parent, tree):
    """Fold runs of siblings that repeat with a short period, the longest stretch first."""
    segments = [(0, len(kids))]
    while segments:
        lo, hi = segments.pop()
        found = _period(codes[lo:hi])
        if found is None:
            continue
        start, p, reps = found
        start += lo
        key = ("sib", len(folds.info))
        first = kids[start:start + p]
        rest = kids[start + p:start + reps * p]
        for k in rest:
            folds.sib_of[k] = key
        folds.rep_of[first[0]] = key
        types = list(dict.fromkeys(tree.modules[k].type for k in first))
        folds.info[key] = {"parent": parent, "first": tuple(first), "rest": tuple(rest), "repeats": reps,
                           "types": types, "all": (kids[start], kids[start + reps * p - 1])}
        segments += [(lo, start), (start + reps * p, hi)]


def _period(codes):
    """collapse.period over siblings' codes (tuples: numbered in order of appearance)."""
    import numpy as np

    numbers = {}
    return collapse.period(np.array([numbers.setdefault(c, len(numbers)) for c in codes], dtype=np.int64),
                           MIN_REPEATS, MAX_PERIOD)


def _fold_calls(folds, path, mod, sigs):
    """A module called many times (a loop): runs of equal calls after the first fold."""
    c = 2
    while c <= mod.calls:
        end = c
        while end + 1 <= mod.calls and sigs[end] == sigs[c - 1]:
            end += 1
        if end - c + 1 >= MIN_REPEATS - 1 and sigs[c - 1] is not None:
            key = ("loop", len(folds.info))
            for k in range(c, end + 1):
                folds.loop_of[(path, k)] = key
            folds.info[key] = {"module": path, "calls": (c, end), "repeats": end - c + 1}
        c = end + 1


def _between(members, pos, succ, pred):
    """Items on a path from one member to another (the members' convex hull), found by
    walking forward and backward within the members' span of the topological order."""
    lo = min(pos[m] for m in members)
    hi = max(pos[m] for m in members)
    down = set(members)
    stack = list(members)
    while stack:
        u = stack.pop()
        for v in succ[u]:
            if v not in down and pos[v] <= hi:
                down.add(v)
                stack.append(v)
    up = set(members)
    stack = list(members)
    while stack:
        u = stack.pop()
        for v in pred[u]:
            if v not in up and pos[v] >= lo:
                up.add(v)
                stack.append(v)
    inside = down & up
    return sorted(inside.difference(members), key=pos.__getitem__)


def _on_cycles(items, edges, group):
    """Items whose box lies on a cycle of the drawn graph (an item stands for its box:
    ``group(item)`` or itself). Kahn's order from the sources, then from the sinks: what
    neither reaches is on a cycle or between two; empty when the drawn graph is a DAG."""
    rep = {i: group(i) or i for i in items}
    succ, pred = {}, {}
    for u, v in edges:
        ru, rv = rep[u], rep[v]
        if ru != rv:
            succ.setdefault(ru, set()).add(rv)
            pred.setdefault(rv, set()).add(ru)
    units = set(rep.values())
    left = _peel(units, succ, pred)
    if left:
        left = _peel(left, {u: pred.get(u, set()) & left for u in left}, {u: succ.get(u, set()) & left for u in left})
    return [i for i in items if rep[i] in left] if left else []


def _peel(units, succ, pred):
    """What Kahn's order cannot reach from the sources of ``units``."""
    indeg = {u: len(pred.get(u, ())) for u in units}
    queue = [u for u in units if indeg[u] == 0]
    done = set(queue)
    while queue:
        u = queue.pop()
        for v in succ.get(u, ()):
            if v in indeg:
                indeg[v] -= 1
                if indeg[v] == 0 and v not in done:
                    done.add(v)
                    queue.append(v)
    return units - done


def _collapse_more(g, groups, group_of, cluster_of, pinned, budget, fold):
    """Step 5: the grouped graph still has too many boxes: ``collapse`` its items and
    boxes (a box counts one), then refuse any summary that would make a cycle."""
    units, seen = [], set()
    for i in g.items:
        r = group_of.get(i, i)
        if r not in seen:
            seen.add(r)
            units.append(r)
    by_id = {grp.id: grp for grp in groups}
    kind = {u: (by_id[u].title[0].split(" ")[-1].strip("()") if by_id[u].title else "summary")
            if u in by_id else g.kind[u] for u in units}
    weight = {u: 1 if u in by_id else g.weight[u] for u in units}
    uedges = list(dict.fromkeys((group_of.get(a, a), group_of.get(b, b)) for a, b in g.edges))
    uedges = [(a, b) for a, b in uedges if a != b]
    keep = {u for u in units if u in pinned or u in g.roots}
    cplan = collapse.plan(units, uedges, kind, weight, keep, budget, fold=fold, roots=g.roots)
    refused = set()
    while True:
        # Units merged by collapse: refuse the summaries on a cycle (none in practice).
        owner = {m: cg.id for cg in cplan.groups if cg.id not in refused for m in cg.members}
        bad = {owner[u] for u in _on_cycles(units, uedges, owner.get) if u in owner}
        if not bad:
            break
        refused |= bad
    return merge_groups(g, groups, group_of, cluster_of, cplan, owner)
