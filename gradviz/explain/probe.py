"""A listener on the engine (``gradviz.torch.autograd.graph.LISTENERS``) that keeps the
facts a diagnosis and the lint need, and nothing heavy:

- per creation site (file, line): the first and last sequence number of the nodes created
  there and how many, so "this line ran again after that backward" is a lookup;
- the in-place ops that bumped a version counter, with their line (from the nodes the engine
  records for in-place ops on tensors that require grad; ``on_inplace`` adds the others when
  the engine emits it);
- every backward / autograd.grad call: kind, line, the newest node that existed when it
  started, its roots, the leaves it reached;
- for the lint: a copy of small saved tensors (to catch changes through ``.data``) and, per
  leaf, what the last backward that reached it saw (to catch gradients that keep
  accumulating across iterations).

Optional engine events (used when the engine emits them; see the report for their shape):
``on_inplace(tensor, op_name, site, version)``, ``on_data(tensor, site, kind)``,
``on_grad_read(tensor, site)``, ``on_scalar(tensor, kind, site)``,
``on_optimizer_step(optimizer, site)``.
"""
import weakref
import zlib

import numpy as np

#: Saved arrays larger than this are not copied for the .data check.
SNAPSHOT_MAX_ELEMENTS = 1 << 16
#: Stop copying once this many bytes of copies are alive.
SNAPSHOT_BUDGET = 64 << 20
#: Graph walks stop after this many nodes.
WALK_LIMIT = 50000
MAX_INPLACE_EVENTS = 20000


class CallRec:
    __slots__ = ("index", "kind", "site", "mark", "root_seqs", "roots", "finished", "failed", "opt_steps",
                 "retain_graph", "cell")

    def __init__(self, call, mark, roots, opt_steps, cell):
        self.index = getattr(call, "index", None)
        self.kind = getattr(call, "kind", "backward")
        self.site = getattr(call, "site", None)
        self.retain_graph = getattr(call, "retain_graph", None)  # when the engine provides it
        self.mark = mark  # the newest node sequence number when the call started
        self.root_seqs = tuple(n._sequence_nr() for n, _ in roots if n is not None)
        self.roots = tuple((weakref.ref(n), nr) for n, nr in roots if n is not None)
        self.finished = False
        self.failed = False
        self.opt_steps = opt_steps
        self.cell = cell


class Finding:
    """One lint observation, plain data."""
    __slots__ = ("id", "line", "file", "facts")

    def __init__(self, id, file, line, **facts):
        self.id, self.file, self.line, self.facts = id, file, line, facts


def _is_inplace(node, outputs):
    op = getattr(node, "_op", None)
    if type(node).__name__ == "CopySlices":
        return True
    if op is None or getattr(op, "view", False):
        return False
    return bool(outputs) and outputs[0]._vbox[0] > 0


def walk(roots, limit=WALK_LIMIT):
    """Every node reachable from root nodes (iterative)."""
    seen = set()
    order = []
    stack = [n for n in roots if n is not None]
    while stack and len(order) < limit:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        order.append(n)
        for nxt, _ in getattr(n, "next_functions", ()):
            if nxt is not None and nxt not in seen:
                stack.append(nxt)
    return order


def _checksum(arr):
    if arr.size > SNAPSHOT_MAX_ELEMENTS * 16:
        return None
    return zlib.crc32(np.ascontiguousarray(arr).view(np.uint8))


