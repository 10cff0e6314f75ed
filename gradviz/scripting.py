"""Run a user's script against gradviz's engine, notebook style, and return plain data.

``run_script(path)`` runs a PyTorch-style script with ``import torch`` (and every
``torch.X`` that exists as ``gradviz.torch.X``) resolving to ``gradviz.torch``.  The
aliasing, like every other change to the interpreter (``sys.argv``, ``sys.path[0]``,
the working directory, ``__main__``, the engine's default dtype and grad mode), lasts
only for the run and is undone afterwards, even when the script raised.

The script is split into cells on lines starting with ``# %%`` and run with the
semantics of ``conformance/README.md`` (the same as its ``record.py``):

- all cells share one namespace, in which ``__name__ == "__main__"``;
- an exception ends its cell only; the next cell still runs;
- a trailing bare expression has its ``repr`` printed;
- warnings are shown as Python shows them, at the user's line, once per place
  (``script_warnings``), and kept in their cell's result;
- after every cell the named tensors of the namespace are snapshotted.

``timeout=`` stops a script that runs too long (``ScriptTimeout``, raised in the
script by SIGALRM or a watchdog thread, recorded as the cell's ``TimeoutError``), and
``catch_interrupt=True`` records Ctrl-C the same way: the run ends, and what ran is
still in the result (``RunResult.stopped``). ``around=`` lets a caller wrap the cells in
its own context manager, inside the run's session (``gradviz run --graph`` records the
graph with it). ``read_source`` refuses directories, binary files and undecodable
text with a one-line ``ScriptError``.

The results are frozen dataclasses of plain Python values (no engine objects), so the
renderers (``gradviz.render``) never touch the engine.  This module imports neither
click nor rich, and imports the engine only when a script is run.
"""

import ast
import bisect
import contextlib
import dataclasses
import errno
import functools
import importlib
import importlib.abc
import importlib.machinery
import io
import os
import stat
import sys
import tokenize
import traceback
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from gradviz.script_warnings import WarningCatcher

#: The module that ``import torch`` resolves to during a run.
ENGINE = "gradviz.torch"
#: The name a script imports the engine by.
ALIAS = "torch"
#: A cell starts at every line that starts with this marker.
CELL_MARKER = "# %%"
#: The engine's random seed at the start of every run, for repeatable output.
SEED = 0
#: How much of a script is read to tell a binary file (a NUL byte) from a text one.
BINARY_SNIFF = 8192
#: The most bytes of a script or notebook read: anything larger (or a device such as
#: /dev/zero) is refused before it is decoded.
MAX_SOURCE_BYTES = 64 * 1024 * 1024

GRADVIZ_DIR = os.path.dirname(os.path.abspath(__file__))

# the namespace's tensors as plain data, kept in their own module; the runner's users read them here too
from .tensor_records import (  # noqa: E402,F401
    FULL_LIMIT, MAX_SEQUENCE, MAX_TENSORS, Snapshots, Stats, Tensors, TensorInfo, Values, changed_tensors,
    named_tensors, snapshot, tensor_info)
# time limits, in their own module; ``scripting.deadline`` and ``ScriptTimeout`` stay valid
from .deadline import Deadline, ScriptTimeout, deadline  # noqa: E402,F401


class ScriptError(Exception):
    """The script cannot be run at all (missing, a directory, unreadable, undecodable).

    A usage problem, not an error raised by the script: the CLI reports it in one line.
    """


class OutputClosed(BaseException):
    """Raised inside the script when its output cannot be written: whoever reads it went
    away (``gradviz run s.py | head -1``: ``error`` is None and the run stops quietly, as the
    script itself would under a shell), or the device failed (``> /dev/full``: ``error`` is
    the OSError). A BaseException, so the script's own ``except Exception`` does not take
    it for its own."""

    def __init__(self, error: Optional[OSError] = None):
        super().__init__(error)
        self.error = error


# --------------------------------------------------------------------------- results








@dataclass(frozen=True)
class CellError:
    """What a cell raised."""

    type: str  # e.g. "RuntimeError"
    message: str  # str(exception), verbatim
    traceback: str  # the user's traceback, gradviz's own frames removed
    line: Optional[int]  # the script line the error was raised at, when known
    hint: str = ""  # a PyTorch name the engine lacks: gradviz's gap, and how to run anyway (missing_api)


