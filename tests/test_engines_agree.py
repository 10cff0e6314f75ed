"""The two engines agree: every case of the public conformance corpus and of our own runs on
gradviz's engine and on the installed PyTorch (--engine torch), and the snapshots of every
cell's backward call are compared node by node (names, edges, saved slots and their freed
marks, leaves), and so are the tables' rows (metadata: values differ until the engines
share PyTorch's random numbers).

A difference is a defect in one of the engines. Those not fixed yet are listed below as
KNOWN, each with its reason; a known difference that stops happening must be taken off
the list (the last test checks that every entry is still needed).
"""
import collections
import contextlib
import glob
import re
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
# The engine copies PyTorch 2.13: on another release its graphs are not expected to agree.
pytestmark = pytest.mark.torch_2_13

from gradviz import scripting  # noqa: E402
from gradviz.commands import common, report  # noqa: E402
from gradviz.inspect.watch import Names, Watch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted(glob.glob(str(ROOT / "conformance" / "cases" / "*.py")))

# Known differences: (category, reason). Each rule below names its category.
KNOWN = {
    "symbolic sizes": "PyTorch keeps *_sym_sizes / *_sym_strides options for torch.compile's symbolic shapes; "
                      "gradviz has no symbolic shapes",
    "copy slices": "gradviz shows, on CopySlices / CopyBackwards, the saved slots of the op they wrap; PyTorch "
                   "keeps them in C++, out of Python's reach",
    "index tensors": "gradviz's engine keeps integer and boolean index tensors (index, indices, mask) as plain "
                     "arrays, so they are not freed; PyTorch saves them as tensors and frees them",
    "options": "slots one engine saves and the other does not (gradviz: cat's sizes, layer_norm's eps, "
               "batch_norm's momentum; PyTorch: elu's scale and input_scale, gather's self and sparse_grad, "
               "index_put's accumulate) "
               "or saves otherwise (var's correction: None in PyTorch, the number in gradviz)",
    "view replay": "after an in-place op on a view, gradviz regenerates the view with AsStridedBackward0 and "
                   "saves its own chain of view ops; PyTorch replays the view op itself (SliceBackward0) or saves "
                   "size, stride and storage_offset",
    "unneeded scalar": "a Python number multiplied into a tensor that needs no gradient: gradviz saves it "
                       "anyway, PyTorch saves nothing",
    "output slot names": "gradviz names a saved output after its position (result1); PyTorch by its role "
                         "(indices, total_weight)",
    "loss weights": "0-dim weights of nll_loss / binary_cross_entropy(_with_logits): gradviz saves an absent "
                    "weight as a 0-dim tensor, and does not save a 0-dim pos_weight that PyTorch saves",
    "scalar base": "pow(2.0, x): gradviz saves the Python number as a 0-dim tensor, PyTorch as a number",
    "made in a backward": "PyTorch's function mode does not see the nodes a create_graph backward makes, so the "
                          "shapes of their freed slots are unknown on the torch side",
    "double backward": "a graph built by a create_graph backward: gradviz's backward formulas are its own and "
                       "record its own ops (MulBackward0 where PyTorch's formula records MulBackward1)",
    "gradcheck": "torch.autograd.gradcheck's internal backward calls differ from gradviz's gradcheck",
    "leaf through a Function": "a leaf reached through a custom Function's create_graph backward: PyTorch's "
                               "AccumulateGrad holds its own alias of the user's tensor, so it has no name",
    "None saved by a Function": "a custom Function's save_for_backward(..., None, ...): once backward freed the "
                                "node, PyTorch shows every slot freed, the None one too; gradviz keeps that slot None",
    "module instance number": "a module bound to a name that an older, still live module holds is named "
                              "name#k; when the older one dies differs between the engines (t04's fit() "
                              "loop after the Learner, LSUV hooks and BatchNorm cells: gradviz counts one more)",
    "raised before the engine": "a backward call that fails its checks before any node runs (a non-scalar root, "
                                "no grad_fn): PyTorch's function mode sees the call, gradviz's engine records none",
}

