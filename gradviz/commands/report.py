"""``--html REPORT``: a run, or an expression, as one self-contained page.

For every cell: its code, what it printed, its error with ``explain``'s answer, the
tensors it made or changed, and the graph of its last backward call as that call
returned (its freed buffers drawn freed). Then the run's end: every tensor, the graph
the run's options chose, and the ``--backward-twice`` demonstration. The page is laid
out by ``gradviz.render.html``; this module gathers what goes on it.
"""
import datetime
import os
import sys

from . import EXIT_USAGE, CommandError
from . import common
from ..tensor_records import grad_reasons

HTML_EXTENSIONS = (".html", ".htm")
MAX_LAYERS = 8  # module depths laid out for the explorer's open / close
MAX_LAYER_BYTES = 20_000_000


def html_target(path):
    """Check a ``--html`` path before anything runs (CommandError, exit 2, when it cannot be written)."""
    if path is None:
        return None
    if not path.strip() or path == "-":
        raise CommandError("--html needs a file name, such as report.html", usage=True)
    if not path.lower().endswith(HTML_EXTENSIONS):
        raise CommandError(f"cannot write '{path}': a report is HTML; name it .html")
    if os.path.isdir(path):
        raise CommandError(f"cannot write '{path}': it is a directory")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise CommandError(f"cannot write '{path}': the folder '{folder}' does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise CommandError(f"cannot write '{path}': permission denied")
    return path


def write(path: str, page: str) -> None:
    from gradviz.render.files import atomic_write
    from gradviz.safe_text import utf8  # a script's text may hold lone surrogates: escaped, not fatal

    try:
        atomic_write(path, utf8(page))
    except OSError as e:
        raise CommandError(f"cannot write '{path}': {e.strerror or e}", EXIT_USAGE) from None


class CellGraphs:
    """The graph each cell's last backward call left, taken from a Watch after every cell."""

    def __init__(self, watch):
        self.watch = watch
        self.by_cell = {}  # cell index -> (BackwardCallInfo, GraphSnapshot)
        self._last = None

    def after(self, cell) -> None:
        captured = self.watch.captured
        if captured is not None and captured is not self._last:
            self.by_cell[cell.index] = captured
            self._last = captured


class _Pictures:
    """Draws the report's pictures, with a progress line on a terminal."""

    def __init__(self, total: int, options):
        """options: the command's GraphOptions (its view and box budget)."""
        self.total, self.done = total, 0
        self.view, self.max_nodes = options.view, options.max_nodes
        self.depth = getattr(options, "depth", None)
        self.tty = total > 1 and _isatty(sys.stderr)
        self.reasons = {}  # leaf name -> why it has no gradient (grad_reasons), marked in the explorer
        self.focus = -1  # the sequence number of a node to select as the explorer opens (--nan's)

    def figure(self, snap, caption, notes=(), **options):
        from gradviz.render import dot, explorer, html

        self.done += 1
        if self.tty:
            sys.stderr.write(f"\rgradviz: drawing the report's pictures: {self.done} of {self.total}")
            sys.stderr.flush()
        view = self.view if snap.has_forward or self.view != "forward" else "backward"
        try:
            graph = dot.Graph(snap, view=view, max_nodes=self.max_nodes, notes=tuple(notes), depth=self.depth,
                              **options)
            svg = graph.pipe("svg").decode("utf-8")
        except dot.RenderError as e:
            return html.Figure(caption, problem=str(e))
        layers = self._layers(snap, view, notes, graph, options)
        return html.Figure(caption, svg=svg, notes=list(graph.notes), layers=[(d, s) for d, _, s in layers],
                           explore=explorer.data(snap, graph, caption, layers=[(d, g) for d, g, _ in layers],
                                                 reasons=self.reasons, focus=self.focus))

    def _layers(self, snap, view, notes, graph, options):
        """[(depth, Graph, svg)]: the same picture with modules open to every other depth,
        so the explorer opens and closes module groups in place (Graphviz lays out each
        when the file is written). Within MAX_LAYER_BYTES; a depth too big to draw is left out."""
        from gradviz.render import dot

        levels = graph.module_levels
        if self.depth is not None or levels is None or levels[1] < 2:
            return []
        out, size = [], 0
        for depth in range(1, min(levels[1], MAX_LAYERS) + 1):
            if depth == levels[0]:
                continue
            try:
                other = dot.Graph(snap, view=view, max_nodes=self.max_nodes, notes=tuple(notes), depth=depth,
                                  **options)
                svg = other.pipe("svg").decode("utf-8")
            except dot.RenderError:
                continue
            size += len(svg)
            if size > MAX_LAYER_BYTES:
                break
            out.append((depth, other, svg))
        return out

    def close(self):
        if self.tty:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _explain(error_type: str, message: str):
    from gradviz.explain import explain_message

    found = explain_message(f"{error_type}: {message}")
    return found.as_dict() if found.known and found.id else None


def _stamp(command: str) -> str:
    from gradviz._version import __version__

    when = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M")
    return f"{command} · {when} · gradviz {__version__}"


# --------------------------------------------------------------------------- gradviz run


def run_page(opts, program, result, cell_graphs, rep, lint, nonfinite=None, ledgers=()) -> str:
    """The report of ``gradviz run``. ``nonfinite``: ``--nan``'s finding, selected in its
    graph; ``ledgers``: ``--memory``'s."""
    from gradviz.render import html

    total = len(program.cells)
    extra = rep is not None and rep.snapshot is not None and not _already_drawn(rep, cell_graphs)
    pictures = _Pictures(len(cell_graphs.by_cell) + (1 if extra else 0), opts.graph)
    pictures.reasons = grad_reasons(result.tensors or ())
    pictures.focus = nonfinite.node_seq if nonfinite is not None else -1
    sections = []
    previous = ()
    try:
        for cell_result in result.cells:
            cell = program.cells[cell_result.index]
            sections.append(_cell_section(cell, cell_result, total, program, previous, cell_graphs, pictures))
            previous = cell_result.tensors
        end = _end_section(opts, result, rep, lint, pictures, extra)
        end.blocks = _forensics(opts, result, nonfinite, ledgers)
        sections.append(end)
    finally:
        pictures.close()
    errors = result.errors
    summary = [f"{len(result.cells)} of {total} cell{'s' if total != 1 else ''} ran; "
               + (f"{len(errors)} raised: " + ", ".join(f"{c.name} ({c.error.type})" for c in errors)
                  if errors else "none raised")]
    if result.stopped == "timeout":
        summary.append(f"stopped after {opts.timeout:g} s (--timeout)")
    elif result.stopped == "interrupt":
        summary.append("interrupted (Ctrl-C)")
    elif result.stopped in ("signal", "exit"):
        summary.append("the script's process ended before the run finished: this shows what was recorded by then")
    if program.notes:
        summary.append(f"{len(program.notes)} IPython-only line{'s' if len(program.notes) != 1 else ''} not run")
    kind = "notebook" if program.notebook else "script"
    on_torch = opts.engine == "torch"
    command = f"gradviz run {program.path}" + (" --engine torch" if on_torch else "")
    engine = "the installed PyTorch (--engine torch)" if on_torch else "gradviz's engine"
    return html.page(f"gradviz: {os.path.basename(program.path)}", _stamp(command),
                     [f"A {kind} run on {engine}."] + summary, sections)


def _already_drawn(rep, cell_graphs) -> bool:
    """The run's graph is the last backward's capture, already drawn with its cell."""
    return any(snap is rep.snapshot for _, snap in cell_graphs.by_cell.values())


def _cell_section(cell, res, total, program, previous, cell_graphs, pictures):
    from gradviz import scripting
    from gradviz.render import html

    if program.notebook:
        title = f"{cell.name} (cell {cell.index + 1} of {total})"
    else:
        title = f"Cell {cell.index + 1} of {total} (line {cell.line})"
    sec = html.Section(title=title, anchor=f"cell-{cell.index + 1}", code=cell.written, first_line=cell.line,
                       stdout=res.stdout, failed=res.error is not None)
    sec.notes = [n for n in program.notes if n.startswith(f"{cell.name}, ")]
    if res.error is not None:
        sec.error_line = res.error.line
        sec.error = (res.error.traceback or f"{res.error.type}: {res.error.message}") + (
            "\n" + res.error.hint if res.error.hint else "")
        sec.explanation = _explain(res.error.type, res.error.message)
    sec.tensors = scripting.changed_tensors(previous, res.tensors)
    sec.tensors_title = "Tensors this cell made or changed"
    captured = cell_graphs.by_cell.get(cell.index)
    if captured is not None:
        info, snap = captured
        where = f" at {_place(info.site, program)}" if info.site else ""
        sec.figures.append(pictures.figure(
            snap, f"The graph of the {info.kind} call{where}, as that call ended; saved tensors that a "
                  "backward freed are drawn grey and dashed."))
    return sec


def _place(site, program) -> str:
    if program.notebook and site[0] != program.code_path:
        return f"{site[0]}, line {site[1]}"
    return f"line {site[1]}"


def _end_section(opts, result, rep, lint, pictures, extra):
    from gradviz.render import html

    sec = html.Section(title="After the run", anchor="end")
    tensors = rep.tensors if rep is not None and rep.tensors is not None else result.tensors
    sec.tensors = tensors
    sec.tensors_title = ("Every named tensor after a second backward" if rep is not None and rep.second is not None
                         and rep.second.ok else "Every named tensor")
    if rep is not None:
        if rep.snapshot is None:
            sec.text.append(rep.nothing)
        else:
            who = ", ".join(r.name or "the root" for r in rep.roots) or "the root"
            sec.text.append(f"Graph of {who}: {len(rep.snapshot.nodes)} backward nodes, "
                            f"{len(rep.snapshot.ops)} forward ops; root chosen by {rep.how}.")
            if rep.first is not None and not rep.first.ok:
                sec.text.append(f"Backward on {who} (run by gradviz for --backward-twice) raised: "
                                f"{rep.first.error_line}")
            if rep.second is not None:
                sec.text.extend(common.second_backward_lines(rep.second, common.freed_count(rep.snapshot), who))
            if extra:
                sec.figures.append(pictures.figure(rep.snapshot, f"The graph of {who}", notes=rep.picture_notes))
    for line in _nonfinite(tensors):
        sec.text.append(f"Warning: {line}")
    if lint is not None:
        if lint["error"]:
            sec.text.append(f"Lint: {lint['error']}")
        for w in lint["warnings"]:
            sec.text.append(f"Lint warning ({w['id']}, line {w.get('line')}): {w['message']}")
    return sec


def _forensics(opts, result, nonfinite, ledgers) -> list:
    """(label, text) of what the terminal prints under the table: why gradients are
    missing, --memory's ledger, --nan's finding."""
    from gradviz.render import memory, tables
    from gradviz.render import nonfinite as nonfinite_text
    from gradviz.render.console import as_text

    blocks = []
    if any(getattr(t, "grad_reason", None) for t in result.tensors):
        blocks.append(("why no gradient", as_text(tables.print_grad_reasons, result.tensors)))
    if opts.memory:
        blocks.append(("what backward keeps (--memory)", as_text(memory.print_ledgers, ledgers)))
    if opts.nonfinite is not None:
        blocks.append(("where a NaN starts (--nan)", as_text(nonfinite_text.print_finding, nonfinite,
                                                              opts.nonfinite)))
    return blocks


def _nonfinite(tensors):
    from gradviz.render.values import nonfinite_lines

    return nonfinite_lines(tensors)


# --------------------------------------------------------------------------- gradviz graph


def graph_page(opts, out, title, notes) -> str:
    """The report of ``gradviz graph``: the expression, its tensors and its graph."""
    from gradviz.render import html

    source = out.program.source
    sec = html.Section(title="The expression", anchor="expression", code=source, failed=out.error is not None)
    if out.error is not None:
        err = out.error
        where = "backward() raised" if err["source"] == "backward()" else "the expression raised"
        sec.error = f"{where} {err['type']}: {err['message']}"
        if err["position"] is not None:
            sec.error_line = err["position"][0]
        explained = err.get("explain")
        sec.explanation = explained if explained and explained.get("id") else None
    sec.notes = list(out.notes)
    sec.tensors = out.tensors
    sec.tensors_title = "Tensors computed before the error" if out.error is not None else "Tensors"
    pictures = _Pictures(1, opts.graph)
    try:
        if out.second is not None and out.snapshot is not None:
            sec.text.extend(common.second_backward_lines(out.second, common.freed_count(out.snapshot),
                                                         out.evaluation.result_label))
        if out.snapshot is not None:
            sec.figures.append(pictures.figure(out.snapshot, f"The graph of {out.evaluation.result_label}",
                                               notes=notes, title=title, show_sites=False))
    finally:
        pictures.close()
    summary = [f"seed {opts.seed}; leaves: {', '.join(out.program.leaves) or 'none'}"]
    summary.append("raised " + out.error["type"] if out.error is not None else "evaluated without error")
    return html.page(title.replace("gradviz graph: ", "gradviz: ", 1), _stamp("gradviz graph"), summary, [sec])
