"""``gradviz run SCRIPT``: run a script in the engine, then tables, graphs, lint.

The script runs through ``scripting.run_script``. With any graph option a ``Watch``
(a Recorder) listens during the run: the graph of every backward / autograd.grad call
is captured as the call returns, so the default picture (the last such call) shows the
buffers that call freed. ``--root NAME`` draws named tensors instead, as they are after
the run.
"""
import contextlib
import dataclasses
import os
import sys
from dataclasses import dataclass, field
from typing import Optional

from ..render.options import GraphOptions  # imports nothing of gradviz
from ..safe_text import visible, visible_line  # names and paths printed: shown, never obeyed
from ..tensor_records import by_module, grad_reasons
from . import EXIT_INTERRUPTED, EXIT_OK, EXIT_SCRIPT_ERROR, EXIT_USAGE, CommandError
from . import common
from . import report as report_page
from . import progress, supervised


@dataclass
class RunOptions:
    script: str
    script_args: tuple = ()
    as_json: bool = False
    cells: bool = False
    changed_only: bool = False  # --changed-only: per cell, only the tensors it made or changed
    precision: Optional[int] = None  # --precision N: significant digits in the tables
    full_values: bool = False  # --full-values: every value, never a summary
    graph: GraphOptions = GraphOptions()  # --graph OUT, --view, --max-nodes, --tree, --backward-twice ...
    roots: tuple = ()
    lint: bool = False
    timeout: Optional[float] = None
    html: Optional[str] = None  # --html REPORT
    engine: str = "gradviz"  # or 'torch': the installed PyTorch
    by_module: bool = False  # --by-module: a module's tensors summed up in a row (at --depth)
    nonfinite: Optional[str] = None  # --nan ('nan') or --nan=inf: where the first non-finite value starts
    memory: bool = False  # --memory: the saved-for-backward ledger of each backward call


@dataclass
class GraphReport:
    """What the graph part of a run produced."""

    snapshot: object = None
    roots: list = field(default_factory=list)  # RootSpec
    how: str = ""  # how the roots were chosen, for people
    first: Optional[common.PassResult] = None  # a first pass gradviz ran itself
    second: Optional[common.PassResult] = None
    tensors: Optional[tuple] = None  # the table after the second pass
    outcome: Optional[common.GraphOutcome] = None
    nothing: Optional[str] = None  # why there is nothing to draw
    notes: list = field(default_factory=list)  # what people should know about the passes gradviz ran

    @property
    def picture_notes(self) -> list:
        """What the picture says under its title: the passes --backward-twice ran."""
        notes = list(self.notes)
        if self.first is not None and not self.first.ok:
            notes.append(f"backward (run by gradviz for --backward-twice) raised {self.first.error_line}")
        if self.second is not None:
            notes.append(common.second_backward_note(self.second))
        return notes


def run(opts: RunOptions) -> int:
    from gradviz import scripting
    from gradviz.render import values

    try:
        program = scripting.load_program(opts.script)  # a usage problem shows before anything runs
    except scripting.ScriptError as e:
        raise CommandError(str(e), usage=True) from None
    common.refuse_the_input_as_output(opts.script, (("--graph", opts.graph.output), ("--html", opts.html)))
    with values.printoptions(opts.precision, opts.full_values):
        if not supervised.available():
            return _run(opts, program, lambda cell: None)
        # the script runs in a child process this one can stop, whatever the script does
        return supervised.supervised(lambda send: _run(opts, program, _sending_deltas(send)), opts.timeout,
                                     lambda ended: _report_ended(opts, program, ended))


def _sending_deltas(send):
    """``send((cell, graph))`` with the cell's tensors as what changed since the cell before
    (a TensorsDelta): what crosses the pipe, and what the parent keeps, grows with the
    changes, not with the number of cells times the number of names. _report_ended decodes
    them."""
    from gradviz import tensor_records

    encoder = tensor_records.DeltaEncoder()

    def send_cell(shared):
        cell, graph = shared
        send((dataclasses.replace(cell, tensors=encoder.encode(cell.tensors)), graph))
    return send_cell


