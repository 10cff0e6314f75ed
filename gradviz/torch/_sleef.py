"""SLEEF's float32 expf, logf and log1pf (the 1.0-ULP versions), step by step in numpy, as
ATen's ``Vectorized<float>`` calls them (``Sleef_expf8_u10`` / ``Sleef_logf8_u10`` /
``Sleef_log1pf8_u10``, or their 16-lane twins: the same arithmetic). Softmax, log_softmax,
their backwards, sigmoid and log_sigmoid run these on x86-64 CPUs; numpy's float32 exp and
log are other approximations that differ from them in the last bit on about a third (exp)
or a tenth (log) of inputs.

SLEEF builds these with fused multiply-adds (its ``vmla`` is an FMA on AVX2 and AVX-512);
``_fma`` below rounds each once, as the hardware does. Each function is SLEEF's own
sequence of float32 operations (``xexpf``, ``xlogf_u1``, ``xlog1pf`` in
src/libm/sleefsimdsp.c, with the double-float helpers of src/common/df.h), so the bits are
SLEEF's on every input: exp agrees with softmax's exponentials on every input tried.

``torch.exp`` and ``torch.log`` themselves do not come from here: for contiguous float32
tensors ATen hands them to MKL's VML (vmsExp / vmsLn, high accuracy), which is another
approximation again.
"""
import numpy as np

F32 = np.float32
_TIE_BITS = np.uint64((1 << 29) - 1)  # the float64 mantissa bits below float32's
_TIE = np.uint64(1 << 28)


def _fma(a, b, c):
    """a * b + c rounded once to float32. The float64 product of two floats is exact and
    the float64 sum rounds once; rounding that to float32 can only differ from one rounding
    where the sum landed exactly halfway between two floats, and those are redone from the
    sum rounded to odd."""
    product = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    c = np.asarray(c, np.float64)
    total = product + c
    result = total.astype(F32)
    halfway = (total.view(np.uint64) & _TIE_BITS) == _TIE
    if halfway.any():
        if total.ndim == 0:  # nonzero() refuses 0-d arrays: redo the one element as a 1-d array
            return _fma(np.reshape(a, 1), np.reshape(b, 1), np.reshape(c, 1)).reshape(())
        where = np.nonzero(halfway)
        p, q, s = product[where], np.broadcast_to(c, total.shape)[where], total[where]
        back = s - p
        error = (p - (s - back)) + (q - back)
        nudge = (error != 0) & ((s.view(np.int64) & 1) == 0)
        s = np.where(nudge, np.nextafter(s, np.where(error > 0, np.inf, -np.inf)), s)
        result[where] = s.astype(F32)
    return result


def _pow2(q):
    """2**q as a float32 for an int32 q in [-126, 127], built from its exponent bits."""
    return ((q + 0x7f) << 23).astype(np.int32).view(F32)


_R_LN2 = F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U, _L2L = F32(0.693145751953125), F32(1.428606765330187045e-06)
_EXP_POLY = [F32(c) for c in (0.000198527617612853646278381, 0.00139304355252534151077271,
                                0.00833336077630519866943359, 0.0416664853692054748535156,
                                0.166666671633720397949219, 0.5)]


def expf(d):
    """SLEEF's xexpf: q = rint(d / ln 2), s = d - q ln 2 (in two FMA steps), a degree-6
    polynomial in s by FMAs, 1 + s + s^2 p(s), scaled by 2**q in two halves; 0 below -104,
    +inf above 100."""
    d = np.asarray(d, F32)
    with np.errstate(all="ignore"):
        q = np.rint(d * _R_LN2)
        q = np.where(np.abs(q) < 2 ** 30, q, 0).astype(np.int32)  # the out-of-range ones are replaced below
        qf = q.astype(F32)
        s = _fma(qf, -_L2U, d)
        s = _fma(qf, -_L2L, s)
        u = _EXP_POLY[0]
        for c in _EXP_POLY[1:]:
            u = _fma(u, s, c)
        u = F32(1) + _fma(s * s, u, s)
        half = q >> 1
        u = u * _pow2(half) * _pow2(q - half)
        u = np.where(d < -104, F32(0), u)
        u = np.where(d > 100, F32(np.inf), u)
        u = np.where(np.isnan(d), d, u)
    return u.astype(F32, copy=False)


