"""nn.RNN, nn.LSTM, nn.GRU and torch.nn.utils.rnn against real PyTorch 2.13.

Every module case builds the module in both engines, copies PyTorch's parameters into
gradviz's (state_dict), runs the same input (padded, unbatched or packed, with or without
initial states) and compares: outputs and final states, the output's grad_fn name, the
whole graph below every result (node by node: its name and its edges in order), then
after one backward the gradients of the input, the initial states and every parameter. Further tests compare second derivatives, parameter names,
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


def build(cls, kwargs, train=True, dtype=None):
    """The module in both engines, gradviz's with PyTorch's parameters (``dtype``: a name)."""
    tm = getattr(torch.nn, cls)(**kwargs, dtype=dtype and getattr(torch, dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm = getattr(gt.nn, cls)(**kwargs, dtype=dtype and getattr(gt, dtype))
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
        assert g._version == t._version and g.is_contiguous() == t.is_contiguous()
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


# An LSTM in float64 or with projections takes ATen's composite path (no oneDNN).
LSTM_COMPOSITE = [
    ("float64", {}, (T, B, I), np.float64),
    ("float64_two_layers_bidirectional", {"num_layers": 2, "bidirectional": True}, (T, B, I), np.float64),
    ("float64_batch_first_no_bias", {"batch_first": True, "bias": False}, (B, T, I), np.float64),
    ("proj", {"proj_size": 2}, (T, B, I), np.float32),
    ("proj_two_layers_bidirectional", {"proj_size": 3, "num_layers": 2, "bidirectional": True}, (T, B, I),
     np.float32),
    ("proj_batch_first_no_bias", {"proj_size": 2, "batch_first": True, "bias": False}, (B, T, I), np.float32),
    ("proj_unbatched", {"proj_size": 4}, (T, I), np.float32),
    ("proj_dropout_all", {"proj_size": 4, "num_layers": 2, "dropout": 1.0}, (T, B, I), np.float32),
]


@pytest.mark.parametrize("kwargs, shape, dtype", [c[1:] for c in LSTM_COMPOSITE], ids=[c[0] for c in LSTM_COMPOSITE])
@pytest.mark.parametrize("with_states", [False, True], ids=["zero_states", "given_states"])
def test_lstm_composite_path_matches_torch(kwargs, shape, dtype, with_states):
    gm, tm = build("LSTM", {"input_size": I, "hidden_size": H, **kwargs}, dtype=np.dtype(dtype).name)
    states = [n(*s) for s in _state_shapes("LSTM", kwargs, shape)] if with_states else []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # oneDNN's projections warning: see test_projection_warning
        compare_run(gm, tm, _plain, [n(*shape)], states, dtype=dtype)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_eval_mode_skips_dropout(cls):
    gm, tm = build(cls, {"input_size": I, "hidden_size": H, "num_layers": 3, "dropout": 0.5}, train=False)
    compare_run(gm, tm, _plain, [n(T, B, I)])


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_training_dropout_graph_matches_torch(cls):
    """p=0.5 draws a mask: its values differ between engines, the graph and shapes do not."""
    gm, tm = build(cls, {"input_size": I, "hidden_size": H, "num_layers": 2, "dropout": 0.5})
    x = n(T, B, I)
    g_res = _results(gm(gt.tensor(x, requires_grad=True)))
    t_res = _results(tm(torch.tensor(x, requires_grad=True)))
    assert [tuple(g.shape) for g in g_res] == [tuple(t.shape) for t in t_res]
    assert graph_edges(*g_res) == graph_edges(*t_res)
    # the first layer's final state does not go through dropout
    np.testing.assert_allclose(_np(g_res[1][0]), _np(t_res[1][0]), rtol=RTOL, atol=ATOL)


# ---------------------------------------------------------------------------------------
# packed sequences through the modules
LENGTHS = [4, 2, 3, 1]


def _packer(lengths, batch_first=False, enforce_sorted=False):
    def make(lib, leaves):
        return lib.nn.utils.rnn.pack_padded_sequence(leaves[0], lengths, batch_first=batch_first,
                                                     enforce_sorted=enforce_sorted)
    return make


PACKED = [
    ("unsorted", {}, LENGTHS, False),
    ("sorted", {}, [4, 3, 2, 1], True),
    ("equal_lengths", {}, [4, 4, 4, 4], True),
    ("two_layers_bidirectional", {"num_layers": 2, "bidirectional": True}, LENGTHS, False),
    ("batch_first", {"batch_first": True, "bidirectional": True}, LENGTHS, False),
    ("no_bias", {"bias": False, "bidirectional": True}, [4, 3, 3, 1], True),
    ("dropout_all", {"num_layers": 2, "dropout": 1.0}, LENGTHS, False),
]


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kwargs, lengths, enforce_sorted", [c[1:] for c in PACKED], ids=[c[0] for c in PACKED])
@pytest.mark.parametrize("with_states", [False, True], ids=["zero_states", "given_states"])
def test_packed_input_matches_torch(cls, kwargs, lengths, enforce_sorted, with_states):
    gm, tm = build(cls, {"input_size": I, "hidden_size": H, **kwargs})
    batch_first = kwargs.get("batch_first", False)
    shape = (len(lengths), max(lengths), I) if batch_first else (max(lengths), len(lengths), I)
    states = [n(*s) for s in _state_shapes(cls, {**kwargs, "batch_first": False}, (1, len(lengths), I))] \
        if with_states else []
    outs = compare_run(gm, tm, _packer(lengths, batch_first, enforce_sorted), [n(*shape)], states)
    for field in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        g, t = getattr(outs[0][0], field), getattr(outs[1][0], field)
        assert (g is None) == (t is None)
        if t is not None:
            assert g.tolist() == t.tolist() and str(g.dtype) == str(t.dtype)


def test_packed_lstm_with_projections_matches_torch():
    gm, tm = build("LSTM", {"input_size": I, "hidden_size": H, "proj_size": 2, "bidirectional": True})
    compare_run(gm, tm, _packer(LENGTHS), [n(4, 4, I)], [n(2, 4, 2), n(2, 4, H)])


def test_packed_output_pads_back_like_torch():
    gm, tm = build("GRU", {"input_size": I, "hidden_size": H, "bidirectional": True})
    x = n(4, 4, I)
    padded = []
    for lib, m in ((gt, gm), (torch, tm)):
        xt = lib.tensor(x, requires_grad=True)
        out, _ = m(lib.nn.utils.rnn.pack_padded_sequence(xt, LENGTHS, enforce_sorted=False))
        padded.append(lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=True, padding_value=-1.0))
    np.testing.assert_allclose(_np(padded[0][0]), _np(padded[1][0]), rtol=RTOL, atol=ATOL)
    assert padded[0][1].tolist() == padded[1][1].tolist()
    assert graph_edges(padded[0][0]) == graph_edges(padded[1][0])


# ---------------------------------------------------------------------------------------
# gradients of part of the results, second derivatives, no_grad
@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("part", [0, 1, -1], ids=["output", "h_n", "c_n"])
def test_gradient_of_one_result_matches_torch(cls, part):
    gm, tm = build(cls, {"input_size": I, "hidden_size": H, "num_layers": 2, "bidirectional": True})
    x = n(T, B, I)
    grads = []
    for lib, m in ((gt, gm), (torch, tm)):
        xt = lib.tensor(x, requires_grad=True)
        (_results(m(xt))[part] ** 2).sum().backward()
        grads.append([xt.grad] + [p.grad for p in m.parameters()])
    for g, t in zip(*grads):
        np.testing.assert_allclose(_np(g), _np(t), rtol=RTOL, atol=ATOL)


DOUBLE = [("RNN", {}, "float32"), ("LSTM", {}, "float32"), ("LSTM", {"bias": False}, "float32"),
          ("LSTM", {}, "float64"), ("GRU", {}, "float32"), ("LSTM", {"proj_size": 3}, "float32")]


@pytest.mark.parametrize("cls, kwargs, dtype", DOUBLE,
                         ids=[f"{c}-{'-'.join(k) or 'default'}-{d}" for c, k, d in DOUBLE])
def test_second_derivatives_match_torch(cls, kwargs, dtype):
    """The first-order gradients keep a graph (create_graph): the gradients of a function of
    them agree, for the input, the initial states and every parameter."""
    gm, tm = build(cls, {"input_size": I, "hidden_size": H, "bidirectional": True, **kwargs}, dtype=dtype)
    arrays = [n(T, B, I)] + [n(*s) for s in _state_shapes(cls, {"bidirectional": True, **kwargs}, (T, B, I))]
    rng = np.random.default_rng(5)
    results = []
    for lib, m in ((gt, gm), (torch, tm)):
        leaves = [lib.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
        hx = leaves[1] if cls != "LSTM" else tuple(leaves[1:])
        res = _results(m(leaves[0], hx))
        rng = np.random.default_rng(5)
        loss = sum((r * lib.tensor(rng.standard_normal(tuple(r.shape)).astype(dtype))).sum() for r in res)
        wrt = leaves + list(m.parameters())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            firsts = lib.autograd.grad(loss, wrt, create_graph=True)
        second = sum((f * lib.tensor(rng.standard_normal(tuple(f.shape)).astype(dtype))).sum() for f in firsts)
        results.append([_np(g) for g in lib.autograd.grad(second, wrt, allow_unused=True, materialize_grads=True)])
    tol = dict(rtol=1e-3, atol=1e-4) if dtype == "float32" else dict(rtol=1e-8, atol=1e-9)
    for k, (g, t) in enumerate(zip(*results)):
        np.testing.assert_allclose(g, t, err_msg=f"input {k}", **tol)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_no_grad_forward_matches_torch(cls):
    gm, tm = build(cls, {"input_size": I, "hidden_size": H, "num_layers": 2})
    x = n(T, B, I)
    with gt.no_grad():
        g_res = _results(gm(gt.tensor(x)))
    with torch.no_grad():
        t_res = _results(tm(torch.tensor(x)))
    for g, t in zip(g_res, t_res):
        assert g.grad_fn is None and not g.requires_grad
        np.testing.assert_allclose(_np(g), _np(t), rtol=RTOL, atol=ATOL)


def test_onednn_lstm_node_saves_what_torch_saves():
    gm, tm = build("LSTM", {"input_size": I, "hidden_size": H, "num_layers": 2, "bidirectional": True,
                            "batch_first": True})
    x = n(B, T, I)
    g_node = gm(gt.tensor(x, requires_grad=True))[0].grad_fn.next_functions[0][0].next_functions[0][0]
    t_node = tm(torch.tensor(x, requires_grad=True))[0].grad_fn.next_functions[0][0].next_functions[0][0]
    assert g_node.name() == t_node.name() == "MkldnnRnnLayerBackward0"
    names = [a for a in dir(t_node) if a.startswith("_saved_")]
    for name in names:
        g, t = getattr(g_node, name), getattr(t_node, name)
        if isinstance(t, torch.Tensor):
            assert str(g.dtype) == str(t.dtype), name
            if name != "_saved_result3":  # oneDNN's workspace: its size is oneDNN's own business
                assert tuple(g.shape) == tuple(t.shape), name
                np.testing.assert_allclose(_np(g), _np(t), rtol=RTOL, atol=ATOL, err_msg=name)
        else:
            assert g == t, name


# ---------------------------------------------------------------------------------------
# parameters, initialisation, reprs
CONFIGS = [
    ("RNN", (10, 20), {}),
    ("RNN", (10, 20, 2, "relu", False, True, 0.5, True), {}),
    ("RNN", (3, 4), {"nonlinearity": "relu", "num_layers": 3, "bidirectional": True}),
    ("LSTM", (10, 20), {"num_layers": 2, "batch_first": True}),
    ("LSTM", (10, 20, 2, False, True, 0.25, True, 5), {}),
    ("LSTM", (3, 4), {"proj_size": 2, "bias": False, "bidirectional": True, "num_layers": 2}),
    ("LSTM", (3, 4), {"dropout": 1}),
    ("GRU", (3, 4), {"dropout": 0.3}),
    ("GRU", (3, 4, 3, True, False, 0, True), {}),
]


def _both(cls, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(gt.nn, cls)(*args, **kwargs), getattr(torch.nn, cls)(*args, **kwargs)


@pytest.mark.parametrize("cls, args, kwargs", CONFIGS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CONFIGS)])
def test_parameters_and_repr_match_torch(cls, args, kwargs):
    gm, tm = _both(cls, args, kwargs)
    assert repr(gm) == repr(tm)
    assert repr(gt.nn.Sequential(gm)) == repr(torch.nn.Sequential(tm))
    assert [(k, tuple(p.shape), p.requires_grad) for k, p in gm.named_parameters()] == \
        [(k, tuple(p.shape), p.requires_grad) for k, p in tm.named_parameters()]
    assert list(gm.state_dict()) == list(tm.state_dict())
    assert gm._flat_weights_names == tm._flat_weights_names and gm._all_weights == tm._all_weights
    assert [[tuple(w.shape) for w in ws] for ws in gm.all_weights] == \
        [[tuple(w.shape) for w in ws] for ws in tm.all_weights]
    assert all(w is getattr(gm, k) for w, k in zip(gm._flat_weights, gm._flat_weights_names))
    for attr in ("mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional",
                 "proj_size", "training"):
        assert getattr(gm, attr) == getattr(tm, attr), attr
    assert type(gm).__module__ == type(tm).__module__ and type(gm).__mro__[1].__name__ == type(tm).__mro__[1].__name__
    assert [p._version for p in gm.parameters()] == [p._version for p in tm.parameters()]


@pytest.mark.parametrize("cls, args, kwargs", CONFIGS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CONFIGS)])
def test_default_init_draws_like_torch(cls, args, kwargs, monkeypatch):
    """uniform_(-1/sqrt(hidden), 1/sqrt(hidden)) per parameter, in PyTorch's order."""
    calls = {"gradviz": [], "torch": []}
    for name, init in (("gradviz", gt.nn.init), ("torch", torch.nn.init)):
        original = init.uniform_

        def record(tensor, a=0.0, b=1.0, *rest, _original=original, _calls=calls[name], **kw):
            _calls.append((tuple(tensor.shape), a, b))
            return _original(tensor, a, b, *rest, **kw)
        monkeypatch.setattr(init, "uniform_", record)
    gm, tm = _both(cls, args, kwargs)
    assert calls["gradviz"] == calls["torch"] and calls["torch"]
    bound = 1 / np.sqrt(tm.hidden_size)
    assert all(np.abs(_np(p)).max() <= bound for p in gm.parameters())


