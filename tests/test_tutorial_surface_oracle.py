"""What tutorials call that sits beside the ops, each compared with real PyTorch: torch's
math constants, anomaly mode's switches and its warning, torch.backends' reproducibility
flags, the matmul-precision and deterministic-algorithm settings, saved-tensor hook
contexts (disable_saved_tensors_hooks, save_on_cpu), gradient clipping's split API
(get_total_norm, clip_grads_with_norm_) and the smaller dtype converters of Tensor."""
import re
import warnings

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
    return re.sub(r"0x[0-9a-f]+", "0x", repr(value))


def both(program):
    """Runs program(T) on each engine with warnings recorded: (result, warning texts)."""
    seen = []
    for T in (gtorch, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UserWarning)
            result = outcome(lambda: program(T))
        seen.append((result, [str(w.message) for w in caught if w.category is UserWarning]))
    return seen


CONSTANTS = ["T.pi", "T.e", "T.inf", "T.nan", "T.newaxis", "T.sin(T.pi * T.tensor([0.5, 1.0]))",
             "T.tensor([1.0])[:, T.newaxis].shape", "T.tensor([T.inf, -T.inf, T.nan])"]


@pytest.mark.parametrize("expression", CONSTANTS)
def test_constants(expression):
    gradviz_result, torch_result = both(lambda T: eval(expression, {"T": T}))
    assert gradviz_result == torch_result


ANOMALY = [
    "T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()",
    "T.set_anomaly_enabled(True), T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()",
    "T.set_anomaly_enabled(True, False), T.is_anomaly_check_nan_enabled(), T.set_anomaly_enabled(False), "
    "T.is_anomaly_check_nan_enabled()",
    "T.set_anomaly_enabled(False, False), T.autograd.set_detect_anomaly(True), T.is_anomaly_enabled(), "
    "T.is_anomaly_check_nan_enabled()",
    "T.autograd.set_detect_anomaly(False, check_nan=False), T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()",
    "T.autograd.detect_anomaly() is None, T.is_anomaly_enabled()",
    "T.autograd.detect_anomaly(check_nan=False).__enter__(), T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()",
    "T.autograd.set_detect_anomaly(True).__enter__(), T.is_anomaly_enabled()",
    "T.autograd.detect_anomaly.__module__, T.autograd.set_detect_anomaly.__module__",
]


@pytest.mark.parametrize("expression", ANOMALY)
def test_anomaly_switches(expression):
    def run(T):
        T.set_anomaly_enabled(False)
        try:
            return eval(expression, {"T": T})
        finally:
            T.set_anomaly_enabled(False)
    gradviz_result, torch_result = both(run)
    assert gradviz_result == torch_result


def test_detect_anomaly_blocks_and_decorator():
    def run(T):
        states = []
        try:
            T.autograd.detect_anomaly()(lambda: None)
        except TypeError as exc:
            states.append(str(exc))
        with T.autograd.set_detect_anomaly(True, check_nan=False):
            with T.autograd.detect_anomaly():
                states.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
            states.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
        states.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
        with T.autograd.detect_anomaly() as entered:
            states.append((entered, T.is_anomaly_enabled()))
        with T.autograd.set_detect_anomaly(True) as entered:
            states.append((entered, T.is_anomaly_enabled()))
        return states
    assert both(run)[0] == both(run)[1]


BACKENDS = ["T.backends.cudnn.deterministic", "T.backends.cudnn.benchmark", "T.backends.cudnn.enabled",
            "T.backends.cudnn.is_available()", "T.backends.mps.is_available()", "T.backends.mps.is_built()",
            "T.backends.cuda.matmul.allow_tf32", "T.backends.cudnn.allow_tf32", "T.backends.mkldnn.is_available()",
            "T.backends.openmp.is_available()", "T.get_float32_matmul_precision()",
            "T.are_deterministic_algorithms_enabled(), T.is_deterministic_algorithms_warn_only_enabled()",
            "T.set_float32_matmul_precision('high'), T.get_float32_matmul_precision()",
            "T.set_float32_matmul_precision('medium'), T.set_float32_matmul_precision('fast'), "
            "T.get_float32_matmul_precision()",
            "T.use_deterministic_algorithms(True), T.are_deterministic_algorithms_enabled()",
            "T.use_deterministic_algorithms(True, warn_only=True), T.is_deterministic_algorithms_warn_only_enabled()",
            "T.use_deterministic_algorithms(1)", "T.use_deterministic_algorithms(None)",
            "T.use_deterministic_algorithms(False, warn_only='yes')"]


@pytest.mark.parametrize("expression", BACKENDS)
def test_backends_and_settings(expression):
    def run(T):
        try:
            return eval(expression, {"T": T})
        finally:
            T.set_float32_matmul_precision("highest")
            T.use_deterministic_algorithms(False)
    assert both(run)[0] == both(run)[1]


