"""The status line of a long, silent cell: on a terminal's stderr only, rewritten in
place, cleared before the script prints and when the cell ends."""
import os
import pty
import select
import subprocess
import sys

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


def test_a_long_silent_cell_shows_a_status_line_on_a_terminal(tmp_path):
    code, out, err = _run_with_terminal_stderr(write(tmp_path, SLOW, "slow.py"))
    assert code == 0
    assert "\rgradviz: running cell 2 of 3 (line 5), 1 s\x1b[K" in err
    assert "\rgradviz: running cell 2 of 3 (line 5), 3 s\x1b[K" in err  # again after the print
    assert err.endswith("\r\x1b[K")  # cleared: nothing left on the line
    assert out.startswith("after the sleep\n")  # stdout never sees it


def test_no_status_line_outside_a_terminal(tmp_path):
    path = write(tmp_path, SLOW, "slow.py")
    proc = subprocess.run([sys.executable, "-m", "gradviz", "run", path], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **ENV}, timeout=60)
    assert proc.returncode == 0 and proc.stderr == ""
