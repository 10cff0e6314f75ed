"""The ``gradviz run --json`` document, built from scripting's plain data.

The schema is the conformance schema (``docs/json.md``; ``conformance/record.py`` writes
the same for real PyTorch), key for key and in the same order::

    {"script": str, "cells": [{"line", "stdout", "error": null | {"type", "message"},
                               "tensors": [{"name", "shape", "dtype", "requires_grad",
                                            "is_leaf", "retains_grad", "grad_fn", "data",
                                            "stats": {"min", "max", "mean", "norm"},
                                            "grad": null | {"data", "stats"}}]}]}

A complex tensor's ``data`` and ``stats`` are those of its real parts, as record.py has
them; its imaginary parts follow in ``imag`` (``{"data", "stats"}``), and likewise in its
``grad``. Each cell also lists the ``warnings`` it raised (``{"category", "message", "filename",
"line"}``, at the user's line). A notebook's cells add ``cell`` (``"In [5]"``), and its document ``notes``; lines
are counted within each cell, so a notebook cell's ``line`` is 1.
``gradviz run --json`` adds ``graph``, ``lint``, ``stopped`` and
``tensors_after_second_backward`` keys only when the options that produce them are
used; ``gradviz graph --json`` builds its own document with ``json_text``.

Strict JSON, always: every document gradviz prints is accepted by any JSON parser.
JSON has no NaN or infinity, so a non-finite number (in ``data``, ``stats``, ``grad``,
anywhere) is written as one of the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"``
(the spellings of JavaScript and of Python's ``float()``, which reads them back:
``float("NaN")``, ``float("-Infinity")``). Every other number stays a number. The
documents are written with ``allow_nan=False``, so a bare ``NaN`` can never slip out.

No engine, no click, no rich here.
"""

import json
import math

#: How a non-finite float is written (``float()`` of each gives the value back).
NONFINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def stats_dict(s) -> dict:
    return {"min": s.min, "max": s.max, "mean": s.mean, "norm": s.norm}


def values_dict(v) -> dict:
    d = {"data": v.data, "stats": stats_dict(v.stats)}
    if v.imag is not None:
        d["imag"] = values_dict(v.imag)
    return d


def module_dict(m) -> dict:
    """A row of ``run --by-module`` (tensor_records.ModuleGrads)."""
    return {"module": m.path, "tensors": m.tensors, "numel": m.numel, "grad_norm": m.grad_norm,
            "without_grad": m.without_grad}


def tensor_dict(t) -> dict:
    d = {
        "name": t.name,
        "shape": list(t.shape),
        "dtype": t.dtype,
        "requires_grad": t.requires_grad,
        "is_leaf": t.is_leaf,
        "retains_grad": t.retains_grad,
        "grad_fn": t.grad_fn,
        "data": t.data,
        "stats": stats_dict(t.stats),
        "grad": None if t.grad is None else values_dict(t.grad),
        "grad_reason": t.grad_reason,
    }
    if t.imag is not None:
        d["imag"] = values_dict(t.imag)
    if t.stats.device is not None:
        d["device"] = t.stats.device  # meta: data and stats are null, there are no values
    return d


def cell_dict(c, described: dict = None) -> dict:
    """``described`` ({id(TensorInfo): its dict}, kept by the caller for a whole run) makes
    a tensor unchanged from cell to cell, one TensorInfo (scripting's Snapshots), one dict."""
    if described is None:
        described = {}
    tensors = []
    for t in c.tensors:
        d = described.get(id(t))
        if d is None:
            d = described[id(t)] = tensor_dict(t)
        tensors.append(d)
    d = {
        "line": c.line,
        "stdout": c.stdout,
        "error": None if c.error is None else {"type": c.error.type, "message": c.error.message,
                                               **({"hint": c.error.hint} if c.error.hint else {})},
        "tensors": tensors,
        "warnings": [w.as_dict() for w in c.warnings],
    }
    if c.label:  # a notebook's cell, named as the notebook shows it
        d["cell"] = c.label
    if getattr(c.tensors, "omitted", 0):  # named tensors past scripting.MAX_TENSORS, counted only
        d["tensors_omitted"] = c.tensors.omitted
    return d


