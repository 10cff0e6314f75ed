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
    assert "Saved for backward call 5 at script.py:5: 2.0 KiB in 2 storages (parameters 1.0 KiB, activations " \
           "1.0 KiB)" in r.stdout
    assert "(2 earlier backward calls: --json lists them)" in r.stdout
