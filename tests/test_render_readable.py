"""Readable at every size: pictures of RNNs and MLPs with the default options, the
folded tree at several depths and widths, the legend, the shape style, saved tensors'
names, the CLI's warnings about options that do nothing and about --max-nodes 0.

"Readable" is measured, not assumed: each picture is laid out and drawn by Graphviz,
its size is read from the PNG, and its smallest text is its smallest font (points, from
the DOT) times the picture's own scale (PNG pixels per laid-out point): at least
``dot.MIN_FONT_PX`` pixels. Wall time is not asserted here (bench/pictures.py times it).
"""
import re
import textwrap

import pytest

import gradviz.torch as torch
import gradviz.torch.nn as nn
from gradviz.inspect import Recorder, snapshot
from gradviz.render import collapse, dot, layout, tree

from _cli_helpers import ROOT, SAMPLES, gradviz, invoke, write

RNN = """\
torch.manual_seed(0)
W_xh = torch.randn(4, 8, requires_grad=True)
W_hh = torch.randn(8, 8, requires_grad=True)
b = torch.zeros(8, requires_grad=True)
xs = torch.randn(T, 4)
h = torch.zeros(1, 8)
for t in range(T):
    h = torch.tanh(xs[t:t+1] @ W_xh + h @ W_hh + b)
L = h.pow(2).sum()
L.backward()
"""

MLP = """\
torch.manual_seed(0)
layers = []
for i in range(T):
    layers += [nn.Linear(16, 16), nn.ReLU()]
model = nn.Sequential(*layers, nn.Linear(16, 1))
x = torch.randn(8, 16)
L = model(x).pow(2).mean()
L.backward()
"""


def snap_of(src, T):
    ns = {"torch": torch, "nn": nn, "T": T}
    with Recorder() as rec:
        exec(compile(src, "model.py", "exec"), ns)
    names = {id(v): k for k, v in ns.items() if isinstance(v, torch.Tensor)}
    if "model" in ns:
        names.update({id(p): f"model.{k}" for k, p in ns["model"].named_parameters()})
    return snapshot(ns["L"], names, rec)


_FONT = re.compile(r"fontsize=\"?([\d.]+)")


def smallest_font(source):
    return min(float(f) for f in _FONT.findall(source))


def measure(graph):
    """(width px, height px, smallest text px) of the picture Graphviz draws."""
    cmd, _ = layout._commands(layout.backend(), "png")
    laid_out = layout._run(cmd, graph.source.encode(), 120, "lay out the graph").decode()
    x0, y0, x1, y1 = (float(v) for v in layout._BB.search(laid_out).groups())
    _, width, height = layout.draw(graph.source, "png")
    scale = width / (x1 - x0)  # pixels per point, as drawn
    return width, height, smallest_font(graph.source) * scale


SIZES = [("rnn", RNN, T) for T in (5, 10, 15, 20, 25, 30, 60)] + [("mlp", MLP, T) for T in range(2, 13)]


@pytest.mark.parametrize("kind,src,T", SIZES, ids=[f"{k}{T}" for k, _, T in SIZES])
@pytest.mark.slow
def test_default_pictures_are_readable_and_within_the_budget(kind, src, T):
    g = dot.Graph(snap_of(src, T))
    width, height, font_px = measure(g)
    assert width * height <= layout.DEFAULT_MAX_PIXELS and max(width, height) <= layout.MAX_SIDE
    # The readable size, with room for the estimate's error (about 15% a side).
    assert width * height <= 1.4 * dot.READABLE_PIXELS and max(width, height) <= 1.2 * dot.READABLE_SIDE
    assert font_px >= dot.MIN_FONT_PX
    assert g.estimate.min_font_px >= dot.MIN_FONT_PX
    # The notes say what the picture holds, in true numbers.
    snap = g.snapshot
    for note in g.notes:
        m = re.match(r"(backward|forward): ([\d,]+) (nodes|ops) drawn, ([\d,]+) of ([\d,]+) \3 are collapsed", note)
        assert m, note
        drawn, folded, total = (int(m.group(k).replace(",", "")) for k in (2, 4, 5))
        assert drawn + folded == total == (len(snap.nodes) if m.group(1) == "backward" else len(snap.ops))
        box = r"\t(b_n\d+) \[" if m.group(1) == "backward" else r"\t(f_f\d+) \["
        kept = len(re.findall(box, g.source))
        assert kept == drawn, note


def test_loops_are_folded_once_the_picture_would_be_too_big():
    small = dot.Graph(snap_of(RNN, 3))
    assert not small.notes and "repeated blocks" not in small.source  # small: everything drawn
    g = dot.Graph(snap_of(RNN, 15))
    assert "×13 repeated blocks, each:\\n2 AddBackward0\\n2 MmBackward0\\n1 TanhBackward0\\n4 saved tensors, all freed" \
        in g.source
    assert "×13 repeated blocks, each:\\n2 add\\n2 matmul\\n1 tanh\\n6 tensors" in g.source
    assert any("loop of 13 repeats" in n and "readable" in n and "unfolded it would be about" in n for n in g.notes)
    # An nn.Sequential's repeats are its modules: folded by module, the parameters inside
    m = dot.Graph(snap_of(MLP, 12))
    assert 'label="model.0–23 (Linear, ReLU) ×12"' in m.source
    assert "×11 blocks of 2" in m.source


