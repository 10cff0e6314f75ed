"""torch.distributions on the engine against real PyTorch 2.13.

Each case builds the same distributions on both libraries from the same numpy arrays, draws
after the same manual_seed, and returns what a user sees: samples (bit for bit), log_prob,
entropy, cdf, moments, KL divergences, the gradients of all of them with respect to the
parameters, every result's grad_fn graph, reprs, shapes, and the generator state after the
draws. Errors and warnings are compared type and text. Cases sweep seeds, parameter and
sample shapes, both parameterisations, and float32 / float64.

A case returns ``(exact, rest)``: ``exact`` holds what must agree to the bit (samples, and
what is only arithmetic on them); ``rest`` may differ in the last bit where a value passes
through log / exp / erf, which the engine rounds as numpy does, not as MKL's VML (see
docs/limits.md), so its floats are compared within the oracle's tolerance.
"""
import itertools
import warnings

import numpy as np
import pytest

import gradviz.torch as G
from gradviz.float_noise import silence_in_engine
from oracle import (assert_no_diffs, canon_plain, compare_errors, describe_tensor, flatten, graph_signature,
                    to_numpy, values_diff)

torch = pytest.importorskip("torch")

SEEDS = [0, 1, 42, 2024]


# ---------------------------------------------------------------------------------------
# running one case on both libraries


def both(case, *args, seed=0):
    """(result, exception, warnings) of case(T, *args) for gradviz.torch and real torch, each
    after T.manual_seed(seed). numpy's float noise stays silenced in the engine, as under
    gradviz run (PyTorch computes the same inf and nan without a word)."""
    results = []
    for T in (G, torch):
        T.manual_seed(seed)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            silence_in_engine()
            try:
                results.append((case(T, *args), None))
            except Exception as e:  # noqa: BLE001 - whatever is raised is compared
                results.append((None, e))
        results[-1] += ([(w.category.__name__, str(w.message)) for w in seen],)
    return results


def compare(ours, theirs):
    """Every tensor's metadata, grad_fn graph and values (bits under ``out[0]``, the case's
    exact part); every other value as is."""
    diffs = []
    leaves_ours, struct_ours = flatten(G, ours)
    leaves_theirs, struct_theirs = flatten(torch, theirs)
    if struct_ours != struct_theirs:
        return [f"structure ours={struct_ours} torch={struct_theirs}"]
    for (path, a), (_, b) in zip(leaves_ours, leaves_theirs):
        if isinstance(b, torch.Tensor):
            if not isinstance(a, G.Tensor):
                diffs.append(f"{path}: ours is {type(a).__name__}")
                continue
            da, db = describe_tensor(a, values=False), describe_tensor(b, values=False)
            diffs += [f"{path}: {k} ours={da[k]!r} torch={db[k]!r}" for k in da if da[k] != db[k]]
            if graph_signature(G, a) != graph_signature(torch, b):
                diffs.append(f"{path}: graph\n{graph_signature(G, a)}\nvs\n{graph_signature(torch, b)}")
            va, vb = to_numpy(a), to_numpy(b)
            if not path.startswith("out[0]"):
                inexact = values_diff(va, vb, db["dtype"])
                diffs += [f"{path}: {inexact}"] if inexact else []
            elif va.shape == vb.shape and not np.array_equal(va, vb, equal_nan=va.dtype.kind in "fc"):
                bad = np.flatnonzero((va != vb).ravel())
                diffs.append(f"{path}: {bad.size} of {va.size} values differ: {va.ravel()[bad[:4]]} vs "
                             f"{vb.ravel()[bad[:4]]}")
        elif canon_plain(a) != canon_plain(b):
            diffs.append(f"{path}: ours={canon_plain(a)!r} torch={canon_plain(b)!r}")
    return diffs


def check(case, *args, seed=0):
    """The case agrees on both libraries: results, error, warnings, generator state after."""
    (res_o, err_o, warn_o), (res_t, err_t, warn_t) = both(case, *args, seed=seed)
    diffs = []
    if compare_errors("error", err_o, err_t, diffs):
        diffs += compare(res_o, res_t)
    if warn_o != warn_t:
        diffs.append(f"warnings ours={warn_o} torch={warn_t}")
    if not np.array_equal(G.get_rng_state().numpy(), torch.get_rng_state().numpy()):
        diffs.append("the generator states differ after the case")
    assert_no_diffs(diffs)
    return res_o


