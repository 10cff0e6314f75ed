"""gradviz.expression: parsing, leaves, labels, var specs, errors; values and gradients
against real PyTorch (when importable) for the same leaf values."""
import math
import warnings

import numpy as np
import pytest

import gradviz.torch as gtorch
from gradviz.expression import (DEFAULT_SHAPE, ExpressionError, Evaluation, Program, evaluate, format_error, parse,
                                parse_shape)


def arr(t):
    return np.array(t.detach().tolist(), dtype=np.float64)


# -- parse ------------------------------------------------------------------------------
def test_parse_single_expression():
    p = parse("(w3*(w1*a) + w4*(w2*a)).sum()")
    assert isinstance(p, Program)
    assert p.leaves == ("w3", "w1", "a", "w4", "w2")
    assert p.assigned == ()
    assert p.result_name is None
    assert p.result_source == "(w3*(w1*a) + w4*(w2*a)).sum()"
    assert [s.kind for s in p.statements] == ["expr"]


def test_parse_assignments_semicolons_and_newlines():
    text = "b = w1*a; c = w2*a; L = (10 - (w3*b + w4*c)).sum()"
    p = parse(text)
    assert p.leaves == ("w1", "a", "w2", "w3", "w4")
    assert p.assigned == ("b", "c", "L")
    assert p.result_name == "L"
    assert [(s.kind, s.target, s.source) for s in p.statements] == [
        ("assign", "b", "w1*a"), ("assign", "c", "w2*a"), ("assign", "L", "(10 - (w3*b + w4*c)).sum()")]
    q = parse("b = w1*a\nc = w2*a\n(w3*b + w4*c).sum()")
    assert q.leaves == ("w1", "a", "w2", "w3", "w4")
    assert q.statements[-1].kind == "expr"


def test_parse_normalizes_indentation_and_whitespace():
    p = parse("\n    b = x*2\n    (b + y).sum()\n  ")
    assert p.leaves == ("x", "y")


def test_function_names_are_not_leaves():
    p = parse("tanh(x) + torch.exp(y) + F.relu(z) + torch.nn.functional.sigmoid(w) + sum(v)")
    assert p.leaves == ("x", "y", "z", "w", "v")


def test_input_is_an_allowed_leaf_name():
    assert parse("F.relu(input).sum()").leaves == ("input",)


def test_rebinding_is_refused():
    with pytest.raises(ExpressionError, match="already used as a leaf"):
        parse("a = a * 2; a.sum()")
    with pytest.raises(ExpressionError, match="again"):
        parse("b = x; b = x * 2; b")
    with pytest.raises(ExpressionError, match="names a torch function"):
        parse("tanh = x; tanh")


def test_bare_expression_only_last():
    with pytest.raises(ExpressionError, match="only the last statement"):
        parse("x * 2; y")


# -- evaluate: leaves -------------------------------------------------------------------
def test_leaves_are_float32_requires_grad_and_ordered():
    ev = evaluate("(w3*(w1*a) + w4*(w2*a)).sum()", shape=(3, 3))
    assert list(ev.leaves) == ["w3", "w1", "a", "w4", "w2"]
    for t in ev.leaves.values():
        assert t.requires_grad and t.is_leaf and t.dtype is gtorch.float32 and tuple(t.shape) == (3, 3)


def test_default_shape_and_shape_text():
    ev = evaluate("x * 2")
    assert tuple(ev.leaves["x"].shape) == DEFAULT_SHAPE
    ev = evaluate("x * 2", shape="2,4")
    assert tuple(ev.leaves["x"].shape) == (2, 4)
    ev = evaluate("x * 2", shape="()")
    assert tuple(ev.leaves["x"].shape) == ()


