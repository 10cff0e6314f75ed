"""--engine torch: gradviz's commands on the installed PyTorch, the real graph drawn from the
same snapshot (node names, named leaves, freed saved tensors), and a clear line without it."""
import json
import re
import sys

import pytest

torch = pytest.importorskip("torch")

from _cli_helpers import SAMPLES, SEED, check_svg, dot_nodes, invoke, write  # noqa: E402
from gradviz.inspect import real_torch  # noqa: E402

BLOCK = str(SAMPLES / "transformer_block.py")
NOTEBOOK = str(SAMPLES / "autograd_basics.ipynb")


def test_run_draws_the_real_graph_of_a_transformer_block(tmp_path):
    out = tmp_path / "block.dot"
    r = invoke("run", BLOCK, "--engine", "torch", "--graph", out)
    assert r.exit_code == 0, r.stderr
    assert "MeanBackward0" in r.stdout
    source = out.read_text()
    for name in ("NativeLayerNormBackward0", "AddmmBackward0", "GeluBackward0", "MeanBackward0", "PowBackward0",
                 "AccumulateGrad"):
        assert name in source, name
    assert re.search(r"ScaledDotProduct\w*AttentionForCpuBackward0|ScaledDotProduct\w*Backward0", source)
    labels = [label for label, _ in dot_nodes(source).values()]
    assert any(label.startswith("block.norm1.weight\n(8,)") for label in labels)  # named leaves
    assert any(label.startswith("block.attn.in_proj_weight\n(24, 8)") for label in labels)
    freed = [label for label in labels if "freed by backward at transformer_block.py:30" in label]
    assert len(freed) >= 10  # the saved tensors loss.backward() freed
    assert any(label.startswith("_saved_self = out\n(2, 4, 8)") for label in labels)  # the forward's name
    assert "transformer_block.py:21" in source  # the lines that made the ops: Block.forward's


def test_run_seed_graph_on_both_engines_draws_the_same_graph(tmp_path):
    ours, theirs = tmp_path / "g.dot", tmp_path / "t.dot"
    assert invoke("run", SEED, "--graph", ours).exit_code == 0
    assert invoke("run", SEED, "--engine", "torch", "--graph", theirs).exit_code == 0
    assert sorted(dot_nodes(ours.read_text()).values()) == sorted(dot_nodes(theirs.read_text()).values())


def test_backward_twice_and_retain_graph(tmp_path):
    r = invoke("run", SEED, "--engine", "torch", "--backward-twice")
    assert r.exit_code == 0
    assert "Second backward on L (--backward-twice) raised, as PyTorch does:\nRuntimeError: Trying to backward " \
           "through the graph a second time" in r.stdout
    assert "The first backward freed 8 saved tensors" in r.stdout
    once = json.loads(invoke("run", SEED, "--engine", "torch", "--json").stdout)
    twice = json.loads(invoke("run", SEED, "--engine", "torch", "--json", "--backward-twice",
                              "--retain-graph").stdout)
    assert twice["graph"]["second_backward"] == {"ok": True, "error": None}
    g1 = {t["name"]: t["grad"] for t in once["cells"][-1]["tensors"]}
    g2 = {t["name"]: t["grad"] for t in twice["tensors_after_second_backward"]}
    assert g1["w1"]["stats"]["norm"] * 2 == pytest.approx(g2["w1"]["stats"]["norm"])


def test_json_is_what_pytorch_computed(tmp_path):
    script = write(tmp_path, "import torch\ntorch.manual_seed(3)\nx = torch.randn(4, requires_grad=True)\n"
                             "y = (x.exp() * x).sum()\ny.backward()\n")
    doc = json.loads(invoke("run", script, "--engine", "torch", "--json").stdout)
    torch.manual_seed(3)
    x = torch.randn(4, requires_grad=True)
    (x.exp() * x).sum().backward()
    rows = {t["name"]: t for t in doc["cells"][0]["tensors"]}
    assert rows["x"]["data"] == pytest.approx(x.detach().tolist())
    assert rows["x"]["grad"]["data"] == pytest.approx(x.grad.tolist())
    assert rows["y"]["grad_fn"] == "SumBackward0"


