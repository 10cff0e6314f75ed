"""The numpy kernels of torch.linalg's decompositions and solvers.

PyTorch calls LAPACK (MKL's, in the CPU wheels); numpy's linalg calls OpenBLAS's. Where
numpy has the routine (eigh, svd, qr, eig) we call it; where it has not, or where PyTorch
needs LAPACK's side results (getrf's pivots and info, potrf's info), the routine is written
here the way LAPACK's unblocked reference does it (getf2, potf2, trsm by substitution),
vectorised over the batch. The two LAPACKs round differently, so values agree with
PyTorch's to a few ulps of the matrix's condition, not bit for bit; and where a
decomposition's signs are arbitrary (eigenvectors, singular vectors) MKL and OpenBLAS may
choose differently: the tests compare what is invariant (reconstructions, projectors).
"""
import numpy as np


def _batched(a):
    """a as a (batch, m, n) array (a copy) and the batch shape to put back."""
    return np.array(a.reshape((-1,) + a.shape[-2:]), copy=True), a.shape[:-2]


def lu_factor(a):
    """LAPACK getf2: partial pivoting, the first largest |entry| of each column as pivot.
    Returns (LU, pivots (1-based, int32), info (int32: the first zero pivot, 1-based, or 0))."""
    lu, batch = _batched(a)
    count, m, n = lu.shape
    k = min(m, n)
    pivots = np.empty((count, k), np.int32)
    info = np.zeros(count, np.int32)
    rows = np.arange(count)
    with np.errstate(all="ignore"):
        for j in range(k):
            p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
            pivots[:, j] = p + 1
            row_j = lu[rows, j, :].copy()
            lu[rows, j, :] = lu[rows, p, :]
            lu[rows, p, :] = row_j
            pivot = lu[:, j, j]
            zero = pivot == 0
            info[(info == 0) & zero] = j + 1
            # a zero pivot's column is zero below it: getf2 leaves it unscaled
            scale = np.where(zero, 1, pivot)
            lu[:, j + 1:, j] /= scale[:, None]
            lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    return lu.reshape(batch + (m, n)), pivots.reshape(batch + (k,)), info.reshape(batch)


def permutation_of(pivots, m):
    """The row order getrf's swaps give: (P^T A)[i] = A[perm[i]], one per batch element."""
    piv = pivots.reshape(-1, pivots.shape[-1]) - 1
    perm = np.broadcast_to(np.arange(m), (piv.shape[0], m)).copy()
    rows = np.arange(piv.shape[0])
    for i in range(piv.shape[1]):
        target = piv[:, i]
        held = perm[rows, i].copy()
        perm[rows, i] = perm[rows, target]
        perm[rows, target] = held
    return perm.reshape(pivots.shape[:-1] + (m,))


def permutation_matrix(pivots, m, dtype):
    """P with A = P L U."""
    perm = permutation_of(pivots, m)
    eye = np.eye(m, dtype=dtype)
    return np.swapaxes(eye[perm], -1, -2)


def lu_unpack(lu, pivots, unpack_data=True, unpack_pivots=True):
    m, n = lu.shape[-2:]
    k = min(m, n)
    if unpack_data:
        lower = np.tril(lu[..., :, :k], -1)
        lower[..., range(k), range(k)] = 1
        upper = np.triu(lu[..., :k, :])
    else:
        lower = upper = np.empty((0,), lu.dtype)
    perm = permutation_matrix(pivots, m, lu.dtype) if unpack_pivots else np.empty((0,), lu.dtype)
    return perm, lower, upper


def solve_triangular(a, b, upper, left=True, unitriangular=False):
    """X with A X = B (left) or X A = B, A triangular: substitution row by row, as trsm does."""
    if not left:
        return np.swapaxes(solve_triangular(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper, True,
                                            unitriangular), -1, -2)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    dtype = np.result_type(a, b)
    a = np.broadcast_to(a, batch + a.shape[-2:])
    x = np.array(np.broadcast_to(b, batch + b.shape[-2:]), dtype=dtype, copy=True)
    n = a.shape[-1]
    order = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(all="ignore"):
        for i in order:
            done = slice(i + 1, n) if upper else slice(0, i)
            if (upper and i < n - 1) or (not upper and i > 0):
                x[..., i, :] -= (a[..., i:i + 1, done] @ x[..., done, :])[..., 0, :]
            if not unitriangular:
                x[..., i, :] /= a[..., i, i, None]
    return x