def leaf(T, array, dtype="float32", requires_grad=True):
    return T.tensor(np.asarray(array, dtype=dtype), requires_grad=requires_grad)


def grads(T, output, inputs):
    """d(output.sum())/d(inputs), None for an input the output does not reach."""
    return list(T.autograd.grad(output.sum(), inputs, allow_unused=True, retain_graph=True))


def arrays(seed, *shapes, low=-1.5, high=1.5):
    rng = np.random.default_rng(seed)
    return [rng.uniform(low, high, size=shape) for shape in shapes]


# ---------------------------------------------------------------------------------------
# Normal

NORMAL_SHAPES = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 1), (3,)), ((4,), ())]
SAMPLE_SHAPES = [(), (5,), (2, 3)]


def normal_case(T, loc_array, scale_array, dtype, sample_shape):
    loc, scale = leaf(T, loc_array, dtype), leaf(T, scale_array, dtype)
    d = T.distributions.Normal(loc, scale)
    sample = d.sample(sample_shape)
    rsample = d.rsample(sample_shape)
    log_prob = d.log_prob(rsample)
    entropy, cdf = d.entropy(), d.cdf(sample)
    moments = [d.mean, d.stddev, d.variance, d.mode]
    total = log_prob.sum() + entropy.sum() + rsample.sum() + cdf.sum() + d.variance.sum()
    return ([sample, rsample, moments],
            [repr(d), str(d.batch_shape), str(d.event_shape), log_prob, entropy, cdf, grads(T, log_prob, [loc, scale]),
             grads(T, total, [loc, scale]), d.perplexity(), d.has_rsample])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shapes", NORMAL_SHAPES)
@pytest.mark.parametrize("sample_shape", SAMPLE_SHAPES)
def test_normal(seed, shapes, sample_shape):
    loc, scale = arrays(seed, *shapes)
    check(normal_case, loc, np.abs(scale) + 0.1, "float32", sample_shape, seed=seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_normal_float64_and_python_numbers(seed):
    loc, scale = arrays(seed, (2, 3), (2, 3))
    check(normal_case, loc, np.abs(scale) + 0.1, "float64", (4,), seed=seed)

    def numbers(T):
        d = T.distributions.Normal(0.5, 2.0)
        x = d.rsample((3,))
        return [d.loc, d.scale, x], [repr(d), d.log_prob(x), d.entropy(), str(d.batch_shape)]
    check(numbers, seed=seed)

    def mixed(T):
        d = T.distributions.Normal(leaf(T, [0.0, 1.0], "float64"), 3)
        return [d.scale, d.sample(), d.rsample((2,))], [repr(d), d.log_prob(T.tensor(0.5, dtype=T.float64))]
    check(mixed, seed=seed)


# ---------------------------------------------------------------------------------------
# Categorical and OneHotCategorical

CATEGORICAL_SHAPES = [(4,), (3, 5), (2, 3, 4), (1,)]


def categorical_case(T, array, by_logits, sample_shape):
    param = leaf(T, array)
    d = T.distributions.Categorical(logits=param) if by_logits else T.distributions.Categorical(probs=param)
    shown_first = repr(d)
    sample = d.sample(sample_shape)
    log_prob = d.log_prob(sample)
    entropy = d.entropy()
    return ([sample, d.mode, d.mean, d.variance, d.enumerate_support(), d.enumerate_support(expand=False)],
            [shown_first, repr(d), str(d.batch_shape), str(d.event_shape), log_prob, entropy, d.probs, d.logits,
             grads(T, log_prob, [param]), grads(T, entropy, [param]), str(d.param_shape), repr(d.support)])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", CATEGORICAL_SHAPES)
@pytest.mark.parametrize("by_logits", [False, True])
@pytest.mark.parametrize("sample_shape", SAMPLE_SHAPES)
def test_categorical(seed, shape, by_logits, sample_shape):
    (array,) = arrays(seed, shape, low=0.05 if not by_logits else -2.0, high=2.0)
    check(categorical_case, array, by_logits, sample_shape, seed=seed)


def test_categorical_with_zero_probabilities():
    def case(T):
        d = T.distributions.Categorical(probs=leaf(T, [[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]]))
        e = d.entropy()
        return [d.sample((6,))], [d.logits, e, grads(T, e, [d.probs]), d.log_prob(T.tensor([1, 0]))]
    for seed in SEEDS:
        check(case, seed=seed)


def one_hot_case(T, array, sample_shape, straight_through):
    param = leaf(T, array)
    cls = T.distributions.OneHotCategoricalStraightThrough if straight_through else T.distributions.OneHotCategorical
    d = cls(probs=param)
    sample = d.rsample(sample_shape) if straight_through else d.sample(sample_shape)
    log_prob = d.log_prob(sample)
    rest = [repr(d), str(d.batch_shape), str(d.event_shape), log_prob, d.entropy(), d.mean, d.variance,
            grads(T, log_prob, [param])]
    if straight_through:
        rest.append(grads(T, (sample * T.arange(array.shape[-1])).sum(), [param]))
    return [sample, d.mode, d.enumerate_support()], rest


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(3,), (2, 4)])
@pytest.mark.parametrize("straight_through", [False, True])
def test_one_hot_categorical(seed, shape, straight_through):
    (array,) = arrays(seed, shape, low=0.1, high=1.0)
    check(one_hot_case, array, (3,), straight_through, seed=seed)


