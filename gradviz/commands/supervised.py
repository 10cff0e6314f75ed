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

The child leads a process group of its own, which the script's own children join (a
``Popen``, a DataLoader-like worker): when the child is killed and when the run ends the
whole group is killed, so nothing the script started outlives the run or holds the output
pipe open (``gradviz run s.py | cat`` returns). On a terminal the group is given the
terminal while it runs, so the script reads it and gets Ctrl-C as under plain ``python``.
A copy of the child that the script forks finishes the script as plain ``python`` would
(its atexit handlers run) and leaves without reporting; the script's atexit handlers run
in the child after the report, unless the run was stopped.

Where there is no ``fork`` (Windows) the work runs in this process, as before.
"""
import atexit
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

#: Seconds between looks at the child while its pipe stays open (a process the script
#: forked holds a copy of it).
POLL = 0.1

_HEADER = struct.Struct("!I")
#: The child's process id, in the child (a fork of it made by the script has another).
_worker_pid: Optional[int] = None
#: Whether the child runs the atexit handlers the script left (not after it was stopped).
_run_exit_handlers = True


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
    _own_group(pid)  # in both processes: whichever runs first, the group exists before the script runs
    terminal = _Terminal.hand_to(pid)
    try:
        return _parent(pid, read_fd, started, timeout, ended, terminal)
    finally:
        _kill_group(pid)  # whatever the script left running: its group ends with the run
        terminal.take_back()


def in_fork() -> bool:
    """Whether this process is a copy of the supervised child made by the script's
    ``os.fork()`` (which runs on through gradviz's code after the script's cells)."""
    return _worker_pid is not None and os.getpid() != _worker_pid


def leave_fork(status: int = 0) -> None:
    """End a copy the script forked as plain ``python`` would end it: its atexit handlers
    run, its output is flushed, and it exits, without a report of its own."""
    try:
        atexit._run_exitfuncs()
    finally:
        _flush_std()
        os._exit(status)


def script_stopped() -> None:
    """The run was stopped (--timeout, Ctrl-C): the script's end never came, so its atexit
    handlers (multiprocessing's joins its workers) do not run."""
    global _run_exit_handlers
    _run_exit_handlers = False


def _own_group(pid) -> None:
    try:
        os.setpgid(pid, pid)
    except OSError:  # the child is gone already (ESRCH); it also calls this for itself
        pass


def _kill_group(pid) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _signal_group(pid, sig) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class _Terminal:
    """The terminal's foreground process group, given to the child's group while it runs
    (a background group that reads the terminal is stopped by SIGTTIN: ``input()``,
    ``breakpoint()``) and taken back after."""

    def __init__(self, fd=None, pgrp=None):
        self.fd, self.pgrp = fd, pgrp

    @classmethod
    def hand_to(cls, pid) -> "_Terminal":
        try:
            fd = sys.stdin.fileno()
            if not os.isatty(fd) or os.tcgetpgrp(fd) != os.getpgrp():
                return cls()
            os.tcsetpgrp(fd, pid)
        except (AttributeError, OSError, ValueError):
            return cls()
        _signal_group(pid, signal.SIGCONT)  # had the script read the terminal first, it was stopped (SIGTTIN)
        return cls(fd, os.getpgrp())

    def take_back(self) -> None:
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        # this process is in a background group now: without this, tcsetpgrp stops it (SIGTTOU)
        old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        try:
            os.tcsetpgrp(fd, self.pgrp)
        except OSError:
            pass
        finally:
            signal.signal(signal.SIGTTOU, old)


# --------------------------------------------------------------------------- child


def _child(work, fd) -> None:
    global _worker_pid
    _worker_pid = os.getpid()
    _own_group(0)
    # the handlers registered before the fork are the parent's, which runs them itself;
    # those left now are the script's (and its imports'), run at its end as python would
    getattr(atexit, "_clear", lambda: None)()

    def send(kind, obj):
        if in_fork():  # a copy the script forked: the report is the child's alone
            return
        data = pickle.dumps((kind, obj), protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(fd, _HEADER.pack(len(data)) + data)

    try:
        message = ("exit", work(lambda obj: send("cell", obj)))
    except BaseException as e:  # noqa: BLE001 - handed to the parent, whose CLI reports it
        message = ("raise", _portable(e))
    if in_fork():  # the script forked after its last cell, or gradviz's code raised in the copy
        leave_fork(message[1] if message[0] == "exit" and isinstance(message[1], int) else 1)
    _flush_std()
    try:
        send(*message)
        os.close(fd)
        if _run_exit_handlers:
            atexit._run_exitfuncs()
            _flush_std()
    finally:
        os._exit(0)


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - a closed pipe or a full disk: nothing more to say
            pass


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


class _Inbox:
    """What the child sends, read from the pipe as it comes."""

    def __init__(self, fd):
        self.fd, self.open, self.buffer = fd, True, b""
        self.cells, self.final = [], None

    def read(self, wait: Optional[float], also=()) -> None:
        """Wait up to ``wait`` seconds for data, or for one of ``also`` (the child's pidfd)."""
        ready, _, _ = select.select(([self.fd] if self.open else []) + list(also), [], [], wait)
        if self.fd in ready:
            self._take(os.read(self.fd, 1 << 16))

    def drain(self) -> None:
        """Whatever is left in the pipe once the child is gone (a process the script forked
        may hold the pipe open: no end of file to wait for)."""
        while self.open and select.select([self.fd], [], [], 0)[0]:
            self._take(os.read(self.fd, 1 << 16))

    def _take(self, chunk) -> None:
        if not chunk:
            self.open = False  # the child is gone
            return
        self.buffer += chunk
        while len(self.buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.buffer)
            if len(self.buffer) < _HEADER.size + size:
                break
            kind, obj = pickle.loads(self.buffer[_HEADER.size:_HEADER.size + size])
            self.buffer = self.buffer[_HEADER.size + size:]
            if kind == "cell":
                self.cells.append(obj)
            else:
                self.final = (kind, obj)


def _parent(pid, fd, started, timeout, ended, terminal) -> int:
    inbox = _Inbox(fd)
    ended_fd = _pidfd(pid)
    hard_deadline = started + timeout + GRACE if timeout else None
    interrupted_at, how, status = None, None, None
    try:
        while status is None:
            try:
                now = time.monotonic()
                limits = [t for t in (hard_deadline, interrupted_at and interrupted_at + INTERRUPT_GRACE) if t]
                if limits and min(limits) <= now:
                    how = "interrupt" if interrupted_at is not None and (
                        hard_deadline is None or interrupted_at + INTERRUPT_GRACE <= hard_deadline) else "timeout"
                    break
                # the pipe ends when the child does, unless the script's children hold it: look now and then
                inbox.read(min([POLL if ended_fd is None else 3600.0] + [t - now for t in limits]),
                           () if ended_fd is None else (ended_fd,))
                status = _exited(pid)
            except KeyboardInterrupt:
                if interrupted_at is None:
                    interrupted_at = time.monotonic()  # give the child a moment to stop the script
                _signal_group(pid, signal.SIGINT)  # its group is not ours: it hears Ctrl-C from us
        inbox.drain()
    finally:
        os.close(fd)
        if ended_fd is not None:
            os.close(ended_fd)
    if how is not None:
        _kill_group(pid)
        status = _reap(pid)
    _kill_group(pid)  # before anything is reported: nothing the script started holds the output
    terminal.take_back()
    seconds = time.monotonic() - started
    final = inbox.final
    if final is not None:
        kind, obj = final
        if kind == "exit":
            return obj  # the report was made; the script's atexit handlers, if stopped, were cut short
        if how is None and obj[0] == "KeyboardInterrupt" and inbox.cells:
            # Ctrl-C outside the script's cells (while a table was being made): the cells
            # that finished are still reported
            return ended(Ended("interrupt", inbox.cells, seconds, killed=False))
        _raise(obj)
    if how is None:  # gone without a word: a signal, or os._exit in the script
        if status is not None and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            return ended(Ended("signal", inbox.cells, seconds, signal_name=_signal_name(sig)))
        code = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None
        return ended(Ended("exit", inbox.cells, seconds, status=code))
    return ended(Ended(how, inbox.cells, seconds))


def _pidfd(pid) -> Optional[int]:
    """A descriptor that becomes readable when the child ends (Linux 5.3), or None: then
    the parent looks every POLL seconds."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _exited(pid) -> Optional[int]:
    """The child's wait status if it has ended (and is reaped now), else None."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return 0
    return status if done else None


def _reap(pid) -> Optional[int]:
    while True:
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return None
        except KeyboardInterrupt:
            _kill_group(pid)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
