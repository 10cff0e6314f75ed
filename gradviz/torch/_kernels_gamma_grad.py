"""The reparameterized gradients of ATen's gamma and Dirichlet samplers, bit for bit:
standard_gamma_grad_one (torch._standard_gamma_grad, the gradient of a Gamma(alpha) sample
with respect to alpha) and dirichlet_grad_one (torch._dirichlet_grad), with their digamma.

ATen computes them element by element in Distributions.h, partly in the input's precision
(``scalar_t``) and partly in double; a float constant such as ``0.8f`` widens to double as
it is written in float. ``_Precision`` rounds a step to float32 where the C++ step is a
float one, and calls the float functions (powf, logf) that C++ picks for a float argument.
"""
import math

import numpy as np

from ._kernels_reduce import _c_powf
from ._libm import logf


def _f(value):
    """A float literal of the C++ (``0.8f``) as the double it widens to."""
    return float(np.float32(value))


class _Precision:
    """scalar_t's arithmetic: float32 rounds every step, double leaves it as Python's."""

    def __init__(self, single):
        self.single = single

    def __call__(self, value):
        return float(np.float32(value)) if self.single else value

    def log(self, value):
        return float(logf(np.float32(value))) if self.single else _log(value)

    def pow(self, base, exponent):
        if self.single:
            powf = _c_powf()
            if powf is not None:
                return float(np.float32(powf(base, exponent)))
            return float(np.float32(_pow(float(np.float32(base)), float(np.float32(exponent)))))
        return _pow(base, exponent)


_DOUBLE = _Precision(False)
_SINGLE = _Precision(True)


def _log(x):
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _pow(base, exponent):
    try:
        return math.pow(base, exponent)
    except (ValueError, OverflowError):  # C's pow returns NaN or inf where Python raises
        return float(np.power(np.float64(base), np.float64(exponent)))


_PSI_10 = 2.25175258906672110764
_DIGAMMA_SERIES = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
                   -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
                   8.33333333333333333333E-2)


def digamma_one(x, t):
    """ATen's digamma_one<scalar_t, double> (Cephes): recurrence up to 10, then the
    asymptotic series; ``x`` and the recurrence's steps in scalar_t."""
    x = t(x)
    if x == 0:
        return math.inf
    additional = 0.0
    if x < 0:
        if x == math.floor(x):
            return math.inf
        pi = t(math.pi)
        additional = t(-pi / t(math.tan(t(pi * x)))) if t.single else -pi / math.tan(pi * x)
        x = t(1 - x)
    result = 0.0
    while x < 10:
        result -= t(1 / x)
        x = t(x + 1)
    if x == 10:
        return t(result + _PSI_10 + additional)
    y = 0.0
    if x < _f(1.0e17):
        z = 1.0 / t(x * x)
        y = 0.0
        for coefficient in _DIGAMMA_SERIES:
            y = y * z + coefficient
        y = z * y
    return t(result + t.log(x) - t(_f(0.5) / x) - y + additional)


# =======================================================================================
# standard_gamma_grad_one: everything in double, the result rounded to the dtype
_COEF_UV = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
     -1.5247877e-07),
)


def standard_gamma_grad_one(alpha, x):
    """-(d/dalpha cdf(x; alpha)) / pdf(x; alpha) for a sample x of Gamma(alpha): a Taylor
    series for small x, Rice's saddle point expansion for large alpha, else a bivariate
    rational approximation."""
    if x < _f(0.8):
        return _gamma_grad_small_x(alpha, x)
    if alpha > 8.0:
        return _gamma_grad_large_alpha(alpha, x)
    u = _log(x / alpha)
    v = _log(alpha)
    coef_v = [_COEF_UV[0][i] + u * (_COEF_UV[1][i] + u * _COEF_UV[2][i]) for i in range(8)]
    p = coef_v[0] + v * (coef_v[1] + v * (coef_v[2] + v * coef_v[3]))
    q = coef_v[4] + v * (coef_v[5] + v * (coef_v[6] + v * coef_v[7]))
    return _exp(p / q)


def _exp(value):
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def _gamma_grad_small_x(alpha, x):
    numer = 1.0
    denom = alpha
    series1 = numer / denom
    series2 = numer / (denom * denom)
    for i in range(1, 6):
        numer *= -x / i
        denom += 1
        series1 += numer / denom
        series2 += numer / (denom * denom)
    pow_x_alpha = _pow(x, alpha)
    gamma_pdf = _pow(x, alpha - 1) * _exp(-x)
    gamma_cdf = pow_x_alpha * series1
    gamma_cdf_alpha = (_log(x) - digamma_one(alpha, _DOUBLE)) * gamma_cdf - pow_x_alpha * series2
    with np.errstate(all="ignore"):
        result = float(np.float64(-gamma_cdf_alpha) / np.float64(gamma_pdf))
    return 0.0 if math.isnan(result) else result


