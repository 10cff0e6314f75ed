"""`gradviz run`: output, exit status, stdout and stderr checked separately.

CliRunner runs with a fixed width and no colour; a few checks go through a real
subprocess (`python -m gradviz`) where the process itself matters.
"""
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradviz import cli, scripting
from gradviz.render import tables

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "samples" / "seed_graph.py")
ENV = {"COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb"}
ANSI = re.compile(r"\x1b\[")


def runner():
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        return CliRunner(env=ENV, mix_stderr=False)
    except TypeError:
        return CliRunner(env=ENV)


def invoke(*args):
    return runner().invoke(cli.cli, list(args), catch_exceptions=False)


def write(tmp_path, text, name="script.py"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


ERROR_SCRIPT = """\
import torch
x = torch.ones(3, requires_grad=True)
# %%
y = x * 2
y.backward()
# %%
print("after the error", y.shape)
"""


# --------------------------------------------------------------------------- run


def test_run_sample_passes_output_through_and_prints_a_table():
    r = invoke("run", SAMPLE)
    assert r.exit_code == 0, r.stderr
    assert r.stderr == ""
    out = r.stdout
    assert "L.grad_fn: SumBackward0\n" in out
    assert "dL/dw4 == -c: True\n" in out
    assert out.index("L.grad_fn") < out.index("Tensors after")  # the table comes afterwards
    header = next(line for line in out.splitlines() if line.startswith("name"))
    assert header.split() == ["name", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn",
                              "grad", "data"]
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:] if line[:1].isalnum()}
    assert rows["w1"][1:6] == ["(3,", "3)", "float32", "True", "True"]
    assert rows["b"][5:8] == ["False", "MulBackward0", "None"]
    assert rows["L"][1:3] == ["()", "float32"]
    assert not ANSI.search(out)
    assert all(line == line.rstrip() for line in out.splitlines())
    assert max(len(line) for line in out.splitlines()) <= 120


def test_run_error_is_reported_with_cell_line_and_traceback(tmp_path):
    path = write(tmp_path, ERROR_SCRIPT)
    r = invoke("run", path)
    assert r.exit_code == 1
    assert "after the error torch.Size([3])\n" in r.stdout  # the next cell still ran
    assert "Tensors after" in r.stdout
    err = r.stderr
    assert "Error in cell 2 of 3 (starts at line 4), at line 5:" in err
    assert "Traceback (most recent call last):" in err
    assert f'File "{path}", line 5, in <module>' in err
    assert "    y.backward()" in err
    assert "RuntimeError: grad can be implicitly created only for scalar outputs" in err
    assert "gradviz" not in err.replace(path, "")  # no frames of gradviz itself
    assert err.rstrip().splitlines()[-1] == "1 of 3 cells raised: cell 2 (RuntimeError, line 5)"
    assert not ANSI.search(err)


def test_cells_prints_a_table_after_every_cell(tmp_path):
    path = write(tmp_path, ERROR_SCRIPT)
    r = invoke("run", path, "--cells")
    assert r.exit_code == 1
    titles = [line for line in r.stdout.splitlines() if line.startswith("After cell")]
    assert titles == ["After cell 1 of 3 (line 1)", "After cell 2 of 3 (line 4)",
                      "After cell 3 of 3 (line 7)"]
    assert "Tensors after" not in r.stdout
    # the first table has x only, the second x and y
    first = r.stdout.split("After cell 2")[0]
    assert re.search(r"^x\s", first, re.M) and not re.search(r"^y\s", first, re.M)


def test_json_is_the_only_stdout(tmp_path):
    path = write(tmp_path, ERROR_SCRIPT)
    r = invoke("run", path, "--json")
    assert r.exit_code == 1
    assert r.stderr == ""
    doc = json.loads(r.stdout)
    assert doc["script"] == path
    assert [c["line"] for c in doc["cells"]] == [1, 4, 7]
    assert doc["cells"][1]["error"] == {
        "type": "RuntimeError", "message": "grad can be implicitly created only for scalar outputs"}
    assert doc["cells"][2]["stdout"] == "after the error torch.Size([3])\n"
    assert [t["name"] for t in doc["cells"][2]["tensors"]] == ["x", "y"]


def test_json_exit_0_when_nothing_raised():
    r = invoke("run", SAMPLE, "--json")
    assert r.exit_code == 0 and r.stderr == ""
    doc = json.loads(r.stdout)
    assert "L.grad_fn: SumBackward0" in "".join(c["stdout"] for c in doc["cells"])
    last = {t["name"]: t for t in doc["cells"][-1]["tensors"]}
    assert last["w1"]["grad"] is not None and last["b"]["grad"] is None


def test_script_arguments_after_double_dash(tmp_path):
    path = write(tmp_path, "import sys\nprint(sys.argv[1:])\n")
    r = invoke("run", path, "--", "--lr", "0.1")
    assert r.exit_code == 0
    assert r.stdout.startswith("['--lr', '0.1']\n")


