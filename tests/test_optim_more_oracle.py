"""Adamax, NAdam, RAdam, Adadelta, ASGD, Rprop and Adafactor against PyTorch 2.13's
single-tensor updates, bit for bit over 200 seeded float32 steps (the harness of
test_optim_bitexact_oracle: gradients fed from numpy, MKL's sqrt swapped for the correctly
rounded one on PyTorch's side); LBFGS to rounding (its dot products are BLAS's in PyTorch);
SparseAdam's refusal of dense gradients; and every optimizer's repr, state_dict round trip,
param group defaults and argument errors, word for word."""
import copy
import warnings

import numpy as np
import pytest

import gradviz.torch as gt
from test_optim_bitexact_oracle import _Lib, _rounded_sqrt, _run


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


OPTIMIZERS = {
    "adamax": lambda T, p: T.optim.Adamax(p, lr=0.01),
    "adamax_wd_maximize": lambda T, p: T.optim.Adamax(p, lr=0.02, betas=(0.8, 0.9), eps=1e-4, weight_decay=0.1,
                                                      maximize=True),
    "nadam": lambda T, p: T.optim.NAdam(p, lr=0.01),
    "nadam_wd_momentum_decay": lambda T, p: T.optim.NAdam(p, lr=0.005, weight_decay=0.05, momentum_decay=0.01),
    "nadam_decoupled_maximize": lambda T, p: T.optim.NAdam(p, lr=0.01, weight_decay=0.2,
                                                           decoupled_weight_decay=True, maximize=True),
    "radam": lambda T, p: T.optim.RAdam(p, lr=0.01),
    "radam_wd": lambda T, p: T.optim.RAdam(p, lr=0.01, betas=(0.7, 0.9), weight_decay=0.1),
    "radam_decoupled_maximize": lambda T, p: T.optim.RAdam(p, lr=0.003, weight_decay=0.3,
                                                           decoupled_weight_decay=True, maximize=True),
    "adadelta": lambda T, p: T.optim.Adadelta(p),
    "adadelta_wd_maximize": lambda T, p: T.optim.Adadelta(p, lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1,
                                                          maximize=True),
    "asgd": lambda T, p: T.optim.ASGD(p, lr=0.01),
    "asgd_averaging": lambda T, p: T.optim.ASGD(p, lr=0.02, lambd=1e-3, alpha=0.6, t0=50, weight_decay=0.01,
                                                maximize=True),
    "rprop": lambda T, p: T.optim.Rprop(p, lr=0.01),
    "rprop_bounds_maximize": lambda T, p: T.optim.Rprop(p, lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2),
                                                        maximize=True),
    "adafactor": lambda T, p: T.optim.Adafactor(p),
    "adafactor_wd_maximize": lambda T, p: T.optim.Adafactor(p, lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=2.0,
                                                            weight_decay=0.1, maximize=True),
}


