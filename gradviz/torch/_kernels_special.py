"""numpy kernels for the special functions (torch.lgamma, digamma, polygamma, igamma,
igammac, special.zeta), written elementwise in Python floats: numpy has none of them and
gradviz does not depend on scipy. Algorithms follow Cephes, as PyTorch's CPU kernels do."""
import math

import numpy as np

from . import _dtypes, _libm
from . import _kernels_bessel_tables as BT
from ._kernels import erf_array

_MACHEP = 1.11022302462515654042e-16
# Euler-Maclaurin coefficients of Cephes' zeta: (2k)! / B_2k.
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)


def _elementwise(fn, dtype, *arrays):
    """Apply a scalar function over broadcast arrays, giving ``dtype``."""
    arrays = np.broadcast_arrays(*[np.asarray(a, dtype=np.float64) for a in arrays])
    out = np.empty(arrays[0].shape, dtype=np.float64)
    flat_out = out.reshape(-1)
    flats = [a.reshape(-1) for a in arrays]
    for i in range(flat_out.size):
        flat_out[i] = fn(*[float(f[i]) for f in flats])
    return out.astype(dtype, copy=False)


def _lgamma(x):
    try:
        return math.lgamma(x)
    except ValueError:  # the poles at 0, -1, -2, ...
        return math.inf


def zeta(x, q):
    """Hurwitz zeta: sum over k >= 0 of (k + q) ** -x."""
    if x == 1.0:
        return math.inf
    if x < 1.0:
        return math.nan
    if q <= 0.0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan
    s = q ** -x
    a, b, i = q, 0.0, 0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a ** -x
        s += b
        if abs(b / s) < _MACHEP:
            return s
    w = a
    s += b * w / (x - 1.0)
    s -= 0.5 * b
    a, k = 1.0, 0.0
    for coefficient in _ZETA_A:
        a *= x + k
        b /= w
        t = a * b / coefficient
        s += t
        if abs(t / s) < _MACHEP:
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


def digamma(x):
    if x == 0.0:
        return -math.inf if math.copysign(1.0, x) > 0 else math.inf
    if x < 0.0:
        if x == math.floor(x):
            return math.nan
        # Reflection: psi(1 - x) - psi(x) = pi / tan(pi x).
        return digamma(1.0 - x) - math.pi / math.tan(math.pi * x)
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 / 132))))
    return result + math.log(x) - 0.5 / x - series


def polygamma(n, x):
    if n == 0:
        return digamma(x)
    # psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x)
    return (-1.0) ** (n + 1) * math.factorial(n) * zeta(n + 1.0, x)


def igamma(a, x):
    """Regularized lower incomplete gamma P(a, x)."""
    if x < 0.0 or a < 0.0 or math.isnan(a) or math.isnan(x):
        return math.nan
    if a == 0.0:
        return 1.0 if x > 0.0 else math.nan
    if x == 0.0:
        return 0.0
    if math.isinf(a):
        return math.nan if math.isinf(x) else 0.0
    if math.isinf(x):
        return 1.0
    if x > 1.0 and x > a:
        return 1.0 - igammac(a, x)
    return _igamma_series(a, x)


def igammac(a, x):
    """Regularized upper incomplete gamma Q(a, x) = 1 - P(a, x)."""
    if x < 0.0 or a < 0.0 or math.isnan(a) or math.isnan(x):
        return math.nan
    if a == 0.0:
        return 0.0 if x > 0.0 else math.nan
    if x == 0.0:
        return 1.0
    if math.isinf(a):
        return math.nan if math.isinf(x) else 1.0
    if math.isinf(x):
        return 0.0
    if x < 1.0 or x < a:
        return 1.0 - _igamma_series(a, x)
    return _igammac_fraction(a, x)


def _log_prefactor(a, x):
    return a * math.log(x) - x - math.lgamma(a)


def _igamma_series(a, x):
    ax = _log_prefactor(a, x)
    if ax < -709.78:
        return 0.0
    r, c, total = a, 1.0, 1.0
    while True:
        r += 1.0
        c *= x / r
        total += c
        if c / total <= _MACHEP:
            break
    return total * math.exp(ax) / a


def _igammac_fraction(a, x):
    ax = _log_prefactor(a, x)
    if ax < -709.78:
        return 0.0
    big, biginv = 4.503599627370496e15, 2.22044604925031308085e-16
    y, z, c = 1.0 - a, x + 2.0 - a, 0.0
    pkm2, qkm2 = 1.0, x
    pkm1, qkm1 = x + 1.0, z * x
    ans = pkm1 / qkm1
    while True:
        c += 1.0
        y += 1.0
        z += 2.0
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        if qk != 0.0:
            r = pk / qk
            t = abs((ans - r) / r)
            ans = r
        else:
            t = 1.0
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        if abs(pk) > big:
            pkm2, pkm1, qkm2, qkm1 = pkm2 * biginv, pkm1 * biginv, qkm2 * biginv, qkm1 * biginv
        if t <= _MACHEP:
            break
    return ans * math.exp(ax)