def test_replaced_weight_is_used_like_torch():
    gm, tm = build("GRU", {"input_size": I, "hidden_size": H})
    w = n(3 * H, H)
    gm.weight_hh_l0 = gt.nn.Parameter(gt.tensor(w))
    tm.weight_hh_l0 = torch.nn.Parameter(torch.tensor(w))
    assert gm._flat_weights[1] is gm.weight_hh_l0
    compare_run(gm, tm, _plain, [n(T, B, I)])


def test_double_module_matches_torch():
    gm, tm = build("LSTM", {"input_size": I, "hidden_size": H, "num_layers": 2})
    gm.double()
    tm.double()
    assert all(str(w.dtype) == "torch.float64" for w in gm._flat_weights)
    compare_run(gm, tm, _plain, [n(T, B, I)], dtype=np.float64)


# ---------------------------------------------------------------------------------------
# errors and warnings
def _error(fn, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(lib)
        except Exception as exc:  # noqa: BLE001 - the error itself is what is compared
            return type(exc).__name__, str(exc)
    return None


def _rnn(lib, cls, *args, **kwargs):
    return getattr(lib.nn, cls)(*args, **kwargs)


def _pack(lib):
    return lib.nn.utils.rnn


ERRORS = [
    # constructors
    lambda L: _rnn(L, "RNN", 3, 4, nonlinearity="sigmoid"),
    lambda L: _rnn(L, "RNN", 3, 4, proj_size=2),
    lambda L: _rnn(L, "GRU", 3, 4, proj_size=2),
    lambda L: _rnn(L, "LSTM", 3, 4, proj_size=4),
    lambda L: _rnn(L, "LSTM", 3, 4, proj_size=-1),
    lambda L: _rnn(L, "LSTM", 3, 4, dropout=1.5),
    lambda L: _rnn(L, "LSTM", 3, 4, dropout=True),
    lambda L: _rnn(L, "LSTM", 3, 4, bias=1),
    lambda L: _rnn(L, "LSTM", 3, 4, batch_first=0),
    lambda L: _rnn(L, "GRU", 3.0, 4),
    lambda L: _rnn(L, "GRU", 0, 4),
    lambda L: _rnn(L, "GRU", 3, 4.0),
    lambda L: _rnn(L, "GRU", 3, 0),
    lambda L: _rnn(L, "RNN", 3, 4, num_layers=0),
    # inputs
    lambda L: _rnn(L, "RNN", 10, 4)(L.ones(2, 3, 5)),
    lambda L: _rnn(L, "LSTM", 10, 4)(L.ones(2, 5)),
    lambda L: _rnn(L, "GRU", 3, 4)(L.ones(1, 2, 3, 4)),
    lambda L: _rnn(L, "LSTM", 3, 4)(L.ones(1, 2, 3, 4)),
    lambda L: _rnn(L, "RNN", 3, 4)(L.ones(5)),
    lambda L: _rnn(L, "RNN", 3, 4)(L.ones(2, 3, 3, dtype=L.float64)),
    lambda L: _rnn(L, "LSTM", 3, 4)(L.ones(0, 2, 3)),
    lambda L: _rnn(L, "RNN", 3, 4)(L.ones(0, 2, 3)),
    lambda L: _rnn(L, "GRU", 3, 4, bidirectional=True)(L.ones(0, 2, 3)),
    # states
    lambda L: _rnn(L, "RNN", 3, 4)(L.ones(2, 5, 3), L.zeros(1, 2, 4)),
    lambda L: _rnn(L, "RNN", 3, 4, batch_first=True)(L.ones(2, 5, 3), L.zeros(1, 5, 4)),
    lambda L: _rnn(L, "GRU", 3, 4, num_layers=2)(L.ones(2, 5, 3), L.zeros(1, 5, 4)),
    lambda L: _rnn(L, "GRU", 3, 4)(L.ones(2, 5, 3), L.zeros(5, 4)),
    lambda L: _rnn(L, "GRU", 3, 4)(L.ones(2, 3), L.zeros(1, 1, 4)),
    lambda L: _rnn(L, "RNN", 3, 4)(L.ones(2, 3), L.zeros(1, 5)),
    lambda L: _rnn(L, "LSTM", 3, 4)(L.ones(2, 5, 3), (L.zeros(1, 5, 4), L.zeros(5, 4))),
    lambda L: _rnn(L, "LSTM", 3, 4)(L.ones(2, 3), (L.zeros(1, 1, 4), L.zeros(1, 4))),
    lambda L: _rnn(L, "LSTM", 3, 4)(L.ones(2, 5, 3), (L.zeros(1, 2, 4), L.zeros(1, 5, 4))),
    lambda L: _rnn(L, "LSTM", 3, 4)(L.ones(2, 5, 3), (L.zeros(1, 5, 4), L.zeros(1, 5, 3))),
    lambda L: _rnn(L, "LSTM", 3, 4, proj_size=2)(L.ones(2, 5, 3), (L.zeros(1, 5, 4), L.zeros(1, 5, 4))),
    # packed input
    lambda L: _rnn(L, "GRU", 3, 4)(_pack(L).pack_sequence([L.ones(2, 5)])),
    lambda L: _rnn(L, "RNN", 3, 4)(_pack(L).pack_sequence([L.ones(2, 3)]), L.zeros(1, 2, 4)),
    lambda L: _rnn(L, "LSTM", 3, 4)(_pack(L).pack_sequence([L.ones(2, 5), L.ones(1, 5)])),
    # packing
    lambda L: _pack(L).pack_padded_sequence(L.ones(3, 2, 4), [3, 3, 3]),
    lambda L: _pack(L).pack_padded_sequence(L.ones(3, 2, 4), [1, 2]),
    lambda L: _pack(L).pack_padded_sequence(L.ones(3, 2, 4), [2, 0]),
    lambda L: _pack(L).pack_padded_sequence(L.ones(3, 2, 4), [0, 0]),
    lambda L: _pack(L).pack_padded_sequence(L.ones(3, 2, 4), L.tensor([[3, 2]])),
    lambda L: _pack(L).pack_padded_sequence(L.ones(0, 2, 4), [1, 1]),
    lambda L: _pack(L).pack_padded_sequence(L.ones(2, 3, 4), [2, 1, 1], batch_first=True),
    lambda L: _pack(L).pad_packed_sequence(_pack(L).pack_sequence([L.ones(3, 2)]), total_length=2),
    lambda L: _pack(L).pad_sequence([]),
    lambda L: _pack(L).pad_sequence(5),
    lambda L: _pack(L).pad_sequence([L.ones(2)], padding_side="middle"),
    lambda L: _pack(L).PackedSequence(L.ones(2)),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_error_matches_torch(k):
    expected = _error(ERRORS[k], torch)
    assert expected is not None
    assert _error(ERRORS[k], gt) == expected


def test_dropout_warning_matches_torch():
    texts = []
    for lib in (gt, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.LSTM(3, 4, dropout=0.2)
        texts.append([(w.category, str(w.message)) for w in caught])
    assert texts[0] == texts[1] and texts[1]


@pytest.mark.slow


def test_projection_warning_matches_torch():
    """PyTorch gives it once per process: the oracle runs in one of its own."""
    code = ("import warnings, torch\nwarnings.simplefilter('always')\nm = torch.nn.LSTM(3, 4, proj_size=2)\n"
            "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
            "    m(torch.ones(2, 1, 3)); m(torch.ones(2, 1, 3))\nprint(repr([str(x.message) for x in w]))")
    expected = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    gt._reset_warnings_once()
    m = gt.nn.LSTM(3, 4, proj_size=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m(gt.ones(2, 1, 3))
        m(gt.ones(2, 1, 3))
    assert repr([str(w.message) for w in caught]) == expected


# ---------------------------------------------------------------------------------------
# torch.nn.utils.rnn
def _seqs(lengths, *trailing):
    return [n(length, *trailing) for length in lengths]


def _compare_tensors(g, t):
    if isinstance(t, (tuple, list)):
        assert type(g).__name__ == type(t).__name__ and len(g) == len(t)
        for a, b in zip(g, t):
            _compare_tensors(a, b)
        return
    if t is None or not isinstance(t, torch.Tensor):
        assert g == t
        return
    assert tuple(g.shape) == tuple(t.shape) and str(g.dtype) == str(t.dtype)
    np.testing.assert_allclose(_np(g), _np(t), rtol=1e-6, atol=1e-7)
    assert type(g.grad_fn).__name__ == type(t.grad_fn).__name__ and g.requires_grad == t.requires_grad
    if t.grad_fn is not None:
        assert graph_edges(g) == graph_edges(t)


PACKING = [
    ("pack_padded", lambda U, xs: U.pack_padded_sequence(U.pad_sequence(xs), [4, 3, 3, 1]), [4, 3, 3, 1]),
    ("pack_padded_tensor_lengths", lambda U, xs: U.pack_padded_sequence(
        U.pad_sequence(xs, batch_first=True), xs[0].new_tensor([4, 2, 2]).long(), batch_first=True), [4, 2, 2]),
    ("pack_padded_unsorted", lambda U, xs: U.pack_padded_sequence(U.pad_sequence(xs), [2, 4, 1, 3],
                                                                  enforce_sorted=False), [2, 4, 1, 3]),
    ("pack_padded_unsorted_batch_first", lambda U, xs: U.pack_padded_sequence(
        U.pad_sequence(xs, batch_first=True), [1, 3, 3], batch_first=True, enforce_sorted=False), [1, 3, 3]),
    ("pack_sequence", lambda U, xs: U.pack_sequence(xs), [3, 2, 2, 1]),
    ("pack_sequence_unsorted", lambda U, xs: U.pack_sequence(xs, enforce_sorted=False), [1, 3, 2]),
    ("pad_packed", lambda U, xs: U.pad_packed_sequence(U.pack_sequence(xs)), [4, 2, 2, 1]),
    ("pad_packed_unsorted", lambda U, xs: U.pad_packed_sequence(U.pack_sequence(xs, enforce_sorted=False),
                                                                batch_first=True, padding_value=-2.0), [1, 4, 2]),
    ("pad_packed_total_length", lambda U, xs: U.pad_packed_sequence(U.pack_sequence(xs), total_length=6), [3, 3]),
    ("pad_sequence", lambda U, xs: U.pad_sequence(xs), [2, 4, 1]),
    ("pad_sequence_batch_first_value", lambda U, xs: U.pad_sequence(xs, True, 1.5), [2, 4, 1]),
    ("pad_sequence_left", lambda U, xs: U.pad_sequence(xs, padding_side="left"), [2, 4, 1]),
    ("pad_sequence_left_batch_first", lambda U, xs: U.pad_sequence(xs, batch_first=True, padding_side="left"),
     [2, 4, 1]),
    ("unpack_sequence", lambda U, xs: U.unpack_sequence(U.pack_sequence(xs, enforce_sorted=False)), [2, 3, 1]),
    ("unpad_sequence", lambda U, xs: U.unpad_sequence(U.pad_sequence(xs, batch_first=True), xs[0].new_tensor(
        [2, 3, 1]).long(), batch_first=True), [2, 3, 1]),
]


@pytest.mark.parametrize("fn, lengths", [c[1:] for c in PACKING], ids=[c[0] for c in PACKING])
def test_packing_functions_match_torch(fn, lengths):
    arrays = _seqs(lengths, 2)
    results, leaves = [], []
    for lib in (gt, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        results.append(fn(lib.nn.utils.rnn, xs))
        leaves.append(xs)
    _compare_tensors(results[0], results[1])
    rng = np.random.default_rng(3)
    flat = [[res.data] if hasattr(res, "batch_sizes") else list(res) if isinstance(res, (tuple, list)) else [res]
            for res in results]
    flat = [[r for r in rs if r.dtype.is_floating_point] for rs in flat]
    weights = [rng.standard_normal(tuple(r.shape)).astype(np.float32) for r in flat[1]]
    for lib, rs in ((gt, flat[0]), (torch, flat[1])):
        sum((r * lib.tensor(w)).sum() for r, w in zip(rs, weights) if r.requires_grad).backward()
    for g, t in zip(*leaves):
        np.testing.assert_allclose(_np(g.grad), _np(t.grad), rtol=1e-6, atol=1e-7)


def test_packed_sequence_object_matches_torch():
    arrays = _seqs([1, 3, 2], 2)
    packed = [lib.nn.utils.rnn.pack_sequence([lib.tensor(a) for a in arrays], enforce_sorted=False)
              for lib in (gt, torch)]
    assert repr(packed[0]) == repr(packed[1])
    assert type(packed[0]).__name__ == type(packed[1]).__name__ == "PackedSequence"
    assert type(packed[0]).__module__ == type(packed[1]).__module__
    assert [c.__name__ for c in type(packed[0]).__mro__] == [c.__name__ for c in type(packed[1]).__mro__]
    assert packed[0]._fields == packed[1]._fields
    _compare_tensors(tuple(packed[0]), tuple(packed[1]))
    _compare_tensors(tuple(packed[0].double()), tuple(packed[1].double()))
    assert packed[0].to(gt.float32) is packed[0] and packed[1].to(torch.float32) is packed[1]
    assert packed[0].is_cuda == packed[1].is_cuda and packed[0].is_pinned() == packed[1].is_pinned()
    made = [lib.nn.utils.rnn.PackedSequence(lib.tensor(arrays[1]), lib.tensor([2, 1]), lib.tensor([1, 0]))
            for lib in (gt, torch)]
    assert repr(made[0]) == repr(made[1])
    made = [lib.nn.utils.rnn.PackedSequence((lib.tensor(arrays[1]), lib.tensor([2, 1]))) for lib in (gt, torch)]
    assert repr(made[0]) == repr(made[1])
    perm = [lib.nn.utils.rnn.invert_permutation(lib.tensor([2, 0, 3, 1])) for lib in (gt, torch)]
    _compare_tensors(perm[0], perm[1])
    assert gt.nn.utils.rnn.invert_permutation(None) is None


def test_unpad_sequence_turns_the_padded_batch_like_torch():
    """PyTorch's unpad_sequence transposes a time-major batch in place."""
    arrays = _seqs([2, 3], 2)
    padded = []
    for lib in (gt, torch):
        x = lib.tensor(np.stack([np.pad(a, ((0, 3 - len(a)), (0, 0))) for a in arrays], 1), requires_grad=True)
        y = x * 1
        pieces = lib.nn.utils.rnn.unpad_sequence(y, lib.tensor([2, 3]))
        padded.append((y, pieces))
    _compare_tensors(padded[0], padded[1])
    assert padded[0][0]._version == padded[1][0]._version
    leaf = [lib.zeros(3, 2, 2, requires_grad=True) for lib in (gt, torch)]
    assert _error(lambda L: L.nn.utils.rnn.unpad_sequence(leaf[L is torch], L.tensor([2, 3])), gt) == \
        _error(lambda L: L.nn.utils.rnn.unpad_sequence(leaf[L is torch], L.tensor([2, 3])), torch)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_constant_input_and_transposed_states_match_torch(cls):
    """An input that needs no gradient (no edge for it) and initial states that are not
    contiguous (oneDNN's LSTM copies them first)."""
    gm, tm = build(cls, {"input_size": I, "hidden_size": H, "num_layers": 2, "batch_first": True})
    x, states = n(B, T, I), [n(B, 2, H) for _ in range(2 if cls == "LSTM" else 1)]
    results, leaves = [], []
    for lib, m in ((gt, gm), (torch, tm)):
        hs = [lib.tensor(s, requires_grad=True) for s in states]
        turned = [h.transpose(0, 1) for h in hs]
        res = _results(m(lib.tensor(x), tuple(turned) if cls == "LSTM" else turned[0]))
        sum((r * r).sum() for r in res).backward()
        results.append(res)
        leaves.append(hs + list(m.parameters()))
    assert graph_edges(*results[0]) == graph_edges(*results[1])
    for g, t in zip(*leaves):
        np.testing.assert_allclose(_np(g.grad), _np(t.grad), rtol=RTOL, atol=ATOL)


def test_packing_and_in_place_transpose_nodes_save_what_torch_saves():
    x = n(2, 3, I)
    nodes = []
    for lib, m in zip((gt, torch), build("RNN", {"input_size": I, "hidden_size": H, "batch_first": True})):
        packed = lib.nn.utils.rnn.pack_padded_sequence(lib.tensor(x, requires_grad=True), [3, 1], batch_first=True)
        nodes.append((packed.data.grad_fn, m(lib.tensor(x, requires_grad=True))[0].grad_fn))
    for g_node, t_node in zip(*nodes):
        assert g_node.name() == t_node.name()
        for name in [a for a in dir(t_node) if a.startswith("_saved_")]:
            g, t = getattr(g_node, name), getattr(t_node, name)
            if isinstance(t, torch.Tensor):
                assert g.tolist() == t.tolist() and str(g.dtype) == str(t.dtype), name
            else:
                assert g == t, name
