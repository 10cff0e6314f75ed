"""Autograd semantics, gradviz.torch against real PyTorch.

Each scenario is a function ``(T, L)`` run once with ``T = gradviz.torch`` and once
with ``T = torch``; ``L(label, value)`` logs what it observes (tensors with values,
dtype, shape, requires_grad, is_leaf and grad_fn; plain values; reprs), ``L.raises``
logs an exception's type and verbatim message, ``L.warns`` the warnings. The two logs
must agree step by step. Skipped when real torch is not importable.
"""
import numpy as np
import pytest

import oracle
from oracle import graph_signature, norm_addr

pytest.importorskip("torch")

SCENARIOS = {}


def scenario(fn):
    assert fn.__name__ not in SCENARIOS, fn.__name__
    SCENARIOS[fn.__name__] = fn
    return fn


def f64(T, data, requires_grad=False):
    return T.tensor(data, dtype=T.float64, requires_grad=requires_grad)


# =====================================================================================
# accumulation, retain_graph, freed buffers


@scenario
def accumulate_across_backward_calls(T, L):
    x = L.randn(3, requires_grad=True)
    (x * x).sum().backward()
    L("grad after first", x.grad)
    (x * 3).sum().backward()
    L("grad after second", x.grad)
    L("grad is leaf", x.grad.is_leaf)
    L("grad requires_grad", x.grad.requires_grad)


@scenario
def accumulate_with_retain_graph(T, L):
    x = L.randn(2, 3, requires_grad=True)
    y = x.exp().sum()
    y.backward(retain_graph=True)
    L("first", x.grad)
    y.backward()
    L("second", x.grad)
    L.raises("third backward (graph freed)", y.backward)
    L("after failed third", x.grad)


@scenario
def backward_twice_without_retain_graph(T, L):
    x = L.randn(3, requires_grad=True)
    loss = x.exp().sum()
    loss.backward()
    L.raises("second backward", loss.backward)
    L("grad unchanged", x.grad)


@scenario
def backward_twice_when_nothing_saved(T, L):
    x = L.randn(3, requires_grad=True)
    y = (x + 1).sum()  # AddBackward0/SumBackward0 save no tensors
    y.backward()
    L.raises("second backward", y.backward)
    L("grad", x.grad)


@scenario
def backward_twice_mul_by_python_scalar(T, L):
    x = L.randn(3, requires_grad=True)
    y = (x * 2).sum()
    y.backward()
    L.raises("second backward", y.backward)
    L("grad", x.grad)


@scenario
def backward_twice_tensor_mul(T, L):
    x = L.randn(3, requires_grad=True)
    w = L.randn(3)
    y = (x * w).sum()
    y.backward()
    L.raises("second backward", y.backward)


@scenario
def freed_saved_tensor_access(T, L):
    x = L.randn(3, requires_grad=True)
    y = x.sin()
    L("saved self before backward", y.grad_fn._saved_self)
    y.sum().backward()
    L.raises("saved self after backward", lambda: y.grad_fn._saved_self)
    z = x.exp()
    L("saved result before", z.grad_fn._saved_result)
    z.sum().backward()
    L.raises("saved result after backward", lambda: z.grad_fn._saved_result)


@scenario
def saved_attributes(T, L):
    x = L.randn(3, requires_grad=True)
    w = L.randn(3, requires_grad=True)
    L("mul saved other", (x * w).grad_fn._saved_other)
    L("pow saved exponent", (x ** 3).grad_fn._saved_exponent)
    L("sum saved sizes", x.sum().grad_fn._saved_self_sym_sizes)
    L("mm saved mat2", x.view(1, 3).mm(w.view(3, 1)).grad_fn._saved_mat2)


@scenario
def accumulate_into_existing_grad(T, L):
    x = L.randn(3, requires_grad=True)
    x.grad = T.ones(3, dtype=T.float64)
    (x * 2).sum().backward()
    L("grad", x.grad)
    x.grad.zero_()
    L("zeroed", x.grad)
    (x ** 2).sum().backward()
    L("after zero_", x.grad)
    x.grad = None
    L("set None", x.grad)
    (x * 5).sum().backward()
    L("fresh", x.grad)


@scenario
def grad_unbroadcast_once(T, L):
    x = L.randn(3, 1, requires_grad=True)
    b = L.randn(4, requires_grad=True)
    s = L.randn(requires_grad=True)
    y = (x + b) * s + x
    y.backward(L.randn(2, 3, 4).expand(2, 3, 4)[0] * 0 + L.randn(3, 4))
    L("x.grad", x.grad)
    L("b.grad", b.grad)
    L("s.grad", s.grad)


@scenario
def grad_of_float32_leaf_through_float64(T, L):
    x = L.randn(3, dtype="float32", requires_grad=True)
    y = (x.double() * 2).sum()
    y.backward()
    L("x.grad", x.grad)


@scenario
def deep_chain_no_recursion(T, L):
    x = T.ones(2, dtype=T.float64, requires_grad=True)
    y = x
    for _ in range(5000):
        y = y * 1.0001 + 0.0
    y.sum().backward()
    L("grad", x.grad)


# =====================================================================================
# autograd.grad


@scenario
def autograd_grad_basic(T, L):
    x = L.randn(3, requires_grad=True)
    y = (x ** 2).sum()
    g = T.autograd.grad(y, x)
    L("result", g)
    L("type", type(g).__name__)
    L("x.grad untouched", x.grad)


@scenario
def autograd_grad_several_inputs(T, L):
    x = L.randn(3, requires_grad=True)
    w = L.randn(3, requires_grad=True)
    y = (x * w).sin().sum()
    L("grads", T.autograd.grad(y, (x, w)))
    y2 = (x * w).sin().sum()
    L("grads list", T.autograd.grad(y2, [w, x]))


@scenario
def autograd_grad_outputs_nonscalar(T, L):
    x = L.randn(2, 3, requires_grad=True)
    y = x * x
    v = L.randn(2, 3)
    L("vjp", T.autograd.grad(y, x, grad_outputs=v))
    y2 = x.exp()
    L("vjp list", T.autograd.grad([y2], [x], grad_outputs=[v]))


@scenario
def autograd_grad_multiple_outputs(T, L):
    x = L.randn(3, requires_grad=True)
    a, b = x.sin(), x.cos()
    L("sum of vjps", T.autograd.grad([a, b], x, grad_outputs=[T.ones(3, dtype=T.float64), L.randn(3)]))
    c, d = x.exp().sum(), (x * 2).sum()
    L("scalars", T.autograd.grad([c, d], x))


@scenario
def autograd_grad_retain_graph(T, L):
    x = L.randn(3, requires_grad=True)
    y = x.tanh().sum()
    L("first", T.autograd.grad(y, x, retain_graph=True))
    L("second", T.autograd.grad(y, x))
    L.raises("third", T.autograd.grad, y, x)


@scenario
def autograd_grad_create_graph_hvp(T, L):
    x = L.randn(3, requires_grad=True)
    y = (x ** 3).sum()
    g, = T.autograd.grad(y, x, create_graph=True)
    L("g", g, names=False)
    L("g.grad_fn is None", g.grad_fn is None)
    v = L.randn(3)
    hv, = T.autograd.grad(g, x, grad_outputs=v)
    L("hvp", hv)
    L("hvp requires_grad", hv.requires_grad)


@scenario
def autograd_grad_hvp_sin_matmul(T, L):
    x = L.randn(3, requires_grad=True)
    A = L.randn(3, 3)
    y = (A @ x).sin().sum()
    g, = T.autograd.grad(y, x, create_graph=True)
    v = L.randn(3)
    hv, = T.autograd.grad(g, x, grad_outputs=v, retain_graph=True)
    L("hvp", hv)
    hv2, = T.autograd.grad((g * v).sum(), x)
    L("hvp via dot", hv2)


