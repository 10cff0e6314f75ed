"""``snapshot(roots, names, recorder)``: a frozen, plain-data copy of the graph.

The backward graph is walked from the roots depth first with an explicit stack (never
recursion: a 100,000-op chain is fine), giving ids n0, n1, ... in visiting order. When a
recorder is given, the forward ops the roots depend on are found by one backwards sweep
over the recorded ops, and their values named (the caller's variable names, else an
expression such as ``w1*a``): see ``forward``.

Engine objects are read here and nowhere else in gradviz's inspection: the result holds
only str, int, float, bool and tuples (see ``model``).
"""
import dataclasses
import gc
from collections.abc import Mapping

import numpy as np

from .engines import is_engine_edge as _is_edge
from .engines import is_engine_node as _is_node
from .engines import is_engine_root
from .engines import is_engine_tensor as _is_tensor
from .engines import uses_real_torch
from .formulas import formula_texts
from .forward import Forward
from .model import BackwardNode, Edge, GradInfo, GraphSnapshot, LeafInfo, Root, SavedInfo
from .modules import tensor_names as _with_module_names
from .records import call_info as _call_info
from .records import dtype_name, relabel_sites
from .records import site as _site
from .walk import walk


def snapshot(roots, names=None, recorder=None, sites=None) -> GraphSnapshot:
    """Snapshot the graph reachable from ``roots``.

    roots: a tensor, a grad_fn node, a ``(node, output_nr)`` edge, or a sequence of them.
    names: ``{id(tensor): name}`` (or ``{name: tensor}``) for the script's variables.
    recorder: a ``Recorder`` that watched the forward pass, for the forward graph.
    Real PyTorch tensors and nodes (or a ``TorchRecorder``) are read by ``real_torch``:
    this is the one place that picks the engine a snapshot reads.
    sites: ``fn((filename, line)) -> (filename, line)``, how the snapshot names the
    places of the user's code (a notebook's lines by cell: ``('In [5]', 3)``); by
    default the recorder's ``sites``, else the engine's own.
    """
    if uses_real_torch(roots, recorder):
        from .real_torch import snapshot as real_snapshot  # the installed PyTorch's graph

        return real_snapshot(roots, names, recorder, sites)
    # A snapshot allocates about ten objects per node and makes no reference cycles;
    # pausing the cyclic GC spares repeated full scans of a large live graph.
    paused = gc.isenabled()
    gc.disable()
    try:
        snap = _snapshot(roots, names, recorder)
        sites = sites if sites is not None else getattr(recorder, "sites", None)
        return relabel_sites(snap, sites) if sites is not None else snap
    finally:
        if paused:
            gc.enable()


def _snapshot(roots, names, recorder):
    names = _with_module_names(recorder, _normalize_names(names))
    root_specs = [root_spec(r) for r in _as_list(roots)]
    order, index = walk([spec[1] for spec in root_specs if spec[1] is not None], next_nodes)
    forward = Forward(recorder, names, order, index, root_specs) if recorder is not None else None
    out_names = _output_names(root_specs, names, index, forward)

    calls = {}  # id(backward call) -> its record; the calls stay alive through the nodes that name them
    nodes = tuple([_node(index[id(n)], n, index, names, forward, out_names.get(index[id(n)]), calls) for n in order])
    root_infos = tuple(_root(spec, names, index, forward) for spec in root_specs)
    notes = []
    if recorder is not None and forward is not None and not forward.ops and nodes:
        notes.append("the forward pass of these roots was not recorded")
    if recorder is not None and recorder.errors:
        notes.append(f"the recorder hit {len(recorder.errors)} error(s); first: {recorder.errors[0]}")
    return GraphSnapshot(
        roots=root_infos,
        nodes=nodes,
        values=forward.values if forward is not None else (),
        ops=forward.ops if forward is not None else (),
        has_forward=recorder is not None,
        backward_calls=recorder.backward_calls() if recorder is not None else (),
        notes=tuple(notes),
        modules=forward.modules.infos() if forward is not None else (),
    )


# --------------------------------------------------------------------------- roots


def _as_list(roots):
    if is_engine_root(roots):
        return [roots]
    return list(roots)


def root_spec(r):
    """(tensor or None, node or None, output_nr) of one root of gradviz's engine."""
    if _is_tensor(r):
        node = r._grad_fn
        if node is None and r._requires_grad and r._accumulator is not None:
            node = r._accumulator()  # a leaf root: backward on it feeds its AccumulateGrad
        return (r, node, r._output_nr if r._grad_fn is not None else 0)
    if _is_node(r):
        return (None, r, 0)
    if _is_edge(r):
        return (None, r[0], r[1])
    raise TypeError(f"snapshot: a root must be a tensor, a grad_fn node or a (node, output_nr) edge, "
                    f"not {type(r).__name__}")


