"""Property-based tests of the engine (hypothesis), issue 8.

1. Random graphs over an op table (elementwise unary ops, broadcasting binary ops,
   reductions by dimension and whole, views and shape ops, indexing with repeated
   indices, cat / stack), on random shapes with broadcasting:
   * gradients match float64 central finite differences (gradviz alone, no PyTorch);
   * the same graph built with real PyTorch, with random float32 / float64 inputs, gives
     the same values, dtypes, shapes, requires_grad, grad_fn names, reachable node names
     and gradients, or raises the same error (type and message) at the same op.
2. Double backward: gradviz's own gradgradcheck gives the same verdict as
   torch.autograd.gradgradcheck on the same graph, and the second-order numbers (the
   gradient of <first-order gradients, w> through create_graph=True) match PyTorch's.
   A custom Function whose backward detaches (right first order, wrong second order)
   fails both gradgradchecks alike.
3. Random sequences of in-place ops (add_ mul_ zero_ fill_ copy_ clamp_ exp_, += *=, item
   and slice assignment) on leaves, non-leaves, views, .detach() and .data, under
   no_grad or not, interleaved with backward calls: every step raises exactly when
   PyTorch raises, with the same type and message, and the final values, flags,
   versions and gradients agree.

Where an op is not differentiable at a point (relu at 0, max with ties, floor at an
integer, norm of zeros ...), the finite-difference and float32 checks skip inputs within
a margin of the kink; the float64 comparison with PyTorch keeps exact ties, where both
libraries must pick the same subgradient.

Deterministic: derandomize=True, so CI sees the same examples on every run.
"""
import operator
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, given, note, settings
from hypothesis import strategies as st

import gradviz.torch as gv

try:  # real PyTorch is the oracle where it is importable
    import torch as real_torch

    if getattr(real_torch, "__file__", None) == getattr(gv, "__file__", None):  # pragma: no cover
        real_torch = None
except Exception:  # pragma: no cover - depends on the machine
    real_torch = None

needs_torch = pytest.mark.skipif(real_torch is None, reason="real PyTorch is not importable")


def _settings(n):
    # no "explain" phase: on a failure it re-runs hundreds of variations (a minute) to
    # annotate the report; the shrunk example and its note() are what a reader needs
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate, Phase.shrink],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


MAX_NUMEL = 36


class NA(Exception):
    """The op does not apply to these shapes."""


# --------------------------------------------------------------------------- margins
# Distance of an op's inputs to the nearest point where the op is not differentiable
# (numpy, on the values of the forward pass).


def _min_abs(x):
    return float(np.min(np.abs(x))) if np.size(x) else np.inf


def _gap_top2(x, dim, largest=True):
    """Smallest gap between the best and the second best along dim (ties give 0)."""
    if x.ndim == 0 or x.shape[dim] < 2:
        return np.inf
    s = np.sort(x, axis=dim)
    s = np.moveaxis(s, dim, -1)
    gap = (s[..., -1] - s[..., -2]) if largest else (s[..., 1] - s[..., 0])
    return float(np.min(gap))


def _gap_all(x):
    """Smallest gap between the maximum of the whole tensor and any other element."""
    f = np.sort(x.reshape(-1))
    return float(f[-1] - f[-2]) if f.size > 1 else np.inf


def _dist_to_grid(x, offset):
    """Distance to the nearest integer + offset (floor: 0, round: 0.5)."""
    y = np.asarray(x) - offset
    return float(np.min(np.abs(y - np.round(y)))) if np.size(x) else np.inf


# --------------------------------------------------------------------------- the op table


class Op:
    def __init__(self, name, arity, fn, params=None, margin=None):
        self.name, self.arity, self.fn = name, arity, fn
        self.params = params or (lambda draw, shapes: {})
        self.margin = margin

    def __repr__(self):
        return self.name


def F(T):
    return T.nn.functional


def _exact_ndim(k):
    def params(draw, shapes):
        if len(shapes[0]) != k:
            raise NA
        return {}
    return params


def _dim_param(keepdim=False, min_size=1):
    def params(draw, shapes):
        shape = shapes[0]
        dims = [d for d in range(len(shape)) if shape[d] >= min_size]
        if not dims:
            raise NA
        p = {"dim": draw(st.sampled_from(dims))}
        if draw(st.booleans()):
            p["dim"] -= len(shape)  # negative dims too
        if keepdim:
            p["keepdim"] = draw(st.booleans())
        return p
    return params


def _nd(p, shape):
    return p["dim"] % len(shape) if shape else 0


