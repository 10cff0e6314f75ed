"""`gradviz explain` speaks of the user's code only (issue 17), checked on the CLI's text:

- facts in the user's names: a script whose saved tensor is `a` never hears of a `y`;
- no internal fields (raw context JSON, engine ids, match details) in the default output;
- whole panel titles, with the id and the line visible, at 60 to 200 columns;
- suggestions for an unknown message are close ones or none;
- `--graph` names the root and highlights the failing node;
- `--json` is strict JSON.
"""
import glob
import json
import math
import re

import pytest
from click.testing import CliRunner

from _cli_helpers import ROOT, SAMPLES, dot_nodes, invoke, write
from gradviz import cli

ERRORS = SAMPLES / "errors"
WIDTHS = (60, 80, 100, 200)

#: words of the catalog's examples that must not appear as facts about a script that does not use them
EXAMPLE_NAMES = ("y", "z", "w", "x", "y_const", "v", "p", "t")

#: internal data the default output must not show
INTERNAL = ("node_line", "engine_id", "match rule", "match approximate", "saved_slot", "freed_by", "failing_call",
            "new_graph_reaches_freed_one", "inplace_lines_from", "error_line", "diagnosis_error", "score 0.",
            '{"', '["', "output_nr", "tensor_type")


def run_at(width, *args, input=None):
    try:
        r = CliRunner(env={"COLUMNS": str(width), "NO_COLOR": "1", "TERM": "dumb"}, mix_stderr=False)
    except TypeError:
        r = CliRunner(env={"COLUMNS": str(width), "NO_COLOR": "1", "TERM": "dumb"})
    return r.invoke(cli.cli, [str(a) for a in args], input=input, catch_exceptions=False)


def prose(out):
    """The panels' text as one line: borders and the line breaks of wrapping removed."""
    rows = []
    for line in out.splitlines():
        line = line.strip()
        if line[:1] in "╭╰":
            line = line.strip("╭╰─╮╯ ")
        rows.append(line.strip("│").strip())
    return re.sub(r"\s+", " ", " ".join(rows))


def words(text):
    return set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", text))


# --------------------------------------------------------------------------- the user's names

A_SCRIPTS = {
    "detach_alias": """\
        import torch
        x = torch.randn(4, requires_grad=True)
        a = x.sigmoid()
        d = a.detach()
        d.mul_(2)
        a.sum().backward()
    """,
    "inplace_saved": """\
        import torch
        inp = torch.randn(4, requires_grad=True)
        a = torch.tanh(inp)
        a += 1
        a.sum().backward()
    """,
    "inplace_input": """\
        import torch
        weight = torch.randn(2, 4, requires_grad=True)
        a = torch.randn(4, 3)
        out = weight @ a
        a.mul_(0.5)
        out.sum().backward()
    """,
    "nonscalar_expression": """\
        import torch
        a = torch.randn(2, 3, requires_grad=True)
        (a * a).backward()
    """,
    "freed_twice": """\
        import torch
        a = torch.randn(5, requires_grad=True)
        b = a.exp().sum()
        b.backward()
        b.backward()
    """,
}


@pytest.mark.parametrize("name", sorted(A_SCRIPTS))
def test_facts_use_the_scripts_names_never_the_catalogs(tmp_path, name):
    path = write(tmp_path, A_SCRIPTS[name])
    r = invoke("explain", path)
    assert r.exit_code == 0, r.stderr
    text = prose(r.stdout)
    assert re.search(r"`[^`]*(?<![\w.])[ab](?!\w)[^`]*`", text), text  # the user's own names are used
    used = words(open(path).read())
    for example in EXAMPLE_NAMES:
        if example not in used:
            assert not re.search(rf"(?<![\w.\[]){example}(?![\w(\[])", text), (example, text)


def test_the_saved_tensor_a_is_named_in_the_detach_case(tmp_path):
    r = invoke("explain", write(tmp_path, A_SCRIPTS["detach_alias"]))
    text = prose(r.stdout)
    assert "`d` was made with .detach() from `a`" in text
    assert "the saved tensor changed" in text and "saved y" not in text


