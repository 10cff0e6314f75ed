"""Hand-made GraphSnapshots with module info (issue 25), for the pictures and the tree
grouped by module: a 12-block GPT-like model, an LSTM-like loop (one cell called 40
times, an op of the loop's body between two calls), and a Sequential of 50 x (Linear,
LayerNorm, GELU). Built in forward order, then numbered as the snapshot numbers nodes
(the root is n0), with a forward graph whose ops carry the same modules.
"""
from gradviz.inspect.model import (BackwardNode, Edge, ForwardOp, GraphSnapshot, LeafInfo, ModuleInfo, Root,
                                   SavedInfo, Value)

SHAPE = (4, 64)


class Builder:
    def __init__(self):
        self.specs = []  # (name, inputs, module, call, leaf name, saved)
        self.modules = {}  # path -> [type, calls, parent]

    def module(self, path, type_, parent=None, calls=1):
        if path not in self.modules:
            self.modules[path] = [type_, calls, parent]
        return path

    def op(self, name, inputs, module=None, call=1, saved=0):
        self.specs.append((name, tuple(inputs), module, call if module else 0, None, saved))
        return len(self.specs) - 1

    def param(self, name, module):
        self.specs.append(("AccumulateGrad", (), module, 1 if module else 0, name, 0))
        return len(self.specs) - 1

    def snapshot(self, root, root_name="loss", forward=True):
        n = len(self.specs)
        nid = [f"n{n - 1 - i}" for i in range(n)]
        nodes = []
        for i, (name, inputs, module, call, leaf, saved) in enumerate(self.specs):
            edges = tuple(Edge(k, nid[t], 0) for k, t in enumerate(inputs))
            sv = tuple(SavedInfo(f"saved{k}", f"_saved_{k}", "tensor", SHAPE, "float32", 0, 0)
                       for k in range(saved))
            info = LeafInfo(leaf, SHAPE, "float32", True, 0, None, f"v{i}") if leaf else None
            nodes.append(BackwardNode(
                nid[i], "torch::autograd::AccumulateGrad" if leaf else name, "AccumulateGrad" if leaf else name,
                ("model.py", 10 + i % 50), n - i, edges, sv, ((SHAPE, "float32"),), None, leaf=info,
                module=module, module_call=call))
        nodes.sort(key=lambda x: int(x.id[1:]))
        values, ops = self._forward(nid) if forward else ((), ())
        mods = tuple(ModuleInfo(p, t, c, par) for p, (t, c, par) in self.modules.items())
        roots = (Root(root_name, nid[root], 0, (), "float32", True, f"v{root}" if forward else None),)
        return GraphSnapshot(roots, tuple(nodes), values, ops, bool(forward), modules=mods)

    def _forward(self, nid):
        values, ops = [], []
        for i, (name, inputs, module, call, leaf, _) in enumerate(self.specs):
            values.append(Value(f"v{i}", leaf or f"t{i}", bool(leaf), "tensor", SHAPE, "float32", True,
                                bool(leaf), node=nid[i]))
            if not leaf:
                ops.append(ForwardOp(f"f{len(ops)}", name.replace("Backward0", "").lower(), name,
                                     tuple(f"v{t}" for t in inputs), (f"v{i}",), ("model.py", 10 + i % 50),
                                     node=nid[i], module=module, module_call=call))
        return tuple(values), tuple(ops)


def _conv1d(b, path, x, type_="Conv1D", parent=None, call=1):
    b.module(path, type_, parent)
    w, bias = b.param(f"{path}.weight", path), b.param(f"{path}.bias", path)
    v = b.op("ViewBackward0", [x], path, call)
    a = b.op("AddmmBackward0", [bias, v, w], path, call, saved=2)
    return b.op("ViewBackward0", [a], path, call)


def _layer_norm(b, path, x, parent):
    b.module(path, "LayerNorm", parent)
    w, bias = b.param(f"{path}.weight", path), b.param(f"{path}.bias", path)
    return b.op("NativeLayerNormBackward0", [x, w, bias], path, saved=3)


def _block(b, path, x, parent):
    b.module(path, "GPT2Block", parent)
    h = _layer_norm(b, f"{path}.ln_1", x, path)
    attn = b.module(f"{path}.attn", "GPT2Attention", path)
    qkv = _conv1d(b, f"{attn}.c_attn", h, parent=attn)
    split = b.op("SplitBackward0", [qkv], attn)
    q, k, v = (b.op("PermuteBackward0", [b.op("ViewBackward0", [split], attn)], attn) for _ in range(3))
    s = b.op("BmmBackward0", [q, b.op("TransposeBackward0", [k], attn)], attn, saved=2)
    p = b.op("SoftmaxBackward0", [b.op("DivBackward0", [s], attn)], attn, saved=1)
    o = b.op("ViewBackward0", [b.op("PermuteBackward0", [b.op("BmmBackward0", [p, v], attn, saved=2)], attn)], attn)
    x = b.op("AddBackward0", [x, _conv1d(b, f"{attn}.c_proj", o, parent=attn)], path)
    h = _layer_norm(b, f"{path}.ln_2", x, path)
    mlp = b.module(f"{path}.mlp", "GPT2MLP", path)
    f = _conv1d(b, f"{mlp}.c_fc", h, parent=mlp)
    b.module(f"{mlp}.act", "NewGELUActivation", mlp)
    g = b.op("GeluBackward0", [f], f"{mlp}.act", saved=1)
    return b.op("AddBackward0", [x, _conv1d(b, f"{mlp}.c_proj", g, parent=mlp)], path)


