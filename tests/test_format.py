"""gradviz.torch._format must print tensors exactly as PyTorch 2.13 does.

The first block needs no torch: its expected strings were produced by real
PyTorch 2.13.  Everything after it uses the installed torch as an oracle.
"""

import contextlib

import numpy as np
import pytest

from gradviz.torch import _format
from gradviz.torch._format import format_tensor, get_printoptions, printoptions, set_printoptions


@pytest.fixture(autouse=True)
def _default_printoptions():
    # A failing test must not leak its options into the next one.
    set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")


def fmt(data, dtype_name, default="float32", **kwargs):
    return format_tensor(np.asarray(data), dtype_name=dtype_name, default_dtype_name=default, **kwargs)


# --------------------------------------------------------------------------
# Torch-free checks (expected strings verified against PyTorch 2.13)
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, dtype_name, kwargs, expected",
    [
        (np.array(3.0, np.float32), "float32", {}, "tensor(3.)"),
        (np.array(True), "bool", {}, "tensor(True)"),
        (np.array([True, False]), "bool", {}, "tensor([ True, False])"),
        (np.array([1.0, 2.0], np.float32), "float32", {"suffixes": ["requires_grad=True"]},
         "tensor([1., 2.], requires_grad=True)"),
        (np.array([1.5, -2.25], np.float32), "float32", {}, "tensor([ 1.5000, -2.2500])"),
        (np.array([1.23456789], np.float32), "float32", {}, "tensor([1.2346])"),
        (np.array([1e-5, 1e5], np.float32), "float32", {}, "tensor([1.0000e-05, 1.0000e+05])"),
        (np.array([0.0, -0.0, np.nan, -np.inf], np.float32), "float32", {}, "tensor([0., -0., nan, -inf])"),
        (np.array([1.0, np.inf], np.float32), "float32", {}, "tensor([1., inf])"),
        (np.array([-5, 10, 300]), "int64", {}, "tensor([ -5,  10, 300])"),
        (np.array([1, 2], np.int32), "int32", {}, "tensor([1, 2], dtype=torch.int32)"),
        (np.array([1.0, 2.0]), "float64", {}, "tensor([1., 2.], dtype=torch.float64)"),
        (np.array([1.0, 2.0]), "float64", {"default": "float64"}, "tensor([1., 2.])"),
        (np.array([1.0, 2.0], np.float32), "float32", {"default": "float64"},
         "tensor([1., 2.], dtype=torch.float32)"),
        (np.zeros((0, 3), np.float32), "float32", {}, "tensor([], size=(0, 3))"),
        (np.zeros((0,), np.float32), "float32", {}, "tensor([])"),
        (np.zeros((0, 3), np.int64), "int64", {}, "tensor([], size=(0, 3), dtype=torch.int64)"),
        (np.zeros((0,)), "float64", {}, "tensor([], dtype=torch.float64)"),
        (np.array([1 + 2j, -0.5 - 1j], np.complex64), "complex64", {},
         "tensor([ 1.0000+2.j, -0.5000-1.j])"),
        (np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), "float32", {"suffixes": ["grad_fn=<MulBackward0>"]},
         "tensor([[1., 2.],\n        [3., 4.]], grad_fn=<MulBackward0>)"),
        (np.ones(2, np.float32), "float32",
         {"prefix": "Parameter containing:\ntensor(", "suffixes": ["requires_grad=True"]},
         "Parameter containing:\ntensor([1., 1.], requires_grad=True)"),
        (np.arange(2000), "int64", {}, "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
        (np.arange(8, dtype=np.float32).reshape(2, 2, 2), "float32", {},
         "tensor([[[0., 1.],\n         [2., 3.]],\n\n        [[4., 5.],\n         [6., 7.]]])"),
    ],
)
def test_known_output(data, dtype_name, kwargs, expected):
    kwargs = dict(kwargs)
    default = kwargs.pop("default", "float32")
    assert fmt(data, dtype_name, default, **kwargs) == expected


def test_line_wrapping_without_torch():
    expected = (
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
        "        14., 15., 16., 17., 18., 19.])"
    )
    assert fmt(np.arange(20, dtype=np.float32), "float32") == expected


