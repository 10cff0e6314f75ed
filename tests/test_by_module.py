"""run --by-module: the tensors named after a module summed up per module (their count,
elements, gradient 2-norm and how many lack a .grad), in the table and in --json, at
--depth; the same on real PyTorch."""
import json
import math

import pytest

from _cli_helpers import invoke, write

SCRIPT = """\
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1)))
model[2][1].bias.requires_grad_(False)
model[0].weight.requires_grad_(False)
x = torch.randn(5, 4)
loss = model(x).pow(2).mean()
loss.backward()
"""


def rows(tmp_path, *extra, engine="gradviz"):
    r = invoke("run", write(tmp_path, SCRIPT), "--by-module", "--json", "--engine", engine, *extra)
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    return {m["module"]: m for m in doc["modules"]}, {t["name"]: t for t in doc["cells"][-1]["tensors"]}


def expected_norm(tensors, names):
    total = 0.0
    for n in names:
        grad = tensors[n]["grad"]
        if grad is not None:
            total += sum(v * v for v in _flat(grad["data"]))
    return math.sqrt(total)


def _flat(values):
    stack, out = [values], []
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(v)
        else:
            out.append(v)
    return out


def test_a_row_per_module_with_its_gradient_norm(tmp_path):
    modules, tensors = rows(tmp_path)
    assert list(modules) == ["model.0", "model.2.0", "model.2.1"]
    fc = modules["model.0"]
    assert (fc["tensors"], fc["numel"], fc["without_grad"]) == (2, 15, 0)  # a frozen weight: no grad, not missing
    assert fc["grad_norm"] == pytest.approx(expected_norm(tensors, ["model.0.bias"]), rel=1e-6)
    last = modules["model.2.1"]
    assert (last["tensors"], last["numel"], last["without_grad"]) == (2, 3, 0)
    assert last["grad_norm"] == pytest.approx(expected_norm(tensors, ["model.2.1.weight"]), rel=1e-6)


def test_depth_groups_higher_up(tmp_path):
    modules, tensors = rows(tmp_path, "--depth", "1")
    assert list(modules) == ["model.0", "model.2"]
    inner = modules["model.2"]
    assert (inner["tensors"], inner["numel"]) == (4, 11)
    names = ["model.2.0.weight", "model.2.0.bias", "model.2.1.weight"]
    assert inner["grad_norm"] == pytest.approx(expected_norm(tensors, names), rel=1e-6)
    modules, _ = rows(tmp_path, "--depth", "0")
    assert list(modules) == ["model"] and modules["model"]["tensors"] == 6


def test_the_table_keeps_the_other_tensors_and_adds_the_modules(tmp_path):
    r = invoke("run", write(tmp_path, SCRIPT), "--by-module")
    assert r.exit_code == 0, r.stderr
    table, by_module = r.stdout.split("By module")
    assert "loss" in table and "model.0.bias" not in table  # a module's tensors are in its row only
    lines = [line.split() for line in by_module.splitlines() if line.startswith("model.")]
    assert [line[0] for line in lines] == ["model.0", "model.2.0", "model.2.1"]
    assert lines[0][1:3] == ["2", "15"]


def test_a_parameter_that_needs_a_grad_and_has_none_is_counted(tmp_path):
    script = SCRIPT.replace("loss = model(x)", "unused = nn.Linear(2, 2)\nloss = model(x)")
    r = invoke("run", write(tmp_path, script), "--by-module", "--json")
    modules = {m["module"]: m for m in json.loads(r.stdout)["modules"]}
    assert modules["unused"]["without_grad"] == 2 and modules["unused"]["grad_norm"] is None


def test_the_same_rows_on_real_pytorch(tmp_path):
    pytest.importorskip("torch")
    ours, _ = rows(tmp_path)
    theirs, _ = rows(tmp_path, engine="torch")
    assert list(ours) == list(theirs)
    for name in ours:
        assert {k: v for k, v in ours[name].items() if k != "grad_norm"} == \
            {k: v for k, v in theirs[name].items() if k != "grad_norm"}
        assert ours[name]["grad_norm"] == pytest.approx(theirs[name]["grad_norm"], rel=1e-5)
