"""Silent pitfalls: things that raise nothing but give wrong or missing gradients.

- ``data_silent_wrong``: a tensor saved for backward changed through ``.data`` (contents
  changed, version counter did not) -- caught by the probe just before backward;
- ``nonleaf_grad_access``: ``.grad`` read on a non-leaf (the engine's UserWarning, or the
  ``on_grad_read`` event);
- ``grad_accumulation_no_zero_grad``: a backward line that runs again after the parameters
  were updated, while their .grad still holds the previous iteration's gradient;
- ``scalar_conversion_requires_grad_warning``: float()/int() of a tensor that requires grad
  (the engine's warning), and ``.item()``/``float()`` of such a tensor used inside an
  expression that builds a graph;
- any other warning of the catalog the engine raised (``tensor_copy_construct_warning``);
- ``grad_missing_unused``, ``grad_missing_detached``, ``grad_all_zero``: parameters and
  tensors that should have a gradient and got none, or an all-zero one, with the reason
  ``gradviz run`` gives each (inspect.grad_reasons), grouped by reason.

``lint_script(path)`` runs a script for its warnings only; ``diagnose_script`` includes them.
"""
import ast
import os
import re
from dataclasses import dataclass, field
from typing import Optional

from . import catalog
from .facts import Facts, _file_line

LINT_ONLY = {
    "grad_accumulation_no_zero_grad": {
        "title": "Gradients accumulate across iterations (zero_grad missing)",
        "fix": "Clear gradients once per iteration: optimizer.zero_grad() (or p.grad = None) before backward().",
        "before": "for x, y in data:\n    loss = loss_fn(model(x), y)\n    loss.backward()\n    opt.step()",
        "after": "for x, y in data:\n    opt.zero_grad()\n    loss = loss_fn(model(x), y)\n    loss.backward()\n"
                 "    opt.step()",
    },
    "grad_missing_unused": {
        "title": "Never used on the way to the loss",
        "fix": "Use it in the loss, or set requires_grad=False (and leave it out of the optimizer).",
        "before": "self.head = nn.Linear(4, 2)   # never called in forward",
        "after": "self.head.requires_grad_(False)   # or call it in forward",
    },
    "grad_missing_detached": {
        "title": "Path to the loss cut",
        "fix": "Compute the value you backpropagate through without detach()/.data/.item()/no_grad.",
        "before": "s = self.side(x).detach()",
        "after": "s = self.side(x)",
    },
    "grad_all_zero": {
        "title": "All-zero gradient",
        "fix": "Look at what passes it no gradient: a ReLU that never fires (check its inputs' scale and bias), "
               "or a mask that is all zero.",
        "before": "d = torch.relu(self.dead(x) - 100.0)",
        "after": "d = torch.relu(self.dead(x))",
    },
}
_GRAD_REASON_LINTS = {"unused": "grad_missing_unused", "detached": "grad_missing_detached", "zero": "grad_all_zero"}


def title_of(lint_id):
    if lint_id in catalog.ENTRIES:
        return catalog.get(lint_id).title
    return LINT_ONLY[lint_id]["title"]


@dataclass
class LintWarning:
    id: str
    title: str
    message: str
    line: Optional[int] = None
    file: Optional[str] = None  # None: the script itself
    code: str = ""
    fix: dict = field(default_factory=dict)
    context: dict = field(default_factory=dict)

    def as_dict(self):
        return {"id": self.id, "title": self.title, "message": self.message, "line": self.line, "file": self.file,
                "code": self.code, "fix": dict(self.fix), "context": dict(self.context)}


def _entry_fix(lint_id):
    if lint_id in catalog.ENTRIES:
        e = catalog.get(lint_id)
        return {"text": e.fix, "before": e.before, "after": e.after}
    d = LINT_ONLY[lint_id]
    return {"text": d["fix"], "before": d["before"], "after": d["after"]}


