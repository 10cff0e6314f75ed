"""torch.linalg (and the older torch.* solvers) against PyTorch 2.13, over seeds, shapes,
batches and float32/float64: shapes, dtypes, grad_fn names and named-tuple fields exactly;
values and gradients to a tolerance, because numpy's LAPACK (OpenBLAS) and PyTorch's (MKL)
round differently. Where a decomposition's signs are arbitrary (eigenvectors, singular
vectors), the losses are invariant to them (squares, reconstructions), so the gradients
compare exactly as PyTorch defines them. Errors and warnings compare verbatim."""
import warnings

import numpy as np
import pytest

import gradviz.torch as gt


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


TOL = {"float32": dict(rtol=2e-3, atol=2e-4), "float64": dict(rtol=1e-7, atol=1e-9)}


def _matrix(rng, shape, kind, dtype):
    a = rng.standard_normal(shape)
    n = shape[-1]
    if kind == "spd":
        a = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    elif kind == "wellcond":
        a = a + 2 * n ** 0.5 * np.eye(n)
    elif kind == "triangular":
        a = np.triu(a) + 2 * np.eye(n)
    return a.astype(dtype)


def _leaves(lib, arrays):
    return [lib.tensor(a, requires_grad=True) for a in arrays]


def _flat(result):
    return list(result) if isinstance(result, tuple) else [result]


def _compare(torch, fn, arrays, loss, dtype, values=True):
    """Run ``fn`` on both libraries; compare named-tuple type and fields, shapes, dtypes,
    grad_fn names, values (when ``values``: sign-free outputs) and the gradients of ``loss``."""
    seen = []
    for lib in (gt, torch):
        inputs = _leaves(lib, arrays)
        result = fn(lib, *inputs)
        outs = _flat(result)
        kind = (type(result).__name__, getattr(type(result), "_fields", None) or getattr(result, "_fields", None)
                if isinstance(result, tuple) else None)
        meta = [(tuple(o.shape), str(o.dtype), type(o.grad_fn).__name__ if o.grad_fn is not None else None)
                for o in outs]
        total = loss(lib, result)  # None: an output with no gradient (matrix_rank, mode='r')
        grads = [] if total is None else lib.autograd.grad(total, inputs, allow_unused=True)
        seen.append((kind[0], meta, [o.detach().numpy() for o in outs], [g.numpy() if g is not None else None
                                                                           for g in grads]))
    ours, theirs = seen
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
    if values:
        for a, b in zip(ours[2], theirs[2]):
            np.testing.assert_allclose(a, b, **TOL[dtype])
    for a, b in zip(ours[3], theirs[3]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=TOL[dtype]["rtol"] * 10, atol=TOL[dtype]["atol"] * 10)


def _weights(lib, t, seed=7):
    rng = np.random.default_rng(seed)
    return lib.tensor(rng.standard_normal(tuple(t.shape)).astype(str(t.dtype).rpartition(".")[2]))


def _wsum(lib, *ts):
    total = 0
    for i, t in enumerate(ts):
        total = total + (t * _weights(lib, t, i)).sum()
    return total