@scenario
def gradient_penalty(T, L):
    x = L.randn(4, 3, requires_grad=True)
    w = L.randn(3, 2, requires_grad=True)
    out = (x @ w).tanh().sum()
    g, = T.autograd.grad(out, x, create_graph=True)
    penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
    L("penalty", penalty, names=False)
    penalty.backward()
    L("w.grad", w.grad)
    L("x.grad", x.grad)


@scenario
def create_graph_then_backward_on_grad(T, L):
    x = L.randn(3, requires_grad=True)
    y = (x.sin() * x).sum()
    g, = T.autograd.grad(y, x, create_graph=True)
    (g ** 2).sum().backward()
    L("x.grad", x.grad)


@scenario
def backward_create_graph(T, L):
    x = L.randn(3, requires_grad=True)
    y = (x ** 3).sum()
    y.backward(create_graph=True)  # its warning is warn-once: see test_errors_oracle
    L("x.grad", x.grad, names=False)
    g = x.grad
    x.grad = None
    g.sum().backward()
    L("second derivative", x.grad)


@scenario
def autograd_grad_allow_unused(T, L):
    x = L.randn(3, requires_grad=True)
    z = L.randn(3, requires_grad=True)
    y = (x ** 2).sum()
    L("allow_unused", T.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True))
    L.raises("not allowed", T.autograd.grad, y, [x, z], retain_graph=True)
    L("materialize", T.autograd.grad(y, [x, z], materialize_grads=True))


@scenario
def autograd_grad_input_not_requiring_grad(T, L):
    x = L.randn(3, requires_grad=True)
    z = L.randn(3)
    y = (x * z).sum()
    L.raises("grad wrt constant", T.autograd.grad, y, z)
    L.raises("grad wrt [x, constant]", T.autograd.grad, y, [x, z])


@scenario
def autograd_grad_nonleaf_input(T, L):
    x = L.randn(3, requires_grad=True)
    h = x * 2
    y = (h ** 2).sum()
    L("dy/dh", T.autograd.grad(y, h, retain_graph=True))
    L("dy/dy", T.autograd.grad(y, y))
    L("h.grad untouched", h.retains_grad)


@scenario
def autograd_grad_errors(T, L):
    x = L.randn(3, requires_grad=True)
    y = x * 2
    L.raises("nonscalar without grad_outputs", T.autograd.grad, y, x)
    L.raises("wrong grad_output shape", T.autograd.grad, y, x, grad_outputs=T.ones(2, dtype=T.float64))
    L.raises("output without grad", T.autograd.grad, T.ones(1).sum(), x)


# =====================================================================================
# backward(gradient, inputs)


@scenario
def backward_with_gradient(T, L):
    x = L.randn(3, requires_grad=True)
    y = x * x
    y.backward(gradient=f64(T, [1.0, 2.0, 3.0]))
    L("x.grad", x.grad)
    y2 = (x * 2)
    y2.backward(f64(T, [0.5, 0.5, 0.5]))
    L("accumulated", x.grad)


@scenario
def backward_inputs_subset(T, L):
    x = L.randn(3, requires_grad=True)
    w = L.randn(3, requires_grad=True)
    y = (x * w).sum()
    y.backward(inputs=[x], retain_graph=True)
    L("x.grad", x.grad)
    L("w.grad", w.grad)
    y.backward(inputs=w)
    L("x.grad again", x.grad)
    L("w.grad now", w.grad)


@scenario
def backward_inputs_nonleaf(T, L):
    x = L.randn(3, requires_grad=True)
    h = x * 2
    y = (h * h).sum()
    y.backward(inputs=[h])
    L("h.grad (populated on a non-leaf input)", h.grad)
    L("x.grad", x.grad)


@scenario
def backward_inputs_errors(T, L):
    x = L.randn(3, requires_grad=True)
    y = (x * 2).sum()
    L.raises("inputs=[]", y.backward, inputs=[])


@scenario
def autograd_backward_function(T, L):
    x = L.randn(3, requires_grad=True)
    w = L.randn(3, requires_grad=True)
    a = (x * w).sum()
    b = (x ** 2).sum()
    T.autograd.backward([a, b])
    L("x.grad", x.grad)
    L("w.grad", w.grad)
    c = x * w
    T.autograd.backward(c, grad_tensors=T.ones(3, dtype=T.float64), inputs=[w])
    L("w.grad after inputs=[w]", w.grad)
    L("x.grad unchanged", x.grad)


@scenario
def autograd_lenient_arguments(T, L):
    x = L.randn(3, dtype="float32", requires_grad=True)
    L.raises("float64 gradient for a float32 output", (x * 2).backward, T.ones(3, dtype=T.float64))
    L("x.grad", x.grad)
    L.raises("more grad_outputs than outputs", T.autograd.grad, [x * 2], x,
             grad_outputs=[T.ones(3), T.ones(3)])
    L.raises("python number as gradient of a scalar", lambda: (x * 2).sum().backward(T.tensor(2.0)))
    L("x.grad after", x.grad)


@scenario
def backward_errors(T, L):
    x = L.randn(3, requires_grad=True)
    L.raises("nonscalar", (x * 2).backward)
    L.raises("no grad_fn", T.ones(3).sum().backward)
    L.raises("gradient shape", (x * 2).backward, T.ones(2, dtype=T.float64))
    L.raises("int output", T.arange(3).sum().backward)


# =====================================================================================
# hooks


@scenario
def hook_leaf_sees_grad(T, L):
    x = L.randn(3, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.clone()))
    (x * 2).sum().backward()
    L("seen", seen)
    L("x.grad", x.grad)


@scenario
def hook_leaf_return_replaces(T, L):
    x = L.randn(3, requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (x * x).sum().backward()
    L("x.grad", x.grad)


@scenario
def hook_nonleaf_return_replaces(T, L):
    x = L.randn(3, requires_grad=True)
    h = x * 2
    h.register_hook(lambda g: g + 1)
    (h * h).sum().backward()
    L("x.grad", x.grad)


@scenario
def hook_order_same_tensor(T, L):
    x = L.randn(3, requires_grad=True)
    h = x.exp()
    calls = []

    def first(g):
        calls.append(("first", g.tolist()))
        return g * 2

    def second(g):
        calls.append(("second", g.tolist()))

    def third(g):
        calls.append(("third", g.tolist()))
        return g - 1

    h.register_hook(first)
    h.register_hook(second)
    h.register_hook(third)
    h.sum().backward()
    L("calls", calls)
    L("x.grad", x.grad)


@scenario
def hook_remove(T, L):
    x = L.randn(3, requires_grad=True)
    calls = []
    handle = x.register_hook(lambda g: calls.append("a") or g * 100)
    x.register_hook(lambda g: calls.append("b"))
    handle.remove()
    (x * 3).sum().backward()
    L("calls", calls)
    L("x.grad", x.grad)
    handle.remove()  # a second remove is harmless
    L("handle type", type(handle).__name__)


@scenario
def hook_and_retain_grad_order(T, L):
    x = L.randn(3, requires_grad=True)
    h = x * 2
    h.retain_grad()
    h.register_hook(lambda g: g * 3)
    (h * 1).sum().backward()
    L("h.grad (retain_grad registered first)", h.grad)
    L("x.grad", x.grad)
    x2 = L.randn(3, requires_grad=True)
    h2 = x2 * 2
    h2.register_hook(lambda g: g * 3)
    h2.retain_grad()
    (h2 * 1).sum().backward()
    L("h2.grad (hook registered first)", h2.grad)


@scenario
def hook_order_across_tensors(T, L):
    x = L.randn(3, requires_grad=True)
    order = []
    a = x * 2
    b = x * 3
    c = a.sin()
    for name, t in (("x", x), ("a", a), ("b", b), ("c", c)):
        t.register_hook(lambda g, name=name: order.append(name))
    (c * b).sum().backward()
    L("order", order)


@scenario
def hook_fires_in_autograd_grad(T, L):
    x = L.randn(3, requires_grad=True)
    h = x * 2
    calls = []
    x.register_hook(lambda g: calls.append("x") or g * 2)
    h.register_hook(lambda g: calls.append("h") or g + 1)
    y = (h ** 2).sum()
    L("grad", T.autograd.grad(y, x))
    L("calls", calls)
    L("x.grad", x.grad)


@scenario
def hook_fires_each_backward(T, L):
    x = L.randn(2, requires_grad=True)
    n = []
    x.register_hook(lambda g: n.append(1))
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    L("calls", len(n))
    L("x.grad", x.grad)


@scenario
def hook_on_shared_tensor_sums_first(T, L):
    x = L.randn(3, requires_grad=True)
    h = x * 1
    seen = []
    h.register_hook(lambda g: seen.append(g.clone()))
    (h * 2 + h * 3).sum().backward()
    L("seen (one call with the summed grad)", seen)


@scenario
def hook_no_requires_grad_error(T, L):
    x = L.randn(3)
    L.raises("register_hook", x.register_hook, lambda g: g)


@scenario
def post_accumulate_grad_hook(T, L):
    x = L.randn(3, requires_grad=True)
    seen = []
    x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.clone()))
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    L("seen", seen)