# ---------------------------------------------------------------------------------------
# Bernoulli and Uniform


def bernoulli_case(T, array, by_logits, sample_shape):
    param = leaf(T, array)
    d = T.distributions.Bernoulli(logits=param) if by_logits else T.distributions.Bernoulli(probs=param)
    shown_first = repr(d)
    sample = d.sample(sample_shape)
    log_prob = d.log_prob(sample)
    entropy = d.entropy()
    # a 0-dim parameter prints its value, which passes through log for the other parameter
    shown_after = repr(d) if param.dim() else None
    return ([sample, d.enumerate_support()],
            [shown_first, shown_after, str(d.batch_shape), log_prob, entropy, d.probs, d.logits, d.mean, d.variance,
             grads(T, log_prob, [param]), grads(T, entropy, [param])])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
@pytest.mark.parametrize("by_logits", [False, True])
@pytest.mark.parametrize("sample_shape", SAMPLE_SHAPES)
def test_bernoulli(seed, shape, by_logits, sample_shape):
    (array,) = arrays(seed, shape, low=0.02 if not by_logits else -3.0, high=0.98 if not by_logits else 3.0)
    check(bernoulli_case, array, by_logits, sample_shape, seed=seed)


def test_bernoulli_numbers_mode_and_edges():
    def case(T):
        d = T.distributions.Bernoulli(0.3)
        edges = T.distributions.Bernoulli(probs=T.tensor([0.0, 0.5, 1.0, 0.7]))
        return ([d.sample((4,)), edges.mode, edges.sample((2,))],
                [repr(d), d.log_prob(T.tensor(1.0)), d.entropy(), edges.entropy(), edges.logits,
                 repr(T.distributions.Bernoulli(logits=T.tensor([0.5])))])
    for seed in SEEDS:
        check(case, seed=seed)


def uniform_case(T, low_array, width_array, sample_shape):
    low, width = leaf(T, low_array), leaf(T, width_array)
    high = low + width
    d = T.distributions.Uniform(low, high)
    rsample = d.rsample(sample_shape)
    log_prob = d.log_prob(rsample)
    return ([d.sample(sample_shape), rsample, d.cdf(rsample), d.icdf(d.cdf(rsample)), d.mean, d.stddev, d.variance,
             d.mode],
            [repr(d), log_prob, d.entropy(), repr(d.support), grads(T, rsample + log_prob, [low, width])])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(), (3,), (2, 2)])
@pytest.mark.parametrize("sample_shape", SAMPLE_SHAPES)
def test_uniform(seed, shape, sample_shape):
    low, width = arrays(seed, shape, shape)
    check(uniform_case, low, np.abs(width) + 0.5, sample_shape, seed=seed)


def test_uniform_log_prob_outside_its_support_without_validation():
    def case(T):
        d = T.distributions.Uniform(T.tensor([0.0, 1.0]), T.tensor([1.0, 2.0]), validate_args=False)
        return [d.cdf(T.tensor([-1.0, 3.0]))], [d.log_prob(T.tensor([1.5, 1.5]))]
    check(case)


