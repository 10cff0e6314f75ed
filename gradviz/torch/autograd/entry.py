"""torch.autograd.backward and torch.autograd.grad: the roots and their gradients checked
and made, then one run of the backward engine. Its own module (not the package's
__init__) so that Tensor.backward reaches it without importing the rest of torch.autograd
(Function, functional, gradcheck), which is written in terms of the Tensor."""
from .. import _errors
from .._namespace import F
from .engine import accumulate_grad, run_backward
from .grad_mode import STATE
from .graph import edge_of


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


def _make_root_grads(outputs, grad_outputs, is_grads_batched=False):
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
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
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