SHAPES = [(1, 1), (2, 2), (3, 3), (5, 5), (2, 3, 3), (2, 1, 4, 4)]
DTYPES = ["float64", "float32"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", range(2))
def test_solve_inv_det_slogdet(torch, seed, shape, dtype):
    rng = np.random.default_rng(seed)
    A = _matrix(rng, shape, "wellcond", dtype)
    B = rng.standard_normal(shape[:-1] + (2,)).astype(dtype)
    b = rng.standard_normal(shape[:-1]).astype(dtype)
    _compare(torch, lambda L, A, B: L.linalg.solve(A, B), [A, B], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A, b: L.linalg.solve(A, b), [A, b], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A, B: L.linalg.solve(A, B.mT, left=False), [A, B], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A, B: L.linalg.solve_ex(A, B), [A, B], lambda L, r: _wsum(L, r[0]), dtype)
    _compare(torch, lambda L, A: L.linalg.inv(A), [A], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A: L.linalg.inv_ex(A), [A], lambda L, r: _wsum(L, r[0]), dtype)
    _compare(torch, lambda L, A: L.inverse(A), [A], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A: L.linalg.det(A), [A], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A: A.mT.det(), [A], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A: L.linalg.slogdet(A), [A], lambda L, r: _wsum(L, r[1]), dtype)
    _compare(torch, lambda L, A: L.slogdet(A), [A], lambda L, r: _wsum(L, r[1]), dtype)
    S = _matrix(rng, shape, "spd", dtype)
    _compare(torch, lambda L, S: L.logdet(S), [S], lambda L, r: _wsum(L, r), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_det_of_singular_matrices(torch, dtype):
    """A singular matrix's determinant gradient is its adjugate: PyTorch nudges zero pivots
    (first order) or goes through the SVD (with create_graph)."""
    singular = np.array([[1., 2., 3.], [2., 4., 6.], [1., 0., 1.]], dtype)
    zero = np.zeros((3, 3), dtype)
    for a in (singular, zero):
        _compare(torch, lambda L, A: L.linalg.det(A), [a], lambda L, r: _wsum(L, r), dtype)
    results = []
    for lib in (gt, torch):
        A = lib.tensor(singular, requires_grad=True)
        (g,) = lib.autograd.grad(lib.linalg.det(A), A, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), A)
        results.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 3), (1, 5, 3)])
@pytest.mark.parametrize("seed", range(2))
def test_lu_family(torch, seed, shape, dtype):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal(shape).astype(dtype)
    _compare(torch, lambda L, A: L.linalg.lu_factor(A), [A], lambda L, r: _wsum(L, r[0]), dtype)
    _compare(torch, lambda L, A: L.linalg.lu_factor_ex(A), [A], lambda L, r: _wsum(L, r[0]), dtype)
    _compare(torch, lambda L, A: L.linalg.lu(A), [A], lambda L, r: _wsum(L, r[1], r[2]), dtype)
    _compare(torch, lambda L, A: L.lu_unpack(*L.linalg.lu_factor(A)), [A], lambda L, r: _wsum(L, r[1], r[2]), dtype)
    if shape[-1] == shape[-2]:
        A = _matrix(rng, shape, "wellcond", dtype)
        B = rng.standard_normal(shape[:-1] + (2,)).astype(dtype)
        for left in (True, False):
            for adjoint in (True, False):
                def solve(L, A, B, left=left, adjoint=adjoint):
                    LU, pivots = L.linalg.lu_factor(A)
                    return L.linalg.lu_solve(LU, pivots, B if left else B.mT, left=left, adjoint=adjoint)
                _compare(torch, solve, [A, B], lambda L, r: _wsum(L, r), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", range(2))
def test_cholesky_and_triangular(torch, seed, shape, dtype):
    rng = np.random.default_rng(seed)
    S = _matrix(rng, shape, "spd", dtype)
    T = _matrix(rng, shape, "triangular", dtype)
    B = rng.standard_normal(shape[:-1] + (2,)).astype(dtype)
    for upper in (False, True):
        _compare(torch, lambda L, S, u=upper: L.linalg.cholesky(S, upper=u), [S], lambda L, r: _wsum(L, r), dtype)
        _compare(torch, lambda L, S, u=upper: L.linalg.cholesky_ex(S, upper=u), [S], lambda L, r: _wsum(L, r[0]),
                 dtype)
        for left in (True, False):
            for unit in (False, True):
                def tri(L, T, B, u=upper, left=left, unit=unit):
                    return L.linalg.solve_triangular(T if u else T.mT, B if left else B.mT, upper=u, left=left,
                                                     unitriangular=unit)
                _compare(torch, tri, [T, B], lambda L, r: _wsum(L, r), dtype)
        _compare(torch, lambda L, S, B, u=upper: L.cholesky_solve(B, L.linalg.cholesky(S, upper=u), u), [S, B],
                 lambda L, r: _wsum(L, r), dtype)
        _compare(torch, lambda L, S, u=upper: L.cholesky_inverse(L.linalg.cholesky(S, upper=u), u), [S],
                 lambda L, r: _wsum(L, r), dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _compare(torch, lambda L, S: L.cholesky(S), [S], lambda L, r: _wsum(L, r), dtype)
        for transpose in (False, True):
            _compare(torch, lambda L, T, B, t=transpose: L.triangular_solve(B, T, True, t), [T, B],
                     lambda L, r: _wsum(L, r[0], r[1]), dtype)


def _eigh_loss(L, r):
    values, vectors = r
    return _wsum(L, values, vectors * vectors)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", range(2))
def test_eigh_eigvalsh(torch, seed, shape, dtype):
    rng = np.random.default_rng(seed)
    S = _matrix(rng, shape, "spd", dtype)
    for uplo in ("L", "U"):
        _compare(torch, lambda L, S, u=uplo: L.linalg.eigh(S, UPLO=u), [S], _eigh_loss, dtype, values=False)
        _compare(torch, lambda L, S, u=uplo: L.linalg.eigvalsh(S, UPLO=u), [S], lambda L, r: _wsum(L, r), dtype)
    ours = gt.linalg.eigh(gt.tensor(S))
    theirs = torch.linalg.eigh(torch.tensor(S))
    np.testing.assert_allclose(ours.eigenvalues.numpy(), theirs.eigenvalues.numpy(), **TOL[dtype])
    v = ours.eigenvectors.numpy()  # eigenvalues ascending; each vector's sign is LAPACK's choice
    np.testing.assert_allclose(np.abs(v), np.abs(theirs.eigenvectors.numpy()), **TOL[dtype])


def _svd_loss(L, r):
    U, S, Vh = r
    return _wsum(L, S, U * U, Vh * Vh)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 3), (1, 5, 3), (3, 1)])