def test_reproducibility_flags_are_kept():
    def run(T):
        T.backends.cudnn.deterministic = True
        T.backends.cudnn.benchmark = False
        try:
            return T.backends.cudnn.deterministic, T.backends.cudnn.benchmark
        finally:
            T.backends.cudnn.deterministic = False
    assert both(run)[0] == both(run)[1]


def test_disable_saved_tensors_hooks():
    def run(T):
        graph = T.autograd.graph
        seen = []
        with graph.disable_saved_tensors_hooks("no hooks in this block"):
            with graph.disable_saved_tensors_hooks("inner message"):
                try:
                    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                        seen.append("entered")
                except RuntimeError as exc:
                    seen.append(str(exc))
            try:
                graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
            except RuntimeError as exc:
                seen.append(str(exc))
        with graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
            y = T.tensor([1.0, 2.0], requires_grad=True)
            z = (y * y).sum()
        z.backward()
        return seen, y.grad
    assert both(run)[0] == both(run)[1]


@pytest.mark.parametrize("seed", range(4))
def test_save_on_cpu(seed):
    def run(T):
        T.manual_seed(seed)
        x = T.randn(3, 4, dtype=T.float64, requires_grad=True)
        w = T.randn(4, 2, dtype=T.float64, requires_grad=True)
        with T.autograd.graph.save_on_cpu(pin_memory=False):
            out = (x @ w).tanh().pow(2).sum()
        out.backward()
        return out, x.grad, w.grad, type(out.grad_fn).__name__
    assert both(run)[0] == both(run)[1]


def _model_grads(T, seed):
    T.manual_seed(seed)
    # float64: float32 gradients that cancel to ~1e-5 differ in their last digits before clipping
    model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2)).double()
    (model(T.randn(5, 3, dtype=T.float64) * 10).pow(2).sum()).backward()
    return model


CLIPS = ["u.get_total_norm(grads)", "u.get_total_norm(grads, norm_type=1)", "u.get_total_norm(grads, float('inf'))",
         "u.get_total_norm(grads[0])", "u.get_total_norm([])", "u.get_total_norm(iter(grads), 3.0)",
         "u.clip_grads_with_norm_(ps, 1.0, u.get_total_norm(grads)), [p.grad for p in ps]",
         "u.clip_grads_with_norm_(ps, 1e9, T.tensor(2.0)), [p.grad for p in ps]",
         "u.clip_grads_with_norm_(ps[0], 0.5, T.tensor(3.0)), ps[0].grad",
         "u.clip_grad_norm_(ps, 0.5), [p.grad for p in ps]",
         "u.clip_grad_norm_(iter(ps), 0.5, norm_type=2.5), [p.grad for p in ps]",
         "u.clip_grad_norm_((p for p in []), 0.5)", "u.clip_grad_norm_([], 0.5)",
         "ps[0].grad.fill_(float('nan')), u.get_total_norm(grads, error_if_nonfinite=True)",
         "ps[1].grad.fill_(float('inf')), u.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)"]


@pytest.mark.parametrize("expression", CLIPS)
@pytest.mark.parametrize("seed", range(3))
def test_total_norm_and_clipping(expression, seed):
    def run(T):
        model = _model_grads(T, seed)
        ps = list(model.parameters())
        return eval(expression, {"T": T, "u": T.nn.utils, "ps": ps, "grads": [p.grad for p in ps]})
    gradviz_result, torch_result = both(run)
    assert gradviz_result == torch_result


CONVERTERS = ["byte", "char", "short", "cfloat", "cdouble"]


@pytest.mark.parametrize("name", CONVERTERS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_converters_and_sizes(name, dtype):
    def run(T):
        x = T.tensor(np.array([0.0, 1.5, -2.0, 3.0])).to(getattr(T, dtype))
        if x.is_floating_point():
            x.requires_grad_()
        y = getattr(x, name)()
        return y, y.dtype, y.nbytes, y.itemsize, y.is_cpu, x.nbytes, x.itemsize, y.requires_grad
    assert both(run)[0] == both(run)[1]


@pytest.mark.parametrize("retain", [False, True])
def test_anomaly_nan_frees_the_node_first(retain):
    """PyTorch checks a node's gradients for NaN after the node ran and, without
    retain_graph, freed what it saved: reading a saved value afterwards says so."""
    def run(T):
        x = T.tensor([-1.0, 4.0], requires_grad=True)
        seen = []
        with T.autograd.detect_anomaly():
            y = x.sqrt()
            try:
                y.sum().backward(retain_graph=retain)
            except RuntimeError as exc:
                seen.append(str(exc))
        seen.append(outcome(lambda: y.grad_fn._saved_result))
        return seen
    # the results only: PyTorch also warns "Error detected in SqrtBackward0" with the forward
    # traceback, a warning gradviz's anomaly mode does not give yet
    assert both(run)[0][0] == both(run)[1][0]
