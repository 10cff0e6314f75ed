"""torch.autograd.functional and torch.func, gradviz.torch against real PyTorch 2.13.

Every case is a function ``case(T)`` run once with ``T = gradviz.torch`` and once with
``T = torch`` on the same numbers. What it returns is compared in full: the nesting of
tuples, lists and dicts, and per tensor its values, shape, dtype, requires_grad, is_leaf
and grad_fn name (and for some cases the whole grad_fn graph); if it raises, both must
raise the same type with the same message; the warnings must be the same. A last test runs a script through
``gradviz run --json`` and compares it, cell by cell, with the script run on real torch.
"""
import functools
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gradviz.torch as gv
from oracle import assert_no_diffs, compare_any, compare_errors, graph_signature, norm_addr, run_capture

torch = pytest.importorskip("torch")

F64 = "float64"


def data(name, *shape, low=None, high=None):
    """The same numbers for both libraries, chosen by name."""
    rng = np.random.RandomState(sum(map(ord, name)) + 7 * len(shape))
    if low is not None:
        return rng.uniform(low, high, shape)
    return rng.standard_normal(shape)


def t(T, name, *shape, rg=False, low=None, high=None):
    return T.tensor(data(name, *shape, low=low, high=high), dtype=T.float64, requires_grad=rg)


def canon(T, value):
    """Dicts as tuples of (key, value) pairs so the oracle's comparison walks them too."""
    if isinstance(value, dict):
        return ("dict",) + tuple((k, canon(T, v)) for k, v in value.items())
    if isinstance(value, tuple):
        return tuple(canon(T, v) for v in value)
    if isinstance(value, list):
        return [canon(T, v) for v in value]
    return value


def tensor_leaves(T, value):
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, T.Tensor):
            out.append(v)
        elif isinstance(v, (tuple, list)):
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
    return out


def check(case, graph=False, rtol=None, atol=None):
    """Run ``case`` on both libraries and assert everything observable agrees."""
    __tracebackhide__ = True
    ours, our_err, our_warnings = run_capture(case, gv)
    theirs, their_err, their_warnings = run_capture(case, torch)
    diffs = []
    # PyTorch's first forward-mode call imports internals that raise DeprecationWarnings of
    # its own (torch.jit.script); Python's default filters never show those to a user
    their_warnings = [w for w in their_warnings if w[0] != "DeprecationWarning"]
    if our_warnings != their_warnings:
        diffs.append(f"warnings ours={our_warnings} torch={their_warnings}")
    if compare_errors("raised", our_err, their_err, diffs):
        compare_any("out", canon(gv, ours), canon(torch, theirs), gv, torch, diffs, rtol=rtol, atol=atol)
        if graph and not diffs:
            for k, (a, b) in enumerate(zip(tensor_leaves(gv, ours), tensor_leaves(torch, theirs))):
                ga, gb = graph_signature(gv, a), graph_signature(torch, b)
                if ga != gb:
                    diffs.append(f"graph of tensor {k} differs:\n--- ours\n{ga}\n--- torch\n{gb}")
    assert_no_diffs(diffs)
    return ours


def cases(**named):
    return pytest.mark.parametrize("case", list(named.values()), ids=list(named))


# =====================================================================================
# torch.autograd.functional

def sin_times(T, x):
    return x.sin() * x


def scalar_of_one(T, x):
    # no ``x ** k``: the engine's PowBackward0 formula makes MulBackward0 where PyTorch's
    # C++ one makes MulBackward1, which the whole-graph comparisons would show
    return (x.sin() * x).sum() + (x * x * x.exp()).sum()


def two_to_tuple(T, x, y):
    return x * y.exp(), (x.sum() * y).tanh()


def scalar_of_two(T, x, y):
    return (x * y.exp()).sum() + (x ** 2).sum() * y.sum()


def AF(T):
    return T.autograd.functional


@pytest.mark.parametrize("rg", [False, True], ids=["plain", "rg"])
@pytest.mark.parametrize("create_graph", [False, True], ids=["nograph", "graph"])
@pytest.mark.parametrize("vectorize", [False, True], ids=["loop", "vectorized"])
def test_jacobian(rg, create_graph, vectorize):
    def one_input(T):
        return AF(T).jacobian(lambda x: sin_times(T, x), t(T, "x", 3, rg=rg), create_graph=create_graph,
                              vectorize=vectorize)

    def two_inputs(T):
        inputs = (t(T, "x", 2, rg=rg), t(T, "y", 3))
        return AF(T).jacobian(lambda x, y: two_to_tuple(T, x, y), inputs, create_graph=create_graph,
                              vectorize=vectorize)

    def scalar_out_matrix_in(T):
        return AF(T).jacobian(lambda x: (x.exp() * x).sum(), t(T, "m", 2, 3, rg=rg), create_graph=create_graph,
                              vectorize=vectorize)

    def tuple_of_one(T):
        return AF(T).jacobian(lambda x: (x.cos(),), (t(T, "x", 2, rg=rg),), create_graph=create_graph,
                              vectorize=vectorize)

    def unused_input(T):
        return AF(T).jacobian(lambda x, y: x * 2, (t(T, "x", 2, rg=rg), t(T, "y", 2)), create_graph=create_graph,
                              vectorize=vectorize)

    # The loop's graph is PyTorch's node for node; a vectorized one differs below the top
    # (PyTorch batches, this engine loops).
    for case in (one_input, two_inputs, scalar_out_matrix_in, tuple_of_one, unused_input):
        check(case, graph=create_graph and not vectorize)


@cases(
    constant_output=lambda T: AF(T).jacobian(lambda x: T.ones(2, dtype=T.float64), t(T, "x", 2), strict=True),
    unused_input=lambda T: AF(T).jacobian(lambda x, y: x * 2, (t(T, "x", 2), t(T, "y", 2)), strict=True),
    linear_with_graph=lambda T: AF(T).jacobian(lambda x: x * 2, t(T, "x", 2), strict=True, create_graph=True),
    strict_and_vectorize=lambda T: AF(T).jacobian(lambda x: x.sin(), t(T, "x", 2), strict=True, vectorize=True),
    strict_fine=lambda T: AF(T).jacobian(lambda x: x.sin(), t(T, "x", 2), strict=True),
    bad_strategy=lambda T: AF(T).jacobian(lambda x: x, t(T, "x", 2), strategy="sideways"),
    inputs_list=lambda T: AF(T).jacobian(lambda x: x, [t(T, "x", 2)]),
    inputs_tuple_with_int=lambda T: AF(T).jacobian(lambda x, y: x, (t(T, "x", 2), 3)),
    outputs_list=lambda T: AF(T).jacobian(lambda x: [x], t(T, "x", 2)),
    integer_input=lambda T: AF(T).jacobian(lambda x: x, T.tensor([1, 2])),
)
def test_jacobian_strict_and_bad_arguments(case):
    check(case)