@dataclass
class RunReport:
    """What a run collected, for ``_present_json`` or ``_present_terminal`` to show."""

    result: object  # scripting.RunResult
    graph: Optional[GraphReport]  # None without a graph option (or when --html alone drew it)
    lint: Optional[dict]
    tensors: tuple  # the table: after the second backward, if there was one
    target: Optional[common.Target]
    html_path: Optional[str]
    nonfinite: object = None  # NonFiniteInfo of --nan, or None (nothing found, or not asked)
    ledgers: tuple = ()  # MemoryLedger of each backward call, with --memory


def _run(opts: RunOptions, program, send) -> int:
    """Check the options, run the cells, collect what they made, then present it."""
    from gradviz.inspect.watch import Names, Watch

    eng = common.engine(opts.engine)
    target = common.output_target(opts.graph.output, "--graph")
    if opts.as_json and target is not None and target.stdout:
        raise CommandError("--json and --graph - both want stdout: write the graph to a file",
                           usage=True)
    html_path = report_page.html_target(opts.html)
    _warn_unused(opts, target, html_path)
    want_graph = bool(target is not None or opts.graph.tree or opts.graph.backward_twice or opts.roots)
    streams = common.Streams(data_on_stdout=opts.as_json or (target is not None and target.stdout))
    names = Names(program.code_path, eng.torch)
    watching = want_graph or html_path is not None or opts.nonfinite is not None or opts.memory
    watch = (Watch(names, sites=program.site if program.notebook else None, real=eng.real,
                   replay=html_path is not None, nonfinite=opts.nonfinite, memory=opts.memory)
             if watching else None)
    cell_graphs = report_page.CellGraphs(watch) if html_path is not None else None
    if not opts.as_json:
        for note in program.notes:
            streams.note(note)

    from gradviz.inspect.grad_reasons import Reach
    reach = Reach(eng.torch, eng.real)  # which leaves each backward reached: why a gradient is missing
    if watch is not None:
        reach.describe = watch.recorder.describe  # a node's line, on PyTorch too
    result = _run_cells(opts, program, send, eng, names, watch, cell_graphs, streams, reach)
    result = _with_grad_reasons(result, names, reach)

    if supervised.in_fork():  # the script's os.fork(): this copy ends as under python, without a report
        supervised.leave_fork(0 if result.ok else 1)
    if result.stopped in ("timeout", "interrupt"):
        supervised.script_stopped()
    collected = _collect(opts, program, result, names, watch, cell_graphs, target, html_path, want_graph, streams)
    if opts.as_json:
        return _present_json(opts, streams, collected)
    return _present_terminal(opts, program, names, streams, collected)


def _with_grad_reasons(result, names, reach):
    """The run's table, each tensor with why it has no gradient (or an all-zero one)."""
    from gradviz.inspect.grad_reasons import reasons

    try:
        why = reasons(names.named(), reach)
    except Exception:  # noqa: BLE001 - the reasons are a help, never the run's failure
        return result
    if not why or not result.tensors:
        return result
    last = result.cells[-1]  # the table after the last cell is the run's
    tensors = type(last.tensors)(dataclasses.replace(t, grad_reason=why.get(t.name)) for t in last.tensors)
    tensors.omitted = getattr(last.tensors, "omitted", 0)
    result.cells[-1] = dataclasses.replace(last, tensors=tensors)
    return result


