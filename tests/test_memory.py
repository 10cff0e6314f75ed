"""``gradviz run --memory``: the saved-for-backward ledger (inspect/memory.py), checked
against what real PyTorch keeps, measured with saved_tensors_hooks by distinct storage."""
import json
import subprocess
import sys
import textwrap

import pytest

from _cli_helpers import ROOT, invoke, write

MODEL = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(8 * 4 * 4, 32), nn.LayerNorm(32), nn.GELU(), nn.Linear(32, 10))
x = torch.randn(4, 3, 8, 8)
loss = F.cross_entropy(model(x), torch.tensor([1, 2, 3, 4]))
loss.backward()
"""

MEASURE = """\
import runpy, sys, torch
storages = {}
def pack(t):
    s = t.untyped_storage()
    storages[s.data_ptr()] = s.nbytes()
    return t
with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    runpy.run_path(sys.argv[1], run_name="__main__")
print(sum(storages.values()), len(storages))
"""


def pytorch_keeps(script, tmp_path):
    """(bytes, storages) real PyTorch saves for backward, by distinct storage."""
    pytest.importorskip("torch")
    measure = write(tmp_path, MEASURE, "measure.py")
    p = subprocess.run([sys.executable, str(measure), str(script)], capture_output=True, text=True, timeout=300,
                       cwd=str(ROOT / "bench" / "models"), env={"PYTHONPATH": str(ROOT / "bench" / "models"),
                                                               "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr
    size, count = p.stdout.split()[-2:]
    return int(size), int(count)


def ledger(script, engine):
    r = invoke("run", str(script), "--engine", engine, "--memory", "--json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)["memory"]


@pytest.mark.parametrize("engine", ["gradviz", "torch"])
def test_the_ledger_is_what_pytorch_keeps(engine, tmp_path):
    script = write(tmp_path, MODEL)
    size, count = pytorch_keeps(script, tmp_path)
    m = ledger(script, engine)
    assert (m["saved_bytes"], m["storages"]) == (size, count)
    assert m["parameter_bytes"] + m["activation_bytes"] == m["saved_bytes"] and m["parameter_bytes"] > 0
    assert m["by_module"]["model"] <= m["activation_bytes"]  # the loss's are outside the model
    assert sum(m["by_module"][f"model.{k}"] for k in range(9) if f"model.{k}" in m["by_module"]) <= \
        m["by_module"]["model"]
    assert sum(line["bytes"] for line in m["by_line"]) == m["saved_bytes"]
    assert m["calls"][-1]["call"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("model, engines", [("gpt2_2", ["torch"]), ("resnet", ["gradviz", "torch"]),
                                            ("mlp50", ["gradviz", "torch"])])
def test_real_models_match_pytorch_within_a_percent(model, engines, tmp_path):
    if model == "gpt2_2":
        pytest.importorskip("transformers")
    script = ROOT / "bench" / "models" / f"{model}.py"
    size, _ = pytorch_keeps(script, tmp_path)
    for engine in engines:
        m = ledger(script, engine)
        assert abs(m["saved_bytes"] - size) <= size / 100, (engine, m["saved_bytes"], size)


def test_a_training_loop_gets_a_ledger_per_backward_and_the_terminal_summarises(tmp_path):
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        w = torch.ones(256, requires_grad=True)
        for step in range(5):
            loss = (w.exp() * w).sum()
            loss.backward()
        """))
    m = ledger(script, "gradviz")
    assert [c["call"] for c in m["calls"]] == [1, 2, 3, 4, 5]
    assert m["saved_bytes"] == 2 * 256 * 4 and m["parameter_bytes"] == 1024  # exp's result and w itself
    r = invoke("run", script, "--memory")
    assert "Saved for backward call 5 at script.py:5: 2.0 KiB in 2 storages\n  parameters 1.0 KiB, activations " \
           "1.0 KiB; all freed as the call ended\n" in r.stdout
    assert "(2 earlier backward calls: --json lists them)" in r.stdout


BLOCK = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
        self.out = nn.Linear(8, 1)
    def forward(self, x):
        return self.out(CHECKPOINT(self.block, x))
