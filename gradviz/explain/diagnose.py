"""Script mode: ``diagnose_script(path)`` runs the script in gradviz's engine until its first
error and says which of the causes that share a message actually happened, with facts from
the run (tensor, lines, versions, which backward freed what), then the fix with the user's
own names.  Silent pitfalls seen on the way come back as ``warnings`` (see :mod:`.lint`).
"""
import os
import re
from dataclasses import dataclass, field
from typing import Any, Optional

from . import catalog
from .match import Explanation, candidate, example_fix, explain_message
from .source import Source, add_kwarg, assign_parts, indent_block, inplace_pattern, out_of_place

# --------------------------------------------------------------------------- result


@dataclass
class Diagnosis:
    id: Optional[str]
    candidates: list = field(default_factory=list)
    title: str = ""
    cause: str = ""
    fix: dict = field(default_factory=dict)  # {"text", "before", "after"}
    context: dict = field(default_factory=dict)  # plain facts of the run
    error: Optional[dict] = None  # {"type", "message", "line", "code", "traceback"}; None: no error
    warnings: list = field(default_factory=list)  # lint findings, as dicts (see lint.LintWarning.as_dict)
    stdout: str = ""
    explanation: Optional[Explanation] = None  # message mode's view of the same error
    failing_node: Any = None  # engine object, for --graph; never in the JSON
    graph_roots: tuple = ()  # (node, output_nr) edges around the failure, for --graph
    graph_names: dict = field(default_factory=dict)  # {name: tensor} of the script, for --graph labels
    graph_recorder: Any = None  # what watched the run, when the graph has a forward view (--engine torch)

    @property
    def known(self) -> bool:
        return self.error is None or self.id is not None

    @property
    def exit_code(self) -> int:
        """0: no error, or an error gradviz identified; 1: an error gradviz does not know."""
        return 0 if self.known else 1

    def as_dict(self) -> dict:
        return {"id": self.id, "candidates": [dict(c) for c in self.candidates], "title": self.title,
                "cause": self.cause, "fix": dict(self.fix), "context": dict(self.context),
                "error": dict(self.error) if self.error else None,
                "warnings": [dict(w) for w in self.warnings]}


# --------------------------------------------------------------------------- facts


def _is_tensor(x):
    return hasattr(x, "_vbox") and hasattr(x, "_data") and hasattr(x, "_grad_fn")


class Facts:
    """What the run left behind, with helpers to name things."""

    def __init__(self, outcome):
        self.o = outcome
        self.src = Source(outcome.source)
        self.probe = outcome.probe
        self.code_path = outcome.code_path

    # -- places ------------------------------------------------------------------------
    def where(self, site):
        """{"file", "line", "code"} for a (file, line) site; file is None inside the script."""
        if not site:
            return None
        f, line = site
        if f == self.code_path:
            return {"file": None, "line": line, "code": self.src.line(line)}
        return {"file": f, "line": line, "code": _file_line(f, line)}

    def at(self, site):
        w = self.where(site)
        if not w:
            return "an unknown line"
        code = f" (`{w['code']}`)" if w["code"] else ""
        return (self.line_ref(w["line"]) if w["file"] is None else f"{os.path.basename(w['file'])}:{w['line']}") + code

    def line_ref(self, line, start=False) -> str:
        """How the text names a line of the user's code: 'line 9' ('Line 9' to start a
        sentence), or a notebook's 'In [5], line 3'."""
        program = self.o.program
        if program is not None and program.notebook and line:
            return program.describe(line)
        return f"{'Line' if start else 'line'} {line}"

    def line_of(self, site):
        w = self.where(site)
        return w["line"] if w and w["file"] is None else None

    # -- names -------------------------------------------------------------------------
    def scopes(self):
        return [self.o.frame_locals, self.o.namespace]

    def names(self, pred, limit=6):
        out = []
        seen = set()
        for scope in self.scopes():
            for name, v in list(scope.items()):
                if name.startswith("_") or name in seen:
                    continue
                try:
                    if _is_tensor(v):
                        if pred(v):
                            out.append(name)
                            seen.add(name)
                    elif isinstance(v, (list, tuple)) and 0 < len(v) <= 64:
                        for i, x in enumerate(v):
                            if _is_tensor(x) and pred(x):
                                out.append(f"{name}[{i}]")
                                seen.add(name)
                    elif hasattr(v, "named_parameters") and callable(v.named_parameters) and not isinstance(v, type):
                        for pn, p in v.named_parameters():
                            if pred(p):
                                out.append(f"{name}.{pn}")
                                seen.add(name)
                except Exception:  # noqa: BLE001 - a broken user object is not our error
                    continue
                if len(out) >= limit:
                    return out
        return out

    def name_of(self, tensor):
        if tensor is None:
            return None
        found = self.names(lambda t: t is tensor, limit=1)
        return found[0] if found else None

    def names_sharing(self, vbox):
        return self.names(lambda t: t._vbox is vbox)

    def optimizers(self):
        out = []
        for scope in self.scopes():
            for name, v in list(scope.items()):
                if hasattr(v, "param_groups") and hasattr(v, "zero_grad") and not isinstance(v, type):
                    if all(o is not v for _, o in out):
                        out.append((name, v))
        return out

    def evaluate(self, expr):
        """Value of a dotted/indexed name like ``model.fc1.weight`` or ``params[0]`` (no calls)."""
        m = re.match(r"^[A-Za-z_]\w*", expr)
        if not m:
            return None
        cur = None
        for scope in self.scopes():
            if m.group(0) in scope:
                cur = scope[m.group(0)]
                break
        else:
            return None
        rest = expr[m.end():]
        for part in re.findall(r"\.\w+|\[\s*-?\d+\s*\]|\[\s*'[^']*'\s*\]|\[\s*\"[^\"]*\"\s*\]", rest):
            try:
                if part.startswith("."):
                    cur = getattr(cur, part[1:])
                else:
                    key = part[1:-1].strip()
                    cur = cur[int(key)] if re.fullmatch(r"-?\d+", key) else cur[key.strip("'\"")]
            except Exception:  # noqa: BLE001
                return None
        return cur


def _file_line(path, line):
    try:
        import linecache
        return linecache.getline(path, line).strip()
    except Exception:  # noqa: BLE001
        return ""


def _fix(text, before="", after=""):
    return {"text": text, "before": before, "after": after}


def _others(ids, chosen, reasons=None):
    out = []
    for i in ids:
        if i != chosen:
            extra = {"ruled_out": reasons[i]} if reasons and i in reasons else {}
            out.append(candidate(i, **extra))
    return out


# --------------------------------------------------------------------------- freed buffers

FREED_FAMILY = ["backward_twice", "autograd_grad_twice", "saved_tensor_after_free", "rnn_hidden_not_detached"]


