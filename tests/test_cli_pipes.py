"""gradviz run in a pipeline whose reader leaves early (``gradviz run s.py | head -1``):
the run stops quietly with status 141, as a shell reports a command stopped by SIGPIPE,
instead of blaming the user's print() with a BrokenPipeError."""
import os
import subprocess
import sys

from _cli_helpers import ENV, ROOT, process_env, write


def _first_line_then_close(args):
    env = {**os.environ, **ENV}
    proc = subprocess.Popen([sys.executable, "-m", "gradviz", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=env)
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader goes away, as head does
    stderr = proc.stderr.read().decode()
    return first.decode(), proc.wait(timeout=120), stderr


def test_a_script_printing_into_a_closed_pipe_stops_quietly(tmp_path):
    script = write(tmp_path, "import torch\nfor i in range(200000):\n    print(i)\n", "loud.py")
    first, code, stderr = _first_line_then_close(["run", script])
    assert first == "0\n"
    assert code == 141
    assert "BrokenPipeError" not in stderr and "Traceback" not in stderr
    assert stderr == ""


def test_the_table_into_a_closed_pipe_stops_quietly():
    first, code, stderr = _first_line_then_close(["run", "samples/seed_graph.py"])
    assert first
    assert code in (0, 141)  # the whole output may fit in the pipe before it closes
    assert "Error" not in stderr and "Traceback" not in stderr


def test_explain_into_a_closed_pipe_stops_quietly():
    first, code, stderr = _first_line_then_close(["explain", "samples/errors_demo.py"])
    assert first.startswith("╭─ error")
    assert code in (0, 141)  # 141 when the reader left before the panels were written
    assert stderr == ""


import pytest  # noqa: E402


@pytest.mark.parametrize("buffering", ["buffered", "unbuffered"])
@pytest.mark.parametrize("args", [["run", "samples/seed_graph.py"], ["run", "samples/tiny_mlp.py", "--json"],
                                  ["graph", "(x*x).sum()"], ["graph", "(x*x).sum()", "--json"],
                                  ["explain", "--list"], ["--help"]])
def test_a_reader_gone_before_the_first_line_is_141_and_silence(args, buffering):
    """The pipe's reader is gone before gradviz writes anything: whatever the buffering (a
    user's Python buffers stdout, PYTHONUNBUFFERED=1 does not), status 141 and nothing on
    stderr, not even from Python's flush at exit."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "gradviz", *args], stdout=write_end, stderr=subprocess.PIPE,
                              cwd=ROOT, env=process_env(buffering), timeout=120)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr.decode()) == (141, "")
