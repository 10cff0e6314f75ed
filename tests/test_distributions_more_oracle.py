"""torch.distributions beyond the first five, against real PyTorch 2.13: the transforms,
Independent, TransformedDistribution, biject_to / transform_to, and the continuous and
discrete families built on them (LogNormal, Exponential, Laplace, Cauchy, HalfNormal,
HalfCauchy, Gumbel, Pareto, Weibull, Geometric) with their KL pairs.

Same harness as test_distributions_oracle.py: each case runs on both libraries after the same
manual_seed; ``exact`` (samples, and what is only arithmetic on them) must agree to the bit,
``rest`` within the oracle's tolerance where values pass through log / exp; grad_fn graphs,
reprs, errors, warnings and the generator state after the draws must agree exactly.
"""
import numpy as np
import pytest

import gradviz.torch as G
from test_distributions_oracle import SAMPLE_SHAPES, SEEDS, arrays, check, grads, leaf

torch = pytest.importorskip("torch")

# ---------------------------------------------------------------------------------------
# the loc / scale families: every method a user reaches for, samples bit for bit

LOC_SCALE = {
    "Laplace": lambda D, loc, scale: D.Laplace(loc, scale),
    "Cauchy": lambda D, loc, scale: D.Cauchy(loc, scale),
    "LogNormal": lambda D, loc, scale: D.LogNormal(loc, scale),
    "Gumbel": lambda D, loc, scale: D.Gumbel(loc, scale),
    "Pareto": lambda D, loc, scale: D.Pareto(scale, loc.abs() + 0.5),
    "Weibull": lambda D, loc, scale: D.Weibull(scale, loc.abs() + 0.5),
}
HAS_CDF = {"Laplace", "Cauchy", "LogNormal"}
# Cauchy's samples are arithmetic on the generator's draws (bit for bit); the others pass
# through log / exp / pow, which the engine rounds as numpy does (within the tolerance).
ARITHMETIC_SAMPLES = {"Cauchy"}


def loc_scale_case(T, name, loc_array, scale_array, dtype, sample_shape):
    loc, scale = leaf(T, loc_array, dtype), leaf(T, scale_array, dtype)
    d = LOC_SCALE[name](T.distributions, loc, scale)
    sample = d.sample(sample_shape)
    value = d.rsample(sample_shape) if d.has_rsample else sample
    log_prob = d.log_prob(value)
    moments = [d.mean, d.mode, d.variance, d.stddev, d.entropy()]
    rest = [repr(d), str(d.batch_shape), str(d.event_shape), repr(d.support), log_prob, moments,
            grads(T, log_prob, [loc, scale]), grads(T, sum(m.sum() for m in moments), [loc, scale])]
    if name in HAS_CDF:
        cdf = d.cdf(sample)
        rest += [cdf, d.icdf(cdf.detach().clamp(0.05, 0.95)), grads(T, cdf, [loc, scale])]
    if name in ARITHMETIC_SAMPLES:
        return [sample, value], rest
    return [], [sample, value] + rest


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(LOC_SCALE))
@pytest.mark.parametrize("shapes", [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 1), (3,))])
def test_loc_scale_families(seed, name, shapes):
    loc, scale = arrays(seed, *shapes)
    check(loc_scale_case, name, loc, np.abs(scale) + 0.2, "float32", SAMPLE_SHAPES[seed % 3], seed=seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(LOC_SCALE))
def test_loc_scale_families_float64_and_numbers(seed, name):
    loc, scale = arrays(seed, (4,), (4,))
    check(loc_scale_case, name, loc, np.abs(scale) + 0.2, "float64", (2,), seed=seed)

    def numbers(T):
        D = T.distributions
        made = {"Laplace": D.Laplace(0.5, 2.0), "Cauchy": D.Cauchy(0.5, 2.0), "LogNormal": D.LogNormal(0.5, 2.0),
                "Gumbel": D.Gumbel(0.5, 2.0), "Pareto": D.Pareto(2.0, 1.5), "Weibull": D.Weibull(2.0, 1.5)}[name]
        x = made.sample((3,))
        return [], [x, repr(made), str(made.batch_shape), made.log_prob(x)]
    check(numbers, seed=seed)