def test_seed_makes_runs_repeat():
    a = evaluate("x + y", shape=(2, 2))
    b = evaluate("x + y", shape=(2, 2))
    c = evaluate("x + y", shape=(2, 2), seed=1)
    assert np.array_equal(arr(a.leaves["x"]), arr(b.leaves["x"]))
    assert np.array_equal(arr(a.leaves["y"]), arr(b.leaves["y"]))
    assert not np.array_equal(arr(a.leaves["x"]), arr(c.leaves["x"]))


def test_leaves_match_manual_seed_randn_in_order():
    ev = evaluate("a * b", shape=(2, 3), seed=5)
    gtorch.manual_seed(5)
    ra = gtorch.randn(2, 3)
    rb = gtorch.randn(2, 3)
    assert np.array_equal(arr(ev.leaves["a"]), arr(ra))
    assert np.array_equal(arr(ev.leaves["b"]), arr(rb))


@pytest.mark.parametrize("spec, shape", [("3x3", (3, 3)), ("3,3", (3, 3)), ("(2, 5)", (2, 5)), ("4", (4,)),
                                         ("()", ()), ("scalar", ()), ((2, 2), (2, 2)), (6, (6,))])
def test_var_spec_shapes(spec, shape):
    ev = evaluate("a.sum() + x.sum()", shape=(7,), var_specs={"a": spec})
    assert tuple(ev.leaves["a"].shape) == shape
    assert tuple(ev.leaves["x"].shape) == (7,)


def test_var_spec_values():
    ev = evaluate("(x * y * z * w).sum()", var_specs={
        "x": "linspace(0,1,5)", "y": "[1.,2.,3.,4.,5.]", "z": "tensor([1,2,3,4,5])", "w": "randn(5)"})
    assert np.allclose(arr(ev.leaves["x"]), np.linspace(0, 1, 5))
    assert arr(ev.leaves["y"]).tolist() == [1, 2, 3, 4, 5]
    assert ev.leaves["z"].dtype is gtorch.float32  # integer literal -> float leaf
    for t in ev.leaves.values():
        assert t.requires_grad and t.is_leaf
    ev2 = evaluate("m.sum()", var_specs={"m": "tensor([[1,2],[3,4]])"})
    assert arr(ev2.leaves["m"]).tolist() == [[1, 2], [3, 4]]
    ev3 = evaluate("m.sum()", var_specs={"m": "tensor([1., 2.], dtype=torch.float64)"})
    assert ev3.leaves["m"].dtype is gtorch.float64
    ev4 = evaluate("m.sum()", var_specs={"m": "2.5"})
    assert tuple(ev4.leaves["m"].shape) == () and ev4.leaves["m"].item() == 2.5
    ev5 = evaluate("m.sum()", var_specs={"m": "randn(2, 3, requires_grad=True) * 2"})
    assert ev5.leaves["m"].is_leaf and ev5.leaves["m"].requires_grad


def test_var_spec_python_and_tensor_values():
    t = gtorch.tensor([1.0, 2.0])
    ev = evaluate("(a * b).sum()", var_specs={"a": t, "b": [3.0, 4.0]})
    assert ev.leaves["a"] is not t and not t.requires_grad
    assert ev.value.item() == 11.0
    ev = evaluate("(a * 2).sum()", var_specs={"a": np.array([1.0, 2.0])}, dtype=gtorch.float64)
    assert ev.leaves["a"].dtype is gtorch.float64


def test_var_spec_errors():
    with pytest.raises(ExpressionError, match="free names") as e:
        evaluate("x.sum()", var_specs={"x": "y * 2"})
    assert e.value.context == "--var x" and e.value.col == 1
    with pytest.raises(ExpressionError, match="does not appear") as e:
        evaluate("x.sum()", var_specs={"q": "3"})
    with pytest.raises(ExpressionError, match="assigned"):
        evaluate("b = x * 2; b.sum()", var_specs={"b": "3"})
    with pytest.raises(ExpressionError) as e:
        evaluate("x.sum()", var_specs={"x": "__import__('os')"})
    assert e.value.context == "--var x"
    assert "--var x" in format_error(e.value)
    with pytest.raises(ExpressionError, match="limit"):
        evaluate("x.sum()", var_specs={"x": "ones(10**12)"})
    with pytest.raises(ExpressionError, match="limit"):
        evaluate("x.sum()", var_specs={"x": "100000x100000"})
    with pytest.raises(ExpressionError, match="not a shape"):
        evaluate("x.sum()", shape="3 by 3")


