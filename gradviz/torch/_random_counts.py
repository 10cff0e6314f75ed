"""PyTorch's CPU samplers that draw a varying number of numbers per element, bit for bit:
ATen's sample_gamma (behind torch._standard_gamma and torch._sample_dirichlet),
sample_poisson (torch.poisson) and sample_binomial (torch.binomial).

ATen runs them element after element (cpu_serial_kernel, in the output's memory order),
each element reading 53-bit uniforms (``at::uniform_real_distribution<double>``) and
standard normals (the scalar ``at::normal_distribution<double>``, whose Box-Muller pair
leaves its second normal in the generator's cache) as its rejection loop asks. So the draws
are read one at a time here, from a cursor over the Mersenne Twister's current block.
Distributions.cpp is compiled for plain x86-64 (no fused multiply-adds), and its math is
the C library's (Python's ``math`` calls the same functions).
"""
import math

import numpy as np

from . import _errors_random as ER
from ._kernels_reduce import cascade_sum
from ._libm import log1pf
from ._random import WORDS, _next_block, _tempered, default_generator

_FLOAT_1_3 = float(np.float32(1.0) / np.float32(3.0))  # 1.0f / 3.0f, a float constant
_FLOAT_0_0331 = float(np.float32(0.0331))  # 0.0331f


class ScalarStream:
    """One draw at a time from a generator: 32-bit words of its Mersenne Twister, the 53-bit
    uniforms made of two of them, and the scalar normal sampler with its cached second
    normal. The engine's state moves with every word read, so other samplers go on from
    here as ATen's would."""

    __slots__ = ("generator", "engine", "block", "tempered")

    def __init__(self, generator):
        self.generator = generator or default_generator
        self.engine = self.generator.engine
        self.block = None
        self.tempered = None

    def word(self):
        engine = self.engine
        if engine.left <= 1 or engine.next >= WORDS:
            engine.words = _next_block(engine.words)
            engine.next = 0
            engine.left = WORDS + 1
        if self.block is not engine.words:
            self.block = engine.words
            self.tempered = _tempered(engine.words).tolist()
        value = self.tempered[engine.next]
        engine.next += 1
        engine.left -= 1
        return value

    def uniform(self):
        """at::uniform_real_distribution<double>(0, 1): the low 53 bits of a 64-bit draw."""
        high = self.word()
        low = self.word()
        return (((high << 32) | low) & ((1 << 53) - 1)) * 2.0 ** -53

    def normal(self):
        """at::normal_distribution<double>(0, 1): the cached normal if there is one, else a
        Box-Muller pair whose sine half is cached."""
        generator = self.generator
        if generator.next_double_normal is not None:
            cached = generator.next_double_normal
            generator.next_double_normal = None
            return cached
        u1 = self.uniform()
        u2 = self.uniform()
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        generator.next_double_normal = radius * math.sin(theta)
        return radius * math.cos(theta)


# =======================================================================================
# gamma
def sample_gamma(alpha, stream, single):
    """ATen's sample_gamma for one concentration (Marsaglia and Tsang, boosted below 1):
    ``alpha`` in the input's precision (``single`` for float32, whose arithmetic on it
    stays float32 as in the C++), the rest in double."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        exponent = float(np.float32(1.0) / np.float32(alpha)) if single else 1.0 / alpha
        scale *= _pow(1 - stream.uniform(), exponent)
        alpha = float(np.float32(alpha) + np.float32(1.0)) if single else alpha + 1.0
    d = float(np.float32(alpha) - np.float32(_FLOAT_1_3)) if single else alpha - _FLOAT_1_3
    c = _divide(1.0, _sqrt(9.0 * d))
    while True:
        while True:
            x = stream.normal()
            y = 1.0 + c * x
            if not y <= 0:  # C's do-while (y <= 0): a NaN ends it too
                break
        v = y * y * y
        u = 1 - stream.uniform()
        xx = x * x
        if u < 1.0 - _FLOAT_0_0331 * xx * xx:
            return scale * d * v
        if _log(u) < 0.5 * xx + d * (1.0 - v + _log(v)):
            return scale * d * v


def _log(x):
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _pow(base, exponent):
    try:
        return math.pow(base, exponent)
    except (ValueError, OverflowError):  # C's pow gives NaN or inf where Python's raises
        return float(np.power(np.float64(base), np.float64(exponent)))


def _sqrt(x):
    """C's sqrt: NaN below 0 (an invalid concentration), where Python's raises."""
    return math.sqrt(x) if x >= 0 else math.nan


def _divide(a, b):
    """IEEE division: a zero divisor gives an infinity or NaN, as in C."""
    return a / b if b else float(np.divide(np.float64(a), np.float64(b)))


def standard_gamma(generator, alpha):
    """torch._standard_gamma on a contiguous float array: one sample_gamma per element, cast
    to the dtype and kept at least its smallest normal number."""
    stream = ScalarStream(generator)
    dtype = alpha.dtype
    single = dtype == np.float32
    tiny = float(np.finfo(dtype).tiny)
    flat = alpha.reshape(-1).tolist()
    out = np.empty(len(flat), dtype=dtype)
    for i, a in enumerate(flat):
        value = dtype.type(sample_gamma(a, stream, single))
        out[i] = value if tiny < value else tiny  # std::max(tiny, value): NaN becomes tiny
    return out.reshape(alpha.shape)


def sample_dirichlet(generator, alpha):
    """torch._sample_dirichlet: double gammas (the concentrations cast to double), divided by
    their sum along the last dim, then cast and clamped into [tiny, 1)."""
    stream = ScalarStream(generator)
    dtype = alpha.dtype
    tiny = float(np.finfo(np.float64).tiny)
    flat = alpha.astype(np.float64).reshape(-1).tolist()
    gammas = np.array([_at_least(tiny, sample_gamma(a, stream, False)) for a in flat], dtype=np.float64)
    gammas = gammas.reshape(alpha.shape)
    total = _sum_last(gammas)
    out = (gammas / total).astype(dtype)
    below_one = np.nextafter(dtype.type(1), dtype.type(0))
    tiny_out = dtype.type(np.finfo(dtype).tiny)
    out = np.where(tiny_out < out, out, tiny_out)  # std::max and std::min: NaN gives way
    return np.where(out < below_one, out, below_one)


def _at_least(low, value):
    """std::max(low, value): ``low`` unless ``value`` is larger (so NaN gives ``low``)."""
    return value if low < value else low


def _sum_last(values):
    """gamma.sum(-1, keepdim=True), in ATen's order of additions (a 0-d tensor is its own sum)."""
    return cascade_sum(values, axis=-1, keepdims=True) if values.ndim else values


