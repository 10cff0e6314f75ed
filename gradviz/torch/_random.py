"""PyTorch's CPU random numbers, bit for bit: the Mersenne Twister behind ``torch.Generator``
and each distribution's transformation of its draws, on numpy.

PyTorch's CPU generator is a 32-bit MT19937 seeded with the low 32 bits of the seed; a
64-bit draw is two 32-bit draws, the first one high. Every distribution reads the stream
in the order ATen's kernel does (one element after another, in memory order), so the
values here are PyTorch's on an x86-64 CPU with AVX2, where PyTorch runs these kernels.
ATen's kernels are compiled with floating-point contraction, so ``a * b + c`` in them is
one fused multiply-add: ``_libm.fused_multiply_add`` rounds once, as the hardware does.

Where the numbers can differ from PyTorch's:
- on Intel CPUs PyTorch draws ``bernoulli_(p)`` for a number p (and so dropout masks) from
  MKL's own stream, seeded with one 32-bit draw; this is the stream PyTorch uses elsewhere;
- float32 normals of 16 or more elements follow the AVX2 kernel (x86-64); on other CPUs
  PyTorch's C library float functions give other last bits;
- float64 transformations call the C library's log, sin, cos, tan and exp through Python's
  ``math``, as ATen calls them: the same bits where PyTorch runs on the same C library;
- PyTorch seeds its default generator from /dev/urandom; this one starts where a new
  ``torch.Generator()`` starts, so runs repeat.
"""
import math
import os

import ml_dtypes
import numpy as np

from . import _errors, _kernels
from ._device import CPU
from ._libm import fused_multiply_add, fused_multiply_add32
from ._namespace import F

WORDS = 624
SHIFT = 397
DEFAULT_SEED = 67280421310721
STATE_BYTES = 5056

_UPPER_BIT = np.uint32(0x80000000)
_LOWER_BITS = np.uint32(0x7FFFFFFF)
_MATRIX_A = np.uint32(0x9908B0DF)

# torch.get_rng_state()'s bytes: ATen's legacy generator record (its state words stored as
# 64-bit integers, three doubles of an old normal sampler of which only one is still read),
# then the float normal cache. Padding bytes are zero.
STATE_LAYOUT = np.dtype({
    "names": ["seed", "left", "seeded", "next", "words", "normal_x", "normal_y", "normal_rho",
              "normal_is_valid", "next_float_normal", "float_normal_is_valid"],
    "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", WORDS), "<f8", "<f8", "<f8", "<i4", "<f4", "u1"],
    "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
    "itemsize": STATE_BYTES})


# =======================================================================================
# the engine
def _seeded_words(seed):
    words = [seed & 0xFFFFFFFF]
    for j in range(1, WORDS):
        previous = words[-1]
        words.append((1812433253 * (previous ^ (previous >> 30)) + j) & 0xFFFFFFFF)
    return np.array(words, dtype=np.uint32)


def _twisted(u, v):
    mixed = (u & _UPPER_BIT) | (v & _LOWER_BITS)
    return (mixed >> np.uint32(1)) ^ ((v & np.uint32(1)) * _MATRIX_A)


def _next_block(words):
    """The next 624 state words. Word i becomes word i + 397 (already renewed from i = 227
    on) xor a twist of the old words i and i + 1, so the twists are computed at once and the
    renewal goes in three slices whose inputs are known."""
    twists = _twisted(words[:-1], words[1:])
    new = np.empty_like(words)
    span = WORDS - SHIFT
    new[:span] = words[SHIFT:] ^ twists[:span]
    new[span:2 * span] = new[:span] ^ twists[span:2 * span]
    new[2 * span:WORDS - 1] = new[span:SHIFT - 1] ^ twists[2 * span:]
    new[WORDS - 1] = new[SHIFT - 1] ^ _twisted(words[WORDS - 1:], new[:1])[0]
    return new


