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
from .diagnose_saved import FREED_FAMILY, VERSION_FAMILY, _in_backward, diagnose_freed, diagnose_version
from .facts import Diagnosed, Facts, _fix, _is_tensor  # noqa: F401 - Facts, _fix: also read from here
from .match import Explanation, candidate, example_fix, explain_message
from .source import add_kwarg, assign_parts, indent_block, names_in

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


def _others(ids, chosen, reasons=None):
    out = []
    for i in ids:
        if i != chosen:
            extra = {"ruled_out": reasons[i]} if reasons and i in reasons else {}
            out.append(candidate(i, **extra))
    return out


# --------------------------------------------------------------------------- no grad_fn

NO_GRAD_FN_FAMILY = ["backward_no_grad_fn", "backward_in_no_grad", "double_backward_no_create_graph"]


def diagnose_no_grad_fn(facts, exc, ctx):
    """Which of the three causes of 'does not require grad and does not have a grad_fn': a gradient
    differentiated again, a loss computed under no_grad, or nothing that requires grad."""
    s = _Failing(facts, exc, ctx)
    return _double_backward(facts, s) or _in_no_grad(facts, s) or _no_requires_grad(facts, s)


class _Failing:
    """The tensor a backward found without grad_fn, as the three diagnoses of it read it."""

    def __init__(self, facts, exc, ctx):
        self.facts = facts
        self.t = t = ctx.get("tensor")
        self.name = name = facts.name_of(t)
        self.err_line = err_line = facts.o.error_line
        self.err_code = err_code = facts.src.line(err_line)
        m = re.search(r"element (\d+)", str(exc))
        index = int(m.group(1)) if m else 0
        self.expr = name or (re.sub(r"\.backward\(.*$", "", err_code) if ".backward(" in err_code else None)
        self.assign_line = facts.src.last_assignment(name, err_line) if name else None
        self.context = {"tensor": name, "index": index, "assigned_at": self.assign_line,
                        "shape": list(t.shape) if t is not None else None}
        self.expr_names = self._expr_names()

    def assigned(self, n):
        line = self.facts.src.last_assignment(n, self.err_line)
        return line, self.facts.src.line(line) if line else ""

    def _expr_names(self):
        """The names the failing tensor is built from: itself, or the names in the backward expression."""
        err_code = self.err_code
        expr_names = [self.name] if self.name else names_in(re.sub(r"\.backward\(.*$", "", err_code)) \
            if ".backward(" in err_code else []
        expr_names = [n for n in expr_names if n and n != "torch"]
        # follow the assignments back a few steps: penalty = dy.pow(2).sum() <- (dy,) = autograd.grad(...)
        frontier, seen_names = list(expr_names), set(expr_names)
        for _ in range(3):
            nxt = []
            for n in frontier:
                _, code = self.assigned(n)
                _, rhs = assign_parts(code) if code else (None, None)
                for r in rhs or []:
                    if r not in seen_names and r != "torch" and not r.startswith("_"):
                        seen_names.add(r)
                        nxt.append(r)
            expr_names.extend(nxt)
            frontier = nxt
        return expr_names


def _gradient_source(facts, s):
    """The line that computed the failing tensor as a gradient (without a graph), or None."""
    t, err_line, err_code = s.t, s.err_line, s.err_code
    grad_src = None
    if t is not None and facts.names(lambda x: x._grad is t, limit=1):
        grad_src = s.assign_line or err_line
    if grad_src is None and re.search(r"\.grad\b(?!_fn)", re.sub(r"\.backward\(.*$", "", err_code)):
        grad_src = err_line
    for n in s.expr_names:
        if grad_src is not None:
            break
        line, code = s.assigned(n)
        v = facts.evaluate(n)
        if _is_tensor(v) and facts.names(lambda x: x._grad is v, limit=1):
            grad_src = line or err_line
        elif code and re.search(r"autograd\.grad\(|\.grad\b(?!_fn)", code) and "create_graph=True" not in code:
            grad_src = line
    return grad_src


def _double_backward(facts, s):
    """double_backward_no_create_graph: a gradient was differentiated."""
    err_line, err_code = s.err_line, s.err_code
    grad_src = _gradient_source(facts, s)
    if grad_src is None:
        return None
    gcode = facts.src.line(grad_src)
    s.context["gradient_from_line"] = grad_src
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
    return Diagnosed("double_backward_no_create_graph", cause, _fix(
        "Compute the first gradient with create_graph=True.", before, after), s.context, {
        "backward_no_grad_fn": "the tensor is a gradient computed without a graph",
        "backward_in_no_grad": "grad mode was on; the gradient itself had no graph"})


