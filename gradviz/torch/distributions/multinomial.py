"""torch.distributions.Multinomial: counts of ``total_count`` Categorical draws, sampled as
PyTorch 2.13 does (total_count Categorical samples per batch entry, moved to the last dim and
counted with scatter_add_), so samples after manual_seed agree to the bit."""
import math

from .. import _errors_func as E
from .._namespace import F
from .._tensor import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .poisson import Binomial
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """How often each of the last dim's categories comes up in ``total_count`` draws."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise E.multinomial_inhomogeneous_total_count()
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        draws = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        # the draws come (total_count, *sample_shape, *batch_shape): the count dim goes last
        order = list(range(draws.dim()))
        order.append(order.pop(0))
        draws = draws.permute(*order)
        counts = draws.new(self._extended_shape(sample_shape)).zero_()
        counts.scatter_add_(-1, draws, F.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self):
        n = F.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - F.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = F.exp(self._binomial.log_prob(support))
        weights = F.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone(memory_format="contiguous")
        log_factorial_n = F.lgamma(value.sum(-1) + 1)
        log_factorial_xs = F.lgamma(value + 1).sum(-1)
        # 0 * log(0) counts as 0: a category never drawn adds nothing, even at probability 0
        logits[(value == 0) & (logits == -math.inf)] = 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
