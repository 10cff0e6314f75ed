"""torch.linalg's spectral decompositions and what is built on them (eigh, eig, svd, qr,
pinv, lstsq, matrix_rank, cond), the matrix functions (matrix_exp, cross, vander,
multi_dot, tensorinv, tensorsolve) and their older torch.* forms (svd with V, qr with
``some``, pinverse, matrix_exp). The torch.linalg names reach users through
gradviz/torch/linalg.py; the nodes are _ops_linalg's."""
import numpy as np

from . import _errors, _errors_dtypes, _errors_linalg as E, _ops_linalg as OL
from ._common import _dtype_word, apply
from ._namespace import F

EXPORTS = (
    "linalg_eigh", "linalg_eigvalsh", "linalg_eig", "linalg_eigvals", "linalg_svd", "linalg_svdvals", "linalg_qr",
    "linalg_pinv", "linalg_lstsq", "linalg_matrix_rank", "linalg_cond", "linalg_matrix_exp", "linalg_cross",
    "linalg_vander", "linalg_multi_dot", "linalg_tensorinv", "linalg_tensorsolve", "linalg_diagonal",
    "svd", "qr", "pinverse", "matrix_exp",
)
TORCH = ("svd", "qr", "pinverse", "matrix_exp")
METHODS = ("svd", "qr", "pinverse", "matrix_exp")


def _check(fn, A, kernel=None, square=True):
    F.check_linalg_input(fn, A, square=square, kernel=kernel)


def _named(name, fields, values):
    return F.return_type(name, fields)(*values)


# ---------------------------------------------------------------------------------------
# Hermitian and general eigendecompositions
def linalg_eigh(A, UPLO="L"):
    if UPLO not in ("L", "U"):
        raise E.bad_uplo(UPLO)
    if A.dim() < 2:
        raise E.too_few_dims("linalg.eigh", "A")
    if A.shape[-1] != A.shape[-2]:
        raise E.not_square("linalg.eigh", A.shape[-2], A.shape[-1])
    if A._data.dtype.kind not in "fc" or A._data.dtype == np.float16:
        raise E.kernel_not_implemented("linalg_eigh_cpu", _dtype_word(A.dtype))
    values, vectors = apply(OL.linalg_eigh, (A,), {"UPLO": UPLO})
    return _named("linalg_eigh", ("eigenvalues", "eigenvectors"), (values, vectors))


def linalg_eigvalsh(A, UPLO="L"):
    return linalg_eigh(A, UPLO)[0]


def linalg_eig(A):
    if A.dim() < 2:
        raise E.too_few_dims("linalg.eig", "A")
    if A.shape[-1] != A.shape[-2]:
        raise E.not_square("linalg.eig", A.shape[-2], A.shape[-1])
    if A._data.dtype.kind not in "fc":
        raise E.eig_not_complex(_dtype_word(A.dtype))
    values, vectors = apply(OL.linalg_eig, (A,), {})
    return _named("linalg_eig", ("eigenvalues", "eigenvectors"), (values, vectors))


def linalg_eigvals(A):
    return linalg_eig(A)[0]


# ---------------------------------------------------------------------------------------
# SVD and QR
def linalg_svd(A, full_matrices=True, *, driver=None):
    _check("linalg.svd", A, kernel="linalg_svd_cpu", square=False)
    U, S, Vh = apply(OL.linalg_svd, (A,), {"full_matrices": full_matrices,
                                          "S_sym_argsize_minus_1": min(A.shape[-2:])})
    return _named("linalg_svd", ("U", "S", "Vh"), (U, S, Vh))


def linalg_svdvals(A, *, driver=None):
    _check("linalg.svd", A, kernel="linalg_svd_cpu", square=False)
    return apply(OL.linalg_svd, (A,), {"full_matrices": False, "S_sym_argsize_minus_1": min(A.shape[-2:])})[1]


def svd(input, some=True, compute_uv=True):
    """The older torch.svd: V rather than Vh (its transpose), zeros for U and V without compute_uv."""
    if input.dim() < 2:
        raise _errors_dtypes.svd_needs_a_matrix(input.dim())
    if not compute_uv:
        S = linalg_svdvals(input)
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        U = F.zeros(batch + (m, m), dtype=input.dtype)
        V = F.zeros(batch + (n, n), dtype=input.dtype)
        return _named("svd", ("U", "S", "V"), (U, S, V))
    U, S, Vh = linalg_svd(input, full_matrices=not some)
    V = F.conj(Vh.transpose(-2, -1)) if Vh.is_complex() else Vh.transpose(-2, -1)
    return _named("svd", ("U", "S", "V"), (U, S, V))