def _in_backward(outcome):
    return any(fn == "run_backward" or (fn == "_execute" and "autograd" in f) for f, _, fn in outcome.frames)


def _run_number(facts, index):
    """The position of a backward call within this run (1-based); the engine numbers them per process."""
    for n, rec in enumerate(facts.probe.calls, 1):
        if rec.index == index:
            return n
    return index


def _call_desc(facts, call):
    kind = "the torch.autograd.grad call" if call.kind == "autograd.grad" else "the .backward() call"
    return f"{kind} #{_run_number(facts, call.index)} at {facts.at(call.site)}"


def _cap(s):
    return s[:1].upper() + s[1:]


def _freed_by_desc(facts, freed_by):
    kind = "the torch.autograd.grad call" if getattr(freed_by, "kind", "") == "autograd.grad" \
        else "the .backward() call"
    number = _run_number(facts, getattr(freed_by, "index", "?"))
    return f"{kind} #{number} at {facts.at(getattr(freed_by, 'site', None))}"


def _call_dict(facts, call):
    if call is None:
        return None
    w = facts.where(getattr(call, "site", None)) or {}
    return {"index": _run_number(facts, getattr(call, "index", None)), "kind": getattr(call, "kind", None),
            "line": w.get("line"),
            "file": w.get("file"), "code": w.get("code")}


def _boundary(roots, mark):
    """Edges from nodes created after ``mark`` to nodes created before it (seq <= mark)."""
    from .probe import walk
    out = []
    for n in walk(roots):
        if n._sequence_nr > mark and n._sequence_nr < (1 << 62):
            for nxt, _ in n.next_functions:
                if nxt is not None and nxt._sequence_nr <= mark and type(nxt).__name__ != "AccumulateGrad":
                    out.append((n, nxt))
    return out


def _statement(code, pattern):
    """The statement of a one-line ``a; b; c`` that matches ``pattern`` (the whole line otherwise)."""
    if ";" not in code:
        return code
    parts = [p.strip() for p in code.split(";") if p.strip()]
    for p in parts:
        if re.search(pattern, p):
            return p
    return code


def _carried_names(facts, new_node, old_node):
    """The variables that carry the old graph into the new one: bound and read on one line
    (``h = cell(x, h)``, ``h, c = cell(x, (h, c))``, ``out, state = lstm(x, state)``)."""
    for site in (getattr(new_node, "_site", None), getattr(old_node, "_site", None)):
        line = facts.line_of(site)
        if not line:
            continue
        st = facts.src.statement_at(line)
        code = facts.src.line(line)
        if st is not None:
            import ast
            code = ast.get_source_segment(facts.o.source, st) or code
        targets, values = assign_parts(code.replace("\n", " "))
        if targets:
            both = [t for t in targets if t in (values or [])]
            if both:
                return both, line
    return [], None


def _detach_line(facts, names, indent):
    parts = []
    for n in names:
        v = facts.evaluate(n)
        if isinstance(v, (tuple, list)):
            parts.append(f"tuple(s.detach() for s in {n})")
        else:
            parts.append(f"{n}.detach()")
    return f"{indent}{', '.join(names)} = {', '.join(parts)}"


