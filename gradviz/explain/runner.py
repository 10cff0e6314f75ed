"""Run a script in gradviz's engine until its first error, with a :class:`Probe` listening.

The interpreter juggling (``import torch`` -> ``gradviz.torch``, argv, cwd, ``__main__``,
grad mode ...) is borrowed from :mod:`gradviz.scripting` when it is there; otherwise a
minimal stand-in below does the same and undoes it afterwards.

Unlike ``scripting.run_script`` this keeps what a diagnosis needs and plain data cannot
carry: the exception object (with ``gradviz_id`` / ``gradviz_context``), the locals of the
user's innermost frame, the namespace, and every warning raised (not filtered).
"""
import contextlib
import importlib
import io
import os
import sys
import traceback
import types
import warnings
from dataclasses import dataclass, field
from typing import Any, Optional

from .probe import Probe

ENGINE = "gradviz.torch"
_GRADVIZ_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

try:  # the shared runner, when it exists
    from gradviz import scripting as _scripting
    _HAVE_SCRIPTING = all(hasattr(_scripting, n) for n in ("_session", "split_cells", "read_source", "_run_cell"))
except ImportError:  # pragma: no cover - scripting.py is part of the project
    _scripting = None
    _HAVE_SCRIPTING = False


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

    @property
    def lines(self):
        return self.source.splitlines()

    def line_text(self, lineno):
        lines = self.lines
        if lineno and 1 <= lineno <= len(lines):
            return lines[lineno - 1].strip()
        return ""

    def scope(self):
        """Names visible where the error happened: frame locals over module globals."""
        d = dict(self.namespace)
        d.update(self.frame_locals)
        return d


# --------------------------------------------------------------------------- fallback session


class _AliasFinder:
    def __init__(self, engine):
        self.engine = engine

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real = self.engine + fullname[len("torch"):]
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError:
            return None
        import importlib.machinery

        class _Loader:
            def create_module(self, spec):
                return module

            def exec_module(self, mod):
                pass

        return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=hasattr(module, "__path__"))


@contextlib.contextmanager
def _minimal_session(path, argv):
    """sys.modules['torch'] -> gradviz.torch (and torch.X), restored afterwards."""
    engine = importlib.import_module(ENGINE)
    nn = importlib.import_module(ENGINE + ".nn")
    saved = {k: sys.modules.pop(k) for k in list(sys.modules) if k == "torch" or k.startswith("torch.")}
    saved_argv, saved_path, saved_cwd = sys.argv, list(sys.path), os.getcwd()
    saved_main = sys.modules.get("__main__")
    saved_grad, saved_dtype = engine.is_grad_enabled(), engine.get_default_dtype()
    finder = _AliasFinder(ENGINE)
    for k, mod in list(sys.modules.items()):
        if k == ENGINE or k.startswith(ENGINE + "."):
            sys.modules["torch" + k[len(ENGINE):]] = mod
    sys.meta_path.insert(0, finder)
    main = types.ModuleType("__main__")
    main.__file__ = os.path.abspath(path)
    sys.modules["__main__"] = main
    sys.argv = [path, *argv]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    engine.manual_seed(0)
    try:
        yield engine, nn, main.__dict__
    finally:
        engine.set_grad_enabled(saved_grad)
        engine.set_default_dtype(saved_dtype)
        os.chdir(saved_cwd)
        sys.argv = saved_argv
        sys.path[:] = saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
        while finder in sys.meta_path:
            sys.meta_path.remove(finder)
        for k in list(sys.modules):
            if k == "torch" or k.startswith("torch."):
                del sys.modules[k]
        sys.modules.update(saved)


def _read(path):
    if _HAVE_SCRIPTING:
        try:
            return _scripting.read_source(path)
        except _scripting.ScriptError as e:
            raise ScriptError(str(e)) from None
    if not os.path.isfile(path):
        raise ScriptError(f"no such file: '{path}'")
    with open(path, encoding="utf-8") as f:
        return f.read()


def _cells(src):
    if _HAVE_SCRIPTING:
        return [(c.code_line, c.source) for c in _scripting.split_cells(src)]
    return [(1, src)]


def _exec_cell(code_line, source, ns, path, code_path):
    if _HAVE_SCRIPTING:
        cell = _scripting.Cell(0, code_line, source, code_line)
        try:
            _scripting._run_cell(cell, ns, path, code_path)
        except _scripting._CompileError as ce:
            raise ce.shown from None
        return
    code = compile("\n" * (code_line - 1) + source, code_path, "exec", dont_inherit=True)
    exec(code, ns)


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
    """Run ``path`` (cell by cell when it has ``# %%`` markers) in the engine with ``probe``
    on the engine's listeners; stop at the first exception unless ``stop_at_error`` is False.
    Raises ScriptError when the script cannot be read."""
    src = _read(path)
    code_path = os.path.abspath(path)
    probe = probe if probe is not None else Probe()
    out = RunOutcome(path=path, code_path=code_path, source=src, probe=probe)
    session = None
    if _HAVE_SCRIPTING:
        try:
            session = _scripting._session(path, argv, ENGINE, 0)
        except TypeError:  # the shared runner changed its signature: use ours
            session = None
    if session is None:
        session = _minimal_session(path, argv)
    buf = io.StringIO()
    with session as (engine, nn, ns):
        from gradviz.torch.autograd import graph
        probe.attach(ns, code_path, src)
        graph.LISTENERS.append(probe)
        try:
            with contextlib.redirect_stdout(buf), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                for index, (code_line, source) in enumerate(_cells(src)):
                    try:
                        _exec_cell(code_line, source, ns, path, code_path)
                    except SystemExit as e:
                        if e.code not in (None, 0):
                            out.exc = e
                            out.cell = index
                        break
                    except Exception as e:  # noqa: BLE001 - the script's error is what we diagnose
                        if out.exc is None:
                            out.exc = e
                            out.cell = index
                            frame, line = _innermost_user_frame(e.__traceback__, code_path)
                            out.error_line = line if line is not None else getattr(e, "lineno", None)
                            out.frames = _frames(e.__traceback__)
                            if frame is not None and frame.f_locals is not frame.f_globals:
                                out.frame_locals = dict(frame.f_locals)
                            out.error_traceback = _format_tb(e, code_path, path)
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


def _format_tb(exc, code_path, shown):
    te = traceback.TracebackException(type(exc), exc, exc.__traceback__)
    frames = [f for f in te.stack if not os.path.abspath(f.filename).startswith(_GRADVIZ_DIR + os.sep)]
    for f in frames:
        f.line  # noqa: B018 - read the source now
        if f.filename == code_path:
            f.filename = shown
    te.stack = traceback.StackSummary.from_list(frames)
    te.__cause__ = te.__context__ = None
    return "".join(te.format())