UNARY = [
    Op("neg", 1, lambda T, x: -x),
    Op("exp", 1, lambda T, x: x.exp()),
    Op("log", 1, lambda T, x: (x * x + 0.5).log()),
    Op("log2", 1, lambda T, x: T.log2(x * x + 0.5)),
    Op("sqrt", 1, lambda T, x: (x * x + 0.25).sqrt()),
    Op("rsqrt", 1, lambda T, x: T.rsqrt(x * x + 0.5)),
    Op("reciprocal", 1, lambda T, x: (x * x + 0.5).reciprocal()),
    Op("log1p", 1, lambda T, x: T.log1p(x * x)),
    Op("expm1", 1, lambda T, x: x.expm1()),
    Op("sin", 1, lambda T, x: x.sin()),
    Op("cos", 1, lambda T, x: T.cos(x)),
    Op("tanh", 1, lambda T, x: x.tanh()),
    Op("sigmoid", 1, lambda T, x: T.sigmoid(x)),
    Op("sinh", 1, lambda T, x: x.sinh()),
    Op("cosh", 1, lambda T, x: x.cosh()),
    Op("atan", 1, lambda T, x: x.atan()),
    Op("erf", 1, lambda T, x: T.erf(x)),
    Op("pow2", 1, lambda T, x: x.pow(2)),
    Op("pow3", 1, lambda T, x: x ** 3),
    Op("pow1.5", 1, lambda T, x: (x * x + 0.5) ** 1.5),
    Op("rpow", 1, lambda T, x: 2 ** x),
    Op("square", 1, lambda T, x: T.square(x)),
    Op("affine", 1, lambda T, x: x * 0.5 + 1),
    Op("rsub", 1, lambda T, x: 1 - x),
    Op("div_scalar", 1, lambda T, x: x / 3),
    Op("rdiv", 1, lambda T, x: 2 / (x * x + 1)),
    Op("softplus", 1, lambda T, x: F(T).softplus(x)),
    Op("gelu", 1, lambda T, x: F(T).gelu(x)),
    Op("silu", 1, lambda T, x: F(T).silu(x)),
    Op("elu", 1, lambda T, x: F(T).elu(x), margin=lambda xs, p: _min_abs(xs[0])),
    Op("relu", 1, lambda T, x: T.relu(x), margin=lambda xs, p: _min_abs(xs[0])),
    Op("leaky_relu", 1, lambda T, x: F(T).leaky_relu(x, 0.1), margin=lambda xs, p: _min_abs(xs[0])),
    Op("abs", 1, lambda T, x: x.abs(), margin=lambda xs, p: _min_abs(xs[0])),
    Op("clamp", 1, lambda T, x: x.clamp(-0.5, 0.75),
       margin=lambda xs, p: min(_min_abs(xs[0] + 0.5), _min_abs(xs[0] - 0.75))),
    Op("clamp_min", 1, lambda T, x: T.clamp(x, min=0.25), margin=lambda xs, p: _min_abs(xs[0] - 0.25)),
    Op("hardtanh", 1, lambda T, x: F(T).hardtanh(x),
       margin=lambda xs, p: min(_min_abs(xs[0] + 1), _min_abs(xs[0] - 1))),
    Op("floor", 1, lambda T, x: x.floor() + x, margin=lambda xs, p: _dist_to_grid(xs[0], 0.0)),
    Op("round", 1, lambda T, x: T.round(x) * x, margin=lambda xs, p: _dist_to_grid(xs[0], 0.5)),
    Op("sign", 1, lambda T, x: x.sign() * x, margin=lambda xs, p: _min_abs(xs[0])),
    Op("masked_fill", 1, lambda T, x: x.masked_fill(x > 0.2, 0.5), margin=lambda xs, p: _min_abs(xs[0] - 0.2)),
    Op("where_scalar", 1, lambda T, x: T.where(x < 0, x * 2, x), margin=lambda xs, p: _min_abs(xs[0])),
]


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


def _mm_params(draw, shapes):
    a, b = shapes
    if len(a) < 1 or len(b) < 1 or a[-1] != b[-1]:
        raise NA
    return {}


BINARY = [
    Op("add", 2, lambda T, a, b: a + b),
    Op("add_alpha", 2, lambda T, a, b: T.add(a, b, alpha=-0.5)),
    Op("sub", 2, lambda T, a, b: a - b),
    Op("mul", 2, lambda T, a, b: a * b),
    Op("div", 2, lambda T, a, b: a / (b * b + 0.5)),
    Op("pow", 2, lambda T, a, b: (a * a + 0.5) ** b),
    Op("atan2", 2, lambda T, a, b: T.atan2(a, b),
       margin=lambda xs, p: float(np.min(xs[0] ** 2 + xs[1] ** 2))),
    Op("lerp", 2, lambda T, a, b: T.lerp(a, b, 0.3)),
    Op("maximum", 2, lambda T, a, b: T.maximum(a, b), margin=lambda xs, p: _min_abs(xs[0] - xs[1])),
    Op("minimum", 2, lambda T, a, b: T.minimum(a, b), margin=lambda xs, p: _min_abs(xs[0] - xs[1])),
    Op("where", 2, lambda T, a, b: T.where(a > b, a, b * 2), margin=lambda xs, p: _min_abs(xs[0] - xs[1])),
    Op("matmul_t", 2, lambda T, a, b: a.unsqueeze(-2) @ b.unsqueeze(-1), params=_mm_params),
]