def _normalize_names(names):
    if not names:
        return {}
    if not isinstance(names, Mapping):
        raise TypeError("names must be a mapping {id(tensor): name}")
    out = {}
    for key, value in names.items():
        if isinstance(key, int):
            out[key] = str(value)
        elif isinstance(key, str) and _is_tensor(value):
            out[id(value)] = key  # {name: tensor}; the caller keeps the tensor alive
    return out


# --------------------------------------------------------------------------- backward


def next_nodes(node):
    fns = getattr(node, "_fns", None)  # the engine's flat edges; other node types expose next_functions
    return fns if fns is not None else tuple(fn for fn, _ in node.next_functions)


def _edges(node):
    fns = getattr(node, "_fns", None)
    return zip(fns, node._nrs) if fns is not None else node.next_functions


def node_ids(roots) -> dict:
    """``{id(node): 'n<k>'}`` of the engine graph reachable from ``roots``, numbered as
    ``snapshot`` numbers its nodes (the same walk from the same roots)."""
    specs = [root_spec(r) for r in roots]
    return walk([spec[1] for spec in specs if spec[1] is not None], next_nodes)[1]


def _node(node_id, node, index, names, forward, out_names, calls):
    cls = type(node).__name__
    edges = []
    for i, (nxt, nr) in enumerate(_edges(node)):
        edges.append(Edge(i, None if nxt is None else index[id(nxt)], nr))
    op = forward.op_of(node) if forward is not None else None
    origins = {slot: (is_out, i) for slot, is_out, i in op.saved} if op is not None and op.saved else {}
    saved = tuple([_saved(slot, value, names, forward, op, origins.get(slot)) for slot, value in _ordered(node)
                   if not _undefined(node, slot, value)])
    if op is not None and op.recomputed:
        saved = tuple(dataclasses.replace(x, recomputed=True) if x.slot in op.recomputed else x for x in saved)
    variable = node.variable if cls == "AccumulateGrad" else None
    leaf = _leaf(variable, names, forward) if variable is not None else None
    module, module_call = (None, 0) if forward is None else \
        forward.modules.of_tensor(variable) if variable is not None else forward.modules.of_op(op)
    inner = node.fn.name() if cls == "CopySlices" and getattr(node, "fn", None) is not None else None
    outputs = _OUTPUTS[getattr(node, "_output_meta", ()) or ()]
    return BackwardNode(
        id=node_id, name=node.name(), type=cls, site=_site(getattr(node, "_site", None)),
        sequence_nr=_sequence_nr(node), edges=tuple(edges), saved=saved, outputs=outputs,
        freed_by=_call_info(getattr(node, "_freed_by", None), calls), leaf=leaf, inner=inner,
        output_names=tuple(out_names[nr] for nr in sorted(out_names)) if out_names else (),
        module=module, module_call=module_call, formulas=formula_texts(cls))


def _sequence_nr(node):
    """PyTorch's ``node._sequence_nr()``; -1 for a node type that has none."""
    sequence_nr = getattr(node, "_sequence_nr", None)
    return int(sequence_nr()) if sequence_nr is not None else -1


def _ordered(node):
    """saved_items() in a fixed order: inputs in argument order (self, other), then
    results, then options. The engine's order can follow set iteration, which changes
    with PYTHONHASHSEED; pictures must not."""
    items = node.saved_items()
    if len(items) < 2:
        return items
    op = getattr(node, "_op", None) or getattr(getattr(node, "fn", None), "_op", None)
    position = getattr(op, "input_index", None) or {}

    def key(k_item):
        k, (slot, _) = k_item
        if slot in position:
            return (0, position[slot], k)
        if slot.startswith("result"):
            return (1, 0, slot)
        return (2, 0, k)

    return [item for _, item in sorted(enumerate(items), key=key)]


class _Outputs(dict):
    """Plain (shape, dtype) tuples of a node's _output_meta, shared between equal metas."""

    def __missing__(self, meta):
        plain = tuple((tuple(shape), dtype_name(dtype)) for shape, dtype in meta)
        if len(self) < 10_000:
            self[meta] = plain
        return plain


_OUTPUTS = _Outputs()


