"""Op-table entries for torch.linalg: the same ``Op`` rules as ``_ops`` (PyTorch's node name,
a numpy forward, one formula per differentiable input written with engine ops).

The formulas are PyTorch's (FunctionsManual.cpp: linalg_solve_backward, linalg_det_backward,
svd_backward, linalg_eig_backward, linalg_qr_backward, linalg_lu_backward...), written in
engine functions so that they are differentiable again. Like PyTorch, several take a
cheaper path when no higher-order graph is being built (grad mode off in the backward):
an lu_solve with the saved factorisation rather than a fresh solve.

Multi-output nodes get a zero gradient for an output nobody used, where PyTorch's formula
sees an undefined one; the formulas that divide by eigen- or singular-value gaps test for
that (``_unused``), so a repeated value does not turn an unused output's zero into NaN.
"""
import numpy as np

from . import _kernels_linalg as KL
from ._namespace import F
from ._ops import Op
from .autograd.grad_mode import STATE


def _mH(t):
    return F.conj(t.transpose(-2, -1))


def _unused(grad):
    """A zero gradient: the engine's stand-in for an output no path reached."""
    return not grad._data.any()


def _eps(t):
    return float(np.finfo(np.abs(t._data[..., :0]).dtype).eps)


def _diagonal_of(values, like_pivots):
    """diag_embed of a per-matrix scalar, as the formulas build their right-hand sides."""
    return F.diag_embed(values.unsqueeze(-1).expand(tuple(like_pivots.shape)))


def _set_diagonal(matrix, diagonal):
    """matrix with its diagonal replaced (PyTorch's ``ret.diagonal().copy_(d)``)."""
    n = matrix.shape[-1]
    eye = F.eye(n, dtype=F.real(matrix).dtype if matrix.is_complex() else matrix.dtype).bool()
    return F.where(eye, F.diag_embed(diagonal).to(matrix.dtype), matrix)


def _off_diagonal_ones(matrix):
    n = matrix.shape[-1]
    eye = F.eye(n, dtype=F.real(matrix).dtype if matrix.is_complex() else matrix.dtype).bool()
    return F.where(eye, F.ones_like(matrix), matrix)


# ---------------------------------------------------------------------------------------
# LU and the solvers built on it
def lu_backward(grad_L, grad_U, P, L, U, pivot):
    """PyTorch's linalg_lu_backward, for square, wide and tall inputs."""
    m, n = L.shape[-2], U.shape[-1]
    if m == n:
        grad = (_mH(L).matmul(grad_L)).tril(-1) + grad_U.matmul(_mH(U)).triu()
        grad = F.linalg_solve_triangular(_mH(U), grad, upper=False, left=False)
        grad = F.linalg_solve_triangular(_mH(L), grad, upper=True, left=True, unitriangular=True)
    elif m < n:
        U1, grad_U1, grad_U2 = U.narrow(-1, 0, m), grad_U.narrow(-1, 0, m), grad_U.narrow(-1, m, n - m)
        grad = _mH(L).matmul(grad_L) - grad_U.triu().matmul(_mH(U))
        grad = F.linalg_solve_triangular(_mH(U1), grad.tril(-1), upper=False, left=False)
        grad = F.cat([grad + grad_U1.triu(), grad_U2], -1)
        grad = F.linalg_solve_triangular(_mH(L), grad, upper=True, left=True, unitriangular=True)
    else:
        L1, grad_L1, grad_L2 = L.narrow(-2, 0, n), grad_L.narrow(-2, 0, n), grad_L.narrow(-2, n, m - n)
        grad = grad_U.matmul(_mH(U)) - _mH(L).matmul(grad_L.tril(-1))
        grad = F.linalg_solve_triangular(_mH(L1), grad.triu(), upper=True, left=True, unitriangular=True)
        grad = F.cat([grad + grad_L1.tril(-1), grad_L2], -2)
        grad = F.linalg_solve_triangular(_mH(U), grad, upper=False, left=False)
    return P.matmul(grad) if pivot else grad


