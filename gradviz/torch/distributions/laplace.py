"""torch.distributions.Laplace: rsample inverts the cdf at uniform_(eps - 1, 1) draws, as
PyTorch 2.13 does."""
from .._namespace import F
from .._tensor import Size
from .._type_info import finfo
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, expand_parameters, two_parameter_batch_shape

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The double exponential distribution around ``loc`` of spread ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return 2 ** 0.5 * self.scale

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(two_parameter_batch_shape(loc, scale, self.loc), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_parameters(self, Laplace, batch_shape, _instance, ("loc", "scale"))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        # -1 itself is left out: log1p(-|u|) would be -inf
        u = F.empty(shape, dtype=self.loc.dtype).uniform_(finfo(self.loc.dtype).eps - 1, 1)
        return self.loc - self.scale * u.sign() * F.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -F.log(2 * self.scale) - F.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * F.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * F.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + F.log(2 * self.scale)