@dataclass(frozen=True)
class Cell:
    """A cell of a script's source, or a code cell of a notebook."""

    index: int  # 0-based
    line: int  # first line of the cell (1-based), counted as record.py counts it; 1 in a notebook
    source: str
    code_line: int  # where its code starts in the program's line numbering (Python's tokenizer's count)
    label: str = ""  # how people name it: 'cell 3', or a notebook's 'In [5]'
    quiet: bool = False  # a notebook cell ending in ';': no value is shown
    text: str = ""  # as written, when that is not ``source`` (a notebook's IPython lines)

    @property
    def written(self) -> str:
        return self.text or self.source

    @property
    def name(self) -> str:
        return self.label or f"cell {self.index + 1}"


@dataclass(frozen=True)
class Program:
    """What gradviz runs: a script's cells, or a notebook's code cells.

    ``text`` is the code gradviz numbers lines by: the script itself, or a notebook's
    code cells one after the other (tracebacks and diagnoses read it through linecache).
    People see a script's lines as they are and a notebook's by cell: ``where(line)``.
    """

    path: str  # as the user gave it ("" for a Jupyter cell, which has no file)
    text: str
    cells: tuple  # of Cell
    notebook: bool = False
    notes: tuple = ()  # one line per IPython-only line set aside
    code_file: Optional[str] = None  # the name its code is compiled under: the absolute path when loaded

    @property
    def code_path(self) -> str:
        # fixed when the program is loaded: the script may change directory as it runs
        return self.code_file or os.path.abspath(self.path)

    def frame_place(self, line: int) -> tuple:
        """(file name, line) a traceback shows for a line of the program's code."""
        label, local = self.where(line)
        if not label:
            return self.path, line
        return (f"{self.path}, {label}" if self.path else label), local

    @functools.cached_property
    def _starts(self) -> list:
        return [cell.code_line for cell in self.cells]

    def cell_at(self, line: int) -> Optional[Cell]:
        """The cell holding program line ``line``. A binary search: every warning, traceback
        frame and recorded op of a notebook asks, and a scan would make n cells cost n * n."""
        k = bisect.bisect_right(self._starts, line)
        return self.cells[k - 1] if k else None

    def where(self, line: Optional[int]) -> tuple:
        """(cell label or None, line as people see it) of program line ``line``."""
        if not self.notebook or not line:
            return None, line
        cell = self.cell_at(line)
        return (cell.name, line - cell.code_line + 1) if cell is not None else (None, line)

    def describe(self, line: Optional[int]) -> str:
        """'line 9' in a script; 'In [5], line 3' in a notebook."""
        label, local = self.where(line)
        return f"{label}, line {local}" if label else f"line {local}"

    def site(self, site):
        """A place in the user's code as pictures name it: ('In [5]', 3) for a notebook's."""
        if not self.notebook or not site or site[0] != self.code_path:
            return site
        label, local = self.where(site[1])
        return (label, local) if label else site


@dataclass(frozen=True)
class CellResult:
    index: int
    line: int
    source: str
    stdout: str
    error: Optional[CellError]
    tensors: tuple  # of TensorInfo, the namespace after the cell
    label: str = ""  # a notebook cell's 'In [5]'
    warnings: tuple = ()  # of script_warnings.CellWarning, in the order they were raised

    @property
    def number(self) -> int:
        """1-based cell number, for people."""
        return self.index + 1

    @property
    def name(self) -> str:
        return self.label or f"cell {self.number}"


@dataclass
class RunResult:
    script: str  # the path as given
    cells: list = field(default_factory=list)  # of CellResult, in order
    total_cells: int = 0  # cells in the script; more than len(cells) if it called sys.exit()
    stopped: Optional[str] = None  # None, or why the run ended early: "exit", "timeout", "interrupt", "error"
    notebook: bool = False  # a notebook: cells are named 'In [5]', lines counted in each cell
    notes: tuple = ()  # the notebook's IPython-only lines that were set aside

    @property
    def errors(self) -> list:
        return [c for c in self.cells if c.error is not None]

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def tensors(self) -> tuple:
        """The named tensors after the last cell that ran."""
        return self.cells[-1].tensors if self.cells else ()


# --------------------------------------------------------------------------- cells


def is_notebook(path: str) -> bool:
    return path.lower().endswith(".ipynb")


