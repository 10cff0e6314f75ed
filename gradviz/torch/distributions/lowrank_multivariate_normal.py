"""torch.distributions.LowRankMultivariateNormal: covariance cov_factor @ cov_factor^T +
diag(cov_diag), whose log-determinant and Mahalanobis distance go through the small
capacitance matrix I + W^T D^-1 W (the matrix determinant lemma and Woodbury's identity), as
PyTorch 2.13 computes them."""
import math

from .. import _errors_distributions as ED
from .._namespace import F
from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .multivariate_normal import _batch_mahalanobis, _batch_mv
from .utils import lazy_property, standard_normal

__all__ = ["LowRankMultivariateNormal"]


def _plus_identity_cholesky(K):
    """cholesky(K + I), the identity added in place on K's diagonal (PyTorch's
    ``K.view(-1, m * m)[:, :: m + 1] += 1``)."""
    m = K.size(-1)
    K = K.contiguous()
    K.view(-1, m * m)[:, :: m + 1] += 1
    return F.linalg_cholesky(K)


def _batch_capacitance_tril(W, D):
    """The Cholesky factor of I + W^T D^-1 W."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return _plus_identity_cholesky(F.matmul(Wt_Dinv, W))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """log|W W^T + D| = log|C| + log|D| (the matrix determinant lemma)."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """x^T (W W^T + D)^-1 x by Woodbury's identity: x^T D^-1 x less the capacitance's term."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    Wt_Dinv_x = _batch_mv(Wt_Dinv, x)
    mahalanobis_term1 = (x.pow(2) / D).sum(-1)
    mahalanobis_term2 = _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)
    return mahalanobis_term1 - mahalanobis_term2


class LowRankMultivariateNormal(Distribution):
    """A multivariate normal whose covariance is ``cov_factor @ cov_factor.T + diag(cov_diag)``."""

    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ED.at_least_one_dimensional("loc")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ED.matrix_at_least_two_dimensional("cov_factor")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ED.cov_factor_shape(event_shape[0])
        if cov_diag.shape[-1:] != event_shape:
            raise ED.cov_diag_shape(event_shape)
        try:
            loc_, self.cov_factor, cov_diag_ = F.broadcast_tensors(loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ED.lowrank_incompatible_batch(loc.shape, cov_factor.shape, cov_diag.shape) from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        batch_shape = self.loc.shape[:-1]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + self.cov_factor.shape[-1:])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        super(LowRankMultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        variance = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return variance.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        # sqrt(D) times the Cholesky factor of I + D^-1/2 W W^T D^-1/2
        cov_diag_sqrt_unsqueeze = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / cov_diag_sqrt_unsqueeze
        K = F.matmul(Dinvsqrt_W, Dinvsqrt_W.mT)
        return (cov_diag_sqrt_unsqueeze * _plus_identity_cholesky(K)).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        covariance_matrix = F.matmul(W, W.mT) + F.diag_embed(self._unbroadcasted_cov_diag)
        return covariance_matrix.expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = F.linalg_solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        precision_matrix = F.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A
        return precision_matrix.expand(self._matrix_shape())

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        W_shape = shape[:-1] + self.cov_factor.shape[-1:]
        eps_W = standard_normal(W_shape, dtype=self.loc.dtype)
        eps_D = standard_normal(shape, dtype=self.loc.dtype)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def _log_det(self):
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                     self._capacitance_tril)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, diff,
                                       self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + M)

    def entropy(self):
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)
