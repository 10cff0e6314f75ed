"""Forward-mode AD (torch.autograd.forward_ad), gradviz.torch against real PyTorch 2.13.

Every op case makes dual inputs of the same numbers on both libraries, runs the same lambda
and compares the primal and the tangent of the result: presence, shape, dtype and values
(float64 to 1e-12, float32 to 1e-5; bit for bit where the op is exact IEEE arithmetic
and moving data, so that the formula, not only its value, is PyTorch's). Then the API's
rules and errors verbatim, printing, in-place ops, custom Functions with jvp, and
torch.func.jvp / torch.autograd.functional.jvp agreeing with it.
"""
import numpy as np
import pytest

import gradviz.torch as gv

torch = pytest.importorskip("torch")

S = (3, 4)
# name: (fn(T, *duals), input shapes, bitwise in float32)
OPS = {
    "sin": (lambda T, x: x.sin(), [S], False),
    "exp": (lambda T, x: x.exp(), [S], False),
    "tanh": (lambda T, x: x.tanh(), [S], False),
    "sigmoid": (lambda T, x: x.sigmoid(), [S], False),
    "log_abs": (lambda T, x: x.abs().log(), [S], False),
    "sqrt_abs": (lambda T, x: x.abs().sqrt(), [S], False),
    "relu": (lambda T, x: x.relu(), [S], True),
    "neg": (lambda T, x: -x, [S], True),
    "mul": (lambda T, x, y: x * y, [S, S], True),
    "mul_broadcast": (lambda T, x, y: x * y, [S, (4,)], True),
    "mul_scalar": (lambda T, x: x * 1.5, [S], True),
    "div": (lambda T, x, y: x / y, [S, S], True),
    "div_broadcast": (lambda T, x, y: x / y, [(2, 3, 4), (3, 1)], True),
    "add_alpha": (lambda T, x, y: T.add(x, y, alpha=2.5), [S, (1, 4)], False),
    "add": (lambda T, x, y: x + y, [S, (1, 4)], True),
    "sub": (lambda T, x, y: x - y, [S, S], True),
    "pow_scalar": (lambda T, x: x ** 2, [S], False),
    "pow_tensor": (lambda T, x, y: x.abs() ** y, [S, S], False),
    "atan2": (lambda T, x, y: T.atan2(x, y), [S, S], False),
    "where": (lambda T, x, y: T.where(x > 0, x, y), [S, S], True),
    "clamp": (lambda T, x: x.clamp(-0.5, 0.5), [S], True),
    "addcmul": (lambda T, x, y, z: T.addcmul(x, y, z, value=0.5), [S, S, S], False),
    "lerp": (lambda T, x, y, z: T.lerp(x, y, z), [S, S, S], False),
    "sum": (lambda T, x: x.sum(), [S], False),
    "sum_dim": (lambda T, x: x.sum(1), [(5, 33)], False),
    "mean": (lambda T, x: x.mean(), [(7, 9)], False),
    "mean_dim": (lambda T, x: x.mean(0, keepdim=True), [(7, 9)], False),
    "amax": (lambda T, x: x.amax(1), [S], True),
    "max_dim": (lambda T, x: x.max(1).values, [S], True),
    "prod": (lambda T, x: x.prod(1), [S], False),
    "norm": (lambda T, x: x.norm(), [S], False),
    "var": (lambda T, x: x.var(1), [(3, 8)], False),
    "std": (lambda T, x: x.std(), [(3, 8)], False),
    "cumsum": (lambda T, x: x.cumsum(1), [S], False),
    "cumprod": (lambda T, x: x.cumprod(1), [S], False),
    "logsumexp": (lambda T, x: x.logsumexp(1), [(4, 9)], False),
    "matmul": (lambda T, x, y: x @ y, [(3, 5), (5, 4)], False),
    "matmul_batched": (lambda T, x, y: x @ y, [(2, 3, 5), (2, 5, 4)], False),
    "matmul_3d_2d": (lambda T, x, y: x @ y, [(2, 3, 5), (5, 4)], False),
    "mv": (lambda T, x, y: x @ y, [(3, 5), (5,)], False),
    "dot": (lambda T, x, y: x @ y, [(5,), (5,)], False),
    "einsum": (lambda T, x, y: T.einsum("ij,jk->ik", x, y), [(3, 5), (5, 4)], False),
    "view": (lambda T, x: x.view(12), [S], True),
    "t": (lambda T, x: x.t(), [S], True),
    "slice": (lambda T, x: x[1:, ::2], [S], True),
    "index_tensor": (lambda T, x: x[T.tensor([2, 0])], [S], True),
    "gather": (lambda T, x: x.gather(1, T.tensor([[0, 1], [2, 3], [1, 1]])), [S], True),
    "expand": (lambda T, x: x.expand(3, 4, 4), [(4, 1)], True),
    "permute": (lambda T, x: x.permute(2, 0, 1), [(2, 3, 4)], True),
    "cat": (lambda T, x, y: T.cat([x, y], 0), [S, S], True),
    "stack": (lambda T, x, y: T.stack([x, y], 1), [S, S], True),
    "split": (lambda T, x: x.split(2, 1)[1], [S], True),
    "unbind": (lambda T, x: x.unbind(0)[2], [S], True),
    "softmax": (lambda T, x: T.nn.functional.softmax(x, dim=1), [(4, 10)], False),
    "log_softmax": (lambda T, x: T.nn.functional.log_softmax(x, dim=-1), [(4, 10)], False),
    "linear": (lambda T, x, w, b: T.nn.functional.linear(x, w, b), [(3, 5), (4, 5), (4,)], False),
    "linear_3d": (lambda T, x, w, b: T.nn.functional.linear(x, w, b), [(2, 3, 5), (4, 5), (4,)], False),
    "tanh_mlp": (lambda T, x, w1, w2: T.tanh(x @ w1.t()).tanh() @ w2.t(), [(3, 5), (6, 5), (2, 6)], False),
    "gelu": (lambda T, x: T.nn.functional.gelu(x), [S], False),
    "silu": (lambda T, x: T.nn.functional.silu(x), [S], False),
    "layer_norm": (lambda T, x: T.nn.functional.layer_norm(x, (4,)), [S], False),
    "mse_loss": (lambda T, x, y: T.nn.functional.mse_loss(x, y), [S, S], False),
    "cross_entropy": (lambda T, x: T.nn.functional.cross_entropy(x, T.tensor([0, 2, 1])), [(3, 5)], False),
    "conv2d": (lambda T, x, w: T.nn.functional.conv2d(x, w), [(1, 2, 5, 5), (3, 2, 3, 3)], False),
    "inplace_chain": (lambda T, x, y: x.clone().mul_(y).add_(1.0), [S, S], True),
    "setitem": (lambda T, x, y: _setitem(x.clone(), y[1]), [S, S], True),
    "argmax_has_no_tangent": (lambda T, x: x.argmax(1), [S], True),
    "compare_has_no_tangent": (lambda T, x: x > 0, [S], True),
}