def lu_factor_backward(grad, LU, pivots, pivot):
    P, L, U = F.lu_unpack(LU, pivots, True, pivot)
    m, n = LU.shape[-2:]
    k = min(m, n)
    return lu_backward(grad.narrow(-1, 0, k), grad.narrow(-2, 0, k), P, L, U, pivot)


def lu_solve_LU_backward(grad, LU, pivots, X, left, adjoint):
    """PyTorch's linalg_lu_solve_LU: the gradient of lu_solve with respect to the packed LU."""
    P, L, U = F.lu_unpack(LU, pivots, True, left == adjoint)
    if left != adjoint:
        gR = F.linalg_solve_triangular(_mH(U), -(grad if left else _mH(grad)).matmul(_mH(X) if left else X),
                                       upper=False)
        gL = F.linalg_solve_triangular(_mH(L), gR.matmul(_mH(U)), upper=True, left=True, unitriangular=True).tril(-1)
        return gL + gR.triu()
    gR = -P.transpose(-2, -1).matmul(X if left else _mH(X)).matmul(_mH(grad) if left else grad).matmul(P)
    gR = F.linalg_solve_triangular(_mH(L), gR, upper=True, left=False, unitriangular=True)
    gU = F.linalg_solve_triangular(_mH(U), _mH(L).matmul(gR), upper=False, left=False).triu()
    return gR.tril(-1) + gU


def solve_backward(grad, X, A, LU, pivots, left, vector, which):
    """PyTorch's linalg_solve_backward: gB = A^-H gX, gA = -gB X^H (left) or -X^H gB."""
    g = grad.unsqueeze(-1) if vector else grad
    if STATE.enabled:
        gB = F.linalg_solve(_mH(A), g, left=left)
    else:
        gB = F.linalg_lu_solve(LU, pivots, g, left=left, adjoint=True)
    if which == "B":
        return gB.squeeze(-1) if vector else gB
    X = X.unsqueeze(-1) if vector else X
    return -gB.matmul(_mH(X)) if left else -_mH(X).matmul(gB)


def det_backward(grad, det, A, LU, pivots, factored_transpose):
    """PyTorch's linalg_det_backward: A^-H scaled by grad * conj(det); an LU solve with zero
    pivots nudged to eps when no graph is built, else a fresh solve, or for (near-)singular
    matrices the adjugate through the SVD."""
    if A.numel() == 0:
        return F.zeros_like(A)
    d = _diagonal_of(grad * F.conj(det), pivots).transpose(-2, -1)
    eps = _eps(LU)
    if not STATE.enabled:
        nudge = F.diag_embed(F.where(LU.diagonal(0, -2, -1) == 0., eps, 0.).to(LU.dtype))
        return F.linalg_lu_solve(LU + nudge, pivots, d, left=True, adjoint=not factored_transpose)
    singular = (F.abs(det) < 100. * eps)._data
    if not singular.any():
        return F.linalg_solve(_mH(A), d)
    U, S, Vh = F.linalg_svd(A)
    alpha = F.conj(F.linalg_det(U) * F.linalg_det(Vh)) * grad
    D = _prod_safe_zeros_backward(alpha.unsqueeze(-1), S)
    adjugate = (U * D.unsqueeze(-2)).matmul(Vh)
    if singular.all():
        return adjugate
    return F.where(F.from_numpy(singular[..., None, None]), adjugate, F.linalg_solve(_mH(A), d))


def slogdet_backward(grad_sign, grad_logabsdet, A, sign, LU, pivots, factored_transpose):
    g = grad_logabsdet
    if A.is_complex():
        g = g.to(A.dtype) - 1j * F.imag(F.conj(grad_sign) * sign)
    d = _diagonal_of(g, pivots).transpose(-2, -1)
    if not STATE.enabled:
        return F.linalg_lu_solve(LU, pivots, d, left=True, adjoint=not factored_transpose)
    return F.linalg_solve(_mH(A), d)


