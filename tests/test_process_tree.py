"""The script's process tree is gradviz's to end (issue 23): --timeout, Ctrl-C and the end
of the run stop what the script started (a Popen, a multiprocessing worker), so the output
pipe closes; a script that forks reports once and runs its atexit handlers as python would;
a process that dies still gets its --graph and --html; a script that closes fds 1 and 2
does not break gradviz. These run gradviz as a real process, as test_supervised does."""
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest

from _cli_helpers import ENV, ROOT, write

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="supervision needs fork")

TENSORS = "import os, subprocess, sys, time\nimport torch\nx = torch.ones(3, requires_grad=True)\n" \
          "y = (x * 2).sum()\ny.backward()\n"
POPEN = "p = subprocess.Popen(['sleep', '100'])\nopen(PIDS, 'a').write(f'{p.pid}\\n')\n"
WORKER = ("import multiprocessing as mp\n"
          "def work():\n    time.sleep(100)\n"
          "w = mp.get_context('fork').Process(target=work)\nw.start()\nopen(PIDS, 'a').write(f'{w.pid}\\n')\n")
SWALLOWS = "while True:\n    try:\n        time.sleep(10)\n    except BaseException:\n        pass\n"


def _script(tmp_path, body, name="s.py"):
    return write(tmp_path, f"PIDS = {str(tmp_path / 'pids')!r}\n" + TENSORS + body, name)


def _gradviz(*args, timeout=30):
    """gradviz with stdout a pipe: like `gradviz ... | cat`, it returns when every writer
    of the pipe (the script's children included) has closed it."""
    started = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "gradviz", *map(str, args)], capture_output=True, text=True,
                       cwd=ROOT, env={**os.environ, **ENV}, timeout=timeout)
    return r, time.monotonic() - started