# =======================================================================================
# poisson
def _int64_floor(value):
    """(int64_t) std::floor(value): x86's conversion gives INT64_MIN where it cannot hold it."""
    if math.isfinite(value) and -2.0 ** 63 <= value < 2.0 ** 63:
        return math.floor(value)
    return -2 ** 63


def _sample_poisson_one(lam, stream):
    """ATen's sample_poisson: the product of uniforms below 10, Hoermann's transformed
    rejection (PTRS) from 10 on."""
    if not lam >= 0:
        raise ER.poisson_rate()
    if lam >= 10:
        slam = math.sqrt(lam)
        loglam = math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = stream.uniform() - 0.5
            v = stream.uniform()
            us = 0.5 - abs(u)
            k = _int64_floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (_log(v) + math.log(invalpha) - math.log(a / (us * us) + b)) <= (
                    -lam + k * loglam - math.lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    count = 0
    product = 1.0
    while True:
        product *= stream.uniform()
        if product > enlam:
            count += 1
        else:
            return count


def poisson(generator, rates):
    """torch.poisson on a contiguous float array (rates already checked non-negative)."""
    stream = ScalarStream(generator)
    flat = rates.astype(np.float64).reshape(-1).tolist()
    counts = [_sample_poisson_one(lam, stream) for lam in flat]
    return np.array(counts, dtype=np.float64).astype(rates.dtype).reshape(rates.shape)


# =======================================================================================
# binomial (TensorFlow's BTRS and inversion, as ATen adapts them)
_STIRLING_TAILS = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                   0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                   0.00925546218271273, 0.00833056343336287)


def _stirling_approx_tail(k):
    """log(k!) minus Stirling's approximation: a table below 10, its series above."""
    if k < len(_STIRLING_TAILS):
        return _STIRLING_TAILS[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


class _Arithmetic:
    """The scalar_t arithmetic of ATen's binomial sampler: float32 rounds each step (and
    std::sqrt / std::log1p of a float are the float functions), double does not."""

    def __init__(self, single):
        self.single = single

    def __call__(self, value):
        return float(np.float32(value)) if self.single else value

    def sqrt(self, value):
        return float(np.sqrt(np.float32(value))) if self.single else math.sqrt(value)

    def log1p(self, value):
        return float(log1pf(np.float32(value))) if self.single else math.log1p(value)


def _binomial_inversion(count, prob, stream, t):
    geom_sum = 0.0
    num_geom = 0.0
    logprob = t.log1p(-prob)
    while True:
        geom = math.ceil(_log(stream.uniform()) / logprob)
        geom_sum += geom
        if geom_sum > count:
            return num_geom
        num_geom = t(num_geom + 1)


def _btrs(count, prob, stream, t):
    """Hoermann's transformed rejection with squeeze; each step's precision as in the C++."""
    stddev = t.sqrt(t(t(count * prob) * t(1 - prob)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = t(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = t(prob / t(1 - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(t(t(count + 1) * prob))
    while True:
        u = stream.uniform() - 0.5
        v = stream.uniform()
        us = 0.5 - abs(u)
        k = t(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = _log(v * alpha / (a / (us * us) + b))
        count_left = t(t(count - k) + 1)
        upperbound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                      + t(count + 1) * math.log((count - m + 1) / count_left)
                      + (k + 0.5) * math.log(r * count_left / t(k + 1))
                      + _stirling_approx_tail(m) + _stirling_approx_tail(count - m)
                      - _stirling_approx_tail(k) - _stirling_approx_tail(t(count - k)))
        if v <= upperbound:
            return k


def _sample_binomial_one(count, prob, stream, t):
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if t(count * prob) >= 10.0:
            return _btrs(count, prob, stream, t)
        return _binomial_inversion(count, prob, stream, t)
    if prob > 0.5:
        qprob = t(1.0 - prob)
        if t(count * qprob) >= 10.0:
            return t(count - _btrs(count, qprob, stream, t))
        return t(count - _binomial_inversion(count, qprob, stream, t))
    return math.nan


def binomial(generator, count, prob):
    """torch.binomial on broadcast float arrays of one dtype, in memory order."""
    stream = ScalarStream(generator)
    t = _Arithmetic(count.dtype == np.float32)
    count, prob = np.broadcast_arrays(count, prob)
    pairs = zip(count.reshape(-1).tolist(), prob.reshape(-1).tolist())
    values = [_sample_binomial_one(n, p, stream, t) for n, p in pairs]
    return np.array(values, dtype=np.float64).astype(count.dtype).reshape(count.shape)
