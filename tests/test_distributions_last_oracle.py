"""torch.distributions' last names against real PyTorch 2.13: Multinomial, ContinuousBernoulli
(with its KL pairs), LogisticNormal, GeneralizedPareto and VonMises.

Same harness as test_distributions_oracle.py: each case runs on both libraries after the same
manual_seed; ``exact`` must agree to the bit: Multinomial's counts (torch.multinomial draws
counted by scatter_add_) and VonMises' samples (float64 arithmetic on torch.rand draws, where
a last-bit difference of cos / acos could only flip an acceptance at a boundary, and is gone
in the cast to float32). ``rest`` is compared within the oracle's tolerance where values pass
through log / exp / pow; grad_fn graphs, reprs, errors, warnings and the generator state after
the draws (so the number of rejection rounds too) must agree exactly.
"""
import numpy as np
import pytest

from test_distributions_oracle import SAMPLE_SHAPES, SEEDS, arrays, check, grads, leaf

torch = pytest.importorskip("torch")

# ---------------------------------------------------------------------------------------
# Multinomial


def multinomial_case(T, seed, batch, k, total_count, by_logits, sample_shape):
    rng = np.random.default_rng(seed)
    array = rng.standard_normal(batch + (k,)) if by_logits else rng.uniform(0.0, 1.0, batch + (k,))
    if not by_logits and k > 2:
        array[..., 1] = 0.0  # a category that never comes up: log_prob's 0 * log(0)
    param = leaf(T, array)
    D = T.distributions
    d = D.Multinomial(total_count, logits=param) if by_logits else D.Multinomial(total_count, probs=param)
    sample = d.sample(sample_shape)
    log_prob = d.log_prob(sample)
    entropy = d.entropy()
    expanded = d.expand((2,) + tuple(d.batch_shape))
    rest = [repr(d), repr(d.support), str(d.batch_shape), str(d.event_shape), log_prob, entropy, d.mean,
            d.variance, d.probs, d.logits, grads(T, log_prob, [param]),
            grads(T, entropy + d.mean.sum(-1) + d.variance.sum(-1), [param]), repr(expanded),
            str(expanded.batch_shape), d.total_count, str(d.param_shape)]
    return [sample, expanded.sample()], rest


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("batch", [(), (3,), (2, 1)])
@pytest.mark.parametrize("by_logits", [False, True])
def test_multinomial(seed, batch, by_logits):
    check(multinomial_case, seed, batch, [2, 3, 5][seed % 3], [1, 4, 10, 0][seed % 4], by_logits,
          SAMPLE_SHAPES[seed % 3], seed=seed)


# ---------------------------------------------------------------------------------------
# ContinuousBernoulli: probs on both sides of the Taylor region around 0.5 and inside it

CB_PROBS = [0.05, 0.3, 0.4995, 0.5, 0.5008, 0.7, 0.99]