def test_suffix_wraps_onto_new_line_without_torch():
    data = np.arange(32, dtype=np.float64).reshape(2, 16) / 3
    expected = (
        "tensor([[ 0.0000,  0.3333,  0.6667,  1.0000,  1.3333,  1.6667,  2.0000,  2.3333,\n"
        "          2.6667,  3.0000,  3.3333,  3.6667,  4.0000,  4.3333,  4.6667,  5.0000],\n"
        "        [ 5.3333,  5.6667,  6.0000,  6.3333,  6.6667,  7.0000,  7.3333,  7.6667,\n"
        "          8.0000,  8.3333,  8.6667,  9.0000,  9.3333,  9.6667, 10.0000, 10.3333]],\n"
        "       dtype=torch.float64)"
    )
    assert fmt(data, "float64") == expected


def test_second_suffix_wraps_without_torch():
    expected = (
        "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n"
        "        3.0000, 3.3333, 3.6667, 4.0000], dtype=torch.float64,\n"
        "       requires_grad=True)"
    )
    assert fmt(np.arange(13.0) / 3, "float64", suffixes=["requires_grad=True"]) == expected


def test_printoptions_api():
    assert get_printoptions() == {
        "precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None,
    }
    with printoptions(precision=2, sci_mode=True):
        assert get_printoptions()["precision"] == 2
        assert fmt(np.array([1.5], np.float32), "float32") == "tensor([1.50e+00])"
    assert get_printoptions()["precision"] == 4
    assert get_printoptions()["sci_mode"] is None

    set_printoptions(profile="short")
    assert (get_printoptions()["precision"], get_printoptions()["edgeitems"]) == (2, 2)
    set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == float("inf")

    # As in torch, a call that omits sci_mode resets it to automatic.
    set_printoptions(profile="default", sci_mode=False)
    set_printoptions(precision=4)
    assert get_printoptions()["sci_mode"] is None


def test_zero_edgeitems_without_torch():
    with printoptions(edgeitems=0, threshold=5):
        assert fmt(np.arange(10.0, dtype=np.float32), "float32") == "tensor([...], size=(10,))"
        assert fmt(np.ones((3, 4), np.float32), "float32") == "tensor([...], size=(3, 4))"
        assert fmt(np.ones(2, np.float32), "float32") == "tensor([1., 1.], size=(2,))"


def test_module_never_imports_torch():
    # The engine must work on machines without PyTorch.
    with open(_format.__file__) as f:
        assert "import torch" not in f.read()


# --------------------------------------------------------------------------
# Oracle comparisons against real PyTorch
# --------------------------------------------------------------------------

# A module-level pytest.importorskip("torch") would also skip the torch-free
# tests above, so each oracle test is marked instead.
try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="real PyTorch is the oracle")

PARAM_PREFIX = "Parameter containing:\ntensor("


def _name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _suffixes(t) -> list:
    if t.grad_fn is not None:
        return [f"grad_fn=<{type(t.grad_fn).__name__}>"]
    if t.requires_grad:
        return ["requires_grad=True"]
    return []


def ours(t, prefix="tensor("):
    return format_tensor(
        t.detach().numpy(),
        dtype_name=_name(t.dtype),
        default_dtype_name=_name(torch.get_default_dtype()),
        suffixes=_suffixes(t),
        prefix=prefix,
    )


def assert_same(t):
    assert ours(t) == repr(t)


@contextlib.contextmanager
def both_printoptions(**kwargs):
    """Apply the same print options to torch and to gradviz."""
    torch.set_printoptions(**kwargs)
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        torch.set_printoptions(profile="default")
        set_printoptions(profile="default")


@contextlib.contextmanager
def default_dtype(dtype):
    saved = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(saved)


nan, inf = float("nan"), float("inf")