net = Net()
x = torch.randn(5, 8)
loss = net(x).sum()
loss.backward(retain_graph=True)
loss.backward()
"""


@pytest.mark.parametrize("engine", ["gradviz", "torch"])
def test_what_checkpointing_a_module_frees_and_when_each_call_frees(engine, tmp_path):
    if engine == "torch":
        pytest.importorskip("torch")
    m = ledger(write(tmp_path, BLOCK.replace("CHECKPOINT(self.block, x)", "self.block(x)")), engine)
    first, second = m["calls"]
    x, relu, h = 5 * 8 * 4, 5 * 16 * 4, 5 * 8 * 4  # the block's input, its ReLU's output, its output
    assert first["by_module"] == {"net": x + relu + h, "net.block": x + relu, "net.block.0": x,
                                  "net.block.2": relu, "net.out": h}
    # a checkpoint keeps the module's input; a storage also held outside the module stays
    assert first["checkpoint_frees"] == {"net": relu + h, "net.block": relu}
    assert (first["kept_bytes"], first["freed_bytes"]) == (first["saved_bytes"], 0)  # retain_graph=True
    assert first["freed_later"] == [{"call": 2, "bytes": first["saved_bytes"]}]
    assert (second["freed_bytes"], second["kept_bytes"]) == (second["saved_bytes"], 0)
    assert second["checkpoint_frees"] == first["checkpoint_frees"]  # the same graph, the same forward
    assert m["peak"] == {"bytes": first["saved_bytes"], "call": 1}


def test_checkpointing_frees_what_the_ledger_says_on_pytorch(tmp_path):
    """PyTorch's own count, by storage, without and with the block checkpointed: what
    leaves the count is the ReLU's output and block.2's weight, whose storage stays
    (a parameter); the block's input stays saved, as the checkpoint needs it."""
    plain = write(tmp_path, BLOCK.replace("CHECKPOINT(self.block, x)", "self.block(x)"), "plain.py")
    checkpointed = write(tmp_path, "import torch.utils.checkpoint\n" + BLOCK.replace(
        "CHECKPOINT", "torch.utils.checkpoint.checkpoint").replace("self.block, x)", "self.block, x, use_reentrant=False)"),
        "checkpointed.py")
    frees = ledger(plain, "torch")["calls"][0]["checkpoint_frees"]["net.block"]
    before, _ = pytorch_keeps(plain, tmp_path)
    after, _ = pytorch_keeps(checkpointed, tmp_path)
    assert before - after - 8 * 16 * 4 == frees == 5 * 16 * 4


def test_the_peak_counts_what_an_earlier_graph_still_keeps(tmp_path):
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        w = torch.ones(64, requires_grad=True)
        a = (w.exp() * w).sum()
        a.backward(retain_graph=True)
        b = (w.sin() * w).sum()
        b.backward()
        a.backward()
        """))
    m = ledger(script, "gradviz")
    assert m["peak"] == {"bytes": 64 * 4 * 3, "call": 2}  # b's sin input and w, and a's exp kept
    assert m["calls"][1]["earlier_bytes"] == 256
    assert m["calls"][0]["freed_later"] == [{"call": 3, "bytes": 512}]
    r = invoke("run", script, "--memory")
    assert "Peak held for backward: 768 B, as backward call 2 began\n  of which earlier graphs kept " \
           "(retain_graph=True): 256 B\n" in r.stdout


def test_with_memory_the_picture_fills_nodes_by_the_bytes_they_saved(tmp_path):
    out = tmp_path / "g.dot"
    script = write(tmp_path, BLOCK.replace("CHECKPOINT(self.block, x)", "self.block(x)"))
    r = invoke("run", script, "--memory", "--graph", str(out), "--view", "backward")
    assert r.exit_code == 0, r.stderr
    nodes = {line.split("[", 1)[0].strip(): line for line in out.read_text().splitlines() if "saved " in line
             and "label=" in line and "_s" not in line.split("[", 1)[0]}
    relu = next(line for line in nodes.values() if "ReluBackward0" in line)
    assert "saved 320 B" in relu and 'fillcolor="#' in relu
    fills = {line.split('fillcolor="', 1)[1][:7] for line in nodes.values()}
    assert len(fills) > 1  # more bytes, a darker fill
    plain = tmp_path / "plain.dot"
    invoke("run", script, "--graph", str(plain), "--view", "backward")
    assert "saved 320 B" not in plain.read_text()  # without --memory, the picture is as before


def test_the_report_shows_the_ledger_the_reasons_and_the_nan_finding(tmp_path):
    page = tmp_path / "r.html"
    r = invoke("run", str(ROOT / "samples" / "why_no_grad.py"), "--memory", "--nan", "--html", str(page))
    assert r.exit_code == 0, r.stderr
    html = page.read_text()
    for label in ("why no gradient", "what backward keeps (--memory)", "where a NaN starts (--nan)"):
        assert f'<div class="gv-label">{label}</div>' in html
    assert "Saved for backward call 1 at why_no_grad.py:30: 208 B in 4 storages" in html
    assert "--nan: no NaN in any op&#x27;s result or any gradient of the run." in html
