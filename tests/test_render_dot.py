"""gradviz.render.dot / collapse / tree: golden DOT, real Graphviz output, large graphs.

Golden files live in tests/golden/. After an intended change to the pictures, rewrite
them with ``GRADVIZ_UPDATE_GOLDEN=1 python3 -m pytest tests/test_render_dot.py`` and
review the diff.
"""
import os
import re
import subprocess
import sys
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gradviz.torch as torch
from gradviz.inspect import Recorder, snapshot
from gradviz.render import collapse, dot, tree

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).resolve().parent.parent

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

RNN = """\
torch.manual_seed(0)
W = torch.randn(4, 4, requires_grad=True)
U = torch.randn(3, 4, requires_grad=True)
bias = torch.zeros(4, requires_grad=True)
xs = torch.randn(3, 3)
h = torch.zeros(4)
for t in range(3):
    h = torch.tanh(xs[t] @ U + h @ W + bias)
L = h.sum()
"""

SECOND_BACKWARD = """\
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x * w).sigmoid()
L = y.sum()
L.backward()
try:
    L.backward()
except RuntimeError as e:
    err = str(e)
"""

INPLACE = """\
x = torch.ones(3, requires_grad=True)
y = x.exp()
z = y * 2
y.add_(1)
L = z.sum()
"""

CHAIN = """\
x = torch.ones(4, requires_grad=True)
y = x
for _ in range(1000):
    y = y.tanh()
L = y.sum()
"""


def graph_of(src, root="L", filename="seed.py", **options):
    ns = {"torch": torch}
    with Recorder() as rec:
        exec(compile(textwrap.dedent(src), filename, "exec"), ns)
    names = {id(v): k for k, v in ns.items() if isinstance(v, torch.Tensor)}
    return dot.Graph(snapshot(ns[root], names, rec), **options), ns


