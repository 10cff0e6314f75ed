"""gradviz.inspect: the Recorder and the frozen snapshot of forward and backward graphs.

Scripts are compiled under a fixed file name ("seed.py"), as the CLI runs them, so
creation sites are checked exactly. Where real PyTorch is importable it is the oracle
for node names, edges and saved-tensor attributes.
"""
import dataclasses
import gc
import pickle
import sys
import textwrap
import time
import weakref

import pytest

import gradviz.torch as torch
from gradviz.inspect import GraphSnapshot, Recorder, snapshot
from gradviz.inspect import model
from gradviz.torch.autograd import graph

SEED = """\
torch.manual_seed(0)
a = torch.randn((3, 3), requires_grad=True)
w1 = torch.randn((3, 3), requires_grad=True)
w2 = torch.randn((3, 3), requires_grad=True)
w3 = torch.randn((3, 3), requires_grad=True)
w4 = torch.randn((3, 3), requires_grad=True)
b = w1 * a
c = w2 * a
d = w3 * b + w4 * c
L = (10 - d).sum()
L.backward()
"""

FREED_MSG = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
             "have already been freed). Saved intermediate values of the graph are freed when you call "
             ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph "
             "a second time or if you need to access saved tensors after calling backward.")


def run(src, filename="seed.py", record=True):
    """Run ``src`` with ``torch`` bound to the engine; (namespace, names, recorder)."""
    ns = {"torch": torch}
    code = compile(textwrap.dedent(src), filename, "exec")
    if record:
        with Recorder() as rec:
            exec(code, ns)
    else:
        rec = None
        exec(code, ns)
    return ns, names_of(ns), rec


def names_of(ns):
    return {id(v): k for k, v in ns.items() if isinstance(v, torch.Tensor)}


def snap_of(src, root="L", **kw):
    ns, names, rec = run(src, **kw)
    return snapshot(ns[root], names, rec), ns


# --------------------------------------------------------------------------- backward graph


def test_seed_backward_graph_names_ids_edges_sites():
    s, ns = snap_of(SEED)
    assert [n.id for n in s.nodes] == [f"n{k}" for k in range(len(s.nodes))]
    labels = [n.label_name for n in s.nodes]
    assert labels.count("MulBackward0") == 4
    assert labels.count("AccumulateGrad") == 5
    assert {"AddBackward0", "RsubBackward1", "SumBackward0"} <= set(labels)
    assert len(s.nodes) == 12  # shared leaf `a` has one AccumulateGrad, reached twice
    root = s.roots[0]
    assert (root.name, root.node, root.shape, root.dtype) == ("L", "n0", (), "float32")
    n0 = s.node("n0")
    assert n0.name == "SumBackward0" and n0.site == ("seed.py", 10) and n0.output_names == ("L",)
    add = s.by_name("AddBackward0")[0]
    assert add.output_names == ("d",) and add.site == ("seed.py", 9)
    assert [(e.input, s.node(e.target).name) for e in add.edges] == [(0, "MulBackward0"), (1, "MulBackward0")]
    leaves = {n.leaf.name: n for n in s.nodes if n.is_accumulate}
    assert set(leaves) == {"a", "w1", "w2", "w3", "w4"}
    assert leaves["a"].name == "torch::autograd::AccumulateGrad" and leaves["a"].type == "AccumulateGrad"
    assert leaves["a"].leaf.shape == (3, 3) and leaves["a"].leaf.grad.shape == (3, 3)
    # the leaf a is reached from two MulBackward0 nodes, through one node id
    users = [n.id for n in s.nodes for e in n.edges if e.target == leaves["a"].id]
    assert len(users) == 2