def _undefined(node, slot, value):
    """An optional tensor input given as None (sdpa's attn_mask): PyTorch's slot holds an
    undefined tensor, which saves nothing, so the picture leaves it out as PyTorch's does."""
    if value is not None:
        return False
    op = getattr(node, "_op", None)
    return op is not None and slot in op.input_index


def _saved(slot, value, names, forward, op, origin):
    FreedSlot, SavedScalar, SavedTensor = _slot_classes()
    attr = slot if slot.startswith("saved_tensors") else "_saved_" + slot
    value_id = tensor_name = None
    if origin is not None and forward is not None:
        is_out, i = origin
        serial = (op.outputs if is_out else op.inputs)[i] if i < len(op.outputs if is_out else op.inputs) else None
        value_id, tensor_name = forward.describe(serial)
    if isinstance(value, SavedTensor):
        if tensor_name is None and value.tensor is not None:
            tensor_name = names.get(id(value.tensor))
        return SavedInfo(slot, attr, "tensor", tuple(value.data.shape), dtype_name(value.data.dtype), int(value.version),
                         int(value.vbox[0]), bool(value.is_output), tensor_name, value_id)
    if isinstance(value, FreedSlot):
        is_output = origin[0] if origin is not None else (True if slot.startswith("result") else
                                                          None if slot.startswith("saved_tensors") else False)
        return SavedInfo(slot, attr, "freed", tuple(value.shape), dtype_name(value.dtype),
                         int(value.saved_version), None, is_output, tensor_name, value_id)
    if isinstance(value, SavedScalar):
        return SavedInfo(slot, attr, "scalar", (), np.asarray(value.value).dtype.name, text=_short(value.value))
    if value is None:
        return SavedInfo(slot, attr, "none")
    return SavedInfo(slot, attr, "value", text=_short(value))


_SLOT_CLASSES = []


def _slot_classes():
    if not _SLOT_CLASSES:  # imported on first use: importing gradviz.inspect loads no engine
        from gradviz.torch.autograd.node import FreedSlot, SavedScalar, SavedTensor
        _SLOT_CLASSES.extend((FreedSlot, SavedScalar, SavedTensor))
    return _SLOT_CLASSES


def _leaf(t, names, forward):
    value_id = forward.value_id_of_tensor(t) if forward is not None else None
    return LeafInfo(name=names.get(id(t)), shape=tuple(t._data.shape), dtype=dtype_name(t._data.dtype),
                    requires_grad=bool(t._requires_grad), version=int(t._vbox[0]), grad=grad_info(t),
                    value=value_id)


def _output_names(root_specs, names, index, forward):
    """{node id: {output_nr: name}} from the named roots and the recorded outputs."""
    out = {}
    for t, node, nr in root_specs:
        if t is not None and node is not None and id(t) in names and t._grad_fn is node:
            out.setdefault(index[id(node)], {})[nr] = names[id(t)]
    if forward is not None:
        for k, nr, name in forward.named_outputs():
            out.setdefault(k, {}).setdefault(nr, name)
    return out


def _root(spec, names, index, forward):
    t, node, nr = spec
    node_id = index[id(node)] if node is not None else None
    if t is not None:
        value_id = forward.value_id_of_tensor(t) if forward is not None else None
        name = names.get(id(t))
        if name is None and value_id is not None:
            name = forward.values[int(value_id[1:])].name
        return Root(name, node_id, nr, tuple(t._data.shape), dtype_name(t._data.dtype), bool(t._requires_grad), value_id)
    meta = getattr(node, "_output_meta", ()) if node is not None else ()
    shape, dtype = (tuple(meta[nr][0]), dtype_name(meta[nr][1])) if nr < len(meta) else (None, None)
    value_id = forward.value_id_of_output(node, nr) if forward is not None and node is not None else None
    name = forward.values[int(value_id[1:])].name if value_id is not None else None
    return Root(name, node_id, nr, shape, dtype, node is not None, value_id)


# --------------------------------------------------------------------------- forward


# --------------------------------------------------------------------------- helpers


def grad_info(t):
    """GradInfo of ``t._grad`` (read directly: ``.grad`` warns on non-leaves)."""
    g = getattr(t, "_grad", None)
    if g is None:
        return None
    data = g._data
    return GradInfo(tuple(data.shape), dtype_name(data.dtype))


def _short(value, limit=40):
    if isinstance(value, np.ndarray):
        return f"array{tuple(value.shape)}"
    if isinstance(value, (tuple, list)) and any(isinstance(v, np.ndarray) for v in value):
        return "(" + ", ".join(_short(v, limit) for v in value) + ")"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"