REDUCTIONS = [
    Op("sum", 1, lambda T, x: x.sum()),
    Op("mean", 1, lambda T, x: T.mean(x)),
    Op("norm", 1, lambda T, x: x.norm(), margin=lambda xs, p: float(np.sqrt(np.sum(xs[0] ** 2)))),
    Op("sum_dim", 1, lambda T, x, dim, keepdim: x.sum(dim=dim, keepdim=keepdim), params=_dim_param(True)),
    Op("mean_dim", 1, lambda T, x, dim, keepdim: x.mean(dim, keepdim=keepdim), params=_dim_param(True)),
    Op("prod_dim", 1, lambda T, x, dim, keepdim: x.prod(dim, keepdim=keepdim), params=_dim_param(True)),
    Op("logsumexp", 1, lambda T, x, dim, keepdim: T.logsumexp(x, dim, keepdim=keepdim), params=_dim_param(True)),
    Op("var_dim", 1, lambda T, x, dim, keepdim: x.var(dim, keepdim=keepdim), params=_dim_param(True, 2)),
    Op("std_dim", 1, lambda T, x, dim, keepdim: x.std(dim=dim, keepdim=keepdim), params=_dim_param(True, 2),
       margin=lambda xs, p: float(np.min(np.std(xs[0], axis=_nd(p, xs[0].shape))))),
    Op("norm_dim", 1, lambda T, x, dim, keepdim: x.norm(dim=dim, keepdim=keepdim), params=_dim_param(True),
       margin=lambda xs, p: float(np.min(np.sqrt(np.sum(xs[0] ** 2, axis=_nd(p, xs[0].shape)))))),
    Op("amax", 1, lambda T, x, dim, keepdim: x.amax(dim, keepdim=keepdim), params=_dim_param(True),
       margin=lambda xs, p: _gap_top2(xs[0], _nd(p, xs[0].shape))),
    Op("max_dim", 1, lambda T, x, dim, keepdim: x.max(dim, keepdim=keepdim)[0], params=_dim_param(True),
       margin=lambda xs, p: _gap_top2(xs[0], _nd(p, xs[0].shape))),
    Op("min_dim", 1, lambda T, x, dim, keepdim: T.min(x, dim=dim, keepdim=keepdim).values, params=_dim_param(True),
       margin=lambda xs, p: _gap_top2(xs[0], _nd(p, xs[0].shape), largest=False)),
    Op("max_all", 1, lambda T, x: x.max(), margin=lambda xs, p: _gap_all(xs[0]) if xs[0].size > 1 else np.inf),
    Op("softmax", 1, lambda T, x, dim: x.softmax(dim), params=_dim_param()),
    Op("log_softmax", 1, lambda T, x, dim: F(T).log_softmax(x, dim=dim), params=_dim_param()),
    Op("cumsum", 1, lambda T, x, dim: x.cumsum(dim), params=_dim_param()),
    Op("cumprod", 1, lambda T, x, dim: T.cumprod(x, dim=dim), params=_dim_param()),
]


def _two_dims(draw, shapes):
    shape = shapes[0]
    if len(shape) < 2:
        raise NA
    d0, d1 = draw(st.lists(st.integers(0, len(shape) - 1), min_size=2, max_size=2, unique=True))
    return {"d0": d0, "d1": d1}


def _perm(draw, shapes):
    if len(shapes[0]) < 2:
        raise NA
    return {"perm": tuple(draw(st.permutations(range(len(shapes[0])))))}


def _unsqueeze(draw, shapes):
    return {"dim": draw(st.integers(0, len(shapes[0])))}


def _squeeze(draw, shapes):
    ones = [d for d, s in enumerate(shapes[0]) if s == 1]
    if not ones:
        raise NA
    return {"dim": draw(st.sampled_from(ones))}


def _expand(draw, shapes):
    shape = shapes[0]
    new = tuple(2 if (s == 1 and draw(st.booleans())) else s for s in shape)
    lead = draw(st.integers(0, 1))
    if not new and not lead:  # x.expand() with no size at all is an argument error, not a graph
        raise NA
    return {"size": (2,) * lead + new}


def _slice(draw, shapes):
    shape = shapes[0]
    dims = [d for d in range(len(shape)) if shape[d] >= 2]
    if not dims:
        raise NA
    d = draw(st.sampled_from(dims))
    kind = draw(st.sampled_from(["step", "start", "stop"]))
    sl = {"step": slice(None, None, 2), "start": slice(1, None), "stop": slice(None, -1)}[kind]
    return {"index": (slice(None),) * d + (sl,)}


def _select(draw, shapes):
    shape = shapes[0]
    if not shape:
        raise NA
    d = draw(st.integers(0, len(shape) - 1))
    return {"dim": d, "index": draw(st.integers(-shape[d], shape[d] - 1))}


