"""Run a script or notebook in gradviz's engine until its first error, with a :class:`Probe`
listening.

The interpreter juggling (``import torch`` -> ``gradviz.torch``, argv, cwd, ``__main__``,
grad mode ...) and the cells are :mod:`gradviz.scripting`'s. Unlike
``scripting.run_script`` this keeps what a diagnosis needs and plain data cannot carry:
the exception object (with ``gradviz_id`` / ``gradviz_context``), the locals of the
user's innermost frame, the namespace, and every warning raised (not filtered).
"""
import contextlib
import io
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Any, Optional

from gradviz import scripting

from .probe import Probe

ENGINE = "gradviz.torch"


class ScriptError(Exception):
    """The script cannot be run at all (missing, unreadable)."""


@dataclass
class CaughtWarning:
    category: str
    message: str
    filename: str
    lineno: int


@dataclass
class RunOutcome:
    path: str
    code_path: str
    source: str
    exc: Optional[BaseException] = None
    error_line: Optional[int] = None  # line of the script where the error surfaced
    error_traceback: str = ""
    frame_locals: dict = field(default_factory=dict)  # innermost frame of the script itself
    namespace: dict = field(default_factory=dict)
    stdout: str = ""
    warnings: list = field(default_factory=list)  # of CaughtWarning
    probe: Any = None
    frames: list = field(default_factory=list)  # [(filename, lineno, function name)] of the traceback
    cell: Optional[int] = None
    program: Any = None  # the scripting.Program that ran: a notebook names its lines by cell
    reach: Any = None  # inspect.grad_reasons.Reach: the leaves each backward reached, and the cuts

    def scope(self):
        """Names visible where the error happened: frame locals over module globals."""
        d = dict(self.namespace)
        d.update(self.frame_locals)
        return d


# --------------------------------------------------------------------------- running


def _innermost_user_frame(tb, code_path):
    frame = None
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == code_path:
            frame, line = tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next
    return frame, line


def _frames(tb):
    out = []
    while tb is not None:
        out.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno, tb.tb_frame.f_code.co_name))
        tb = tb.tb_next
    return out


def run_until_error(path, argv=(), *, probe=None, stop_at_error=True) -> RunOutcome:
    """Run ``path`` (cell by cell when it has ``# %%`` markers, or a notebook's code cells)
    in the engine with ``probe`` on the engine's listeners; stop at the first exception
    unless ``stop_at_error`` is False. Raises ScriptError when the script cannot be read."""
    try:
        program = scripting.load_program(path)
    except scripting.ScriptError as e:
        raise ScriptError(str(e)) from None
    code_path = program.code_path
    probe = probe if probe is not None else Probe()
    out = RunOutcome(path=path, code_path=code_path, source=program.text, probe=probe, program=program)
    buf = io.StringIO()
    with scripting.script_session(path, argv, ENGINE, 0) as (engine, nn, ns), scripting.source_lines(program):
        from gradviz.torch.autograd import graph
        if program.notebook:
            ns.setdefault("display", scripting.display)
        from gradviz.inspect.grad_reasons import Reach

        probe.attach(ns, code_path, program.text)
        graph.LISTENERS.append(probe)
        out.reach = Reach(engine, real=False)
        try:
            with out.reach, contextlib.redirect_stdout(buf), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                for cell in program.cells:
                    try:
                        try:
                            scripting.run_cell(cell, ns, path, code_path)
                        except scripting.CompileError as ce:
                            raise ce.shown from None
                    except SystemExit as e:
                        if e.code not in (None, 0):
                            out.exc = e
                            out.cell = cell.index
                        break
                    except Exception as e:  # noqa: BLE001 - the script's error is what we diagnose
                        if out.exc is None:
                            out.exc = e
                            out.cell = cell.index
                            frame, line = _innermost_user_frame(e.__traceback__, code_path)
                            out.error_line = line if line is not None else getattr(e, "lineno", None)
                            out.frames = _frames(e.__traceback__)
                            if frame is not None and frame.f_locals is not frame.f_globals:
                                out.frame_locals = dict(frame.f_locals)
                            out.error_traceback = _format_tb(e, program)
                        if stop_at_error:
                            break
                    finally:
                        probe.flush_cell()
            for w in caught:
                out.warnings.append(CaughtWarning(w.category.__name__, str(w.message), w.filename, w.lineno))
        finally:
            for i, x in enumerate(graph.LISTENERS):
                if x is probe:
                    del graph.LISTENERS[i]
                    break
            probe.detach()
        out.namespace = ns
    out.stdout = buf.getvalue()
    return out


def _format_tb(exc, program):
    """The user's traceback: gradviz's frames left out, places named as the user knows them."""
    te = traceback.TracebackException(type(exc), exc, exc.__traceback__)
    te.__cause__ = te.__context__ = None
    scripting.strip_internal(te, [scripting.GRADVIZ_DIR], program)
    return "".join(te.format())
