"""Property tests for gradviz.expression (hypothesis, gradviz.torch only):

- random valid expressions over a small smooth grammar: gradients from backward match
  float64 central finite differences of the same expression;
- random token soup: parse/evaluate only ever raise ExpressionError or an ordinary engine
  exception, errors render with a caret inside the line, and nothing leaks out (no module
  imported, no file created).
"""
import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradviz.torch as torch
from gradviz.expression import ExpressionError, evaluate, format_error, parse, parse_shape

SHAPE = (2, 2)

# Every template maps (2, 2) tensors to a (2, 2) tensor and is smooth everywhere.
UNARY = [
    "tanh({})", "torch.tanh({})", "({}).tanh()", "sigmoid({})", "F.sigmoid({})", "({}).sin()", "cos({})",
    "exp(tanh({}))", "({}) ** 2", "({}).pow(2)", "-({})", "({}).t()", "({}).T", "F.softplus({})",
    "({}) - ({}).mean(dim=0, keepdim=True)", "softmax({}, dim=1)", "F.log_softmax({}, dim=0)",
    "({}).reshape(4).view(2, 2)", "({}).flip(0)", "({})[:, [1, 0]]", "torch.cat([{0}, {0}], dim=0)[1:3]",
    "({}).sum(dim=1, keepdim=True).expand(2, 2)", "0.5 * ({})", "({}) / 3", "torch.square({})",
]
BINARY = [
    "({}) + ({})", "({}) - ({})", "({}) * ({})", "({}) / (2.5 + torch.tanh({}))", "({}) @ ({})", "mm({}, {})",
    "torch.matmul({}, ({}).t())", "stack([{}, {}]).sum(0)", "torch.cat([{}, {}], dim=1)[:, 1:3]",
    "torch.lerp({}, {}, 0.25)", "torch.addcmul({}, {}, {}, value=0.5)",
]
FINAL = ["({}).sum()", "({}).mean()", "({})[0, 1]", "logsumexp({}, dim=1).sum()", "(({}) ** 2).sum()",
         "({}).sum(dim=0)[1]", "F.mse_loss({}, ones(2, 2))"]
BASE = ["a", "b", "c", "a", "b", "c", "(0.5 * a)", "(b + 1.5)", "(2.0 - c)"]


def _fill(template, parts):
    if "{0}" in template:
        return template.format(parts[0])
    return template.format(*parts[: template.count("{}")])


def expressions():
    base = st.sampled_from(BASE)

    def extend(children):
        unary = st.tuples(st.sampled_from(UNARY), children).map(lambda p: _fill(p[0], [p[1]] * 2))
        binary = st.tuples(st.sampled_from(BINARY), children, children, children).map(
            lambda p: _fill(p[0], [p[1], p[2], p[3]]))
        return st.one_of(unary, binary)

    return st.recursive(base, extend, max_leaves=5)


@st.composite
def programs(draw):
    e1 = draw(expressions())
    final = draw(st.sampled_from(FINAL))
    if draw(st.booleans()):
        e2 = draw(expressions())
        return f"h = {e1}; g = h * ({e2}); " + final.format("g")
    return final.format(e1)


def _value(program, values):
    ev = evaluate(program, var_specs={n: torch.tensor(v, dtype=torch.float64) for n, v in values.items()},
                  dtype=torch.float64)
    return ev.value.item()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=programs(), seed=st.integers(0, 2 ** 16))
def test_gradients_match_finite_differences(text, seed):
    program = parse(text)
    ev = evaluate(program, shape=SHAPE, seed=seed, dtype=torch.float64)
    assert ev.value.dim() == 0
    ev.value.backward()
    base = {name: np.array(t.detach().tolist(), dtype=np.float64) for name, t in ev.leaves.items()}
    f0 = ev.value.item()
    h = 1e-6
    for name, leaf in ev.leaves.items():
        grad = np.array(leaf.grad.tolist(), dtype=np.float64) if leaf.grad is not None else np.zeros(SHAPE)
        for idx in np.ndindex(*SHAPE):
            plus = {n: v.copy() for n, v in base.items()}
            minus = {n: v.copy() for n, v in base.items()}
            plus[name][idx] += h
            minus[name][idx] -= h
            fd = (_value(program, plus) - _value(program, minus)) / (2 * h)
            tol = 1e-4 * max(1.0, abs(grad[idx])) + 1e-8 * abs(f0)
            assert abs(fd - grad[idx]) <= tol, (text, name, idx, fd, grad[idx])


@settings(max_examples=30, deadline=None)
@given(text=programs())
def test_valid_programs_parse_and_repeat(text):
    program = parse(text)
    assert set(program.leaves) <= {"a", "b", "c"}
    a = evaluate(program, shape=SHAPE)
    b = evaluate(program, shape=SHAPE)
    assert a.value.item() == b.value.item()
    assert list(a.tensors) == list(b.tensors)
    assert a.result_label in a.tensors or a.result_label == program.result_source
    for inter in a.intermediates:
        assert inter.source and inter.label in a.tensors