def _repeated_index(draw, shapes):
    shape = shapes[0]
    if not shape:
        raise NA
    d = draw(st.integers(0, len(shape) - 1))
    idx = draw(st.lists(st.integers(0, shape[d] - 1), min_size=1, max_size=4))
    return {"dim": d, "idx": idx}


def _repeat(draw, shapes):
    shape = shapes[0]
    reps = [draw(st.sampled_from([1, 2])) for _ in shape]
    if draw(st.booleans()):
        reps = [2] + reps
    if not reps:
        reps = [2]
    return {"reps": tuple(reps)}


def _cat_dim(draw, shapes):
    if not shapes[0]:
        raise NA
    return {"dim": draw(st.integers(0, len(shapes[0]) - 1))}


def _stack_dim(draw, shapes):
    return {"dim": draw(st.integers(0, len(shapes[0])))}


def _getitem(T, x, index):
    return x[index]


VIEWS = [
    Op("transpose", 1, lambda T, x, d0, d1: x.transpose(d0, d1), params=_two_dims),
    Op("t", 1, lambda T, x: x.t(), params=_exact_ndim(2)),
    Op("permute", 1, lambda T, x, perm: x.permute(*perm), params=_perm),
    Op("reshape", 1, lambda T, x: x.reshape(-1)),
    Op("contiguous_view", 1, lambda T, x: x.contiguous().view(-1)),
    Op("flatten", 1, lambda T, x: T.flatten(x)),
    Op("unsqueeze", 1, lambda T, x, dim: x.unsqueeze(dim), params=_unsqueeze),
    Op("squeeze", 1, lambda T, x, dim: x.squeeze(dim), params=_squeeze),
    Op("expand", 1, lambda T, x, size: x.expand(*size), params=_expand),
    Op("slice", 1, _getitem, params=_slice),
    Op("select", 1, lambda T, x, dim, index: x.select(dim, index), params=_select),
    Op("flip", 1, lambda T, x, dim: x.flip(dim), params=_cat_dim),
    Op("roll", 1, lambda T, x, dim: x.roll(1, dim), params=_cat_dim),
    Op("index_select", 1, lambda T, x, dim, idx: x.index_select(dim, T.tensor(idx)), params=_repeated_index),
    Op("adv_index", 1, lambda T, x, dim, idx: x[(slice(None),) * dim + (idx,)], params=_repeated_index),
    Op("repeat", 1, lambda T, x, reps: x.repeat(*reps), params=_repeat),
    Op("cat_self", 1, lambda T, x, dim: T.cat([x, x * 2], dim=dim), params=_cat_dim),
    Op("stack_self", 1, lambda T, x, dim: T.stack([x, x.sin()], dim=dim), params=_stack_dim),
    Op("clone", 1, lambda T, x: x.clone()),
]

ALL_OPS = UNARY + BINARY + REDUCTIONS + VIEWS
OPS = {op.name: op for op in ALL_OPS}
assert len(OPS) == len(ALL_OPS)


# --------------------------------------------------------------------------- programs


class Program:
    def __init__(self, input_shapes, steps, outputs, seed):
        self.input_shapes, self.steps, self.outputs, self.seed = input_shapes, steps, outputs, seed

    def __repr__(self):
        lines = [f"inputs {self.input_shapes} seed {self.seed}"]
        n = len(self.input_shapes)
        for k, (name, args, p) in enumerate(self.steps):
            lines.append(f"  t{n + k} = {name}({', '.join(f't{a}' for a in args)}{', ' if p else ''}"
                         f"{', '.join(f'{a}={b!r}' for a, b in p.items())})")
        lines.append(f"  outputs {['t%d' % i for i in self.outputs]}")
        return "\n".join(lines)

    def arrays(self, scale=1.5):
        rng = np.random.RandomState(self.seed)
        return [rng.uniform(-scale, scale, size=s) for s in self.input_shapes]

    def weights(self, outs):
        rng = np.random.RandomState(self.seed + 1)
        return [rng.uniform(-1, 1, size=tuple(o.shape)) for o in outs]


def _shape_of(op, shapes, p):
    """Run the op on zeros to learn the output shape (or that it does not apply)."""
    with gv.no_grad():
        xs = [gv.zeros(*s, dtype=gv.float64) if s else gv.tensor(0.0, dtype=gv.float64) for s in shapes]
        return tuple(op.fn(gv, *xs, **p).shape)


