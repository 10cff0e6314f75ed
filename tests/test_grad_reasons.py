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


NO_GRAD = textwrap.dedent("""\
    import torch
    import torch.nn as nn
    torch.manual_seed(0)
    feat, head, spare = nn.Linear(4, 4), nn.Linear(4, 2), nn.Linear(4, 2)
    nn.init.zeros_(spare.bias)  # the library's own no_grad: not a cut

    @torch.no_grad()
    def embed(x):
        return feat(x)

    x = torch.randn(3, 4)
    with torch.no_grad():
        f = head.weight.t()
    with torch.set_grad_enabled(False):
        g = spare(x)
    loss = (embed(x) @ f).sum() + g.sum()
    loss.backward()
    """)


@pytest.mark.parametrize("engine", ["gradviz", "torch"])
def test_a_path_cut_by_the_users_no_grad_names_its_line(engine, tmp_path):
    if engine == "torch":
        pytest.importorskip("torch")
    r = invoke("run", write(tmp_path, NO_GRAD), "--engine", engine, "--json")
    assert r.exit_code == 0, r.stderr
    why = {t["name"]: t["grad_reason"] for t in json.loads(r.stdout)["cells"][-1]["tensors"]}
    assert why["feat.weight"] == "detached: its path to the loss was cut by no_grad at line 9 of script.py"
    assert why["head.weight"] == "detached: its path to the loss was cut by no_grad at line 13 of script.py"
    assert why["spare.bias"] == \
        "detached: its path to the loss was cut by set_grad_enabled(False) at line 15 of script.py"
    assert why["head.bias"].startswith("unused: ")  # nn.init's and nn.Linear's own no_grad cut nothing


DEAD = textwrap.dedent("""\
    import torch
    import torch.nn as nn
    torch.manual_seed(0)
    inner, outer = nn.Linear(4, 4), nn.Linear(4, 2)
    w = torch.ones(3, 2, requires_grad=True)
    x = torch.randn(3, 4)
    h = torch.relu(inner(x) - 100.0)
    mask = torch.zeros(3, 2)
    loss = (outer(h) * mask).sum() + (w * mask).sum()
    loss.backward()
    """)


@pytest.mark.parametrize("engine", ["gradviz", "torch"])
def test_an_all_zero_gradient_names_what_zeroed_it(engine, tmp_path):
    if engine == "torch":
        pytest.importorskip("torch")
    r = invoke("run", write(tmp_path, DEAD), "--engine", engine, "--json")
    assert r.exit_code == 0, r.stderr
    why = {t["name"]: t["grad_reason"] for t in json.loads(r.stdout)["cells"][-1]["tensors"]}
    # the mask zeroes everything after it; the first node on each path that passes nothing is named
    assert why["w"] == "zero: the gradient reached it and is all zero: it passes through a product with an " \
                       "all-zero factor (a mask) (MulBackward0" + (" at line 9 of script.py)" if engine == "gradviz"
                                                                    else ")")
    assert why["inner.weight"].startswith("zero: the gradient reached it and is all zero: it passes through a "
                                          "product with an all-zero factor (a mask) (MulBackward0")


def test_a_dead_relu_is_named_with_its_line_on_pytorch_when_recorded(tmp_path):
    pytest.importorskip("torch")
    script = write(tmp_path, DEAD.replace("(outer(h) * mask).sum() + (w * mask).sum()", "outer(h).sum() + w.sum()"))
    r = invoke("run", script, "--engine", "torch", "--json", "--memory")
    why = {t["name"]: t["grad_reason"] for t in json.loads(r.stdout)["cells"][-1]["tensors"]}
    assert why["inner.weight"] == "zero: the gradient reached it and is all zero: it passes through a ReLU that " \
                                  "never fired (ReluBackward0 at line 7 of script.py)"
    # outer's weight multiplies the dead ReLU's all-zero output: its gradient is zero too
    assert why["outer.weight"].startswith("zero: the gradient reached it and is all zero: it passes through a "
                                          "matrix product whose other factor is all zero (AddmmBackward0 at line 9")
    assert why["outer.bias"] is None and why["w"] is None


