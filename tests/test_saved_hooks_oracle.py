"""Saved-tensor hooks, save_on_cpu and the anomaly switches, gradviz.torch against real
PyTorch: what a pack hook is given (through ``saved_tensors_hooks`` and through
``grad_fn._raw_saved_*``), ops that save nothing inside the hooks, PyTorch's refusals of an
unpack hook that returns no tensor and of a pack hook that modifies its input in place.
Scenarios as in test_autograd_oracle.py: both libraries log, the logs must agree."""
import numpy as np
import pytest

import oracle

pytest.importorskip("torch")

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def _seen_by(L, label, log):
    """What a pack hook was given: its flags, and whether it is the saved tensor itself."""
    L(label, [(t.requires_grad, t.is_leaf, type(t.grad_fn).__name__, t._version, same) for t, same in log])


@scenario
def ops_saving_nothing_inside_hooks(T, L):
    x = L.randn(3, 4, requires_grad=True)
    h = x * 1.5
    packed = []
    ops = [lambda t: t.clone(), lambda t: -t, lambda t: t.neg(), lambda t: +t, lambda t: t.t(), lambda t: t.view(12),
           lambda t: t[1], lambda t: t.sum(), lambda t: t.sum(0), lambda t: t + 1, lambda t: t - t,
           lambda t: t.double(), lambda t: t.clone().neg_(), lambda t: t.detach().clone(), lambda t: T.cat([t, t]),
           lambda t: t.expand(2, 3, 4), lambda t: t.contiguous(), lambda t: t.clone(memory_format=T.contiguous_format)]
    for base in (x, h):
        for k, op in enumerate(ops):
            with T.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
                y = op(base)
            L(f"op {k}", y)
            if y.requires_grad:
                y.sum().backward(retain_graph=True)
    L("packed", len(packed))
    L("grad", x.grad)


@scenario
def pack_hook_inputs(T, L):
    x = L.randn(3, requires_grad=True)
    seen = []
    with T.autograd.graph.saved_tensors_hooks(lambda t: seen.append((t, t is x)) or t, lambda t: t):
        a = x.sin()  # saves the leaf x
        b = (x * 2).exp()  # saves its own result
    _seen_by(L, "saved_tensors_hooks", seen)
    L("values", [t for t, _ in seen])
    seen.clear()
    outs = (x.cos(), x.exp(), (x * 3).sin())  # kept alive: PyTorch's raw slots do not keep their node
    for out, slot in zip(outs, ("self", "result", "self")):
        getattr(out.grad_fn, "_raw_saved_" + slot).register_hooks(lambda t: seen.append((t, t is x)) or t, lambda t: t)
    _seen_by(L, "_raw_saved_ register_hooks", seen)
    L("values", [t for t, _ in seen])
    (a.sum() + b.sum()).backward()
    L("grad", x.grad)


class _Box:
    pass


@scenario
def unpack_hook_must_return_a_tensor(T, L):
    x = L.randn(3, requires_grad=True)
    for value in (5, None, "text", 1.5, (x,), [x], _Box(), np.zeros(2)):
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t, v=value: v):
            y = x.sin()
        L.raises(f"backward, unpack gives {type(value).__name__}", y.sum().backward)
        L.raises(f"_saved_self, unpack gives {type(value).__name__}", lambda: y.grad_fn._saved_self)
    y = x.exp()
    y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: 7)
    L.raises("raw slot: backward", y.sum().backward)
    z = x * 2.5  # a saved number (mul's other is a leaf here, so its slot is x)
    z.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: "x")
    L.raises("raw slot of mul: backward", z.sum().backward)


@scenario
def pack_hook_modifying_its_input(T, L):
    a = L.randn(3, requires_grad=True)

    def doubling(t):
        t.mul_(2)
        return t
    with T.autograd.graph.saved_tensors_hooks(doubling, lambda t: t):
        L.raises("leaf input", lambda: a.sin())
        L.raises("non-leaf input", lambda: (a * 1).sin())
        L.raises("saved result", lambda: (a * 1).exp())
    s, e = (a * 1).sin(), (a * 1).exp()  # kept alive: PyTorch's raw slots do not keep their node
    L.raises("raw slot of an input", lambda: s.grad_fn._raw_saved_self.register_hooks(doubling, lambda t: t))
    L.raises("raw slot of a result", lambda: e.grad_fn._raw_saved_result.register_hooks(doubling, lambda t: t))
    L("a", a)
    with T.autograd.graph.saved_tensors_hooks(lambda t: (L("grad mode in pack", T.is_grad_enabled()), t)[1],
                                              lambda t: t):
        a.sin()


@scenario
def save_on_cpu_hooks(T, L):
    T.manual_seed(7)
    x = T.randn(4, 3, requires_grad=True)
    for pin in (False, True):
        with T.autograd.graph.save_on_cpu(pin_memory=pin):
            y = x.sin()
            z = (x * 2).exp()
            w = x.clone()
        L(f"pin={pin}: saved self is x", y.grad_fn._saved_self is x)
        L(f"pin={pin}: saved self", y.grad_fn._saved_self)
        L(f"pin={pin}: saved result", z.grad_fn._saved_result)
        (y.sum() + z.sum() + w.sum()).backward()
        L(f"pin={pin}: grad", x.grad)
    L("a saved_tensors_hooks", isinstance(T.autograd.graph.save_on_cpu(), T.autograd.graph.saved_tensors_hooks))
    L("class name", T.autograd.graph.save_on_cpu.__name__)


@scenario
def anomaly_switches(T, L):
    L("default", (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    with T.autograd.set_detect_anomaly(True):
        L("set_detect_anomaly(True)", (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    guard = T.autograd.set_detect_anomaly(True, check_nan=False)  # on as soon as made
    L("set_detect_anomaly made", (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    with guard:
        pass
    L("after", (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    guard = L.warns("detect_anomaly made", T.autograd.detect_anomaly, check_nan=False)  # on when entered
    L("detect_anomaly made", (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    with guard:
        L("detect_anomaly entered", (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    L("after detect_anomaly", (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    for fn in (T.is_anomaly_enabled, T.is_anomaly_check_nan_enabled, T.is_grad_enabled, T.is_inference_mode_enabled):
        L.raises("an argument", fn, 1)
        L.raises("a keyword", fn, mode=True)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario(name):
    oracle.compare_scenario(SCENARIOS[name])