HAND_PICKED = {
    "scalar_float": lambda: torch.tensor(3.0),
    "scalar_frac": lambda: torch.tensor(-0.5),
    "scalar_tiny": lambda: torch.tensor(1e-7),
    "scalar_nan": lambda: torch.tensor(nan),
    "scalar_negzero": lambda: torch.tensor(-0.0),
    "scalar_bool": lambda: torch.tensor(True),
    "scalar_int": lambda: torch.tensor(-42),
    "scalar_int32": lambda: torch.tensor(7, dtype=torch.int32),
    "scalar_f64": lambda: torch.tensor(2.5, dtype=torch.float64),
    "scalar_complex": lambda: torch.tensor(1 - 2j),
    "integral": lambda: torch.tensor([1.0, 2.0, 3.0]),
    "integral_big": lambda: torch.tensor([1.0, 1e7]),
    "integral_sci": lambda: torch.tensor([1.0, 1e9]),
    "sci_small": lambda: torch.tensor([1e-5, 1e5]),
    "sci_ratio": lambda: torch.tensor([0.5, 501.0]),
    "no_sci_ratio": lambda: torch.tensor([0.5, 499.5]),
    "sci_min": lambda: torch.tensor([0.00009, 0.0002]),
    "sci_big_exponent": lambda: torch.tensor([1e-200, 1e200], dtype=torch.float64),
    "rounding_width": lambda: torch.tensor([9.99996, 1.0]),
    # Boundaries of the automatic scientific-notation rule.
    "sci_boundary_min": lambda: torch.tensor([1e-4, 1.0]),
    "sci_boundary_min_f64": lambda: torch.tensor([1e-4, 0.1], dtype=torch.float64),
    "sci_boundary_max": lambda: torch.tensor([1e8, 2e5]),
    "sci_boundary_max_above": lambda: torch.tensor([1.0000001e8, 2e5], dtype=torch.float64),
    "sci_boundary_ratio": lambda: torch.tensor([1.0, 1000.0]),
    "sci_boundary_ratio_above": lambda: torch.tensor([1.0, 1000.5]),
    "subnormal": lambda: torch.tensor([1e-45, 1.0]),
    "nan_inf_mixed": lambda: torch.tensor([nan, inf, -inf, 1.5, 0.0]),
    "nan_inf_only": lambda: torch.tensor([nan, inf, -inf]),
    "nan_inf_sci": lambda: torch.tensor([nan, -inf, 1e-9, 3.0]),
    "negative_zero": lambda: torch.tensor([-0.0, 0.0, 1.0]),
    "negative_zero_frac": lambda: torch.tensor([-0.0, 0.5]),
    "zeros": lambda: torch.zeros(2, 3),
    "ints": lambda: torch.tensor([-3, 10, 1000]),
    "int8": lambda: torch.tensor([-128, 0, 127], dtype=torch.int8),
    "int16": lambda: torch.tensor([1, -2], dtype=torch.int16),
    "int32_2d": lambda: torch.arange(60, dtype=torch.int32).reshape(3, 20),
    "uint8": lambda: torch.tensor([0, 200, 255], dtype=torch.uint8),
    "bools": lambda: torch.tensor([[True, False], [False, False]]),
    "bools_all_true": lambda: torch.tensor([True, True]),
    "float16": lambda: torch.tensor([1.5, -0.0, 65504.0, 6e-8], dtype=torch.float16),
    "float64": lambda: torch.tensor([1.0, 2.5], dtype=torch.float64),
    "complex64": lambda: torch.tensor([1 + 2j, -0.5 - 1j, 3j, -0.0 - 0.0j]),
    "complex128": lambda: torch.tensor([1e-6 + 2j, 5.0 + 0j], dtype=torch.complex128),
    "complex_nan": lambda: torch.tensor([complex(nan, inf), 1 + 1j]),
    "complex_2d": lambda: torch.arange(24, dtype=torch.float32).reshape(3, 8) * (1 - 0.25j),
    "empty_1d": lambda: torch.zeros(0),
    "empty_2d": lambda: torch.zeros(0, 3),
    "empty_3d": lambda: torch.zeros(2, 0, 4),
    "empty_int": lambda: torch.zeros(0, dtype=torch.int64),
    "empty_int_2d": lambda: torch.zeros(0, 3, dtype=torch.int64),
    "empty_bool": lambda: torch.zeros(0, dtype=torch.bool),
    "empty_f64": lambda: torch.zeros(0, dtype=torch.float64),
    "empty_complex": lambda: torch.zeros(0, dtype=torch.complex64),
    "empty_requires_grad": lambda: torch.zeros(0, 2, requires_grad=True),
    "wrap_1d": lambda: torch.arange(40.0) / 7,
    "wrap_1d_ints": lambda: torch.arange(100),
    "wrap_2d": lambda: torch.linspace(-3, 3, 90).reshape(3, 30),
    "wrap_3d": lambda: torch.linspace(-30, 30, 120).reshape(2, 3, 20),
    "wrap_4d": lambda: torch.linspace(-1, 1, 96).reshape(2, 2, 2, 12) * 1e-6,
    "summarize_1d": lambda: torch.arange(2000.0),
    "summarize_1d_ints": lambda: torch.arange(1001),
    "at_threshold": lambda: torch.arange(1000.0),
    "summarize_2d": lambda: torch.arange(1200.0).reshape(40, 30) / 3,
    "summarize_2d_narrow": lambda: torch.arange(1200.0).reshape(600, 2),
    "summarize_3d": lambda: torch.arange(1331).reshape(11, 11, 11),
    "summarize_4d": lambda: torch.linspace(-5, 5, 2401).reshape(7, 7, 7, 7),
    "summarize_hidden_values_ignored": lambda: torch.cat(
        [torch.ones(3), torch.full((1000,), 1e9), torch.ones(3)]
    ),
    "summarize_complex": lambda: torch.arange(1500.0) * (1 + 1j),
    "summarize_bool": lambda: torch.arange(1500) % 3 == 0,
    "float64_wide": lambda: torch.arange(32, dtype=torch.float64).reshape(2, 16) / 3,
    "float64_one_line_suffix": lambda: torch.arange(12, dtype=torch.float64) / 3,
    "int32_suffix_wrap": lambda: torch.arange(28, dtype=torch.int32) * 1000,
    "requires_grad": lambda: torch.ones(3, requires_grad=True),
    "requires_grad_f64_wide": lambda: (torch.arange(11, dtype=torch.float64) / 3).requires_grad_(),
    # Only the second suffix wraps / both suffixes wrap together.
    "second_suffix_wraps": lambda: (torch.arange(13, dtype=torch.float64) / 3).requires_grad_(),
    "first_suffix_wraps": lambda: (torch.arange(16, dtype=torch.float64) / 3).requires_grad_(),
    "grad_fn": lambda: torch.ones(2, 2, requires_grad=True) * 2,
    "grad_fn_wide": lambda: torch.linspace(-1, 1, 24, requires_grad=True).reshape(3, 8) + 0.5,
    "grad_fn_f64": lambda: torch.ones(3, dtype=torch.float64, requires_grad=True).sum(),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(HAND_PICKED))
