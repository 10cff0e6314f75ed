"""A status line on a terminal's stderr while a cell runs for long without a word.

``gradviz run train.py`` may sit for minutes in one cell; the terminal shows what is
running (``gradviz: running cell 3 of 12 (line 40), 7 s``) on one line that is rewritten
in place, cleared before the script prints anything and when the cell ends, so it never
mixes with the script's output or gradviz's tables. Only on a terminal: in a pipe, a
file or a CI log there is no status line at all.
"""
import threading
import time

#: A cell silent for this long gets the status line.
QUIET_SECONDS = 1.0
_TICK = 0.25


class CellProgress:
    def __init__(self, stream):
        self._stream = stream
        self._lock = threading.Lock()
        self._what = None
        self._since = 0.0  # when the cell started, or last wrote
        self._started = 0.0
        self._shown = False
        self._last = None  # the text on screen, not written again until it changes
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gradviz-progress", daemon=True)
        self._thread.start()

    @staticmethod
    def for_stream(stream):
        """A CellProgress when ``stream`` is a terminal, else None."""
        try:
            return CellProgress(stream) if stream.isatty() else None
        except (AttributeError, ValueError, OSError):
            return None

    # -- scripting's hooks ----------------------------------------------------------
    def cell(self, cell, total):
        notebook = bool(cell.label) and not cell.label.startswith("cell ")  # a notebook's 'In [5]'
        where = cell.label if notebook else f"cell {cell.index + 1} of {total} (line {cell.line})"
        with self._lock:
            self._what = where
            self._started = self._since = time.monotonic()

    def clear(self):
        with self._lock:
            self._since = time.monotonic()
            self._erase()

    def done(self):
        with self._lock:
            self._what = None
            self._erase()

    def close(self):
        self._stop.set()
        self._thread.join(timeout=1)
        self.done()

    # -- the line ---------------------------------------------------------------
    def _run(self):
        while not self._stop.wait(_TICK):
            with self._lock:
                if self._what is None or time.monotonic() - self._since < QUIET_SECONDS:
                    continue
                seconds = int(time.monotonic() - self._started)
                text = f"\rgradviz: running {self._what}, {seconds} s\x1b[K"
                if not self._shown or text != self._last:
                    self._write(text)
                    self._shown, self._last = True, text

    def _erase(self):
        if self._shown:
            self._write("\r\x1b[K")
            self._shown, self._last = False, None

    def _write(self, text):
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):
            pass
