"""`gradviz graph "EXPRESSION"`: evaluation, backward, table, graph, JSON, exit status.

Includes the "Done when" items of issue 5 at the CLI level: the seed expression's DOT
has five AccumulateGrad nodes and grads that match PyTorch for the same values, and
`--backward-twice` shows the verbatim error next to a graph with freed buffers.
"""
import json

import numpy as np
import pytest

from _cli_helpers import (ANSI, backward_labels, check_png, check_svg, dot_nodes, invoke, leaf_names,
                          saved_nodes)

SEED_EXPR = "(w3*(w1*a) + w4*(w2*a)).sum()"
FREED_MSG = ("RuntimeError: Trying to backward through the graph a second time (or directly access saved "
             "tensors after they have already been freed). Saved intermediate values of the graph are freed "
             "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
             "through the graph a second time or if you need to access saved tensors after calling backward.")


def graph_json(*args):
    r = invoke("graph", *args, "--json")
    assert r.stderr == "", r.stderr
    return r, json.loads(r.stdout)


def tensors_of(doc):
    return {t["name"]: t for t in doc["tensors"]}


# --------------------------------------------------------------------------- issue 5, done when


def test_seed_expression_dot_has_five_accumulate_grads_and_grads_match_pytorch(tmp_path):
    out = tmp_path / "g.dot"
    r = invoke("graph", SEED_EXPR, "--shape", "3,3", "-o", out)
    assert r.exit_code == 0, r.stderr
    assert r.stderr == ""
    source = out.read_text()
    labels = backward_labels(source)
    assert labels.count("AccumulateGrad") == 5
    assert labels.count("MulBackward0") == 4
    assert labels.count("AddBackward0") == 1 and labels.count("SumBackward0") == 1
    assert leaf_names(source) == ["a", "w1", "w2", "w3", "w4"]
    # the table: every leaf has a grad, intermediates are labelled by their source text
    rows = {line.split()[0]: line for line in r.stdout.splitlines() if line[:1].isalnum()}
    for name in ("a", "w1", "w2", "w3", "w4", "w1*a", "w3*(w1*a)", "w2*a", "w4*(w2*a)"):
        assert name in rows, name
    assert "Graph written to" in r.stdout and str(out) in r.stdout

    # the same values through real PyTorch
    torch = pytest.importorskip("torch")
    _, doc = graph_json(SEED_EXPR, "--shape", "3,3")
    t = tensors_of(doc)
    leaves = {n: torch.tensor(t[n]["data"], dtype=torch.float32, requires_grad=True)
              for n in ("a", "w1", "w2", "w3", "w4")}
    a, w1, w2, w3, w4 = (leaves[n] for n in ("a", "w1", "w2", "w3", "w4"))
    L = (w3 * (w1 * a) + w4 * (w2 * a)).sum()
    L.backward()
    for n, leaf in leaves.items():
        np.testing.assert_allclose(np.array(t[n]["grad"]["data"]), leaf.grad.numpy(), rtol=1e-6, atol=1e-6)
    assert t[SEED_EXPR]["data"] == pytest.approx(L.item(), rel=1e-6)
    assert t[SEED_EXPR]["grad_fn"] == "SumBackward0"


def test_backward_twice_shows_the_verbatim_error_and_freed_buffers(tmp_path):
    r = invoke("graph", "(x*y).sum()", "--backward-twice")
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    assert "Second backward on (x*y).sum() (--backward-twice) raised, as PyTorch does:" in out
    assert FREED_MSG in out
    # without -o the graph is the tree, freed buffers marked
    assert "_saved_self = x (3,)  freed by backward" in out
    assert "_saved_other = y (3,)  freed by backward" in out
    assert out.index("backward graph of") < out.index("Second backward")

    dot_path = tmp_path / "twice.dot"
    r = invoke("graph", "(x*y).sum()", "--backward-twice", "-o", dot_path)
    assert r.exit_code == 0
    source = dot_path.read_text()
    saved = saved_nodes(source)
    assert len(saved) == 2 and all("freed by backward" in s for s in saved)
    assert "color=red3" in source and "style=\"filled,dashed\"" in source
    title = dot_nodes(source)  # the error is in the picture too (the graph label)
    assert "second backward (--backward-twice) raised RuntimeError: Trying to backward" in source
    assert title  # parsed