def test_fold_finds_repeated_blocks_along_the_longest_path():
    # three kinds repeating along a chain, with a side item per block and a shared hub
    items, edges, kind = [], [], {}
    prev = None
    for t in range(20):
        for k, name in enumerate(("A", "B", "C")):
            i = f"{name}{t}"
            items.append(i)
            kind[i] = name
            if prev is not None:
                edges.append((prev, i))
            prev = i
        items.append(f"s{t}")
        kind[f"s{t}"] = "S"
        edges.append((f"B{t}", f"s{t}"))
    items.append("w")
    kind["w"] = "W"
    edges += [(f"A{t}", "w") for t in range(20)]
    p = collapse.plan(items, edges, kind, dict.fromkeys(items, 1), {"A0"}, budget=0, fold=True)
    (grp,) = p.groups
    assert grp.repeats >= 16 and "w" not in p.group_of and "A0" not in p.group_of
    assert dict(grp.counts) == {k: grp.repeats for k in "ABCS"}
    assert p == collapse.plan(items, edges, kind, dict.fromkeys(items, 1), {"A0"}, budget=0, fold=True)


# --------------------------------------------------------------------------- the tree


def tree_lines(snap, width, **kw):
    from rich.console import Console

    console = Console(record=True, width=width, color_system=None, file=open("/dev/null", "w"))
    tree.print_tree(snap, console=console, **kw)
    return console.export_text().splitlines()


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize("kind,src,T", [("rnn", RNN, 5), ("rnn", RNN, 60), ("mlp", MLP, 12)])
def test_tree_folds_loops_and_keeps_labels_whole(kind, src, T, width):
    snap = snap_of(src, T)
    lines = tree_lines(snap, width)
    assert all(len(line) <= width for line in lines)
    assert len(lines) < 80  # folded: the same few lines at 5 steps and at 60
    # a loop of plain tensors folds as repeated blocks; an nn.Sequential's, by its modules
    assert any("repeated blocks" in line or re.search(r"×\d+ blocks", line) for line in lines)
    # no label is broken over two lines: every line that names a node names it whole
    names = {n.label_name for n in snap.nodes}
    for line in lines:
        for word in re.findall(r"[A-Z][A-Za-z]*Backward\w*|AccumulateGrad", line):
            assert word in names or word == "AccumulateGrad", line
    # indentation stops growing: deep branches continue as new parts at the left margin
    deepest = max(len(line) - len(line.lstrip(" │├└─")) for line in lines)
    assert deepest <= width - tree.LABEL_ROOM + 8


def test_tree_depth_and_width_limits():
    ns = {"torch": torch}
    exec(textwrap.dedent("""\
        x = torch.ones(3, requires_grad=True)
        parts = [x * float(k) for k in range(40)]
        L = torch.stack(parts).sum()
    """), ns)
    snap = snapshot(ns["L"], {id(ns["x"]): "x"})
    lines = tree_lines(snap, 100, max_children=5)
    assert any("… 35 more inputs not shown" in line for line in lines)
    deep = snap_of(RNN, 30)
    lines = tree_lines(deep, 80, max_depth=8)
    assert any("more levels not shown (max depth 8)" in line for line in lines)
    narrow = tree_lines(deep, 60)
    assert any("continued in part 2 below" in line for line in narrow)
    assert any(line.startswith("part 2: continued from level") for line in narrow)


# --------------------------------------------------------------------------- labels and legend


def test_shapes_are_written_as_the_table_writes_them():
    g = dot.Graph(snap_of(MLP, 2))
    assert "model.0.bias\\n(16,)" in g.source and "L\\n()" in g.source and "(16, 16)" in g.source
    assert not re.search(r"\(\d+\)", g.source)
    text = "\n".join(tree_lines(g.snapshot, 120))
    assert "AccumulateGrad → model.0.bias (16,)  grad (16,)" in text


def test_saved_tensors_carry_their_forward_names():
    g = dot.Graph(snap_of(MLP, 2))
    assert "_saved_mat1 = relu(linear(relu(…), …, model.2.bias))" in g.source
    assert "_saved_mat2 = t(model.2.weight)" in g.source
    text = "\n".join(tree_lines(g.snapshot, 160))
    assert "_saved_mat2 = t(model.2.weight) (16, 16)" in text


def _legend(source):
    return set(re.findall(r"\tlegend_(\w+) \[", source))