def _tempered(y):
    y = y ^ (y >> np.uint32(11))
    y = y ^ ((y << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = y ^ ((y << np.uint32(15)) & np.uint32(0xEFC60000))
    return y ^ (y >> np.uint32(18))


class MersenneTwister:
    """ATen's mt19937: ``left`` counts down to the next twist, ``next`` is the word to hand
    out; ``left - 1`` words of the current block are still unused."""

    __slots__ = ("seed", "words", "left", "next")

    def __init__(self, seed=5489):
        self.reseed(seed)

    def reseed(self, seed):
        self.seed = seed
        self.words = _seeded_words(seed)
        self.left = 1
        self.next = 0

    def take32(self, n):
        """The next ``n`` 32-bit draws, as uint32."""
        parts = []
        ready = min(self.left - 1, n, WORDS - self.next)
        if ready > 0:
            parts.append(self.words[self.next:self.next + ready])
            self.next += ready
            self.left -= ready
            n -= ready
        while n > 0:
            self.words = _next_block(self.words)
            count = min(WORDS, n)
            parts.append(self.words[:count])
            self.next = count
            self.left = WORDS + 1 - count
            n -= count
        if not parts:
            return np.zeros(0, dtype=np.uint32)
        return _tempered(np.concatenate(parts) if len(parts) > 1 else parts[0].copy())

    def take64(self, n):
        """The next ``n`` 64-bit draws: two 32-bit draws each, the first one high."""
        pairs = self.take32(2 * n).astype(np.uint64)
        return (pairs[0::2] << np.uint64(32)) | pairs[1::2]


# =======================================================================================
# torch.Generator
def _seed_value(seed):
    """A seed as PyTorch's Generator.manual_seed reads it: an integer taken as uint64, a
    negative one in two's complement."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise _errors.seed_type(type(seed).__name__)
    seed = int(seed)
    if not -2 ** 63 <= seed < 2 ** 64:
        raise _errors.seed_overflow()
    return seed % 2 ** 64


class Generator:
    """torch.Generator on the CPU: PyTorch's Mersenne Twister with its caches of the second
    normal of a Box-Muller pair (one for double draws, one for float)."""
    __module__ = "torch._C"  # prints as PyTorch's: <torch._C.Generator object at 0x...>

    def __init__(self, device="cpu"):
        self.engine = MersenneTwister(DEFAULT_SEED)
        self.next_double_normal = None
        self.next_float_normal = None

    @property
    def device(self):
        return CPU

    def manual_seed(self, seed):
        self.engine.reseed(_seed_value(seed))
        self.next_double_normal = None
        self.next_float_normal = None
        return self

    def seed(self):
        fresh = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(fresh)
        return fresh

    def initial_seed(self):
        return self.engine.seed

    def get_offset(self):
        raise _errors.generator_offset()

    def set_offset(self, offset):
        raise _errors.generator_offset()

    def get_state(self):
        return F.from_numpy(state_bytes(self))

    def set_state(self, new_state):
        if not F.is_tensor(new_state):
            raise _errors.rng_state_type(type(new_state).__name__)
        if new_state._data.dtype != np.uint8:
            raise _errors.rng_state_dtype()
        load_state_bytes(self, np.ascontiguousarray(new_state._data).reshape(-1))
        return self

    def clone_state(self):
        twin = Generator()
        load_state_bytes(twin, state_bytes(self))
        return twin

    def __reduce__(self):
        # PyTorch rebuilds through torch._C.Generator; this class is not importable under
        # that name, so a module function rebuilds it (copy and pickle behave the same).
        return (_restored, (self.initial_seed(), state_bytes(self)))


def _restored(seed, raw):
    generator = Generator().manual_seed(seed)
    load_state_bytes(generator, np.asarray(raw, dtype=np.uint8))
    return generator


def state_bytes(generator):
    """The 5056 bytes torch.get_rng_state() gives for this generator's state."""
    engine = generator.engine
    record = np.zeros((), dtype=STATE_LAYOUT)
    record["seed"] = engine.seed
    record["left"] = engine.left
    record["seeded"] = 1
    record["next"] = engine.next
    record["words"] = engine.words
    if generator.next_double_normal is not None:
        record["normal_is_valid"] = 1
        record["normal_y"] = generator.next_double_normal
    if generator.next_float_normal is not None:
        record["float_normal_is_valid"] = 1
        record["next_float_normal"] = generator.next_float_normal
    return np.frombuffer(record.tobytes(), dtype=np.uint8).copy()


def load_state_bytes(generator, raw):
    if raw.size != STATE_BYTES:
        raise _errors.rng_state_size(STATE_BYTES, raw.size)
    record = np.frombuffer(raw.tobytes(), dtype=STATE_LAYOUT)[0]
    left, next_word = int(record["left"]), int(record["next"]) & 0xFFFFFFFF
    if not (record["seeded"] != 0 and 0 < left <= WORDS and next_word <= WORDS):
        raise _errors.rng_state_invalid()
    engine = generator.engine
    engine.seed = int(record["seed"])
    engine.words = record["words"].astype(np.uint32)  # the record keeps each word in 64 bits
    engine.left, engine.next = left, next_word
    generator.next_double_normal = float(record["normal_y"]) if record["normal_is_valid"] else None
    generator.next_float_normal = np.float32(record["next_float_normal"]) if record["float_normal_is_valid"] \
        else None


# PyTorch seeds its default generator from /dev/urandom; gradviz starts it where a fresh
# torch.Generator() starts, so runs repeat (``gradviz run`` seeds it with 0 anyway).
default_generator = Generator()


def engine_of(generator):
    return (generator or default_generator).engine


def _map(function, values):
    """``function`` of each element, through the C library's math as ATen calls it."""
    flat = np.asarray(values, dtype=np.float64).ravel().tolist()
    return np.fromiter(map(function, flat), dtype=np.float64, count=len(flat)).reshape(np.shape(values))


def _log(x):
    """log, tolerating 0 as C does."""
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


# =======================================================================================
# uniform reals (ATen's uniform_real_distribution): 24 random bits for float, 53 for double
def _part_dtype(complex_dtype):
    return np.dtype(np.float32 if complex_dtype == np.complex64 else np.float64)


def standard_uniform64(engine, n):
    return (engine.take64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53


def standard_uniform32(engine, n):
    return (engine.take32(n) & np.uint32((1 << 24) - 1)).astype(np.float32) * np.float32(2.0 ** -24)


def uniform(generator, n, dtype, low=0.0, high=1.0):
    """``n`` draws of tensor.uniform_(low, high) in ``dtype`` (float16 is drawn in float)."""
    _kernels.check_allocation(n, dtype)  # refused at once, as PyTorch refuses it
    engine = engine_of(generator)
    dtype = np.dtype(dtype)
    if dtype.kind == "c":  # ATen fills the real view: real and imaginary parts in turn
        return uniform(generator, 2 * n, _part_dtype(dtype), low, high).view(dtype)
    if dtype == np.float64:
        values = fused_multiply_add(standard_uniform64(engine, n), np.float64(high) - np.float64(low), low)
    else:
        low32, high32 = np.float32(low), np.float32(high)
        values = fused_multiply_add32(standard_uniform32(engine, n), high32 - low32, low32)
    values = values.astype(dtype)
    # A value rounded up to the upper bound by the cast is moved to the lower bound.
    return np.where(values == dtype.type(high), dtype.type(low), values)


# =======================================================================================
# normals
def standard_normal_pairs(generator, n):
    """``n`` standard normals as ATen's scalar normal_distribution<double> gives them: one
    Box-Muller pair per two 53-bit uniforms, the second of a pair kept for the next call."""
    generator = generator or default_generator
    out = np.empty(n, dtype=np.float64)
    start = 0
    if n and generator.next_double_normal is not None:
        out[0] = generator.next_double_normal
        generator.next_double_normal = None
        start = 1
    pairs = (n - start + 1) // 2
    if pairs:
        u = standard_uniform64(generator.engine, 2 * pairs)
        radius = np.sqrt(-2.0 * _map(math.log1p, -u[1::2]))
        theta = (2.0 * math.pi) * u[0::2]
        both = np.empty(2 * pairs, dtype=np.float64)
        both[0::2] = radius * _map(math.cos, theta)
        both[1::2] = radius * _map(math.sin, theta)
        out[start:] = both[:n - start]
        if (n - start) % 2:
            generator.next_double_normal = float(both[-1])
    return out


def _box_muller_blocks_double(uniforms, mean, std):
    """ATen's normal_fill_16 on float64: per 16 uniforms, the first 8 give radii, the last 8 angles."""
    blocks = uniforms.reshape(-1, 2, 8)
    radius = np.sqrt(-2 * _map(math.log, 1 - blocks[:, 0]))  # 1 - u is in (0, 1]
    theta = (2.0 * math.pi) * blocks[:, 1]
    out = np.empty_like(blocks)
    out[:, 0] = fused_multiply_add(radius * _map(math.cos, theta), std, mean)
    out[:, 1] = fused_multiply_add(radius * _map(math.sin, theta), std, mean)
    return out.reshape(-1)


def _box_muller_blocks_float(uniforms, mean, std):
    """The AVX2 normal_fill_16 on float32, with its polynomial log, sine and cosine."""
    blocks = uniforms.reshape(-1, 2, 8)
    radius = np.sqrt(np.float32(-2.0) * _log256(np.float32(1.0) - blocks[:, 0]))
    sine, cosine = _sincos256(np.float32(2.0 * math.pi) * blocks[:, 1])
    out = np.empty_like(blocks)
    out[:, 0] = fused_multiply_add32(radius * cosine, std, mean)
    out[:, 1] = fused_multiply_add32(radius * sine, std, mean)
    return out.reshape(-1)


def normal(generator, n, dtype, mean=0.0, std=1.0, contiguous=True):
    """``n`` draws of tensor.normal_(mean, std): 16 or more elements of a contiguous tensor
    take ATen's block Box-Muller (the last block recomputed from 16 fresh draws); others
    take the scalar sampler with its cached second normal."""
    _kernels.check_allocation(n, dtype)  # refused at once, as PyTorch refuses it
    dtype = np.dtype(dtype)
    if dtype.kind == "c":  # the real view, each part with half the variance
        return normal(generator, 2 * n, _part_dtype(dtype), mean, std / math.sqrt(2), contiguous).view(dtype)
    if n >= 16 and contiguous:
        engine = engine_of(generator)
        wide = dtype == np.float64
        draw = standard_uniform64 if wide else standard_uniform32
        blocks = _box_muller_blocks_double if wide else _box_muller_blocks_float
        whole = n // 16 * 16
        if dtype == np.float16 or dtype.kind == "V":  # half types (V: bfloat16)
            # drawn in float 16 at a time into a buffer: no uniforms for the part the
            # recomputed last block overwrites
            data = np.empty(n, dtype=np.float32)
            data[:whole] = blocks(draw(engine, whole), mean, std)
        else:
            data = draw(engine, n)
            data[:whole] = blocks(data[:whole], mean, std)
        if n % 16:
            data[n - 16:] = blocks(draw(engine, 16), mean, std)
        return data.astype(dtype)
    return fused_multiply_add(standard_normal_pairs(generator, n), std, mean).astype(dtype)


# The AVX2 log and sincos of avx_mathfun.h (Cephes' polynomials), step by step in float32,
# with the fused multiply-adds the compiler makes of them.
_F = np.float32
_fma = fused_multiply_add32
_LOG_POLYNOMIAL = tuple(_F(c) for c in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                                        1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                                        3.3333331174E-1))


def _log256(x):
    invalid = x <= 0
    x = np.maximum(x, np.uint32(0x00800000).view(np.float32))
    bits = x.view(np.uint32)
    exponent = (bits >> np.uint32(23)).astype(np.int32) - 0x7F
    x = ((bits & np.uint32(0x807FFFFF)) | np.float32(0.5).view(np.uint32)).view(np.float32)
    e = exponent.astype(np.float32) + _F(1)
    below = x < _F(0.707106781186547524)
    x = (x - _F(1)) + np.where(below, x, _F(0))
    e = e - np.where(below, _F(1), _F(0))
    z = x * x
    y = np.full_like(x, _LOG_POLYNOMIAL[0])
    for coefficient in _LOG_POLYNOMIAL[1:]:
        y = _fma(y, x, coefficient)
    y = _fma(y * x, z, e * _F(-2.12194440e-4))
    y = _fma(-z, _F(0.5), y)
    x = _fma(e, _F(0.693359375), x + y)
    return np.where(invalid, np.float32(np.nan), x)


def _sincos256(x):
    sign_sine = x.view(np.uint32) & _UPPER_BIT
    x = np.abs(x)
    octant = (x * _F(1.27323954473516)).astype(np.int32)
    octant = (octant + 1) & ~1
    y = octant.astype(np.float32)
    sine_swap = ((octant & 4) << 29).astype(np.uint32)
    use_sine_polynomial = (octant & 2) == 0
    x = _fma(y, _F(-0.78515625), x)
    x = _fma(y, _F(-2.4187564849853515625e-4), x)
    x = _fma(y, _F(-3.77489497744594108e-8), x)
    sign_cosine = ((~(octant - 2) & 4) << 29).astype(np.uint32)
    sign_sine = sign_sine ^ sine_swap
    z = x * x
    cosine = _fma(np.full_like(z, _F(2.443315711809948E-005)), z, _F(-1.388731625493765E-003))
    cosine = _fma(cosine, z, _F(4.166664568298827E-002))
    cosine = _fma(cosine * z, z, -(z * _F(0.5))) + _F(1)
    sine = _fma(np.full_like(z, _F(-1.9515295891E-4)), z, _F(8.3321608736E-3))
    sine = _fma(sine, z, _F(-1.6666654611E-1))
    sine = _fma(sine * z, x, x)
    picked_sine = np.where(use_sine_polynomial, sine, _F(0))
    picked_cosine = np.where(use_sine_polynomial, _F(0), cosine)
    sine_out = ((picked_cosine + picked_sine).view(np.uint32) ^ sign_sine).view(np.float32)
    cosine_out = (((cosine - picked_cosine) + (sine - picked_sine)).view(np.uint32) ^ sign_cosine).view(np.float32)
    return sine_out, cosine_out



# =======================================================================================
# the other distributions (each a transformation of one 53-bit uniform per element)
def scale_and_shift(standard, shape, std, mean, dtype):
    """ATen's normal(mean, std) with a tensor std: normal(0, 1) samples, then mul_(std), then
    add_(mean), each rounded to the output's dtype."""
    out = (standard.reshape(shape) * std).astype(dtype)
    return (out + (mean if isinstance(mean, np.ndarray) else np.dtype(dtype).type(mean))).astype(dtype)


def bernoulli_scalar(generator, n, p):
    """tensor.bernoulli_(p) for a number p: a 53-bit uniform below p."""
    return standard_uniform64(engine_of(generator), n) < p


def bernoulli_tensor(generator, probabilities):
    """tensor.bernoulli_(p) for a tensor p, given p's values in drawing order: float64
    probabilities compare with a 53-bit uniform, others with a 24-bit float one."""
    engine = engine_of(generator)
    if probabilities.dtype == np.float64:
        return standard_uniform64(engine, probabilities.size) < probabilities
    return standard_uniform32(engine, probabilities.size) < probabilities.astype(np.float32)


def exponential(generator, n, lambd):
    u = standard_uniform64(engine_of(generator), n)
    return (-1.0 / lambd) * _map(math.log1p, -u)


def cauchy(generator, n, median, sigma):
    u = standard_uniform64(engine_of(generator), n)
    return fused_multiply_add(sigma, _map(math.tan, math.pi * (u - 0.5)), median)


def log_normal(generator, n, mean, std):
    return _map(math.exp, fused_multiply_add(standard_normal_pairs(generator, n), std, mean))


def geometric(generator, n, p):
    u = standard_uniform64(engine_of(generator), n)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.ceil(_map(_log, u) / math.log1p(-p))


# =======================================================================================
# integers
_DEFAULT_RANGE = {np.dtype(np.float64): (True, 2 ** 53 + 1), np.dtype(np.float32): (False, 2 ** 24 + 1),
                  np.dtype(np.float16): (False, 2 ** 11 + 1), np.dtype(np.int64): (True, 2 ** 63),
                  np.dtype(np.int32): (False, 2 ** 31), np.dtype(np.int16): (False, 2 ** 15),
                  np.dtype(np.int8): (False, 2 ** 7), np.dtype(np.uint8): (False, 2 ** 8),
                  np.dtype(np.bool_): (False, 2)}


def random_default(generator, n, dtype):
    """tensor.random_(): [0, 2**mantissa] for floats, [0, max] for integers."""
    wide, modulus = _DEFAULT_RANGE[np.dtype(dtype)]
    engine = engine_of(generator)
    draws = engine.take64(n) if wide else engine.take32(n).astype(np.uint64)
    return (draws % np.uint64(modulus)).astype(np.int64)


def random_range(generator, n, span, low):
    """tensor.random_(low, low + span): a draw modulo the span, 64 bits wide from 2**28 on.
    Values are int64 (to be cast to the tensor's dtype as C++ casts them)."""
    engine = engine_of(generator)
    if span >= 1 << 28:
        draws = engine.take64(n)
    else:
        draws = engine.take32(n).astype(np.uint64)
    return ((draws % np.uint64(span)).astype(np.uint64) + np.uint64(low % 2 ** 64)).view(np.int64)


def random_full_range(generator, n):
    """tensor.random_(-2**63, None): all 64 bits, read as int64."""
    return engine_of(generator).take64(n).view(np.int64)


def random_integers(generator, n, dtype, low, to):
    """``n`` draws of random_(low, to) as ``dtype`` (bounds already checked)."""
    _kernels.check_allocation(n, dtype)  # refused at once, as PyTorch refuses it
    bounds = random_bounds(dtype, low, to, warn=False)
    if n == 0:
        return np.zeros(0, dtype=dtype)
    if bounds is None:
        return random_full_range(generator, n).astype(dtype)
    low, span = bounds
    return random_range(generator, n, span, low).astype(dtype)



_LARGE_PERMUTATION = (2 ** 32 - 1) // 20


def permutation(generator, n):
    """torch.randperm(n): Fisher-Yates swapping position i with i + (draw mod (n - i));
    from n = 2**32 / 20 on, the inside-out variant with 64-bit draws."""
    engine = engine_of(generator)
    if n < _LARGE_PERMUTATION:
        order = list(range(n))
        offsets = (engine.take32(n - 1) % np.arange(n, 1, -1, dtype=np.uint32)).tolist() if n > 1 else []
        for i, offset in enumerate(offsets):
            j = i + offset
            order[i], order[j] = order[j], order[i]
        return np.array(order, dtype=np.int64)
    picks = (engine.take64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()
    order = [0] * n
    for i, j in enumerate(picks):
        order[i] = order[j]
        order[j] = i
    return np.array(order, dtype=np.int64)


def multinomial_with_replacement(generator, rows, samples):
    """torch.multinomial(p, k, replacement=True), k > 1: per row, a cumulative sum in the
    input's precision normalised by its total, then a binary search for each 53-bit uniform."""
    engine = engine_of(generator)
    out = np.empty((rows.shape[0], samples), dtype=np.int64)
    for r, row in enumerate(rows):
        cumulative = np.cumsum(row, dtype=row.dtype)
        cumulative = cumulative / cumulative[-1]
        cumulative[-1] = 1
        out[r] = np.searchsorted(cumulative.astype(np.float64), standard_uniform64(engine, samples), side="left")
    return out


# =======================================================================================
# bounds of random_ and randint (ATen's random_from_to_impl)
_C_TYPE_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
                 "int32": "int", "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
                 "float64": "double"}
_MANTISSA = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def random_bounds(dtype, low, to, warn=True):
    """(low, span) of the integers random_(low, to) draws for ``dtype``, or None for the
    whole int64 range; raises PyTorch's errors for bounds the dtype cannot hold."""
    dtype = np.dtype(dtype)
    digits = _MANTISSA.get(dtype.name)
    if to is not None:
        if not low < to:
            raise _errors.random_from_to(low, to)
        if digits:
            low, to = _update_from(dtype, low), _update_to(dtype, to)
            if not low < to:
                raise _errors.random_from_to_cast(low, to)
        _check_in_range(dtype, low, to - 1, warn)
        return low, (to - low) % 2 ** 64
    if low == -2 ** 63:
        return None
    if digits:
        to_inclusive = 1 << digits
        low = _update_from(dtype, low)
        if not low < to_inclusive:
            raise _errors.random_from_to_inclusive(low, to_inclusive)
    elif dtype == np.bool_:
        to_inclusive = 1
    else:
        to_inclusive = int(np.iinfo(dtype).max)
    _check_in_range(dtype, low, to_inclusive, warn)
    return low, (to_inclusive - low + 1) % 2 ** 64


def _update_from(dtype, low):
    """The closest ``low`` that casting to a float dtype keeps inside the range."""
    rounded = int(dtype.type(low + 1))
    if rounded < low:
        return rounded + (1 << ((abs(low + 1).bit_length() - 1) - _MANTISSA[dtype.name] + 1))
    return low


def _update_to(dtype, to):
    rounded = int(dtype.type(to - 1))
    if rounded >= to:
        return rounded - (1 << ((abs(to - 1).bit_length() - 1) - _MANTISSA[dtype.name] + 1))
    return to


def _check_in_range(dtype, low, to_inclusive, warn):
    name = _C_TYPE_NAMES.get(dtype.name, dtype.name)
    if dtype.kind in "fV":  # V: bfloat16, which numpy's finfo does not know
        info = ml_dtypes.finfo(dtype)
        lowest, highest = float(info.min), float(info.max)
    elif dtype == np.bool_:
        lowest, highest = 0, 1
    else:
        lowest, highest = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    for value, label in ((low, "from"), (to_inclusive, "to - 1")):
        if not lowest <= value <= highest:
            raise _errors.random_out_of_bounds(label, name)
    if warn and dtype.kind in "fV":
        digits = _MANTISSA[dtype.name]
        for value, label in ((low, "from"), (to_inclusive, "to - 1")):
            if value < -(1 << digits) or value > (1 << digits):
                _errors.warn_at_user(_errors.random_precision_warning(label, digits, name))


# =======================================================================================
def _visiting_axes(target):
    """The axes of ``target`` from the largest stride to the smallest: ATen's element order."""
    return sorted(range(target.ndim), key=lambda axis: -abs(target.strides[axis]) if target.shape[axis] > 1 else 0)


def in_visiting_order(target, values):
    """``values`` (shaped like ``target``) listed in the order ATen visits ``target``."""
    if target.ndim < 2 or target.flags.c_contiguous:
        return np.ascontiguousarray(values).reshape(-1)
    return np.ascontiguousarray(np.transpose(values, _visiting_axes(target))).reshape(-1)


def in_memory_order(target, values):
    """An array shaped like ``target`` holding ``values`` in the order ATen visits the
    elements of ``target``: increasing memory address (row-major when contiguous)."""
    values = np.asarray(values)
    if target.ndim < 2 or target.flags.c_contiguous:
        return values.reshape(target.shape)
    axes = _visiting_axes(target)
    out = np.empty(target.shape, dtype=values.dtype)
    out.transpose(axes)[...] = values.reshape([target.shape[axis] for axis in axes])
    return out