@st.composite
def programs(draw, ops=ALL_OPS, max_steps=8, max_inputs=3, max_numel=MAX_NUMEL):
    ndim = draw(st.integers(0, 3))
    base = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    shapes = []
    for _ in range(draw(st.integers(1, max_inputs))):  # broadcast-compatible variants of base
        s = tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in base)
        s = s[draw(st.integers(0, len(s))) if s and draw(st.integers(0, 3)) == 0 else 0:]
        shapes.append(s)
    pool = list(shapes)
    steps = []
    for _ in range(draw(st.integers(1, max_steps))):
        op = draw(st.sampled_from(ops))
        last = len(pool) - 1
        if op.arity == 1:  # mostly the newest tensor, so that chains grow deep
            args = [draw(st.one_of(st.just(last), st.integers(0, last)))]
        else:
            pairs = [(i, j) for i in range(len(pool)) for j in range(len(pool)) if _broadcastable(pool[i], pool[j])]
            newest = [pr for pr in pairs if last in pr]
            args = list(draw(st.one_of(st.sampled_from(newest), st.sampled_from(pairs))))
        try:
            p = op.params(draw, [pool[a] for a in args])
            out = _shape_of(op, [pool[a] for a in args], p)
        except NA:
            continue
        if int(np.prod(out)) > max_numel or len(out) > 4:
            continue
        steps.append((op.name, args, p))
        pool.append(out)
    n_out = draw(st.integers(1, 2))
    outputs = list(range(len(pool) - 1, max(len(pool) - 1 - n_out, -1), -1))
    return Program(shapes, steps, outputs, draw(st.integers(0, 2 ** 31 - 1)))


def run(T, prog, inputs, margins=None, errors=None):
    """Build the program's graph with library T; returns the output tensors.

    margins: a list that receives each op's distance to its nearest kink.
    errors: when a list, an op that raises is recorded as (step, type, message) and ends the run."""
    pool = list(inputs)
    for k, (name, args, p) in enumerate(prog.steps):
        op = OPS[name]
        xs = [pool[a] for a in args]
        if margins is not None and op.margin is not None:
            margins.append(op.margin([x.detach().double().numpy() for x in xs], p))
        if errors is None:
            pool.append(op.fn(T, *xs, **p))
            continue
        try:
            pool.append(op.fn(T, *xs, **p))
        except Exception as e:  # noqa: BLE001 - compared with PyTorch's
            errors.append((k, type(e).__name__, str(e)))
            return None
    return [pool[i] for i in prog.outputs]


def loss_of(T, outs, ws):
    total = None
    for o, w in zip(outs, ws):
        term = (o * T.tensor(w, dtype=o.dtype)).sum()
        total = term if total is None else total + term
    return total


def leaves(T, prog, arrays, dtypes=None, requires_grad=True, from_list=False):
    """The input tensors, made from numpy arrays or (from_list) from nested Python lists."""
    dtypes = dtypes or ["float64"] * len(arrays)
    return [T.tensor(np.asarray(a).tolist() if from_list else a, dtype=getattr(T, d), requires_grad=requires_grad)
            for a, d in zip(arrays, dtypes)]


def node_names(root):
    """Multiset of the names of every backward node reachable from root."""
    names, seen, stack = [], set(), [root.grad_fn] if root.grad_fn is not None else []
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        names.append(type(fn).__name__)
        stack.extend(n for n, _ in fn.next_functions if n is not None)
    return sorted(names)


def _np(t):
    if t is None:
        return None
    if getattr(t, "_is_zerotensor", lambda: False)():  # PyTorch's efficient zeros have no storage
        return np.zeros(tuple(t.shape))
    return t.detach().double().numpy()


# --------------------------------------------------------------------------- 1a. finite differences


def fd_gradient(prog, arrays, ws, eps=1e-6):
    def f(arrs):
        with gv.no_grad():
            outs = run(gv, prog, leaves(gv, prog, arrs, requires_grad=False))
            return loss_of(gv, outs, ws).item()

    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros(a.shape)
        flat, gflat = a.reshape(-1), g.reshape(-1)
        for k in range(flat.size):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[i].reshape(-1)[k] += eps
            minus[i].reshape(-1)[k] -= eps
            gflat[k] = (f(plus) - f(minus)) / (2 * eps)
        grads.append(g)
    return grads


MARGIN = 1e-2
BIG = 1e4


@_settings(500)
@given(programs())
@pytest.mark.slow
def test_gradients_match_finite_differences(prog):
    note(repr(prog))
    arrays = prog.arrays()
    xs = leaves(gv, prog, arrays)
    margins = []
    outs = run(gv, prog, xs, margins=margins)
    assume(all(m > MARGIN for m in margins))
    vals = [_np(o) for o in outs]
    assume(all(np.all(np.isfinite(v)) and np.max(np.abs(v), initial=0) < BIG for v in vals))
    ws = prog.weights(outs)
    L = loss_of(gv, outs, ws)
    if not L.requires_grad:  # e.g. only constant ops: then nothing depends on the inputs
        return
    grads = gv.autograd.grad(L, xs, allow_unused=True)
    numeric = fd_gradient(prog, arrays, ws)
    for i, (g, n) in enumerate(zip(grads, numeric)):
        got = np.zeros_like(n) if g is None else _np(g)
        assert got.shape == n.shape, (i, got.shape, n.shape)
        scale = 1.0 + float(np.max(np.abs(n), initial=0))
        assert np.allclose(got, n, rtol=1e-4, atol=1e-5 * scale), f"input {i}:\nanalytic\n{got}\nnumeric\n{n}"