def _exponent(d):
    """getexp: floor(log2 |d|) as a float (subnormals by their own exponent)."""
    return (np.frexp(np.abs(d).astype(np.float64))[1] - 1).astype(F32)


def _mantissa(d):
    """getmant to [0.75, 1.5): |d|'s significand, halved when it is 1.5 or more."""
    m = np.frexp(np.abs(d).astype(np.float64))[0] * 2
    return np.where(m >= 1.5, m / 2, m).astype(F32)


_LN2_HI, _LN2_LO = F32(0.69314718246459960938), F32(-1.904654323148236017e-09)
_LOG_POLY = [F32(c) for c in (0.3027294874, 0.3996108174, 0.6666694880)]


def _log_core(e, nx, ny, dx, dy):
    """The shared tail of xlogf_u1 and xlog1pf: e ln 2 as a double-float, plus 2x + x^3 t(x^2)
    for x = n / d (double-float quotient), summed in double-float and rounded."""
    sx = _LN2_HI * e
    sy = _fma(_LN2_LO, e, _fma(_LN2_HI, e, -sx))
    t = F32(1) / dx
    qx = nx * t
    u = _fma(t, nx, -qx)
    v = _fma(-dy, t, _fma(-dx, t, F32(1)))
    qy = _fma(qx, v, _fma(ny, t, u))
    x2 = qx * qx
    p = _LOG_POLY[0]
    for c in _LOG_POLY[1:]:
        p = _fma(p, x2, c)
    ax, ay = qx * F32(2), qy * F32(2)
    total = sx + ax
    sy = (((sx - total) + ax) + sy) + ay
    sx = total
    w = (x2 * qx) * p
    total = sx + w
    sy = ((sx - total) + w) + sy
    return total + sy


def _two_sum_from(x, y):
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def logf(d):
    """SLEEF's xlogf_u1 (Sleef_logf*_u10): d = 2**e m with m in [0.75, 1.5), then
    log m = 2 atanh((m - 1) / (m + 1)) in double-float arithmetic."""
    d = np.asarray(d, F32)
    with np.errstate(all="ignore"):
        e = _exponent(d * F32(1 / 0.75))
        e = np.where(e == np.inf, F32(128), e)
        m = _mantissa(d)
        nx, ny = _two_sum_from(F32(-1), m)
        dx, dy = _two_sum_from(F32(1), m)
        r = _log_core(e, nx, ny, dx, dy)
        r = np.where(d == 0, F32(-np.inf), r)
        r = np.where(d == np.inf, F32(np.inf), r)
        r = np.where((d < 0) | np.isnan(d), F32(np.nan), r)
    return r.astype(F32, copy=False)


def log1pf(d):
    """SLEEF's xlog1pf (Sleef_log1pf*_u10): 1 + d = 2**e (1 + m) without forming 1 + d
    exactly, m = d 2**-e + (2**-e - 1) by one FMA, then the same atanh series as logf; logf(d)
    above 1e38."""
    d = np.asarray(d, F32)
    with np.errstate(all="ignore"):
        e = _exponent((d + F32(1)) * F32(1 / 0.75))
        e = np.where(e == np.inf, F32(128), e)
        t = _pow2(-np.clip(e, -126, 127).astype(np.int32))
        m = _fma(d, t, t - F32(1))
        dx = F32(2) + m
        dy = (F32(2) - dx) + m
        r = _log_core(e, m, F32(0), dx, dy)
        big = d > F32(float.fromhex("0x1.2ced32p+126"))
        if big.any():
            r = np.where(big, logf(d), r)
        r = np.where(d < -1, F32(np.nan), r)
        r = np.where(d == -1, F32(-np.inf), r)
        r = np.where((d == 0) & np.signbit(d), F32(-0.0), r)
        r = np.where(np.isnan(d), d, r)
    return r.astype(F32, copy=False)