def diagnose_freed(facts, exc, ctx):
    probe = facts.probe
    node = ctx.get("node")
    freed_by = ctx.get("freed_by")
    context = {"node": node.name() if node is not None else None,
               "node_line": facts.where(getattr(node, "_site", None)),
               "freed_by": _call_dict(facts, freed_by)}
    freed_rec = probe.call_by_index(getattr(freed_by, "index", None)) if freed_by is not None else None
    err_line = facts.o.error_line
    err_code = facts.src.line(err_line)
    node_name = node.name() if node is not None else "a node"
    freed_txt = _freed_by_desc(facts, freed_by) if freed_by is not None else "an earlier backward pass"

    if not _in_backward(facts.o):
        # an attribute read (grad_fn._saved_*, ctx.saved_tensors) outside any backward pass
        attr = re.search(r"(_saved_\w+|_raw_saved_\w+|saved_tensors|saved_variables)", err_code)
        context["attribute"] = attr.group(1) if attr else None
        cause = (f"{facts.line_ref(err_line, start=True)} (`{err_code}`) reads a tensor saved by {node_name} "
                 f"(created at {facts.at(getattr(node, '_site', None))}), but {freed_txt} already ran through that "
                 f"node and released what it had saved. " + catalog.get("saved_tensor_after_free").why)
        before = err_code
        after = ""
        if freed_by is not None and facts.line_of(freed_by.site):
            bl = facts.src.line(facts.line_of(freed_by.site))
            retained = add_kwarg(bl, "retain_graph=True") if "retain_graph" not in bl else bl
            before = f"{bl}\n{err_code}"
            after = f"{err_code}      # read it before the graph is freed\n{bl}"
            if retained:
                after += f"\n# or keep the buffers: {retained}"
        fix = _fix("Read the saved tensor before the backward pass that frees it, or keep the buffers with "
                   "retain_graph=True on that backward.", before, after)
        return "saved_tensor_after_free", cause, fix, context, {
            "backward_twice": "the failing line does not run a backward pass",
            "autograd_grad_twice": "the failing line does not call autograd.grad",
            "rnn_hidden_not_detached": "no backward pass was running"}

    failing = probe.calls[-1] if probe.calls else None
    context["failing_call"] = _call_dict(facts, failing)
    mark = freed_rec.mark if freed_rec is not None else None
    new_graph = False
    loop = False
    carried = None
    carried_all = []
    carried_line = None
    if failing is not None and mark is not None:
        new_graph = any(s > mark for s in failing.root_seqs)
        site = getattr(node, "_site", None)
        loop = (probe.site_ran_after(site, mark) or (failing.site is not None and failing.site == freed_rec.site))
        if new_graph:
            roots = [r() for r, _ in failing.roots]
            edges = _boundary([r for r in roots if r is not None], mark)
            for new, old in edges:
                carried_all, carried_line = _carried_names(facts, new, old)
                if carried_all:
                    carried = carried_all[0]
                    break
                loop = loop or probe.site_ran_before(getattr(new, "_site", None), mark)
    context.update({"new_graph_reaches_freed_one": new_graph, "loop": loop, "carried": carried,
                    "carried_all": carried_all})

    if new_graph and loop:
        name = carried or "the carried state"
        loop_span = facts.src.loop_around(carried_line or facts.o.error_line or 0)
        if freed_rec is not None and failing.site == freed_rec.site:
            freed_txt += " (the same line, in the previous iteration)"
        cause = (f"{_cap(facts.at(failing.site))} starts from a graph built in this iteration, but that graph "
                 f"goes through `{name}`, which still holds the previous iteration's graph: {node_name} "
                 f"(created at {facts.at(getattr(node, '_site', None))} in an earlier iteration) was freed by "
                 f"{freed_txt}. " + catalog.get("rnn_hidden_not_detached").why)
        before = facts.src.line(carried_line) if carried_line else ""
        after = ""
        if carried and carried_line:
            ind = re.match(r"\s*", facts.src.raw_line(carried_line)).group(0)
            code = facts.src.line(carried_line)
            header = facts.src.line(loop_span[0]) if loop_span and loop_span[0] < carried_line else ""
            if header:
                after = f"{header}\n    {_detach_line(facts, carried_all, '')}\n    {code}"
                before = f"{header}\n    {code}"
            else:
                after = f"{_detach_line(facts, carried_all, '')}\n{code}"
                before = code
            name = ", ".join(carried_all)
        context["loop_lines"] = list(loop_span) if loop_span else None
        fix = _fix(f"Detach `{name}` at the start of each iteration (truncated backpropagation through time); "
                   "retain_graph=True would only let the graph grow with every step.", before, after)
        return "rnn_hidden_not_detached", cause, fix, context, {
            "backward_twice": "the failing pass starts from a new graph that reaches into an old one",
            "saved_tensor_after_free": "the error came from a backward pass, not from reading a saved tensor",
            "autograd_grad_twice": "the old graph is reached through a carried state"}

    kinds = {getattr(failing, "kind", None), getattr(freed_by, "kind", None)}
    first_line = facts.line_of(getattr(freed_by, "site", None))
    first_code = facts.src.line(first_line) if first_line else ""
    if "autograd.grad" in kinds:
        cause = (f"{_cap(_call_desc(facts, failing))} needs the tensors saved by {node_name} "
                 f"(created at {facts.at(getattr(node, '_site', None))}), but {freed_txt} already went through "
                 "this graph and freed them. " + catalog.get("autograd_grad_twice").why)
        after = add_kwarg(first_code, "retain_graph=True") if first_code and "retain_graph" not in first_code else ""
        fix = _fix("Get every gradient in one torch.autograd.grad call, or pass retain_graph=True to the first "
                   "call.", first_code + ("\n" + err_code if err_code else ""),
                   ((after or first_code) + ("\n" + err_code if err_code else "")) if after else "")
        return "autograd_grad_twice", cause, fix, context, {
            "backward_twice": "one of the two passes is torch.autograd.grad",
            "saved_tensor_after_free": "the error came from a backward pass",
            "rnn_hidden_not_detached": "no state carries an old graph into a new one"}

    extra = ""
    if new_graph:
        extra = (" The failing pass starts from a new tensor, but it was computed from a tensor whose graph had "
                 "already been used and freed.")
    cause = (f"{_cap(_call_desc(facts, failing)) if failing else 'This backward'} goes through {node_name} "
             f"(created at {facts.at(getattr(node, '_site', None))}), whose saved tensors were freed by "
             f"{freed_txt}.{extra} " + catalog.get("backward_twice").why)
    after = ""
    if first_code and "retain_graph" not in first_code:
        after = add_kwarg(first_code, "retain_graph=True") or ""
        if after and err_code:
            after += "\n" + err_code
    fix = _fix("Do one backward per forward pass: rebuild the loss (re-run the forward) before the next backward, or "
               "add the losses and call backward() once. If you really need two passes over this graph, pass "
               "retain_graph=True to the first.", (first_code + "\n" + err_code) if first_code else err_code, after)
    return "backward_twice", cause, fix, context, {
        "autograd_grad_twice": "both passes are .backward()",
        "saved_tensor_after_free": "the error came from a backward pass",
        "rnn_hidden_not_detached": ("the loop does not carry a state into a new graph" if not new_graph
                                    else "the line that built the old graph did not run again (no loop)")}


# --------------------------------------------------------------------------- versions

VERSION_FAMILY = ["inplace_modified_saved", "inplace_modified_input", "detach_inplace_needed",
                  "optimizer_step_between_backwards"]


def _saved_slot(node, saved_version, current_version):
    """(slot name, SavedTensor) whose version moved, searching CopySlices' inner node too."""
    holders = [node, getattr(node, "fn", None)]
    best = None
    for h in holders:
        if h is None:
            continue
        try:
            items = h.saved_items()
        except Exception:  # noqa: BLE001
            continue
        for slot, value in items:
            vbox = getattr(value, "vbox", None)
            if vbox is None:
                continue
            if vbox[0] != value.version:
                if value.version == saved_version and vbox[0] == current_version:
                    return slot, value
                best = best or (slot, value)
    return best or (None, None)