def findings_to_warnings(facts):
    """Every lint warning of a finished (or stopped) run, in line order, deduplicated."""
    out = []
    seen = set()

    def add(w):
        key = (w.id, w.file, w.line)
        if key not in seen:
            seen.add(key)
            out.append(w)

    for f in facts.probe.findings:
        w = _from_finding(facts, f)
        if w is not None:
            add(w)
    for cw in facts.o.warnings:
        w = _from_python_warning(facts, cw)
        if w is not None:
            add(w)
    # engine events, when the engine emits them (they do not depend on the warnings filter)
    for site, nonleaf in facts.probe.grad_reads:
        if nonleaf and site:
            add(_nonleaf_grad(facts, *_where(facts, *site)))
    for kind, site, requires_grad in facts.probe.scalars:
        if requires_grad and site and kind in ("float", "int"):
            add(_scalar_conversion(facts, *_where(facts, *site)))
    for w in _scalars_in_graph(facts):
        add(w)
    out.sort(key=lambda w: (w.file is not None, w.line or 0))
    return out


def grad_reason_warnings(reasons) -> list:
    """LintWarnings of the reasons a run gave (``{name: reason}``, inspect.grad_reasons): one
    per reason, naming its tensors; 'frozen' and 'not-leaf' are a model's design, not a pitfall."""
    grouped = {}
    for name, reason in reasons.items():
        if reason and reason.split(":", 1)[0] in _GRAD_REASON_LINTS:
            grouped.setdefault(reason, []).append(name)
    out = []
    for reason, names in grouped.items():
        lint_id = _GRAD_REASON_LINTS[reason.split(":", 1)[0]]
        where = re.search(r" at line (\d+) of ([^ )]+)", reason)
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        out.append(LintWarning(lint_id, title_of(lint_id), f"{shown}: {reason}",
                               line=int(where.group(1)) if where else None,
                               file=where.group(2) if where else None, fix=_entry_fix(lint_id),
                               context={"tensors": list(names), "grad_reason": reason}))
    return out


def _where(facts, file, line):
    if file == facts.code_path or file is None:
        return None, line, facts.src.line(line)
    return file, line, _file_line(file, line)


def _from_finding(facts, f):
    file, line, code = _where(facts, f.file, f.line)
    if f.id == "data_silent_wrong":
        vbox_names = []
        ref = f.facts.get("tensor_ref")
        t = ref() if ref is not None else None
        if t is not None:
            vbox_names = facts.names(lambda x: x is t)
        if not vbox_names:
            data_id = f.facts.get("data_id")
            vbox_names = facts.names(lambda x: id(x._data) == data_id)
        name = vbox_names[0] if vbox_names else None
        data_lines = []
        events = [s for vid, s, _ in facts.probe.data_events if vid == f.facts.get("vbox_id")]
        data_lines = [s[1] for s in events if s and s[0] == facts.code_path]
        if not data_lines and name:
            data_lines = facts.src.find_lines(rf"(?<![\w.]){re.escape(name)}\.data\b", (line or 0) + 1)
        b = f.facts.get("backward_site")
        bline = b[1] if b and b[0] == facts.code_path else None
        who = f"`{name}`" if name else f"the tensor saved as {f.facts.get('slot')}"
        via = (", ".join(f"{facts.line_ref(n)} (`{facts.src.line(n)}`)" for n in data_lines)
               or "a write that autograd does not track (.data or numpy)")
        msg = (f"{f.facts.get('node')} (created at {facts.line_ref(line)}) saved {who}, and {via} changed its values "
               f"without bumping its version counter. The backward at {facts.line_ref(bline)} used the changed values: "
               "its gradients are silently wrong.")
        fix = _entry_fix("data_silent_wrong")
        if data_lines:
            c = facts.src.line(data_lines[0])
            fix = dict(fix, before=c, after=c.replace(".data", ".detach().clone()", 1)
                       if re.search(r"\.data\.\w+_\(", c) else "with torch.no_grad():\n    " + c.replace(".data", ""))
        return LintWarning("data_silent_wrong", title_of("data_silent_wrong"), msg, line, file, code, fix,
                           {"tensor": name, "saved_by": f.facts.get("node"), "data_lines": data_lines,
                            "backward_line": bline})
    if f.id == "zero_grad_missing":
        ref = f.facts.get("leaf_ref")
        leaf = ref() if ref is not None else None
        names = facts.names(lambda x: x is leaf) if leaf is not None else []
        opts = [n for n, _ in facts.optimizers()]
        loop = facts.src.loop_around(line or 0)
        who = ", ".join(f"`{n}`" for n in names) or "a parameter"
        grads = ", ".join(f"`{n}.grad`" for n in names) or "its .grad"
        msg = (f"The backward at {facts.line_ref(line)} ran again after {who} had been updated, but {grads} still "
               "held the previous iteration's gradient, so the new gradient was added to it: every update uses the "
               "sum of all iterations so far.")
        fix = _entry_fix("grad_accumulation_no_zero_grad")
        if loop:
            zero = f"{opts[0]}.zero_grad()" if opts else (f"{names[0]}.grad = None" if names else "opt.zero_grad()")
            fix = dict(fix, before=code, after=f"{zero}\n{code}")
        return LintWarning("grad_accumulation_no_zero_grad", title_of("grad_accumulation_no_zero_grad"), msg, line,
                           file, code, fix, {"parameters": names, "optimizers": opts,
                                             "loop_lines": list(loop) if loop else None})
    return None