def _run_cells(opts: RunOptions, program, send, eng, names, watch, cell_graphs, streams, reach):
    """Run the script's cells (each one's table printed as it ends with --cells); scripting's RunResult."""
    from gradviz import scripting

    @contextlib.contextmanager
    def around(ns):
        names.bind(ns)
        with contextlib.ExitStack() as stack:
            stack.enter_context(reach)
            if watch is not None:
                stack.enter_context(watch)
            if opts.graph.retain_graph:
                stack.enter_context(common.retain_graph_patch(eng.torch.autograd))
            yield

    total = len(program.cells)
    # the cells' output is kept only where it is shown again (--json, --html); else it streams through
    keep = scripting.MAX_KEPT_STDOUT if (opts.as_json or opts.html) else 0
    kwargs = dict(timeout=opts.timeout, catch_interrupt=True, around=around, engine=eng.module_name,
                  keep_stdout=keep, keep_tables=bool(opts.as_json or opts.html))
    share = _Sharer(send, watch)
    if opts.as_json:
        def on_json_cell(cell):
            share(cell)
            if cell_graphs is not None:
                cell_graphs.after(cell)

        return scripting.run_script(program, opts.script_args, echo=False, on_cell=on_json_cell, **kwargs)

    from gradviz.render import tables

    before = [()]  # the tensors after the previous cell, for --changed-only

    def on_cell(cell):
        share(cell)
        if cell_graphs is not None:
            cell_graphs.after(cell)
        sys.stdout.flush()
        if cell.error is not None:
            tables.print_cell_error(streams.err, cell, total)
        if opts.cells and not supervised.in_fork():
            where = (f"{cell.label} (cell {cell.number} of {total})" if cell.label
                     else f"cell {cell.number} of {total} (line {cell.line})")
            if opts.changed_only:
                _print_changes(streams, before[0], cell.tensors, f"After {where}")
                before[0] = cell.tensors
            else:
                tables.print_tensors(streams.report, cell.tensors, f"After {where}")

    # DOT on stdout: the script's own output goes to stderr, out of its way
    redirect = contextlib.redirect_stdout(sys.stderr) if streams.data_on_stdout else contextlib.nullcontext()
    status = progress.CellProgress.for_stream(sys.stderr)  # a terminal's status line, nothing elsewhere
    with redirect:
        try:
            result = scripting.run_script(program, opts.script_args, echo=True, on_cell=on_cell,
                                          progress=status, **kwargs)
        except scripting.OutputClosed as e:
            if e.error is None:
                raise BrokenPipeError() from None  # the CLI leaves quietly
            raise CommandError(f"cannot write the script's output to stdout: {e.error.strerror or e.error}") \
                from None
        finally:
            if status is not None:
                status.close()
    sys.stdout.flush()
    return result


def _collect(opts: RunOptions, program, result, names, watch, cell_graphs, target, html_path, want_graph,
             streams) -> RunReport:
    """After the run: the graph (written to --graph), the lint and the --html report."""
    report = graph_report(opts, watch, names, program) if watch is not None and (want_graph or html_path) else None
    nonfinite = None
    if opts.nonfinite is not None and watch is not None:
        nonfinite = watch.recorder.nonfinite.found
        if nonfinite is not None and program.notebook and nonfinite.site:  # a notebook's cell and line
            nonfinite = dataclasses.replace(nonfinite, site=program.site(nonfinite.site))
    if report is not None and target is not None:
        report.outcome = _write(report, target, opts, _nonfinite_path(report.snapshot, nonfinite),
                                grad_reasons(result.tensors or ()))
    lint = _lint(opts, streams, result) if opts.lint else None
    tensors = report.tensors if report is not None and report.tensors is not None else result.tensors
    ledgers = tuple(watch.recorder.memory.ledgers) if opts.memory and watch is not None else ()
    if html_path is not None:
        report_page.write(html_path, report_page.run_page(opts, program, result, cell_graphs, report, lint, nonfinite,
                                                          ledgers))
        if not want_graph:
            report = None  # the report drew the graph; the terminal shows what it showed before
    return RunReport(result, report, lint, tensors, target, html_path, nonfinite, ledgers)