def pipe_kind(mode: int) -> str:
    """'a FIFO (named pipe)' or 'a socket' for an ``st_mode`` that is one, else ''. Reading
    either waits for a writer that may never come: such a path is refused before opening."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    return "a socket" if stat.S_ISSOCK(mode) else ""


def _read_bytes(path: str, kind: str) -> bytes:
    """The bytes of a 'script' or 'notebook' that is there, readable and not binary."""
    try:
        mode = os.stat(path).st_mode  # not open(): opening a FIFO waits for a writer, forever
    except FileNotFoundError:
        raise ScriptError(f"no such file: '{path}'") from None
    except OSError as e:
        raise ScriptError(f"cannot read '{path}': {e.strerror or e}") from None
    if stat.S_ISDIR(mode):
        raise ScriptError(f"'{path}' is a directory, not a {kind}")
    what = pipe_kind(mode)
    if what:
        raise ScriptError(f"'{path}' is {what}, not a {kind}: gradviz reads regular files only")
    try:
        # non-blocking: a device that would wait for input (a terminal) answers at once
        with os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as f:
            data = f.read(BINARY_SNIFF)
            if b"\x00" not in data:
                data += f.read(max(0, MAX_SOURCE_BYTES + 1 - len(data)))
    except OSError as e:
        raise ScriptError(f"cannot read '{path}': {e.strerror or e}") from None
    if len(data) > MAX_SOURCE_BYTES:
        limit = f"{MAX_SOURCE_BYTES >> 20} MiB" if MAX_SOURCE_BYTES >= 1 << 20 else f"{MAX_SOURCE_BYTES:,} bytes"
        raise ScriptError(f"'{path}' is larger than {limit}: not a {kind} gradviz will read")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ScriptError(f"cannot decode '{path}': it is UTF-16 text; save it as UTF-8")
    if b"\x00" in data[:BINARY_SNIFF]:
        raise ScriptError(f"'{path}' is a binary file, not a {'Python script' if kind == 'script' else kind}")
    return data


def load_program(path: str) -> Program:
    """The script or notebook at ``path``, split into cells (ScriptError if it cannot be)."""
    if not is_notebook(path):
        text = read_source(path)
        cells = tuple(Cell(c.index, c.line, c.source, c.code_line, f"cell {c.index + 1}")
                      for c in split_cells(text))
        return Program(path, text, cells, code_file=os.path.abspath(path))
    from gradviz import notebook

    try:
        nb_cells = notebook.read_notebook(path, _read_bytes(path, "notebook"))
    except notebook.NotebookError as e:
        raise ScriptError(str(e)) from None
    cells, chunks, notes = [], [], []
    line = 1
    for k, nc in enumerate(nb_cells):
        source = nc.source if nc.source.endswith("\n") else nc.source + "\n"
        cells.append(Cell(k, 1, source, line, nc.label, nc.quiet, nc.text if nc.text != nc.source else ""))
        chunks.append(source)
        line += source.count("\n")
        notes.extend(x.note(nc.label) for x in nc.set_aside)
    return Program(path, "".join(chunks), tuple(cells), notebook=True, notes=tuple(notes),
                   code_file=os.path.abspath(path))


def read_source(path: str) -> str:
    """The script's text (universal newlines; PEP 263 coding cookies honoured)."""
    data = _read_bytes(path, "script")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:  # no cookie and not UTF-8, or a bad cookie
        msg = getattr(e, "msg", None) or str(e)
        if "invalid or missing encoding declaration" in msg:
            encoding = "utf-8"  # decoded below, for a message with the offending byte
        else:
            raise ScriptError(f"cannot decode '{path}': {msg}") from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        raise ScriptError(
            f"cannot decode '{path}': it is not {_encoding_name(e.encoding)} text (byte "
            f"0x{e.object[e.start]:02x} at offset {e.start}); save it as UTF-8 or declare its "
            "encoding in a '# -*- coding: NAME -*-' first line") from None
    except LookupError as e:
        raise ScriptError(f"cannot decode '{path}': {e}") from None
    if "\x00" in text:  # a NUL past the first block
        raise ScriptError(f"'{path}' is a binary file, not a Python script")
    return text.replace("\r\n", "\n").replace("\r", "\n")  # universal newlines, as open() reads


def _encoding_name(codec: str) -> str:
    return {"utf-8": "UTF-8", "utf-8-sig": "UTF-8"}.get(codec.lower(), codec)