TOKENS = ["x", "y", "(", ")", ".", "__class__", "_data", "sum", "tanh", "torch", "F", "getattr", "'sum'", "'a'",
          ",", "*", "**", "@", "+", "-", "[", "]", ":", "0", "1", "10", "=", ";", "lambda", "import", "os", "open",
          "f'", "{", "}", "shape", "T", "grad", "expand", "ones", "randn", "9", "\n", " ", "__import__", "type",
          "mro", "__subclasses__", "format", "%", "dim", "=", "exec", "eval", "numpy", "grad_fn", "1e9", ":=",
          "not", "if", "else", "for", "in", "*", "**", "'{0.__class__}'", "\\", "#", "\x00", "é", "...", "None"]


@pytest.fixture(scope="module")
def clean_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("soup")
    old = os.getcwd()
    os.chdir(d)
    evaluate("(x * 2).sum()").value.backward()  # warm up lazy imports
    yield d
    os.chdir(old)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tokens=st.lists(st.sampled_from(TOKENS), max_size=16), joiner=st.sampled_from(["", " "]))
def test_token_soup_is_refused_or_evaluated_safely(tokens, joiner, clean_dir):
    text = joiner.join(tokens)
    modules = set(sys.modules)
    try:
        program = parse(text)
    except ExpressionError as e:
        _check_error(e)
        program = None
    if program is not None:
        try:
            evaluate(program, shape=(2,))
        except ExpressionError as e:
            _check_error(e)
        except (RuntimeError, TypeError, ValueError, IndexError, ZeroDivisionError, OverflowError,
                AttributeError, NotImplementedError):
            pass  # the engine's own errors on valid but wrong input
    assert set(sys.modules) == modules
    assert list(clean_dir.iterdir()) == []


NAMES = ["x", "y", "torch", "F", "nn", "math", "open", "__import__", "np", "getattr", "tanh", "ones", "randn",
         "tensor", "cat", "where", "sum", "input", "type", "_"]
ATTRS = ["T", "sum", "__class__", "shape", "grad_fn", "grad", "numpy", "expand", "view", "_data", "values",
         "mro", "format", "dtype", "pow", "exp", "data", "functional", "relu", "pi", "float64", "size", "item",
         "split", "max", "next_functions", "register_hook", "t", "repeat", "new_zeros"]
CONSTS = ["0", "1", "2", "-1", "3", "0.5", "10**9", "None", "True", "'sum'", "'__class__'", "...", "torch.float64",
          "(2, 3)", "[0, 1]"]


def python_expressions():
    base = st.one_of(st.sampled_from(NAMES), st.sampled_from(CONSTS))

    def extend(children):
        return st.one_of(
            st.tuples(children, st.sampled_from(ATTRS)).map(lambda p: f"({p[0]}).{p[1]}"),
            st.tuples(children, st.lists(children, max_size=3), st.lists(
                st.tuples(st.sampled_from(["dim", "keepdim", "dtype", "out", "_stacklevel", "requires_grad"]),
                          children), max_size=2)).map(
                lambda p: f"{p[0]}({', '.join(p[1] + [f'{k}={v}' for k, v in p[2]])})"),
            st.tuples(children, children).map(lambda p: f"({p[0]})[{p[1]}]"),
            st.tuples(children, st.sampled_from(["+", "*", "@", "**", "-", "/", "%", "<", "=="]), children).map(
                lambda p: f"({p[0]}) {p[1]} ({p[2]})"),
            st.tuples(children, children).map(lambda p: f"({p[0]}, {p[1]})"),
            st.tuples(children).map(lambda p: f"[{p[0]}]"),
            st.tuples(children, children).map(lambda p: f"{p[0]}(*{p[1]})"),
        )

    return st.recursive(base, extend, max_leaves=8)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=python_expressions(), assign=st.booleans())
def test_random_python_is_refused_or_evaluated_safely(text, assign, clean_dir):
    if assign:
        text = f"z = {text}; z"
    test_token_soup_is_refused_or_evaluated_safely.hypothesis.inner_test([text], "", clean_dir)


def _check_error(e):
    assert isinstance(e.message, str) and e.message
    text = format_error(e)
    assert text.startswith("error: ")
    assert "\x00" not in text
    if e.line is not None and e.col is not None:
        line = e.source_line
        assert 1 <= e.col <= len(line) + 1, (e, line)
        assert "^" in text


@settings(max_examples=60, deadline=None)
@given(dims=st.lists(st.integers(0, 50), max_size=4), sep=st.sampled_from([",", "x", ", ", " x "]),
       parens=st.booleans())
def test_parse_shape_round_trip(dims, sep, parens):
    text = sep.join(map(str, dims))
    if parens:
        text = f"({text})"
    assert parse_shape(text or "()") == tuple(dims)


def test_syntax_error_after_a_line_continuation_points_inside_the_line():
    """Python reports column 5 of the 2-character line '\\x' here; the caret stays on it."""
    with pytest.raises(ExpressionError) as caught:
        parse("x\\\n\\x")
    assert (caught.value.line, caught.value.col) == (2, 3)
    _check_error(caught.value)
