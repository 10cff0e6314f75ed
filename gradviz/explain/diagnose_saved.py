"""Script mode's diagnoses about saved tensors: a backward through buffers an earlier
backward freed (which call freed them, and the line to change), and a saved tensor
modified in place after it was saved (which op bumped its version, and where)."""
import re

from . import catalog
from .facts import Diagnosed, _fix
from .source import add_kwarg, assign_parts, inplace_pattern, out_of_place


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
        if mark < n._sequence_nr() < (1 << 62):
            for nxt, _ in n.next_functions:
                if nxt is not None and nxt._sequence_nr() <= mark and type(nxt).__name__ != "AccumulateGrad":
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
    """Which of the four causes of 'backward through the graph a second time' happened."""
    s = _Freed(facts, ctx)
    if not _in_backward(facts.o):
        return _saved_read_after_free(facts, s)
    s.follow_failing_pass()
    if s.new_graph and s.loop:
        return _rnn_hidden_not_detached(facts, s)
    kinds = {getattr(s.failing, "kind", None), getattr(s.freed_by, "kind", None)}
    first_line = facts.line_of(getattr(s.freed_by, "site", None))
    first_code = facts.src.line(first_line) if first_line else ""
    if "autograd.grad" in kinds:
        return _autograd_grad_twice(facts, s, first_code)
    return _backward_twice(facts, s, first_code)


class _Freed:
    """The node whose buffers were gone, the backward that freed them and, in a backward pass,
    how the failing pass reached them."""

    def __init__(self, facts, ctx):
        self.facts = facts
        self.probe = probe = facts.probe
        self.node = node = ctx.get("node")
        self.freed_by = freed_by = ctx.get("freed_by")
        self.context = {"node": node.name() if node is not None else None,
                        "node_line": facts.where(getattr(node, "_site", None)),
                        "freed_by": _call_dict(facts, freed_by)}
        self.freed_rec = probe.call_by_index(getattr(freed_by, "index", None)) if freed_by is not None else None
        self.err_line = facts.o.error_line
        self.err_code = facts.src.line(self.err_line)
        self.node_name = node.name() if node is not None else "a node"
        self.freed_txt = _freed_by_desc(facts, freed_by) if freed_by is not None else "an earlier backward pass"

    def follow_failing_pass(self):
        """Did the failing pass start from a new graph that reaches into the freed one, in a loop,
        and through which carried variables?"""
        facts, probe, node, freed_rec = self.facts, self.probe, self.node, self.freed_rec
        self.failing = failing = probe.calls[-1] if probe.calls else None
        self.context["failing_call"] = _call_dict(facts, failing)
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
        self.context.update({"new_graph_reaches_freed_one": new_graph, "loop": loop, "carried": carried,
                             "carried_all": carried_all})
        self.new_graph, self.loop = new_graph, loop
        self.carried, self.carried_all, self.carried_line = carried, carried_all, carried_line