# --------------------------------------------------------------------------- 1b. against PyTorch


def _tols(dtype_names):
    return (1e-4, 1e-5) if "float32" in dtype_names else (1e-9, 1e-11)


def _close(a, b, rtol, atol):
    return a.shape == b.shape and np.allclose(a, b, rtol=rtol, atol=atol * (1 + np.max(np.abs(b), initial=0)),
                                              equal_nan=True)


@needs_torch
@_settings(1000)
@given(programs(), st.data())
@pytest.mark.slow
def test_graphs_match_pytorch(prog, data):
    dtypes = [data.draw(st.sampled_from(["float32", "float64"]), label=f"dtype{i}")
              for i in range(len(prog.input_shapes))]
    from_list = data.draw(st.booleans(), label="inputs from Python lists")
    note(repr(prog))
    arrays = prog.arrays()
    rtol, atol = _tols(dtypes)
    margins = []
    xg = leaves(gv, prog, arrays, dtypes, from_list=from_list)
    xt = leaves(real_torch, prog, arrays, dtypes, from_list=from_list)
    eg, et = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        og = run(gv, prog, xg, margins=margins, errors=eg)
        ot = run(real_torch, prog, xt, errors=et)
    assert eg == et, f"errors differ:\n gradviz: {eg}\n torch:   {et}"
    if ot is None:
        return
    if "float32" in dtypes:  # float32 rounding may move a value across a kink
        assume(all(m > MARGIN for m in margins))
    else:  # exact ties are kept (both must pick the same subgradient); near-ties are not
        assume(all(m == 0 or m > 1e-9 for m in margins))
    for k, (a, b) in enumerate(zip(og, ot)):
        assert str(a.dtype) == str(b.dtype), (k, a.dtype, b.dtype)
        assert tuple(a.shape) == tuple(b.shape), (k, a.shape, b.shape)
        assert _close(_np(a), _np(b), rtol, atol), f"output {k}:\n{_np(a)}\n{_np(b)}"
        assert (a.requires_grad, a.is_leaf) == (b.requires_grad, b.is_leaf), k
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__, k
    ws = prog.weights(ot)
    Lg, Lt = loss_of(gv, og, ws), loss_of(real_torch, ot, ws)
    assert node_names(Lg) == node_names(Lt)
    if not Lt.requires_grad:
        return
    assume(np.isfinite(Lt.item()))
    Lg.backward()
    Lt.backward()
    for i, (a, b) in enumerate(zip(xg, xt)):
        assert (a.grad is None) == (b.grad is None), i
        if b.grad is not None:
            assert str(a.grad.dtype) == str(b.grad.dtype), (i, a.grad.dtype, b.grad.dtype)
            assert _close(_np(a.grad), _np(b.grad), rtol, atol), f"grad {i}:\n{_np(a.grad)}\n{_np(b.grad)}"


# --------------------------------------------------------------------------- 2. double backward


SMALL = dict(max_steps=4, max_inputs=2, max_numel=8)


def _second_order(T, prog, arrays, ups, ws):
    """First-order grads (create_graph) and the gradient of <grads, w> w.r.t. inputs and upstream."""
    xs = leaves(T, prog, arrays)
    outs = run(T, prog, xs)
    vs = [T.tensor(u, dtype=o.dtype, requires_grad=True) for u, o in zip(ups, outs)]
    live = [(o, v) for o, v in zip(outs, vs) if o.requires_grad]
    if not live:
        return None
    g1 = T.autograd.grad([o for o, _ in live], xs, [v for _, v in live], create_graph=True, allow_unused=True)
    terms = [(g * T.tensor(w, dtype=g.dtype)).sum() for g, w in zip(g1, ws) if g is not None]
    s = terms[0]
    for t in terms[1:]:
        s = s + t
    flags = [None if g is None else g.requires_grad for g in g1]
    if not s.requires_grad:
        return g1, flags, None
    g2 = T.autograd.grad(s, xs + [v for _, v in live], allow_unused=True)
    return g1, flags, g2