def lu_solve(lu, pivots, b, left=True, adjoint=False):
    """X with A X = B, A = P L U given by getrf's LU and pivots (getrs)."""
    if not left:
        # X A = B  <=>  A^H X^H = B^H ;  X A^H = B  <=>  A X^H = B^H
        return _adj(lu_solve(lu, pivots, _adj(b), True, not adjoint))
    m = lu.shape[-1]
    batch = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    lu = np.broadcast_to(lu, batch + lu.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    perm = np.broadcast_to(permutation_of(pivots, m), batch + (m,))
    if not adjoint:  # U^-1 L^-1 P^T B
        pb = np.take_along_axis(b, perm[..., :, None], axis=-2)
        y = solve_triangular(lu, pb, upper=False, unitriangular=True)
        return solve_triangular(lu, y, upper=True)
    # A^H = U^H L^H P^T: X = P L^-H U^-H B
    lu_h = _adj(lu)
    y = solve_triangular(lu_h, b, upper=False)
    y = solve_triangular(lu_h, y, upper=True, unitriangular=True)
    out = np.empty_like(y)
    np.put_along_axis(out, perm[..., :, None], y, axis=-2)
    return out


def _adj(a):
    return np.conj(np.swapaxes(a, -1, -2)) if np.iscomplexobj(a) else np.swapaxes(a, -1, -2)


def _permutation_sign(pivots):
    swaps = np.sum(pivots != np.arange(1, pivots.shape[-1] + 1, dtype=pivots.dtype), axis=-1)
    return np.where(swaps % 2 == 1, -1, 1)


def det_from_lu(lu, pivots):
    diag = np.diagonal(lu, 0, -2, -1)
    return (np.prod(diag, axis=-1) * _permutation_sign(pivots)).astype(lu.dtype, copy=False)


def slogdet_from_lu(lu, pivots):
    diag = np.diagonal(lu, 0, -2, -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        magnitude = np.abs(diag)
        unit = diag / np.where(magnitude == 0, 1, magnitude)
        sign = np.prod(unit, axis=-1) * _permutation_sign(pivots)
        sign = np.where(np.any(magnitude == 0, axis=-1), 0, sign).astype(lu.dtype, copy=False)
        logabs = np.sum(np.log(magnitude), axis=-1).astype(magnitude.dtype, copy=False)
    return sign, logabs


def inverse(a):
    """getrf + getri as PyTorch's inv_ex does it (a solve against the identity): (inverse, info)."""
    lu, pivots, info = lu_factor(a)
    n = a.shape[-1]
    with np.errstate(all="ignore"):
        inv = lu_solve(lu, pivots, np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape))
    return inv.astype(a.dtype, copy=False), info


def cholesky(a, upper=False):
    """LAPACK potf2 on the lower triangle: (L, info), info the order of the first leading minor
    that is not positive-definite (0: none). A failed element keeps, from that column on,
    the input's lower triangle, as potrf leaves it."""
    work, batch = _batched(a)
    count, n, _ = work.shape
    info = np.zeros(count, np.int32)
    out = np.tril(work)
    with np.errstate(all="ignore"):
        for j in range(n):
            row = out[:, j, :j]
            d = work[:, j, j] - np.sum(row * np.conj(row), axis=-1)
            d = d.real if np.iscomplexobj(d) else d
            bad = (info == 0) & ~(d > 0)
            info[bad] = j + 1
            out[bad, j, j] = d[bad]  # potf2 leaves the failed minor's value there
            ok = info == 0
            root = np.sqrt(np.where(ok, d, 1))
            out[ok, j, j] = root[ok]
            below = (work[:, j + 1:, j] - (out[:, j + 1:, :j] @ np.conj(out[:, j, :j, None]))[..., 0]) / root[:, None]
            out[ok, j + 1:, j] = below[ok]
    out = out.reshape(batch + (n, n))
    return (_adj(out) if upper else out), info.reshape(batch)


def eigh(a, uplo):
    if a.shape[-1] == 0:
        return np.empty(a.shape[:-1], np.abs(a[..., :0, :0]).dtype), np.array(a, copy=True)
    w, v = np.linalg.eigh(a, UPLO=uplo)
    return w, v


def svd(a, full_matrices):
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size == 0:
        real = np.abs(a).dtype
        um = m if full_matrices else k
        vn = n if full_matrices else k
        u = np.broadcast_to(np.eye(m, um, dtype=a.dtype), a.shape[:-2] + (m, um)).copy()
        vh = np.broadcast_to(np.eye(vn, n, dtype=a.dtype), a.shape[:-2] + (vn, n)).copy()
        return u, np.empty(a.shape[:-2] + (k,), real), vh
    return np.linalg.svd(a, full_matrices=full_matrices)


def qr(a, mode):
    m, n = a.shape[-2:]
    if a.size == 0:
        k = min(m, n)
        q_cols = m if mode == "complete" else k
        q = np.broadcast_to(np.eye(m, q_cols, dtype=a.dtype), a.shape[:-2] + (m, q_cols)).copy()
        r = np.zeros(a.shape[:-2] + (q_cols if mode != "r" else k, n), a.dtype)
        return (np.empty((0,), a.dtype) if mode == "r" else q), r
    if mode == "r":
        return np.empty((0,), a.dtype), np.linalg.qr(a, mode="r")
    q, r = np.linalg.qr(a, mode=mode)
    return q, r


def eig(a):
    """geev: eigenvalues and unit eigenvectors, always complex (as PyTorch returns them)."""
    complex_dtype = np.result_type(a.dtype, np.complex64)
    if a.shape[-1] == 0:
        return np.empty(a.shape[:-1], complex_dtype), np.empty(a.shape, complex_dtype)
    w, v = np.linalg.eig(a)
    return w.astype(complex_dtype, copy=False), v.astype(complex_dtype, copy=False)


def matrix_exp(a):
    """Scaling and squaring with a degree-18 Taylor polynomial: the 1-norm is scaled below 1/2,
    where the truncated series is exact to the dtype's precision, then squared back."""
    if a.size == 0:
        return np.array(a, copy=True)
    norm = np.max(np.sum(np.abs(a), axis=-2), axis=-1)
    squarings = np.maximum(0, np.ceil(np.log2(np.maximum(norm, 1e-300) / 0.5))).astype(np.int64)
    squarings = np.where(np.isfinite(norm), squarings, 0)
    scaled = a / np.power(2.0, squarings)[..., None, None].astype(np.abs(a).dtype)
    n = a.shape[-1]
    result = np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape).copy()
    term = result.copy()
    for k in range(1, 19):
        term = (term @ scaled) / k
        result = result + term
    most = int(squarings.max()) if squarings.size else 0
    for step in range(most):
        more = (squarings > step)[..., None, None]
        result = np.where(more, result @ result, result)
    return result.astype(a.dtype, copy=False)


