"""``gradviz graph "EXPRESSION"``: evaluate safely, backward, table, graph.

The expression is parsed and evaluated by ``gradviz.expression`` (a whitelist over
``ast``, never ``eval``); a Recorder watches the evaluation and the backward so the
picture has both graphs, with the tensors labelled by assignment name or source text.
"""
import itertools
import re
import sys
from dataclasses import dataclass, field
from typing import Optional

from ..render import options as graph_options  # imports nothing of gradviz: the formats and the box budget
from ..render.options import GraphOptions
from ..safe_text import visible  # names, paths and messages printed: shown, never obeyed
from . import EXIT_OK, EXIT_SCRIPT_ERROR, EXIT_USAGE, CommandError
from . import common
from . import report

_NAME = re.compile(r"^[^\W\d]\w*$")
MAX_TITLE = 70


DEFAULT_TIMEOUT = 30.0  # an expression is small: anything slower is runaway work


@dataclass
class ExpressionOptions:
    expression: str
    shape: Optional[str] = None
    var: tuple = ()  # "name=spec" strings
    seed: int = 0
    dtype: Optional[str] = None
    no_backward: bool = False
    graph: GraphOptions = GraphOptions()  # -o OUT, --view, --max-nodes, --tree, --backward-twice ...
    as_json: bool = False
    html: Optional[str] = None  # --html REPORT
    engine: str = "gradviz"  # or 'torch': the installed PyTorch evaluates the expression
    timeout: Optional[float] = DEFAULT_TIMEOUT  # seconds for evaluation, backward and snapshot; None: no limit
    precision: Optional[int] = None  # --precision N: significant digits in the tables
    full_values: bool = False  # --full-values


@dataclass
class Outcome:
    """Everything ``graph`` learnt, for the report and the JSON."""

    program: object = None
    evaluation: object = None
    tensors: tuple = ()
    backward: dict = field(default_factory=lambda: {"ran": False, "gradient": None, "retain_graph": False})
    second: Optional[common.PassResult] = None
    snapshot: object = None
    graph: Optional[common.GraphOutcome] = None
    notes: list = field(default_factory=list)
    error: Optional[dict] = None  # the expression's (or backward's) exception
    explanation: object = None


def _expression_error(e, what="gradviz graph") -> CommandError:
    from gradviz.expression import format_error

    text = format_error(e, prefix=f"{what}: error")
    first, _, rest = text.partition("\n")
    return CommandError(first[len(f"{what}: error: "):], EXIT_USAGE, detail=rest)


def _var_specs(items) -> dict:
    specs = {}
    for item in items:
        name, sep, spec = item.partition("=")
        name = name.strip()
        if not sep or not spec.strip():
            raise CommandError(f"--var expects NAME=SHAPE or NAME=VALUE (e.g. a=3x3 or "
                               f"x=\"linspace(0,1,5)\"), got '{item}'", usage=True)
        if not _NAME.match(name):
            raise CommandError(f"--var {item}: '{name}' is not a name", usage=True)
        if name in specs:
            raise CommandError(f"--var {name} is given twice", usage=True)
        specs[name] = spec.strip()
    return specs


def _read_expression(text: str) -> str:
    from_stdin = text == "-"
    if from_stdin:
        from gradviz.expression.limits import MAX_SOURCE_CHARS
        text = sys.stdin.read(MAX_SOURCE_CHARS + 1)  # never more: stdin may be /dev/zero
        if len(text) > MAX_SOURCE_CHARS:
            raise CommandError(f"the expression is too long (more than {MAX_SOURCE_CHARS:,} characters on stdin; "
                               f"the limit is {MAX_SOURCE_CHARS:,})", usage=True)
    bad = _undecodable(text)
    if bad is not None:  # Python kept the bytes as surrogates; the parser would say "can't encode"
        where = "on stdin" if from_stdin else "given"
        raise CommandError(f"cannot decode the expression {where}: {bad}", usage=True)
    if not text.strip():
        raise CommandError("the expression is empty (give one, e.g. \"(x*y).sum()\", or - to read stdin)",
                           usage=True)
    return text


def _undecodable(text: str):
    """Why ``text`` is not UTF-8 ('byte 0xff at character 7 is not UTF-8'), or None.
    Python reads bytes it cannot decode as surrogates (U+DC80 to U+DCFF)."""
    import re

    m = re.search("[\\ud800-\\udfff]", text)
    if m is None:
        return None
    code = ord(m.group())
    what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"a lone surrogate U+{code:04X}"
    return f"{what} at character {m.start() + 1} is not UTF-8"