def test_seed_saved_tensors_are_freed_and_named_not_merged_into_leaves():
    s, ns = snap_of(SEED)
    muls = s.by_name("MulBackward0")
    saved = {(x.slot, x.tensor_name) for n in muls for x in n.saved}
    assert saved == {("self", "w1"), ("other", "a"), ("self", "w2"), ("other", "a"), ("self", "w3"),
                     ("other", "b"), ("self", "w4"), ("other", "c")}
    for n in muls:
        assert [x.attr for x in n.saved] == ["_saved_self", "_saved_other"]
        for x in n.saved:
            assert x.freed and x.kind == "freed" and x.shape == (3, 3) and x.dtype == "float32"
            assert x.saved_version == 0 and x.current_version is None and x.is_output is False
        assert n.freed_by.kind == "backward" and n.freed_by.site == ("seed.py", 11)
    # torchviz #69: a saved tensor is its own record, pointing at the leaf's value, not the leaf
    b_node = next(n for n in muls if n.output_names == ("b",))
    leaf_a = next(n for n in s.nodes if n.leaf is not None and n.leaf.name == "a")
    assert b_node.saved[1].value == leaf_a.leaf.value  # same forward value...
    assert b_node.saved[1] is not leaf_a.leaf  # ...but a separate saved-tensor record


def test_node_structure_matches_real_pytorch():
    real = pytest.importorskip("torch")
    if real is torch or not hasattr(real, "__version__"):
        pytest.skip("real PyTorch is not importable")
    ns = {"torch": real}
    exec(compile(SEED.replace("L.backward()\n", ""), "seed.py", "exec"), ns)
    ours, _ = snap_of(SEED.replace("L.backward()\n", ""))
    # Walk real PyTorch's graph in the same order (iterative DFS preorder).
    order, index, stack = [], {}, [ns["L"].grad_fn]
    while stack:
        node = stack.pop()
        if node in index:
            continue
        index[node] = len(order)
        order.append(node)
        stack.extend(n for n, _ in reversed(node.next_functions) if n is not None and n not in index)
    assert [n.name() for n in order] == [n.name for n in ours.nodes]
    assert [[(index[m] if m is not None else None, nr) for m, nr in n.next_functions] for n in order] == \
        [[(int(e.target[1:]) if e.target else None, e.output_nr) for e in n.edges] for n in ours.nodes]
    for real_node, node in zip(order, ours.nodes):
        real_saved = sorted(a for a in dir(real_node) if a.startswith("_saved_") and
                            isinstance(getattr(real_node, a), real.Tensor))
        assert real_saved == sorted(x.attr for x in node.saved if x.kind == "tensor"), node.name


def test_retain_graph_keeps_saved_tensors_live_then_second_backward_frees():
    s, ns = snap_of(SEED.replace("L.backward()", "L.backward(retain_graph=True)"))
    mul = s.by_name("MulBackward0")[0]
    assert all(x.kind == "tensor" and not x.freed and x.current_version == 0 for x in mul.saved)
    assert mul.freed_by is None
    ns["L"].backward()
    s2 = snapshot(ns["L"], names_of(ns))
    assert all(x.freed for x in s2.by_name("MulBackward0")[0].saved)


def test_failed_second_backward_snapshot_shows_freed_buffers_and_pytorch_error():
    src = SEED + "try:\n    L.backward()\nexcept RuntimeError as e:\n    err = str(e)\n"
    s, ns = snap_of(src)
    assert ns["err"] == FREED_MSG
    assert all(x.freed for n in s.by_name("MulBackward0") for x in n.saved)
    assert [c.site for c in s.backward_calls] == [("seed.py", 11), ("seed.py", 13)]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        ns["b"].grad_fn._saved_self  # the engine still raises PyTorch's error; the snapshot did not


def test_snapshot_on_backward_end_captures_the_graph_as_the_call_left_it():
    """The CLI's use: snapshot right after backward freed the buffers, via the callback."""
    taken = []
    ns = {"torch": torch}

    def on_backward(phase, roots, call):
        if phase == "end":
            taken.append(snapshot(roots, names_of(ns), rec))

    with Recorder(on_backward=on_backward) as rec:
        exec(compile(SEED, "seed.py", "exec"), ns)
    (s,) = taken
    assert s.roots[0].name == "L" and s.roots[0].node == "n0"
    assert all(x.freed for n in s.by_name("MulBackward0") for x in n.saved)
    assert rec.backward_roots()[0][0] is ns["L"].grad_fn