@pytest.mark.parametrize("seed", range(2))
def test_svd_qr_pinv(torch, seed, shape, dtype):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal(shape).astype(dtype)
    _compare(torch, lambda L, A: L.linalg.svd(A, full_matrices=False), [A], _svd_loss, dtype, values=False)
    _compare(torch, lambda L, A: L.linalg.svdvals(A), [A], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A: L.svd(A), [A], lambda L, r: _wsum(L, r[1], r[0] * r[0], r[2] * r[2]), dtype,
             values=False)
    _compare(torch, lambda L, A: L.linalg.qr(A), [A], lambda L, r: _wsum(L, r[0], r[1]), dtype)
    if shape[-2] <= shape[-1]:
        _compare(torch, lambda L, A: L.linalg.qr(A, mode="complete"), [A], lambda L, r: _wsum(L, r[0], r[1]), dtype)
    _compare(torch, lambda L, A: L.linalg.qr(A, mode="r"), [A], lambda L, r: None, dtype)
    _compare(torch, lambda L, A: L.linalg.pinv(A), [A], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A: L.pinverse(A), [A], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A: L.linalg.matrix_rank(A), [A], lambda L, r: None, dtype)
    _compare(torch, lambda L, A: L.linalg.cond(A), [A], lambda L, r: _wsum(L, r), dtype)
    B = rng.standard_normal(shape[:-1] + (2,)).astype(dtype)
    if shape[-2] >= shape[-1]:
        _compare(torch, lambda L, A, B: L.linalg.lstsq(A, B), [A, B], lambda L, r: _wsum(L, r[0]), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 2), (3, 3), (4, 4), (2, 3, 3)])
@pytest.mark.parametrize("seed", range(2))
def test_eig_eigvals(torch, seed, shape, dtype):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal(shape).astype(dtype)
    seen = []
    for lib in (gt, torch):
        x = lib.tensor(A, requires_grad=True)
        values, vectors = lib.linalg.eig(x)
        order = lib.tensor(np.argsort(np.round(values.detach().numpy(), 6), axis=-1))
        # phase-free functions of the decomposition: eigenvalues' real parts, |V|^2
        loss = (values.real * _weights(lib, values.real)).sum() + (vectors.abs() ** 2).sum()
        (grad,) = lib.autograd.grad(loss, x)
        seen.append((type(values.grad_fn).__name__, str(values.dtype), tuple(vectors.shape),
                     np.sort_complex(values.detach().numpy().reshape(-1)), grad.numpy(), order))
    assert seen[0][:3] == seen[1][:3]
    np.testing.assert_allclose(seen[0][3], seen[1][3], **TOL[dtype])
    np.testing.assert_allclose(seen[0][4], seen[1][4], rtol=1e-2 if dtype == "float32" else 1e-6, atol=1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 3), (2, 4, 4)])