def run(opts: ExpressionOptions) -> int:
    from gradviz.render import values

    with values.printoptions(opts.precision, opts.full_values):
        return _run(opts)


def _run(opts: ExpressionOptions) -> int:
    from gradviz import expression

    text = _read_expression(opts.expression)
    target = common.output_target(opts.graph.output, "-o/--output")
    html_path = report.html_target(opts.html)
    if opts.as_json and target is not None and target.stdout:
        raise CommandError("--json and -o - both want stdout: write the graph to a file", usage=True)
    if opts.no_backward and (opts.graph.backward_twice or opts.graph.retain_graph):
        flag = "--backward-twice" if opts.graph.backward_twice else "--retain-graph"
        raise CommandError(f"{flag} needs a backward pass: drop --no-backward", usage=True)
    if target is None and html_path is None:
        unused = opts.graph.picture_flags_given()
        if unused:
            print(f"gradviz graph: warning: {' and '.join(unused)} {'has' if len(unused) == 1 else 'have'} no "
                  "effect without -o/--output (or --html): without a file the graph is printed as a tree",
                  file=sys.stderr)
    specs = _var_specs(opts.var)
    try:
        program = expression.parse(text)
        shape = expression.parse_shape(opts.shape) if opts.shape is not None else None
    except expression.ExpressionError as e:
        raise _expression_error(e) from None
    eng = common.engine(opts.engine)
    dtype = getattr(eng.torch, opts.dtype) if opts.dtype else None
    streams = common.Streams(data_on_stdout=opts.as_json or (target is not None and target.stdout))
    from gradviz import scripting

    # one time limit for the whole command: evaluation, backward, table, picture and report
    clock = scripting.deadline(opts.timeout)
    try:
        with clock:
            return _evaluate_and_show(opts, program, shape, specs, dtype, target, html_path, eng, streams, clock)
    except scripting.ScriptTimeout:
        raise CommandError(f"gradviz graph ran longer than {opts.timeout:g} s and was stopped while it wrote its "
                           "output (--timeout SECONDS raises the limit, which covers evaluation, table, picture and "
                           "report)") from None


def _evaluate_and_show(opts, program, shape, specs, dtype, target, html_path, eng, streams, clock) -> int:
    out = _evaluate(opts, program, shape, specs, dtype, target, eng, clock)
    _print_warnings(out, program)
    if html_path is not None:
        report.write(html_path, report.graph_page(opts, out, _title(program), _picture_notes(out)))
    if opts.as_json:
        from gradviz.render import jsonout

        sys.stdout.write(jsonout.json_text(_json(opts, out, target)) + "\n")
        sys.stdout.flush()
        if out.graph is not None and out.graph.error is not None:
            print(f"gradviz graph: error: {visible(out.graph.error.message)}", file=sys.stderr)
        if opts.graph.tree and out.snapshot is not None:
            # stderr: stdout has the JSON
            common.print_tree(streams, out.snapshot, show_sites=False, depth=opts.graph.depth)
    else:
        _print(opts, streams, out, target)
        if html_path is not None:
            from gradviz.render.console import print_text

            streams.report.print()
            print_text(streams.report, f"Report written to {visible(html_path)}", soft_wrap=True)
    if out.error is not None:
        return EXIT_SCRIPT_ERROR
    if out.graph is not None and out.graph.error is not None:
        return out.graph.error.code
    return EXIT_OK


# --------------------------------------------------------------------------- evaluation


def _warnings(out) -> list:
    return list(out.evaluation.warnings) if out.evaluation is not None else []


def _print_warnings(out, program) -> None:
    """What the expression warned, on stderr as Python shows a warning, but placed in the
    expression (``<expression>:1:5``) with a caret under the part that warned."""

    lines = program.source.split("\n")
    for w in _warnings(out):
        line, col, end_col = w.position
        text = lines[line - 1] if 0 < line <= len(lines) else program.source
        width = max(1, (end_col or col + 1) - col)
        print(f"<expression>:{line}:{col}: {w.category}: {visible(w.message)}\n  {visible(text)}\n"
              f"  {' ' * (col - 1)}{'^' * width}", file=sys.stderr)


def _labels(ev) -> dict:
    names = {}
    for label, t in ev.tensors.items():
        names.setdefault(id(t), label)
    return names