@scenario
def node_hooks(T, L):
    x = L.randn(3, requires_grad=True)
    y = x.exp()
    calls = []
    y.grad_fn.register_prehook(lambda go: calls.append(("pre", [g.tolist() for g in go])))
    y.grad_fn.register_hook(lambda gi, go: calls.append(("post", [g.tolist() for g in gi])))
    y.backward(T.ones(3, dtype=T.float64))
    L("calls", calls)


# =====================================================================================
# retain_grad / retains_grad / non-leaf .grad


@scenario
def retain_grad_nonleaf(T, L):
    x = L.randn(3, requires_grad=True)
    h = x * 2
    L("retains_grad before", h.retains_grad)
    h.retain_grad()
    L("retains_grad after", h.retains_grad)
    (h * h).sum().backward()
    L("h.grad", h.grad)
    L("h.is_leaf", h.is_leaf)


@scenario
def retain_grad_leaf_noop(T, L):
    x = L.randn(3, requires_grad=True)
    x.retain_grad()
    L("leaf retains_grad", x.retains_grad)
    (x * 2).sum().backward()
    L("x.grad", x.grad)


@scenario
def retain_grad_accumulates(T, L):
    x = L.randn(3, requires_grad=True)
    h = x * 2
    h.retain_grad()
    y = (h * h).sum()
    y.backward(retain_graph=True)
    L("first", h.grad)
    y.backward()
    L("second", h.grad)


@scenario
def nonleaf_grad_access_warns(T, L):
    x = L.randn(3, requires_grad=True)
    h = x * 2
    h.sum().backward()
    g = L.warns("h.grad", lambda: h.grad)
    L("value", g)
    h2 = x * 3
    h2.retain_grad()
    h2.sum().backward()
    L.warns("retained h2.grad", lambda: h2.grad)


@scenario
def retain_grad_errors(T, L):
    L.raises("retain_grad without requires_grad", T.ones(3).retain_grad)


# =====================================================================================
# grad modes


@scenario
def no_grad_context(T, L):
    x = L.randn(3, requires_grad=True)
    with T.no_grad():
        L("enabled inside", T.is_grad_enabled())
        y = x * 2
        L("y", y)
        w = T.ones(2, requires_grad=True)
        L("leaf made inside", w)
    L("enabled after", T.is_grad_enabled())
    L("op after", x * 2)


@scenario
def no_grad_decorator(T, L):
    x = L.randn(3, requires_grad=True)

    @T.no_grad()
    def f(a):
        return a * 2, T.is_grad_enabled()

    y, enabled = f(x)
    L("y", y)
    L("enabled inside", enabled)
    L("enabled after", T.is_grad_enabled())
    L("wrapped name", f.__name__)


@scenario
def no_grad_bare_decorator(T, L):
    x = L.randn(3, requires_grad=True)

    @T.no_grad
    def f(a):
        return a * 2

    L("y", f(x))


@scenario
def enable_grad_inside_no_grad(T, L):
    x = L.randn(3, requires_grad=True)
    with T.no_grad():
        with T.enable_grad():
            y = x * 2
            L("enabled", T.is_grad_enabled())
        z = x * 2
    L("y", y)
    L("z", z)


@scenario
def enable_grad_decorator_inside_no_grad(T, L):
    x = L.randn(3, requires_grad=True)

    @T.enable_grad()
    def f(a):
        return a * 2

    with T.no_grad():
        y = f(x)
        L("enabled after call", T.is_grad_enabled())
    L("y", y)


@scenario
def set_grad_enabled_function(T, L):
    x = L.randn(3, requires_grad=True)
    T.set_grad_enabled(False)
    L("enabled", T.is_grad_enabled())
    y = x * 2
    T.set_grad_enabled(True)
    L("y", y)
    L("enabled again", T.is_grad_enabled())


@scenario
def set_grad_enabled_context(T, L):
    x = L.randn(3, requires_grad=True)
    with T.set_grad_enabled(False):
        y = x * 2
        with T.set_grad_enabled(True):
            z = x * 2
    L("y", y)
    L("z", z)
    L("enabled", T.is_grad_enabled())
    is_train = False
    with T.set_grad_enabled(is_train):
        w = x * 3
    L("w", w)


@scenario
def set_grad_enabled_decorator(T, L):
    x = L.randn(3, requires_grad=True)

    @T.set_grad_enabled(False)
    def f(a):
        return a * 2

    L("y", f(x))
    L("enabled after", T.is_grad_enabled())


@scenario
def grad_mode_restored_after_exception(T, L):
    try:
        with T.no_grad():
            raise ValueError("boom")
    except ValueError:
        pass
    L("enabled", T.is_grad_enabled())


@scenario
def no_grad_inplace_on_leaf_sgd_step(T, L):
    w = L.randn(3, requires_grad=True)
    for _ in range(3):
        loss = ((w - 1) ** 2).sum()
        loss.backward()
        with T.no_grad():
            w -= 0.1 * w.grad
        L("version", w._version)
        w.grad.zero_()
    L("w", w)
    L("w.grad", w.grad)


@scenario
def inference_mode_context(T, L):
    x = L.randn(3, requires_grad=True)
    with T.inference_mode():
        y = x * 2
        L("enabled inside", T.is_grad_enabled())
        L("inference mode enabled", T.is_inference_mode_enabled())
        t = T.ones(2)
    L("y", y)
    L("y.is_inference", y.is_inference())
    L("t.is_inference", t.is_inference())
    L("x.is_inference", x.is_inference())
    L("mode after", T.is_inference_mode_enabled())
    L("use outside", t * 2)


@scenario
def inference_mode_false(T, L):
    x = L.randn(3, requires_grad=True)
    with T.inference_mode(False):
        y = x * 2
    L("y", y)
    with T.inference_mode():
        with T.inference_mode(False):
            L("nested enabled", T.is_grad_enabled())


@scenario
def inference_mode_decorator(T, L):
    x = L.randn(3, requires_grad=True)

    @T.inference_mode()
    def f(a):
        return a * 2

    y = f(x)
    L("y", y)
    L("is_inference", y.is_inference())


@scenario
def inference_tensor_rules(T, L):
    with T.inference_mode():
        t = T.ones(3)
    w = L.randn(3, requires_grad=True)
    L.raises("saved for backward", lambda: (w * t).sum().backward())
    L.raises("in-place outside", t.add_, 1)
    L("t after the failed add_ (torch applies it, then raises)", t)
    L("use outside inference mode", w * 2 + t)


# =====================================================================================
# detach / detach_ / .data and version counters


@scenario
def detach_shares_storage_and_version(T, L):
    x = L.randn(3, requires_grad=True)
    y = x * 2
    d = y.detach()
    L("d", d)
    L("versions", (y._version, d._version))
    d[0] = 100.0
    L("y sees the write", y)
    L("versions after write", (y._version, d._version))
    d.zero_()
    L("versions after zero_", (y._version, d._version))


@scenario
def detach_inplace(T, L):
    x = L.randn(3, requires_grad=True)
    y = x * 2
    r = y.detach_()
    L("returns self", r is y)
    L("y", y)
    x.detach_()
    L("leaf detach_", x)


