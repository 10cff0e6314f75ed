"""Module structure in the snapshot (issue 25), on both engines: which module call made each
forward op and backward node (paths from the user's variable and named_modules(), calls
counted per module), the module tree (GraphSnapshot.modules, parents first), parameters
named and owned by module path even for a model local to a function, and the same in
``gradviz run --json``'s graph."""
import gc
import json
import weakref

import pytest

from _cli_helpers import invoke, write
from gradviz.inspect import Recorder, snapshot
from gradviz.inspect.modules import ModuleTracker

ENGINES = ["gradviz", "torch"]


def engine(name):
    """(torch module, recorder class) of an engine."""
    if name == "torch":
        pytest.importorskip("torch")
        from gradviz.inspect.real_torch import TorchRecorder, import_torch
        return import_torch(), TorchRecorder
    import gradviz.torch as gtorch
    return gtorch, Recorder


def by_path(snap):
    return {m.path: m for m in snap.modules}


def build_and_record(torch, R):
    """A model local to a function: found in its locals as ``model``."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    x = torch.ones(2, 3)
    with R() as rec:
        loss = model(x).sum()
    return snapshot(loss, {id(x): "x"}, rec), model


@pytest.mark.parametrize("name", ENGINES)
def test_mlp_in_a_function_ops_nodes_and_parameters_carry_their_module(name):
    snap, model = build_and_record(*engine(name))
    assert [(m.path, m.type, m.calls, m.parent) for m in snap.modules] == [
        ("model", "Sequential", 1, None), ("model.0", "Linear", 1, "model"), ("model.1", "ReLU", 1, "model"),
        ("model.2", "Linear", 1, "model")]
    relu = snap.by_name("ReluBackward0")[0]
    assert (relu.module, relu.module_call) == ("model.1", 1)
    assert snap.by_name("SumBackward0")[0].module is None  # outside the model
    leaves = {n.leaf.name: n for n in snap.nodes if n.is_accumulate}
    assert set(leaves) == {"model.0.weight", "model.0.bias", "model.2.weight", "model.2.bias"}
    assert leaves["model.2.bias"].module == "model.2"
    assert {op.module for op in snap.ops} == {"model.0", "model.1", "model.2", None}
    assert all(n.module for n in snap.nodes if n.name != "SumBackward0")


class _State:
    """A plain holder of models, as training scripts keep them (a dataclass, a config)."""

    def __init__(self, model):
        self.model = model


@pytest.mark.parametrize("name", ENGINES)
def test_models_held_by_a_plain_object_or_a_dict_are_named_by_that_path(name):
    torch, R = engine(name)
    state = _State(torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh()))
    models = {"head": torch.nn.Linear(2, 1)}
    with R() as rec:
        loss = models["head"](state.model(torch.ones(4, 3))).sum()
    snap = snapshot(loss, {}, rec)
    assert [m.path for m in snap.modules] == ["state.model", "state.model.0", "state.model.1", "models['head']"]
    leaves = {n.leaf.name for n in snap.nodes if n.is_accumulate}
    assert leaves == {"state.model.0.weight", "state.model.0.bias", "models['head'].weight", "models['head'].bias"}


@pytest.mark.parametrize("name", ENGINES)
def test_a_block_reused_per_time_step_is_one_module_with_numbered_calls(name):
    torch, R = engine(name)
    nn = torch.nn

    class Cell(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, h, x):
            return torch.tanh(self.lin(h) + x)

    class RNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.cell = Cell()
            self.head = nn.Sequential(nn.Linear(4, 2))

        def forward(self, xs):
            h = torch.zeros(2, 4)
            for x in xs:
                h = self.cell(h, x)
            return self.head(h)

    torch.manual_seed(0)
    rnn = RNN()
    with R() as rec:
        out = rnn(torch.randn(5, 2, 4)).sum()
    snap = snapshot(out, {}, rec)
    assert [(m.path, m.calls, m.parent) for m in snap.modules] == [
        ("rnn", 1, None), ("rnn.cell", 5, "rnn"), ("rnn.cell.lin", 5, "rnn.cell"), ("rnn.head", 1, "rnn"),
        ("rnn.head.0", 1, "rnn.head")]
    tanh = [op for op in snap.ops if op.name == "tanh"]
    assert [(op.module, op.module_call) for op in tanh] == [("rnn.cell", k) for k in range(1, 6)]
    assert sorted(n.module_call for n in snap.by_name("TanhBackward0")) == [1, 2, 3, 4, 5]
    weight = next(n for n in snap.nodes if n.is_accumulate and n.leaf.name == "rnn.cell.lin.weight")
    assert (weight.module, weight.module_call) == ("rnn.cell.lin", 0)


@pytest.mark.parametrize("name", ENGINES)
def test_nested_modules_parents_first_and_a_module_called_on_its_own(name):
    torch, R = engine(name)
    nn = torch.nn

    class Inner(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(3))

        def forward(self, x):
            return x * self.scale

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Sequential(Inner(), Inner())
            self.b = Inner()

        def forward(self, x):
            return self.b(self.a(x))

    net = Outer()
    x = torch.ones(3, requires_grad=True)
    with R() as rec:
        y = net.b(x)  # a submodule called on its own: still named by its place in net
        z = net(y).sum()
    snap = snapshot(z, {}, rec)
    paths = [m.path for m in snap.modules]
    assert paths == ["net.b", "net", "net.a", "net.a.0", "net.a.1"]
    for m in snap.modules:
        if m.parent is not None:
            assert paths.index(m.parent) < paths.index(m.path)
    assert by_path(snap)["net.b"].calls == 2
    leaf = next(n for n in snap.nodes if n.is_accumulate and n.leaf.name == "net.a.1.scale")
    assert leaf.module == "net.a.1"


def use_and_forget(torch, rec):
    """Call a model inside ``rec``; only a weak reference to it comes back (the frames the
    tracker read the model's name from are gone)."""
    lin = torch.nn.Linear(2, 2)
    with rec:
        y = lin(torch.ones(2)).sum()
    assert all(n.module == "lin" for n in snapshot(y, {}, rec).nodes if n.name != "SumBackward0")
    return weakref.ref(lin)


@pytest.mark.parametrize("name", ENGINES)
def test_the_tracker_survives_errors_and_keeps_no_model_alive(name):
    torch, R = engine(name)
    nn = torch.nn

    class Bad(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    outer = nn.Sequential(nn.Identity(), Bad())
    rec = R()
    with rec:
        with pytest.raises(ValueError):
            outer(torch.ones(2))
        assert rec.tracker.current() is None  # the stack unwound with the error
    ref = use_and_forget(torch, rec)
    gc.collect()
    assert ref() is None
    assert not rec.errors
    hooks = torch.nn.modules.module
    assert not hooks._global_forward_hooks and not hooks._global_forward_pre_hooks  # removed on exit


def test_a_broken_module_tree_does_not_break_the_program():
    import gradviz.torch as gtorch

    class Weird(gtorch.nn.Module):
        def named_modules(self, *a, **k):
            raise RuntimeError("no")

        def forward(self, x):
            return x * 2

    errors = []
    tracker = ModuleTracker(gtorch, on_error=lambda where, e: errors.append(str(e))).start()
    try:
        assert Weird()(gtorch.ones(2)).tolist() == [2.0, 2.0]
    finally:
        tracker.stop()
    assert errors == ["no"]


def test_a_long_chain_in_one_module():
    import gradviz.torch as gtorch

    class Chain(gtorch.nn.Module):
        def forward(self, x):
            for _ in range(100_000):
                x = x * 1.0
            return x

    chain = Chain()
    x = gtorch.ones(1, requires_grad=True)
    with Recorder() as rec:
        y = chain(x)
    snap = snapshot(y, {}, rec)
    assert len(snap.ops) == 100_000 and {op.module for op in snap.ops} == {"chain"}
    assert snap.modules[0].calls == 1


def test_gpt2_every_backward_node_has_a_module():
    pytest.importorskip("transformers")
    torch, R = engine("torch")
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=50, n_positions=16))
    ids = torch.randint(0, 50, (1, 8))
    with R() as rec:
        loss = model(ids, labels=ids).loss
    snap = snapshot(loss, {}, rec)
    assert snap.nodes and all(n.module for n in snap.nodes), [n.name for n in snap.nodes if not n.module]
    paths = by_path(snap)
    assert paths["model"].type == "GPT2LMHeadModel"
    assert any(p.startswith("model.transformer.h.1.attn") for p in paths)
    assert paths["model.transformer.h.1"].parent == "model.transformer"
    leaves = {n.leaf.name: n.module for n in snap.nodes if n.is_accumulate}
    assert leaves["model.transformer.h.1.attn.c_attn.weight"] == "model.transformer.h.1.attn.c_attn"
    assert not rec.errors


