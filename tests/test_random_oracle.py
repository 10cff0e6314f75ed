"""gradviz.torch's random numbers against real PyTorch's, bit for bit on the CPU.

Every test runs the same calls on both libraries from the same seed (or the same
torch.Generator seed) and compares the results exactly: dtype, shape and every bit of
every value, the generator state bytes, grad_fn names, and error types and messages.
Covered: seeding, the generator state (PyTorch's 5056-byte layout both ways), rand / randn
(the scalar sampler with its cached normal below 16 elements, the block sampler from 16 on),
randint, randperm, normal, bernoulli, multinomial, the _like factories, the in-place
fills, nn.init, module default initialisation, dropout, samplers and DataLoader shuffling,
interleavings of all of these, and a seeded training loop printing the same losses.
"""
import contextlib
import io
import math
import warnings

import numpy as np
import pytest

import gradviz.torch as G

torch = pytest.importorskip("torch")

SEEDS = [0, 1, 7, 42, 12345, 2 ** 32 + 5, 2 ** 63 - 1, 67280421310721, -1]
SIZES = [(), (1,), (2,), (15,), (16,), (17,), (31,), (33,), (1000,), (3, 5), (2, 3, 4), (4, 0), (7, 9)]


def numpy_of(x):
    """Tensors (of either library) as numpy arrays; containers element by element."""
    if isinstance(x, (G.Tensor, torch.Tensor)):
        return x.detach().numpy()
    if isinstance(x, (list, tuple)):
        return [numpy_of(v) for v in x]
    return x


def assert_same(ours, theirs):
    """Exactly the same: dtype and shape of tensors, and every bit of every value."""
    if isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)) and len(ours) == len(theirs), (ours, theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
        return
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, G.Tensor), type(ours)
        assert str(ours.dtype) == str(theirs.dtype)
        a, b = numpy_of(ours), numpy_of(theirs)
        assert a.shape == b.shape
        if not (a.tobytes() == np.ascontiguousarray(b).astype(a.dtype).tobytes() or np.array_equal(a, b)):
            bad = np.flatnonzero(a.ravel() != b.ravel())
            raise AssertionError(f"{bad.size} of {a.size} values differ, first at {bad[:5]}: "
                                 f"{a.ravel()[bad[:5]]} vs {b.ravel()[bad[:5]]}")
        return
    assert ours == theirs, (ours, theirs)


def both(fn, seed=0):
    """fn(T) for gradviz.torch and real torch, each run after T.manual_seed(seed)."""
    results = []
    for T in (G, torch):
        if seed is not None:
            T.manual_seed(seed)
        results.append(fn(T))
    return results


def check(fn, seed=0):
    ours, theirs = both(fn, seed)
    assert_same(ours, theirs)
    assert_same(G.get_rng_state(), torch.get_rng_state())
    return ours


