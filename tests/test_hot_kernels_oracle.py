"""The hot path's faster kernels give PyTorch's bits (issue: speed, bench W2 / W6).

Each kernel that was rewritten for speed is compared with real PyTorch over many seeds,
shapes and dtypes, special values (inf, NaN, signed zeros) included, and with the plain
numpy it replaced where that is the reference of record. Nothing here is timed.
"""
import numpy as np
import pytest

import gradviz.torch as T
from gradviz.torch import _kernels as K

torch = pytest.importorskip("torch")

SHAPES = [(1,), (7,), (3, 5), (128, 512), (2, 3, 33), (64, 10)]
SPECIALS = [np.inf, -np.inf, np.nan, -0.0, 0.0]


def _with_specials(array, rng):
    if array.size >= len(SPECIALS):
        spots = rng.choice(array.size, len(SPECIALS), replace=False)
        array.flat[spots] = SPECIALS
    return array


def _bits(array):
    array = np.ascontiguousarray(array)
    return array.view(np.dtype(f"u{array.itemsize}")) if array.itemsize in (2, 4, 8) else array.tobytes()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("seed", range(6))
def test_threshold_backward_gives_pytorchs_bits(dtype, seed):
    rng = np.random.default_rng(seed)
    for shape in SHAPES:
        grad = _with_specials(rng.standard_normal(shape).astype(dtype), rng)
        self = _with_specials(rng.standard_normal(shape).astype(dtype), rng)
        for threshold in (0, 0.25, -1.5):
            ours = K.threshold_backward_array(grad, self, threshold)
            theirs = torch.ops.aten.threshold_backward(torch.from_numpy(grad), torch.from_numpy(self), threshold)
            assert ours.dtype == grad.dtype and ours.shape == grad.shape and ours.flags.c_contiguous
            np.testing.assert_array_equal(_bits(ours), _bits(theirs.numpy()))
            np.testing.assert_array_equal(_bits(ours), _bits(np.where(self <= threshold, 0, grad).astype(dtype)))


def test_threshold_backward_on_other_layouts_and_a_0d_array_takes_the_general_path():
    rng = np.random.default_rng(0)
    grad = rng.standard_normal((6, 4)).astype(np.float32)
    self = rng.standard_normal((4, 6)).astype(np.float32).T  # not C-contiguous
    ours = K.threshold_backward_array(grad, self, 0)
    theirs = torch.ops.aten.threshold_backward(torch.from_numpy(grad), torch.from_numpy(self.copy()), 0)
    np.testing.assert_array_equal(ours, theirs.numpy())
    scalar = K.threshold_backward_array(np.array(2.0, np.float32), np.array(-1.0, np.float32), 0)
    assert type(scalar) is np.ndarray and scalar.shape == () and scalar == 0


@pytest.mark.parametrize("seed", range(4))
def test_relu_backward_on_the_engine_matches_pytorch(seed):
    rng = np.random.default_rng(seed)
    values = _with_specials(rng.standard_normal((32, 17)).astype(np.float32), rng)
    upstream = rng.standard_normal((32, 17)).astype(np.float32)
    ours = T.tensor(values, requires_grad=True)
    theirs = torch.tensor(values, requires_grad=True)
    T.relu(ours).backward(T.tensor(upstream))
    torch.relu(theirs).backward(torch.tensor(upstream))
    np.testing.assert_array_equal(_bits(ours.grad.numpy()), _bits(theirs.grad.numpy()))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("seed", range(6))
def test_relu_forward_gives_pytorchs_bits_and_layout(dtype, seed):
    rng = np.random.default_rng(seed)
    for shape in SHAPES + [()]:
        values = _with_specials(rng.standard_normal(shape).astype(dtype), rng)
        for layout in ((values, values.T, values[..., ::2]) if shape else (values,)):
            ours = K.relu_array(layout)
            theirs = torch.relu(torch.from_numpy(np.ascontiguousarray(layout))).numpy()
            assert type(ours) is np.ndarray and ours.dtype == layout.dtype and ours.shape == layout.shape
            assert ours.strides == np.maximum(layout, 0).strides  # the layout numpy's ufuncs give
            np.testing.assert_array_equal(_bits(ours), _bits(theirs))  # -0.0 and NaN signs included


def test_relu_of_integers_and_a_0d_array():
    ours = T.relu(T.tensor([[-3, 0, 5]]))
    np.testing.assert_array_equal(ours.numpy(), torch.relu(torch.tensor([[-3, 0, 5]])).numpy())
    assert ours.dtype == T.int64
    scalar = T.relu(T.tensor(-0.0))
    assert float(scalar) == 0.0 and np.signbit(scalar.numpy()) == np.signbit(torch.relu(torch.tensor(-0.0)).numpy())
