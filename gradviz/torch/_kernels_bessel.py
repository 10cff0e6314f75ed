"""numpy kernels of the Bessel family (torch.i0, special.i0e / i1 / i1e, bessel_j0 / j1 / y0 / y1,
modified_bessel_i0 / i1 / k0 / k1, their scaled k0 / k1, spherical_bessel_j0, airy_ai).

ATen's CPU kernels are scalar templates on the input's type (Math.h): a float32 tensor is
computed in float32 throughout, float64 in float64. These kernels run the same steps in the
same order over whole arrays, in the input's dtype: the Chebyshev (chbevl) and polynomial
(Horner) loops as ATen writes them, each branch computed everywhere and picked by a mask.
float32 exponentials and logarithms are glibc's expf / logf (``_libm``), which ATen's scalar
code calls; float64 ones are numpy's, within an ulp of glibc's. Integer inputs are computed
in the default float dtype, as PyTorch's promotion does."""
import numpy as np

from . import _dtypes, _libm
from . import _kernels_bessel_tables as C

_QUIET = {"all": "ignore"}


def floating(x):
    """``x`` as an array of its own floating dtype, or of the default float for integers."""
    x = np.asarray(x)
    if x.dtype.kind in "fc":
        return x
    return x.astype(_dtypes.DEFAULTS.float_dtype.np)


def _exp(x):
    return _libm.expf(x) if x.dtype == np.float32 else np.exp(x)


def _log(x):
    return _libm.logf(x) if x.dtype == np.float32 else np.log(x)


def fma(a, b, c):
    """a * b + c rounded once: GCC contracts these in ATen's kernels (-ffp-contract=fast)."""
    if a.dtype == np.float32:
        return _libm.fused_multiply_add32(a, b, c)
    return _libm.fused_multiply_add(a, b, c)


def _table(values, dtype):
    return [dtype.type(v) for v in values]


def chbevl(x, coefficients):
    """Cephes' Chebyshev series at ``x`` (the highest order first), as ATen's chbevl runs it."""
    t = x.dtype.type
    coefficients = _table(coefficients, x.dtype)
    b0, b1, b2 = np.full_like(x, coefficients[0]), np.zeros_like(x), np.zeros_like(x)
    for c in coefficients[1:]:
        b2 = b1
        b1 = b0
        b0 = fma(x, b1, -b2) + c
    return t(0.5) * (b0 - b2)


def horner(z, coefficients):
    """ATen's polevl and its unrolled loops: starting from zero, r = r * z + c per coefficient."""
    r = np.zeros_like(z)
    for c in _table(coefficients, z.dtype):
        r = fma(r, z, c)
    return r


# ----- I0, I1 and their exponentially scaled forms (calc_i0, calc_i0e, calc_i1, calc_i1e) -----
def _i1e_tables(dtype):
    if dtype == np.float32:
        return C.I1E_A_FLOAT, C.I1E_B_FLOAT
    return C.I1E_A, C.I1E_B


def _scaled_series(x, small_table, large_table):
    """The Chebyshev series of exp(-|x|) times the Bessel function, at |x|: on [0, 8] and
    beyond (which still needs dividing by sqrt|x|, in an order each caller keeps)."""
    t = x.dtype.type
    ax = np.abs(x)
    small = chbevl(ax / t(2.0) - t(2.0), small_table)
    large = chbevl(t(32.0) / ax - t(2.0), large_table)
    return ax, ax <= t(8.0), small, large


def i0(x):
    x = floating(x)
    with np.errstate(**_QUIET):
        ax, inside, small, large = _scaled_series(x, C.I0E_A, C.I0E_B)
        e = _exp(ax)
        return np.asarray(np.where(inside, e * small, e * large / np.sqrt(ax)), dtype=x.dtype)


def i0e(x):
    x = floating(x)
    with np.errstate(**_QUIET):
        ax, inside, small, large = _scaled_series(x, C.I0E_A, C.I0E_B)
        return np.asarray(np.where(inside, small, large / np.sqrt(ax)), dtype=x.dtype)


