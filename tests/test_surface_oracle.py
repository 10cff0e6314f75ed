"""Smaller corners of the torch surface that tutorials use, each compared with real PyTorch:
the ``size=`` keyword of factories, indexing by ``range`` and other index types, finfo and
iinfo, the dtype errors of mixed-precision matrix products, complex tensors (their functions,
reprs and gradients) and the error a failed huge allocation gives."""
import math

import numpy as np
import pytest

import gradviz.torch as gtorch

torch = pytest.importorskip("torch")


def outcome(thunk):
    """What a user sees: a value's repr, or the error's type and message."""
    try:
        value = thunk()
    except NameError:
        raise  # the test's own mistake, not an observation
    except Exception as exc:  # noqa: BLE001 - the error is the observation
        return f"{type(exc).__name__}: {exc}"
    return repr(value)


# ---------------------------------------------------------------------------------------
# factories with size=

FACTORIES = ["T.zeros(size=(2, 3))", "T.ones(size=())", "T.empty(size=(0,)).shape", "T.randn(size=())",
             "T.randn(size=(2,), requires_grad=True)", "T.rand(size=(3,))", "T.full(size=(2,), fill_value=1.5)",
             "T.zeros(size=[2], dtype=T.float64)", "T.ones(size=(2, 2)).sum()"]


@pytest.mark.parametrize("expression", FACTORIES)
def test_size_keyword(expression):
    def run(T):
        T.manual_seed(0)
        return outcome(lambda: eval(expression, {"T": T}))
    assert run(gtorch) == run(torch)


# ---------------------------------------------------------------------------------------
# index types

INDEXES = ["x[range(2)]", "x[range(0, 3, 2)]", "x[:, range(1, 3)]", "x[[0, 2]]", "x[[True, False, True]]",
           "x[(0, 1)]", "x[[0, 1], [1, 2]]", "x[np.int64(1)]", "x[T.tensor(1)]", "x[T.tensor([0, 2])]",
           "x[..., 1]", "x[None, 1]", "x[x > 4]", "x['a']", "x[1.5]", "x[[0, 5]]", "x[range(5)]"]


@pytest.mark.parametrize("index", INDEXES)
def test_index_types(index):
    def run(T):
        x = T.arange(12.0).reshape(3, 4).requires_grad_()

        def index_it():
            y = eval(index, {"T": T, "np": np, "x": x})
            y.sum().backward()
            return y, type(y.grad_fn).__name__, x.grad
        return outcome(index_it)
    assert run(gtorch) == run(torch)


# ---------------------------------------------------------------------------------------
# finfo / iinfo

INFOS = ["T.finfo(T.float32)", "T.finfo(T.float64)", "T.finfo(T.float16)", "T.finfo()", "T.finfo(T.complex64)",
         "T.finfo(T.float32).eps", "T.finfo(T.float32).max", "T.finfo(T.float32).tiny", "T.finfo(T.float16).min",
         "T.finfo(T.float32).resolution", "T.finfo(T.float64).bits", "T.finfo(T.float32).dtype",
         "T.iinfo(T.int64)", "T.iinfo(T.int8).min", "T.iinfo(T.uint8).max", "T.iinfo(T.int32).bits",
         "T.iinfo(T.int16)", "T.iinfo(T.float32)", "T.finfo(T.int64)"]


@pytest.mark.parametrize("expression", INFOS)
def test_type_info(expression):
    assert outcome(lambda: eval(expression, {"T": gtorch})) == outcome(lambda: eval(expression, {"T": torch}))


# ---------------------------------------------------------------------------------------
# mixed dtypes in matrix products: which operand PyTorch names, and in which words

def _mixed_products(T):
    results = []
    for x_dtype in (T.float32, T.float64, T.int64):
        for w_dtype in (T.float32, T.float64):
            for b_dtype in (None, T.float32, T.float64):
                x, w = T.ones(2, 3, dtype=x_dtype), T.ones(4, 3, dtype=w_dtype)
                b = None if b_dtype is None else T.ones(4, dtype=b_dtype)
                calls = [lambda: T.nn.functional.linear(x, w, b), lambda: T.nn.functional.linear(x[0], w, b),
                         lambda: T.nn.functional.linear(x[None], w, b),
                         lambda: T.addmm(b if b is not None else T.ones(4, dtype=w_dtype), x, w.t()),
                         lambda: T.mm(x, w.t()), lambda: x @ w.t(), lambda: T.bmm(x[None], w.t()[None]),
                         lambda: T.mv(w, x[0]), lambda: T.dot(x[0], w[0]), lambda: x[None] @ w.t(),
                         lambda: x[0] @ w.t()]
                for call in calls:
                    results.append(outcome(lambda: call().dtype))
    return results