# ---------------------------------------------------------------------------------------
# KL divergence


def kl_case(T, arrays_p, arrays_q, kind):
    D = T.distributions
    ps = [leaf(T, a) for a in arrays_p]
    qs = [leaf(T, a) for a in arrays_q]
    make = {"normal": lambda a, b: D.Normal(a, b), "categorical": lambda a: D.Categorical(logits=a),
            "bernoulli": lambda a: D.Bernoulli(logits=a), "one_hot": lambda a: D.OneHotCategorical(logits=a),
            "uniform": lambda a, b: D.Uniform(a, a + b)}[kind]
    kl = D.kl_divergence(make(*ps), make(*qs))
    return [], [kl, grads(T, kl, ps + qs), D.kl.kl_divergence(make(*qs), make(*ps))]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind,arity", [("normal", 2), ("categorical", 1), ("bernoulli", 1), ("one_hot", 1),
                                        ("uniform", 2)])
@pytest.mark.parametrize("shape", [(3,), (2, 4)])
def test_kl_divergence(seed, kind, arity, shape):
    values = arrays(seed, *[shape] * (2 * arity))
    if arity == 2:  # the second parameter is a scale or a width
        values = [values[0], np.abs(values[1]) + 0.2, values[2], np.abs(values[3]) + 0.2]
    check(kl_case, values[:arity], values[arity:], kind, seed=seed)


def test_kl_with_zero_probabilities_and_across_families():
    def case(T):
        D = T.distributions
        p = D.Categorical(probs=T.tensor([[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]]))
        q = D.Categorical(probs=T.tensor([[0.3, 0.7, 0.0], [0.2, 0.3, 0.5]]))
        b0 = D.Bernoulli(probs=T.tensor([0.0, 1.0, 0.5]))
        b1 = D.Bernoulli(probs=T.tensor([0.5, 1.0, 0.0]))
        n = D.Normal(T.tensor([0.0, 1.0]), T.tensor([1.0, 2.0]))
        u = D.Uniform(T.tensor([0.0, -1.0]), T.tensor([1.0, 2.0]))
        wide = D.Uniform(T.tensor([-1.0, -1.0]), T.tensor([3.0, 1.0]))
        return [], [D.kl_divergence(p, q), D.kl_divergence(b0, b1), D.kl_divergence(b1, b0), D.kl_divergence(n, u),
                    D.kl_divergence(u, n), D.kl_divergence(u, wide), D.kl_divergence(wide, u)]
    check(case)


# ---------------------------------------------------------------------------------------
# expand, validation, errors and warnings


def test_expand():
    def case(T):
        D = T.distributions
        n = D.Normal(leaf(T, [0.0, 1.0, 2.0]), 1.0).expand((2, 3))
        c = D.Categorical(logits=leaf(T, [0.1, 0.2, 0.7])).expand((4,))
        b = D.Bernoulli(probs=leaf(T, [0.3])).expand((2, 2))
        u = D.Uniform(0.0, 1.0).expand((3,))
        o = D.OneHotCategorical(probs=leaf(T, [0.5, 0.5])).expand((2,))
        return ([x.sample((2,)) for x in (n, c, b, u, o)],
                [[repr(x), str(x.batch_shape), x._validate_args] for x in (n, c, b, u, o)] + [
                    n.log_prob(T.zeros(2, 3)), c.log_prob(T.tensor([0, 1, 2, 0])), b.entropy(), o.entropy()])
    for seed in SEEDS:
        check(case, seed=seed)