def test_retain_graph_makes_the_second_pass_succeed_with_doubled_grads():
    _, once = graph_json("(x*y).sum()")
    r, twice = graph_json("(x*y).sum()", "--backward-twice", "--retain-graph")
    assert twice["second_backward"] == {"ok": True, "error": None}
    for name in ("x", "y"):
        g1 = np.array(tensors_of(once)[name]["grad"]["data"])
        g2 = np.array(tensors_of(twice)[name]["grad"]["data"])
        np.testing.assert_allclose(g2, 2 * g1, rtol=1e-6)
    r = invoke("graph", "(x*y).sum()", "--backward-twice", "--retain-graph")
    assert "Second backward on (x*y).sum() (--backward-twice): succeeded" in r.stdout
    assert "doubled" in r.stdout
    assert "freed by backward" not in r.stdout


def test_backward_twice_in_json():
    r, doc = graph_json("(x*y).sum()", "--backward-twice")
    assert r.exit_code == 0
    assert doc["second_backward"]["ok"] is False
    assert f'{doc["second_backward"]["error"]["type"]}: {doc["second_backward"]["error"]["message"]}' == FREED_MSG


# --------------------------------------------------------------------------- input


def test_assignments_label_the_table_and_the_graph(tmp_path):
    out = tmp_path / "g.dot"
    r = invoke("graph", "b = w1*a; c = w2*a; L = (10 - (w3*b + w4*c)).sum()", "-o", out)
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.split("────\n", 1)[1].splitlines()
    names = [line.split()[0] for line in lines if line[:1].isalnum()]
    assert names[:5] == ["w1", "a", "w2", "w3", "w4"]
    assert {"b", "c", "L", "w3*b", "w4*c"} <= set(names)
    labels = backward_labels(out.read_text())
    assert "RsubBackward1" in labels and labels.count("AccumulateGrad") == 5
    nodes = dot_nodes(out.read_text())
    forward = {label.split("\n")[0] for k, (label, _) in nodes.items() if k.startswith("f_v")}
    assert {"a", "w1", "w2", "w3", "w4", "b", "c", "L", "w3*b"} <= forward


def test_newline_separated_statements_and_stdin():
    r = invoke("graph", "-", input="h = tanh(x)\nL = (h*h).sum()\n")
    assert r.exit_code == 0, r.stderr
    assert "TanhBackward0" in r.stdout and "\nL " in r.stdout


def test_var_shapes_values_and_shape_option():
    r, doc = graph_json("(x @ W).sum()", "--var", "x=2x3", "--var", "W=3,4")
    t = tensors_of(doc)
    assert t["x"]["shape"] == [2, 3] and t["W"]["shape"] == [3, 4]
    assert t["x@W"]["shape"] == [2, 4] if "x@W" in t else t["x @ W"]["shape"] == [2, 4]
    _, doc = graph_json("(x*x).sum()", "--var", "x=linspace(0,1,5)")
    t = tensors_of(doc)
    assert t["x"]["data"] == pytest.approx([0, 0.25, 0.5, 0.75, 1.0])
    assert t["x"]["grad"]["data"] == pytest.approx([0, 0.5, 1.0, 1.5, 2.0])
    _, doc = graph_json("x.sum()", "--shape", "2x5")
    assert tensors_of(doc)["x"]["shape"] == [2, 5]
    _, doc = graph_json("x.sum()")
    assert tensors_of(doc)["x"]["shape"] == [3]  # the default shape


def test_seed_and_dtype():
    _, a = graph_json("x.sum()")
    _, b = graph_json("x.sum()")
    _, c = graph_json("x.sum()", "--seed", "7")
    assert tensors_of(a)["x"]["data"] == tensors_of(b)["x"]["data"] != tensors_of(c)["x"]["data"]
    assert a["seed"] == 0 and c["seed"] == 7
    _, d = graph_json("x.sum()", "--dtype", "float64")
    assert tensors_of(d)["x"]["dtype"] == "float64"