@pytest.mark.parametrize("rg", [False, True], ids=["plain", "rg"])
def test_jacobian_forward_mode(rg):
    check(lambda T: AF(T).jacobian(lambda x: sin_times(T, x), t(T, "x", 3, rg=rg), vectorize=True,
                                   strategy="forward-mode"))
    check(lambda T: AF(T).jacobian(lambda x, y: two_to_tuple(T, x, y), (t(T, "x", 2, rg=rg), t(T, "y", 3)),
                                   vectorize=True, strategy="forward-mode"))
    check(lambda T: AF(T).jacobian(lambda x: (x * x).sum(), t(T, "m", 2, 2, rg=rg), vectorize=True,
                                   strategy="forward-mode"))


@cases(
    without_vectorize=lambda T: AF(T).jacobian(lambda x: x, t(T, "x", 2), strategy="forward-mode"),
    with_create_graph=lambda T: AF(T).jacobian(lambda x: x, t(T, "x", 2), strategy="forward-mode",
                                               create_graph=True, vectorize=True),
    with_strict=lambda T: AF(T).jacobian(lambda x: x, t(T, "x", 2), strategy="forward-mode", strict=True,
                                         vectorize=True),
    outputs_list=lambda T: AF(T).jacobian(lambda x: [x], t(T, "x", 2), strategy="forward-mode", vectorize=True),
)
def test_jacobian_forward_mode_errors(case):
    check(case)


@pytest.mark.parametrize("rg", [False, True], ids=["plain", "rg"])
@pytest.mark.parametrize("create_graph", [False, True], ids=["nograph", "graph"])
@pytest.mark.parametrize("vectorize", [False, True], ids=["loop", "vectorized"])
def test_hessian(rg, create_graph, vectorize):
    check(lambda T: AF(T).hessian(lambda x: scalar_of_one(T, x), t(T, "x", 3, rg=rg), create_graph=create_graph,
                                  vectorize=vectorize), graph=create_graph and not vectorize)
    check(lambda T: AF(T).hessian(lambda x, y: scalar_of_two(T, x, y), (t(T, "x", 2, rg=rg), t(T, "y", 3)),
                                  create_graph=create_graph, vectorize=vectorize))
    check(lambda T: AF(T).hessian(lambda x: (x ** 3).sum(), t(T, "m", 2, 2, rg=rg), create_graph=create_graph,
                                  vectorize=vectorize))


@pytest.mark.parametrize("rg", [False, True], ids=["plain", "rg"])
def test_hessian_forward_over_reverse(rg):
    check(lambda T: AF(T).hessian(lambda x: scalar_of_one(T, x), t(T, "x", 3, rg=rg), vectorize=True,
                                  outer_jacobian_strategy="forward-mode"))
    check(lambda T: AF(T).hessian(lambda x, y: scalar_of_two(T, x, y), (t(T, "x", 2, rg=rg), t(T, "y", 2)),
                                  vectorize=True, outer_jacobian_strategy="forward-mode"))


@cases(
    vector_output=lambda T: AF(T).hessian(lambda x: x * 2, t(T, "x", 2)),
    tuple_output=lambda T: AF(T).hessian(lambda x: (x.sum(),), t(T, "x", 2)),
    list_output=lambda T: AF(T).hessian(lambda x: [x.sum()], t(T, "x", 2)),
    strict_linear=lambda T: AF(T).hessian(lambda x: x.sum() * 2, t(T, "x", 2), strict=True),
    strict_quadratic=lambda T: AF(T).hessian(lambda x: (x * x).sum(), t(T, "x", 2), strict=True),
    strict_cubic=lambda T: AF(T).hessian(lambda x: (x ** 3).sum(), t(T, "x", 2), strict=True),
    strict_cubic_graph=lambda T: AF(T).hessian(lambda x: (x ** 3).sum(), t(T, "x", 2), strict=True,
                                               create_graph=True),
    bad_strategy=lambda T: AF(T).hessian(lambda x: x.sum(), t(T, "x", 2), outer_jacobian_strategy="up"),
    forward_without_vectorize=lambda T: AF(T).hessian(lambda x: x.sum(), t(T, "x", 2),
                                                      outer_jacobian_strategy="forward-mode"),
    forward_with_graph=lambda T: AF(T).hessian(lambda x: x.sum(), t(T, "x", 2), create_graph=True,
                                               outer_jacobian_strategy="forward-mode"),
    inputs_list=lambda T: AF(T).hessian(lambda x: x.sum(), [t(T, "x", 2)]),
)
def test_hessian_errors(case):
    check(case)


PRODUCTS = ("vjp", "jvp", "vhp", "hvp")


@pytest.mark.parametrize("rg", [False, True], ids=["plain", "rg"])
@pytest.mark.parametrize("create_graph", [False, True], ids=["nograph", "graph"])
@pytest.mark.parametrize("name", PRODUCTS)
def test_products(name, create_graph, rg):
    def fn(T):
        return getattr(AF(T), name)
    if name in ("vjp", "jvp"):
        # jvp's whole graph differs in the order one AddBackward0 takes its two inputs (the
        # engine sums gradients of the double backward in another order); its top is compared
        check(lambda T: fn(T)(lambda x: sin_times(T, x), t(T, "x", 3, rg=rg), t(T, "v", 3),
                              create_graph=create_graph), graph=create_graph and name == "vjp")
        v = ("v2", 2) if name == "jvp" else ("v6", 2, 3)
        check(lambda T: fn(T)(lambda x, y: (x.unsqueeze(1) * y.exp(), (x.sum() * y).tanh()),
                              (t(T, "x", 2, rg=rg), t(T, "y", 3)),
                              (t(T, *v), t(T, "w", 3)) if name == "vjp" else (t(T, "v2", 2), t(T, "w", 3)),
                              create_graph=create_graph))
        check(lambda T: fn(T)(lambda x: (x * x).sum() if name == "vjp" else x.exp(), t(T, "s", 1, rg=rg),
                              create_graph=create_graph))
    else:
        check(lambda T: fn(T)(lambda x: scalar_of_one(T, x), t(T, "x", 3, rg=rg), t(T, "v", 3),
                              create_graph=create_graph), graph=create_graph and name == "vhp")
        check(lambda T: fn(T)(lambda x, y: scalar_of_two(T, x, y), (t(T, "x", 2, rg=rg), t(T, "y", 3)),
                              (t(T, "v", 2), t(T, "w", 3)), create_graph=create_graph))
        check(lambda T: fn(T)(lambda x: (x ** 3).sum(), t(T, "s", 1, rg=rg), create_graph=create_graph))