@pytest.mark.parametrize("seed", range(2))
def test_matrix_functions(torch, seed, shape, dtype):
    rng = np.random.default_rng(seed)
    A = (rng.standard_normal(shape) * (seed + 1)).astype(dtype)
    _compare(torch, lambda L, A: L.linalg.matrix_exp(A), [A], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A: L.matrix_exp(A), [A], lambda L, r: _wsum(L, r), dtype)
    W = _matrix(rng, shape, "wellcond", dtype)
    for n in (0, 1, 2, 3, 5, -1, -2):
        _compare(torch, lambda L, W, n=n: L.linalg.matrix_power(W, n), [W], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A: A.matrix_power(4), [A], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, A: L.linalg.diagonal(A), [A], lambda L, r: _wsum(L, r), dtype)
    x = rng.standard_normal(shape[:-1]).astype(dtype)
    _compare(torch, lambda L, x: L.linalg.vander(x), [x], lambda L, r: _wsum(L, r), dtype) if shape[-1] > 1 else None
    _compare(torch, lambda L, x: L.linalg.vander(x, N=4), [x], lambda L, r: _wsum(L, r), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(3))
def test_cross_multi_dot_tensor_ops(torch, seed, dtype):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((4, 3)).astype(dtype), rng.standard_normal((1, 3)).astype(dtype)
    _compare(torch, lambda L, a, b: L.linalg.cross(a, b), [a, b], lambda L, r: _wsum(L, r), dtype)
    _compare(torch, lambda L, a, b: L.linalg.cross(a.mT, b.mT.expand(3, 4), dim=0), [a, b], lambda L, r: _wsum(L, r),
             dtype)
    sizes = [rng.integers(1, 6) for _ in range(6)]
    mats = [rng.standard_normal((sizes[i], sizes[i + 1])).astype(dtype) for i in range(5)]
    for count in (2, 3, 4, 5):
        _compare(torch, lambda L, *ms: L.linalg.multi_dot(list(ms)), mats[:count], lambda L, r: _wsum(L, r), dtype)
    v1 = rng.standard_normal(sizes[0]).astype(dtype)
    _compare(torch, lambda L, v, m, n: L.linalg.multi_dot([v, m, n]), [v1] + mats[:2], lambda L, r: _wsum(L, r),
             dtype)
    T = (rng.standard_normal((2, 3, 6)) + 0).astype(dtype)
    T[0, 0] += 5
    T[1, 1, 3] += 5
    T[1, 2] += 5 * np.eye(6)[5]
    T[0, 1] += 5 * np.eye(6)[1]
    T[0, 2] += 5 * np.eye(6)[2]
    T[1, 0] += 5 * np.eye(6)[4]
    _compare(torch, lambda L, T: L.linalg.tensorinv(T, ind=2), [T], lambda L, r: _wsum(L, r), dtype)
    B = rng.standard_normal((2, 3)).astype(dtype)
    _compare(torch, lambda L, T, B: L.linalg.tensorsolve(T.reshape(2, 3, 2, 3), B), [T, B], lambda L, r: _wsum(L, r),
             dtype)