def test_an_unnamed_output_is_named_by_its_expression(tmp_path):
    r = invoke("explain", "--json", write(tmp_path, A_SCRIPTS["nonscalar_expression"]))
    doc = json.loads(r.stdout)
    assert doc["id"] == "backward_nonscalar"
    assert "`(a * a)` of shape [2, 3] has 6 elements" in doc["cause"]
    assert doc["fix"]["after"] == "(a * a).sum().backward()"


def _identifiers_in_backticks(text):
    for span in re.findall(r"`([^`]+)`", text):
        yield from re.findall(r"(?<![.\w])[A-Za-z_]\w*", span)


ALLOWED = {"torch", "if", "is", "not", "None", "else", "for", "in", "with", "gradviz", "explain", "script", "list",
           "engine", "nn", "and", "or", "while"}


@pytest.mark.parametrize("path", sorted(glob.glob(str(ERRORS / "*.py"))) + [str(SAMPLES / "errors_demo.py")],
                         ids=lambda p: p.rsplit("/", 1)[-1][:-3])
def test_every_name_in_backticks_is_the_users(path):
    r = invoke("explain", path)
    assert r.exit_code == 0, r.stderr
    used = words(open(path).read())
    strays = {w for w in _identifiers_in_backticks(prose(r.stdout)) if w not in used and w not in ALLOWED}
    assert not strays, strays


def test_a_message_labels_the_catalog_example_as_one():
    r = invoke("explain", "grad can be implicitly created only for scalar outputs")
    assert "before (an example, not your code)" in r.stdout
    doc = json.loads(invoke("explain", "--json", "grad can be implicitly created only for scalar outputs").stdout)
    assert doc["fix"]["example"] is True


# --------------------------------------------------------------------------- no internal fields


@pytest.mark.parametrize("path", sorted(glob.glob(str(ERRORS / "*.py"))) + [str(SAMPLES / "errors_demo.py")],
                         ids=lambda p: p.rsplit("/", 1)[-1][:-3])
def test_no_internal_fields_in_script_mode(path):
    out = invoke("explain", path).stdout
    for field in INTERNAL:
        assert field not in out, field


@pytest.mark.parametrize("message", [
    "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.FloatTensor [3, 4]], which is output 0 of ReluBackward0, is at version 2; expected "
    "version 1 instead.",
    "RuntimeError: mat1 and mat2 shape cannot be multiplied (4x5 and 6x7)",  # approximate match
    "RuntimeError: grad can be implicitly created only for scalar outputs",
    "Trying to backward thru the graph a second time",
])
def test_no_internal_fields_in_message_mode(message):
    out = invoke("explain", message).stdout
    for field in INTERNAL:
        assert field not in out, field


def test_the_internal_fields_stay_in_json():
    doc = json.loads(invoke("explain", "--json", str(ERRORS / "backward_twice.py")).stdout)
    assert doc["context"]["node"] == "TanhBackward0" and doc["context"]["freed_by"]["line"] == 5
    doc = json.loads(invoke("explain", "--json", "RuntimeError: mat1 and mat2 shape cannot be multiplied "
                                                 "(4x5 and 6x7)").stdout)
    assert doc["context"]["match"] == "approximate" and doc["context"]["score"] > 0.86


def test_an_approximate_match_says_so_in_words():
    out = prose(invoke("explain", "RuntimeError: mat1 and mat2 shape cannot be multiplied (4x5 and 6x7)").stdout)
    assert "Your message is close to, but not exactly, PyTorch's wording for this error." in out


# --------------------------------------------------------------------------- whole titles