@pytest.mark.parametrize("name", PRODUCTS)
def test_products_strict_and_bad_arguments(name):
    def fn(T):
        return getattr(AF(T), name)
    scalar = name in ("vhp", "hvp")
    check(lambda T: fn(T)(lambda x: x.sum() * 2 if scalar else x * 2, t(T, "x", 2), t(T, "v", 2), strict=True))
    check(lambda T: fn(T)(lambda x: (x * x).sum() if scalar else x * x, t(T, "x", 2), t(T, "v", 2), strict=True,
                          create_graph=True))
    check(lambda T: fn(T)(lambda x, y: (x * x).sum() if scalar else x * x, (t(T, "x", 2), t(T, "y", 2)),
                          (t(T, "v", 2), t(T, "w", 2)), strict=True))
    check(lambda T: fn(T)(lambda x: T.ones((), dtype=T.float64) if scalar else T.ones(2, dtype=T.float64),
                          t(T, "x", 2), t(T, "v", 2), strict=True))
    check(lambda T: fn(T)(lambda x: (x * x).sum() if scalar else x, t(T, "x", 2), t(T, "v", 3)))
    check(lambda T: fn(T)(lambda x, y: (x * y).sum() if scalar else (x, y), (t(T, "x", 2), t(T, "y", 2)),
                          (t(T, "v", 2),)))
    check(lambda T: fn(T)(lambda x: (x * x).sum() if scalar else x, t(T, "x", 2), (t(T, "v", 2), t(T, "w", 2))))
    check(lambda T: fn(T)(lambda x: (x * x).sum() if scalar else x * x, t(T, "x", 2)))
    check(lambda T: fn(T)(lambda x: x, [t(T, "x", 2)], t(T, "v", 2)))
    check(lambda T: fn(T)(lambda x: x, t(T, "x", 2), [t(T, "v", 2)]))
    if scalar:
        check(lambda T: fn(T)(lambda x: x * 2, t(T, "x", 2), t(T, "v", 2)))
        check(lambda T: fn(T)(lambda x: (x.sum(),), t(T, "x", 2), t(T, "v", 2)))


# =====================================================================================
# torch.func: grad and grad_and_value

def FN(T):
    return T.func


def cubic(x):
    return (x.sin() * x ** 2).sum()


@cases(
    plain=lambda T: FN(T).grad(cubic)(t(T, "x", 3)),
    input_requires_grad=lambda T: FN(T).grad(cubic)(t(T, "x", 3, rg=True)),
    closure_requires_grad=lambda T: FN(T).grad(lambda x, w=t(T, "w", 3, rg=True): (x * x * w).sum())(t(T, "x", 3)),
    matrix=lambda T: FN(T).grad(lambda m: (m @ m).trace())(t(T, "m", 3, 3)),
    second_argument=lambda T: FN(T).grad(lambda x, y: (x * y.exp()).sum(), argnums=1)(t(T, "x", 3), t(T, "y", 3)),
    negative_argnum=lambda T: FN(T).grad(lambda x, y: (x * y.exp()).sum(), argnums=-2)(t(T, "x", 3), t(T, "y", 3)),
    argnums_tuple=lambda T: FN(T).grad(lambda x, y: (x * y.exp()).sum(), argnums=(1, 0))(t(T, "x", 3),
                                                                                        t(T, "y", 3)),
    has_aux=lambda T: FN(T).grad(lambda x: (x.sum() * 2, {"sq": x * x, "n": (x.exp(),)}), has_aux=True)(
        t(T, "x", 2)),
    dict_argument=lambda T: FN(T).grad(lambda p, x: (p["w"] * x + p["b"]).pow(2).sum())(
        {"w": t(T, "w", 3), "b": t(T, "b", 3)}, t(T, "x", 3)),
    tuple_argument=lambda T: FN(T).grad(lambda p: (p[0] * p[1][0]).sum())((t(T, "a", 2), [t(T, "b", 2)])),
    keyword_passed_through=lambda T: FN(T).grad(lambda x, scale=1.0: (x * scale).exp().sum())(t(T, "x", 2),
                                                                                              scale=3.0),
    output_independent=lambda T: FN(T).grad(lambda x: T.tensor(1.0, dtype=T.float64))(t(T, "x", 2)),
    partly_unused=lambda T: FN(T).grad(lambda x, y: x.sum(), argnums=(0, 1))(t(T, "x", 2), t(T, "y", 2)),
    nested=lambda T: FN(T).grad(FN(T).grad(lambda x: x.sin() * x ** 3))(t(T, "s", low=-1, high=1)),
    nested_requires_grad=lambda T: FN(T).grad(FN(T).grad(lambda x: x.sin() * x ** 3))(
        t(T, "s", low=-1, high=1, rg=True)),
    third_order=lambda T: FN(T).grad(FN(T).grad(FN(T).grad(lambda x: x.exp() * x.cos())))(t(T, "s", low=0, high=1)),
    under_no_grad=lambda T: _under_no_grad(T, lambda: FN(T).grad(cubic)(t(T, "x", 3, rg=True))),
    no_grad_inside=lambda T: FN(T).grad(lambda x: _no_grad_part(T, x))(t(T, "x", 3)),
)
def test_grad(case):
    check(case)


def _under_no_grad(T, fn):
    with T.no_grad():
        return fn()


def _no_grad_part(T, x):
    with T.no_grad():
        c = x * 2
    return (c * x).sum()


@cases(
    plain=lambda T: FN(T).grad_and_value(cubic)(t(T, "x", 3)),
    input_requires_grad=lambda T: FN(T).grad_and_value(cubic)(t(T, "x", 3, rg=True)),
    has_aux=lambda T: FN(T).grad_and_value(lambda x: (x.sum() ** 2, x.cos()), has_aux=True)(t(T, "x", 2)),
    argnums=lambda T: FN(T).grad_and_value(lambda x, y: (x * y).sum(), argnums=(0, 1))(t(T, "x", 2), t(T, "y", 2)),
    closure_requires_grad=lambda T: FN(T).grad_and_value(lambda x, w=t(T, "w", 2, rg=True): (x * w).sum())(
        t(T, "x", 2)),
)
def test_grad_and_value(case):
    check(case)


@cases(
    argnums_list=lambda T: FN(T).grad(cubic, argnums=[0])(t(T, "x", 2)),
    argnums_out_of_range=lambda T: FN(T).grad(cubic, argnums=3)(t(T, "x", 2)),
    argnums_negative_out_of_range=lambda T: FN(T).grad(cubic, argnums=-2)(t(T, "x", 2)),
    argnums_empty=lambda T: FN(T).grad(cubic, argnums=())(t(T, "x", 2)),
    argnums_repeated=lambda T: FN(T).grad(lambda x, y: x.sum(), argnums=(0, 0))(t(T, "x", 2), t(T, "y", 2)),
    argnum_float=lambda T: FN(T).grad(cubic, argnums=(0.5,))(t(T, "x", 2)),
    vector_output=lambda T: FN(T).grad(lambda x: x * 2)(t(T, "x", 2)),
    list_output=lambda T: FN(T).grad(lambda x: [x.sum()])(t(T, "x", 2)),
    aux_not_pair=lambda T: FN(T).grad(lambda x: x.sum(), has_aux=True)(t(T, "x", 2)),
    aux_not_tensor=lambda T: FN(T).grad(lambda x: (x.sum(), 3), has_aux=True)(t(T, "x", 2)),
    argument_not_tensor=lambda T: FN(T).grad(lambda x: x)(3.0),
    integer_argument=lambda T: FN(T).grad(lambda x: x.sum())(T.tensor([1, 2])),
    value_and_grad_vector=lambda T: FN(T).grad_and_value(lambda x: x)(t(T, "x", 2)),
)
def test_grad_errors(case):
    check(case)


