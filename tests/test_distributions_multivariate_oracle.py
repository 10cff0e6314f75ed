"""torch.distributions' multivariate normals against real PyTorch 2.13: MultivariateNormal
(by covariance, precision or scale_tril) and LowRankMultivariateNormal.

Same harness as test_distributions_oracle.py. ``exact`` holds what must agree to the bit:
the samples where PyTorch's computation is arithmetic on its own streams (loc + scale_tril @
eps: a small torch.bmm, which the engine sums in ATen's order). A factor the distribution
computes itself (cholesky of a covariance, of the capacitance matrix, the triangular solves
of log_prob) goes through LAPACK, MKL's in PyTorch and the engine's own potf2 / trsm, which
round differently: those values, and the samples made from them, are compared within the
oracle's tolerance. grad_fn graphs, reprs, errors and the generator state after the draws
must agree exactly.
"""
import numpy as np
import pytest

from test_distributions_oracle import SAMPLE_SHAPES, SEEDS, check, grads, leaf

torch = pytest.importorskip("torch")


def spd(rng, batch, n, dtype):
    """Well-conditioned symmetric positive-definite matrices of shape batch + (n, n)."""
    a = rng.standard_normal(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) / n + np.eye(n)).astype(dtype)


def tril(rng, batch, n, dtype):
    """Lower Cholesky factors: a random strict lower triangle, a diagonal in [0.5, 1.5]."""
    strict = np.tril(rng.standard_normal(batch + (n, n)), -1) * 0.5
    return (strict + np.eye(n) * rng.uniform(0.5, 1.5, batch + (n, 1))).astype(dtype)


# ---------------------------------------------------------------------------------------
# MultivariateNormal

def mvn_case(T, seed, loc_batch, matrix_batch, n, by, dtype, sample_shape):
    rng = np.random.default_rng(seed)
    loc = leaf(T, rng.standard_normal(loc_batch + (n,)), dtype)
    matrix_array = tril(rng, matrix_batch, n, dtype) if by == "scale_tril" else spd(rng, matrix_batch, n, dtype)
    matrix = leaf(T, matrix_array, dtype)
    d = T.distributions.MultivariateNormal(loc, **{by: matrix})
    rsample = d.rsample(sample_shape)
    sample = d.sample(sample_shape)
    log_prob = d.log_prob(rsample)
    entropy = d.entropy()
    matrices = [d.scale_tril, d.covariance_matrix, d.precision_matrix]
    rest = [repr(d), str(d.batch_shape), str(d.event_shape), log_prob, entropy, d.variance, d.stddev, matrices,
            grads(T, log_prob, [loc, matrix]), grads(T, rsample, [loc, matrix]),
            grads(T, entropy.sum() + sum(m.sum() for m in matrices) + d.variance.sum(), [loc, matrix]),
            d.log_prob(sample.detach()[..., :1, :] if sample.dim() > 1 else sample), d.mean, d.mode,
            d.has_rsample, repr(d.support), repr(d.arg_constraints)]
    # loc + scale_tril @ eps is a bmm when scale_tril has a batch or does not require grad;
    # PyTorch folds a 2-D one that requires grad into an mm, which MKL rounds its own way
    arithmetic = by == "scale_tril" and (len(matrix_batch) > 0 or n == 1)
    return ([rsample, sample], rest) if arithmetic else ([], [rsample, sample] + rest)


MVN_SHAPES = [((), (), 1), ((), (), 3), ((2,), (2,), 3), ((4,), (), 2), ((), (3,), 4), ((2, 3), (3,), 2),
              ((3, 1), (1, 2), 3)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("by", ["scale_tril", "covariance_matrix", "precision_matrix"])
@pytest.mark.parametrize("shapes", MVN_SHAPES)
def test_multivariate_normal(seed, by, shapes):
    check(mvn_case, seed, *shapes, by, "float32", SAMPLE_SHAPES[seed % 3], seed=seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("by", ["scale_tril", "covariance_matrix"])
def test_multivariate_normal_float64(seed, by):
    check(mvn_case, seed, (2,), (2,), 3, by, "float64", (4,), seed=seed)


def test_multivariate_normal_samples_bit_for_bit_over_many_seeds():
    def case(T, seed):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 7))
        batch = (int(rng.integers(1, 4)),)
        loc = leaf(T, rng.standard_normal(batch + (n,)))
        scale_tril = leaf(T, tril(rng, batch, n, "float32"))
        d = T.distributions.MultivariateNormal(loc, scale_tril=scale_tril)
        x = d.rsample((5,))
        return [x, d.sample((2, 3)), grads(T, x, [loc, scale_tril])], []
    for seed in range(40):
        check(case, seed, seed=seed)


