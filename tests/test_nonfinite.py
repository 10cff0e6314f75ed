"""``gradviz run --nan``: where the first NaN (or infinity) starts, in forward or in
backward, on both engines (inspect/nonfinite.py, render/nonfinite.py)."""
import json
import textwrap

import pytest

from _cli_helpers import SAMPLES, invoke, write

ENGINES = ["gradviz", "torch"]


def finding(script, engine, *args):
    if engine == "torch":
        pytest.importorskip("torch")
    r = invoke("run", script, "--engine", engine, "--json", *args)
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_backward_only_nan_is_found_at_its_node(engine):
    doc = finding(str(SAMPLES / "nan_sqrt.py"), engine, "--nan")
    found = doc["nonfinite"]
    assert (found["phase"], found["op"], found["kind"], found["line"]) == ("backward", "SqrtBackward0", "nan", 8)
    assert found["tensor"] == "the gradient of torch.sqrt(x)" and found["code"] == "y = torch.sqrt(x) * mask"
    assert (found["count"], found["total"], found["first"], found["step"]) == (1, 4, [0], 1)
    assert "torch.sqrt(x + 1e-12)" in found["fix"]
    assert "nan, 0.5000" in doc["cells"][0]["stdout"]  # the script ran on, untouched


@pytest.mark.parametrize("engine", ENGINES)
def test_the_double_where_is_found_at_its_sqrt_in_forward(engine, tmp_path):
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        x = torch.tensor([-1.0, 0.5, 4.0], requires_grad=True)
        y = torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))
        y.sum().backward()
        """))
    found = finding(script, engine, "--nan")["nonfinite"]
    assert (found["phase"], found["op"], found["line"], found["tensor"]) == ("forward", "sqrt", 3, "torch.sqrt(x)")
    assert found["inputs"] == [{"name": "x", "finite": True}] and found["step"] == 0
    assert found["fix"].startswith("the double-where trap")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_training_loop_names_the_step(engine, tmp_path):
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        for step in range(5):
            loss = (w.exp() - w.exp() + w ** 2).sum()
            loss.backward()
            with torch.no_grad():
                w *= 10.0  # 1, 10, 100: exp overflows at the third step, and inf - inf is NaN
            w.grad = None
        """))
    found = finding(script, engine, "--nan")["nonfinite"]
    assert (found["phase"], found["op"], found["line"], found["step"]) == ("forward", "sub", 4, 2)  # after 2 steps
    assert found["inputs"] == [{"name": "w.exp()", "finite": False}] * 2 and "--nan=inf" in found["fix"]
    inf = finding(script, engine, "--nan=inf")["nonfinite"]
    assert (inf["kind"], inf["op"], inf["step"]) == ("inf", "exp", 2)  # the infinity came first, at exp
    assert "exp" in inf["fix"]


def test_log_of_softmax_gets_the_log_softmax_fix(tmp_path):
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        z = torch.tensor([0.0, 200.0], requires_grad=True)
        p = torch.softmax(z, dim=0)
        loss = -torch.log(p)[0]
        loss.backward()
        """))
    found = finding(script, "gradviz", "--nan=inf")["nonfinite"]
    assert (found["phase"], found["op"], found["kind"], found["line"]) == ("forward", "log", "inf", 4)
    assert "log_softmax" in found["fix"]


def test_the_terminal_says_where_and_how_to_fix_it():
    r = invoke("run", str(SAMPLES / "nan_sqrt.py"), "--nan")
    assert r.exit_code == 0, r.stderr
    out = r.stdout[r.stdout.index("First NaN"):]
    assert out.splitlines()[:3] == [
        "First NaN: in backward, at SqrtBackward0 (nan_sqrt.py:8, during backward call 1)",
        "  y = torch.sqrt(x) * mask",
        "  the gradient of torch.sqrt(x) (4,): 1 of 4 elements NaN, the first at [0]"]
    assert "Fix: sqrt's gradient is infinite at 0" in out
    assert "Graph of" not in r.stdout  # --nan alone draws nothing


def test_a_clean_run_says_so(tmp_path):
    script = write(tmp_path, "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
    assert finding(script, "gradviz", "--nan")["nonfinite"] is None
    r = invoke("run", script, "--nan")
    assert "--nan: no NaN in any op's result or any gradient of the run." in r.stdout


@pytest.mark.parametrize("engine", ENGINES)
def test_the_picture_outlines_where_it_started_and_its_way_to_the_root(engine, tmp_path):
    if engine == "torch":
        pytest.importorskip("torch")
    out = tmp_path / "g.dot"
    r = invoke("run", str(SAMPLES / "nan_sqrt.py"), "--engine", engine, "--nan", "--graph", out)
    assert r.exit_code == 0, r.stderr
    dot = out.read_text()
    outlined = {line.split('label="')[1].split("\\n")[0] for line in dot.splitlines()
                if "color=red3 fillcolor=mistyrose" in line and "legend" not in line}
    assert outlined == {"SqrtBackward0", "MulBackward0", "SumBackward0"}  # the node, then on to the loss
    assert "outlined in red: where the first NaN started" in dot