def _setitem(z, row):
    z[0] = row
    return z


def _dual_run(T, fn, arrays, tangents, dtype, only=None):
    fwad = T.autograd.forward_ad
    with fwad.dual_level():
        xs = []
        for k, (a, t) in enumerate(zip(arrays, tangents)):
            x = T.tensor(a, dtype=dtype)
            xs.append(x if only is not None and k != only else fwad.make_dual(x, T.tensor(t, dtype=dtype)))
        primal, tangent = fwad.unpack_dual(fn(T, *xs))
        return primal.detach().numpy().copy(), None if tangent is None else tangent.detach().numpy().copy()


def _compare(ours, theirs, dtype, bitwise):
    for what, a, b in zip(("primal", "tangent"), ours, theirs):
        assert (a is None) == (b is None), f"{what}: ours {a is None and 'None'} torch {b is None and 'None'}"
        if a is None:
            continue
        assert a.shape == b.shape and a.dtype == b.dtype, f"{what}: {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
        if bitwise and a.dtype.kind == "f":
            np.testing.assert_array_equal(a, b, err_msg=what)
        elif a.dtype.kind == "f":
            rtol = 1e-12 if a.dtype == np.float64 else 1e-5
            np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol, err_msg=what)
        else:
            np.testing.assert_array_equal(a, b, err_msg=what)


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_op_tangents_match_pytorch(name, dtype):
    fn, shapes, bitwise = OPS[name]
    for seed in range(4):
        rng = np.random.RandomState(seed)
        arrays = [rng.standard_normal(s) for s in shapes]
        tangents = [rng.standard_normal(s) for s in shapes]
        # every input dual, then each input alone (the others' tangents are PyTorch's undefined ones)
        for only in [None] + (list(range(len(shapes))) if len(shapes) > 1 and seed == 0 else []):
            ours = _dual_run(gv, fn, arrays, tangents, getattr(gv, dtype), only)
            theirs = _dual_run(torch, fn, arrays, tangents, getattr(torch, dtype), only)
            _compare(ours, theirs, dtype, bitwise and dtype == "float32")


def _outcome(T, case):
    try:
        return "ok", case(T)
    except Exception as exc:  # noqa: BLE001 - both libraries' exceptions are compared
        return type(exc).__name__, str(exc)


def _no_level_make_dual(T):
    return T.autograd.forward_ad.make_dual(T.ones(2), T.ones(2))