def test_lint_warns_of_each_missing_gradient_with_its_reason(tmp_path):
    r = invoke("run", write(tmp_path, MODEL), "--lint", "--json")
    assert r.exit_code == 0, r.stderr
    warnings = {w["id"]: w for w in json.loads(r.stdout)["lint"]["warnings"]}
    assert warnings["grad_missing_unused"]["context"]["tensors"] == ["net.head.weight", "net.head.bias"]
    assert warnings["grad_missing_detached"]["line"] in (21, 30)
    assert warnings["grad_all_zero"]["message"].startswith("net.dead.weight, net.dead.bias: zero: ")
    assert not any(w["context"].get("grad_reason", "").startswith(("frozen", "not-leaf")) for w in warnings.values())


def test_explain_tells_a_none_grad_by_the_cut_that_caused_it(tmp_path):
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        w = torch.ones(3, requires_grad=True)
        v = torch.ones(3, requires_grad=True)
        with torch.no_grad():
            scale = w * 2
        loss = (scale * v).sum()
        loss.backward()
        print(w.grad.norm())
        """))
    r = invoke("explain", script, "--json")
    d = json.loads(r.stdout)
    assert d["context"]["grad_reason"] == \
        "detached: its path to the loss was cut by no_grad at line 5 of script.py"
    assert "its path to the loss was cut by no_grad at line 5" in d["cause"]


def test_the_picture_marks_the_leaves_without_a_gradient(tmp_path):
    out = tmp_path / "g.dot"
    r = invoke("run", write(tmp_path, MODEL), "--graph", str(out))
    assert r.exit_code == 0, r.stderr
    dot = out.read_text()
    marked = [line for line in dot.splitlines() if "no grad: " in line]
    assert any("net.dead.weight" in line and "no grad: zero" in line and "dashed" in line for line in marked)
    assert any("net.frozen.bias" in line and "no grad: frozen" in line for line in marked)
    assert not any("net.body.weight" in line for line in marked)
    # the unused head and the detached branch are in no graph: a note names them
    assert "no gradient, not in this graph: net.head.weight (unused), net.head.bias (unused), net.side.weight " \
           "(detached)" in " ".join(dot.replace("\\l", " ").split())


def test_watching_never_breaks_a_torch_func_transform(tmp_path):
    """Per-sample gradients with vmap over grad: reading a wrapped tensor's values inside the
    transform is refused by PyTorch, so the reasons must not try (it raised in the user's run)."""
    pytest.importorskip("torch")
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        import torch.nn.functional as F
        from torch.func import functional_call, grad, vmap
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
        params = {k: v.detach() for k, v in model.named_parameters()}
        def loss_of(params, x, y):
            return F.mse_loss(functional_call(model, params, (x.unsqueeze(0),)), y.unsqueeze(0))
        grads = vmap(grad(loss_of), in_dims=(None, 0, 0))(params, torch.randn(5, 4), torch.randn(5, 1))
        shape = grads["0.weight"].shape
        """))
    for engine in ("gradviz", "torch"):
        r = invoke("run", script, "--engine", engine, "--json")
        cells = json.loads(r.stdout)["cells"]
        assert all(c["error"] is None for c in cells), (engine, cells[-1]["error"])


@pytest.mark.parametrize("engine", ["gradviz", "torch"])
def test_a_backward_that_raises_reached_nothing(engine, tmp_path):
    if engine == "torch":
        pytest.importorskip("torch")
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        c = torch.ones(2, requires_grad=True)
        m = c * 2
        m.register_hook(lambda g: 1 / 0)
        m.sum().backward()   # the hook raises before the gradient reaches c
        """))
    r = invoke("run", script, "--engine", engine, "--json")
    why = {t["name"]: t["grad_reason"] for t in json.loads(r.stdout)["cells"][-1]["tensors"]}
    assert why["c"] == "raised: the backward call that would have reached it raised an error first"
