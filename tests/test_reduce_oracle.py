"""Sums, means and norms round as PyTorch's CPU kernels round them: every bit of the result
agrees with real PyTorch, across lengths around the vector width and the cascade's block
sizes, reduced rows and columns, several axes at once, transposed and sliced inputs, the
gradients that undo broadcasting (which PyTorch also computes with its sum), and p-norms."""
import numpy as np
import pytest

import gradviz.torch as gtorch

torch = pytest.importorskip("torch")


def _values(shape, seed, dtype):
    rng = np.random.default_rng(seed)
    # magnitudes spread over six decades, so the order of additions shows in the last bits
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(dtype)


def _same_bits(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert ours.tobytes() == theirs.tobytes(), np.flatnonzero(ours != theirs)[:10]


LENGTHS = list(range(1, 41)) + [63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4099, 32768]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", LENGTHS)
def test_whole_sum_and_mean(n, dtype):
    x = _values(n, n, dtype)
    ours, theirs = gtorch.from_numpy(x.copy()), torch.from_numpy(x.copy())
    _same_bits(ours.sum().numpy(), theirs.sum().numpy())
    _same_bits(ours.mean().numpy(), theirs.mean().numpy())


SHAPES_AND_DIMS = [
    ((3, 5), 0), ((3, 5), 1), ((7, 20), 1), ((20, 7), 0), ((20, 7), 1), ((33, 9), 0), ((9, 33), 1),
    ((64, 64), 0), ((100, 5), 0), ((5, 100), 1), ((4, 3, 17), 0), ((4, 3, 17), 1), ((4, 3, 17), 2),
    ((2, 40, 40), 0), ((2, 40, 40), 2), ((300, 70), 0), ((70, 300), 1),
    ((4, 5, 6, 7), (0, 2, 3)), ((8, 3, 10, 10), (0, 2, 3)), ((6, 20, 30), (0, 1)),
    ((6, 20, 30), (1, 2)), ((6, 20, 30), (0, 2)), ((20, 9), (0, 1)),
]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("shape,dim", SHAPES_AND_DIMS, ids=str)
def test_sum_over_dims(shape, dim, layout):
    x = _values(shape, sum(shape), np.float32)
    ours, theirs = gtorch.from_numpy(x.copy()), torch.from_numpy(x.copy())
    if layout == "transposed":
        ours, theirs = ours.transpose(0, -1), theirs.transpose(0, -1)
    elif layout == "sliced":
        ours, theirs = ours[..., ::2], theirs[..., ::2]
    for keepdim in (False, True):
        _same_bits(ours.sum(dim, keepdim=keepdim).numpy(), theirs.sum(dim, keepdim=keepdim).numpy())
        _same_bits(ours.mean(dim, keepdim=keepdim).numpy(), theirs.mean(dim, keepdim=keepdim).numpy())


def test_sum_of_negative_zeros_is_positive_zero_as_printed():
    assert str(gtorch.tensor([-0.0, -0.0]).sum()) == str(torch.tensor([-0.0, -0.0]).sum()) == "tensor(0.)"


@pytest.mark.parametrize("shape,target", [((50, 30), (30,)), ((50, 30), (50, 1)), ((4, 9, 33), (9, 1)),
                                          ((4, 9, 33), (4, 1, 33))])
def test_broadcast_gradients_are_summed_as_pytorch_sums(shape, target):
    upstream = _values(shape, 7, np.float32)
    results = []
    for lib in (gtorch, torch):
        leaf = lib.zeros(target, requires_grad=True)
        (leaf + lib.zeros(shape)).backward(lib.from_numpy(upstream.copy()))
        results.append(leaf.grad.numpy())
    _same_bits(*results)


NORM_SHAPES = [(5,), (7, 9), (9, 7), (3, 4, 17), (40, 33), (2, 3, 8, 8), (1, 9), (9, 1), (4, 1000)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("p", [2, 1, 3, 2.5])
@pytest.mark.parametrize("shape", NORM_SHAPES, ids=str)
def test_vector_norms(shape, p, layout, dtype):
    x = _values(shape, len(shape) * 100 + int(p * 10), np.float32)
    dims = [None, 0, -1] + ([(0, 1)] if len(shape) > 1 else [])
    for dim in dims:
        results = []
        for lib in (gtorch, torch):
            t = lib.from_numpy(x.copy()).to(getattr(lib, dtype))
            if layout == "transposed":
                t = t.transpose(0, -1)
            elif layout == "sliced":
                t = t[..., ::2]
            results.append(lib.linalg.vector_norm(t, p, dim=dim).numpy())
        _same_bits(*results)


def test_tensor_norm_prints_as_pytorchs():
    x = _values(2000, 1, np.float32)
    assert str(gtorch.from_numpy(x.copy()).norm()) == str(torch.from_numpy(x.copy()).norm())
    r = _values(2000, 2, np.float32)
    ours = (gtorch.from_numpy(r.copy()) * gtorch.from_numpy(x.copy()) ** 2).sum()
    theirs = (torch.from_numpy(r.copy()) * torch.from_numpy(x.copy()) ** 2).sum()
    assert str(ours) == str(theirs)
