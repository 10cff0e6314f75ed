"""torch.distributions.transforms over vectors and matrices (softmax, stick-breaking, lower
Cholesky and correlation Cholesky factors), the functors that apply transforms slice by slice
(Cat, Stack), and a distribution's cdf as a transform; each PyTorch 2.13's op sequence."""
import math

from .. import _errors_func as E
from .._namespace import F
from .._type_info import finfo
from ..nn import functional as nn_functional
from . import constraints
from .transforms_elementwise import Transform, clipped_sigmoid
from .utils import lazy_property, sum_rightmost, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = [
    "CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform", "LowerCholeskyTransform",
    "SoftmaxTransform", "StackTransform", "StickBreakingTransform",
]


def _at_least_one_dim(shape):
    if len(shape) < 1:
        raise E.transform_too_few_dims()
    return shape


class CorrCholeskyTransform(Transform):
    """A real vector of D(D-1)/2 entries to the Cholesky factor of a DxD correlation matrix:
    tanh into (-1, 1), then each row a signed stick-breaking of unit norm."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        x = F.tanh(x)
        eps = finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        z = r ** 2
        z1m_cumprod_sqrt = (1 - z).sqrt().cumprod(-1)
        r = r + F.eye(r.shape[-1], dtype=r.dtype)
        return r * nn_functional.pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        y_cumsum = 1 - F.cumsum(y * y, dim=-1)
        y_cumsum_shifted = nn_functional.pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        y1m_cumsum_tril = tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * y1m_cumsum_tril.log().sum(-1)
        tanh_logdet = -2 * (x + nn_functional.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        n = _at_least_one_dim(shape)[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise E.transform_not_tril_number()
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise E.transform_too_few_dims()
        if shape[-2] != shape[-1]:
            raise E.transform_not_square()
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)


class SoftmaxTransform(Transform):
    """A real vector to the simplex by exp and normalising (not bijective)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    def _call(self, x):
        logprobs = x
        probs = (logprobs - logprobs.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        return _at_least_one_dim(shape)

    def inverse_shape(self, shape):
        return _at_least_one_dim(shape)


class StickBreakingTransform(Transform):
    """A real vector of K-1 entries to the K-simplex by iterated sigmoids (stick-breaking)."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    def _call(self, x):
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        z = clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return nn_functional.pad(z, [0, 1], value=1) * nn_functional.pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        sf = 1 - y_crop.cumsum(-1)
        # the stick left may round to zero or below: kept at the dtype's smallest normal
        sf = F.clamp(sf, min=finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        x = x - offset.log()
        return (-x + nn_functional.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        return _at_least_one_dim(shape)[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        return _at_least_one_dim(shape)[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """A square matrix to a lower-triangular one with a positive (exponentiated) diagonal."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """A square matrix to a positive-definite one: L L^T, L its LowerCholeskyTransform."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        y = F.linalg_cholesky(y)
        return LowerCholeskyTransform().inv(y)


def _check_dim(name, dim, value, size, expected, what):
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for {name} with {value.dim()} dimensions")
    if value.size(dim) != expected:
        raise AssertionError(f"{what}.size({dim}) = {value.size(dim)} must equal {size} {expected}")


class CatTransform(Transform):
    """Transforms applied to consecutive slices of ``dim`` (``lengths`` long), the results
    concatenated, as torch.cat joins them."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        if lengths is None:
            lengths = [1] * len(self.transforms)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")
        self.dim = dim

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _map_slices(self, value, what, apply):
        _check_dim("tensor", self.dim, value, "length", self.length, what)
        slices = []
        start = 0
        for trans, length in zip(self.transforms, self.lengths):
            slices.append(apply(trans, value.narrow(self.dim, start, length)))
            start = start + length
        return F.cat(slices, dim=self.dim)

    def _call(self, x):
        return self._map_slices(x, "x", lambda trans, xslice: trans(xslice))

    def _inverse(self, y):
        return self._map_slices(y, "y", lambda trans, yslice: trans.inv(yslice))

    def log_abs_det_jacobian(self, x, y):
        _check_dim("x", self.dim, x, "length", self.length, "x")
        _check_dim("y", self.dim, y, "length", self.length, "y")
        logdetjacs = []
        start = 0
        for trans, length in zip(self.transforms, self.lengths):
            xslice = x.narrow(self.dim, start, length)
            yslice = y.narrow(self.dim, start, length)
            logdetjac = trans.log_abs_det_jacobian(xslice, yslice)
            if trans.event_dim < self.event_dim:
                logdetjac = sum_rightmost(logdetjac, self.event_dim - trans.event_dim)
            logdetjacs.append(logdetjac)
            start = start + length
        # the dim counted from the right, less the event dims the log-dets have summed out
        dim = self.dim
        if dim >= 0:
            dim = dim - x.dim()
        dim = dim + self.event_dim
        if dim < 0:
            return F.cat(logdetjacs, dim=dim)
        return sum(logdetjacs)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """One transform per index of ``dim``, the results stacked, as torch.stack joins them."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        _check_dim("tensor", self.dim, x, "len(transforms)", len(self.transforms), "x")
        return F.stack([trans(xslice) for xslice, trans in zip(self._slice(x), self.transforms)], dim=self.dim)

    def _inverse(self, y):
        _check_dim("tensor", self.dim, y, "len(transforms)", len(self.transforms), "y")
        return F.stack([trans.inv(yslice) for yslice, trans in zip(self._slice(y), self.transforms)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_dim("x", self.dim, x, "len(transforms)", len(self.transforms), "x")
        _check_dim("y", self.dim, y, "len(transforms)", len(self.transforms), "y")
        logdetjacs = [trans.log_abs_det_jacobian(xslice, yslice)
                      for xslice, yslice, trans in zip(self._slice(x), self._slice(y), self.transforms)]
        return F.stack(logdetjacs, dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x), onto the unit interval; its log-det is the log density."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
