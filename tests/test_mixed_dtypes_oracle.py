"""Arithmetic on operands of two dtypes, against real PyTorch to the bit: ATen casts every
tensor to the result dtype before computing (numpy would compute a float32 and a float64,
or an integer and a float, in float64 and round twice), and reads a Python number or a 0-d
tensor as a number of its op math (float32 for float16). Also lerp, whose CPU kernels fuse
the multiply-add and switch formulas at |weight| = 0.5."""
import operator

import numpy as np
import pytest

import gradviz.torch as G

torch = pytest.importorskip("torch")

OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}
OPERANDS = {  # (the dimensioned tensor's dtype, what it meets)
    "int64 and float": ("int64", "float"), "int32 and float": ("int32", "float"),
    "float16 and float": ("float16", "float"), "float32 and 0-d float64": ("float32", "0-d float64"),
    "float16 and 0-d float64": ("float16", "0-d float64"), "int64 and 0-d float32": ("int64", "0-d float32"),
    "float64 and 0-d float32": ("float64", "0-d float32"), "uint8 and float": ("uint8", "float"),
}


def _same_bits(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    differ = ours.view(f"u{ours.itemsize}") != theirs.view(f"u{theirs.itemsize}")
    assert not differ.any(), f"{differ.sum()} of {differ.size} differ: ours {ours[differ][:3]}, torch {theirs[differ][:3]}"


def _operands(rs, kind, other):
    shape = tuple(rs.randint(1, 30, size=rs.randint(1, 3)))
    if kind.startswith(("int", "uint")):
        values = rs.randint(0 if kind == "uint8" else -1000, 255 if kind == "uint8" else 1000, shape).astype(kind)
    else:
        values = (rs.randn(*shape) * rs.choice([1, 100])).astype(kind)
    number = float(rs.choice([0.1, 1 / 3, -2.7, 1e-3, 3.14159, 7.0]))
    if other == "float":
        return values, number, number
    dtype = other.split()[1]
    return values, torch.tensor(number, dtype=getattr(torch, dtype)), G.tensor(number, dtype=getattr(G, dtype))


@pytest.mark.parametrize("reverse", [False, True], ids=["tensor first", "number first"])
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("operands", OPERANDS)
@pytest.mark.parametrize("seed", range(4))
def test_mixed_operands(operands, op, reverse, seed):
    rs = np.random.RandomState(seed)
    values, theirs_other, ours_other = _operands(rs, *OPERANDS[operands])
    fn = OPS[op]
    pair_t, pair_g = (torch.tensor(values), theirs_other), (G.tensor(values), ours_other)
    if reverse:
        pair_t, pair_g = pair_t[::-1], pair_g[::-1]
    _same_bits(fn(*pair_g).numpy(), fn(*pair_t).numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("weight", ["number", "tensor", "0-d float64"])
@pytest.mark.parametrize("seed", range(10))
def test_lerp_bits(dtype, weight, seed):
    rs = np.random.RandomState(seed)
    n = rs.randint(1, 40)
    start, end = (rs.randn(n) * rs.choice([1, 100])).astype(dtype), (rs.randn(n) * 3).astype(dtype)
    if weight == "number":
        theirs_w = ours_w = float(rs.choice([0.1, 0.3, 0.5, 0.7, -0.2, 1.5, rs.rand()]))
    elif weight == "tensor":
        w = (rs.rand(n) * 2 - 0.5).astype(dtype)
        theirs_w, ours_w = torch.tensor(w), G.tensor(w)
    else:
        w = float(rs.rand())
        theirs_w, ours_w = torch.tensor(w, dtype=torch.float64), G.tensor(w, dtype=G.float64)
    theirs = torch.lerp(torch.tensor(start), torch.tensor(end), theirs_w)
    ours = G.lerp(G.tensor(start), G.tensor(end), ours_w)
    _same_bits(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lerp_of_infinities_and_nans(dtype):
    values = [-np.inf, np.inf, 1.5, -2.0, 0.0, np.nan, 1e30]
    start, end = (np.array(v, dtype=dtype) for v in zip(*[(a, b) for a in values for b in values]))
    for weight in (0.0, 0.25, 0.5, 0.75, 1.0):
        weights = np.full(start.shape, weight, dtype=dtype)
        theirs = torch.lerp(torch.tensor(start), torch.tensor(end), torch.tensor(weights))
        ours = G.lerp(G.tensor(start), G.tensor(end), G.tensor(weights))
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