# ---------------------------------------------------------------------------------------
# spectral decompositions
def eigh_backward(grad_L, grad_V, L, V):
    """PyTorch's linalg_eig_backward for Hermitian input (eigh / eigvalsh)."""
    if _unused(grad_V):
        return (V * grad_L.unsqueeze(-2)).matmul(_mH(V))
    VhgV = _mH(V).matmul(grad_V)
    VhgV = 0.5 * (VhgV - _mH(VhgV))
    Lc = F.conj(L)
    E = _off_diagonal_ones(Lc.unsqueeze(-2) - Lc.unsqueeze(-1))
    inner = _set_diagonal(VhgV / E, grad_L)
    return V.matmul(inner.matmul(_mH(V)))


def eig_backward(grad_L, grad_V, L, V):
    """PyTorch's linalg_eig_backward for a general (complex-valued) decomposition."""
    if _unused(grad_V):
        return F.linalg_solve(_mH(V), grad_L.unsqueeze(-1) * _mH(V))
    VhgV = _mH(V).matmul(grad_V)
    VhgV = VhgV - _mH(V).matmul(V * F.real(VhgV.diagonal(0, -2, -1)).to(V.dtype).unsqueeze(-2))
    Lc = F.conj(L)
    E = _off_diagonal_ones(Lc.unsqueeze(-2) - Lc.unsqueeze(-1))
    inner = _set_diagonal(VhgV / E, grad_L)
    return F.linalg_solve(_mH(V), inner.matmul(_mH(V)))


def svd_backward(gU, gS, gVh, U, S, Vh, full_matrices):
    """PyTorch's svd_backward (the real formula; complex singular vectors' phase term too)."""
    k = S.shape[-1]
    if full_matrices:
        gU, U, gVh, Vh = gU.narrow(-1, 0, k), U.narrow(-1, 0, k), gVh.narrow(-2, 0, k), Vh.narrow(-2, 0, k)
    m, n = U.shape[-2], Vh.shape[-1]
    u_used, v_used = not _unused(gU), not _unused(gVh)
    if not u_used and not v_used:
        return U.matmul(gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)).matmul(Vh)
    S2 = S * S
    E = _off_diagonal_ones(S2.unsqueeze(-2) - S2.unsqueeze(-1))
    UhgU = _mH(U).matmul(gU) if u_used else None
    UhgU = UhgU - _mH(UhgU) if u_used else None
    VhgV = Vh.matmul(_mH(gVh)) if v_used else None
    VhgV = VhgV - _mH(VhgV) if v_used else None
    if u_used and v_used:
        inner = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif u_used:
        inner = (UhgU / E) * S.unsqueeze(-2)
    else:
        inner = S.unsqueeze(-1) * (VhgV / E)
    inner = inner + F.diag_embed(gS).to(inner.dtype)
    if U.is_complex() and u_used and v_used:
        inner = inner + F.diag_embed(UhgU.diagonal(0, -2, -1) / (2. * S))
    if m > n and u_used:
        grad = U.matmul(inner)
        gUSinv = gU / S.unsqueeze(-2)
        grad = grad + gUSinv - U.matmul(_mH(U).matmul(gUSinv))
        return grad.matmul(Vh)
    if m < n and v_used:
        grad = inner.matmul(Vh)
        SinvgVh = gVh / S.unsqueeze(-1)
        grad = grad + SinvgVh - SinvgVh.matmul(_mH(Vh)).matmul(Vh)
        return U.matmul(grad)
    return U.matmul(inner.matmul(Vh)) if m >= n else U.matmul(inner).matmul(Vh)


