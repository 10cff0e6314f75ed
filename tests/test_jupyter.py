"""gradviz inside Jupyter: the %%gradviz magic and gradviz.show(), in a real kernel
(ipykernel + nbclient run a notebook; the outputs' MIME types and contents are checked),
and show() in-process."""
import importlib.util
import re
import sys

import pytest

import gradviz
import gradviz.torch as torch
from _cli_helpers import png_size

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ANSI = re.compile(r"\x1b\[[0-9;]*m")
HAVE_TORCH = importlib.util.find_spec("torch") is not None

CELLS = [
    "%load_ext gradviz",
    # 1: the magic, with --backward-twice and --tree
    "%%gradviz --backward-twice --tree\nimport torch\nx = torch.ones(3, requires_grad=True)\n"
    "y = (x * x).sum()\ny.backward()\ny",
    # 2: later cells see the magic's variables
    "import gradviz.torch as engine\nprint(isinstance(x, engine.Tensor), x.grad)",
    # 3: show()
    "import gradviz\nw = torch.tensor([1., 2.], requires_grad=True)\nloss = (w.exp() * 3).sum()\n"
    "g = gradviz.show(loss)\ng",
    # 4: show().save()
    "r = g.save(PNG)\nprint(r.format, r.width > 50)",
    # 5: a cell that raises: the table and graph first, then the error as the CLI shows it
    "%%gradviz\nz = x.exp()\nz.backward()",
    # 6: a bad option
    "%%gradviz --view sideways\nx",
    # 7: an unknown root
    "%%gradviz --root nope\nq = x * 2",
    # 8: --graph OUT also writes the picture
    "%%gradviz --graph SVG --retain-graph\nv = (x * 3).sum()\nv.backward()\nv.backward()",
    # 9: --help
    "%gradviz --help",
    # 10: the line magic alone
    "%gradviz",
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nb")
    png, svg = folder / "g.png", folder / "g.svg"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c.replace("PNG", repr(str(png))).replace("SVG", str(svg)))
                for c in CELLS]
    if HAVE_TORCH:  # a notebook that imported the real torch: the magic's cells still use gradviz's
        nb.cells += [nbformat.v4.new_code_cell("import torch\nimport torch.nn as nn"),
                     nbformat.v4.new_code_cell("%%gradviz\nt = torch.ones(2, requires_grad=True)\n"
                                               "lin = nn.Linear(2, 1)\nout = lin(t).sum()\nout.backward()\n"
                                               "import gradviz.torch as engine\n"
                                               "print(isinstance(t, engine.Tensor), isinstance(lin, engine.nn.Linear))"),
                     nbformat.v4.new_code_cell("print(torch.__name__, nn.__name__)")]
    client = nbclient.NotebookClient(nb, timeout=180, kernel_name="python3", allow_errors=True,
                                     resources={"metadata": {"path": str(folder)}})
    client.execute()
    return nb, png, svg


def outputs(nb, k, kind=None):
    return [o for o in nb.cells[k].outputs if kind is None or o.output_type == kind]


def stream(nb, k, name="stdout"):
    """A cell's stream output, without colour codes (Jupyter shows them as colours)."""
    return ANSI.sub("", "".join(o.text for o in outputs(nb, k, "stream") if o.name == name))


def data(nb, k, mime):
    return [o.data[mime] for o in nb.cells[k].outputs if o.output_type in ("display_data", "execute_result")
            and mime in o.data]


@pytest.mark.slow
def test_load_ext_registers_the_magic_quietly(executed):
    nb, _, _ = executed
    assert outputs(nb, 0) == []


@pytest.mark.slow
def test_the_magic_shows_table_graph_tree_and_second_backward(executed):
    nb, _, _ = executed
    assert not outputs(nb, 1, "error")
    assert data(nb, 1, "text/plain")[0] == "tensor(3., grad_fn=<SumBackward0>)"  # the last expression, shown
    table = data(nb, 1, "text/html")[0]
    assert '<table class="gv-tensors">' in table and "<caption>Tensors this cell made or changed</caption>" in table
    assert re.search(r"<td class=\"name\">x</td><td>\(3,\)</td><td>float32</td><td>True</td><td>True</td>", table)
    assert '<td class="grad_fn">SumBackward0</td>' in table
    plain = [t for t in data(nb, 1, "text/plain") if "Tensors this cell made or changed" in t]
    assert plain and "SumBackward0" in plain[0]  # the table as the terminal prints it, for text-only front ends
    explorer = data(nb, 1, "text/html")[1]
    assert 'aria-label="Search the graph"' in explorer and ">Step</button>" in explorer  # the backward replays
    svg = data(nb, 1, "image/svg+xml")[0]
    assert svg.lstrip().startswith(("<?xml", "<svg")) and "MulBackward0" in svg and "freed by backward" in svg
    assert "In [2]:4" in svg  # sites name the notebook cell
    text = stream(nb, 1)
    assert "Graph of y: 3 backward nodes, 2 forward ops; root chosen by the last backward call (In [2], line 4)" \
        in text
    assert "└── SumBackward0 → y" in text  # --tree
    assert "Second backward on y (--backward-twice) raised, as PyTorch does:\nRuntimeError: Trying to backward " \
           "through the graph a second time" in text


