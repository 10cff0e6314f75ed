"""torch.linalg's factorisations and solvers built on LU and Cholesky (solve, inv, det,
slogdet, lu*, cholesky*, solve_triangular) and their older torch.* forms (inverse, det,
logdet, lu_solve, lu_unpack, triangular_solve, cholesky_solve, cholesky_inverse).
The torch.linalg names reach users through gradviz/torch/linalg.py; the nodes are
_ops_linalg's. Results come as PyTorch's named tuples (torch.return_types.linalg_*)."""
import operator

import numpy as np

from . import _errors, _errors_linalg as E, _ops_linalg as OL
from ._common import _dtype_word, apply
from ._namespace import F

EXPORTS = (
    "linalg_solve", "linalg_solve_ex", "linalg_inv", "linalg_inv_ex", "linalg_det", "linalg_slogdet",
    "linalg_lu_factor", "linalg_lu_factor_ex", "linalg_lu", "linalg_lu_solve", "linalg_cholesky", "linalg_cholesky_ex",
    "linalg_solve_triangular", "linalg_matrix_power", "check_linalg_input", "return_type", "not_differentiable",
    "inverse", "det", "logdet", "slogdet", "lu_solve", "lu_unpack", "lu", "triangular_solve", "cholesky",
    "cholesky_solve", "cholesky_inverse", "matrix_power", "solve", "lstsq", "eig", "symeig",
)
TORCH = (
    "inverse", "det", "logdet", "slogdet", "lu_solve", "lu_unpack", "lu", "triangular_solve", "cholesky",
    "cholesky_solve", "cholesky_inverse", "matrix_power",
)
METHODS = (
    "inverse", "det", "logdet", "slogdet", "lu_solve", "lu", "triangular_solve", "cholesky", "cholesky_solve",
    "cholesky_inverse", "matrix_power", "solve", "lstsq", "eig", "symeig",
)


# ---------------------------------------------------------------------------------------
# named results and shared checks
class _ReturnTuple(tuple):
    """A torch.return_types structseq: a tuple whose items are also named fields."""
    __slots__ = ()
    _name = ""
    _fields = ()

    def __new__(cls, *values):
        return tuple.__new__(cls, values)

    def __repr__(self):
        body = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
        return f"torch.return_types.{self._name}(\n{body})"

    def __reduce__(self):
        return (type(self), tuple(self))


_RETURN_TYPES = {}


def return_type(name, fields):
    """The named-tuple class torch.return_types.<name>, one per name."""
    cls = _RETURN_TYPES.get(name)
    if cls is None:
        attrs = {"__slots__": (), "_name": name, "_fields": tuple(fields), "__module__": "torch.return_types"}
        attrs.update((field, property(operator.itemgetter(i))) for i, field in enumerate(fields))
        cls = _RETURN_TYPES[name] = type(name, (_ReturnTuple,), attrs)
    return cls


def not_differentiable(t):
    """An output PyTorch declares not differentiable (lu's P): no grad_fn, no requires_grad."""
    t._grad_fn = None
    t._requires_grad = False
    t._output_nr = 0
    return t


def _type_name(t):
    return _dtype_word(t.dtype)


def check_linalg_input(fn, A, name="A", square=True, kernel=None, low_precision=False, floating_check=True):
    """PyTorch's squareCheckInputs + checkFloatingOrComplex, in their order; ``kernel`` names
    the LAPACK kernel whose dispatch refuses half precision (``"lu_cpu"``), ``low_precision``
    says the function refuses it itself first (linalg.inv). Without ``floating_check`` (the
    older torch.cholesky & co.) the kernel's dispatch refuses integers too."""
    if A.dim() < 2:
        raise E.too_few_dims(fn, name)
    if square and A.shape[-1] != A.shape[-2]:
        raise E.not_square(fn, A.shape[-2], A.shape[-1])
    kind = A._data.dtype.kind
    if kind not in "fcV":
        if not floating_check:
            raise E.kernel_not_implemented(kernel, _type_name(A))
        raise E.not_floating(fn, _type_name(A))
    if kind == "V" or A._data.dtype == np.float16:
        if low_precision:
            raise E.low_precision(fn, _type_name(A))
        raise E.kernel_not_implemented(kernel or "lu_cpu", _type_name(A))


def _first_failure(info):
    """(batch index or None, info value) of the first failed matrix, or None."""
    failed = np.flatnonzero(info.reshape(-1) > 0)
    if failed.size == 0:
        return None
    index = int(failed[0])
    return (index if info.ndim else None), int(info.reshape(-1)[index])


def _solve_vector_case(A, B):
    return B.dim() == 1 or (A.dim() - 1 == B.dim() and tuple(B.shape) == tuple(A.shape[:-1]))


