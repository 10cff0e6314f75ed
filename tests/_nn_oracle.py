"""Helpers for the nn / optim tests: run one lambda on gradviz and on real PyTorch, and
check gradients against float64 central finite differences (gradviz alone)."""
from types import SimpleNamespace

import numpy as np

import gradviz.torch as gt
import gradviz.torch.nn as gnn
import gradviz.torch.nn.functional as gF

G = SimpleNamespace(torch=gt, nn=gnn, F=gF, name="gradviz")


def lib(torch):
    return SimpleNamespace(torch=torch, nn=torch.nn, F=torch.nn.functional, name="torch")


def chain(t, depth=6):
    """The grad_fn graph as a nested string of node names (None for empty edges)."""
    def walk(fn, d):
        if fn is None:
            return "None"
        if d > depth:
            return "..."
        inner = ", ".join(walk(n, d + 1) for n, _ in fn.next_functions)
        return f"{fn.name()}({inner})"
    return walk(t.grad_fn, 0)


def make(L, arrays, grad_mask):
    out = []
    for a, g in zip(arrays, grad_mask):
        if isinstance(a, np.ndarray):
            out.append(L.torch.tensor(a, requires_grad=bool(g)))
        else:
            out.append(a)
    return out


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def run_both(torch, fn, arrays, grad_mask=None, rtol=1e-5, atol=1e-6, check_chain=True, seed=0):
    """fn(L, *inputs) on both libraries: values, grad_fn graphs and input gradients agree."""
    grad_mask = grad_mask if grad_mask is not None else [isinstance(a, np.ndarray) and a.dtype.kind == "f"
                                                         for a in arrays]
    T = lib(torch)
    gi, ti = make(G, arrays, grad_mask), make(T, arrays, grad_mask)
    go, to = _outputs(fn(G, *gi)), _outputs(fn(T, *ti))
    assert len(go) == len(to)
    rng = np.random.default_rng(seed)
    g_roots, t_roots = [], []
    for g, t in zip(go, to):
        np.testing.assert_allclose(_np(g), _np(t), rtol=rtol, atol=atol)
        assert str(g.dtype) == str(t.dtype)
        if check_chain:
            assert chain(g) == chain(t)
        if t.requires_grad:
            v = rng.standard_normal(tuple(t.shape)).astype(_np(t).dtype)
            g_roots.append((g * gt.tensor(v)).sum())
            t_roots.append((t * torch.tensor(v)).sum())
    if t_roots:
        sum(g_roots).backward()
        sum(t_roots).backward()
        for g, t in zip(gi, ti):
            if hasattr(t, "requires_grad") and t.requires_grad:
                assert (g.grad is None) == (t.grad is None)
                if t.grad is not None:
                    np.testing.assert_allclose(_np(g.grad), _np(t.grad), rtol=rtol * 10, atol=atol * 10)
    return gi, ti, go, to


# ---------------------------------------------------------------------------------------
# finite differences (float64, gradviz only)
def _scalar(fn, inputs, weights):
    outs = _outputs(fn(G, *inputs))
    return sum((o * gt.tensor(w)).sum() for o, w in zip(outs, weights) if o.dtype.is_floating_point)


def _numeric(f, arrays, index, eps):
    base = arrays[index]
    grad = np.zeros_like(base)
    flat, gflat = base.reshape(-1), grad.reshape(-1)
    for j in range(flat.size):
        old = flat[j]
        flat[j] = old + eps
        hi = f(arrays)
        flat[j] = old - eps
        lo = f(arrays)
        flat[j] = old
        gflat[j] = (hi - lo) / (2 * eps)
    return grad


def fd_check(fn, arrays, grad_mask=None, double=True, eps=1e-6, rtol=1e-4, atol=1e-6, seed=0):
    """First-order (and with ``double`` second-order) gradients against central differences."""
    arrays = [a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in arrays]
    grad_mask = grad_mask if grad_mask is not None else [isinstance(a, np.ndarray) and a.dtype.kind == "f"
                                                         for a in arrays]
    diff = [i for i, m in enumerate(grad_mask) if m]
    rng = np.random.default_rng(seed)
    with gt.no_grad():
        outs = _outputs(fn(G, *make(G, arrays, [False] * len(arrays))))
    weights = [rng.standard_normal(tuple(o.shape)) for o in outs]

    def value(arrs):
        with gt.no_grad():
            return float(_scalar(fn, make(G, arrs, [False] * len(arrs)), weights))

    def first(arrs, create_graph):
        inputs = make(G, arrs, grad_mask)
        grads = gt.autograd.grad(_scalar(fn, inputs, weights), [inputs[i] for i in diff], create_graph=create_graph,
                                 allow_unused=True)
        return inputs, [g if g is not None else gt.zeros_like(inputs[i]) for g, i in zip(grads, diff)]

    _, grads = first(arrays, False)
    for g, i in zip(grads, diff):
        np.testing.assert_allclose(g.numpy(), _numeric(value, arrays, i, eps), rtol=rtol, atol=atol,
                                   err_msg=f"first-order gradient of input {i}")
    if not double:
        return
    second_w = [rng.standard_normal(tuple(g.shape)) for g in grads]

    def first_dot(arrs):
        _, gs = first(arrs, False)
        return float(sum((g.detach().numpy() * w).sum() for g, w in zip(gs, second_w)))

    inputs, gs = first(arrays, True)
    s = sum((g * gt.tensor(w)).sum() for g, w in zip(gs, second_w) if g.requires_grad)
    if not isinstance(s, gt.Tensor):  # gradient constant in the inputs: second derivative is zero
        seconds = [None] * len(diff)
    else:
        seconds = gt.autograd.grad(s, [inputs[i] for i in diff], allow_unused=True)
    for g2, i in zip(seconds, diff):
        expected = _numeric(first_dot, arrays, i, eps * 100)
        got = np.zeros_like(expected) if g2 is None else g2.numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-5, err_msg=f"second-order gradient of input {i}")