def test_inplace_modification_is_seen_as_a_stale_saved_tensor():
    s, ns = snap_of("""\
        x = torch.ones(3, requires_grad=True)
        y = x * 2
        z = y.sigmoid()
        out = (z * 3).sum()
        z.mul_(2)
        """, root="out")
    sig = s.by_name("SigmoidBackward0")[0]
    (res,) = [x for x in sig.saved if x.slot == "result"]
    assert res.is_output and res.stale and (res.saved_version, res.current_version) == (0, 1)
    assert res.tensor_name == "z (v0)"  # z now names its newer value


def test_inplace_and_view_ops_in_the_forward_graph():
    s, ns = snap_of("""\
        x = torch.ones(3, requires_grad=True)
        base = torch.zeros(4, requires_grad=True).clone()
        base.mul_(2)
        v = base[1:3]
        v.add_(x[:2])
        out = base.sum()
        """, root="out")
    ops = [(o.name, [s.value(i).name for i in o.inputs], [s.value(i).name for i in o.outputs]) for o in s.ops]
    assert ops == [("clone", ["leaf"], ["base (v0)"]),
                   ("mul_", ["base (v0)", "2"], ["base (v1)"]),  # in place: a new value of the same tensor
                   ("slice", ["x"], ["slice(x)"]),
                   ("add_", ["base (v1)", "slice(x)"], ["base"]),  # on a view: one op on the base
                   ("sum", ["base"], ["out"])]
    assert [s.value(o.outputs[0]).version for o in s.ops[:2]] == [0, 1]
    copy = s.by_name("CopySlices")[0]
    assert copy.label_name == "CopySlices" and copy.inner == "AddBackward0"
    assert copy.output_names == ("base",)


def test_view_refreshed_after_inplace_on_its_base():
    s, ns = snap_of("""\
        x = torch.ones(3, requires_grad=True)
        base = torch.zeros(4, requires_grad=True).clone()
        v = base[1:3]
        v.add_(x[:2])
        out = v.sum()
        """, root="out")
    ops = [(o.name, [s.value(i).name for i in o.inputs], [s.value(i).name for i in o.outputs]) for o in s.ops]
    # One call, as PyTorch's TorchFunctionMode sees it: add_ updates the base, and the view
    # is refreshed from it (AsStridedBackward0).
    assert ops[-2:] == [("add_", ["base (v0)", "slice(x)"], ["base", "v"]), ("sum", ["v"], ["out"])]
    assert s.node("n1").name == "AsStridedBackward0"


def test_custom_function_and_multi_output():
    s, ns = snap_of("""\
        class MyExp(torch.autograd.Function):
            @staticmethod
            def forward(ctx, i):
                r = i.exp()
                ctx.save_for_backward(r)
                return r
            @staticmethod
            def backward(ctx, g):
                r, = ctx.saved_tensors
                return g * r
        p = torch.randn(4, requires_grad=True)
        a1, a2 = p.split(2)
        q = MyExp.apply(a1) + a2
        L = q.sum()
        L.backward()
        """)
    fn = s.by_name("MyExpBackward")[0]
    (slot,) = fn.saved
    assert (slot.slot, slot.attr, slot.kind, slot.is_output) == ("saved_tensors[0]", "saved_tensors[0]", "freed", True)
    split = s.by_name("SplitBackward0")[0]
    assert split.output_names == ("a1", "a2") and len(split.outputs) == 2
    assert [o.name for o in s.ops] == ["split", "MyExp.apply", "add", "sum"]


