"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp and hvp, built on the
engine's ``autograd.grad``.

They behave as PyTorch 2.13's: the inputs are re-made before the function sees them (a
fresh leaf, or with ``create_graph`` a view of an input that requires grad, so results
stay connected to it), ``jvp`` and ``hvp`` use the double-backward trick, and without
``create_graph`` every result is detached. Where PyTorch batches (``vectorize=True``) or
runs forward-mode AD (``strategy="forward-mode"``), the same numbers are computed here
one vector-Jacobian product at a time, then shaped with the ops PyTorch ends with, so the
results carry PyTorch's node names.
"""
from .. import _errors_func as E
from .._namespace import F
from .grad_mode import STATE, enable_grad, set_grad_enabled
from .node import AccumulateGrad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _tensor_class():
    from .._tensor import Tensor
    return Tensor


# ---------------------------------------------------------------------------------------
# helpers shared with torch.func

def graph_reaches_beyond(tensor, own_leaves, known_inside=None):
    """Does ``tensor`` depend, through the graph, on a tensor requiring grad other than
    the leaves in ``own_leaves`` (a set of ids)? A transform's result keeps its graph only
    then: it is how PyTorch's results of a transform stay differentiable at the level
    outside it and no further. ``known_inside`` ({id: node}, kept by the caller across
    calls) remembers nodes already found to lead only to own leaves, so the results of
    one transform share one walk of their graph."""
    if not tensor._requires_grad:
        return False
    root = tensor._grad_fn
    if root is None:
        return id(tensor) not in own_leaves
    known = {} if known_inside is None else known_inside
    if id(root) in known:
        return False
    seen, stack = {id(root): root}, [root]
    while stack:
        node = stack.pop()
        if type(node) is AccumulateGrad:
            if id(node.variable) not in own_leaves:
                return True
            continue
        for nxt in node._fns:
            if nxt is not None and id(nxt) not in seen and id(nxt) not in known:
                seen[id(nxt)] = nxt
                stack.append(nxt)
    known.update(seen)
    return False


def standard_basis_rows(numels, dtypes):
    """The rows of the identity over the concatenation of several flat tensors, each row
    split back into one piece per tensor (``dtypes[i]`` is piece i's dtype): PyTorch's
    standard basis, one row at a time."""
    for i, n in enumerate(numels):
        for k in range(n):
            row = []
            for j, m in enumerate(numels):
                piece = F.zeros(m, dtype=dtypes[j])
                if j == i:
                    piece[k] = 1
                row.append(piece)
            yield row


# ---------------------------------------------------------------------------------------
# PyTorch's private helpers, in behaviour

def _as_tuple(value, arg_name, fn_name):
    """(was it a tuple, the tensors as a tuple), with PyTorch's TypeError for anything else."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    tensor = _tensor_class()
    for i, item in enumerate(items):
        if not isinstance(item, tensor):
            raise E.not_tensor_or_tuple(arg_name, fn_name, i, type(item), is_tuple)
    return is_tuple, items


def _unpack(result, outer_is_tuple, inner_is_tuple=None):
    """Undo the tuple wrapping of the arguments the user did not give as tuples."""
    if inner_is_tuple is not None and not inner_is_tuple:
        result = tuple(row[0] for row in result)
    if not outer_is_tuple:
        result = result[0]
    return result


def _prepare(tensors, create_graph, need_graph):
    """What the function sees: with ``create_graph`` an input that requires grad is replaced
    by a view of itself (the graph reaches it), anything else by a detached copy."""
    return tuple(t.view_as(t) if create_graph and t._requires_grad else t.detach().requires_grad_(need_graph)
                 for t in tensors)


def _finish(tensors, create_graph):
    """Detach results (nested tuples too) unless the caller asked for a graph."""
    if create_graph:
        return tensors
    return tuple(t.detach() if isinstance(t, _tensor_class()) else _finish(t, False) for t in tensors)


def _validate_v(v, others, others_is_tuple):
    if len(others) != len(v):
        if others_is_tuple:
            raise E.v_tuple_length(len(others), len(v))
        raise E.v_single_tensor()
    for i, (vi, other) in enumerate(zip(v, others)):
        if vi.size() != other.size():
            raise E.v_size(i, other.size(), vi.size(), others_is_tuple)


_STRICT_KINDS = {"outputs": E.strict_output_no_grad, "grad_inputs": E.strict_grad_inputs,
                 "jacobian": E.strict_jacobian_of_hessian, "hessian": E.strict_hessian_independent}


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise E.strict_independent_output(i)
        if not t._requires_grad:
            raise _STRICT_KINDS[kind](i)


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad; all None when none does."""
    from .entry import grad  # looked up when called: retain_graph_patch may have replaced it
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o._requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad(tuple(o for o, _ in pairs), inputs, tuple(g for _, g in pairs), allow_unused=True,
                create_graph=create_graph, retain_graph=retain_graph)


_STAGE_ERRORS = {"back": E.strict_independent_output, "back_trick": E.strict_back_trick,
                 "double_back": E.strict_double_back, "double_back_trick": E.strict_double_back_trick}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise _STAGE_ERRORS[stage](i)
            g = F.zeros_like(refs[i])
        elif strict and create_graph and not g._requires_grad:
            if "double" in stage:
                raise E.strict_hessian_create_graph(i)
            raise E.strict_jacobian_create_graph(i)
        out.append(g)
    return tuple(out)


def _take_v(v, others, others_is_tuple, create_graph, fn_name):
    _, v = _as_tuple(v, "v", fn_name)
    v = _prepare(v, create_graph, need_graph=False)
    _validate_v(v, others, others_is_tuple)
    return v


def _require_single_element(tensors, outputs=False):
    if len(tensors) != 1 or tensors[0].nelement() != 1:
        raise E.v_none_needs_scalar_output() if outputs else E.v_none_needs_scalar_input()


# ---------------------------------------------------------------------------------------
# the public functions

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            v = _take_v(v, outputs, outputs_is_tuple, create_graph, "vjp")
        else:
            _require_single_element(outputs, outputs=True)
    with set_grad_enabled(True if create_graph else STATE.enabled):
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), outputs_is_tuple),
            _unpack(_finish(result, create_graph), inputs_is_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        if v is not None:
            v = _take_v(v, inputs, inputs_is_tuple, create_graph, "jvp")
        else:
            _require_single_element(inputs)
        outputs_is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # The double-backward trick: the vjp is linear in these zeros, so differentiating it
        # with respect to them, along v, gives J v.
        grad_outputs = tuple(F.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else STATE.enabled):
        grads = _grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, outputs, strict, create_graph, "back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_is_tuple),
            _unpack(_finish(result, create_graph), outputs_is_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    if strategy not in ("forward-mode", "reverse-mode"):
        raise E.jacobian_strategy()
    if strategy == "forward-mode":
        if create_graph:
            raise E.forward_mode_create_graph()
        return _jacobian_forward_mode(func, inputs, strict, vectorize)
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize:
            if strict:
                raise E.vectorize_strict()
            result = _jacobian_batched(outputs, inputs, create_graph)
        else:
            result = tuple(_jacobian_of_output(i, out, inputs, create_graph, strict) for i, out in enumerate(outputs))
        return _unpack(_finish(result, create_graph), outputs_is_tuple, inputs_is_tuple)


def _jacobian_of_output(index, out, inputs, create_graph, strict):
    """One output's Jacobians, one element of the output at a time, as PyTorch's loop."""
    rows = tuple([] for _ in inputs)
    for j in range(out.nelement()):
        grads = _grad((out.reshape(-1)[j],), inputs, retain_graph=True, create_graph=create_graph)
        for k, (row, g, inp) in enumerate(zip(rows, grads, inputs)):
            if g is not None:
                if strict and create_graph and not g._requires_grad:
                    # PyTorch names the output's index here, not the input's.
                    raise E.strict_jacobian_create_graph(index)
                row.append(g)
            else:
                if strict:
                    raise E.strict_output_independent_of_input(index, k)
                row.append(F.zeros_like(inp))
    return tuple(F.stack(row, dim=0).view(out.size() + inp.size()) for row, inp in zip(rows, inputs))


def _vjp_rows(flat_outputs, inputs, create_graph):
    """Per input, the gradients of every flat output element stacked on a new first dim:
    what PyTorch's one batched autograd.grad over the standard basis gives."""
    numels = [o.numel() for o in flat_outputs]
    total = sum(numels)
    per_input = [[] for _ in inputs]
    for k, basis in enumerate(standard_basis_rows(numels, [o.dtype for o in flat_outputs])):
        last = k == total - 1
        grads = _grad(flat_outputs, inputs, tuple(basis), create_graph=create_graph,
                      retain_graph=None if last else True)
        for acc, g in zip(per_input, grads):
            acc.append(g)
    stacked = []
    for acc, inp in zip(per_input, inputs):
        if not acc or any(g is None for g in acc):
            stacked.append(F.zeros_like(inp).expand((total,) + tuple(inp.shape)))
        else:
            stacked.append(F.stack(acc, dim=0))
    return stacked, numels


def _jacobian_batched(outputs, inputs, create_graph):
    flat_outputs = tuple(o.reshape(-1) for o in outputs)
    stacked, numels = _vjp_rows(flat_outputs, inputs, create_graph)
    by_input = []
    for jac, inp in zip(stacked, inputs):
        by_input.append(tuple(piece.view(out.shape + inp.shape)
                              for piece, out in zip(jac.split(numels, dim=0), outputs)))
    return tuple(zip(*by_input))


def _jacobian_forward_mode(func, inputs, strict, vectorize, fresh_leaves_are_outer=False):
    """PyTorch pushes the standard basis through forward-mode AD; the same Jacobian comes
    here from reverse mode, laid out as PyTorch's pushed tangents (one row per input
    element), then permuted and reshaped as PyTorch does. The result keeps a graph where
    PyTorch's tangents would have one: to inputs that require grad, or (hessian's
    forward-over-reverse, whose dual inputs require grad) to the fresh inputs too."""
    if strict:
        raise E.forward_mode_strict()
    inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise E.forward_mode_needs_vectorize()
    outer_grad = STATE.enabled
    with enable_grad():
        fresh = _prepare(inputs, True, need_graph=True)
        own = set() if fresh_leaves_are_outer else {id(t) for t, x in zip(fresh, inputs) if t is not x and
                                                    t._grad_fn is None}
        outputs_is_tuple, outputs = _as_tuple(func(*fresh), "outputs", None)
        numels = [x.numel() for x in inputs]
        result = []
        for out in outputs:
            per_input = _jacobian_of_output(0, out, fresh, True, False)
            # pushed tangents: row k is d out / d (flat input element k)
            # contiguous(): the engine's cat keeps a transposed layout, PyTorch's never does
            columns = [jac.reshape(out.numel(), n).t().contiguous() for jac, n in zip(per_input, numels)]
            pushed = F.cat(columns, dim=0).reshape((sum(numels),) + tuple(out.shape))
            row = []
            for jac, inp in zip(pushed.split(numels, dim=0), inputs):
                arranged = jac.permute(*range(1, jac.ndim), 0).reshape(tuple(out.shape) + tuple(inp.shape))
                keep = graph_reaches_beyond(arranged, own)
                if keep and not outer_grad and fresh_leaves_are_outer:
                    # hessian's forward-over-reverse tangents require grad whatever the grad
                    # mode outside; under no_grad PyTorch's final reshape leaves them leaves
                    row.append(arranged.detach().requires_grad_())
                else:
                    row.append(arranged if keep and outer_grad else arranged.detach())
            result.append(row)
    return _unpack(result, outputs_is_tuple, inputs_is_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise E.hessian_strategy()

    def single_output(*args):
        out = func(*args)
        out_is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_is_tuple or not isinstance(out, _tensor_class()):
            raise E.single_tensor_function("hessian")
        if out.nelement() != 1:
            raise E.single_element_function("hessian")
        return out.squeeze()

    def jacobian_of_func(*args):
        if outer_jacobian_strategy == "forward-mode":
            args = tuple(a if a._requires_grad else a.requires_grad_(True) for a in args)
        jac = jacobian(single_output, args, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    if outer_jacobian_strategy == "forward-mode":
        if create_graph:
            raise E.forward_mode_create_graph()
        result = _jacobian_forward_mode(jacobian_of_func, inputs, strict, vectorize, fresh_leaves_are_outer=True)
    else:
        result = jacobian(jacobian_of_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize)
    return _unpack(result, inputs_is_tuple, inputs_is_tuple)


def _scalar_function_check(outputs_is_tuple, outputs, fn_name):
    if outputs_is_tuple or not isinstance(outputs[0], _tensor_class()):
        raise E.single_tensor_function(fn_name)
    if outputs[0].nelement() != 1:
        raise E.single_element_function(fn_name)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        if v is not None:
            v = _take_v(v, inputs, inputs_is_tuple, create_graph, "vhp")
        else:
            _require_single_element(inputs)
        outputs_is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vhp")
        _check_requires_grad(outputs, "outputs", strict)
        _scalar_function_check(outputs_is_tuple, outputs, "vhp")
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with set_grad_enabled(True if create_graph else STATE.enabled):
        grads = _grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back")
    return (_unpack(_finish(outputs, create_graph), outputs_is_tuple),
            _unpack(_finish(result, create_graph), inputs_is_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        if v is not None:
            v = _take_v(v, inputs, inputs_is_tuple, create_graph, "hvp")
        else:
            _require_single_element(inputs)
        outputs_is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "hvp")
        _check_requires_grad(outputs, "outputs", strict)
        _scalar_function_check(outputs_is_tuple, outputs, "hvp")
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        # H v = (v^T H)^T for a symmetric H, by the double-backward trick on the vjp.
        grad_jac = tuple(F.zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, grad_jac, create_graph=True)
        # PyTorch checks ``jac`` a second time here (not double_back); so does this.
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else STATE.enabled):
        grads = _grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_is_tuple),
            _unpack(_finish(result, create_graph), inputs_is_tuple))