def qr_backward(gQ, gR, Q, R, mode):
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                           "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    grad = gR.matmul(_mH(R)) - _mH(Q).matmul(gQ)
    if m >= n:
        upper = grad.triu()
        sym = upper + _mH(upper)
        sym = sym - 0.5 * F.diag_embed(F.real(sym.diagonal(0, -2, -1)).to(sym.dtype))
        grad = Q.matmul(sym) + gQ
        return F.linalg_solve_triangular(_mH(R), grad, upper=False, left=False)
    skew = (-grad - _mH(-grad)).tril()
    if skew.is_complex():
        skew = skew - 0.5j * F.diag_embed(F.imag(skew.diagonal(0, -2, -1)))
    grad = F.linalg_solve_triangular(_mH(R.narrow(-1, 0, m)), Q.matmul(skew), upper=False, left=False)
    grad = F.cat([grad, grad.new_zeros(tuple(R.shape[:-1]) + (n - m,))], -1)
    return grad + Q.matmul(gR)


def cholesky_backward(grad, L, upper):
    """PyTorch's cholesky_backward (Murray 2016): L^-H Phi(L^H gL) L^-1, Phi taking the lower
    triangle with half its diagonal, made Hermitian."""
    if upper:
        L, grad = _mH(L), _mH(grad)
    gA = _mH(L).matmul(grad).tril()
    gA = 0.5 * (gA + _mH(gA.tril(-1)))
    gA = F.linalg_solve_triangular(_mH(L), gA, upper=True, left=True)
    return F.linalg_solve_triangular(L, gA, upper=False, left=False)


def _prod_safe_zeros_backward(grad, values):
    """The gradient of prod over the last dim, without dividing (zeros allowed): each entry
    gets the product of the others, as exclusive cumulative products from both ends."""
    ones = F.ones_like(values.narrow(-1, 0, 1))
    before = F.cat([ones, values.narrow(-1, 0, values.shape[-1] - 1)], -1).cumprod(-1)
    after = F.cat([values.narrow(-1, 1, values.shape[-1] - 1), ones], -1).flip(-1).cumprod(-1).flip(-1)
    return grad * F.conj(before * after)


def pinv_backward(grad, pinvA, A):
    m, n = A.shape[-2:]
    pinvAh, gradh = _mH(pinvA), _mH(grad)
    if m <= n:
        K = gradh.matmul(pinvA)
        KpinvAh = K.matmul(pinvAh)
        return (-_mH(pinvA.matmul(K)) + KpinvAh - A.matmul(pinvA).matmul(KpinvAh)
                + pinvAh.matmul(pinvA).matmul(gradh - K.matmul(A)))
    K = pinvA.matmul(gradh)
    pinvAhK = pinvAh.matmul(K)
    return (-_mH(K.matmul(pinvA)) + (gradh - A.matmul(K)).matmul(pinvA).matmul(pinvAh) + pinvAhK
            - pinvAhK.matmul(pinvA).matmul(A))


def lstsq_backward(gX, gL, A, B, X, vector, which):
    B = B.unsqueeze(-1) if vector else B
    g = gX.unsqueeze(-1) if vector else gX
    pinvA = F.linalg_pinv(A)
    if which == "self":
        grad = pinv_backward(g.matmul(_mH(B)), pinvA, A)
    else:
        grad = _mH(pinvA).matmul(g)
    if gL.numel():
        Xm = X.unsqueeze(-1) if vector else X
        r = A.matmul(Xm) - B
        gLm = gL.unsqueeze(-2)
        grad = grad + (2 * (gLm * r).matmul(_mH(Xm)) if which == "self" else -2 * gLm * r)
    return grad.squeeze(-1) if vector and which == "b" else grad


def matrix_exp_backward(grad, self):
    """The adjoint of exp's differential: exp of [[A^H, G], [0, A^H]], its top-right block."""
    A = _mH(self)
    n = A.shape[-1]
    top = F.cat([A, grad], -1)
    bottom = F.cat([F.zeros_like(A), A], -1)
    return F.linalg_matrix_exp(F.cat([top, bottom], -2)).narrow(-2, 0, n).narrow(-1, n, n)


# ---------------------------------------------------------------------------------------
# the entries
def _columns(outputs, *which):
    """The outputs LAPACK writes in place laid out column-major, as PyTorch's are."""
    return tuple(KL.column_major(o) if i in which else o for i, o in enumerate(outputs))


