"""numpy kernels of torch.special's orthogonal polynomials (Chebyshev T/U/V/W and their shifted
forms, Hermite H/He, Laguerre L, Legendre P), as ATen's Math.h evaluates them per element in
the dtype: n truncated to an integer (negative or not finite: 0), closed forms at the ends
of the interval, a trigonometric form for large n inside it (Chebyshev), else the three-term
recurrence, whose multiply-subtract GCC fuses (one rounding, ``_kernels_bessel.fma``). The
recurrence runs over whole arrays up to the largest n, each element frozen once its own n
is reached or its value is NaN, as ATen's loop stops."""
import numpy as np

from ._kernels_bessel import fma

_HERMITE_LIMIT = {np.dtype(np.float32): 128, np.dtype(np.float64): 512}


def _operands(x, n, dtype):
    x = np.asarray(x, dtype=dtype)
    n = np.asarray(n, dtype=dtype)
    x, n = np.broadcast_arrays(x, n)
    with np.errstate(all="ignore"):
        whole = np.where(np.isfinite(n) & (np.abs(n) < 2.0 ** 63), n, -1).astype(np.int64)
    return x, whole


def _recur(n, p, q, step, first_k, last_k):
    """q_k = step(k, p, q) for k from first_k while k <= last_k(n) and q is not NaN."""
    limit = last_k(n)
    top = int(limit.max(initial=first_k - 1))
    p, q = p.copy(), q.copy()
    for k in range(first_k, top + 1):
        live = (k <= limit) & ~np.isnan(q)
        if not live.any():
            break
        r = step(k, p, q)
        p, q = np.where(live, q, p), np.where(live, r, q)
    return q


def _chebyshev(x, n, dtype, kind, shifted):
    x, n = _operands(x, n, dtype)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        u = x + x - t(1.0) if shifted else x  # the shifted forms evaluate at 2x - 1
        two_u = u + u
        first = {"t": u, "u": two_u, "v": two_u - t(1.0), "w": two_u + t(1.0)}[kind]
        series = _recur(n, np.ones_like(u), first, lambda k, p, q: fma(two_u, q, -p), 2, lambda m: m)
        out = np.where(n == 0, t(1.0), np.where(n == 1, first, series))
        out = np.where((n > _TRIG_FROM[(kind, shifted)]) & (np.abs(u) < t(1.0)), _chebyshev_trig(u, n, kind), out)
        at_end = (x == t(1.0)) | (x == t(0.0)) if shifted else np.abs(x) == t(1.0)
        upper = x == t(1.0) if shifted else x > t(0.0)
        out = np.where(at_end, _chebyshev_end(n, kind, upper, x.dtype), out)
        return np.asarray(np.where(n < 0, t(0.0), out), dtype=x.dtype)


# ATen switches to the trigonometric form above these n (W shifted from 4, T from 6).
_TRIG_FROM = {("t", False): 6, ("u", False): 8, ("v", False): 8, ("w", False): 8,
              ("t", True): 6, ("u", True): 6, ("v", True): 6, ("w", True): 4}


def _chebyshev_trig(u, n, kind):
    t = u.dtype.type
    theta = np.arccos(u)
    m = n.astype(u.dtype)
    odd_sign = np.where(n % 2 == 0, t(1.0), t(-1.0))
    if kind == "t":
        return np.cos(m * theta)
    if kind == "u":
        return np.where(np.sin(theta) != t(0.0), np.sin((m + t(1.0)) * theta) / np.sin(theta),
                        (m + t(1.0)) * np.cos((m + t(1.0)) * theta) / u)
    if kind == "v":
        return np.where(np.sin(theta / t(2.0)) != t(1.0), np.cos((m + t(0.5)) * theta) / np.cos(theta / t(2.0)),
                        odd_sign * (m + m + t(1.0)))
    return np.where(np.cos(theta / t(2.0)) != t(1.0), np.sin((m + t(0.5)) * theta) / np.sin(theta / t(2.0)),
                    np.where(u > t(0.0), m + m + t(1.0), odd_sign))


def _chebyshev_end(n, kind, upper, dtype):
    """The closed forms at u = +-1: T 1 / +-1, U n+1 / +-(n+1), V 1 / +-(2n+1), W 2n+1 / +-1."""
    sign = np.where(n % 2 == 0, 1, -1)
    at_upper = {"t": 1, "u": n + 1, "v": 1, "w": n + n + 1}[kind]
    at_lower = {"t": sign, "u": sign * (n + 1), "v": sign * (n + n + 1), "w": sign}[kind]
    return np.where(upper, at_upper, at_lower).astype(dtype)


def chebyshev_polynomial(x, n, *, kind, shifted, dtype):
    return _chebyshev(x, n, dtype, kind, shifted)


def hermite_polynomial_h(x, n, *, dtype):
    x, n = _operands(x, n, dtype)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        two_x = x + x
        # ATen's loop runs k = 2, 4, ... below 2n: one step per order, the k-th multiplying by k
        series = _recur(n, np.ones_like(x), two_x, lambda k, p, q: fma(two_x, q, -(t(2 * (k - 1)) * p)), 2,
                        lambda m: m)
        out = np.where(n > _HERMITE_LIMIT[x.dtype], t(np.nan), series)
        out = np.where(n == 0, t(1.0), np.where(n == 1, two_x, out))
        return np.asarray(np.where(n < 0, t(0.0), out), dtype=x.dtype)


def hermite_polynomial_he(x, n, *, dtype):
    x, n = _operands(x, n, dtype)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        series = _recur(n, np.ones_like(x), x, lambda k, p, q: fma(x, q, -(t(k - 1) * p)), 2, lambda m: m)
        out = np.where(n > _HERMITE_LIMIT[x.dtype], t(np.nan), series)
        out = np.where(n == 0, t(1.0), np.where(n == 1, x, out))
        return np.asarray(np.where(n < 0, t(0.0), out), dtype=x.dtype)


def laguerre_polynomial_l(x, n, *, dtype):
    x, n = _operands(x, n, dtype)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        one_minus_x = t(1.0) - x
        series = _recur(n, np.ones_like(x), one_minus_x,
                        lambda k, p, q: fma(t(2 * (k - 1)) + one_minus_x, q, -(t(k - 1) * p)) / t(k), 2, lambda m: m)
        out = np.where(n == 0, t(1.0), np.where(n == 1, one_minus_x, series))
        out = np.where(np.abs(x) == t(0.0), t(1.0), out)
        return np.asarray(np.where(n < 0, t(0.0), out), dtype=x.dtype)


def legendre_polynomial_p(x, n, *, dtype):
    x, n = _operands(x, n, dtype)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        series = _recur(n, np.ones_like(x), x,
                        lambda k, p, q: fma(t(2 * k - 1) * x, q, -(t(k - 1) * p)) / t(k), 2, lambda m: m)
        out = np.where(n == 0, t(1.0), np.where(n == 1, x, series))
        ends = np.where((x > t(0.0)) | (n % 2 == 0), t(1.0), t(-1.0))
        out = np.where(np.abs(x) == t(1.0), ends, out)
        return np.asarray(np.where(n < 0, t(0.0), out), dtype=x.dtype)
