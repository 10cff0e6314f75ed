"""The breadth of the torch API (issue 29) against real PyTorch: one table of calls, each run
on gradviz's engine and on PyTorch over several seeds. What is compared: every output's
dtype, shape, grad_fn name, requires_grad and values (integers and booleans exactly,
floats within a few ulps), the gradients of every input when the output is differentiable,
and the error (type and message) when the call raises."""
import numpy as np
import pytest

import gradviz.torch as gtorch

torch = pytest.importorskip("torch")

SEEDS = (0, 1, 2, 3)


def inputs(T, seed):
    """The same tensors in both libraries: float64 ones that require grad (x, y: 3x4, v: 4,
    s: 3x3), float32 ones that do not (f, g), integers (i: -6..6, j: 0..3) and a mask (m)."""
    rng = np.random.default_rng(seed)

    def grad(*shape):
        return T.tensor(rng.standard_normal(shape), dtype=T.float64, requires_grad=True)
    values = {"x": grad(3, 4), "y": grad(3, 4), "v": grad(4), "s": grad(3, 3),
              "f": T.tensor(rng.standard_normal((3, 4)), dtype=T.float32),
              "g": T.tensor(rng.standard_normal((3, 4)), dtype=T.float32),
              "i": T.tensor(rng.integers(-6, 7, (3, 4))), "j": T.tensor(rng.integers(0, 4, (3, 4))),
              "m": T.tensor(rng.random((3, 4)) > 0.5)}
    values["T"] = T
    return values


def _tensors(value):
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors(item)]
    return [value] if type(value).__name__ == "Tensor" else []


def describe(value):
    """A comparable form of a result: tensors by their facts and values, others as they are."""
    if type(value).__name__ == "Tensor":
        return ("tensor", str(value.dtype), tuple(value.shape), value.requires_grad,
                type(value.grad_fn).__name__ if value.grad_fn is not None else None,
                value.detach().resolve_conj().numpy().copy())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [describe(item) for item in value])
    if type(value).__name__ in ("dtype", "Size", "device", "layout"):
        return str(value)
    return value


def observe(T, expression, seed):
    """What a user sees of the call: its result and the inputs' gradients, or its error."""
    names = inputs(T, seed)
    try:
        out = eval(expression, {"np": np}, names)
    except Exception as exc:  # noqa: BLE001 - the error is the observation
        return ("raised", type(exc).__name__, str(exc).split("\n")[0])
    seen = [describe(out)]
    outputs = [t for t in _tensors(out) if t.requires_grad and t.dtype.is_floating_point]
    if outputs:
        weights = np.random.default_rng(seed + 100)
        total = sum((t * T.tensor(weights.standard_normal(tuple(t.shape)), dtype=t.dtype)).sum() for t in outputs)
        try:
            total.backward()
        except Exception as exc:  # noqa: BLE001
            return seen + [("backward raised", type(exc).__name__, str(exc).split("\n")[0])]
        seen += [(name, describe(names[name].grad)) for name in "xyvs" if names[name].grad is not None]
    return seen


def _same(ours, theirs, path="out"):
    if isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), path
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, f"{path}: {ours.dtype}{ours.shape}"
        if theirs.dtype.kind in "fc":
            tol = 1e-12 if theirs.dtype in (np.float64, np.complex128) else 3e-7
            np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol, equal_nan=True, err_msg=path)
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=path)
    elif isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), f"{path}: {ours!r} vs {theirs!r}"
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{path}[{k}]")
    elif isinstance(theirs, float) and isinstance(ours, float):
        assert ours == pytest.approx(theirs, rel=1e-12, nan_ok=True), path
    else:
        assert ours == theirs, path