def raised(fn):
    """(type name, message) of what fn raises, or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:  # noqa: BLE001 - any error is compared
        return type(e).__name__, str(e)
    return None


# =======================================================================================
# seeding and the generator state
@pytest.mark.parametrize("seed", SEEDS + [2 ** 64 - 1, -2 ** 63, True, 3.7])
def test_manual_seed_initial_seed_and_first_draws(seed):
    ours, theirs = both(lambda T: (T.initial_seed(), T.rand(3), T.randn(2)), seed)
    assert_same(ours, theirs)
    assert G.manual_seed(5) is G.default_generator
    assert torch.manual_seed(5) is torch.default_generator


@pytest.mark.parametrize("seed", [2 ** 64, -2 ** 63 - 1, 1.5, "3", None])
def test_generator_manual_seed_errors(seed):
    assert raised(lambda: G.Generator().manual_seed(seed)) == raised(lambda: torch.Generator().manual_seed(seed))


def test_generator_is_pytorchs():
    g, t = G.Generator(), torch.Generator()
    assert type(g).__name__ == type(t).__name__ and type(g).__module__ == type(t).__module__ == "torch._C"
    assert repr(g).startswith("<torch._C.Generator object at 0x")
    assert g.initial_seed() == t.initial_seed() == 67280421310721
    assert str(g.device) == str(t.device) == "cpu"
    assert g.manual_seed(3) is g
    assert_same(G.rand(4, generator=G.Generator()), torch.rand(4, generator=torch.Generator()))
    assert raised(g.get_offset) == raised(t.get_offset)
    assert raised(lambda: g.set_offset(1)) == raised(lambda: t.set_offset(1))


def test_seed_gives_a_fresh_64_bit_seed_that_restarts_the_stream():
    fresh = G.seed()
    assert 0 <= fresh < 2 ** 64 and G.initial_seed() == fresh
    ours = G.rand(5)
    torch.manual_seed(fresh)
    assert_same(ours, torch.rand(5))
    g = G.Generator()
    value = g.seed()
    assert g.initial_seed() == value and value != fresh


@pytest.mark.parametrize("seed", SEEDS[:5])
def test_state_bytes_are_pytorchs(seed):
    """After draws that leave the twister mid-block and a cached normal, the 5056 bytes agree."""
    def draws(T):
        return [T.get_rng_state(), T.randn(3), T.get_rng_state(), T.rand(700), T.get_rng_state(),
                T.randn(5, dtype=T.float64), T.get_rng_state()]
    check(draws, seed)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_states_saved_by_pytorch_load_into_gradviz_and_back(seed):
    torch.manual_seed(seed)
    torch.randn(7)  # leaves a cached normal
    torch.rand(100)
    state = torch.get_rng_state()
    expected = [torch.randn(3), torch.rand(5), torch.randint(0, 10, (4,))]
    G.set_rng_state(G.from_numpy(state.numpy().copy()))
    assert_same([G.randn(3), G.rand(5), G.randint(0, 10, (4,))], expected)
    # and the other way: gradviz's state restarts PyTorch's stream where gradviz's is
    G.manual_seed(seed + 1)
    G.randn(9)
    ours = G.get_rng_state()
    torch.set_rng_state(torch.from_numpy(ours.numpy().copy()))
    assert_same([G.randn(20), G.rand(3)], [torch.randn(20), torch.rand(3)])


def test_state_round_trips_and_generator_states():
    def run(T):
        g = T.Generator().manual_seed(11)
        T.randn(3, generator=g)
        saved = g.get_state()
        first = T.randn(5, generator=g)
        g.set_state(saved)
        again = T.randn(5, generator=g)
        default_saved = T.get_rng_state()
        a = T.rand(3)
        T.set_rng_state(default_saved)
        b = T.rand(3)
        twin = g.clone_state()
        return [first, again, a, b, T.rand(4, generator=twin), T.rand(4, generator=g), saved, g.get_state()]
    check(run)


def test_generator_pickles_and_deep_copies():
    import copy
    import pickle
    g = G.Generator().manual_seed(9)
    G.randn(1, generator=g)
    for twin in (copy.deepcopy(g), pickle.loads(pickle.dumps(g))):
        assert twin.initial_seed() == 9
        assert np.array_equal(twin.get_state().numpy(), g.get_state().numpy())
    t = torch.Generator().manual_seed(9)
    torch.randn(1, generator=t)
    assert_same(g.get_state(), t.get_state())


@pytest.mark.parametrize("bad", ["list", "float", "short", "invalid"])
def test_set_state_errors(bad):
    def make(T):
        return {"list": [1, 2], "float": T.zeros(5056), "short": T.zeros(10, dtype=T.uint8),
                "invalid": T.zeros(5056, dtype=T.uint8)}[bad]
    assert raised(lambda: G.Generator().set_state(make(G))) == raised(lambda: torch.Generator().set_state(make(torch)))
    assert raised(lambda: G.set_rng_state(make(G))) == raised(lambda: torch.set_rng_state(make(torch)))


def test_torch_random_module():
    def run(T):
        T.random.manual_seed(4)
        with T.random.fork_rng():
            inside = T.rand(3)
        return [T.random.initial_seed(), inside, T.rand(3), T.random.get_rng_state()]
    check(run)


# =======================================================================================
# factories
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", SIZES)
def test_rand(seed, size):
    check(lambda T: [T.rand(size), T.rand(*(size or [()]), dtype=T.float64), T.rand(size, dtype=T.float16)], seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", SIZES)
def test_randn(seed, size):
    check(lambda T: [T.randn(size), T.randn(*(size or [()]), dtype=T.float64), T.randn(size, dtype=T.float16)],
          seed)


@pytest.mark.parametrize("seed", [0, 3])
def test_randn_million(seed):
    check(lambda T: [T.randn(1_000_000), T.randn(1000, 1001, dtype=T.float64)[::97]], seed)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("n", [1, 3, 8, 9, 20])
def test_complex_rand_and_randn(dtype, n):
    check(lambda T: [T.randn(n, dtype=getattr(T, dtype)), T.rand(n, dtype=getattr(T, dtype)),
                     T.empty(n, dtype=getattr(T, dtype)).normal_(0.5, 3.0)], n)


def test_factory_keywords_and_sizes():
    check(lambda T: [T.rand(size=(2, 3)), T.randn(size=[4]), T.rand([2, 2]), T.randn(T.Size([3, 1])),
                     T.rand(2, requires_grad=True).requires_grad, T.randn(0)])


def test_out_variants():
    def run(T):
        outs = [T.empty(4), T.empty(2, dtype=T.float64), T.empty(3, dtype=T.int32), T.empty(5), T.empty(3),
                T.empty(0)]
        T.randn(4, out=outs[0])
        T.rand(3, out=outs[1])
        T.randint(0, 5, (3,), out=outs[2])
        T.randperm(5, out=outs[3])
        T.normal(T.zeros(3), 1.0, out=outs[4])
        T.normal(2.0, 0.5, (20,), out=outs[5])
        return outs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(run)


RANDINT_CALLS = [
    lambda T: T.randint(5, (2,)),
    lambda T: T.randint(2, 5, (20,)),
    lambda T: T.randint(high=5, size=(7,)),
    lambda T: T.randint(low=1, high=5, size=(3, 3)),
    lambda T: T.randint(5, size=(2,)),
    lambda T: T.randint(-100, 100, (50,)),
    lambda T: T.randint(0, 2 ** 28, (9,)),
    lambda T: T.randint(0, 2 ** 28 - 1, (9,)),
    lambda T: T.randint(-2 ** 40, 2 ** 40, (9,)),
    lambda T: T.randint(0, 5, (6,), dtype=T.float32),
    lambda T: T.randint(0, 5, (6,), dtype=T.float64),
    lambda T: T.randint(0, 100, (6,), dtype=T.int32),
    lambda T: T.randint(0, 100, (6,), dtype=T.int16),
    lambda T: T.randint(0, 200, (6,), dtype=T.uint8),
    lambda T: T.randint(-5, 5, (6,), dtype=T.int8),
    lambda T: T.randint(0, 2, (6,), dtype=T.bool),
    lambda T: T.randint(3, (0,)),
]


@pytest.mark.parametrize("call", range(len(RANDINT_CALLS)))
@pytest.mark.parametrize("seed", SEEDS[:4])
def test_randint(call, seed):
    check(RANDINT_CALLS[call], seed)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 100, 1000, 5000, 100_000])
@pytest.mark.parametrize("seed", SEEDS[:4])
def test_randperm(n, seed):
    check(lambda T: [T.randperm(n), T.randperm(n, dtype=T.int32), T.randperm(n, dtype=T.float64)], seed)


def _grad_fn_name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


NORMAL_CALLS = [
    lambda T: T.normal(2.0, 3.0, (3,)),
    lambda T: T.normal(2.0, 3.0, size=(40,)),
    lambda T: T.normal(-1.0, 0.5, (20,), dtype=T.float64),
    lambda T: T.normal(T.arange(5.0), 2.0),
    lambda T: T.normal(T.arange(40.0), 0.25),
    lambda T: T.normal(1.5, T.arange(1.0, 6.0)),
    lambda T: T.normal(1.5, T.arange(1.0, 41.0)),
    lambda T: T.normal(T.arange(6.0).reshape(2, 3), T.arange(1.0, 4.0)),
    lambda T: T.normal(T.zeros(3, dtype=T.float64), T.ones(3)),
    lambda T: T.normal(T.zeros(20), T.full((20,), 0.3, dtype=T.float64)),
    lambda T: T.normal(T.arange(4.0)),
]


@pytest.mark.parametrize("call", range(len(NORMAL_CALLS)))
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_normal_overloads(call, seed):
    check(NORMAL_CALLS[call], seed)


def test_normal_with_tensor_arguments_is_differentiable_with_zero_gradient():
    def run(T):
        mean = T.arange(3.0, requires_grad=True)
        std = T.ones(3, requires_grad=True)
        out = [T.normal(mean, 1.0), T.normal(1.0, std), T.normal(mean, std)]
        names = [_grad_fn_name(o) for o in out]
        sum(o.sum() for o in out).backward()
        return [out, names, mean.grad, std.grad]
    check(run)


def test_random_nodes_save_what_pytorchs_save():
    from oracle import saved_names

    def nodes(T):
        mean, std = T.zeros(2, 3, requires_grad=True), T.ones(3, requires_grad=True)
        x = T.ones(3, requires_grad=True) * 1
        fills = []
        for fill in ("uniform_", "normal_", "bernoulli_", "exponential_", "cauchy_", "log_normal_", "random_"):
            fills.append(getattr(x.clone(), fill)())
        fills.append(x.clone().geometric_(0.5))
        fills.append(x.clone().random_(5))
        fills.append(x.clone().random_(1, 5))
        fills.append(x.clone().bernoulli_(T.full((3,), 0.5, requires_grad=True)))
        made = [T.normal(mean, 1.0), T.normal(1.0, std), T.normal(mean, std),
                T.bernoulli(T.full((3,), 0.5, requires_grad=True))]
        return [t.grad_fn for t in fills + made]

    for ours, theirs in zip(nodes(G), nodes(torch)):
        assert type(ours).__name__ == type(theirs).__name__
        assert saved_names(G, ours) == saved_names(torch, theirs), type(theirs).__name__
        for name in saved_names(torch, theirs):
            assert tuple(getattr(ours, "_saved_" + name)) == tuple(getattr(theirs, "_saved_" + name))


@pytest.mark.parametrize("seed", SEEDS[:4])
@pytest.mark.parametrize("n", [1, 5, 16, 33])
def test_bernoulli(seed, n):
    def run(T):
        p32 = T.rand(n, generator=T.Generator().manual_seed(99))
        return [T.bernoulli(p32), T.bernoulli(p32.double()), T.bernoulli(p32, 0.3), T.empty(n).bernoulli_(0.7),
                T.empty(n, dtype=T.int64).bernoulli_(0.2), T.zeros(n, dtype=T.float64).bernoulli_(p32),
                T.empty(2, n).bernoulli_(p32), T.bernoulli(p32.reshape(1, n).expand(3, n)),
                T.empty(n, dtype=T.bool).bernoulli_(p32.double())]
    check(run, seed)


MULTINOMIAL_CALLS = [
    lambda T: T.multinomial(T.tensor([0.2, 0.5, 0.3]), 1),
    lambda T: T.multinomial(T.tensor([0.2, 0.5, 0.3]), 2),
    lambda T: T.multinomial(T.tensor([0.2, 0.5, 0.3]), 3),
    lambda T: T.multinomial(T.tensor([0.2, 0.5, 0.3]), 10, True),
    lambda T: T.multinomial(T.tensor([0.2, 0.5, 0.3]), 1, True),
    lambda T: T.multinomial(T.tensor([1.0, 0.0, 3.0, 2.0, 0.5]), 40, replacement=True),
    lambda T: T.multinomial(T.arange(1.0, 11.0).reshape(2, 5), 3),
    lambda T: T.multinomial(T.arange(1.0, 11.0, dtype=T.float64).reshape(2, 5), 7, True),
    lambda T: T.multinomial(T.rand(4, 30, generator=T.Generator().manual_seed(5)), 12),
    lambda T: T.multinomial(T.rand(100, generator=T.Generator().manual_seed(5)), 100),
]


@pytest.mark.parametrize("call", range(len(MULTINOMIAL_CALLS)))
@pytest.mark.parametrize("seed", SEEDS[:4])
def test_multinomial(call, seed):
    check(MULTINOMIAL_CALLS[call], seed)


LIKE_CALLS = [
    lambda T: T.rand_like(T.zeros(3, 4)),
    lambda T: T.randn_like(T.zeros(3, 4)),
    lambda T: T.randn_like(T.zeros(5, 4)),
    lambda T: T.randn_like(T.zeros(5, 4, dtype=T.float64)),
    lambda T: T.rand_like(T.zeros(2, 3), dtype=T.float64),
    lambda T: T.randint_like(T.zeros(3, 3), 10),
    lambda T: T.randint_like(T.zeros(3, 3), 2, 10),
    lambda T: T.randint_like(T.zeros(3, 3, dtype=T.int64), high=7),
    lambda T: T.randint_like(T.zeros(3, 3), T.tensor(7)),
    lambda T: T.rand_like(T.zeros(4, 6).t()),          # PyTorch keeps the layout and fills in memory order
    lambda T: T.randn_like(T.zeros(20, 3).t()),        # a non-contiguous layout takes the scalar sampler
    lambda T: T.randint_like(T.zeros(4, 6).t(), 100),
    lambda T: T.randn_like(T.zeros(3), requires_grad=True),
]


@pytest.mark.parametrize("call", range(len(LIKE_CALLS)))
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_like_factories(call, seed):
    check(lambda T: [LIKE_CALLS[call](T), T.rand(2)], seed)


# =======================================================================================
# in-place fills
FILLS = [
    ("uniform_", (), {}), ("uniform_", (-2.5, 7.25), {}), ("uniform_", (), {"from": 1.0, "to": 3.0}),
    ("normal_", (), {}), ("normal_", (0.3, 2.7), {}), ("exponential_", (), {}), ("exponential_", (0.7,), {}),
    ("cauchy_", (0.5, 2.3), {}), ("log_normal_", (), {}), ("log_normal_", (0.2, 0.9), {}),
    ("geometric_", (0.3,), {}), ("bernoulli_", (), {}), ("bernoulli_", (0.25,), {}),
    ("random_", (), {}), ("random_", (10,), {}), ("random_", (-3, 7), {}), ("random_", (5, None), {}),
    ("random_", (2 ** 30,), {}),
]
FILL_DTYPES = ["float32", "float64"]
SHAPES = [(1,), (5,), (16,), (21,), (4, 5), (40, 3)]


@pytest.mark.filterwarnings("ignore:to - 1 is out of bounds")
@pytest.mark.parametrize("fill", range(len(FILLS)))
@pytest.mark.parametrize("dtype", FILL_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_inplace_fills(fill, dtype, shape):
    name, args, kwargs = FILLS[fill]

    def run(T):
        t = T.empty(shape, dtype=getattr(T, dtype))
        out = getattr(t, name)(*args, **kwargs)
        # a transposed view is filled in memory order
        base = T.empty(tuple(reversed(shape)), dtype=getattr(T, dtype))
        getattr(base.t() if len(shape) == 2 else base, name)(*args, **kwargs)
        return [out is t, t, base]
    check(run, fill + 100 * len(shape) + shape[0])


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool", "float16"])
def test_random_and_integer_fills_per_dtype(dtype):
    def run(T):
        d = getattr(T, dtype)
        out = [T.empty(30, dtype=d).random_(), T.empty(30, dtype=d).random_(2), T.empty(30, dtype=d).random_(0, 2),
               T.empty(30, dtype=d).bernoulli_(0.4)]
        if dtype not in ("bool", "uint8"):
            out.append(T.empty(30, dtype=d).random_(-1, 1))
        if dtype not in ("bool", "float16"):
            out.append(T.empty(30, dtype=d).geometric_(0.5))
        if dtype == "float16":
            out += [T.empty(30, dtype=d).uniform_(), T.empty(30, dtype=d).normal_(), T.empty(5, dtype=d).normal_()]
        return out
    check(run, 3)


@pytest.mark.parametrize("fill", ["uniform_", "normal_", "exponential_", "cauchy_", "log_normal_", "bernoulli_",
                                  "random_", "geometric_"])
def test_fill_nodes_and_zero_gradient(fill):
    def run(T):
        x = T.ones(4, requires_grad=True)
        y = x * 2
        getattr(y, fill)(*((0.5,) if fill == "geometric_" else ()))
        name = _grad_fn_name(y)
        y.sum().backward()
        return [name, y, x.grad]
    check(run)


FILL_ERRORS = [
    lambda T: T.empty(3).normal_(0, -1), lambda T: T.empty(3).uniform_(2, 1),
    lambda T: T.empty(3, dtype=T.int64).uniform_(), lambda T: T.empty(3, dtype=T.int64).normal_(),
    lambda T: T.empty(3, dtype=T.int64).exponential_(), lambda T: T.empty(3).exponential_(0),
    lambda T: T.empty(3).geometric_(1), lambda T: T.empty(3).cauchy_(0, 0), lambda T: T.empty(3).log_normal_(0, 0),
    lambda T: T.empty(3).bernoulli_(1.5), lambda T: T.bernoulli(T.tensor([0.5, 1.5])),
    lambda T: T.bernoulli(T.tensor([1, 0])), lambda T: T.empty(3).random_(5, 2),
    lambda T: T.empty(3, dtype=T.uint8).random_(0, 300), lambda T: T.empty(3, dtype=T.int8).random_(-200, 0),
    lambda T: T.empty(3, dtype=T.bool).random_(0, 3), lambda T: T.randint(5, 3, (2,)),
    lambda T: T.randint(5, (2,), dtype=T.bool), lambda T: T.rand(3, dtype=T.int64),
    lambda T: T.randn(3, dtype=T.int64), lambda T: T.randperm(-1), lambda T: T.randperm(3.0),
    lambda T: T.normal(T.zeros(3), -1.0), lambda T: T.normal(T.zeros(3), -T.ones(3)),
    lambda T: T.empty(2).normal_(0.0, -1e-7),
    lambda T: T.multinomial(T.tensor([1.0, 2.0]), 3), lambda T: T.multinomial(T.tensor([1.0, 2.0]), 0),
    lambda T: T.multinomial(T.tensor([-1.0, 2.0]), 1), lambda T: T.multinomial(T.tensor([0.0, 0.0]), 1),
    lambda T: T.multinomial(T.ones(2, 2, 2), 1), lambda T: T.multinomial(T.tensor([1, 2]), 1),
    lambda T: T.multinomial(T.tensor([-1.0, 2.0]), 2, True), lambda T: T.multinomial(T.tensor([0.0, 0.0]), 2, True),
    lambda T: T.rand_like(T.zeros(2, dtype=T.int64)), lambda T: T.zeros(3, requires_grad=True).uniform_(),
    lambda T: T.randint(3), lambda T: T.randint(0.5, 5, (2,)), lambda T: T.randint(0, 5, 3),
    lambda T: T.normal(2.0, 3.0), lambda T: T.randint_like(T.zeros(2), 2.5),
    lambda T: T.randint_like(T.zeros(2), 1, 2.5),
]


@pytest.mark.parametrize("call", range(len(FILL_ERRORS)))
def test_errors_are_pytorchs(call):
    ours, theirs = raised(lambda: FILL_ERRORS[call](G)), raised(lambda: FILL_ERRORS[call](torch))
    assert theirs is not None
    assert ours == theirs


def test_random_precision_warning():
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        G.empty(3).random_(0, 2 ** 25)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.empty(3).random_(0, 2 ** 25)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]


# =======================================================================================
# generator objects and interleavings
def test_generators_are_independent_of_the_default_stream():
    def run(T):
        g1, g2 = T.Generator().manual_seed(1), T.Generator().manual_seed(2)
        return [T.randn(3, generator=g1), T.rand(2), T.randn(20, generator=g2), T.randn(3, generator=g1),
                T.randint(0, 9, (5,), generator=g2), T.randperm(6, generator=g1), T.normal(0.0, 1.0, (3,),
                                                                                          generator=g2),
                T.empty(4).uniform_(generator=g1), T.empty(4).normal_(generator=g1),
                T.empty(4).exponential_(generator=g2), T.bernoulli(T.full((4,), 0.5), generator=g1),
                T.multinomial(T.ones(5), 3, generator=g2), T.rand_like(T.zeros(3), generator=g1), g1.get_state(),
                g2.get_state()]
    check(run, 8)


INTERLEAVINGS = [
    ["randn3", "rand20", "randn5"],
    ["randn1", "randn1", "randn1", "randn16", "randn1"],
    ["randn3", "randn17", "randn3", "randn64_double", "randn3_double", "rand1"],
    ["randn3", "normal3", "lognormal3", "randn1", "randn1"],
    ["rand700", "randn5", "randint9", "randperm30", "randn5_double", "bernoulli7", "randn2"],
    ["randn1", "manual", "randn1", "randn1"],
    ["randn3", "save", "randn3", "load", "randn3", "randn1"],
]


def _step(T, step, memory):
    if step == "manual":
        T.manual_seed(77)
        return None
    if step == "save":
        memory["state"] = T.get_rng_state()
        return None
    if step == "load":
        T.set_rng_state(memory["state"])
        return None
    name, _, dtype = step.partition("_")
    kind = name.rstrip("0123456789")
    n = int(name[len(kind):])
    d = T.float64 if dtype == "double" else T.float32
    return {"randn": lambda: T.randn(n, dtype=d), "rand": lambda: T.rand(n, dtype=d),
            "randint": lambda: T.randint(-4, 4, (n,)), "randperm": lambda: T.randperm(n),
            "normal": lambda: T.empty(n).normal_(1.0, 2.0), "lognormal": lambda: T.empty(n).log_normal_(),
            "bernoulli": lambda: T.empty(n).bernoulli_(0.5)}[kind]()


@pytest.mark.parametrize("steps", range(len(INTERLEAVINGS)))
@pytest.mark.parametrize("seed", SEEDS[:4])
def test_interleaved_draws_share_the_stream(steps, seed):
    def run(T):
        memory = {}
        return [_step(T, step, memory) for step in INTERLEAVINGS[steps]] + [T.get_rng_state()]
    check(run, seed)


# =======================================================================================
# nn.init and module initialisation
INIT_CALLS = [
    lambda T, w: T.nn.init.uniform_(w),
    lambda T, w: T.nn.init.uniform_(w, -0.3, 0.7),
    lambda T, w: T.nn.init.normal_(w),
    lambda T, w: T.nn.init.normal_(w, 0.5, 0.02),
    lambda T, w: T.nn.init.kaiming_uniform_(w),
    lambda T, w: T.nn.init.kaiming_uniform_(w, a=math.sqrt(5)),
    lambda T, w: T.nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu"),
    lambda T, w: T.nn.init.kaiming_normal_(w),
    lambda T, w: T.nn.init.kaiming_normal_(w, a=0.1, mode="fan_out", nonlinearity="leaky_relu"),
    lambda T, w: T.nn.init.xavier_uniform_(w),
    lambda T, w: T.nn.init.xavier_uniform_(w, gain=T.nn.init.calculate_gain("tanh")),
    lambda T, w: T.nn.init.xavier_normal_(w, gain=2.0),
    lambda T, w: T.nn.init.trunc_normal_(w),
    lambda T, w: T.nn.init.trunc_normal_(w, std=0.02),
    lambda T, w: T.nn.init.trunc_normal_(w, mean=0.1, std=0.5, a=-0.4, b=0.4),
    lambda T, w: T.nn.init.trunc_normal_(w, mean=0.0, std=1.0, a=0.5, b=3.0),   # the uniform-proposal branch
    lambda T, w: T.nn.init.trunc_normal_(w, mean=0.0, std=1.0, a=2.0, b=2.5),
    lambda T, w: T.nn.init.sparse_(w, 0.3) if w.dim() == 2 else T.nn.init.zeros_(w),
    lambda T, w: T.nn.init.uniform_(w, generator=T.Generator().manual_seed(3)),
    lambda T, w: T.nn.init.normal_(w, generator=T.Generator().manual_seed(3)),
    lambda T, w: T.nn.init.kaiming_uniform_(w, generator=T.Generator().manual_seed(3)),
]


@pytest.mark.parametrize("call", range(len(INIT_CALLS)))
@pytest.mark.parametrize("shape", [(3, 4), (17, 5), (64, 32), (8, 3, 3, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_init_functions(call, shape, dtype):
    def run(T):
        w = T.nn.Parameter(T.empty(shape, dtype=getattr(T, dtype)))
        version = w._version
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = INIT_CALLS[call](T, w)
        return [out is w, w, w._version - version, w.requires_grad, w.grad_fn is None]
    check(run, call)


DEPRECATED_INIT = ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
                   "kaiming_uniform", "kaiming_normal", "sparse"]


@pytest.mark.parametrize("name", DEPRECATED_INIT)
def test_the_old_init_spellings_warn_as_pytorch_and_draw_the_same(name):
    def run(T):
        w = T.empty((3, 3, 3) if name == "dirac" else (4, 3))
        args = {"constant": (0.25,), "sparse": (0.5,)}.get(name, ())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(T.nn.init, name)(w, *args)
        return [w, [(c.category.__name__, str(c.message), c.lineno) for c in caught], getattr(T.nn.init, name).__name__]
    check(run, 3)


@pytest.mark.parametrize("shape", [(3, 4), (6, 2), (4, 3, 2)])
def test_orthogonal_draws_pytorchs_normals(shape):
    """The QR factorisation is LAPACK's on both sides (not bit for bit), the draws are."""
    ours, theirs = both(lambda T: (T.nn.init.orthogonal_(T.empty(shape), gain=1.5).detach().numpy(),
                                   T.get_rng_state()))
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    assert_same(ours[1], theirs[1])


