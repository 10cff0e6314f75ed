"""The Gamma family and the counting samplers against real PyTorch 2.13: torch._standard_gamma,
_sample_dirichlet, poisson and binomial draw PyTorch's numbers bit for bit after the same
manual_seed (every branch of ATen's samplers: concentrations below 1, rates below and above
10, binomial inversion and BTRS, both dtypes), their reparameterized gradients
(_standard_gamma_grad, _dirichlet_grad) agree to the bit, and the distributions built on them
(Gamma, Chi2, InverseGamma, Beta, Dirichlet, StudentT, FisherSnedecor, Kumaraswamy, Poisson,
Binomial, NegativeBinomial) and their KL pairs agree as test_distributions_oracle.py checks.
"""
import numpy as np
import pytest

import gradviz.torch as G
from test_distributions_oracle import SAMPLE_SHAPES, SEEDS, check, grads, leaf

torch = pytest.importorskip("torch")

MANY_SEEDS = list(range(12))


def _concentrations(seed, size, dtype):
    """Concentrations across sample_gamma's branches: below 1 (boosted), moderate, large, and 0."""
    rng = np.random.default_rng(seed)
    values = np.concatenate([rng.uniform(0.01, 1, size), rng.uniform(1, 20, size), rng.uniform(20, 5e3, 2), [0.0]])
    rng.shuffle(values)
    return values.astype(dtype)


# ---------------------------------------------------------------------------------------
# the engine's samplers, bit for bit (and the generator where PyTorch leaves it)