LONG_TITLES = [  # (arguments, id, title, line)
    ((str(ERRORS / "backward_twice.py"),), "backward_twice",
     "Second backward through a graph whose buffers were already freed", "line 6"),
    ((str(ERRORS / "optimizer_step_between_backwards.py"),), "optimizer_step_between_backwards",
     "optimizer.step() between two backward passes through one graph", "line 8"),
    ((str(ERRORS / "grad_output_complex_dtype_mismatch.py"),), "grad_output_complex_dtype_mismatch",
     "Real gradient for a complex output (or the reverse)", "line 5"),
    ((str(ERRORS / "scalar_conversion_requires_grad_warning.py"),), "scalar_conversion_requires_grad_warning",
     "float() of a tensor that requires grad", "line 5"),
    (("grad can be implicitly created only for scalar outputs",), "backward_nonscalar",
     "backward() on a non-scalar output without a gradient", None),
    ((str(SAMPLES / "autograd_basics.ipynb"),), "backward_twice",
     "Second backward through a graph whose buffers were already freed", "In [5], line 2"),
]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("args, eid, title, line", LONG_TITLES, ids=[c[1] for c in LONG_TITLES])
def test_titles_are_whole_at_every_width(width, args, eid, title, line):
    r = run_at(width, "explain", *args)
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    assert all(len(row) <= width for row in out.splitlines())
    assert "…" not in out
    assert any(re.search(rf"(?<!\w){re.escape(eid)}(?!\w)", row) for row in out.splitlines()), out  # on one row
    assert title in prose(out), out
    if line:
        assert any(line in row for row in out.splitlines()), out
    if width >= 200:  # room enough: the whole title stays in the border
        assert any(row.startswith("╭─ ") and title in row and eid in row for row in out.splitlines()), out


@pytest.mark.parametrize("width", WIDTHS)
def test_a_warnings_title_keeps_its_id_and_line(width, tmp_path):
    path = write(tmp_path, "import torch\nw = torch.randn(1, requires_grad=True)\nv = float(w * 2)\n")
    r = run_at(width, "run", path, "--lint")
    out = r.stdout
    assert any("scalar_conversion_requires_grad_warning" in row for row in out.splitlines()), out
    assert "line 3" in out and "float() of a tensor that requires grad" in prose(out)


# --------------------------------------------------------------------------- suggestions

UNRELATED = [
    "hello world",
    "KeyError: 'foo'",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; "
    "6.55 GiB already allocated; 8.19 MiB free; 6.60 GiB reserved in total by PyTorch)",
    "AttributeError: 'Tensor' object has no attribute 'foo'",
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "ValueError: too many values to unpack (expected 2)",
    "RuntimeError: expected scalar type Float but found Double",
    "NameError: name 'x' is not defined",
]


@pytest.mark.parametrize("message", UNRELATED)
def test_unrelated_messages_get_no_suggestions(message):
    r = invoke("explain", message)
    assert r.exit_code == 1
    assert "did you mean" not in r.stdout
    assert "No known error is close to it." in prose(r.stdout)
    doc = json.loads(invoke("explain", "--json", message).stdout)
    assert doc["id"] is None and doc["candidates"] == []


@pytest.mark.parametrize("message, eid", [  # a known message with other shapes and numbers: identified
    ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (13x7 and 9x2)", "mm_shape_mismatch"),
    ("RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
     "operation: [torch.DoubleTensor [8, 16, 3]], which is output 2 of SigmoidBackward0, is at version 7; "
     "expected version 3 instead.", "inplace_modified_saved"),
    ("RuntimeError: a Tensor with 1234 elements cannot be converted to Scalar", "item_multi_element"),
    ("RuntimeError: The size of tensor a (128) must match the size of tensor b (64) at non-singleton dimension 2",
     "broadcast_mismatch"),
    ("RuntimeError: Function MyFnBackward returned an incorrect number of gradients (expected 5, got 4)",
     "custom_fn_wrong_num_grads"),
    ("RuntimeError: mat1 and mat2 shape cannot be multiplied (4x5 and 6x7)", "mm_shape_mismatch"),  # reworded
])
def test_near_misses_with_other_numbers_are_identified(message, eid):
    r = invoke("explain", "--json", message)
    assert r.exit_code == 0
    assert json.loads(r.stdout)["id"] == eid


@pytest.mark.parametrize("message, eid", [  # reworded beyond a match: suggested, first
    ("Trying to backward thru the graph a second time", "backward_twice"),
    ("RuntimeError: trying to run backward over the same graph twice, buffers were freed", "backward_twice"),
    ("RuntimeError: Inference tensor cannot be saved for backward.", "inference_tensor_saved"),
    ("differentiated tensor appears to not have been used in graph", "grad_unused_input"),
])
def test_near_misses_beyond_a_match_are_suggested(message, eid):
    r = invoke("explain", message)
    assert r.exit_code == 1
    assert "did you mean" in r.stdout
    doc = json.loads(invoke("explain", "--json", message).stdout)
    assert doc["candidates"][0]["id"] == eid and len(doc["candidates"]) <= 3