def _present_json(opts: RunOptions, streams, rr: RunReport) -> int:
    """--json: the document on stdout; the graph's error and the --tree on stderr."""
    from gradviz.render import jsonout

    result, report = rr.result, rr.graph
    extra = {}
    if report is not None:
        extra["graph"] = _graph_json(report, rr.target)
    if rr.lint is not None:
        extra["lint"] = rr.lint
    if opts.nonfinite is not None:
        extra["nonfinite"] = jsonout.nonfinite_dict(rr.nonfinite)
    if opts.memory:
        extra["memory"] = jsonout.memory_dict(rr.ledgers)
    if opts.by_module:
        extra["modules"] = [jsonout.module_dict(m) for m in by_module(rr.tensors, opts.graph.depth)[0]]
    doc = jsonout.run_dict(result)
    doc.update(extra)
    if result.stopped in ("timeout", "interrupt"):
        doc["stopped"] = result.stopped
    if rr.html_path is not None:
        doc["report"] = rr.html_path
    if report is not None and report.outcome is not None and report.outcome.error is not None:
        _print_error(report.outcome.error)
    if report is not None and opts.graph.tree and report.snapshot is not None:
        common.print_tree(streams, report.snapshot, depth=opts.graph.depth)  # stderr: stdout has the JSON
    if report is not None and report.tensors is not None:
        doc["tensors_after_second_backward"] = [jsonout.tensor_dict(t) for t in report.tensors]
    jsonout.write_json(doc, sys.stdout)
    sys.stdout.flush()
    return _status(result, report)


def _present_terminal(opts: RunOptions, program, names, streams, rr: RunReport) -> int:
    """The tables, the graph report, the lint and how the run ended, for people."""
    from gradviz.render import tables

    result, report, tensors = rr.result, rr.graph, rr.tensors
    if not opts.cells or (report is not None and report.tensors is not None):
        title = f"Tensors after {opts.script}"
        if report is not None and report.second is not None and report.second.ok:
            title += " and a second backward"
        shown = tensors
        if opts.by_module:
            modules, shown = by_module(tensors, opts.graph.depth)
        tables.print_tensors(streams.report, shown, title, hint=None if tensors else _locals_hint(names, program),
                             empty="no named tensors outside modules" if tensors else "no named tensors")
        if opts.by_module:
            tables.print_modules(streams.report, modules, "By module")
    for line in tables.nonfinite_lines(tensors):
        streams.warn(line)
    tables.print_grad_reasons(streams.report, tensors)
    if opts.nonfinite is not None:
        from gradviz.render import nonfinite as nonfinite_text
        nonfinite_text.print_finding(streams.report, rr.nonfinite, opts.nonfinite)
    if opts.memory:
        from gradviz.render import memory as memory_text
        memory_text.print_ledgers(streams.report, rr.ledgers)
    if report is not None:
        _print_graph_report(opts, streams, report, rr.target)
    if rr.lint is not None:
        _print_lint(streams, rr.lint)
    if rr.html_path is not None:
        from gradviz.render.console import print_text

        streams.report.print()
        print_text(streams.report, f"Report written to {visible(rr.html_path)}", soft_wrap=True)
    if result.stopped == "timeout":
        streams.err.print(f"gradviz: the script was stopped after {opts.timeout:g} s (--timeout); "
                          "the table shows what it had computed", soft_wrap=True, markup=False)
    elif result.stopped == "interrupt":
        streams.err.print("gradviz: interrupted; the table shows what the script had computed",
                          soft_wrap=True, markup=False)
    elif len(result.cells) < result.total_cells:
        streams.err.print(f"gradviz: the script exited in cell {len(result.cells)}; "
                          f"{result.total_cells - len(result.cells)} cell(s) not run", soft_wrap=True,
                          markup=False)
    tables.print_error_summary(streams.err, result)
    if report is not None and report.outcome is not None and report.outcome.error is not None:
        _print_error(report.outcome.error)
    return _status(result, report)


class _Sharer:
    """Sends each finished cell to the supervising process, with the graph of the last
    backward call when it is new: if the script's process dies, that process still
    writes the --graph and --html asked for, with what was recorded."""

    def __init__(self, send, watch):
        self.send, self.watch, self.last = send, watch, None

    def __call__(self, cell) -> None:
        captured = self.watch.captured if self.watch is not None else None
        new = captured if captured is not None and captured is not self.last else None
        self.last = captured or self.last
        self.send((cell, new))