def test_grad_keeps_the_function_name():
    assert gv.func.grad(cubic).__name__ == torch.func.grad(cubic).__name__ == "cubic"
    assert gv.func.vmap(cubic).__name__ == torch.func.vmap(cubic).__name__ == "cubic"


# =====================================================================================
# torch.func: vjp and jvp

def _vjp_twice(T, f, primals, cotangents, **kwargs):
    out, fn = FN(T).vjp(f, *primals, **kwargs)
    return out, fn(cotangents), fn(cotangents)


@cases(
    plain=lambda T: _vjp_twice(T, lambda x: x.sin() * x, (t(T, "x", 3),), t(T, "v", 3)),
    input_requires_grad=lambda T: _vjp_twice(T, lambda x: x.sin() * x, (t(T, "x", 3, rg=True),), t(T, "v", 3)),
    two_primals_tuple_out=lambda T: _vjp_twice(T, lambda x, y: (x * y, (x + y).exp()), (t(T, "x", 2), t(T, "y", 2)),
                                               (t(T, "v", 2), t(T, "w", 2))),
    dict_out=lambda T: _vjp_twice(T, lambda x: {"a": x * 2, "b": [x.sum()]}, (t(T, "x", 2),),
                                  {"a": t(T, "v", 2), "b": [t(T, "s")]}),
    unused_primal=lambda T: _vjp_twice(T, lambda x, y: x * 2, (t(T, "x", 2), t(T, "y", 2)), t(T, "v", 2)),
    has_aux=lambda T: FN(T).vjp(lambda x: (x.exp(), x.cos()), t(T, "x", 2), has_aux=True)[::2],
    no_graph_under_no_grad=lambda T: _vjp_no_grad(T),
    create_graph_false=lambda T: FN(T).vjp(lambda x: x ** 3, t(T, "x", 2, rg=True))[1](t(T, "v", 2),
                                                                                       create_graph=False),
)
def test_func_vjp(case):
    check(case)


def _vjp_no_grad(T):
    _, fn = FN(T).vjp(lambda x: x ** 3, t(T, "x", 2, rg=True))
    with T.no_grad():
        return fn(t(T, "v", 2))


@cases(
    output_int=lambda T: FN(T).vjp(lambda x: 1, t(T, "x", 2)),
    output_none=lambda T: FN(T).vjp(lambda x: None, t(T, "x", 2)),
    output_integer_tensor=lambda T: FN(T).vjp(lambda x: x.long(), t(T, "x", 2)),
    primal_not_tensor=lambda T: FN(T).vjp(lambda x: x, 2.0),
    aux_not_pair=lambda T: FN(T).vjp(lambda x: x, t(T, "x", 2), has_aux=True),
    cotangent_shape=lambda T: FN(T).vjp(lambda x: x, t(T, "x", 2))[1](t(T, "v", 3)),
    cotangent_structure=lambda T: FN(T).vjp(lambda x: x, t(T, "x", 2))[1]((t(T, "v", 2),)),
    cotangent_list_for_tuple=lambda T: FN(T).vjp(lambda x: (x, x), t(T, "x", 2))[1]([t(T, "v", 2), t(T, "v", 2)]),
)
def test_func_vjp_errors(case):
    check(case)


@cases(
    plain=lambda T: FN(T).jvp(lambda x: x.sin() * x, (t(T, "x", 3),), (t(T, "v", 3),)),
    input_requires_grad=lambda T: FN(T).jvp(lambda x: x.sin() * x, (t(T, "x", 3, rg=True),), (t(T, "v", 3),)),
    two_primals=lambda T: FN(T).jvp(lambda x, y: (x * y, (x + y).exp()), (t(T, "x", 2), t(T, "y", 2)),
                                    (t(T, "v", 2), t(T, "w", 2))),
    independent_output=lambda T: FN(T).jvp(lambda x: T.ones(2, dtype=T.float64), (t(T, "x", 2),), (t(T, "v", 2),)),
    strict_independent=lambda T: FN(T).jvp(lambda x: T.ones(2, dtype=T.float64), (t(T, "x", 2),),
                                           (t(T, "v", 2),), strict=True),
    has_aux=lambda T: FN(T).jvp(lambda x: (x.exp(), x.cos()), (t(T, "x", 2),), (t(T, "v", 2),), has_aux=True),
    primals_not_tuple=lambda T: FN(T).jvp(lambda x: x, t(T, "x", 2), t(T, "v", 2)),
    structure_mismatch=lambda T: FN(T).jvp(lambda x: x, (t(T, "x", 2),), [t(T, "v", 2)]),
    tangent_size=lambda T: FN(T).jvp(lambda x: x, (t(T, "x", 2),), (t(T, "v", 3),)),
    empty=lambda T: FN(T).jvp(lambda: 1, (), ()),
    primal_not_tensor=lambda T: FN(T).jvp(lambda x: x, (3,), (3,)),
    output_not_tensor=lambda T: FN(T).jvp(lambda x: (x, 3), (t(T, "x", 2),), (t(T, "v", 2),)),
)
def test_func_jvp(case):
    check(case)


# =====================================================================================
# torch.func: jacrev, jacfwd, hessian

@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("rg", [False, True], ids=["plain", "rg"])
def test_jacobians(transform, rg):
    def jac(T, *args, **kwargs):
        return getattr(FN(T), transform)(*args, **kwargs)
    check(lambda T: jac(T, lambda x: x.sin() * x)(t(T, "x", 3, rg=rg)))
    check(lambda T: jac(T, lambda x: (x * x).sum())(t(T, "m", 2, 3, rg=rg)))
    # nonlinear: for a function linear in a primal that requires grad, PyTorch's forward-mode
    # tangents may still carry a graph (its forward formulas), which reverse mode has not
    check(lambda T: jac(T, lambda x: x.sin() * 3)(t(T, "s", rg=rg)))
    check(lambda T: jac(T, lambda x: x * 3)(t(T, "s")))
    check(lambda T: jac(T, lambda x, y: (x * y.exp(), (x.sum() * y).tanh()), argnums=(0, 1))(
        t(T, "x", 2, rg=rg), t(T, "y", 2)))
    check(lambda T: jac(T, lambda x, y: (x.unsqueeze(1) * y).exp(), argnums=1)(t(T, "x", 2), t(T, "y", 3, rg=rg)))
    check(lambda T: jac(T, lambda p: {"out": p["w"] * p["b"].sum()})({"w": t(T, "w", 2, rg=rg), "b": t(T, "b", 3)}))
    check(lambda T: jac(T, lambda x: (x.exp(), x.cos()), has_aux=True)(t(T, "x", 2, rg=rg)))
    check(lambda T: jac(T, lambda x, y: x * 2)(t(T, "x", 2), t(T, "y", 2)))


