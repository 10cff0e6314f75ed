"""Notebooks as input: reading .ipynb files, IPython's syntax set aside, and `gradviz run` /
`gradviz explain` on a notebook, with cells named the way the notebook shows them."""
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _cli_helpers import ROOT, SAMPLES, invoke
from gradviz import notebook, scripting

NOTEBOOK = str(SAMPLES / "autograd_basics.ipynb")


def nb(*cells, metadata=None, nbformat=4):
    """A notebook document: each cell is ('code', source, count) or ('markdown', source)."""
    out = []
    for c in cells:
        if c[0] == "code":
            out.append({"cell_type": "code", "execution_count": c[2] if len(c) > 2 else None, "metadata": {},
                        "outputs": [], "source": c[1]})
        else:
            out.append({"cell_type": c[0], "metadata": {}, "source": c[1]})
    return {"cells": out, "metadata": metadata or {"kernelspec": {"language": "python"}},
            "nbformat": nbformat, "nbformat_minor": 5}


def write_nb(tmp_path, doc, name="n.ipynb"):
    p = tmp_path / name
    p.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
    return str(p)


# --------------------------------------------------------------------------- IPython -> Python


@pytest.mark.parametrize("line, why", [
    ("%matplotlib inline", "an IPython magic"),
    ("!pip install torch", "a shell command"),
    ("  !ls -la", "a shell command"),
    ("files = !ls", "a shell command assigned"),
    ("a, b = %who_ls", "an IPython magic assigned"),
    ("torch.randn?", "IPython help"),
    ("?torch.randn", "IPython help"),
    ("x??  # the source", "IPython help"),
    ("%load_ext autoreload", "an IPython magic"),
])
def test_ipython_lines_become_pass_with_a_note(line, why):
    source, set_aside = notebook.python_of(f"x = 1\n{line}\ny = 2")
    indent = line[:len(line) - len(line.lstrip())]
    assert source == f"x = 1\n{indent}pass\ny = 2"
    assert set_aside == [notebook.SetAside(2, line.strip(), why)]


def test_time_magics_keep_their_statement():
    source, set_aside = notebook.python_of("%time y = f(x)\n%timeit -n 10 -r 3 g(x)\n%timeit -q h(x)")
    assert source == "y = f(x)\ng(x)\nh(x)"
    assert [x.kept for x in set_aside] == ["y = f(x)", "g(x)", "h(x)"]
    assert set_aside[1].note("In [4]") == "In [4], line 2: ran `g(x)` once, without `%timeit` (an IPython magic)"


def test_indented_magics_keep_the_block_a_block():
    source, _ = notebook.python_of("for i in range(3):\n    %time y = i\n    !echo it's\nprint(y)")
    assert source == "for i in range(3):\n    y = i\n    pass\nprint(y)"
    compile(source, "cell", "exec")


@pytest.mark.parametrize("text", [
    's = """\n%not a magic\n!nor a shell\n"""',
    "t = (1,\n     % 2)",
    "x = [\n  1,\n]\n",
    "y = 1 \\\n    % 2",
    "# what is this?\nz = 3",
    "w = 'what?'",
    "u = a != b",
    "v = {'a': 1}  # really?",
])
def test_python_is_left_alone(text):
    assert notebook.python_of(text) == (text, [])


def test_the_projects_own_python_is_left_alone():
    """Real code, thousands of lines of it: nothing looks like IPython to the scanner."""
    files = sorted((ROOT / "gradviz").rglob("*.py")) + sorted((ROOT / "tests").glob("*.py"))
    assert len(files) > 50
    for path in files:
        text = path.read_text(encoding="utf-8")
        source, set_aside = notebook.python_of(text)
        assert set_aside == [], (path, set_aside[:3])
        assert source == text


@pytest.mark.parametrize("magic, runs", [
    ("%%time", True), ("%%timeit -n 3", True), ("%%capture out", True), ("%%gradviz --tree", True),
    ("%%bash", False), ("%%writefile model.py", False), ("%%html", False), ("%%javascript", False),
])
def test_cell_magics(magic, runs):
    source, set_aside = notebook.python_of(f"\n{magic}\nx = 1\n")
    if runs:
        assert source == "\npass\nx = 1\n"
        assert set_aside[0].why == "an IPython cell magic; the cell's code ran without it"
    else:
        assert source == ""
        assert set_aside[0].line == 2 and set_aside[0].why.startswith("the whole cell: %%")


# --------------------------------------------------------------------------- reading notebooks


