"""nn.RNN, nn.LSTM, nn.GRU and torch.nn.utils.rnn against real PyTorch 2.13.

Every module case builds the module in both engines, copies PyTorch's parameters into
gradviz's (state_dict), runs the same input (padded, unbatched or packed, with or without
initial states) and compares: outputs and final states, the output's grad_fn name, the
whole graph below every result (node by node: its name and its edges in order), then after one backward the gradients of the input, the initial
states and every parameter. Further tests compare second derivatives, parameter names,
order and shapes, the order of the default initialisation's draws, reprs, the packing
functions (values, graphs, gradients) and error types and messages.
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import gradviz.torch as gt

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-4, 1e-5


def _engine(name):
    return gt if name == "gradviz" else torch


def _np(t):
    return t.detach().numpy()


def graph_edges(*roots):
    """The whole graph below the roots, node by node in breadth-first order from the roots
    along each node's edges in order: (name, ((index of the next node or None, output
    number), ...)). Equal lists mean the same graph, edge for edge."""
    index, order = {}, []
    for root in roots:
        if root.grad_fn is not None and root.grad_fn not in index:
            index[root.grad_fn] = len(order)
            order.append(root.grad_fn)
    described = []
    for node in order:  # grows while walked
        edges = []
        for fn, nr in node.next_functions:
            if fn is not None and fn not in index:
                index[fn] = len(order)
                order.append(fn)
            edges.append((None if fn is None else index[fn], nr))
        described.append((node.name(), tuple(edges)))
    return described


def _results(out):
    """(tensors to compare, in order): output (packed: its data), h_n and, for an LSTM, c_n."""
    output, hidden = out
    output = output.data if hasattr(output, "batch_sizes") else output
    return [output] + (list(hidden) if isinstance(hidden, tuple) else [hidden])


def build(cls, kwargs, train=True):
    """The module in both engines, gradviz's with PyTorch's parameters."""
    tm = getattr(torch.nn, cls)(**kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm = getattr(gt.nn, cls)(**kwargs)
    tm.load_state_dict(tm.state_dict())  # the same in-place copies on both sides keep versions comparable
    result = gm.load_state_dict({k: gt.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"
    tm.train(train)
    gm.train(train)
    return gm, tm


def _inputs(arrays, dtype):
    return [[lib.tensor(a.astype(dtype), requires_grad=True) for a in arrays] for lib in (gt, torch)]


def compare_run(gm, tm, make_input, arrays, states=(), dtype=np.float32, seed=0):
    """Runs both modules; compares results, graphs and every gradient. ``make_input(lib,
    tensors)`` turns the leaf tensors into the module's input (a PackedSequence, say)."""
    (g_leaves, t_leaves) = _inputs(list(arrays) + list(states), dtype)
    outs = []
    for lib, m, leaves in ((gt, gm, g_leaves), (torch, tm, t_leaves)):
        x = make_input(lib, leaves[:len(arrays)])
        hx = leaves[len(arrays):]
        hx = None if not hx else (hx[0] if len(hx) == 1 else tuple(hx))
        outs.append(m(x) if hx is None else m(x, hx))
    g_res, t_res = _results(outs[0]), _results(outs[1])
    assert type(outs[0][0]).__name__ == type(outs[1][0]).__name__
    for g, t in zip(g_res, t_res):
        assert tuple(g.shape) == tuple(t.shape)
        assert str(g.dtype) == str(t.dtype)
        np.testing.assert_allclose(_np(g), _np(t), rtol=RTOL, atol=ATOL)
        assert type(g.grad_fn).__name__ == type(t.grad_fn).__name__
        assert g.is_leaf == t.is_leaf and g.requires_grad == t.requires_grad
    assert graph_edges(*g_res) == graph_edges(*t_res)
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(tuple(t.shape)).astype(dtype) for t in t_res]
    sum((g * gt.tensor(w)).sum() for g, w in zip(g_res, weights)).backward()
    sum((t * torch.tensor(w)).sum() for t, w in zip(t_res, weights)).backward()
    for i, (g, t) in enumerate(zip(g_leaves, t_leaves)):
        assert (g.grad is None) == (t.grad is None), i
        if t.grad is not None:
            np.testing.assert_allclose(_np(g.grad), _np(t.grad), rtol=RTOL, atol=ATOL, err_msg=f"leaf {i}")
    for (name, gp), (_, tp) in zip(gm.named_parameters(), tm.named_parameters()):
        assert (gp.grad is None) == (tp.grad is None), name
        if tp.grad is not None:
            np.testing.assert_allclose(_np(gp.grad), _np(tp.grad), rtol=RTOL, atol=ATOL, err_msg=name)
    return outs


_R = np.random.default_rng(1234)


def n(*shape):
    return _R.standard_normal(shape).astype(np.float32)


def _plain(lib, leaves):
    return leaves[0]


I, H, T, B = 5, 6, 4, 3
MODULES = [("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("GRU", {})]
OPTIONS = [
    ("default", {}, (T, B, I)),
    ("two_layers", {"num_layers": 2}, (T, B, I)),
    ("bidirectional", {"bidirectional": True}, (T, B, I)),
    ("two_layers_bidirectional", {"num_layers": 2, "bidirectional": True}, (T, B, I)),
    ("batch_first", {"batch_first": True}, (B, T, I)),
    ("batch_first_bidirectional", {"batch_first": True, "bidirectional": True, "num_layers": 2}, (B, T, I)),
    ("no_bias", {"bias": False}, (T, B, I)),
    ("no_bias_two_layers", {"bias": False, "num_layers": 2, "bidirectional": True}, (T, B, I)),
    ("unbatched", {}, (T, I)),
    ("unbatched_bidirectional", {"bidirectional": True, "num_layers": 2}, (T, I)),
    ("one_step", {}, (1, B, I)),
    ("dropout_all", {"num_layers": 2, "dropout": 1.0}, (T, B, I)),  # p=1 zeroes deterministically
]


def _state_shapes(cls, kwargs, input_shape):
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    batch = () if len(input_shape) == 2 else (input_shape[0] if kwargs.get("batch_first") else input_shape[1],)
    h = (layers,) + batch + (kwargs.get("proj_size") or H,)
    return [h, (layers,) + batch + (H,)] if cls == "LSTM" else [h]


CASES = [(cls, {**base, **opts}, shape, f"{cls}{'_relu' if base else ''}-{oid}")
         for cls, base in MODULES for oid, opts, shape in OPTIONS]


@pytest.mark.parametrize("cls, kwargs, shape, cid", CASES, ids=[c[3] for c in CASES])
@pytest.mark.parametrize("with_states", [False, True], ids=["zero_states", "given_states"])
def test_module_matches_torch(cls, kwargs, shape, cid, with_states):
    gm, tm = build(cls, {"input_size": I, "hidden_size": H, **kwargs})
    states = [n(*s) for s in _state_shapes(cls, kwargs, shape)] if with_states else []
    compare_run(gm, tm, _plain, [n(*shape)], states)