def test_jacrev_chunk_size_and_argnums_none():
    check(lambda T: FN(T).jacrev(lambda x: x.sin() * x, chunk_size=2)(t(T, "x", 5)))
    check(lambda T: FN(T).jacrev(lambda x: x.sin() * x, chunk_size=1)(t(T, "x", 3)))
    check(lambda T: FN(T).jacfwd(lambda x, y: x * y, argnums=None)(t(T, "x", 2), t(T, "y", 2)))


@cases(
    jacrev_chunk_size=lambda T: FN(T).jacrev(lambda x: x, chunk_size=0),
    jacrev_complex_input=lambda T: FN(T).jacrev(lambda x: x)(T.ones(2, dtype=T.complex64)),
    jacfwd_complex_input=lambda T: FN(T).jacfwd(lambda x: x)(T.ones(2, dtype=T.complex64)),
    jacrev_argnums_list=lambda T: FN(T).jacrev(lambda x: x, argnums=[0])(t(T, "x", 2)),
    jacrev_argnum_range=lambda T: FN(T).jacrev(lambda x: x, argnums=1)(t(T, "x", 2)),
    jacrev_argnums_none=lambda T: FN(T).jacrev(lambda x: x, argnums=None)(t(T, "x", 2)),
    jacfwd_randomness=lambda T: FN(T).jacfwd(lambda x: x, randomness="sometimes")(t(T, "x", 2)),
    jacrev_output_int=lambda T: FN(T).jacrev(lambda x: 3)(t(T, "x", 2)),
    jacfwd_output_int=lambda T: FN(T).jacfwd(lambda x: (x, 3))(t(T, "x", 2)),
    jacrev_aux_not_pair=lambda T: FN(T).jacrev(lambda x: x, has_aux=True)(t(T, "x", 2)),
    jacfwd_aux_not_pair=lambda T: FN(T).jacfwd(lambda x: x, has_aux=True)(t(T, "x", 2)),
)
def test_jacobian_errors(case):
    check(case)


@pytest.mark.parametrize("rg", [False, True], ids=["plain", "rg"])
def test_func_hessian(rg):
    check(lambda T: FN(T).hessian(lambda x: (x.sin() * x ** 2).sum())(t(T, "x", 3, rg=rg)))
    check(lambda T: FN(T).hessian(lambda m: (m.exp() * m).sum())(t(T, "m", 2, 2, rg=rg)))
    check(lambda T: FN(T).hessian(lambda x, y: (x.unsqueeze(1) * y.exp()).sum(), argnums=(0, 1))(
        t(T, "x", 2, rg=rg), t(T, "y", 3)))
    check(lambda T: FN(T).hessian(lambda x: x.sin() * x)(t(T, "x", 2, rg=rg)))


def test_transforms_compose():
    check(lambda T: FN(T).jacrev(FN(T).grad(lambda x: (x ** 3 * x.sin()).sum()))(t(T, "x", 3)))
    check(lambda T: FN(T).grad(lambda x: FN(T).jacrev(lambda y: y.sin() * y)(x).sum())(t(T, "x", 3)))
    check(lambda T: FN(T).vmap(FN(T).jacrev(lambda x: x.sin() * x.sum()))(t(T, "b", 2, 3)))


# =====================================================================================
# torch.func.vmap

def dot(x, y):
    return (x * y).sum()


def VM(T, *args, **kwargs):
    return FN(T).vmap(*args, **kwargs)


@cases(
    default=lambda T: VM(T, lambda x: x.sin() * x.sum())(t(T, "b", 4, 3)),
    in_dim_1=lambda T: VM(T, lambda x: x.sin() * x.sum(), in_dims=1)(t(T, "b", 3, 4)),
    in_dim_negative=lambda T: VM(T, lambda x: x.cumsum(0), in_dims=-1)(t(T, "b", 3, 4)),
    two_args=lambda T: VM(T, dot)(t(T, "a", 4, 3), t(T, "b", 4, 3)),
    broadcast_none=lambda T: VM(T, dot, in_dims=(0, None))(t(T, "a", 4, 3), t(T, "w", 3)),
    mixed_dims=lambda T: VM(T, dot, in_dims=(1, 0))(t(T, "a", 3, 4), t(T, "b", 4, 3)),
    nested_in_dims=lambda T: VM(T, lambda p, x: p[0] * x + p[1], in_dims=((None, 0), 0))(
        (t(T, "w", 3), t(T, "c", 2, 3)), t(T, "x", 2, 3)),
    dict_input=lambda T: VM(T, lambda d: d["a"] * d["b"], in_dims=({"a": 0, "b": None},))(
        {"a": t(T, "a", 2, 3), "b": t(T, "b", 3)}),
    out_dim_1=lambda T: VM(T, lambda x: x * 2, out_dims=1)(t(T, "b", 4, 3)),
    out_dim_negative=lambda T: VM(T, lambda x: x.outer(x), out_dims=-1)(t(T, "b", 2, 3)),
    tuple_out_dims=lambda T: VM(T, lambda x: (x.sum(), x * 2), out_dims=(0, 1))(t(T, "b", 2, 3)),
    out_dim_none=lambda T: VM(T, lambda x, w: (x * w, w * 2), in_dims=(0, None), out_dims=(0, None))(
        t(T, "b", 2, 3), t(T, "w", 3)),
    dict_output=lambda T: VM(T, lambda x: {"s": x.sum(), "p": [x.prod()]})(t(T, "b", 3, 2)),
    kwargs_unmapped=lambda T: VM(T, lambda x, scale=1.0: x * scale)(t(T, "b", 2, 3), scale=t(T, "s", 3)),
    nested_vmap=lambda T: VM(T, VM(T, dot, in_dims=(0, None)), in_dims=(None, 0))(t(T, "a", 2, 3), t(T, "b", 4, 3)),
    requires_grad_input=lambda T: VM(T, lambda x: x.exp())(t(T, "b", 2, 3, rg=True)).detach(),
    single_element_tuple_out_dims=lambda T: VM(T, lambda x: x * 2, out_dims=(1,))(t(T, "b", 2, 3)),
    chunked=lambda T: VM(T, lambda x: x.sin(), chunk_size=2)(t(T, "b", 5, 2)),
    chunked_requires_grad=lambda T: VM(T, lambda x: (x.sin(), x * 2), chunk_size=2, out_dims=(0, 1))(
        t(T, "b", 5, 2, rg=True)),
    one_chunk_requires_grad=lambda T: VM(T, lambda x: x.sin(), chunk_size=9)(t(T, "b", 5, 2, rg=True)),
    top_level_vmap=lambda T: T.vmap(dot)(t(T, "a", 4, 3), t(T, "b", 4, 3)),
    random_same=lambda T: _rows_equal(VM(T, lambda x: x + T.rand(3, dtype=T.float64), randomness="same")(
        T.zeros(4, 3, dtype=T.float64))),
    random_different_shape=lambda T: VM(T, lambda x: x + T.rand(3), randomness="different")(T.zeros(4, 3)).shape,
)
def test_vmap(case):
    check(case)


