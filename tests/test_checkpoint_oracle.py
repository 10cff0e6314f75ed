"""torch.utils.checkpoint against real PyTorch 2.13: both variants (reentrant, with its
CheckpointFunctionBackward node, and non-reentrant, with the ordinary nodes whose saved
tensors are recomputed), the default when use_reentrant is not passed, dropout replayed
from the saved RNG state, kwargs and non-tensor arguments, checkpoint_sequential on an
nn.Sequential, checkpoints in a row and inside a Module's forward, the warnings, the
errors, retain_graph and double backward.

Each test runs one small program on both engines. A program records what a user can see
(tensors with their grad_fn names, .grad values, graph names, recomputation counts,
strings) through ``seen``; the warnings it raised and the error it ended with (type and
message) are recorded after it. The two records must agree, values to tight tolerances."""
import warnings

import numpy as np
import pytest

import gradviz.torch as gt
from oracle import graph_signature

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-12, 1e-14  # float64 programs
RTOL32, ATOL32 = 1e-6, 1e-7  # programs through nn.Linear's float32 parameters


def _canon(T, value):
    """A comparable form: tensors as (values, dtype, requires_grad, grad_fn's class name)."""
    if isinstance(value, T.Tensor):
        fn = value.grad_fn
        return ("tensor", value.detach().numpy().copy(), str(value.dtype), value.requires_grad,
                None if fn is None else type(fn).__name__)
    if isinstance(value, (tuple, list)):
        return type(value).__name__, [_canon(T, v) for v in value]
    return value


def observe(program, T):
    """What ``program(T, seen)`` shows on engine ``T``: what it passed to ``seen``, then its
    warnings (category, message) and the error it raised (builtin base, message) or None."""
    seen = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            program(T, lambda *values: seen.extend(_canon(T, v) for v in values))
            error = None
        except Exception as exc:  # noqa: BLE001 - compared with PyTorch's
            base = next(c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins")
            error = (base, str(exc))
    seen.append(("warnings", [(w.category.__name__, str(w.message)) for w in caught]))
    seen.append(("error", error))
    return seen


def _same(ours, theirs, path, rtol, atol):
    if isinstance(theirs, tuple) and theirs and theirs[0] == "tensor":
        assert isinstance(ours, tuple) and ours[0] == "tensor", f"{path}: ours={ours!r}"
        assert ours[2:] == theirs[2:], f"{path}: (dtype, requires_grad, grad_fn) ours={ours[2:]} torch={theirs[2:]}"
        np.testing.assert_allclose(ours[1], theirs[1], rtol=rtol, atol=atol, err_msg=path)
    elif isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), f"{path}: ours={ours!r} torch={theirs!r}"
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{path}[{k}]", rtol, atol)
    elif isinstance(theirs, np.ndarray):
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=path)
    else:
        assert ours == theirs, f"{path}: ours={ours!r} torch={theirs!r}"


def agree(program, rtol=RTOL, atol=ATOL):
    """Run ``program`` on both engines, check they agree, and return PyTorch's record."""
    ours, theirs = observe(program, gt), observe(program, torch)
    assert len(ours) == len(theirs), f"ours={ours!r}\ntorch={theirs!r}"
    for k, (a, b) in enumerate(zip(ours, theirs)):
        _same(a, b, f"item {k}", rtol, atol)
    return theirs


def _warnings(record):
    return record[-2][1]


def _error(record):
    return record[-1][1]


def _inputs(T, *shapes, requires_grad=True):
    T.manual_seed(0)
    return [T.randn(*shape, dtype=T.float64, requires_grad=requires_grad) for shape in shapes]


def _counting(fn):
    """fn, counting its calls: forward and recomputation are told apart by the count."""
    def wrapped(*args, **kwargs):
        wrapped.calls += 1
        return fn(*args, **kwargs)
    wrapped.calls = 0
    return wrapped


# ---------------------------------------------------------------------------------------
# the two variants


