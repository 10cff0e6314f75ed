"""The error and warning texts of torch.linalg and the older torch.* solvers, in PyTorch
2.13's exact wording (aten/src/ATen/native/BatchLinearAlgebra.cpp, LinearAlgebraUtils.h,
LinearAlgebra.cpp). Each constructor returns the exception to raise; warnings are strings."""
from ._errors import kernel_not_implemented  # noqa: F401  (one text for every kernel refusing a dtype)


_TRIGGERED = " (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:{}.)"


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: what a failed decomposition raises (a RuntimeError)."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"
LinAlgError.__module__ = "torch._C"


def _batch(index):
    return "" if index is None else f"(Batch element {index}): "


def not_square(fn, m, n):
    return RuntimeError(f"{fn}: A must be batches of square matrices, but they are {m} by {n} matrices")


def not_floating(fn, type_name):
    return RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got {type_name}")


def low_precision(fn, type_name):
    return RuntimeError(f"{fn}: Low precision dtypes not supported. Got {type_name}")


def too_few_dims(fn, name):
    return RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")


def incompatible_shapes(fn, n, rows, cols):
    return RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation AX = B ({n}x{n} and {rows}x{cols})")


def different_dtypes(fn, a, b):
    return RuntimeError(f"{fn}: Expected A and B to have the same dtype, but found A of type {a} and B of type {b} "
                        "instead")


def solve_singular(index):
    return LinAlgError(f"torch.linalg.solve: {_batch(index)}The solver failed because the input matrix is singular.")


def inv_singular(fn, index, element):
    return LinAlgError(f"{fn}: {_batch(index)}The diagonal element {element} is zero, the inversion could not be "
                       "completed because the input matrix is singular.")


def not_positive_definite(fn, index, order):
    return LinAlgError(f"{fn}: {_batch(index)}The factorization could not be completed because the input is not "
                       f"positive-definite (the leading minor of order {order} is not positive-definite).")


def lu_factor_singular(index, element):
    return RuntimeError(f"torch.linalg.lu_factor: {_batch(index)}U[{element},{element}] is zero and using it on "
                        "lu_solve would result in a division by zero. If you still want to perform the factorization, "
                        "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def lu_factor_dims(shape):
    return RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
                        f"[{', '.join(map(str, shape))}] instead")


def bad_uplo(uplo):
    return RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {uplo}")


def bad_qr_mode(mode):
    return RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or "
                        "'complete'")


def eig_not_complex(type_name):
    return RuntimeError(f"Unknown Complex ScalarType for {type_name}")


def multi_dot_count(count):
    return RuntimeError(f"multi_dot(): expected at least 2 tensors but got {count}")


def multi_dot_end(which, dims):
    return RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {dims}D")


def multi_dot_middle(index, dims):
    return RuntimeError(f"multi_dot(): tensor {index} must be 2D but got {dims}D")


def multi_dot_dtype(first, index, other):
    return RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is {first} and tensor "
                        f"{index} {other}")


def multi_dot_shapes(i, a, b):
    return RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes [{', '.join(map(str, a))}] and "
                        f"[{', '.join(map(str, b))}] cannot be multiplied")


def cross_dims():
    return RuntimeError("linalg.cross: inputs must have the same number of dimensions.")


def cross_length(dim, a, b):
    return RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a} and {b}")


def scalar_type(expected, found):
    return RuntimeError(f"expected scalar type {expected} but found {found}")


def vander_n():
    return RuntimeError("N must be greater than 1.")


def tensorinv_ind(ind):
    return RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")


def tensorinv_shape(rows, cols):
    return RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
                        f"but got {cols} != {rows}")


def pinv_dtype(type_name, shape):
    return RuntimeError(f"linalg.pinv({type_name}{{[{', '.join(map(str, shape))}]}}): expected a tensor with 2 or more "
                        "dimensions of float, double, cfloat or cdouble types")


def lstsq_rows():
    return RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")


def removed(name):
    """torch.eig / symeig / lstsq / solve: removed in 1.9; PyTorch keeps the names to say so."""
    return RuntimeError("This function was deprecated since version 1.9 and is now removed. " + _REMOVED[name])


_REMOVED = {
    "eig": ("`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
            "mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
            "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
            "L_complex, V_complex = torch.linalg.eig(A)"),
    "symeig": ("The default behavior has changed from using the upper triangular portion of the matrix by default to "
               "using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
               "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
               "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"),
    "lstsq": ("`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed "
              "arguments and does not return the QR decomposition in the returned tuple (although it returns other "
              "information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`.\n\n"
              "The returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns "
              "of the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
              "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = "
              "torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, "
              "B).solution"),
    "solve": ("`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments "
              "reversed and does not return the LU factorization.\n\nTo get the LU factorization see `torch.lu`, "
              "which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should "
              "be replaced with:\nX = torch.linalg.solve(A, B)"),
}

QR_DEPRECATED = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\nThe boolean "
    "parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced "
    "with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')" + _TRIGGERED.format(2505))
CHOLESKY_DEPRECATED = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch release.\n"
    "L = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, "
    "upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent "
    "results for all valid (symmetric positive definite) inputs." + _TRIGGERED.format(1765))
LU_SOLVE_DEPRECATED = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch release.\n"
    "Note that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be "
    "replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)" + _TRIGGERED.format(2230))
TRIANGULAR_SOLVE_DEPRECATED = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a future "
    "PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a copy of one of "
    "the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
    "torch.linalg.solve_triangular(A, B)." + _TRIGGERED.format(2273))
LU_DEPRECATED = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed in a "
    "future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = "
    "torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\n"
    "should be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)" + _TRIGGERED.format(2073))