def _rows_equal(batch):
    return bool((batch == batch[0]).all())


def test_vmap_per_sample_gradients():
    def per_sample(T):
        w = t(T, "w", 3)
        x = t(T, "x", 5, 3)
        y = t(T, "y", 5)

        def loss(w, x, y):
            return ((x * w).sum() - y) ** 2
        return VM(T, FN(T).grad(loss), in_dims=(None, 0, 0))(w, x, y)
    check(per_sample)


def test_vmap_output_requires_grad_and_backward():
    def case(T):
        x = t(T, "b", 3, 2, rg=True)
        w = t(T, "w", 2, rg=True)
        out = VM(T, lambda r: (r * w).sum().exp())(x)
        out.sum().backward()
        return out.requires_grad, out.detach(), x.grad, w.grad
    check(case)


def _identity_module(T):
    return T.nn.Identity()


@cases(
    randomness_bad=lambda T: VM(T, lambda x: x, randomness="bad"),
    chunk_size_zero=lambda T: VM(T, lambda x: x, chunk_size=0),
    no_inputs=lambda T: VM(T, T.sin)(),
    in_dims_list=lambda T: VM(T, T.sin, in_dims=[0])(t(T, "x", 2)),
    in_dims_str=lambda T: VM(T, T.sin, in_dims="a")(t(T, "x", 2)),
    in_dims_structure=lambda T: VM(T, T.sin, in_dims=(0, 1))(t(T, "x", 2)),
    in_dims_nested_structure=lambda T: VM(T, T.add, in_dims=(0, [1]))(t(T, "x", 2, 3), t(T, "y", 3, 2)),
    in_dim_float=lambda T: VM(T, T.sin, in_dims=(0.5,))(t(T, "x", 2)),
    in_dim_range=lambda T: VM(T, T.sin, in_dims=(1,))(t(T, "x", 2)),
    in_dim_negative_range=lambda T: VM(T, T.sin, in_dims=-3)(t(T, "x", 2, 2)),
    all_none=lambda T: VM(T, T.sin, in_dims=(None,))(t(T, "x", 2)),
    mapped_non_tensor=lambda T: VM(T, lambda a, b: a, in_dims=(0, 0))(t(T, "x", 2), 3),
    batch_sizes_differ=lambda T: VM(T, T.add)(t(T, "x", 2, 3), t(T, "y", 3, 3)),
    out_dims_str=lambda T: VM(T, T.sin, out_dims="a")(t(T, "x", 2)),
    out_dims_structure=lambda T: VM(T, T.sin, out_dims=(0, 1))(t(T, "x", 2)),
    out_dims_tuple_output=lambda T: VM(T, lambda x: (x, x), out_dims=(0, 1, 2))(t(T, "x", 2)),
    out_dim_range=lambda T: VM(T, T.sin, out_dims=5)(t(T, "x", 2)),
    output_not_tensor=lambda T: VM(T, lambda x: 3)(t(T, "x", 2)),
    batched_output_with_none=lambda T: VM(T, lambda x: x, out_dims=None)(t(T, "x", 2)),
    random_in_error_mode=lambda T: VM(T, lambda x: x + T.randn(2))(T.zeros(3, 2)),
    # messages name a module by its repr and a partial by its function
    module_name=lambda T: VM(T, _identity_module(T), in_dims="x")(t(T, "x", 2)),
    partial_name=lambda T: VM(T, functools.partial(T.add, alpha=2), in_dims=[0])(t(T, "x", 2), t(T, "y", 2)),
)
def test_vmap_errors(case):
    check(case)


def _grad_then_backward(T):
    x = t(T, "x", 3, rg=True)
    g = FN(T).grad(lambda x: (x.sin() * x).sum())(x)
    g.sum().backward()
    return g.detach(), x.grad


def _closure_graph_then_backward(T):
    a = t(T, "a", 3, rg=True)
    h = a * 2
    g = FN(T).grad(lambda x: (x * h).exp().sum())(t(T, "x", 3))
    g.sum().backward()
    return g, a.grad


def _jacobian_then_backward(T):
    x = t(T, "x", 3, rg=True)
    jac = AF(T).jacobian(lambda x: x.sin() * x, x, create_graph=True)
    jac.sum().backward()
    return jac.detach(), x.grad


def _vmap_module(T):
    lin = T.nn.Linear(3, 2).double()
    with T.no_grad():
        lin.weight.copy_(t(T, "w", 2, 3))
        lin.bias.copy_(t(T, "bb", 2))
    return VM(T, lin)(t(T, "b", 4, 3)).detach()


@cases(
    grad_then_backward=_grad_then_backward,
    closure_graph_then_backward=_closure_graph_then_backward,
    jacobian_then_backward=_jacobian_then_backward,
    vmap_of_module=_vmap_module,
    vmap_of_grad_with_aux=lambda T: VM(T, FN(T).grad(lambda x: ((x * x).sum(), x.mean()), has_aux=True))(
        t(T, "b", 3, 2)),
    vmap_python_number_out_dim_none=lambda T: VM(T, lambda x: (x * 2, 1.5), out_dims=(0, None))(t(T, "b", 3, 2)),
    vmap_empty_batch=lambda T: VM(T, lambda x: x * 2)(T.zeros(0, 3)),
    vmap_out_dims_list=lambda T: VM(T, lambda x: [x, x.sum()], out_dims=[1, 0])(t(T, "x", 2, 3)),
    vmap_out_dims_list_for_tuple=lambda T: VM(T, lambda x: (x, x), out_dims=[0, 1])(t(T, "x", 2, 3)),
    vmap_in_dims_dict_keys=lambda T: VM(T, lambda d: d["a"], in_dims=({"b": 0},))({"a": t(T, "a", 2)}),
    vmap_in_dims_short_tuple=lambda T: VM(T, T.add, in_dims=(0,))(t(T, "x", 2), t(T, "y", 2)),
    grad_in_place_inside=lambda T: FN(T).grad(lambda x: (x * 2).add_(1).pow(2).sum())(t(T, "x", 3)),
    grad_keyword_requires_grad=lambda T: FN(T).grad(lambda x, w=None: (x * w).sum())(
        t(T, "x", 2), w=t(T, "w", 2, rg=True)),
    jacrev_dict_output=lambda T: FN(T).jacrev(lambda a, b: {"o": a * b, "p": (a.sum(),)}, argnums=(0, 1))(
        t(T, "a", 2), t(T, "b", 2)),
    jacfwd_dict_output=lambda T: FN(T).jacfwd(lambda a, b: {"o": a * b, "p": (a.sum(),)}, argnums=(0, 1))(
        t(T, "a", 2), t(T, "b", 2)),
    jacobian_float32=lambda T: AF(T).jacobian(lambda x: x.exp(), T.tensor([0.5, 1.0])),
    jacrev_float32=lambda T: FN(T).jacrev(lambda x: x.exp())(T.tensor([0.5, 1.0])),
    vjp_of_return_type=lambda T: FN(T).vjp(lambda x: T.max(x, 0), t(T, "x", 3, 2)),
    jvp_aux_requires_grad=lambda T: FN(T).jvp(lambda x: (x.exp(), x.cos()), (t(T, "x", 2, rg=True),),
                                              (t(T, "v", 2),), has_aux=True),
)
def test_compositions_and_corners(case):
    check(case)