def _in_level(body):
    def case(T):
        fwad = T.autograd.forward_ad
        with fwad.dual_level():
            return body(T, fwad)
    return case


ERRORS = {
    "make_dual_outside_level": _no_level_make_dual,
    "nested_level": _in_level(lambda T, fw: fw.enter_dual_level()),
    "exit_other_level": _in_level(lambda T, fw: fw.exit_dual_level(level=3)),
    "exit_without_level": lambda T: T.autograd.forward_ad.exit_dual_level(),
    "tangent_size": _in_level(lambda T, fw: fw.make_dual(T.ones(3), T.ones(2))),
    "tangent_size_2d": _in_level(lambda T, fw: fw.make_dual(T.ones(3, 2), T.ones(2, 3))),
    "tangent_integer": _in_level(lambda T, fw: fw.make_dual(T.ones(3), T.ones(3, dtype=T.int64))),
    "primal_integer": _in_level(lambda T, fw: fw.make_dual(T.ones(3, dtype=T.int64), T.ones(3))),
    "make_dual_bad_level": _in_level(lambda T, fw: fw.make_dual(T.ones(3), T.ones(3), level=2)),
    "unpack_bad_level": _in_level(lambda T, fw: fw.unpack_dual(fw.make_dual(T.ones(3), T.ones(3)), level=1)),
    "dual_of_dual": _in_level(lambda T, fw: fw.make_dual(fw.make_dual(T.ones(3), T.ones(3)), T.ones(3))),
    "func_jvp_inside_level": _in_level(lambda T, fw: T.func.jvp(lambda a: a, (T.ones(2),), (T.ones(2),))),
    "function_without_jvp": _in_level(lambda T, fw: _no_jvp_function(T).apply(fw.make_dual(T.ones(2), T.ones(2)))),
}