def _from_python_warning(facts, cw):
    from .match import explain_message
    ex = explain_message(f"{cw.category}: {cw.message}")
    if not ex.known or ex.id not in catalog.ENTRIES or catalog.get(ex.id).kind not in ("warning", "silent"):
        return None
    if os.path.abspath(cw.filename).startswith(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))):
        return None  # raised from inside gradviz with a wrong stacklevel: no user line to show
    file, line, code = _where(facts, cw.filename, cw.lineno)
    eid = ex.id
    fix = _entry_fix(eid)
    ctx = {}
    if eid == "nonleaf_grad_access":
        return _nonleaf_grad(facts, file, line, code)
    elif eid == "scalar_conversion_requires_grad_warning":
        return _scalar_conversion(facts, file, line, code)
    elif eid == "tensor_copy_construct_warning":
        msg = (f"{facts.line_ref(line, start=True)} copies a tensor with torch.tensor(...): the copy is a new leaf "
               "with no history, so gradients stop there.")
        m = re.search(r"torch\.tensor\(([^,()]+(?:\([^()]*\))?[^,()]*)\)", code)
        if m:
            fix = dict(fix, before=code, after=code.replace(m.group(0), f"({m.group(1)}).clone()"))
    else:
        msg = f"{facts.line_ref(line, start=True)}: {cw.message.splitlines()[0]}"
    return LintWarning(eid, title_of(eid), msg, line, file, code, fix, ctx)


def _nonleaf_grad(facts, file, line, code):
    fix = _entry_fix("nonleaf_grad_access")
    m = re.search(r"([A-Za-z_][\w.]*)\.grad\b", code)
    name = m.group(1) if m else None
    t = facts.evaluate(name) if name else None
    op = t._grad_fn.name() if t is not None and getattr(t, "_grad_fn", None) is not None else None
    msg = (f"{facts.line_ref(line, start=True)} reads `{name or '?'}.grad`, but `{name or 'it'}` is not a leaf"
           + (f" (it was produced by {op})" if op else "") + ": backward() does not store its gradient, so this "
           "is None.")
    if name:
        fix = dict(fix, before=code, after=f"{name}.retain_grad()   # before backward()\n...\n{code}")
    return LintWarning("nonleaf_grad_access", title_of("nonleaf_grad_access"), msg, line, file, code, fix,
                       {"tensor": name})


