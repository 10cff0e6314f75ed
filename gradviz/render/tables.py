"""Terminal presentation of a run: tensor tables and error reports.

Everything here reads scripting's plain dataclasses; nothing touches the engine.
Output is plain text (no colour codes, ASCII-safe boxes when needed) whenever the
stream is not a terminal, as rich decides from the stream, ``NO_COLOR`` and ``TERM``.
"""

import re
import textwrap
from dataclasses import dataclass, field
from typing import Optional

from rich import box
from rich.console import Console
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from ..safe_text import visible, visible_line
from .console import PIPE_WIDTH, PipeConsole, make_console  # noqa: F401 - where they were first

from .values import (COLUMNS, ValueOptions, current_options, data_forms,  # noqa: F401
                     format_number, format_shape, format_stats, format_values, grad_forms,
                     nonfinite_lines, printoptions, summarize, tensor_rows, value_lines)


# --------------------------------------------------------------------------- fitting the width
#
# The table never wraps a cell: every cell is one line, and a number, a name or a grad_fn
# is never cut. When the natural table is wider than the terminal, columns give way in
# this order, each step taken only if the previous one was not enough:
#   1. the flags: `requires_grad` / `is_leaf` become `rg` / `leaf` columns of ✓ and -;
#   2. the dtype column goes into the title ("(all float32)") when every row has one dtype;
#   3. the flags merge into grad_fn (`leaf`: a leaf that requires grad, `-`: no grad);
#   4. data values shorten (fewer listed values around …, then no mean), then grad values;
#   5. if even that does not fit (long names in a narrow terminal), each tensor is printed
#      as a record: a line of name, shape, dtype and grad_fn, then a line each for grad
#      and data. --full-values always prints records, one row of a matrix a line.

GAP = 2  # spaces between two columns


@dataclass
class _Column:
    header: str
    cells: list  # per row, the texts it may show, longest first
    style: Optional[str] = None

    def natural(self) -> int:
        return max([cell_len(self.header)] + [cell_len(c[0]) for c in self.cells])

    def minimum(self) -> int:
        return self.width_at(10_000)

    def width_at(self, step: int) -> int:
        """The width its cells need when each takes its ``step``-th shorter form."""
        return max([cell_len(self.header)] + [cell_len(c[min(step, len(c) - 1)]) for c in self.cells])


@dataclass
class TablePlan:
    """How a table of tensors fits a width: as a table of ``columns`` (each column's
    cells cut to its ``widths``), or ``records`` when no table fits."""

    kind: str  # "table" or "records"
    columns: list = field(default_factory=list)
    widths: list = field(default_factory=list)
    flags: str = "full"  # "full", "compact" or "merged"
    dtype_folded: Optional[str] = None  # the one dtype, when the title says it
    notes: list = field(default_factory=list)

    def rows(self) -> list:
        """The cells' texts, row by row."""
        picked = [[_fit(forms, w) for forms in col.cells] for col, w in zip(self.columns, self.widths)]
        return [list(r) for r in zip(*picked)]


def _fit(forms, width) -> str:
    return next((f for f in forms if cell_len(f) <= width), forms[-1])


def _columns(tensors, flags: str, fold: bool, mark: str, opts) -> list:
    cols = [_Column("name", [[visible_line(t.name)] for t in tensors], "bold"),
            _Column("shape", [[format_shape(t.shape)] for t in tensors])]
    if not fold:
        cols.append(_Column("dtype", [[t.dtype] for t in tensors]))
    if flags == "full":
        cols.append(_Column("requires_grad", [[str(t.requires_grad)] for t in tensors]))
        cols.append(_Column("is_leaf", [[str(t.is_leaf)] for t in tensors]))
    elif flags == "compact":
        cols.append(_Column("rg", [[mark if t.requires_grad else "-"] for t in tensors]))
        cols.append(_Column("leaf", [[mark if t.is_leaf else "-"] for t in tensors]))
    if flags == "merged":
        cols.append(_Column("grad_fn", [[visible_line(t.grad_fn or ("leaf" if t.requires_grad else "-"))]
                                        for t in tensors]))
    else:
        cols.append(_Column("grad_fn", [[visible_line(t.grad_fn or "-")] for t in tensors]))
    cols.append(_Column("grad", [grad_forms(t, opts) for t in tensors]))
    cols.append(_Column("data", [data_forms(t, opts) for t in tensors]))
    return cols


_FLAG_NOTES = {
    "compact": "rg: requires_grad, leaf: is_leaf",
    "merged": "in grad_fn, leaf: a leaf that requires grad, -: no grad",
}


