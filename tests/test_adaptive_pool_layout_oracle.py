"""Adaptive average pooling hands back a contiguous tensor, as PyTorch's does, so that a
following flatten / view records ViewBackward0 (CS231n's saliency and fooling-image models:
AdaptiveAvgPool2d then Flatten), not a copy's CloneBackward0 and UnsafeViewBackward0."""
import numpy as np
import pytest

import gradviz.torch as T

torch = pytest.importorskip("torch")

CASES = [
    ("adaptive_avg_pool1d", (2, 3, 7), 3),
    ("adaptive_avg_pool2d", (2, 3, 4, 4), 2),
    ("adaptive_avg_pool2d", (1, 2, 5, 7), (3, 2)),
    ("adaptive_avg_pool2d", (3, 6, 6), 1),
    ("adaptive_avg_pool3d", (1, 2, 4, 4, 4), 2),
    ("adaptive_avg_pool3d", (2, 3, 5, 3, 4), (2, 3, 1)),
]


def _facts(module, name, values, size):
    x = module.tensor(values, requires_grad=True)
    pooled = getattr(module.nn.functional, name)(x, size)
    flat = pooled.flatten(1) if pooled.dim() > 1 else pooled.reshape(-1)
    flat.pow(2).sum().backward()
    grad_of_grad = pooled.grad_fn.name()
    return (pooled.is_contiguous(), pooled.stride(), type(flat.grad_fn).__name__, grad_of_grad,
            flat.detach().numpy(), x.grad.is_contiguous(), x.grad.numpy())


@pytest.mark.parametrize("name, shape, size", CASES)
@pytest.mark.parametrize("seed", range(3))
def test_adaptive_avg_pool_output_layout_and_values_match_pytorch(name, shape, size, seed):
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    ours, theirs = _facts(T, name, values, size), _facts(torch, name, values, size)
    assert ours[:4] == theirs[:4]
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-6, atol=1e-7)
    assert ours[5] == theirs[5]
    np.testing.assert_allclose(ours[6], theirs[6], rtol=1e-6, atol=1e-7)
