"""tanh's and div's gradients against real PyTorch to the bit, over random shapes and seeds.

tanh_backward is grad * (1 - y * y) where ATen's AVX2 and AVX-512 kernels fuse 1 - y * y into
one FMA (vector loop and leftovers alike; its scalar-only DEFAULT build does not, so the
test skips there). It is compared on the very same y: the forward's float32 tanh is another
matter (docs/limits.md). div's gradient for the divisor is PyTorch's
-grad * ((self / other) / other), broadcast and reduced as PyTorch reduces it.
"""
import numpy as np
import pytest

import gradviz.torch as G

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"),
                                reason="tanh_backward's FMA is that of ATen's AVX2 / AVX-512 kernels")

DTYPES = ("float32", "float64")


def _shape(rs):
    return tuple(int(s) for s in rs.randint(1, 40, size=rs.randint(0, 4)))


def _same_bits(ours, theirs, what):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, what
    same = ours.view(f"u{ours.itemsize}") == theirs.view(f"u{theirs.itemsize}")
    assert same.all(), f"{what}: {np.count_nonzero(~same)} of {same.size} differ, e.g. ours " \
                       f"{ours[~same][:3]} torch {theirs[~same][:3]}"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(12))
def test_tanh_backward_bits(dtype, seed):
    rs = np.random.RandomState(seed)
    shape = _shape(rs) if seed else (100003,)  # one long run: many vectors and a leftover
    x = np.asarray(rs.randn(*shape) * rs.choice([0.3, 1.0, 3.0]), dtype)
    g = np.asarray(rs.randn(*shape) * 2, dtype)
    ours_x = G.tensor(x, requires_grad=True)
    y = ours_x.tanh()
    y.backward(G.tensor(g), retain_graph=True)  # the engine's array path
    theirs = torch.ops.aten.tanh_backward(torch.tensor(g), torch.tensor(y.detach().numpy()))
    _same_bits(ours_x.grad.numpy(), theirs.numpy(), "backward")
    ours_x.grad = None
    (first,) = G.autograd.grad(y, ours_x, G.tensor(g), create_graph=True)  # the recorded path
    _same_bits(first.detach().numpy(), theirs.numpy(), "create_graph")


def test_tanh_backward_bits_in_float16():
    rs = np.random.RandomState(5)
    y = np.tanh(rs.randn(5000)).astype(np.float16)
    g = rs.randn(5000).astype(np.float16)
    ours = G.tensor(y).requires_grad_()
    node = ours.tanh().grad_fn  # its saved result is tanh(y): read back, then fed to the kernel
    result = node._saved_result.detach()
    (grad,) = G.autograd.grad(ours.tanh(), ours, G.tensor(g))
    theirs = torch.ops.aten.tanh_backward(torch.tensor(g), torch.tensor(result.numpy()))
    _same_bits(grad.numpy(), theirs.numpy(), "float16")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(16))
def test_div_gradients_bits(dtype, seed):
    rs = np.random.RandomState(100 + seed)
    shape = _shape(rs)
    other_shape = tuple(s if rs.rand() < 0.6 else 1 for s in shape)[rs.randint(0, len(shape) + 1):]
    if seed % 4 == 3:
        shape, other_shape = other_shape, shape  # the dividend broadcast instead
    scale = [1.0, 1e-3, 1e20 if dtype == "float32" else 1e160][seed % 3]  # other * other would overflow
    a = np.asarray(rs.randn(*shape) * scale, dtype)
    b = np.asarray((rs.rand(*other_shape) + 0.1) * rs.choice([-1, 1], size=other_shape) * scale, dtype)
    g = np.asarray(rs.randn(*np.broadcast_shapes(shape, other_shape)), dtype)
    results = []
    for T in (G, torch):
        x, y = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
        (x / y).backward(T.tensor(g))
        results.append((x.grad.numpy(), y.grad.numpy()))
        x.grad = y.grad = None
        T.div(x, y, rounding_mode=None).backward(T.tensor(g))  # DivBackward2, the same formulas
        results[-1] += (x.grad.numpy(), y.grad.numpy())
    for what, ours, theirs in zip(("dividend", "divisor", "div(rounding_mode=None): dividend", "... divisor"),
                                  *results):
        _same_bits(ours, theirs, what)


@pytest.mark.parametrize("dtype", DTYPES)
def test_div_by_numbers_and_0d_tensors(dtype):
    rs = np.random.RandomState(7)
    a = rs.randn(6, 5).astype(dtype) * 1e20
    g = rs.randn(6, 5).astype(dtype)
    for divisor in (3.0, -7.5, 1e-30, 2):
        grads = []
        for T in (G, torch):
            x = T.tensor(a, requires_grad=True)
            (x / divisor).backward(T.tensor(g))
            zero_d = T.tensor(np.asarray(divisor, dtype), requires_grad=True)
            y = T.tensor(a, requires_grad=True)
            T.div(y, zero_d).backward(T.tensor(g))
            grads.append((x.grad.numpy(), y.grad.numpy(), zero_d.grad.numpy()))
        for ours, theirs in zip(*grads):
            _same_bits(ours, theirs, f"divided by {divisor!r}")