def plan_table(tensors, width: int, opts: Optional[ValueOptions] = None, mark: str = "✓") -> TablePlan:
    """Fit the table of ``tensors`` into ``width`` columns (see the order above)."""
    opts = opts or current_options()
    if opts.full:
        return TablePlan("records")
    dtypes = {t.dtype for t in tensors}
    one = next(iter(dtypes)) if len(dtypes) == 1 else None
    configs = [("full", False), ("compact", False)]
    configs += [("compact", True), ("merged", True)] if one else [("merged", False)]

    def plan(flags, fold, cols, widths):
        notes = [_FLAG_NOTES[flags]] if flags in _FLAG_NOTES else []
        return TablePlan("table", cols, widths, flags, one if fold else None, notes)

    for flags, fold in configs:
        cols = _columns(tensors, flags, fold, mark, opts)
        natural = [c.natural() for c in cols]
        if sum(natural) + GAP * (len(cols) - 1) <= width:
            return plan(flags, fold, cols, natural)
    # the most compact columns: values shorten, a step of data's first, then one of grad's
    fixed = sum(natural[:-2]) + GAP * (len(cols) - 1)
    avail = width - fixed
    grad, data = cols[-2], cols[-1]
    steps = max(len(forms) for c in (grad, data) for forms in c.cells)
    for k in range(1, 2 * steps):
        g_w, d_w = grad.width_at(k // 2), data.width_at((k + 1) // 2)
        if g_w + d_w <= avail:
            return plan(flags, fold, cols, natural[:-2] + [g_w, avail - g_w])
    return TablePlan("records")


def _wrap(text: str, width: int, indent: int, sep: str = ", ") -> list:
    """``text`` cut into lines of at most ``width`` at ``sep`` (kept at the line's end), never
    inside a value; lines after the first start ``indent`` spaces further in."""
    pieces = text.split(sep)
    tokens = [p + sep for p in pieces[:-1]] + [pieces[-1]]
    lines, cur = [], ""
    for tok in tokens:
        limit = width - (indent if lines else 0)
        if cur and cell_len(cur + tok.rstrip()) > limit:
            lines.append(cur.rstrip())
            cur = ""
        cur += tok
    lines.append(cur.rstrip())
    return [lines[0]] + [" " * indent + line for line in lines[1:]]


_LABEL = 8  # "  grad  " before a record's values


def _value_text(lines_or_forms, avail: int, full: bool) -> list:
    if full:
        out = []
        for line in lines_or_forms:
            lead = len(line) - len(line.lstrip(" ["))
            out.extend(_wrap(line, avail, lead))
        return out
    return _wrap(_fit(lines_or_forms, avail), avail, 1)


def record_lines(tensors, width: int, opts: Optional[ValueOptions] = None) -> list:
    """Each tensor as a record (rich Texts): ``name  shape  dtype  grad_fn=...``, then its
    grad and data on lines of their own, values wrapped between values only."""
    opts = opts or current_options()
    avail = max(width - _LABEL, 20)
    out = []
    for t in tensors:
        if t.grad_fn:
            what = f"grad_fn={visible_line(t.grad_fn)}"
        elif t.requires_grad:
            what = "leaf, requires_grad=True"
        else:
            what = "requires_grad=False"
        if t.retains_grad:
            what += ", retains_grad=True"
        name = visible_line(t.name)
        head = _wrap("  ".join([name, format_shape(t.shape), t.dtype, what]), width, 4, sep="  ")
        first = Text(name, style="bold")
        first.append(head[0][len(name):])
        out.append(first)
        out.extend(Text(line) for line in head[1:])
        parts = []
        if t.requires_grad:
            if opts.full and t.grad is not None:
                g = value_lines(t.grad.data, t.grad.stats, t.dtype, t.numel, t.grad.imag, opts)
            else:
                g = [grad_forms(t, opts)[0]] if opts.full else grad_forms(t, opts)
            parts.append(("grad", g))
        d = (value_lines(t.data, t.stats, t.dtype, t.numel, t.imag, opts) if opts.full else data_forms(t, opts))
        parts.append(("data", d))
        for label, forms in parts:
            lines = _value_text(forms, avail, opts.full)
            out.append(Text(f"  {label:<4}  " + lines[0]))
            out.extend(Text(" " * _LABEL + line) for line in lines[1:])
    return out


# --------------------------------------------------------------------------- tables


def _mark(console: Console) -> str:
    return "✓" if (console.encoding or "").lower().startswith("utf") else "y"


def tensor_table(tensors, title=None, width: int = 10_000, opts: Optional[ValueOptions] = None,
                 plan: Optional[TablePlan] = None) -> Table:
    """The rich Table of ``tensors`` as ``plan_table`` fits it into ``width``."""
    plan = plan or plan_table(tensors, width, opts)
    if plan.kind != "table":
        raise ValueError("no table fits this width: print records (record_lines) instead")
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", expand=False,
                  show_edge=False, pad_edge=False, collapse_padding=True)
    for col in plan.columns:
        table.add_column(col.header, no_wrap=True, overflow="ellipsis", style=col.style)
    for row in plan.rows():
        table.add_row(*(Text(c) for c in row))
    return table


_TRAILING_BLANKS = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)