def cross(a, b, dim):
    a, b = np.broadcast_arrays(a, b)
    return np.moveaxis(np.cross(np.moveaxis(a, dim, -1), np.moveaxis(b, dim, -1)), -1, dim)


def pinv(a, atol, rtol, hermitian):
    """PyTorch's linalg_pinv: the SVD (or eigh) with values at or below max(atol, rtol * largest)
    dropped; rtol defaults to eps * max(m, n) when neither tolerance is given."""
    m, n = a.shape[-2:]
    real = np.abs(a[..., :0, :0]).dtype
    if rtol is None:
        rtol = 0.0 if (atol is not None and np.any(np.asarray(atol) > 0)) else np.finfo(real).eps * max(m, n)
    atol = 0.0 if atol is None else atol
    if a.size == 0:
        return np.zeros(a.shape[:-2] + (n, m), a.dtype)
    if hermitian:
        w, v = np.linalg.eigh(a)
        largest = np.max(np.abs(w), axis=-1, keepdims=True)
        tol = np.maximum(np.asarray(atol, real)[..., None], np.asarray(rtol, real)[..., None] * largest)
        with np.errstate(divide="ignore"):
            inv = np.where(np.abs(w) > tol, 1 / w, 0).astype(w.dtype)
        return ((v * inv[..., None, :]) @ _adj(v)).astype(a.dtype, copy=False)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    largest = s[..., :1]
    tol = np.maximum(np.asarray(atol, real)[..., None], np.asarray(rtol, real)[..., None] * largest)
    with np.errstate(divide="ignore"):
        inv = np.where(s > tol, 1 / s, 0).astype(s.dtype)
    return ((_adj(vh) * inv[..., None, :]) @ _adj(u)).astype(a.dtype, copy=False)