def _table(ev) -> tuple:
    """The rows of the table: the first MAX_TENSORS tensors described, the rest counted (an
    expression can name 100,000 tensors: ``x.unbind()`` of a long x)."""
    from gradviz import scripting

    rows = scripting.Tensors(scripting.tensor_info(label, t)
                             for label, t in itertools.islice(ev.tensors.items(), scripting.MAX_TENSORS))
    rows.omitted = max(0, len(ev.tensors) - scripting.MAX_TENSORS)
    return rows


def _evaluate(opts, program, shape, specs, dtype, target, eng, clock) -> Outcome:
    from gradviz import expression
    from gradviz.inspect import snapshot
    from gradviz.inspect.watch import Watch
    from gradviz.inspect.torch_guard import allocation_guard  # holds real PyTorch to the expression's limits

    engine = eng.torch
    out = Outcome(program=program)
    holder = {}
    watch = Watch(lambda: _labels(holder["ev"]) if "ev" in holder else {}, real=eng.real, replay=opts.html is not None)
    saved_grad = engine.is_grad_enabled()
    from gradviz import scripting
    try:
        engine.set_grad_enabled(True)
        with watch:
            try:
                ev = common.without_caller(lambda: expression.evaluate(
                    program, shape=shape, var_specs=specs, seed=opts.seed, dtype=dtype, engine=engine,
                    guard=allocation_guard if eng.real else None))
            except expression.ExpressionError as e:
                raise _expression_error(e) from None
            except Exception as e:  # noqa: BLE001 - the expression raised: show it as explain would
                partial = getattr(e, "gradviz_partial", None)
                out.evaluation = partial
                out.tensors = _table(partial) if partial is not None else ()
                out.error = _error_dict(e, program, partial)
                return out
            holder["ev"] = ev
            out.evaluation = ev
            value = ev.value
            is_tensor = isinstance(value, engine.Tensor)
            roots = None
            if not is_tensor:
                out.notes.append(f"the result is a {type(value).__name__}, not a tensor: there is no graph to draw")
            elif opts.no_backward:
                out.notes.append("backward skipped (--no-backward)")
            elif not value.requires_grad:
                out.notes.append("the result does not require grad: there is nothing to backpropagate")
            else:
                roots = [common.RootSpec(ev.result_label, tensor=value)]
                if value.numel() != 1:
                    out.notes.append(f"the result has shape {tuple(value.shape)}, not a scalar: backward started "
                                     "from ones_like(result), the same as (result).sum().backward() (use "
                                     "--no-backward to skip it)")
                first = common.backward_pass(roots, opts.graph.retain_graph, engine)
                out.backward = {"ran": first.ok, "gradient": "implicit" if value.numel() == 1 else "ones",
                                "retain_graph": opts.graph.retain_graph}
                if not first.ok:
                    out.error = _pass_error(first)
                elif opts.graph.backward_twice:
                    out.second = common.backward_pass(roots, opts.graph.retain_graph, engine)
            if is_tensor:
                out.snapshot = snapshot(value, _labels(ev), watch.recorder)
            out.tensors = _table(ev)
    except scripting.ScriptTimeout:
        raise CommandError(f"the expression ran longer than {opts.timeout:g} s and was stopped (--timeout "
                           "SECONDS raises the limit)") from None
    finally:
        engine.set_grad_enabled(saved_grad)
    if out.snapshot is not None and target is not None and out.error is None:
        out.graph = common.write_graph(out.snapshot, target, opts.graph, notes=_picture_notes(out),
                                       title=_title(program), show_sites=False, timeout=clock.remaining())
    return out


def _title(program) -> str:
    return f"gradviz graph: {_short(program.source)}"


def _picture_notes(out: Outcome) -> list:
    notes = list(out.notes)
    if out.second is not None:
        notes.append(common.second_backward_note(out.second))
    return notes


def _short(text, limit=MAX_TITLE):
    one = " ".join(text.split())
    return one if len(one) <= limit else one[:limit - 1] + "…"


def _error_dict(e, program, partial) -> dict:
    from gradviz.explain import explain_message

    message = str(e)
    explanation = explain_message(f"{type(e).__name__}: {message}")
    d = {"type": type(e).__name__, "message": message, "position": None, "source": None,
         "explain": explanation.as_dict(), "_explanation": explanation}
    if partial is not None and partial.error_position is not None:
        d["position"] = list(partial.error_position)
        d["source"] = partial.error_source
    return d


