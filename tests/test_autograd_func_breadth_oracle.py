"""The rest of torch.autograd's and torch.func's names against PyTorch 2.13:
set_multithreading_enabled and enforce_grad_layout_policy (context managers and
decorators; the layout policy decides a first gradient's strides), the removed
``variable`` and the legacy NestedIOFunction, and linearize, functionalize, debug_unwrap
and replace_all_batch_norm_modules_."""
import numpy as np
import pytest

import gradviz.torch as gt


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _permuted_leaf(lib):
    return lib.zeros(2, 3, 4).permute(2, 0, 1).requires_grad_()


def test_grad_layout_policy_decides_first_gradient_strides(torch):
    seen = []
    for lib in (gt, torch):
        strides = []
        relaxed = _permuted_leaf(lib)
        with lib.autograd.enforce_grad_layout_policy(False):
            (relaxed * 2).sum().backward()
        strides.append(relaxed.grad.stride())
        enforced = _permuted_leaf(lib)
        (enforced * 2).sum().backward()
        strides.append(enforced.grad.stride())
        decorated = _permuted_leaf(lib)

        @lib.autograd.enforce_grad_layout_policy(False)
        def step(p=decorated):
            (p * 2).sum().backward()
        step()
        strides.append(decorated.grad.stride())
        plain = _permuted_leaf(lib)
        lib.autograd.enforce_grad_layout_policy(False)  # a plain call switches it until switched back
        (plain * 2).sum().backward()
        lib.autograd.enforce_grad_layout_policy(True)
        strides.append(plain.grad.stride())
        seen.append(strides)
    assert seen[0] == seen[1]


def test_multithreading_switch_changes_no_result(torch):
    seen = []
    for lib in (gt, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.set_multithreading_enabled(False):
            (x * x).sum().backward()
        decorated = lib.autograd.set_multithreading_enabled(True)(lambda: (x ** 3).sum().backward())
        decorated()
        seen.append((x.grad.tolist(), type(lib.autograd.set_multithreading_enabled(True)).__name__))
    assert seen[0] == seen[1]


def test_removed_variable_and_legacy_nested_function(torch):
    seen = []
    for lib in (gt, torch):
        with pytest.raises(RuntimeError) as removed:
            lib.autograd.variable(1)

        class Doubler(lib.autograd.NestedIOFunction):
            def forward_extended(self, x):
                return x * 2
        with pytest.raises(AttributeError) as legacy:
            Doubler()(lib.ones(2))
        seen.append((str(removed.value), str(legacy.value), issubclass(Doubler, lib.autograd.Function)))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("seed", range(3))
def test_linearize_matches(torch, seed):
    rng = np.random.default_rng(seed)
    x, t = rng.standard_normal(4), rng.standard_normal(4)
    w = rng.standard_normal((4, 4))
    results = []
    for lib in (gt, torch):
        def f(a, lib=lib):
            return lib.tanh(lib.tensor(w) @ a) * a.sin()
        output, jvp_fn = lib.func.linearize(f, lib.tensor(x))
        results.append((output.detach().numpy(), jvp_fn(lib.tensor(t)).detach().numpy(),
                        jvp_fn(lib.tensor(2 * t)).detach().numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_linearize_tangent_checks(torch):
    seen = []
    for lib in (gt, torch):
        _, jvp_fn = lib.func.linearize(lib.sin, lib.zeros(3))
        errors = []
        for tangents in ((lib.ones(2),), (lib.ones(3, dtype=lib.float64),), (lib.ones(3), lib.ones(3))):
            with pytest.raises(RuntimeError) as raised:
                jvp_fn(*tangents)
            errors.append(str(raised.value))
        seen.append(errors)
    assert seen[0] == seen[1]


def test_functionalize_keeps_results_and_input_mutations(torch):
    seen = []
    for lib in (gt, torch):
        def f(a):
            a.add_(1)
            return a * 2
        y = lib.zeros(2)
        out = lib.func.functionalize(f)(y)
        out2 = lib.func.functionalize(f, remove="mutations_and_views")(y)
        with pytest.raises(RuntimeError) as raised:
            lib.func.functionalize(f, remove="views")
        seen.append((out.tolist(), out2.tolist(), y.tolist(), str(raised.value)))
    assert seen[0] == seen[1]


def test_replace_batch_norm_and_debug_unwrap(torch):
    seen = []
    for lib in (gt, torch):
        model = lib.nn.Sequential(lib.nn.BatchNorm1d(3), lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2, affine=False))
        same = lib.func.replace_all_batch_norm_modules_(model) is model
        x = lib.ones(2)
        seen.append((same, [(m.running_mean, m.running_var, m.num_batches_tracked, m.track_running_stats)
                            for m in (model[0], model[2])], lib.func.debug_unwrap(x) is x))
    assert seen[0] == seen[1]
