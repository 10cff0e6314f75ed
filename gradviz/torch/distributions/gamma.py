"""torch.distributions.Gamma and its special cases Chi2 (concentration df / 2, rate 1 / 2) and
InverseGamma (a Gamma pushed through x -> 1 / x): rsample is torch._standard_gamma of the
expanded concentration divided by the rate, differentiable through _standard_gamma_grad, as
PyTorch 2.13's."""
from .._namespace import F
from .._tensor import Size
from .._type_info import finfo
from . import constraints
from .exp_family import ExponentialFamily
from .transformed_distribution import TransformedDistribution
from .transforms_elementwise import PowerTransform
from .utils import broadcast_all, expand_parameters, two_parameter_batch_shape

__all__ = ["Chi2", "Gamma", "InverseGamma"]


class Gamma(ExponentialFamily):
    """The gamma distribution of shape ``concentration`` and inverse scale ``rate``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        batch_shape = two_parameter_batch_shape(concentration, rate, self.concentration)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_parameters(self, Gamma, batch_shape, _instance, ("concentration", "rate"))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        value = F._standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=finfo(value.dtype).tiny)  # in place, outside the graph
        return value

    def log_prob(self, value):
        value = F.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (F.xlogy(self.concentration, self.rate) + F.xlogy(self.concentration - 1, value)
                - self.rate * value - F.lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - F.log(self.rate) + F.lgamma(self.concentration)
                + (1.0 - self.concentration) * F.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return F.lgamma(x + 1) + (x + 1) * F.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return F.igamma(self.concentration, self.rate * value)


class Chi2(Gamma):
    """The chi-squared distribution of ``df`` degrees of freedom: Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        return self.concentration * 2


class InverseGamma(TransformedDistribution):
    """1 / X for X ~ Gamma(concentration, rate)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        result = self.rate / (self.concentration - 1)
        return F.where(self.concentration > 1, result, float("inf"))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        result = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return F.where(self.concentration > 2, result, float("inf"))

    def entropy(self):
        return (self.concentration + self.rate.log() + self.concentration.lgamma()
                - (1 + self.concentration) * self.concentration.digamma())
