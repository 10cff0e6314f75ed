"""The nodes torch.nn.utils.parametrizations records that the engine's op table does not
have yet: ``_weight_norm_interface`` (WeightNormInterfaceBackward0), ``linalg.matrix_exp``
(LinalgMatrixExpBackward0) and ``linalg.solve`` (LinalgSolveExBackward0). They are
declared here, once, until torch.linalg gives the last two their public home; the formulas are derivatives.yaml's, written in engine
functions so that they differentiate again.

Deviations: LinalgSolveExBackward0 keeps ``A`` and ``result`` (PyTorch keeps the LU
factors and pivots of A instead, and reads them); matrix_exp is computed by Padé [13/13]
with scaling and squaring in float64 (PyTorch's CPU kernel picks a Taylor degree per
matrix), so values agree to rounding, not to the bit."""
import numpy as np

from ..._namespace import F
from ..._ops import Op
from ...autograd.graph import apply
from .weight_norm import norm_except_dim

# Padé [13/13] coefficients of exp (Higham 2005, "The scaling and squaring method for the
# matrix exponential revisited"), and the 1-norm up to which degree 13 needs no scaling.
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _expm_one(a):
    norm = np.abs(a).sum(axis=0).max() if a.size else 0.0
    squarings = max(0, int(np.ceil(np.log2(norm / _THETA13)))) if norm > _THETA13 else 0
    a = a / (2.0 ** squarings)
    b = _PADE13
    ident = np.eye(a.shape[0], dtype=a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * ident
    result = np.linalg.solve(v - u, v + u)
    for _ in range(squarings):
        result = result @ result
    return result


def matrix_exp_array(a):
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    flat = a.astype(wide).reshape((-1,) + a.shape[-2:])
    out = np.stack([_expm_one(m) for m in flat]) if flat.shape[0] else flat.copy()
    return out.reshape(a.shape).astype(a.dtype)


def _adjoint(t):
    return F.conj(t.mT) if t.is_complex() else t.mT


def matrix_exp_backward(grad, self):
    """derivatives.yaml's linalg_matrix_exp_differential(self, grad, adjoint=true): the
    upper right block of exp([[A^H, grad], [0, A^H]])."""
    n = self.size(-1)
    a_h = _adjoint(self)
    top = F.cat([a_h, grad], -1)
    bottom = F.cat([F.zeros_like(grad), a_h], -1)
    return matrix_exp(F.cat([top, bottom], -2))[..., :n, n:]


def solve_grad_B(grad, A):
    return solve(_adjoint(A), grad)


def solve_grad_A(grad, A, result):
    return -F.matmul(solve(_adjoint(A), grad), _adjoint(result))


def _weight_norm_forward(v, g, *, dim):
    axes = tuple(d for d in range(v.ndim) if d != dim)
    norms = np.sqrt(np.sum(v * v, axis=axes, keepdims=True)).astype(v.dtype)
    return (v * (g / norms)).astype(v.dtype), norms


def weight_norm_backward(grads, v, g, dim, result1):
    """ATen's _weight_norm_differentiable_backward: the sums of grad * v over every dim but
    ``dim``, against the saved norms."""
    grad = grads[0]
    axes = [d for d in range(v.dim()) if d != dim]
    per_dim_sums = (grad * v).sum(axes, keepdim=True)
    grad_v = (g / result1) * (grad - v * (per_dim_sums / (result1 * result1)))
    grad_g = per_dim_sums / result1
    return grad_v, grad_g


weight_norm_interface = Op(
    "WeightNormInterfaceBackward0", _weight_norm_forward, multi_output=True,
    v=lambda grads, v, g, dim, result1: weight_norm_backward(grads, v, g, dim, result1)[0],
    g=lambda grads, v, g, dim, result1: weight_norm_backward(grads, v, g, dim, result1)[1])
matrix_exp_op = Op("LinalgMatrixExpBackward0", lambda self: matrix_exp_array(self), self=matrix_exp_backward)
solve_op = Op("LinalgSolveExBackward0", lambda A, B: np.linalg.solve(A, B).astype(np.result_type(A, B)),
              A=solve_grad_A, B=solve_grad_B)


def weight_norm(v, g, dim=0):
    """torch._weight_norm: one fused node for dim 0 or the last dim (as ATen's CPU path),
    else the composite v * (g / norm_except_dim(v))."""
    if dim == 0 or dim == v.dim() - 1:
        return apply(weight_norm_interface, (v, g), {"dim": dim})[0]
    return v * (g / norm_except_dim(v, 2, dim))


def matrix_exp(A):
    return apply(matrix_exp_op, (A,), {})


def solve(A, B):
    return apply(solve_op, (A, B), {})
