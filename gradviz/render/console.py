"""Consoles, and the one-line texts the commands print on them.

With ``tables``, ``tree`` and the explain panels, the modules that import rich: the
commands hand plain strings to the functions here, so nothing outside ``gradviz/render``
imports rich (``gradviz/explain/render.py``, explain's panels, is the one exception left).
Output is plain text whenever the stream is not a terminal, as rich decides from the
stream, ``NO_COLOR`` and ``TERM``.
"""
import os

from rich.console import Console
from rich.text import Text

#: Width used when the output is not a terminal and $COLUMNS is not set (a pipe, a file).
PIPE_WIDTH = 160


class PipeConsole(Console):
    """A rich Console that, when its reader goes away (``gradviz ... | head``), raises
    BrokenPipeError for the CLI to end quietly with 141, instead of rich's own exit(1)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError()


def make_console(file, *, width=None, plain=False) -> Console:
    """A Console on ``file``; wider than rich's 80 columns in a pipe (unless $COLUMNS).
    plain: no colors whatever the environment says (text for a notebook's text/plain)."""
    if width is None and "COLUMNS" not in os.environ:
        isatty = getattr(file, "isatty", None)
        try:
            tty = bool(isatty and isatty())
        except ValueError:  # a closed stream
            tty = False
        if not tty:
            width = PIPE_WIDTH
    # force_jupyter=False: inside a kernel, rich would display HTML instead of writing to ``file``
    return PipeConsole(file=file, width=width, markup=False, highlight=False, emoji=False,
                       soft_wrap=False, force_jupyter=False, **({"color_system": None, "force_terminal": False}
                                                                if plain else {}))


def as_text(print_fn, *args, width: int = 100) -> str:
    """What ``print_fn(console, *args)`` prints, as plain text (for the HTML report)."""
    import io

    buf = io.StringIO()
    print_fn(make_console(buf, width=width, plain=True), *args)
    return buf.getvalue().strip("\n")


def print_text(console: Console, text: str, text_style: str = "", **print_options) -> None:
    """``text`` on ``console`` as it is, never read as markup, in ``text_style`` ("bold red");
    ``print_options`` are ``Console.print``'s (``soft_wrap=True``: one line, never wrapped;
    ``style``: the style the line is printed in)."""
    console.print(Text(text, style=text_style), **print_options)
