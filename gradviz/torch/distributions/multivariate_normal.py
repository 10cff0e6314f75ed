"""torch.distributions.MultivariateNormal: every computation goes through the lower Cholesky
factor of the covariance (given, or cholesky of the covariance, or of the flipped precision);
rsample is loc + scale_tril @ eps with eps from the standard normal stream, log_prob a
triangular solve (PyTorch 2.13's _batch_mv and _batch_mahalanobis, op for op)."""
import math

from .. import _errors_distributions as ED
from .._namespace import F
from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import lazy_property, standard_normal

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrices times vectors, the two batch shapes broadcast against each other."""
    return F.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """x^T (L L^T)^-1 x for each x of ``bx``, by one batched triangular solve: bx's dims that
    match bL's batch are moved beside the matrices, the rest become the solve's columns."""
    n = bx.size(-1)
    bx_batch_shape = bx.shape[:-1]
    bx_batch_dims = len(bx_batch_shape)
    bL_batch_dims = bL.dim() - 2
    outer_batch_dims = bx_batch_dims - bL_batch_dims
    old_batch_dims = outer_batch_dims + bL_batch_dims
    new_batch_dims = outer_batch_dims + 2 * bL_batch_dims
    # bx as (..., sx // sL, sL, ..., n): each of bL's batch dims split in two
    bx_new_shape = bx.shape[:outer_batch_dims]
    for sL, sx in zip(bL.shape[:-2], bx.shape[outer_batch_dims:-1]):
        bx_new_shape += (sx // sL, sL)
    bx_new_shape += (n,)
    bx = bx.reshape(bx_new_shape)
    # ... then the sL halves gathered last, before n
    permute_dims = (list(range(outer_batch_dims)) + list(range(outer_batch_dims, new_batch_dims, 2))
                    + list(range(outer_batch_dims + 1, new_batch_dims, 2)) + [new_batch_dims])
    bx = bx.permute(permute_dims)

    flat_L = bL.reshape(-1, n, n)  # b x n x n
    flat_x = bx.reshape(-1, flat_L.size(0), n)  # c x b x n
    flat_x_swap = flat_x.permute(1, 2, 0)  # b x n x c
    M_swap = F.linalg_solve_triangular(flat_L, flat_x_swap, upper=False).pow(2).sum(-2)  # b x c
    M = M_swap.t()  # c x b

    permuted_M = M.reshape(bx.shape[:-1])
    permute_inv_dims = list(range(outer_batch_dims))
    for i in range(bL_batch_dims):
        permute_inv_dims += [outer_batch_dims + i, old_batch_dims + i]
    reshaped_M = permuted_M.permute(permute_inv_dims)
    return reshaped_M.reshape(bx_batch_shape)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of P^-1 without inverting P: the flipped Cholesky factor of
    the flipped P is the inverse transpose of the wanted factor."""
    Lf = F.linalg_cholesky(F.flip(P, (-2, -1)))
    L_inv = F.transpose(F.flip(Lf, (-2, -1)), -2, -1)
    Id = F.eye(P.shape[-1], dtype=P.dtype)
    return F.linalg_solve_triangular(L_inv, Id, upper=False)


class MultivariateNormal(Distribution):
    """The normal distribution of vectors with mean ``loc`` and a covariance given as
    ``covariance_matrix``, ``precision_matrix`` or its lower Cholesky factor ``scale_tril``."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ED.at_least_one_dimensional("loc")
        given = [(name, matrix) for name, matrix in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                                                     ("precision_matrix", precision_matrix)) if matrix is not None]
        if len(given) != 1:
            raise ED.exactly_one_matrix()
        ((name, matrix),) = given
        if matrix.dim() < 2:
            raise ED.matrix_at_least_two_dimensional(name)
        batch_shape = F.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = F.linalg_cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return F.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return F.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)