def test_parse_shape():
    assert parse_shape("3,3") == (3, 3)
    assert parse_shape("3x3") == (3, 3)
    assert parse_shape(" (2, 3, 4) ") == (2, 3, 4)
    assert parse_shape("5") == (5,)
    assert parse_shape("()") == ()
    assert parse_shape((1, 2)) == (1, 2)
    for bad in ("a", "3;3", "-1", "1.5", "3x"):
        with pytest.raises(ExpressionError):
            parse_shape(bad)


# -- evaluate: labels -------------------------------------------------------------------
def test_labels_for_named_and_unnamed_intermediates():
    ev = evaluate("b = w1*a; c = w2*a; L = (10 - (w3*b + w4*c)).sum()")
    assert list(ev.tensors) == ["w1", "a", "w2", "w3", "w4", "b", "c", "w3*b", "w4*c", "w3*b + w4*c",
                                "10 - (w3*b + w4*c)", "L"]
    assert ev.result_label == "L"
    assert ev.label_of(ev.value) == "L"
    assert ev.label_of(ev.assigned["b"]) == "b"
    assert set(ev.assigned) == {"b", "c", "L"}
    inter = {i.label: i for i in ev.intermediates}
    assert inter["b"].name == "b" and inter["b"].source == "w1*a"
    assert inter["w3*b"].name is None and inter["w3*b"].statement == 2
    assert inter["w3*b"].line == 1 and inter["w3*b"].col == 32 and inter["w3*b"].end_col == 36


def test_unnamed_result_label_is_source_text():
    ev = evaluate("(w3*(w1*a) + w4*(w2*a)).sum()", shape=(3, 3))
    assert ev.result_label == "(w3*(w1*a) + w4*(w2*a)).sum()"
    assert [i.label for i in ev.intermediates] == ["w1*a", "w3*(w1*a)", "w2*a", "w4*(w2*a)",
                                                   "w3*(w1*a) + w4*(w2*a)", "(w3*(w1*a) + w4*(w2*a)).sum()"]


def test_duplicate_source_text_gets_unique_labels():
    ev = evaluate("(w1*a + w1*a).sum()")
    assert "w1*a" in ev.tensors and "w1*a #2" in ev.tensors
    assert ev.tensors["w1*a"] is not ev.tensors["w1*a #2"]


def test_tuple_results_are_labelled_per_element():
    ev = evaluate("q = x.split(1); (q[0] * 2).sum()", shape=(2, 2))
    assert "q[0]" in ev.tensors and "q[1]" in ev.tensors
    ev = evaluate("x.max(dim=0).values.sum()", shape=(2, 2))
    assert "x.max(dim=0).values" in ev.tensors


def test_multiline_labels_collapse_whitespace():
    ev = evaluate("(x *\n   y).sum()")
    assert "x * y" in ev.tensors


def test_non_tensor_results():
    assert evaluate("x.shape[0] * 2", shape=(4,)).value == 8
    assert evaluate("x.sum().item() > -1000").value is True
    assert evaluate("x.dtype").value is gtorch.float32
    assert evaluate("x.grad").value is None
    assert evaluate("1 < 2 < 3").value is True


# -- errors -----------------------------------------------------------------------------
def test_error_object_and_caret():
    with pytest.raises(ExpressionError) as e:
        parse("b = w1*a; c = x.__class__")
    err = e.value
    assert err.line == 1 and err.col == 17 and err.end_col == 26
    assert err.kind == "refused"
    assert err.source_line == "b = w1*a; c = x.__class__"
    text = format_error(err)
    lines = text.splitlines()
    assert lines[0].startswith("error: attribute '__class__' is not allowed")
    assert lines[1] == "  b = w1*a; c = x.__class__"
    assert lines[2] == "  " + " " * 16 + "^" * 9