def test_multivariate_normal_expand_and_validation():
    def case(T):
        D = T.distributions
        scale_tril = T.tensor([[1.0, 0.0], [0.5, 2.0]])
        d = D.MultivariateNormal(T.zeros(2), scale_tril=scale_tril)
        e = d.expand((3,))
        cov = D.MultivariateNormal(T.zeros(2), covariance_matrix=scale_tril @ scale_tril.T).expand((2, 1))
        return [e.rsample((2,))], [repr(e), str(e.batch_shape), e.log_prob(T.ones(3, 2)), repr(cov),
                                   cov.covariance_matrix, e.scale_tril, e.entropy()]
    check(case)
    errors = [
        lambda T: T.distributions.MultivariateNormal(T.zeros(2), T.eye(2), scale_tril=T.eye(2)),
        lambda T: T.distributions.MultivariateNormal(T.zeros(2)),
        lambda T: T.distributions.MultivariateNormal(T.tensor(0.0), scale_tril=T.eye(1)),
        lambda T: T.distributions.MultivariateNormal(T.zeros(2), covariance_matrix=T.ones(2)),
        lambda T: T.distributions.MultivariateNormal(T.zeros(2), precision_matrix=T.ones(2)),
        lambda T: T.distributions.MultivariateNormal(T.zeros(2), scale_tril=T.ones(2)),
        lambda T: T.distributions.MultivariateNormal(T.zeros(2), scale_tril=T.ones(2, 2)),
        lambda T: T.distributions.MultivariateNormal(T.zeros(2), covariance_matrix=-T.eye(2)),
        lambda T: T.distributions.MultivariateNormal(T.zeros(2), precision_matrix=T.tensor([[1.0, 2.0], [0.0, 1.0]])),
        lambda T: T.distributions.MultivariateNormal(T.zeros(2), T.eye(2)).log_prob(T.zeros(3)),
        lambda T: T.distributions.MultivariateNormal(T.zeros(2), T.eye(2)).log_prob(T.zeros(3, 1, 2)).shape,
        lambda T: T.distributions.MultivariateNormal(T.zeros(2), T.eye(2), validate_args=False).log_prob(T.zeros(2)),
        lambda T: T.distributions.MultivariateNormal(T.zeros(3, 2), T.eye(2)).expand((4, 3)).sample().shape,
    ]
    for fn in errors:
        check(fn)


# ---------------------------------------------------------------------------------------
# LowRankMultivariateNormal

def lowrank_case(T, seed, loc_batch, factor_batch, n, rank, dtype, sample_shape):
    rng = np.random.default_rng(seed)
    loc = leaf(T, rng.standard_normal(loc_batch + (n,)), dtype)
    cov_factor = leaf(T, rng.standard_normal(factor_batch + (n, rank)) * 0.7, dtype)
    cov_diag = leaf(T, rng.uniform(0.3, 1.5, (n,)), dtype)
    d = T.distributions.LowRankMultivariateNormal(loc, cov_factor, cov_diag)
    rsample = d.rsample(sample_shape)
    sample = d.sample(sample_shape)
    log_prob = d.log_prob(rsample)
    entropy = d.entropy()
    params = [loc, cov_factor, cov_diag]
    matrices = [d.covariance_matrix, d.precision_matrix, d.scale_tril]
    rest = [repr(d), str(d.batch_shape), log_prob, entropy, d.variance, matrices, grads(T, log_prob, params),
            grads(T, entropy.sum() + sum(m.sum() for m in matrices), params), d.mean, d.mode, d._capacitance_tril]
    # not bit for bit: the sample's sqrt(cov_diag) is MKL's VML sqrt in PyTorch, which is not
    # correctly rounded (numpy's is), so about one float32 in six differs in its last bit
    return [], [rsample, sample, grads(T, rsample, params)] + rest