def split_cells(src: str) -> list:
    """Split on lines starting with ``# %%``, exactly as record.py does.

    Cells holding only whitespace are dropped; a script without markers is one cell.
    """
    cells = []
    cur: list = []
    start = code_start = 1
    code_line = 1  # Python's own line count: str.splitlines also splits on \f, \x1c, ...
    for i, line in enumerate(src.splitlines(keepends=True), 1):
        if line.startswith(CELL_MARKER):
            if "".join(cur).strip():
                cells.append(Cell(len(cells), start, "".join(cur), code_start))
            cur, start = [], i + 1
            code_start = code_line + line.count("\n")
        else:
            cur.append(line)
        code_line += line.count("\n")
    if "".join(cur).strip():
        cells.append(Cell(len(cells), start, "".join(cur), code_start))
    return cells


# --------------------------------------------------------------------------- snapshot






















# --------------------------------------------------------------------------- tracebacks


def _is_internal(filename: str, internal_dirs: Sequence[str]) -> bool:
    if filename.startswith("<frozen importlib"):
        return True
    path = os.path.abspath(filename)
    return any(path.startswith(d + os.sep) for d in internal_dirs)


def strip_internal(te: traceback.TracebackException, internal_dirs: Sequence[str],
                    program: "Program") -> None:
    """Drop gradviz's (and the engine's) frames from a traceback and its chain, in place;
    show the program's frames as the user knows them: the path they gave, and a
    notebook's lines by cell (``demo.ipynb, In [5]``, line 3)."""
    seen = set()
    todo = [te]
    while todo:
        cur = todo.pop()
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        frames = [f for f in cur.stack if not _is_internal(f.filename, internal_dirs)]
        for f in frames:
            f.line  # noqa: B018 - read the source line now, under its real file name and line
            _relocate(f, program)
        cur.stack = traceback.StackSummary.from_list(frames)
        for attr in ("__cause__", "__context__"):
            nxt = getattr(cur, attr, None)
            if nxt is None:
                continue
            if nxt.stack and all(_is_internal(f.filename, internal_dirs) for f in nxt.stack):
                # an implementation detail of the engine, not the user's business
                setattr(cur, attr, None)
                if attr == "__context__":
                    cur.__suppress_context__ = True
            else:
                todo.append(nxt)


def format_error(exc: BaseException, program: "Program", internal_dirs: Sequence[str]) -> CellError:
    """The error as recorded: type, str(), the user's traceback and line.

    The program's code was compiled under its absolute path (``code_path``), so source
    lines are found even if the script changed directory; tracebacks show the path the
    user gave, and the line as the user sees it (in a notebook, the line of the cell).
    """
    te = traceback.TracebackException(type(exc), exc, exc.__traceback__, compact=True)
    line = None
    for f in reversed(te.stack):
        if f.filename == program.code_path:
            line = program.where(f.lineno)[1]
            break
    strip_internal(te, internal_dirs, program)
    from .missing_api import hint

    return CellError(type=type(exc).__name__, message=str(exc), traceback="".join(te.format()),
                     line=line, hint=hint(exc))


# --------------------------------------------------------------------------- import aliasing


def _is_alias(name: str) -> bool:
    return name == ALIAS or name.startswith(ALIAS + ".")


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system an already-imported engine module."""

    def __init__(self, module: types.ModuleType):
        self.module = module
        self.spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # the import system stamped our alias spec onto the module: give it its own back
        if self.spec is not None:
            module.__spec__ = self.spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    """``torch`` -> ``gradviz.torch``, ``torch.X.Y`` -> ``gradviz.torch.X.Y``."""

    def __init__(self, engine: str):
        self.engine = engine

    def find_spec(self, fullname, path=None, target=None):
        if not _is_alias(fullname):
            return None
        real = self.engine + fullname[len(ALIAS):]
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as e:
            if e.name == real:
                return None  # "No module named 'torch.X'", as for any missing module
            raise
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(module), is_package=hasattr(module, "__path__"))


MAX_KEPT_STDOUT = 1_000_000  # characters of a cell's output kept for --json / --html


class _KeptOutput(io.TextIOBase):
    """A cell's output as kept for its result: the first ``limit`` characters, and how
    many more there were."""

    def __init__(self, limit: int):
        self._parts, self._kept, self._limit, self.dropped = [], 0, limit, 0

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        room = self._limit - self._kept
        if room > 0:
            part = s[:room]
            self._parts.append(part)
            self._kept += len(part)
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)

    def getvalue(self) -> str:
        text = "".join(self._parts)
        if self.dropped and self._limit:
            text += f"\n[gradviz kept the first {self._limit:,} characters of this output: {self.dropped:,} more not kept]\n"
        return text


class _StdFds:
    """Copies of file descriptors 1 and 2 as the run began. A script that closes them
    (``os.close(1)``) closes its own stdout and stderr, not gradviz's: they are put back
    where gradviz writes next (when a cell ends, or when passing output through fails),
    so the script's later output, its errors and the table still reach the user."""

    def __init__(self):
        self._copies = {}
        for fd in (1, 2):
            try:
                self._copies[fd] = os.dup(fd)  # not inherited by what the script starts
            except OSError:
                pass

    def reclaim(self) -> bool:
        """Put back those the script closed; whether there were any."""
        put = False
        for fd, copy in self._copies.items():
            try:
                os.fstat(fd)
            except OSError as e:
                if e.errno == errno.EBADF:
                    os.dup2(copy, fd)
                    put = True
        return put

    def close(self) -> None:
        for copy in self._copies.values():
            os.close(copy)
        self._copies = {}