def _error_of(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 (any error is what is compared)
        return type(exc).__name__, str(exc), isinstance(exc, RuntimeError)
    return None


ERROR_CASES = {
    "solve singular": lambda L: L.linalg.solve(L.zeros(3, 3), L.ones(3)),
    "solve singular batch": lambda L: L.linalg.solve(L.stack([L.eye(3), L.zeros(3, 3)]), L.ones(2, 3)),
    "inv singular": lambda L: L.linalg.inv(L.zeros(3, 3)),
    "inv singular diag": lambda L: L.linalg.inv(L.diag(L.tensor([1., 0, 1]))),
    "inv singular batch": lambda L: L.linalg.inv(L.stack([L.eye(3), L.zeros(3, 3)])),
    "inv_ex check": lambda L: L.linalg.inv_ex(L.zeros(3, 3), check_errors=True),
    "inverse singular": lambda L: L.inverse(L.zeros(2, 2)),
    "inv not square": lambda L: L.linalg.inv(L.ones(2, 3)),
    "inv int": lambda L: L.linalg.inv(L.eye(3, dtype=L.int64)),
    "inv 1d": lambda L: L.linalg.inv(L.ones(3)),
    "inv half": lambda L: L.linalg.inv(L.eye(3, dtype=L.float16)),
    "det not square": lambda L: L.linalg.det(L.ones(2, 3)),
    "det int": lambda L: L.linalg.det(L.eye(3, dtype=L.int64)),
    "det half": lambda L: L.linalg.det(L.eye(2, dtype=L.float16)),
    "slogdet not square": lambda L: L.linalg.slogdet(L.ones(2, 3)),
    "eigh not square": lambda L: L.linalg.eigh(L.ones(2, 3)),
    "eigh int": lambda L: L.linalg.eigh(L.eye(3, dtype=L.int64)),
    "eigh uplo": lambda L: L.linalg.eigh(L.eye(3), UPLO="X"),
    "eigh 1d": lambda L: L.linalg.eigh(L.ones(3)),
    "eig int": lambda L: L.linalg.eig(L.eye(3, dtype=L.int64)),
    "eig not square": lambda L: L.linalg.eig(L.ones(2, 3)),
    "cholesky not pd": lambda L: L.linalg.cholesky(-L.eye(3)),
    "cholesky minor 2": lambda L: L.linalg.cholesky(L.diag(L.tensor([1., -1, 1]))),
    "cholesky batch": lambda L: L.linalg.cholesky(L.stack([L.eye(3), -L.eye(3)])),
    "cholesky_ex check": lambda L: L.linalg.cholesky_ex(-L.eye(3), check_errors=True),
    "cholesky half": lambda L: L.linalg.cholesky(L.eye(2, dtype=L.float16)),
    "solve shapes": lambda L: L.linalg.solve(L.eye(3), L.ones(4)),
    "solve shapes 2": lambda L: L.linalg.solve(L.eye(3), L.ones(4, 2)),
    "solve dtypes": lambda L: L.linalg.solve(L.eye(3), L.ones(3, dtype=L.float64)),
    "solve int": lambda L: L.linalg.solve(L.eye(2, dtype=L.int64), L.ones(2, dtype=L.int64)),
    "svd int": lambda L: L.linalg.svd(L.eye(3, dtype=L.int64)),
    "svd half": lambda L: L.linalg.svd(L.eye(2, dtype=L.float16)),
    "svdvals 1d": lambda L: L.linalg.svdvals(L.ones(3)),
    "qr mode": lambda L: L.linalg.qr(L.ones(2, 3), mode="x"),
    "qr r backward": lambda L: L.linalg.qr(L.eye(2, requires_grad=True), mode="r")[1].sum().backward(),
    "lu_factor singular": lambda L: L.linalg.lu_factor(L.zeros(3, 3)),
    "lu_factor singular batch": lambda L: L.linalg.lu_factor(L.stack([L.eye(3), L.zeros(3, 3)])),
    "lu_factor int": lambda L: L.linalg.lu_factor(L.eye(2, dtype=L.int64)),
    "lu_factor 1d": lambda L: L.linalg.lu_factor(L.ones(3)),
    "lu_solve shapes": lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(4, 1)),
    "lu_solve 1d": lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(3)),
    "solve_triangular shapes": lambda L: L.linalg.solve_triangular(L.eye(3), L.ones(4, 1), upper=True),
    "solve_triangular 1d": lambda L: L.linalg.solve_triangular(L.eye(3), L.ones(3), upper=False),
    "matrix_power not square": lambda L: L.linalg.matrix_power(L.ones(2, 3), 2),
    "matrix_power singular": lambda L: L.linalg.matrix_power(L.zeros(3, 3), -1),
    "matrix_power float n": lambda L: L.linalg.matrix_power(L.eye(2), 1.5),
    "matrix_exp 1d": lambda L: L.linalg.matrix_exp(L.ones(3)),
    "matrix_exp int": lambda L: L.linalg.matrix_exp(L.eye(3, dtype=L.int64)),
    "multi_dot one": lambda L: L.linalg.multi_dot([L.ones(2, 3)]),
    "multi_dot none": lambda L: L.linalg.multi_dot([]),
    "multi_dot shapes": lambda L: L.linalg.multi_dot([L.ones(2, 3), L.ones(2, 3)]),
    "multi_dot 3d last": lambda L: L.linalg.multi_dot([L.ones(2, 3), L.ones(3, 2, 2)]),
    "multi_dot 3d first": lambda L: L.linalg.multi_dot([L.ones(2, 2, 2), L.ones(2)]),
    "multi_dot middle": lambda L: L.linalg.multi_dot([L.ones(2), L.ones(2), L.ones(2)]),
    "multi_dot dtypes": lambda L: L.linalg.multi_dot([L.ones(2), L.ones(2, dtype=L.float64)]),
    "cross length": lambda L: L.linalg.cross(L.ones(2, 4), L.ones(2, 4)),
    "cross dim": lambda L: L.linalg.cross(L.ones(2, 3), L.ones(2, 3), dim=0),
    "cross dims": lambda L: L.linalg.cross(L.ones(3), L.ones(2, 4)),
    "cross dtypes": lambda L: L.linalg.cross(L.ones(3), L.ones(3, dtype=L.float64)),
    "vander N": lambda L: L.linalg.vander(L.tensor(1.)),
    "tensorinv ind": lambda L: L.linalg.tensorinv(L.ones(2, 2), ind=0),
    "tensorinv shape": lambda L: L.linalg.tensorinv(L.ones(2, 3), ind=1),
    "tensorinv singular": lambda L: L.linalg.tensorinv(L.ones(2, 3, 6), ind=2),
    "pinv int": lambda L: L.linalg.pinv(L.eye(2, dtype=L.int64)),
    "lstsq rows": lambda L: L.linalg.lstsq(L.ones(2, 3), L.ones(3, 1)),
    "Tensor.solve removed": lambda L: L.eye(2).solve(L.eye(2)),
    "Tensor.eig removed": lambda L: L.eye(2).eig(),
    "Tensor.symeig removed": lambda L: L.eye(2).symeig(),
    "Tensor.lstsq removed": lambda L: L.eye(2).lstsq(L.eye(2)),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_errors_verbatim(torch, case):
    assert _error_of(lambda: ERROR_CASES[case](gt)) == _error_of(lambda: ERROR_CASES[case](torch))


