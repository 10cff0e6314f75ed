"""torch.distributions' relaxed and mixture distributions against real PyTorch 2.13:
RelaxedBernoulli / LogitRelaxedBernoulli, RelaxedOneHotCategorical / ExpRelaxedCategorical
(the Gumbel-sigmoid and Gumbel-softmax relaxations) and MixtureSameFamily.

Same harness as test_distributions_oracle.py. Samples drawn with torch.rand or by a
Categorical pass through log / log1p / exp, which the engine rounds as numpy does and
PyTorch as MKL's VML does (docs/limits.md), so they are compared within the oracle's
tolerance, except a mixture's sample: a gather of the components' own samples, bit for bit
where those are. grad_fn graphs, reprs, errors and the generator state after the draws must
agree exactly (the same number of draws from the same streams).
"""
import numpy as np
import pytest

from test_distributions_oracle import SAMPLE_SHAPES, SEEDS, arrays, check, grads, leaf

torch = pytest.importorskip("torch")


def relaxed_bernoulli_case(T, array, temperature, by_logits, sample_shape):
    param = leaf(T, array)
    temp = T.tensor(temperature, requires_grad=True)
    D = T.distributions
    d = D.RelaxedBernoulli(temp, logits=param) if by_logits else D.RelaxedBernoulli(temp, probs=param)
    base = d.base_dist
    rsample = d.rsample(sample_shape)
    log_prob = d.log_prob(rsample)
    base_sample = base.rsample(sample_shape)
    base_log_prob = base.log_prob(base_sample)
    # at the base's own sample the gradient to probs cancels to nearly zero (noise, not a
    # value): it is taken at a fixed point instead
    at_fixed_point = base.log_prob(T.full_like(base_sample, 0.5))
    return [], [rsample, d.sample(sample_shape), log_prob, base_sample, base_log_prob, repr(d), repr(base),
                grads(T, at_fixed_point, [param, temp]), str(d.batch_shape), d.probs, d.logits, d.temperature, repr(d.support),
                grads(T, log_prob + rsample, [param, temp]), grads(T, base_log_prob, [temp]),
                repr(d.expand((2,) + tuple(d.batch_shape))), d.expand((2,) + tuple(d.batch_shape)).rsample().shape]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(), (3,), (2, 4)])
@pytest.mark.parametrize("by_logits", [False, True])
def test_relaxed_bernoulli(seed, shape, by_logits):
    low, high = (-2.0, 2.0) if by_logits else (0.05, 0.95)
    (array,) = arrays(seed, shape, low=low, high=high)
    check(relaxed_bernoulli_case, array, [0.3, 0.7, 1.5][seed % 3], by_logits, SAMPLE_SHAPES[seed % 3], seed=seed)


def relaxed_categorical_case(T, array, temperature, by_logits, sample_shape):
    param = leaf(T, array)
    temp = T.tensor(temperature, requires_grad=True)
    D = T.distributions
    d = (D.RelaxedOneHotCategorical(temp, logits=param) if by_logits
         else D.RelaxedOneHotCategorical(temp, probs=param))
    base = d.base_dist
    rsample = d.rsample(sample_shape)
    log_prob = d.log_prob(rsample)
    base_sample = base.rsample(sample_shape)
    base_log_prob = base.log_prob(base_sample)
    return [], [rsample, d.sample(sample_shape), log_prob, base_sample, base_log_prob, repr(d), repr(base),
                str(d.batch_shape), str(d.event_shape), d.probs, d.logits, repr(d.support),
                grads(T, log_prob + rsample.sum(-1), [param, temp]), grads(T, base_log_prob, [param, temp]),
                str(d.expand((3,) + tuple(d.batch_shape)).batch_shape)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 1, 5)])
@pytest.mark.parametrize("by_logits", [False, True])
def test_relaxed_one_hot_categorical(seed, shape, by_logits):
    low, high = (-2.0, 2.0) if by_logits else (0.05, 1.0)
    (array,) = arrays(seed, shape, low=low, high=high)
    check(relaxed_categorical_case, array, [0.3, 0.7, 1.5][seed % 3], by_logits, SAMPLE_SHAPES[seed % 3], seed=seed)