# ---------------------------------------------------------------------------------------
# solve and inverse
def linalg_solve_ex(A, B, *, left=True, check_errors=False):
    check_linalg_input("linalg.solve", A)
    if A._data.dtype != B._data.dtype:
        raise E.different_dtypes("linalg.solve", _type_name(A), _type_name(B))
    vector = _solve_vector_case(A, B)
    n = A.shape[-1]
    rows, cols = (B.shape[-1], 1) if vector else (B.shape[-2], B.shape[-1])
    if (rows if left or vector else cols) != n:
        raise E.incompatible_shapes("linalg.solve", n, rows, cols)
    result, _, _, info = apply(OL.linalg_solve_ex, (A, B), {"left": left, "vector": vector,
                                                            "check_errors": check_errors})
    if check_errors:
        _raise_solve_failure(info)
    return return_type("linalg_solve_ex", ("result", "info"))(result, info)


def _raise_solve_failure(info):
    failure = _first_failure(info._data)
    if failure is not None:
        raise E.solve_singular(failure[0])


def linalg_solve(A, B, *, left=True):
    result, info = linalg_solve_ex(A, B, left=left)
    _raise_solve_failure(info)
    return result


def linalg_inv_ex(A, *, check_errors=False):
    check_linalg_input("linalg.inv", A, low_precision=True)
    inverse, info = apply(OL.linalg_inv_ex, (A,), {"check_errors": check_errors})
    if check_errors:
        _raise_inv_failure("linalg.inv_ex", info)
    return return_type("linalg_inv_ex", ("inverse", "info"))(inverse, info)


def _raise_inv_failure(fn, info):
    failure = _first_failure(info._data)
    if failure is not None:
        raise E.inv_singular(fn, *failure)


def linalg_inv(A):
    inverse, info = linalg_inv_ex(A)
    _raise_inv_failure("linalg.inv", info)
    return inverse


inverse = linalg_inv


# ---------------------------------------------------------------------------------------
# determinants
def _factors_transpose(A):
    return A.is_contiguous() and not A.is_complex()


def linalg_det(A):
    check_linalg_input("linalg.det", A)
    return apply(OL.linalg_det, (A,), {"factored_transpose": _factors_transpose(A)})[0]


det = linalg_det


def linalg_slogdet(A, _name="linalg_slogdet"):
    check_linalg_input("linalg.slogdet", A)
    sign, logabsdet, _, _ = apply(OL.linalg_slogdet, (A,), {"factored_transpose": _factors_transpose(A)})
    return return_type(_name, ("sign", "logabsdet"))(sign, logabsdet)


def slogdet(input):
    return linalg_slogdet(input, "slogdet")


def logdet(input):
    """PyTorch's logdet: slogdet's log|det|, NaN where the determinant is negative."""
    check_linalg_input("logdet", input)
    sign, logabsdet = linalg_slogdet(input)
    if input.is_complex():
        return F.log(sign) + logabsdet
    return F.where(sign == -1, float("nan"), logabsdet)


# ---------------------------------------------------------------------------------------
# LU
def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False):
    if A.dim() < 2:
        raise E.lu_factor_dims(tuple(A.shape))
    if A._data.dtype.kind not in "fc":
        raise E.kernel_not_implemented("lu_cpu", _type_name(A))
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, pivots, info = apply(OL.linalg_lu_factor_ex, (A,), {"pivot": pivot, "check_errors": check_errors})
    if check_errors:
        _raise_lu_failure(info)
    return return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))(LU, pivots, info)


def _raise_lu_failure(info):
    failure = _first_failure(info._data)
    if failure is not None:
        raise E.lu_factor_singular(*failure)


def linalg_lu_factor(A, *, pivot=True):
    LU, pivots, info = linalg_lu_factor_ex(A, pivot=pivot)
    _raise_lu_failure(info)
    return return_type("linalg_lu_factor", ("LU", "pivots"))(LU, pivots)


def linalg_lu(A, *, pivot=True):
    if A.dim() < 2:
        raise E.lu_factor_dims(tuple(A.shape))
    if A._data.dtype.kind not in "fc":
        raise E.kernel_not_implemented("lu_cpu", _type_name(A))
    P, L, U = apply(OL.linalg_lu, (A,), {"pivot": pivot})
    return return_type("linalg_lu", ("P", "L", "U"))(not_differentiable(P), L, U)


def lu(A, pivot=True, get_infos=False):
    _errors.warn_once(E.LU_DEPRECATED)
    LU, pivots, info = linalg_lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    m, n = LU_data.shape[-2:]
    P, L, U = apply(OL.lu_unpack, (LU_data, LU_pivots), {
        "unpack_data": unpack_data, "unpack_pivots": unpack_pivots,
        "LU_data_sym_argsize_minus_1": n, "LU_data_sym_argsize_minus_2": m})
    return return_type("lu_unpack", ("P", "L", "U"))(not_differentiable(P), L, U)


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    if B.dim() < 2:
        raise E.too_few_dims("linalg.lu_solve", "B")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise E.incompatible_shapes("linalg.lu_solve", n, B.shape[-2], B.shape[-1])
    return apply(OL.linalg_lu_solve, (LU, pivots, B), {"left": left, "adjoint": adjoint})


