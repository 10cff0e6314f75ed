"""An output that is the script (or the notebook) itself is refused, before anything runs:
gradviz runs a script whatever its extension, so `gradviz run s.dot --graph s.dot` would
otherwise replace the user's code with a picture. Files are compared by identity, so
links and other spellings of the path are refused too."""
import os

import pytest

from _cli_helpers import invoke

SCRIPT = "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("script, option, output, link", [
    ("s.dot", "--graph", "s.dot", None),
    ("s.svg", "--graph", "s.svg", None),
    ("s.png", "--graph", "s.png", None),
    ("s.html", "--html", "s.html", None),
    ("s.svg", "--graph", "./s.svg", None),
    ("s.py", "--graph", "copy.svg", "symlink"),
    ("s.py", "--html", "copy.html", "hardlink"),
    ("n.ipynb", "--html", "n.html", "symlink"),
])
def test_run_refuses_to_write_over_its_script(folder, script, option, output, link):
    text = SCRIPT
    if script.endswith(".ipynb"):
        import json
        text = json.dumps({"cells": [{"cell_type": "code", "source": SCRIPT, "metadata": {}, "outputs": [],
                                      "execution_count": 1}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    (folder / script).write_text(text)
    if link == "symlink":
        os.symlink(script, output)
    elif link == "hardlink":
        os.link(script, output)
    r = invoke("run", script, option, output)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"gradviz run: error: {option} '{output}' is the script itself ('{script}'): writing it would replace your "
        "code; choose another file name"]
    assert (folder / script).read_text() == text  # untouched
    assert r.stdout == ""  # refused before anything ran


def test_explain_refuses_to_draw_over_its_script(folder):
    (folder / "s.py").write_text(SCRIPT + "y.backward()\n")
    os.symlink("s.py", "g.svg")
    r = invoke("explain", "s.py", "--graph", "g.svg")
    assert r.exit_code == 2 and "--graph 'g.svg' is the script itself ('s.py')" in r.stderr
    assert (folder / "s.py").read_text() == SCRIPT + "y.backward()\n"


def test_another_file_of_the_same_name_elsewhere_is_written(folder):
    (folder / "sub").mkdir()
    (folder / "sub" / "s.svg").write_text(SCRIPT)
    (folder / "s.svg").write_text("old picture")
    r = invoke("run", "sub/s.svg", "--graph", "s.svg")
    assert r.exit_code == 0, r.stderr
    assert (folder / "sub" / "s.svg").read_text() == SCRIPT
    assert (folder / "s.svg").read_text().startswith("<?xml")