def scale_only_case(T, name, scale_array, sample_shape):
    scale = leaf(T, scale_array)
    D = T.distributions
    d = {"HalfNormal": D.HalfNormal, "HalfCauchy": D.HalfCauchy, "Exponential": D.Exponential}[name](scale)
    rsample = d.rsample(sample_shape)
    log_prob = d.log_prob(rsample)
    cdf = d.cdf(rsample)
    return ([d.sample(sample_shape), rsample, d.mode],
            [repr(d), repr(d.support), log_prob, cdf, d.entropy(), d.mean, d.variance,
             grads(T, log_prob + rsample, [scale]), grads(T, cdf + d.entropy(), [scale]),
             d.log_prob(-rsample.detach()) if name != "Exponential" else d.icdf(cdf.detach().clamp(0.05, 0.95))])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", ["Exponential", "HalfCauchy", "HalfNormal"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("sample_shape", SAMPLE_SHAPES)
def test_scale_only_families(seed, name, shape, sample_shape):
    (scale,) = arrays(seed, shape, low=0.3, high=2.0)
    check(scale_only_case, name, scale, sample_shape, seed=seed)


def geometric_case(T, array, by_logits, sample_shape):
    param = leaf(T, array)
    D = T.distributions
    d = D.Geometric(logits=param) if by_logits else D.Geometric(probs=param)
    sample = d.sample(sample_shape)
    log_prob = d.log_prob(sample)
    return ([sample, d.mode],
            [repr(d), log_prob, d.entropy(), d.mean, d.variance, d.probs, d.logits,
             grads(T, log_prob + d.entropy().sum(), [param])])


@pytest.mark.parametrize("seed", SEEDS)
# 0-dim probs are left out: the engine records index_put on a 0-dim tensor with a 0-dim mask
# (log_prob's probs[(probs == 1) & (value == 0)] = 0) as IndexPutBackward0 where PyTorch
# records CopySlices, an engine indexing gap outside the distributions.
@pytest.mark.parametrize("shape", [(4,), (2, 3)])
@pytest.mark.parametrize("by_logits", [False, True])
@pytest.mark.parametrize("sample_shape", SAMPLE_SHAPES)
def test_geometric(seed, shape, by_logits, sample_shape):
    (array,) = arrays(seed, shape, low=0.05 if not by_logits else -3.0, high=0.95 if not by_logits else 3.0)
    check(geometric_case, array, by_logits, sample_shape, seed=seed)


def test_geometric_probs_of_one_and_zero():
    def case(T):
        d = T.distributions.Geometric(T.tensor([1.0, 0.5]))
        return [d.sample((3,))], [d.log_prob(T.tensor([0.0, 2.0])), d.log_prob(T.tensor([1.0, 0.0]))]
    check(case)
    check(lambda T: T.distributions.Geometric(T.tensor([0.0, 0.5])))


# ---------------------------------------------------------------------------------------
# transforms

ELEMENTWISE = {
    "Exp": lambda D, T: D.ExpTransform(),
    "Sigmoid": lambda D, T: D.SigmoidTransform(),
    "Tanh": lambda D, T: D.TanhTransform(),
    "Softplus": lambda D, T: D.SoftplusTransform(),
    "Affine": lambda D, T: D.AffineTransform(T.tensor([0.5, -1.0, 2.0]), T.tensor([2.0, -0.5, 1.5])),
    "AffineNumbers": lambda D, T: D.AffineTransform(1.0, -3.0),
    "Power": lambda D, T: D.PowerTransform(T.tensor(2.5)),
    "Compose": lambda D, T: D.ComposeTransform([D.AffineTransform(0.5, 2.0), D.TanhTransform()]),
    "ExpInverse": lambda D, T: D.ExpTransform().inv,
    "Independent": lambda D, T: D.IndependentTransform(D.SigmoidTransform(), 1),
    "Cached": lambda D, T: D.ExpTransform().with_cache(),
}
POSITIVE_DOMAIN = {"Power", "ExpInverse"}


def transform_case(T, name, x_array):
    D = T.distributions
    t = ELEMENTWISE[name](D, T)
    x = leaf(T, np.abs(x_array) + 0.1 if name in POSITIVE_DOMAIN else x_array)
    y = t(x)
    back = t.inv(y)
    ladj = t.log_abs_det_jacobian(x, y)
    return ([], [repr(t), repr(t.inv), repr(t.domain), repr(t.codomain), t.bijective, y, back, ladj,
                 grads(T, y.sum() + ladj.sum(), [x]), grads(T, back, [x]), str(t.forward_shape(x.shape)),
                 str(t.inverse_shape(x.shape)), t == ELEMENTWISE[name](D, T), t.inv.inv is t])


