"""Where PyTorch keeps -0.0 and which operand a tie returns, against real PyTorch to the bit:
clamp keeps the input on a tie with its bound; maximum / minimum give the second operand in
ATen's AVX-512 vector loop (whole registers of each row) and the first in its scalar loop,
fmax / fmin the first everywhere; ELU-family activations go through expm1 (-0.0 stays -0.0).
NaNs compare equal whatever their payload (ATen's vector NaN is all ones)."""
import numpy as np
import pytest

import gradviz.torch as G

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() != "AVX512",
                                reason="which elements ATen's vector loop takes is its AVX-512 build's")


def _same(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    bits = f"u{ours.itemsize}"
    differ = (ours.view(bits) != theirs.view(bits)) & ~(np.isnan(ours) & np.isnan(theirs))
    assert not differ.any(), f"{differ.sum()} differ at {np.flatnonzero(differ)[:5]}"


def _operands(rs, dtype, n, layout):
    a = rs.choice([-0.0, 0.0, 1.0, -1.0, np.nan], size=(3, n)).astype(dtype)
    b = {"same shape": lambda: rs.choice([-0.0, 0.0, 1.0], size=(3, n)),
         "a number": lambda: np.array(rs.choice([0.0, -0.0])),
         "a row": lambda: rs.choice([-0.0, 0.0], size=(n,)),
         "a column": lambda: rs.choice([-0.0, 0.0], size=(3, 1))}[layout]().astype(dtype)
    return a, b


@pytest.mark.parametrize("layout", ["same shape", "a number", "a row", "a column"])
@pytest.mark.parametrize("n", [1, 5, 8, 15, 16, 17, 31, 33, 70])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ties_of_two(dtype, n, layout):
    rs = np.random.RandomState(n)
    a, b = _operands(rs, dtype, n, layout)
    for name in ("maximum", "minimum", "fmax", "fmin"):
        for x, y in ((a, b), (b, a)):
            _same(getattr(G, name)(G.tensor(x), G.tensor(y)).numpy(),
                  getattr(torch, name)(torch.tensor(x), torch.tensor(y)).numpy())
    for low, high in ((0.0, None), (None, 0.0), (-0.0, 0.0), (0.0, 1.0), (-0.0, None)):
        _same(G.clamp(G.tensor(a), low, high).numpy(), torch.clamp(torch.tensor(a), low, high).numpy())


@pytest.mark.parametrize("name", ["elu", "celu", "selu"])
def test_elu_family_keeps_negative_zero_and_rounds_as_expm1(name):
    rs = np.random.RandomState(0)
    x = np.concatenate([np.float32([-0.0, 0.0, -1.0]), (rs.randn(20000) * 3).astype(np.float32)])
    ours = getattr(G.nn.functional, name)(G.tensor(x)).numpy()
    theirs = getattr(torch.nn.functional, name)(torch.tensor(x)).numpy()
    _same(ours[:3], theirs[:3])
    assert np.mean(ours.view(np.uint32) != theirs.view(np.uint32)) < 0.002  # expm1's rare last bits
