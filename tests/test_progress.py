"""The status line of a long, silent cell: on a terminal's stderr only, rewritten in
place, cleared before the script prints and when the cell ends."""
import os
import pty
import select
import subprocess
import sys

import pytest

from _cli_helpers import ENV, ROOT, write

SLOW = """\
import time
import torch
x = torch.ones(2, requires_grad=True)
# %%
time.sleep(2.2)
print("after the sleep")
time.sleep(1.6)
# %%
y = x * 2
"""


def _run_with_terminal_stderr(path):
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "gradviz", "run", str(path)], stdout=subprocess.PIPE,
                            stderr=slave, cwd=ROOT, env={**os.environ, **ENV})
    os.close(slave)
    err = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            err += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    return proc.wait(timeout=60), proc.stdout.read().decode(), err.decode()


@pytest.mark.slow
def test_a_long_silent_cell_shows_a_status_line_on_a_terminal(tmp_path):
    code, out, err = _run_with_terminal_stderr(write(tmp_path, SLOW, "slow.py"))
    assert code == 0
    assert "\rgradviz: running cell 2 of 3 (line 5), 1 s\x1b[K" in err
    assert "\rgradviz: running cell 2 of 3 (line 5), 3 s\x1b[K" in err  # again after the print
    assert err.endswith("\r\x1b[K")  # cleared: nothing left on the line
    assert out.startswith("after the sleep\n")  # stdout never sees it


@pytest.mark.slow
def test_no_status_line_outside_a_terminal(tmp_path):
    path = write(tmp_path, SLOW, "slow.py")
    proc = subprocess.run([sys.executable, "-m", "gradviz", "run", path], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **ENV}, timeout=60)
    assert proc.returncode == 0 and proc.stderr == ""


def test_the_line_shows_after_the_quiet_time_and_is_erased_only_on_a_terminal(monkeypatch):
    """The status line itself, without waiting a second: written once the cell has been quiet
    for QUIET_SECONDS, rewritten in place, erased by done(); never on a stream that is not
    a terminal."""
    import io
    import time
    from types import SimpleNamespace

    from gradviz.commands import progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert progress.CellProgress.for_stream(io.StringIO()) is None
    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.0)
    stream = Terminal()
    status = progress.CellProgress.for_stream(stream)
    try:
        status.cell(SimpleNamespace(label="", index=1, line=5), 3)
        deadline = time.monotonic() + 5
        while "running" not in stream.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stream.getvalue() == "\rgradviz: running cell 2 of 3 (line 5), 0 s\x1b[K"
        status.done()
        assert stream.getvalue().endswith("\r\x1b[K")
    finally:
        status.close()
    written = stream.getvalue()
    time.sleep(0.3)
    assert stream.getvalue() == written  # nothing after the cell ended
