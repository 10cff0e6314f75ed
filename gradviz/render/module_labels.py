"""The boxes and clusters of a picture grouped by module (``modules``): their members,
titles ('model.transformer.h.1–11 (GPT2Block) ×11'), counts, and which cluster each
drawn thing sits in. Kept apart from ``modules`` so that one decides and this one names.

Cluster keys: ``m:PATH`` for a module drawn open, ``s:K`` for the cluster around a
folded run of siblings (its first block drawn, the rest one box).
"""
import re
from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True, slots=True)
class ModuleGroup:
    """A box: a module call, a folded run of siblings or calls, or a collapse summary."""
    id: str  # 'g0', 'g1', ... in the order of their first member
    members: Tuple[str, ...]
    counts: Tuple[Tuple[str, int], ...]  # (kind, count), most frequent first
    weight: int
    title: Tuple[str, ...] = ()  # 'model.h.3 (GPT2Block)'; empty: a collapse summary
    repeats: int = 0  # blocks a folded run holds (0: a single module call or a summary)
    cluster: Optional[str] = None  # key of the cluster it is drawn in

    @property
    def size(self):
        return len(self.members)


@dataclass(frozen=True)
class Cluster:
    key: str
    label: str
    parent: Optional[str]

ACCUMULATE = ("AccumulateGrad",)


def span(first, last):
    """'model.h.0–11' for model.h.0 .. model.h.11; 'a … b' when they differ elsewhere."""
    if first == last:
        return first
    a, b = first.rsplit(".", 1), last.rsplit(".", 1)
    if len(a) == len(b) == 2 and a[0] == b[0] and a[1].isdigit() and b[1].isdigit():
        return f"{a[0]}.{a[1]}–{b[1]}"
    if len(a) == len(b) == 1 and a[0].isdigit() and b[0].isdigit():
        return f"{a[0]}–{b[0]}"
    return f"{first} … {last}"


class Keys:
    """Which cluster a module, a box or a fold is drawn in."""

    def __init__(self, g):
        self.g, self.tree, self.folds = g, g.tree, g.folds
        self.first_of = {}  # module in a fold's first block -> the fold's key
        for key, info in self.folds.info.items():
            for path in info.get("first", ()):
                self.first_of[path] = key

    def of_module(self, path):
        return f"m:{path}"

    def parent(self, ckey):
        if ckey.startswith("s:"):
            parent = self.folds.info[("sib", int(ckey[2:]))]["parent"]
            return None if parent is None else self.of_module(parent)
        path = ckey[2:]
        fold = self.first_of.get(path)
        if fold is not None:
            return f"s:{fold[1]}"
        parent = self.tree.modules[path].parent
        return None if parent is None else self.of_module(parent)

    def of_key(self, key):
        if key[0] == "sib":
            return f"s:{key[1]}"
        if key[0] == "loop":
            return self.of_module(self.folds.info[key]["module"])
        path = key[1]
        if self.tree.modules[path].calls >= 3 and any(k[0] == path for k in self.folds.loop_of):
            return self.of_module(path)  # a loop's first call sits beside the summary of the others
        return self.parent(self.of_module(path))

    def label(self, ckey):
        if ckey.startswith("s:"):
            info = self.folds.info[("sib", int(ckey[2:]))]
            return f"{span(*info['all'])} ({', '.join(info['types'])}) ×{info['repeats']}"
        mod = self.tree.modules[ckey[2:]]
        return f"{mod.path} ({mod.type})" + (f" ×{mod.calls} calls" if mod.calls > 1 else "")

    def chain(self, ckey):
        out = []
        while ckey is not None:
            out.append(ckey)
            ckey = self.parent(ckey)
        out.reverse()
        return out


def _counts(kinds):
    counts = {}
    for k in kinds:
        counts[k] = counts.get(k, 0) + 1
    return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _inside(n, params, noun, blocks=1):
    """'×37 nodes, 4 parameters', or 'each ×37 nodes' for a run of equal blocks."""
    if blocks > 1 and n % blocks == 0 and params % blocks == 0:
        text = f"each ×{n // blocks:,} {noun}"
        n, params = n // blocks, params // blocks
    else:
        text = f"×{n:,} {noun}"
    return text + (f", {params:,} parameter{'s' if params != 1 else ''}" if params else "")