def i1(x):
    x = floating(x)
    with np.errstate(**_QUIET):
        ax, inside, small, large = _scaled_series(x, *_i1e_tables(x.dtype))
        e = _exp(ax)
        out = np.where(inside, e * ax * small, e * large / np.sqrt(ax))
        return np.asarray(np.where(x < 0, -out, out), dtype=x.dtype)


def i1e(x):
    x = floating(x)
    with np.errstate(**_QUIET):
        ax, inside, small, large = _scaled_series(x, *_i1e_tables(x.dtype))
        out = np.where(inside, small * ax, large / np.sqrt(ax))
        return np.asarray(np.where(x < 0, -out, out), dtype=x.dtype)


# special.modified_bessel_i0 writes calc_i0's steps out again (same tables, same order)
modified_bessel_i0 = i0


def modified_bessel_i1(x):
    """special.modified_bessel_i1: the float64 i1e tables for every dtype, and the products in
    another order than calc_i1's."""
    x = floating(x)
    with np.errstate(**_QUIET):
        ax, inside, small, large = _scaled_series(x, C.I1E_A, C.I1E_B)
        e = _exp(ax)
        out = np.where(inside, small * ax * e, e * large / np.sqrt(ax))
        return np.asarray(np.where(x < 0, -out, out), dtype=x.dtype)


# ----- K0, K1 and their scaled forms ------------------------------------------------------
def _k_parts(x, small_table, large_table):
    t = x.dtype.type
    small = chbevl(x * x - t(2.0), small_table)
    large = chbevl(t(8.0) / x - t(2.0), large_table)  # still to divide by sqrt(x)
    # ATen writes log(0.5 * x) with a double 0.5: the logarithm is taken in double
    log_half_x = np.log(0.5 * x.astype(np.float64))
    return small, large, log_half_x


def _poles_and_domain(x, out):
    """K0 and K1 (scaled or not): +inf at 0, NaN below it."""
    out = np.where(x == 0, np.inf, out)
    return np.asarray(np.where(x < 0, np.nan, out), dtype=x.dtype)


def modified_bessel_k0(x):
    x = floating(x)
    with np.errstate(**_QUIET):
        small, large, log_half_x = _k_parts(x, C.K0_A, C.K0_B)
        near = (small - log_half_x * modified_bessel_i0(x)).astype(x.dtype)
        return _poles_and_domain(x, np.where(x <= 2, near, _exp(-x) * large / np.sqrt(x)))


def modified_bessel_k1(x):
    x = floating(x)
    with np.errstate(**_QUIET):
        small, large, log_half_x = _k_parts(x, C.K1_A, C.K1_B)
        t = x.dtype.type
        # here ATen's 0.5 is T(0.5): the logarithm stays in the dtype
        near = _log(t(0.5) * x) * modified_bessel_i1(x) + small / x
        return _poles_and_domain(x, np.where(x <= 2, near, _exp(-x) * large / np.sqrt(x)))


def scaled_modified_bessel_k0(x):
    x = floating(x)
    with np.errstate(**_QUIET):
        t = x.dtype.type
        small, large, _ = _k_parts(x, C.K0_A, C.K0_B)
        near = (small - _log(t(0.5) * x) * modified_bessel_i0(x)) * _exp(x)
        return _poles_and_domain(x, np.where(x <= 2, near, large / np.sqrt(x)))


def scaled_modified_bessel_k1(x):
    x = floating(x)
    with np.errstate(**_QUIET):
        t = x.dtype.type
        small, large, _ = _k_parts(x, C.K1_A, C.K1_B)
        near = (_log(t(0.5) * x) * modified_bessel_i1(x) + small / x) * _exp(x)
        return _poles_and_domain(x, np.where(x <= 2, near, large / np.sqrt(x)))


# ----- J0, J1, Y0, Y1 (Cephes' rational approximations) -------------------------------------
_SQRT_2_OVER_PI = 0.797884560802865355879892119868763737
_QUARTER_PI = 0.785398163397448309615660845819875721
_THREE_QUARTERS_PI = 2.356194490192344928846982537459627163
_TWO_OVER_PI = 0.636619772367581343075535053490057448


