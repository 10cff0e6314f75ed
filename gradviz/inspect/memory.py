"""The saved-for-backward ledger (``gradviz run --memory``): what each backward call's
graph holds for backward, counted by storage, as the call starts (before it frees).

Per node, per module, per line and in total; parameters apart from activations (the
values the forward computed). A storage that several saved tensors share (a view, the
same tensor saved twice) counts once, with the first node that holds it, in the order of
the snapshot's walk (``n<k>``).

- **Freed.** As the call ends, what it freed; what it kept (``retain_graph=True``) is
  followed to the later call that frees it.
- **Peak.** The forward only adds to what a graph holds, so the most held for backward is
  reached as some call begins: its graph, plus what earlier graphs still keep.
- **What checkpointing a module saves.** The activations only that module's nodes hold,
  less its inputs, which a checkpoint keeps to recompute the module in backward.
"""
import dataclasses

from .model import MemoryLedger
from .walk import walk

TOP = 20  # nodes and lines listed; modules are all listed


class MemoryWatch:
    """Takes the ledger of each backward call as it starts, and what it freed as it ends.
    The engine's functions: ``storages(node)``, [(storage key, bytes)] of what the node
    saved; ``place(node)``, (module path or None, site) of the op that made it;
    ``key(tensor)``, a tensor's storage key (a saved storage that is a leaf's, one the graph
    accumulates into, is a parameter's). ``module_called`` is the module tracker's
    ``on_call``: it notes each module call's inputs, and the module's parameters."""

    def __init__(self, storages, place, key):
        self.storages, self.place, self.key = storages, place, key
        self.ledgers = []
        self._inputs = {}  # module path -> storage keys of its inputs, since the last backward call
        self._open = None  # (the call's nodes, {key: bytes}) while a call runs
        self._kept = {}  # storage key -> (index of the ledger that kept it, bytes)
        self._modules = set()  # ids of the modules whose parameters are known
        self._params = set()  # storage keys of their parameters
        self._graphs = {}  # ledger index -> ids of its graph's nodes, while something of it is kept
        self._graph_inputs = {}  # ledger index -> the module inputs of the forward that made its graph

    def module_called(self, path, module, args):
        if id(module) not in self._modules:  # its parameters, frozen ones too: never an activation
            self._modules.add(id(module))
            for p in module.parameters(recurse=False):
                self._params.add(self.key(p))
        keys = self._inputs.setdefault(path, set())
        for arg in args:
            for t in (arg if isinstance(arg, (list, tuple)) else (arg,)):
                if hasattr(t, "requires_grad") and hasattr(t, "shape"):
                    try:
                        keys.add(self.key(t))
                    except Exception:  # noqa: BLE001 - a tensor without storage keeps nothing
                        pass

    def start(self, root_nodes, next_nodes, call_index, call_site):
        order, _ = walk([n for n in root_nodes if n is not None], next_nodes)
        seen = {}  # storage key -> [node index, bytes, module paths holding it]
        where, leaves = [], set()
        for k, node in enumerate(order):
            where.append(self.place(node))
            variable = getattr(node, "variable", None)
            if variable is not None:
                leaves.add(self.key(variable))
            for key, size in self._held(node):
                entry = seen.get(key)
                if entry is None:
                    seen[key] = [k, size, {where[k][0]}]
                else:
                    entry[2].add(where[k][0])
        earlier = sum(size for key, (_, size) in self._kept.items() if key not in seen)
        nodes = {id(node) for node in order if getattr(node, "variable", None) is None}  # a leaf's is shared
        again = next((i for i, kept in self._graphs.items() if not nodes.isdisjoint(kept)), None)
        if again is not None:  # a graph an earlier call kept: the inputs of the forward that made it
            inputs = self._graph_inputs[again]
        else:
            inputs, self._inputs = self._inputs, {}
        ledger = _ledger(seen, leaves | self._params, where, order, len(self.ledgers) + 1, call_site, inputs)
        self.ledgers.append(dataclasses.replace(ledger, peak_bytes=ledger.saved_bytes + earlier,
                                                earlier_bytes=earlier))
        self._open = (order, nodes, inputs, {key: entry[1] for key, entry in seen.items()})

    def end(self):
        """The call that started last has ended: what it freed, and what it kept. A storage
        an earlier call kept counts as freed by this one only if this call ran through that
        call's graph (a parameter two graphs save stays with the first until it is freed)."""
        if self._open is None:
            return
        order, nodes, inputs, sizes = self._open
        self._open = None
        still = set()
        for node in order:
            still.update(key for key, _ in self._held(node))
        index = len(self.ledgers) - 1
        self._graphs[index], self._graph_inputs[index] = nodes, inputs
        freed = 0
        for key, size in sizes.items():
            if key in still:
                self._kept.setdefault(key, (index, size))
                continue
            freed += size
            kept_by = self._kept.get(key)
            if kept_by is not None and kept_by[0] != index and not nodes.isdisjoint(self._graphs[kept_by[0]]):
                del self._kept[key]  # an earlier call kept it, and this one, through its graph, freed it
                self._freed_later(kept_by[0], size)
        for i in [i for i in self._graphs if not any(k == i for k, _ in self._kept.values())]:
            del self._graphs[i], self._graph_inputs[i]  # nothing of that graph is kept any more
        self.ledgers[index] = dataclasses.replace(self.ledgers[index], freed_bytes=freed,
                                                  kept_bytes=sum(s for k, s in sizes.items() if k in still))

    def _freed_later(self, ledger_index, size):
        ledger = self.ledgers[ledger_index]
        call = len(self.ledgers)
        later = dict(ledger.freed_later)
        later[call] = later.get(call, 0) + size
        self.ledgers[ledger_index] = dataclasses.replace(ledger, freed_later=tuple(sorted(later.items())))

    def _held(self, node):
        try:
            return self.storages(node)
        except Exception:  # noqa: BLE001 - a node whose slots cannot be read counts nothing
            return ()