def test_the_legend_covers_every_mark_the_picture_uses():
    g = dot.Graph(snap_of(RNN, 15))
    src = g.source
    legend = _legend(src)
    assert re.search(r'-> \w+ \[label=\d+\]', src) and "edge_input" in legend  # input numbers
    assert re.search(r'label="×\d+"', src) and "edge_merged" in legend  # merged arrows
    assert "shape=folder" in src and "repeat" in legend
    assert "dir=none style=dashed" in src and "saved_line" in legend and "freed" in legend
    assert "style=\"filled,dotted\"" in src and "constant" in legend
    seed = dot.Graph(snap_of("""\
        x = torch.ones(3, requires_grad=True)
        L = (10 - x * 2).sum()
        """.replace("        ", ""), 0)).source
    assert "color=gray50" in seed and "constant_arrow" in _legend(seed)  # grey arrows from numbers
    # nothing in the legend that the picture does not use
    small = dot.Graph(snap_of(MLP, 2), view="backward").source
    assert not {"op", "repeat", "summary", "constant_arrow", "op_backward"} & _legend(small)


def test_ops_run_during_backward_are_dashed_and_in_the_legend():
    ns = {"torch": torch}
    with Recorder() as rec:
        exec(textwrap.dedent("""\
            x = torch.ones(3, requires_grad=True)
            y = (x ** 3).sum()
            (g,) = torch.autograd.grad(y, x, create_graph=True)
            L = g.sum()
        """), ns)
    src = dot.Graph(snapshot(ns["L"], {id(ns["x"]): "x"}, rec)).source
    if 'style="filled,dashed"' in src.split("cluster_backward")[0]:
        assert "op_backward" in _legend(src)


# --------------------------------------------------------------------------- files and the CLI


def test_the_fallback_dot_never_overwrites_a_file(tmp_path):
    g = dot.Graph(snap_of(RNN, 2))
    (tmp_path / "g.dot").write_text("mine")
    with pytest.raises(dot.ImageTooLarge, match=r"the DOT source was written to .*g-1\.dot$"):
        g.save(tmp_path / "g.png", max_pixels=1_000)
    assert (tmp_path / "g.dot").read_text() == "mine"
    assert (tmp_path / "g-1.dot").read_text().startswith("digraph")


def test_max_nodes_0_says_what_it_will_cost_before_the_layout(tmp_path):
    script = write(tmp_path, "import torch\n" + RNN.replace("(T, 4)", "(30, 4)").replace("range(T)", "range(30)"))
    p = gradviz("run", script, "--graph", tmp_path / "all.svg", "--max-nodes", "0", timeout=60)
    assert p.returncode == 2
    warning, error = [line for line in p.stderr.splitlines() if line.startswith("gradviz")]
    assert re.match(r"gradviz: warning: --max-nodes 0 draws all [\d,]+ boxes: the picture will be about "
                    r"[\d,]+ x [\d,]+ px and its layout may take about \d+ (s|min)", warning)
    assert "refusing to lay out a picture of about" in error and "drop --max-nodes 0" in error
    assert not (tmp_path / "all.svg").exists() and (tmp_path / "all.dot").exists()


def test_rnn_pictures_from_the_cli(tmp_path):
    script = write(tmp_path, "import torch\n" + RNN.replace("range(T)", "range(15)").replace("(T, 4)", "(15, 4)"))
    r = invoke("run", script, "--graph", tmp_path / "rnn.png")
    assert r.exit_code == 0, r.stderr
    assert "Graph written to" in r.stdout and "loop of 13 repeats" in r.stdout


def test_picture_options_without_a_picture_are_reported(tmp_path):
    script = write(tmp_path, "import torch\nx = torch.ones(2, requires_grad=True)\nL = (x * x).sum()\n")
    r = invoke("run", script, "--view", "forward", "--max-nodes", "10")
    assert r.exit_code == 0
    assert ("gradviz run: warning: --view and --max-nodes have no effect without --graph (or --html)"
            in r.stderr)
    r = invoke("run", script, "--root", "L")
    assert "--root has no effect without --graph (or --html, --tree or --backward-twice)" in r.stderr
    r = invoke("run", script, "--root", "L", "--tree")
    assert "warning" not in r.stderr
    r = invoke("graph", "(x*y).sum()", "--max-nodes", "5")
    assert "gradviz graph: warning: --max-nodes has no effect without -o/--output" in r.stderr


def test_backward_twice_on_a_non_scalar_root_says_it_starts_from_ones(tmp_path):
    script = write(tmp_path, """\
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = (x * x).exp()
        y.backward(torch.ones_like(y))
    """)
    r = invoke("run", script, "--backward-twice", "--root", "y")
    assert ("y has shape (3,), not a scalar: the backward passes of --backward-twice start from ones_like(y)"
            in r.stderr)
    assert "grad can be implicitly created only for scalar outputs" in r.stderr


def test_the_docs_tree_example_is_real_output():
    readme = (ROOT / "docs" / "pictures.md").read_text(encoding="utf-8")
    command = "$ COLUMNS=80 gradviz run samples/rnn_unrolled.py --tree -- 60\n...\n"
    shown = readme.split(command, 1)[1].split("```", 1)[0]
    p = gradviz("run", SAMPLES / "rnn_unrolled.py", "--tree", "--", "60", env={"COLUMNS": "80"})
    assert p.returncode == 0, p.stderr
    assert shown == p.stdout[p.stdout.index("backward graph of loss"):]
