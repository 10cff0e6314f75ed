"""torch.special: the special functions under their SciPy-style names. Imported by
gradviz.torch after _functions.build() has filled F."""
from ._namespace import F

digamma, erf, erfinv, expm1, log1p, polygamma, zeta = F.digamma, F.erf, F.erfinv, F.expm1, F.log1p, F.polygamma, F.zeta
gammainc, gammaincc, gammaln, expit = F.igamma, F.igammac, F.lgamma, F.sigmoid
psi = digamma
erfc, erfcx, ndtr, ndtri, log_ndtr = F.erfc, F.special_erfcx, F.special_ndtr, F.special_ndtri, F.special_log_ndtr
i0, i0e, i1, i1e, sinc, entr = F.i0, F.special_i0e, F.special_i1, F.special_i1e, F.sinc, F.special_entr
xlogy, xlog1py, logit, exp2, round = F.xlogy, F.special_xlog1py, F.logit, F.exp2, F.special_round
logsumexp = F.special_logsumexp
# The Bessel functions and the orthogonal polynomials (no gradient in PyTorch)
bessel_j0, bessel_j1, bessel_y0, bessel_y1 = F.special_bessel_j0, F.special_bessel_j1, F.special_bessel_y0, F.special_bessel_y1
modified_bessel_i0, modified_bessel_i1 = F.special_modified_bessel_i0, F.special_modified_bessel_i1
modified_bessel_k0, modified_bessel_k1 = F.special_modified_bessel_k0, F.special_modified_bessel_k1
scaled_modified_bessel_k0, scaled_modified_bessel_k1 = F.special_scaled_modified_bessel_k0, F.special_scaled_modified_bessel_k1
spherical_bessel_j0, airy_ai = F.special_spherical_bessel_j0, F.special_airy_ai
chebyshev_polynomial_t, chebyshev_polynomial_u = F.special_chebyshev_polynomial_t, F.special_chebyshev_polynomial_u
chebyshev_polynomial_v, chebyshev_polynomial_w = F.special_chebyshev_polynomial_v, F.special_chebyshev_polynomial_w
shifted_chebyshev_polynomial_t = F.special_shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = F.special_shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = F.special_shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = F.special_shifted_chebyshev_polynomial_w
hermite_polynomial_h, hermite_polynomial_he = F.special_hermite_polynomial_h, F.special_hermite_polynomial_he
laguerre_polynomial_l, legendre_polynomial_p = F.special_laguerre_polynomial_l, F.special_legendre_polynomial_p
multigammaln = F.mvlgamma


def log_softmax(input, dim, *, dtype=None):
    return F.log_softmax(input, dim, dtype=dtype)


def softmax(input, dim, *, dtype=None):
    return F.softmax(input, dim, dtype=dtype)


from . import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