def _pass_error(p: common.PassResult) -> dict:
    from gradviz.explain import explain_message

    explanation = explain_message(p.error_line)
    return {"type": p.error_type, "message": p.message, "position": None, "source": "backward()",
            "explain": explanation.as_dict(), "_explanation": explanation}


# --------------------------------------------------------------------------- output


def _print(opts, streams, out: Outcome, target) -> None:
    from gradviz.render import tables
    from gradviz.render.console import print_text

    ev = out.evaluation
    title = f"Tensors of {_short(out.program.source)}"
    if out.error is not None:
        title = f"Tensors computed before the error in {_short(out.program.source)}"
    elif out.second is not None and out.second.ok:
        title += " after two backward passes"
    if ev is not None and (out.tensors or out.error is None):
        tables.print_tensors(streams.report, out.tensors, title)
    if ev is not None and out.error is None and not hasattr(ev.value, "grad_fn"):
        streams.report.print()
        print_text(streams.report, f"Result: {visible(repr(ev.value))}", soft_wrap=True)
    for line in tables.nonfinite_lines(out.tensors):
        streams.warn(line)
    for note in out.notes:
        streams.note(note)
    if out.error is not None:
        _print_expression_error(streams, out)
        return
    if out.snapshot is not None and (opts.graph.tree or target is None):
        common.print_tree(streams, out.snapshot, show_sites=False, depth=opts.graph.depth)
    if out.second is not None:
        common.print_second_backward(streams, out.second, common.freed_count(out.snapshot),
                                     out.evaluation.result_label)
    if out.graph is not None:
        common.print_graph_outcome(streams, out.graph)
        if out.graph.error is not None:
            print(f"gradviz graph: error: {visible(out.graph.error.message)}", file=sys.stderr)
    elif target is None and out.snapshot is not None and not opts.as_json:
        streams.report.print()
        print_text(streams.report, f"Write a picture with -o {graph_options.EXAMPLE_PICTURE}; -o - prints DOT).",
                   style="dim")


def _print_expression_error(streams, out: Outcome) -> None:
    from gradviz.explain import render as explain_render
    from gradviz.expression import ExpressionError, format_error

    err = out.error
    where = "backward() raised" if err["source"] == "backward()" else "the expression raised"
    head = f"gradviz graph: {where} {err['type']}: {err['message']}"
    if err["position"] is not None:
        line, col, end = err["position"]
        caret = format_error(ExpressionError(err["message"], line=line, col=col, end_col=end,
                                             source=out.program.source), prefix="x")
        detail = caret.split("\n", 1)[1] if "\n" in caret else ""
        if detail:
            head += "\n" + detail
    print(visible(head), file=sys.stderr)
    sys.stderr.flush()
    explain_render.print_explanation(err["_explanation"], file=streams.err.file,
                                     width=min(100, streams.err.width))


def _json(opts, out: Outcome, target) -> dict:
    from gradviz.render import jsonout

    ev = out.evaluation
    result = None
    if ev is not None and out.error is None:
        value = ev.value
        result = {"label": ev.result_label, "type": "tensor" if hasattr(value, "grad_fn") else type(value).__name__}
        if hasattr(value, "grad_fn"):
            result.update(shape=list(value.shape), dtype=str(value.dtype).replace("torch.", ""),
                          requires_grad=bool(value.requires_grad),
                          grad_fn=type(value.grad_fn).__name__ if value.grad_fn is not None else None)
        else:
            result["repr"] = repr(value)
    error = None
    if out.error is not None:
        error = {k: v for k, v in out.error.items() if not k.startswith("_")}
    second = None
    if out.second is not None:
        second = {"ok": out.second.ok, "error": None if out.second.ok else
                  {"type": out.second.error_type, "message": out.second.message}}
    graph = None
    if target is not None and out.graph is not None:
        graph = out.graph.as_dict(target)
    return {"expression": out.program.source, "leaves": list(out.program.leaves), "seed": opts.seed,
            "result": result, "backward": dict(out.backward), "second_backward": second,
            "tensors": [jsonout.tensor_dict(t) for t in out.tensors],
            **({"tensors_omitted": out.tensors.omitted} if getattr(out.tensors, "omitted", 0) else {}),
            "graph": graph,
            "notes": list(out.notes), "warnings": [w.as_dict() for w in _warnings(out)], "error": error,
            **({"report": opts.html} if opts.html else {})}