def run_dict(result) -> dict:
    """The whole document for a scripting.RunResult (a notebook's adds ``notes``: the
    IPython-only lines that were set aside)."""
    described = {}  # the TensorInfos stay alive in result while this lasts: ids are theirs
    doc = {"script": result.script, "cells": [cell_dict(c, described) for c in result.cells]}
    if result.notebook:
        doc["notes"] = list(result.notes)
    return doc


#: Backward nodes, forward ops, values and modules listed in a ``graph`` document, each at
#: most: a 100,000-node graph lists its first ones and counts the rest (``omitted``).
MAX_GRAPH_ITEMS = 2_000

_DTYPE_BYTES = {"bool": 1, "uint8": 1, "int8": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "int16": 2, "float16": 2,
                "bfloat16": 2, "int32": 4, "float32": 4, "complex32": 4, "int64": 8, "float64": 8, "complex64": 8,
                "complex128": 16}


def _site(site):
    return None if site is None else {"file": site[0], "line": site[1]}


def tensor_bytes(shape, dtype):
    """Bytes of a tensor of ``shape`` and ``dtype`` (a dtype name); None when unknown."""
    size = _DTYPE_BYTES.get(dtype) if shape is not None else None
    if size is None:
        return None
    for s in shape:
        size *= s
    return size


def _call(info):
    return None if info is None else {"call": info.index, "kind": info.kind, "site": _site(info.site)}


def node_dict(n) -> dict:
    """A backward node of a snapshot (``inspect.model.BackwardNode``) as docs/json.md's NODE."""
    leaf = n.leaf
    return {
        "id": n.id, "name": n.label_name, "module": n.module, "module_call": n.module_call, "site": _site(n.site),
        "saved": [{"name": s.attr, "kind": s.kind, "shape": None if s.shape is None else list(s.shape),
                   "dtype": s.dtype, "bytes": tensor_bytes(s.shape, s.dtype) if s.kind != "scalar" else None,
                   "freed_by": _call(n.freed_by) if s.freed else None, "recomputed": s.recomputed}
                  for s in n.saved if s.is_tensor],
        "next": [None if e.target is None else [e.target, e.output_nr] for e in n.edges],
        "leaf": None if leaf is None else {"name": leaf.name, "shape": list(leaf.shape), "dtype": leaf.dtype},
        "formulas": [{"input": name, "formula": text} for name, text in n.formulas],
    }


def op_dict(op) -> dict:
    return {"id": op.id, "name": op.name, "module": op.module, "module_call": op.module_call, "site": _site(op.site),
            "inputs": list(op.inputs), "outputs": list(op.outputs), "node": op.node}


def graph_dict(snap, limit: int = MAX_GRAPH_ITEMS) -> dict:
    """The structure of a snapshot: ``nodes``, ``ops``, ``values`` and ``modules`` (docs/json.md),
    each cut at ``limit`` items; ``omitted`` counts what was cut, when anything was."""
    lists = {
        "nodes": [node_dict(n) for n in snap.nodes[:limit]],
        "ops": [op_dict(op) for op in snap.ops[:limit]],
        "values": [{"id": v.id, "name": v.name, "shape": None if v.shape is None else list(v.shape),
                    "dtype": v.dtype, "node": v.node} for v in snap.values[:limit]],
        "modules": [{"path": m.path, "type": m.type, "calls": m.calls, "parent": m.parent}
                    for m in snap.modules[:limit]],
    }
    omitted = {key: len(full) - limit for key, full in (("nodes", snap.nodes), ("ops", snap.ops),
                                                         ("values", snap.values), ("modules", snap.modules))
               if len(full) > limit}
    if omitted:
        lists["omitted"] = omitted
    return lists