def _scalar_conversion(facts, file, line, code):
    fix = _entry_fix("scalar_conversion_requires_grad_warning")
    m = re.search(r"\b(float|int)\(([^()]*(?:\([^()]*\))?[^()]*)\)", code)
    expr = m.group(2) if m else None
    msg = (f"{facts.line_ref(line, start=True)} turns `{expr or 'a tensor'}`, which requires grad, into a Python "
           "number: anything computed from that number is cut off from the graph.")
    if m:
        fix = dict(fix, before=code, after=code.replace(m.group(0), f"{expr}.item()" if m.group(1) == "float"
                                                        else m.group(0).replace(expr, f"{expr}.detach()")))
    return LintWarning("scalar_conversion_requires_grad_warning", title_of("scalar_conversion_requires_grad_warning"),
                       msg, line, file, code, fix, {"tensor": expr})


def _scalars_in_graph(facts):
    """``x.item()`` / ``float(x)`` of a tensor requiring grad, used as an operand of arithmetic whose result
    is a tensor in the graph: that operand is a constant there, not a differentiable value.  Also plain
    ``float(name)`` of a tensor that requires grad, in case the engine warns only once per process."""
    out = []
    tree = facts.src.tree
    if tree is None:
        return out
    warned_lines = {cw.lineno for cw in facts.o.warnings if cw.filename == facts.code_path}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("float", "int") \
                and len(node.args) == 1 and not node.keywords and node.lineno not in warned_lines:
            t = facts.evaluate(ast.unparse(node.args[0]))
            if getattr(t, "_requires_grad", False) and getattr(t, "_data", None) is not None and t._data.size == 1:
                out.append(_scalar_conversion(facts, None, node.lineno, facts.src.line(node.lineno)))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.BinOp):
            continue
        targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
        if not targets:
            continue
        result = facts.evaluate(targets[0])
        if not (hasattr(result, "_requires_grad") and result._requires_grad):
            continue
        for sub in ast.walk(node.value):
            if not isinstance(sub, ast.Call):
                continue
            recv = None
            if isinstance(sub.func, ast.Attribute) and sub.func.attr == "item" and not sub.args:
                recv = sub.func.value
            elif isinstance(sub.func, ast.Name) and sub.func.id in ("float", "int") and len(sub.args) == 1:
                recv = sub.args[0]
            if recv is None:
                continue
            expr = ast.unparse(recv)
            t = facts.evaluate(expr)
            if not (hasattr(t, "_requires_grad") and t._requires_grad):
                continue
            if sub.func.__class__ is ast.Name and node.lineno in warned_lines:
                continue  # the engine's own warning already covers float(x) here
            code = facts.src.line(node.lineno)
            call = ast.unparse(sub)
            msg = (f"{facts.line_ref(node.lineno, start=True)} computes `{targets[0]}` (part of the graph) from "
                   f"`{call}`: the value of `{expr}` enters as a constant, so no gradient flows back to `{expr}` "
                   "through this term.")
            fix = {"text": f"Keep `{expr}` a tensor in the computation (drop `{call}` for `{expr}`), or detach it "
                           "explicitly if a constant is really meant.",
                   "before": code, "after": code.replace(call, expr)}
            out.append(LintWarning("scalar_conversion_requires_grad_warning",
                                   title_of("scalar_conversion_requires_grad_warning"), msg, node.lineno, None,
                                   code, fix, {"tensor": expr, "result": targets[0]}))
    return out


def lint_script(path, argv=()):
    """Run the whole script (errors end their cell only) and return its lint warnings."""
    from .probe import Probe
    from .runner import run_until_error

    probe = Probe(lint=True)
    outcome = run_until_error(path, argv, probe=probe, stop_at_error=False)
    return findings_to_warnings(Facts(outcome))