def diagnose_version(facts, exc, ctx, engine_id):
    probe = facts.probe
    node = ctx.get("node")
    saved_v, cur_v = ctx.get("saved_version"), ctx.get("current_version")
    slot, saved = _saved_slot(node, saved_v, cur_v) if node is not None else (None, None)
    vbox = getattr(saved, "vbox", None)
    names = facts.names_sharing(vbox) if vbox is not None else []
    direct = facts.name_of(getattr(saved, "tensor", None)) if saved is not None else None
    name = direct or (names[0] if names else None)
    node_site = getattr(node, "_site", None)
    node_name = node.name() if node is not None else "a node"
    context = {"node": node_name, "saved_slot": slot, "saved_at": facts.where(node_site),
               "saved_version": saved_v, "current_version": cur_v, "tensor": name, "aliases": names,
               "shape": list(saved.shape) if saved is not None else None}

    # in-place ops seen on this storage, from the engine's nodes / on_inplace events
    events = []
    if vbox is not None and id(vbox) in probe.inplace and probe.inplace[id(vbox)][0] is vbox:
        events = [e for e in probe.inplace[id(vbox)][1] if (saved_v is None or e[0] > saved_v)]
    inplace = [{"version": v, "op": op, **(facts.where(site) or {})} for v, op, site in events]
    saved_line = facts.line_of(node_site) or 0
    err_line = facts.o.error_line or len(facts.src.lines)

    # optimizer.step() between two backwards?
    step_opt = None
    for oname, opt in facts.optimizers():
        for group in getattr(opt, "param_groups", ()):
            for p in group.get("params", ()):
                if vbox is not None and getattr(p, "_vbox", None) is vbox:
                    step_opt = (oname, opt, p)
        if step_opt:
            break
    if step_opt is not None and getattr(step_opt[1], "_step_calls", 1) > 0:
        oname, opt, p = step_opt
        pname = facts.name_of(p) or name or "a parameter"
        # optimizer.step() calls the engine reported (on_optimizer_step), else found in the source
        step_lines = sorted({facts.line_of(site) for ref, site, _ in probe.steps
                             if ref() is opt and facts.line_of(site)})
        step_lines = step_lines or facts.src.find_lines(rf"\b{re.escape(oname)}\.step\(", saved_line, err_line) \
            or facts.src.find_lines(rf"\b{re.escape(oname)}\.step\(")
        prev = [c for c in probe.calls[:-1] if c.finished]
        retained = prev[-1] if prev else None
        context.update({"optimizer": oname, "parameter": pname, "step_lines": step_lines,
                        "previous_backward": _call_dict(facts, retained), "inplace_ops": inplace})
        step_code = facts.src.line(step_lines[0]) if step_lines else ""
        step_txt = (facts.line_ref(step_lines[0]) + ("" if step_code == f"{oname}.step()" else f" (`{step_code}`)")
                    if step_lines else "optimizer.step()")
        cause = (f"{node_name} (created at {facts.at(node_site)}) saved `{pname}` at version {saved_v}. "
                 f"Then `{oname}.step()` at {step_txt} updated the parameters in place (now version {cur_v})"
                 + (f", after {_call_desc(facts, retained)} had kept the graph alive" if retained else "")
                 + f", and the backward at {facts.line_ref(facts.o.error_line)} still needs the old `{pname}`. "
                 + catalog.get("optimizer_step_between_backwards").why)
        before_lines = []
        if retained is not None and facts.line_of(retained.site):
            before_lines.append(_statement(facts.src.line(facts.line_of(retained.site)), r"\.backward\("))
        if step_lines:
            before_lines.append(_statement(facts.src.line(step_lines[0]), r"\.step\("))
        before_lines.append(_statement(facts.src.line(facts.o.error_line), r"\.backward\("))
        after_lines = []
        if len(before_lines) == 3:
            b0 = re.sub(r",?\s*retain_graph\s*=\s*True", "", before_lines[0]).replace("(, ", "(")
            after_lines = [before_lines[0] if b0 == before_lines[0] else b0 + "   # (or: backward each loss)",
                           before_lines[2], before_lines[1]]
            l0 = re.sub(r"\.backward\(.*\)$", "", b0)
            l2 = re.sub(r"\.backward\(.*\)$", "", before_lines[2])
            if l0 != b0 and l2 != before_lines[2]:
                after_lines = [f"loss = {l0} + {l2}", "loss.backward()", before_lines[1]]
        fix = _fix(f"Finish every backward pass over this forward output before `{oname}.step()`: add the losses "
                   "and call backward() once (or call backward on each) and step afterwards; if a later loss needs "
                   "the updated weights, recompute the forward pass after the step.",
                   "\n".join(before_lines), "\n".join(after_lines))
        return "optimizer_step_between_backwards", cause, fix, context, {
            "inplace_modified_saved": f"the in-place change came from {oname}.step()",
            "inplace_modified_input": f"the in-place change came from {oname}.step()",
            "detach_inplace_needed": "no detached alias was modified"}

    # a detached alias modified in place?
    alias = facts.names(lambda t: vbox is not None and t._vbox is vbox and t is not getattr(saved, "tensor", None)
                        and t._grad_fn is None and not t._requires_grad and t._base is None)
    tracked = [n for n in names if n not in alias]
    if alias and (saved is not None and (saved.is_output or saved.requires_grad or tracked)):
        zname = alias[0]
        yname = tracked[0] if tracked else name
        det_lines = facts.src.find_lines(rf"\b{re.escape(zname)}\s*=.*\.detach\(\)")
        mod_lines = facts.src.find_lines(inplace_pattern([zname]) or "$^", saved_line, err_line)
        context.update({"alias": zname, "detach_line": det_lines[0] if det_lines else None,
                        "inplace_lines": mod_lines, "inplace_ops": inplace})
        mods = ", ".join(f"{facts.line_ref(n)} (`{facts.src.line(n)}`)" for n in mod_lines) or "an in-place op"
        cause = (f"`{zname}` was made with .detach() from `{yname}`"
                 + (f" at {facts.line_ref(det_lines[0])}" if det_lines else "")
                 + f", so it shares `{yname}`'s memory and version counter. {_cap(mods)} changed `{zname}` in place, "
                 f"which changed the `{yname}` that {node_name} (created at {facts.at(node_site)}) saved: version "
                 f"{saved_v} was saved, it is now at version {cur_v}. " + catalog.get("detach_inplace_needed").why)
        before = facts.src.line(det_lines[0]) if det_lines else ""
        after = before.replace(".detach()", ".detach().clone()") if before else ""
        return "detach_inplace_needed", cause, _fix(
            f"Make `{zname}` a real copy: `{zname} = {yname}.detach().clone()`.", before, after), context, {
            "inplace_modified_saved": f"the change went through the detached alias `{zname}`",
            "inplace_modified_input": f"the change went through the detached alias `{zname}`",
            "optimizer_step_between_backwards": "no optimizer owns this tensor"}

    # plain in-place modification of the saved tensor (engine_id says output or input)
    lines = [e["line"] for e in inplace if e.get("line") and e.get("file") is None]
    how = "seen by the engine" if lines else None
    if not lines:
        pat = inplace_pattern(names or ([name] if name else []))
        if pat:
            lines = facts.src.find_lines(pat, saved_line + 1 if saved_line else 1, err_line) \
                or facts.src.find_lines(pat)
            how = "found in the source" if lines else None
    context.update({"inplace_ops": inplace, "inplace_lines": lines, "inplace_lines_from": how})
    who = f"`{name}`" if name else f"the tensor saved as {slot or 'a saved tensor'}"
    what = "an output of another op" if engine_id == "inplace_modified_saved" else "an input with no grad_fn"
    if lines:
        mods = ", ".join(f"{facts.line_ref(n)} (`{facts.src.line(n)}`)" for n in lines)
        if inplace and how == "seen by the engine":
            mods = ", ".join(f"{facts.line_ref(e['line'])} (`{e['code']}`, {e['op']}, now version {e['version']})"
                             for e in inplace if e.get("line"))
    else:
        mods = "an in-place op gradviz could not locate"
    cause = (f"{node_name} (created at {facts.at(node_site)}) saved {who} ({what}) for its gradient when it was at "
             f"version {saved_v}. Afterwards {mods} modified it in place, so at backward (line "
             f"{facts.o.error_line}) it is at version {cur_v}. " + catalog.get(engine_id).why)
    before = facts.src.line(lines[-1]) if lines else ""
    after = out_of_place(facts.src.raw_line(lines[-1])) if lines else None
    if after:
        after = "\n".join(s.strip() if i == 0 else s.strip() for i, s in enumerate(after.split("\n")))
    fix = _fix(f"Replace the in-place change of {who} with an out-of-place one (or clone() it first), so the "
               "saved value stays intact.", before, after or "")
    return engine_id, cause, fix, context, {
        "detach_inplace_needed": "no detached alias of the tensor was modified",
        "optimizer_step_between_backwards": "no optimizer step touched this tensor",
        ("inplace_modified_input" if engine_id == "inplace_modified_saved" else "inplace_modified_saved"):
            ("the saved tensor is an op's output" if engine_id == "inplace_modified_saved"
             else "the saved tensor is a plain input")}