def lu_solve(input, LU_data, LU_pivots):
    _errors.warn_once(E.LU_SOLVE_DEPRECATED)
    return linalg_lu_solve(LU_data, LU_pivots, input)


# ---------------------------------------------------------------------------------------
# Cholesky and triangular systems
def linalg_cholesky_ex(A, *, upper=False, check_errors=False):
    check_linalg_input("linalg.cholesky", A, kernel="cholesky_cpu")
    L, info = apply(OL.linalg_cholesky_ex, (A,), {"upper": upper, "check_errors": check_errors})
    if check_errors:
        _raise_cholesky_failure("linalg.cholesky_ex", info)
    return return_type("linalg_cholesky_ex", ("L", "info"))(L, info)


def _raise_cholesky_failure(fn, info):
    failure = _first_failure(info._data)
    if failure is not None:
        raise E.not_positive_definite(fn, *failure)


def linalg_cholesky(A, *, upper=False):
    L, info = linalg_cholesky_ex(A, upper=upper)
    _raise_cholesky_failure("linalg.cholesky", info)
    return L


def cholesky(input, upper=False):
    _errors.warn_once(E.CHOLESKY_DEPRECATED)
    check_linalg_input("cholesky", input, kernel="cholesky_cpu", floating_check=False)
    info = OL.KL.cholesky(input._data, upper)[1]
    _raise_cholesky_failure("cholesky", _as_tensor(info))
    return apply(OL.cholesky, (input,), {"upper": upper})


def _as_tensor(array):
    return F.from_numpy(np.asarray(array))


def cholesky_solve(input, input2, upper=False):
    return apply(OL.cholesky_solve, (input, input2), {"upper": upper})


def cholesky_inverse(input, upper=False):
    check_linalg_input("cholesky_inverse", input, kernel="cholesky_inverse_out_cpu", floating_check=False)
    return apply(OL.cholesky_inverse, (input,), {"upper": upper})


def linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    for name, t in (("A", A), ("B", B)):
        if t.dim() < 2:
            raise E.too_few_dims("linalg.solve_triangular", name)
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise E.incompatible_shapes("linalg.solve_triangular", n, B.shape[-2], B.shape[-1])
    if A._data.dtype != B._data.dtype:  # PyTorch promotes both to their common type
        dtype = _as_tensor(np.empty(0, np.promote_types(A._data.dtype, B._data.dtype))).dtype
        A, B = A.to(dtype), B.to(dtype)
    return apply(OL.linalg_solve_triangular, (A, B), {"upper": upper, "left": left, "unitriangular": unitriangular})


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    _errors.warn_once(E.TRIANGULAR_SOLVE_DEPRECATED)
    solution, coefficient = apply(OL.triangular_solve, (input, A), {
        "upper": upper, "transpose": transpose, "unitriangular": unitriangular})
    return return_type("triangular_solve", ("solution", "cloned_coefficient"))(solution, coefficient)


# ---------------------------------------------------------------------------------------
# powers
def linalg_matrix_power(A, n):
    """PyTorch's linalg_matrix_power: the identity (a copy over A), A's inverse for negative n,
    then binary powering: squares of A, multiplied in where n has a bit set."""
    if type(n) is not int and not isinstance(n, np.integer):
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    if A.dim() < 2:
        raise E.too_few_dims("linalg.matrix_power", "A")
    if A.shape[-1] != A.shape[-2]:
        raise E.not_square("linalg.matrix_power", A.shape[-2], A.shape[-1])
    if n == 0:
        return F.copy_(F.clone(A), F.eye(A.shape[-1], dtype=A.dtype).expand(tuple(A.shape)))
    if n == -1:
        return linalg_inv(A)
    if n < 0:
        A, n = linalg_inv(A), -n
    if n == 1:
        return F.clone(A)
    if n == 2:
        return F.matmul(A, A)
    if n == 3:
        return F.matmul(F.matmul(A, A), A)
    square = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        square = A if square is None else F.matmul(square, square)
        if bit:
            result = square if result is None else F.matmul(result, square)
    return result


matrix_power = linalg_matrix_power


# ---------------------------------------------------------------------------------------
# names PyTorch keeps only to say they are gone
def solve(*args, **kwargs):
    raise E.removed("solve")


def lstsq(*args, **kwargs):
    raise E.removed("lstsq")


def eig(*args, **kwargs):
    raise E.removed("eig")


def symeig(*args, **kwargs):
    raise E.removed("symeig")
