"""`gradviz run` with graphs and the rest: --graph, --root, --view, --max-nodes, --tree,
--backward-twice, --retain-graph, --lint, --timeout.

Includes the "Done when" items of issue 4 at the CLI level (the seed example's DOT,
real PNG/SVG, a 10,000-op chain in seconds, a 100,000-op chain's DOT).
"""
import json
import os
import re
import sys
import time

import numpy as np
import pytest

from _cli_helpers import (ANSI, SEED, SAMPLES, backward_labels, check_png, check_svg, dot_nodes, gradviz, invoke,
                          leaf_names, saved_nodes, write)

FREED_MSG = ("RuntimeError: Trying to backward through the graph a second time (or directly access saved "
             "tensors after they have already been freed). Saved intermediate values of the graph are freed "
             "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
             "through the graph a second time or if you need to access saved tensors after calling backward.")

NO_BACKWARD = """\
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = x * w
L = y.sum()
"""


def check_seed_dot(source):
    """Issue 4: names a, w1..w4; the node kinds; the saved tensors of each MulBackward0 freed."""
    labels = backward_labels(source)
    assert labels.count("AccumulateGrad") == 5
    assert labels.count("MulBackward0") == 4
    for name in ("AddBackward0", "RsubBackward1", "SumBackward0"):
        assert labels.count(name) == 1, name
    assert leaf_names(source) == ["a", "w1", "w2", "w3", "w4"]
    saved = saved_nodes(source)
    assert len(saved) == 8  # two per MulBackward0
    assert all("freed by backward at seed_graph.py:20" in s for s in saved)
    heads = sorted(s.split("\n")[0] for s in saved)
    assert heads == sorted(["_saved_self = w1", "_saved_other = a", "_saved_self = w2", "_saved_other = a",
                            "_saved_self = w3", "_saved_other = b", "_saved_self = w4", "_saved_other = c"])
    forward = {label.split("\n")[0] for k, (label, _) in dot_nodes(source).items() if k.startswith("f_v")}
    assert {"a", "w1", "w2", "w3", "w4", "b", "c", "d", "L"} <= forward


# --------------------------------------------------------------------------- issue 4, done when


def test_seed_dot_with_root_L(tmp_path):
    out = tmp_path / "g.dot"
    r = invoke("run", SEED, "--graph", out, "--root", "L")
    assert r.exit_code == 0, r.stderr
    assert r.stderr == ""
    check_seed_dot(out.read_text())
    assert "Graph of L: 12 backward nodes, 7 forward ops; root chosen by --root L" in r.stdout
    assert f"Graph written to {out} (DOT)" in r.stdout
    assert r.stdout.index("Tensors after") < r.stdout.index("Graph of L")


def test_default_root_is_the_last_backward_call_captured_when_it_happened(tmp_path):
    out = tmp_path / "g.dot"
    r = invoke("run", SEED, "--graph", out)
    assert r.exit_code == 0, r.stderr
    assert "root chosen by the last backward call (line 20)" in r.stdout
    check_seed_dot(out.read_text())


def test_png_and_svg_render(tmp_path):
    for ext in ("png", "svg"):
        r = invoke("run", SEED, "-o", tmp_path / f"seed.{ext}")
        assert r.exit_code == 0, r.stderr
    w, h = check_png(tmp_path / "seed.png")
    assert 500 < w < 8000 and 300 < h < 8000
    _, texts = check_svg(tmp_path / "seed.svg")
    for word in ("MulBackward0", "AccumulateGrad", "RsubBackward1", "w3 * b", "legend"):
        assert word in texts, word


CHAIN = """\
import torch
x = torch.ones(3, requires_grad=True)
y = x
for i in range({n}):
    y = torch.tanh(y)
L = y.sum()
L.backward()
"""