# --------------------------------------------------------------------------- no grad_fn

NO_GRAD_FN_FAMILY = ["backward_no_grad_fn", "backward_in_no_grad", "double_backward_no_create_graph"]


def diagnose_no_grad_fn(facts, exc, ctx):
    t = ctx.get("tensor")
    name = facts.name_of(t)
    err_line = facts.o.error_line
    err_code = facts.src.line(err_line)
    m = re.search(r"element (\d+)", str(exc))
    index = int(m.group(1)) if m else 0
    expr = name or (re.sub(r"\.backward\(.*$", "", err_code) if ".backward(" in err_code else None)
    assign_line = facts.src.last_assignment(name, err_line) if name else None
    context = {"tensor": name, "index": index, "assigned_at": assign_line,
               "shape": list(t.shape) if t is not None else None}

    # the names the failing tensor is built from: itself, or the names in the backward expression
    from .source import names_in
    expr_names = [name] if name else names_in(re.sub(r"\.backward\(.*$", "", err_code)) if ".backward(" in err_code \
        else []
    expr_names = [n for n in expr_names if n and n != "torch"]

    def assigned(n):
        line = facts.src.last_assignment(n, err_line)
        return line, facts.src.line(line) if line else ""

    # follow the assignments back a few steps: penalty = dy.pow(2).sum() <- (dy,) = autograd.grad(...)
    frontier, seen_names = list(expr_names), set(expr_names)
    for _ in range(3):
        nxt = []
        for n in frontier:
            _, code = assigned(n)
            _, rhs = assign_parts(code) if code else (None, None)
            for r in rhs or []:
                if r not in seen_names and r != "torch" and not r.startswith("_"):
                    seen_names.add(r)
                    nxt.append(r)
        expr_names.extend(nxt)
        frontier = nxt

    # double backward: a gradient was differentiated
    from_grad = getattr(t, "_gradviz_grad_of", None)
    grad_src = None
    if from_grad is not None or (t is not None and facts.names(lambda x: x._grad is t, limit=1)):
        grad_src = assign_line or err_line
    if grad_src is None and re.search(r"\.grad\b(?!_fn)", re.sub(r"\.backward\(.*$", "", err_code)):
        grad_src = err_line
    for n in expr_names:
        if grad_src is not None:
            break
        line, code = assigned(n)
        v = facts.evaluate(n)
        if _is_tensor(v) and facts.names(lambda x: x._grad is v, limit=1):
            grad_src = line or err_line
        elif code and re.search(r"autograd\.grad\(|\.grad\b(?!_fn)", code) and "create_graph=True" not in code:
            grad_src = line
    if grad_src is not None:
        gcode = facts.src.line(grad_src)
        context["gradient_from_line"] = grad_src
        if re.search(r"autograd\.grad\(", gcode):
            before = f"{gcode}\n{err_code}" if grad_src != err_line else err_code
            after = f"{add_kwarg(gcode, 'create_graph=True') or gcode}\n{err_code}" if grad_src != err_line else ""
            src_txt = f"{facts.line_ref(grad_src)} (`{gcode}`) computed it with torch.autograd.grad"
        else:
            back = facts.src.find_lines(r"\.backward\(", 1, err_line - 1)
            bl = facts.src.line(back[-1]) if back else ""
            before = f"{bl}\n{err_code}" if bl else err_code
            after = f"{add_kwarg(bl, 'create_graph=True') or bl}\n{err_code}" if bl else ""
            src_txt = (f"it is a .grad filled by the backward at {facts.line_ref(back[-1])} (`{bl}`)" if back
                       else "it is a .grad")
        cause = (f"The tensor differentiated at {facts.line_ref(err_line)} (`{err_code}`) is computed from a gradient: "
                 f"{src_txt} without create_graph=True, so it is a constant with no grad_fn and cannot be "
                 "differentiated again. "
                 + catalog.get("double_backward_no_create_graph").why)
        return "double_backward_no_create_graph", cause, _fix(
            "Compute the first gradient with create_graph=True.", before, after), context, {
            "backward_no_grad_fn": "the tensor is a gradient computed without a graph",
            "backward_in_no_grad": "grad mode was on; the gradient itself had no graph"}

    # computed under no_grad / inference_mode
    mode = None
    if t is not None and getattr(t, "_inference", False):
        mode = "torch.inference_mode()"
    created_no_grad = getattr(t, "_gradviz_created_in_no_grad", None)
    block = None
    line = assign_line or err_line
    for cand_line in [assign_line, err_line] + [assigned(n)[0] for n in expr_names]:
        if cand_line and facts.src.in_no_grad(cand_line):
            block, line = facts.src.in_no_grad(cand_line), cand_line
            break
    if not block and not mode:
        no_grad_fns = facts.src.no_grad_functions()
        for n in expr_names:
            if n in no_grad_fns:
                block, line = no_grad_fns[n], assigned(n)[0] or assign_line or err_line
                for cand_line in [assign_line] + [assigned(m)[0] for m in expr_names]:
                    if cand_line and re.search(rf"\b{re.escape(n)}\(", facts.src.line(cand_line)):
                        line = cand_line
                        break
                break
    if not block and not mode:
        for n in expr_names:
            v = facts.evaluate(n)
            if _is_tensor(v) and getattr(v, "_inference", False):
                mode, line = "torch.inference_mode()", assigned(n)[0] or err_line
                break
    if mode or created_no_grad or block:
        where = block or mode or "torch.no_grad()"
        context["grad_mode_block"] = where
        context["computed_at"] = line
        code = facts.src.line(line)
        cause = (f"`{expr or 'the tensor'}` was computed from {facts.line_ref(line)} (`{code}`), which ran inside "
                 f"{where}, so autograd recorded nothing and it has no grad_fn. "
                 + catalog.get("backward_in_no_grad").why)
        if where.startswith("@"):  # a decorated function: show the decorator going away
            deco = facts.src.find_lines(re.escape(where))
            d_line = deco[0] if deco else None
            before = f"{facts.src.line(d_line)}\n{facts.src.line(d_line + 1)}" if d_line else ""
            after = facts.src.line(d_line + 1) if d_line else ""
        elif where.startswith("with "):  # a with-block inside a called function
            before = after = ""
        else:
            before, after = indent_block(code, f"with {where}:"), code
        return "backward_in_no_grad", cause, _fix(
            f"Compute `{expr or 'the loss'}` outside {where}; keep the block for evaluation only.",
            before, after), context, {
            "backward_no_grad_fn": f"the inputs may require grad, but {where} was active",
            "double_backward_no_create_graph": "the tensor is not a gradient"}

    # nothing requires grad: name the leaves that should
    leaves = []
    rhs_names = []
    code_of_assign = facts.src.line(assign_line) if assign_line else ""
    if code_of_assign:
        _, rhs_names = assign_parts(code_of_assign)
    if ".backward(" in err_code and not name:
        rhs_names = names_in(re.sub(r"\.backward\(.*$", "", err_code))
    for n in rhs_names or []:
        v = facts.evaluate(n)
        if _is_tensor(v) and v._grad_fn is None and not v._requires_grad:
            leaves.append(n)
    frozen = []
    for scope in facts.scopes():
        for mname, mod in list(scope.items()):
            if hasattr(mod, "parameters") and hasattr(mod, "named_parameters") and not isinstance(mod, type) \
                    and mname in (rhs_names or []) + re.findall(r"\w+", err_code):
                try:
                    ps = list(mod.parameters())
                except Exception:  # noqa: BLE001
                    continue
                if ps and not any(p.requires_grad for p in ps):
                    frozen.append(mname)
    context.update({"inputs_without_grad": leaves, "frozen_modules": frozen})
    trainable = facts.names(lambda x: x._grad_fn is None and x._requires_grad)
    context["leaves_requiring_grad"] = trainable
    parts = [f"`{expr or 'The tensor'}` ({facts.line_ref(assign_line or err_line)}) has requires_grad=False "
             "and no grad_fn."]
    if leaves:
        parts.append(f"It is computed from {', '.join(f'`{n}`' for n in leaves)}, which "
                     f"{'does' if len(leaves) == 1 else 'do'} not require grad.")
    if frozen:
        parts.append(f"Every parameter of {', '.join(f'`{n}`' for n in frozen)} is frozen (requires_grad=False).")
    if not trainable:
        parts.append("No leaf tensor in your script requires grad.")
    cause = " ".join(parts) + " " + catalog.get("backward_no_grad_fn").why
    before = after = ""
    if leaves:
        lead = leaves[0]
        al = facts.src.last_assignment(lead, assign_line or err_line)
        if al:
            before = facts.src.line(al)
            after = add_kwarg(before, "requires_grad=True") if re.search(r"torch\.\w+\(.*\)\s*(#.*)?$", before) \
                else f"{before}\n{lead}.requires_grad_()"
    elif frozen:
        before = f"for p in {frozen[0]}.parameters(): p.requires_grad = False"
        after = f"for p in {frozen[0]}.parameters(): p.requires_grad = True"
    return "backward_no_grad_fn", cause, _fix(
        "Give the tensors you want gradients for requires_grad=True (or make them nn.Parameter) before the forward "
        "pass, and do not cut the graph between them and the loss.", before, after or ""), context, {
        "backward_in_no_grad": "the loss was not computed inside no_grad/inference_mode",
        "double_backward_no_create_graph": "the tensor is not a gradient"}