def linalg_qr(A, mode="reduced"):
    if mode not in ("reduced", "complete", "r"):
        raise E.bad_qr_mode(mode)
    _check("linalg.qr", A, kernel="geqrf_cpu", square=False)
    Q, R = apply(OL.linalg_qr, (A,), {"mode": mode})
    return _named("linalg_qr", ("Q", "R"), (Q, R))


def qr(input, some=True):
    _errors.warn_once(E.QR_DEPRECATED)
    Q, R = linalg_qr(input, "reduced" if some else "complete")
    return _named("qr", ("Q", "R"), (Q, R))


# ---------------------------------------------------------------------------------------
# what is built on the SVD
def linalg_pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    if A.dim() < 2 or A._data.dtype.kind not in "fc":
        raise E.pinv_dtype(_dtype_word(A.dtype), tuple(A.shape))
    if rcond is not None:  # the older spelling of rtol
        rtol = rcond
    return apply(OL.linalg_pinv, (A,), {"atol": _number(atol), "rtol": _number(rtol), "hermitian": hermitian})


def _number(value):
    return value._data if hasattr(value, "_data") else value


def pinverse(input, rcond=1e-15):
    return linalg_pinv(input, rtol=rcond)


def linalg_lstsq(A, B, rcond=None, *, driver=None):
    _check("linalg.lstsq", A, kernel="linalg_lstsq_cpu", square=False)
    vector = B.dim() == A.dim() - 1
    if (B.shape[-1] if vector else B.shape[-2]) != A.shape[-2]:
        raise E.lstsq_rows()
    solution, residuals, rank, values = apply(OL.linalg_lstsq, (A, B), {
        "rcond": rcond, "driver": driver or "gelsy", "vector": vector})
    F.not_differentiable(values)
    return _named("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"),
                  (solution, residuals, rank, values))


def linalg_matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """How many singular values (|eigenvalues| when hermitian) exceed max(atol, rtol * largest);
    rtol defaults to eps * max(m, n) when neither tolerance is given; ``tol`` is atol's old name."""
    _check("linalg.matrix_rank", A, kernel="linalg_svd_cpu", square=hermitian)
    if tol is not None:
        atol, rtol = tol, 0.0
    data = A._data
    values = np.abs(np.linalg.eigvalsh(data)) if hermitian else (
        np.linalg.svd(data, compute_uv=False) if data.size else np.zeros(data.shape[:-2] + (0,)))
    real = np.abs(data[..., :0, :0]).dtype
    if rtol is None:
        rtol = 0.0 if (atol is not None and np.any(np.asarray(_number(atol)) > 0)) else (
            np.finfo(real).eps * max(data.shape[-2:]))
    largest = values.max(axis=-1, keepdims=True) if values.shape[-1] else np.zeros(values.shape[:-1] + (1,))
    tolerance = np.maximum(np.asarray(_number(0.0 if atol is None else atol), real)[..., None],
                           np.asarray(_number(rtol), real)[..., None] * largest)
    return F.from_numpy(np.asarray(np.sum(values > tolerance, axis=-1), dtype=np.int64))


def linalg_cond(A, p=None):
    """The 2-norm condition number (the largest over the smallest singular value, or its
    inverse for p=-2); the other norms' forms are not in gradviz yet."""
    if p not in (None, 2, -2):
        raise NotImplementedError(f"gradviz: linalg.cond with p={p!r}")
    S = linalg_svdvals(A)
    k = S.shape[-1]
    first, last = S.narrow(-1, 0, 1), S.narrow(-1, k - 1, 1)
    return (last / first if p == -2 else first / last).squeeze(-1)


# ---------------------------------------------------------------------------------------
# matrix functions and products
def linalg_matrix_exp(A):
    _check("linalg.matrix_exp", A, kernel="linalg_matrix_exp_cpu")
    return apply(OL.linalg_matrix_exp, (A,), {})


matrix_exp = linalg_matrix_exp


def linalg_cross(input, other, *, dim=-1):
    if input.dim() != other.dim():
        raise E.cross_dims()
    if input._data.dtype != other._data.dtype:
        raise E.scalar_type(_dtype_word(input.dtype), _dtype_word(other.dtype))
    shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    wrapped = dim % len(shape) if shape else dim
    if input.shape[wrapped] != 3 or other.shape[wrapped] != 3:
        raise E.cross_length(dim, input.shape[wrapped], other.shape[wrapped])
    return apply(OL.linalg_cross, (input, other), {"dim": wrapped})


