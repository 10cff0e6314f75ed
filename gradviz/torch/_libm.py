"""glibc's float32 logf and log1pf, step by step in numpy, as ATen's scalar CPU kernels call
them (std::log / std::log1p on a float). numpy's float32 log and log1p are other
approximations: about half of their results differ from glibc's in the last bit.

logf is glibc's table-driven one (16 intervals of reciprocal and log, a degree-4 polynomial,
in double, rounded once); log1pf is fdlibm's float code as glibc (2.36) ships it. Both give
glibc's bits on every input tried (positive floats across the exponent range for logf, and
[-1, inf) for log1pf).
"""
import numpy as np

_H = float.fromhex
_LOGF_TABLE = np.array([(_H(invc), _H(logc)) for invc, logc in (
    ("0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2"),
    ("0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2"),
    ("0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2"),
    ("0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3"),
    ("0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3"),
    ("0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3"),
    ("0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4"),
    ("0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4"),
    ("0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5"),
    ("0x1p+0", "0x0p+0"),
    ("0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5"),
    ("0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4"),
    ("0x1.b2036576afce6p-1", "0x1.526e57720db08p-3"),
    ("0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3"),
    ("0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2"),
    ("0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2"),
)])
_INVALID = np.array(0xffc00000, dtype=np.uint32).view(np.float32)
_LN2 = _H("0x1.62e42fefa39efp-1")
_A0, _A1, _A2 = _H("-0x1.00ea348b88334p-2"), _H("0x1.5575b0be00b6ap-2"), _H("-0x1.ffffef20a4123p-2")


def logf(x):
    """glibc's logf on a float32 array (NaN below 0, -inf at 0, subnormals normalised first)."""
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(all="ignore"):
        sub = (x > 0) & (x < np.float32(1.1754944e-38))
        scaled = np.where(sub, x * np.float32(2.0 ** 23), x)
        ix = scaled.view(np.uint32).astype(np.int64) - np.where(sub, 23 << 23, 0)
        tmp = (ix - 0x3f330000) & 0xffffffff
        i = (tmp >> 19) % 16
        k = np.where(tmp & 0x80000000, (tmp >> 23) - 512, tmp >> 23)
        z = ((ix - (tmp & 0xff800000)) & 0xffffffff).astype(np.uint32).view(np.float32).astype(np.float64)
        r = z * _LOGF_TABLE[i, 0] - 1
        y0 = _LOGF_TABLE[i, 1] + k * _LN2
        r2 = r * r
        y = _A1 * r + _A2
        y = _A0 * r2 + y
        out = (y * r2 + (y0 + r)).astype(np.float32)
        out = np.where(x == 1, np.float32(0), out)
        out = np.where(x == 0, np.float32(-np.inf), out)
        out = np.where(x < 0, _INVALID, out)  # glibc's 0 / 0: the x86 default NaN, sign bit set
        return np.where((x == np.inf) | np.isnan(x), x, out)


F32 = np.float32
_LN2_HI, _LN2_LO = F32(6.9313812256e-01), F32(9.0580006145e-06)
_LP = [F32(v) for v in (6.6666668653e-01, 4.0000000596e-01, 2.8571429849e-01, 2.2222198546e-01,
                        1.8183572590e-01, 1.5313838422e-01, 1.4798198640e-01)]


def log1pf(x):
    """glibc's (fdlibm's) log1pf on a float32 array, every operation in float32."""
    x = np.asarray(x, dtype=F32)
    one, half = F32(1), F32(0.5)
    with np.errstate(all="ignore"):
        hx = x.view(np.int32).astype(np.int64)
        ax = hx & 0x7fffffff
        small = hx < 0x3ed413d7  # x < 0.41422
        direct = small & ((hx > 0) | (hx <= -1097468385))  # -0.2929 < x < 0.41422 (0xbe95f61f): k = 0
        # otherwise 1 + x is split into 2**k * u with a correction term c
        big = hx >= 0x5a000000
        u = np.where(big, x, one + x)
        hu = u.view(np.int32).astype(np.int64)
        k = (hu >> 23) - 127
        c = np.where(big, F32(0), np.where(k > 0, one - (u - x), x - (u - one)) / u)
        hu = hu & 0x007fffff
        low = hu < 0x3504f7
        u = np.where(low, hu | 0x3f800000, hu | 0x3f000000).astype(np.uint32).view(F32)
        k = np.where(low, k, k + 1)
        hu = np.where(low, hu, (0x00800000 - hu) >> 2)
        f = u - one
        k = np.where(direct, 0, k)
        f = np.where(direct, x, f)
        hu = np.where(direct, 1, hu)
        c = np.where(direct, F32(0), c)
        kf = k.astype(F32)
        hfsq = half * f * f
        # |f| < 2**-20
        r0 = hfsq * (one - F32(0.66666666666666666) * f)
        near = np.where(f == 0, np.where(k == 0, F32(0), kf * _LN2_HI + (c + kf * _LN2_LO)),
                        np.where(k == 0, f - r0, kf * _LN2_HI - ((r0 - (kf * _LN2_LO + c)) - f)))
        s = f / (F32(2) + f)
        z = s * s
        r = _LP[6]
        for coefficient in _LP[5::-1]:
            r = coefficient + z * r
        r = z * r
        general = np.where(k == 0, f - (hfsq - s * (hfsq + r)),
                           kf * _LN2_HI - ((hfsq - (s * (hfsq + r) + (kf * _LN2_LO + c))) - f))
        out = np.where(hu == 0, near, general)
        out = np.where(small & (ax < 0x31000000), np.where(ax < 0x24800000, x, x - x * x * half), out)
        out = np.where(x == -1, F32(-np.inf), out)
        out = np.where(x < -1, _INVALID, out)
        return np.where((x == np.inf) | np.isnan(x), x, out).astype(F32)