def continuous_bernoulli_case(T, seed, shape, by_logits, sample_shape, dtype):
    rng = np.random.default_rng(seed)
    probs = rng.choice(CB_PROBS, size=shape)
    param = leaf(T, np.log(probs / (1 - probs)) if by_logits else probs, dtype)
    D = T.distributions
    d = D.ContinuousBernoulli(logits=param) if by_logits else D.ContinuousBernoulli(probs=param)
    shown = repr(d)  # before logits is first read: its last bit comes from log (docs/limits.md)
    unchecked = D.ContinuousBernoulli(probs=d.probs, validate_args=False)  # cdf outside [0, 1]: 0 and 1
    rsample = d.rsample(sample_shape)
    sample = d.sample(sample_shape)
    log_prob = d.log_prob(rsample)
    cdf = d.cdf(sample)
    moments = [d.mean, d.variance, d.stddev, d.entropy()]
    rest = [rsample, sample, log_prob, cdf, d.icdf(cdf.detach()), moments, shown, repr(d.support),
            str(d.batch_shape), d.probs, d.logits, d._log_normalizer(*d._natural_params),
            unchecked.cdf(T.tensor([0.0, 1.0, -0.5, 1.5], dtype=param.dtype).reshape((4,) + (1,) * len(shape))),
            repr(d.expand((2,) + tuple(d.batch_shape)))]
    # the gradients are differences of terms of size 1 / |1 - 2p| and 1 / log(p / (1 - p)):
    # float32's last-bit differences in log / log1p grow past the tolerance there, so the
    # gradients (the same op sequence) are compared in float64
    if dtype == "float64":
        rest += [grads(T, log_prob + rsample, [param]), grads(T, sum(m.sum() for m in moments) + cdf.sum(), [param])]
    return [], rest


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(), (5,), (2, 4)])
@pytest.mark.parametrize("by_logits", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_continuous_bernoulli(seed, shape, by_logits, dtype):
    check(continuous_bernoulli_case, seed, shape, by_logits, SAMPLE_SHAPES[seed % 3], dtype, seed=seed)


def continuous_bernoulli_kl_case(T, seed, other):
    # in float64: the gradients cancel as continuous_bernoulli_case's do
    rng = np.random.default_rng(seed)
    probs = leaf(T, rng.choice(CB_PROBS, size=(4,)), "float64")
    a, b = leaf(T, rng.uniform(0.2, 2.0, (4,)), "float64"), leaf(T, rng.uniform(0.2, 2.0, (4,)), "float64")
    D = T.distributions
    cb = D.ContinuousBernoulli(probs)
    others = {
        "ContinuousBernoulli": lambda: D.ContinuousBernoulli(logits=a - 1.0),
        "Exponential": lambda: D.Exponential(a), "Normal": lambda: D.Normal(a - 1.0, b),
        "Uniform": lambda: D.Uniform(a - 1.2, a - 1.2 + b), "Beta": lambda: D.Beta(a, b),
        "Gamma": lambda: D.Gamma(a, b), "Gumbel": lambda: D.Gumbel(a, b), "Laplace": lambda: D.Laplace(a, b),
        "Pareto": lambda: D.Pareto(a, b),
    }
    q = others[other]()
    out = []
    for p_, q_ in ((cb, q), (q, cb)):
        try:
            kl = D.kl_divergence(p_, q_)
            out += [kl, grads(T, kl.masked_fill(kl.isinf(), 0.0), [probs, a, b])]
        except NotImplementedError as e:
            out.append(str(e))
    return [], out


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("other", ["ContinuousBernoulli", "Exponential", "Normal", "Uniform", "Beta", "Gamma",
                                   "Gumbel", "Laplace", "Pareto"])
def test_continuous_bernoulli_kl(seed, other):
    check(continuous_bernoulli_kl_case, seed, other, seed=seed)


# ---------------------------------------------------------------------------------------
# LogisticNormal and GeneralizedPareto


def logistic_normal_case(T, loc_array, scale_array, sample_shape):
    loc, scale = leaf(T, loc_array), leaf(T, scale_array)
    d = T.distributions.LogisticNormal(loc, scale)
    rsample = d.rsample(sample_shape)
    log_prob = d.log_prob(rsample)
    expanded = d.expand((2,) + tuple(d.batch_shape))
    return [], [rsample, d.sample(sample_shape), log_prob, repr(d), repr(d.support), str(d.batch_shape),
                str(d.event_shape), d.loc, d.scale, grads(T, log_prob + rsample.sum(-1), [loc, scale]),
                repr(expanded), str(expanded.event_shape), expanded.rsample().shape]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shapes", [((), ()), ((3,), (3,)), ((2, 4), (4,)), ((2, 1), (3,))])
def test_logistic_normal(seed, shapes):
    loc, scale = arrays(seed, *shapes)
    check(logistic_normal_case, loc, np.abs(scale) + 0.3, SAMPLE_SHAPES[seed % 3], seed=seed)


def generalized_pareto_case(T, loc_array, scale_array, conc_array, sample_shape, dtype):
    loc, scale, conc = leaf(T, loc_array, dtype), leaf(T, scale_array, dtype), leaf(T, conc_array, dtype)
    d = T.distributions.GeneralizedPareto(loc, scale, conc)
    rsample = d.rsample(sample_shape)
    log_prob = d.log_prob(rsample)
    cdf = d.cdf(rsample)
    moments = [d.mean, d.variance, d.mode, d.entropy()]
    params = [loc, scale, conc]
    return [], [rsample, d.sample(sample_shape), log_prob, cdf, d.icdf(cdf.detach().clamp(0.05, 0.95)),
                d.log_survival_function(rsample), moments, repr(d), repr(d.support), str(d.batch_shape),
                grads(T, log_prob + cdf + rsample, params), grads(T, moments[3], params),
                repr(d.expand((2,) + tuple(d.batch_shape)))]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(), (6,), (2, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_generalized_pareto(seed, shape, dtype):
    loc, scale, conc = arrays(seed, shape, shape, shape, low=-0.6, high=0.8)
    conc = np.where(np.abs(conc) < 0.2, 0.0, conc)  # some exactly 0: the exponential limit
    check(generalized_pareto_case, loc, np.abs(scale) + 0.2, conc, SAMPLE_SHAPES[seed % 3], dtype, seed=seed)


# ---------------------------------------------------------------------------------------
# VonMises


def von_mises_case(T, loc_array, conc_array, sample_shape, dtype):
    loc, conc = leaf(T, loc_array, dtype), leaf(T, conc_array, dtype)
    d = T.distributions.VonMises(loc, conc)
    sample = d.sample(sample_shape)
    log_prob = d.log_prob(sample)
    expanded = d.expand((2,) + tuple(d.batch_shape))
    samples = [sample, expanded.sample()]
    rest = [log_prob, d.mean, d.mode, d.variance, repr(d), repr(d.support), str(d.batch_shape),
            grads(T, log_prob + d.variance, [loc, conc]), repr(expanded), d.has_rsample]
    # float64 samples keep the last bit of cos / acos, which the engine rounds as numpy does;
    # the cast to float32 rounds it away
    return (samples, rest) if dtype == "float32" else ([], samples + rest)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_von_mises(seed, shape, dtype):
    loc, conc = arrays(seed, shape, shape, low=-3.0, high=3.0)
    conc = np.abs(conc) * [1e-6, 1.0, 4.0, 30.0][seed % 4] + 1e-7  # near 0 (the Taylor proposal) to peaked
    check(von_mises_case, loc, conc, SAMPLE_SHAPES[seed % 3], dtype, seed=seed)


# ---------------------------------------------------------------------------------------
# errors and validation, in PyTorch's words


def test_last_distributions_errors():
    D = "distributions"
    for fn in [
        lambda T: getattr(T, D).Multinomial(2.0, probs=T.tensor([0.5, 0.5])),
        lambda T: getattr(T, D).Multinomial(2, probs=T.tensor([0.5, 0.5]), logits=T.tensor([0.0, 0.0])),
        lambda T: getattr(T, D).Multinomial(2, probs=T.tensor([-0.5, 0.5])),
        lambda T: getattr(T, D).Multinomial(3, probs=T.tensor([0.5, 0.5])).log_prob(T.tensor([1.5, 1.5])),
        lambda T: getattr(T, D).Multinomial(probs=T.tensor([0.5, 0.5])).log_prob(T.tensor([3.0, 2.0])),
        lambda T: getattr(T, D).Multinomial(probs=T.tensor([0.5, 0.5]), validate_args=False).log_prob(
            T.tensor([3.0, 2.0])),
        lambda T: getattr(T, D).Multinomial(3, probs=T.tensor([0.5, 0.5])).log_prob(T.tensor([1.0, 1.0, 1.0])),
        lambda T: getattr(T, D).ContinuousBernoulli(),
        lambda T: getattr(T, D).ContinuousBernoulli(T.tensor([1.5]), validate_args=False),
        lambda T: getattr(T, D).ContinuousBernoulli(T.tensor([1.5])),
        lambda T: getattr(T, D).ContinuousBernoulli(T.tensor([0.3])).log_prob(T.tensor([1.5])),
        lambda T: getattr(T, D).ContinuousBernoulli(0.3).rsample((2,)).shape,
        lambda T: getattr(T, D).kl_divergence(getattr(T, D).ContinuousBernoulli(T.tensor([0.3])),
                                              getattr(T, D).Bernoulli(T.tensor([0.3]))),
        lambda T: getattr(T, D).LogisticNormal(T.zeros(3), -T.ones(3)),
        lambda T: getattr(T, D).LogisticNormal(T.zeros(2), T.ones(2)).log_prob(T.tensor([0.5, 0.6, 0.1])),
        lambda T: getattr(T, D).GeneralizedPareto(T.zeros(2), T.tensor([1.0, -1.0]), T.zeros(2)),
        lambda T: getattr(T, D).GeneralizedPareto(T.zeros(2), T.ones(2), -T.ones(2)).log_prob(T.tensor([0.5, 1.5])),
        lambda T: getattr(T, D).GeneralizedPareto(0.0, 1.0, 0.5).batch_shape,
        lambda T: getattr(T, D).VonMises(T.zeros(2), T.tensor([1.0, 0.0])),
        lambda T: getattr(T, D).VonMises(T.zeros(2), T.ones(2)).rsample(),
        lambda T: getattr(T, D).VonMises(0.0, 1.0).sample((3,)),
    ]:
        check(fn)


# ---------------------------------------------------------------------------------------
# LKJCholesky: the onion method's Beta and randn draws; the samples pass through sqrt and
# the Beta sampler's pow / log, so they are compared within the tolerance


def lkj_cholesky_case(T, dim, conc_array, sample_shape, dtype):
    conc = leaf(T, conc_array, dtype)
    d = T.distributions.LKJCholesky(dim, conc)
    sample = d.sample(sample_shape)
    log_prob = d.log_prob(sample)
    expanded = d.expand((2,) + tuple(d.batch_shape))
    corr = sample @ sample.transpose(-1, -2)
    return [], [sample, corr.diagonal(dim1=-2, dim2=-1), log_prob, repr(d), repr(d.support), str(d.batch_shape),
                str(d.event_shape), grads(T, log_prob, [conc]), repr(expanded), expanded.sample().shape]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dim", [2, 3, 5])
@pytest.mark.parametrize("batch", [(), (3,)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lkj_cholesky(seed, dim, batch, dtype):
    (conc,) = arrays(seed, batch, low=0.3, high=4.0)
    check(lkj_cholesky_case, dim, conc, SAMPLE_SHAPES[seed % 3], dtype, seed=seed)


def test_lkj_cholesky_errors():
    D = "distributions"
    for fn in [
        lambda T: getattr(T, D).LKJCholesky(1),
        lambda T: getattr(T, D).LKJCholesky(3, T.tensor([1.0, -1.0])),
        lambda T: getattr(T, D).LKJCholesky(2, 1.0).log_prob(T.tensor([[1.0, 0.5], [0.5, 1.0]])),
        lambda T: getattr(T, D).LKJCholesky(2, 1.0).sample((2,)).shape,
    ]:
        check(fn)