def lstsq(a, b, rcond, driver, vector):
    """The minimum-norm solution; the rank (by rcond, default eps * max(m, n)) except for gels;
    residuals when m > n and every matrix has full rank, except for gelsy (the CPU default);
    the singular values for gelsd and gelss only."""
    m, n = a.shape[-2:]
    real = np.abs(a[..., :0, :0]).dtype
    rcond = np.finfo(real).eps * max(m, n) if rcond is None else rcond
    rhs = b[..., None] if vector else b
    s = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(a.shape[:-2] + (0,), real)
    rank = np.sum(s > rcond * s[..., :1], axis=-1).astype(np.int64) if s.shape[-1] else np.zeros(a.shape[:-2], np.int64)
    solution = (pinv(a, None, rcond, False) @ rhs).astype(np.result_type(a, b), copy=False)
    if driver != "gelsy" and m > n and a.size and np.all(rank == n):
        residuals = np.sum(np.abs(a @ solution - rhs) ** 2, axis=-2).astype(real, copy=False)
        if vector:
            residuals = residuals[..., 0]
    else:
        residuals = np.empty((0,), real)
    if driver == "gels":
        rank = np.empty((0,), np.int64)
    values = s.astype(real, copy=False) if driver in ("gelsd", "gelss") else np.empty((0,), real)
    return (solution[..., 0] if vector else solution), residuals, rank, values


def triangular_solve(b, a, upper, transpose, unitriangular):
    """The deprecated triangular_solve: op(A) X = b, and A's (batch-broadcast) copy."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    coefficient = np.array(a, copy=True)
    op = np.swapaxes(a, -1, -2) if transpose else a
    x = solve_triangular(op, b, upper != transpose, True, unitriangular)
    return x.astype(a.dtype, copy=False), coefficient


def cholesky_solve(b, factor, upper):
    lower = _adj(factor) if upper else factor
    y = solve_triangular(lower, b, upper=False)
    return solve_triangular(_adj(lower), y, upper=True).astype(b.dtype, copy=False)


def cholesky_inverse(factor, upper):
    n = factor.shape[-1]
    eye = np.broadcast_to(np.eye(n, dtype=factor.dtype), factor.shape)
    return cholesky_solve(eye, factor, upper)


def column_major(a):
    """a laid out as LAPACK leaves it (each matrix column-major, the batch outermost), the
    strides PyTorch's results of these routines show."""
    if a.ndim < 2:
        return a
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), -1, -2)


def bmm_arrays(batch1, batch2):
    """torch.bmm's product. Where contraction x rows x columns < 400 ATen runs its own loop
    (baddbmm_cpu_kernel): each entry summed from zero, k = 0, 1, ... in the operands' float
    type, one rounding per product and per addition; that loop is reproduced here so small
    batched products (a distribution's _batch_mv, attention on a few tokens) agree to the
    bit. Larger products go to MKL, whose blocking numpy's BLAS does not share."""
    contraction = batch1.shape[-1]
    small = contraction * batch1.shape[-2] * batch2.shape[-1] < 400
    plain = type(batch1) is np.ndarray and type(batch2) is np.ndarray  # a meta placeholder keeps numpy's
    if not (small and plain) or batch1.dtype not in (np.float32, np.float64) or batch2.dtype != batch1.dtype:
        return batch1 @ batch2
    acc = np.zeros(batch1.shape[:-1] + batch2.shape[-1:], dtype=batch1.dtype)
    for k in range(contraction):
        acc += batch1[..., :, k:k + 1] * batch2[..., k:k + 1, :]
    return acc
