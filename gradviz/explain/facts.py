"""What a script-mode diagnosis works from and what it gives back.

:class:`Facts` is what the run left behind (the outcome of :mod:`.runner`, with helpers to
name tensors and lines), read by both :mod:`.diagnose` and :mod:`.lint`.  A diagnoser returns
a :class:`Diagnosed`: the id it settled on, the cause in the user's names, the fix, the facts
of the run and why the other ids that share the message were ruled out."""
import os
import re
from dataclasses import dataclass

from .source import Source


@dataclass(frozen=True)
class Diagnosed:
    """One diagnosed cause: what :func:`.diagnose.diagnose_script` turns into a Diagnosis."""
    id: str
    cause: str
    fix: dict  # {"text", "before", "after"}
    context: dict  # plain facts of the run (diagnose_script may add to it)
    ruled_out: dict  # {other id: why it is not that one}


def _fix(text, before="", after=""):
    return {"text": text, "before": before, "after": after}


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
