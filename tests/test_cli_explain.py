"""`gradviz explain MESSAGE | - | script.py | --list`: panels, JSON, --graph, exit status.

The "Done when" items of issue 6 at the CLI level: message mode for PyTorch 2.13's
wording, the seeds' older wording and whole pasted tracebacks; script mode picks the
specific cause in the shared-message cases.
"""
import json

import pytest

from _cli_helpers import ANSI, SAMPLES, check_svg, invoke, saved_nodes, write

ERRORS = SAMPLES / "errors"
JSON_KEYS = {"id", "candidates", "title", "cause", "fix", "context"}

TRACEBACK = """\
Traceback (most recent call last):
  File "/home/me/train.py", line 14, in <module>
    loss.backward()
  File "/usr/lib/python3.11/site-packages/torch/_tensor.py", line 581, in backward
    torch.autograd.backward(
  File "/usr/lib/python3.11/site-packages/torch/autograd/__init__.py", line 347, in backward
    _engine_run_backward(
RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after \
they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or \
autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you \
need to access saved tensors after calling backward.
"""
OLD_WORDING = ("RuntimeError: Trying to backward through the graph a second time, but the buffers have already "
               "been freed. Specify retain_graph=True when calling backward the first time.")


def explain_json(*args, input=None):
    r = invoke("explain", *args, "--json", input=input)
    return r, json.loads(r.stdout)


def test_message_mode_panels():
    r = invoke("explain", "RuntimeError: grad can be implicitly created only for scalar outputs")
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    assert "backward() on a non-scalar output without a gradient  (backward_nonscalar)" in out
    assert "fix" in out and "before" in out and "after" in out
    assert "y.sum().backward()" in out
    assert "grad_nonscalar_no_grad_outputs" in out  # the other cause of the same message
    assert not ANSI.search(out)
    assert r.stderr == ""


def test_message_without_quotes_is_joined():
    r, doc = explain_json("grad", "can", "be", "implicitly", "created", "only", "for", "scalar", "outputs")
    assert doc["id"] == "backward_nonscalar"


@pytest.mark.parametrize("text", [
    FREED_TEXT := "Trying to backward through the graph a second time (or directly access saved tensors after "
                  "they have already been freed).",
    OLD_WORDING,
])
def test_message_mode_json_current_and_old_wordings(text):
    r, doc = explain_json(text)
    assert r.exit_code == 0
    assert JSON_KEYS <= set(doc)
    ids = [doc["id"]] + [c["id"] for c in doc["candidates"]]
    assert doc["id"] == "backward_twice"
    assert {"autograd_grad_twice", "saved_tensor_after_free", "rnn_hidden_not_detached"} <= set(ids)
    assert all(c.get("question") for c in doc["candidates"])


def test_stdin_takes_a_whole_traceback():
    r, doc = explain_json("-", input=TRACEBACK)
    assert r.exit_code == 0
    assert doc["id"] == "backward_twice"
    assert doc["context"].get("failing_code") == "loss.backward()"


def test_a_saved_traceback_file(tmp_path):
    path = tmp_path / "log.txt"
    path.write_text("epoch 1\n" + TRACEBACK)
    r, doc = explain_json(str(path))
    assert doc["id"] == "backward_twice"


def test_unknown_message_exits_1_and_suggests_nothing_unrelated():
    r = invoke("explain", "the flux capacitor is out of plutonium")
    assert r.exit_code == 1
    assert "Unknown message" in r.stdout and "No known error is close to it." in r.stdout
    assert "did you mean" not in r.stdout
    r, doc = explain_json("the flux capacitor is out of plutonium")
    assert r.exit_code == 1
    assert doc["id"] is None and doc["candidates"] == []


def test_unknown_near_miss_exits_1_and_names_the_nearest():
    r = invoke("explain", "Trying to backward thru the graph a second time")
    assert r.exit_code == 1
    assert "Unknown message" in r.stdout and "The closest known ones are:" in r.stdout
    assert "did you mean" in r.stdout and "backward_twice" in r.stdout


@pytest.mark.parametrize("sample, expected", [
    ("backward_twice", "backward_twice"),
    ("autograd_grad_twice", "autograd_grad_twice"),
    ("saved_tensor_after_free", "saved_tensor_after_free"),
    ("rnn_hidden_not_detached", "rnn_hidden_not_detached"),
    ("optimizer_step_between_backwards", "optimizer_step_between_backwards"),
    ("backward_nonscalar", "backward_nonscalar"),
    ("inplace_modified_saved", "inplace_modified_saved"),
])
def test_script_mode_picks_the_specific_cause(sample, expected):
    r, doc = explain_json(str(ERRORS / f"{sample}.py"))
    assert r.exit_code == 0, r.stderr
    assert doc["id"] == expected
    assert JSON_KEYS | {"error", "warnings"} <= set(doc)
    assert doc["error"]["line"] is not None