def test_ten_thousand_op_chain_renders_a_collapsed_png_in_seconds(tmp_path):
    path = write(tmp_path, CHAIN.format(n=10_000))
    out = tmp_path / "chain.png"
    start = time.monotonic()
    r = invoke("run", path, "--graph", out)
    elapsed = time.monotonic() - start
    assert r.exit_code == 0, r.stderr
    assert elapsed < 60, elapsed
    w, h = check_png(out)
    assert w * h < 20_000_000
    assert "collapsed into" in r.stdout and "(--max-nodes 300)" in r.stdout


@pytest.mark.slow
def test_hundred_thousand_op_chain_gives_dot(tmp_path):
    path = write(tmp_path, CHAIN.format(n=100_000))
    out = tmp_path / "chain.dot"
    r = invoke("run", path, "--graph", out)
    assert r.exit_code == 0, r.stderr
    source = out.read_text()
    assert "×99998 TanhBackward0" in source or "×99,998 TanhBackward0" in source or "TanhBackward0" in source
    assert len(source) < 200_000  # collapsed: readable, not 100,000 boxes


# --------------------------------------------------------------------------- roots


def test_fallback_root_is_the_last_named_tensor_with_a_grad_fn(tmp_path):
    path = write(tmp_path, NO_BACKWARD)
    r = invoke("run", path, "--graph", "-")
    assert r.exit_code == 0, r.stderr
    assert "root chosen by the last named tensor with a grad_fn (L)" in r.stderr
    saved = saved_nodes(r.stdout)
    assert len(saved) == 2 and not any("freed" in s for s in saved)  # nothing ran backward
    assert "fillcolor=orange" in r.stdout


def test_several_roots(tmp_path):
    path = write(tmp_path, NO_BACKWARD + "M = (x * 2).mean()\n")
    r = invoke("run", path, "--graph", "-", "--root", "L", "--root", "M", "--view", "backward")
    assert r.exit_code == 0, r.stderr
    nodes = dot_nodes(r.stdout)
    roots = sorted(nodes[k][0].split("\n")[0] for k in nodes if k.startswith("b_root"))
    assert roots == ["L", "M"]
    assert "MeanBackward0" in backward_labels(r.stdout)


@pytest.mark.slow
def test_root_names_follow_the_table(tmp_path):
    r = invoke("run", str(SAMPLES / "tiny_mlp.py"), "--graph", "-", "--root", "net.fc1.weight")
    assert r.exit_code == 0, r.stderr
    assert "root chosen by --root net.fc1.weight" in r.stderr


def test_autograd_grad_is_a_backward_call_too(tmp_path):
    path = write(tmp_path, """\
        import torch
        x = torch.ones(3, requires_grad=True)
        y = (x.exp() * 2).sum()
        (g,) = torch.autograd.grad(y, x)
    """)
    r = invoke("run", path, "--graph", "-")
    assert r.exit_code == 0, r.stderr
    assert "root chosen by the last autograd.grad call (line 4)" in r.stderr
    assert any("freed by autograd.grad at script.py:4" in s for s in saved_nodes(r.stdout))


def test_locals_of_functions_name_the_graph(tmp_path):
    path = write(tmp_path, """\
        import torch
        def step(w):
            hidden = torch.tanh(w * 3)
            loss = hidden.sum()
            loss.backward()
        weight = torch.ones(2, requires_grad=True)
        step(weight)
    """)
    r = invoke("run", path, "--graph", "-")
    assert r.exit_code == 0, r.stderr
    forward = {label.split("\n")[0] for k, (label, _) in dot_nodes(r.stdout).items() if k.startswith("f_v")}
    assert {"weight", "hidden", "loss"} <= forward


def test_dot_on_stdout_sends_everything_else_to_stderr():
    r = invoke("run", SEED, "--graph", "-")
    assert r.exit_code == 0
    assert r.stdout.startswith("digraph gradviz {") and r.stdout.rstrip().endswith("}")
    assert "L.grad_fn: SumBackward0" in r.stderr  # the script's own output
    assert "Tensors after" in r.stderr
    check_seed_dot(r.stdout)