def test_error_on_second_line_reports_line():
    with pytest.raises(ExpressionError) as e:
        parse("b = x * 2\nc = open('f')")
    assert e.value.line == 2 and e.value.col == 5
    assert "(line 2, column 5)" in format_error(e.value)


def test_syntax_error():
    with pytest.raises(ExpressionError) as e:
        parse("x +* y")
    assert e.value.kind == "syntax" and e.value.line == 1 and e.value.col is not None
    assert "^" in format_error(e.value)


def test_empty_input():
    for text in ("", "   ", "\n\n", "# just a comment"):
        with pytest.raises(ExpressionError):
            parse(text)


def test_non_ascii_columns_are_characters():
    with pytest.raises(ExpressionError) as e:
        parse("αβ * x.__dict__")
    assert e.value.col == 8
    assert format_error(e.value).splitlines()[2] == "  " + " " * 7 + "^" * 8


def test_long_line_is_windowed():
    text = " + ".join(["x"] * 60) + " + open('f')"
    with pytest.raises(ExpressionError) as e:
        parse(text)
    lines = format_error(e.value).splitlines()
    assert len(lines[1]) < 100
    caret = lines[2].index("^")
    assert lines[1][caret:caret + 4] == "open"


def test_engine_errors_propagate_with_partial_evaluation():
    with pytest.raises(RuntimeError) as e:
        evaluate("h = tanh(x); mm(h, y).sum()", var_specs={"x": "2x3", "y": "2x3"})
    partial = e.value.gradviz_partial
    assert isinstance(partial, Evaluation)
    assert partial.value is None and partial.error is e.value
    assert "h" in partial.tensors
    assert partial.error_source == "mm(h, y)"
    assert partial.error_position == (1, 14, 22)


def test_engine_type_error_propagates():
    with pytest.raises(TypeError):
        evaluate("tanh(x, 1, 2, 3)")


