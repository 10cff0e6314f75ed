"""Pictures and the tree grouped by module (issue 25, points 2 and 3), on hand-made
snapshots (tests/_module_graphs.py): clusters nested by module and labelled
'path (Class)', module boxes past the depth, folded repeated siblings and calls,
parameters inside their module, no invented cycle, the box budget and the size bounds,
the tree's length, snapshots without modules unchanged, and --depth on the CLI.
"""
import io
import re
import time

import pytest
from rich.console import Console

from gradviz.commands import common
from gradviz.inspect.model import BackwardNode, Edge, GraphSnapshot, ModuleInfo, Root
from gradviz.render import dot, modules, tree
from gradviz.render.options import GraphOptions

from _cli_helpers import invoke
from _module_graphs import gpt, lstm, mlp, without_modules


def backward_plan(snap, **options):
    nodes = snap.nodes
    items = [n.id for n in nodes]
    edges = [(n.id, e.target) for n in nodes for e in n.edges if e.target is not None]
    kind = {n.id: n.label_name for n in nodes}
    weight = {n.id: 1 + len(n.saved) + (1 if n.leaf else 0) for n in nodes}
    place = {n.id: (n.module, n.module_call) for n in nodes if n.module}
    roots = {r.node for r in snap.roots}
    plan = modules.plan(items, edges, kind, weight, place, snap.modules, roots=roots, **options)
    return plan, items, edges


def drawn_cycles(plan, items, edges):
    return modules._on_cycles(items, edges, plan.group_of.get)


def clusters(source):
    """{cluster name: its label} of a DOT source."""
    return dict(re.findall(r"subgraph (cluster_\w+) \{\n[^\n]*?label=\"?([^\"\n]*)", source))


# --------------------------------------------------------------------------- grouping, labels, depth


def test_a_gpt_is_drawn_in_clusters_nested_by_module_and_labelled_path_class():
    g = dot.Graph(gpt(), view="backward", depth=5)
    labels = set(clusters(g.source).values())
    for label in ("model (GPT2LMHeadModel)", "model.transformer (GPT2Model)", "model.transformer.h.0 (GPT2Block)",
                  "model.transformer.h.0.attn (GPT2Attention)", "model.transformer.h.0.attn.c_attn (Conv1D)",
                  "model.transformer.ln_f (LayerNorm)", "model.lm_head (Linear)"):
        assert label in labels, label
    # nested: the block's cluster is inside the fold's, inside the transformer's, inside the model's
    src = g.source
    order = [src.index(f'label="{x}"') for x in ("model (GPT2LMHeadModel)", "model.transformer (GPT2Model)",
                                                  "model.transformer.h.0–11 (GPT2Block) ×12",
                                                  "model.transformer.h.0 (GPT2Block)")]
    assert order == sorted(order)
    assert any("grouped by module at depth 5 of 5" in n for n in g.notes)


@pytest.mark.parametrize("depth,box", [
    (0, "model (GPT2LMHeadModel)\\n×527 nodes, 148 parameters"),
    (1, "model.transformer (GPT2Model)\\n×525 nodes, 148 parameters"),
    (2, "model.transformer.h.0 (GPT2Block)\\n×43 nodes, 12 parameters"),
    (3, "model.transformer.h.0.attn (GPT2Attention)\\n×24 nodes, 4 parameters"),
])
def test_past_the_depth_a_module_is_one_box_with_its_counts(depth, box):
    g = dot.Graph(gpt(), view="backward", depth=depth)
    assert f'label="{box}"' in g.source
    assert any(f"depth {depth} of 5" in n for n in g.notes)
    level = {}
    for m in gpt().modules:  # parents first
        level[m.path] = level.get(m.parent, 0) + 1
    opened = [label.split(" ")[0] for label in clusters(g.source).values()]
    assert all(level[path] <= depth for path in opened if path in level), opened


def test_the_default_depth_is_the_deepest_that_fits():
    g = dot.Graph(gpt(), view="backward")
    depth = int(re.search(r"depth (\d) of 5", " ".join(g.notes)).group(1))
    assert depth >= 4
    assert g.estimate.pixels <= dot.PICTURE_PIXELS and max(g.estimate.width, g.estimate.height) <= dot.LARGEST_SIDE


