"""Rich panels for ``gradviz explain`` (rich is imported only when a panel is drawn)."""
import json


def to_json(obj, indent=2):
    """The --json document of an Explanation / Diagnosis (or a list_entries() list)."""
    data = obj.as_dict() if hasattr(obj, "as_dict") else obj
    return json.dumps(data, indent=indent, ensure_ascii=False)


def _code(text):
    from rich.syntax import Syntax
    return Syntax(text, "python", theme="ansi_dark", background_color="default", word_wrap=True)


def panels(obj):
    """The renderables for an Explanation or Diagnosis, top to bottom."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    d = obj.as_dict()
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
    title = f"{d['title']}  [dim]({d['id']})[/dim]" if known else d["title"]
    body = [Text(d["cause"])]
    ctx = d.get("context") or {}
    facts = [(k, v) for k, v in ctx.items() if k not in ("message",) and v not in (None, [], {}, "")]
    if facts and known:
        t = Table.grid(padding=(0, 1))
        t.add_column(style="dim")
        t.add_column()
        for k, v in facts[:12]:
            t.add_row(k, v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))
        body += [Text(""), t]
    out.append(Panel(Group(*body), title=title, title_align="left", border_style="yellow" if known else "red"))
    fix = d.get("fix") or {}
    if fix.get("text") or fix.get("before") or fix.get("after"):
        parts = [Text(fix.get("text", ""))]
        if fix.get("before"):
            parts += [Text("\nbefore", style="bold red"), _code(fix["before"])]
        if fix.get("after"):
            parts += [Text("after", style="bold green"), _code(fix["after"])]
        out.append(Panel(Group(*parts), title="fix", title_align="left", border_style="green"))
    if d.get("candidates"):
        t = Table(show_header=True, header_style="bold", box=None)
        t.add_column("also possible" if known else "nearest known")
        t.add_column("ask yourself" if known else "title")
        for c in d["candidates"]:
            t.add_row(c["id"], c.get("ruled_out") and f"ruled out: {c['ruled_out']}" or c.get("question")
                      or c.get("title", ""))
        out.append(Panel(t, title="same message, other causes" if known else "did you mean",
                         title_align="left", border_style="blue"))
    for w in d.get("warnings") or []:
        text = Text(w["message"])
        if w.get("fix", {}).get("text"):
            text.append("\n" + w["fix"]["text"], style="green")
        out.append(Panel(text, title=f"warning: {w['title']}  ({w['id']}, {_line_of(w)})",
                         title_align="left", border_style="magenta"))
    return out


def print_explanation(obj, file=None, *, width=None):
    """Print the panels of an Explanation / Diagnosis to ``file`` (default stdout)."""
    from rich.console import Console
    console = Console(file=file, width=width, highlight=False)
    for p in panels(obj):
        console.print(p)


def print_list(entries=None, file=None, *, width=None):
    """``--list``: a table of every known id."""
    from rich.console import Console
    from rich.table import Table
    from .catalog import list_entries
    t = Table(show_header=True, header_style="bold")
    for col in ("id", "kind", "title"):
        t.add_column(col)
    for e in entries or list_entries():
        t.add_row(e["id"], e["kind"], e["title"])
    Console(file=file, width=width, highlight=False).print(t)


def print_warnings(warnings, file=None, *, width=None):
    """``gradviz run --lint``: one panel per LintWarning (objects or dicts)."""
    from rich.console import Console
    from rich.panel import Panel
    from rich.text import Text
    console = Console(file=file, width=width, highlight=False)
    for w in warnings:
        w = w.as_dict() if hasattr(w, "as_dict") else w
        text = Text(w["message"])
        if w.get("fix", {}).get("text"):
            text.append("\n" + w["fix"]["text"], style="green")
        console.print(Panel(text, title=f"warning: {w['title']}  ({w['id']}, {_line_of(w)})",
                            title_align="left", border_style="magenta"))


def _line_of(d) -> str:
    """'line 9', or a notebook's 'In [5], line 3'."""
    return f"{d['cell']}, line {d.get('line')}" if d.get("cell") else f"line {d.get('line')}"