def _grad_mode_block(facts, s):
    """(the no_grad/inference_mode block or decorator the failing tensor was computed in, or None;
    the line that computed it there)."""
    t, err_line, assign_line, expr_names = s.t, s.err_line, s.assign_line, s.expr_names
    mode = None
    if t is not None and getattr(t, "_inference", False):
        mode = "torch.inference_mode()"
    block = None
    line = assign_line or err_line
    for cand_line in [assign_line, err_line] + [s.assigned(n)[0] for n in expr_names]:
        if cand_line and facts.src.in_no_grad(cand_line):
            block, line = facts.src.in_no_grad(cand_line), cand_line
            break
    if not block and not mode:
        no_grad_fns = facts.src.no_grad_functions()
        for n in expr_names:
            if n in no_grad_fns:
                block, line = no_grad_fns[n], s.assigned(n)[0] or assign_line or err_line
                for cand_line in [assign_line] + [s.assigned(m)[0] for m in expr_names]:
                    if cand_line and re.search(rf"\b{re.escape(n)}\(", facts.src.line(cand_line)):
                        line = cand_line
                        break
                break
    if not block and not mode:
        for n in expr_names:
            v = facts.evaluate(n)
            if _is_tensor(v) and getattr(v, "_inference", False):
                mode, line = "torch.inference_mode()", s.assigned(n)[0] or err_line
                break
    if mode or block:
        return block or mode, line
    return None, line


def _in_no_grad(facts, s):
    """backward_in_no_grad: computed under no_grad / inference_mode."""
    where, line = _grad_mode_block(facts, s)
    if where is None:
        return None
    expr = s.expr
    s.context["grad_mode_block"] = where
    s.context["computed_at"] = line
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
    return Diagnosed("backward_in_no_grad", cause, _fix(
        f"Compute `{expr or 'the loss'}` outside {where}; keep the block for evaluation only.",
        before, after), s.context, {
        "backward_no_grad_fn": f"the inputs may require grad, but {where} was active",
        "double_backward_no_create_graph": "the tensor is not a gradient"})


def _frozen_modules(facts, names):
    """The modules among ``names`` whose parameters are all frozen."""
    frozen = []
    for scope in facts.scopes():
        for mname, mod in list(scope.items()):
            if hasattr(mod, "parameters") and hasattr(mod, "named_parameters") and not isinstance(mod, type) \
                    and mname in names:
                try:
                    ps = list(mod.parameters())
                except Exception:  # noqa: BLE001
                    continue
                if ps and not any(p.requires_grad for p in ps):
                    frozen.append(mname)
    return frozen


def _no_requires_grad(facts, s):
    """backward_no_grad_fn: nothing requires grad; name the leaves that should."""
    err_line, err_code, assign_line, expr, context = s.err_line, s.err_code, s.assign_line, s.expr, s.context
    leaves = []
    rhs_names = []
    code_of_assign = facts.src.line(assign_line) if assign_line else ""
    if code_of_assign:
        _, rhs_names = assign_parts(code_of_assign)
    if ".backward(" in err_code and not s.name:
        rhs_names = names_in(re.sub(r"\.backward\(.*$", "", err_code))
    for n in rhs_names or []:
        v = facts.evaluate(n)
        if _is_tensor(v) and v._grad_fn is None and not v._requires_grad:
            leaves.append(n)
    frozen = _frozen_modules(facts, (rhs_names or []) + re.findall(r"\w+", err_code))
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
    return Diagnosed("backward_no_grad_fn", cause, _fix(
        "Give the tensors you want gradients for requires_grad=True (or make them nn.Parameter) before the forward "
        "pass, and do not cut the graph between them and the loss.", before, after or ""), context, {
        "backward_in_no_grad": "the loss was not computed inside no_grad/inference_mode",
        "double_backward_no_create_graph": "the tensor is not a gradient"})


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
        why = _grad_reason(facts, expr, t)  # what `gradviz run` says of it: the cut and its line
        reason = "detached" if uses or why.startswith("detached") else "not_in_graph"
        ran = f"{len(backwards)} backward pass{'es' if len(backwards) != 1 else ''} ran, but none reached `{expr}`: "
        if why.startswith("detached: "):
            text = ran + why[len("detached: "):] + "."
        elif uses:
            text = ran + f"it is only used through .detach()/.data ({facts.line_ref(uses[0])})."
        else:
            text = ran + "it does not take part in the loss."
        if why:
            context["grad_reason"] = why
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
    return Diagnosed("grad_is_none_zero", cause, fix, context, {})


def _grad_reason(facts, expr, t) -> str:
    """Why ``t`` has no gradient, as ``gradviz run`` tells it (inspect.grad_reasons), or ''."""
    from gradviz.inspect.grad_reasons import reasons

    reach = getattr(facts.o, "reach", None)
    if reach is None:
        return ""
    try:
        return reasons([(expr, t)], reach).get(expr) or ""
    except Exception:  # noqa: BLE001 - a help to the diagnosis, never its failure
        return ""


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
    t = ctx.get("tensor")
    name = facts.name_of(t) if t is not None else None
    if name:
        context["tensor"] = name
        context["shape"] = list(t.shape)
    if eid in ("backward_nonscalar", "grad_nonscalar_no_grad_outputs"):
        return _nonscalar(facts, t, name, line, code, context)
    if eid == "mm_shape_mismatch":
        return _mm_shape(facts, exc, e, line, code, context)
    if eid == "broadcast_mismatch":
        f = explain_message(str(exc)).context
        if "size_a" in f:
            context.update({k: f[k] for k in ("size_a", "size_b", "dim")})
            cause = (f"{facts.line_ref(line, start=True)} (`{code}`): the operands have {f['size_a']} and "
                     f"{f['size_b']} elements in dimension {f['dim']}. {e.cause}")
            return Diagnosed(eid, cause, _fix(e.fix, code, ""), context, {})
    after = _rewritten_line(facts, eid, code)
    if not after and not code:  # no line of the script to show: the catalog's example, labelled as one
        return Diagnosed(eid, e.cause, example_fix(e), context, {})
    cause = f"{facts.line_ref(line, start=True)} (`{code}`): {e.cause}" if code else e.cause
    return Diagnosed(eid, cause, _fix(e.fix, code, after or ""), context, {})