def _report_ended(opts: RunOptions, program, ended) -> int:
    """The report of a run whose child process was stopped or died (see supervised): the
    cells it finished, from the data it sent, and how it ended."""
    from gradviz import scripting, tensor_records
    from gradviz.render import jsonout, tables
    from gradviz.safe_text import visible_line

    decoder = tensor_records.DeltaDecoder()
    shared = [(dataclasses.replace(c, tensors=decoder.decode(c.tensors)), graph) for c, graph in ended.cells]
    cells = [cell for cell, _ in shared]
    result = scripting.RunResult(opts.script, cells, len(program.cells), stopped=ended.how,
                                 notebook=program.notebook, notes=program.notes)
    finished = f"cell {len(result.cells)}" if result.cells else "no cell"
    if ended.how == "timeout":
        why = (f"the script did not stop at its --timeout of {opts.timeout:g} s (it caught or disarmed the stop) "
               f"and was killed after {ended.seconds:.0f} s")
    elif ended.how == "interrupt":
        why = "interrupted; the script did not stop, and was killed" if ended.killed else "interrupted"
    elif ended.how == "signal":
        why = f"the script's process was killed by {ended.signal_name}"
    else:
        why = f"the script ended its process (exit status {ended.status}) without finishing"
    line = f"gradviz: {why}; the table shows what it had computed by the end of {finished}"
    written, failed = _write_recorded(opts, program, result, shared)
    if written:
        written = (f"gradviz: wrote {' and '.join(written)} with what was recorded by the end of {finished}"
                   + (f"; {failed[0].message}" if failed else ""))
    elif failed:
        written = f"gradviz run: error: {failed[0].message}"
    written = visible_line(written) if written else written  # paths are the user's: shown, never obeyed
    if opts.as_json:
        doc = jsonout.run_dict(result)
        doc["stopped"] = ended.how
        if opts.html is not None and not any(e.message.startswith("--html") for e in failed):
            doc["report"] = opts.html
        jsonout.write_json(doc, sys.stdout)
        sys.stdout.flush()
        print(line, file=sys.stderr)
        if written:
            print(written, file=sys.stderr)
    else:
        streams = common.Streams(data_on_stdout=False)
        tables.print_tensors(streams.report, result.tensors, f"Tensors after {opts.script}")
        streams.err.print(line, soft_wrap=True, markup=False)
        if written:
            streams.err.print(written, soft_wrap=True, markup=False)
        tables.print_error_summary(streams.err, result)
    if ended.how == "interrupt":
        return EXIT_INTERRUPTED
    return failed[0].code if failed else EXIT_SCRIPT_ERROR


def _write_recorded(opts: RunOptions, program, result, shared) -> tuple:
    """--graph and --html of a run whose process died: the picture of the last backward
    call the child sent, and the report of its finished cells. (what was written, the
    CommandErrors of what could not be)"""
    graphs = {cell.index: captured for cell, captured in shared if captured is not None}
    last = graphs[max(graphs)] if graphs else None
    written, failed = [], []
    target = common.output_target(opts.graph.output, "--graph")
    if target is not None:
        if last is None:
            failed.append(CommandError("--graph: nothing to draw: no backward call was recorded before the "
                                       "script's process ended", EXIT_USAGE))
        else:
            outcome = common.write_graph(last[1], target, opts.graph)
            if outcome.error is not None:
                failed.append(outcome.error)
            else:
                written.append(f"the picture ({'stdout' if target.stdout else visible(target.path)})")
    if opts.html is not None:
        cell_graphs = report_page.CellGraphs(None)
        cell_graphs.by_cell = graphs
        try:
            report_page.write(opts.html, report_page.run_page(opts, program, result, cell_graphs, None, None))
            written.append(f"the report ({visible(opts.html)})")
        except CommandError as e:
            failed.append(e)
    return written, failed