INSTANCE = re.compile(r"#\d+(?=\.)")  # model#3.fc.weight: the third live module named model
SYM = ("_sym_sizes", "_sym_strides", "_sym_argsize", "_sym_numel")
OPTIONS = {("CatBackward0", "sizes"), ("NativeLayerNormBackward0", "eps"), ("NativeBatchNormBackward0", "momentum"),
           ("EluBackward0", "scale"), ("EluBackward0", "input_scale"), ("GatherBackward0", "self"),
           ("GatherBackward0", "sparse_grad"), ("VarBackward0", "correction"), ("StdBackward0", "correction"),
           ("IndexPutBackward0", "accumulate")}
LOSSES = ("NllLossBackward0", "BinaryCrossEntropyBackward0", "BinaryCrossEntropyWithLogitsBackward0")
RENAMED = {("MaxBackward0", "result1"): "indices", ("MinBackward0", "result1"): "indices",
           ("SortBackward0", "result1"): "indices", ("NllLossBackward0", "result1"): "total_weight",
           ("TopkBackward0", "result1"): "indices", ("KthvalueBackward0", "result1"): "indices",
           ("MedianBackward1", "result1"): "indices", ("ModeBackward0", "result1"): "indices"}


def run(path, engine_name):
    """(RunResult, {cell index: (call info, snapshot)}) of one case on one engine."""
    eng = common.engine(engine_name)
    program = scripting.load_program(path)
    names = Names(program.code_path, eng.torch)
    watch = Watch(names, real=eng.real)
    cells = report.CellGraphs(watch)

    @contextlib.contextmanager
    def around(ns):
        names.bind(ns)
        with watch:
            yield

    result = scripting.run_script(program, echo=False, engine=eng.module_name, around=around, on_cell=cells.after,
                                  timeout=120)
    assert watch.recorder.errors == [], watch.recorder.errors
    return result, cells.by_cell


def slots(node, side, used):
    out = []
    for x in node.saved:
        slot, kind, shape = x.slot, x.kind, (x.shape if x.kind in ("tensor", "freed") else None)
        if kind == "value" and slot.endswith(SYM):
            used["symbolic sizes"] += 1
            continue
        if node.label_name in ("CopySlices", "CopyBackwards") and side == "gradviz":
            used["copy slices"] += 1
            continue
        if slot.startswith("saved_tensors[") and (kind == "none" or (kind == "freed" and shape is None)):
            used["None saved by a Function"] += 1
            continue
        if (node.label_name, slot) in OPTIONS:
            used["options"] += 1
            continue
        if side == "gradviz" and (node.label_name, slot) in RENAMED:
            used["output slot names"] += 1
            slot = RENAMED[(node.label_name, slot)]
        if slot in ("index", "indices", "mask") and kind in ("value", "tensor", "freed"):
            used["index tensors"] += 1
            kind, shape = "index", None
        if node.label_name in LOSSES and slot in ("weight", "pos_weight") and shape == ():
            used["loss weights"] += 1
            continue
        if node.label_name == "AsStridedBackward0" and kind == "value":
            used["view replay"] += 1
            continue
        if side == "gradviz" and kind in ("freed", "scalar") and shape in ((), None) and node.edges \
                and all(e.target is None for e in node.edges):
            used["unneeded scalar"] += 1
            continue
        if node.label_name == "PowBackward2" and slot == "self" and (kind == "value" or shape == ()):
            used["scalar base"] += 1
            kind, shape = "number", None
        out.append((slot, kind, shape))
    return sorted(out)