def _no_grad(T, fn):
    with T.no_grad():
        return fn()


@pytest.mark.parametrize("create_graph", [False, True], ids=["nograph", "graph"])
def test_functional_under_no_grad(create_graph):
    x, v = ("x", 3), ("v", 3)
    for name in PRODUCTS:
        f = scalar_of_one if name in ("vhp", "hvp") else sin_times
        check(lambda T: _no_grad(T, lambda: getattr(AF(T), name)(lambda a: f(T, a), t(T, *x, rg=True), t(T, *v),
                                                                 create_graph=create_graph)))
    check(lambda T: _no_grad(T, lambda: AF(T).jacobian(lambda a: sin_times(T, a), t(T, *x, rg=True),
                                                       create_graph=create_graph)))
    check(lambda T: _no_grad(T, lambda: AF(T).hessian(lambda a: scalar_of_one(T, a), t(T, *x, rg=True),
                                                      create_graph=create_graph)))


@cases(
    jacobian_forward_mode=lambda T: AF(T).jacobian(lambda a: sin_times(T, a), t(T, "x", 3, rg=True), vectorize=True,
                                                   strategy="forward-mode"),
    hessian_forward_over_reverse=lambda T: AF(T).hessian(lambda a: scalar_of_one(T, a), t(T, "x", 3, rg=True),
                                                         vectorize=True, outer_jacobian_strategy="forward-mode"),
    jacrev=lambda T: FN(T).jacrev(lambda a: sin_times(T, a))(t(T, "x", 3, rg=True)),
    jacfwd=lambda T: FN(T).jacfwd(lambda a: sin_times(T, a))(t(T, "x", 3, rg=True)),
    vmap=lambda T: VM(T, lambda a: sin_times(T, a))(t(T, "x", 2, 3, rg=True)),
    jvp=lambda T: FN(T).jvp(lambda a: sin_times(T, a), (t(T, "x", 3, rg=True),), (t(T, "v", 3),)),
    vjp=lambda T: FN(T).vjp(lambda a: sin_times(T, a), t(T, "x", 3, rg=True))[0],
)
def test_transforms_under_no_grad(case):
    check(lambda T: _no_grad(T, lambda: case(T)))


# =====================================================================================
# torch.func.functional_call and stack_module_state