@scenario
def data_semantics(T, L):
    x = L.randn(3, requires_grad=True)
    y = x * 2
    dd = y.data
    L("y.data", dd)
    dd.mul_(2)
    L("y version (not bumped by .data)", y._version)
    L("y", y)
    L("x.data is a new tensor each time", x.data is x.data)
    x.data.add_(1)
    L("x", x)
    L("x version", x._version)
    x.data = T.zeros(5, dtype=T.float64)
    L("x after .data =", x)


@scenario
def data_hides_inplace_from_autograd(T, L):
    x = f64(T, [0.0, 1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.data.zero_()
    y.sum().backward()
    L("x.grad (silently wrong)", x.grad)


@scenario
def version_counter_increments(T, L):
    x = T.zeros(3, dtype=T.float64)
    L("start", x._version)
    x.add_(1)
    L("add_", x._version)
    x.mul_(2)
    L("mul_", x._version)
    x[0] = 5
    L("setitem", x._version)
    x += 1
    L("+=", x._version)
    x[1:] = T.ones(2, dtype=T.float64)
    L("slice assign", x._version)
    x.zero_()
    L("zero_", x._version)
    x.fill_(2)
    L("fill_", x._version)
    x.copy_(T.ones(3))
    L("copy_", x._version)
    x.clamp_(0, 1)
    L("clamp_", x._version)
    x -= 1
    x *= 2
    x /= 2
    L("-= *= /=", x._version)
    y = x + 1
    L("out-of-place leaves it", x._version)
    L("new tensor", y._version)
    L("x", x)


def _view_cases(T):
    return [
        ("view", lambda b: b.view(12)),
        ("getitem int", lambda b: b[0]),
        ("slice", lambda b: b[1:]),
        ("t", lambda b: b.t()),
        ("transpose", lambda b: b.transpose(0, 1)),
        ("permute", lambda b: b.permute(1, 0)),
        ("unsqueeze", lambda b: b.unsqueeze(0)),
        ("squeeze", lambda b: b.unsqueeze(0).squeeze(0)),
        ("select", lambda b: b.select(1, 2)),
        ("narrow", lambda b: b.narrow(0, 1, 2)),
        ("reshape contiguous", lambda b: b.reshape(2, 6)),
        ("flatten", lambda b: b.flatten()),
        ("detach", lambda b: b.detach()),
        ("split", lambda b: b.split(1)[1]),
        ("unbind", lambda b: b.unbind(1)[0]),
        ("expand (no new dims)", lambda b: b[:, :1].expand(3, 1)),
        ("T", lambda b: b.T),
    ]


def _view_scenario(name, make):
    def fn(T, L):
        base = T.zeros(3, 4, dtype=T.float64)
        v = make(base)
        L("_is_view", v._is_view())
        L("_base is base", v._base is base)
        v.add_(1)
        L("versions", (base._version, v._version))
        L("base", base)
        # the same view of a non-leaf that requires grad: in-place through the view
        x = L.randn(3, 4, requires_grad=True)
        h = x * 1
        vv = make(h)
        r = L.raises("in-place on view of non-leaf", vv.mul_, 2)
        if r is not None:
            L("base grad_fn", h.grad_fn)
            L("view grad_fn", vv.grad_fn)
            h.backward(L.randn(3, 4))
            L("x.grad", x.grad)

    fn.__name__ = "view_shares_version_" + name.replace(" ", "_")
    return fn


for _name, _make in [
    ("view", lambda b: b.view(12)),
    ("getitem int", lambda b: b[0]),
    ("slice", lambda b: b[1:]),
    ("t", lambda b: b.t()),
    ("transpose", lambda b: b.transpose(0, 1)),
    ("permute", lambda b: b.permute(1, 0)),
    ("unsqueeze", lambda b: b.unsqueeze(0)),
    ("squeeze", lambda b: b.unsqueeze(0).squeeze(0)),
    ("select", lambda b: b.select(1, 2)),
    ("narrow", lambda b: b.narrow(0, 1, 2)),
    ("reshape contiguous", lambda b: b.reshape(2, 6)),
    ("flatten", lambda b: b.flatten()),
    ("detach", lambda b: b.detach()),
    ("split", lambda b: b.split(1)[1]),
    ("chunk", lambda b: b.chunk(3)[0]),
    ("unbind", lambda b: b.unbind(1)[0]),
    ("expand no new dims", lambda b: b[:, :1].expand(3, 1)),
    ("T", lambda b: b.T),
    ("ellipsis", lambda b: b[...]),
    ("view_as", lambda b: b.view_as(b)),
]:
    scenario(_view_scenario(_name, _make))


@scenario
def non_views_do_not_share(T, L):
    for name, make in [("clone", lambda b: b.clone()), ("reshape noncontiguous", lambda b: b.t().reshape(12)),
                       ("contiguous of t", lambda b: b.t().contiguous()), ("index list", lambda b: b[[0, 1]]),
                       ("mask", lambda b: b[b == 0]), ("to double", lambda b: b.double()),
                       ("float of float32", lambda b: b.float())]:
        base = T.zeros(3, 4)
        v = make(base)
        L(f"{name}: _is_view", v._is_view())
        v.add_(1)
        L(f"{name}: base version", base._version)
        L(f"{name}: base", base)


# =====================================================================================
# in-place ops with autograd


def _inplace_scenario(name, apply):
    def fn(T, L):
        x = L.randn(2, 3, requires_grad=True)
        y = L.randn(2, 3, requires_grad=True, kind="nz")
        h = x.clone()
        r = apply(h, y)
        L("returns self", r is h)
        L("h", h)
        L("h._version", h._version)
        L("graph", graph_signature(T, h, [x, y]))
        h.backward(L.randn(2, 3))
        L("x.grad", x.grad)
        L("y.grad", y.grad)

    fn.__name__ = "inplace_" + name
    return fn


for _name, _apply in [
    ("add_tensor", lambda h, y: h.add_(y)),
    ("add_scalar", lambda h, y: h.add_(1.5)),
    ("add_alpha", lambda h, y: h.add_(y, alpha=0.5)),
    ("sub_tensor", lambda h, y: h.sub_(y)),
    ("sub_scalar", lambda h, y: h.sub_(2)),
    ("mul_tensor", lambda h, y: h.mul_(y)),
    ("mul_scalar", lambda h, y: h.mul_(3.0)),
    ("div_tensor", lambda h, y: h.div_(y)),
    ("div_scalar", lambda h, y: h.div_(4)),
    ("zero", lambda h, y: h.zero_()),
    ("fill", lambda h, y: h.fill_(2.5)),
    ("copy", lambda h, y: h.copy_(y)),
    ("copy_broadcast", lambda h, y: h.copy_(y[0])),
    ("clamp", lambda h, y: h.clamp_(-0.3, 0.4)),
    ("clamp_min", lambda h, y: h.clamp_(min=0.0)),
    ("exp", lambda h, y: h.exp_()),
    ("relu", lambda h, y: h.relu_()),
    ("sigmoid", lambda h, y: h.sigmoid_()),
    ("tanh", lambda h, y: h.tanh_()),
    ("neg", lambda h, y: h.neg_()),
    ("pow", lambda h, y: h.pow_(2)),
    ("iadd_tensor", lambda h, y: h.__iadd__(y)),
    ("imul_scalar", lambda h, y: h.__imul__(2)),
    ("isub_scalar", lambda h, y: h.__isub__(1.5)),
    ("itruediv_tensor", lambda h, y: h.__itruediv__(y)),
]:
    scenario(_inplace_scenario(_name, _apply))


@scenario
def inplace_operators(T, L):
    x = L.randn(2, 3, requires_grad=True)
    y = L.randn(2, 3, requires_grad=True, kind="nz")
    h = x.clone()
    h += y
    L("+=", h)
    h -= 2
    L("-=", h)
    h *= y
    L("*=", h)
    h /= 3
    L("/=", h)
    L("version", h._version)
    L("graph", graph_signature(T, h, [x, y]))
    h.backward(L.randn(2, 3))
    L("x.grad", x.grad)
    L("y.grad", y.grad)


@scenario
def inplace_operator_identity(T, L):
    x = L.randn(3, requires_grad=True)
    h = x * 1
    before = h
    h += 1
    L("same object", h is before)


@scenario
def inplace_on_leaf_errors(T, L):
    x = L.randn(3, requires_grad=True)
    L.raises("add_", x.add_, 1)

    def iadd():
        nonlocal x
        x += 1
    L.raises("+=", iadd)
    L.raises("zero_", x.zero_)
    L("x untouched", x)
    L("version", x._version)


@scenario
def inplace_on_view_of_leaf_errors(T, L):
    x = L.randn(3, requires_grad=True)

    def setitem():
        x[0] = 1.0
    L.raises("x[0] = 1", setitem)
    L.raises("x[:2].mul_(2)", lambda: x[:2].mul_(2))
    L.raises("x.view(3).add_(1)", lambda: x.view(3).add_(1))


@scenario
def inplace_item_assignment(T, L):
    x = L.randn(3, requires_grad=True)
    h = x.clone()
    h[0] = 5.0
    L("h", h)
    L("graph", graph_signature(T, h, [x]))
    h.backward(L.randn(3))
    L("x.grad", x.grad)


@scenario
def inplace_slice_assignment_tensor(T, L):
    x = L.randn(4, requires_grad=True)
    y = L.randn(2, requires_grad=True)
    h = x.clone()
    h[1:3] = y
    L("h", h)
    L("graph", graph_signature(T, h, [x, y]))
    (h * L.randn(4)).sum().backward()
    L("x.grad", x.grad)
    L("y.grad", y.grad)


@scenario
def inplace_slice_assignment_2d(T, L):
    x = L.randn(3, 4, requires_grad=True)
    col = L.randn(3, requires_grad=True)
    row = L.randn(4, requires_grad=True)
    h = x * 1
    h[:, 0] = col
    h[1] = row
    h[2, 3] = 0.0
    L("h", h)
    L("graph", graph_signature(T, h, [x, col, row]))
    h.backward(L.randn(3, 4))
    L("x.grad", x.grad)
    L("col.grad", col.grad)
    L("row.grad", row.grad)


@scenario
def inplace_slice_assignment_broadcast_scalar_tensor(T, L):
    x = L.randn(2, 3, requires_grad=True)
    s = L.randn(requires_grad=True)
    h = x.clone()
    h[:, 1:] = s
    L("h", h)
    h.sum().backward()
    L("x.grad", x.grad)
    L("s.grad", s.grad)


@scenario
def inplace_mask_assignment(T, L):
    x = L.randn(3, 4, requires_grad=True)
    h = x.clone()
    h[h > 0] = 0.0
    L("h", h)
    L("graph", graph_signature(T, h, [x]))
    h.backward(L.randn(3, 4))
    L("x.grad", x.grad)


@scenario
def inplace_index_list_assignment(T, L):
    x = L.randn(4, 2, requires_grad=True)
    v = L.randn(2, 2, requires_grad=True)
    h = x.clone()
    h[[0, 2]] = v
    L("h", h)
    L("graph", graph_signature(T, h, [x, v]))
    h.backward(L.randn(4, 2))
    L("x.grad", x.grad)
    L("v.grad", v.grad)


@scenario
def inplace_on_view_updates_base_graph(T, L):
    x = L.randn(2, 3, requires_grad=True)
    h = x.clone()
    v = h[0]
    v.mul_(2)
    L("v", v)
    L("h", h)
    L("v graph", graph_signature(T, v, [x]))
    L("h graph", graph_signature(T, h, [x]))
    h.backward(L.randn(2, 3))
    L("x.grad", x.grad)


@scenario
def inplace_on_view_then_use_view(T, L):
    x = L.randn(3, 2, requires_grad=True)
    y = L.randn(3, requires_grad=True)
    h = x * 1
    v = h[:, 1]
    v.add_(y)
    out = (v * v).sum() + (h ** 2).sum()
    out.backward()
    L("x.grad", x.grad)
    L("y.grad", y.grad)


@scenario
def inplace_on_transposed_view(T, L):
    x = L.randn(2, 3, requires_grad=True)
    h = x.clone()
    ht = h.t()
    ht.mul_(L.randn(3, 2))
    L("ht", ht)
    L("h", h)
    L("h graph", graph_signature(T, h, [x]))
    h.sum().backward()
    L("x.grad", x.grad)


@scenario
def inplace_base_then_view_grad_fn(T, L):
    x = L.randn(2, 3, requires_grad=True)
    h = x.clone()
    v = h[1]
    h.mul_(2)
    L("view after base modified", v)
    L("view graph", graph_signature(T, v, [x]))
    v.sum().backward()
    L("x.grad", x.grad)


@scenario
def inplace_modified_saved_output_error(T, L):
    x = L.randn(3, requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)
    L.raises("backward", y.sum().backward)


@scenario
def inplace_modified_saved_input_error(T, L):
    x = L.randn(3, requires_grad=True)
    w = L.randn(3, requires_grad=True)
    a = x.clone()
    b = a * w
    a.add_(1)
    L.raises("backward", b.sum().backward)
    a2 = x.clone()
    c = a2 + w  # add saves nothing
    a2.add_(1)
    c.sum().backward()
    L("add does not care", x.grad)


@scenario
def inplace_in_no_grad_on_leaf(T, L):
    x = L.randn(3, requires_grad=True)
    with T.no_grad():
        x.add_(1)
        x[0] = 0.0
    L("x", x)
    L("version", x._version)


@scenario
def inplace_dtype_rules(T, L):
    i = T.arange(3)
    i.add_(1)
    L("int add_", i)
    L.raises("int mul_ float", i.mul_, 2.5)
    f = T.zeros(3)
    f.add_(T.ones(3, dtype=T.float64))
    L("float32 add_ float64", f)
    h = T.zeros(3, dtype=T.float32)
    src = L.randn(3, requires_grad=True)
    h.copy_(src)
    L("copy_ from float64 into float32", h)
    h.sum().backward()
    L("src.grad dtype", src.grad)


@scenario
def inplace_broadcast_error(T, L):
    h = T.zeros(3)
    L.raises("add_ a bigger shape", h.add_, T.ones(2, 3))


# =====================================================================================
# custom autograd.Function


@scenario
def custom_function_exp(T, L):
    class MyExp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            r = x.exp()
            ctx.save_for_backward(r)
            ctx.tag = "hello"
            return r

        @staticmethod
        def backward(ctx, g):
            r, = ctx.saved_tensors
            L("ctx.tag in backward", ctx.tag)
            return g * r

    x = L.randn(3, requires_grad=True)
    y = MyExp.apply(x)
    L("y", y)
    L("node type", type(y.grad_fn).__name__)
    L("name()", y.grad_fn.name())
    L("repr(grad_fn)", norm_addr(repr(y.grad_fn)))
    L("repr(y)", repr(y))
    L("graph", graph_signature(T, y, [x]))
    y.sum().backward()
    L("x.grad", x.grad)
    L.raises("backward again (saved tensors freed)", lambda: y.sum().backward())
    L.raises("ctx.saved_tensors after free", lambda: y.grad_fn.saved_tensors)


@scenario
def custom_function_needs_input_grad(T, L):
    class Scale(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, k):
            L("needs_input_grad in forward", ctx.needs_input_grad)
            ctx.save_for_backward(x, w)
            ctx.k = k
            return x * w * k

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            L("needs_input_grad in backward", ctx.needs_input_grad)
            gx = g * w * ctx.k if ctx.needs_input_grad[0] else None
            gw = g * x * ctx.k if ctx.needs_input_grad[1] else None
            return gx, gw, None

    x = L.randn(3, requires_grad=True)
    w = L.randn(3)
    y = Scale.apply(x, w, 2.0)
    L("y", y)
    y.sum().backward()
    L("x.grad", x.grad)
    L("w.grad", w.grad)


@scenario
def custom_function_none_grad_for_tensor(T, L):
    class Half(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g, None

    a = L.randn(3, requires_grad=True)
    b = L.randn(3, requires_grad=True)
    Half.apply(a, b).sum().backward()
    L("a.grad", a.grad)
    L("b.grad", b.grad)


@scenario
def custom_function_mark_dirty(T, L):
    class AddOne(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = L.randn(3, requires_grad=True)
    h = x * 2
    out = AddOne.apply(h)
    L("returns the input object", out is h)
    L("h", h)
    L("version", h._version)
    L("graph", graph_signature(T, h, [x]))
    (h * h).sum().backward()
    L("x.grad", x.grad)


@scenario
def custom_function_once_differentiable(T, L):
    class Sq(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @T.autograd.function.once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            L("grad mode inside once_differentiable backward", T.is_grad_enabled())
            return 2 * x * g

    x = L.randn(3, requires_grad=True)
    y = Sq.apply(x).sum()
    g, = T.autograd.grad(y, x, create_graph=True)
    L("g", g, names=False)
    L.raises("double backward", lambda: g.sum().backward())
    x2 = L.randn(3, requires_grad=True)
    Sq.apply(x2).sum().backward()
    L("first order works", x2.grad)


@scenario
def custom_function_double_backward(T, L):
    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = L.randn(3, requires_grad=True)
    g, = T.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    L("g", g, names=False)
    h, = T.autograd.grad(g.sum(), x)
    L("second derivative", h)


@scenario
def custom_function_multiple_outputs(T, L):
    class Two(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            L("g2 is None or tensor", g2 is None)
            return g1 * 2 + g2 * 3

    x = L.randn(3, requires_grad=True)
    a, b = Two.apply(x)
    L("a", a)
    L("b", b)
    L("same node", a.grad_fn is b.grad_fn)
    L("output_nr", (a.output_nr, b.output_nr))
    a.sum().backward()
    L("x.grad (only a used; g2 materialized as zeros)", x.grad)


@scenario
def custom_function_mark_non_differentiable(T, L):
    class MaxIdx(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            v, i = x.max(0)
            ctx.mark_non_differentiable(i)
            ctx.save_for_backward(i)
            ctx.n = x.shape[0]
            return v, i

        @staticmethod
        def backward(ctx, gv, gi):
            i, = ctx.saved_tensors
            out = T.zeros(ctx.n, dtype=gv.dtype)
            out[i] = gv
            return out

    x = L.randn(4, requires_grad=True, kind="d")
    v, i = MaxIdx.apply(x)
    L("v", v)
    L("i", i)
    v.backward()
    L("x.grad", x.grad)


@scenario
def custom_function_without_grad_inputs(T, L):
    class Id(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g

    y = Id.apply(L.randn(3))
    L("no grad", y)
    x = L.randn(3, requires_grad=True)
    with T.no_grad():
        z = Id.apply(x)
    L("under no_grad", z)


@scenario
def custom_function_forward_sees_no_grad(T, L):
    class Probe(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            L("grad enabled in forward", T.is_grad_enabled())
            y = x * 2
            L("inner op requires_grad", y.requires_grad)
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = L.randn(3, requires_grad=True)
    Probe.apply(x).sum().backward()
    L("x.grad", x.grad)


@scenario
def custom_function_errors(T, L):
    class Bad(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    class Shape(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g[:2]

    a = L.randn(3, requires_grad=True)
    b = L.randn(3, requires_grad=True)
    L.raises("wrong number of grads", lambda: Bad.apply(a, b).sum().backward())
    L.raises("wrong grad shape", lambda: Shape.apply(a).sum().backward())


# =====================================================================================
# print / repr


@scenario
def repr_tensors_with_autograd(T, L):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    L("leaf", repr(x))
    L("str", str(x))
    y = x * 2
    L("mul", repr(y))
    L("sum", repr(y.sum()))
    L("mean", repr(y.mean()))
    L("f64 leaf", repr(T.tensor([1.0, 2.5], dtype=T.float64, requires_grad=True)))
    L("f64 nonleaf", repr(T.tensor([1.0, 2.5], dtype=T.float64, requires_grad=True) * 3))
    L("int", repr(T.tensor([1, 2, 3])))
    L("bool", repr(T.tensor([True, False])))
    L("scalar int", repr(T.tensor(7)))
    L("detached", repr(y.detach()))
    y.sum().backward()
    L("grad", repr(x.grad))
    with T.no_grad():
        L("leaf under no_grad", repr(x))
        L("op under no_grad", repr(x * 2))


@scenario
def repr_grad_fn_objects(T, L):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    L("grad_fn", norm_addr(repr(y.grad_fn)))
    L("str grad_fn", norm_addr(str(y.grad_fn)))
    L("next_functions", norm_addr(repr(y.grad_fn.next_functions)))
    L("accumulate", norm_addr(repr(y.grad_fn.next_functions[0][0].next_functions)))
    L("leaf grad_fn", repr(x.grad_fn))
    L("name", y.grad_fn.name())
    L("AccumulateGrad name", y.grad_fn.next_functions[0][0].next_functions[0][0].name())
    L("variable is x", y.grad_fn.next_functions[0][0].next_functions[0][0].variable is x)
    w = T.tensor([1.0, 2.0], requires_grad=True)
    z = x * w + T.ones(2) * 3
    L("with constant", norm_addr(repr(z.grad_fn.next_functions)))


@scenario
def repr_formats(T, L):
    L("scientific", repr(T.tensor([1e-5, 1e5], requires_grad=True) * 1))
    L("mixed", repr(T.tensor([1.5, -2.25, 100.0])))
    L("large", repr(T.arange(2000.0, requires_grad=True) * 1))
    L("2d large", repr(T.ones(200, 10)))
    L("nan inf", repr(T.tensor([float("nan"), float("inf"), 1.0], requires_grad=True) * 1))
    L("wrap", repr(T.arange(30.0).reshape(3, 10) / 7))
    L("empty", repr(T.zeros(0, 3, requires_grad=True)))
    L("3d", repr(T.arange(12.0).reshape(2, 3, 2)))
    L("max namedtuple", repr(T.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True).max(0)))
    L("format spec", f"{T.tensor(2.0, requires_grad=True) * 1.5:.3f}")
    L("f-string", f"{T.tensor([1.0, 2.0])}")


@scenario
def repr_sizes_and_dtypes(T, L):
    x = T.zeros(2, 3)
    L("shape", repr(x.shape))
    L("str size", str(x.size()))
    L("size(1)", x.size(1))
    L("size(-1)", x.size(-1))
    L("shape slice", repr(x.shape[1:]))
    L("Size ctor", repr(T.Size([4, 5])))
    L("empty Size", repr(T.zeros(()).shape))
    L("equal to tuple", x.shape == (2, 3))
    L("Size is tuple", isinstance(x.shape, tuple))
    L("numel", x.shape.numel())
    L("dtype repr", repr(x.dtype))
    L("float64 repr", repr(T.float64))
    L("dtype equality", T.float32 == T.float)
    L("type()", x.type())
    L("int type()", T.arange(2).type())
    L("is_floating_point", (x.is_floating_point(), T.arange(2).is_floating_point()))


@scenario
def repr_parameter_like_variable(T, L):
    v = T.autograd.Variable(T.ones(2), requires_grad=True)
    L("Variable", v)
    L("repr", repr(v))


# =====================================================================================
# numpy / item / tolist / conversions


@scenario
def numpy_shares_memory(T, L):
    x = T.zeros(3)
    a = x.numpy()
    a[0] = 5
    L("tensor sees numpy write", x)
    x.add_(1)
    L("numpy sees tensor write", a.tolist())
    L("numpy dtype", str(a.dtype))
    y = L.randn(3, requires_grad=True)
    b = y.detach().numpy()
    b[1] = 7.0
    L("detach().numpy() shares with the leaf", y)
    L.raises("numpy() on requires_grad", y.numpy)


@scenario
def from_numpy_and_tensor_copy(T, L):
    a = np.arange(3.0)
    t = T.from_numpy(a)
    a[0] = 9.0
    L("from_numpy shares", t)
    t.add_(1)
    L("numpy sees", a.tolist())
    b = np.arange(3.0)
    c = T.tensor(b)
    b[0] = 9.0
    L("tensor() copies", c)
    d = np.arange(3, dtype=np.int32)
    L("int32 from_numpy", T.from_numpy(d))
    e = np.ones(2, dtype=np.float32)
    s = T.as_tensor(e)
    e[0] = 3
    L("as_tensor shares", s)


@scenario
def item_and_tolist(T, L):
    L("float item", T.tensor(3.5).item())
    L("int item", T.tensor([4]).item())
    L("bool item", T.tensor(True).item())
    L("2d single", T.tensor([[2.0]]).item())
    L("float32 item precision", T.tensor(0.1).item())
    x = L.randn(3, requires_grad=True)
    L("item of a graph tensor", (x * 2).sum().item())
    L("tolist float32", T.tensor([[0.1, 0.2], [0.3, 0.4]]).tolist())
    L("tolist int", T.arange(4).reshape(2, 2).tolist())
    L("tolist bool", T.tensor([True, False]).tolist())
    L("tolist 0-dim", T.tensor(1.5).tolist())
    L("tolist requires_grad", x.tolist() == x.detach().tolist())
    L.raises("item of many", T.ones(3).item)


@scenario
def python_scalar_conversions(T, L):
    L("float", float(T.tensor([2.5])))
    L("int", int(T.tensor(3.7)))
    L("bool false", bool(T.tensor([0.0])))
    L("bool true", bool(T.tensor(2)))
    L.raises("bool ambiguous", bool, T.ones(2))
    L.raises("float of many", float, T.ones(2))
    x = L.randn(1, requires_grad=True)
    # float() of a requires_grad tensor warns once per process: see test_errors_oracle
    L.warns("item of requires_grad (no warning)", (x * 2).item)
    L("len", len(T.zeros(4, 2)))
    L.raises("len of 0-dim", len, T.tensor(1.0))
    L("index with int tensor", [10, 20, 30][T.tensor(1)])


@scenario
def iteration(T, L):
    x = L.randn(3, 2, requires_grad=True)
    rows = list(x)
    L("rows", rows)
    L("row graph", graph_signature(T, rows[1], [x]))
    a, b = T.tensor([1.0, 2.0])
    L("unpack", (a, b))


# =====================================================================================
# constructors and dtype rules


@scenario
def constructor_dtypes(T, L):
    L("tensor int list", T.tensor([1, 2]))
    L("tensor float list", T.tensor([1.0, 2]))
    L("tensor mixed", T.tensor([1, 2.5]))
    L("tensor bool", T.tensor([True, False]))
    L("tensor bool+int", T.tensor([True, 2]))
    L("tensor scalar int", T.tensor(3))
    L("tensor scalar float", T.tensor(3.0))
    L("tensor nested", T.tensor([[1, 2], [3, 4]]))
    L("tensor empty list", T.tensor([]))
    L("tensor np float64", T.tensor(np.array([1.0, 2.0])))
    L("tensor np int32", T.tensor(np.array([1, 2], dtype=np.int32)))
    L("tensor np float32 scalar", T.tensor(np.float32(1.5)))
    L("tensor dtype arg", T.tensor([1, 2], dtype=T.float32))
    L("tensor requires_grad", T.tensor([1.0], requires_grad=True))
    L.raises("tensor int requires_grad", T.tensor, [1, 2], requires_grad=True)
    L("Tensor list", T.Tensor([1, 2]))
    L("Tensor sizes", (T.Tensor(2, 3).shape, T.Tensor(2, 3).dtype))
    L("Tensor empty", T.Tensor())
    L("FloatTensor", T.FloatTensor([1, 2]))
    L("DoubleTensor", T.DoubleTensor([1, 2]))
    L("LongTensor", T.LongTensor([1, 2]))
    L("LongTensor float data", T.LongTensor([1.7, -2.7]))
    L("isinstance FloatTensor", (isinstance(T.ones(1), T.FloatTensor), isinstance(T.ones(1), T.DoubleTensor)))


@scenario
def factory_dtypes(T, L):
    L("zeros", T.zeros(2, 3))
    L("zeros tuple", T.zeros((2, 3)))
    L("zeros list", T.zeros([2]))
    L("ones int", T.ones(2, dtype=T.int64))
    L("ones requires_grad", T.ones(2, requires_grad=True))
    L("empty shape/dtype", (T.empty(2, 2).shape, T.empty(2, 2).dtype))
    L("arange int", T.arange(5))
    L("arange float", T.arange(0.0, 1.0, 0.25))
    L("arange start end", T.arange(1, 4))
    L("arange float step", T.arange(1, 4, 0.5))
    L("arange dtype", T.arange(3, dtype=T.float64))
    L("arange requires_grad", T.arange(3.0, requires_grad=True))
    L("linspace", T.linspace(0, 1, 5))
    L("linspace ints", T.linspace(-1, 1, steps=4))
    L("linspace dtype", T.linspace(0, 1, 3, dtype=T.float64))
    L("full int", T.full((2,), 3))
    L("full float", T.full((2, 2), 1.5))
    L("full bool", T.full((2,), True))
    L("full dtype", T.full((2,), 3, dtype=T.float32))
    L("eye", T.eye(3))
    L("eye rect", T.eye(2, 3))
    L("eye dtype", T.eye(2, dtype=T.int64))


@scenario
def like_constructors(T, L):
    i = T.arange(3)
    x = L.randn(2, 2, requires_grad=True)
    L("zeros_like int", T.zeros_like(i))
    L("ones_like float64 rg", T.ones_like(x))
    L("ones_like dtype", T.ones_like(x, dtype=T.float32))
    L("full_like", T.full_like(x, 7))
    L("full_like int fill float", T.full_like(i, 2.7))
    L("zeros_like requires_grad", T.zeros_like(x, requires_grad=True))
    L("empty_like shape dtype", (T.empty_like(x).shape, T.empty_like(x).dtype))
    L("rand_like dtype", (T.rand_like(x).dtype, T.rand_like(x).requires_grad))
    L("randn_like shape", T.randn_like(x).shape)
    L("new_zeros", x.new_zeros(3))
    L("new_ones", i.new_ones((2,)))
    L("new_full", x.new_full((2,), 1.0))
    L("new_tensor", x.new_tensor([1, 2]))


@scenario
def random_constructor_dtypes(T, L):
    T.manual_seed(0)
    L("rand", (T.rand(2, 3).dtype, T.rand(2, 3).shape))
    L("randn rg", T.randn(2, requires_grad=True).requires_grad)
    L("randint", (T.randint(0, 5, (3,)).dtype, T.randint(5, (2, 2)).shape))
    L("randperm", (T.randperm(4).dtype, sorted(T.randperm(4).tolist())))


@scenario
def set_default_dtype_effects(T, L):
    L("default", T.get_default_dtype())
    T.set_default_dtype(T.float64)
    L("now", T.get_default_dtype())
    L("tensor float list", T.tensor([1.0, 2.0]))
    L("repr float64 default", repr(T.tensor([1.0, 2.0])))
    L("tensor int list", T.tensor([1, 2]))
    L("zeros", T.zeros(2))
    L("arange float", T.arange(0.0, 1.0, 0.5))
    L("linspace", T.linspace(0, 1, 3))
    L("int tensor times float", T.tensor([1, 2]) * 2.5)
    L("float32 repr now shows dtype", repr(T.ones(2, dtype=T.float32)))
    L("Tensor()", T.Tensor([1, 2]))
    L("FloatTensor stays float32", T.FloatTensor([1, 2]))
    L("int / int", T.tensor([1, 2]) / 2)
    x = T.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    L("grad", x.grad)
    L.raises("set int default", T.set_default_dtype, T.int64)
    T.set_default_dtype(T.float32)
    L("restored", T.tensor([1.0]))


# =====================================================================================
# to / float / double and flags


@scenario
def dtype_conversion_graph(T, L):
    x = L.randn(3, dtype="float32", requires_grad=True)
    L("to same dtype is self", x.to(T.float32) is x)
    L("float() is self", x.float() is x)
    L("to copy=True is not self", x.to(T.float32, copy=True) is x)
    L("to cpu is self", x.to("cpu") is x)
    y = x.double()
    L("double", y)
    z = y.to(T.float32)
    L("back", z)
    L("graph", graph_signature(T, z, [x]))
    (z * y).sum().backward()
    L("x.grad", x.grad)
    L("type(float64)", x.type(T.float64))
    L("to int", x.to(T.int64))
    L("half", x.half())


@scenario
def requires_grad_flags(T, L):
    x = T.ones(2)
    L("default", (x.requires_grad, x.is_leaf, x.grad_fn))
    x.requires_grad_()
    L("requires_grad_()", x)
    x.requires_grad_(False)
    L("requires_grad_(False)", x)
    x.requires_grad = True
    L("attribute", x)
    y = x * 2
    L.raises("set False on non-leaf", lambda: setattr(y, "requires_grad", False))
    L.raises("requires_grad_(True) on non-leaf", y.requires_grad_, True)
    L.raises("int tensor", T.arange(3).requires_grad_)
    L("op of no-grad tensors", T.ones(2) * 2)
    L("clone of leaf", x.clone())
    L("select of leaf", x[0])
    L("detach", x.detach())
    L("leaf grad_fn", x.grad_fn)


@scenario
def grad_assignment_rules(T, L):
    w = L.randn(3, requires_grad=True)
    L.raises("wrong shape", lambda: setattr(w, "grad", T.zeros(4, dtype=T.float64)))
    L.raises("wrong dtype", lambda: setattr(w, "grad", T.zeros(3)))
    w.grad = T.ones(3, dtype=T.float64)
    L("assigned", w.grad)
    L.raises("grad None zero_", lambda: L.randn(3, requires_grad=True).grad.zero_())


@scenario
def graph_structure(T, L):
    x = L.randn(3, requires_grad=True)
    w = L.randn(3, requires_grad=True)
    b = L.randn(requires_grad=True)
    y = (x * w + b).sum() / 3
    L("graph", graph_signature(T, y, [x, w, b]))
    z = x.exp()
    u = z * z.sin() + z
    L("shared node graph", graph_signature(T, u, [x]))
    c = L.randn(3)
    v = x * c + c
    L("constant inputs", graph_signature(T, v, [x]))


@scenario
def copy_construct_warning(T, L):
    x = L.randn(3, requires_grad=True)
    y = L.warns("tensor(tensor)", T.tensor, x * 2)
    L("result", y)


@scenario
def deepcopy_rules(T, L):
    import copy
    x = L.randn(3, requires_grad=True)
    c = copy.deepcopy(x)
    L("leaf deepcopy", c)
    L("is new object", c is x)
    L.raises("non-leaf deepcopy", copy.deepcopy, x * 2)


@scenario
def tutorial_scalar_calculus(T, L):
    x = T.tensor(2.0, requires_grad=True)
    y = x ** 2 + 3 * x + 1
    L("y", y)
    L("repr y", repr(y))
    y.backward()
    L("x.grad", x.grad)
    L("repr x.grad", repr(x.grad))
    a = T.tensor(3.0, requires_grad=True)
    b = T.tensor(4.0, requires_grad=True)
    c = (a * b + a.exp()) / b
    c.backward()
    L("a.grad", a.grad)
    L("b.grad", b.grad)


@scenario
def tutorial_nonleaf_parameter_gotcha(T, L):
    w = T.randn(3, requires_grad=True) * 0.01  # a non-leaf: its .grad stays None
    L("w", w, values=False)
    (w * 2).sum().backward()
    g = L.warns("w.grad", lambda: w.grad)
    L("value", g)


@scenario
def tutorial_old_style_sgd(T, L):
    w = L.randn(3, requires_grad=True)
    x = L.randn(5, 3)
    t = L.randn(5)
    for _ in range(3):
        loss = ((x @ w - t) ** 2).mean()
        loss.backward()
        w.data -= 0.1 * w.grad.data
        w.grad.data.zero_()
    L("w", w)
    L("w._version", w._version)
    L("w.grad", w.grad)
    L("loss", loss)


@scenario
def tutorial_fill_buffer_with_graph_values(T, L):
    h = L.randn(3, requires_grad=True)
    out = T.zeros(4, 3, dtype=T.float64)
    for i in range(4):
        h = (h * 0.5).tanh()
        out[i] = h
    L("out", out)
    L("out graph head", type(out.grad_fn).__name__)
    out.sum().backward()
    L("grad reaches nothing (h rebound)", out.is_leaf)
    h0 = L.randn(3, requires_grad=True)
    buf = T.zeros(2, 3, dtype=T.float64)
    buf[0] = h0 * 2
    buf[1] = h0.sin()
    buf.sum().backward()
    L("h0.grad", h0.grad)


@scenario
def tutorial_rnn_loop_with_detach(T, L):
    W = L.randn(3, 3, requires_grad=True)
    h = T.zeros(3, dtype=T.float64)
    xs = L.randn(4, 3)
    losses = []
    for x in xs:
        h = (W @ h + x).tanh()
        loss = h.pow(2).sum()
        loss.backward(retain_graph=True)
        losses.append(loss.item())
        h = h.detach()
    L("losses", losses)
    L("W.grad", W.grad)


@scenario
def shared_subgraph_freed_by_first_backward(T, L):
    x = L.randn(3, requires_grad=True)
    z = x.exp()
    a = z.sum()
    b = (z * 2).sum()
    a.backward()
    L("x.grad", x.grad)
    L.raises("b.backward through the freed ExpBackward0", b.backward)
    x2 = L.randn(3, requires_grad=True)
    z2 = x2 * 3  # saves nothing tensor-valued
    (z2.sum()).backward()
    (z2 * 2).sum().backward()
    L("no saved tensors: fine", x2.grad)


@scenario
def leaf_modified_in_no_grad_before_backward(T, L):
    w = L.randn(3, requires_grad=True)
    x = L.randn(3)
    y = (w * x).sum()
    z = (w * w).sum()
    with T.no_grad():
        w.mul_(0.5)
    L("version", w._version)
    L.raises("backward needing w (saved by mul)", z.backward)
    y.backward()
    L("w.grad from y (x was saved, not w)", w.grad)


@scenario
def leaf_view_saved_then_modified(T, L):
    w = L.randn(4, 2, requires_grad=True)
    x = L.randn(3, 2)
    y = x @ w.t()
    with T.no_grad():
        w.mul_(0.5)
    L.raises("backward", y.sum().backward)


@scenario
def checks_and_gradcheck(T, L):
    a = f64(T, [1.0, 2.0, 3.0])
    b = a + 1e-9
    L("allclose", T.allclose(a, b))
    L("allclose far", T.allclose(a, a + 1))
    L("equal", (T.equal(a, a.clone()), T.equal(a, b)))
    L("isclose", T.isclose(a, f64(T, [1.0, 2.1, 3.0])))
    L("isclose nan", T.isclose(f64(T, [float("nan")]), f64(T, [float("nan")]), equal_nan=True))
    x = L.randn(3, requires_grad=True)
    w = L.randn(3, requires_grad=True)
    L("gradcheck", T.autograd.gradcheck(lambda p, q: (p * q).sin().sum(), (x, w)))
    L("gradgradcheck", T.autograd.gradgradcheck(lambda p, q: (p * q).sin(), (x, w)))

    class Wrong(T.autograd.Function):
        @staticmethod
        def forward(ctx, p):
            return p * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    L("gradcheck of a wrong backward, no raise", T.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False))


# =====================================================================================


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario(name):
    oracle.compare_scenario(SCENARIOS[name])