def lgamma_array(x):
    return _elementwise(_lgamma, x.dtype, x)


def digamma_array(x):
    return _elementwise(digamma, x.dtype, x)


def polygamma_array(n, x):
    return _elementwise(lambda v: polygamma(n, v), x.dtype, x)


def _floating_result(a, b):
    """numpy's result dtype, or the default float for integers (apply() casts to PyTorch's)."""
    dtype = np.result_type(a, b)
    return dtype if dtype.kind in "fcV" else _dtypes.DEFAULTS.float_dtype.np


def igamma_array(a, x):
    return _elementwise(igamma, _floating_result(a, x), a, x)


def igammac_array(a, x):
    return _elementwise(igammac, _floating_result(a, x), a, x)


def zeta_array(x, q):
    return _elementwise(zeta, _floating_result(x, q), x, q)


# PyTorch's calc_erfinv (ATen's Math.h): a rational first guess (one form for |y| <= 0.7,
# another towards the tails), then two Newton steps on erf(x) = y, computed in the dtype.
_ERFINV_A = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
_ERFINV_B = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
_ERFINV_C = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
_ERFINV_D = (3.543889200, 1.637067800)


def erfinv_array(y):
    t = y.dtype.type
    a, b, c, d = ([t(v) for v in coeffs] for coeffs in (_ERFINV_A, _ERFINV_B, _ERFINV_C, _ERFINV_D))
    y_abs = np.abs(y)
    with np.errstate(all="ignore"):
        z = y * y
        central = y * (((a[3] * z + a[2]) * z + a[1]) * z + a[0]) / (
            (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + t(1.0))
        w = np.sqrt(-np.log((t(1.0) - y_abs) / t(2.0)))
        tail = np.copysign(((c[3] * w + c[2]) * w + c[1]) * w + c[0], y) / ((d[1] * w + d[0]) * w + t(1.0))
        x = np.where(y_abs <= t(0.7), central, tail)
        two_over_sqrt_pi = t(2.0) / t(math.sqrt(math.pi))
        for _ in range(2):
            x = x - (erf_array(x) - y) / (two_over_sqrt_pi * np.exp(-x * x))
    x = np.where(y_abs == 1, np.copysign(t(np.inf), y), x)
    return np.where(y_abs > 1, t(np.nan), x).astype(y.dtype, copy=False)


# ----- the error function's relatives: erfc, erfcx, ndtri, log_ndtr --------------------------
def _floating(x):
    x = np.asarray(x)
    return x if x.dtype.kind in "fc" else x.astype(_dtypes.DEFAULTS.float_dtype.np)


def erfc_array(x):
    """erfc by the C library's double erfc, rounded to the dtype (ATen's float32 kernel is
    SLEEF's vectorised erfcf, which may differ from this by an ulp)."""
    x = _floating(x)
    return np.vectorize(math.erfc, otypes=[np.float64])(x).astype(x.dtype) if x.size else x.copy()


_INV_SQRT_PI = 0.56418958354775628694807945156


def _erfcx_scalar(x):
    """exp(x^2) erfc(x) for x >= 0 in double. ATen evaluates Johnson's Chebyshev tables below
    50; here exp(x^2) is taken with x^2 split into two exact parts, times the C library's
    erfc, below 10, and beyond it the continued fraction of erfc, both within a few ulp."""
    if x > 50.0:  # ATen's own forms from here on
        if x > 5e7:
            return _INV_SQRT_PI / x
        return _INV_SQRT_PI * ((x * x) * (x * x + 4.5) + 2) / (x * ((x * x) * (x * x + 5) + 3.75))
    if x < 10.0:
        square = x * x
        split = x * 134217729.0
        high = split - (split - x)
        low = x - high
        square_low = ((high * high - square) + 2.0 * high * low) + low * low  # x*x - square, exactly
        return math.exp(square) * math.erfc(x) * (1.0 + square_low)
    # erfcx(x) = 1/sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))), from the bottom up
    tail = x
    for k in range(60, 0, -1):
        tail = x + (k / 2.0) / tail
    return _INV_SQRT_PI / tail


def _erfcx_double(x):
    if math.isnan(x):
        return x
    if x >= 0:
        return _erfcx_scalar(x)
    if x < -26.7:
        return math.inf
    growth = 2 * math.exp(x * x) if x * x < 709.78 else math.inf  # C's exp overflows to inf
    if x < -6.1:
        return growth
    return growth - _erfcx_scalar(-x)


def erfcx_array(x):
    """special.erfcx: exp(x^2) erfc(x), computed in double and rounded to the dtype."""
    x = _floating(x)
    with np.errstate(over="ignore"):  # float32's overflow to inf, as ATen's
        return _elementwise(_erfcx_double, x.dtype, x)


def _polevl(z, table):
    r = np.zeros_like(z)
    for c in table:
        r = _libm.fused_multiply_add32(r, z, c) if z.dtype == np.float32 else _libm.fused_multiply_add(r, z, c)
    return r


def ndtri_array(y0):
    """special.ndtri (Cephes' ndtri as ATen's calc_ndtri, in the dtype): the central rational
    form between exp(-2) and 1 - exp(-2), the tail forms in sqrt(-2 log y) beyond."""
    y0 = _floating(y0)
    t = y0.dtype.type
    tables = {name: [t(v) for v in getattr(BT, "NDTRI_" + name)] for name in ("P0", "Q0", "P1", "Q1", "P2", "Q2")}
    with np.errstate(all="ignore"):
        upper = y0 > t(1.0) - t(0.13533528323661269189)
        y = np.where(upper, t(1.0) - y0, y0)
        centred = y - t(0.5)
        y2 = centred * centred
        central = (centred + centred * (y2 * _polevl(y2, tables["P0"]) / _polevl(y2, tables["Q0"]))) * t(
            2.50662827463100050242E0)
        x = np.sqrt(t(-2.0) * np.log(y))
        x0 = x - np.log(x) / x
        z = t(1.0) / x
        x1 = np.where(x < t(8.0), z * _polevl(z, tables["P1"]) / _polevl(z, tables["Q1"]),
                      z * _polevl(z, tables["P2"]) / _polevl(z, tables["Q2"]))
        tail = x0 - x1
        tail = np.where(upper, tail, -tail)
        out = np.where(y > t(0.13533528323661269189), central, tail)
        out = np.where(y0 == 0, -np.inf, np.where(y0 == 1, np.inf, out))
        return np.asarray(np.where((y0 < 0) | (y0 > 1), np.nan, out), dtype=y0.dtype)


def log_ndtr_array(x):
    """log of the normal CDF: log(erfcx(-t) / 2) - t^2 below -1, log1p(-erfc(t) / 2) above,
    with t = x / sqrt(2), as ATen's calc_log_ndtr (SciPy's)."""
    x = _floating(x)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        half = x * t(0.70710678118654752440)
        low = np.log(erfcx_array(-half) / t(2)) - half * half
        high = np.log1p(-erfc_array(half) / t(2))
        return np.asarray(np.where(x < t(-1.0), low, high), dtype=x.dtype)


# ----- sinc, entr, xlog1py, mvlgamma ---------------------------------------------------------
def sinc_array(x):
    """sin(pi x) / (pi x), 1 at 0; pi x in the dtype, as ATen's kernel (opmath of float is float)."""
    x = _floating(x)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        product = t(math.pi) * x
        return np.asarray(np.where(x == 0, t(1.0), np.sin(product) / product), dtype=x.dtype)


def entr_array(x):
    """-x log x for x > 0, 0 at 0, -inf below, NaN kept."""
    x = _floating(x)
    with np.errstate(all="ignore"):
        out = np.where(x > 0, -x * np.log(x), np.where(x == 0, x.dtype.type(0), -np.inf))
        return np.asarray(np.where(np.isnan(x), x, out), dtype=x.dtype)


def xlog1py_array(x, y, *, dtype):
    """x log1p(y), 0 where x is 0 and y is not NaN, NaN where y is NaN."""
    x, y = np.asarray(x, dtype=dtype), np.asarray(y, dtype=dtype)
    with np.errstate(all="ignore"):
        out = x * np.log1p(y)
    out = np.where((x == 0) & ~np.isnan(y), dtype.type(0), out)
    return np.asarray(np.where(np.isnan(y), np.asarray(np.nan, dtype=dtype), out), dtype=dtype)


def mvlgamma_array(x, p):
    """The multivariate log-gamma: sum over j < p of lgamma(x - j/2), plus p(p-1)/4 log(pi),
    in ATen's order (the arguments from the most negative shift up, the constant added last)."""
    x = _floating(x)
    shifts = np.arange(-p / 2.0 + 0.5, 0.5, 0.5).astype(x.dtype)
    total = lgamma_array(x + shifts[0])
    for shift in shifts[1:]:
        total = total + lgamma_array(x + shift)
    return np.asarray(total + x.dtype.type(p * (p - 1) * math.log(math.pi) / 4), dtype=x.dtype)
