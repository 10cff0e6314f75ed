"""``gradviz explain MESSAGE | - | script.py | notebook.ipynb | --list``: explain an autograd error.

A message (or a whole pasted traceback, from stdin with ``-``) is matched against the
catalog; a script or a notebook is run in the engine until its first error and
diagnosed from what the run did. ``--graph OUT`` draws the graph around the failing node of a script.
The explaining is ``gradviz.explain``'s (on the installed PyTorch, ``explain.real_torch``'s);
this module reads the arguments, runs the script under supervision and presents the result.
"""
import os
import sys
from dataclasses import dataclass
from typing import Optional

from ..safe_text import visible  # paths and messages printed: shown, never obeyed
from . import EXIT_OK, EXIT_SCRIPT_ERROR, EXIT_USAGE, CommandError
from . import common, supervised

MAX_STDIN = 1_000_000  # characters of a pasted traceback


@dataclass
class ExplainOptions:
    args: tuple = ()
    list_: bool = False
    as_json: bool = False
    graph: Optional[str] = None
    timeout: Optional[float] = None
    engine: str = "gradviz"


def _is_script(arg: str) -> bool:
    return arg.endswith((".py", ".ipynb")) and " " not in arg.strip() and "\n" not in arg


def run(opts: ExplainOptions) -> int:
    from gradviz.explain import render as explain_render

    args = list(opts.args)
    if opts.list_:
        if args:
            raise CommandError("--list takes no message or script", usage=True)
        if opts.graph is not None:
            raise CommandError("--graph needs a script (gradviz explain script.py --graph g.svg)", usage=True)
        from gradviz.explain import list_entries

        entries = list_entries()
        if opts.as_json:
            sys.stdout.write(_json(entries) + "\n")
        else:
            explain_render.print_list(entries, file=sys.stdout, width=_width(sys.stdout))
        return EXIT_OK
    if not args:
        raise CommandError("nothing to explain: give an error message, - to read one from stdin, "
                           "a script.py to diagnose, or --list", usage=True)
    first = args[0]
    if _is_script(first) or (len(args) == 1 and os.path.isdir(first)):
        return _script(opts, first, tuple(args[1:]))
    if opts.graph is not None:
        raise CommandError("--graph needs a script: a message alone has no graph "
                           "(gradviz explain script.py --graph g.svg)", usage=True)
    if first == "-" and len(args) == 1:
        text = sys.stdin.read(MAX_STDIN + 1)
        if len(text) > MAX_STDIN:
            text = text[-MAX_STDIN:]  # the error line of a traceback is at its end
        if not text.strip():
            raise CommandError("nothing to explain: stdin was empty", usage=True)
    elif len(args) == 1 and os.path.isfile(first):
        text = _read_text_file(first)
    elif len(args) == 1 and _pipe_kind(first):
        raise CommandError(f"'{first}' is {_pipe_kind(first)}, not a file of an error message: "
                           "gradviz reads regular files only", usage=True)
    else:
        text = " ".join(args)
        if not text.strip():
            raise CommandError("nothing to explain: the message is empty", usage=True)
    from gradviz.explain import explain_message

    explanation = explain_message(text)
    _show(opts, explanation, sys.stdout)
    return explanation.exit_code


def _pipe_kind(path: str) -> str:
    """'a FIFO (named pipe)' for a path that is one (or a socket), read by os.stat: opening it
    would wait for a writer, forever."""
    from gradviz import scripting

    try:
        return scripting.pipe_kind(os.stat(path).st_mode)
    except (OSError, ValueError):  # not a path at all: a message
        return ""


