"""The backward graph as rich Trees, for the terminal (``--tree``).

Reads only a ``GraphSnapshot``. The walk is iterative (explicit stack). A node reached
a second time (a shared weight, a value used twice) is shown once; later references
say which node they point back to. The tree stays readable at any size and width:

- Loops are folded as the picture folds them (``collapse``'s repeat pass): the first and
  last block of a loop are shown, the blocks between are one line, "×58 repeated
  blocks, each: ...". A chain of the same node repeated (``TanhBackward0`` 100,000
  times) is one line too.
- Indentation stops growing: past the depth the terminal's width allows, the branch
  says "continued in part 2" and part 2 starts again at the left margin. After
  ``max_depth`` levels in all, or ``max_nodes`` lines, the tree says what it left out.
- A node shows at most ``max_children`` inputs and says how many more it has.
- Labels are never wrapped: a line that does not fit drops its detail (node id, file
  and line) first, and is cut with "…" only when even its name does not fit.

rich is imported when a tree is built.
"""
import os

from ..safe_text import visible_line as _v  # names from the script: shown, never obeyed

from . import collapse, modules
from .values import format_shape

MIN_RUN = 3  # same-name single-child chains at least this long become one line
GUIDE = 4  # columns rich's tree guides take per level
LABEL_ROOM = 40  # columns kept for the label at the deepest indentation
MIN_PART_DEPTH = 6  # levels per part, however narrow the terminal
TREE_LINES = 110  # lines a tree grouped by module aims at (shared inputs shown again add some)