class _Tee(io.TextIOBase):
    """The cell's stdout: kept for the result, and passed through as it is written."""

    def __init__(self, buf: "_KeptOutput", out, before_write=None, reclaim=None):
        self._buf, self._out, self._before = buf, out, before_write
        self._reclaim = reclaim

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        self._buf.write(s)
        if self._before is not None:
            self._before()
        try:
            self._out.write(s)
        except BrokenPipeError:
            raise OutputClosed() from None
        except OSError as e:
            if not self._closed_by_script(e):
                raise OutputClosed(e) from None
            self.flush()  # the text is in the stream's buffer already: written, not repeated
        return len(s)

    def flush(self) -> None:
        try:
            self._out.flush()
        except BrokenPipeError:
            raise OutputClosed() from None
        except OSError as e:
            if not self._closed_by_script(e):
                raise OutputClosed(e) from None
            self.flush()

    def _closed_by_script(self, e: OSError) -> bool:
        """fd 1 was closed by the script (EBADF, and nothing else can cause it here): put back."""
        return e.errno == errno.EBADF and self._reclaim is not None and self._reclaim()


@contextlib.contextmanager
def script_session(script: str, argv: Sequence[str], engine_name: str, seed: Optional[int]):
    """Everything a run changes in the interpreter, changed and changed back."""
    engine = importlib.import_module(engine_name)  # before anything is changed
    nn = importlib.import_module(engine_name + ".nn")
    script_dir = os.path.dirname(os.path.abspath(script))
    saved_argv = sys.argv
    saved_path = list(sys.path)
    saved_cwd = os.getcwd()
    saved_main = sys.modules.get("__main__")
    saved_keys = set(sys.modules)
    # the engine's own modules, which a script may replace or hide (sys.modules["torch"] =
    # None): put back before anything of gradviz's, or PyTorch's own code, imports them again
    saved_engine = {k: m for k, m in sys.modules.items() if k == engine_name or k.startswith(engine_name + ".")}
    saved_dtype = engine.get_default_dtype()
    saved_grad = engine.is_grad_enabled()
    try:
        main = types.ModuleType("__main__")
        main.__file__ = os.path.abspath(script)  # as Python (3.9+) sets it
        sys.modules["__main__"] = main
        sys.argv = [script, *argv]
        sys.path.insert(0, script_dir)
        engine.set_default_dtype(engine.float32)
        engine.set_grad_enabled(True)
        # Each run is a fresh "process" for PyTorch's warn-once messages.
        getattr(engine, "_reset_warnings_once", lambda: None)()
        if seed is not None:
            engine.manual_seed(seed)
        with torch_alias(engine_name):
            yield engine, nn, main.__dict__
    finally:
        _undo = []  # run every step even if one fails; re-raise the first failure

        def step(fn, *args):
            try:
                fn(*args)
            except Exception as e:  # noqa: BLE001
                _undo.append(e)

        for name, module in saved_engine.items():
            if sys.modules.get(name) is not module:
                sys.modules[name] = module
        step(engine.set_default_dtype, saved_dtype)
        step(engine.set_grad_enabled, saved_grad)
        step(os.chdir, saved_cwd)
        sys.argv = saved_argv
        sys.path[:] = saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
        else:
            sys.modules.pop("__main__", None)
        for k in list(sys.modules):
            if k in saved_keys or any(k == p or k.startswith(p + ".") for p in ("gradviz", engine_name)):
                continue
            # a module of the script's own folder, imported by the script: it may
            # hold the aliased engine, so it goes with the run
            f = getattr(sys.modules[k], "__file__", None)
            if isinstance(f, str) and os.path.abspath(f).startswith(script_dir + os.sep):
                del sys.modules[k]
        if _undo:
            raise _undo[0]