@pytest.mark.parametrize("seed", SEEDS[:2])
@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_transforms(seed, name):
    (x,) = arrays(seed, (2, 3))
    check(transform_case, name, x, seed=seed)


def test_abs_reshape_and_sign():
    def case(T):
        D = T.distributions
        x = leaf(T, [[-1.0, 2.0, -0.5, 0.3, 1.0, -2.0]])
        r = D.ReshapeTransform((6,), (2, 3))
        y = r(x)
        a = D.AbsTransform()
        return [], [a(x), a.inv(a(x)), a.bijective, y, r.inv(y), r.log_abs_det_jacobian(x, y), repr(r.codomain),
                    str(r.forward_shape((4, 6))), str(r.inverse_shape((2, 3))), D.AffineTransform(0.0, -2.0).sign,
                    D.ComposeTransform([D.ExpTransform(), D.AffineTransform(0.0, -1.0)]).sign,
                    D.PowerTransform(T.tensor([2.0, -1.0])).sign, repr(D.identity_transform)]
    check(case)


STRUCTURED = {
    "Softmax": (lambda D: D.SoftmaxTransform(), (2, 4)),
    "StickBreaking": (lambda D: D.StickBreakingTransform(), (2, 3)),
    "LowerCholesky": (lambda D: D.LowerCholeskyTransform(), (2, 3, 3)),
    "CorrCholesky": (lambda D: D.CorrCholeskyTransform(), (2, 3)),
    "Cat": (lambda D: D.CatTransform([D.ExpTransform(), D.SigmoidTransform()], dim=1, lengths=[2, 3]), (2, 5)),
    "Stack": (lambda D: D.StackTransform([D.ExpTransform(), D.TanhTransform()], dim=1), (3, 2)),
}
NOT_BIJECTIVE = {"Softmax", "LowerCholesky"}


def structured_case(T, name, x_array):
    D = T.distributions
    t = STRUCTURED[name][0](D)
    x = leaf(T, x_array)
    y = t(x)
    rest = [repr(t), repr(t.domain), repr(t.codomain), y, t.inv(y), grads(T, y, [x]),
            t.codomain.check(y), str(t.forward_shape(x.shape))]
    if name not in NOT_BIJECTIVE:
        ladj = t.log_abs_det_jacobian(x, y)
        rest += [ladj, grads(T, ladj, [x])]
    return [], rest


@pytest.mark.parametrize("seed", SEEDS[:2])
@pytest.mark.parametrize("name", sorted(STRUCTURED))
def test_structured_transforms(seed, name):
    (x,) = arrays(seed, STRUCTURED[name][1])
    check(structured_case, name, x, seed=seed)


@pytest.mark.parametrize("which", ["biject_to", "transform_to"])
def test_biject_to_and_transform_to(which):
    def case(T):
        D = T.distributions
        C = D.constraints
        registry = getattr(D, which)
        out = []
        for constraint in (C.real, C.positive, C.nonnegative, C.greater_than(1.5), C.less_than(-2.0), C.unit_interval,
                           C.interval(-1.0, 3.0), C.simplex, C.independent(C.positive, 1), C.corr_cholesky,
                           C.cat([C.positive, C.real], 0, [2, 2]), C.stack([C.positive, C.unit_interval], -1)):
            t = registry(constraint)
            x = leaf(T, [[0.3, -1.2], [2.0, 0.1]])
            if constraint is C.corr_cholesky:
                x = leaf(T, [[0.3, -1.2, 0.5]])
            y = t(x)
            out += [repr(t), y, grads(T, y, [x]), bool(constraint.check(y).all())]
        return [], out
    check(case)


# ---------------------------------------------------------------------------------------
# Independent and TransformedDistribution