def check_golden(name, source):
    path = GOLDEN / f"{name}.dot"
    if os.environ.get("GRADVIZ_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(source)
    assert path.exists(), f"{path} is missing: run with GRADVIZ_UPDATE_GOLDEN=1 to create it"
    assert source == path.read_text(), f"DOT differs from {path} (GRADVIZ_UPDATE_GOLDEN=1 rewrites it)"


# --------------------------------------------------------------------------- golden DOT


def test_golden_seed_graph():
    g, _ = graph_of(SEED)
    src = g.source
    check_golden("seed", src)
    for name in ("a", "w1", "w2", "w3", "w4"):
        assert f'label="{name}\\n(3, 3)' in src
    for node in ("MulBackward0", "AddBackward0", "RsubBackward1", "SumBackward0"):
        assert f'label="{node}\\n' in src
    assert len(re.findall(r"\tb_n\d+ \[label=AccumulateGrad fillcolor=lightblue\]", src)) == 5
    assert src.count('\\nfreed by backward at seed.py:11"') == 8  # 4 MulBackward0 x (self, other)
    assert "_saved_self = w1" in src and "_saved_other = a" in src


def test_golden_shared_weight_rnn():
    g, _ = graph_of(RNN)
    check_golden("rnn_shared_weights", g.source)
    s = g.snapshot
    acc_w = next(n for n in s.nodes if n.leaf is not None and n.leaf.name == "W")
    users = [n for n in s.nodes for e in n.edges if e.target == acc_w.id]
    assert len(users) == 3  # one AccumulateGrad for W, shared by the three steps
    assert g.source.count("fillcolor=orange") >= 6  # live saved tensors, no backward yet


def test_golden_after_a_failed_second_backward():
    g, ns = graph_of(SECOND_BACKWARD, view="backward")
    assert ns["err"].startswith("Trying to backward through the graph a second time")
    g = dot.Graph(g.snapshot, view="backward", notes=["second backward: RuntimeError: " + ns["err"]])
    check_golden("second_backward_failed", g.source)
    assert "second backward: RuntimeError: Trying to backward through the graph a second time" in g.source
    assert "cluster_forward" not in g.source
    assert g.source.count("style=\"filled,dashed\"") >= 3  # freed buffers + legend entry


def test_golden_inplace_stale_saved_tensor():
    g, _ = graph_of(INPLACE)
    check_golden("inplace_stale", g.source)
    assert "saved v0, now v1" in g.source and "fillcolor=tomato" in g.source


def test_golden_collapsed_chain():
    g, _ = graph_of(CHAIN, max_nodes=40)
    check_golden("chain_collapsed", g.source)
    assert "×998 TanhBackward0" in g.source and "×998 tanh" in g.source
    assert any(n.startswith("backward: 4 nodes drawn, 998 of 1,002 nodes are collapsed into 1 summary box") for n in g.notes)


def test_saved_tensors_are_separate_boxes_from_leaves():
    """torchviz #69: a saved leaf gets its own orange/freed box next to the leaf's blue one."""
    g, _ = graph_of(SEED.replace("L.backward()\n", ""), view="backward")
    src = g.source
    mul_b = next(n for n in g.snapshot.nodes if n.output_names == ("b",))
    leaf_a = next(n for n in g.snapshot.nodes if n.leaf is not None and n.leaf.name == "a")
    assert f'b_{mul_b.id}_s1 [label="_saved_other = a' in src
    assert f'b_{leaf_a.id}_leaf [label="a' in src


def test_dot_is_deterministic_across_processes_and_hash_seeds():
    script = textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import gradviz.torch as torch
        from gradviz.inspect import Recorder, snapshot
        from gradviz.render import dot
        ns = {{"torch": torch}}
        with Recorder() as rec:
            exec(compile({SEED + RNN.replace("L = ", "L2 = ")!r}, "seed.py", "exec"), ns)
        names = {{id(v): k for k, v in ns.items() if isinstance(v, torch.Tensor)}}
        sys.stdout.write(dot.to_dot(snapshot([ns["L"], ns["L2"]], names, rec)))
        """)
    outs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        outs.append(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                                   check=True).stdout)
    assert outs[0] == outs[1] and "digraph" in outs[0]


def test_views_and_options():
    g, _ = graph_of(SEED)
    assert "cluster_forward" in g.source and "cluster_backward" in g.source and "cluster_legend" in g.source
    fw = dot.Graph(g.snapshot, view="forward").source
    assert "cluster_forward" in fw and "cluster_backward" not in fw and "AccumulateGrad" not in fw
    bw = dot.Graph(g.snapshot, view="backward", legend=False, show_sites=False, show_saved=False).source
    assert "cluster_forward" not in bw and "cluster_legend" not in bw and "seed.py" not in bw.replace(
        'tooltip="seed.py', "") and "_saved_" not in bw
    attrs = dot.Graph(g.snapshot, view="backward", show_attrs=True).source
    assert "alpha=1" in attrs
    with pytest.raises(ValueError, match="view must be one of"):
        dot.Graph(g.snapshot, view="sideways")
    no_forward = snapshot(_seed_tensor())
    with pytest.raises(ValueError, match="no forward graph"):
        dot.Graph(no_forward, view="forward")
    assert "cluster_forward" not in dot.Graph(no_forward).source  # 'both' shows what there is


def _seed_tensor():
    ns = {"torch": torch}
    exec(compile(SEED, "seed.py", "exec"), ns)
    return ns["L"]


def test_make_dot_like_torchviz():
    L = _seed_tensor()
    g = dot.make_dot(L)
    assert g.view == "backward" and "SumBackward0" in g.source
    assert repr(g).startswith("<gradviz Graph: 12 backward nodes")


# --------------------------------------------------------------------------- rendering


def test_renders_png_svg_pdf(tmp_path):
    g, _ = graph_of(SEED)
    png = g.save(tmp_path / "g.png")
    data = (tmp_path / "g.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert 500 < width < 8000 and 300 < height < 8000, (width, height)
    assert (width, height) == (png.width, png.height)
    g.save(tmp_path / "g.svg")
    root = ET.parse(tmp_path / "g.svg").getroot()
    assert root.tag.endswith("svg")
    titles = {t.text for t in root.iter("{http://www.w3.org/2000/svg}title")}
    assert {"b_n0", "f_v0", "legend_leaf"} <= titles
    g.save(tmp_path / "g.pdf")
    assert (tmp_path / "g.pdf").read_bytes()[:4] == b"%PDF"
    g.save(tmp_path / "g.dot")
    assert (tmp_path / "g.dot").read_text() == g.source
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot", "g.pdf", "g.png", "g.svg"]  # no temp files


def test_ten_thousand_op_chain_renders_a_readable_png_in_seconds(tmp_path):
    t0 = time.monotonic()
    g, _ = graph_of(CHAIN.replace("1000", "10000"))
    r = g.save(tmp_path / "chain.png")
    elapsed = time.monotonic() - t0
    assert "×9998 TanhBackward0" in g.source
    assert r.width < 3000 and r.height < 3000 and r.notes
    assert elapsed < 30, f"{elapsed:.1f} s"


@pytest.mark.slow
def test_hundred_thousand_op_chain_gives_dot_without_recursion():
    x = torch.ones(4, requires_grad=True)
    with Recorder() as rec:
        y = x
        for _ in range(100_000):
            y = y.tanh()
        L = y.sum()
    s = snapshot(L, {id(x): "x", id(L): "L"}, rec)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(300)
    try:
        t0 = time.process_time()
        source = dot.to_dot(s)
        elapsed = time.process_time() - t0
    finally:
        sys.setrecursionlimit(limit)
    assert "×99998 TanhBackward0" in source and "×99998 tanh" in source
    assert len(source) < 20_000
    assert elapsed < 10, f"{elapsed:.1f} s of CPU"


def test_missing_graphviz_is_a_clear_error_and_keeps_the_dot(tmp_path, monkeypatch):
    g, _ = graph_of(SEED)
    from gradviz.render import layout

    monkeypatch.setattr(layout, "_have_pygraphviz", lambda: False)
    monkeypatch.setattr(layout.shutil, "which", lambda name: None)
    with pytest.raises(dot.GraphvizNotFound, match="neither pygraphviz nor Graphviz's `dot` program") as info:
        g.save(tmp_path / "g.png")
    assert str(tmp_path / "g.dot") in str(info.value)
    assert (tmp_path / "g.dot").read_text() == g.source
    assert not (tmp_path / "g.png").exists()
    with pytest.raises(dot.RenderError):
        g._repr_svg_()
    bundle = g._repr_mimebundle_()
    assert "image/svg+xml" not in bundle and "is installed" in bundle["text/plain"]


def test_oversized_picture_is_refused_and_nothing_is_clobbered(tmp_path):
    g, _ = graph_of(SEED)
    target = tmp_path / "g.png"
    target.write_bytes(b"previous picture")
    with pytest.raises(dot.ImageTooLarge, match="refusing to render a .* px picture"):
        g.save(target, max_pixels=10_000)
    assert target.read_bytes() == b"previous picture"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot", "g.png"]


def test_graphviz_failure_leaves_no_file(tmp_path):
    with pytest.raises(dot.RenderError, match="Graphviz failed"):
        dot.write("digraph { a -> }", tmp_path / "bad.svg")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.dot"]


def test_unknown_extension(tmp_path):
    with pytest.raises(ValueError, match="unknown graph format '.jpg'"):
        dot.write("digraph {}", tmp_path / "g.jpg")
    with pytest.raises(ValueError, match="add an extension"):
        dot.write("digraph {}", tmp_path / "g")
    assert list(tmp_path.iterdir()) == []


def test_jupyter_display():
    g, _ = graph_of(SEED)
    svg = g._repr_svg_()
    assert "<svg" in svg
    bundle = g._repr_mimebundle_(include={"image/svg+xml"})
    assert set(bundle) == {"image/svg+xml"}


# --------------------------------------------------------------------------- collapse


def _chain(n, hub=False):
    items = [f"c{i}" for i in range(n)]
    edges = [(items[i], items[i + 1]) for i in range(n - 1)]
    kind = {i: "T" for i in items}
    if hub:
        items.append("w")
        kind["w"] = "AccumulateGrad"
        edges += [(i, "w") for i in items[1:-2:2]]
    return items, edges, kind


def test_collapse_leaves_small_graphs_alone():
    items, edges, kind = _chain(10)
    p = collapse.plan(items, edges, kind, dict.fromkeys(items, 1), (), budget=300)
    assert not p.collapsed and p.after == p.total == 10
    assert not collapse.plan(items, edges, kind, dict.fromkeys(items, 1), (), budget=None).collapsed


def test_collapse_chain_keeps_its_ends():
    items, edges, kind = _chain(1000)
    p = collapse.plan(items, edges, kind, dict.fromkeys(items, 2), {"c0"}, budget=50)
    (grp,) = p.groups
    # c0 is pinned; the run is c1..c999, which keeps its first and last
    assert grp.counts == (("T", 997),) and {"c0", "c1", "c999"}.isdisjoint(p.group_of)
    assert p.after <= 50 and p.rep("c5") == grp.id


def test_collapse_chain_around_a_shared_hub():
    items, edges, kind = _chain(1000, hub=True)
    p = collapse.plan(items, edges, kind, dict.fromkeys(items, 1), (), budget=60)
    assert "w" not in p.group_of and p.after <= 60 and len(p.groups) == 1


def test_collapse_wide_graph_groups_siblings():
    items = ["root"] + [f"m{i}" for i in range(500)] + [f"l{i}" for i in range(500)]
    edges = [("root", f"m{i}") for i in range(500)] + [(f"m{i}", f"l{i}") for i in range(500)]
    kind = {i: ("Mul" if i.startswith("m") else "Acc" if i.startswith("l") else "Sum") for i in items}
    p = collapse.plan(items, edges, kind, dict.fromkeys(items, 1), {"root"}, budget=100)
    assert p.after <= 100 and "root" not in p.group_of


dags = st.integers(2, 400).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n),
    st.integers(5, 200),
    st.lists(st.sampled_from("ABC"), min_size=n, max_size=n)))


@settings(max_examples=60, deadline=None)
@given(dags)
def test_collapse_plan_invariants(dag):
    n, pairs, budget, kinds = dag
    items = [f"i{k}" for k in range(n)]
    edges = [(items[u], items[v]) for u, v in pairs if u < v]  # u < v: acyclic
    kind = dict(zip(items, kinds))
    weight = {i: 1 + (k % 3) for k, i in enumerate(items)}
    pinned = {items[0]}
    p = collapse.plan(items, edges, kind, weight, pinned, budget)
    again = collapse.plan(items, edges, kind, weight, pinned, budget)
    assert p == again  # deterministic
    assert items[0] not in p.group_of
    members = [m for g in p.groups for m in g.members]
    assert len(members) == len(set(members)) and set(members) == set(p.group_of)
    assert all(g.size >= 2 for g in p.groups)
    loose = sum(weight[i] for i in items if i not in p.group_of)
    assert p.after == loose + len(p.groups)
    if p.collapsed:
        assert p.after < p.total


# --------------------------------------------------------------------------- tree


def _tree_text(snap, **kw):
    from rich.console import Console
    console = Console(record=True, width=120, color_system=None, file=open(os.devnull, "w"))
    tree.print_tree(snap, console=console, **kw)
    return console.export_text()


def test_tree_of_the_seed_graph():
    g, _ = graph_of(SEED)
    text = _tree_text(g.snapshot)
    assert text.splitlines()[0] == "backward graph of L"
    assert "SumBackward0 → L  n0  seed.py:10" in text
    assert "AccumulateGrad → a (3, 3)  grad (3, 3)" in text
    assert "AccumulateGrad → a  n7 (shared, shown above)" in text
    assert text.count("freed by backward at seed.py:11") == 8
    assert "_saved_other = b (3, 3)" in text


@pytest.mark.slow
def test_tree_of_a_hundred_thousand_op_chain_is_short_and_quick():
    x = torch.ones(4, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y.tanh()
    L = y.sum()
    s = snapshot(L, {id(x): "x", id(L): "L"})
    t0 = time.process_time()
    text = _tree_text(s)
    assert time.process_time() - t0 < 10
    assert "×99998 TanhBackward0" in text and "AccumulateGrad → x (4,)" in text
    assert len(text.splitlines()) < 20


def test_tree_limits_depth_and_size():
    g, _ = graph_of(SEED)
    shallow = _tree_text(g.snapshot, max_depth=2)
    assert "… 4 more levels not shown (max depth 2)" in shallow and "MulBackward0 → b" not in shallow
    short = _tree_text(g.snapshot, max_nodes=3)
    assert "stopped after 3 lines" in short
