"""Large and long inputs (issue 8): a 100,000-op chain through `run`, `graph` and `explain`
in real processes, and 1,000-step training loops whose memory does not grow.

What is realistic for `gradviz graph`: an expression is capped at 10,000 characters,
2,000 syntax nodes and 100 levels of nesting (gradviz/expression/limits.py), so no
expression can spell out 100,000 ops; a pasted 100,000-op chain is refused in a fraction
of a second with one clear line and exit status 2. The largest graphs an expression can
build are balanced trees: 256 `a.tanh()` leaves summed pairwise give 512 ops (+ the final
sum) in about 1,800 syntax nodes, and that one must work and be collapsed in the picture.
A 100,000-op chain is what scripts make, so `run` and `explain` get the real thing.

Every subprocess has a generous timeout; the assertions are about behaviour (exit status,
output, bounded picture size), not speed. Other tests cover the in-process paths
(tests/test_cli_run_graph.py, tests/test_cli_explain.py, tests/test_inspect.py).
"""
import gc
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import gradviz.torch as torch

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb"}
TIMEOUT = 900  # seconds, per command: generous, for slow CI machines

HAVE_STATM = os.path.exists("/proc/self/statm")
needs_proc = pytest.mark.skipif(not HAVE_STATM, reason="needs /proc/self/statm (Linux)")

CHAIN = """\
import torch
x = torch.ones(3, requires_grad=True)
y = x
for i in range(100_000):
    y = torch.tanh(y) if i % 2 else y * 1.0001
L = y.sum()
L.backward()
"""


def gradviz(*args, input=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "gradviz", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=ENV, timeout=TIMEOUT, input=input)


def write(tmp_path, text, name="script.py"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def no_gradviz_traceback(p):
    assert "Traceback" not in p.stderr, p.stderr[-3000:]
    assert "internal error" not in p.stderr, p.stderr[-3000:]


# --------------------------------------------------------------------------- run


@pytest.mark.slow
def test_run_a_hundred_thousand_op_chain_in_a_process(tmp_path):
    script = write(tmp_path, CHAIN)
    p = gradviz("run", script)
    assert p.returncode == 0, p.stderr[-3000:]
    no_gradviz_traceback(p)
    lines = {ln.split()[0]: ln for ln in p.stdout.splitlines() if ln.split()}
    assert "TanhBackward0" in lines["y"] and "SumBackward0" in lines["L"], p.stdout[-2000:]


@pytest.mark.slow
def test_run_json_of_a_hundred_thousand_op_chain(tmp_path):
    script = write(tmp_path, CHAIN)
    p = gradviz("run", script, "--json")
    assert p.returncode == 0, p.stderr[-3000:]
    doc = json.loads(p.stdout)
    (cell,) = doc["cells"]
    assert cell["error"] is None
    t = {r["name"]: r for r in cell["tensors"]}
    assert t["y"]["grad_fn"] == "TanhBackward0" and t["L"]["grad_fn"] == "SumBackward0"
    assert t["x"]["grad"] is not None and all(v > 0 for v in t["x"]["grad"]["data"])


@pytest.mark.slow
def test_run_graph_of_a_hundred_thousand_op_chain_is_collapsed(tmp_path):
    script = write(tmp_path, CHAIN)
    out = tmp_path / "chain.dot"
    p = gradviz("run", script, "--graph", out)
    assert p.returncode == 0, p.stderr[-3000:]
    no_gradviz_traceback(p)
    source = out.read_text()
    assert 0 < len(source) < 100_000  # a readable picture, not 100,000 boxes
    assert "TanhBackward0" in source and "MulBackward0" in source
    assert "collapsed" in p.stdout + p.stderr
    assert not list(tmp_path.glob("*.tmp*")) and not list(tmp_path.glob(".*chain*"))  # no temporary left


@pytest.mark.slow
def test_run_backward_twice_on_a_hundred_thousand_op_chain(tmp_path):
    script = write(tmp_path, CHAIN)
    p = gradviz("run", script, "--backward-twice", "--json")
    assert p.returncode in (0, 1), p.stderr[-3000:]
    no_gradviz_traceback(p)
    assert "Trying to backward through the graph a second time" in p.stdout + p.stderr


# --------------------------------------------------------------------------- graph


def _balanced(k, leaf="a.tanh()"):
    if k == 1:
        return leaf
    h = k // 2
    return f"({_balanced(h, leaf)} + {_balanced(k - h, leaf)})"


def test_graph_refuses_a_hundred_thousand_op_expression_at_once():
    expression = "a" + ".tanh()" * 100_000 + ".sum()"  # 700 KB: through stdin, as a paste would come
    p = gradviz("graph", "-", input=expression)
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    no_gradviz_traceback(p)
    first = p.stderr.strip().splitlines()[0]
    assert first.startswith("gradviz graph: error: the expression is too long"), first
    assert "10,000" in first


def test_graph_refuses_a_deep_chain_with_a_caret():
    p = gradviz("graph", "-", input="a" + ".tanh()" * 60 + ".sum()")
    assert p.returncode == 2
    no_gradviz_traceback(p)
    assert p.stderr.startswith("gradviz graph: error: the expression is nested too deeply")
    assert "^" in p.stderr


def test_graph_of_the_largest_allowed_expression(tmp_path):
    expression = _balanced(256) + ".sum()"  # 512 ops + sum, ~1,800 syntax nodes, depth 9
    out = tmp_path / "tree.dot"
    p = gradviz("graph", expression, "-o", out)
    assert p.returncode == 0, p.stderr[-3000:]
    no_gradviz_traceback(p)
    source = out.read_text()
    assert 0 < len(source) < 200_000
    assert "TanhBackward0" in source and "AddBackward0" in source
    assert "collapsed" in p.stdout + p.stderr


def test_graph_json_of_the_largest_allowed_expression():
    p = gradviz("graph", _balanced(256) + ".sum()", "--json")
    assert p.returncode == 0, p.stderr[-3000:]
    doc = json.loads(p.stdout)
    text = json.dumps(doc)
    assert "TanhBackward0" in text and "AddBackward0" in text


# --------------------------------------------------------------------------- explain


@pytest.mark.slow
def test_explain_a_hundred_thousand_op_chain_that_backwards_twice(tmp_path):
    script = write(tmp_path, CHAIN + "L.backward()\n")
    p = gradviz("explain", script, "--json")
    assert p.returncode == 0, p.stderr[-3000:]
    no_gradviz_traceback(p)
    doc = json.loads(p.stdout)
    assert doc["id"] == "backward_twice"
    assert doc["context"]["error_line"] == 8
    assert "TanhBackward0" in json.dumps(doc["context"])


@pytest.mark.slow
def test_explain_text_and_graph_of_a_hundred_thousand_op_chain(tmp_path):
    script = write(tmp_path, CHAIN + "L.backward()\n")
    out = tmp_path / "freed.dot"
    p = gradviz("explain", script, "--graph", out)
    assert p.returncode == 0, p.stderr[-3000:]
    no_gradviz_traceback(p)
    assert "backward_twice" in p.stdout and "retain_graph=True" in p.stdout
    assert 0 < len(out.read_text()) < 100_000


# --------------------------------------------------------------------------- long training loops


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def _training_step(net, opt, x, target, F):
    opt.zero_grad()
    loss = F.cross_entropy(net(x), target)
    loss.backward()
    opt.step()
    return loss.item()


@needs_proc
@pytest.mark.slow
def test_a_thousand_step_training_loop_in_process_does_not_grow():
    """The engine itself, in this process: RSS after step 100 and after step 1,000."""
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 4))
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    x = torch.linspace(-1, 1, 64 * 16).reshape(64, 16)
    target = torch.arange(64) % 4
    losses = []
    for step in range(1000):
        losses.append(_training_step(net, opt, x, target, F))
        if step == 100:
            gc.collect()
            start = rss_mb()
    gc.collect()
    growth = rss_mb() - start
    assert growth < 10, f"RSS grew by {growth:.1f} MB over 900 steps"
    assert losses[-1] < losses[0]