def _nonscalar(facts, t, name, line, code, context):
    """backward_nonscalar or grad_nonscalar_no_grad_outputs, told apart by the call that failed."""
    in_grad = any(fn == "grad" and "autograd" in f for f, _, fn in facts.o.frames)
    eid = "grad_nonscalar_no_grad_outputs" if in_grad else "backward_nonscalar"
    e = catalog.get(eid)
    after = ""
    # the user's name for the output, else the expression the call was made on (never an example's name)
    nm = name or differentiated_expr(code, in_grad)
    shape = f" of shape {list(t.shape)}" if t is not None else ""
    if nm and in_grad:
        after = add_kwarg(code, f"grad_outputs=torch.ones_like({nm})") or ""
    elif nm and f"{nm}.backward()" in code:
        after = code.replace(f"{nm}.backward()", f"{nm}.sum().backward()", 1)
    numel = t.numel() if t is not None else "several"
    cause_extra = f"`{nm}`{shape} has {numel} elements." if nm else f"The output{shape} has {numel} elements."
    cause = f"{facts.line_ref(line, start=True)} (`{code}`): {cause_extra} {e.cause}"
    return Diagnosed(eid, cause, _fix(e.fix, code, after), context, {
        ("backward_nonscalar" if in_grad else "grad_nonscalar_no_grad_outputs"):
            ("the call is torch.autograd.grad" if in_grad else "the call is .backward()")})


def _mm_shape(facts, exc, e, line, code, context):
    """mm_shape_mismatch: the two inner sizes, and the nn.Linear whose in_features is wrong, if one is."""
    before, after = code, ""
    facts_msg = explain_message(str(exc)).context
    mat1, mat2 = facts_msg.get("mat1"), facts_msg.get("mat2")
    extra = ""
    if mat1 and mat2:
        context.update({"mat1": mat1, "mat2": mat2})
        extra = f"The product was ({mat1[0]}x{mat1[1]}) @ ({mat2[0]}x{mat2[1]}): {mat1[1]} != {mat2[0]}."
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
    return Diagnosed("mm_shape_mismatch", cause, _fix(e.fix, before, after), context, {})


def _rewritten_line(facts, eid, code):
    """The failing line as the fix of ``eid`` rewrites it ("" when there is no rewrite)."""
    after = ""
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
    return after


def _deepcopy_after(facts, code):
    """``copy.deepcopy(t.detach())`` when the copied name is a tensor; nothing for a list or an object."""
    m = re.search(r"deepcopy\((\w+)\)", code)
    if m is None or not _is_tensor(facts.evaluate(m.group(1))):
        return ""
    return code.replace(m.group(0), f"deepcopy({m.group(1)}.detach())", 1)


def differentiated_expr(code, in_grad):
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
            result.context["diagnosis_error"] = f"{type(e).__name__}: {e}"
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
    chosen = result.id
    context = _plain(result.context)
    context.setdefault("error_line", outcome.error_line)
    if getattr(exc, "gradviz_id", None) and exc.gradviz_id != chosen:
        context["engine_id"] = exc.gradviz_id
    family = _shared_ids(chosen)
    if len(family) == 1:
        family = [i for i in explanation.ids if i != chosen] if chosen in explanation.ids else []
    cands = _others(family, chosen, result.ruled_out)
    return Diagnosis(id=chosen, candidates=cands, title=catalog.get(chosen).title,
                     cause=" ".join(result.cause.split()), fix=result.fix, context=context, error=error,
                     warnings=warning_dicts, stdout=outcome.stdout, explanation=explanation, failing_node=node,
                     graph_roots=roots, graph_names=names)


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
    """{name: tensor} of the scopes at the error: tensors, and a module's parameters and
    buffers by path (``model.fc1.weight``), as ``gradviz run`` names them."""
    out = {}
    for scope in reversed(facts.scopes()):
        for name, v in list(scope.items()):
            if name.startswith("_"):
                continue
            if _is_tensor(v):
                out[name] = v
            elif callable(getattr(v, "named_parameters", None)) and callable(getattr(v, "named_buffers", None)) \
                    and not isinstance(v, type):
                try:
                    members = list(v.named_parameters()) + list(v.named_buffers())
                except Exception:  # noqa: BLE001 - a broken user object is not our error
                    continue
                out.update((f"{name}.{pn}", p) for pn, p in members if _is_tensor(p))
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
