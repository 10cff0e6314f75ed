"""--timeout and Ctrl-C that hold whatever the script does (issue 18): the script runs in a
child process that gradviz stops from outside, and the table of what it had computed is
still printed. These run gradviz as a real process (the in-memory CLI runner has no file
descriptors a child could write to, so it runs in-process)."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from _cli_helpers import ENV, ROOT, write

FIRST_CELL = "import signal, time\nimport torch\nx = torch.ones(3, requires_grad=True)\ny = (x * 2).sum()\n# %%\n"

SCRIPTS = {
    "swallows_the_stop": "while True:\n    try:\n        time.sleep(10)\n    except BaseException:\n        pass\n",
    "bare_except": "for _ in range(1000):\n    try:\n        time.sleep(10)\n    except:\n        pass\n",
    "ignores_sigalrm": "signal.signal(signal.SIGALRM, signal.SIG_IGN)\ntime.sleep(30)\n",
    "disarms_the_timer": "signal.setitimer(signal.ITIMER_REAL, 0)\ntime.sleep(30)\n",
}


def _gradviz(*args, timeout=60, **popen):
    return subprocess.run([sys.executable, "-m", "gradviz", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **ENV}, timeout=timeout, **popen)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
@pytest.mark.slow
def test_the_timeout_holds_and_the_table_is_printed(tmp_path, name):
    path = write(tmp_path, FIRST_CELL + SCRIPTS[name], f"{name}.py")
    started = time.monotonic()
    r = _gradviz("run", path, "--timeout", "0.5")
    assert time.monotonic() - started < 20
    assert r.returncode == 1, r.stderr
    assert "\ny " in r.stdout and "SumBackward0" in r.stdout  # the first cell's tensors
    assert ("gradviz: the script did not stop at its --timeout of 0.5 s (it caught or disarmed the stop) and was "
            "killed after") in r.stderr
    assert "the table shows what it had computed by the end of cell 1" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_the_killed_runs_json_is_whole(tmp_path):
    path = write(tmp_path, FIRST_CELL + SCRIPTS["swallows_the_stop"], "s.py")
    r = _gradviz("run", path, "--timeout", "0.5", "--json")
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert doc["stopped"] == "timeout"
    assert [t["name"] for t in doc["cells"][0]["tensors"]] == ["x", "y"]


@pytest.mark.slow
def test_a_scripts_own_alarm_does_not_take_gradviz_with_it(tmp_path):
    path = write(tmp_path, FIRST_CELL + "signal.alarm(1)\ntime.sleep(10)\n", "alarm.py")
    r = _gradviz("run", path)
    assert r.returncode == 1
    assert "gradviz: the script's process was killed by SIGALRM; the table shows what it had computed by the end " \
           "of cell 1" in r.stderr
    assert "\nx " in r.stdout


def test_a_crash_or_os_exit_in_the_script_still_reports(tmp_path):
    crash = write(tmp_path, FIRST_CELL + "import ctypes\nctypes.string_at(0)\n", "crash.py")
    r = _gradviz("run", crash)
    assert r.returncode == 1 and "killed by SIGSEGV" in r.stderr and "\ny " in r.stdout
    leave = write(tmp_path, FIRST_CELL + "import os\nos._exit(7)\n", "leave.py")
    r = _gradviz("run", leave)
    assert r.returncode == 1
    assert "the script ended its process (exit status 7) without finishing" in r.stderr and "\ny " in r.stdout


def _interrupt_after(path, seconds):
    proc = subprocess.Popen([sys.executable, "-m", "gradviz", "run", str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, **ENV},
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(seconds)
    os.killpg(proc.pid, signal.SIGINT)  # as the terminal sends Ctrl-C: to the whole group
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


@pytest.mark.slow
def test_ctrl_c_keeps_its_promise(tmp_path):
    polite = write(tmp_path, FIRST_CELL + "time.sleep(30)\n", "polite.py")
    code, out, err = _interrupt_after(polite, 3)
    assert code == 130 and "\ny " in out
    assert "gradviz: interrupted; the table shows what the script had computed" in err
    stubborn = write(tmp_path, FIRST_CELL + SCRIPTS["swallows_the_stop"], "stubborn.py")
    code, out, err = _interrupt_after(stubborn, 3)
    assert code == 130 and "\ny " in out
    assert "gradviz: interrupted; the script did not stop, and was killed" in err


def test_an_ordinary_run_is_unchanged(tmp_path):
    """Supervision adds a fork (a few milliseconds): the output, status and errors are the same."""
    r = _gradviz("run", "samples/seed_graph.py")
    assert r.returncode == 0 and "Tensors after samples/seed_graph.py" in r.stdout and r.stderr == ""
    bad = write(tmp_path, "import torch\nx = torch.ones(2)\nx.nope\n", "bad.py")
    r = _gradviz("run", bad)
    assert r.returncode == 1 and "AttributeError: 'Tensor' object has no attribute 'nope'" in r.stderr
    r = _gradviz("run", tmp_path / "missing.py")
    assert r.returncode == 2 and r.stderr.startswith("gradviz run: error: no such file")


@pytest.mark.slow
def test_explain_timeout_holds_too(tmp_path):
    path = write(tmp_path, FIRST_CELL + SCRIPTS["swallows_the_stop"], "s.py")
    r = _gradviz("explain", path, "--timeout", "0.5")
    assert r.returncode == 1
    assert r.stderr.strip() == ("gradviz explain: error: the script did not stop at its --timeout of 0.5 s (it caught "
                                "or disarmed the stop) and was killed before it raised; nothing to explain")
    alarm = write(tmp_path, FIRST_CELL + "signal.alarm(1)\ntime.sleep(10)\n", "alarm.py")
    r = _gradviz("explain", alarm)
    assert r.returncode == 1 and "killed by SIGALRM before it raised" in r.stderr
    r = _gradviz("explain", "samples/errors_demo.py")
    assert r.returncode == 0 and "backward_twice" in r.stdout