def _solve_ex_forward(A, B, *, left, vector, check_errors):
    LU, pivots, info = KL.lu_factor(A)
    rhs = B[..., None] if vector else B
    with np.errstate(all="ignore"):
        result = KL.lu_solve(LU, pivots, rhs, left=left)
    result = result[..., 0] if vector else KL.column_major(result)
    return result.astype(A.dtype, copy=False), KL.column_major(LU), pivots, info


linalg_solve_ex = Op(
    "LinalgSolveExBackward0", _solve_ex_forward, multi_output=True, outputs=("result", "LU", "pivots", "info"),
    hidden=("vector",),
    A=lambda grads, result, A, LU, pivots, left, vector: solve_backward(grads[0], result, A, LU, pivots, left,
                                                                        vector, "A"),
    B=lambda grads, A, LU, pivots, left, vector: solve_backward(grads[0], None, A, LU, pivots, left, vector, "B"))
linalg_inv_ex = Op(
    "LinalgInvExBackward0", lambda A, *, check_errors: _columns(KL.inverse(A), 0), multi_output=True, outputs=("inverse", "info"),
    A=lambda grads, inverse: -_mH(inverse).matmul(grads[0].matmul(_mH(inverse))))
linalg_lu_factor_ex = Op(
    "LinalgLuFactorExBackward0", lambda A, *, pivot, check_errors: _columns(KL.lu_factor(A), 0), multi_output=True,
    outputs=("LU", "pivots", "info"),
    A=lambda grads, LU, pivots, pivot: lu_factor_backward(grads[0], LU, pivots, pivot))
linalg_lu = Op(
    "LinalgLuBackward0", lambda A, *, pivot: KL.lu_unpack(*KL.lu_factor(A)[:2]), multi_output=True,
    outputs=("P", "L", "U"),
    A=lambda grads, P, L, U, pivot: lu_backward(grads[1], grads[2], P, L, U, pivot))
lu_unpack = Op(
    "LuUnpackBackward0",
    lambda LU_data, LU_pivots, *, unpack_data, unpack_pivots, LU_data_sym_argsize_minus_1,
    LU_data_sym_argsize_minus_2: KL.lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots),
    multi_output=True,
    LU_data=lambda grads, LU_data_sym_argsize_minus_1, LU_data_sym_argsize_minus_2: _lu_unpack_backward(
        grads[1], grads[2], LU_data_sym_argsize_minus_2, LU_data_sym_argsize_minus_1))


def _lu_unpack_backward(grad_L, grad_U, m, n):
    k = min(m, n)
    if m == n:
        return grad_L.tril(-1) + grad_U.triu()
    if m < n:
        return F.cat([grad_L.tril(-1), grad_U.new_zeros(tuple(grad_U.shape[:-2]) + (m, n - m))], -1) + grad_U.triu()
    return grad_L.tril(-1) + F.cat([grad_U.triu(), grad_L.new_zeros(tuple(grad_L.shape[:-2]) + (m - k, n))], -2)


linalg_lu_solve = Op(
    "LinalgLuSolveBackward0",
    lambda LU, pivots, B, *, left, adjoint: KL.column_major(KL.lu_solve(LU, pivots, B, left, adjoint).astype(
        B.dtype, copy=False)),
    LU=lambda grad, LU, pivots, result, left, adjoint: lu_solve_LU_backward(grad, LU, pivots, result, left, adjoint),
    B=lambda grad, LU, pivots, left, adjoint: F.linalg_lu_solve(LU, pivots, grad, left=left, adjoint=not adjoint))
