"""Time limits: ``with deadline(5): ...`` raises ScriptTimeout in the block after 5 s.

Used by ``gradviz run`` for a script's cells and by ``gradviz graph`` for the whole
command. A BaseException, so that a script's own ``except Exception`` cannot swallow it.
"""
import contextlib
import signal
import time
from typing import Optional


class ScriptTimeout(BaseException):
    """Raised inside the script when its time (``timeout=``) is up.

    A BaseException, like KeyboardInterrupt, so the script's own ``except Exception``
    cannot swallow it.
    """

    def __init__(self, seconds: Optional[float] = None):
        limit = f"{seconds:g} s" if seconds is not None else "its time limit"
        super().__init__(f"the script ran longer than {limit} and was stopped (--timeout)")
        self.seconds = seconds


class Deadline:
    """Raise ScriptTimeout in the main thread ``seconds`` from ``start()``, while armed.

    In the main thread SIGALRM does it (it also interrupts ``time.sleep``); elsewhere, or
    where there is no SIGALRM, a watchdog thread sets an asynchronous exception on the
    thread that started it. Outside ``armed`` the expiry is only noted, and ``check()``
    raises it the next time the deadline is armed, so gradviz's own bookkeeping between
    cells is never cut in half.
    """

    def __init__(self, seconds: Optional[float]):
        self.seconds = seconds
        self.expired = False
        self.armed = False
        self._old_handler = None
        self._timer = None
        self._thread_id = None
        self._started = None

    def start(self) -> "Deadline":
        if not self.seconds or self.seconds <= 0:
            return self
        self._started = time.monotonic()
        import threading

        if (threading.current_thread() is threading.main_thread()
                and hasattr(signal, "SIGALRM") and hasattr(signal, "setitimer")):
            self._old_handler = signal.signal(signal.SIGALRM, self._on_alarm)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        else:
            self._thread_id = threading.get_ident()
            self._timer = threading.Timer(self.seconds, self._on_timer)
            self._timer.daemon = True
            self._timer.start()
        return self

    def remaining(self) -> Optional[float]:
        """Seconds left before the deadline (None: no limit), for a child that must end first."""
        if not self.seconds or self.seconds <= 0 or self._started is None:
            return None
        return max(0.01, self.seconds - (time.monotonic() - self._started))

    def stop(self) -> None:
        if self._old_handler is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old_handler)
            self._old_handler = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.armed = False

    def check(self) -> None:
        if self.expired and self.armed:
            raise ScriptTimeout(self.seconds)

    def _on_alarm(self, signum, frame):
        self.expired = True
        self.check()

    def _on_timer(self):
        self.expired = True
        if self.armed and self._thread_id is not None:
            import ctypes

            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread_id),
                                                       ctypes.py_object(ScriptTimeout))

    @contextlib.contextmanager
    def arm(self):
        """Let the deadline raise inside this block (at once if it already expired)."""
        self.armed = True
        try:
            self.check()
            yield
        finally:
            self.armed = False

    def __enter__(self):
        self.start()
        self.armed = True
        self.check()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


def deadline(seconds: Optional[float]) -> Deadline:
    """``with deadline(5): ...`` raises ScriptTimeout in the block after 5 s (None: never)."""
    return Deadline(seconds)