@needs_proc
@pytest.mark.slow
def test_a_thousand_step_adam_loop_with_create_graph_penalty_does_not_grow():
    """Gradient penalties keep create_graph graphs alive per step: they must die with it."""
    nn = torch.nn
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.linspace(-2, 2, 32 * 4).reshape(32, 4)
    for step in range(1000):
        inp = x.clone().requires_grad_(True)
        out = net(inp)
        (g,) = torch.autograd.grad(out.sum(), inp, create_graph=True)
        loss = out.pow(2).mean() + ((g.norm(2, dim=1) - 1) ** 2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step == 100:
            gc.collect()
            start = rss_mb()
    gc.collect()
    growth = rss_mb() - start
    assert growth < 10, f"RSS grew by {growth:.1f} MB over 900 steps"


TRAINING_SCRIPT = """\
import os
import torch
import torch.nn as nn
import torch.nn.functional as F

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20

net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
x = torch.linspace(-1, 1, 48 * 8).reshape(48, 8)
target = torch.arange(48) % 3
for step in range(1000):
    opt.zero_grad()
    loss = F.cross_entropy(net(x), target)
    loss.backward()
    opt.step()
    if step == 100:
        start = rss_mb()
print(f"RSS growth: {rss_mb() - start:.2f} MB")
"""


@needs_proc
@pytest.mark.slow
def test_a_thousand_step_loop_under_gradviz_run_in_process_does_not_grow(tmp_path):
    """`gradviz run` in this process (its recorder watches every op): the script measures
    its own RSS; then a second run must not keep what the first one allocated."""
    from click.testing import CliRunner

    from gradviz import cli

    script = write(tmp_path, TRAINING_SCRIPT)

    def run_once():
        r = CliRunner().invoke(cli.cli, ["run", str(script), "--json"], catch_exceptions=False)
        assert r.exit_code == 0, r.output[-3000:]
        doc = json.loads(r.stdout)
        (cell,) = doc["cells"]
        assert cell["error"] is None, cell["error"]
        return float(cell["stdout"].split("RSS growth:")[1].split()[0])

    first = run_once()
    gc.collect()
    after_first = rss_mb()
    second = run_once()
    gc.collect()
    across = rss_mb() - after_first
    assert first < 20 and second < 20, (first, second)
    assert across < 20, f"a second run kept {across:.1f} MB more"
