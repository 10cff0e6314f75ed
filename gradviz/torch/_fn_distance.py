"""torch.cdist.

PyTorch computes p=2 distances of large inputs (or when asked) as a matrix product
(EuclideanDistBackward0, whose gradient is written with ordinary ops) and everything
else with its own kernel (CdistBackward0, whose backward has no derivative).
"""
import math

from . import _ops_nn
from .autograd.graph import apply as _apply

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "cdist",
)
TORCH = (
    "cdist",
)
METHODS = (
)


_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1, "donot_use_mm_for_euclid_dist": 2}


def _type_name(t):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
            "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}.get(t.dtype.name, t.dtype.name)


def _batch_shape(x1, x2):
    shape_a, shape_b = tuple(x1.shape[:-2]), tuple(x2.shape[:-2])
    n = max(len(shape_a), len(shape_b))
    shape_a, shape_b = (1,) * (n - len(shape_a)) + shape_a, (1,) * (n - len(shape_b)) + shape_b
    out = []
    for dim, (a, b) in enumerate(zip(shape_a, shape_b)):
        if a != b and a != 1 and b != 1:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
                               f"dimension {dim}")
        out.append(b if a == 1 else a)
    return tuple(out)


def _euclidean(x1, x2, batch):
    """cdist_impl's matmul route: batch dims flattened into one, then the result viewed back."""
    r1, r2, c = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    count = math.prod(batch)
    if count == 1:
        result = _apply(_ops_nn.euclidean_dist, (x1, x2), {})
    else:
        left = x1.expand(batch + (r1, c)).contiguous().view(count, r1, c)
        right = x2.expand(batch + (r2, c)).contiguous().view(count, r2, c)
        result = _apply(_ops_nn.euclidean_dist, (left, right), {})
    return result.view(batch + (r1, r2))


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _MODES[compute_mode]
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_type_name(t)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {_type_name(x1)} but found {_type_name(x2)}")
    batch = _batch_shape(x1, x2)
    r1, r2 = x1.shape[-2], x2.shape[-2]
    if x1.numel() and x2.numel() and p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        return _euclidean(x1, x2, batch)
    return _apply(_ops_nn.cdist, (x1, x2), {"p": float(p)})


__all__ = ["cdist"]