def title(keys, key, members, kind, noun):
    """The lines of a box's label: what module (or run of them) it is, and what it holds."""
    tree, info = keys.tree, keys.folds.info.get(key)
    params = sum(1 for m in members if kind[m] in ACCUMULATE)
    members = [m for m in members if kind[m] != "tensor"]  # the forward view counts its ops, not values
    if key[0] == "box":
        mod = tree.modules[key[1]]
        head = f"{mod.path} ({mod.type})" + (f" call {key[2]}" if mod.calls > 1 else "")
        return (head, _inside(len(members), params, noun)), 0
    if key[0] == "sib":
        rest, reps = info["rest"], info["repeats"] - 1
        period = len(info["first"])
        head = f"{span(rest[0], rest[-1])} ({', '.join(info['types'])}) ×{reps}"
        if period > 1:
            head += f" blocks of {period}"
        return (head, _inside(len(members), params, noun, reps)), reps
    mod = tree.modules[info["module"]]
    a, b = info["calls"]
    head = f"{mod.path} ({mod.type}) calls {a}–{b} ×{b - a + 1}"
    return (head, _inside(len(members), params, noun, b - a + 1)), b - a + 1


def build_groups(g, assign, noun):
    """(groups, group_of, cluster_of, clusters) of an assignment item -> key."""
    keys = Keys(g)
    by_key = {}
    for item in g.items:  # item order: groups are numbered by their first member
        key = assign.get(item)
        if key is not None:
            by_key.setdefault(key, []).append(item)
    groups, group_of, cluster_of = [], {}, {}
    for key, members in by_key.items():
        gid = f"g{len(groups)}"
        lines, reps = title(keys, key, members, g.kind, noun)
        ckey = keys.of_key(key)
        groups.append(ModuleGroup(gid, tuple(members), _counts(g.kind[m] for m in members),
                                  sum(g.weight[m] for m in members), lines, reps, ckey))
        for m in members:
            group_of[m] = gid
        if ckey is not None:
            cluster_of[gid] = ckey
    for item in g.items:
        p = g.place.get(item)
        if item not in group_of and p is not None and p[0] in g.tree.modules:
            cluster_of[item] = keys.of_module(p[0])
    return groups, group_of, cluster_of, clusters_of(keys, cluster_of)


def clusters_of(keys, cluster_of):
    """Every cluster something is drawn in, with its ancestors, parents first (stable)."""
    out, seen = [], set()
    for ckey in cluster_of.values():
        for c in keys.chain(ckey):
            if c not in seen:
                seen.add(c)
                out.append(c)
    depth = {c: len(keys.chain(c)) for c in out}
    out.sort(key=lambda c: (depth[c], _natural(c)))
    return [Cluster(c, keys.label(c), keys.parent(c)) for c in out]


def _natural(text):
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", text)]


def _common(chains):
    first = chains[0]
    k = len(first)
    for ch in chains[1:]:
        k = min(k, len(ch))
        for i in range(k):
            if ch[i] != first[i]:
                k = i
                break
    return first[k - 1] if k else None


def merge_groups(g, groups, group_of, cluster_of, cplan, owner):
    """Fold ``collapse``'s summaries (over items and module boxes) into the groups:
    (groups, group_of, cluster_of, items summarised)."""
    keys = Keys(g)
    by_id = {grp.id: grp for grp in groups}
    merged = {}  # collapse group id -> [units]
    for unit, cid in owner.items():
        merged.setdefault(cid, []).append(unit)
    absorbed = {u for units in merged.values() for u in units if u in by_id}
    out = [grp for grp in groups if grp.id not in absorbed]
    summarized = 0
    for cid in sorted(merged, key=lambda c: int(c[1:])):
        units = merged[cid]
        members, kinds = [], []
        for u in units:
            if u in by_id:
                members += by_id[u].members
                kinds.append(by_id[u].title[0].split(" (")[-1].split(")")[0] if by_id[u].title else "summary")
            else:
                members.append(u)
                kinds.append(g.kind[u])
        summarized += len(members)
        chains = [keys.chain(cluster_of[u]) if u in cluster_of else [] for u in units]
        ckey = _common(chains) if all(chains) else None
        rep = next(cg.repeats for cg in cplan.groups if cg.id == cid)
        out.append(ModuleGroup("", tuple(sorted(members, key=g.order.__getitem__)), _counts(kinds),
                               sum(g.weight[m] for m in members), (), rep, ckey))
    out.sort(key=lambda grp: g.order[grp.members[0]])
    groups, group_of, new_cluster = [], {}, {}
    for k, grp in enumerate(out):
        gid = f"g{k}"
        groups.append(ModuleGroup(gid, grp.members, grp.counts, grp.weight, grp.title, grp.repeats, grp.cluster))
        for m in grp.members:
            group_of[m] = gid
        if grp.cluster is not None:
            new_cluster[gid] = grp.cluster
    for item, ckey in cluster_of.items():
        if item in g.order and item not in group_of:
            new_cluster[item] = ckey
    return groups, group_of, new_cluster, summarized
