"""The forward view at the granularity of torch-level calls, on both engines: one op per
call (``linear``, ``lstm_cell``, ``h @ W``), named as PyTorch's TorchFunctionMode names
it, values labelled by their source text, checkpointed regions marked."""
import json
import textwrap

import numpy as np
import pytest

from _cli_helpers import invoke, write

MODEL = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding=1)
        self.bn = nn.BatchNorm2d(2)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8, 6)
        self.ln = nn.LayerNorm(6)
        self.emb = nn.Embedding(10, 6)
        self.attn = nn.MultiheadAttention(6, 2, batch_first=True)
        self.gru = nn.GRU(6, 6, batch_first=True)
        self.lstm = nn.LSTM(6, 6)
        self.cell = nn.LSTMCell(6, 6)
        self.head = nn.Linear(6, 3)

    def forward(self, img, tokens):
        x = self.pool(torch.relu(self.bn(self.conv(img)))).flatten(1)
        x = F.gelu(self.ln(self.fc(x)))
        e = self.emb(tokens)
        a, _ = self.attn(e, e, e)
        g, _ = self.gru(a + x.unsqueeze(1))
        r, _ = self.lstm(g.transpose(0, 1))
        h, c = self.cell(r[-1])
        return self.head(h + c + Exp.apply(x) * 0.1)


net = Net()
img = torch.randn(2, 1, 4, 4)
tokens = torch.tensor([[1, 2, 3], [4, 5, 6]])
logits = net(img, tokens)
W = torch.randn(3, 3, requires_grad=True)
z = torch.cat([logits @ W, logits.T.T], dim=1)
loss = F.cross_entropy(logits, torch.tensor([0, 2])) + F.softmax(z, dim=-1).mean(0).sum()
loss.backward()
"""


def forward_view(tmp_path, source, engine="gradviz"):
    script = write(tmp_path, textwrap.dedent(source), f"{engine}_model.py")
    r = invoke("run", script, "--engine", engine, "--graph", tmp_path / f"{engine}.dot", "--view", "forward",
               "--json")
    assert r.exit_code == 0, r.stderr
    graph = json.loads(r.stdout)["graph"]
    names = {v["id"]: v["name"] for v in graph["values"]}
    return graph, names


def calls(graph, names):
    return [(op["name"], op["module"], [names[v] for v in op["outputs"]][:1]) for op in graph["ops"]]


def test_both_engines_show_the_same_calls_in_the_same_modules(tmp_path):
    pytest.importorskip("torch")
    ours = calls(*forward_view(tmp_path, MODEL, "gradviz"))
    theirs = calls(*forward_view(tmp_path, MODEL, "torch"))
    assert [(name, module) for name, module, _ in ours] == [(name, module) for name, module, _ in theirs]
    # and the same labels for what each call gave back (PyTorch's view also lists the
    # results nothing used: multi_head_attention_forward's weights)
    differ = [(a[0], b[0]) for (_, _, a), (_, _, b) in zip(ours, theirs) if a != b]
    assert differ and all(b == a + "[0]" for a, b in differ)
    names = [name for name, _, _ in ours]
    # the functions themselves, not what they are made of (t + addmm, sigmoid...)
    for call in ("conv2d", "batch_norm", "linear", "layer_norm", "embedding", "multi_head_attention_forward",
                 "gru", "lstm", "lstm_cell", "Exp.apply", "matmul", "T", "cross_entropy", "softmax"):
        assert call in names, call
    for inner in ("addmm", "t", "mm", "sigmoid", "unsafe_chunk", "native_layer_norm", "mkldnn_rnn_layer"):
        assert inner not in names, inner


def test_a_composite_call_is_one_op_with_its_arguments_in_order(tmp_path):
    graph, names = forward_view(tmp_path, """\
        import torch
        torch.manual_seed(0)
        cell = torch.nn.LSTMCell(3, 4)
        x = torch.randn(2, 3)
        h, c = cell(x)
        loss = (h + c).sum()
        loss.backward()
        """)
    op = next(op for op in graph["ops"] if op["name"] == "lstm_cell")
    assert [names[v] for v in op["inputs"]] == ["x", "tensor", "tensor", "cell.weight_ih", "cell.weight_hh",
                                              "cell.bias_ih", "cell.bias_hh"]
    assert sorted(names[v] for v in op["outputs"]) == ["c", "h"]
    assert [o["name"] for o in graph["ops"]] == ["lstm_cell", "add", "sum"]
    # its inner nodes are in the backward graph, and belong to the call
    lstm_nodes = {n["id"] for n in graph["nodes"] if n["module"] == "cell"}
    assert len(lstm_nodes) > 10


def test_values_are_labelled_by_the_source_that_made_them(tmp_path):
    graph, names = forward_view(tmp_path, """\
        import torch
        torch.manual_seed(0)
        W_xh = torch.randn(3, 4, requires_grad=True)
        W_hh = torch.randn(4, 4, requires_grad=True)
        xs = torch.randn(5, 3)
        h = torch.zeros(4)
        for t in range(5):
            h = torch.tanh(xs[t] @ W_xh + h @ W_hh)
        loss = (h * 2).sum()
        loss.backward()
        """)
    labels = set(names.values())
    assert {"xs[t]", "xs[t] @ W_xh", "h @ W_hh", "xs[t] @ W_xh + h @ W_hh", "h * 2"} <= labels
    assert "tensor" not in labels  # xs[t], made without a graph, is named by its text too
    # an expression longer than a label falls back to the built one
    assert all(len(label) <= 40 for label in labels)


SLICES = """\
        import torch
        x = torch.ones(2, 3, requires_grad=True)
        a = x[0]
        b = x[:, 1:]
        c = (1 - x).T
        loss = a.sum() + b.sum() + c.sum()
        loss.backward()
        """


@pytest.mark.parametrize("engine", ["gradviz", "torch"])
def test_the_forward_ops_are_named_as_pytorch_names_them(tmp_path, engine):
    if engine == "torch":
        pytest.importorskip("torch")
    graph, names = forward_view(tmp_path, SLICES, engine)
    ops = [(op["name"], [names[v] for v in op["inputs"]], [names[v] for v in op["outputs"]]) for op in graph["ops"]]
    assert ops == [("select", ["x"], ["a"]), ("slice", ["x"], ["b"]),  # t[...] making one node: by that node
                   ("rsub", ["x", "1"], ["1 - x"]), ("T", ["1 - x"], ["c"]),
                   ("sum", ["a"], ["a.sum()"]), ("sum", ["b"], ["b.sum()"]),
                   ("add", ["a.sum()", "b.sum()"], ["a.sum() + b.sum()"]), ("sum", ["c"], ["c.sum()"]),
                   ("add", ["a.sum() + b.sum()", "c.sum()"], ["loss"])]


@pytest.mark.parametrize("engine", ["gradviz", "torch"])
def test_checkpointed_regions_are_marked_recomputed(tmp_path, engine):
    if engine == "torch":
        pytest.importorskip("torch")
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        import torch.nn as nn
        from torch.utils.checkpoint import checkpoint

        torch.manual_seed(0)
        block = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4))
        x = torch.randn(2, 4, requires_grad=True)
        h = checkpoint(block, x, use_reentrant=False)
        r = checkpoint(block, h, use_reentrant=True)
        loss = r.sum()
        loss.backward()
        """))
    r = invoke("run", script, "--engine", engine, "--tree")
    assert r.exit_code == 0, r.stderr
    tree = r.stdout[r.stdout.index("backward graph of loss"):]
    assert "CheckpointFunctionBackward → r  recomputes its forward in backward" in tree
    assert tree.count("recomputed in backward (checkpoint)") == 5  # both Linear's and the Tanh's saved tensors
    assert "saved_tensors[0] = h (2, 4)  freed by backward" in tree  # the reentrant node's input: kept
    doc = json.loads(invoke("run", script, "--engine", engine, "--tree", "--json").stdout)
    saved = [s for n in doc["graph"]["nodes"] for s in n["saved"]]
    assert sum(s["recomputed"] for s in saved) == 5
    ops = [op["name"] for op in doc["graph"]["ops"]]
    assert ops == ["linear", "tanh", "linear", "CheckpointFunction.apply", "sum"]