def _ancestors(path):
    """'a.b.c' -> 'a.b.c', 'a.b', 'a'; None -> nothing."""
    while path:
        yield path
        path = path.rsplit(".", 1)[0] if "." in path else None


def _common(paths):
    """The innermost module that holds every one of ``paths`` (None: one is outside all)."""
    paths = list(paths)
    if any(p is None for p in paths):
        return None
    common = paths[0]
    for p in paths[1:]:
        while common and not (p == common or p.startswith(common + ".")):
            common = common.rsplit(".", 1)[0] if "." in common else None
    return common


def _ledger(seen, params, where, order, call_index, call_site, inputs):
    by_node, by_module, by_line, frees = {}, {}, {}, {}
    parameters = activations = 0
    for key, (k, size, holders) in seen.items():
        module, site = where[k]
        by_node[k] = by_node.get(k, 0) + size
        if site:
            by_line[site] = by_line.get(site, 0) + size
        if key in params:  # a parameter's storage stays, whatever a checkpoint does
            parameters += size
            continue
        activations += size
        for path in _ancestors(module):  # a module holds what its submodules hold
            by_module[path] = by_module.get(path, 0) + size
        for path in _ancestors(_common(holders)):  # held by its nodes only, and not its input
            if key not in inputs.get(path, ()):
                frees[path] = frees.get(path, 0) + size
    top_nodes = sorted(by_node.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
    top_lines = sorted(by_line.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
    return MemoryLedger(
        call=call_index, site=call_site, saved_bytes=parameters + activations, parameter_bytes=parameters,
        activation_bytes=activations, storages=len(seen),
        by_node=tuple((f"n{k}", type(order[k]).__name__, size) for k, size in top_nodes),
        by_module=tuple(sorted(by_module.items(), key=lambda kv: (-kv[1], kv[0]))),
        by_line=tuple(top_lines),
        checkpoint_frees=tuple(sorted(frees.items(), key=lambda kv: (-kv[1], kv[0]))))


def numpy_storage(array):
    """(key, bytes) of the buffer a numpy array views: its first base that owns its data."""
    base = array
    while getattr(base, "base", None) is not None and hasattr(base.base, "nbytes"):
        base = base.base
    return id(base), int(base.nbytes)