def test_relaxed_errors_and_validation():
    D = "distributions"
    for fn in [
        lambda T: getattr(T, D).RelaxedBernoulli(T.tensor(0.5)),
        lambda T: getattr(T, D).RelaxedBernoulli(T.tensor(0.5), probs=T.tensor([0.5]), logits=T.tensor([0.0])),
        lambda T: getattr(T, D).RelaxedBernoulli(T.tensor(0.5), probs=T.tensor([1.5])),
        lambda T: getattr(T, D).RelaxedBernoulli(T.tensor(0.5), probs=0.3).rsample((2,)).shape,
        lambda T: getattr(T, D).RelaxedBernoulli(T.tensor(0.5), probs=T.tensor([0.3])).log_prob(T.tensor([1.5])),
        lambda T: getattr(T, D).RelaxedOneHotCategorical(T.tensor(0.5)),
        lambda T: getattr(T, D).RelaxedOneHotCategorical(T.tensor(0.5), probs=T.tensor([0.5, -0.5])),
        lambda T: getattr(T, D).RelaxedOneHotCategorical(T.tensor(0.5), probs=T.tensor([0.5, 0.5])).log_prob(
            T.tensor([0.5, 0.6])),
    ]:
        check(fn)


# ---------------------------------------------------------------------------------------
# MixtureSameFamily

def mixture_case(T, seed, batch, k, component, sample_shape):
    rng = np.random.default_rng(seed)
    logits = leaf(T, rng.standard_normal(batch + (k,)))
    loc = leaf(T, rng.standard_normal(batch + (k, 2)))
    scale = leaf(T, rng.uniform(0.3, 1.5, batch + (k, 2)))
    D = T.distributions
    mix = D.Categorical(logits=logits)
    if component == "Normal":
        comp = D.Normal(loc[..., 0], scale[..., 0])
    elif component == "Independent":
        comp = D.Independent(D.Normal(loc, scale), 1)
    else:
        comp = D.MultivariateNormal(loc, scale_tril=T.diag_embed(scale))
    gmm = D.MixtureSameFamily(mix, comp)
    sample = gmm.sample(sample_shape)
    log_prob = gmm.log_prob(sample)
    params = [logits, loc, scale]
    rest = [repr(gmm), str(gmm.batch_shape), str(gmm.event_shape), log_prob, gmm.mean, gmm.variance,
            repr(gmm.support), grads(T, log_prob, params), grads(T, gmm.mean.sum() + gmm.variance.sum(), params),
            str(gmm.expand((3,) + tuple(gmm.batch_shape)).batch_shape), gmm.has_rsample]
    if component == "Normal":
        rest.append(gmm.cdf(sample))
    # the Normal's samples are loc + scale * eps (bit for bit); the MultivariateNormal's a bmm
    return [sample], rest


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("batch", [(), (3,), (2, 1)])
@pytest.mark.parametrize("component", ["Normal", "Independent", "MultivariateNormal"])
def test_mixture_same_family(seed, batch, component):
    check(mixture_case, seed, batch, 3, component, SAMPLE_SHAPES[seed % 3], seed=seed)


def test_mixture_errors():
    D = "distributions"
    for fn in [
        lambda T: getattr(T, D).MixtureSameFamily(getattr(T, D).Normal(0.0, 1.0), getattr(T, D).Normal(T.zeros(3), 1.0)),
        lambda T: getattr(T, D).MixtureSameFamily(getattr(T, D).Categorical(T.ones(3)), T.zeros(3)),
        lambda T: getattr(T, D).MixtureSameFamily(getattr(T, D).Categorical(T.ones(3)),
                                                  getattr(T, D).Normal(T.zeros(4), 1.0)),
        lambda T: getattr(T, D).MixtureSameFamily(getattr(T, D).Categorical(T.ones(2, 3)),
                                                  getattr(T, D).Normal(T.zeros(4, 3), 1.0)),
        lambda T: getattr(T, D).MixtureSameFamily(getattr(T, D).Categorical(T.ones(3)),
                                                  getattr(T, D).Exponential(T.ones(3))).log_prob(T.tensor([-1.0])),
        lambda T: repr(getattr(T, D).MixtureSameFamily(getattr(T, D).Categorical(T.ones(3)),
                                                       getattr(T, D).Exponential(T.ones(3))).support),
    ]:
        check(fn)