@contextlib.contextmanager
def torch_alias(engine_name: str = ENGINE):
    """While active, ``import torch`` (and ``torch.X``) gives ``engine_name``'s modules;
    a real torch the process had imported is hidden, and put back afterwards."""
    if engine_name == ALIAS:  # real PyTorch itself: nothing to alias
        yield
        return
    hidden = {k: sys.modules.pop(k) for k in list(sys.modules) if _is_alias(k)}
    for k, mod in list(sys.modules.items()):
        if mod is not None and (k == engine_name or k.startswith(engine_name + ".")):
            sys.modules[ALIAS + k[len(engine_name):]] = mod
    finder = _AliasFinder(engine_name)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        while finder in sys.meta_path:
            sys.meta_path.remove(finder)
        for k in list(sys.modules):
            if _is_alias(k):
                del sys.modules[k]
        sys.modules.update(hidden)


# --------------------------------------------------------------------------- running


def _record_style_compile_error(src: str, fname: str) -> Optional[BaseException]:
    """The error record.py's own compile steps raise for this cell (cell-relative lines)."""
    try:
        tree = ast.parse(src)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        compile(tree, fname, "exec", dont_inherit=True)
        if last is not None:
            compile(last, fname, "eval", dont_inherit=True)
    except Exception as e:  # noqa: BLE001
        return e
    return None


def run_cell(cell: Cell, ns: dict, script: str, code_path: str, show: Callable = None) -> None:
    """Exec the cell; print the repr of a trailing bare expression (record.py's run_cell).

    Code objects carry the script's absolute path and real line numbers, so tracebacks
    point into the file.  ``script`` (the path as given) is what record.py compiles with:
    compile errors are reported in its terms. ``show(value)`` shows the last expression's
    value (Jupyter displays it rather than printing its repr).
    """
    try:
        tree = _parse_at(cell.source, cell.code_line, code_path)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        body = compile(tree, code_path, "exec", dont_inherit=True)
    except Exception as e:  # noqa: BLE001
        raise CompileError(e, _record_style_compile_error(cell.source, script)) from None
    exec(body, ns)
    if last is not None:
        try:
            code = compile(last, code_path, "eval", dont_inherit=True)
        except Exception as e:  # noqa: BLE001
            raise CompileError(e, _record_style_compile_error(cell.source, script)) from None
        val = eval(code, ns)
        if val is not None and not cell.quiet:
            (show or _print_repr)(val)


def _parse_at(source: str, first_line: int, code_path: str) -> ast.Module:
    """``source`` parsed as the lines from ``first_line`` of the program.

    Parsed alone and moved down, not parsed after ``first_line - 1`` blank lines: the
    parser reads every one of those lines, so 20,000 cells cost 20,000 x 20,000 lines.
    A cell that does not parse, or whose parsing warns (an invalid escape sequence), is
    parsed again the old way, so its error or warning names the same line as before."""
    import warnings

    if first_line > 1:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                tree = ast.parse(source, code_path)
        except Exception:  # noqa: BLE001 - parsed again below, for the error as it was
            caught = True
        if not caught:
            return ast.increment_lineno(tree, first_line - 1)
    return ast.parse("\n" * (first_line - 1) + source, code_path)


def _print_repr(value) -> None:
    print(repr(value))


class CompileError(Exception):
    """A cell that does not compile: the error to show, and the one record.py would report."""

    def __init__(self, shown: BaseException, recorded: Optional[BaseException]):
        super().__init__(str(shown))
        self.shown = shown
        self.recorded = recorded if type(recorded) is type(shown) else shown


