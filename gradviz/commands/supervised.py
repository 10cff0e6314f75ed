"""A script's run, supervised from outside: the work happens in a forked child process,
and the parent, which runs none of the user's code, stops it when it must.

A limit the script can see is a limit the script can defeat: ``except BaseException``
swallows the ScriptTimeout that ``--timeout`` raises inside it, ``signal.signal(SIGALRM,
SIG_IGN)`` or ``setitimer(ITIMER_REAL, 0)`` disarms it, and its own ``signal.alarm(1)`` or a
crash in a C extension ends the whole process before any table is printed. So the child
does everything the command does (it prints as it always did), and sends each finished
cell's results to the parent as plain data. The parent waits:

- the child finishes: its exit status (or its one-line error) becomes the command's;
- the time limit passes, plus a grace period for the child's own timeout to end the run
  normally: the parent kills it and reports what the finished cells computed;
- Ctrl-C: both processes get it; the child stops the script and reports as usual, and if
  it has not finished a moment later the parent kills it and reports;
- the child dies (a signal, ``os._exit``): the parent reports, and says how it died.

Where there is no ``fork`` (Windows) the work runs in this process, as before.
"""
import os
import pickle
import select
import signal
import struct
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import CommandError

#: Seconds the child's own timeout gets to end the run normally before it is killed.
GRACE = 3.0
#: Seconds the child gets to stop after Ctrl-C before it is killed.
INTERRUPT_GRACE = 2.0

_HEADER = struct.Struct("!I")


@dataclass
class Ended:
    """How a supervised run ended when the child could not report it itself."""

    how: str  # "timeout", "interrupt", "signal" or "exit"
    cells: list = field(default_factory=list)  # what the child sent: finished cells, in order
    seconds: float = 0.0  # how long the child ran
    signal_name: Optional[str] = None  # "SIGALRM", for how == "signal"
    status: Optional[int] = None  # the exit status, for how == "exit"
    killed: bool = True  # stopped by the parent (False: it ended on its own, after Ctrl-C)


def available() -> bool:
    """fork exists, and stdout and stderr are the process's own file descriptors (not a
    test runner's in-memory streams, which a child process could not write into)."""
    if not hasattr(os, "fork"):
        return False
    try:
        return sys.stdout.fileno() == 1 and sys.stderr.fileno() == 2
    except (AttributeError, OSError, ValueError):
        return False


def supervised(work: Callable[[Callable], int], timeout: Optional[float], ended: Callable[[Ended], int]) -> int:
    """Run ``work(send)`` in a child process and return its exit status; ``send(obj)``
    passes a finished cell's plain data to this process. When the child cannot finish,
    ``ended(Ended(...))`` reports what was received and gives the status instead."""
    if not available():
        return work(lambda obj: None)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    read_fd, write_fd = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _child(work, write_fd)
    os.close(write_fd)
    return _parent(pid, read_fd, started, timeout, ended)


# --------------------------------------------------------------------------- child


def _child(work, fd) -> None:
    def send(kind, obj):
        data = pickle.dumps((kind, obj), protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(fd, _HEADER.pack(len(data)) + data)

    try:
        message = ("exit", work(lambda obj: send("cell", obj)))
    except BaseException as e:  # noqa: BLE001 - handed to the parent, whose CLI reports it
        message = ("raise", _portable(e))
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - a closed pipe or a full disk: nothing more to say
            pass
    try:
        send(*message)
    finally:
        os._exit(0)


def _write_all(fd, data) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _portable(e: BaseException) -> tuple:
    """An exception as plain data the parent can raise again."""
    if isinstance(e, CommandError):
        return ("CommandError", e.message, e.code, e.usage, e.detail)
    if isinstance(e, BrokenPipeError):
        return ("BrokenPipeError",)
    if isinstance(e, KeyboardInterrupt):
        return ("KeyboardInterrupt",)
    if isinstance(e, SystemExit):  # rich leaves this way when its reader went away
        return ("SystemExit", e.code if isinstance(e.code, int) else 1)
    if isinstance(e, OSError) and e.errno is not None:
        return ("OSError", e.errno, e.strerror)
    if os.environ.get("GRADVIZ_DEBUG"):
        import traceback

        traceback.print_exception(e)
    return ("Exception", type(e).__name__, str(e))


def _raise(portable: tuple):
    kind = portable[0]
    if kind == "CommandError":
        _, message, code, usage, detail = portable
        raise CommandError(message, code, usage=usage, detail=detail)
    if kind == "BrokenPipeError":
        raise BrokenPipeError()
    if kind == "KeyboardInterrupt":
        raise KeyboardInterrupt()
    if kind == "SystemExit":
        raise SystemExit(portable[1])
    if kind == "OSError":
        raise OSError(portable[1], portable[2])
    raise RuntimeError(f"{portable[1]}: {portable[2]}")


# --------------------------------------------------------------------------- parent


def _parent(pid, fd, started, timeout, ended) -> int:
    cells, final, buffer = [], None, b""
    hard_deadline = started + timeout + GRACE if timeout else None
    interrupted_at = None
    how = None
    try:
        while True:
            now = time.monotonic()
            limits = [t for t in (hard_deadline, interrupted_at and interrupted_at + INTERRUPT_GRACE) if t]
            wait = max(0.0, min(limits) - now) if limits else None
            if limits and wait == 0.0:
                how = "interrupt" if interrupted_at is not None and (
                    hard_deadline is None or interrupted_at + INTERRUPT_GRACE <= hard_deadline) else "timeout"
                break
            try:
                ready, _, _ = select.select([fd], [], [], wait)
            except KeyboardInterrupt:
                if interrupted_at is None:
                    interrupted_at = time.monotonic()  # the child got it too: give it a moment
                continue
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break  # the child is gone
            buffer += chunk
            while len(buffer) >= _HEADER.size:
                (size,) = _HEADER.unpack_from(buffer)
                if len(buffer) < _HEADER.size + size:
                    break
                kind, obj = pickle.loads(buffer[_HEADER.size:_HEADER.size + size])
                buffer = buffer[_HEADER.size + size:]
                if kind == "cell":
                    cells.append(obj)
                else:
                    final = (kind, obj)
    finally:
        os.close(fd)
    if how is not None:
        _kill(pid)
    status = _reap(pid)
    seconds = time.monotonic() - started
    if how is None and final is not None:
        kind, obj = final
        if kind == "exit":
            return obj
        if obj[0] == "KeyboardInterrupt" and cells:
            # Ctrl-C outside the script's cells (while a table was being made): the cells
            # that finished are still reported
            return ended(Ended("interrupt", cells, seconds, killed=False))
        _raise(obj)
    if how is None:  # gone without a word: a signal, or os._exit in the script
        if status is not None and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            return ended(Ended("signal", cells, seconds, signal_name=_signal_name(sig)))
        code = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None
        return ended(Ended("exit", cells, seconds, status=code))
    return ended(Ended(how, cells, seconds))


def _kill(pid) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(pid) -> Optional[int]:
    while True:
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return None
        except KeyboardInterrupt:
            _kill(pid)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