def test_custom_function_calls_have_their_line_on_real_torch(tmp_path):
    pytest.importorskip("torch")
    graph, names = forward_view(tmp_path, MODEL, "torch")
    op = next(op for op in graph["ops"] if op["name"] == "Exp.apply")
    assert op["site"]["line"] == MODEL.splitlines().index(
        "        return self.head(h + c + Exp.apply(x) * 0.1)") + 1
    node = next(n for n in graph["nodes"] if n["id"] == op["node"])
    assert node["name"] == "ExpBackward" and node["site"]["line"] == op["site"]["line"]


def test_atens_recurrent_functions_match_pytorch():
    torch = pytest.importorskip("torch")
    import gradviz.torch as gt

    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in [(2, 3), (2, 4), (2, 4), (16, 3), (16, 4), (16,),
                                                                  (16,)]]

    def run(T):
        x, h, c, w_ih, w_hh, b_ih, b_hh = [T.tensor(a, requires_grad=True) for a in arrays]
        hy, cy = T.lstm_cell(x, (h, c), w_ih, w_hh, b_ih, b_hh)
        g = T.gru_cell(x, h, w_ih[:12], w_hh[:12], b_ih[:12], b_hh[:12])
        r = T.rnn_tanh_cell(x, h, w_ih[:4], w_hh[:4])
        (hy.sum() + cy.sum() * 2 + g.sum() + r.sum()).backward()
        return [t.detach().numpy() for t in (hy, cy, g, r)] + [t.grad.numpy() for t in (x, h, c, w_ih, w_hh)], \
            type(hy.grad_fn).__name__

    ours, theirs = run(gt), run(torch)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="hidden1 has inconsistent hidden_size: got 3, expected 4") as ours_error:
        gt.lstm_cell(gt.zeros(2, 3), (gt.zeros(2, 4), gt.zeros(2, 3)), gt.zeros(16, 3), gt.zeros(16, 4))
    with pytest.raises(RuntimeError) as theirs_error:
        torch.lstm_cell(torch.zeros(2, 3), (torch.zeros(2, 4), torch.zeros(2, 3)), torch.zeros(16, 3),
                        torch.zeros(16, 4))
    assert str(ours_error.value) == str(theirs_error.value)