@needs_torch
@_settings(300)
@given(programs(**SMALL))
@pytest.mark.slow
def test_double_backward_matches_pytorch_and_gradgradcheck(prog):
    note(repr(prog))
    arrays = prog.arrays()
    margins = []
    with gv.no_grad():
        outs = run(gv, prog, leaves(gv, prog, arrays, requires_grad=False), margins=margins)
    assume(all(m > MARGIN for m in margins))
    vals = [_np(o) for o in outs]
    assume(all(np.all(np.isfinite(v)) and np.max(np.abs(v), initial=0) < 1e3 for v in vals))
    rng = np.random.RandomState(prog.seed + 2)
    ups = [rng.uniform(-1, 1, size=tuple(o.shape)) for o in outs]
    ws = [rng.uniform(-1, 1, size=s) for s in prog.input_shapes]

    # the numbers
    rg, rt = _second_order(gv, prog, arrays, ups, ws), _second_order(real_torch, prog, arrays, ups, ws)
    assert (rg is None) == (rt is None)
    if rt is not None:
        g1g, flags_g, g2g = rg
        g1t, flags_t, g2t = rt
        assert flags_g == flags_t, "first-order grads require grad differently"
        for a, b in zip(g1g, g1t):
            assert (a is None) == (b is None)
            if b is not None:
                assert _close(_np(a), _np(b), 1e-9, 1e-11), f"{_np(a)}\n{_np(b)}"
        assert (g2g is None) == (g2t is None)
        for i, (a, b) in enumerate(zip(g2g or (), g2t or ())):
            assert (a is None) == (b is None), f"second-order grad {i} presence"
            if b is not None:
                assert _close(_np(a), _np(b), 1e-8, 1e-10), f"second-order grad {i}:\n{_np(a)}\n{_np(b)}"

    # the verdicts
    def check(T, fn):
        xs = leaves(T, prog, arrays)
        o = run(T, prog, xs)
        if not any(t.requires_grad for t in o):
            return "constant"
        gos = [T.tensor(u, dtype=t.dtype, requires_grad=True) for u, t in zip(ups, o)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lambda *a: tuple(run(T, prog, a)), xs, gos, raise_exception=False)

    verdict_g = check(gv, gv.autograd.gradgradcheck)
    verdict_t = check(real_torch, real_torch.autograd.gradgradcheck)
    assert verdict_g == verdict_t


FIRST_DERIVATIVES = {  # f, f' written so that f' does not depend on x through autograd
    "exp": (lambda x: x.exp(), lambda x: x.exp()),
    "sin": (lambda x: x.sin(), lambda x: x.cos()),
    "tanh": (lambda x: x.tanh(), lambda x: 1 - x.tanh() ** 2),
    "cube": (lambda x: x ** 3, lambda x: 3 * x ** 2),
    "linear": (lambda x: x * 2, lambda x: x * 0 + 2),
}