# --------------------------------------------------------------------------- .grad is None


def diagnose_grad_none(facts, exc):
    err_line = facts.o.error_line
    code = facts.src.line(err_line)
    m = re.search(r"([A-Za-z_][\w.]*(?:\[[^\]]*\])*)\.grad\.(\w+)", code)
    context = {"line": err_line, "code": code}
    if not m:
        return None
    expr, attr = m.group(1), m.group(2)
    t = facts.evaluate(expr)
    context.update({"tensor": expr, "attribute": attr})
    if not _is_tensor(t):
        return None
    probe = facts.probe
    info = probe.leaves.get(id(t))
    reached = info is not None and info[0]() is t
    backwards = [c for c in probe.calls if c.finished]
    if t._grad_fn is not None:
        reason = "non_leaf"
        text = (f"`{expr}` is not a leaf: it was produced by {t._grad_fn.name()}, and backward() only fills .grad "
                "of leaves.")
        fix = _fix(f"Call `{expr}.retain_grad()` before backward(), or read .grad of the leaf you meant.",
                   code, f"{expr}.retain_grad()   # before backward()\n...\n{code}")
    elif not t._requires_grad:
        detached = facts.src.find_lines(rf"\b{re.escape(expr)}\s*=.*\.detach\(\)|\b{re.escape(expr)}\s*=.*\.data\b")
        reason = "detached" if detached else "no_requires_grad"
        copy = f": it is a detached copy ({facts.line_ref(detached[0])})" if detached else ""
        text = f"`{expr}` does not require grad{copy}, so no gradient is ever stored in it."
        al = facts.src.last_assignment(expr, err_line)
        b = facts.src.line(al) if al else code
        fix = _fix(f"Make `{expr}` require grad (requires_grad=True / nn.Parameter) and use it, not a detached copy, "
                   "in the loss.", b, (add_kwarg(b, "requires_grad=True") or b) if not detached else
                   b.replace(".detach()", "").replace(".data", ""))
    elif not backwards:
        reason = "before_backward"
        text = f"No backward pass has run yet when {facts.line_ref(err_line)} reads `{expr}.grad`."
        fix = _fix("Read or modify .grad only after backward(), or guard it.", code,
                   f"if {expr}.grad is not None:\n    {code}")
    elif not reached:
        uses = facts.src.find_lines(rf"\b{re.escape(expr)}\.detach\(\)|\b{re.escape(expr)}\.data\b")
        reason = "detached" if uses else "not_in_graph"
        text = (f"{len(backwards)} backward pass{'es' if len(backwards) != 1 else ''} ran, but none reached `{expr}`: "
                + (f"it is only used through .detach()/.data ({facts.line_ref(uses[0])})." if uses
                   else "it does not take part in the loss."))
        fix = _fix(f"Use `{expr}` itself in the computation of the loss (or drop it from what you update).", code,
                   f"if {expr}.grad is not None:\n    {code}")
    else:
        reason = "reset_to_none"
        text = (f"A backward pass did reach `{expr}`, but its .grad was reset to None afterwards (zero_grad() sets "
                "gradients to None by default).")
        fix = _fix("Read the gradient between backward() and zero_grad(), or guard with `if ... is not None`.", code,
                   f"if {expr}.grad is not None:\n    {code}")
    context["reason"] = reason
    cause = f"{facts.line_ref(err_line, start=True)} (`{code}`) calls .{attr} on `{expr}.grad`, which is None. {text}"
    return "grad_is_none_zero", cause, fix, context, {}


# --------------------------------------------------------------------------- everything else


def _shared_ids(eid):
    for fam in (FREED_FAMILY, VERSION_FAMILY, NO_GRAD_FN_FAMILY):
        if eid in fam:
            return fam
    return [eid]