def test_hand_picked(name):
    assert_same(HAND_PICKED[name]())


@needs_torch
@pytest.mark.parametrize("name", sorted(HAND_PICKED))
def test_hand_picked_float64_default(name):
    with default_dtype(torch.float64):
        assert_same(HAND_PICKED[name]())


@needs_torch
@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.ones(2),
        lambda: torch.linspace(-2, 2, 90).reshape(3, 30),
        lambda: torch.ones(2, dtype=torch.float64),
        lambda: torch.arange(11, dtype=torch.float64) / 3,
        lambda: torch.zeros(0, 4),
        lambda: torch.tensor(1.5),
    ],
)
def test_parameter(make):
    param = torch.nn.Parameter(make())
    assert ours(param, prefix=PARAM_PREFIX) == repr(param)
    # str() of a Parameter is the same text as repr().
    assert ours(param, prefix=PARAM_PREFIX) == str(param)


@needs_torch
@pytest.mark.parametrize(
    "options",
    [
        dict(precision=2),
        dict(precision=0),
        dict(precision=8),
        dict(sci_mode=True),
        dict(sci_mode=False),
        dict(linewidth=40),
        dict(linewidth=200),
        dict(linewidth=5),
        dict(threshold=10),
        dict(threshold=10, edgeitems=1),
        dict(threshold=10, edgeitems=0),
        dict(edgeitems=0),
        dict(profile="short"),
        dict(profile="full"),
        dict(profile="short", precision=6),
    ],
    ids=repr,
)
@pytest.mark.parametrize("name", sorted(HAND_PICKED))
def test_hand_picked_with_printoptions(options, name):
    with both_printoptions(**options):
        assert get_printoptions() == torch._tensor_str.get_printoptions()
        assert_same(HAND_PICKED[name]())


@needs_torch
def test_printoptions_context_manager_matches_torch():
    t = torch.tensor([1.123456, 2e-3])
    with torch._tensor_str.printoptions(precision=6, linewidth=10), printoptions(precision=6, linewidth=10):
        assert ours(t) == repr(t)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    assert ours(t) == repr(t)


# --------------------------------------------------------------------------
# Property-based comparison
# --------------------------------------------------------------------------

try:
    import hypothesis
    import hypothesis.extra.numpy
    from hypothesis import strategies as st
except ImportError:
    hypothesis = None

if hypothesis is None or torch is None:

    @pytest.mark.skip(reason="needs hypothesis and real PyTorch")
    def test_property_based_comparison():
        pass