def test_script_mode_panels_name_the_lines():
    r = invoke("explain", str(ERRORS / "backward_twice.py"))
    assert r.exit_code == 0
    out = r.stdout
    assert "Second backward through a graph whose buffers were already freed  (backward_twice)" in out
    assert "line 5" in out and "line 6" in out
    assert "ruled out" in out  # the other causes of the same message, ruled out by the run


def test_script_without_error(tmp_path):
    path = write(tmp_path, "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
    r, doc = explain_json(path)
    assert r.exit_code == 0
    assert doc["id"] is None and doc["error"] is None and doc["title"] == "No error"


def test_script_arguments(tmp_path):
    path = write(tmp_path, "import sys, torch\nx = torch.ones(3, requires_grad=True)\n"
                           "if sys.argv[1:] == ['--bad']:\n    (x * 2).backward()\n")
    r = invoke("explain", "--json", path, "--", "--bad")
    assert json.loads(r.stdout)["id"] == "backward_nonscalar"
    _, doc = explain_json(path)
    assert doc["id"] is None


def test_graph_of_the_failing_node(tmp_path):
    out = tmp_path / "freed.dot"
    r = invoke("explain", str(ERRORS / "backward_twice.py"), "--graph", out)
    assert r.exit_code == 0, r.stderr
    source = out.read_text()
    assert "TanhBackward0" in source
    assert any("freed by backward" in s for s in saved_nodes(source))
    assert "RuntimeError: Trying to backward through the graph a second time" in source
    assert f"graph written to {out} (DOT)" in r.stderr


def test_graph_on_stdout(tmp_path):
    r = invoke("explain", str(ERRORS / "backward_twice.py"), "--graph", "-")
    assert r.stdout.startswith("digraph gradviz {")
    assert "backward_twice" in r.stderr  # the panels moved out of the way


def test_graph_as_svg(tmp_path):
    out = tmp_path / "freed.svg"
    r = invoke("explain", str(ERRORS / "backward_twice.py"), "--graph", out)
    assert r.exit_code == 0, r.stderr
    _, texts = check_svg(out)
    assert "TanhBackward0" in texts


def test_graph_when_there_is_nothing_to_draw(tmp_path):
    path = write(tmp_path, "x = 1\n")
    r = invoke("explain", path, "--graph", tmp_path / "g.dot")
    assert r.exit_code == 0
    assert "no graph written: the script raised no error" in r.stderr
    assert not (tmp_path / "g.dot").exists()


def test_list():
    r = invoke("explain", "--list")
    assert r.exit_code == 0
    for entry in ("backward_twice", "backward_nonscalar", "inplace_modified_saved"):
        assert entry in r.stdout
    r = invoke("explain", "--list", "--json")
    entries = json.loads(r.stdout)
    assert len(entries) == 58
    assert {"id", "kind", "title"} <= set(entries[0])


@pytest.mark.slow
def test_script_timeout(tmp_path):
    path = write(tmp_path, "import torch\nwhile True:\n    pass\n")
    r = invoke("explain", path, "--timeout", "1")
    assert r.exit_code == 1
    assert r.stderr.strip() == (f"gradviz explain: error: the script did not reach an error within 1 s "
                                "(--timeout); nothing to explain")


def test_help_has_examples():
    r = invoke("explain", "--help")
    assert r.exit_code == 0
    for word in ("Examples:", "--list", "--json", "--graph", "Exit status", "gradviz explain -"):
        assert word in r.stdout, word


@pytest.mark.slow
def test_a_hundred_thousand_op_chain(tmp_path):
    path = write(tmp_path, """\
        import torch
        x = torch.ones(3, requires_grad=True)
        y = x
        for i in range(100000):
            y = torch.tanh(y)
        L = y.sum()
        L.backward()
        L.backward()
    """)
    out = tmp_path / "chain.dot"
    r, doc = explain_json(path, "--graph", out)
    assert r.exit_code == 0, r.stderr
    assert doc["id"] == "backward_twice"
    assert 0 < len(out.read_text()) < 100_000  # collapsed, not 100,000 boxes
