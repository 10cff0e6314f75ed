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