else:
    DTYPES = [
        torch.float32, torch.float64, torch.float16, torch.complex64, torch.complex128,
        torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool,
    ]

    small_shapes = st.lists(st.integers(0, 6), min_size=0, max_size=4).map(tuple)
    # Shapes whose element count falls on either side of the 1000 threshold.
    large_shapes = st.one_of(
        st.tuples(st.integers(950, 1100)),
        st.tuples(st.integers(28, 36), st.integers(28, 36)),
        st.tuples(st.integers(9, 11), st.integers(9, 11), st.integers(9, 11)),
        st.tuples(st.integers(5, 6), st.integers(5, 6), st.integers(5, 6), st.integers(5, 6)),
    )
    wide_shapes = st.lists(st.integers(1, 25), min_size=1, max_size=3).map(tuple)

    @st.composite
    def tensors(draw):
        dtype = draw(st.sampled_from(DTYPES))
        shape = draw(st.one_of(small_shapes, small_shapes, wide_shapes, large_shapes))
        seed = draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        n = int(np.prod(shape, dtype=np.int64))

        if dtype == torch.bool:
            values = rng.random(n) < draw(st.floats(0, 1))
        elif not (dtype.is_floating_point or dtype.is_complex):
            info = np.iinfo(_name(dtype))
            hi = draw(st.sampled_from([1, 10, 1000, int(info.max)]))
            lo = max(int(info.min), -hi)
            values = rng.integers(lo, hi, size=n, endpoint=True)
        else:

            def floats():
                # Magnitudes spread between 10**lo and 10**hi, within 1e-10..1e10.
                lo = draw(st.integers(-10, 10))
                hi = draw(st.integers(lo, 10))
                x = 10.0 ** rng.uniform(lo, hi, n)
                if draw(st.booleans()):
                    x = np.round(x)  # integral floats take a different path
                x = np.where(rng.random(n) < draw(st.sampled_from([0.0, 0.5])), -x, x)
                special = rng.choice(np.array([0.0, -0.0, nan, inf, -inf]), size=n)
                return np.where(rng.random(n) < draw(st.sampled_from([0.0, 0.05, 0.5])), special, x)

            values = floats()
            if dtype.is_complex:
                # Not `re + 1j * im`: 1j * inf would smuggle a nan into the real part.
                real, values = values, np.empty(n, np.complex128)
                values.real, values.imag = real, floats()

        with np.errstate(over="ignore", invalid="ignore"):
            array = np.asarray(values).astype(_name(dtype)).reshape(shape)
        t = torch.from_numpy(array)

        grad_mode = draw(st.sampled_from(["none", "requires_grad", "grad_fn"]))
        if grad_mode != "none" and (dtype.is_floating_point or dtype.is_complex):
            t.requires_grad_()
            if grad_mode == "grad_fn":
                t = t * 1  # exact, but gives the repr a grad_fn=<MulBackward0> suffix
        return t

    printoption_sets = st.one_of(
        st.just({}),
        st.just({}),
        st.fixed_dictionaries(
            {},
            optional={
                "precision": st.integers(0, 8),
                "threshold": st.integers(0, 1500),
                "edgeitems": st.integers(0, 4),
                "linewidth": st.integers(1, 160),
                "sci_mode": st.sampled_from([None, True, False]),
            },
        ),
    )

    @pytest.mark.slow
    @hypothesis.settings(max_examples=400, deadline=None, suppress_health_check=list(hypothesis.HealthCheck))
    @hypothesis.given(
        t=tensors(),
        default=st.sampled_from([torch.float32, torch.float64]),
        as_parameter=st.booleans(),
        options=printoption_sets,
    )
    def test_random_tensors_match_torch(t, default, as_parameter, options):
        with default_dtype(default), both_printoptions(**options):
            if as_parameter and t.is_leaf and t.requires_grad:
                param = torch.nn.Parameter(t.detach())
                assert ours(param, prefix=PARAM_PREFIX) == repr(param)
            else:
                assert ours(t) == repr(t)

    @hypothesis.settings(max_examples=300, deadline=None)
    @hypothesis.given(
        array=st.sampled_from(["float16", "float32", "float64"]).flatmap(
            lambda dtype: hypothesis.extra.numpy.arrays(
                dtype,
                hypothesis.extra.numpy.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
                # Any value of the dtype: subnormals, huge exponents, rounding edges.
                elements=st.floats(width=np.dtype(dtype).itemsize * 8),
            )
        ),
        default=st.sampled_from([torch.float32, torch.float64]),
    )
    def test_arbitrary_float_values_match_torch(array, default):
        with default_dtype(default):
            assert_same(torch.from_numpy(array))

