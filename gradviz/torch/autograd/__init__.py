"""torch.autograd: backward, grad, Variable, Function, grad modes, anomaly detection."""
from .. import _errors
from .engine import ANOMALY, run_backward
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .graph import edge_of


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


def _make_root_grads(outputs, grad_outputs, is_grads_batched=False):
    from .. import _functions as F
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._requires_grad:
                if out._data.size != 1:
                    raise _errors.nonscalar_implicit_grad(tensor=out)
                if out._data.dtype.kind == "c":
                    raise _errors.complex_implicit_grad(out.dtype)
                g = F.ones_like(out)
            else:
                grads.append(None)
                continue
        elif not F.is_tensor(g):
            g = F.tensor(g, dtype=out.dtype)
        if (g._data.dtype.kind == "c") != (out._data.dtype.kind == "c"):
            raise _errors.complex_grad_dtype(i, g.dtype, out.dtype)
        if g._data.shape != out._data.shape:
            # PyTorch finds the positions for its message with list.index(), which compares
            # the earlier tensors with ==; that comparison can raise first (and does when it
            # gives more than one value), exactly as here.
            grad_index = list(grad_outputs).index(g) if F.is_tensor(grad_outputs[i]) else i
            out_index = list(outputs).index(out)
            raise _errors.grad_shape_mismatch(grad_index, g._data.shape, out._data.shape, out_index)
        grads.append(g)
    return grads


def _roots(outputs):
    edges = []
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise _errors.no_grad_fn(i, tensor=out)
        edges.append(edge_of(out))
    return edges


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    outputs = _as_tuple(tensors)
    grad_outputs = _as_tuple(grad_tensors if grad_tensors is not None else grad_variables)
    if not grad_outputs:
        grad_outputs = (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs")
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(outputs)
    grads = _make_root_grads(outputs, grad_outputs)
    if create_graph:
        _errors.warn_once(_errors.CREATE_GRAPH_BACKWARD_WARNING)
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        captured = run_backward(roots, grads, retain_graph, create_graph,
                                capture=[edge_of(t) for t in inputs], kind="backward")
        from .engine import accumulate_grad
        from .grad_mode import STATE
        prev = STATE.enabled
        STATE.enabled = bool(create_graph)
        try:
            for t, g in zip(inputs, captured):
                if g is not None:
                    accumulate_grad(t, g, create_graph)
        finally:
            STATE.enabled = prev
        return
    run_backward(roots, grads, retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    outputs = _as_tuple(outputs)
    inputs_t = _as_tuple(inputs)
    # PyTorch pairs outputs with grad_outputs positionally and ignores extras.
    grad_outputs = (_as_tuple(grad_outputs) + (None,) * len(outputs))[:len(outputs)]
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs_t:
        if not t._requires_grad:
            raise _errors.input_no_requires_grad()
    roots = _roots(outputs)
    grads = _make_root_grads(outputs, grad_outputs)
    captured = run_backward(roots, grads, retain_graph, create_graph, capture=[edge_of(t) for t in inputs_t],
                            accumulate=False, kind="autograd.grad")
    result = []
    from .. import _functions as F
    for i, (t, g) in enumerate(zip(inputs_t, captured)):
        if g is None:
            if materialize_grads:
                g = F.zeros_like(t)
            elif not allow_unused:
                raise _errors.unused_input(i)
        elif not create_graph and g._requires_grad:
            g = g.detach()
        result.append(g)
    return tuple(result)


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        from .._tensor import Tensor
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """The pre-0.4 wrapper: today it returns the tensor itself, with requires_grad set."""
    __module__ = "torch.autograd.variable"

    def __new__(cls, data, requires_grad=False, volatile=False):
        if requires_grad:
            data.requires_grad_(True)
        return data


class set_detect_anomaly:
    def __init__(self, mode, check_nan=True):
        self.prev = (ANOMALY.enabled, ANOMALY.check_nan)
        ANOMALY.enabled, ANOMALY.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        ANOMALY.enabled, ANOMALY.check_nan = self.prev
        return False


class detect_anomaly(set_detect_anomaly):
    def __init__(self, check_nan=True):
        super().__init__(True, check_nan)


def is_anomaly_enabled():
    return ANOMALY.enabled


from .function import Function, FunctionCtx, once_differentiable  # noqa: E402,F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402,F401
from . import graph as graph  # noqa: E402,F401
from . import functional as functional  # noqa: E402,F401