def test_repeated_siblings_fold_into_one_drawn_and_one_summary():
    src = dot.Graph(gpt(), view="backward").source
    assert 'label="model.transformer.h.0–11 (GPT2Block) ×12"' in src  # the cluster around them
    assert 'label="model.transformer.h.1–11 (GPT2Block) ×11\\neach ×43 nodes, 12 parameters"' in src
    assert "model.transformer.h.5" not in src
    m = dot.Graph(mlp(), view="backward").source  # a period of three: (Linear, LayerNorm, GELU)
    assert 'label="model.0–149 (Linear, LayerNorm, GELU) ×50"' in m
    assert "model.3–149 (Linear, LayerNorm, GELU) ×49 blocks of 3\\neach ×8 nodes, 4 parameters" in m


def test_a_loops_calls_fold_the_first_drawn_the_rest_one_box():
    src = dot.Graph(lstm(), view="backward").source
    assert 'label="model.cell (LSTMCell) ×40 calls"' in src
    assert "model.cell (LSTMCell) calls 2–40 ×39" in src


def test_the_forward_view_is_grouped_and_folded_too():
    g = dot.Graph(mlp(), view="forward")
    assert 'label="model.0–149 (Linear, LayerNorm, GELU) ×50"' in g.source
    assert "each ×4 ops" in g.source
    assert g.estimate.width < 3000 and g.estimate.height < 3000


def test_parameters_sit_inside_their_modules_cluster():
    for snap in (gpt(), lstm(), mlp()):
        plan, _, _ = backward_plan(snap, budget=300)
        for n in snap.nodes:
            if n.leaf is not None and n.id not in plan.group_of:
                assert plan.cluster_of[n.id] == f"m:{n.module}", n.leaf.name
    src = dot.Graph(gpt(), view="backward").source
    block = src[src.index('label="model.transformer.h.0.ln_1 (LayerNorm)"'):]
    block = block[:block.index("}")]
    assert "model.transformer.h.0.ln_1.weight" in block and "model.transformer.h.0.ln_1.bias" in block


# --------------------------------------------------------------------------- no cycle


def test_folding_the_loop_never_draws_a_cycle():
    snap = lstm()
    for depth in range(4):
        plan, items, edges = backward_plan(snap, budget=300, depth=depth)
        assert drawn_cycles(plan, items, edges) == [], depth
    plan, items, edges = backward_plan(snap, budget=300)
    assert plan.refused == 0
    # the loop body's mask between two calls is taken into the summary of calls 2-40
    summary = next(grp for grp in plan.groups if grp.title and "calls 2–40" in grp.title[0])
    masks = [m for m in summary.members if snap.node(m).module == "model"]
    assert len(masks) == 39 - 1


def test_a_box_that_would_make_a_cycle_is_refused_and_drawn_finer():
    # a1 (in A) -> x (outside) -> a2 (in A): A as one box would draw A -> x -> A
    def node(i, targets, module=None):
        return BackwardNode(f"n{i}", "MulBackward0", "MulBackward0", None, 9 - i,
                            tuple(Edge(k, f"n{t}", 0) for k, t in enumerate(targets)), (), (), None,
                            module=module, module_call=1 if module else 0)
    snap = GraphSnapshot((Root("L", "n0", 0, (), "float32", True),),
                         (node(0, [1]), node(1, [2], "m.a"), node(2, [3]), node(3, [4], "m.a"), node(4, [])),
                         modules=(ModuleInfo("m", "Net", 1), ModuleInfo("m.a", "Block", 1, "m")))
    plan, items, edges = backward_plan(snap, budget=300, depth=1)
    assert plan.refused >= 1 and drawn_cycles(plan, items, edges) == []
    assert "n1" not in plan.group_of and "n3" not in plan.group_of
    assert plan.cluster_of["n1"] == plan.cluster_of["n3"] == "m:m.a"
    g = dot.Graph(snap, view="backward", depth=1)
    assert any("left open, as folding would have drawn a cycle" in n for n in g.notes)


# --------------------------------------------------------------------------- budget and size


