"""Terminal presentation of a run: tensor tables and error reports (the only rich importer).

Everything here reads scripting's plain dataclasses; nothing touches the engine.
Output is plain text (no colour codes, ASCII-safe boxes when needed) whenever the
stream is not a terminal, as rich decides from the stream, ``NO_COLOR`` and ``TERM``.
"""

import os
import re

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .values import (COLUMNS, MAX_VALUES_CHARS, format_number, format_shape, format_stats,  # noqa: F401
                     format_values, grad_summary, nonfinite_lines, summarize, tensor_rows)

#: Width used when the output is not a terminal and $COLUMNS is not set.
PIPE_WIDTH = 160


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
    # force_jupyter=False: inside a kernel, rich would display HTML instead of writing to ``file``
    return Console(file=file, width=width, markup=False, highlight=False, emoji=False,
                   soft_wrap=False, force_jupyter=False)


# --------------------------------------------------------------------------- tables


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