def _read_text_file(path: str) -> str:
    """A saved traceback or log (not a .py script): its text is the message."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_STDIN + 1)
    except OSError as e:
        raise CommandError(f"cannot read '{path}': {e.strerror or e}", usage=True) from None
    if b"\x00" in data[:8192]:
        raise CommandError(f"'{path}' is a binary file, not an error message or a traceback", usage=True)
    text = data[-MAX_STDIN:].decode("utf-8", "replace")
    if not text.strip():
        raise CommandError(f"nothing to explain: '{path}' is empty", usage=True)
    return text


def _json(obj) -> str:
    """The --json document of an Explanation / Diagnosis (or a list of entries), as strict
    JSON (non-finite numbers as "NaN" / "Infinity" / "-Infinity", as every --json)."""
    from gradviz.render import jsonout

    data = obj.as_dict() if hasattr(obj, "as_dict") else obj
    return jsonout.json_text(data, indent=2, ensure_ascii=False)


def _width(stream):
    if "COLUMNS" in os.environ:
        return None
    try:
        return None if stream.isatty() else 100
    except (AttributeError, ValueError):
        return 100


def _show(opts, obj, stream) -> None:
    from gradviz.explain import render as explain_render

    if opts.as_json:
        sys.stdout.write(_json(obj) + "\n")
        sys.stdout.flush()
    else:
        explain_render.print_explanation(obj, file=stream, width=_width(stream))


def _script(opts: ExplainOptions, path: str, argv: tuple) -> int:
    from gradviz import scripting

    try:
        program = scripting.load_program(path)
    except scripting.ScriptError as e:
        raise CommandError(str(e), usage=True) from None
    common.refuse_the_input_as_output(path, (("--graph", opts.graph),))
    target = common.output_target(opts.graph, "--graph")
    if opts.as_json and target is not None and target.stdout:
        raise CommandError("--json and --graph - both want stdout: write the graph to a file", usage=True)
    if not supervised.available():
        return _diagnose_and_show(opts, program, path, argv, target)
    # the script runs in a child process this one can stop, whatever the script does
    return supervised.supervised(lambda send: _diagnose_and_show(opts, program, path, argv, target), opts.timeout,
                                 lambda ended: _ended(opts, ended))


def _ended(opts, ended) -> int:
    """The script's process was stopped or died before its error could be explained."""
    if ended.how == "timeout":
        why = (f"the script did not stop at its --timeout of {opts.timeout:g} s (it caught or disarmed the stop) "
               "and was killed before it raised")
    elif ended.how == "interrupt":
        raise KeyboardInterrupt
    elif ended.how == "signal":
        why = f"the script's process was killed by {ended.signal_name} before it raised"
    else:
        why = f"the script ended its process (exit status {ended.status}) before it raised"
    raise CommandError(f"{why}; nothing to explain", EXIT_SCRIPT_ERROR)


def _diagnose_and_show(opts, program, path, argv, target) -> int:
    from gradviz import explain, scripting
    from gradviz.explain import real_torch, runner

    eng = common.engine(opts.engine)
    try:
        with scripting.deadline(opts.timeout):
            diagnosis = (real_torch.diagnose_on_torch(program, argv, eng) if eng.real
                         else explain.diagnose_script(path, argv))
    except runner.ScriptError as e:
        raise CommandError(str(e), usage=True) from None
    except scripting.ScriptTimeout:
        if supervised.in_fork():
            supervised.leave_fork(1)
        supervised.script_stopped()
        raise CommandError(f"the script did not reach an error within {opts.timeout:g} s (--timeout); "
                           "nothing to explain", EXIT_SCRIPT_ERROR) from None
    if supervised.in_fork():  # the script's os.fork(): this copy ends as under python, without a diagnosis
        supervised.leave_fork(diagnosis.exit_code)
    report_stream = sys.stderr if (target is not None and target.stdout) else sys.stdout
    _show(opts, diagnosis, report_stream)
    code = diagnosis.exit_code
    if target is not None:
        code = max(code, _graph(diagnosis, target, program))
    return code