SCRIPT = """
import torch
import torch.nn as nn

def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    loss = model(torch.ones(2, 3)).sum()
    loss.backward()

main()
"""


@pytest.mark.parametrize("name", ENGINES)
def test_run_json_carries_the_graph_with_modules(tmp_path, name):
    if name == "torch":
        pytest.importorskip("torch")
    script = write(tmp_path, SCRIPT)
    r = invoke("run", script, "--engine", name, "--json", "--graph", tmp_path / "g.svg")
    assert r.exit_code == 0, r.stderr
    graph = json.loads(r.stdout)["graph"]
    assert graph["node_count"] == len(graph["nodes"]) and graph["output"]["error"] is None
    nodes = {n["id"]: n for n in graph["nodes"]}
    tanh = next(n for n in graph["nodes"] if n["name"] == "TanhBackward0")
    assert tanh["module"] == "model.1" and tanh["module_call"] == 1 and tanh["site"]["line"] == 8
    assert tanh["saved"][0]["name"] == "_saved_result" and tanh["saved"][0]["bytes"] == 2 * 4 * 4
    assert tanh["saved"][0]["freed_by"]["kind"] == "backward" and tanh["saved"][0]["freed_by"]["site"]["line"] == 9
    assert all(e is None or e[0] in nodes for n in graph["nodes"] for e in n["next"])
    leaves = {n["leaf"]["name"]: n["module"] for n in graph["nodes"] if n["leaf"]}
    assert leaves == {"model.0.weight": "model.0", "model.0.bias": "model.0", "model.2.weight": "model.2",
                      "model.2.bias": "model.2"}
    assert [m["path"] for m in graph["modules"]] == ["model", "model.0", "model.1", "model.2"]
    assert {op["module"] for op in graph["ops"]} == {"model.0", "model.1", "model.2", None}
    assert "omitted" not in graph


def test_tree_alone_carries_the_graph_in_json(tmp_path):
    script = write(tmp_path, SCRIPT)
    r = invoke("run", script, "--json", "--tree")
    assert r.exit_code == 0, r.stderr
    graph = json.loads(r.stdout)["graph"]
    assert graph["nodes"] and graph["modules"][0] == {"path": "model", "type": "Sequential", "calls": 1,
                                                      "parent": None}


def test_json_graph_lists_are_capped():
    from gradviz.render import jsonout

    snap, _ = build_and_record(*engine("gradviz"))
    doc = jsonout.graph_dict(snap, limit=2)
    assert len(doc["nodes"]) == 2 and doc["omitted"]["nodes"] == len(snap.nodes) - 2
    assert doc["omitted"]["modules"] == 2