def strict(obj, _made: dict = None):
    """``obj`` with every non-finite float replaced by its string (see the module's doc).
    A dict or list found twice (a tensor listed by every cell) is made strict once."""
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        return NONFINITE["nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")]
    if not isinstance(obj, (dict, list, tuple)):
        return obj
    made = {} if _made is None else _made
    found = made.get(id(obj))
    if found is not None and found[0] is obj:
        return found[1]
    if isinstance(obj, dict):
        out = {k: strict(v, made) for k, v in obj.items()}
    else:
        out = [strict(v, made) for v in obj]
    made[id(obj)] = (obj, out)  # obj kept alive with it: its id is not reused while this lasts
    return out


def json_text(doc, indent=None, ensure_ascii=True) -> str:
    """Any document as strict JSON text: non-finite floats as "NaN" / "Infinity" / "-Infinity"."""
    return json.dumps(strict(doc), indent=indent, allow_nan=False, ensure_ascii=ensure_ascii)


def write_json(doc: dict, out) -> None:
    """``out.write(json_text(doc) + "\n")``, the same text, written a top-level value and a
    cell at a time: every cell lists every named tensor, so 2,000 cells that each add a
    tensor make a document of 2,000,000 tensors, which is never held whole as text."""
    made = {}
    out.write("{")
    for k, (key, value) in enumerate(doc.items()):
        out.write((", " if k else "") + json.dumps(key) + ": ")
        if key == "cells" and isinstance(value, list):
            out.write("[")
            for j, cell in enumerate(value):
                out.write((", " if j else "") + json.dumps(strict(cell, made), allow_nan=False))
            out.write("]")
        else:
            out.write(json.dumps(strict(value, made), allow_nan=False))
    out.write("}\n")


def dumps(result, indent=None) -> str:
    """The ``gradviz run --json`` document of ``result`` as strict JSON text."""
    return json_text(run_dict(result), indent=indent)


def nonfinite_dict(info):
    """``run --nan``'s finding (``inspect.model.NonFiniteInfo``) as docs/json.md's NONFINITE, or None."""
    if info is None:
        return None
    return {"phase": info.phase, "kind": info.kind, "op": info.op,
            "file": info.site[0] if info.site else None, "line": info.site[1] if info.site else None,
            "code": info.code, "tensor": info.tensor, "shape": list(info.shape), "count": info.count,
            "total": info.total, "first": list(info.first),
            "inputs": [{"name": name, "finite": finite} for name, finite in info.inputs],
            "step": info.step, "fix": info.fix}


def memory_dict(ledgers):
    """``run --memory``'s ledgers as docs/json.md's MEMORY: the last backward call's at the top."""
    def one(ledger):
        return {"call": ledger.call, "site": _site(ledger.site), "saved_bytes": ledger.saved_bytes,
                "parameter_bytes": ledger.parameter_bytes, "activation_bytes": ledger.activation_bytes,
                "storages": ledger.storages, "by_module": dict(ledger.by_module),
                "by_line": [{"file": site[0], "line": site[1], "bytes": size} for site, size in ledger.by_line],
                "by_node": [{"id": k, "name": name, "bytes": size} for k, name, size in ledger.by_node],
                "checkpoint_frees": dict(ledger.checkpoint_frees), "peak_bytes": ledger.peak_bytes,
                "earlier_bytes": ledger.earlier_bytes, "freed_bytes": ledger.freed_bytes,
                "kept_bytes": ledger.kept_bytes,
                "freed_later": [{"call": call, "bytes": size} for call, size in ledger.freed_later]}
    calls = [one(ledger) for ledger in ledgers]
    last = dict(calls[-1]) if calls else {"saved_bytes": 0, "by_module": {}}
    last["calls"] = calls
    peak = max(ledgers, key=lambda ledger: ledger.peak_bytes, default=None)  # the first of equal peaks
    last["peak"] = {"bytes": peak.peak_bytes, "call": peak.call} if peak is not None else None
    return last