@pytest.mark.slow
def test_later_cells_see_the_magics_variables(executed):
    nb, _, _ = executed
    assert stream(nb, 2) == "True tensor([2., 2., 2.])\n"


@pytest.mark.slow
def test_show_draws_inline_and_saves(executed):
    nb, png, _ = executed
    result = outputs(nb, 3, "execute_result")[0]
    assert set(result.data) == {"text/plain", "image/svg+xml", "text/html"}
    svg = result.data["image/svg+xml"]
    assert "ExpBackward0" in svg and "MulBackward0" in svg and ">w<" in svg  # the leaf named after the variable
    # a text-only front end gets the graph as the tree
    text = result.data["text/plain"]
    assert text.startswith("<gradviz Graph: ") and "└── SumBackward0" in text and "AccumulateGrad → w" in text
    # the explorer: the same picture, a search box, the nodes' data, its script
    explorer = result.data["text/html"]
    assert 'type="search"' in explorer and "ExpBackward0" in explorer and '<script type="application/json"' in explorer
    assert stream(nb, 4) == "png True\n"
    assert png_size(png)[0] > 50


@pytest.mark.slow
def test_a_cell_that_raises_shows_what_it_computed_then_the_users_error(executed):
    nb, _, _ = executed
    (error,) = outputs(nb, 5, "error")
    assert error.ename == "CellFailed"
    assert error.traceback == [
        "Error in In [6]:", "Traceback (most recent call last):", '  File "In [6]", line 2, in <module>',
        "    z.backward()", "RuntimeError: grad can be implicitly created only for scalar outputs"]
    assert "z" in data(nb, 5, "text/html")[0] and data(nb, 5, "image/svg+xml")


@pytest.mark.slow
def test_a_bad_option_is_one_line(executed):
    nb, _, _ = executed
    assert stream(nb, 6, "stderr") == ("UsageError: %%gradviz: Invalid value for '--view': 'sideways' is not one of "
                                       "'both', 'forward', 'backward'. (see '%%gradviz --help')\n")
    assert not data(nb, 6, "text/html")


@pytest.mark.slow
def test_an_unknown_root_is_one_line_after_the_table(executed):
    nb, _, _ = executed
    assert not outputs(nb, 7, "error")
    assert "q" in data(nb, 7, "text/html")[0]
    assert stream(nb, 7, "stderr").startswith("%%gradviz: error: --root nope: the script has no tensor named 'nope'")


@pytest.mark.slow
def test_graph_option_writes_the_picture_and_retain_graph_holds(executed):
    nb, _, svg = executed
    assert not outputs(nb, 8, "error")
    text = stream(nb, 8)
    assert f"Graph written to {svg} (SVG, " in text
    assert svg.read_text().lstrip().startswith("<?xml")


@pytest.mark.slow
def test_help_lists_the_options(executed):
    nb, _, _ = executed
    text = stream(nb, 9)
    assert text.startswith("Usage: %%gradviz [OPTIONS]")
    for option in ("--view", "--max-nodes", "--tree", "--backward-twice", "--retain-graph", "--root", "--graph"):
        assert option in text
    assert stream(nb, 10, "stderr") == ("UsageError: %gradviz runs a whole cell: put %%gradviz on the cell's first "
                                        "line (%gradviz --help lists its options)\n")


@pytest.mark.skipif(not HAVE_TORCH, reason="needs real PyTorch in the kernel")
@pytest.mark.slow
def test_names_bound_to_real_torch_mean_gradviz_in_the_magic_only(executed):
    nb, _, _ = executed
    assert not outputs(nb, len(CELLS) + 1, "error")
    assert stream(nb, len(CELLS) + 1).startswith("True True\n")
    assert stream(nb, len(CELLS) + 2) == "torch torch.nn\n"


# --------------------------------------------------------------------------- show() in-process


def test_show_names_leaves_after_the_callers_variables():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = (a * a).sum()
    g = gradviz.show(b)
    assert 'label="a\\n(2,)"' in g.source or "a\\n(2,)" in g.source
    assert g.view == "backward" and "MulBackward0" in g.source


def test_show_takes_params_and_dicts_as_torchviz_does():
    from gradviz.torch import nn

    model = nn.Linear(3, 2)
    out = model(torch.ones(1, 3)).sum()
    g = gradviz.show(out, params=dict(model.named_parameters()))
    assert "weight\\n(2, 3)" in g.source and "bias\\n(2,)" in g.source
    g2 = gradviz.show({"total": out})
    assert "total\\n()" in g2.source


def test_import_gradviz_loads_no_jupyter():
    import subprocess

    code = "import gradviz, sys; print(sorted(m for m in ('IPython', 'click', 'rich', 'graphviz', 'numpy') if m in sys.modules))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == "[]"
