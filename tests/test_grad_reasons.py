"""Why a gradient is missing (inspect/grad_reasons.py): the reason each tensor that should
have a gradient lacks one, in the table and as ``grad_reason`` in --json, on both engines."""
import json
import textwrap

import pytest

from _cli_helpers import SAMPLES, invoke, write

# An unused head, a detached branch, a frozen layer and a ReLU that never fires; and w, read
# through .data at the loss's line.
MODEL = (SAMPLES / "why_no_grad.py").read_text().replace(
    "loss = net(x) + hidden.sum()", "w = torch.ones(4, requires_grad=True)\nloss = net(x) + hidden.sum() + (w.data * 2).sum()")


@pytest.mark.parametrize("engine", ["gradviz", "torch"])
def test_an_unused_head_a_detached_branch_a_frozen_layer_and_a_dead_relu(engine, tmp_path):
    if engine == "torch":
        pytest.importorskip("torch")
    script = write(tmp_path, MODEL)
    r = invoke("run", script, "--engine", engine, "--json")
    assert r.exit_code == 0, r.stderr
    why = {t["name"]: t["grad_reason"] for t in json.loads(r.stdout)["cells"][-1]["tensors"]}
    assert why["net.head.weight"].startswith("unused: ")
    assert why["net.side.weight"] == "detached: its path to the loss was cut by .detach() at line 21 of script.py"
    assert why["w"] == "detached: its path to the loss was cut by .data at line 30 of script.py"
    assert why["net.frozen.bias"].startswith("frozen: requires_grad=False")
    assert why["net.dead.weight"].startswith("zero: the gradient reached it and is all zero")
    assert why["hidden"].startswith("not-leaf: ") and "retain_grad()" in why["hidden"]
    assert why["net.body.weight"] is None and why["x"] is None  # it has a gradient; x needs none


def test_the_table_says_why_in_a_line_per_reason(tmp_path):
    r = invoke("run", write(tmp_path, MODEL))
    assert r.exit_code == 0, r.stderr
    lines = r.stdout[r.stdout.index("Why no gradient:"):].splitlines()
    assert lines[1] == "  net.head.weight, net.head.bias  unused: on no path to the root of any backward call"
    assert "  net.side.weight, net.side.bias  detached: its path to the loss was cut by .detach() at line 21 of " \
           "script.py" in lines
    assert any(line.startswith("  hidden, loss  not-leaf: ") for line in lines)


def test_gradients_reset_and_autograd_grad_are_told_apart(tmp_path):
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        a = torch.ones(2, requires_grad=True)
        b = torch.ones(2, requires_grad=True)
        (a * 2).sum().backward()
        a.grad = None
        g, = torch.autograd.grad((b * 3).sum(), b)
        """))
    why = {t["name"]: t["grad_reason"] for t in json.loads(invoke("run", script, "--json").stdout)["cells"][-1]["tensors"]}
    assert why["a"].startswith("reset: ") and why["b"].startswith("autograd.grad: ") and why["g"] is None


def test_a_run_without_backward_asks_for_no_gradient(tmp_path):
    r = invoke("run", write(tmp_path, "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n"))
    assert "Why no gradient" not in r.stdout


def test_a_clean_run_has_no_reasons(tmp_path):
    r = invoke("run", write(tmp_path, "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n"))
    assert "Why no gradient" not in r.stdout