@pytest.mark.slow


def test_cells_timeout_root_tree_html_and_notebooks(tmp_path):
    r = invoke("run", SEED, "--engine", "torch", "--cells", "--root", "d", "--tree")
    assert r.exit_code == 0
    assert r.stdout.count("After cell") == 4
    assert "Graph of d: " in r.stdout and "└── AddBackward0 → d" in r.stdout
    slow = write(tmp_path, "import torch\nx = torch.ones(2, requires_grad=True)\nwhile True:\n    y = x * 2\n")
    r = invoke("run", slow, "--engine", "torch", "--timeout", "1")
    assert r.exit_code == 1 and "--timeout" in r.stderr and "x " in r.stdout
    page = tmp_path / "r.html"
    r = invoke("run", NOTEBOOK, "--engine", "torch", "--html", page)
    assert r.exit_code == 1 and "Error in In [5] (cell 5 of 6), at line 2:" in r.stderr
    assert page.read_text().count("<svg") == 3
    assert "A notebook run on the installed PyTorch (--engine torch)." in page.read_text()  # not "gradviz's engine"
    assert "--engine torch" in page.read_text().split("</header>")[0]
    r = invoke("run", NOTEBOOK, "--engine", "torch", "--graph", tmp_path / "nb.svg")
    root, texts = check_svg(tmp_path / "nb.svg")
    assert "In [6]:3" in texts and "MulBackward0" in texts


def test_explain_a_script_on_pytorch(tmp_path):
    out = tmp_path / "freed.svg"
    r = invoke("explain", str(SAMPLES / "errors" / "backward_twice.py"), "--engine", "torch", "--json",
               "--graph", out)
    assert r.exit_code == 0
    d = json.loads(r.stdout)
    assert d["id"] == "backward_twice" and d["context"] == {"engine": "torch"}
    assert d["error"]["line"] == 6 and d["error"]["code"] == "loss.backward()"
    assert d["cause"].startswith("Line 6 (`loss.backward()`): A backward pass already went through this graph.")
    root, texts = check_svg(out)
    assert "TanhBackward0" in texts and "freed by backward at backward_twice.py:5" in texts


def test_graph_an_expression_on_pytorch(tmp_path):
    r = invoke("graph", "b = w1*a; L = (10 - tanh(b)).sum()", "--engine", "torch", "--json")
    doc = json.loads(r.stdout)
    assert r.exit_code == 0 and doc["result"]["grad_fn"] == "SumBackward0"
    torch.manual_seed(0)
    w1, a = torch.randn(3), torch.randn(3)
    rows = {t["name"]: t for t in doc["tensors"]}
    assert rows["w1"]["data"] == pytest.approx(w1.tolist()) and rows["a"]["data"] == pytest.approx(a.tolist())
    r = invoke("graph", "(x*y).sum()", "--engine", "torch", "-o", "-")
    assert "MulBackward0" in r.stdout and '_saved_self = x' in r.stdout and "freed by backward" in r.stdout
    r = invoke("graph", "x @ y", "--var", "x=2x3", "--var", "y=2x3", "--engine", "torch")
    assert r.exit_code == 1 and "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)" in r.stderr


def test_without_pytorch_is_one_line_exit_2(monkeypatch):
    def missing():
        raise real_torch.TorchUnavailable("--engine torch needs PyTorch, which is not installed (No module named "
                                          "'torch'); pip install torch, or use gradviz's own engine "
                                          "(--engine gradviz)")

    monkeypatch.setattr(real_torch, "import_torch", missing)
    for args in (("run", SEED), ("graph", "x.sum()"), ("explain", str(SAMPLES / "errors" / "backward_twice.py"))):
        r = invoke(*args, "--engine", "torch")
        assert r.exit_code == 2, args
        assert r.stderr.strip() == f"gradviz {args[0]}: error: --engine torch needs PyTorch, which is not " \
                                   "installed (No module named 'torch'); pip install torch, or use gradviz's own " \
                                   "engine (--engine gradviz)"