def test_independent():
    def case(T):
        D = T.distributions
        loc, scale = leaf(T, [[0.0, 1.0, -1.0], [0.5, 0.2, 0.1]]), leaf(T, [[1.0, 2.0, 0.5], [0.3, 1.0, 1.5]])
        d = D.Independent(D.Normal(loc, scale), 1)
        e = D.Independent(D.Bernoulli(logits=loc), 2)
        x = d.rsample((4,))
        lp = d.log_prob(x)
        kl = D.kl_divergence(d, D.Independent(D.Normal(scale, loc.abs() + 1), 1))
        return ([x, e.sample((2,)), d.mean, d.variance],
                [repr(d), repr(e), str(d.batch_shape), str(d.event_shape), str(e.event_shape), lp, d.entropy(),
                 e.entropy(), repr(d.support), d.has_rsample, e.has_enumerate_support, kl,
                 grads(T, lp + kl.sum(), [loc, scale]), repr(d.expand((3, 2))), str(d.expand((3, 2)).batch_shape)])
    for seed in SEEDS:
        check(case, seed=seed)


def test_transformed_distribution():
    def case(T):
        D = T.distributions
        loc, scale = leaf(T, [0.0, 1.0, -1.0]), leaf(T, [1.0, 0.5, 2.0])
        base = D.Normal(loc, scale)
        d = D.TransformedDistribution(base, [D.AffineTransform(1.0, 2.0), D.SigmoidTransform()])
        y = d.rsample((5,))
        lp = d.log_prob(y)
        flipped = D.TransformedDistribution(base, D.AffineTransform(0.0, -1.0))
        simplex = D.TransformedDistribution(D.Normal(T.zeros(2, 3), T.ones(2, 3)), D.StickBreakingTransform())
        s = simplex.sample()
        return ([flipped.sample((2,))],
                [y, s, repr(d), str(d.batch_shape), str(d.event_shape), repr(d.support), lp, grads(T, lp, [loc, scale]),
                 flipped.cdf(T.tensor([0.5, -0.5, 0.0])), flipped.icdf(T.tensor([0.2, 0.5, 0.9])),
                 str(simplex.event_shape), simplex.log_prob(s), repr(simplex.support),
                 str(d.expand((2, 3)).batch_shape)])
    for seed in SEEDS:
        check(case, seed=seed)


# ---------------------------------------------------------------------------------------
# KL divergences

KL_MAKERS = {
    "Exponential": lambda D, a, b: D.Exponential(b),
    "Laplace": lambda D, a, b: D.Laplace(a, b),
    "Cauchy": lambda D, a, b: D.Cauchy(a, b),
    "Gumbel": lambda D, a, b: D.Gumbel(a, b),
    "Pareto": lambda D, a, b: D.Pareto(b, a.abs() + 2.5),
    "HalfNormal": lambda D, a, b: D.HalfNormal(b),
    "Normal": lambda D, a, b: D.Normal(a, b),
    "Uniform": lambda D, a, b: D.Uniform(a, a + b),
    "LogNormal": lambda D, a, b: D.LogNormal(a, b),
    "Geometric": lambda D, a, b: D.Geometric(b / (b + 1)),
}
KL_PAIRS = [
    ("Exponential", "Exponential"), ("Laplace", "Laplace"), ("Cauchy", "Cauchy"), ("Gumbel", "Gumbel"),
    ("Pareto", "Pareto"), ("HalfNormal", "HalfNormal"), ("LogNormal", "LogNormal"), ("Geometric", "Geometric"),
    ("Exponential", "Gumbel"), ("Exponential", "Normal"), ("Exponential", "Pareto"), ("Gumbel", "Normal"),
    ("Laplace", "Normal"), ("Normal", "Gumbel"), ("Normal", "Laplace"), ("Normal", "Exponential"),
    ("Pareto", "Exponential"), ("Pareto", "Normal"), ("Uniform", "Exponential"), ("Uniform", "Gumbel"),
    ("Uniform", "Pareto"), ("Gumbel", "Uniform"), ("Laplace", "Uniform"),
]


def kl_case(T, p_name, q_name, values):
    D = T.distributions
    params = [leaf(T, v) for v in values]
    p = KL_MAKERS[p_name](D, params[0], params[1])
    q = KL_MAKERS[q_name](D, params[2], params[3])
    kl = D.kl_divergence(p, q)
    return [], [kl, grads(T, kl, params)]


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("p_name,q_name", KL_PAIRS)
def test_kl_pairs(seed, p_name, q_name):
    a, b, c, d = arrays(seed, (3,), (3,), (3,), (3,))
    check(kl_case, p_name, q_name, [a, np.abs(b) + 0.3, c, np.abs(d) + 0.3], seed=seed)