# one joint formula in derivatives.yaml (self, B: ...): self and result saved whichever needs a gradient
linalg_solve_triangular = Op(
    "LinalgSolveTriangularBackward0",
    lambda self, B, *, upper, left, unitriangular: KL.column_major(KL.solve_triangular(
        self, B, upper, left, unitriangular).astype(self.dtype, copy=False)), joint=True,
    self=lambda grad, self, result, upper, left, unitriangular: _triangular_part(
        -(_solve_triangular_adjoint(grad, self, upper, left, unitriangular).matmul(_mH(result)) if left
          else _mH(result).matmul(_solve_triangular_adjoint(grad, self, upper, left, unitriangular))),
        upper, unitriangular),
    B=lambda grad, self, upper, left, unitriangular: _solve_triangular_adjoint(grad, self, upper, left, unitriangular))


def _solve_triangular_adjoint(grad, A, upper, left, unitriangular):
    return F.linalg_solve_triangular(_mH(A), grad, upper=not upper, left=left, unitriangular=unitriangular)


def _triangular_part(grad, upper, unitriangular):
    return grad.triu(int(unitriangular)) if upper else grad.tril(-int(unitriangular))


def _det_forward(A, *, factored_transpose):
    LU, pivots, _ = KL.lu_factor(np.swapaxes(A, -1, -2) if factored_transpose else A)
    return KL.det_from_lu(LU, pivots), LU, pivots


def _slogdet_forward(A, *, factored_transpose):
    LU, pivots, _ = KL.lu_factor(np.swapaxes(A, -1, -2) if factored_transpose else A)
    sign, logabsdet = KL.slogdet_from_lu(LU, pivots)
    return sign, logabsdet, LU, pivots


# ``factored_transpose``: PyTorch factors a contiguous real A as A^T (LAPACK is column-major),
# so the saved LU is A^T's; its formulas solve with the adjoint flag flipped accordingly.
linalg_det = Op(
    "LinalgDetBackward0", _det_forward, multi_output=True, outputs=("result", "LU", "pivots"), hidden=(
        "factored_transpose",),
    A=lambda grads, result, A, LU, pivots, factored_transpose: det_backward(grads[0], result, A, LU, pivots,
                                                                            factored_transpose))
linalg_slogdet = Op(
    "LinalgSlogdetBackward0", _slogdet_forward, multi_output=True, outputs=("sign", "logabsdet", "LU", "pivots"),
    hidden=("factored_transpose",),
    A=lambda grads, sign, A, LU, pivots, factored_transpose: slogdet_backward(grads[0], grads[1], A, sign, LU, pivots,
                                                                              factored_transpose))
linalg_eigh = Op(
    "LinalgEighBackward0", lambda A, *, UPLO: _columns(KL.eigh(A, UPLO), 1), multi_output=True,
    outputs=("eigenvalues", "eigenvectors"),
    A=lambda grads, eigenvalues, eigenvectors: eigh_backward(grads[0], grads[1], eigenvalues, eigenvectors))
linalg_eig = Op(
    "LinalgEigBackward0", lambda self: _columns(KL.eig(self), 1), multi_output=True, outputs=("eigenvalues", "eigenvectors"),
    self=lambda grads, self, eigenvalues, eigenvectors: _real_if(
        eig_backward(grads[0], grads[1], eigenvalues, eigenvectors), self))


def _real_if(grad, like):
    """A real input's gradient is the real part (PyTorch's handle_r_to_c)."""
    return grad if like.is_complex() else F.real(grad)


linalg_svd = Op(
    "LinalgSvdBackward0",
    lambda A, *, full_matrices, S_sym_argsize_minus_1: _columns(KL.svd(A, full_matrices), 0, 2), multi_output=True,
    outputs=("U", "S", "Vh"),
    A=lambda grads, U, S, Vh, full_matrices, S_sym_argsize_minus_1: svd_backward(
        grads[0], grads[1], grads[2], U, S, Vh, full_matrices))
linalg_qr = Op(
    "LinalgQrBackward0", lambda A, *, mode: _columns(KL.qr(A, mode), 0, 1), multi_output=True, outputs=("Q", "R"),
    A=lambda grads, Q, R, mode: qr_backward(grads[0], grads[1], Q, R, mode))
