"""Every differentiable op of issues 2 and 3, run on gradviz.torch and on real PyTorch.

Each op expression is one Case in ``oracle.OP_CASES`` and gets its own test ids:
forward values/dtypes/shapes, the grad_fn graph (every node reachable through
next_functions, with is_leaf/requires_grad of the outputs), reprs, gradients from
backward with a random upstream gradient, and double backward (create_graph=True,
then the gradient of a scalar function of the gradients w.r.t. the inputs and the
upstream gradients). Skipped when real torch is not importable.
"""
import pytest

import oracle

pytest.importorskip("torch")

IDS = [c.name for c in oracle.OP_CASES]
GRAD_IDS = [c.name for c in oracle.GRAD_CASES]
DOUBLE = [c for c in oracle.GRAD_CASES if c.double]


@pytest.mark.parametrize("case", oracle.OP_CASES, ids=IDS)
def test_forward(case):
    oracle.check_forward(case)


@pytest.mark.parametrize("case", oracle.OP_CASES, ids=IDS)
def test_graph(case):
    oracle.check_graph(case)


@pytest.mark.parametrize("case", oracle.OP_CASES, ids=IDS)
def test_repr(case):
    oracle.check_repr(case)


@pytest.mark.parametrize("case", oracle.GRAD_CASES, ids=GRAD_IDS)
def test_backward(case):
    oracle.check_backward(case)


@pytest.mark.parametrize("case", DOUBLE, ids=[c.name for c in DOUBLE])
def test_double_backward(case):
    oracle.check_double_backward(case)


@pytest.mark.parametrize("case", DOUBLE, ids=[c.name for c in DOUBLE])
def test_double_backward_const_upstream(case):
    """As above with an upstream gradient that does not require grad (the usual
    Hessian / gradient-penalty pattern): the first-order grads must require grad
    exactly when torch's do."""
    oracle.check_double_backward(case, upstream_rg=False)


@pytest.mark.parametrize("case", oracle.OP_CASES, ids=IDS)
def test_saved_names(case):
    oracle.check_saved_names(case)


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "relu"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_first_order_gradient_node_is_pytorchs(name, dtype):
    """The gradient made with create_graph hangs on the node PyTorch's does (TanhBackwardBackward0...),
    with its saved slots, edges and values."""
    import numpy as np
    import torch
    import gradviz.torch as gv
    values = np.array([0.5, -0.3, 2.0], dtype=dtype)
    seen = []
    for T in (gv, torch):
        x = T.tensor(values, requires_grad=True)
        upstream = T.tensor(values[::-1].copy(), requires_grad=True)
        grad, = T.autograd.grad(getattr(T, name)(x), x, upstream, create_graph=True)
        node = grad.grad_fn
        saved = {attr: getattr(node, attr).detach().numpy() for attr in ("_saved_grad_output", "_saved_output",
                                                                            "_saved_self", "_saved_threshold")
                 if hasattr(node, attr) and isinstance(getattr(node, attr), T.Tensor)}
        second = T.autograd.grad(grad.sum(), (x, upstream))
        seen.append((node.name(), [fn.name() if fn is not None else None for fn, _ in node.next_functions],
                     saved, grad.detach().numpy(), [g.numpy() for g in second]))
    ours, theirs = seen
    assert ours[:2] == theirs[:2]
    assert ours[2].keys() == theirs[2].keys()
    for key in theirs[2]:  # numpy's tanh may differ from PyTorch's in the last bit
        np.testing.assert_allclose(ours[2][key], theirs[2][key], rtol=1e-6)
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-6)
    for a, b in zip(ours[4], theirs[4]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