def _saved_read_after_free(facts, s):
    """saved_tensor_after_free: an attribute read (grad_fn._saved_*, ctx.saved_tensors) outside any backward pass."""
    node, freed_by, context, err_line, err_code = s.node, s.freed_by, s.context, s.err_line, s.err_code
    attr = re.search(r"(_saved_\w+|_raw_saved_\w+|saved_tensors|saved_variables)", err_code)
    context["attribute"] = attr.group(1) if attr else None
    cause = (f"{facts.line_ref(err_line, start=True)} (`{err_code}`) reads a tensor saved by {s.node_name} "
             f"(created at {facts.at(getattr(node, '_site', None))}), but {s.freed_txt} already ran through that "
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
    return Diagnosed("saved_tensor_after_free", cause, fix, context, {
        "backward_twice": "the failing line does not run a backward pass",
        "autograd_grad_twice": "the failing line does not call autograd.grad",
        "rnn_hidden_not_detached": "no backward pass was running"})


def _rnn_hidden_not_detached(facts, s):
    """rnn_hidden_not_detached: a state carried over loop iterations holds the previous iteration's graph."""
    node, context, failing, freed_rec = s.node, s.context, s.failing, s.freed_rec
    carried, carried_all, carried_line, freed_txt = s.carried, s.carried_all, s.carried_line, s.freed_txt
    name = carried or "the carried state"
    loop_span = facts.src.loop_around(carried_line or facts.o.error_line or 0)
    if freed_rec is not None and failing.site == freed_rec.site:
        freed_txt += " (the same line, in the previous iteration)"
    cause = (f"{_cap(facts.at(failing.site))} starts from a graph built in this iteration, but that graph "
             f"goes through `{name}`, which still holds the previous iteration's graph: {s.node_name} "
             f"(created at {facts.at(getattr(node, '_site', None))} in an earlier iteration) was freed by "
             f"{freed_txt}. " + catalog.get("rnn_hidden_not_detached").why)
    before = facts.src.line(carried_line) if carried_line else ""
    after = ""
    if carried and carried_line:
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
    return Diagnosed("rnn_hidden_not_detached", cause, fix, context, {
        "backward_twice": "the failing pass starts from a new graph that reaches into an old one",
        "saved_tensor_after_free": "the error came from a backward pass, not from reading a saved tensor",
        "autograd_grad_twice": "the old graph is reached through a carried state"})


def _autograd_grad_twice(facts, s, first_code):
    """autograd_grad_twice: one of the two passes is torch.autograd.grad."""
    err_code = s.err_code
    cause = (f"{_cap(_call_desc(facts, s.failing))} needs the tensors saved by {s.node_name} "
             f"(created at {facts.at(getattr(s.node, '_site', None))}), but {s.freed_txt} already went through "
             "this graph and freed them. " + catalog.get("autograd_grad_twice").why)
    after = add_kwarg(first_code, "retain_graph=True") if first_code and "retain_graph" not in first_code else ""
    fix = _fix("Get every gradient in one torch.autograd.grad call, or pass retain_graph=True to the first "
               "call.", first_code + ("\n" + err_code if err_code else ""),
               ((after or first_code) + ("\n" + err_code if err_code else "")) if after else "")
    return Diagnosed("autograd_grad_twice", cause, fix, s.context, {
        "backward_twice": "one of the two passes is torch.autograd.grad",
        "saved_tensor_after_free": "the error came from a backward pass",
        "rnn_hidden_not_detached": "no state carries an old graph into a new one"})


def _backward_twice(facts, s, first_code):
    """backward_twice: a second .backward() through the freed graph."""
    failing, new_graph, err_code = s.failing, s.new_graph, s.err_code
    extra = ""
    if new_graph:
        extra = (" The failing pass starts from a new tensor, but it was computed from a tensor whose graph had "
                 "already been used and freed.")
    cause = (f"{_cap(_call_desc(facts, failing)) if failing else 'This backward'} goes through {s.node_name} "
             f"(created at {facts.at(getattr(s.node, '_site', None))}), whose saved tensors were freed by "
             f"{s.freed_txt}.{extra} " + catalog.get("backward_twice").why)
    after = ""
    if first_code and "retain_graph" not in first_code:
        after = add_kwarg(first_code, "retain_graph=True") or ""
        if after and err_code:
            after += "\n" + err_code
    fix = _fix("Do one backward per forward pass: rebuild the loss (re-run the forward) before the next backward, or "
               "add the losses and call backward() once. If you really need two passes over this graph, pass "
               "retain_graph=True to the first.", (first_code + "\n" + err_code) if first_code else err_code, after)
    return Diagnosed("backward_twice", cause, fix, s.context, {
        "autograd_grad_twice": "both passes are .backward()",
        "saved_tensor_after_free": "the error came from a backward pass",
        "rnn_hidden_not_detached": ("the loop does not carry a state into a new graph" if not new_graph
                                    else "the line that built the old graph did not run again (no loop)")})


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
    """Which of the causes of 'modified by an inplace operation' happened: optimizer.step() between
    two backwards, a detached alias changed in place, or a plain in-place change (``engine_id``)."""
    s = _Versions(facts, ctx)
    return (_optimizer_step_between_backwards(facts, s) or _detach_inplace_needed(facts, s)
            or _inplace_modified(facts, s, engine_id))


class _Versions:
    """The saved tensor whose version moved, its names in the script and the in-place ops seen on it."""

    def __init__(self, facts, ctx):
        self.probe = probe = facts.probe
        self.node = node = ctx.get("node")
        self.saved_v, self.cur_v = saved_v, cur_v = ctx.get("saved_version"), ctx.get("current_version")
        slot, saved = _saved_slot(node, saved_v, cur_v) if node is not None else (None, None)
        self.slot, self.saved = slot, saved
        self.vbox = vbox = getattr(saved, "vbox", None)
        self.names = names = facts.names_sharing(vbox) if vbox is not None else []
        direct = facts.name_of(getattr(saved, "tensor", None)) if saved is not None else None
        self.name = name = direct or (names[0] if names else None)
        self.node_site = node_site = getattr(node, "_site", None)
        self.node_name = node_name = node.name() if node is not None else "a node"
        self.context = {"node": node_name, "saved_slot": slot, "saved_at": facts.where(node_site),
                        "saved_version": saved_v, "current_version": cur_v, "tensor": name, "aliases": names,
                        "shape": list(saved.shape) if saved is not None else None}
        # in-place ops seen on this storage, from the engine's nodes / on_inplace events
        events = []
        if vbox is not None and id(vbox) in probe.inplace and probe.inplace[id(vbox)][0] is vbox:
            events = [e for e in probe.inplace[id(vbox)][1] if (saved_v is None or e[0] > saved_v)]
        self.inplace = [{"version": v, "op": op, **(facts.where(site) or {})} for v, op, site in events]
        self.saved_line = facts.line_of(node_site) or 0
        self.err_line = facts.o.error_line or len(facts.src.lines)


def _stepping_optimizer(facts, vbox):
    """(name, optimizer, parameter) of the optimizer that owns the tensor of ``vbox``, or None."""
    step_opt = None
    for oname, opt in facts.optimizers():
        for group in getattr(opt, "param_groups", ()):
            for p in group.get("params", ()):
                if vbox is not None and getattr(p, "_vbox", None) is vbox:
                    step_opt = (oname, opt, p)
        if step_opt:
            break
    return step_opt


def _optimizer_step_between_backwards(facts, s):
    """optimizer_step_between_backwards: optimizer.step() between two backwards through one graph."""
    probe, node_name, node_site, context = s.probe, s.node_name, s.node_site, s.context
    step_opt = _stepping_optimizer(facts, s.vbox)
    if step_opt is None or getattr(step_opt[1], "_step_calls", 1) <= 0:
        return None
    oname, opt, p = step_opt
    pname = facts.name_of(p) or s.name or "a parameter"
    # optimizer.step() calls the engine reported (on_optimizer_step), else found in the source
    step_lines = sorted({facts.line_of(site) for ref, site, _ in probe.steps
                         if ref() is opt and facts.line_of(site)})
    step_lines = step_lines or facts.src.find_lines(rf"\b{re.escape(oname)}\.step\(", s.saved_line, s.err_line) \
        or facts.src.find_lines(rf"\b{re.escape(oname)}\.step\(")
    prev = [c for c in probe.calls[:-1] if c.finished]
    retained = prev[-1] if prev else None
    context.update({"optimizer": oname, "parameter": pname, "step_lines": step_lines,
                    "previous_backward": _call_dict(facts, retained), "inplace_ops": s.inplace})
    step_code = facts.src.line(step_lines[0]) if step_lines else ""
    step_txt = (facts.line_ref(step_lines[0]) + ("" if step_code == f"{oname}.step()" else f" (`{step_code}`)")
                if step_lines else "optimizer.step()")
    cause = (f"{node_name} (created at {facts.at(node_site)}) saved `{pname}` at version {s.saved_v}. "
             f"Then `{oname}.step()` at {step_txt} updated the parameters in place (now version {s.cur_v})"
             + (f", after {_call_desc(facts, retained)} had kept the graph alive" if retained else "")
             + f", and the backward at {facts.line_ref(facts.o.error_line)} still needs the old `{pname}`. "
             + catalog.get("optimizer_step_between_backwards").why)
    before_lines, after_lines = _step_reordered(facts, retained, step_lines)
    fix = _fix(f"Finish every backward pass over this forward output before `{oname}.step()`: add the losses "
               "and call backward() once (or call backward on each) and step afterwards; if a later loss needs "
               "the updated weights, recompute the forward pass after the step.",
               "\n".join(before_lines), "\n".join(after_lines))
    return Diagnosed("optimizer_step_between_backwards", cause, fix, context, {
        "inplace_modified_saved": f"the in-place change came from {oname}.step()",
        "inplace_modified_input": f"the in-place change came from {oname}.step()",
        "detach_inplace_needed": "no detached alias was modified"})


def _step_reordered(facts, retained, step_lines):
    """(the backward, step, backward statements as written; the same with the step moved last)."""
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
    return before_lines, after_lines


def _detach_inplace_needed(facts, s):
    """detach_inplace_needed: a detached alias of the saved tensor was modified in place."""
    vbox, saved, names, context = s.vbox, s.saved, s.names, s.context
    alias = facts.names(lambda t: vbox is not None and t._vbox is vbox and t is not getattr(saved, "tensor", None)
                        and t._grad_fn is None and not t._requires_grad and t._base is None)
    tracked = [n for n in names if n not in alias]
    if not (alias and (saved is not None and (saved.is_output or saved.requires_grad or tracked))):
        return None
    zname = alias[0]
    yname = tracked[0] if tracked else s.name
    det_lines = facts.src.find_lines(rf"\b{re.escape(zname)}\s*=.*\.detach\(\)")
    mod_lines = facts.src.find_lines(inplace_pattern([zname]) or "$^", s.saved_line, s.err_line)
    context.update({"alias": zname, "detach_line": det_lines[0] if det_lines else None,
                    "inplace_lines": mod_lines, "inplace_ops": s.inplace})
    mods = ", ".join(f"{facts.line_ref(n)} (`{facts.src.line(n)}`)" for n in mod_lines) or "an in-place op"
    cause = (f"`{zname}` was made with .detach() from `{yname}`"
             + (f" at {facts.line_ref(det_lines[0])}" if det_lines else "")
             + f", so it shares `{yname}`'s memory and version counter. {_cap(mods)} changed `{zname}` in place, "
             f"which changed the `{yname}` that {s.node_name} (created at {facts.at(s.node_site)}) saved: version "
             f"{s.saved_v} was saved, it is now at version {s.cur_v}. " + catalog.get("detach_inplace_needed").why)
    before = facts.src.line(det_lines[0]) if det_lines else ""
    after = before.replace(".detach()", ".detach().clone()") if before else ""
    return Diagnosed("detach_inplace_needed", cause, _fix(
        f"Make `{zname}` a real copy: `{zname} = {yname}.detach().clone()`.", before, after), context, {
        "inplace_modified_saved": f"the change went through the detached alias `{zname}`",
        "inplace_modified_input": f"the change went through the detached alias `{zname}`",
        "optimizer_step_between_backwards": "no optimizer owns this tensor"})


def _inplace_modified(facts, s, engine_id):
    """inplace_modified_saved / inplace_modified_input (engine_id says which): a plain in-place change."""
    inplace, names, name, context = s.inplace, s.names, s.name, s.context
    lines = [e["line"] for e in inplace if e.get("line") and e.get("file") is None]
    how = "seen by the engine" if lines else None
    if not lines:
        pat = inplace_pattern(names or ([name] if name else []))
        if pat:
            lines = facts.src.find_lines(pat, s.saved_line + 1 if s.saved_line else 1, s.err_line) \
                or facts.src.find_lines(pat)
            how = "found in the source" if lines else None
    context.update({"inplace_ops": inplace, "inplace_lines": lines, "inplace_lines_from": how})
    who = f"`{name}`" if name else f"the tensor saved as {s.slot or 'a saved tensor'}"
    what = "an output of another op" if engine_id == "inplace_modified_saved" else "an input with no grad_fn"
    if lines:
        mods = ", ".join(f"{facts.line_ref(n)} (`{facts.src.line(n)}`)" for n in lines)
        if inplace and how == "seen by the engine":
            mods = ", ".join(f"{facts.line_ref(e['line'])} (`{e['code']}`, {e['op']}, now version {e['version']})"
                             for e in inplace if e.get("line"))
    else:
        mods = "an in-place op gradviz could not locate"
    cause = (f"{s.node_name} (created at {facts.at(s.node_site)}) saved {who} ({what}) for its gradient when it was "
             f"at version {s.saved_v}. Afterwards {mods} modified it in place, so at backward (line "
             f"{facts.o.error_line}) it is at version {s.cur_v}. " + catalog.get(engine_id).why)
    before = facts.src.line(lines[-1]) if lines else ""
    after = out_of_place(facts.src.raw_line(lines[-1])) if lines else None
    if after:
        after = "\n".join(part.strip() if i == 0 else part.strip() for i, part in enumerate(after.split("\n")))
    fix = _fix(f"Replace the in-place change of {who} with an out-of-place one (or clone() it first), so the "
               "saved value stays intact.", before, after or "")
    return Diagnosed(engine_id, cause, fix, context, {
        "detach_inplace_needed": "no detached alias of the tensor was modified",
        "optimizer_step_between_backwards": "no optimizer step touched this tensor",
        ("inplace_modified_input" if engine_id == "inplace_modified_saved" else "inplace_modified_saved"):
            ("the saved tensor is an op's output" if engine_id == "inplace_modified_saved"
             else "the saved tensor is a plain input")})