@pytest.mark.parametrize("name", list(OPTIMIZERS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_200_steps_bit_exact(torch, name, seed):
    make = OPTIMIZERS[name]
    ours, our_versions = _run(_Lib(gt), make, seed)
    with _rounded_sqrt(torch):
        theirs, their_versions = _run(_Lib(torch), make, seed)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype == np.float32
        mismatched = int((a.view(np.int32) != b.view(np.int32)).sum())
        assert mismatched == 0, f"{mismatched} of {a.size} values differ"
    assert our_versions == their_versions


def _lbfgs_run(lib, seed, line_search_fn, steps=2):
    """A least-squares fit with a quartic term, so the curvature changes along the way; two
    steps of four iterations, short of the tolerances (near them a last-bit difference in
    a dot product may stop one run an iteration before the other)."""
    rng = np.random.default_rng(seed)
    a = lib.from_numpy(rng.standard_normal((20, 6)).astype(np.float32))
    b = lib.from_numpy(rng.standard_normal(20).astype(np.float32))
    w = lib.nn.Parameter(lib.from_numpy(rng.standard_normal(6).astype(np.float32)))
    opt = lib.optim.LBFGS([w], lr=0.8, max_iter=4, history_size=3, line_search_fn=line_search_fn)
    losses = []

    def closure():
        opt.zero_grad()
        loss = ((a @ w - b) ** 2).mean() + (w ** 4).sum() * 0.01
        loss.backward()
        return loss
    for _ in range(steps):
        losses.append(float(opt.step(closure)))
    state = opt.state[w]
    return w.detach().numpy().copy(), losses, state["func_evals"], state["n_iter"], len(state["old_dirs"])


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("seed", range(8))
def test_lbfgs_follows_pytorch(torch, seed, line_search_fn):
    ours = _lbfgs_run(_Lib(gt), seed, line_search_fn)
    theirs = _lbfgs_run(_Lib(torch), seed, line_search_fn)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    assert ours[2:] == theirs[2:]  # the same evaluations, iterations and history length


def test_lbfgs_errors(torch):
    for lib in (gt, torch):
        p, q = lib.zeros(2, requires_grad=True), lib.zeros(2, requires_grad=True)
        with pytest.raises(ValueError) as groups:
            lib.optim.LBFGS([{"params": [p]}, {"params": [q]}])
        opt = lib.optim.LBFGS([p], line_search_fn="armijo")

        def closure():
            opt.zero_grad()
            loss = ((p - 1) ** 2).sum()
            loss.backward()
            return loss
        with pytest.raises(RuntimeError) as search:
            opt.step(closure)
        if lib is gt:
            ours = str(groups.value), str(search.value)
    assert ours == (str(groups.value), str(search.value))


def test_sparse_adam_refuses_dense_gradients(torch):
    messages = []
    for lib in (gt, torch):
        p = lib.zeros(3, requires_grad=True)
        opt = lib.optim.SparseAdam([p], lr=0.1)
        assert opt.step() is None  # no gradient yet: nothing to refuse
        p.grad = lib.ones(3)
        with pytest.raises(RuntimeError) as refused:
            opt.step()
        messages.append((str(refused.value), repr(opt)))
        with pytest.raises(ValueError) as complex_params:
            lib.optim.SparseAdam([lib.zeros(2), lib.zeros(2, dtype=lib.complex64)])
        messages.append(str(complex_params.value))
    assert messages[:2] == messages[2:]


ALL = ["Adamax", "NAdam", "RAdam", "Adadelta", "ASGD", "Rprop", "Adafactor", "LBFGS", "SparseAdam"]


def _params(lib):
    return [lib.nn.Parameter(lib.ones(2, 3)), lib.nn.Parameter(lib.ones(4))]


@pytest.mark.parametrize("name", ALL)
def test_repr_and_param_group_defaults(torch, name):
    ours, theirs = getattr(gt.optim, name)(_params(gt)), getattr(torch.optim, name)(_params(torch))
    assert repr(ours) == repr(theirs)
    strip = [{k: v for k, v in g.items() if k != "params"} for g in theirs.param_groups]
    assert [{k: v for k, v in g.items() if k != "params"} for g in ours.param_groups] == strip
    assert [list(g) for g in ours.param_groups] == [list(g) for g in theirs.param_groups]
    assert ours.defaults == theirs.defaults


def _steps(lib, opt, params, start, count):
    for step in range(start, start + count):
        for i, p in enumerate(params):
            rng = np.random.default_rng(step * 10 + i)
            p.grad = lib.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32))
        opt.step()