def backward_tree(snap, *, max_depth=200, max_nodes=2000, max_children=12, width=None, show_saved=True,
                  show_sites=True, depth=None):
    """A rich renderable (a Group of Trees) of ``snap``'s backward graph, from its roots.

    width: the columns it is printed in (default: 100): how deep a part may indent.
    depth: module levels shown open, as the picture's --depth (None: the tree stays short).
    """
    from rich.console import Group
    from rich.text import Text
    from rich.tree import Tree

    width = width or 100
    per_part = max(MIN_PART_DEPTH, (width - LABEL_ROOM) // GUIDE)
    nodes = {n.id: n for n in snap.nodes}
    names = _forward_names(snap)
    loops = _loops(snap, depth, show_saved)
    below = _heights(snap)
    roots = ", ".join(r.name or "?" for r in snap.roots) or "?"
    top = Tree(Text.assemble(("backward graph of ", "bold"), (_v(roots), "bold green")))
    parts = [top]
    seen = set()
    shown = 0
    stopped = False
    cut_depth = 0
    # Stack entries: (parent Tree, node id or ('loop', gid), depth in all, depth in this
    # part, edge text). Pushed in reverse so children appear in next_functions order.
    stack = []
    for r in reversed(snap.roots):
        if r.node is None:
            top.add(Text(f"{_v(r.name or 'root')}: no grad_fn (leaf or no grad)", style="dim"))
        else:
            stack.append((top, r.node, 0, 0, None))
    pending = []  # (Tree of a continued part, node, depth): walked once the current part is done
    while stack or pending:
        if not stack:
            tree, nid, depth = pending.pop(0)
            parts.append(tree)
            stack.append((tree, nid, depth, 0, None))
        parent, nid, depth, local, edge = stack.pop()
        if shown >= max_nodes:
            stopped = True
            break
        shown += 1
        room = width - GUIDE * (local + 1)
        if nid in seen:
            parent.add(_fit(_ref_text(nodes[nid], edge), room))
            continue
        if local >= per_part and depth < max_depth:
            # Indenting further would squeeze the labels: continue at the left margin.
            k = len(parts) + len(pending) + 1
            parent.add(_fit(Text(f"{edge or ''}… continued in part {k} below", style="magenta"), room))
            title = Text.assemble((f"part {k}", "bold magenta"), (f": continued from level {depth}", "magenta"))
            pending.append((Tree(title), nid, depth))
            continue
        if depth >= max_depth:
            cut_depth = max(cut_depth, below.get(nid, 0))
            parent.add(_fit(Text(f"{edge or ''}… {below.get(nid, 0) + 1} more levels not shown "
                                 f"(max depth {max_depth})", style="dim"), room))
            continue
        group = loops.group_of.get(nid)
        if group is not None:
            grp = loops.groups[int(group[1:])]
            seen.update(grp.members)
            head, each, span = _loop_text(grp, edge)
            if each is not None and head.cell_len + each.cell_len <= room:
                branch = parent.add(_fit([head + each + span, head + each], room))
            else:  # what a block holds on lines of its own, rather than cut
                branch = parent.add(_fit([head + span, head], room))
                if getattr(grp, "title", ()):  # a module box: its one-line summary
                    branch.add(_fit(Text(_v(grp.title[1]), style=each.style), room - GUIDE))
                else:  # a loop: one kind a line
                    for k, c in (_per_block(grp) or ()) if each is not None else ():
                        branch.add(Text(f"each: {c} {k}", style="yellow"))
            targets = _exits(grp, nodes, loops)
        else:
            seen.add(nid)
            node = nodes[nid]
            branch = parent.add(_fit(_node_text(node, edge, show_sites, names), room))
            if show_saved:
                for x in node.saved:
                    if x.is_tensor:
                        branch.add(_fit(_saved_text(x, node, names), room - GUIDE))
            node, run = _run_end(node, nodes, seen, loops)
            if run:
                seen.update(run)
                branch = branch.add(_fit(Text(f"×{len(run)} {_v(node.label_name)} (same node repeated: "
                                              f"{run[0]} … {run[-1]})", style="yellow"), room - GUIDE))
                local += 1
                node = nodes[run[-1]]
            targets = [(e.target, e.input) for e in node.edges if e.target is not None]
        many = len(targets) > 1
        if len(targets) > max_children:
            extra = len(targets) - max_children
            targets = targets[:max_children]
            branch.add(Text(f"… {extra} more inputs not shown", style="dim"))
        for target, k in reversed(targets):
            stack.append((branch, target, depth + 1, local + 1, f"[{k}] " if many and k is not None else None))
    if stopped:
        top.add(Text(f"… stopped after {max_nodes} lines ({len(snap.nodes)} nodes in all)", style="dim"))
    if cut_depth:
        top.add(Text(f"(deeper than {max_depth} levels is not shown)", style="dim"))
    return Group(*parts) if len(parts) > 1 else top


def print_tree(snap, console=None, **options):
    """Print the tree (to stdout unless a rich Console is given), as wide as the console."""
    if console is None:
        from rich.console import Console
        console = Console()
    options.setdefault("width", console.width)
    console.print(backward_tree(snap, **options))


# --------------------------------------------------------------------------- structure


def _loops(snap, depth=None, show_saved=True):
    """The picture's repeat pass over the backward graph: which nodes are folded loops;
    with module info, the picture's grouping by module (``modules``) with a budget of lines."""
    nodes = snap.nodes
    edges = [(n.id, e.target) for n in nodes for e in n.edges if e.target is not None]
    roots = {r.node for r in snap.roots if r.node is not None}
    place = {n.id: (n.module, n.module_call) for n in nodes if n.module}
    if place:
        lines = {n.id: 1 + (sum(1 for x in n.saved if x.is_tensor) if show_saved else 0) for n in nodes}
        return modules.plan([n.id for n in nodes], edges, {n.id: n.label_name for n in nodes}, lines, place,
                            snap.modules, roots=roots, pinned=roots, budget=TREE_LINES, depth=depth)
    plan = collapse.plan([n.id for n in nodes], edges, {n.id: n.label_name for n in nodes},
                         dict.fromkeys((n.id for n in nodes), 1), roots, budget=0, fold=True, roots=roots)
    return plan


def _exits(grp, nodes, loops):
    """Where a folded loop leads: the inputs of its members outside it, once each."""
    inside = set(grp.members)
    out, seen = [], set()
    for m in grp.members:
        for e in nodes[m].edges:
            t = e.target
            if t is not None and t not in inside and t not in seen:
                seen.add(t)
                out.append((t, None))
    return out


def _heights(snap):
    """Longest path (in nodes) below each node, iteratively, leaves first."""
    nodes = snap.nodes
    pending = {n.id: sum(1 for e in n.edges if e.target is not None) for n in nodes}
    users = {n.id: [] for n in nodes}
    for n in nodes:
        for e in n.edges:
            if e.target is not None:
                users[e.target].append(n.id)
    height = {}
    queue = [nid for nid, k in pending.items() if k == 0]
    for nid in queue:
        height[nid] = 0
    head = 0
    while head < len(queue):
        v = queue[head]
        head += 1
        for u in users[v]:
            height[u] = max(height.get(u, 0), height[v] + 1)
            pending[u] -= 1
            if pending[u] == 0:
                queue.append(u)
    return height


def _run_end(node, nodes, seen, loops):
    """Follow single-child links through nodes of the same name: (first node, [ids])."""
    run, in_run = [], set()
    current = node
    while True:
        targets = [e.target for e in current.edges if e.target is not None]
        if len(targets) != 1 or targets[0] in seen or targets[0] in in_run or targets[0] in loops.group_of:
            break
        child = nodes[targets[0]]
        if child.name != node.name:
            break
        run.append(child.id)
        in_run.add(child.id)
        current = child
    if len(run) < MIN_RUN:
        return node, []
    return node, run


def _forward_names(snap):
    return {v.id: v.name for v in snap.values if v.kind == "tensor" and v.name not in ("tensor", "leaf")}


# --------------------------------------------------------------------------- lines


def _fit(label, room):
    """A label on one line of ``room`` columns. ``label`` is a Text, or a list of ways to
    write it, longest first (with node id and file:line, then without; 'freed by
    backward at x.py:3', then 'freed'): the first that fits is used. Only when none fits
    is the shortest cut, with "…"."""
    choices = label if isinstance(label, list) else [label]
    text = next((t for t in choices if t.cell_len <= room), choices[-1])
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def _per_block(grp):
    """[(kind, count)] in one block of a folded loop, or None when blocks differ."""
    if not grp.repeats or any(c % grp.repeats for _, c in grp.counts):
        return None
    return [(k, c // grp.repeats) for k, c in grp.counts]


def _loop_text(grp, edge):
    """(head, what each block holds or None, the node ids it spans)."""
    from rich.text import Text

    t = Text()
    if edge:
        t.append(edge, style="dim")
    if getattr(grp, "title", ()):  # a module box or a folded run of modules or calls
        t.append(_v(grp.title[0]), style="bold blue" if not grp.repeats else "bold yellow")
        return t, Text(", " + _v(grp.title[1]), style="blue" if not grp.repeats else "yellow"), \
            Text(f"  {grp.members[0]} … {grp.members[-1]}", style="dim")
    per = _per_block(grp)
    each = None
    if per is not None and len(per) == 1 and per[0][1] == 1:
        t.append(f"×{grp.repeats} {per[0][0]}", style="bold yellow")
    elif per is not None:
        t.append(f"×{grp.repeats} repeated blocks", style="bold yellow")
        each = Text(", each " + ", ".join(f"{c} {k}" for k, c in per), style="yellow")
    else:
        t.append(f"×{grp.size} nodes folded", style="bold yellow")
    return t, each, Text(f"  {grp.members[0]} … {grp.members[-1]}", style="dim")


def _node_text(node, edge, show_sites, names):
    from rich.text import Text
    t = Text()
    if edge:
        t.append(edge, style="dim")
    if node.leaf is not None:
        t.append("AccumulateGrad", style="bold cyan")
        leaf = node.leaf
        t.append(f" → {_v(leaf.name or 'leaf')} {_shape(leaf.shape)}", style="cyan")
        if leaf.dtype != "float32":
            t.append(f" {leaf.dtype}", style="cyan")
        grad = Text(f"  grad {_shape(leaf.grad.shape)}" if leaf.grad is not None else "  grad None", style="dim")
    else:
        grad = Text()
        t.append(_v(node.label_name), style="bold")
        if node.inner:
            t.append(f" ({_v(node.inner)})")
        if node.output_names:
            t.append(" → " + ", ".join(_v(n) for n in node.output_names), style="green")
        if node.recomputes_forward:
            t.append("  recomputes its forward in backward", style="cyan")
    detail = Text(f"  {node.id}", style="dim")
    if show_sites and node.site:
        detail.append(f"  {_v(os.path.basename(node.site[0]))}:{node.site[1]}", style="dim")
    ways = [t + grad + detail, t + grad + Text(f"  {node.id}", style="dim"), t + grad, t]
    if node.module:  # which module made it, first to go when the line is too long
        ways.insert(0, t + grad + detail + Text(f"  in {_v(node.module)}", style="dim blue"))
    return ways


def _ref_text(node, edge):
    from rich.text import Text
    t = Text()
    if edge:
        t.append(edge, style="dim")
    name = _v(node.label_name) if node.leaf is None else f"AccumulateGrad → {_v(node.leaf.name or 'leaf')}"
    t.append(f"{name}  {node.id}", style="dim italic")
    return [t + Text(" (shared, shown above)", style="dim italic"), t + Text(" (above)", style="dim italic"), t]


def _saved_text(x, node, names):
    """Ways to write a saved slot, longest first: with its forward name and where it was
    freed, then shorter."""
    from rich.text import Text

    name = x.tensor_name or names.get(x.value)
    name = _v(name) if name else name
    if not name and x.kind == "scalar":
        return Text(f"{x.attr} = {x.text} (scalar)", style="yellow")
    shape = f" {_shape(x.shape)}" + (f" {x.dtype}" if x.dtype and x.dtype != "float32" else "")
    heads = [Text.assemble((f"{x.attr} = {name}", "yellow"), shape)] if name else []
    heads.append(Text.assemble((x.attr, "yellow"), shape))
    if x.recomputed:
        tails = [Text("  recomputed in backward (checkpoint)", style="cyan"), Text("  recomputed", style="cyan")]
    elif x.freed:
        call = node.freed_by
        where = f" at {_v(os.path.basename(call.site[0]))}:{call.site[1]}" if call and call.site else ""
        tails = [Text(f"  freed by {call.kind if call else 'backward'}{where}", style="red"),
                 Text("  freed", style="red")]
    elif x.stale:
        tails = [Text(f"  saved at v{x.saved_version}, now v{x.current_version} (modified in place)",
                      style="bold red"), Text(f"  stale: v{x.saved_version}, now v{x.current_version}",
                                              style="bold red")]
    else:
        return heads
    return [h + t for h in heads for t in tails]


def _shape(shape):
    """As the table writes shapes, Python's way: (3,), (3, 4), ()."""
    return format_shape(shape) if shape is not None else "?"