# --------------------------------------------------------------------------- --graph


def _root_and_failing(source):
    nodes = dot_nodes(source)
    roots = [label.split("\n")[0] for k, (label, _) in nodes.items() if re.fullmatch(r"b_root\d+", k)]
    failing = [label.split("\n")[0] for k, (label, attrs) in nodes.items()
               if re.fullmatch(r"b_n\d+", k) and "penwidth=3" in attrs and "color=red3" in attrs]
    return roots, failing


def test_graph_names_an_expression_root_and_highlights_the_failing_node(tmp_path):
    path = write(tmp_path, A_SCRIPTS["inplace_saved"])
    r = invoke("explain", path, "--graph", "-")
    source = r.stdout
    roots, failing = _root_and_failing(source)
    assert roots == ["a.sum()"]
    assert failing == ["TanhBackward0"]
    assert "failing node" in source  # the legend
    assert "root: a.sum(), where the failing backward pass started (line 5)" in source
    assert "failing node: TanhBackward0 (created at script.py:3), outlined in red" in source


def test_graph_names_a_variable_root(tmp_path):
    out = tmp_path / "g.dot"
    r = invoke("explain", str(ERRORS / "backward_twice.py"), "--graph", out)
    assert r.exit_code == 0, r.stderr
    roots, failing = _root_and_failing(out.read_text())
    assert roots == ["loss"] and failing == ["TanhBackward0"]


def test_graph_highlight_survives_collapsing(tmp_path):
    path = write(tmp_path, """\
        import torch
        x = torch.ones(3, requires_grad=True)
        y = x
        for i in range(2000):
            y = torch.tanh(y)
        L = y.sum()
        L.backward()
        L.backward()
    """)
    r = invoke("explain", path, "--graph", "-")
    roots, failing = _root_and_failing(r.stdout)
    assert roots == ["L"] and failing == ["TanhBackward0"]
    assert "folder" in r.stdout  # collapsed, the failing node kept


# --------------------------------------------------------------------------- strict JSON


def _strict(text):
    def refuse(name):
        raise ValueError(f"bare {name} in the JSON")
    return json.loads(text, parse_constant=refuse)


def test_json_encodes_non_finite_floats_as_documented_strings():
    from gradviz.explain import render
    doc = _strict(render.to_json({"a": math.nan, "b": [math.inf, -math.inf], "c": 1.5}))
    assert doc == {"a": "NaN", "b": ["Infinity", "-Infinity"], "c": 1.5}


@pytest.mark.parametrize("args", [
    (str(ERRORS / "anomaly_nan.py"),), (str(ERRORS / "backward_twice.py"),), ("Segmentation fault",),
    ("RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.",), ("--list",),
])
def test_explain_json_is_strict(args):
    r = invoke("explain", "--json", *args)
    _strict(r.stdout)


def test_the_docs_document_the_json_encoding():
    for page in ("explain", "json"):
        text = (ROOT / "docs" / f"{page}.md").read_text()
        assert '"NaN"' in text and '"Infinity"' in text, page


@pytest.mark.parametrize("shown_args, args", [
    ("samples/errors/detach_inplace_needed.py", ("samples/errors/detach_inplace_needed.py",)),
    ('"KeyError: \'foo\'"', ("KeyError: 'foo'",)),
])
def test_readme_examples_at_80_columns_are_the_real_output(shown_args, args):
    import os
    import subprocess
    import sys

    readme = (ROOT / "docs" / "explain.md").read_text(encoding="utf-8")
    shown = readme.split(f"$ COLUMNS=80 gradviz explain {shown_args}\n", 1)[1].split("```", 1)[0]
    env = {k: v for k, v in os.environ.items() if k != "LINES"}
    env.update(COLUMNS="80", NO_COLOR="1", TERM="dumb")
    p = subprocess.run([sys.executable, "-m", "gradviz", "explain", *args], capture_output=True, text=True,
                       cwd=ROOT, timeout=120, env=env)
    assert p.stdout.strip() == shown.strip()
