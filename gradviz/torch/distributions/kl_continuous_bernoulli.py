"""PyTorch 2.13's KL divergences with a ContinuousBernoulli on either side: closed forms
against itself, Exponential, Normal and Uniform (p) and Beta and Uniform (q), infinity where
the other support reaches outside [0, 1]; each the op sequence PyTorch runs, under PyTorch's
function names (kl_divergence's dispatch shows them)."""
import math

from .._namespace import F
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Beta
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import _infinite_like, _kl_normal_infinity, register_kl
from .kl_continuous import _kl_exponential_infinity, _kl_gumbel_infinity, _kl_laplace_infinity, _kl_pareto_infinity
from .kl_gamma import _kl_gamma_infinity
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform

# a p whose support reaches outside [0, 1] puts mass where a ContinuousBernoulli has none
register_kl(Exponential, ContinuousBernoulli)(_kl_exponential_infinity)
register_kl(Gamma, ContinuousBernoulli)(_kl_gamma_infinity)
register_kl(Gumbel, ContinuousBernoulli)(_kl_gumbel_infinity)
register_kl(Laplace, ContinuousBernoulli)(_kl_laplace_infinity)
register_kl(Normal, ContinuousBernoulli)(_kl_normal_infinity)
register_kl(Pareto, ContinuousBernoulli)(_kl_pareto_infinity)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + F.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - F.log1p(-q.probs)
    return t1 + t2 + t3


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() - p.mean * q.logits - F.log1p(-q.probs) - q._cont_bern_log_norm()


@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_infinity(p, q):
    return _infinite_like(p.probs)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - F.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t1 = -p.entropy()
    t2 = 0.5 * (math.log(2.0 * math.pi) + F.square(q.loc / q.scale)) + F.log(q.scale)
    t3 = (p.variance + F.square(p.mean) - 2.0 * q.loc * p.mean) / (2.0 * F.square(q.scale))
    return t1 + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    # PyTorch's test: infinite unless q's interval lies strictly inside [0, 1] on both ends
    # (F.max of the two masks is an elementwise or)
    outside = F.max(F.ge(q.low, p.support.lower_bound), F.le(q.high, p.support.upper_bound))
    return F.where(outside, F.ones_like(result) * math.inf, result)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() - p.mean * q.logits - F.log1p(-q.probs) - q._cont_bern_log_norm()
    outside = F.max(F.ge(p.high, q.support.upper_bound), F.le(p.low, q.support.lower_bound))
    return F.where(outside, F.ones_like(result) * math.inf, result)