def test_non_scalar_result_backpropagates_ones_with_a_note():
    r = invoke("graph", "x*2")
    assert r.exit_code == 0
    assert "gradviz: note: the result has shape (3,), not a scalar: backward started from ones_like(result)" \
        in r.stderr
    _, doc = graph_json("x*2")
    assert tensors_of(doc)["x"]["grad"]["data"] == [2.0, 2.0, 2.0]
    assert doc["backward"] == {"ran": True, "gradient": "ones", "retain_graph": False}
    assert doc["notes"] and "not a scalar" in doc["notes"][0]


def test_no_backward():
    r, doc = graph_json("(x*y).sum()", "--no-backward")
    assert doc["backward"]["ran"] is False
    assert all(t["grad"] is None for t in doc["tensors"])
    r = invoke("graph", "(x*y).sum()", "--no-backward")
    assert r.exit_code == 0
    assert "backward skipped (--no-backward)" in r.stderr
    assert "_saved_self = x (3,)\n" in r.stdout  # the tree: saved, and not freed
    assert "freed" not in r.stdout


def test_result_that_is_not_a_tensor():
    r = invoke("graph", "x.shape")
    assert r.exit_code == 0
    assert "Result: torch.Size([3])" in r.stdout
    assert "not a tensor: there is no graph to draw" in r.stderr


# --------------------------------------------------------------------------- output


def test_dot_on_stdout_and_the_report_on_stderr():
    r = invoke("graph", "(x*y).sum()", "-o", "-")
    assert r.exit_code == 0
    assert r.stdout.startswith("digraph gradviz {") and r.stdout.rstrip().endswith("}")
    assert "Tensors of (x*y).sum()" in r.stderr
    assert "MulBackward0" in r.stdout


def test_view_option(tmp_path):
    for view, has_f, has_b in (("both", True, True), ("forward", True, False), ("backward", False, True)):
        r = invoke("graph", "(x*y).sum()", "-o", "-", "--view", view)
        assert r.exit_code == 0
        assert ("cluster_forward" in r.stdout) is has_f, view
        assert ("cluster_backward" in r.stdout) is has_b, view


def test_max_nodes_collapses_long_chains():
    expr = "h0 = tanh(x); " + "; ".join(f"h{i} = tanh(h{i - 1})" for i in range(1, 150)) + "; h149.sum()"
    r = invoke("graph", expr, "-o", "-", "--max-nodes", "40")
    assert r.exit_code == 0, r.stderr
    assert "×" in r.stdout and "TanhBackward0" in r.stdout
    assert "collapsed into" in r.stderr  # the note
    full = invoke("graph", expr, "-o", "-", "--max-nodes", "0")
    assert full.stdout.count("TanhBackward0") >= 150


def test_tree_with_an_output_file(tmp_path):
    r = invoke("graph", "(x*y).sum()", "-o", tmp_path / "g.dot", "--tree")
    assert "backward graph of (x*y).sum()" in r.stdout
    r = invoke("graph", "(x*y).sum()", "-o", tmp_path / "g.dot")
    assert "backward graph of" not in r.stdout  # a file and no --tree: no tree


def test_json_document():
    r, doc = graph_json(SEED_EXPR, "--shape", "3,3")
    assert set(doc) == {"expression", "leaves", "seed", "result", "backward", "second_backward", "tensors",
                        "graph", "notes", "warnings", "error"}
    assert doc["leaves"] == ["w3", "w1", "a", "w4", "w2"]
    assert doc["result"]["grad_fn"] == "SumBackward0" and doc["result"]["shape"] == []
    assert doc["error"] is None and doc["graph"] is None
    first = doc["tensors"][0]
    assert set(first) == {"name", "shape", "dtype", "requires_grad", "is_leaf", "retains_grad", "grad_fn", "data",
                          "stats", "grad", "grad_reason"}


def test_json_with_a_file_reports_it(tmp_path):
    out = tmp_path / "g.dot"
    r, doc = graph_json("(x*y).sum()", "-o", out)
    assert doc["graph"]["path"] == str(out) and doc["graph"]["format"] == "dot" and doc["graph"]["error"] is None
    assert out.exists()