def test_view_and_max_nodes(tmp_path):
    for view, has_f, has_b in (("forward", True, False), ("backward", False, True), ("both", True, True)):
        r = invoke("run", SEED, "--graph", "-", "--view", view)
        assert ("cluster_forward" in r.stdout) is has_f and ("cluster_backward" in r.stdout) is has_b, view
    path = write(tmp_path, CHAIN.format(n=200))
    small = invoke("run", path, "--graph", "-", "--max-nodes", "30")
    full = invoke("run", path, "--graph", "-", "--max-nodes", "0")
    assert "collapsed into" in small.stderr and "collapsed into" not in full.stderr
    assert small.stdout.count("TanhBackward0") < 10 <= 200 <= full.stdout.count("TanhBackward0")


def test_tree():
    r = invoke("run", SEED, "--tree")
    assert r.exit_code == 0
    out = r.stdout
    assert "backward graph of L" in out
    assert "_saved_self = w1 (3, 3)  freed by backward at seed_graph.py:20" in out
    assert "AccumulateGrad → a (3, 3)" in out
    assert out.index("Tensors after") < out.index("backward graph of L")


# --------------------------------------------------------------------------- a second backward


def test_backward_twice_shows_the_verbatim_error_next_to_freed_buffers(tmp_path):
    out = tmp_path / "twice.dot"
    r = invoke("run", SEED, "--graph", out, "--backward-twice")
    assert r.exit_code == 0, r.stderr
    assert "Second backward on L (--backward-twice) raised, as PyTorch does:" in r.stdout
    assert FREED_MSG in r.stdout
    assert "The first backward freed 8 saved tensors" in r.stdout
    source = out.read_text()
    check_seed_dot(source)
    assert "second backward (--backward-twice) raised RuntimeError: Trying to backward" in source


def test_backward_twice_without_a_file_prints_the_tree():
    r = invoke("run", SEED, "--backward-twice")
    assert "backward graph of L" in r.stdout and "freed by backward" in r.stdout
    assert FREED_MSG in r.stdout


def test_retain_graph_doubles_the_gradients(tmp_path):
    plain = json.loads(invoke("run", SEED, "--json").stdout)
    r = invoke("run", SEED, "--json", "--graph", tmp_path / "g.dot", "--backward-twice", "--retain-graph")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["graph"]["second_backward"] == {"ok": True, "error": None}
    before = {t["name"]: t for t in plain["cells"][-1]["tensors"]}
    after = {t["name"]: t for t in doc["tensors_after_second_backward"]}
    for name in ("a", "w1", "w2", "w3", "w4"):
        np.testing.assert_allclose(np.array(after[name]["grad"]["data"]),
                                   2 * np.array(before[name]["grad"]["data"]), rtol=1e-6)
    saved = saved_nodes((tmp_path / "g.dot").read_text())
    assert saved and not any("freed" in s for s in saved)  # retained: nothing freed

    r = invoke("run", SEED, "--backward-twice", "--retain-graph")
    assert "Second backward on L (--backward-twice): succeeded" in r.stdout
    assert "Tensors after " + SEED + " and a second backward" in r.stdout


def test_retain_graph_applies_to_the_scripts_own_backward_calls_and_is_undone():
    import gradviz.torch.autograd as autograd

    real = (autograd.backward, autograd.grad)
    demo = str(SAMPLES / "errors_demo.py")
    plain = invoke("run", demo)
    assert "cell 2 (RuntimeError, line 9)" in plain.stderr
    r = invoke("run", demo, "--retain-graph")
    assert "Trying to backward through the graph a second time" not in r.stderr  # cell 2 now passes
    assert "1 of 4 cells raised: cell 3 (RuntimeError, line 13)" in r.stderr
    assert (autograd.backward, autograd.grad) == real