class Block:
    """A small module family written once for both libraries."""

    @staticmethod
    def make(T):
        class Net(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = T.nn.Linear(3, 2).double()
                self.register_buffer("shift", T.zeros(2, dtype=T.float64))

            def forward(self, x, scale=1.0):
                return (self.fc(x) + self.shift) * scale

        net = Net()
        with T.no_grad():
            net.fc.weight.copy_(t(T, "fcw", 2, 3))
            net.fc.bias.copy_(t(T, "fcb", 2))
            net.shift.copy_(t(T, "shift", 2))
        return net


def _call_and_report(T, net, *args, **kwargs):
    out = FN(T).functional_call(net, *args, **kwargs)
    return out, net.fc.weight.detach().clone(), net.shift.clone(), sorted(n for n, _ in net.named_parameters())


@cases(
    new_weight=lambda T: _call_and_report(T, Block.make(T), {"fc.weight": t(T, "nw", 2, 3)}, (t(T, "x", 4, 3),)),
    requires_grad_params=lambda T: _call_and_report(
        T, Block.make(T), {"fc.weight": t(T, "nw", 2, 3, rg=True), "fc.bias": t(T, "nb", 2, rg=True)},
        t(T, "x", 4, 3)),
    buffer=lambda T: _call_and_report(T, Block.make(T), {"shift": t(T, "ns", 2)}, (t(T, "x", 1, 3),)),
    list_of_dicts=lambda T: _call_and_report(T, Block.make(T), [{"fc.weight": t(T, "nw", 2, 3)},
                                                                {"shift": t(T, "ns", 2)}], (t(T, "x", 2, 3),)),
    kwargs=lambda T: _call_and_report(T, Block.make(T), {}, (t(T, "x", 2, 3),), {"scale": 3.0}),
    strict_complete=lambda T: _call_and_report(
        T, Block.make(T), {"fc.weight": t(T, "nw", 2, 3), "fc.bias": t(T, "nb", 2), "shift": t(T, "ns", 2)},
        (t(T, "x", 2, 3),), strict=True),
    strict_missing_and_unexpected=lambda T: _call_and_report(T, Block.make(T), {"fc.w": t(T, "nw", 2, 3)},
                                                             (t(T, "x", 2, 3),), strict=True),
    not_a_dict=lambda T: FN(T).functional_call(Block.make(T), 3, (t(T, "x", 2, 3),)),
    list_with_non_dict=lambda T: FN(T).functional_call(Block.make(T), [{}, 3], (t(T, "x", 2, 3),)),
    repeated_keys=lambda T: FN(T).functional_call(Block.make(T), ({"shift": t(T, "a", 2)}, {"shift": t(T, "b", 2)}),
                                                  (t(T, "x", 2, 3),)),
    value_not_tensor=lambda T: FN(T).functional_call(Block.make(T), {"shift": 3}, (t(T, "x", 2, 3),)),
    no_such_submodule=lambda T: FN(T).functional_call(Block.make(T), {"foo.bar": t(T, "a", 2)}, (t(T, "x", 2, 3),)),
    not_a_submodule=lambda T: FN(T).functional_call(Block.make(T), {"fc.weight.x": t(T, "a", 2)},
                                                    (t(T, "x", 2, 3),)),
    restored_after_error=lambda T: _restored_after_error(T),
    batch_norm_buffers_updated=lambda T: _batch_norm_buffers(T),
)
def test_functional_call(case):
    check(case)


def _batch_norm_buffers(T):
    bn = T.nn.BatchNorm1d(3).double()
    running_mean = T.zeros(3, dtype=T.float64)
    out = FN(T).functional_call(bn, {"running_mean": running_mean}, (t(T, "x", 4, 3),))
    return out, running_mean, bn.running_mean, bn.num_batches_tracked


def _restored_after_error(T):
    net = Block.make(T)
    try:
        FN(T).functional_call(net, {"fc.weight": t(T, "nw", 2, 2)}, (t(T, "x", 2, 3),))
    except RuntimeError as e:
        message = str(e)
    return message, net.fc.weight.detach().clone(), type(net.fc.weight).__name__


def test_functional_call_with_grad_over_parameters():
    def case(T):
        net = Block.make(T)
        params = {k: v.detach() for k, v in net.named_parameters()}
        x, y = t(T, "x", 5, 3), t(T, "y", 5, 2)

        def loss(p, x, y):
            return ((FN(T).functional_call(net, p, (x,)) - y) ** 2).mean()
        grads = FN(T).grad(loss)(params, x, y)
        per_sample = VM(T, FN(T).grad(loss), in_dims=(None, 0, 0))(params, x, y)
        return grads, per_sample
    check(case)


def test_functional_call_tied_weights():
    def make(T):
        net = T.nn.Sequential(T.nn.Linear(2, 2, bias=False).double(), T.nn.Linear(2, 2, bias=False).double())
        net[1].weight = net[0].weight
        with T.no_grad():
            net[0].weight.copy_(t(T, "w", 2, 2))
        return net
    x = ("x", 1, 2)
    check(lambda T: FN(T).functional_call(make(T), {"0.weight": t(T, "a", 2, 2)}, t(T, *x)))
    check(lambda T: FN(T).functional_call(make(T), {"0.weight": t(T, "a", 2, 2)}, t(T, *x), tie_weights=False))
    check(lambda T: FN(T).functional_call(make(T), {"0.weight": t(T, "a", 2, 2), "1.weight": t(T, "b", 2, 2)},
                                          t(T, *x)))


def test_stack_module_state():
    def case(T):
        models = [Block.make(T) for _ in range(3)]
        params, buffers = FN(T).stack_module_state(models)
        return params, buffers
    check(case)
    check(lambda T: FN(T).stack_module_state([]))


# =====================================================================================
# a script through `gradviz run --json`, against the same script on real torch

SCRIPT = '''\
import torch
import torch.func
from torch.func import grad, vmap, jacrev, functional_call
from torch.autograd.functional import jacobian, hessian
import torch.autograd.functional as AF
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
w = torch.tensor([1.5, 0.25, -0.5])
# %%
J = jacobian(lambda v: v.sin() * w, x)
Jg = jacobian(lambda v: v.sin() * w, x, create_graph=True)
H = hessian(lambda v: (v ** 3).sum(), x)
out, vj = AF.vjp(lambda v: v.exp(), x, torch.ones(3))
print(J.requires_grad, Jg.grad_fn is not None, H.shape)
# %%
g = grad(lambda v: (v.sin() * v).sum())(x)
g0 = grad(lambda v: (v.sin() * v).sum())(w)
gg = grad(grad(lambda s: s ** 4))(torch.tensor(1.5))
Jr = jacrev(lambda v: v.cumsum(0))(w)
batched = vmap(lambda r: (r * w).sum())(torch.arange(6.0).reshape(2, 3))
per_row = torch.func.vmap(grad(lambda r: (r ** 2 * w).sum()))(torch.ones(2, 3))
print(g.grad_fn, g0.requires_grad)
# %%
net = torch.nn.Linear(3, 1)
with torch.no_grad():
    net.weight.copy_(torch.tensor([[1.0, 2.0, 3.0]]))
    net.bias.fill_(0.5)
y = functional_call(net, {"weight": torch.ones(1, 3)}, (w,))
still = net.weight.detach().clone()
# %%
jacobian(lambda v: v, [x])
# %%
vmap(torch.sin, in_dims=(0, 1))(w)
# %%
bad = grad(lambda v: v * 2)(w)
'''

TORCH_RECORDER = r'''
import ast, json, sys, io, contextlib
import torch
src = open(sys.argv[1]).read()
cells, cur, start = [], [], 1
for i, line in enumerate(src.splitlines(keepends=True), 1):
    if line.startswith("# %%"):
        if "".join(cur).strip():
            cells.append((start, "".join(cur)))
        cur, start = [], i + 1
    else:
        cur.append(line)
if "".join(cur).strip():
    cells.append((start, "".join(cur)))
ns = {"__name__": "__main__"}
out = []
for line, code in cells:
    buf, error = io.StringIO(), None
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(code, sys.argv[1], "exec"), ns)
        except Exception as e:
            error = {"type": type(e).__name__, "message": str(e)}
    tensors = []
    for name, v in ns.items():
        if isinstance(v, torch.Tensor) and not name.startswith("_"):
            tensors.append({"name": name, "shape": list(v.shape), "dtype": str(v.dtype).replace("torch.", ""),
                            "requires_grad": v.requires_grad, "is_leaf": v.is_leaf,
                            "grad_fn": type(v.grad_fn).__name__ if v.grad_fn is not None else None,
                            "data": v.detach().double().tolist()})
    out.append({"line": line, "stdout": buf.getvalue(), "error": error, "tensors": tensors})
print(json.dumps(out))
'''


@pytest.mark.slow
def test_script_through_gradviz_run_matches_torch(tmp_path):
    from click.testing import CliRunner

    from gradviz import cli
    script = tmp_path / "func_script.py"
    script.write_text(textwrap.dedent(SCRIPT))
    real = subprocess.run([sys.executable, "-c", TORCH_RECORDER, str(script)], capture_output=True, text=True,
                          timeout=300)
    assert real.returncode == 0, real.stderr
    expected = json.loads(real.stdout)
    result = CliRunner().invoke(cli.cli, ["run", str(script), "--json"], catch_exceptions=False)
    doc = json.loads(result.stdout)
    assert result.exit_code == 1  # the last cells raise, in both
    assert [c["line"] for c in doc["cells"]] == [c["line"] for c in expected]
    diffs = []
    for ours, theirs in zip(doc["cells"], expected):
        where = f"cell at line {theirs['line']}"
        if ours["error"] != theirs["error"]:
            diffs.append(f"{where}: error ours={ours['error']} torch={theirs['error']}")
        if norm_addr(ours["stdout"]) != norm_addr(theirs["stdout"]):
            diffs.append(f"{where}: stdout ours={ours['stdout']!r} torch={theirs['stdout']!r}")
        by_name = {r["name"]: r for r in ours["tensors"] if "." not in r["name"]}
        if sorted(by_name) != sorted(r["name"] for r in theirs["tensors"] if "." not in r["name"]):
            diffs.append(f"{where}: names ours={sorted(by_name)}")
        for rec in theirs["tensors"]:
            mine = by_name.get(rec["name"])
            if mine is None:
                continue
            for key in ("shape", "dtype", "requires_grad", "is_leaf", "grad_fn"):
                if mine[key] != rec[key]:
                    diffs.append(f"{where}: {rec['name']}.{key} ours={mine[key]!r} torch={rec[key]!r}")
            if not np.allclose(np.array(mine["data"], dtype=float), np.array(rec["data"], dtype=float),
                               rtol=1e-5, atol=1e-6):
                diffs.append(f"{where}: {rec['name']} values ours={mine['data']} torch={rec['data']}")
    assert_no_diffs(diffs)
