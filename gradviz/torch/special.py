"""torch.special: the special functions under their SciPy-style names. Imported by
gradviz.torch after _functions.build() has filled F."""
from ._namespace import F

digamma, erf, erfinv, expm1, log1p, polygamma, zeta = F.digamma, F.erf, F.erfinv, F.expm1, F.log1p, F.polygamma, F.zeta
gammainc, gammaincc, gammaln, expit = F.igamma, F.igammac, F.lgamma, F.sigmoid
psi = digamma


def log_softmax(input, dim, *, dtype=None):
    return F.log_softmax(input, dim, dtype=dtype)


def softmax(input, dim, *, dtype=None):
    return F.softmax(input, dim, dtype=dtype)


from . import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