linalg_cholesky_ex = Op(
    "LinalgCholeskyExBackward0", lambda self, *, upper, check_errors: _columns(KL.cholesky(self, upper), 0), multi_output=True,
    outputs=("L", "info"),
    self=lambda grads, L, upper: cholesky_backward(grads[0], L, upper))
cholesky = Op(
    "CholeskyBackward0", lambda self, *, upper: KL.column_major(KL.cholesky(self, upper)[0]),
    self=lambda grad, result, upper: cholesky_backward(grad, result, upper))
linalg_matrix_exp = Op(
    "LinalgMatrixExpBackward0", lambda self: KL.matrix_exp(self),
    self=lambda grad, self: matrix_exp_backward(grad, self))
linalg_cross = Op(
    "LinalgCrossBackward0", lambda self, other, *, dim: KL.cross(self, other, dim), promotes=True,
    self=lambda grad, other, dim: F.linalg_cross(F.conj(other), grad, dim=dim),
    other=lambda grad, self, dim: F.linalg_cross(grad, F.conj(self), dim=dim))
linalg_pinv = Op(
    "LinalgPinvBackward0", lambda self, *, atol, rtol, hermitian: KL.pinv(self, atol, rtol, hermitian),
    self=lambda grad, result, self: pinv_backward(grad, result, self))
linalg_lstsq = Op(
    "LinalgLstsqBackward0", lambda self, b, *, rcond, driver, vector: _columns(KL.lstsq(self, b, rcond, driver, vector), 0), multi_output=True,
    outputs=("solution", "residuals", "rank", "singular_values"), hidden=("vector",),
    self=lambda grads, self, b, solution, vector: lstsq_backward(grads[0], grads[1], self, b, solution, vector,
                                                                 "self"),
    b=lambda grads, self, b, solution, vector: lstsq_backward(grads[0], grads[1], self, b, solution, vector, "b"))
triangular_solve = Op(
    "TriangularSolveBackward0",
    lambda self, A, *, upper, transpose, unitriangular: _columns(KL.triangular_solve(
        self, A, upper, transpose, unitriangular), 0, 1),
    multi_output=True, outputs=("solution", "cloned_coefficient"),
    self=lambda grads, A, upper, transpose, unitriangular: F.triangular_solve(
        grads[0], F.conj(A), upper, not transpose, unitriangular)[0],
    A=lambda grads, self, A, solution, upper, transpose, unitriangular: _triangular_part(
        (-F.conj(solution).matmul(F.triangular_solve(grads[0], F.conj(A), upper, not transpose,
                                                     unitriangular)[0].transpose(-2, -1)) if transpose
         else -F.triangular_solve(grads[0], F.conj(A), upper, not transpose, unitriangular)[0].matmul(
             _mH(solution))), upper, unitriangular) + grads[1])
cholesky_solve = Op(
    "CholeskySolveBackward0", lambda self, input2, *, upper: KL.column_major(KL.cholesky_solve(self, input2, upper)),
    self=lambda grad, input2, upper: F.cholesky_solve(grad, input2, upper),
    input2=lambda grad, self, input2, result, upper: _cholesky_solve_factor_grad(grad, input2, result, upper))


def _cholesky_solve_factor_grad(grad, input2, result, upper):
    grad_self = F.cholesky_solve(grad, input2, upper)
    common = grad_self.matmul(_mH(result))
    common = common + _mH(common)
    return -input2.matmul(common) if upper else -common.matmul(input2)


cholesky_inverse = Op(
    "CholeskyInverseBackward0", lambda self, *, upper: KL.column_major(KL.cholesky_inverse(self, upper)),
    self=lambda grad, self, result, upper: _cholesky_inverse_grad(grad, self, result, upper))


def _cholesky_inverse_grad(grad, L, result, upper):
    """PyTorch's cholesky_inverse_backward: -(A^-1 (G + G^H) A^-1) applied to the factor."""
    common = -result.matmul(grad + _mH(grad)).matmul(result)
    return L.matmul(common) if upper else common.matmul(L)
