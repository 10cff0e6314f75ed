"""Each backward node carries the gradient formula of each of its inputs, as text: the body
of the op table's lambda (gradviz/torch/_ops.py), read from the lambda's instruction
positions; the same texts on gradviz's engine and on real PyTorch (by node name), and in
the ``--json`` NODE (docs/json.md)."""
import json
import pickle

import pytest

from gradviz.inspect import formulas as formulas_module
from gradviz.inspect import snapshot
from gradviz.inspect.formulas import formula_text, formula_texts
from gradviz.render.jsonout import node_dict
from gradviz.torch.autograd.graph import formulas_of

from _cli_helpers import invoke, write

needs_positions = pytest.mark.skipif(not formulas_module.HAS_POSITIONS, reason="Python < 3.11: no co_positions")

SCRIPT = """\
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([[0.5, -1.0], [2.0, 0.0]], requires_grad=True)
L = (a.mm(b) * a).tanh().sum()
"""

EXPECTED = {  # of SCRIPT's graph, on either engine
    "SumBackward0": (("self", "F.expand(grad, self_sym_sizes)"),),
    "TanhBackward0": (("self", "F.tanh_backward(grad, result)"),),
    "MulBackward0": (("self", "grad * F.conj(other)"), ("other", "grad * F.conj(self)")),
    "MmBackward0": (("self", "F.mm(grad, F.conj(F.t(mat2)))"), ("mat2", "F.mm(F.conj(F.t(self)), grad)")),
    "AccumulateGrad": (),
}


# --------------------------------------------------------------------------- the texts


@needs_positions
def test_mul_mm_and_tanh_read_as_written():
    assert formula_texts("MulBackward0") == EXPECTED["MulBackward0"]
    assert formula_texts("MmBackward0") == EXPECTED["MmBackward0"]
    assert formula_texts("TanhBackward0") == EXPECTED["TanhBackward0"]


@needs_positions
def test_a_multi_line_lambda_of_the_table_reads_on_one_line():
    # masked_select's formula spans three lines, broken after "(" and inside nested calls
    assert formula_texts("MaskedSelectBackward0") == (
        ("self", "F.embed_in_zeros(grad, np.broadcast_shapes(self_sym_sizes, mask.shape), "
                 "np.broadcast_to(mask, np.broadcast_shapes(self_sym_sizes, mask.shape)))"),)


@needs_positions
def test_a_multi_line_lambda_gives_its_body_only():
    both = (lambda grad, other: grad   # first body, over two lines
            * other,
            lambda grad, self: (
                grad
                + self))
    assert formula_text(both[0]) == "grad * other"
    assert formula_text(both[1]) == "grad + self"  # the brackets around a whole body are not part of it


def test_a_named_function_gives_its_name_and_arguments():
    def tanh_backward(grad, result):
        return grad * (1 - result * result)

    assert formula_text(tanh_backward) == "tanh_backward(grad, result)"
    if formulas_module.HAS_POSITIONS:  # max(dim=...)'s formula in the table is a named helper
        assert formula_texts("MaxBackward1") == (("self", "_where_selected(grad, self, result)"),)


def test_an_unknown_name_has_no_formulas():
    assert formulas_of("NoSuchBackward0") == ()
    assert formula_texts("NoSuchBackward0") == ()
    assert formula_texts("AccumulateGrad") == ()


def test_the_engine_lists_each_input_with_its_function_in_the_table_order():
    found = formulas_of("MmBackward0")
    assert [name for name, _ in found] == ["self", "mat2"]
    assert all(callable(fn) for _, fn in found)
    assert [name for name, _ in formulas_of("CatBackward0")] == ["tensors"]  # variadic: one formula


def test_the_first_declaration_of_a_shared_node_name_wins():
    # two ops of _ops_nn.py make ConvolutionBackwardBackward0 nodes: the input gradient's first
    assert [name for name, _ in formulas_of("ConvolutionBackwardBackward0")] == ["grad_output", "weight"]


@needs_positions
def test_texts_are_cached_and_shared():
    assert formula_texts("MulBackward0") is formula_texts("MulBackward0")


def test_without_instruction_positions_there_are_no_texts(monkeypatch):
    monkeypatch.setattr(formulas_module, "HAS_POSITIONS", False)
    monkeypatch.setattr(formulas_module, "_TEXTS", {})
    assert formula_texts("MulBackward0") == ()


# --------------------------------------------------------------------------- snapshots


def _graph(torch):
    ns = {"torch": torch}
    exec(SCRIPT, ns)
    return snapshot(ns["L"])


def _by_name(snap):
    return [(n.label_name, n.formulas) for n in snap.nodes]


@needs_positions
def test_a_snapshot_of_gradviz_engine_carries_the_formulas():
    import gradviz.torch as gtorch

    snap = _graph(gtorch)
    assert sorted({name for name, _ in _by_name(snap)}) == sorted(EXPECTED)
    for name, formulas in _by_name(snap):
        assert formulas == EXPECTED[name], name
    assert pickle.loads(pickle.dumps(snap)) == snap  # the new field travels between processes


@needs_positions
def test_a_snapshot_of_real_torch_carries_the_same_formulas():
    torch = pytest.importorskip("torch")
    import gradviz.torch as gtorch

    theirs, ours = _graph(torch), _graph(gtorch)
    assert _by_name(theirs) == _by_name(ours)
    assert {name: formulas for name, formulas in _by_name(theirs)} == EXPECTED


def test_a_custom_function_on_real_torch_has_no_formulas():
    torch = pytest.importorskip("torch")

    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = torch.ones(3, requires_grad=True)
    snap = snapshot(Twice.apply(x).sum())
    assert [(n.label_name, n.formulas) for n in snap.nodes][1] == ("TwiceBackward", ())


@needs_positions
def test_a_long_chain_shares_one_tuple_per_node_name():
    import gradviz.torch as gtorch

    y = gtorch.ones(2, requires_grad=True)
    for _ in range(50):
        y = y.tanh()
    snap = snapshot(y)
    chain = [n for n in snap.nodes if n.name == "TanhBackward0"]
    assert len(chain) == 50 and chain[0].formulas == EXPECTED["TanhBackward0"]
    assert all(n.formulas is chain[0].formulas for n in chain)


# --------------------------------------------------------------------------- JSON


@needs_positions
def test_node_dict_lists_the_formulas():
    import gradviz.torch as gtorch

    snap = _graph(gtorch)
    mul = node_dict(snap.by_name("MulBackward0")[0])
    assert mul["formulas"] == [{"input": "self", "formula": "grad * F.conj(other)"},
                               {"input": "other", "formula": "grad * F.conj(self)"}]
    assert node_dict(snap.by_name("AccumulateGrad")[0])["formulas"] == []


@needs_positions
@pytest.mark.parametrize("engine", ["gradviz", "torch"])
def test_run_json_nodes_carry_the_formulas(tmp_path, engine):
    if engine == "torch":
        pytest.importorskip("torch")
    script = write(tmp_path, "import torch\n" + SCRIPT + "L.backward()\n")
    r = invoke("run", script, "--json", "--tree", *(("--engine", "torch") if engine == "torch" else ()))
    assert r.exit_code == 0, r.stderr
    nodes = json.loads(r.stdout)["graph"]["nodes"]
    found = {n["name"]: [(f["input"], f["formula"]) for f in n["formulas"]] for n in nodes}
    assert found == {name: list(formulas) for name, formulas in EXPECTED.items()}
