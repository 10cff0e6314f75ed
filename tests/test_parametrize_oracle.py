"""torch.nn.utils.parametrize, parametrizations and stateless against PyTorch 2.13: the
class swap (``ParametrizedLinear``, its module path, repr, type_before_parametrizations),
``original`` / ``original0``... and the state_dict keys, right_inverse on assignment (one
tensor or a tuple), chains, cached(), removal either way, buffers, transfer, deepcopy and
pickling, every error in PyTorch's words; weight_norm, spectral_norm (the power iteration's
draws and buffers) and orthogonal's matrix_exp and cayley maps: values, grad_fn names,
gradients, over seeds and shapes; stateless.functional_call's FutureWarning and its
agreement with torch.func.functional_call."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import gradviz.torch as gt


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _classes(lib):
    """The same user parametrizations, written against either library."""
    nn = lib.nn

    class Sym(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class Skew(nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.T

        def right_inverse(self, A):
            return A.triu(1)

    class RankOne(nn.Module):
        def forward(self, x, y):
            return x.unsqueeze(-1) @ y.unsqueeze(-2)

        def right_inverse(self, Z):
            return Z[:, 0].clone(), Z[0].clone()

    class Double(nn.Module):
        def forward(self, X):
            return X.double()

    class First(nn.Module):
        def forward(self, X):
            return X[0]

    class Twice(nn.Module):
        def forward(self, X):
            return X * 2

    class BadInverse(nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, X):
            return 3

    return Sym, Skew, RankOne, Double, First, Twice, BadInverse


def _names(t):
    """grad_fn's name and its inputs' names, one level down."""
    if t.grad_fn is None:
        return None
    return t.grad_fn.name(), [type(fn).__name__ if fn is not None else None for fn, _ in t.grad_fn.next_functions]


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the text and type are what is compared
        return type(e).__name__, str(e)
    return None


def _core_transcript(lib):
    Sym, Skew, RankOne, Double, First, Twice, BadInverse = _classes(lib)
    P, nn = lib.nn.utils.parametrize, lib.nn
    lib.manual_seed(3)
    out = []
    m = nn.Linear(3, 3)
    weight = m.weight
    P.register_parametrization(m, "weight", Sym())
    out += [repr(m), str(type(m)), type(m).__name__, type(m).__qualname__, type(m).__module__,
            P.is_parametrized(m), P.is_parametrized(m, "weight"), P.is_parametrized(m, "bias"),
            str(P.type_before_parametrizations(m)), m.parametrizations.weight.original is weight,
            list(m.state_dict()), [n for n, _ in m.named_parameters()], _names(m.weight), repr(m.weight)]
    m(lib.randn(2, 3)).pow(2).sum().backward()
    out.append(m.parametrizations.weight.original.grad.numpy().copy())
    P.register_parametrization(m, "weight", Twice())
    out += [repr(m), m.parametrizations.weight.unsafe]
    with P.cached():
        out.append(m.weight is m.weight)
    out.append(m.weight is m.weight)
    out.append(_error(lambda: setattr(m, "weight", lib.eye(3))))
    out.append(_error(lambda: P.register_parametrization(m, "weight", Double())))
    out.append(_error(lambda: P.register_parametrization(m, "weight", First())))
    out.append(_error(lambda: P.register_parametrization(m, "nope", Sym())))
    out.append(_error(lambda: P.remove_parametrizations(m, "bias")))
    out.append(_error(lambda: pickle.dumps(m)))
    replica = copy.deepcopy(m)
    out += [type(replica).__name__, replica.weight.detach().numpy().copy()]
    before = weight._version
    P.remove_parametrizations(m, "weight")
    out += [repr(m), str(type(m)), m.weight is weight, weight._version - before, repr(m.weight)]
    return out


def test_register_and_remove_as_pytorch(torch):
    seen = [_core_transcript(lib) for lib in (gt, torch)]
    assert len(seen[0]) == len(seen[1])
    for ours, theirs in zip(*seen):
        if isinstance(theirs, np.ndarray):
            np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)
        else:
            assert ours == theirs


def _assignment_transcript(lib):
    Sym, Skew, RankOne, Double, First, Twice, BadInverse = _classes(lib)
    P, nn = lib.nn.utils.parametrize, lib.nn
    lib.manual_seed(5)
    out = []
    m = nn.Linear(3, 3)
    P.register_parametrization(m, "weight", Skew())
    X = lib.rand(3, 3)
    m.weight = X - X.T
    out += [repr(m.weight), repr(m.parametrizations.weight.original)]
    P.remove_parametrizations(m, "weight", leave_parametrized=False)
    out += [repr(m.weight), str(type(m))]
    r = nn.Linear(3, 3)
    P.register_parametrization(r, "weight", RankOne())
    out += [repr(r), list(r.state_dict()), _names(r.weight), repr(r.parametrizations.weight.original0),
            repr(r.parametrizations.weight.original1)]
    r.weight = lib.ones(3, 3)
    out.append(repr(r.weight))
    out.append(_error(lambda: P.remove_parametrizations(r, "weight", leave_parametrized=False)))
    P.remove_parametrizations(r, "weight")
    out += [repr(r.weight), str(type(r.weight))]
    out.append(_error(lambda: P.register_parametrization(nn.Linear(3, 3), "weight", Double())))
    out.append(_error(lambda: P.register_parametrization(nn.Linear(3, 4), "weight", First())))
    out.append(_error(lambda: P.register_parametrization(nn.Linear(3, 4), "weight", BadInverse())))
    unsafe = nn.Linear(3, 3)
    P.register_parametrization(unsafe, "weight", Double(), unsafe=True)
    out.append(str(unsafe.weight.dtype))
    bn = nn.BatchNorm1d(3)
    P.register_parametrization(bn, "running_mean", Twice())
    out += [repr(bn), list(bn.state_dict()), _error(lambda: setattr(bn, "running_mean", lib.ones(3)))]
    src, dst = nn.Linear(3, 3), nn.Linear(3, 3)
    P.register_parametrization(src, "weight", Sym())
    P.transfer_parametrizations_and_params(src, dst)
    out += [repr(dst), _names(dst.weight), bool(lib.equal(dst.weight, src.weight)),
            dst.parametrizations.weight.original is src.parametrizations.weight.original]
    loaded = nn.Linear(3, 3)
    P.register_parametrization(loaded, "weight", Sym())
    out += [repr(loaded.load_state_dict(src.state_dict())), bool(lib.equal(loaded.weight, src.weight))]
    return out


def test_assignment_tuples_buffers_transfer_as_pytorch(torch):
    ours, theirs = (_assignment_transcript(lib) for lib in (gt, torch))
    assert ours == theirs


def _weight_norm_run(lib, seed, kind, dim):
    lib.manual_seed(seed)
    m = lib.nn.Linear(5, 4) if kind == "linear" else lib.nn.Conv2d(2, 3, 3)
    lib.nn.utils.parametrizations.weight_norm(m, dim=dim)
    x = lib.randn(2, 5) if kind == "linear" else lib.randn(1, 2, 5, 5)
    m(x).tanh().sum().backward()
    pl = m.parametrizations.weight
    return ([repr(m), list(m.state_dict()), _names(m.weight)],
            [m.weight.detach().numpy(), pl.original0.detach().numpy(), pl.original1.detach().numpy(),
             pl.original0.grad.numpy(), pl.original1.grad.numpy()])


@pytest.mark.parametrize("kind,dim", [("linear", 0), ("linear", 1), ("linear", None), ("conv", 0), ("conv", 1),
                                      ("conv", 3), ("conv", -1)])
@pytest.mark.parametrize("seed", range(3))
def test_weight_norm_parametrization(torch, seed, kind, dim):
    (ours, ours_values), (theirs, theirs_values) = (_weight_norm_run(lib, seed, kind, dim) for lib in (gt, torch))
    assert ours == theirs
    for a, b in zip(ours_values, theirs_values):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_weight_norm_double_backward(torch):
    results = []
    for lib in (gt, torch):
        lib.manual_seed(0)
        m = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 2, dtype=lib.float64))
        pl = m.parametrizations.weight
        grads = lib.autograd.grad(m.weight.pow(3).sum(), (pl.original0, pl.original1), create_graph=True)
        second = lib.autograd.grad(sum(g.sum() for g in grads), (pl.original0, pl.original1))
        results.append([g.detach().numpy() for g in grads + second])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def _spectral_run(lib, seed, kind, dim, iterations):
    lib.manual_seed(seed)
    if kind == "linear":
        m = lib.nn.Linear(5, 4)
    elif kind == "conv":
        m = lib.nn.Conv2d(2, 3, 3)
    elif kind == "convt":
        m = lib.nn.ConvTranspose2d(2, 3, 3)
    else:
        m = lib.nn.Module()
        m.register_parameter("weight", lib.nn.Parameter(lib.randn(6)))
    lib.nn.utils.parametrizations.spectral_norm(m, n_power_iterations=iterations, dim=dim)
    sn = m.parametrizations.weight[0]
    values, names = [], [repr(m), list(m.state_dict()), _names(m.weight)]
    for _ in range(2):  # two training forwards: two rounds of power iteration
        w = m.weight
        w.pow(2).sum().backward()
        values.append(w.detach().numpy())
    m.eval()
    values.append(m.weight.detach().numpy())
    values.append(m.parametrizations.weight.original.grad.numpy())
    if kind != "vector":
        values += [sn._u.numpy(), sn._v.numpy()]
    return names, values


@pytest.mark.parametrize("kind,dim", [("linear", None), ("linear", 1), ("conv", None), ("conv", 2), ("conv", -1),
                                      ("convt", None), ("vector", None)])
@pytest.mark.parametrize("iterations", [1, 3])
@pytest.mark.parametrize("seed", range(2))
def test_spectral_norm_parametrization(torch, seed, kind, dim, iterations):
    (ours, ours_values), (theirs, theirs_values) = (_spectral_run(lib, seed, kind, dim, iterations)
                                                    for lib in (gt, torch))
    assert ours == theirs
    for a, b in zip(ours_values, theirs_values):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)


def _orthogonal_run(lib, seed, shape, orthogonal_map, trivial, dtype):
    lib.manual_seed(seed)
    m = lib.nn.Linear(shape[1], shape[0], dtype=dtype)
    lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map, use_trivialization=trivial)
    x = lib.randn(3, shape[1], dtype=dtype)
    m(x).sin().sum().backward()
    w = m.weight.detach()
    gram = w @ w.T if shape[0] <= shape[1] else w.T @ w
    values = [w.numpy(), gram.numpy(), m.parametrizations.weight.original.grad.numpy()]
    if trivial:
        values.append(m.parametrizations.weight[0].base.numpy())
    return [repr(m), list(m.state_dict()), _names(m.weight)], values


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley"])
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 5)])
@pytest.mark.parametrize("trivial", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_orthogonal_parametrization(torch, seed, shape, orthogonal_map, trivial):
    for dtype in ("float32", "float64"):
        runs = [_orthogonal_run(lib, seed, shape, orthogonal_map, trivial, getattr(lib, dtype)) for lib in (gt, torch)]
        assert runs[0][0] == runs[1][0]
        tolerance = dict(rtol=1e-4, atol=2e-5) if dtype == "float32" else dict(rtol=1e-9, atol=1e-11)
        for a, b in zip(runs[0][1], runs[1][1]):
            np.testing.assert_allclose(a, b, **tolerance)


def _parametrizations_errors(lib):
    PZ, nn = lib.nn.utils.parametrizations, lib.nn
    m = nn.Linear(3, 3)
    vector = nn.Module()
    vector.register_parameter("weight", nn.Parameter(lib.randn(3)))
    orth = PZ.orthogonal(nn.Linear(3, 3), use_trivialization=False)
    return [_error(lambda: PZ.orthogonal(m, "nope")), _error(lambda: PZ.orthogonal(vector)),
            _error(lambda: PZ.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")),
            _error(lambda: PZ.orthogonal(nn.Linear(3, 3, dtype=lib.complex64), orthogonal_map="householder")),
            _error(lambda: setattr(orth, "weight", lib.eye(3))),
            _error(lambda: PZ.spectral_norm(nn.Linear(3, 3), dim=2)),
            _error(lambda: PZ.spectral_norm(nn.Linear(3, 3), n_power_iterations=0)),
            _error(lambda: PZ.spectral_norm(m, "nope"))]


def test_parametrizations_errors(torch):
    ours, theirs = (_parametrizations_errors(lib) for lib in (gt, torch))
    assert ours == theirs


def _stateless_run(lib, seed):
    lib.manual_seed(seed)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    params = {k: v.detach() * 2 for k, v in m.named_parameters()}
    for v in params.values():
        v.requires_grad_()
    x = lib.randn(5, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = lib.nn.utils.stateless.functional_call(m, params, (x,))
    new = lib.func.functional_call(m, params, (x,))
    old.sum().backward()
    lin = lib.nn.Linear(2, 2)
    lib.nn.utils.parametrizations.weight_norm(lin)
    through = lib.func.functional_call(lin, {"parametrizations.weight.original1": lib.ones(2, 2)}, (lib.ones(1, 2),))
    return ([(w.category.__name__, str(w.message)) for w in caught], _names(old), bool(lib.equal(old, new))), \
        [old.detach().numpy(), params["0.weight"].grad.numpy(), through.detach().numpy()]


@pytest.mark.parametrize("seed", range(3))
def test_stateless_functional_call(torch, seed):
    (ours, ours_values), (theirs, theirs_values) = (_stateless_run(lib, seed) for lib in (gt, torch))
    assert ours == theirs
    assert ours[0] and ours[0][0][0] == "FutureWarning"
    for a, b in zip(ours_values, theirs_values):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def _old_checkpoint_run(lib):
    """A state_dict of the hook-based weight_norm (weight_g, weight_v) loads into the
    parametrization's originals, in a nested module too."""
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old = lib.nn.Sequential(lib.nn.Linear(3, 2))
        lib.nn.utils.weight_norm(old[0])
    new = lib.nn.Sequential(lib.nn.Linear(3, 2))
    lib.nn.utils.parametrizations.weight_norm(new[0])
    result = new.load_state_dict(old.state_dict())
    return repr(result), list(old.state_dict()), new[0].weight.detach().numpy()


def test_weight_norm_loads_old_checkpoints(torch):
    ours, theirs = (_old_checkpoint_run(lib) for lib in (gt, torch))
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6)
