"""torch.linalg: the norms (all through LinalgVectorNormBackward0, as in PyTorch), the
matrix products that have a torch-level form, and the decompositions and solvers of the
families _fn_linalg_solve and _fn_linalg_spectral (their F.linalg_<name> functions, named
here as PyTorch's torch.linalg.<name>). Imported by gradviz.torch after _functions.build()
has filled F."""
from ._errors_linalg import LinAlgError  # noqa: F401 (torch.linalg.LinAlgError)
from ._namespace import F

vector_norm = F.vector_norm


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    if ord != "fro":
        raise NotImplementedError(f"gradviz: linalg.matrix_norm with ord={ord!r}")
    return vector_norm(A, 2, dim, keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm for 1-D inputs, a given int dim, or no ord; the Frobenius norm of matrices."""
    if isinstance(dim, int) or (dim is None and (ord is None or A.dim() == 1)):
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    return matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)


def vecdot(x, y, *, dim=-1):
    return F.sum(x * y, dim)


matmul = F.matmul

solve, solve_ex, inv, inv_ex = F.linalg_solve, F.linalg_solve_ex, F.linalg_inv, F.linalg_inv_ex
det, slogdet = F.linalg_det, F.linalg_slogdet
lu_factor, lu_factor_ex, lu, lu_solve = F.linalg_lu_factor, F.linalg_lu_factor_ex, F.linalg_lu, F.linalg_lu_solve
cholesky, cholesky_ex, solve_triangular = F.linalg_cholesky, F.linalg_cholesky_ex, F.linalg_solve_triangular
matrix_power = F.linalg_matrix_power
eigh, eigvalsh, eig, eigvals = F.linalg_eigh, F.linalg_eigvalsh, F.linalg_eig, F.linalg_eigvals
svd, svdvals, qr = F.linalg_svd, F.linalg_svdvals, F.linalg_qr
pinv, lstsq, matrix_rank, cond = F.linalg_pinv, F.linalg_lstsq, F.linalg_matrix_rank, F.linalg_cond
matrix_exp, cross, vander, multi_dot = F.linalg_matrix_exp, F.linalg_cross, F.linalg_vander, F.linalg_multi_dot
tensorinv, tensorsolve, diagonal = F.linalg_tensorinv, F.linalg_tensorsolve, F.linalg_diagonal


from . import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
