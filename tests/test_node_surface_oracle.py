"""What a grad_fn shows of itself, against real PyTorch: dir() (tutorials print it to find
``_saved_self``), and xlogy's three overloads with their nodes and gradients (a number on
either side is ATen's Scalar_Self / Scalar_Other, each with its own node and formula)."""
import numpy as np
import pytest

import gradviz.torch as G

torch = pytest.importorskip("torch")

GRAPHS = {
    "mul": lambda T, x, y: x * y, "mul by a number": lambda T, x, y: x * 2.5, "sum": lambda T, x, y: x.sum(),
    "tanh": lambda T, x, y: x.tanh(), "mm": lambda T, x, y: x.view(2, 2) @ y.view(2, 2),
    "softmax": lambda T, x, y: T.softmax(x, 0), "pow": lambda T, x, y: x ** 3, "index": lambda T, x, y: x[1:3],
    "mean over a dim": lambda T, x, y: x.view(2, 2).mean(1), "cat": lambda T, x, y: T.cat([x, y]),
    "xlogy": lambda T, x, y: T.xlogy(x, y), "xlogy by a number": lambda T, x, y: T.xlogy(x, 2.0),
    "xlogy of a number": lambda T, x, y: T.xlogy(2.0, y),
}


def _graph(module, name, seed):
    rs = np.random.RandomState(seed)
    x = module.tensor(np.float32([0.0, 0.5, 2.0, 3.0]) if "xlogy" in name else rs.rand(4).astype(np.float32),
                      requires_grad=True)
    y = module.tensor(np.float32([2.0, 3.0, -1.0, 0.5]), requires_grad=True)
    return x, y, GRAPHS[name](module, x, y)


@pytest.mark.parametrize("name", GRAPHS)
def test_dir_of_grad_fn(name):
    theirs = _graph(torch, name, 0)[2].grad_fn
    ours = _graph(G, name, 0)[2].grad_fn
    assert type(ours).__name__ == type(theirs).__name__
    assert dir(ours) == dir(theirs)


@pytest.mark.parametrize("name", [n for n in GRAPHS if "xlogy" in n])
@pytest.mark.parametrize("seed", range(3))
def test_xlogy_overloads(name, seed):
    results = []
    for module in (torch, G):
        x, y, out = _graph(module, name, seed)
        inputs = [t for t in (x, y) if t.requires_grad]
        grads = module.autograd.grad(out.sum(), inputs, create_graph=True, allow_unused=True)
        results.append((str(out.dtype), out.detach().numpy().tolist(),
                        [None if g is None else (g.detach().numpy().tolist(), type(g.grad_fn).__name__)
                         for g in grads]))
    np.testing.assert_equal(results[1], results[0])


def _where_conditions(root):
    """The saved condition shapes of every WhereBackward0 under ``root``, walked with a stack."""
    shapes, stack, seen = [], [root], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if node.name() == "WhereBackward0":
            shapes += [tuple(slot.shape) for key, slot in node.saved_items() if key == "condition"]
        stack += [fn for fn, _ in node.next_functions]
    return sorted(shapes)


def test_freed_slots_keep_their_own_shapes():
    """GeneralizedPareto's log_prob of a sample makes where() nodes of one site and facts
    whose saved conditions differ in shape: after backward each freed condition keeps its own
    shape (what the snapshot's "freed" shows), as before it."""
    G.manual_seed(3)
    scale = G.tensor([1.0, 0.5], requires_grad=True)
    shape = G.tensor([0.25, 0.0], requires_grad=True)
    tail = G.distributions.GeneralizedPareto(G.tensor(2.0), scale, shape)
    log_prob = tail.log_prob(tail.rsample((5,)))
    before = _where_conditions(log_prob.grad_fn)
    log_prob.sum().backward()
    assert (5, 2) in before and _where_conditions(log_prob.grad_fn) == before