_EXPF_N = 32
_EXPF_TABLE = np.array([  # bits of 2**(i/32), less i << 47 (glibc's __exp2f_data.tab)
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
], dtype=np.uint64)
_EXPF_INV_LN2N = _H("0x1.71547652b82fep0") * _EXPF_N
_EXPF_SHIFT = _H("0x1.8p+52")
_EXPF_C = (_H("0x1.c6af84b912394p-5") / _EXPF_N ** 3, _H("0x1.ebfce50fac4f3p-3") / _EXPF_N ** 2,
           _H("0x1.62e42ff0c52d6p-1") / _EXPF_N)


def expf(x):
    """glibc's expf on a float32 array (its FMA build, as x86-64 runs it): x / ln 2 split
    into k / 32 + r, 2**(k/32) from the table, a degree-3 polynomial in r, all in double,
    rounded once to float. Used where ATen's scalar kernels call std::exp on a float."""
    fma = fused_multiply_add
    x = np.asarray(x, dtype=F32)
    with np.errstate(all="ignore"):
        xd = np.where(np.isfinite(x) & (np.abs(x) < 200), x, 0).astype(np.float64)
        kd = fma(_EXPF_INV_LN2N, xd, _EXPF_SHIFT)
        ki = kd.view(np.uint64)
        kd = kd - _EXPF_SHIFT
        r = fma(_EXPF_INV_LN2N, xd, -kd)
        s = (_EXPF_TABLE[ki % np.uint64(_EXPF_N)] + (ki << np.uint64(47))).view(np.float64)
        z = fma(_EXPF_C[0], r, _EXPF_C[1])
        y = fma(_EXPF_C[2], r, 1.0)
        y = fma(z, r * r, y)
        out = (y * s).astype(F32)
        out = np.where(x > F32(_H("0x1.62e42ep6")), F32(np.inf), out)
        out = np.where(x < F32(_H("-0x1.9fe368p6")), F32(0), out)
        return np.where(np.isnan(x), x, out)


# =======================================================================================
# exact arithmetic ATen's compiled kernels do
def fused_multiply_add(a, b, c):
    """a * b + c rounded once, in float64 (an exact product and sum, their low part added
    rounded to odd so that the final rounding is the only one)."""
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    if b.ndim == 0 and b == 1:
        return a + c  # one rounding already
    with np.errstate(invalid="ignore", over="ignore"):
        product = a * b
        split = 134217729.0  # 2**27 + 1
        a_high = a * split - (a * split - a)
        b_high = b * split - (b * split - b)
        product_low = (((a_high * b_high - product) + a_high * (b - b_high)) + (a - a_high) * b_high) \
            + (a - a_high) * (b - b_high)
        total = product + c
        back = total - product
        total_low = (product - (total - back)) + (c - back)
        fused = total + _sum_rounded_to_odd(total_low, product_low)
    unusual = ~np.isfinite(fused)  # infinities (and splits of huge values) defeat the exact parts:
    if unusual.any():  # there the plain result is the fused one, but for an overflow in between
        fused = np.where(unusual, total, fused)
    return fused


def _sum_rounded_to_odd(x, y):
    total = x + y
    back = total - x
    error = (x - (total - back)) + (y - back)
    even = (total.view(np.int64) & 1) == 0
    nudge = (error != 0) & even & np.isfinite(total)
    if np.any(nudge):
        total = np.where(nudge, np.nextafter(total, np.where(error > 0, np.inf, -np.inf)), total)
    return total


_FLOAT_TIE_BITS = np.uint64((1 << 29) - 1)  # the float64 mantissa bits below float32's
_FLOAT_TIE = np.uint64(1 << 28)


def fused_multiply_add32(a, b, c):
    """a * b + c rounded once to float32. The float64 product is exact and the float64 sum
    rounds once; rounding that to float32 can only go wrong where it landed exactly halfway
    between two floats, and those few are redone from the sum rounded to odd."""
    a, b, c = (np.asarray(x, dtype=np.float32).astype(np.float64) for x in (a, b, c))
    product = a * b
    total = product + c
    result = total.astype(np.float32)
    halfway = (total.view(np.uint64) & _FLOAT_TIE_BITS) == _FLOAT_TIE
    if halfway.any():
        where = np.nonzero(halfway)
        exact = _sum_rounded_to_odd(product[where], np.broadcast_to(c, product.shape)[where])
        result[where] = exact.astype(np.float32)
    return result