def print_tensors(console: Console, tensors, title: str, opts: Optional[ValueOptions] = None,
                  hint: Optional[str] = None, empty: str = "no named tensors") -> None:
    """The title, then the table fitted to the console's width (or the records, when no
    table fits or with --full-values), then what its compact columns mean."""
    console.print()
    if not tensors:
        print_trimmed(console, Text(f"{visible_line(title)}: {empty}"))
        if hint:
            print_trimmed(console, Text(hint))
        return
    plan = plan_table(tensors, console.width, opts, _mark(console))
    if plan.dtype_folded:
        title += f" (all {plan.dtype_folded})"
    print_trimmed(console, Text(visible_line(title), style="bold"))
    if plan.kind == "table":
        print_trimmed(console, tensor_table(tensors, plan=plan))
    else:
        for line in record_lines(tensors, console.width, opts):
            console.print(line, soft_wrap=True)
    for note in plan.notes:
        print_trimmed(console, Text(note, style="dim"))
    omitted = getattr(tensors, "omitted", 0)
    if omitted:
        print_trimmed(console, Text(f"… and {omitted:,} more named tensors, not listed (gradviz describes the first "
                                    f"{len(tensors):,})", style="dim"))


def print_modules(console: Console, rows, title: str) -> None:
    """``run --by-module``: a row per module (its tensors, their elements, the 2-norm of
    their gradients, and how many that require grad have none)."""
    console.print()
    if not rows:
        print_trimmed(console, Text(f"{visible_line(title)}: no tensor is named after a module"))
        return
    print_trimmed(console, Text(visible_line(title), style="bold"))
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    table.add_column("module", overflow="fold")
    for header in ("tensors", "elements", "grad norm", "no grad"):
        table.add_column(header, justify="right", no_wrap=True)
    for row in rows:
        table.add_row(Text(visible_line(row.path)), str(row.tensors), f"{row.numel:,}",
                      format_number(row.grad_norm, "float64") if row.grad_norm is not None else "None",
                      str(row.without_grad) if row.without_grad else "-")
    print_trimmed(console, table)
    print_trimmed(console, Text("grad norm: the 2-norm of all the module's gradients; no grad: its tensors "
                                "that require grad but have no .grad", style="dim"))


def print_trimmed(console: Console, renderable) -> None:
    """Print ``renderable`` wrapped to the console's width, without the blanks rich leaves
    at the end of its lines."""
    with console.capture() as cap:
        console.print(renderable)
    console.file.write(_TRAILING_BLANKS.sub(r"\1", cap.get()))
    console.file.flush()


def cell_title(cell, total_cells: int) -> str:
    """'cell 3 of 7 (starts at line 12)' in a script, 'In [5] (cell 3 of 7)' in a notebook."""
    if cell.label:
        return f"{cell.label} (cell {cell.number} of {total_cells})"
    return f"cell {cell.number} of {total_cells} (starts at line {cell.line})"


def print_cell_error(console: Console, cell, total_cells: int) -> None:
    """``Error in cell 3 of 7 (starts at line 12), at line 14:`` and the user's traceback."""
    err = cell.error
    where = cell_title(cell, total_cells)
    if err.line is not None:
        where += f", at line {err.line}"
    console.print()
    console.print(Text(f"Error in {visible(where)}:", style="bold red"))
    tb = err.traceback.rstrip("\n") or f"{err.type}: {err.message}"
    console.print(Text(visible(tb)), soft_wrap=True)
    if getattr(err, "hint", ""):
        console.print(Text(visible(err.hint), style="yellow"), soft_wrap=True)


def print_error_summary(console: Console, result) -> None:
    errs = result.errors
    if not errs:
        return
    which = ", ".join(f"{visible_line(c.name)} ({visible_line(c.error.type)}, line {c.error.line or c.line})"
                      for c in errs)
    n = len(result.cells)
    console.print(Text(f"{len(errs)} of {n} cell{'s' if n != 1 else ''} raised: {which}",
                       style="bold red"), soft_wrap=True)


def print_grad_reasons(console: Console, tensors) -> None:
    """Under the table: why each tensor that should have a gradient has none, or a zero one."""
    rows = [(t.name, t.grad_reason) for t in tensors if getattr(t, "grad_reason", None)]
    if not rows:
        return
    console.print()
    print_trimmed(console, Text("Why no gradient:", style="bold"))
    by_reason = {}  # reason -> names: one line for the parameters of a frozen layer, the non-leaves...
    for name, reason in rows:
        by_reason.setdefault(reason, []).append(name)
    for reason, names in list(by_reason.items())[:MAX_REASON_LINES]:
        kind, _, rest = reason.partition(": ")
        shown = ", ".join(visible_line(n) for n in names[:6]) + (f" and {len(names) - 6:,} more" if len(names) > 6
                                                                 else "")
        text = f"{shown}  {kind}" + (f": {visible_line(rest)}" if rest else "")
        for k, line in enumerate(textwrap.wrap(text, width=max(40, console.width), initial_indent="  ",
                                               subsequent_indent="      ", break_on_hyphens=False)):
            console.print(Text(line, style="bold" if k == 0 else ""), soft_wrap=True)
    if len(by_reason) > MAX_REASON_LINES:
        print_trimmed(console, Text(f"  … {len(by_reason) - MAX_REASON_LINES:,} more reasons (--json lists every "
                                    "tensor's grad_reason)", style="dim"))


MAX_REASON_LINES = 12
