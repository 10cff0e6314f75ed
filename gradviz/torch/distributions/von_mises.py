"""torch.distributions.VonMises: the circular normal on [-pi, pi). log_prob and the circular
variance use the polynomial approximations of log I0 / log I1 (Abramowitz and Stegun 9.8)
that PyTorch 2.13 uses; sample is Best and Fisher's (1979) rejection sampler in float64,
PyTorch's Python loop of torch.rand((3,) + shape) draws until every entry is accepted, so
the number of draws and the samples after manual_seed agree."""
import math

from .._dtypes import bool as bool_dtype, float64
from .._namespace import F
from .._tensor import Size
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Abramowitz and Stegun 9.8.1-9.8.4: I0 and I1 below x = 3.75 (in powers of (x / 3.75)^2),
# and x^(1/2) e^(-x) I0 / I1 above it (in powers of 3.75 / x)
_I0_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_LARGE = [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1, 0.2635537e-1,
             -0.1647633e-1, 0.392377e-2]
_I1_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3]
_I1_LARGE = [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1, -0.2895312e-1,
             0.1787654e-1, -0.420059e-2]
_SMALL = (_I0_SMALL, _I1_SMALL)
_LARGE = (_I0_LARGE, _I1_LARGE)


def _eval_poly(y, coef):
    """sum(coef[i] * y**i) by Horner's rule, from the highest coefficient down."""
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x, order=0):
    """log(I_order(x)) for x > 0 and order 0 or 1."""
    if order != 0 and order != 1:
        raise AssertionError(f"order must be 0 or 1, got {order}")
    y = x / 3.75
    y = y * y
    small = _eval_poly(y, _SMALL[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    y = 3.75 / x
    large = x - 0.5 * x.log() + _eval_poly(y, _LARGE[order]).log()
    return F.where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best and Fisher's sampler: each round draws (u1, u2, u3) for every entry and keeps
    the first accepted proposal of each; then shifts by loc and wraps into [-pi, pi)."""
    done = F.zeros(x.shape, dtype=bool_dtype)
    while not done.all():
        u1, u2, u3 = F.rand((3,) + tuple(x.shape), dtype=loc.dtype).unbind()
        z = F.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if accept.any():
            x = F.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """Angles around ``loc``, concentrated by ``concentration`` (kappa): density
    exp(kappa cos(x - loc)) / (2 pi I0(kappa))."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * F.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)

    @lazy_property
    def _loc(self):
        return self.loc.to(float64)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(float64)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho**2) / (2 * rho)
        proposal_r_taylor = 1 / kappa + kappa  # rho's formula cancels catastrophically at small kappa
        return F.where(kappa < 1e-5, proposal_r_taylor, proposal_r)

    def sample(self, sample_shape=Size()):
        # in float64 whatever loc's dtype: in float32 the loop can hang at kappa near 1e-4
        with no_grad():
            shape = self._extended_shape(sample_shape)
            x = F.zeros(shape, dtype=self._loc.dtype)  # every entry is overwritten before the loop ends
            return _rejection_sample(self._loc, self._concentration, self._proposal_r, x).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        try:
            return super().expand(batch_shape)
        except NotImplementedError:
            validate_args = self.__dict__.get("_validate_args")
            loc = self.loc.expand(batch_shape)
            concentration = self.concentration.expand(batch_shape)
            return type(self)(loc, concentration, validate_args=validate_args)

    @property
    def mean(self):
        """The circular mean."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance."""
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