def linalg_vander(x, *, N=None):
    """PyTorch's linalg_vander: a column of ones, then the cumulative products of x."""
    x_ = x.unsqueeze(-1) if x.dim() == 0 else x
    n = x_.shape[-1] if N is None else N
    if n <= 1:
        raise E.vander_n()
    shape = tuple(x_.shape) + (n - 1,)
    powers = F.cumprod(x_.unsqueeze(-1).expand(shape), -1)
    ones = powers.new_ones(shape[:-1] + (1,))
    return F.cat([ones, powers], -1)


def linalg_multi_dot(tensors):
    """PyTorch's multi_dot: the cheaper order for three matrices, the matrix-chain order beyond."""
    count = len(tensors)
    if count < 2:
        raise E.multi_dot_count(count)
    _check_chain(tensors)
    first_1d, last_1d = tensors[0].dim() == 1, tensors[-1].dim() == 1
    chain = list(tensors)
    chain[0] = chain[0].unsqueeze(0) if first_1d else chain[0]
    chain[-1] = chain[-1].unsqueeze(-1) if last_1d else chain[-1]
    for i in range(count - 1):
        if chain[i].shape[-1] != chain[i + 1].shape[0]:
            raise E.multi_dot_shapes(i, tuple(tensors[i].shape), tuple(tensors[i + 1].shape))
    out_shape = (() if first_1d else (chain[0].shape[0],)) + (() if last_1d else (chain[-1].shape[1],))
    if count == 2:
        result = F.mm(chain[0], chain[1])
    elif count == 3:
        a, b = chain[0].shape
        c, d = chain[2].shape
        if a * c * (b + d) > b * d * (a + c):
            result = F.mm(chain[0], F.mm(chain[1], chain[2]))
        else:
            result = F.mm(F.mm(chain[0], chain[1]), chain[2])
    else:
        result = _chain_product(chain, _chain_order(chain))
    return result.view(out_shape)


def _check_chain(tensors):
    count = len(tensors)
    for i, t in enumerate(tensors):
        dims = t.dim()
        if i in (0, count - 1) and dims not in (1, 2):
            raise E.multi_dot_end("first" if i == 0 else "last", dims)
        if 0 < i < count - 1 and dims != 2:
            raise E.multi_dot_middle(i, dims)
        if t._data.dtype != tensors[0]._data.dtype:
            raise E.multi_dot_dtype(tensors[0].dtype.name.replace("float32", "float").replace("float64", "double"),
                                    i, t.dtype.name.replace("float32", "float").replace("float64", "double"))


def _chain_order(chain):
    """The classic matrix-chain dynamic programme, ties kept at the first split (PyTorch's)."""
    count = len(chain)
    dims = [chain[0].shape[0]] + [t.shape[1] for t in chain]
    cost = [[0] * count for _ in range(count)]
    split = [[0] * count for _ in range(count)]
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain_product(chain, split):
    """The products in the chosen order, with an explicit stack rather than recursion."""
    results = {}
    stack = [(0, len(chain) - 1, False)]
    while stack:
        i, j, ready = stack.pop()
        if i == j:
            results[(i, j)] = chain[i]
        elif ready:
            k = split[i][j]
            results[(i, j)] = F.mm(results.pop((i, k)), results.pop((k + 1, j)))
        else:
            k = split[i][j]
            stack.extend([(i, j, True), (k + 1, j, False), (i, k, False)])
    return results[(0, len(chain) - 1)]


def linalg_tensorinv(A, ind=2):
    if ind <= 0:
        raise E.tensorinv_ind(ind)
    rows = int(np.prod(A.shape[:ind], dtype=np.int64))
    cols = int(np.prod(A.shape[ind:], dtype=np.int64))
    if rows != cols:
        raise E.tensorinv_shape(rows, cols)
    square = A.reshape(rows, cols)
    inverse, info = F.linalg_inv_ex(square)
    failure = np.flatnonzero(info._data.reshape(-1) > 0)
    if failure.size:
        raise E.inv_singular("inv", None, int(info._data.reshape(-1)[failure[0]]))
    return inverse.reshape(tuple(A.shape[ind:]) + tuple(A.shape[:ind]))


def linalg_tensorsolve(A, B, dims=None):
    if dims is not None:
        nd = A.dim()
        moved = [d % nd for d in dims]
        A = F.movedim(A, moved, list(range(nd - len(moved), nd)))
    result_shape = tuple(A.shape[B.dim():])
    rows = int(np.prod(B.shape, dtype=np.int64))
    cols = int(np.prod(result_shape, dtype=np.int64))
    solution = F.linalg_solve(A.reshape(rows, cols), B.reshape(rows))
    return solution.view(result_shape)


def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return F.diagonal(A, offset, dim1, dim2)
