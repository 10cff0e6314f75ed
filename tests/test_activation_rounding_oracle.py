"""Activation gradients computed as ATen's kernels compute them, against real PyTorch: the
fraction of float32 results that differ in the last bit stays at the floor the engine's
transcendentals allow (docs/limits.md), where another formula would differ on half."""
import numpy as np
import pytest

import gradviz.torch as G

torch = pytest.importorskip("torch")


def _gradients(module, x, g, fn):
    leaf = module.tensor(x, requires_grad=True)
    fn(module)(leaf).backward(module.tensor(g))
    return leaf.grad.numpy()


@pytest.mark.parametrize("beta, threshold", [(1.0, 20.0), (2.0, 5.0), (0.5, 20.0)])
def test_softplus_backward_is_grad_z_over_z_plus_one(beta, threshold):
    rs = np.random.RandomState(0)
    x, g = (rs.randn(20000) * 3).astype(np.float32), rs.randn(20000).astype(np.float32)
    softplus = lambda T: (lambda t: T.nn.functional.softplus(t, beta, threshold))  # noqa: E731
    ours, theirs = _gradients(G, x, g, softplus), _gradients(torch, x, g, softplus)
    assert np.mean(ours.view(np.uint32) != theirs.view(np.uint32)) < 0.08  # grad * sigmoid(x): about 0.5
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-30)