def test_kl_dispatch_names_match():
    names = ["Exponential", "Laplace", "Cauchy", "Gumbel", "Pareto", "HalfNormal", "Normal", "Uniform", "LogNormal",
             "Geometric", "Independent", "TransformedDistribution", "Weibull", "HalfCauchy"]
    for p in names:
        for q in names:
            ours = G.distributions.kl._dispatch_kl(getattr(G.distributions, p), getattr(G.distributions, q))
            theirs = torch.distributions.kl._dispatch_kl(getattr(torch.distributions, p),
                                                         getattr(torch.distributions, q))
            assert getattr(ours, "__name__", ours) == getattr(theirs, "__name__", theirs), (p, q)


# ---------------------------------------------------------------------------------------
# errors, validation and the package's names

ERROR_CASES = {
    "negative rate": lambda D, T: D.Exponential(T.tensor([1.0, -1.0])),
    "laplace negative scale": lambda D, T: D.Laplace(0.0, -1.0),
    "lognormal value outside support": lambda D, T: D.LogNormal(0.0, 1.0).log_prob(T.tensor(-1.0)),
    "pareto below scale": lambda D, T: D.Pareto(2.0, 1.0).log_prob(T.tensor(1.0)),
    "geometric zero probs": lambda D, T: D.Geometric(T.tensor([0.0, 0.5])),
    "geometric non-integer": lambda D, T: D.Geometric(0.5).log_prob(T.tensor(1.5)),
    "independent too many dims": lambda D, T: D.Independent(D.Normal(T.zeros(3), 1.0), 2),
    "independent enumerate": lambda D, T: D.Independent(D.Bernoulli(T.ones(2) / 2), 1).enumerate_support(),
    "transformed not a transform": lambda D, T: D.TransformedDistribution(D.Normal(0.0, 1.0), [1]),
    "transformed not a list": lambda D, T: D.TransformedDistribution(D.Normal(0.0, 1.0), 3),
    "transformed too few dims": lambda D, T: D.TransformedDistribution(D.Normal(0.0, 1.0), D.SoftmaxTransform()),
    "cache size": lambda D, T: D.ExpTransform(cache_size=2),
    "reshape numel": lambda D, T: D.ReshapeTransform((2, 3), (5,)),
    "reshape shape": lambda D, T: D.ReshapeTransform((2, 3), (6,)).forward_shape((3, 2)),
    "stick breaking no dims": lambda D, T: D.StickBreakingTransform().forward_shape(()),
    "biject_to missing": lambda D, T: D.biject_to(D.constraints.lower_cholesky),
    "register not a constraint": lambda D, T: D.biject_to.register(int, lambda c: None),
    "event_dim ambiguous": lambda D, T: D.StickBreakingTransform().event_dim,
    "kl transformed mismatch": lambda D, T: D.kl_divergence(D.LogNormal(0.0, 1.0), D.HalfNormal(1.0)),
    "kl not registered": lambda D, T: D.kl_divergence(D.Cauchy(0.0, 1.0), D.Normal(0.0, 1.0)),
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors_verbatim(name):
    check(lambda T: ERROR_CASES[name](T.distributions, T))


def test_the_new_names_are_pytorchs():
    for name in G.distributions.__all__:
        assert name in torch.distributions.__all__, name
    for name in G.distributions.transforms.__all__:
        ours, theirs = getattr(G.distributions, name), getattr(torch.distributions, name)
        assert repr(ours) == repr(theirs) if not isinstance(ours, type) else str(ours) == str(theirs), name
    for name in G.distributions.constraints.__all__:
        assert hasattr(torch.distributions.constraints, name), name
    for name in ("lower_cholesky", "lower_triangular", "corr_cholesky", "square", "symmetric"):
        assert repr(getattr(G.distributions.constraints, name)) == repr(getattr(torch.distributions.constraints, name))
    for name in ("LogNormal", "Gumbel", "Weibull", "HalfCauchy", "Exponential"):
        assert str(getattr(G.distributions, name)) == str(getattr(torch.distributions, name))
