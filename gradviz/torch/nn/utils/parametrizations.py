"""torch.nn.utils.parametrizations: orthogonal, weight_norm and spectral_norm as
parametrizations (register_parametrization), PyTorch 2.13's.

orthogonal's ``householder`` map needs torch.linalg.householder_product, which the
engine does not have yet: asking for it (explicitly, or by default for a non-square real
matrix) raises NotImplementedError. Its starting point, the Q of a QR decomposition with
a non-negative diagonal in R, is computed by numpy's LAPACK QR (geqrf and orgqr, as
PyTorch's geqrf and householder_product), under no_grad as PyTorch computes it."""
from enum import Enum, auto

import numpy as np

from ... import _errors_nn_utils as E
from ..._namespace import F
from ..._tensor import Tensor
from ..._type_info import finfo
from ...autograd.grad_mode import no_grad
from .. import functional as F_nn
from ..modules.conv_more import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module, torch_module_name
from . import parametrize
from ._parametrization_ops import weight_norm as _weight_norm
from .weight_norm import norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]

PUBLIC_MODULE = "torch.nn.utils.parametrizations"


def _adjoint(t):
    return F.conj(t.mT) if t.is_complex() else t.mT


def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    identity = F.eye(k, dtype=Q.dtype)
    eps = 10.0 * n * finfo(Q.dtype).eps  # loose enough for float32, not too loose
    return F.allclose(F.matmul(_adjoint(Q), Q), identity, atol=eps)


def _make_orthogonal(A):
    """The Q of A = QR (A tall) whose R has a real, non-negative diagonal."""
    data = A.detach().numpy()
    q, r = np.linalg.qr(data)
    diagonal = np.diagonal(r, axis1=-2, axis2=-1)
    magnitude = np.abs(diagonal)
    signs = np.where(magnitude == 0, 0, diagonal / np.where(magnitude == 0, 1, magnitude))  # sgn()
    return F.tensor((q * signs[..., None, :]).astype(data.dtype))


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise E.householder_complex()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map == _OrthMaps.householder:
            raise NotImplementedError("gradviz: parametrizations.orthogonal with orthogonal_map='householder' "
                                      "(torch.linalg.householder_product)")
        # n >= k: only the n*k - k(k-1)/2 entries on and below the diagonal are read
        X = X.tril()
        if n != k:
            X = F.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
        A = X - _adjoint(X)  # skew-symmetric (skew-Hermitian)
        if self.orthogonal_map == _OrthMaps.matrix_exp:
            Q = F.linalg_matrix_exp(A)
        else:  # the Cayley retraction (I + A/2)(I - A/2)^{-1}
            identity = F.eye(n, dtype=A.dtype)
            Q = F.linalg_solve(F.add(identity, A, alpha=-0.5), F.add(identity, A, alpha=0.5))
        if n != k:
            Q = Q[..., :k]
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise E.orthogonal_shape(self.shape, Q.shape)
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        if n < k:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map != _OrthMaps.householder:
                raise E.orthogonal_no_assign()
            raise NotImplementedError("gradviz: parametrizations.orthogonal with orthogonal_map='householder' "
                                      "(torch.geqrf)")
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:  # completed to an n x n orthogonal matrix by random columns
            N = F.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype)
            Q = _make_orthogonal(F.cat([Q, N], dim=-1))
        self.base = Q
        # -Id: what the forward maps to the base itself (and householder to the identity)
        neg_identity = F.zeros_like(Q_init)
        neg_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_identity


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise E.no_tensor_named(module, name)
    if weight.ndim < 2:
        raise E.not_a_matrix(weight.ndim)
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise E.unknown_orthogonal_map(orthogonal_map)
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        """A checkpoint of the hook-based weight_norm (name_g, name_v) loads into the originals."""
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


def _normalize_into(out, x, eps):
    """F.normalize(x, dim=0, eps=eps, out=out): the quotient written into out's storage."""
    out.copy_(x / x.norm(2, 0, keepdim=True).clamp(min=eps).expand_as(x))
    return out


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise E.spectral_dim(ndim, dim)
        if n_power_iterations <= 0:
            raise E.power_iterations(n_power_iterations)
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:  # a vector is simply normalised (forward)
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", self._normalized(u))
            self.register_buffer("_v", self._normalized(v))
            self._power_method(weight_mat, 15)  # a start near the singular vectors

    def _normalized(self, x):
        return F_nn.normalize(x, dim=0, eps=self.eps)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # In place, so that replicas sharing the buffers see the update (PyTorch's note).
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = _normalize_into(self._u, F.mv(weight_mat, self._v), self.eps)
                self._v = _normalize_into(self._v, F.mv(_adjoint(weight_mat), self._u), self.eps)

    def forward(self, weight):
        if weight.ndim == 1:
            return self._normalized(weight)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: a later forward's power iteration must not change what this one's backward reads
        u = self._u.clone(memory_format="contiguous")
        v = self._v.clone(memory_format="contiguous")
        sigma = F.vdot(u, F.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise E.no_tensor_named(module, name)
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


torch_module_name(globals(), PUBLIC_MODULE)