class Probe:
    def __init__(self, lint=True):
        self.lint = lint
        self.ns = None
        self.code_path = None
        self.max_seq = -1
        self.sites = {}  # site -> [first_seq, last_seq, count]
        self.inplace = {}  # id(vbox) -> (vbox, [(version, op_name, site)])
        self.calls = []
        self.depth = 0
        self.leaves = {}  # id(leaf) -> [weakref, call index, site, version, checksum]
        self.reached = set()  # id(leaf) of leaves reached by any backward (weakref-checked in leaves)
        self.findings = []
        self._snap = weakref.WeakKeyDictionary()  # node -> [(slot, saved, copy)]
        self._snap_bytes = 0
        self._accum_sites = set()
        self._data_reported = set()
        self.grad_reads = []  # (tensor ref, site) from on_grad_read
        self.scalars = []  # (kind, site, requires_grad) from on_scalar
        self.data_events = []  # (vbox id, site, kind) from on_data
        self.steps = []  # (optimizer ref, site) from on_optimizer_step
        self.cell = 0

    # -- lifecycle ---------------------------------------------------------------------
    def attach(self, ns, code_path, source):
        self.ns, self.code_path = ns, code_path

    def detach(self):
        pass

    def flush_cell(self):
        self.cell += 1

    # -- engine events -----------------------------------------------------------------
    def on_node(self, node, inputs, outputs):
        seq = node._sequence_nr()
        if seq > self.max_seq and seq < (1 << 62):
            self.max_seq = seq
        site = getattr(node, "_site", None)
        rec = self.sites.get(site)
        if rec is None:
            self.sites[site] = [seq, seq, 1]
        else:
            rec[1] = seq
            rec[2] += 1
        if outputs and _is_inplace(node, outputs):
            vbox = outputs[0]._vbox
            self._add_inplace(vbox, vbox[0], node.name() if type(node).__name__ != "CopySlices"
                              else node.fn.name(), site)
        if self.lint:
            self._snapshot_saved(node)

    def _add_inplace(self, vbox, version, op_name, site):
        entry = self.inplace.get(id(vbox))
        if entry is None:
            if len(self.inplace) >= MAX_INPLACE_EVENTS:
                self.inplace.pop(next(iter(self.inplace)))
            entry = self.inplace[id(vbox)] = (vbox, [])
        entry[1].append((version, op_name, site))

    def on_inplace(self, tensor, op_name, site, version=None):
        """Engine event (optional): any in-place op, also on tensors that do not require grad."""
        vbox = tensor._vbox
        events = self.inplace.get(id(vbox), (None, []))[1]
        v = vbox[0] if version is None else version
        if not any(e[0] == v for e in events):
            self._add_inplace(vbox, v, op_name, site)

    def on_data(self, tensor, site, kind="read"):
        """Engine event (optional): ``.data`` read or assigned."""
        self.data_events.append((id(tensor._vbox), site, kind))

    def on_grad_read(self, tensor, site):
        """Engine event (optional): ``.grad`` read on a non-leaf."""
        self.grad_reads.append((site, tensor._grad_fn is not None))

    def on_scalar(self, tensor, kind, site):
        """Engine event (optional): float()/int()/item() of a tensor."""
        self.scalars.append((kind, site, bool(tensor._requires_grad)))

    def on_optimizer_step(self, optimizer, site):
        """Engine event (optional): optimizer.step() ran."""
        self.steps.append((weakref.ref(optimizer), site, self.max_seq))

    def on_backward(self, phase, roots, call):
        if phase == "start":
            self.depth += 1
            rec = CallRec(call, self.max_seq, roots, self._optimizer_steps(), self.cell)
            self.calls.append(rec)
            if self.depth == 1:
                nodes = walk([n for n, _ in roots])
                self._before_backward(rec, nodes)
        else:
            self.depth = max(0, self.depth - 1)
            for rec in reversed(self.calls):
                if rec.index == getattr(call, "index", None):
                    rec.finished = True
                    break
            if self.depth == 0:
                self._after_backward(call)

    # -- helpers -----------------------------------------------------------------------
    def call_by_index(self, index):
        for rec in self.calls:
            if rec.index == index:
                return rec
        return None

    def _optimizer_steps(self):
        out = {}
        ns = self.ns or {}
        for name, v in list(ns.items()):
            steps = getattr(v, "_step_calls", None)
            if isinstance(steps, int) and hasattr(v, "param_groups"):
                out[name] = steps
        return out

    def site_ran_after(self, site, mark):
        rec = self.sites.get(site)
        return rec is not None and rec[1] > mark

    def site_ran_before(self, site, mark):
        rec = self.sites.get(site)
        return rec is not None and rec[0] <= mark

    # -- lint: saved tensors changed behind autograd's back ----------------------------------
    def _snapshot_saved(self, node):
        if self._snap_bytes > SNAPSHOT_BUDGET:
            # graphs die as training goes on: count what is still alive before giving up
            self._snap_bytes = sum(c.nbytes for entries in list(self._snap.values()) for _, _, c in entries)
            if self._snap_bytes > SNAPSHOT_BUDGET:
                return
        try:
            items = node.saved_items()
        except Exception:  # noqa: BLE001
            return
        keep = []
        for slot, value in items:
            data = getattr(value, "data", None)
            if data is None or not hasattr(value, "vbox") or data.size > SNAPSHOT_MAX_ELEMENTS:
                continue
            keep.append((slot, value, np.array(data, copy=True)))
            self._snap_bytes += data.nbytes
        if keep:
            self._snap[node] = keep

    def _before_backward(self, rec, nodes):
        if not self.lint:
            return
        for node in nodes:
            snaps = self._snap.get(node)
            if snaps:
                for slot, value, copy in snaps:
                    if getattr(value, "vbox", None) is None or value.vbox[0] != value.version:
                        continue  # a version error will (or did) report this one
                    current = value.tensor._data if getattr(value, "tensor", None) is not None else value.data
                    if current.shape != copy.shape or not np.array_equal(current, copy, equal_nan=True):
                        key = (id(node), slot)
                        if key not in self._data_reported:
                            self._data_reported.add(key)
                            site = getattr(node, "_site", None)
                            self.findings.append(Finding(
                                "data_silent_wrong", site[0] if site else None, site[1] if site else None,
                                node=node.name(), slot=slot, vbox_id=id(value.vbox), data_id=id(value.data),
                                tensor_ref=weakref.ref(value.tensor) if getattr(value, "tensor", None) is not None
                                else None, backward_site=rec.site))
            variable = getattr(node, "variable", None)
            if variable is not None and type(node).__name__ == "AccumulateGrad":
                self._check_accumulation(rec, variable)

    def _check_accumulation(self, rec, leaf):
        info = self.leaves.get(id(leaf))
        if info is None or info[0]() is not leaf:
            return
        _, _, site, version, checksum = info
        grad = leaf._grad
        if grad is None or site != rec.site or site is None:
            return
        if not np.any(grad._data != 0):
            return
        changed = leaf._vbox[0] != version or (checksum is not None and _checksum(leaf._data) != checksum)
        if changed and site not in self._accum_sites:
            self._accum_sites.add(site)
            self.findings.append(Finding("zero_grad_missing", site[0], site[1], leaf_ref=weakref.ref(leaf),
                                         call=rec.index))

    def _after_backward(self, call):
        rec = self.calls[-1] if self.calls else None
        if rec is None:
            return
        roots = [r() for r, _ in rec.roots]
        for node in walk(roots):
            variable = getattr(node, "variable", None)
            if variable is not None and type(node).__name__ == "AccumulateGrad":
                self.reached.add(id(variable))
                self.leaves[id(variable)] = [weakref.ref(variable), rec.index, rec.site, variable._vbox[0],
                                             _checksum(variable._data)]