@pytest.mark.parametrize("make", [gpt, lstm, mlp], ids=["gpt", "lstm", "mlp"])
@pytest.mark.parametrize("view", ["backward", "forward", "both"])
def test_synthetic_models_fit_the_picture_limits(make, view):
    # grouped, a picture may aim at the hard limit (its estimate runs over Graphviz's)
    g = dot.Graph(make(), view=view)
    e = g.estimate
    assert e.pixels <= dot.PICTURE_PIXELS and max(e.width, e.height) <= dot.LARGEST_SIDE
    assert e.boxes <= 300


@pytest.mark.parametrize("max_nodes", [40, 80, 150])
def test_max_nodes_is_a_real_budget_for_grouped_graphs(max_nodes):
    for make in (gpt, lstm, mlp):
        plan, _, _ = backward_plan(make(), budget=max_nodes)
        assert plan.after <= max_nodes, (make.__name__, plan.after)


@pytest.mark.slow
@pytest.mark.parametrize("make", [lambda: gpt(2300), lambda: mlp(12500), lambda: lstm(6000)],
                         ids=["gpt2300", "mlp12500", "lstm6000"])
def test_a_hundred_thousand_node_model_is_drawn_in_seconds(tmp_path, make):
    snap = make()
    assert len(snap.nodes) > 95_000
    # The backward graph of 100,000 nodes: within 10 s (about 2-3 s alone on the dev
    # machine). Both views hold twice as much (the forward graph's 170,000 values and ops
    # too): about 6-8 s alone, with room here for a loaded machine.
    for view, limit in (("backward", 10), ("both", 15)):
        t0 = time.perf_counter()
        r = dot.Graph(snap, view=view).save(tmp_path / f"{view}.png")
        took = time.perf_counter() - t0
        assert took <= limit, (view, took)
        assert r.width * r.height <= dot.PICTURE_PIXELS and max(r.width, r.height) <= dot.PICTURE_SIDE


@pytest.mark.slow
@pytest.mark.parametrize("make", [gpt, lstm, mlp], ids=["gpt", "lstm", "mlp"])
def test_synthetic_models_are_drawn_within_the_bounds(tmp_path, make):
    r = dot.Graph(make()).save(tmp_path / "g.png")
    assert r.width * r.height <= dot.PICTURE_PIXELS and max(r.width, r.height) <= dot.PICTURE_SIDE


# --------------------------------------------------------------------------- the tree


def tree_lines(snap, **options):
    buf = io.StringIO()
    tree.print_tree(snap, console=Console(file=buf, width=110, color_system=None), **options)
    return buf.getvalue().splitlines()


def test_the_tree_folds_by_module_and_by_loop():
    lines = tree_lines(lstm())
    assert len(lines) <= 150
    assert any("model.cell (LSTMCell) calls 2–40 ×39" in line for line in lines)
    lines = tree_lines(gpt())
    assert len(lines) <= 200
    assert any("model.transformer.h.1–11 (GPT2Block) ×11, each ×43 nodes" in line for line in lines)
    assert len(tree_lines(gpt(), depth=0)) < 20


# --------------------------------------------------------------------------- unchanged without modules


def test_snapshots_without_modules_are_drawn_as_before():
    for make in (gpt, lstm):
        snap = without_modules(make())
        src = dot.Graph(snap, view="backward").source
        assert "cluster_bm" not in src and "grouped by module" not in src
        assert modules.has_modules({n.id: None for n in snap.nodes}) is False


# --------------------------------------------------------------------------- --depth


def test_depth_is_an_option_of_graph_and_run():
    for cmd in ("graph", "run"):
        assert "--depth N" in invoke(cmd, "--help").output
    r = invoke("graph", "a*b", "-o", "-", "--depth", "1")
    assert r.exit_code == 0 and "digraph" in r.output
    assert invoke("graph", "a*b", "-o", "-", "--depth", "-1").exit_code == 2


def test_depth_reaches_the_picture_through_graph_options(capsys):
    out = common.write_graph(gpt(), common.Target(None, "dot"), GraphOptions(view="backward", depth=1))
    assert out.error is None
    assert 'label="model.transformer (GPT2Model)\\n×525 nodes, 148 parameters"' in capsys.readouterr().out