MODULES = [
    lambda T: T.nn.Linear(5, 3),
    lambda T: T.nn.Linear(5, 3, bias=False),
    lambda T: T.nn.Linear(64, 200),
    lambda T: T.nn.Linear(4, 3, dtype=T.float64),
    lambda T: T.nn.Conv1d(3, 4, 3),
    lambda T: T.nn.Conv2d(2, 4, (3, 2), groups=2),
    lambda T: T.nn.Conv2d(3, 8, 5, bias=False),
    lambda T: T.nn.Embedding(10, 4),
    lambda T: T.nn.Embedding(10, 4, padding_idx=2),
    lambda T: T.nn.RNNCell(4, 5),
    lambda T: T.nn.LSTMCell(4, 5),
    lambda T: T.nn.GRUCell(4, 5, bias=False),
    lambda T: T.nn.LayerNorm(4),
    lambda T: T.nn.BatchNorm1d(3),
    lambda T: T.nn.BatchNorm2d(3),
    lambda T: T.nn.Sequential(T.nn.Linear(8, 16), T.nn.ReLU(), T.nn.Dropout(0.2), T.nn.Linear(16, 4),
                              T.nn.Embedding(5, 3), T.nn.LSTMCell(3, 2)),
]


@pytest.mark.parametrize("make", range(len(MODULES)))
@pytest.mark.parametrize("seed", [0, 1, 123])
def test_module_default_initialisation(make, seed):
    def run(T):
        module = MODULES[make](T)
        return [[name for name, _ in module.state_dict().items()], list(module.state_dict().values()), T.rand(2)]
    check(run, seed)


