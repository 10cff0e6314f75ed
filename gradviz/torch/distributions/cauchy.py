"""torch.distributions.Cauchy: rsample is loc + scale * torch.empty(shape).cauchy_(), as
PyTorch 2.13's."""
import math

from .._namespace import F
from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, expand_parameters, two_parameter_batch_shape

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """The ratio of two independent normals: median ``loc``, half-width ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(two_parameter_batch_shape(loc, scale, self.loc), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_parameters(self, Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return F.full(self._extended_shape(), math.nan, dtype=self.loc.dtype)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return F.full(self._extended_shape(), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = F.empty(shape, dtype=self.loc.dtype).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return F.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return F.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