def same_node(a, b, used):
    sa, sb = slots(a, "gradviz", used), slots(b, "torch", used)
    if len(sa) == len(sb):  # a freed slot of a node made in a backward: its shape is unknown to PyTorch's side
        for k, ((s1, k1, h1), (s2, k2, h2)) in enumerate(zip(sa, sb)):
            if (s1, k1) == (s2, k2) == (s1, "freed") and h2 is None and h1 is not None:
                used["made in a backward"] += 1
                sb[k] = (s2, k2, h1)
    leaf_a = (a.leaf.name, a.leaf.shape) if a.leaf else None
    if a.leaf and b.leaf and b.leaf.name is None and a.leaf.name is not None and a.leaf.shape == b.leaf.shape:
        used["leaf through a Function"] += 1
        leaf_a = (None, a.leaf.shape)
    if a.leaf and b.leaf and a.leaf.name and b.leaf.name and a.leaf.name != b.leaf.name \
            and INSTANCE.sub("", a.leaf.name) == INSTANCE.sub("", b.leaf.name):
        used["module instance number"] += 1
        leaf_a = (b.leaf.name, a.leaf.shape)
    name_a = a.label_name
    if name_a == "AsStridedBackward0" and b.label_name in ("SliceBackward0", "SelectBackward0", "ViewBackward0",
                                                          "TransposeBackward0", "NarrowBackward0"):
        used["view replay"] += 1
        name_a = b.label_name
        sb = [x for x in sb if x[1] != "value"]
    key_a = (name_a, [(e.input, e.target, e.output_nr) for e in a.edges], sa, leaf_a)
    key_b = (b.label_name, [(e.input, e.target, e.output_nr) for e in b.edges], sb,
             (b.leaf.name, b.leaf.shape) if b.leaf else None)
    return key_a == key_b, key_a, key_b


USED = collections.Counter()
COMPARED = collections.Counter()


@pytest.mark.parametrize("path", CASES, ids=[Path(p).name for p in CASES])
def test_the_engines_agree(path):
    program = scripting.load_program(path)
    ours, our_graphs = run(path, "gradviz")
    theirs, their_graphs = run(path, "torch")
    problems = []
    # the tables, cell by cell: the same tensors with the same metadata
    assert len(ours.cells) == len(theirs.cells)
    for a, b in zip(ours.cells, theirs.cells):
        rows_a = [(t.name, t.shape, t.dtype, t.requires_grad, t.is_leaf, t.retains_grad, t.grad_fn) for t in a.tensors]
        rows_b = [(t.name, t.shape, t.dtype, t.requires_grad, t.is_leaf, t.retains_grad, t.grad_fn) for t in b.tensors]
        if rows_a != rows_b:
            problems.append(f"cell {a.index}: table rows differ:\n  gradviz {rows_a}\n  torch   {rows_b}")
        if (a.error is None) != (b.error is None):
            problems.append(f"cell {a.index}: only one engine raised: {a.error or b.error}")
    # the graphs of every cell's backward call
    for k in sorted(set(our_graphs) | set(their_graphs)):
        source = program.cells[k].source
        if k not in our_graphs or k not in their_graphs:
            if k in their_graphs and ours.cells[k].error is not None and theirs.cells[k].error is not None:
                USED["raised before the engine"] += 1
                continue
            problems.append(f"cell {k}: a graph only on {'torch' if k in their_graphs else 'gradviz'}")
            continue
        if "gradcheck" in source:
            USED["gradcheck"] += 1
            continue
        snap_a, snap_b = our_graphs[k][1], their_graphs[k][1]
        if any(op.during_backward for op in snap_a.ops):
            USED["double backward"] += 1
            continue
        COMPARED["graphs"] += 1
        if len(snap_a.nodes) != len(snap_b.nodes):
            problems.append(f"cell {k}: {len(snap_a.nodes)} nodes on gradviz, {len(snap_b.nodes)} on torch")
            continue
        for a, b in zip(snap_a.nodes, snap_b.nodes):
            COMPARED["nodes"] += 1
            same, key_a, key_b = same_node(a, b, USED)
            if not same:
                problems.append(f"cell {k}, node {a.id}:\n  gradviz {key_a}\n  torch   {key_b}")
                break
    assert not problems, "\n".join(problems)


def test_every_known_difference_still_happens():
    """Run after the cases (pytest keeps file order): a rule no case needs is a fixed defect."""
    if not COMPARED:
        pytest.skip("run with the agreement cases above")
    assert COMPARED["graphs"] >= 100 and COMPARED["nodes"] >= 1000, COMPARED
    unused = sorted(set(KNOWN) - set(USED))
    assert unused == [], f"no longer needed, take them off KNOWN: {unused}"