def _asymptotic(x, tables, shift, sine_first, reciprocal_square):
    """The large-x form of J0/J1/Y0/Y1: (P cos(x - shift) -+ 5/x Q sin(x - shift)) sqrt(2/(pi x)).
    ``reciprocal_square`` picks ATen's spelling of 25/x^2: 25 / (x x) for order 0, 5/x * (5/x)
    for order 1 (they round differently)."""
    t = x.dtype.type
    w = reciprocal_square(x)
    pp, pq, qp, qq = (horner(w, table) for table in tables)
    angle = x - t(shift)
    p_term, q_term = pp / pq, t(5.0) / x * (qp / qq)
    if sine_first:  # the Y functions
        combined = fma(p_term, np.sin(angle), q_term * np.cos(angle))
    else:
        combined = fma(p_term, np.cos(angle), -(q_term * np.sin(angle)))
    return combined * t(_SQRT_2_OVER_PI) / np.sqrt(x)


def _order0_w(x):
    return x.dtype.type(25.0) / (x * x)


def _order1_w(x):
    five = x.dtype.type(5.0)
    return five / x * (five / x)


def _j0_abs(ax):
    t = ax.dtype.type
    z = ax * ax
    near = (z - t(5.78318596294678452118e+00)) * (z - t(3.04712623436620863991e+01)) * horner(z, C.J0_RP) / horner(
        z, C.J0_RQ)
    tiny = t(1.0) - z / t(4.0)
    far = _asymptotic(ax, (C.J0_PP, C.J0_PQ, C.J0_QP, C.J0_QQ), _QUARTER_PI, False, _order0_w)
    return np.where(ax <= t(5.0), np.where(ax < t(0.00001), tiny, near), far)


def _j1_abs(ax):
    t = ax.dtype.type
    z = ax * ax
    near = horner(z, C.J1_RP) / horner(z, C.J1_RQ) * ax * (z - t(1.46819706421238932572e+01)) * (
        z - t(4.92184563216946036703e+01))
    far = _asymptotic(ax, (C.J1_PP, C.J1_PQ, C.J1_QP, C.J1_QQ), _THREE_QUARTERS_PI, False, _order1_w)
    return np.where(ax <= t(5.0), near, far)


def bessel_j0(x):
    x = floating(x)
    with np.errstate(**_QUIET):
        return np.asarray(_j0_abs(np.abs(x)), dtype=x.dtype)


def bessel_j1(x):
    x = floating(x)
    with np.errstate(**_QUIET):
        out = _j1_abs(np.abs(x))
        return np.asarray(np.where(x < 0, -out, out), dtype=x.dtype)


def bessel_y0(x):
    x = floating(x)
    t = x.dtype.type
    with np.errstate(**_QUIET):
        z = x * x
        near = fma(t(_TWO_OVER_PI) * _log(x), _j0_abs(x), horner(z, C.Y0_YP) / horner(z, C.Y0_YQ))
        far = _asymptotic(x, (C.Y0_PP, C.Y0_PQ, C.Y0_QP, C.Y0_QQ), _QUARTER_PI, True, _order0_w)
        out = np.where(x <= t(5.0), near, far)
        out = np.where(x == 0, -np.inf, np.where(x < 0, np.nan, out))
        return np.asarray(out, dtype=x.dtype)


def bessel_y1(x):
    x = floating(x)
    t = x.dtype.type
    with np.errstate(**_QUIET):
        z = x * x
        near = fma(x, horner(z, C.Y1_YP) / horner(z, C.Y1_YQ),
                   t(_TWO_OVER_PI) * fma(_j1_abs(x), _log(x), -(t(1.0) / x)))
        far = _asymptotic(x, (C.Y1_PP, C.Y1_PQ, C.Y1_QP, C.Y1_QQ), _THREE_QUARTERS_PI, True, _order1_w)
        out = np.where(x <= t(5.0), near, far)
        out = np.where(x == 0, -np.inf, np.where(x < 0, np.nan, out))
        return np.asarray(out, dtype=x.dtype)