@pytest.mark.parametrize("reentrant", [True, False])
def test_values_gradients_graph_and_recomputation(reentrant):
    def program(T, seen):
        x, w = _inputs(T, (2, 3), (3,))
        fn = _counting(lambda a, b: (a.sin() * b).exp().sum(1))
        y = T.utils.checkpoint.checkpoint(fn, x, w, use_reentrant=reentrant)
        seen(y, y.grad_fn.name(), graph_signature(T, y, (x, w)), fn.calls)
        y.pow(2).sum().backward()
        seen(x.grad, w.grad, fn.calls)
    record = agree(program)
    assert record[1] == ("CheckpointFunctionBackward" if reentrant else "SumBackward1")
    assert record[3] == 1 and record[-3] == 2  # the forward, then one recomputation in backward
    assert _warnings(record) == [] and _error(record) is None


def test_non_reentrant_saves_holders_and_recomputes_once_per_backward():
    def program(T, seen):
        x, = _inputs(T, (4,))
        fn = _counting(lambda a: a.sin().cos().exp() * a.tanh())
        y = T.utils.checkpoint.checkpoint(fn, x, use_reentrant=False)
        sin_node = y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
        hook = sin_node._raw_saved_self.unpack_hook
        seen(sin_node.name(), hook.__module__.endswith("torch.utils.checkpoint"), fn.calls)
        s = y.sum()
        s.backward(retain_graph=True)
        seen(x.grad.clone(), fn.calls)
        s.backward()  # retain_graph: a second backward recomputes again
        seen(x.grad, fn.calls)
        s.backward()
    record = agree(program)
    assert record[:3] == ["SinBackward0", True, 1]
    assert record[4] == 2 and record[6] == 3
    assert "backward through the graph a second time" in _error(record)[1]


def test_the_hooks_are_named_for_the_inspection_layer():
    x = gt.ones(3, requires_grad=True)
    y = gt.utils.checkpoint.checkpoint(lambda a: a.sin(), x, use_reentrant=False)
    hook = y.grad_fn._raw_saved_self.unpack_hook
    assert hook.__module__ == "gradviz.torch.utils.checkpoint"
    assert hook.__qualname__ == "_checkpoint_hook.unpack_hook"
    assert "_checkpoint_hook" in gt.utils.checkpoint.__doc__


def test_use_reentrant_omitted_warns_and_runs_the_reentrant_variant():
    def program(T, seen):
        x, = _inputs(T, (3,))
        y = T.utils.checkpoint.checkpoint(lambda a: a.exp() * 2, x)
        seen(y, y.grad_fn.name())
        seq = T.nn.Sequential(T.nn.Tanh(), T.nn.Sigmoid(), T.nn.Softplus())
        z = T.utils.checkpoint.checkpoint_sequential(seq, 2, x)
        seen(z, graph_signature(T, z, (x,)))  # segments of 3 // 2 = 1: Tanh checkpointed, the rest not
        (y.sum() + z.sum()).backward()
        seen(x.grad)
    record = agree(program)
    assert record[1] == "CheckpointFunctionBackward" and "#2 CheckpointFunctionBackward" in record[3]
    assert [w[0] for w in _warnings(record)] == ["UserWarning", "UserWarning"]
    assert _warnings(record)[0][1].startswith("torch.utils.checkpoint: the use_reentrant parameter")
    assert _warnings(record)[1][1].startswith("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant")


# ---------------------------------------------------------------------------------------
# random numbers, arguments


@pytest.mark.parametrize("reentrant", [True, False])
@pytest.mark.parametrize("preserve", [True, False])
def test_dropout_is_replayed_from_the_saved_rng_state(reentrant, preserve):
    def program(T, seen):
        x, = _inputs(T, (6, 5))
        fn = lambda a: T.nn.functional.dropout(a.sin(), p=0.5, training=True) * a  # noqa: E731
        y = T.utils.checkpoint.checkpoint(fn, x, use_reentrant=reentrant, preserve_rng_state=preserve)
        seen(y)
        y.sum().backward()
        seen(x.grad, T.rand(3))  # the draw after backward: the generator's state as PyTorch left it
    record = agree(program)
    grad = record[1][1]
    mask_in_forward = record[0][1] != 0
    if preserve:  # the recomputation drew the forward's mask: the gradient is zero exactly where y is
        assert np.array_equal(grad != 0, mask_in_forward)