def test_mixed_dtype_products_fail_as_pytorchs():
    ours, theirs = _mixed_products(gtorch), _mixed_products(torch)
    assert any("must have the same dtype" in text for text in theirs)
    assert ours == theirs


# ---------------------------------------------------------------------------------------
# complex tensors

COMPLEX = ["T.complex(a, b)", "T.polar(a.abs(), b)", "T.view_as_real(z)", "T.view_as_complex(ab)",
           "z.real", "z.imag", "z.conj()", "z.angle()", "z.abs()", "z * z", "z / (z + 1)", "z.exp()",
           "z.sum()", "T.tensor([1 + 2j, -0.5j])", "T.zeros(2, dtype=T.complex64)", "z.dtype", "z.real.dtype",
           "T.view_as_complex(a)", "T.complex(a, b.double())", "T.real(a)", "T.imag(a)", "z.is_complex()",
           "T.tensor([1e10 + 1j, 1e-5j])", "T.tensor(3.5 - 1j, dtype=T.complex128)"]


def _complex_inputs(T):
    a = T.tensor([0.5, -1.25, 2.0])
    b = T.tensor([1.0, 0.25, -3.0])
    return a, b, T.complex(a, b), T.stack([a, b], 1)


@pytest.mark.parametrize("expression", COMPLEX)
def test_complex_values_and_reprs(expression):
    def run(T):
        a, b, z, ab = _complex_inputs(T)
        return outcome(lambda: eval(expression, {"T": T, "a": a, "b": b, "z": z, "ab": ab}))
    assert run(gtorch) == run(torch)


COMPLEX_GRADS = ["(z * z).abs().sum()", "(z * w).real.sum()", "(z / w).abs().sum()", "z.exp().imag.sum()",
                 "z.sin().abs().sum()", "z.cos().real.sum()", "z.log().abs().sum()", "z.sqrt().abs().sum()",
                 "z.reciprocal().imag.sum()", "z.pow(3).real.sum()", "z.tanh().abs().sum()",
                 "z.sigmoid().real.sum()", "T.view_as_real(z * w).pow(2).sum()", "z.angle().sum()",
                 "(z.conj() * w).imag.sum()", "(m @ m).abs().sum()", "T.mv(m, z).abs().sum()",
                 "T.dot(z, w).real", "T.polar(a, b).imag.sum()"]


@pytest.mark.parametrize("expression", COMPLEX_GRADS)
def test_complex_gradients(expression):
    """Gradients of real losses through complex ops: PyTorch's conjugate convention."""
    def run(T):
        a = T.tensor([0.5, 1.25, 2.0], dtype=T.float64, requires_grad=True)
        b = T.tensor([1.0, 0.25, -3.0], dtype=T.float64, requires_grad=True)
        z = T.complex(a, b)
        w = T.complex(b, a * 2)
        m = T.stack([z, w, z * w])
        loss = eval(expression, {"T": T, "a": a, "b": b, "z": z, "w": w, "m": m})
        loss.backward()
        return (round(loss.item(), 10), np.round(a.grad.numpy(), 9).tolist(),
                np.round(b.grad.numpy(), 9).tolist(), type(loss.grad_fn).__name__)
    assert run(gtorch) == run(torch)


# ---------------------------------------------------------------------------------------
# a huge allocation

HUGE = ["T.zeros(1 << 50)", "T.ones(1 << 25, 1 << 25)", "T.empty(1 << 48, dtype=T.float64)",
        "T.randn(1 << 50)", "T.rand(1 << 25, 1 << 25)"]


@pytest.mark.parametrize("expression", HUGE)
def test_huge_allocation_fails_as_pytorchs(expression):
    ours = outcome(lambda: eval(expression, {"T": gtorch}))
    theirs = outcome(lambda: eval(expression, {"T": torch}))
    assert ours.startswith("RuntimeError: [enforce fail at alloc_cpu.cpp")
    # the address-space fact in the message is the machine's; the words and the bytes are PyTorch's
    assert ours == theirs


def test_allocation_within_memory_is_made():
    assert gtorch.zeros(1 << 20).shape == (1 << 20,)
    assert math.isclose(gtorch.ones(1000, 1000).sum().item(), 1e6)


COMPLEX_SCRIPT = """\
import torch
a = torch.tensor([0.5, -1.25], requires_grad=True)
z = torch.complex(a, a * 2)
z.retain_grad()
w = z * z
loss = w.abs().sum()
loss.backward()
big = torch.complex(torch.arange(40.0), -torch.arange(40.0))
"""