CALLS = [
    # in-place forms, as torch functions and as methods
    "T.abs_(x * 1)", "T.relu_(x * 1)", "T.sigmoid_(x * 1)", "T.clamp_(x * 1, -0.5, 0.5)", "T.sqrt_(x.abs() + 1)",
    "T.zero_(x * 1)", "T.fill_(x * 1, 2.5)", "T.exp2_(x * 1)", "T.detach_(x * 1)", "T.nan_to_num_(x / 0)",
    "T.abs_(x)", "T.fill(x, 2.0)", "T.fill(x, T.tensor(2.0, dtype=T.float64, requires_grad=True))",
    "(x * 1).eq_(0)", "(x * 1).lt_(y)", "(x * 1).ge_(0.1)", "(x * 1).not_equal_(y)", "(x * 1).greater_(v)",
    "(x * 1).le_(y)", "(x * 1).gt_(0)", "(x * 1).less_equal_(0)", "x.eq_(0)", "f.clone().ne_(g)",
    "(x * 1).logical_and_(y)", "(x * 1).logical_or_(m)", "(x * 1).logical_xor_(y)", "(x * 1).logical_not_()",
    "m.clone().logical_not_()", "x.logical_not_()",
    "(x * 1).t_()", "(x * 1).transpose_(0, 1)", "(x * 1).swapaxes_(1, 0)", "(x * 1).swapdims_(-1, 0)",
    "(x * 1).unsqueeze_(1)", "(x * 1).unsqueeze_(-1)", "(x[None] * 1).squeeze_()", "(x[None] * 1).squeeze_(0)",
    "(x[None] * 1).squeeze_(1)", "(x[None] * 1).squeeze_((0, 1))", "x.t_()", "x[0].t_()", "(x * 1)[0].t_()",
    "f.clone().t_()", "(s * 1).t_().tril_()", "x.detach().unsqueeze_(0)", "(x * 1).t_().t_()",
    "(x * 1).tril_()", "(x * 1).triu_(1)", "(x * 1).cumprod_(1)", "(x * 1).atan2_(y)", "(x * 1).arctan2_(y)",
    "(x * 1).hypot_(y)", "(x * 1).float_power_(2)", "f.clone().float_power_(2)", "(x * 1).floor_divide_(2)",
    "(x * 1).exp2_()",
    # elementwise
    "T.acosh(x.abs() + 1)", "T.asinh(x)", "T.atanh(x / 4)", "T.arccosh(x.abs() + 1)", "T.arcsinh(f)",
    "T.arctanh(f / 4)", "(x * 1).acosh_()", "(x / 4).atanh_()", "(x * 1).asinh_()", "T.asinh(i)",
    "T.deg2rad(x)", "T.rad2deg(f)", "T.deg2rad(i)", "(x * 1).rad2deg_()", "T.deg2rad_(f.clone())",
    "T.copysign(x, y)", "T.copysign(x, -1)", "T.copysign(f, 2)", "(x * 1).copysign_(y)", "T.copysign(i, j)",
    "T.fmax(x, y)", "T.fmin(x, v)", "T.fmax(f, f / 0)", "T.fmin(i, j)", "T.fmax(x, x)",
    "T.ldexp(x, j)", "T.ldexp(f, i)", "T.ldexp(x, y)", "(x * 1).ldexp_(j)",
    "T.logaddexp2(x, y)", "T.logaddexp2(x, v)", "T.nextafter(x, y)", "T.nextafter(f, g)", "(x * 1).nextafter_(y)",
    "T.frexp(x)", "T.frexp(f)", "T.frexp(i)", "T.heaviside(x, y)", "T.heaviside(f, g)", "T.heaviside(x, f)",
    "(x * 1).heaviside_(y)",
    "T.signbit(x)", "T.signbit(i)", "T.isneginf(f / 0)", "T.isposinf(x / 0)", "T.isneginf(i)", "T.isreal(x)",
    "T.gcd(i, j)", "T.lcm(i, j)", "T.gcd(x, y)", "i.clone().gcd_(j)", "T.lcm_(i.clone(), j)",
    "T.bitwise_and(i, j)", "T.bitwise_or(i, 3)", "T.bitwise_xor(i, j)", "T.bitwise_and(m, m)",
    "T.bitwise_left_shift(i, j)", "T.bitwise_right_shift(i, j)", "T.bitwise_right_shift(i, 2)",
    "i.clone().bitwise_and_(j)", "i.clone().bitwise_not_()", "T.bitwise_or(f, g)", "i.bitwise_xor(j)",
    "T.swapaxes(x, 0, 1)", "T.swapdims(x, 1, 0)", "T.ger(v, v)", "T.is_conj(x)", "T.resolve_conj(x)",
    # statistics and selections
    "T.std_mean(x)", "T.std_mean(x, 1)", "T.std_mean(x, (0, 1), keepdim=True)", "T.var_mean(x, 0)",
    "T.var_mean(x, 1, correction=0)", "T.var_mean(f)", "T.std_mean(x, 1)[0]", "T.var_mean(x)[1]", "T.std_mean(i)",
    "T.aminmax(x)", "T.aminmax(x, dim=1)", "T.aminmax(x, dim=0, keepdim=True)", "x.round().aminmax(dim=1)",
    "T.aminmax(i)", "T.cummax(x, 1)", "T.cummin(x, 0)", "T.cummax(x.round(), 1)", "T.cummin(i, 1)",
    "T.cummax(x / (x > 0), 1)", "T.kthvalue(x, 2)", "T.kthvalue(x, 1, 0, True)", "T.kthvalue(x, 5)",
    "T.nanmedian(x)", "T.nanmedian(x / (x > 0))", "T.nanmedian(x, 1)", "T.nanmedian(x / (x > 0), 0)",
    "T.msort(x)", "T.diff(x)", "T.diff(x, 2, 0)", "T.diff(x, prepend=y)", "T.diff(m)", "T.diff(i, dim=0, append=j)",
    "T.cov(x)", "T.cov(v)", "T.cov(x, correction=0)", "T.corrcoef(x)", "T.corrcoef(s)",
    "T.histc(f)", "T.histc(f, bins=4, min=-1, max=1)", "T.bincount(j.flatten())", "T.bincount(j[0], minlength=6)",
    "T.bincount(j[0], weights=f[0])", "T.bincount(i[0])",
    "T.vdot(v, v * 2)", "T.vdot(x, y)", "T.inner(x, y)", "T.inner(v, v)", "T.inner(x, v)", "T.kron(x, s)",
    "T.kron(v, x)", "T.tensordot(x, y.t(), 1)", "T.tensordot(x, y, ([0, 1], [0, 1]))", "T.tensordot(x, s, ([0], [1]))",
    "x[0, 0].is_nonzero()", "T.is_nonzero(i[0, :1])", "x.is_nonzero()", "x.is_same_size(y)", "T.is_same_size(x, v)",
    "i.is_signed()", "T.is_signed(m)",
    # rearranging and picking
    "T.fliplr(x)", "T.flipud(x)", "v.fliplr()", "T.rot90(x)", "T.rot90(x, 2)", "T.rot90(x, -1, (1, 0))",
    "T.rot90(x, 1, (0, 0))", "T.hsplit(x, 2)", "T.hsplit(x, [1, 3])", "T.vsplit(x, 3)", "T.vsplit(x, [1])",
    "T.hsplit(x, 3)", "T.dsplit(x[None], 2)", "T.dsplit(x, 2)", "T.split_with_sizes(x, [1, 2])",
    "x.split_with_sizes([3, 1], 1)", "T.take(x, j)", "T.take(x, T.tensor([-1, 0, 11]))", "T.take(x, T.tensor([12]))",
    "x.put(T.tensor([0, 5]), v[:2])", "x.put(T.tensor([1, 1]), v[:2], accumulate=True)",
    "(x * 1).put_(T.tensor([3, 4, 3]), v[:3], True)",
    "T.repeat_interleave(x, 2)", "T.repeat_interleave(x, 2, 0)", "x.repeat_interleave(T.tensor([1, 0, 2]), dim=0)",
    "T.repeat_interleave(T.tensor([1, 2, 0, 3]))", "T.cartesian_prod(v, v[:2])", "T.cartesian_prod(v)",
    "T.combinations(v)", "T.combinations(v, 3)", "T.combinations(v, 2, with_replacement=True)", "T.diagflat(v)",
    "T.diagflat(x, 1)", "T.tril_indices(3, 4)", "T.triu_indices(4, 3, -1)", "T.tril_indices(3, 3, 1, dtype=T.int32)",
    "T.vander(v)", "T.vander(v, 3, True)", "T.vander(v, 0)", "T.unravel_index(T.tensor([4, 11, -1]), (3, 4))",
    "T.unravel_index(T.tensor(5), (2, 3))", "T.broadcast_tensors(x, v)", "T.broadcast_tensors(x, s)",
    "T.adjoint(x)", "x.mH", "x.H", "v.H", "v.mH", "x.adjoint()", "x[0, 0].H", "T.vander(i[0])",
    "T.kthvalue(x, 2, 0)", "T.nanmedian(i)", "T.msort(i)", "T.cov(f)", "T.corrcoef(f)", "T.kron(i, j)",
    "T.histc(x, 5)", "T.cummax(f, 1)",
    # what a tensor is, and the per-element Python callbacks
    "T.result_type(x, 1)", "T.result_type(i, 1.0)", "T.result_type(i, f)", "T.result_type(f[0, 0], i)",
    "T.result_type(m, 2)", "T.can_cast(T.float32, T.int32)", "T.can_cast(T.int64, T.float16)",
    "T.can_cast(T.int8, T.bool)", "T.can_cast(T.complex64, T.float64)", "T.can_cast(T.bool, T.bool)",
    "x.get_device()", "T.get_device(i)", "x.dim_order()", "x.t().dim_order()", "x.is_set_to(x)", "x.is_set_to(x[:])",
    "x.is_set_to(x.view(4, 3))", "T.get_default_device()", "f.new([1, 2])", "i.new(2, 0).shape", "f.new().shape",
    "f.new(T.Size([2, 1])).shape", "x.new_empty_strided((2, 3), (3, 1)).shape", "f.clone().apply_(lambda v: v * 2)",
    "i.clone().apply_(lambda v: v // 2 + 0.7)", "x.apply_(lambda v: v)", "f.clone().map_(g, lambda a, b: a - b)",
    "f.clone().map_(g[0], lambda a, b: max(a, b))", "f.clone().map_(v, lambda a, b: a)",
    "f.clone().map2_(g, g[0], lambda a, b, c: a + b * c)",
]


@pytest.mark.parametrize("expression", CALLS)
def test_call_matches_pytorch(expression):
    for seed in SEEDS:
        _same(observe(gtorch, expression, seed), observe(torch, expression, seed), f"seed {seed}")