def test_code_cells_in_order_named_as_the_notebook_shows_them(tmp_path):
    doc = nb(("markdown", "# Title"), ("code", ["import torch\n", "x = 1"], 3), ("raw", "raw text"),
             ("code", "y = 2", None), ("code", "   \n", 7), ("code", "z = x + y;  # quiet", 9))
    cells = notebook.read_notebook("n.ipynb", json.dumps(doc).encode())
    assert [(c.label, c.index, c.source) for c in cells] == [
        ("In [3]", 1, "import torch\nx = 1"), ("cell 2", 3, "y = 2"), ("In [9]", 5, "z = x + y;  # quiet")]
    assert [c.quiet for c in cells] == [False, False, True]


def test_nbformat_3_is_read(tmp_path):
    doc = {"nbformat": 3, "metadata": {}, "worksheets": [{"cells": [
        {"cell_type": "heading", "level": 1, "source": "T"},
        {"cell_type": "code", "input": ["a = 1\n", "a"], "prompt_number": 4, "language": "python"}]}]}
    cells = notebook.read_notebook("old.ipynb", json.dumps(doc).encode())
    assert [(c.label, c.source) for c in cells] == [("In [4]", "a = 1\na")]


@pytest.mark.parametrize("content, message", [
    ('{"cells": [', r"it is not valid JSON \(Expecting value at line 1, column 12\)"),
    ("[1, 2]", "its JSON is not an object"),
    ('{"nbformat": 4}', r"it has no list of cells \(is it a Jupyter notebook\?\)"),
    ('{"cells": [5]}', "cell 1 is not an object"),
    ('{"cells": [{"cell_type": "code", "source": 5}]}', "the source of cell 1 is not text"),
    ("", "the file is empty"),
    ('{"cells": [], "metadata": {"kernelspec": {"language": "R"}}}',
     r"cannot run '.*': its code is R, and gradviz runs Python"),
])
def test_a_malformed_notebook_is_one_clear_line_and_exit_2(tmp_path, content, message):
    path = write_nb(tmp_path, content)
    for command in ("run", "explain"):
        r = invoke(command, path)
        assert r.exit_code == 2, (command, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert re.search(rf"^gradviz {command}: error: (cannot read '.*n\.ipynb' as a notebook: )?{message}",
                         r.stderr), r.stderr
        assert r.stdout == ""


def test_a_binary_or_missing_notebook(tmp_path):
    p = tmp_path / "b.ipynb"
    p.write_bytes(b"\x00\x01PK")
    r = invoke("run", p)
    assert r.exit_code == 2 and "is a binary file, not a notebook" in r.stderr
    r = invoke("run", tmp_path / "none.ipynb")
    assert r.exit_code == 2 and "no such file" in r.stderr


# --------------------------------------------------------------------------- gradviz run NOTEBOOK


def test_run_a_notebook_names_cells_and_lines_as_the_notebook_does():
    r = invoke("run", NOTEBOOK)
    assert r.exit_code == 1  # In [5] raises, as the notebook shows
    notes = [line for line in r.stderr.splitlines() if line.startswith("gradviz: note:")]
    assert notes == [
        "gradviz: note: In [1], line 1: skipped `!pip install torch` (a shell command; gradviz runs Python only)",
        "gradviz: note: In [1], line 2: skipped `%matplotlib inline` (an IPython magic; gradviz runs Python only)",
        "gradviz: note: In [3], line 4: ran `L = (10 - d).sum()` once, without `%time` (an IPython magic)",
        "gradviz: note: In [5], line 1: skipped `torch.Tensor.backward?` (IPython help; gradviz runs Python only)",
    ]
    assert "Error in In [5] (cell 5 of 6), at line 2:\n" in r.stderr
    assert f'  File "{NOTEBOOK}, In [5]", line 2, in <module>\n    L.backward()\n' in r.stderr
    assert r.stderr.rstrip().endswith("1 of 6 cells raised: In [5] (RuntimeError, line 2)")
    assert "(True, None)\n" in r.stdout  # a cell's last expression is shown, as Jupyter shows it
    assert "w4.grad" not in r.stdout and "tensor([[" not in r.stdout  # ...unless it ends with ';'
    assert f"Tensors after {NOTEBOOK}" in r.stdout


def test_run_cells_titles_name_the_notebooks_cells():
    r = invoke("run", NOTEBOOK, "--cells")
    titles = re.findall(r"^After (.*?)(?::|$)", r.stdout, re.M)
    assert titles == [f"In [{k}] (cell {k} of 6)" for k in range(1, 7)]


def test_run_json_keeps_the_schema_and_adds_the_cell_names():
    r = invoke("run", NOTEBOOK, "--json")
    doc = json.loads(r.stdout)
    assert list(doc) == ["script", "cells", "notes"] and len(doc["notes"]) == 4
    assert [list(c) for c in doc["cells"]] == [["line", "stdout", "error", "tensors", "warnings", "cell"]] * 6
    assert [c["cell"] for c in doc["cells"]] == [f"In [{k}]" for k in range(1, 7)]
    assert {c["line"] for c in doc["cells"]} == {1}
    assert doc["cells"][4]["error"]["type"] == "RuntimeError"
    assert [t["name"] for t in doc["cells"][1]["tensors"]] == ["a", "w1", "w2", "w3", "w4"]


def test_graph_sites_name_cells(tmp_path):
    r = invoke("run", NOTEBOOK, "--graph", "-")
    assert r.exit_code == 1
    sites = set(re.findall(r"In \[\d\]:\d+", r.stdout))
    assert sites == {"In [6]:1", "In [6]:3"}  # the last backward's graph: built on line 1, freed on line 3
    assert "autograd_basics.ipynb:" not in r.stdout
    assert "root chosen by the last backward call (In [6], line 3)" in r.stderr


def test_syntax_errors_point_into_the_cell(tmp_path):
    path = write_nb(tmp_path, nb(("code", "x = 1", 1), ("code", "y = (\n  2 +\n", 2), ("code", "z = x", 3)))
    r = invoke("run", path)
    assert r.exit_code == 1
    assert "Error in In [2] (cell 2 of 3), at line 1:" in r.stderr
    assert f'  File "{path}, In [2]", line 1\n    y = (\n        ^\nSyntaxError: \'(\' was never closed' in r.stderr
    assert "1 of 3 cells raised: In [2] (SyntaxError, line 1)" in r.stderr


def test_display_prints_each_objects_repr(tmp_path):
    path = write_nb(tmp_path, nb(("code", "import torch\ndisplay(torch.ones(2), 'a')", 1)))
    r = invoke("run", path)
    assert r.exit_code == 0
    assert r.stdout.startswith("tensor([1., 1.])\n'a'\n")


def test_explain_a_notebook_speaks_of_its_cells():
    r = invoke("explain", NOTEBOOK, "--json")
    assert r.exit_code == 0
    d = json.loads(r.stdout)
    assert d["id"] == "backward_twice"
    assert (d["error"]["cell"], d["error"]["line"], d["error"]["code"]) == ("In [5]", 2, "L.backward()")
    assert "at In [5], line 2 (`L.backward()`)" in d["cause"]
    assert "#1 at In [4], line 1 (`L.backward()`)" in d["cause"]
    r = invoke("explain", NOTEBOOK)
    assert "In [5], line 2: L.backward()" in r.stdout


def test_the_program_maps_lines_both_ways():
    program = scripting.load_program(NOTEBOOK)
    assert program.notebook and [c.label for c in program.cells] == [f"In [{k}]" for k in range(1, 7)]
    lines = program.text.splitlines()
    for cell in program.cells:
        for k, line in enumerate(cell.source.splitlines(), 1):
            n = cell.code_line + k - 1
            assert lines[n - 1] == line
            assert program.where(n) == (cell.label, k)
            assert program.describe(n) == f"{cell.label}, line {k}"
    assert program.site((program.code_path, program.cells[2].code_line + 1)) == ("In [3]", 2)
    assert program.site(("/elsewhere/helper.py", 5)) == ("/elsewhere/helper.py", 5)
    script = scripting.load_program(str(SAMPLES / "seed_graph.py"))
    assert not script.notebook and script.describe(12) == "line 12" and script.site(("x", 3)) == ("x", 3)


def test_sample_notebook_is_valid_nbformat():
    doc = json.loads(Path(NOTEBOOK).read_text())
    assert doc["nbformat"] == 4 and all("id" in c for c in doc["cells"])


FRAGMENTS = ["x = 1", "%time y = 2", "!ls", "s = '''", "'''", "(", ")", "  if x:", "    %matplotlib", "a?",
             "# c?", "b = \\", "%%bash", "%%time", "d = {'k': '?'}", "z = !pwd", "  ", ""]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=12), max_size=25))
def test_every_line_keeps_its_place(lines):
    text = "\n".join(lines)
    source, set_aside = notebook.python_of(text)
    if source == "" and set_aside and set_aside[0].why.startswith("the whole cell"):
        return
    out = source.split("\n")
    assert len(out) == len(text.split("\n"))
    changed = {x.line for x in set_aside}
    for k, (before, after) in enumerate(zip(text.split("\n"), out), 1):
        if k not in changed:
            assert before == after
        else:
            assert after.strip() in ("pass", before.strip()) or before.strip().startswith("%")