def test_forward_graph_values_names_and_execution_order():
    s, ns = snap_of(SEED)
    assert s.has_forward
    by_name = {v.name: v for v in s.values}
    assert {"a", "w1", "w2", "w3", "w4", "b", "c", "d", "L", "w3*b", "w4*c", "10 - d", "10"} == set(by_name)
    assert by_name["a"].is_leaf and by_name["a"].requires_grad and by_name["a"].grad.shape == (3, 3)
    assert not by_name["w3*b"].named and not by_name["w3*b"].alive  # a temporary, named by its expression
    assert by_name["10"].kind == "constant"
    assert by_name["L"].node == "n0" and by_name["L"].shape == ()
    ops = [(o.name, o.site[1]) for o in s.ops]
    assert ops == [("mul", 7), ("mul", 8), ("mul", 9), ("mul", 9), ("add", 9), ("rsub", 10), ("sum", 10)]
    assert s.ops[0].inputs == (by_name["w1"].id, by_name["a"].id) and s.ops[0].outputs == (by_name["b"].id,)
    # ops after the root (allclose's -c and friends) are not ancestors of L: left out
    ns2, names2, rec2 = run(SEED + "e = -c * 2\n")
    assert [o.name for o in snapshot(ns2["L"], names2, rec2).ops] == [o.name for o in s.ops]


def test_expressions_are_capped_and_parenthesised():
    s, _ = snap_of("""\
        x = torch.ones(2, requires_grad=True)
        y = (x + 1) * (x - 2) / -x
        for _ in range(30):
            y = y.tanh()
        L = y.sum()
        """)
    exprs = [v.name for v in s.values if not v.named and v.kind == "tensor"]
    assert "x + 1" in exprs and "(x + 1)*(x - 2)" in exprs and "(x + 1)*(x - 2)/-x" in exprs
    assert max(len(e) for e in exprs) <= 40 and "tanh(…)" in exprs


def test_roots_as_nodes_edges_lists_and_names_either_way():
    ns, names, rec = run(SEED)
    by_tensor = snapshot(ns["L"], names)

    def shape(snap):  # without a recorder, a node root does not know its tensor's name
        return [(n.id, n.name, n.edges, n.saved, n.leaf) for n in snap.nodes]

    assert shape(snapshot(ns["L"].grad_fn, names)) == shape(by_tensor)
    assert shape(snapshot([(ns["L"].grad_fn, 0)], names)) == shape(by_tensor)
    assert snapshot((ns["L"].grad_fn, 0), names, rec).roots[0].name == "L"
    swapped = {k: v for k, v in ns.items() if isinstance(v, torch.Tensor)}
    assert snapshot(ns["L"], swapped).nodes == by_tensor.nodes
    two = snapshot([ns["b"], ns["c"]], names)
    assert [r.name for r in two.roots] == ["b", "c"] and two.roots[1].node == "n3"
    leaf = snapshot(ns["a"], names)
    assert leaf.roots[0].name == "a" and leaf.nodes[0].is_accumulate
    with pytest.raises(TypeError):
        snapshot(3, names)


def test_no_recorder_means_no_forward_but_names_still_work():
    s, _ = snap_of(SEED.replace("L.backward()\n", ""), record=False)
    assert not s.has_forward and s.values == () and s.ops == ()
    mul = s.by_name("MulBackward0")[0]
    assert [x.tensor_name for x in mul.saved] == ["w3", "b"]
    assert all(x.kind == "tensor" for x in mul.saved)


def test_grad_and_create_graph_are_recorded_as_backward_calls():
    s, ns = snap_of("""\
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x ** 3).sum()
        g, = torch.autograd.grad(y, x, create_graph=True)
        L = g.sum()
        """)
    assert [c.kind for c in s.backward_calls] == ["autograd.grad"]
    assert any(o.during_backward for o in s.ops) and not all(o.during_backward for o in s.ops)
    assert s.roots[0].name == "L"


def test_snapshot_is_frozen_plain_data():
    s, _ = snap_of(SEED)
    assert isinstance(s, GraphSnapshot)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.nodes = ()
    plain = (str, int, float, bool, type(None))
    stack = [s]
    while stack:  # iterative walk over every field
        x = stack.pop()
        if dataclasses.is_dataclass(x):
            assert type(x).__dataclass_params__.frozen
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
        elif isinstance(x, tuple):
            stack.extend(x)
        else:
            assert isinstance(x, plain), type(x)
    assert pickle.loads(pickle.dumps(s)) == s
    hash(s)


