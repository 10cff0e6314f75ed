"""PyTorch 2.13's closed-form KL divergences between the multivariate normals (full and low
rank, each way): log-determinants from the Cholesky / capacitance factors, traces by
triangular solves, the mean term a Mahalanobis distance, op for op as PyTorch runs them."""
from .. import _errors_distributions as ED
from .._namespace import F
from .kl import register_kl
from .lowrank_multivariate_normal import LowRankMultivariateNormal, _batch_lowrank_logdet, _batch_lowrank_mahalanobis
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis


def _batch_trace_XXT(bmat):
    """trace(X X^T) of each matrix: the sum of its squared entries."""
    n = bmat.size(-1)
    m = bmat.size(-2)
    flat_trace = bmat.reshape(-1, m * n).pow(2).sum(-1)
    return flat_trace.reshape(bmat.shape[:-2])


def _half_log_det(scale_tril):
    return scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def _woodbury_factor(q):
    """A with inv(q's covariance) = inv(D) - A^T A (A = C^-1 W^T D^-1, C q's capacitance tril)."""
    qWt_qDinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return F.linalg_solve_triangular(q._capacitance_tril, qWt_qDinv, upper=False)


def _lowrank_logdet(d):
    return _batch_lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag, d._capacitance_tril)


def _lowrank_mahalanobis(q, p):
    return _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, q.loc - p.loc,
                                      q._capacitance_tril)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ED.kl_event_shapes_differ("Low Rank Multivariate Normals")
    term1 = _lowrank_logdet(q) - _lowrank_logdet(p)
    term3 = _lowrank_mahalanobis(q, p)
    # trace(inv(qcov) @ pcov) with inv(qcov) = inv(qD) - A^T A and pcov = pD + pW pW^T
    A = _woodbury_factor(q)
    term21 = (p._unbroadcasted_cov_diag / q._unbroadcasted_cov_diag).sum(-1)
    term22 = _batch_trace_XXT(p._unbroadcasted_cov_factor * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term23 = _batch_trace_XXT(A * p._unbroadcasted_cov_diag.sqrt().unsqueeze(-2))
    term24 = _batch_trace_XXT(A.matmul(p._unbroadcasted_cov_factor))
    term2 = term21 + term22 - term23 - term24
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ED.kl_event_shapes_differ("(Low Rank) Multivariate Normals")
    term1 = _lowrank_logdet(q) - 2 * _half_log_det(p._unbroadcasted_scale_tril)
    term3 = _lowrank_mahalanobis(q, p)
    # trace(inv(qcov) @ p_tril p_tril^T) with inv(qcov) = inv(qD) - A^T A
    A = _woodbury_factor(q)
    term21 = _batch_trace_XXT(p._unbroadcasted_scale_tril * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term22 = _batch_trace_XXT(A.matmul(p._unbroadcasted_scale_tril))
    term2 = term21 - term22
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ED.kl_event_shapes_differ("(Low Rank) Multivariate Normals")
    term1 = 2 * _half_log_det(q._unbroadcasted_scale_tril) - _lowrank_logdet(p)
    term3 = _batch_mahalanobis(q._unbroadcasted_scale_tril, (q.loc - p.loc))
    # trace(inv(q_tril q_tril^T) @ (pW pW^T + pD)) by two triangular solves
    combined_batch_shape = F.broadcast_shapes(q._unbroadcasted_scale_tril.shape[:-2],
                                              p._unbroadcasted_cov_factor.shape[:-2])
    n = p.event_shape[0]
    q_scale_tril = q._unbroadcasted_scale_tril.expand(combined_batch_shape + (n, n))
    p_cov_factor = p._unbroadcasted_cov_factor.expand(combined_batch_shape + (n, p.cov_factor.size(-1)))
    p_cov_diag = F.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(combined_batch_shape + (n, n))
    term21 = _batch_trace_XXT(F.linalg_solve_triangular(q_scale_tril, p_cov_factor, upper=False))
    term22 = _batch_trace_XXT(F.linalg_solve_triangular(q_scale_tril, p_cov_diag, upper=False))
    term2 = term21 + term22
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ED.kl_event_shapes_differ("Multivariate Normals")
    half_term1 = _half_log_det(q._unbroadcasted_scale_tril) - _half_log_det(p._unbroadcasted_scale_tril)
    combined_batch_shape = F.broadcast_shapes(q._unbroadcasted_scale_tril.shape[:-2],
                                              p._unbroadcasted_scale_tril.shape[:-2])
    n = p.event_shape[0]
    q_scale_tril = q._unbroadcasted_scale_tril.expand(combined_batch_shape + (n, n))
    p_scale_tril = p._unbroadcasted_scale_tril.expand(combined_batch_shape + (n, n))
    term2 = _batch_trace_XXT(F.linalg_solve_triangular(q_scale_tril, p_scale_tril, upper=False))
    term3 = _batch_mahalanobis(q._unbroadcasted_scale_tril, (q.loc - p.loc))
    return half_term1 + 0.5 * (term2 + term3 - n)