@pytest.mark.parametrize("engine", ["gradviz.torch", "torch"])
def test_tables_and_json_keep_the_imaginary_part(tmp_path, engine):
    import json

    from _cli_helpers import invoke, write
    path = write(tmp_path, COMPLEX_SCRIPT, "complex.py")
    extra = () if engine == "gradviz.torch" else ("--engine", "torch")
    table = invoke("run", path, *extra).stdout
    row = next(line for line in table.splitlines() if line.startswith("z "))
    assert "[0.5+1j, -1.25-2.5j]" in row  # the data
    assert "[1+2j, -2.5-5j]" in row  # the gradient, in PyTorch's conjugate convention
    big = next(line for line in table.splitlines() if line.startswith("big "))
    assert "re 0..39, im -39..-0" in big
    doc = json.loads(invoke("run", path, "--json", *extra).stdout)
    z = next(t for t in doc["cells"][0]["tensors"] if t["name"] == "z")
    assert z["data"] == [0.5, -1.25]  # record.py's real parts, for the conformance scorer
    assert z["imag"]["data"] == [1.0, -2.5]
    assert z["grad"]["imag"]["data"] == [2.0, -5.0]


# ---------------------------------------------------------------------------------------
# issue 23: Python numbers a dtype cannot hold, non-tensor arguments, keyword forms

CONVERSIONS = [
    # beyond int64: THPUtils_unpackLong's ValueError, whatever the nesting
    "T.tensor([10**19])", "T.tensor(10**19)", "T.tensor([-2**63-1])", "T.tensor([2**63])", "T.tensor(2**64)",
    "T.tensor([[1], [10**19]])", "T.tensor(((10**19,),))", "T.tensor([True, 10**19])", "T.as_tensor([10**19])",
    "T.tensor([T.tensor(1), 10**19])", "T.tensor([1]).new_tensor([10**19])", "T.LongTensor([10**19])",
    # the edges of int64 are kept exactly
    "T.tensor([-2**63, 2**63-1])", "T.tensor([2**63-1, 1.5], dtype=T.int64)", "T.tensor([9.2e18], dtype=T.int64)",
    # a smaller integer dtype: checked_convert's RuntimeError; unsigned lets -max..-1 wrap
    "T.tensor([2**31], dtype=T.int32)", "T.tensor([-2**31-1], dtype=T.int32)", "T.tensor([2**63], dtype=T.int32)",
    "T.tensor([300], dtype=T.uint8)", "T.tensor(300, dtype=T.uint8)", "T.tensor([-1, -255], dtype=T.uint8)",
    "T.tensor([-256], dtype=T.uint8)", "T.tensor([128], dtype=T.int8)", "T.tensor([-128, 127], dtype=T.int8)",
    "T.tensor([70000], dtype=T.int16)", "T.tensor([300, 10**19], dtype=T.uint8)",
    "T.tensor([10**19, 300], dtype=T.uint8)", "T.as_tensor([300], dtype=T.uint8)", "T.ByteTensor([300])",
    "T.tensor([1], dtype=T.uint8).new_tensor([300])", "T.tensor([np.int64(300)], dtype=T.uint8)",
    # floats into integers: compared in double, nan and inf refused
    "T.tensor([1e20], dtype=T.int64)", "T.tensor([2.0**63], dtype=T.int64)", "T.tensor([-1.5], dtype=T.uint8)",
    "T.tensor([255.9], dtype=T.uint8)", "T.tensor([127.9], dtype=T.int8)", "T.tensor([float('nan')], dtype=T.int8)",
    "T.tensor([float('inf')], dtype=T.int32)", "T.tensor([np.float32(1e20)], dtype=T.int32)",
    "T.tensor([1, 2.5], dtype=T.int64)",
    # floating and complex dtypes take any int a double holds
    "T.tensor(10**19, dtype=T.float32)", "T.tensor([10**19], dtype=T.float64)", "T.tensor([1.0, 10**19])",
    "T.tensor([10**19], dtype=T.float16)", "T.tensor([10**400], dtype=T.float32)", "T.tensor([1.5, 10**400])",
    "T.tensor([10**19 + 0j])", "T.tensor([10**400], dtype=T.complex64)", "T.Tensor([10**19])",
    # bool takes any number
    "T.tensor([10**400], dtype=T.bool)", "T.tensor([1e-50], dtype=T.bool)", "T.tensor([-1, 1j], dtype=T.bool)",
    # a sequence where a number belongs, met in PyTorch's order
    "T.tensor([1, [2]])", "T.tensor([1.0, [2]])", "T.tensor([1, (2,)])", "T.tensor([[1, 2], [3, [4]]])",
    "T.tensor([1, [2]], dtype=T.bool)", "T.tensor([1, [2]], dtype=T.complex64)", "T.tensor([1.0, 1j], dtype=T.float32)",
    "T.tensor([1j], dtype=T.int64)", "T.tensor([[10**19], [1, 2]])", "T.tensor([[1, 2], [10**19]])",
    "T.tensor([[1, 2], 10**19])",
]


