"""The saved-for-backward ledger (``gradviz run --memory``): what each backward call's
graph holds for backward, counted by storage, as the call starts (before it frees).

Per node, per module, per line and in total; parameters apart from activations (the
values the forward computed). A module's activations are what checkpointing it would
free, at most (a checkpoint keeps the module's inputs). A storage that several
saved tensors share (a view, the same tensor saved twice) counts once, with the first
node that holds it, in the order of the snapshot's walk (``n<k>``).
"""
from .model import MemoryLedger
from .walk import walk

TOP = 20  # nodes and lines listed; modules are all listed


class MemoryWatch:
    """Takes the ledger of each backward call as it starts. The engine's functions:
    ``storages(node)``, [(storage key, bytes)] of what the node saved; ``place(node)``,
    (module path or None, site) of the op that made it; ``key(tensor)``, a tensor's
    storage key (a saved storage that is a leaf's, one the graph accumulates into, is a
    parameter's)."""

    def __init__(self, storages, place, key):
        self.storages, self.place, self.key = storages, place, key
        self.ledgers = []

    def start(self, root_nodes, next_nodes, call_index, call_site):
        order, _ = walk([n for n in root_nodes if n is not None], next_nodes)
        seen = {}  # storage key -> (node index, bytes)
        where, leaves = [], set()
        for k, node in enumerate(order):
            where.append(self.place(node))
            variable = getattr(node, "variable", None)
            if variable is not None:
                leaves.add(self.key(variable))
            try:
                held = self.storages(node)
            except Exception:  # noqa: BLE001 - a node whose slots cannot be read counts nothing
                held = ()
            for key, size in held:
                seen.setdefault(key, (k, size))
        seen = {key: (k, size, key in leaves) for key, (k, size) in seen.items()}
        self.ledgers.append(_ledger(seen, where, order, len(self.ledgers) + 1, call_site))  # counted per run


def _ledger(seen, where, order, call_index, call_site):
    by_node, by_module, by_line = {}, {}, {}
    parameters = activations = 0
    for k, size, parameter in seen.values():
        module, site = where[k]
        by_node[k] = by_node.get(k, 0) + size
        if site:
            by_line[site] = by_line.get(site, 0) + size
        if parameter:
            parameters += size
            continue
        activations += size
        path = module
        while path:  # a module holds what its submodules hold
            by_module[path] = by_module.get(path, 0) + size
            path = path.rsplit(".", 1)[0] if "." in path else None
    top_nodes = sorted(by_node.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
    top_lines = sorted(by_line.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
    return MemoryLedger(
        call=call_index, site=call_site, saved_bytes=parameters + activations, parameter_bytes=parameters,
        activation_bytes=activations, storages=len(seen),
        by_node=tuple((f"n{k}", type(order[k]).__name__, size) for k, size in top_nodes),
        by_module=tuple(sorted(by_module.items(), key=lambda kv: (-kv[1], kv[0]))),
        by_line=tuple(top_lines))


def numpy_storage(array):
    """(key, bytes) of the buffer a numpy array views: its first base that owns its data."""
    base = array
    while getattr(base, "base", None) is not None and hasattr(base.base, "nbytes"):
        base = base.base
    return id(base), int(base.nbytes)
