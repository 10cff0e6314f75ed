"""Laying out and drawing DOT: the only module that runs Graphviz.

Graphviz comes from one of two places:

- **bundled**: the ``pygraphviz`` wheel, which carries Graphviz's layout engine and its
  cairo/pango renderers, so a fresh machine draws without system Graphviz;
- **system**: the ``dot`` and ``neato`` programs on PATH, used only where no pygraphviz
  is installed (a platform without its wheel).

Either way Graphviz runs in a child process, never in gradviz's own. A layout can take
minutes inside C code, where Python cannot interrupt it, but a child can be killed at
the time limit, and its crash or its chatter on stderr (fontconfig's warnings) stays
out of the user's terminal. The bundled child is this module run as a script
(``python -m gradviz.render.layout layout|draw FORMAT``): a stand-in for the two
Graphviz commands gradviz needs.

Drawing takes two steps, as Graphviz's own command line does it: ``layout`` places
the nodes (``dot -Tdot``), then gradviz measures the laid-out picture and refuses one
over the pixel budget, and only then ``draw`` renders it without a second layout
(``neato -n2``). The bundled and the system backend run the same two steps, so they
give the same pictures.
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys

from ..safe_text import utf8
from .options import DRAWN_FORMATS  # the formats Graphviz draws

DEFAULT_MAX_PIXELS = 50_000_000  # about 7000 x 7000
MAX_SIDE = 32_000  # cairo cannot draw wider or taller than 32767 px
DEFAULT_TIMEOUT = 120  # seconds for each Graphviz step
DPI = 96  # Graphviz's default for bitmaps


class RenderError(RuntimeError):
    """Graphviz failed, timed out, or produced no usable picture."""


class GraphvizNotFound(RenderError):
    """Neither pygraphviz nor system Graphviz (the ``dot`` program) is installed."""


class ImageTooLarge(RenderError):
    """The laid-out picture would be bigger than the pixel budget."""

    width = height = None  # pixels, when Graphviz measured them


def backend() -> str:
    """'bundled' (pygraphviz is installed), 'system' (``dot`` and ``neato`` on PATH) or ''."""
    if _have_pygraphviz():
        return "bundled"
    if shutil.which("dot") and shutil.which("neato"):
        return "system"
    return ""


def draw(source: str, fmt: str, max_pixels: int = DEFAULT_MAX_PIXELS,
         timeout: float = DEFAULT_TIMEOUT, max_side: int = MAX_SIDE) -> tuple:
    """(bytes, width px, height px) of DOT ``source`` drawn as ``fmt`` (svg, png or pdf)."""
    if fmt not in DRAWN_FORMATS:
        raise ValueError(f"cannot draw the format {fmt!r} (use {', '.join(DRAWN_FORMATS)})")
    which = backend()
    if not which:
        raise GraphvizNotFound("cannot render: neither pygraphviz nor Graphviz's `dot` program is installed "
                               "(pip install pygraphviz, or install Graphviz, e.g. `apt-get install graphviz`)")
    layout_cmd, draw_cmd = _commands(which, fmt)
    laid_out = _run(layout_cmd, utf8(source), timeout, "lay out the graph")
    width, height = _size(laid_out.decode("utf-8", "replace"))
    max_side = min(max_side, MAX_SIDE)
    if width * height > max_pixels or max(width, height) > max_side:
        err = ImageTooLarge(f"refusing to render a {width:,} x {height:,} px picture (over the budget of "
                            f"{max_pixels:,} px and {max_side:,} px a side); lower --max-nodes or choose .dot")
        err.width, err.height = width, height
        raise err
    data = _run(draw_cmd, laid_out, timeout, f"draw the {fmt.upper()}")
    if not _looks_like(fmt, data):
        raise RenderError(f"Graphviz produced no valid {fmt.upper()} ({len(data)} bytes)")
    if fmt == "png":  # report what was drawn (the layout's box is an estimate)
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return data, width, height


def _have_pygraphviz() -> bool:
    return importlib.util.find_spec("pygraphviz") is not None


def _commands(which: str, fmt: str) -> tuple:
    """The layout and the draw command lines of a backend."""
    if which == "system":
        return [shutil.which("dot"), "-Tdot"], [shutil.which("neato"), "-n2", f"-T{fmt}"]
    # Run this module by name, from the folder gradviz itself was imported from (the
    # child must find the same gradviz), with that folder replacing Python's usual
    # first entry, the working directory, where a user's file could shadow a module.
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    boot = (f"import sys, runpy; sys.path[0] = {package_parent!r}; "
            "runpy.run_module('gradviz.render.layout', run_name='__main__')")
    child = [sys.executable, "-c", boot]
    return child + ["layout"], child + ["draw", fmt]


def _run(cmd, data, timeout, what):
    try:
        proc = subprocess.run(cmd, input=data, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RenderError(f"Graphviz did not {what} within {timeout:g} s; lower --max-nodes") from None
    except OSError as e:
        raise GraphvizNotFound(f"cannot run Graphviz ({cmd[0]}): {e.strerror or e}") from None
    if proc.returncode != 0 or not proc.stdout:
        err = [line for line in proc.stderr.decode("utf-8", "replace").strip().splitlines()
               if line.strip() and not line.startswith("Fontconfig")]
        # Graphviz's own "Error: ..." line says more than the exception that follows it
        reason = next((line for line in reversed(err) if line.startswith("Error")), err[-1] if err else None)
        raise RenderError(f"Graphviz failed to {what}: {reason or f'exit status {proc.returncode}'}")
    return proc.stdout


_BB = re.compile(r'\bbb="?([-\d.e]+),([-\d.e]+),([-\d.e]+),([-\d.e]+)"?')


def _size(laid_out):
    """Pixel size of the laid-out graph: its bounding box (points) at 96 dpi."""
    m = _BB.search(laid_out)
    if m is None:
        raise RenderError("Graphviz returned a layout without a bounding box")
    x0, y0, x1, y1 = (float(v) for v in m.groups())
    scale = DPI / 72.0
    return max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale))


def _looks_like(fmt, data):
    if fmt == "png":
        return data.startswith(b"\x89PNG\r\n\x1a\n")
    if fmt == "pdf":
        return data.startswith(b"%PDF")
    if fmt == "svg":
        return b"<svg" in data[:4096]
    return bool(data)


# --------------------------------------------------------------------------- the bundled child


def _child(argv) -> int:
    """``layout`` (DOT in, laid-out DOT out, as ``dot -Tdot``) or ``draw FORMAT`` (laid-out
    DOT in, the picture out, placed where the layout put it, as ``neato -n2``)."""
    import pygraphviz

    source = sys.stdin.buffer.read().decode("utf-8")
    try:
        graph = pygraphviz.AGraph(string=source)
        if argv[:1] == ["layout"]:
            out = graph.draw(format="dot", prog="dot")
        elif len(argv) == 2 and argv[0] == "draw" and argv[1] in DRAWN_FORMATS:
            out = graph.draw(format=argv[1], prog="nop2")  # nop2: keep the nodes' and edges' places
        else:
            print(f"usage: python -m gradviz.render.layout layout | draw {{{','.join(DRAWN_FORMATS)}}}",
                  file=sys.stderr)
            return 2
    except Exception as e:  # noqa: BLE001 - the parent reports the last line
        print(f"{type(e).__name__}: {e}".replace("\n", " "), file=sys.stderr)
        return 1
    sys.stdout.buffer.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
