"""Issue 18's hostile inputs: each ends as documented (exit status, one clear line or the
user's own traceback), within bounded time and memory, and leaves nothing of gradviz's
internals on screen."""
import json

from _cli_helpers import invoke, write

OWN_BASE_EXCEPTION = """\
import torch
x = torch.ones(2, requires_grad=True)
class Stop(BaseException):
    pass

def f():
    raise Stop("enough")
# %%
f()
# %%
y = x * 2
"""


def test_a_scripts_own_base_exception_ends_its_cell_only(tmp_path):
    path = write(tmp_path, OWN_BASE_EXCEPTION, "stop.py")
    r = invoke("run", path)
    assert r.exit_code == 1
    assert 'File "' + path + '", line 7, in f\n    raise Stop("enough")\nStop: enough' in r.stderr
    assert "gradviz" not in r.stderr.replace(path, "")  # the user's frames only
    assert "\ny " in r.stdout  # the cell after it ran
    doc = json.loads(invoke("run", path, "--json").stdout)
    assert [c["error"] and c["error"]["type"] for c in doc["cells"]] == [None, "Stop", None]


def test_generator_exit_raised_by_a_script_is_its_error(tmp_path):
    path = write(tmp_path, "import torch\nx = torch.ones(2)\nraise GeneratorExit\n", "gen.py")
    r = invoke("run", path)
    assert r.exit_code == 1
    assert "GeneratorExit" in r.stderr and "1 of 1 cell raised: cell 1 (GeneratorExit, line 3)" in r.stderr
    assert "\nx " in r.stdout


def test_devices_and_huge_files_are_refused_before_reading_them(tmp_path, monkeypatch):
    import os

    from gradviz import scripting
    for device, command in (("/dev/zero", "run"), ("/dev/urandom", "run"), ("/dev/zero", "explain")):
        link = tmp_path / f"{os.path.basename(device)}_{command}.py"
        link.symlink_to(device)
        r = invoke(command, link)
        assert r.exit_code == 2, r.stderr
        assert r.stderr.strip().endswith(f"'{link}' is a binary file, not a Python script (see 'gradviz {command} "
                                         "--help')")
    monkeypatch.setattr(scripting, "MAX_SOURCE_BYTES", 1000)
    big = write(tmp_path, "x = 1\n" * 200, "big.py")
    r = invoke("run", big)
    assert r.exit_code == 2
    assert f"'{big}' is larger than 0 MiB" not in r.stderr  # the cap is stated in bytes when small
    assert "is larger than" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_an_endless_expression_on_stdin_is_refused():
    r = invoke("graph", "-", input="a" * 50_000)
    assert r.exit_code == 2
    assert r.stderr.strip() == ("gradviz graph: error: the expression on stdin is longer than 10,000 characters "
                                "(see 'gradviz graph --help')")