def test_script_without_tensors(tmp_path):
    r = invoke("run", write(tmp_path, "print('hi')\n"))
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0] == "hi"
    assert "no named tensors" in r.stdout


def test_sys_exit_in_the_script(tmp_path):
    r = invoke("run", write(tmp_path, "import sys\n# %%\nsys.exit(3)\n# %%\nprint('no')\n"))
    assert r.exit_code == 1
    assert "no\n" not in r.stdout
    assert "SystemExit: 3" in r.stderr and "1 cell(s) not run" in r.stderr


# --------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize("args, message", [
    (["run", "does/not/exist.py"], "gradviz run: error: no such file: 'does/not/exist.py'"),
    (["run"], "gradviz run: error: Missing argument 'SCRIPT'."),
    (["run", SAMPLE, "--jsn"], "gradviz run: error: No such option"),
    (["runn"], "gradviz: error: No such command 'runn'"),
])
def test_usage_errors_are_one_line_exit_2(args, message):
    r = invoke(*args)
    assert r.exit_code == 2
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith(message)
    assert "Traceback" not in r.stderr


def test_directory_is_a_usage_error(tmp_path):
    r = invoke("run", str(tmp_path))
    assert r.exit_code == 2 and "is a directory" in r.stderr


def test_internal_error_is_one_line_exit_3(monkeypatch):
    def broken(*a, **k):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(scripting, "run_script", broken)
    r = invoke("run", SAMPLE)
    assert r.exit_code == 3
    assert r.stderr.strip() == ("gradviz: internal error: RuntimeError: engine exploded "
                                "(set GRADVIZ_DEBUG=1 for the traceback)")


def test_help():
    r = invoke("--help")
    assert r.exit_code == 0 and "run" in r.stdout and r.stderr == ""
    r = invoke("run", "--help")
    assert r.exit_code == 0
    for word in ("--json", "--cells", "# %%", "Exit status", "SCRIPT"):
        assert word in r.stdout
    r = invoke()
    assert r.exit_code == 0 and "Usage: gradviz" in r.stdout


def test_version():
    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout.startswith("gradviz, version ")


# --------------------------------------------------------------------------- real processes


def test_python_m_gradviz_json(tmp_path):
    path = write(tmp_path, ERROR_SCRIPT)
    p = subprocess.run([sys.executable, "-m", "gradviz", "run", path, "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 1
    assert json.loads(p.stdout)["cells"][1]["error"]["type"] == "RuntimeError"
    assert p.stderr == ""


def test_python_m_gradviz_in_a_pipe_has_no_colour():
    p = subprocess.run([sys.executable, "-m", "gradviz", "run", SAMPLE],
                       capture_output=True, text=True, cwd=ROOT, timeout=120,
                       env={**os.environ, "TERM": "xterm-256color"})
    assert p.returncode == 0, p.stderr
    assert "Tensors after" in p.stdout and not ANSI.search(p.stdout)


def test_cli_module_imports_only_click():
    code = ("import sys, gradviz.cli; "
            "print([m for m in ('rich', 'numpy', 'graphviz', 'gradviz.torch', 'gradviz.scripting') "
            "if m in sys.modules])")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.stdout.strip() == "[]", p.stderr


# --------------------------------------------------------------------------- table text


def test_value_summaries():
    assert tables.format_values([[1.0, 2.5], [-3.0, 0.333333]]) == "[[1, 2.5], [-3, 0.3333]]"
    assert tables.format_values([1.0, 0.0], "bool") == "[True, False]"
    assert tables.format_values([3.0, 4.0], "int64") == "[3, 4]"
    assert tables.format_values(float("nan")) == "nan"
    stats = scripting.Stats(-1.0, 2.0, 0.5, 3.0)
    assert tables.summarize([0.1] * 30, stats, "float32") == "-1..2, mean 0.5"
    assert tables.format_stats(scripting.Stats(-0.70534, 0.25012, -0.076961, 1.0)) == \
        "-0.705..0.25, mean -0.077"
    assert tables.summarize(None, stats, "float32") == "-1..2, mean 0.5"
    assert tables.summarize([], scripting.Stats(None, None, None, 0.0), "float32") == "[]"
    assert tables.format_shape((3,)) == "(3,)" and tables.format_shape(()) == "()"


def test_readme_quick_start_and_ci_agree():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1]
    block = section.split("```", 2)[1].split("\n", 1)[1]
    commands = [c for c in block.strip().splitlines() if c.strip()]
    assert len(commands) == 2
    assert "gradviz run samples/" in commands[0]
    assert "pytest" in commands[1] and "torch==2.13.0" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci
    assert os.access(ROOT / ".ci" / "run", os.X_OK)
    # a fresh machine has no system Graphviz, and CI must prove that gradviz draws anyway
    assert not any("graphviz" in line for line in ci.splitlines() if "apt" in line or "brew" in line)