@pytest.mark.parametrize("seed", MANY_SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_stream(seed, dtype):
    alpha = _concentrations(seed, 25, dtype)

    def case(T):
        a = T.tensor(alpha, requires_grad=True)
        x = T._standard_gamma(a)
        following = T.randn(5)  # the normal cache and the stream go on as PyTorch's
        return [x, following, grads(T, x, [a])], [x.grad_fn.name()]
    check(case, seed=seed)


@pytest.mark.parametrize("seed", MANY_SEEDS[:6])
def test_standard_gamma_shapes_and_layouts(seed):
    def case(T):
        base = T.rand(3, 4, dtype=T.float64) * 3
        return [T._standard_gamma(base.t()), T._standard_gamma(base[:, ::2]),
                T._standard_gamma(T.tensor([0.5, 2.0]).expand(3, 2)), T._standard_gamma(T.tensor(0.7)),
                T._standard_gamma(T.empty(0))], []
    check(case, seed=seed)


@pytest.mark.parametrize("seed", MANY_SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sample_dirichlet_stream(seed, dtype):
    rng = np.random.default_rng(seed)
    alpha = np.exp(rng.uniform(-4, 4, (seed % 4 + 1, seed % 5 + 2))).astype(dtype)
    check(lambda T: ([T._sample_dirichlet(T.tensor(alpha)), T.rand(3)], []), seed=seed)


@pytest.mark.parametrize("seed", MANY_SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_poisson_stream(seed, dtype):
    rng = np.random.default_rng(seed)
    rates = np.concatenate([rng.uniform(0, 10, 30), rng.uniform(10, 2000, 30), [0.0, 10.0]])
    rng.shuffle(rates)

    def case(T):
        rate = T.tensor(rates.astype(dtype), requires_grad=True)
        counts = T.poisson(rate)
        return [counts, grads(T, counts, [rate]), T.rand(2)], [counts.grad_fn.name()]
    check(case, seed=seed)


@pytest.mark.parametrize("seed", MANY_SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial_stream(seed, dtype):
    rng = np.random.default_rng(seed)
    count = np.floor(np.exp(rng.uniform(0, 8, 40)))
    prob = rng.uniform(0, 1, 40)
    prob[:4] = [0.0, 1.0, 0.5, 0.97]
    count[4] = 0

    def case(T):
        n, p = T.tensor(count.astype(dtype)), T.tensor(prob.astype(dtype))
        return [T.binomial(n, p), T.binomial(n[:5], T.tensor(0.3, dtype=n.dtype).expand(5)), T.rand(2)], []
    check(case, seed=seed)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reparameterized_gradients_bit_for_bit(dtype):
    rng = np.random.default_rng(7)
    alpha = np.exp(rng.uniform(-5, 7, 3000)).astype(dtype)
    x = np.exp(rng.uniform(-8, 8, 3000)).astype(dtype)
    concentration = np.exp(rng.uniform(-4, 4, (800, 3))).astype(dtype)

    def case(T):
        a = T.tensor(alpha)
        sample = T._standard_gamma(a)
        c = T.tensor(concentration)
        point = T._sample_dirichlet(c)
        total = c.sum(-1, True).expand_as(c)
        return [T._standard_gamma_grad(a, T.tensor(x)), T._standard_gamma_grad(a, sample),
                T._dirichlet_grad(point, c, total)], []
    check(case)


def _sampler_errors(T):
    a = T.tensor([1.5, 0.5], requires_grad=True)
    return {
        "gamma_long": lambda: T._standard_gamma(T.tensor([1, 2])),
        "gamma_half": lambda: T._standard_gamma(T.tensor([1.0], dtype=T.half)),
        "poisson_long": lambda: T.poisson(T.tensor([1, 2])),
        "poisson_negative": lambda: T.poisson(T.tensor([2.0, -1.0])),
        "binomial_count_long": lambda: T.binomial(T.tensor([1]), T.tensor([0.5])),
        "binomial_prob_long": lambda: T.binomial(T.tensor([5.0]), T.tensor([1])),
        "binomial_dtypes": lambda: T.binomial(T.tensor([1.0]), T.tensor([0.5], dtype=T.float64)),
        "binomial_half": lambda: T.binomial(T.tensor([1.0], dtype=T.half), T.tensor([0.5], dtype=T.half)),
        "binomial_shapes": lambda: T.binomial(T.tensor([5.0, 6.0]), T.tensor([0.5, 0.4, 0.1])),
        "dirichlet_long": lambda: T._sample_dirichlet(T.tensor([1, 2])),
        "gamma_grad_dtypes": lambda: T._standard_gamma_grad(T.tensor([1.0]), T.tensor([1.0], dtype=T.float64)),
        "dirichlet_grad_dtypes": lambda: T._dirichlet_grad(T.tensor([0.5], dtype=T.float64), T.tensor([1.0]),
                                                           T.tensor([2.0])),
        "gamma_grad_backward": lambda: T._standard_gamma_grad(a, T._standard_gamma(a)).sum().backward(),
        "dirichlet_backward": lambda: T._sample_dirichlet(a).sum().backward(),
        "binomial_backward": lambda: T.binomial(a, a / 3).sum().backward(),
    }


@pytest.mark.parametrize("name", sorted(_sampler_errors(G)))
def test_sampler_errors_verbatim(name):
    check(lambda T: ([], [_sampler_errors(T)[name]()]))


def test_invalid_concentrations_give_the_smallest_normal():
    check(lambda T: ([T._standard_gamma(T.tensor([-1.0, float("nan"), 0.0, float("inf")])),
                      T._sample_dirichlet(T.tensor([[0.0, 0.0]])), T.binomial(T.tensor([-1.0, 3.0, 5.0]),
                                                                              T.tensor([0.5, 1.5, -0.5]))], []))


# ---------------------------------------------------------------------------------------
# the distributions

def gamma_like_case(T, name, first, second, dtype, sample_shape):
    p1, p2 = leaf(T, first, dtype), leaf(T, second, dtype)
    D = T.distributions
    d = {"Gamma": lambda: D.Gamma(p1, p2), "Chi2": lambda: D.Chi2(p1), "InverseGamma": lambda: D.InverseGamma(p1, p2),
         "Beta": lambda: D.Beta(p1, p2), "FisherSnedecor": lambda: D.FisherSnedecor(p1, p2),
         "StudentT": lambda: D.StudentT(p1, p2, p2 + 1), "Kumaraswamy": lambda: D.Kumaraswamy(p1, p2)}[name]()
    sample = d.sample(sample_shape)
    value = d.rsample(sample_shape)
    params = [p1, p2]
    drawn = [sample, value, grads(T, value, params)]
    log_prob = d.log_prob(value.detach())
    moments = [d.mean, d.variance]
    if name not in ("FisherSnedecor",):
        moments.append(d.entropy())
    if name not in ("Chi2", "Gamma"):
        moments.append(d.mode)
    rest = [repr(d), str(d.batch_shape), str(d.event_shape), repr(d.support), log_prob, moments,
            grads(T, sum(m.nansum() for m in moments[:2]), params)]
    if name != "Beta" or dtype == "float64":
        # Beta's log_prob gradient is log(x) + digamma(a + b) - digamma(a), which cancels; the
        # engine's float32 digamma differs from ATen's in the last bits (as its log does).
        rest.append(grads(T, log_prob, params))
    if name == "Gamma":
        rest += [d.cdf(sample), d.mode]
    if name in EXACT_SAMPLES:
        return drawn, rest
    return [], drawn + rest


# Samples that are arithmetic on _standard_gamma / _sample_dirichlet are PyTorch's to the bit;
# the others pass through pow / rsqrt, which the engine rounds as numpy does (within tolerance).
EXACT_SAMPLES = {"Beta", "Chi2", "FisherSnedecor", "Gamma"}
GAMMA_LIKE = ["Beta", "Chi2", "FisherSnedecor", "Gamma", "InverseGamma", "Kumaraswamy", "StudentT"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", GAMMA_LIKE)
@pytest.mark.parametrize("shapes", [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 1), (3,))])
def test_gamma_like_families(seed, name, shapes):
    rng = np.random.default_rng(seed)
    first = np.exp(rng.uniform(-1.5, 2.0, shapes[0]))
    second = np.exp(rng.uniform(-1.5, 2.0, shapes[1]))
    check(gamma_like_case, name, first, second, "float32", SAMPLE_SHAPES[seed % 3], seed=seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", GAMMA_LIKE)
def test_gamma_like_families_float64(seed, name):
    rng = np.random.default_rng(seed)
    check(gamma_like_case, name, np.exp(rng.uniform(-2, 2, 4)), np.exp(rng.uniform(-2, 2, 4)), "float64", (3,),
          seed=seed)


def dirichlet_case(T, array, sample_shape):
    c = leaf(T, array)
    d = T.distributions.Dirichlet(c)
    value = d.rsample(sample_shape)
    weighted = (value * T.arange(float(array.shape[-1]))).sum()
    exact = [d.sample(sample_shape), value, T.autograd.grad(weighted, c, retain_graph=True)]
    log_prob = d.log_prob(value.detach())
    rest = [repr(d), str(d.batch_shape), str(d.event_shape), log_prob, d.entropy(), d.mean, d.variance, d.mode,
            grads(T, log_prob, [c]), value.grad_fn is not None and type(value.grad_fn).__name__]
    return exact, rest


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(2,), (3,), (2, 4), (3, 1, 2)])
def test_dirichlet(seed, shape):
    rng = np.random.default_rng(seed)
    check(dirichlet_case, np.exp(rng.uniform(-2, 2, shape)), SAMPLE_SHAPES[seed % 3], seed=seed)


def counts_case(T, name, rate_array, probs_array, by_logits, sample_shape):
    D = T.distributions
    rate = leaf(T, rate_array)
    probs = leaf(T, probs_array)
    keyword = {"logits": (probs - 0.5) * 4} if by_logits else {"probs": probs}
    d = {"Poisson": lambda: D.Poisson(rate), "Binomial": lambda: D.Binomial(T.full_like(rate, 12.0), **keyword),
         "NegativeBinomial": lambda: D.NegativeBinomial(rate, **keyword)}[name]()
    described = [repr(d), str(d.batch_shape), repr(d.support)]  # before logits / probs are computed
    sample = d.sample(sample_shape)
    log_prob = d.log_prob(sample)
    rest = described + [log_prob, d.mean, d.mode, d.variance,
            grads(T, log_prob, [rate, probs])]
    if name == "Binomial":
        rest += [d.entropy(), d.enumerate_support(), d.enumerate_support(False)]
    return [sample], rest


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", ["Binomial", "NegativeBinomial", "Poisson"])
@pytest.mark.parametrize("by_logits", [False, True])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_counting_families(seed, name, by_logits, shape):
    rng = np.random.default_rng(seed)
    rates = np.exp(rng.uniform(-2, 4, shape))
    probs = rng.uniform(0.05, 0.95, shape)
    check(counts_case, name, rates, probs, by_logits, SAMPLE_SHAPES[seed % 3], seed=seed)


KL_PAIRS = {
    "gamma_gamma": lambda D, a, b: (D.Gamma(a, b), D.Gamma(b, a + 1)),
    "chi2_chi2": lambda D, a, b: (D.Chi2(a), D.Chi2(b)),
    "beta_beta": lambda D, a, b: (D.Beta(a, b), D.Beta(b, a)),
    "dirichlet_dirichlet": lambda D, a, b: (D.Dirichlet(a.unsqueeze(-1).expand(-1, 3) + b.unsqueeze(-1)),
                                            D.Dirichlet(b.unsqueeze(-1).expand(-1, 3))),
    "poisson_poisson": lambda D, a, b: (D.Poisson(a), D.Poisson(b)),
    "binomial_binomial": lambda D, a, b: (D.Binomial(10, a / (a + b)), D.Binomial(10, b / (a + b))),
    "gamma_exponential": lambda D, a, b: (D.Gamma(a, b), D.Exponential(a)),
    "exponential_gamma": lambda D, a, b: (D.Exponential(b), D.Gamma(a, b)),
    "gamma_normal": lambda D, a, b: (D.Gamma(a, b), D.Normal(a, b)),
    "gamma_gumbel": lambda D, a, b: (D.Gamma(a, b), D.Gumbel(a, b)),
    "beta_gamma": lambda D, a, b: (D.Beta(a, b), D.Gamma(b, a)),
    "beta_exponential": lambda D, a, b: (D.Beta(a, b), D.Exponential(a)),
    "beta_normal": lambda D, a, b: (D.Beta(a, b), D.Normal(a, b)),
    "uniform_beta": lambda D, a, b: (D.Uniform(a * 0 + 0.2, a * 0 + 0.7), D.Beta(a, b)),
    "uniform_gamma": lambda D, a, b: (D.Uniform(a * 0 + 0.2, a + 0.5), D.Gamma(a, b)),
    "pareto_gamma": lambda D, a, b: (D.Pareto(b, a + 0.5), D.Gamma(a, b)),
    "bernoulli_poisson": lambda D, a, b: (D.Bernoulli(a / (a + b)), D.Poisson(b)),
    "normal_gamma": lambda D, a, b: (D.Normal(a, b), D.Gamma(a, b)),
    "gamma_beta": lambda D, a, b: (D.Gamma(a, b), D.Beta(a, b)),
    "poisson_binomial": lambda D, a, b: (D.Poisson(a), D.Binomial(5, a / (a + b))),
}


@pytest.mark.parametrize("seed", SEEDS[:2])
@pytest.mark.parametrize("pair", sorted(KL_PAIRS))
def test_kl_pairs(seed, pair):
    rng = np.random.default_rng(seed)
    first, second = np.exp(rng.uniform(-1, 1.5, 4)), np.exp(rng.uniform(-1, 1.5, 4))

    def case(T):
        a, b = leaf(T, first), leaf(T, second)
        p, q = KL_PAIRS[pair](T.distributions, a, b)
        kl = T.distributions.kl_divergence(p, q)
        return [], [kl, grads(T, kl, [a, b])]
    check(case, seed=seed)


def _distribution_errors(T):
    D = T.distributions
    return {
        "gamma_negative": lambda: D.Gamma(T.tensor([-1.0]), 1.0),
        "beta_zero": lambda: D.Beta(0.0, 1.0),
        "dirichlet_scalar": lambda: D.Dirichlet(T.tensor(1.0)),
        "dirichlet_negative": lambda: D.Dirichlet(T.tensor([1.0, -1.0])),
        "poisson_negative": lambda: D.Poisson(T.tensor([-1.0])),
        "binomial_fraction": lambda: D.Binomial(T.tensor([2.5]), T.tensor([0.5])),
        "binomial_neither": lambda: D.Binomial(10),
        "gamma_outside_support": lambda: D.Gamma(T.tensor([1.0, 2.0]), 1.0).log_prob(T.tensor([-1.0, 1.0])),
        "beta_outside_support": lambda: D.Beta(T.tensor([1.0]), T.tensor([2.0])).log_prob(T.tensor([1.5])),
        "binomial_kl_counts": lambda: D.kl_divergence(D.Binomial(3, T.tensor([0.5])), D.Binomial(5, T.tensor([0.5]))),
        "binomial_entropy_inhomogeneous": lambda: D.Binomial(T.tensor([3.0, 4.0]), T.tensor([0.5, 0.5])).entropy(),
        "poisson_entropy": lambda: D.Poisson(T.tensor([1.0])).entropy(),
        "negative_binomial_probs_one": lambda: D.NegativeBinomial(3.0, T.tensor([1.0])),
    }


@pytest.mark.parametrize("name", sorted(_distribution_errors(G)))
def test_distribution_errors_verbatim(name):
    check(lambda T: ([], [_distribution_errors(T)[name]()]))


def test_expand_and_python_numbers():
    def case(T):
        D = T.distributions
        g = D.Gamma(T.tensor([0.5, 2.0]), 1.5).expand((3, 2))
        b = D.Beta(0.5, 2.0)
        d = D.Dirichlet(T.tensor([0.5, 1.0, 2.0])).expand((2,))
        c = D.Chi2(3.0)
        s = D.StudentT(3.0)
        k = D.Kumaraswamy(T.tensor([0.5, 2.0]), 1.0).expand((2, 2))
        f = D.FisherSnedecor(3.0, 5.0)
        nb = D.NegativeBinomial(3.0, logits=T.tensor([0.2])).expand((4, 1))
        p = D.Poisson(2.5)
        samples = [g.rsample(), b.rsample((2,)), d.rsample(), c.rsample((3,)), f.rsample((2,)), nb.sample(),
                   p.sample((4,))]
        through_pow = [s.rsample((2,)), k.rsample()]  # rsqrt and pow: the engine's rounding
        names = [repr(x) for x in (g, b, d, c, s, k, f, nb, p)]
        shapes = [str(x.batch_shape) + str(x.event_shape) for x in (g, b, d, c, s, k, f, nb, p)]
        classes = [str(type(x)) for x in (g, b, d, c, s, k, f, nb, p)]
        return samples, [through_pow, names, shapes, classes]
    check(case, seed=3)