def run_script(
    path: "str | Program",
    argv: Sequence[str] = (),
    *,
    echo: bool = True,
    on_cell: Optional[Callable[[CellResult], None]] = None,
    progress: Any = None,
    engine: Optional[str] = None,
    seed: Optional[int] = SEED,
    timeout: Optional[float] = None,
    catch_interrupt: bool = False,
    around: Optional[Callable[[dict], Any]] = None,
    stop_at_error: bool = False,
    keep_stdout: int = MAX_KEPT_STDOUT,
    keep_tables: bool = True,
) -> RunResult:
    """Run the script or notebook at ``path`` (or a loaded Program) cell by cell and
    return what happened, as plain data.

    echo:    also pass the script's stdout through to ``sys.stdout`` as it is printed.
    on_cell: called with each CellResult as soon as its cell has run (outside the
             cell's stdout capture), e.g. to print a table per cell.
    progress: told ``cell(cell, total)`` as each cell starts, ``clear()`` before the cell
             writes output, ``done()`` as it ends (a terminal status line: commands.progress).
    engine:  the module ``import torch`` resolves to; default ENGINE (``"torch"``: real
             PyTorch, no aliasing; the tests use it as an oracle).
    seed:    passed to the engine's ``manual_seed`` before the first cell.
    timeout: seconds the cells may run in all; then ScriptTimeout is raised inside the
             script, recorded as the cell's error (type ``TimeoutError``), and the run
             stops (``result.stopped == "timeout"``). What ran is still in the result.
    catch_interrupt: record a KeyboardInterrupt (Ctrl-C) as the cell's error and stop
             (``result.stopped == "interrupt"``) instead of letting it propagate.
    around:  ``around(namespace)`` returns a context manager that is entered, inside the
             run's session, before the first cell and left after the last one (e.g. to
             record the graph). Its own exceptions propagate.
    stop_at_error: end the run after the first cell that raised (``stopped == "error"``).
    keep_stdout: characters of each cell's output kept in its CellResult (the rest is
             counted, not kept: a script printing gigabytes must not hold them); 0 when
             nothing needs them (the output is still passed through with ``echo``).
    keep_tables: keep every cell's named tensors in its CellResult; False keeps only the
             last cell's (the earlier ones are given to ``on_cell`` and then emptied), so a
             run that needs no table per cell keeps memory linear in its cells.

    Raises ScriptError when the script cannot be read.  Exceptions the script raises end
    their cell and are recorded; only KeyboardInterrupt (and the like) propagate, after
    the interpreter has been restored.  ``sys.exit()`` in the script ends the run: a
    non-zero status is recorded as the cell's error.
    """
    engine = engine or ENGINE
    program = path if isinstance(path, Program) else load_program(path)
    path = program.path
    result = RunResult(script=path, total_cells=len(program.cells), notebook=program.notebook,
                       notes=program.notes)
    real_stdout = sys.stdout
    limit = Deadline(timeout)
    std_fds = _StdFds()
    with script_session(path, argv, engine, seed) as (eng, nn, ns), source_lines(program), contextlib.closing(std_fds):
        if program.notebook:
            ns.setdefault("display", display)
        internal = _internal_dirs(eng, engine)
        tensor_type = eng.Tensor
        module_type = getattr(nn, "Module", None)
        catcher = WarningCatcher(program, internal, sys.stderr if echo else None)
        with (around(ns) if around is not None else contextlib.nullcontext()), catcher.catching():
            limit.start()
            builtins_of = _BuiltinsKeeper()
            snapshots = Snapshots()  # unchanged tensors keep their TensorInfo from cell to cell
            try:
                for cell in program.cells:
                    builtins_of.script()
                    buf = _KeptOutput(keep_stdout)
                    if progress is not None:
                        progress.cell(cell, len(program.cells))
                    out = _Tee(buf, real_stdout, progress and progress.clear, std_fds.reclaim) if echo else buf
                    with contextlib.redirect_stdout(out):
                        error, stop = _run_cell_caught(cell, ns, program, limit, internal, timeout=timeout,
                                                       catch_interrupt=catch_interrupt)
                    builtins_of.gradviz()  # the script may have patched print, len...: not for our code
                    std_fds.reclaim()  # and closed fd 1 or 2: gradviz still writes there
                    if progress is not None:
                        progress.done()
                    tensors = snapshots.take(ns, tensor_type, module_type)
                    res = CellResult(cell.index, cell.line, cell.source, buf.getvalue(), error,
                                     tensors, cell.label if program.notebook else "", catcher.take())
                    if not keep_tables and result.cells:
                        # every table lists every name: n cells would keep n x names references
                        result.cells[-1] = dataclasses.replace(result.cells[-1], tensors=Tensors())
                    result.cells.append(res)
                    if on_cell is not None:
                        on_cell(res)
                    if stop is None and error is not None and stop_at_error:
                        stop = "error"
                    if stop:
                        result.stopped = stop
                        break
            finally:
                builtins_of.gradviz()
                limit.stop()
    return result


def _internal_dirs(eng, engine_name: str) -> list:
    """The folders whose frames are gradviz's or the engine's, not the user's: tracebacks
    and warnings are cut to the user's own frames."""
    internal = [GRADVIZ_DIR, os.path.dirname(os.path.abspath(eng.__file__))]
    numpy = sys.modules.get("numpy")
    if engine_name == ENGINE and numpy is not None and getattr(numpy, "__file__", None):
        # the engine's numpy calls are its implementation, not the user's code
        internal.append(os.path.dirname(os.path.abspath(numpy.__file__)))
    return internal


