"""torch.distributions.ContinuousBernoulli (Loaiza-Ganem and Cunningham, 2019): a density on
[0, 1] proportional to p^x (1-p)^(1-x). Its normalising constant, mean and variance are 0/0
at p = 0.5, so inside ``lims`` PyTorch 2.13 swaps in their Taylor expansions around 0.5 (and
computes the exact forms at the clipped p = lims[0], whose values torch.where discards);
samples are icdf(torch.rand(...)). Each method is PyTorch's op sequence."""
import math

from .. import _errors_func as E
from .._namespace import F
from .._tensor import Size
from ..autograd.grad_mode import no_grad
from ..nn import functional as nn_functional
from . import constraints
from .exp_family import ExponentialFamily
from .utils import (broadcast_all, clamp_probs, expand_probs_or_logits, lazy_property, logits_to_probs, probs_or_logits,
                    probs_to_logits)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """A [0, 1]-valued relaxation of Bernoulli(probs); ``logits`` is log(p / (1 - p))."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        batch_shape = probs_or_logits(self, probs, logits)
        if probs is not None:
            # PyTorch checks the unclamped probs here whenever validate_args is given, even False
            if validate_args is not None and not self.arg_constraints["probs"].check(self.probs).all():
                raise E.continuous_bernoulli_invalid_probs()
            self.probs = self._param = clamp_probs(self.probs)
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = Size(batch_shape)
        expand_probs_or_logits(self, new, batch_shape)
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return F.max(F.le(self.probs, self._lims[0]), F.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        """probs outside the unstable region, lims[0] inside it (where the exact forms are 0/0)."""
        return F.where(self._outside_unstable_region(), self.probs, self._lims[0] * F.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """The log normalising constant, as a function of probs."""
        cut_probs = self._cut_probs()
        cut_probs_below_half = F.where(F.le(cut_probs, 0.5), cut_probs, F.zeros_like(cut_probs))
        cut_probs_above_half = F.where(F.ge(cut_probs, 0.5), cut_probs, F.ones_like(cut_probs))
        log_norm = F.log(F.abs(F.log1p(-cut_probs) - F.log(cut_probs))) - F.where(
            F.le(cut_probs, 0.5), F.log1p(-2.0 * cut_probs_below_half), F.log(2.0 * cut_probs_above_half - 1.0))
        x = F.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return F.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (F.log1p(-cut_probs) - F.log(cut_probs))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * F.pow(x, 2)) * x
        return F.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return F.sqrt(self.variance)

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        exact = (cut_probs * (cut_probs - 1.0) / F.pow(1.0 - 2.0 * cut_probs, 2)
                 + 1.0 / F.pow(F.log1p(-cut_probs) - F.log(cut_probs), 2))
        x = F.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return F.where(self._outside_unstable_region(), exact, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = F.rand(shape, dtype=self.probs.dtype)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = F.rand(shape, dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-nn_functional.binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = ((F.pow(cut_probs, value) * F.pow(1.0 - cut_probs, 1.0 - value) + cut_probs - 1.0)
                / (2.0 * cut_probs - 1.0))
        unbounded_cdfs = F.where(self._outside_unstable_region(), cdfs, value)
        return F.where(F.le(value, 0.0), F.zeros_like(value),
                       F.where(F.ge(value, 1.0), F.ones_like(value), unbounded_cdfs))

    def icdf(self, value):
        cut_probs = self._cut_probs()
        exact = ((F.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0)) - F.log1p(-cut_probs))
                 / (F.log(cut_probs) - F.log1p(-cut_probs)))
        return F.where(self._outside_unstable_region(), exact, value)

    def entropy(self):
        log_probs0 = F.log1p(-self.probs)
        log_probs1 = F.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """The log normalising constant, as a function of the natural parameter."""
        out_unst_reg = F.max(F.le(x, self._lims[0] - 0.5), F.gt(x, self._lims[1] - 0.5))
        cut_nat_params = F.where(out_unst_reg, x, (self._lims[0] - 0.5) * F.ones_like(x))
        log_norm = F.log(F.abs(F.expm1(cut_nat_params))) - F.log(F.abs(cut_nat_params))
        taylor = 0.5 * x + F.pow(x, 2) / 24.0 - F.pow(x, 4) / 2880.0
        return F.where(out_unst_reg, log_norm, taylor)