@pytest.mark.parametrize("reentrant", [True, False])
def test_kwargs_and_non_tensor_arguments(reentrant):
    def program(T, seen):
        x, = _inputs(T, (2, 3))

        def fn(a, power, mode, scale=None, *, shift=0.0):
            out = a.pow(power) if mode == "pow" else a.exp()
            return out * (1.0 if scale is None else scale) + shift
        y = T.utils.checkpoint.checkpoint(fn, x, 3, "pow", None, use_reentrant=reentrant)
        seen(y)
        y.sum().backward()
        seen(x.grad)
        x.grad = None
        z = T.utils.checkpoint.checkpoint(fn, x, 2, "exp", 0.5, shift=1.5, use_reentrant=reentrant)
        seen(z)
        z.sum().backward()
        seen(x.grad)
    record = agree(program)
    if reentrant:  # kwargs are refused by the reentrant variant
        assert _error(record) == ("ValueError", "Unexpected keyword arguments: shift")
    else:
        assert _error(record) is None and len(record) == 6


@pytest.mark.parametrize("reentrant", [True, False])
def test_inputs_not_requiring_grad(reentrant):
    def program(T, seen):
        T.manual_seed(1)
        lin = T.nn.Linear(3, 2).double()
        x, = _inputs(T, (4, 3), requires_grad=False)
        y = T.utils.checkpoint.checkpoint(lin, x, use_reentrant=reentrant)
        seen(y, y.requires_grad)
        if y.requires_grad:
            y.sum().backward()
        seen(lin.weight.grad, lin.bias.grad)
    record = agree(program)
    if reentrant:  # the warning, and no graph at all: the parameters get no gradient
        assert _warnings(record) == [("UserWarning", "None of the inputs have requires_grad=True. "
                                                     "Gradients will be None")]
        assert record[1] is False and record[2] is None
    else:
        assert _warnings(record) == [] and record[1] is True


# ---------------------------------------------------------------------------------------
# modules


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_sequential_on_a_sequential(reentrant):
    def program(T, seen):
        T.manual_seed(2)
        model = T.nn.Sequential(T.nn.Linear(4, 5), T.nn.ReLU(), T.nn.Linear(5, 5), T.nn.Tanh(),
                                T.nn.Linear(5, 3), T.nn.Sigmoid())
        x = T.randn(7, 4, requires_grad=True)
        y = T.utils.checkpoint.checkpoint_sequential(model, 3, x, use_reentrant=reentrant)
        seen(y, graph_signature(T, y, (x,)))
        y.sum().backward()
        seen(x.grad, *[p.grad for p in model.parameters()])
    record = agree(program, RTOL32, ATOL32)
    assert len(record) == 2 + 1 + 6 + 2 and _error(record) is None


@pytest.mark.parametrize("reentrant", [True, False])
def test_two_checkpoints_in_a_row(reentrant):
    def program(T, seen):
        x, w = _inputs(T, (3, 3), (3, 3))
        f = _counting(lambda a, b: (a @ b).tanh())
        g = _counting(lambda a: a.sigmoid() * a)
        y = T.utils.checkpoint.checkpoint(f, x, w, use_reentrant=reentrant)
        z = T.utils.checkpoint.checkpoint(g, y, use_reentrant=reentrant)
        seen(z, graph_signature(T, z, (x, w)))
        z.sum().backward()
        seen(x.grad, w.grad, f.calls, g.calls)
    record = agree(program)
    assert record[-4:-2] == [2, 2]


