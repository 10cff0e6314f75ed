"""torch.distributions.Bernoulli: 1 with probability ``probs``; sample is torch.bernoulli
under no_grad, log_prob and entropy binary_cross_entropy_with_logits, as PyTorch 2.13's."""
import math

from .._namespace import F
from .._tensor import Size
from ..autograd.grad_mode import no_grad
from ..nn import functional as nn_functional
from . import constraints
from .exp_family import ExponentialFamily
from .utils import (broadcast_all, expand_probs_or_logits, lazy_property, logits_to_probs, probs_or_logits,
                    probs_to_logits)

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """0 or 1, given the probability of 1 (``probs``) or its log-odds (``logits``)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        super().__init__(probs_or_logits(self, probs, logits), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = Size(batch_shape)
        expand_probs_or_logits(self, new, batch_shape)
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return F.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -nn_functional.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return nn_functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = F.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values

    @property
    def _natural_params(self):
        return (F.logit(self.probs),)

    def _log_normalizer(self, x):
        return F.log1p(F.exp(x))
