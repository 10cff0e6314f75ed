"""AccumulateGrad takes a first gradient without a copy only when nothing else holds it.

PyTorch's AccumulateGrad steals a gradient no one else uses; ours does the same on the
array backward path (a fresh product, a fresh sum), and copies one that a user, a view,
another leaf or another pending node still holds. What a user can see is checked: each
``.grad`` has its own memory (writing to it changes nothing else), and values match
PyTorch's, bit for bit.
"""
import itertools

import numpy as np
import pytest

import gradviz.torch as T

torch = pytest.importorskip("torch")


def _graphs():
    """name -> fn(lib, leaves, upstream) returning the tensor to call backward on with
    ``upstream`` (None: a scalar root)."""
    return {
        "mm_with_given_gradient": lambda L, a, b, g: (L.mm(a, b), g),
        "add_passes_the_users_gradient_to_both": lambda L, a, b, g: (a + b, g),
        "add_passes_one_fresh_gradient_to_both": lambda L, a, b, g: ((a + b) * 3.0, g),
        "a_leaf_and_a_node_share_a_gradient": lambda L, a, b, g: ((a * 2.0 + b) * 3.0, g),
        "a_view_and_a_leaf_share_a_gradient": lambda L, a, b, g: ((a.reshape(-1).reshape(a.shape) + b) * 3.0, g),
        "transposed_mm_gradient": lambda L, a, b, g: (L.mm(a.t(), b.t()).t() * 1.0, g.t()),
        "leaf_used_twice": lambda L, a, b, g: (a * a + b, g),
        "scalar_root": lambda L, a, b, g: ((L.mm(a, b) * 2.0).sum(), None),
    }


@pytest.mark.parametrize("name", list(_graphs()))
@pytest.mark.parametrize("seed", range(3))
def test_each_grad_owns_its_memory_and_matches_pytorch(name, seed):
    rng = np.random.default_rng(seed)
    a_np = rng.standard_normal((4, 4)).astype(np.float32)
    b_np = rng.standard_normal((4, 4)).astype(np.float32)
    g_np = rng.standard_normal((4, 4)).astype(np.float32)
    build = _graphs()[name]
    results = {}
    for lib in (T, torch):
        a, b = lib.tensor(a_np, requires_grad=True), lib.tensor(b_np, requires_grad=True)
        upstream = lib.tensor(g_np)
        root, gradient = build(lib, a, b, upstream)
        root.backward(gradient)
        results[lib] = (a, b, upstream, root)
    a, b, upstream, root = results[T]
    ta, tb, _, _ = results[torch]
    # products round as each library's BLAS does; everything else is bit for bit
    compare = (lambda x, y: np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)) if "mm" in name or (
        "root" in name) else np.testing.assert_array_equal
    compare(a.grad.numpy(), ta.grad.numpy())
    compare(b.grad.numpy(), tb.grad.numpy())
    arrays = [a.grad._data, b.grad._data, upstream._data, root._data, a._data, b._data]
    for x, y in itertools.combinations(range(len(arrays)), 2):
        if x < 2:  # a gradient shares memory with nothing else
            assert not np.shares_memory(arrays[x], arrays[y]), (x, y)
    before = [arr.copy() for arr in arrays[1:]]
    a.grad.add_(1.0)  # writing to one .grad leaves every other array alone
    for arr, old in zip(arrays[1:], before):
        np.testing.assert_array_equal(arr, old)


def test_second_backward_adds_into_the_taken_buffer_in_place():
    a = T.tensor(np.eye(3, dtype=np.float32), requires_grad=True)
    b = T.tensor(np.full((3, 3), 2.0, dtype=np.float32), requires_grad=True)
    T.mm(a, b).sum().backward()
    first = a.grad
    T.mm(a, b).sum().backward()
    assert a.grad is first  # accumulated in place, as PyTorch does
    np.testing.assert_array_equal(a.grad.numpy(), np.full((3, 3), 12.0, dtype=np.float32))