def test_backward_twice_on_a_root_the_script_never_backpropagated(tmp_path):
    path = write(tmp_path, NO_BACKWARD)
    r = invoke("run", path, "--graph", "-", "--backward-twice", "--root", "L")
    assert r.exit_code == 0, r.stderr
    assert FREED_MSG in r.stderr  # the report is on stderr: stdout has the DOT
    saved = saved_nodes(r.stdout)
    assert len(saved) == 2 and all("freed by backward" in s for s in saved)


def test_backward_twice_when_the_first_pass_cannot_run(tmp_path):
    path = write(tmp_path, "import torch\nx = torch.ones(3)\ny = x * 2\n")
    r = invoke("run", path, "--backward-twice", "--root", "y")
    assert r.exit_code == 0
    assert "Backward on y (run by gradviz for --backward-twice) raised:" in r.stdout
    assert "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn" in r.stdout
    assert "Second backward" not in r.stdout


def test_backward_twice_on_a_non_scalar_root_starts_from_ones(tmp_path):
    path = write(tmp_path, "import torch\nx = torch.ones(3, requires_grad=True)\ny = x * x\n")
    r = invoke("run", path, "--backward-twice", "--root", "y")
    assert r.exit_code == 0
    assert "Second backward on y (--backward-twice) raised, as PyTorch does:" in r.stdout
    assert "The first backward freed 2 saved tensors" in r.stdout


# --------------------------------------------------------------------------- lint, timeout, interrupt


def test_lint_warns_about_silent_pitfalls():
    r = invoke("run", str(SAMPLES / "errors" / "data_silent_wrong.py"), "--lint")
    assert r.exit_code == 0, r.stderr
    assert "Lint (--lint): 2 warnings" in r.stdout  # the .data write, and the all-zero x.grad it made
    assert "data_silent_wrong" in r.stdout and "grad_all_zero" in r.stdout and "y.data.mul_(0)" in r.stdout
    clean = invoke("run", SEED, "--lint")
    assert "Lint (--lint): no silent autograd pitfalls found" in clean.stdout


def test_lint_in_json():
    r = invoke("run", str(SAMPLES / "errors" / "data_silent_wrong.py"), "--lint", "--json")
    doc = json.loads(r.stdout)
    assert doc["lint"]["error"] is None
    assert [w["id"] for w in doc["lint"]["warnings"]] == ["data_silent_wrong", "grad_all_zero"]


LOOP = """\
import torch
x = torch.ones(2, requires_grad=True)
y = (x * 3).sum()
# %%
n = 0
while True:
    try:
        n += 1
    except Exception:
        pass
# %%
print("never")
"""


@pytest.mark.slow
def test_timeout_stops_an_endless_script_and_still_reports(tmp_path):
    path = write(tmp_path, LOOP)
    start = time.monotonic()
    r = invoke("run", path, "--timeout", "1", "--graph", tmp_path / "g.dot")
    assert time.monotonic() - start < 30
    assert r.exit_code == 1
    assert "never" not in r.stdout
    assert "TimeoutError: the script ran longer than 1 s and was stopped (--timeout)" in r.stderr
    assert "Error in cell 2 of 3 (starts at line 5), at line" in r.stderr
    assert "gradviz: the script was stopped after 1 s (--timeout)" in r.stderr
    rows = {line.split()[0] for line in r.stdout.splitlines() if line[:1].isalpha()}
    assert {"x", "y"} <= rows  # what ran is reported
    assert (tmp_path / "g.dot").exists()  # and drawn


@pytest.mark.slow
def test_timeout_in_a_real_process_interrupts_sleep(tmp_path):
    path = write(tmp_path, "import time, torch\nx = torch.ones(2)\ntime.sleep(600)\n")
    start = time.monotonic()
    p = gradviz("run", path, "--timeout", "1")
    assert time.monotonic() - start < 60
    assert p.returncode == 1
    assert "TimeoutError" in p.stderr and "x " in p.stdout