def test_linalg_error_is_pytorchs_class(torch):
    for lib in (gt, torch):
        with pytest.raises(lib.linalg.LinAlgError) as raised:
            lib.linalg.inv(lib.zeros(2, 2))
        assert type(raised.value).__name__ == "_LinAlgError"
        assert type(raised.value).__module__ == "torch._C"
        assert isinstance(raised.value, RuntimeError)


_WARN_SCRIPT = """
import warnings
import {lib} as lib
A, B = lib.eye(3), lib.ones(3, 1)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    LU, pivots = lib.linalg.lu_factor(A)
    for _ in range(2):
        lib.qr(A)
        lib.cholesky(A)
        lib.lu_solve(B, LU, pivots)
        lib.triangular_solve(B, A)
        lib.lu(A)
print(repr([(w.category.__name__, str(w.message)) for w in caught]))
"""


def test_deprecation_warnings_once(torch):
    """Each deprecated solver warns once per process, in PyTorch's words (a fresh process
    each, as TORCH_WARN_ONCE remembers what it showed)."""
    import subprocess
    import sys
    seen = [subprocess.run([sys.executable, "-c", _WARN_SCRIPT.format(lib=lib)], capture_output=True, text=True,
                           check=True).stdout for lib in ("gradviz.torch", "torch")]
    assert seen[0] == seen[1]
    assert seen[0].count("UserWarning") == 5


def test_named_tuple_reprs(torch):
    texts = []
    for lib in (gt, torch):
        A = lib.tensor([[2., 1.], [1., 3.]], dtype=lib.float64)
        texts.append([repr(lib.linalg.eigh(A).eigenvalues), repr(lib.linalg.slogdet(A)),
                      repr(lib.linalg.solve_ex(A, lib.ones(2, dtype=lib.float64))),
                      repr(lib.linalg.lu_factor_ex(A)), repr(lib.linalg.qr(lib.eye(2), mode="r")),
                      repr(lib.linalg.lstsq(lib.eye(3, 2), lib.ones(3, 1))),
                      repr(lib.linalg.cholesky_ex(-lib.eye(3))),
                      repr(type(lib.linalg.svd(A)))])
    assert texts[0] == texts[1]