@pytest.mark.parametrize("reentrant", [True, False])
def test_a_checkpointed_block_inside_a_module_forward(reentrant):
    def program(T, seen):
        class Block(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = T.nn.Linear(4, 4)
                self.drop = T.nn.Dropout(0.3)
                self.out = T.nn.Linear(4, 2)

            def body(self, h, scale):
                return self.drop(T.nn.functional.gelu(self.inner(h))) * scale

            def forward(self, h):
                h = T.utils.checkpoint.checkpoint(self.body, h, 2.0, use_reentrant=reentrant)
                return self.out(h)
        T.manual_seed(3)
        block = Block()
        x = T.randn(5, 4, requires_grad=True)
        y = block(x)
        seen(y, graph_signature(T, y, (x,)))
        y.pow(2).mean().backward()
        seen(x.grad, *[p.grad for p in block.parameters()])
    record = agree(program, RTOL32, ATOL32)
    assert _error(record) is None


# ---------------------------------------------------------------------------------------
# errors, retain_graph, double backward


def test_reentrant_refuses_autograd_grad_and_backward_inputs():
    def program(T, seen):
        x, = _inputs(T, (3,))
        y = T.utils.checkpoint.checkpoint(lambda a: a.sin(), x, use_reentrant=True)
        try:
            T.autograd.grad(y.sum(), x)
        except RuntimeError as exc:
            seen(str(exc))
        y = T.utils.checkpoint.checkpoint(lambda a: a.sin(), x, use_reentrant=True)
        try:
            y.sum().backward(inputs=[x])
        except RuntimeError as exc:
            seen(str(exc))
        y = T.utils.checkpoint.checkpoint(lambda a: a.sin(), x, use_reentrant=True)
        y.sum().backward()
        seen(x.grad)
    record = agree(program)
    assert record[0] == record[1] and record[0].startswith("When use_reentrant=True, torch.utils.checkpoint is "
                                                           "incompatible with .grad()")


def test_non_reentrant_autograd_grad_and_double_backward():
    def program(T, seen):
        x, = _inputs(T, (4,))
        y = T.utils.checkpoint.checkpoint(lambda a: a.sin().exp() * a, x, use_reentrant=False)
        g, = T.autograd.grad(y.sum(), x, create_graph=True)
        seen(g)
        gg, = T.autograd.grad(g.sum(), x)
        seen(gg)
    record = agree(program)
    assert record[0][4] is not None and _error(record) is None


@pytest.mark.parametrize("reentrant", [True, False])
def test_retain_graph_and_backward_twice(reentrant):
    def program(T, seen):
        x, = _inputs(T, (3,))
        s = T.utils.checkpoint.checkpoint(lambda a: a.sin() * a, x, use_reentrant=reentrant).sum()
        s.backward(retain_graph=True)
        s.backward()
        seen(x.grad)
        s.backward()
    record = agree(program)
    assert "Trying to backward through the graph a second time" in _error(record)[1]


@pytest.mark.parametrize("call", [
    lambda T, x: T.utils.checkpoint.checkpoint(lambda a: a, x, use_reentrant=True, debug=True),
    lambda T, x: T.utils.checkpoint.checkpoint(lambda a: a, x, use_reentrant=True, context_fn=lambda: None),
    lambda T, x: T.utils.checkpoint.checkpoint(lambda a: a, x, use_reentrant=False, determinism_check="shapes"),
    lambda T, x: T.utils.checkpoint.checkpoint_sequential([lambda a: a], 1, x, use_reentrant=False, bad=1),
    lambda T, x: T.utils.checkpoint.checkpoint(lambda a: a.detach() * 2, x, use_reentrant=True).sum().backward(),
], ids=["debug", "context_fn", "determinism_check", "sequential_kwargs", "no_output_requires_grad"])
def test_errors(call):
    def program(T, seen):
        x, = _inputs(T, (2,))
        call(T, x)
    assert _error(agree(program)) is not None


def test_determinism_check_catches_a_different_recomputation():
    def program(T, seen):
        x, = _inputs(T, (3,))
        state = {"calls": 0}

        def fn(a):
            state["calls"] += 1
            return a.sin().cos() if state["calls"] == 1 else a.sin()  # fewer saved tensors the second time
        y = T.utils.checkpoint.checkpoint(fn, x, use_reentrant=False)
        seen(y)
        y.sum().backward()
    record = agree(program)
    assert _error(record)[0] == "RuntimeError" and "A different number of tensors" in _error(record)[1]