def spherical_bessel_j0(x):
    """sin(x) / x, by its Taylor series below |x| = 0.5."""
    x = floating(x)
    t = x.dtype.type
    with np.errstate(**_QUIET):
        z = x * x
        series = t(1.0) / t(6227020800.0)
        for c in (-39916800.0, 362880.0, -5040.0, 120.0, -6.0):
            series = t(1.0) / t(c) + z * series if c > 0 else t(-1.0) / t(-c) + z * series
        series = t(1.0) + z * series
        out = np.where(np.abs(x) < t(0.5), series, np.sin(x) / x)
        return np.asarray(np.where(np.isinf(x), t(0.0), out), dtype=x.dtype)


# ----- Airy Ai ------------------------------------------------------------------------------
def _airy_series(x):
    """Ai(x) = c1 f(x) - c2 g(x) by the power series of f and g, summed until a term falls
    below the dtype's epsilon (per element, as ATen's loop stops)."""
    t = x.dtype.type
    eps = np.finfo(x.dtype).eps
    z = x * x * x
    f, g = np.ones_like(x), x.copy()
    m, n, k = np.ones_like(x), x.copy(), np.ones_like(x)
    running = np.ones(x.shape, dtype=bool)
    one = t(1.0)
    while running.any():
        m_next = m * z
        k_next = k + one
        m_next = m_next / k_next
        n_next = n * z
        k_next = k_next + one
        n_next = n_next / k_next
        m_next = m_next / k_next
        f_next = f + m_next
        k_next = k_next + one
        n_next = n_next / k_next
        g_next = g + n_next
        m, n, k = np.where(running, m_next, m), np.where(running, n_next, n), np.where(running, k_next, k)
        f, g = np.where(running, f_next, f), np.where(running, g_next, g)
        running &= np.abs(m / f) > eps  # a NaN stops too
    return t(0.355028053887817239260) * f - t(0.258819403792806798405) * g


def airy_ai(x):
    x = floating(x)
    t = x.dtype.type
    with np.errstate(**_QUIET):
        # x < -2.09: the oscillating asymptotic form
        neg = np.where(x < t(-2.09), x, t(-3.0))
        root = np.sqrt(-neg)
        z = t(1.0) / (t(-2.0) * neg * root / t(3.0))
        zz = z * z
        afn, afd = horner(zz, C.AIRY_AFN), horner(zz, C.AIRY_AFD)
        agn, agd = horner(zz, C.AIRY_AGN), horner(zz, C.AIRY_AGD)
        theta = t(-2.0) * neg * root / t(3.0) + t(0.25) * t(np.pi)
        oscillating = t(5.64189583547756286948e-01) / np.sqrt(root) * (
            np.sin(theta) * (t(1.0) + zz * afn / afd) - np.cos(theta) * (z * agn / agd))
        # x >= 2.09: the decaying asymptotic form
        pos = np.where(x >= t(2.09), x, t(3.0))
        zeta = t(2.0) * pos * np.sqrt(pos) / t(3.0)
        an, ad = horner(t(1.0) / zeta, C.AIRY_AN), horner(t(1.0) / zeta, C.AIRY_AD)
        decaying = t(5.64189583547756286948e-01) * (an / ad) / (t(2.0) * np.sqrt(np.sqrt(pos)) * _exp(zeta))
        middle = np.where((x >= t(-2.09)) & (x < t(2.09)), x, t(0.0))
        series = _airy_series(middle)
        out = np.where(x < t(-2.09), oscillating, np.where(x >= t(2.09), decaying, series))
        out = np.where(x > t(103.892), t(0.0), out)
        out = np.where(np.isnan(x), x, out)  # ATen's series runs once on a NaN and keeps it
        return np.asarray(np.where(np.isinf(x), np.nan, out), dtype=x.dtype)