def _no_jvp_function(T):
    class Double(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2
    return Double


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_verbatim(name):
    ours, theirs = _outcome(gv, ERRORS[name]), _outcome(torch, ERRORS[name])
    assert ours[0] == theirs[0] and ours[0] != "ok", (ours, theirs)
    assert ours[1] == theirs[1]


def _api_facts(T):
    fwad = T.autograd.forward_ad
    x = T.tensor([1.0, 2.0, 3.0])
    t = T.tensor([0.1, 0.2, 0.3])
    facts = [repr(fwad.unpack_dual(x)), type(fwad.unpack_dual(x)).__name__,
             type(fwad.unpack_dual(x)).__module__]
    with fwad.dual_level() as level:
        facts.append(level)
        dual = fwad.make_dual(x, t)
        facts += [repr(dual), str(dual), dual._base is x, dual.is_leaf, dual.requires_grad]
        unpacked = fwad.unpack_dual(dual)
        facts += [repr(unpacked), unpacked.tangent is t, unpacked.primal._base is x, unpacked.primal is x,
                  fwad.unpack_dual(x).primal is x, fwad.unpack_dual(x).tangent is None,
                  repr(fwad.unpack_dual(x, level=4))]  # a plain tensor: no tangent at any level
        y = dual.sin() * 2
        facts.append(repr(y))
        with T.no_grad():  # grad mode does not stop forward AD
            facts.append(repr(fwad.unpack_dual(dual * 3).tangent))
        facts.append(fwad.unpack_dual(dual.detach()).tangent is None)
        wide = fwad.make_dual(x, t.double())
        facts.append(repr(fwad.unpack_dual(wide * 2).tangent))
        leaf = T.tensor([1.0, 2.0], requires_grad=True)
        with_grad = fwad.make_dual(leaf, T.ones(2))
        facts += [type(with_grad.grad_fn).__name__, with_grad._base is leaf]
        transposed = fwad.make_dual(T.ones(2, 3), T.ones(3, 2).t())
        facts.append(fwad.unpack_dual(transposed).tangent.stride())
        big = fwad.make_dual(T.arange(12.0).reshape(3, 4) * 1000.5, T.ones(3, 4) / 3)
        facts.append(repr(big))
    facts += [repr(fwad.unpack_dual(y)), repr(y), repr(dual)]
    facts.append(fwad.enter_dual_level())
    fwad.exit_dual_level()
    return facts


def test_api_and_printing_match_pytorch():
    assert _api_facts(gv) == _api_facts(torch)


def _inplace_facts(T):
    fwad = T.autograd.forward_ad
    with fwad.dual_level():
        base = fwad.make_dual(T.ones(3), T.arange(3.0))
        view = base[1:]
        view.mul_(5)  # the view's tangent is a view of the base's
        copied = T.zeros(3)
        copied.copy_(base)
        plain = T.ones(3)
        plain.add_(base)
        return [repr(base), repr(view), repr(copied), repr(plain)]


def test_inplace_ops_update_tangents_as_pytorch():
    assert _inplace_facts(gv) == _inplace_facts(torch)


def _custom_function_facts(T):
    fwad = T.autograd.forward_ad
    seen = []

    class ScaledSquare(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, k):
            ctx.save_for_forward(x)
            ctx.k = k
            seen.append(fwad.unpack_dual(x).tangent is None)  # forward runs with forward grad off
            return x * x * k + y

        @staticmethod
        def jvp(ctx, x_t, y_t, k_t):
            x, = ctx.saved_tensors
            seen.append((repr(y_t), k_t))
            return 2 * x * x_t * ctx.k + y_t

    class Mul(T.autograd.Function):
        @staticmethod
        def forward(a, b):
            return a * b

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(*inputs)

        @staticmethod
        def jvp(ctx, a_t, b_t):
            a, b = ctx.saved_tensors
            return a_t * b + a * b_t

    with fwad.dual_level():
        x = fwad.make_dual(T.tensor([1.0, 2.0]), T.tensor([1.0, -1.0]))
        out = ScaledSquare.apply(x, T.ones(2), 3.0)
        product = Mul.apply(x, fwad.make_dual(T.tensor([4.0, 5.0]), T.tensor([0.5, 0.5])))
        return seen + [repr(out), repr(product)]


def test_custom_function_jvp_and_save_for_forward():
    assert _custom_function_facts(gv) == _custom_function_facts(torch)


def _data(seed, *shape):
    return np.random.RandomState(seed).standard_normal(shape)


def _jvps(T, seed):
    """The same J v four ways: forward_ad, torch.func.jvp, autograd.functional.jvp, nested."""
    x = T.tensor(_data(seed, 4), dtype=T.float64)
    v = T.tensor(_data(seed + 50, 4), dtype=T.float64)

    def f(a):
        return (a.sin() * a).tanh().cumsum(0) / (1 + a * a)

    fwad = T.autograd.forward_ad
    with fwad.dual_level():
        by_forward_ad = fwad.unpack_dual(f(fwad.make_dual(x, v))).tangent
    func_primal, func_tangent = T.func.jvp(f, (x,), (v,))
    _, functional = T.autograd.functional.jvp(f, x, v)
    nested = T.func.jvp(lambda a: T.func.jvp(f, (a,), (v,))[1], (x,), (v,))
    hvp = T.func.jvp(T.func.grad(lambda a: f(a).sum()), (x,), (v,))
    xr = x.clone().requires_grad_()
    _, reverse_of_forward = T.func.jvp(lambda a: f(a).sum(), (xr,), (v,))
    reverse_of_forward.backward()
    return [by_forward_ad, func_primal, func_tangent, functional, nested, hvp, xr.grad]


@pytest.mark.parametrize("seed", range(5))
def test_func_jvp_and_functional_jvp_agree_with_forward_ad(seed):
    ours, theirs = _jvps(gv, seed), _jvps(torch, seed)
    leaves = []
    for a, b in zip(ours, theirs):
        pairs = zip(a, b) if isinstance(a, tuple) else [(a, b)]
        leaves += list(pairs)
    for a, b in leaves:
        assert a.requires_grad == b.requires_grad and a.grad_fn is None and b.grad_fn is None
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12)
    # and the three first-order ways agree with one another on this engine
    np.testing.assert_allclose(ours[0].numpy(), ours[2].numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours[0].numpy(), ours[3].numpy(), rtol=1e-12)


def _module_tangent(T, seed):
    T.manual_seed(seed)
    model = T.nn.Sequential(T.nn.Linear(5, 8), T.nn.Tanh(), T.nn.Linear(8, 3), T.nn.LogSoftmax(dim=-1))
    x = T.tensor(_data(seed, 4, 5), dtype=T.float32)
    v = T.tensor(_data(seed + 9, 4, 5), dtype=T.float32)
    fwad = T.autograd.forward_ad
    with fwad.dual_level():
        out = model(fwad.make_dual(x, v))
        primal, tangent = fwad.unpack_dual(out)
        return primal.detach().numpy(), tangent.detach().numpy(), out.requires_grad, tangent.requires_grad


@pytest.mark.parametrize("seed", range(4))
def test_nn_module_forward_tangent(seed):
    ours, theirs = _module_tangent(gv, seed), _module_tangent(torch, seed)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    assert ours[2:] == theirs[2:]


def test_no_dual_level_leaves_the_fast_paths_alone():
    from gradviz.torch.autograd import graph, inplace
    assert graph.FORWARD_AD is None and inplace.FORWARD_AD is None
    with gv.autograd.forward_ad.dual_level():
        assert graph.FORWARD_AD is not None
    assert graph.FORWARD_AD is None and inplace.FORWARD_AD is None
