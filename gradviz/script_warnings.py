"""The warnings a script raises while gradviz runs it, shown as Python would show them.

Python prints a warning once per place (the "default" action) as ``file:line: Category:
message`` and the source line. Here the place is always the user's: a warning raised
inside the engine (``.grad`` of a non-leaf, ``mse_loss``'s size mismatch) is shown at the
line of the script that called into it, as PyTorch's C++ warnings are, and a notebook's
lines are named by cell. Each warning is kept in its cell's record (``--json`` has them)
and, unless the run is quiet, written to stderr as it happens.

Python's own default filters stay: DeprecationWarning only from the script's own code,
PendingDeprecationWarning, ImportWarning and ResourceWarning never. A script that sets
filters of its own (``warnings.simplefilter("ignore")``) is obeyed.
"""
import contextlib
import linecache
import os
import sys
import warnings
from dataclasses import dataclass

from . import float_noise
from .frame_lines import line_of
from .safe_text import visible


@dataclass(frozen=True)
class CellWarning:
    category: str  # "UserWarning"
    message: str
    filename: str  # as the user knows it: the path given, a notebook's "nb.ipynb, In [5]"
    line: int

    def as_dict(self) -> dict:
        return {"category": self.category, "message": self.message, "filename": self.filename, "line": self.line}


class WarningCatcher:
    """Installed for a whole run (``catching()``); ``take()`` hands over a cell's warnings."""

    def __init__(self, program, internal_dirs, stream=None):
        self.program = program
        self.internal = tuple(d.rstrip(os.sep) + os.sep for d in internal_dirs) + (os.path.dirname(warnings.__file__)
                                                                                    + os.sep,)
        self.stream = stream  # where to show them (None: keep them only)
        self.shown = set()  # (category, message, file, line): the default action's "once per place"
        self.cell = []

    def take(self) -> tuple:
        out, self.cell = tuple(self.cell), []
        return out

    @contextlib.contextmanager
    def catching(self):
        with warnings.catch_warnings():
            warnings.resetwarnings()
            warnings.simplefilter("always")  # the catcher keeps "once per place" itself, by the user's place
            warnings.filterwarnings("ignore", category=DeprecationWarning)
            warnings.filterwarnings("always", category=DeprecationWarning, module="__main__")
            for category in (PendingDeprecationWarning, ImportWarning, ResourceWarning):
                warnings.filterwarnings("ignore", category=category)
            float_noise.silence_in_engine()
            warnings.showwarning = self.show
            yield self

    def show(self, message, category, filename, lineno, file=None, line=None):
        filename, lineno = self._users_place(filename, lineno)
        shown, local = self._as_known(filename, lineno)
        key = (category, str(message), shown, local)
        if key in self.shown:
            return
        self.shown.add(key)
        record = CellWarning(category.__name__, str(message), shown, local)
        self.cell.append(record)
        if self.stream is not None:
            source = self._source_line(filename, lineno)
            text = visible(f"{shown}:{local}: {category.__name__}: {message}\n" + (f"  {source}\n" if source else ""))
            try:
                self.stream.write(text)
                self.stream.flush()
            except (OSError, ValueError):
                pass

    def _internal(self, filename) -> bool:
        return filename.startswith("<frozen") or os.path.abspath(filename).startswith(self.internal)

    def _users_place(self, filename, lineno):
        """The place to show: the warning's own, or, when that is inside gradviz or the engine,
        the innermost frame of the user's code below it."""
        if not self._internal(filename):
            return filename, lineno
        frame = sys._getframe(2)
        while frame is not None:
            name = frame.f_code.co_filename
            if not self._internal(name):
                return name, line_of(frame)
            frame = frame.f_back
        return filename, lineno

    def _as_known(self, filename, lineno):
        if filename == self.program.code_path:
            return self.program.frame_place(lineno)
        return filename, lineno

    def _source_line(self, filename, lineno) -> str:
        return linecache.getline(filename, lineno).strip()