def test_real_png_svg_and_pdf(tmp_path):
    for ext in ("png", "svg", "pdf"):
        out = tmp_path / f"g.{ext}"
        r = invoke("graph", SEED_EXPR, "--shape", "3,3", "-o", out)
        assert r.exit_code == 0, r.stderr
        assert f"Graph written to {out} ({ext.upper()}" in r.stdout
    w, h = check_png(tmp_path / "g.png")
    assert w > h > 100
    _, texts = check_svg(tmp_path / "g.svg")
    assert "AccumulateGrad" in texts and "w3*(w1*a)" in texts
    assert (tmp_path / "g.pdf").read_bytes().startswith(b"%PDF")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.pdf", "g.png", "g.svg"]  # no temporary files left


def test_no_colour_and_fixed_width():
    r = invoke("graph", SEED_EXPR, "--shape", "3,3", "--backward-twice")
    assert not ANSI.search(r.stdout) and not ANSI.search(r.stderr)
    assert max(len(line) for line in r.stdout.splitlines() if "Trying to backward" not in line) <= 140


# --------------------------------------------------------------------------- the expression raises: exit 1


def test_engine_error_is_shown_as_explain_would_exit_1():
    r = invoke("graph", "x + y", "--var", "x=3", "--var", "y=4")
    assert r.exit_code == 1
    err = r.stderr.splitlines()
    assert err[0] == ("gradviz graph: the expression raised RuntimeError: The size of tensor a (3) must match "
                      "the size of tensor b (4) at non-singleton dimension 0")
    assert err[1] == "  x + y" and err[2] == "  ^^^^^"
    assert "broadcast_mismatch" in r.stderr and "fix" in r.stderr  # explain's panels
    assert "Traceback" not in r.stderr
    assert "Tensors computed before the error" in r.stdout  # the leaves that were made


def test_engine_error_caret_points_at_the_failing_subexpression():
    r = invoke("graph", "x.sum() + x.sum(dim=3)")
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    assert lines[0].startswith("gradviz graph: the expression raised IndexError: Dimension out of range")
    assert lines[1] == "  x.sum() + x.sum(dim=3)"
    assert lines[2] == "            ^^^^^^^^^^^^"


def test_engine_error_in_json():
    r = invoke("graph", "x + y", "--var", "x=3", "--var", "y=4", "--json")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert doc["error"]["type"] == "RuntimeError"
    assert doc["error"]["explain"]["id"] == "broadcast_mismatch"
    assert doc["error"]["position"] == [1, 1, 6]


# --------------------------------------------------------------------------- safety: refused, exit 2, no side effect

ESCAPES = [
    "__import__('os').system('touch pwned')",
    "().__class__.__bases__[0].__subclasses__()",
    "getattr(x, '__class__')",
    "'{0.__class__}'.format(x)",
    "f'{x.__class__}'",
    "open('pwned', 'w')",
    "eval('1+1')",
    "exec('import os')",
    "[c for c in ().__class__.__base__.__subclasses__()]",
    "(lambda: 1)()",
    "import os",
    "x.__dict__",
    "type(x)",
    "globals()",
    "ones(10**12)",
    "zeros(100000, 100000)",
    "2**2**2**2**2",
    "x._data",
    "torch.save(x, 'pwned')",
    "np.zeros(3)",
]


@pytest.mark.parametrize("expr", ESCAPES)
def test_escapes_are_refused_with_exit_2_and_no_side_effect(expr, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = invoke("graph", expr, "-o", "g.svg")
    assert r.exit_code == 2, (expr, r.stdout, r.stderr)
    assert r.stderr.startswith("gradviz graph: error: "), r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""
    assert list(tmp_path.iterdir()) == []  # nothing written: no picture, no 'pwned'


def test_json_with_tree_puts_the_tree_on_stderr():
    r = invoke("graph", "(x*y).sum()", "--json", "--tree")
    assert r.exit_code == 0
    json.loads(r.stdout)
    assert "backward graph of (x*y).sum()" in r.stderr