def test_an_old_pytorch_is_refused(monkeypatch):
    monkeypatch.setattr(torch, "__version__", "1.13.1+cpu")
    with pytest.raises(real_torch.TorchUnavailable, match=r"needs PyTorch 2\.0 or newer; this is 1\.13\.1\+cpu"):
        real_torch.import_torch()


def test_a_missing_pytorch_module_gives_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    with pytest.raises(real_torch.TorchUnavailable, match="pip install torch"):
        real_torch.import_torch()


def test_the_recorder_keeps_a_bounded_record(monkeypatch):
    """A long training loop: the oldest records go first, the last step's graph stays whole."""
    monkeypatch.setattr(real_torch, "MAX_OPS", 60)
    w = torch.randn(8, 8, requires_grad=True)
    with real_torch.TorchRecorder(capture=lambda: {"w": w}) as rec:
        for _ in range(50):
            loss = (torch.tanh(torch.randn(4, 8) @ w) ** 2).mean()
            loss.backward()
            assert len(rec) <= 60
    info, snap = rec.captures[-1]
    assert info.index == 50
    assert [op.name for op in snap.ops] == ["matmul", "tanh", "pow", "mean"]
    assert all(n.freed_by == info for n in snap.nodes if any(x.freed for x in n.saved))


def test_a_deep_real_chain_needs_no_recursion(tmp_path):
    limit = sys.getrecursionlimit()
    x = torch.ones(2, requires_grad=True)
    with real_torch.TorchRecorder() as rec:
        y = x
        for _ in range(5000):
            y = y * 1.0001
        loss = y.sum()
    sys.setrecursionlimit(300)
    try:
        from gradviz.inspect import snapshot
        from gradviz.render import dot

        snap = snapshot(loss, {id(x): "x", id(loss): "loss"}, rec)
        source = dot.to_dot(snap)
    finally:
        sys.setrecursionlimit(limit)
    assert len(snap.nodes) == 5002 and re.search(r"×49\d\d MulBackward0", source)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_cuda_tensors_are_copied_to_the_host_only_to_be_read(tmp_path):
    script = write(tmp_path, "import torch\nx = torch.ones(3, device='cuda', requires_grad=True)\n"
                             "y = (x * 2).sum()\ny.backward()\n")
    doc = json.loads(invoke("run", script, "--engine", "torch", "--json", "--graph", tmp_path / "g.dot").stdout)
    rows = {t["name"]: t for t in doc["cells"][0]["tensors"]}
    assert rows["x"]["grad"]["data"] == [2.0, 2.0, 2.0]
    assert "MulBackward0" in (tmp_path / "g.dot").read_text()


@pytest.mark.torch_2_13  # the engine's graph is PyTorch 2.13's (attention's fused node differs by release)
def test_the_transformer_block_gives_the_same_loss_and_graph_on_both_engines(tmp_path):
    ours, theirs = tmp_path / "g.dot", tmp_path / "t.dot"
    # the backward graph, node for node and slot for slot; the forward views differ by design
    # (the engine records ATen-level ops, real PyTorch's recorder the Python calls)
    r_ours = invoke("run", BLOCK, "--graph", ours, "--view", "backward")
    r_theirs = invoke("run", BLOCK, "--engine", "torch", "--graph", theirs, "--view", "backward")
    assert r_ours.exit_code == 0 and r_theirs.exit_code == 0, r_ours.stderr + r_theirs.stderr
    printed = [line for line in r_ours.stdout.splitlines() if line.startswith("loss ")]
    assert printed and printed == [line for line in r_theirs.stdout.splitlines() if line.startswith("loss ")]

    # A saved tensor without a variable name is named by its forward expression, and the
    # forward graphs differ by design: compare the backward graphs without those names.
    def backward_nodes(source):
        return sorted((re.sub(r"^(\S+) = [^\n]*[(@*+…][^\n]*\n", r"\1\n", label), attrs)
                      for label, attrs in dot_nodes(source).values())

    assert backward_nodes(ours.read_text()) == backward_nodes(theirs.read_text())