def _alive(tmp_path) -> list:
    """The script's children still running (a zombie waiting for init is not running)."""
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    assert pids, "the script started no child"
    deadline = time.monotonic() + 3
    while True:
        alive = [p for p in pids if _running(p)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def _running(pid) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


@pytest.fixture(autouse=True)
def _no_leftovers(tmp_path):
    yield
    pids = tmp_path / "pids"
    for pid in (pids.read_text().split() if pids.exists() else ()):
        try:  # a failing test must not leave its sleeps behind
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass


@pytest.mark.slow
@pytest.mark.parametrize("child", ["popen", "worker"])
def test_timeout_ends_the_scripts_children_and_the_pipe_closes(tmp_path, child):
    path = _script(tmp_path, (POPEN if child == "popen" else WORKER) + "time.sleep(60)\n")
    r, seconds = _gradviz("run", path, "--timeout", "1")
    assert r.returncode == 1 and seconds < 15, (seconds, r.stderr)
    assert "gradviz: the script was stopped after 1 s (--timeout)" in r.stderr and "\ny " in r.stdout
    assert _alive(tmp_path) == []


@pytest.mark.slow
def test_a_killed_script_takes_its_children_with_it(tmp_path):
    path = _script(tmp_path, POPEN + WORKER + SWALLOWS)
    r, seconds = _gradviz("run", path, "--timeout", "0.5")
    assert r.returncode == 1 and seconds < 15, (seconds, r.stderr)
    assert "did not stop at its --timeout of 0.5 s" in r.stderr
    assert _alive(tmp_path) == []


def test_the_end_of_a_run_ends_what_the_script_left_running(tmp_path):
    r, seconds = _gradviz("run", _script(tmp_path, POPEN))
    assert r.returncode == 0 and seconds < 15 and "\ny " in r.stdout, r.stderr
    assert _alive(tmp_path) == []


@pytest.mark.slow
def test_explain_timeout_ends_the_children_too(tmp_path):
    r, seconds = _gradviz("explain", _script(tmp_path, POPEN + SWALLOWS), "--timeout", "0.5")
    assert r.returncode == 1 and seconds < 15
    assert "was killed before it raised; nothing to explain" in r.stderr
    assert _alive(tmp_path) == []


@pytest.mark.slow
def test_ctrl_c_ends_the_children_too(tmp_path):
    # a child that ignores Ctrl-C, as DataLoader's workers do
    deaf = ("p = subprocess.Popen([sys.executable, '-c', 'import signal, time; "
            "signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(100)'])\n"
            "open(PIDS, 'a').write(f'{p.pid}\\n')\n")
    path = _script(tmp_path, deaf + "time.sleep(30)\n")
    proc = subprocess.Popen([sys.executable, "-m", "gradviz", "run", path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, **ENV},
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(3)
    os.killpg(proc.pid, signal.SIGINT)  # gradviz's group, as a terminal's Ctrl-C: the script's group is its own
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "\ny " in out
    assert "gradviz: interrupted; the table shows what the script had computed" in err
    assert _alive(tmp_path) == []


FORKS = """
import atexit, os
import torch
x = torch.ones(3, requires_grad=True)
atexit.register(lambda: print(f"atexit in the {'parent' if os.getpid() == FIRST else 'child'}", flush=True))
FIRST = os.getpid()
pid = os.fork()
if pid == 0:
    z = x * 3
else:
    os.waitpid(pid, 0)
"""


def test_a_script_that_forks_reports_once_and_its_atexit_handlers_run(tmp_path):
    r, _ = _gradviz("run", write(tmp_path, FORKS, "forks.py"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("Tensors after") == 1 and "\nz " not in r.stdout  # the table is the script's process's
    # as under `python forks.py`: each process runs the handlers once, the copy when its script ends
    assert r.stdout.count("atexit in the child") == 1 and r.stdout.count("atexit in the parent") == 1
    assert r.stdout.index("atexit in the child") < r.stdout.index("Tensors after")
    assert "Traceback" not in r.stderr


ATEXIT = "import atexit, time\nimport torch\nx = torch.ones(2)\natexit.register(print, 'goodbye')\n"


@pytest.mark.slow
def test_atexit_handlers_run_after_the_report_unless_the_script_was_stopped(tmp_path):
    r, _ = _gradviz("run", write(tmp_path, ATEXIT, "bye.py"))
    assert r.returncode == 0 and r.stdout.rstrip().endswith("goodbye"), r.stdout
    r, _ = _gradviz("run", write(tmp_path, ATEXIT + "time.sleep(30)\n", "stopped.py"), "--timeout", "0.5")
    assert r.returncode == 1 and "goodbye" not in r.stdout  # its end never came


@pytest.mark.slow
@pytest.mark.parametrize("how", ["os._exit(5)", "os.kill(os.getpid(), 9)"])
def test_graph_and_report_are_written_when_the_process_dies(tmp_path, how):
    path = _script(tmp_path, f"# %%\n{how}\n")
    svg, html = tmp_path / "g.svg", tmp_path / "r.html"
    r, _ = _gradviz("run", path, "--graph", svg, "--html", html)
    assert r.returncode == 1 and "\ny " in r.stdout
    assert svg.read_text().startswith("<?xml") and "SumBackward0" in svg.read_text()
    assert "before the run finished" in html.read_text() and "SumBackward0" in html.read_text()
    assert f"gradviz: wrote the picture ({svg}) and the report ({html}) with what was recorded by the end " \
           "of cell 1" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_graph_is_written_after_a_timeout_kill_and_json_says_where_the_report_is(tmp_path):
    path = _script(tmp_path, "# %%\n" + SWALLOWS)
    dot, html = tmp_path / "g.dot", tmp_path / "r.html"
    r, _ = _gradviz("run", path, "--timeout", "0.5", "--graph", dot, "--html", html, "--json")
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert doc["stopped"] == "timeout" and doc["report"] == str(html) and html.exists()
    assert "digraph" in dot.read_text()
    assert f"gradviz: wrote the picture ({dot}) and the report ({html})" in r.stderr


def test_nothing_to_draw_when_the_process_dies_is_said(tmp_path):
    path = write(tmp_path, "import os\nimport torch\nx = torch.ones(2)\nos._exit(3)\n", "early.py")
    r, _ = _gradviz("run", path, "--graph", tmp_path / "g.svg")
    assert r.returncode == 2 and not (tmp_path / "g.svg").exists()
    assert "gradviz run: error: --graph: nothing to draw: no backward call was recorded" in r.stderr
    assert "Traceback" not in r.stderr


CLOSES = "import os\nimport torch\nx = torch.ones(3, requires_grad=True)\nos.close(1)\nos.close(2)\ny = x * 2\n"


@pytest.mark.slow
def test_a_script_that_closes_fds_1_and_2_closes_its_own(tmp_path):
    r, _ = _gradviz("run", write(tmp_path, CLOSES, "closes.py"))
    assert r.returncode == 0 and "\ny " in r.stdout and r.stderr == ""
    r, _ = _gradviz("run", write(tmp_path, CLOSES + "print('later')\nraise ValueError('boom')\n", "raises.py"),
                    "--html", tmp_path / "r.html")
    assert r.returncode == 1 and "ValueError: boom" in r.stderr and "internal error" not in r.stderr
    assert (tmp_path / "r.html").exists()


@pytest.mark.slow
def test_on_a_terminal_the_script_reads_it_and_gets_ctrl_c(tmp_path):
    """The script's group is given the terminal: input() is not stopped by SIGTTIN, and
    Ctrl-C typed there reaches the script."""
    path = write(tmp_path, "import time\nimport torch\nx = torch.ones(2)\nname = input()\nprint('read', name)\n"
                           "# %%\ntime.sleep(30)\n", "asks.py")
    pid, fd = pty.fork()
    if pid == 0:  # a session of its own, the pty its controlling terminal: a user's shell
        os.chdir(ROOT)
        os.execve(sys.executable, [sys.executable, "-m", "gradviz", "run", path], {**os.environ, **ENV})
    try:
        out = _read_until(fd, b"", 0.5)
        os.write(fd, b"abc\n")
        out = _read_until(fd, out, 2.0)
        os.write(fd, b"\x03")  # Ctrl-C
        out = _read_until(fd, out, 10.0, done=lambda: os.waitpid(pid, os.WNOHANG)[0] != 0)
    finally:
        os.close(fd)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
    text = out.decode(errors="replace")
    assert "read abc" in text and "gradviz: interrupted" in text, text


def _read_until(fd, out, seconds, done=lambda: False):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if select.select([fd], [], [], 0.1)[0]:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
        elif done():
            break
    return out


def test_explain_of_a_script_that_forks_explains_once(tmp_path):
    path = write(tmp_path, "import os\nimport torch\nx = torch.ones(3, requires_grad=True)\npid = os.fork()\n"
                           "if pid:\n    os.waitpid(pid, 0)\n(x * 2).backward()\n", "forks.py")
    r, _ = _gradviz("explain", path)
    assert r.returncode == 0 and r.stdout.count("grad can be implicitly created only for scalar outputs") == 1