def test_keyboard_interrupt_keeps_partial_results(tmp_path):
    path = write(tmp_path, "import torch\nx = torch.ones(2, requires_grad=True)\n# %%\nraise KeyboardInterrupt\n"
                           "# %%\nprint('never')\n")
    r = invoke("run", path)
    assert r.exit_code == 130
    assert "never" not in r.stdout
    assert "Tensors after" in r.stdout and "\nx " in r.stdout
    assert "gradviz: interrupted; the table shows what the script had computed" in r.stderr


def test_timeout_and_interrupt_in_json(tmp_path):
    path = write(tmp_path, LOOP)
    r = invoke("run", path, "--timeout", "0.5", "--json")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert doc["stopped"] == "timeout"
    assert doc["cells"][-1]["error"]["type"] == "TimeoutError"


# --------------------------------------------------------------------------- isolation


def test_run_with_graph_options_leaves_the_interpreter_as_it_was(tmp_path):
    import gradviz.torch as engine
    from gradviz.torch.autograd import graph

    before = (set(sys.modules), os.getcwd(), engine.get_default_dtype(), engine.is_grad_enabled(),
              list(graph.LISTENERS), sys.modules.get("torch"))
    path = write(tmp_path, """\
        import os, torch
        torch.set_default_dtype(torch.float64)
        torch.set_grad_enabled(False)
        os.chdir('/')
        raise ValueError('boom')
    """)
    r = invoke("run", path, "--graph", tmp_path / "g.dot", "--backward-twice", "--retain-graph", "--lint")
    assert r.exit_code in (1, 2)
    after = (set(sys.modules), os.getcwd(), engine.get_default_dtype(), engine.is_grad_enabled(),
             list(graph.LISTENERS), sys.modules.get("torch"))
    assert after[1:] == before[1:]
    assert not {m for m in after[0] - before[0] if m == "torch" or m.startswith("torch.")}


def test_json_without_graph_options_is_unchanged():
    doc = json.loads(invoke("run", SEED, "--json").stdout)
    assert set(doc) == {"script", "cells"}


def test_no_colour():
    r = invoke("run", SEED, "--graph", "-", "--tree", "--backward-twice")
    assert not ANSI.search(r.stdout) and not ANSI.search(r.stderr)


TRAINING = """\
import os
import torch
import torch.nn as nn

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.01)
x = torch.randn(32, 8)
target = torch.randn(32, 1)
for step in range(1000):
    opt.zero_grad()
    loss = ((net(x) - target) ** 2).mean()
    loss.backward()
    opt.step()
    if step == 100:
        start = rss_mb()
print(f"RSS growth: {rss_mb() - start:.1f} MB")
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
@pytest.mark.slow
def test_a_thousand_step_training_loop_under_the_recorder_does_not_grow(tmp_path):
    path = write(tmp_path, TRAINING)
    p = gradviz("run", path, "--graph", tmp_path / "g.dot", timeout=300)
    assert p.returncode == 0, p.stderr
    growth = float(re.search(r"RSS growth: (-?[\d.]+) MB", p.stdout).group(1))
    assert growth < 20, growth
    assert "root chosen by the last backward call (line 16)" in p.stdout


def test_json_with_tree_puts_the_tree_on_stderr():
    r = invoke("run", SEED, "--json", "--tree")
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert doc["graph"]["roots"] == ["L"] and doc["graph"]["freed"] == 8
    assert "backward graph of L" in r.stderr


def test_cells_and_graph(tmp_path):
    out = tmp_path / "g.dot"
    r = invoke("run", str(SAMPLES / "errors_demo.py"), "--cells", "--graph", out)
    assert r.exit_code == 1
    assert r.stdout.count("After cell") == 4 and "Tensors after" not in r.stdout
    assert "Graph of z: 2 backward nodes" in r.stdout and out.exists()
