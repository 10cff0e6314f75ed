"""torch.special: the special functions under their SciPy-style names."""
from ._functions import (digamma, erf, expm1, igamma as gammainc, igammac as gammaincc,  # noqa: F401
                         lgamma as gammaln, log1p, polygamma, sigmoid as expit, zeta)

psi = digamma


def log_softmax(input, dim, *, dtype=None):
    from ._functions import log_softmax as _log_softmax
    return _log_softmax(input, dim, dtype=dtype)


def softmax(input, dim, *, dtype=None):
    from ._functions import softmax as _softmax
    return _softmax(input, dim, dtype=dtype)