ERROR_CASES = {
    "negative scale": lambda D, T: D.Normal(T.tensor([0.0, 1.0]), T.tensor([1.0, -1.0])),
    "nan loc": lambda D, T: D.Normal(T.tensor([float("nan")]), 1.0),
    "value not a tensor": lambda D, T: D.Normal(0.0, 1.0).log_prob(3),
    "value outside the support": lambda D, T: D.Categorical(T.tensor([1.0, 2.0, 3.0])).log_prob(T.tensor(3)),
    "value not broadcastable": lambda D, T: D.Normal(T.zeros(3), 1.0).log_prob(T.zeros(4)),
    "event shape": lambda D, T: D.OneHotCategorical(T.tensor([0.2, 0.8])).log_prob(T.tensor([1.0, 0.0, 0.0])),
    "not one-hot": lambda D, T: D.OneHotCategorical(T.tensor([0.2, 0.8])).log_prob(T.tensor([1.0, 1.0])),
    "neither parameter": lambda D, T: D.Categorical(),
    "both parameters": lambda D, T: D.Bernoulli(0.5, 0.0),
    "0-dim probs": lambda D, T: D.Categorical(T.tensor(1.0)),
    "0-dim logits": lambda D, T: D.Categorical(logits=T.tensor(1.0)),
    "probs not a simplex": lambda D, T: D.Categorical(T.tensor([1.0, -2.0, 3.0])),
    "probs above one": lambda D, T: D.Bernoulli(T.tensor([1.5, 0.5])),
    "probs not in {0, 1}": lambda D, T: D.Bernoulli(0.5).log_prob(T.tensor(0.5)),
    "low above high": lambda D, T: D.Uniform(1.0, 0.0),
    "outside [low, high]": lambda D, T: D.Uniform(0.0, 1.0).log_prob(T.tensor(2.0)),
    "list parameter": lambda D, T: D.Normal([0.0], 1.0),
    "shapes that do not broadcast": lambda D, T: D.Normal(T.zeros(2), T.ones(3)),
    "kl not registered": lambda D, T: D.kl_divergence(D.Categorical(T.ones(2)), D.Normal(0.0, 1.0)),
    "kl across exponential families": lambda D, T: D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(0.3)),
    "base rsample": lambda D, T: D.Categorical(T.ones(2)).rsample(),
    "base cdf": lambda D, T: D.Bernoulli(0.5).cdf(T.tensor(1.0)),
    "mode not implemented": lambda D, T: D.ExponentialFamily().mode,
    "negative scale without validation": lambda D, T: D.Normal(0.0, -1.0, validate_args=False).log_prob(T.ones(1)),
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors_verbatim(name):
    check(lambda T: ERROR_CASES[name](T.distributions, T))


def test_validation_can_be_turned_off_globally():
    def case(T):
        D = T.distributions.Distribution
        D.set_default_validate_args(False)
        try:
            d = T.distributions.Normal(0.0, -1.0)
            return [], [d.log_prob(T.tensor(1.0)), d.entropy()]
        finally:
            D.set_default_validate_args(True)
    check(case)
    assert G.distributions.Distribution._validate_args is torch.distributions.Distribution._validate_args is True


def test_a_subclass_without_constraints_warns_and_register_kl_dispatches_to_it():
    def case(T):
        D = T.distributions

        class Coin(D.Bernoulli):
            pass

        class Plain(D.Distribution):
            pass

        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            Plain(validate_args=True)
        seen = [str(w.message) for w in seen]
        inherited = D.kl_divergence(Coin(0.3), Coin(0.6))  # Bernoulli's pair, found by subclass
        D.register_kl(Coin, Coin)(lambda p, q: T.zeros(()))
        own = D.kl_divergence(Coin(0.3), Coin(0.6))
        return ([own, Coin(0.3).expand((2,)).sample()],
                [seen, inherited, repr(Coin(0.3))])
    check(case)


def test_sample_n_warns_that_it_is_deprecated():
    def case(T):
        return [T.distributions.Normal(0.0, 1.0).sample_n(3)], []
    check(case)


def test_the_package_is_reachable_as_pytorchs():
    for name in ("Bernoulli", "Categorical", "Distribution", "ExponentialFamily", "Normal", "OneHotCategorical",
                 "OneHotCategoricalStraightThrough", "Uniform", "kl_divergence", "register_kl"):
        assert hasattr(G.distributions, name) and hasattr(torch.distributions, name), name
    for name in ("real", "positive", "simplex", "boolean", "unit_interval", "real_vector", "one_hot"):
        assert repr(getattr(G.distributions.constraints, name)) == repr(getattr(torch.distributions.constraints, name))
    assert G.distributions.kl.kl_divergence is G.distributions.kl_divergence
    pairs = itertools.product(["Normal", "Bernoulli"], repeat=2)
    for p, q in pairs:
        ours = G.distributions.kl._dispatch_kl(getattr(G.distributions, p), getattr(G.distributions, q))
        theirs = torch.distributions.kl._dispatch_kl(getattr(torch.distributions, p), getattr(torch.distributions, q))
        assert ours.__name__ == theirs.__name__
