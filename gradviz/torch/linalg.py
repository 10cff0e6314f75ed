"""torch.linalg: the norms (all through LinalgVectorNormBackward0, as in PyTorch) and the
matrix products that have a torch-level form. Imported by gradviz.torch after
_functions.build() has filled F."""
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


from . import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