# --------------------------------------------------------------------------- recorder


def test_recorder_adds_and_removes_itself_even_on_error():
    before = list(graph.LISTENERS)
    with pytest.raises(ZeroDivisionError):
        with Recorder() as rec:
            assert graph.LISTENERS[-1] is rec
            with Recorder() as inner:
                assert graph.LISTENERS[-2:] == [rec, inner]
            assert graph.LISTENERS[-1] is rec
            1 / 0
    assert graph.LISTENERS == before


def test_recorder_keeps_no_tensor_alive_and_forgets_dead_graphs():
    x = torch.ones(5, requires_grad=True)
    with Recorder() as rec:
        y = x * 2
        z = y.exp()
        L = z.sum()
    probe = weakref.ref(y)
    del y
    gc.collect()
    assert probe() is None  # only the graph's saved data, never the recorder, holds tensors
    assert len(rec) == 3
    s = snapshot(L, {id(x): "x", id(L): "L"}, rec)
    assert [o.name for o in s.ops] == ["mul", "exp", "sum"]
    del L, z, s
    gc.collect()
    assert len(rec) == 0 and rec._values == {}  # the graph died: so did its records


@pytest.mark.slow
def test_hundred_thousand_op_chain_snapshots_quickly_without_recursion():
    x = torch.randn(4, requires_grad=True)
    with Recorder() as rec:
        y = x
        for _ in range(100_000):
            y = y.tanh()
        L = y.sum()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(250)  # recursion over the chain would fail at once
    try:
        t0 = time.process_time()
        s = snapshot(L, {id(x): "x", id(L): "L"}, rec)
        elapsed = time.process_time() - t0
    finally:
        sys.setrecursionlimit(limit)
    assert len(s.nodes) == 100_002 and len(s.ops) == 100_001
    assert s.nodes[-1].leaf.name == "x" and s.nodes[1].name == "TanhBackward0"
    assert s.values[-1].name == "L"
    assert elapsed < 5, f"snapshot of a 100,000-op chain took {elapsed:.1f} s of CPU"


def test_model_by_name_and_label_name():
    node = model.BackwardNode("n0", "torch::autograd::CopySlices", "CopySlices", None, 0, (), (), (), None)
    assert node.label_name == "CopySlices"
    acc = model.BackwardNode("n1", "torch::autograd::AccumulateGrad", "AccumulateGrad", None, 0, (), (), (), None)
    assert acc.label_name == "AccumulateGrad" and acc.is_accumulate


def test_recorder_errors_never_reach_the_program():
    def broken(phase, roots, call):
        raise ValueError("callback bug")

    with Recorder(on_backward=broken) as rec:
        x = torch.ones(2, requires_grad=True)
        L = (x * 3).sum()
        rec._new_value = None  # sabotage: on_node now fails inside the recorder
        y = x.exp()
        L.backward()
    assert x.grad is not None and y.shape == (2,)
    assert rec.errors[0].startswith("on_node: TypeError") and "callback bug" in rec.errors[1]
    s = snapshot(L, {id(L): "L"}, rec)
    assert any("the recorder hit" in n for n in s.notes)


def test_capture_snapshots_each_backward_as_it_returns():
    ns = {"torch": torch}
    src = SEED + "x = torch.ones(2, requires_grad=True)\nM = (x * 2).sum()\nM.backward()\n"
    with Recorder(capture=lambda: names_of(ns), keep=2) as rec:
        exec(compile(src, "seed.py", "exec"), ns)
    (call1, first), (call2, second) = rec.captures
    assert (call1.site, call2.site) == (("seed.py", 11), ("seed.py", 14))
    assert first.roots[0].name == "L" and second.roots[0].name == "M"
    assert all(x.freed for n in first.by_name("MulBackward0") for x in n.saved)
    assert [o.name for o in second.ops] == ["mul", "sum"]
    with Recorder(capture=lambda: names_of(ns)) as rec:
        exec(compile(src, "seed.py", "exec"), ns)
    assert [c.site[1] for c, _ in rec.captures] == [14]  # keep=1: the last call only