def _save_and_reload(lib, name):
    """Three steps, a state_dict, loaded into a fresh optimizer (another lr) on copies of the
    parameters; two more steps on each must agree. Returns the state's layout and values."""
    params = _params(lib)
    opt = getattr(lib.optim, name)(params, lr=0.01)
    _steps(lib, opt, params, 0, 3)
    saved = opt.state_dict()
    layout = [(k, sorted((key, str(v.dtype) if hasattr(v, "dtype") else repr(v)) for key, v in s.items()))
              for k, s in saved["state"].items()]
    values = [np.asarray(v.numpy() if hasattr(v, "numpy") else v) for s in saved["state"].values()
              for v in s.values()]
    copies = [lib.nn.Parameter(p.detach().clone()) for p in params]
    reloaded = getattr(lib.optim, name)(copies, lr=0.5)
    reloaded.load_state_dict(copy.deepcopy(saved))
    assert reloaded.param_groups[0]["lr"] == 0.01
    _steps(lib, opt, params, 3, 2)
    _steps(lib, reloaded, copies, 3, 2)
    for p, c in zip(params, copies):
        np.testing.assert_array_equal(p.detach().numpy(), c.detach().numpy())
    return layout, values, [p.detach().numpy() for p in params]


@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam", "Adadelta", "ASGD", "Rprop", "Adafactor"])
def test_state_dict_round_trip(torch, name):
    """The state_dict's keys, dtypes and values are PyTorch's, and resuming from it is exact."""
    ours = _save_and_reload(gt, name)
    with _rounded_sqrt(torch):
        theirs = _save_and_reload(torch, name)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1] + ours[2], theirs[1] + theirs[2]):
        np.testing.assert_array_equal(a, b)


BAD_ARGUMENTS = [
    ("Adamax", {"lr": -1}), ("Adamax", {"eps": -1e-3}), ("Adamax", {"betas": (1.0, 0.9)}),
    ("Adamax", {"betas": (0.9, -0.1)}), ("Adamax", {"weight_decay": -0.5}),
    ("NAdam", {"lr": -0.1}), ("NAdam", {"momentum_decay": -1}), ("NAdam", {"betas": (0.5, 1.5)}),
    ("RAdam", {"eps": -1}), ("RAdam", {"weight_decay": -2}), ("RAdam", {"betas": (-0.1, 0.9)}),
    ("Adadelta", {"lr": -1}), ("Adadelta", {"rho": 1.5}), ("Adadelta", {"eps": -1}),
    ("Adadelta", {"weight_decay": -1}),
    ("ASGD", {"lr": -1}), ("ASGD", {"weight_decay": -1}),
    ("Rprop", {"lr": -1}), ("Rprop", {"etas": (1.5, 2.0)}), ("Rprop", {"etas": (0.5, 0.9)}),
    ("Adafactor", {"lr": -1}), ("Adafactor", {"beta2_decay": 0.5}), ("Adafactor", {"eps": (-1.0, 1e-3)}),
    ("Adafactor", {"eps": (None, -1)}), ("Adafactor", {"d": 0.5}), ("Adafactor", {"weight_decay": -1}),
    ("LBFGS", {"lr": -1}), ("SparseAdam", {"lr": 0}), ("SparseAdam", {"eps": 0}),
    ("SparseAdam", {"betas": (0.9, 1)}),
]


@pytest.mark.parametrize("name,kwargs", BAD_ARGUMENTS)
def test_argument_errors_verbatim(torch, name, kwargs):
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, name)(_params(torch), **kwargs)
    with pytest.raises(ValueError) as ours:
        getattr(gt.optim, name)(_params(gt), **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_adafactor_refuses_complex(torch):
    messages = []
    for lib in (gt, torch):
        p = lib.zeros(2, dtype=lib.complex64, requires_grad=True)
        p.grad = lib.ones(2, dtype=lib.complex64)
        with pytest.raises(RuntimeError) as refused:
            lib.optim.Adafactor([p]).step()
        messages.append(str(refused.value))
    assert messages[0] == messages[1]


def test_no_warnings_on_plain_steps():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = _params(gt)
        for name in ALL[:-2]:
            opt = getattr(gt.optim, name)(params)
            for p in params:
                p.grad = gt.ones_like(p)
            opt.step()