def test_warnings_are_kept_with_their_place():
    """A warning the expression raises is kept on the evaluation, placed on the part that
    raised it (once per message and place), instead of reaching Python's warning display
    with gradviz's own file and line."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ev = evaluate("a = (x * 2).grad; b = (x * 2).grad; x.sum()")
    assert not w
    assert [(x.category, x.position, x.source) for x in ev.warnings] == [
        ("UserWarning", (1, 5, 17), "(x * 2).grad"), ("UserWarning", (1, 23, 35), "(x * 2).grad")]
    assert ".grad attribute of a Tensor that is not a leaf" in ev.warnings[0].message


def test_allocation_limits_are_parameters():
    evaluate("ones(1000)")
    with pytest.raises(ExpressionError, match="limit is 100 elements"):
        evaluate("ones(1000)", max_elements=100)
    with pytest.raises(ExpressionError, match="in total"):
        evaluate("a = ones(60); b = ones(60); a + b", max_elements=100, max_total_elements=150)


# -- values and gradients vs PyTorch ----------------------------------------------------
CASES = [
    ("(w3*(w1*a) + w4*(w2*a)).sum()", {}, (3, 3),
     lambda T, F, w1, w2, w3, w4, a: (w3 * (w1 * a) + w4 * (w2 * a)).sum()),
    ("b = w1*a; c = w2*a; L = (10 - (w3*b + w4*c)).sum()", {}, (3, 3),
     lambda T, F, w1, w2, w3, w4, a: (10 - (w3 * (w1 * a) + w4 * (w2 * a))).sum()),
    ("(x*y + z**2).sum()", {}, (4,), lambda T, F, x, y, z: (x * y + z ** 2).sum()),
    ("tanh(x @ W + b).mean()", {"x": "2x3", "W": "3x4", "b": "4"}, None,
     lambda T, F, x, W, b: T.tanh(x @ W + b).mean()),
    ("torch.sigmoid(x).pow(2).sum(dim=1).mean()", {}, (2, 3),
     lambda T, F, x: T.sigmoid(x).pow(2).sum(dim=1).mean()),
    ("softmax(x, dim=1)[:, 0].sum()", {}, (2, 3), lambda T, F, x: T.softmax(x, dim=1)[:, 0].sum()),
    ("F.mse_loss(x, y)", {}, (2, 3), lambda T, F, x, y: F.mse_loss(x, y)),
    ("torch.cat([x, y], dim=0).max()", {}, (2, 3), lambda T, F, x, y: T.cat([x, y], dim=0).max()),
    ("(x[0] * y[1:, :].sum(0)).sum()", {}, (3, 3), lambda T, F, x, y: (x[0] * y[1:, :].sum(0)).sum()),
    ("torch.where(x > 0, x, y * 2).sum()", {}, (2, 3), lambda T, F, x, y: T.where(x > 0, x, y * 2).sum()),
    ("stack([x, y]).mean(0).norm()", {}, (2, 3), lambda T, F, x, y: T.stack([x, y]).mean(0).norm()),
    ("F.cross_entropy(x, tensor([0, 2]))", {}, (2, 3), lambda T, F, x: F.cross_entropy(x, T.tensor([0, 2]))),
    ("(x.max(dim=1).values * 2).sum()", {}, (2, 3), lambda T, F, x: (x.max(dim=1).values * 2).sum()),
    ("x.expand(4, 2, 3).sum() + (x * y).sum(dim=-1, keepdim=True).mean()", {}, (2, 3),
     lambda T, F, x, y: x.expand(4, 2, 3).sum() + (x * y).sum(dim=-1, keepdim=True).mean()),
    ("F.gelu(x, approximate='tanh').sum()", {}, (2, 3), lambda T, F, x: F.gelu(x, approximate="tanh").sum()),
    ("x.T.reshape(-1)[::2].sum()", {}, (2, 3), lambda T, F, x: x.T.reshape(-1)[::2].sum()),
    ("mm(x, W).relu().sum() + (x.t() @ x).trace()", {"x": "2x3", "W": "3x4"}, None,
     lambda T, F, x, W: T.mm(x, W).relu().sum() + (x.t() @ x).trace()),
    ("F.linear(x, W, b).sum()", {"x": "2x3", "W": "4x3", "b": "4"}, None,
     lambda T, F, x, W, b: F.linear(x, W, b).sum()),
    ("(x ** 3 - 2 * x).sum() + torch.exp(-x).sum() / x.numel()", {}, (5,),
     lambda T, F, x: (x ** 3 - 2 * x).sum() + T.exp(-x).sum() / x.numel()),
    ("logsumexp(x, dim=1).sum() + x.clamp(min=-0.5, max=0.5).sum()", {}, (2, 3),
     lambda T, F, x: T.logsumexp(x, dim=1).sum() + x.clamp(min=-0.5, max=0.5).sum()),
    ("x.view(-1).exp().sum() / 6 + x[[0, 1, 0]].sum() + x[x > 0].sum()", {}, (2, 3),
     lambda T, F, x: x.view(-1).exp().sum() / 6 + x[[0, 1, 0]].sum() + x[x > 0].sum()),
    ("q = x.split(1); (q[0] * q[1]).sum() + x.unbind(1)[2].sum()", {}, (2, 3),
     lambda T, F, x: (x.split(1)[0] * x.split(1)[1]).sum() + x.unbind(1)[2].sum()),
    ("F.conv2d(x, w, padding=1).pow(2).mean()", {"x": "1x2x4x4", "w": "3x2x3x3"}, None,
     lambda T, F, x, w: F.conv2d(x, w, padding=1).pow(2).mean()),
    ("F.layer_norm(x, (3,)).mul(y).sum()", {}, (2, 3), lambda T, F, x, y: F.layer_norm(x, (3,)).mul(y).sum()),
    ("(x / (1.5 + y.sigmoid()) - x.abs()).mean() + F.leaky_relu(y, 0.2).sum()", {}, (3,),
     lambda T, F, x, y: (x / (1.5 + y.sigmoid()) - x.abs()).mean() + F.leaky_relu(y, 0.2).sum()),
]


@pytest.mark.parametrize("text, specs, shape, reference", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_pytorch(text, specs, shape, reference):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as tF
    ev = evaluate(text, shape=shape, var_specs=specs)
    value = ev.value
    assert isinstance(value, gtorch.Tensor) and value.dim() == 0
    value.backward()
    leaves = {name: torch.tensor(arr(t), dtype=torch.float32, requires_grad=True) for name, t in ev.leaves.items()}
    expected = reference(torch, tF, **leaves)
    expected.backward()
    assert math.isclose(value.item(), expected.item(), rel_tol=1e-5, abs_tol=1e-5)
    for name, t in ev.leaves.items():
        assert t.grad is not None, name
        assert np.allclose(arr(t.grad), leaves[name].grad.numpy(), rtol=1e-4, atol=1e-5), name


def test_five_leaves_five_accumulate_grads():
    ev = evaluate("(w3*(w1*a) + w4*(w2*a)).sum()", shape=(3, 3))
    assert len(ev.leaves) == 5
    ev.value.backward()
    seen, stack = set(), [ev.value.grad_fn]
    acc = 0
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        acc += type(fn).__name__ == "AccumulateGrad"
        stack.extend(f for f, _ in fn.next_functions)
    assert acc == 5


# -- the whitelist stays bound to the engine's signatures --------------------------------
ESTIMATOR_PARAMS = {
    "create": {"size"}, "full": {"size"}, "randint": {"size"}, "normal": {"mean", "std", "size"},
    "arange": {"args", "bounds"}, "linspace": {"steps"}, "eye": {"n", "m"}, "randperm": {"n"},
    "linear": {"input", "weight", "bias"}, "cat": {"tensors"}, "split": {"self", "split_size_or_sections", "dim"},
    "chunk": {"self", "chunks", "dim"}, "tensor_split": {"self", "sections", "dim"}, "unbind": {"self", "dim"},
    "expand": {"self", "sizes"}, "expand_as": {"self", "other"}, "repeat": {"self", "repeats"},
    "index_select": {"input", "dim", "index"}, "conv": {"input", "weight", "padding", "dilation"},
    "pool1d": {"input", "kernel_size", "padding"}, "pool2d": {"input", "kernel_size", "padding"},
}


def test_estimators_match_engine_signatures():
    import inspect

    from gradviz.expression import namespace as ns
    for func in list(ns.FUNCTIONS.values()) + list(ns.METHODS.values()):
        params = set(inspect.signature(func.fn).parameters)
        if func.key == "data":
            assert params & {"data", "value"}, func
        elif func.key in ESTIMATOR_PARAMS:
            assert ESTIMATOR_PARAMS[func.key] <= params, (func, params)


def test_whitelist_has_the_basics():
    from gradviz.expression import namespace as ns
    for name in ("tanh", "exp", "mm", "relu", "sum", "mean", "sigmoid", "matmul", "linspace", "randn", "ones",
                 "zeros", "tensor", "cat", "stack", "where", "softmax"):
        assert name in ns.FUNCTIONS and "torch." + name in ns.FUNCTIONS, name
    for name in ("sum", "t", "mean", "pow", "view", "reshape", "detach"):
        assert name in ns.METHODS, name
    for name in ("T", "grad", "shape"):
        assert name in ns.ATTRIBUTES, name
    assert not any(n.startswith("_") for n in ns.METHODS)
    assert not any(n.startswith("_") for n in ns.ATTRIBUTES)
    assert "numpy" not in ns.METHODS and "backward" not in ns.METHODS and "register_hook" not in ns.METHODS