def _print_changes(streams, before: tuple, after: tuple, title: str) -> None:
    """--changed-only: the tensors a cell made or changed, and the names it dropped."""
    from gradviz import scripting
    from gradviz.render import tables
    from gradviz.render.console import print_text

    changed = scripting.changed_tensors(before, after)
    old = {t.name for t in before}
    new = sum(1 for t in changed if t.name not in old)
    now = {t.name for t in after}
    gone = [t.name for t in before if t.name not in now]
    what = [f"{new} new"] if new else []
    what += [f"{len(changed) - new} changed"] if len(changed) > new else []
    title = f"{title}: {', '.join(what)}" if what else title
    tables.print_tensors(streams.report, changed, title, empty="no tensor made or changed")
    if gone:
        print_text(streams.report, f"No longer named: {', '.join(visible_line(g) for g in gone)}", soft_wrap=True)


def _locals_hint(names, program) -> Optional[str]:
    """Why a script that made tensors can have none to list: they lived in a function."""
    ns = names.ns or {}
    funcs = [name for name, v in ns.items()
             if getattr(getattr(v, "__code__", None), "co_filename", None) == program.code_path
             and not name.startswith("_")]
    if not funcs:
        return None
    shown = ", ".join(f"{f}()" for f in funcs[:3]) + (", ..." if len(funcs) > 3 else "")
    return (f"The table lists the script's global names only; tensors local to a function "
            f"({shown}) are gone when it returns. Make them global (or return them to a global "
            f"name) to list them, or see their graph with --tree or --graph OUT.")


def _warn_unused(opts: RunOptions, target, html_path) -> None:
    """Options that only shape a picture do nothing without one: say so, once, up front."""
    picture = target is not None or html_path is not None
    unused = [] if picture else opts.graph.picture_flags_given()
    if opts.roots and not (picture or opts.graph.tree or opts.graph.backward_twice):
        unused.append("--root")
    if unused:
        verb = "has" if len(unused) == 1 else "have"
        listed = unused[0] if len(unused) == 1 else ", ".join(unused[:-1]) + " and " + unused[-1]
        print(f"gradviz run: warning: {listed} {verb} no effect without --graph "
              f"(or --html{', --tree or --backward-twice' if '--root' in unused else ''})", file=sys.stderr)


def _status(result, report) -> int:
    if result.stopped == "interrupt":
        return EXIT_INTERRUPTED
    if report is not None and report.outcome is not None and report.outcome.error is not None:
        return report.outcome.error.code
    return EXIT_OK if result.ok else EXIT_SCRIPT_ERROR


def _print_error(err: CommandError) -> None:
    print(f"gradviz run: error: {visible(err.message)}", file=sys.stderr)


# --------------------------------------------------------------------------- the graph


def graph_report(opts: RunOptions, watch, names, program) -> GraphReport:
    """Pick the roots, run the second backward if asked, take the snapshot."""
    from gradviz.inspect import snapshot

    rep = GraphReport()
    named = names.named()
    captured = watch.captured
    if opts.roots:
        by_name = {}
        for name, t in named:
            by_name.setdefault(name, t)
        missing = [r for r in opts.roots if r not in by_name]
        if missing:
            known = ", ".join(by_name) or "none"
            raise CommandError(f"--root {missing[0]}: the script has no tensor named '{missing[0]}' "
                               f"after the run (named tensors: {_cut(known)})")
        rep.roots = [common.RootSpec(name, tensor=by_name[name]) for name in opts.roots]
        rep.how = "--root " + ", ".join(opts.roots)
    elif captured is not None and watch.last_edges:
        info, snap = captured
        rep.roots = common.roots_of_snapshot(snap, watch.last_edges)
        rep.how = f"the last {info.kind} call" + (f" ({_site_text(info.site, program)})" if info.site else "")
        rep.snapshot = snap
    else:
        last = None
        for name, t in named:
            if t.grad_fn is not None:
                last = (name, t)
        if last is None:
            rep.nothing = "nothing to draw: the script made no backward call and no named tensor has a grad_fn"
            return rep
        rep.roots = [common.RootSpec(last[0], tensor=last[1])]
        rep.how = f"the last named tensor with a grad_fn ({last[0]})"

    if opts.graph.backward_twice:
        rep.notes += _seeded_with_ones(rep.roots)
        with watch:
            nodes = [r.node for r in rep.roots]
            if any(n is None or not watch.backwarded(n) for n in nodes):
                # the script never ran backward from here: gradviz runs the first pass too
                rep.first = common.backward_pass(rep.roots, opts.graph.retain_graph, names.torch)
            if rep.first is None or rep.first.ok:
                rep.second = common.backward_pass(rep.roots, opts.graph.retain_graph, names.torch)
            rep.snapshot = snapshot([r.target() for r in rep.roots], names(), watch.recorder)
            if captured is not None and [n.name for n in rep.snapshot.nodes] == [n.name for n in captured[1].nodes]:
                # the graph the script's backward ran through: its replay
                rep.snapshot = dataclasses.replace(rep.snapshot, replay=captured[1].replay,
                                                   replay_ran=captured[1].replay_ran)
        rep.tensors = names.tensors()
    elif rep.snapshot is None:
        with watch:
            rep.snapshot = snapshot([r.target() for r in rep.roots], names(), watch.recorder)

    return rep


