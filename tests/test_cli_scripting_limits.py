"""scripting.run_script's additions for the CLI: timeout (SIGALRM and the watchdog
thread), catch_interrupt, around, named_tensors, and read_source's refusals."""
import threading
import time

import pytest

from gradviz import scripting

from _cli_helpers import write

LOOP = "import torch\nx = torch.ones(2)\n# %%\nwhile True:\n    pass\n# %%\nprint('never')\n"


def test_timeout_in_the_main_thread(tmp_path):
    path = write(tmp_path, LOOP)
    start = time.monotonic()
    r = scripting.run_script(path, echo=False, timeout=0.5)
    assert time.monotonic() - start < 20
    assert r.stopped == "timeout"
    assert len(r.cells) == 2 and r.total_cells == 3
    err = r.cells[-1].error
    assert err.type == "TimeoutError" and err.line in (4, 5)  # the loop, wherever it was
    assert err.traceback.rstrip().endswith(
        "TimeoutError: the script ran longer than 0.5 s and was stopped (--timeout)")
    assert [t.name for t in r.tensors] == ["x"]


def test_timeout_in_another_thread_uses_the_watchdog(tmp_path):
    path = write(tmp_path, LOOP)
    box = {}

    def target():
        box["r"] = scripting.run_script(path, echo=False, timeout=0.5)

    t = threading.Thread(target=target)
    t.start()
    t.join(30)
    assert not t.is_alive()
    assert box["r"].stopped == "timeout" and box["r"].cells[-1].error.type == "TimeoutError"


def test_the_scripts_own_except_cannot_swallow_the_timeout(tmp_path):
    path = write(tmp_path, "while True:\n    try:\n        pass\n    except Exception:\n        pass\n")
    r = scripting.run_script(path, echo=False, timeout=0.5)
    assert r.stopped == "timeout"


def test_no_timeout_leaves_no_alarm(tmp_path):
    import signal

    before = signal.getsignal(signal.SIGALRM)
    scripting.run_script(write(tmp_path, "x = 1\n"), echo=False, timeout=5)
    assert signal.getsignal(signal.SIGALRM) == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_catch_interrupt(tmp_path):
    path = write(tmp_path, "import torch\nx = torch.ones(2)\n# %%\nraise KeyboardInterrupt\n# %%\ny = 1\n")
    with pytest.raises(KeyboardInterrupt):
        scripting.run_script(path, echo=False)
    r = scripting.run_script(path, echo=False, catch_interrupt=True)
    assert r.stopped == "interrupt" and r.cells[-1].error.type == "KeyboardInterrupt"
    assert len(r.cells) == 2


def test_around_wraps_the_cells_inside_the_session(tmp_path):
    import contextlib
    import sys

    seen = []

    @contextlib.contextmanager
    def around(ns):
        seen.append(("enter", sys.modules["torch"].__name__, "x" in ns))
        yield
        seen.append(("exit", "x" in ns))

    scripting.run_script(write(tmp_path, "import torch\nx = torch.ones(1)\n"), echo=False, around=around)
    assert seen == [("enter", "gradviz.torch", False), ("exit", True)]


def test_named_tensors_follow_the_table_rules(tmp_path):
    import gradviz.torch as torch
    import gradviz.torch.nn as nn

    a = torch.ones(1)
    ns = {"a": a, "_hidden": a, "pair": [a, a], "net": nn.Linear(2, 1), "n": 3}
    names = [name for name, _ in scripting.named_tensors(ns, torch.Tensor, nn.Module)]
    assert names == ["a", "pair[0]", "pair[1]", "net.weight", "net.bias"]


@pytest.mark.parametrize("data, message", [
    (b"\x7fELF\x00\x00", "is a binary file, not a Python script"),
    (b"x = 1\n" * 2000 + b"\x00", "is a binary file, not a Python script"),
    ("x = 1\n".encode("utf-16"), "it is UTF-16 text; save it as UTF-8"),
    (b"x = '\xff'\n", "it is not UTF-8 text (byte 0xff at offset 5)"),
    (b"# coding: latin-1\nx = '\xff'\n", None),
    (b"\xef\xbb\xbfx = 1\r\ny = 2\r\n", None),
])
def test_read_source(tmp_path, data, message):
    p = tmp_path / "s.py"
    p.write_bytes(data)
    if message is None:
        text = scripting.read_source(str(p))
        assert "\r" not in text and not text.startswith("\ufeff")
        return
    with pytest.raises(scripting.ScriptError, match=message.replace("(", r"\(").replace(")", r"\)")):
        scripting.read_source(str(p))
