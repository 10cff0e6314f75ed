"""``gradviz explain script.py --engine torch``: the script on the installed PyTorch, to its
first error.

What the diagnosis has there: the error, where it came from (explain's answer to its
message) and the graph of the backward call that raised. The engine's own diagnosis
(which tensor, which in-place op) needs gradviz's engine (``diagnose.diagnose_script``).
"""
import contextlib

from gradviz import scripting
from gradviz.inspect.watch import Names, Watch
from gradviz.notebook import code_part

from .diagnose import Diagnosis, unknown_script_fix
from .facts import _fix
from .match import explain_message

CONTEXT = {"engine": "torch"}


def diagnose_on_torch(program, argv, engine) -> Diagnosis:
    """Run ``program`` (a scripting.Program) on ``engine`` (the installed PyTorch: its
    ``module_name`` is what ``import torch`` gives the script) until its first error."""
    names = Names(program.code_path, engine.torch)
    watch = Watch(names, sites=program.site if program.notebook else None, real=True)

    @contextlib.contextmanager
    def around(ns):
        names.bind(ns)
        with watch:
            yield

    result = scripting.run_script(program, argv, echo=False, engine=engine.module_name, around=around,
                                  stop_at_error=True)
    failed = next((c for c in result.cells if c.error is not None), None)
    stdout = "".join(c.stdout for c in result.cells)
    if failed is None:
        return Diagnosis(id=None, title="No error", cause="The script ran to the end without raising.", fix=_fix(""),
                         context=dict(CONTEXT), error=None, stdout=stdout)
    err = failed.error
    error, prefix = _error_and_place(program, program.cells[failed.index], err)
    found = explain_message(f"{err.type}: {err.message}")
    roots, recorder = _failing_backward(program, watch, err)
    graph = dict(explanation=found, graph_roots=roots, graph_names=dict(names.named()), graph_recorder=recorder)
    if not found.known:
        return Diagnosis(id=None, candidates=found.candidates, title="Unknown error",
                         cause=f"{prefix}{err.type}: {err.message}. " + found.cause,
                         fix=unknown_script_fix(torch_engine=True), context=dict(CONTEXT),
                         error=error, stdout=stdout, **graph)
    return Diagnosis(id=found.id, candidates=found.candidates, title=found.title, cause=prefix + found.cause,
                     fix=found.fix, context=dict(CONTEXT), error=error, stdout=stdout, **graph)


def _error_and_place(program, cell, err) -> tuple:
    """(the error as the diagnosis's dict, 'Line 7 (`code`): ' to start its cause with)."""
    code = ""
    if err.line:  # a notebook's lines are counted in the cell, a script's in the file
        lines = (cell.written if program.notebook else program.text).split("\n")
        code = code_part(lines[err.line - 1].strip()) if 0 < err.line <= len(lines) else ""
    where = (f"{cell.name}, line {err.line}" if program.notebook else f"Line {err.line}") if err.line else ""
    error = {"type": err.type, "message": err.message, "line": err.line, "code": code, "traceback": err.traceback}
    if program.notebook:
        error["cell"] = cell.name
    prefix = f"{where} (`{code}`): " if where and code else (f"{where}: " if where else "")
    return error, prefix


def _failing_backward(program, watch, err) -> tuple:
    """(root edges, recorder) of the backward call that raised, when the last recorded
    call was made on the error's line; ((), None) otherwise."""
    calls = watch.recorder.backward_calls()
    if calls and watch.last_edges and calls[-1].site and calls[-1].site[0] == program.code_path \
            and program.where(calls[-1].site[1])[1] == err.line:
        return tuple(watch.last_edges), watch.recorder
    return (), None