def _detaching_function(T, name):
    f, df = FIRST_DERIVATIVES[name]

    class Detaching(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return f(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * df(x.detach())  # right first order; the second order is lost

    return Detaching


@needs_torch
@_settings(25)
@given(st.sampled_from(sorted(FIRST_DERIVATIVES)), st.lists(st.integers(1, 3), min_size=0, max_size=2),
       st.integers(0, 2 ** 31 - 1))
def test_gradgradcheck_verdicts_agree_on_a_detaching_backward(name, shape, seed):
    a = np.random.RandomState(seed).uniform(-1, 1, size=tuple(shape))
    verdicts = []
    for T in (gv, real_torch):
        x = T.tensor(a, dtype=T.float64, requires_grad=True)
        fn = _detaching_function(T, name).apply
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            verdicts.append((T.autograd.gradcheck(fn, (x,), raise_exception=False),
                             T.autograd.gradgradcheck(fn, (x,), raise_exception=False)))
    assert verdicts[0] == verdicts[1], verdicts
    assert verdicts[1][0] is True
    assert verdicts[1][1] is (name == "linear")


# --------------------------------------------------------------------------- 3. in-place sequences


N = 4  # every tensor of these sequences has shape (4,)

NEW_OPS = {
    "mul": lambda T, x, y: x * y,
    "exp": lambda T, x, y: x.exp(),
    "sin": lambda T, x, y: T.sin(x),
    "add": lambda T, x, y: x + 1,
    "sigmoid": lambda T, x, y: x.sigmoid(),
    "pow": lambda T, x, y: x.pow(2),
    "div": lambda T, x, y: x / (y * y + 1),
    "clone": lambda T, x, y: x.clone(),
}

VIEW_OPS = {
    "slice_all": lambda T, x: x[:],
    "view": lambda T, x: x.view(2, 2).view(N),
    "unsqueeze_squeeze": lambda T, x: x.unsqueeze(0).squeeze(0),
    "detach": lambda T, x: x.detach(),
    "data": lambda T, x: x.data,
    "narrow": lambda T, x: x.narrow(0, 0, N),
}

INPLACE_OPS = {
    "add_": lambda T, x, y: x.add_(1.5),
    "add_t": lambda T, x, y: x.add_(y),
    "mul_": lambda T, x, y: x.mul_(2.0),
    "mul_t": lambda T, x, y: x.mul_(y),
    "sub_": lambda T, x, y: x.sub_(y, alpha=0.5),
    "div_": lambda T, x, y: x.div_(4.0),
    "zero_": lambda T, x, y: x.zero_(),
    "fill_": lambda T, x, y: x.fill_(0.25),
    "copy_": lambda T, x, y: x.copy_(y),
    "clamp_": lambda T, x, y: x.clamp_(-1.0, 1.0),
    "exp_": lambda T, x, y: x.exp_(),
    "sigmoid_": lambda T, x, y: x.sigmoid_(),
    "iadd": lambda T, x, y: operator.iadd(x, y),
    "imul": lambda T, x, y: operator.imul(x, 3.0),
    "setitem": lambda T, x, y: x.__setitem__(1, 7.0),
    "setitem_slice": lambda T, x, y: x.__setitem__(slice(1, 3), y[:2]),
    "setitem_mask": lambda T, x, y: x.__setitem__(x > 0, 0.0),
    "slice_mul_": lambda T, x, y: x[2:].mul_(0.5),
    "select_add_": lambda T, x, y: x[0].add_(1.0),
}

step_strategy = st.one_of(
    st.tuples(st.just("new"), st.sampled_from(sorted(NEW_OPS)), st.integers(0, 99), st.integers(0, 99),
              st.booleans()),
    st.tuples(st.just("view"), st.sampled_from(sorted(VIEW_OPS)), st.integers(0, 99), st.just(0), st.booleans()),
    st.tuples(st.just("inplace"), st.sampled_from(sorted(INPLACE_OPS)), st.integers(0, 99), st.integers(0, 99),
              st.booleans()),
    st.tuples(st.just("backward"), st.just(""), st.integers(0, 99), st.just(0), st.booleans()),
)


def _outcome(fn):
    try:
        fn()
        return None
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return (type(e).__name__, str(e))


def run_inplace(T, steps, seed):
    """Run one sequence with library T; returns the log of what happened."""
    rng = np.random.RandomState(seed)
    a0, c0 = rng.uniform(-2, 2, N).round(3), rng.uniform(-2, 2, N).round(3)
    pool = [T.tensor(a0, dtype=T.float32, requires_grad=True), T.tensor(c0, dtype=T.float32)]
    pool.append(pool[0] * 1.5)  # a non-leaf from the start
    log = []
    for kind, name, i, j, flag in steps:
        x, y = pool[i % len(pool)], pool[j % len(pool)]
        if kind == "new":
            box = []
            ctx = T.no_grad() if flag else _null()
            with ctx:
                out = _outcome(lambda: box.append(NEW_OPS[name](T, x, y)))
            pool.extend(box)
        elif kind == "view":
            box = []
            with (T.no_grad() if flag else _null()):
                out = _outcome(lambda: box.append(VIEW_OPS[name](T, x)))
            pool.extend(box)
        elif kind == "inplace":
            with (T.no_grad() if flag else _null()):
                out = _outcome(lambda: INPLACE_OPS[name](T, x, y))
        else:  # backward through x.sum(), keeping the graph or not
            out = _outcome(lambda: x.sum().backward(retain_graph=flag))
        log.append((kind, name, out))
    for k, t in enumerate(pool):  # finally: backward from every tensor that requires grad
        if t.requires_grad:
            log.append(("final backward", k, _outcome(lambda: t.sum().backward(retain_graph=True))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, t in enumerate(pool):
            log.append(("state", k, t.detach().tolist(), _read(lambda: t.requires_grad), _read(lambda: t.is_leaf),
                        _read(lambda: type(t.grad_fn).__name__ if t.grad_fn is not None else None),
                        t._version, _read(lambda: None if not t.is_leaf or t.grad is None else t.grad.tolist())))
    return log


def _read(fn):
    """An attribute's value, or the error reading it raised (PyTorch raises, for instance,
    when reading grad_fn of a no_grad view whose base was modified in place)."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return ("raised", type(e).__name__, str(e))


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _first_difference(lg, lt):
    for k, (a, b) in enumerate(zip(lg, lt)):
        if a[0] == "state" and b[0] == "state":
            grads_same = (a[7] == b[7] if a[7] is None or b[7] is None or isinstance(a[7], tuple)
                          or isinstance(b[7], tuple)
                          else np.allclose(a[7], b[7], rtol=1e-4, atol=1e-5, equal_nan=True))
            same = (a[3:7] == b[3:7] and np.allclose(a[2], b[2], rtol=1e-4, atol=1e-5, equal_nan=True)
                    and grads_same)
        else:
            same = a == b
        if not same:
            return k, a, b
    if len(lg) != len(lt):
        return min(len(lg), len(lt)), lg[len(lt):], lt[len(lg):]
    return None


@needs_torch
@_settings(1500)
@given(st.lists(step_strategy, min_size=1, max_size=8), st.integers(0, 2 ** 31 - 1))
@pytest.mark.slow
def test_inplace_sequences_raise_exactly_when_pytorch_does(steps, seed):
    note(repr(steps))
    lg = run_inplace(gv, steps, seed)
    lt = run_inplace(real_torch, steps, seed)
    diff = _first_difference(lg, lt)
    assert diff is None, "first difference at entry %d:\n gradviz: %r\n torch:   %r" % diff
