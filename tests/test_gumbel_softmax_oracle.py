"""F.gumbel_softmax against PyTorch 2.13: the same exponential_ draws after manual_seed (bit
for bit), the same graph (node names down the chain), the same one-hot for hard=True and
values to the rounding of log (PyTorch's float32 log is MKL's VML, a last-bit away from the
engine's on some inputs), and the eps deprecation warning verbatim."""
import warnings

import numpy as np
import pytest

import gradviz.torch as gt
import gradviz.torch.nn.functional as gF


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("lambd", [1.0, 0.3, 7.5])
@pytest.mark.parametrize("seed", [0, 1, 123])
def test_exponential_stream_bit_exact(torch, dtype, lambd, seed):
    draws = []
    for T in (gt, torch):
        T.manual_seed(seed)
        first = T.empty(5, 7, dtype=getattr(T, dtype)).exponential_(lambd)
        second = T.empty(300, dtype=getattr(T, dtype)).exponential_()
        draws.append((first.numpy().copy(), second.numpy().copy()))
    for ours, theirs in zip(*draws):
        np.testing.assert_array_equal(ours, theirs)


def _chain(tensor):
    names, node = [], tensor.grad_fn
    while node is not None:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def _gumbel(T, F, seed, shape, tau, hard, dim):
    T.manual_seed(seed)
    logits = T.randn(*shape, requires_grad=True)
    out = F.gumbel_softmax(logits, tau=tau, hard=hard, dim=dim)
    (out * T.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
    return out, logits.grad


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("seed, shape, tau, dim", [(0, (4, 6), 1, -1), (1, (3, 5, 2), 0.5, 1), (7, (8,), 2.0, 0)])
def test_gumbel_softmax_matches(torch, seed, shape, tau, hard, dim):
    import torch.nn.functional as tF
    ours, our_grad = _gumbel(gt, gF, seed, shape, tau, hard, dim)
    theirs, their_grad = _gumbel(torch, tF, seed, shape, tau, hard, dim)
    assert _chain(ours) == _chain(theirs)
    assert ours.shape == theirs.shape and str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=3e-6, atol=1e-7)
    np.testing.assert_allclose(our_grad.numpy(), their_grad.numpy(), rtol=1e-5, atol=1e-6)
    if hard:
        np.testing.assert_array_equal(ours.detach().numpy().round(), theirs.detach().numpy().round())


def test_eps_warning_verbatim(torch):
    import torch.nn.functional as tF
    texts = []
    for T, F in ((gt, gF), (torch, tF)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            F.gumbel_softmax(T.zeros(2, 3), eps=1e-3)
        texts.append([(w.category.__name__, str(w.message)) for w in caught])
    assert texts[0] == texts[1] == [("UserWarning", "`eps` parameter is deprecated and has no effect.")]