def _seeded_with_ones(roots) -> list:
    """PyTorch's ``L.backward()`` refuses a non-scalar L ("grad can be implicitly created
    only for scalar outputs"); the passes of --backward-twice start from ones instead, as
    ``L.backward(torch.ones_like(L))`` would. Say so for each such root."""
    notes = []
    for r in roots:
        shape = tuple(r.tensor.shape) if r.tensor is not None else tuple(r.shape or ())
        count = 1
        for s in shape:
            count *= int(s)
        if count != 1:
            name = r.name or "the root"
            notes.append(f"{name} has shape {shape}, not a scalar: the backward passes of --backward-twice start "
                         f"from ones_like({name}), as {name}.backward(torch.ones_like({name})) would "
                         f"({name}.backward() alone raises \"grad can be implicitly created only for scalar "
                         "outputs\")")
    return notes


def _write(rep: GraphReport, target, opts, highlight=(), reasons=None) -> common.GraphOutcome:
    """The picture, with --nan's path outlined, --memory's saved bytes as a heat fill and
    the leaves without a gradient marked."""
    if rep.snapshot is None:
        return common.GraphOutcome(error=CommandError(f"{rep.nothing} (name one with --root)", EXIT_USAGE))
    notes = list(rep.picture_notes) + (["outlined in red: where the first NaN started, and its way to the root"]
                                       if highlight else [])
    return common.write_graph(rep.snapshot, target, opts.graph, notes=notes, highlight=highlight,
                              heat=opts.memory, reasons=reasons)


def _nonfinite_path(snap, found):
    """The ids of the node where --nan's finding started and of the nodes between it and
    the root (what its NaN flowed through), when that node is in ``snap``."""
    if snap is None or found is None or found.node_seq < 0:
        return ()
    start = next((n.id for n in snap.nodes if n.sequence_nr == found.node_seq and not n.is_accumulate), None)
    if start is None:
        return ()
    users = {}
    for n in snap.nodes:
        for e in n.edges:
            if e.target is not None:
                users.setdefault(e.target, []).append(n.id)
    path, todo = set(), [start]
    while todo:
        k = todo.pop()
        if k not in path:
            path.add(k)
            todo.extend(users.get(k, ()))
    return tuple(sorted(path, key=lambda i: int(i[1:])))


def _site_text(site, program) -> str:
    """'line 20', or in a notebook (whose sites are named by cell) 'In [5], line 3'."""
    return f"{site[0]}, line {site[1]}" if program.notebook and site[0] != program.code_path else f"line {site[1]}"


def _cut(text, limit=300):
    return text if len(text) <= limit else text[:limit] + "…"


def root_names(rep) -> str:
    return ", ".join(r.name or "the root" for r in rep.roots) or "the root"