def _graph(diagnosis, target, program) -> int:
    from gradviz.inspect import snapshot
    from gradviz.render import dot

    if not diagnosis.graph_roots:
        why = "the script raised no error" if diagnosis.error is None else "the error involves no autograd graph"
        print(f"gradviz explain: note: no graph written: {why}", file=sys.stderr)
        return EXIT_OK
    notes = []
    if diagnosis.error:
        notes.append(f"{diagnosis.error['type']}: {diagnosis.error['message']}")
    if diagnosis.id:
        notes.append(f"gradviz explain: {diagnosis.id} ({diagnosis.title})")
    snap = snapshot(list(diagnosis.graph_roots), names=dict(diagnosis.graph_names), recorder=diagnosis.graph_recorder,
                    sites=program.site if program.notebook else None)
    snap = _named_roots(snap, diagnosis)
    named = [r.name for r in snap.roots if r.name]
    if named:
        error = diagnosis.error or {}
        code = error.get("code") or ""
        started = (f", where the failing backward pass started ({_line_of(error)})"
                   if error.get("line") and (".backward(" in code or "grad(" in code) else "")
        notes.append(f"root: {', '.join(named)}{started}")
    highlight = _failing_ids(diagnosis, snap)
    if highlight:
        node = snap.node(next(iter(highlight)))
        site = f" (created at {os.path.basename(str(node.site[0]))}:{node.site[1]})" if node.site else ""
        notes.append(f"failing node: {node.name}{site}, outlined in red")
    graph = dot.Graph(snap, view="both" if snap.has_forward else "backward", highlight=highlight,
                      title=f"gradviz explain: the graph around the error in {os.path.basename(program.path)}",
                      notes=notes)
    if target.stdout:
        sys.stdout.write(graph.source if graph.source.endswith("\n") else graph.source + "\n")
        sys.stdout.flush()
        return EXIT_OK
    try:
        result = graph.save(target.path)
    except dot.RenderError as e:
        print(f"gradviz explain: error: {visible(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:
        print(f"gradviz explain: error: cannot write '{visible(target.path)}': {e.strerror or e}", file=sys.stderr)
        return EXIT_USAGE
    size = f", {result.width:,} x {result.height:,} px" if result.width and result.height else ""
    print(f"gradviz explain: graph written to {visible(result.path)} ({result.format.upper()}{size})",
          file=sys.stderr)
    return EXIT_OK


def _line_of(error) -> str:
    return f"{error['cell']}, line {error['line']}" if error.get("cell") else f"line {error['line']}"


def _named_roots(snap, diagnosis):
    """The snapshot with its roots named as the user would: the script's variable that holds
    the root tensor, else the expression the failing line called backward on (``act.sum()``)."""
    import dataclasses

    from gradviz.explain.diagnose import differentiated_expr

    by_output = {}
    for name, t in diagnosis.graph_names.items():
        node = getattr(t, "_grad_fn", None) if hasattr(t, "_grad_fn") else getattr(t, "grad_fn", None)
        nr = getattr(t, "_output_nr", None) if hasattr(t, "_output_nr") else getattr(t, "output_nr", 0)
        if node is not None:
            by_output.setdefault((id(node), nr), name)
    names = [by_output.get((id(node), nr)) for node, nr in diagnosis.graph_roots]
    code = (diagnosis.error or {}).get("code") or ""
    if len(diagnosis.graph_roots) == 1 and names[0] is None and code:
        names[0] = differentiated_expr(code, ".backward(" not in code and "grad(" in code)
    if len(names) != len(snap.roots):
        return snap
    roots = tuple(r if r.name or not n else dataclasses.replace(r, name=n) for r, n in zip(snap.roots, names))
    return dataclasses.replace(snap, roots=roots)


def _failing_ids(diagnosis, snap) -> frozenset:
    """The snapshot id (``n3``) of the node the diagnosis blames, numbered as the snapshot
    numbers its nodes (the same depth-first walk from the same roots)."""
    node = diagnosis.failing_node
    if node is None:
        return frozenset()
    try:
        from gradviz.inspect.snapshot import node_ids

        nid = node_ids(diagnosis.graph_roots).get(id(node))
        if nid is None or snap.node(nid).name != node.name():
            return frozenset()
        return frozenset({nid})
    except Exception:  # noqa: BLE001 - a highlight is a nicety, never a failure
        return frozenset()