def _run_cell_caught(cell: Cell, ns: dict, program: Program, limit: Deadline, internal: list, *,
                     timeout: Optional[float], catch_interrupt: bool) -> tuple:
    """Run one cell of ``run_script`` under the time limit, catching what it raises as a
    notebook would: (its CellError or None, why the run stops after it or None)."""
    error = stop = None
    try:
        with limit.arm():
            run_cell(cell, ns, program.path, program.code_path)
    except CompileError as ce:
        # as Python shows a script that does not compile: no frames
        show_compile_error(ce.shown, program)
        shown = "".join(traceback.format_exception_only(type(ce.shown), ce.shown))
        error = CellError(type(ce.recorded).__name__, str(ce.recorded), shown, getattr(ce.shown, "lineno", None))
    except SystemExit as e:
        stop = "exit"
        if e.code not in (None, 0):
            error = format_error(e, program, internal)
    except ScriptTimeout as e:
        stop = "timeout"
        if e.seconds is None:
            e = ScriptTimeout(timeout)
        error = _renamed(format_error(e, program, internal), "TimeoutError")
    except KeyboardInterrupt as e:
        if not catch_interrupt:
            raise
        stop = "interrupt"
        error = format_error(e, program, internal)
    except Exception as e:  # noqa: BLE001 - the cell's error, as in a notebook
        error = format_error(e, program, internal)
    except OutputClosed:
        raise
    except BaseException as e:  # noqa: BLE001 - the script's own BaseException, GeneratorExit
        error = format_error(e, program, internal)
    return error, stop


class _BuiltinsKeeper:
    """The builtins as the script left them while its cells run, and as they were for
    gradviz's own work between cells and after the run: a script that replaces ``print``
    or ``len`` in ``builtins`` keeps its change, and gradviz is not broken by it."""

    def __init__(self):
        import builtins
        self._dict = vars(builtins)
        self._original = dict(self._dict)
        self._script = self._original

    def script(self):
        if self._script is not self._original:  # else the builtins are as they were: nothing to put back
            self._install(self._script)

    def gradviz(self):
        if self._dict != self._original:
            self._script = dict(self._dict)
            self._install(self._original)

    def _install(self, state):
        current = self._dict
        for name in [n for n in current if n not in state]:
            del current[name]
        for name, value in state.items():
            if current.get(name, _MISSING) is not value:
                current[name] = value


_MISSING = object()


def show_compile_error(err: BaseException, program: Program) -> None:
    """A SyntaxError as the user knows the place: the path they gave, a notebook's cell."""
    _relocate(err, program)


def _relocate(place, program: Program) -> None:
    """Give a traceback frame or a SyntaxError (``filename``, ``lineno``, ``end_lineno``)
    the place the user knows, when it is in the program's code."""
    if getattr(place, "filename", None) != program.code_path:
        return
    if place.lineno is None:
        place.filename = program.frame_place(1)[0]
        return
    place.filename, local = program.frame_place(place.lineno)
    if local != place.lineno:
        shift = place.lineno - local
        place.lineno = local
        if getattr(place, "end_lineno", None) is not None:
            place.end_lineno -= shift


@contextlib.contextmanager
def source_lines(program: Program):
    """While the run lasts, tracebacks find a notebook's code lines (its file is JSON)."""
    import linecache

    if not program.notebook:
        yield
        return
    lines = program.text.splitlines(keepends=True)
    # No modification time: linecache.checkcache() keeps an entry without one.
    linecache.cache[program.code_path] = (len(program.text), None, lines, program.code_path)
    try:
        yield
    finally:
        linecache.cache.pop(program.code_path, None)


def display(*objs, **kwargs):
    """IPython's ``display()``, as a notebook run in a terminal has it: each object's repr."""
    for obj in objs:
        print(repr(obj))


def _renamed(err: CellError, type_name: str) -> CellError:
    """The error shown as ``type_name`` (ScriptTimeout is gradviz's, not the user's)."""
    lines = err.traceback.rstrip("\n").split("\n")
    if lines and ":" in lines[-1]:
        lines[-1] = type_name + lines[-1][lines[-1].index(":"):]
    return CellError(type_name, err.message, "\n".join(lines) + "\n", err.line, err.hint)
