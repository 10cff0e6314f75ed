"""Terminal presentation of a run: tensor tables and error reports (the only rich importer).

Everything here reads scripting's plain dataclasses; nothing touches the engine.
Output is plain text (no colour codes, ASCII-safe boxes when needed) whenever the
stream is not a terminal, as rich decides from the stream, ``NO_COLOR`` and ``TERM``.
"""

import math
import os
import re

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

#: Width used when the output is not a terminal and $COLUMNS is not set.
PIPE_WIDTH = 160
#: A values summary longer than this is replaced by statistics.
MAX_VALUES_CHARS = 28


def make_console(file, *, width=None) -> Console:
    """A Console on ``file``; wider than rich's 80 columns in a pipe (unless $COLUMNS)."""
    if width is None and "COLUMNS" not in os.environ:
        isatty = getattr(file, "isatty", None)
        try:
            tty = bool(isatty and isatty())
        except ValueError:  # a closed stream
            tty = False
        if not tty:
            width = PIPE_WIDTH
    return Console(file=file, width=width, markup=False, highlight=False, emoji=False,
                   soft_wrap=False)


# --------------------------------------------------------------------------- summaries


def format_number(v, dtype: str = "float32") -> str:
    """One value, readably: ints and bools as such, floats with 4 significant digits."""
    if v is None:
        return "-"
    if dtype == "bool":
        return "True" if v else "False"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if not dtype.startswith(("float", "complex", "bfloat")):
        return str(int(v))
    return format(float(v), ".4g")


def format_values(data, dtype: str = "float32") -> str:
    """Nested lists of values (or a single value) as ``[[1, 2], [3, 4]]``."""
    if isinstance(data, list):
        return "[" + ", ".join(format_values(x, dtype) for x in data) + "]"
    return format_number(data, dtype)


def format_stats(stats, dtype: str = "float32") -> str:
    if stats is None or stats.min is None:
        return "empty"
    def f(v):  # 3 significant digits: a summary, kept short
        return format(v, ".3g") if math.isfinite(v) else format_number(v)

    return f"{f(stats.min)}..{f(stats.max)}, mean {f(stats.mean)}"


def summarize(data, stats, dtype: str, max_chars: int = MAX_VALUES_CHARS) -> str:
    """The values when they fit in ``max_chars``, else ``min..max, mean m``."""
    if data is not None:
        text = format_values(data, dtype)
        if len(text) <= max_chars:
            return text
    return format_stats(stats, dtype)


def format_shape(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def grad_summary(t, max_chars: int = MAX_VALUES_CHARS) -> str:
    """What ``t.grad`` holds, or why there is none."""
    if t.grad is not None:
        return summarize(t.grad.data, t.grad.stats, t.dtype, max_chars)
    if not t.requires_grad:
        return "-"
    if not t.is_leaf and not t.retains_grad:
        return "None (non-leaf)"
    return "None"


# --------------------------------------------------------------------------- tables

COLUMNS = ("name", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "grad", "data")


def tensor_rows(tensors) -> list:
    """The table's cells as strings, one tuple per tensor, in COLUMNS order."""
    return [
        (t.name, format_shape(t.shape), t.dtype, str(t.requires_grad), str(t.is_leaf),
         t.grad_fn or "-", grad_summary(t), summarize(t.data, t.stats, t.dtype))
        for t in tensors
    ]


def tensor_table(tensors, title=None) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", expand=False,
                  show_edge=False, pad_edge=False, collapse_padding=True)
    for col in COLUMNS:
        table.add_column(col, overflow="fold",
                         no_wrap=col in ("shape", "dtype", "requires_grad", "is_leaf"),
                         style="bold" if col == "name" else None)
    for row in tensor_rows(tensors):
        table.add_row(*(Text(c) for c in row))
    return table


_TRAILING_BLANKS = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)


def print_tensors(console: Console, tensors, title: str) -> None:
    """The title, then the table (rich pads lines to the table's width: trimmed here)."""
    console.print()
    if not tensors:
        console.print(Text(f"{title}: no named tensors"))
        return
    console.print(Text(title, style="bold"))
    with console.capture() as cap:
        console.print(tensor_table(tensors))
    console.file.write(_TRAILING_BLANKS.sub(r"\1", cap.get()))
    console.file.flush()


def _nonfinite(stats) -> list:
    """'nan', 'inf' found in values summarised by ``stats`` (min/max/mean)."""
    if stats is None or stats.min is None:
        return []
    vals = (stats.min, stats.max, stats.mean)
    found = []
    if any(isinstance(v, float) and math.isnan(v) for v in vals):
        found.append("nan")
    if any(isinstance(v, float) and math.isinf(v) for v in vals):
        found.append("inf")
    return found


def nonfinite_lines(tensors) -> list:
    """One line per tensor (or gradient) holding NaN or infinite values, for a warning."""
    out = []
    for t in tensors:
        bad = _nonfinite(t.stats)
        if bad:
            out.append(f"{t.name} has {' and '.join(bad)} values")
        if t.grad is not None:
            bad = _nonfinite(t.grad.stats)
            if bad:
                out.append(f"{t.name}.grad has {' and '.join(bad)} values")
    return out


# --------------------------------------------------------------------------- errors


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
    console.print(Text(f"Error in {where}:", style="bold red"))
    tb = err.traceback.rstrip("\n") or f"{err.type}: {err.message}"
    console.print(Text(tb), soft_wrap=True)


def print_error_summary(console: Console, result) -> None:
    errs = result.errors
    if not errs:
        return
    which = ", ".join(f"{c.name} ({c.error.type}, line {c.error.line or c.line})" for c in errs)
    n = len(result.cells)
    console.print(Text(f"{len(errs)} of {n} cell{'s' if n != 1 else ''} raised: {which}",
                       style="bold red"), soft_wrap=True)
