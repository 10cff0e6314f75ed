"""Recording the forward pass: applying an op table entry and, when grad mode asks for
it, building its node with edges, saved tensors and creation site.

This is the only place where nodes are created for built-in ops. Inspection tools
listen through ``LISTENERS``; the engine never imports them.
"""
import weakref

import numpy as np

from .. import _dtypes, _errors, _kernels
from .. import _functions as F, _tensor  # bound lazily: both import this module
from .grad_mode import STATE
from .node import AccumulateGrad, SavedScalar, SavedTensor, creation_site

# Objects with .on_node(node, inputs, outputs); an inspector appends itself here.
LISTENERS = []


def accumulator_of(leaf):
    """The one AccumulateGrad of a leaf; the leaf holds it weakly so graphs own it."""
    ref = leaf._accumulator
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(leaf)
        acc._site = leaf._site
        leaf._accumulator = weakref.ref(acc)
    return acc


def edge_of(t):
    if t._base is not None and t._view_version != t._vbox[0]:
        refresh_view(t)
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (accumulator_of(t), 0)
    return (None, 0)


def apply(op, inputs, params):
    """Run ``op`` forward on ``inputs`` (tensors or Python numbers) and record its node."""
    Tensor, wrap = _tensor.Tensor, _tensor.wrap
    arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
    try:
        out = op.forward(*arrays, **params)
    except ValueError:
        if op.promotes:  # numpy's broadcasting error, in PyTorch's words
            _kernels.broadcast_shapes(np.shape(arrays[0]), np.shape(arrays[1]))
        raise
    needs_grad = False
    if STATE.enabled:
        for i in (range(len(inputs)) if op.variadic else op.diff_positions):
            x = inputs[i]
            if isinstance(x, Tensor) and x._requires_grad:
                needs_grad = True
                break
    if op.multi_output:
        outputs = tuple(wrap(o) for o in out)
    else:
        if op.promotes and len(arrays) > 1:
            out = _promote(out, arrays)
        outputs = (wrap(out),)
    if op.view:
        base = inputs[0]
        root = base._base if base._base is not None else base
        chain = base._view_chain + ((op, params),)
        for o in outputs:
            o._vbox = base._vbox
            o._base = root
            o._view_chain = chain
            o._view_version = base._vbox[0]
            if not STATE.enabled:
                o._view_created_in_no_grad = True
            if base._inference:
                o._inference = True
    if STATE.inference:
        for o in outputs:
            o._inference = True
    if needs_grad:
        record(op, inputs, params, outputs)
    return outputs if op.multi_output else outputs[0]


def _promote(out, arrays):
    """Cast numpy's result to PyTorch's promoted dtype when the two disagree."""
    first = arrays[0]
    if isinstance(first, np.ndarray) and out.dtype == first.dtype:
        second = arrays[1]
        if isinstance(second, np.ndarray) and second.dtype == first.dtype:
            return out
        if isinstance(second, float) and first.dtype.kind == "f":
            return out
    target = _dtypes.result_type(arrays)
    if target.np != out.dtype and out.dtype.kind != "b":
        out = out.astype(target.np)
    return out


def record(op, inputs, params, outputs, node=None):
    """Attach a new node for ``op`` to ``outputs``: edges to the inputs, saved slots, site."""
    Tensor = _tensor.Tensor
    if node is None:
        node = op.node_class()
        node._op = op
    edges = []
    needs = []
    meta = []
    for i in (range(len(inputs)) if op.variadic else op.diff_positions):
        x = inputs[i]
        if isinstance(x, Tensor):
            edge = edge_of(x)
            edges.append(edge)
            needs.append(edge[0] is not None)
            meta.append((x._data.shape, x._data.dtype))
        else:
            edges.append((None, 0))
            needs.append(False)
            meta.append(None)
    node.next_functions = tuple(edges)
    node._needs = tuple(needs)
    node._input_meta = tuple(meta)
    node._output_meta = tuple((o._data.shape, o._data.dtype) for o in outputs)
    for nr, o in enumerate(outputs):
        if o._data.dtype.kind in "fc":
            o._grad_fn = node
            o._output_nr = nr
            o._requires_grad = True
    node._saved = _save(op, inputs, params, outputs, needs)
    node._site = creation_site(3)
    if LISTENERS:
        for listener in LISTENERS:
            listener.on_node(node, inputs, outputs)
    return node


def _save(op, inputs, params, outputs, needs):
    """Save what the formulas of the inputs that need a gradient will read."""
    Tensor = _tensor.Tensor
    saved = dict(params)
    wanted = set()
    for k, need in enumerate(needs):
        if need:
            wanted.update(op.formula_args[0 if op.variadic else k])
    for name in wanted:
        if name in saved:
            continue
        position = op.input_index.get(name)
        if position is not None:
            x = inputs[position]
            if isinstance(x, Tensor):
                if x._inference:
                    raise _errors.inference_tensor_saved()
                saved[name] = SavedTensor(x, False)
            else:
                saved[name] = SavedScalar(x)
        elif name.startswith("result"):
            index = int(name[6:] or 0)
            saved[name] = SavedTensor(outputs[index], True)
    return saved


def refresh_view(view):
    """A view whose base was modified in place since the view was made takes its history
    from the base again (AsStridedBackward0), as PyTorch regenerates it."""
    if view._view_created_in_no_grad or not view._base._requires_grad:
        view._view_version = view._vbox[0]
        return
    from .inplace import regenerate_view
    regenerate_view(view)