def _print_graph_report(opts, streams, rep: GraphReport, target) -> None:
    from gradviz.render.console import print_text

    if rep.snapshot is None:
        if rep.nothing and target is None:
            streams.note(rep.nothing)
        return
    con = streams.report
    con.print()
    print_text(con, f"Graph of {visible_line(root_names(rep))}: {len(rep.snapshot.nodes)} backward nodes, "
               f"{len(rep.snapshot.ops)} forward ops; root chosen by {visible_line(rep.how)}", soft_wrap=True)
    for note in rep.notes:
        streams.note(note)
    if opts.graph.tree or (opts.graph.backward_twice and target is None):
        common.print_tree(streams, rep.snapshot, depth=opts.graph.depth)
    if rep.first is not None and not rep.first.ok:
        con.print()
        print_text(con, f"Backward on {visible_line(root_names(rep))} (run by gradviz for --backward-twice) raised:",
                   "bold red")
        print_text(con, visible(rep.first.error_line), soft_wrap=True)
    if rep.second is not None:
        common.print_second_backward(streams, rep.second, common.freed_count(rep.snapshot), root_names(rep))
    if rep.outcome is not None:
        common.print_graph_outcome(streams, rep.outcome)


def _graph_json(rep: GraphReport, target) -> dict:
    from gradviz.render import jsonout

    snap = rep.snapshot
    d = {"roots": [r.name for r in rep.roots], "chosen_by": rep.how,
         "node_count": len(snap.nodes) if snap is not None else 0,
         "freed": common.freed_count(snap) if snap is not None else 0,
         "notes": [rep.nothing] if rep.nothing and target is None else []}
    # the graph itself (nodes, ops, values, modules), as drawn or printed; empty lists without one
    d.update(jsonout.graph_dict(snap) if snap is not None else {"nodes": [], "ops": [], "values": [], "modules": []})
    if rep.first is not None:
        d["first_backward"] = {"ok": rep.first.ok, "error": None if rep.first.ok else
                               {"type": rep.first.error_type, "message": rep.first.message}}
    if rep.second is not None:
        d["second_backward"] = {"ok": rep.second.ok, "error": None if rep.second.ok else
                                {"type": rep.second.error_type, "message": rep.second.message}}
    if target is not None and rep.outcome is not None:
        d["output"] = rep.outcome.as_dict(target)
    return d


# --------------------------------------------------------------------------- lint


def _lint(opts: RunOptions, streams, result) -> dict:
    """Run the script again under the explain probe; its silent pitfalls as dicts, and the
    missing gradients of this run (their reasons, from its table)."""
    from gradviz import explain, scripting
    from gradviz.explain.lint import grad_reason_warnings

    try:
        with scripting.deadline(opts.timeout):
            found = explain.lint_script(opts.script, opts.script_args)
    except scripting.ScriptTimeout:
        return {"warnings": [], "error": f"the lint run did not finish within {opts.timeout:g} s (--timeout)"}
    except Exception as e:  # noqa: BLE001 - lint is extra: it must not hide the run's report
        if os.environ.get("GRADVIZ_DEBUG"):
            raise
        return {"warnings": [], "error": f"lint failed: {type(e).__name__}: {e}"}
    found = list(found) + grad_reason_warnings(grad_reasons(result.tensors or ()))
    return {"warnings": [w.as_dict() if hasattr(w, "as_dict") else dict(w) for w in found], "error": None}


def _print_lint(streams, lint: dict) -> None:
    from gradviz.explain import render as explain_render
    from gradviz.render.console import print_text

    con = streams.report
    con.print()
    if lint["error"]:
        streams.warn(lint["error"])
        return
    n = len(lint["warnings"])
    if not n:
        print_text(con, "Lint (--lint): no silent autograd pitfalls found")
        return
    print_text(con, f"Lint (--lint): {n} warning{'s' if n != 1 else ''}", "bold")
    explain_render.print_warnings(lint["warnings"], file=con.file, width=min(100, con.width))