def _gamma_grad_large_alpha(alpha, x):
    if _f(0.9) * alpha <= x <= _f(1.1) * alpha:
        numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
        numer_2 = 1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
        denom = 1244160 * (alpha * alpha) * (alpha * alpha)
        return numer_1 * numer_2 / denom
    denom = math.sqrt(8 * alpha)
    term2 = denom / (alpha - x)
    term3 = _pow(x - alpha - alpha * _log(x / alpha), -1.5)
    term23 = term2 - term3 if x < alpha else term2 + term3
    term1 = _log(x / alpha) * term23 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    numer = x * term1
    return -stirling * numer / denom


def _ieee(function, *args):
    """``function`` on Python floats, or, where Python raises on a division by zero or a
    domain error, again on numpy's float64, whose arithmetic gives C's infinities and NaNs."""
    try:
        return function(*args)
    except (ZeroDivisionError, ValueError, OverflowError):
        with np.errstate(all="ignore"):
            try:
                return float(function(*(np.float64(a) for a in args[:3]), *args[3:]))
            except (ValueError, OverflowError):
                return math.nan


def standard_gamma_grad(alpha, x):
    """torch._standard_gamma_grad on broadcast arrays of one float dtype."""
    alpha, x = np.broadcast_arrays(alpha, x)
    values = [_ieee(standard_gamma_grad_one, a, s) for a, s in zip(alpha.reshape(-1).tolist(), x.reshape(-1).tolist())]
    return np.array(values, dtype=np.float64).astype(alpha.dtype).reshape(alpha.shape)


# =======================================================================================
# dirichlet_grad_one: -(d/dalpha cdf(x; alpha, beta)) / pdf(x; alpha, beta) / (1 - x) for a
# Beta sample x, beta = total - alpha; the near-0 and near-1 series run in scalar_t.
def _beta_grad_alpha_small(x, alpha, beta, t):
    factor = t(t(digamma_one(alpha, t) - digamma_one(t(alpha + beta), t)) - t.log(x))
    numer = 1.0
    series = t(t(numer / alpha) * t(factor + t(1 / alpha)))
    for i in range(1, 11):
        numer = t(numer * t(t(t(i - beta) * x) / i))
        denom = t(alpha + i)
        series = t(series + t(t(numer / denom) * t(factor + t(1 / denom))))
    result = t(t(x * t.pow(t(1 - x), -beta)) * series)
    return 0.0 if math.isnan(result) else result


def _beta_grad_beta_small(x, alpha, beta, t):
    factor = t(digamma_one(t(alpha + beta), t) - digamma_one(beta, t))
    numer, betas, dbetas, series = 1.0, 1.0, 0.0, t(factor / alpha)
    for i in range(1, 9):
        numer = t(numer * t(-x / i))
        dbetas = t(t(dbetas * t(beta - i)) + betas)
        betas = t(betas * t(beta - i))
        series = t(series + t(t(numer / t(alpha + i)) * t(dbetas + t(factor * betas))))
    result = t(-t.pow(t(1 - x), t(1 - beta)) * series)
    return 0.0 if math.isnan(result) else result


def _beta_grad_alpha_mid(x, alpha, beta):
    """Rice's saddle point expansion for large alpha and beta, in double."""
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:  # around the mean, where the expansion is singular
        bb = beta * beta
        poly = 47 * x * bb * bb + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * bb * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * bb + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = math.sqrt(2 * alpha / beta) * _pow(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * _log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = beta * _log(beta / (total * (1 - x))) + alpha * _log(alpha / (total * x))
    term4 = _pow(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


_DIRICHLET_COEFFICIENTS = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]],
]).tolist()


def _dirichlet_rational(x, alpha, total, t):
    """A rational correction to an analytic approximation, in double."""
    u = _log(x)
    a = _log(alpha) - u
    b = _log(total) - a
    pow_u = (1.0, u, u * u)
    pow_a = (1.0, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            cp, cq = _DIRICHLET_COEFFICIENTS[0][i][j], _DIRICHLET_COEFFICIENTS[1][i][j]
            p += ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q += ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    approx = x * t(digamma_one(total, t) - digamma_one(alpha, t)) / (total - alpha)
    return p / q * approx


def dirichlet_grad_one(x, alpha, total, t):
    beta = t(total - alpha)
    boundary = t(t(total * x) * t(1 - x))
    if x <= 0.5 and boundary < 2.5:
        return _beta_grad_alpha_small(x, alpha, beta, t)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_grad_beta_small(t(1 - x), beta, alpha, t)
    if alpha > 6 and beta > 6:
        return _beta_grad_alpha_mid(x, alpha, total - alpha)
    return _dirichlet_rational(x, alpha, total, t)


def dirichlet_grad(x, alpha, total):
    """torch._dirichlet_grad on broadcast arrays of one float dtype."""
    t = _SINGLE if x.dtype == np.float32 else _DOUBLE
    x, alpha, total = np.broadcast_arrays(x, alpha, total)
    triples = zip(x.reshape(-1).tolist(), alpha.reshape(-1).tolist(), total.reshape(-1).tolist())
    values = [_ieee(dirichlet_grad_one, xv, av, tv, t) for xv, av, tv in triples]
    return np.array(values, dtype=np.float64).astype(x.dtype).reshape(x.shape)