def _generic(facts, exc, eid, ctx):
    """Any other id: the entry's explanation, anchored to the failing line, with the user's names."""
    e = catalog.get(eid)
    line = facts.o.error_line
    code = facts.src.line(line)
    context = {}
    before, after = code, ""
    t = ctx.get("tensor")
    name = facts.name_of(t) if t is not None else None
    if name:
        context["tensor"] = name
        context["shape"] = list(t.shape)
    if eid in ("backward_nonscalar", "grad_nonscalar_no_grad_outputs"):
        in_grad = any(fn == "grad" and "autograd" in f for f, _, fn in facts.o.frames)
        eid = "grad_nonscalar_no_grad_outputs" if in_grad else "backward_nonscalar"
        e = catalog.get(eid)
        # the user's name for the output, else the expression the call was made on (never an example's name)
        nm = name or _differentiated_expr(code, in_grad)
        shape = f" of shape {list(t.shape)}" if t is not None else ""
        if nm and in_grad:
            after = add_kwarg(code, f"grad_outputs=torch.ones_like({nm})") or ""
        elif nm and f"{nm}.backward()" in code:
            after = code.replace(f"{nm}.backward()", f"{nm}.sum().backward()", 1)
        numel = t.numel() if t is not None else "several"
        cause_extra = f"`{nm}`{shape} has {numel} elements." if nm else f"The output{shape} has {numel} elements."
        cause = f"{facts.line_ref(line, start=True)} (`{code}`): {cause_extra} {e.cause}"
        return eid, cause, _fix(e.fix, before, after), context, {
            ("backward_nonscalar" if in_grad else "grad_nonscalar_no_grad_outputs"):
                ("the call is torch.autograd.grad" if in_grad else "the call is .backward()")}
    if eid == "mm_shape_mismatch":
        facts_msg = explain_message(str(exc)).context
        mat1, mat2 = facts_msg.get("mat1"), facts_msg.get("mat2")
        extra = ""
        if mat1 and mat2:
            context.update({"mat1": mat1, "mat2": mat2})
            extra = f"The product was ({mat1[0]}x{mat1[1]}) @ ({mat2[0]}x{mat2[1]}): {mat1[1]} != {mat2[0]}."
            from .source import names_in
            for n in names_in(code):
                mod = facts.evaluate(n)
                in_f = getattr(mod, "in_features", None)
                if isinstance(in_f, int) and in_f == mat2[0] and mat1[1] != in_f:
                    al = facts.src.last_assignment(n, line)
                    decl = facts.src.line(al) if al else ""
                    context.update({"layer": n, "in_features": in_f, "input_features": mat1[1]})
                    extra = (f"`{n}` is an nn.Linear with in_features={in_f}, but the input reaching it has "
                             f"{mat1[1]} features in its last dimension.")
                    if decl:
                        new = re.sub(rf"Linear\(\s*(in_features\s*=\s*)?{in_f}\b", rf"Linear(\g<1>{mat1[1]}", decl, 1)
                        if new != decl:
                            before, after = decl, new
                    break
            else:
                m = re.search(r"(\w[\w.]*)\s*@\s*(\w[\w.]*)", code)
                mm = re.search(r"\b(mm|matmul)\(\s*(\w[\w.]*)\s*,\s*(\w[\w.]*)\s*\)", code)
                if m and mat1[1] == mat2[1]:
                    after = code.replace(m.group(0), f"{m.group(1)} @ {m.group(2)}.T", 1)
                elif mm and mat1[1] == mat2[1]:
                    after = code.replace(mm.group(0), f"{mm.group(1)}({mm.group(2)}, {mm.group(3)}.T)", 1)
        cause = f"{facts.line_ref(line, start=True)} (`{code}`): {extra} {e.cause}" if code else e.cause
        return eid, cause, _fix(e.fix, before, after), context, {}
    if eid == "broadcast_mismatch":
        f = explain_message(str(exc)).context
        if "size_a" in f:
            context.update({k: f[k] for k in ("size_a", "size_b", "dim")})
            cause = (f"{facts.line_ref(line, start=True)} (`{code}`): the operands have {f['size_a']} and "
                     f"{f['size_b']} elements in dimension {f['dim']}. {e.cause}")
            return eid, cause, _fix(e.fix, code, ""), context, {}
    if eid in ("inplace_leaf", "inplace_view_of_leaf"):
        after = indent_block(code, "with torch.no_grad():")
    elif eid == "numpy_requires_grad":
        after = re.sub(r"(\w[\w.\]\[]*)\.numpy\(\)", r"\1.detach().numpy()", code)
        if after == code:
            after = re.sub(r"np\.(asarray|array)\((\w[\w.]*)", r"np.\1(\2.detach()", code)
    elif eid == "item_multi_element":
        after = re.sub(r"(\w[\w.\]\[]*)\.item\(\)", r"\1.mean().item()", code)
    elif eid == "float_of_multi_element":
        after = re.sub(r"\b(float|int)\(([^()]+)\)", r"\1(\2.mean())", code)
    elif eid == "view_noncontiguous":
        after = code.replace(".view(", ".reshape(")
    elif eid == "requires_grad_nonleaf":
        m = re.match(r"(\w[\w.]*)\.requires_grad(?:_\(\s*False\s*\)|\s*=\s*False)", code)
        after = f"{m.group(1)} = {m.group(1)}.detach()" if m else ""
    elif eid == "requires_grad_int_tensor":
        m = re.match(r"(\w[\w.]*)\.requires_grad_\(", code)
        after = f"{m.group(1)} = {m.group(1)}.float().requires_grad_()" if m else ""
    elif eid == "tensor_int_list_requires_grad":
        after = add_kwarg(code.replace("requires_grad=True", "").replace(", )", ")").replace("(, ", "("),
                          "dtype=torch.float32, requires_grad=True") if "torch.tensor(" in code else ""
    elif eid in ("retain_grad_no_requires_grad", "hook_no_requires_grad", "resize_requires_grad",
                 "detach_inplace_view", "deepcopy_nonleaf"):
        after = {"detach_inplace_view": re.sub(r"(\w[\w.]*)\.detach_\(\)", r"\1 = \1.detach()", code),
                 "deepcopy_nonleaf": _deepcopy_after(facts, code)}.get(eid, "")
    elif eid == "inference_tensor_inplace":
        m = re.match(r"(\w+)", code)
        after = f"{m.group(1)} = {m.group(1)}.clone()\n{code}" if m else ""
    elif eid == "grad_unused_input":
        after = add_kwarg(code, "allow_unused=True") or ""
    elif eid == "backward_gradient_shape_mismatch":
        nm = re.match(r"(\w+)\.backward\(", code)
        if nm:
            after = re.sub(r"gradient\s*=\s*[\w.]+(\([^()]*\))?", f"gradient=torch.ones_like({nm.group(1)})", code)
    if not after and not code:  # no line of the script to show: the catalog's example, labelled as one
        return eid, e.cause, example_fix(e), context, {}
    if not after:
        before, after = code, ""
    cause = f"{facts.line_ref(line, start=True)} (`{code}`): {e.cause}" if code else e.cause
    return eid, cause, _fix(e.fix, before, after), context, {}


