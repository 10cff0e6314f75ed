"""The backward graph as a rich Tree, for the terminal (``--tree``).

Reads only a ``GraphSnapshot``. The walk is iterative (explicit stack). A node reached
a second time (a shared weight, a value used twice) is shown once; later references
say which node they point back to. A chain of the same node repeated (``TanhBackward0``
100,000 times) is shown as one line, and the tree stops at ``max_depth`` levels and
``max_nodes`` lines, saying what it left out. rich is imported when a tree is built.
"""
import os

MIN_RUN = 3  # same-name single-child chains at least this long become one line


def backward_tree(snap, *, max_depth=40, max_nodes=2000, show_saved=True, show_sites=True):
    """A ``rich.tree.Tree`` of ``snap``'s backward graph, from its roots."""
    from rich.text import Text
    from rich.tree import Tree

    roots = ", ".join(r.name or "?" for r in snap.roots) or "?"
    top = Tree(Text.assemble(("backward graph of ", "bold"), (roots, "bold green")))
    nodes = {n.id: n for n in snap.nodes}
    seen = set()
    shown = 0
    cut_depth = False
    # Stack entries: (parent Tree, node id, depth, edge text). Pushed in reverse so
    # children appear in next_functions order.
    stack = []
    for r in reversed(snap.roots):
        if r.node is None:
            top.add(Text(f"{r.name or 'root'}: no grad_fn (leaf or no grad)", style="dim"))
        else:
            stack.append((top, r.node, 0, None))
    while stack:
        parent, nid, depth, edge = stack.pop()
        node = nodes[nid]
        if shown >= max_nodes:
            top.add(Text(f"… stopped after {max_nodes} lines ({len(snap.nodes)} nodes in all)", style="dim"))
            break
        shown += 1
        if nid in seen:
            parent.add(_ref_text(node, edge))
            continue
        seen.add(nid)
        branch = parent.add(_node_text(node, edge, show_sites))
        if show_saved:
            for x in node.saved:
                if x.is_tensor:
                    branch.add(_saved_text(x, node))
        node, run = _run_end(node, nodes, seen)
        if run:
            seen.update(run)
            branch = branch.add(Text(f"×{len(run)} {node.label_name} (same node repeated: {run[0]} … {run[-1]})",
                                     style="yellow"))
            node = nodes[run[-1]]
        if depth + 1 > max_depth:
            if any(e.target is not None for e in node.edges):
                branch.add(Text("… deeper nodes not shown (max depth)", style="dim"))
                cut_depth = True
            continue
        many = sum(1 for e in node.edges if e.target is not None) > 1
        for e in reversed(node.edges):
            if e.target is not None:
                stack.append((branch, e.target, depth + 1, f"[{e.input}] " if many else None))
    if cut_depth:
        top.add(Text(f"(deeper than {max_depth} levels is not shown)", style="dim"))
    return top


def print_tree(snap, console=None, **options):
    """Print the tree (to stdout unless a rich Console is given)."""
    if console is None:
        from rich.console import Console
        console = Console()
    console.print(backward_tree(snap, **options))


def _run_end(node, nodes, seen):
    """Follow single-child links through nodes of the same name: (first node, [ids])."""
    run, in_run = [], set()
    current = node
    while True:
        targets = [e.target for e in current.edges if e.target is not None]
        if len(targets) != 1 or targets[0] in seen or targets[0] in in_run:
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


def _node_text(node, edge, show_sites):
    from rich.text import Text
    t = Text()
    if edge:
        t.append(edge, style="dim")
    if node.leaf is not None:
        t.append("AccumulateGrad", style="bold cyan")
        leaf = node.leaf
        t.append(f" → {leaf.name or 'leaf'} {_shape(leaf.shape)}", style="cyan")
        if leaf.dtype != "float32":
            t.append(f" {leaf.dtype}", style="cyan")
        t.append(f"  grad {_shape(leaf.grad.shape)}" if leaf.grad is not None else "  grad None", style="dim")
    else:
        t.append(node.label_name, style="bold")
        if node.inner:
            t.append(f" ({node.inner})")
        if node.output_names:
            t.append(" → " + ", ".join(node.output_names), style="green")
    t.append(f"  {node.id}", style="dim")
    if show_sites and node.site:
        t.append(f"  {os.path.basename(node.site[0])}:{node.site[1]}", style="dim")
    return t


def _ref_text(node, edge):
    from rich.text import Text
    t = Text()
    if edge:
        t.append(edge, style="dim")
    name = node.label_name if node.leaf is None else f"AccumulateGrad → {node.leaf.name or 'leaf'}"
    t.append(f"{name}  {node.id} (shared, shown above)", style="dim italic")
    return t


def _saved_text(x, node):
    from rich.text import Text
    t = Text(x.attr, style="yellow")
    if x.tensor_name:
        t.append(f" = {x.tensor_name}", style="yellow")
    elif x.kind == "scalar":
        t.append(f" = {x.text} (scalar)", style="yellow")
        return t
    t.append(f" {_shape(x.shape)}" + (f" {x.dtype}" if x.dtype and x.dtype != "float32" else ""))
    if x.freed:
        call = node.freed_by
        where = f" at {os.path.basename(call.site[0])}:{call.site[1]}" if call and call.site else ""
        t.append(f"  freed by {call.kind if call else 'backward'}{where}", style="red")
    elif x.stale:
        t.append(f"  saved at v{x.saved_version}, now v{x.current_version} (modified in place)", style="bold red")
    return t


def _shape(shape):
    return "(" + ", ".join(str(s) for s in shape) + ")" if shape is not None else "?"