def gpt(blocks=12, forward=True):
    """A GPT-2-like LM: embeddings, ``blocks`` blocks (ln_1, attn, ln_2, mlp, residual
    adds), ln_f, a head tied to the token embedding, and a loss outside any module."""
    b = Builder()
    b.module("model", "GPT2LMHeadModel")
    tr = b.module("model.transformer", "GPT2Model", "model")
    wte = b.module(f"{tr}.wte", "Embedding", tr)
    w = b.param(f"{wte}.weight", wte)
    e = b.op("EmbeddingBackward0", [w], wte, saved=1)
    wpe = b.module(f"{tr}.wpe", "Embedding", tr)
    pe = b.op("EmbeddingBackward0", [b.param(f"{wpe}.weight", wpe)], wpe, saved=1)
    x = b.op("AddBackward0", [e, pe], tr)
    b.module(f"{tr}.drop", "Dropout", tr)
    x = b.op("NativeDropoutBackward0", [x], f"{tr}.drop", saved=1)
    for i in range(blocks):
        x = _block(b, f"{tr}.h.{i}", x, tr)
    x = _layer_norm(b, f"{tr}.ln_f", x, tr)
    head = b.module("model.lm_head", "Linear", "model")
    logits = b.op("MmBackward0", [x, b.op("TBackward0", [w], head)], head, saved=2)
    loss = b.op("NllLossBackward0", [b.op("LogSoftmaxBackward0", [logits], saved=1)], saved=2)
    return b.snapshot(loss, forward=forward)


def lstm(steps=40, forward=True):
    """An LSTM-like loop: model.cell (with ih and hh Linears) called ``steps`` times, the
    loop's body (in model) masks h between two calls; a head and a loss at the end."""
    b = Builder()
    b.module("model", "LSTMNet")
    cell = b.module("model.cell", "LSTMCell", "model", steps)
    b.module(f"{cell}.ih", "Linear", cell, steps)
    b.module(f"{cell}.hh", "Linear", cell, steps)
    w_ih, b_ih = b.param(f"{cell}.ih.weight", f"{cell}.ih"), b.param(f"{cell}.ih.bias", f"{cell}.ih")
    w_hh, b_hh = b.param(f"{cell}.hh.weight", f"{cell}.hh"), b.param(f"{cell}.hh.bias", f"{cell}.hh")
    h = c = None
    for t in range(1, steps + 1):
        gi = b.op("AddmmBackward0", [b_ih, b.op("TBackward0", [w_ih], f"{cell}.ih", t)], f"{cell}.ih", t, saved=1)
        hh_in = [b_hh, b.op("TBackward0", [w_hh], f"{cell}.hh", t)] + ([h] if h is not None else [])
        gh = b.op("AddmmBackward0", hh_in, f"{cell}.hh", t, saved=2)
        gates = b.op("SplitBackward0", [b.op("AddBackward0", [gi, gh], cell, t)], cell, t)
        i, f, o = (b.op("SigmoidBackward0", [gates], cell, t, saved=1) for _ in range(3))
        g = b.op("TanhBackward0", [gates], cell, t, saved=1)
        ig = b.op("MulBackward0", [i, g], cell, t, saved=2)
        c = b.op("AddBackward0", [b.op("MulBackward0", [f, c], cell, t, saved=2), ig], cell, t) if c else ig
        h = b.op("MulBackward0", [o, b.op("TanhBackward0", [c], cell, t, saved=1)], cell, t, saved=2)
        h = b.op("MulBackward0", [h], "model", 1, saved=1)  # the loop body's mask, between two calls
    head = b.module("model.head", "Linear", "model")
    y = b.op("AddmmBackward0", [b.param("model.head.bias", head), h, b.op("TBackward0", [
        b.param("model.head.weight", head)], head)], head, saved=2)
    return b.snapshot(b.op("MseLossBackward0", [y], saved=2), forward=forward)


def mlp(blocks=50, forward=True):
    """nn.Sequential of ``blocks`` x (Linear, LayerNorm, GELU), then a loss."""
    b = Builder()
    b.module("model", "Sequential")
    x = None
    for k in range(blocks):
        lin = b.module(f"model.{3 * k}", "Linear", "model")
        w, bias = b.param(f"{lin}.weight", lin), b.param(f"{lin}.bias", lin)
        x = b.op("AddmmBackward0", [bias] + ([x] if x is not None else []) + [b.op("TBackward0", [w], lin)], lin,
                 saved=2)
        x = _layer_norm(b, f"model.{3 * k + 1}", x, "model")
        b.module(f"model.{3 * k + 2}", "GELU", "model")
        x = b.op("GeluBackward0", [x], f"model.{3 * k + 2}", saved=1)
    return b.snapshot(b.op("MseLossBackward0", [x], saved=2), forward=forward)


def without_modules(snap):
    """The same snapshot as engines made it before module info existed."""
    import dataclasses
    nodes = tuple(dataclasses.replace(n, module=None, module_call=0) for n in snap.nodes)
    ops = tuple(dataclasses.replace(o, module=None, module_call=0) for o in snap.ops)
    return dataclasses.replace(snap, nodes=nodes, ops=ops, modules=())