@pytest.mark.parametrize("expression", CONVERSIONS)
def test_python_numbers_are_stored_as_pytorchs(expression):
    assert outcome(lambda: eval(expression, {"T": gtorch, "np": np})) == \
        outcome(lambda: eval(expression, {"T": torch, "np": np}))


NOT_TENSORS = ["T.sum(x.grad_fn)", "T.sum(1)", "T.sum([1, 2])", "T.sum(None)", "T.mean(x.grad_fn)",
               "T.where(True, x, x)", "T.where(False, x, x)", "T.where(1, x, x)", "T.where(None, x, x)",
               "T.where(np.bool_(True), x, x)", "T.where(x.grad_fn, x, x)", "T.where([True, False], x, x)",
               "T.where([[True]], x, x)", "T.where((True,), x, x)", "T.where([], x, x)", "T.where(True, 1, 2)",
               "T.where(True, x, 1.0)", "T.where(True)", "T.where(x.grad_fn)", "T.where(x > 2, x, 0.0)"]


@pytest.mark.parametrize("expression", NOT_TENSORS)
def test_non_tensor_arguments_fail_as_pytorchs(expression):
    def run(T):
        x = T.tensor([1.0, 3.0], requires_grad=True) * 2
        return outcome(lambda: eval(expression, {"T": T, "np": np, "x": x}))
    assert run(gtorch) == run(torch)


KEYWORD_FORMS = ["x.new_ones(size=(2,))", "x.new_zeros(size=[2, 1])", "x.new_empty(size=(1, 2)).shape",
                 "x.new_full(size=(2,), fill_value=3)", "x.new_ones(size=(2,), dtype=T.int64)",
                 "x.new_zeros(size=(2,), requires_grad=True)", "x.new_ones((2,), size=(3,))",
                 "x.new_ones(2, size=(3,))", "x.new_ones()", "x.new_zeros(2, 3)", "x.new_zeros((2, 3))",
                 "T.arange(end=5)", "T.arange(start=1, end=5)", "T.arange(1, end=5, step=2)",
                 "T.arange(0, 5, step=2)", "T.arange(5, end=7)", "T.arange(end=5, start=1)",
                 "T.arange(start=1, end=4.5, step=0.5)", "T.arange(end=3, dtype=T.float64)",
                 "T.arange(end=T.tensor(3))", "T.arange(5)", "T.arange(1, 4)", "T.arange(1, 10, 3)",
                 "T.arange(start=1)", "T.arange(step=2)", "T.arange(end=5, step=2)", "T.arange(5, step=2)",
                 "T.arange()", "T.arange(5, None)", "T.arange(None)", "T.arange(1, 5, None)",
                 "T.arange(start=0, step=2)", "T.arange(1, 2, 3, step=2)", "T.arange(1, start=2)",
                 "T.arange(1, 5, 2, 3)", "T.arange(end=5, foo=3)"]


@pytest.mark.parametrize("expression", KEYWORD_FORMS)
def test_keyword_forms_of_factories(expression):
    def run(T):
        x = T.ones(2, 3)
        return outcome(lambda: eval(expression, {"T": T, "x": x}))
    assert run(gtorch) == run(torch)


_INT_DTYPES = ["int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64", "float16", None]
_EDGES = [0, 1, -1, 127, 128, -129, 255, 256, -256, 2 ** 15, 2 ** 31, -2 ** 31 - 1, 2 ** 63 - 1, 2 ** 63,
          -2 ** 63, -2 ** 63 - 1, 2 ** 64, 10 ** 19]


def test_any_python_ints_are_stored_as_pytorchs():
    """Property: any nested list of Python ints (near every integer type's edges, or anywhere),
    in any dtype, gives PyTorch's tensor or PyTorch's error."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    number = st.one_of(st.sampled_from(_EDGES), st.integers(min_value=-2 ** 70, max_value=2 ** 70),
                       st.floats(allow_nan=True, allow_infinity=True, width=64))
    rows = st.integers(1, 3).flatmap(lambda n: st.lists(st.lists(number, min_size=n, max_size=n), min_size=1,
                                                        max_size=3))
    data = st.one_of(number, st.lists(number, max_size=4), rows)

    @settings(max_examples=300, deadline=None, derandomize=True, database=None)
    @given(data, st.sampled_from(_INT_DTYPES))
    def check(value, dtype):
        def run(T):
            return outcome(lambda: T.tensor(value, dtype=None if dtype is None else getattr(T, dtype)))
        assert run(gtorch) == run(torch)
    check()