LOWRANK_SHAPES = [((), (), 3, 1), ((), (), 4, 2), ((2,), (2,), 3, 2), ((3,), (), 2, 1), ((), (2,), 4, 3),
                  ((2, 1), (3,), 3, 2)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shapes", LOWRANK_SHAPES)
def test_lowrank_multivariate_normal(seed, shapes):
    check(lowrank_case, seed, *shapes, "float32", SAMPLE_SHAPES[seed % 3], seed=seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_lowrank_multivariate_normal_float64(seed):
    check(lowrank_case, seed, (2,), (2,), 4, 2, "float64", (3,), seed=seed)


def test_lowrank_expand_and_errors():
    def case(T):
        d = T.distributions.LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(3))
        e = d.expand((2,))
        return [e.rsample((4,))], [repr(e), e.log_prob(T.zeros(2, 3)), e.variance, e.covariance_matrix]
    check(case)
    D = "distributions"
    errors = [
        lambda T: getattr(T, D).LowRankMultivariateNormal(T.tensor(1.0), T.ones(2, 1), T.ones(2)),
        lambda T: getattr(T, D).LowRankMultivariateNormal(T.zeros(2), T.ones(2), T.ones(2)),
        lambda T: getattr(T, D).LowRankMultivariateNormal(T.zeros(2), T.ones(3, 1), T.ones(2)),
        lambda T: getattr(T, D).LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(3)),
        lambda T: getattr(T, D).LowRankMultivariateNormal(T.zeros(3, 2), T.ones(4, 2, 1), T.ones(2)),
        lambda T: getattr(T, D).LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), -T.ones(2)),
    ]
    for fn in errors:
        check(fn)


def test_positive_definite_constraints():
    def case(T):
        C = T.distributions.constraints
        mats = T.tensor([[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]]])
        return [C.positive_definite.check(mats), C.positive_semidefinite.check(mats[:2]),
                repr(C.positive_definite), repr(C.positive_semidefinite), C.positive_definite.event_dim]
    check(case)


# ---------------------------------------------------------------------------------------
# KL divergences between the multivariate normals

def kl_case(T, seed, p_kind, q_kind, p_batch, q_batch, n):
    rng = np.random.default_rng(seed)
    D = T.distributions

    def make(kind, batch):
        loc = leaf(T, rng.standard_normal(batch + (n,)))
        if kind == "full":
            scale_tril = leaf(T, tril(rng, batch, n, "float32"))
            return D.MultivariateNormal(loc, scale_tril=scale_tril), [loc, scale_tril]
        factor = leaf(T, rng.standard_normal(batch + (n, 2)) * 0.6)
        diag = leaf(T, rng.uniform(0.4, 1.5, batch + (n,)))
        return D.LowRankMultivariateNormal(loc, factor, diag), [loc, factor, diag]

    (p, p_params), (q, q_params) = make(p_kind, p_batch), make(q_kind, q_batch)
    kl = D.kl_divergence(p, q)
    return [], [kl, grads(T, kl, p_params + q_params)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kinds", [("full", "full"), ("full", "lowrank"), ("lowrank", "full"), ("lowrank", "lowrank")])
@pytest.mark.parametrize("batches", [((), ()), ((2,), (2,)), ((3,), ()), ((), (2,))])
def test_multivariate_kl(seed, kinds, batches):
    check(kl_case, seed, *kinds, *batches, 3, seed=seed)


def test_multivariate_kl_event_shapes_differ():
    for kinds in [("full", "full"), ("full", "lowrank"), ("lowrank", "full"), ("lowrank", "lowrank")]:
        def case(T, kinds=kinds):
            D = T.distributions
            made = {"full": lambda n: D.MultivariateNormal(T.zeros(n), T.eye(n)),
                    "lowrank": lambda n: D.LowRankMultivariateNormal(T.zeros(n), T.ones(n, 1), T.ones(n))}
            return D.kl_divergence(made[kinds[0]](2), made[kinds[1]](3))
        check(case)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("batch", [(), (2,)])
def test_positive_definite_transform(seed, batch):
    def case(T):
        D = T.distributions
        x = leaf(T, np.random.default_rng(seed).standard_normal(batch + (3, 3)))
        t = D.PositiveDefiniteTransform()
        y = t(x)
        back = t.inv(y)
        to = D.transform_to(D.constraints.positive_definite)
        # the diagonal goes through exp (MKL's VML in PyTorch): within the tolerance
        return [], [y, back, grads(T, y, [x]), grads(T, back, [x]), repr(t), t == to, repr(t.codomain),
                     bool(D.constraints.positive_definite.check(y.detach()).all()),
                     repr(D.transform_to(D.constraints.positive_semidefinite))]
    check(case)