def _deepcopy_after(facts, code):
    """``copy.deepcopy(t.detach())`` when the copied name is a tensor; nothing for a list or an object."""
    m = re.search(r"deepcopy\((\w+)\)", code)
    if m is None or not _is_tensor(facts.evaluate(m.group(1))):
        return ""
    return code.replace(m.group(0), f"deepcopy({m.group(1)}.detach())", 1)


def _differentiated_expr(code, in_grad):
    """The expression ``code`` calls .backward() on (``(x * 2)`` in ``(x * 2).backward()``), or the
    first argument of its torch.autograd.grad call; None when it cannot be read off the line."""
    if in_grad:
        m = re.search(r"\bgrad\(\s*(?:outputs\s*=\s*)?([^,()]+(?:\([^()]*\))?[^,()]*)\s*,", code)
    else:
        m = re.search(r"(?:^|[=\s(])([^\s=(][^=]*?|\(.*?\))\.backward\(", code)
    expr = m.group(1).strip() if m else ""
    return expr if expr and len(expr) <= 60 and "\n" not in expr else None


# --------------------------------------------------------------------------- entry point


def diagnose_script(path, argv=(), *, lint=True) -> Diagnosis:
    """Run ``path`` in gradviz's engine until its first error and diagnose it.

    Raises ``runner.ScriptError`` when the script cannot be read."""
    from .lint import findings_to_warnings
    from .probe import Probe
    from .runner import run_until_error

    probe = Probe(lint=lint)
    outcome = run_until_error(path, argv, probe=probe)
    facts = Facts(outcome)
    warnings_ = findings_to_warnings(facts) if lint else []
    warning_dicts = [_placed(outcome.program, w.as_dict()) for w in warnings_]
    exc = outcome.exc
    if exc is None:
        return Diagnosis(id=None, title="No error", cause="The script ran to the end without raising.",
                         fix=_fix(""), context={"warnings": len(warnings_)}, error=None,
                         warnings=warning_dicts, stdout=outcome.stdout)
    message = str(exc)
    error = _placed(outcome.program, {"type": type(exc).__name__, "message": message, "line": outcome.error_line,
                                      "code": facts.src.line(outcome.error_line),
                                      "traceback": outcome.error_traceback})
    explanation = explain_message(f"{type(exc).__name__}: {message}")
    eid = getattr(exc, "gradviz_id", None) or explanation.id
    ctx = getattr(exc, "gradviz_context", None) or {}
    result = None
    try:
        if eid in FREED_FAMILY:
            result = diagnose_freed(facts, exc, ctx)
        elif eid in ("inplace_modified_saved", "inplace_modified_input"):
            result = diagnose_version(facts, exc, ctx, eid)
        elif eid in NO_GRAD_FN_FAMILY:
            result = diagnose_no_grad_fn(facts, exc, ctx)
        elif eid == "grad_is_none_zero" or (isinstance(exc, AttributeError) and "'NoneType'" in message):
            result = diagnose_grad_none(facts, exc)
        if result is None and eid is not None:
            result = _generic(facts, exc, eid, ctx)
    except Exception as e:  # noqa: BLE001 - a diagnosis must never hide the user's error
        if os.environ.get("GRADVIZ_DEBUG"):
            raise
        result = _generic(facts, exc, eid, ctx) if eid else None
        if result is not None:
            result[3]["diagnosis_error"] = f"{type(e).__name__}: {e}"
    node = ctx.get("node")
    roots = _graph_roots(facts, node, outcome)
    names = _graph_names(facts)
    if result is None:
        return Diagnosis(id=None, candidates=explanation.candidates, title="Unknown error",
                         cause=f"{facts.line_ref(outcome.error_line, start=True)}: {type(exc).__name__}: {message}. "
                               + explanation.cause,
                         fix=unknown_script_fix(torch_engine=False), context={"error_line": outcome.error_line},
                         error=error,
                         warnings=warning_dicts, stdout=outcome.stdout, explanation=explanation)
    chosen, cause, fix, context, ruled_out = result
    context = _plain(context)
    context.setdefault("error_line", outcome.error_line)
    if getattr(exc, "gradviz_id", None) and exc.gradviz_id != chosen:
        context["engine_id"] = exc.gradviz_id
    family = _shared_ids(chosen)
    if len(family) == 1:
        family = [i for i in explanation.ids if i != chosen] if chosen in explanation.ids else []
    cands = _others(family, chosen, ruled_out)
    return Diagnosis(id=chosen, candidates=cands, title=catalog.get(chosen).title, cause=" ".join(cause.split()),
                     fix=fix, context=context, error=error, warnings=warning_dicts,
                     stdout=outcome.stdout, explanation=explanation, failing_node=node, graph_roots=roots,
                     graph_names=names)


def unknown_script_fix(torch_engine) -> dict:
    """The fix panel of a script whose error is not one gradviz knows."""
    text = ("This error is not one of the autograd errors gradviz knows (`gradviz explain --list` shows them); "
            "the message and the line above are what Python reported.")
    if not torch_engine:
        text += (" If the script needs a part of PyTorch that gradviz's engine does not have, `--engine torch` "
                 "runs it on the installed PyTorch.")
    return _fix(text)


def _placed(program, d):
    """An error or warning dict with its line as people see it: a notebook's adds its
    ``cell`` ('In [5]') and counts the line in that cell."""
    if program is not None and program.notebook and d.get("line") and d.get("file") is None:
        d["cell"], d["line"] = program.where(d["line"])
    return d


def _graph_roots(facts, node, outcome):
    """Edges to draw for --graph: the roots of the failing backward pass (when the error came from
    one), then the failing node itself if those roots do not reach it."""
    from .probe import walk
    roots = []
    if _in_backward(outcome) and facts.probe.calls:
        for ref, nr in facts.probe.calls[-1].roots:
            n = ref()
            if n is not None:
                roots.append((n, nr))
    if node is not None and node not in walk([n for n, _ in roots]):
        roots.append((node, 0))
    if not roots:
        t = (getattr(outcome.exc, "gradviz_context", None) or {}).get("tensor")
        if t is not None and getattr(t, "_grad_fn", None) is not None:
            roots.append((t._grad_fn, t._output_nr))
    return tuple(roots)


def _graph_names(facts):
    out = {}
    for scope in reversed(facts.scopes()):
        for name, v in list(scope.items()):
            if not name.startswith("_") and _is_tensor(v):
                out[name] = v
    return out


def _plain(x):
    """Context as JSON-able plain data."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if x is None or isinstance(x, (str, int, float, bool)):
        return x
    return str(x)
