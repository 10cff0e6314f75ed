"""torch.distributions.GeneralizedPareto: the peaks-over-threshold law with location, scale
and shape (``concentration``), sampled by its icdf at torch.rand draws; a concentration
isclose to 0 takes the exponential limit, through the masked torch.where sequence PyTorch
2.13 runs (so the gradients at the safe stand-ins agree too)."""
import math

from .._namespace import F
from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import NUMBER_TYPES, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Support [loc, inf) for concentration >= 0, [loc, loc - scale / concentration] below 0."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if all(isinstance(arg, NUMBER_TYPES) for arg in (loc, scale, concentration)):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = F.rand(shape, dtype=self.loc.dtype)
        return self.icdf(u)

    def _safe_concentration(self, eq_zero):
        """concentration, 1 where it is (close to) 0, so the divisions stay finite."""
        return F.where(eq_zero, F.ones_like(self.concentration), self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero = F.isclose(self.concentration, F.tensor(0.0))
        safe_conc = self._safe_concentration(eq_zero)
        y = 1 / safe_conc + F.ones_like(z)
        where_nonzero = F.where(y == 0, y, y * F.log1p(safe_conc * z))
        return -self.scale.log() - F.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero = F.isclose(self.concentration, F.tensor(0.0))
        safe_conc = self._safe_concentration(eq_zero)
        where_nonzero = -F.log1p(safe_conc * z) / safe_conc
        return F.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        return F.log1p(-F.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return F.exp(self.log_cdf(value))

    def icdf(self, value):
        loc, scale, concentration = self.loc, self.scale, self.concentration
        eq_zero = F.isclose(concentration, F.zeros_like(concentration))
        safe_conc = F.where(eq_zero, F.ones_like(concentration), concentration)
        logu = F.log1p(-value)
        where_nonzero = loc + scale / safe_conc * F.expm1(-safe_conc * logu)
        where_zero = loc - scale * logu
        return F.where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        valid = self.concentration < 1
        safe_conc = F.where(valid, self.concentration, 0.5)
        result = self.loc + self.scale / (1 - safe_conc)
        return F.where(valid, result, math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = F.where(valid, self.concentration, 0.25)
        result = self.scale**2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return F.where(valid, result, math.nan)

    def entropy(self):
        ans = F.log(self.scale) + self.concentration + 1
        return F.broadcast_to(ans, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = F.where(self.concentration < 0, lower - self.scale / self.concentration, math.inf)
        return constraints.interval(lower, upper)
