"""Rich panels for ``gradviz explain`` (rich is imported only when a panel is drawn).

The panels speak of the user's code only: the cause and the fix of a script's diagnosis
use its own names, a message's explanation is general, and a catalog example is labelled
as one. The run's raw facts (``context``: node records, match details, engine ids) are not
drawn; ``--json`` has them. Panel titles are never cut: a title too long for the
terminal moves into the panel's first line, and the border keeps the id (and the line).

``--json`` is strict JSON (RFC 8259): a non-finite float anywhere in the document is
written as the string ``"NaN"``, ``"Infinity"`` or ``"-Infinity"``.
"""
import json
import math

from ..safe_text import visible_data

#: context keys that are the run's own bookkeeping: --json only
INTERNAL = frozenset({"match", "score", "engine_id", "diagnosis_error", "nearest", "message", "engine"})

#: what a panel border needs around its title: rich draws "╭─ title ─╮" in width - 4 columns,
#: the title padded with a space on each side
_BORDER = 6


def _finite(x):
    """``x`` with every non-finite float replaced by its documented string."""
    if isinstance(x, float) and not math.isfinite(x):
        return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def to_json(obj, indent=2):
    """The --json document of an Explanation / Diagnosis (or a list_entries() list): strict
    JSON, non-finite floats as the strings "NaN", "Infinity", "-Infinity"."""
    data = obj.as_dict() if hasattr(obj, "as_dict") else obj
    return json.dumps(_finite(data), indent=indent, ensure_ascii=False, allow_nan=False)


def _code(text):
    from rich.syntax import Syntax
    return Syntax(text, "python", theme="ansi_dark", background_color="default", word_wrap=True)


def _fits(text, width):
    return width is None or len(text) <= width - _BORDER


def _titled(body, width, *, title, tag, prefix="", **panel):
    """A panel whose border reads ``{prefix}{title}  ({tag})`` when that fits in ``width``;
    otherwise the border keeps ``{prefix}{tag}`` (or just the prefix) and the whole title, with
    anything the border lost, opens the body. Nothing is ever cut."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    full = f"{prefix}{title}  ({tag})" if tag else f"{prefix}{title}"
    if _fits(full, width):
        border = Text(prefix + title)
        if tag:
            border.append(f"  ({tag})", style="dim")
        return Panel(body, title=border, title_align="left", **panel)
    short = f"{prefix}{tag}" if tag else prefix.rstrip(": ")
    head = Text(title, style="bold")
    if not (tag and _fits(short, width)):
        short = prefix.rstrip(": ") or None
        if tag:
            head.append(f"  ({tag})", style="dim")
    return Panel(Group(head, Text(""), body), title=short, title_align="left", **panel)


def _notes(d):
    """What a message's explanation read off the message that the user should know, in words."""
    ctx = d.get("context") or {}
    out = []
    if ctx.get("match") == "approximate":
        out.append("Your message is close to, but not exactly, PyTorch's wording for this error.")
    if ctx.get("failing_code"):
        out.append(f"Your traceback fails at `{ctx['failing_code']}`.")
    if ctx.get("ranked_by"):
        out.append(f"Listed first because {ctx['ranked_by']}.")
    return out


def panels(obj, width=None):
    """The renderables for an Explanation or Diagnosis, top to bottom, for a terminal of
    ``width`` columns (None: titles are never moved)."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    d = visible_data(obj.as_dict())  # the user's text is shown, never obeyed by the terminal
    out = []
    error = d.get("error")
    if error:
        head = Text()
        head.append(f"{error['type']}: ", style="bold red")
        head.append(error["message"])
        if error.get("line"):
            head.append(f"\n{_line_of(error)}: ", style="dim")
            head.append(error.get("code") or "", style="bold")
        out.append(Panel(head, title="error", title_align="left", border_style="red"))
    known = d["id"] is not None
    no_error = "error" in d and error is None and not known  # a script that ran to the end
    body = [Text(d["cause"])]
    notes = _notes(d) if "error" not in d else []
    if notes:
        body += [Text(""), Text("\n".join(notes), style="dim")]
    out.append(_titled(Group(*body), width, title=d["title"], tag=d["id"],
                       border_style="green" if no_error else "yellow" if known else "red"))
    fix = d.get("fix") or {}
    if fix.get("text") or fix.get("before") or fix.get("after"):
        parts = [Text(fix.get("text", ""))]
        example = " (an example, not your code)" if fix.get("example") else ""
        if fix.get("before"):
            label = "before" if fix.get("after") or example else "your code"
            parts += [Text(f"\n{label}{example}", style="bold red" if fix.get("after") else "bold"),
                      _code(fix["before"])]
        if fix.get("after"):
            parts += [Text("after" if fix.get("before") else "\nafter" + example, style="bold green"),
                      _code(fix["after"])]
        out.append(Panel(Group(*parts), title="fix", title_align="left", border_style="green"))
    if d.get("candidates"):
        t = Table(show_header=True, header_style="bold", box=None)
        t.add_column("also possible" if known else "nearest known", no_wrap=True)
        t.add_column("ask yourself" if known else "title", overflow="fold")
        for c in d["candidates"]:
            if known:
                t.add_row(c["id"], c.get("ruled_out") and f"ruled out: {c['ruled_out']}" or c.get("question") or "")
            else:
                t.add_row(c["id"], c.get("title") or "")
        out.append(Panel(t, title="same message, other causes" if known else "did you mean",
                         title_align="left", border_style="blue"))
    for w in d.get("warnings") or []:
        out.append(_warning_panel(w, width))
    return out


def _warning_panel(w, width):
    from rich.text import Text
    w = visible_data(w)
    text = Text(w["message"])
    if w.get("fix", {}).get("text"):
        text.append("\n" + w["fix"]["text"], style="green")
    return _titled(text, width, title=w["title"], tag=w["id"] if w.get("line") is None else f"{w['id']}, {_line_of(w)}", prefix="warning: ",
                   border_style="magenta")


def print_explanation(obj, file=None, *, width=None):
    """Print the panels of an Explanation / Diagnosis to ``file`` (default stdout)."""
    from ..render.tables import PipeConsole
    console = PipeConsole(file=file, width=width, highlight=False)
    for p in panels(obj, console.width):
        console.print(p)


def print_list(entries=None, file=None, *, width=None):
    """``--list``: a table of every known id."""
    from ..render.tables import PipeConsole
    from rich.table import Table
    from .catalog import list_entries
    t = Table(show_header=True, header_style="bold")
    for col in ("id", "kind", "title"):
        t.add_column(col)
    for e in entries or list_entries():
        t.add_row(e["id"], e["kind"], e["title"])
    PipeConsole(file=file, width=width, highlight=False).print(t)


def print_warnings(warnings, file=None, *, width=None):
    """``gradviz run --lint``: one panel per LintWarning (objects or dicts)."""
    from ..render.tables import PipeConsole
    console = PipeConsole(file=file, width=width, highlight=False)
    for w in warnings:
        console.print(_warning_panel(w.as_dict() if hasattr(w, "as_dict") else w, console.width))


def _line_of(d) -> str:
    """'line 9', or a notebook's 'In [5], line 3'."""
    return f"{d['cell']}, line {d.get('line')}" if d.get("cell") else f"line {d.get('line')}"
