"""torch.distributions.LKJCholesky: the lower Cholesky factor of an LKJ-distributed
correlation matrix, sampled by PyTorch 2.13's onion method (a Beta draw for each row's
squared norm, a normalised torch.randn direction below the diagonal, the diagonal filling
each row to unit norm), so samples after manual_seed come from the same streams."""
import math

from .. import _errors_func as E
from .._namespace import F
from .._tensor import Size
from .._type_info import finfo
from . import constraints
from .dirichlet import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """L with L L^T a dim x dim correlation matrix of density proportional to
    det(L L^T)^(concentration - 1)."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise E.lkj_cholesky_dim(dim)
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = Size((dim, dim))
        # row i's squared off-diagonal norm is Beta(i / 2, marginal - (i - 1) / 2); row 0 has none
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = F.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = F.cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = F.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        u_hypersphere[..., 0, :].fill_(0.0)  # row 0 is 0 / 0 above: it is (1, 0, ..., 0)
        w = F.sqrt(y) * u_hypersphere
        eps = finfo(w.dtype).tiny
        diag_elems = F.clamp(1 - F.sum(w**2, dim=-1), min=eps).sqrt()
        w += F.diag_embed(diag_elems)
        return w

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = F.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = F.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = F.lgamma(alpha) * dm1
        numerator = F.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