# =======================================================================================
# dropout
DROPOUT_CALLS = [
    lambda T, x: T.nn.functional.dropout(x, 0.5),
    lambda T, x: T.nn.functional.dropout(x, 0.1),
    lambda T, x: T.nn.functional.dropout(x, 0.9),
    lambda T, x: T.nn.functional.dropout(x, 0.3, training=False),
    lambda T, x: T.nn.functional.dropout(x, 0.0),
    lambda T, x: T.nn.functional.dropout(x, 1.0),
    lambda T, x: T.nn.functional.dropout(x * 1, 0.4, inplace=True),
    lambda T, x: T.nn.Dropout(0.25)(x),
    lambda T, x: T.nn.Dropout(0.25).eval()(x),
    lambda T, x: T.nn.functional.dropout(x.t(), 0.5),
]


@pytest.mark.parametrize("call", range(len(DROPOUT_CALLS)))
@pytest.mark.parametrize("shape", [(7,), (20,), (4, 9), (3, 5, 6)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout(call, shape, dtype):
    def run(T):
        x = T.arange(1.0, 1.0 + math.prod(shape), dtype=getattr(T, dtype)).reshape(shape).requires_grad_()
        y = DROPOUT_CALLS[call](T, x if call != 9 or len(shape) == 2 else x.reshape(-1, 1))
        y.sum().backward()
        return [y, _grad_fn_name(y), x.grad]
    check(run, call + 10 * len(shape))


# =======================================================================================
# samplers and DataLoader
class _Squares:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i * i


SAMPLER_CALLS = [
    lambda T, D: [list(D.DataLoader(_Squares(10), batch_size=3, shuffle=True)) for _ in range(3)],
    lambda T, D: [list(D.DataLoader(_Squares(10), batch_size=3, shuffle=True,
                                    generator=T.Generator().manual_seed(5))) for _ in range(2)],
    lambda T, D: list(D.DataLoader(_Squares(7), batch_size=2)),  # even in order, iterating draws a base seed
    lambda T, D: list(D.DataLoader(_Squares(9), batch_size=None, shuffle=True)),
    lambda T, D: list(D.DataLoader(_Squares(9), batch_size=4, shuffle=True, drop_last=True)),
    lambda T, D: list(D.RandomSampler(range(10), replacement=True)),
    lambda T, D: list(D.RandomSampler(range(10), replacement=True, num_samples=70)),
    lambda T, D: list(D.RandomSampler(range(6), num_samples=15)),
    lambda T, D: list(D.RandomSampler(range(6), generator=T.Generator().manual_seed(2))),
    lambda T, D: list(D.SubsetRandomSampler([3, 5, 9, 11])),
    lambda T, D: list(D.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 5)),
    lambda T, D: list(D.WeightedRandomSampler([0.9, 0.4, 0.05, 0.2, 0.3, 0.1], 5, replacement=False)),
    lambda T, D: [list(s) for s in D.random_split(range(10), [3, 7])],
    lambda T, D: [list(s) for s in D.random_split(range(10), [0.5, 0.5], generator=T.Generator().manual_seed(1))],
]


@pytest.mark.parametrize("call", range(len(SAMPLER_CALLS)))
@pytest.mark.parametrize("seed", [0, 1, 2024])
def test_samplers_and_dataloader(call, seed):
    check(lambda T: [SAMPLER_CALLS[call](T, T.utils.data), T.rand(2)], seed)


# =======================================================================================
# a seeded training loop
def _train(T, out):
    T.manual_seed(0)
    data = T.randn(64, 6)
    target = (data[:, :1] * 2 - data[:, 1:2]).tanh()
    loader = T.utils.data.DataLoader(T.utils.data.TensorDataset(data, target), batch_size=8, shuffle=True)
    model = T.nn.Sequential(T.nn.Linear(6, 16), T.nn.ReLU(), T.nn.Dropout(0.2), T.nn.Linear(16, 1))
    optimizer = T.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(6):
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = T.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / len(loader):.5f}", file=out)
    model.eval()
    print(f"eval: {T.nn.functional.mse_loss(model(data), target).item():.5f}", file=out)


def test_seeded_training_loop_prints_pytorchs_losses():
    printed = []
    for T in (G, torch):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            _train(T, out)
        printed.append(out.getvalue())
    assert printed[0] == printed[1]


def test_gradviz_run_seeds_like_pytorch(tmp_path):
    """``gradviz run`` seeds with manual_seed(0): the script prints what PyTorch prints then."""
    import subprocess
    import sys
    script = tmp_path / "draws.py"
    script.write_text("import torch\n"
                      "print(torch.randn(3).tolist(), torch.rand(2, dtype=torch.float64).tolist())\n"
                      "print(torch.randint(0, 100, (4,)).tolist(), torch.randperm(6).tolist())\n"
                      "print(torch.nn.Linear(2, 2).weight.tolist())\n")
    run = subprocess.run([sys.executable, "-m", "gradviz", "run", str(script)], capture_output=True, text=True,
                         timeout=120, env={**__import__("os").environ, "NO_COLOR": "1"})
    assert run.returncode == 0, run.stderr
    out = io.StringIO()
    torch.manual_seed(0)
    with contextlib.redirect_stdout(out):
        exec(compile(script.read_text(), str(script), "exec"), {"__name__": "__main__"})
    assert run.stdout.startswith(out.getvalue())
