"""The one walk of a backward graph, for both engines.

Depth-first preorder from the roots with an explicit stack (never recursion: a
100,000-node chain is fine). The node ids it gives, ``n0, n1, ...`` in visiting order,
are the ids every snapshot uses, so anything that must name a snapshot's nodes walks
here too. Imports nothing of gradviz: the engine's nodes and PyTorch's are told apart
by the caller, which passes how to read a node's next nodes. ``hook_nodes`` and
``unhook`` put post hooks on a walk's nodes, and take them off (the replay and --nan).
"""


def walk(roots, next_nodes):
    """``([nodes], {id(node): 'n<k>'})`` of the graph reachable from ``roots``.

    next_nodes: ``fn(node) -> sequence`` of the nodes its edges lead to (None for an
    edge that leads nowhere), in edge order.
    """
    order, index = [], {}
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if id(node) in index:
            continue
        index[id(node)] = f"n{len(order)}"  # the node's id string, made once
        order.append(node)  # keeps the node alive while its id() is a key here
        nexts = next_nodes(node)
        for i in range(len(nexts) - 1, -1, -1):
            nxt = nexts[i]
            if nxt is not None and id(nxt) not in index:
                stack.append(nxt)
    return order, index


def hook_nodes(nodes, make_hook) -> list:
    """A post hook on each of ``nodes`` (``node.register_hook``, either engine):
    ``make_hook(k, node)`` makes the k-th one. Returns the handles, for ``unhook``."""
    handles = []
    for k, node in enumerate(nodes):
        try:
            handles.append(node.register_hook(make_hook(k, node)))
        except (RuntimeError, AttributeError, TypeError):  # a node that takes no hooks
            continue
    return handles


def unhook(handles) -> None:
    for handle in handles:
        try:
            handle.remove()
        except Exception:  # noqa: BLE001 - a node already gone
            pass
