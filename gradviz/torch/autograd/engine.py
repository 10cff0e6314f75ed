"""The backward engine: iterative, never recursive.

1. Walk the graph from the roots with an explicit stack, counting each node's incoming
   edges (and, for autograd.grad, which nodes lead to a requested input at all).
2. Run nodes from a ready-queue ordered like PyTorch's (newest node first), summing the
   gradients that arrive for each node's outputs before it runs.
3. Free each node's saved tensors right after it ran, unless retain_graph.
"""
import gc
import heapq
import itertools
import sys

import numpy as np

from .. import _errors, _kernels as K
from .. import _dtypes, _tensor  # bound lazily: both import this module
from .._namespace import F
from .._meta import MetaArray
from .grad_mode import ANOMALY, STATE
from .graph import emit
from .layout import empty_like_variable, obeys_layout_contract, stored_grad
from .raw import raw_formulas
from .node import (SHARED_FREED, SIG_INPUT_META, SIG_NEEDS, SIG_OP, SIG_NRS, SIG_OUTPUT_META, AccumulateGrad, FreedSlot,
                   FreshSaves, SavedScalar, SavedTensor, creation_site)


_BACKWARD_CALLS = itertools.count(1)


class BackwardCall:
    """One backward()/autograd.grad() call: which one freed a graph's buffers is shown
    when a later pass trips over them. ``error`` is set when the call raised."""
    __slots__ = ("index", "site", "kind", "retain_graph", "create_graph", "error")

    def __init__(self, kind, retain_graph=False, create_graph=False):
        self.index = next(_BACKWARD_CALLS)
        self.site = creation_site(3)
        self.kind = kind
        self.retain_graph = bool(retain_graph)
        self.create_graph = bool(create_graph)
        self.error = None

    def __repr__(self):
        where = f" at {self.site[0]}:{self.site[1]}" if self.site else ""
        return f"{self.kind} #{self.index}{where}"


# The backward calls running now, innermost last, each with PyTorch's checkpoint_valid flag:
# False inside a call that captures ``inputs`` (autograd.grad, backward(inputs=)) and in any
# call nested in one, where the reentrant torch.utils.checkpoint must refuse to run.
RUNNING = []


def current_graph_task_id():
    """torch._C._current_graph_task_id(): the running backward call's number, -1 outside one."""
    return RUNNING[-1][0].index if RUNNING else -1


def is_checkpoint_valid():
    """torch.autograd._is_checkpoint_valid()."""
    return RUNNING[-1][1] if RUNNING else True


def run_backward(roots, root_grads, retain_graph, create_graph, capture=None, accumulate=True, kind="backward"):
    """roots: edges (node, output_nr); root_grads: one Tensor per root.

    capture: edges whose incoming gradient is returned (autograd.grad, backward(inputs=));
    with accumulate=False nothing is written into .grad.
    Returns the captured gradients (None where nothing arrived)."""
    call = BackwardCall(kind, retain_graph, create_graph)
    prev_mode = STATE.enabled
    STATE.enabled = bool(create_graph)
    emit("on_backward", "start", roots, call)
    # The pass only frees what it walks; the cyclic collector re-walking a large live graph
    # for every few hundred gradients it allocates is pure overhead, so it waits until the end.
    collecting = gc.isenabled()
    gc.disable()
    RUNNING.append((call, capture is None and is_checkpoint_valid()))
    try:
        return _execute(roots, root_grads, retain_graph, create_graph, capture, accumulate, call)
    except BaseException as exc:
        call.error = exc
        raise
    finally:
        RUNNING.pop()
        if collecting:
            gc.enable()
        STATE.enabled = prev_mode
        emit("on_backward", "end", roots, call)


def _execute(roots, root_grads, retain_graph, create_graph, capture, accumulate, call):
    if capture is None and not create_graph and not ANOMALY.enabled and not _any_meta(root_grads):
        return _execute_arrays(roots, root_grads, retain_graph, call)
    deps, order = _dependencies(roots)
    capture_at = {}
    executable = None
    if capture is not None:
        for i, (node, nr) in enumerate(capture):
            if node is not None:
                capture_at.setdefault(node, []).append((nr, i))
        executable = _needed(order, capture_at, accumulate)
        # Edges from nodes that will not run must not hold their targets back.
        deps = {}
        for node in order:
            if node in executable:
                for nxt in node._fns:
                    if nxt is not None:
                        deps[nxt] = deps.get(nxt, 0) + 1
    captured = [None] * (len(capture) if capture is not None else 0)

    buffers, ready, tie = _start(roots, root_grads, deps)
    push, pop = heapq.heappush, heapq.heappop

    while ready:
        node = pop(ready)[2]
        grads = buffers.pop(node, None)
        outputs = ()
        if executable is not None and node not in executable:
            if grads is not None and node in capture_at:
                _capture(node, _run_tensor_pre_hooks(node, grads), capture_at, captured)
            continue
        if grads is not None:
            if node._tensor_pre_hooks is not None or node._retain_grad is not None or node._pre_hooks is not None:
                grads = _run_tensor_pre_hooks(node, grads)
            runs = True
            if capture_at and node in capture_at:
                grads = _capture(node, grads, capture_at, captured)
                runs = type(node) is not AccumulateGrad
            if runs:
                if node._op is not None and node._post_hooks is None and not ANOMALY.enabled:
                    outputs = run_op_node(node, grads)
                else:
                    outputs = _call(node, grads, create_graph, retain_graph)
                if not retain_graph and node._saved:
                    node.release_saved(call)
                elif not retain_graph and type(node) is not AccumulateGrad and node._op is None:
                    node.release_saved(call)
        # Children are released even when this node got no gradient, so nothing downstream waits forever.
        for nxt, nr, grad in zip(node._fns, node._nrs, outputs or _NONES(node)):
            if nxt is None:
                continue
            if grad is not None:
                slots = buffers.get(nxt)
                if slots is None:
                    buffers[nxt] = slots = [None] * (len(nxt._output_meta) or 1)
                prev = slots[nr]
                slots[nr] = grad if prev is None else prev + grad
            remaining = deps[nxt] - 1
            deps[nxt] = remaining
            if remaining == 0:
                push(ready, (-nxt._seq_nr, next(tie), nxt))
    return captured


def _any_meta(grads):
    """A backward from meta tensors takes the general path, on tensors: the array path tells
    a pending gradient from a list of them by numpy's exact type, which a meta one is not."""
    return any(type(getattr(g, "_data", None)) is MetaArray for g in grads)


def _execute_arrays(roots, root_grads, retain_graph, call):
    """_execute for the everyday backward (no create_graph, nothing captured): gradients flow
    as bare arrays, since none of them can carry a graph. Nodes that need tensors (hooks,
    custom Functions, CopySlices) get them wrapped and go through the general path.

    A node's pending gradient is an array while only its output 0 has one (nearly every
    node has one output), else a list with a slot per output."""
    deps = _dependency_counts(roots)
    buffers, ready, tie = _start(roots, root_grads, deps, as_arrays=True)
    push, pop = heapq.heappush, heapq.heappop
    make = _tensor.Tensor._make
    ndarray = np.ndarray
    shared_freed = SHARED_FREED
    following = None  # the one node made ready by the last node, when nothing else is queued
    handed = None  # ...and its gradient, when it waited for nothing else (kept out of buffers)
    grad = None  # the last gradient passed on (still held here when the next node runs)
    while True:
        if following is not None:
            node, following = following, None
            if handed is not None:
                pending, handed = handed, None
            else:
                pending = buffers.pop(node, None)
        elif ready:
            node = pop(ready)[2]
            pending = buffers.pop(node, None)
        else:
            break
        sig = node._sig
        outputs = None
        # Running the node is written here, not in a function of its own: one call more per
        # node costs W1 (bench/run.py) 2%, measured.
        if pending is not None:
            op = sig[SIG_OP]
            hooked = node._hooked
            if type(pending) is ndarray:
                first = pending
                pending = None
            else:
                first = pending[0]
            # bfloat16 takes the general path, which computes in float32 (see graph.apply)
            if not hooked and op is not None and first is not None and first.dtype.kind != "V":
                raw = op.memo.raw
                if raw is Ellipsis:
                    raw = op.memo.raw = raw_formulas(op)
                if raw is not None:
                    outputs = _raw_outputs(node, raw, first)
            elif not hooked and type(node) is AccumulateGrad:
                # first's holders beyond this frame's own: none, and .grad may take it without a copy
                unshared = _refcount(first) <= _SOLE_LOCAL + (grad is first) + (pending is not None)
                if _accumulate_array(node.variable, first, unshared):
                    outputs = ()
            if outputs is None:
                if pending is None:
                    pending = [first] + [None] * (len(sig[SIG_OUTPUT_META]) - 1)
                outputs = _run_wrapped(node, [None if g is None else make(g) for g in pending], retain_graph)
            if not retain_graph:
                if op is not None:
                    if op.save_plan_used:  # else only options were kept: nothing to free
                        # release_saved's common case, inline (a call less per node: about 1% of W1)
                        shared = shared_freed.get(id(sig)) if type(node._saved) is FreshSaves else None
                        if shared is not None and shared[0] is sig:
                            node._saved = shared[1]
                            node._freed_by = call
                        else:
                            node.release_saved(call)
                elif type(node) is not AccumulateGrad:
                    node.release_saved(call)
        # Children are released even when this node got no gradient, so nothing downstream waits forever.
        fns = node._fns
        if len(fns) == 1 or (len(fns) == 2 and fns[1] is None):
            # One edge (a chain's every node; x + constant too): the loop below, unrolled.
            nxt = fns[0]
            if nxt is None:
                continue
            grad = outputs[0] if outputs else None
            remaining = deps[nxt] - 1
            if remaining == 0 and grad is not None and not ready and not sig[SIG_NRS][0] and nxt not in buffers:
                following, handed = nxt, grad  # this edge is all nxt waits for: run it next, on grad
                continue
            if grad is not None:
                nr = sig[SIG_NRS][0]
                prev = buffers.get(nxt)
                if prev is None and nr == 0:
                    buffers[nxt] = grad
                else:
                    _add_array(buffers, nxt, nr, prev, grad)
            deps[nxt] = remaining
            if remaining == 0:
                if ready:
                    push(ready, (-nxt._seq_nr, next(tie), nxt))
                else:
                    following = nxt
            continue
        if not fns:
            continue
        made_ready = None
        for nxt, nr, grad in zip(fns, sig[SIG_NRS], outputs or _NONES(node)):
            if nxt is None:
                continue
            if grad is not None:
                prev = buffers.get(nxt)
                if prev is None and nr == 0:
                    buffers[nxt] = grad
                else:
                    _add_array(buffers, nxt, nr, prev, grad)
            remaining = deps[nxt] - 1
            deps[nxt] = remaining
            if remaining == 0:
                if made_ready is not None:
                    push(ready, (-made_ready._seq_nr, next(tie), made_ready))
                made_ready = nxt
        if made_ready is not None:
            if ready:
                push(ready, (-made_ready._seq_nr, next(tie), made_ready))
            else:
                following = made_ready
    return []


def _add_array(buffers, node, nr, prev, grad):
    """Sum ``grad`` into ``node``'s pending gradient for output ``nr`` (see _execute_arrays)."""
    if type(prev) is np.ndarray:
        if nr == 0:
            total = prev + grad
            buffers[node] = total if type(total) is np.ndarray else np.asanyarray(total)
            return
        prev = buffers[node] = [prev] + [None] * (len(node._output_meta) - 1)
    elif prev is None:
        prev = buffers[node] = [None] * max(len(node._output_meta), 1)
    old = prev[nr]
    if old is None:
        prev[nr] = grad
    else:
        total = old + grad
        prev[nr] = total if type(total) is np.ndarray else np.asanyarray(total)


def _dependency_counts(roots):
    """Incoming-edge counts of every node reachable from the roots (_dependencies without the order)."""
    deps = dict.fromkeys([n for n, _ in roots if n is not None], 0)  # roots: walked once, from here
    stack = list(deps)
    while stack:
        node = stack.pop()
        while node is not None:  # a node's first new successor is walked next, without the stack (chains)
            first_new = None
            for nxt in node._fns:
                if nxt is None:
                    continue
                count = deps.get(nxt)
                if count is None:
                    deps[nxt] = 1
                    if first_new is None:
                        first_new = nxt
                    else:
                        stack.append(nxt)
                else:
                    deps[nxt] = count + 1
            node = first_new
    return deps


def _run_wrapped(node, grads, retain_graph):
    """One node of _execute_arrays through the general path, on tensors; arrays back."""
    outputs = _call(node, _run_tensor_pre_hooks(node, grads), False, retain_graph)
    return [None if g is None else g._data for g in outputs]


_refcount = sys.getrefcount


def _refs_of_a_sole_local():
    """What sys.getrefcount says of an object that one local variable alone holds (2 where
    the call's own argument is counted; Python versions differ)."""
    probe = object()
    return _refcount(probe)


_SOLE_LOCAL = _refs_of_a_sole_local()


def _accumulate_array(variable, grad, unshared=False):
    """AccumulateGrad on a bare array, when no hook has to see it; False to take the general path.
    ``unshared``: nothing outside the engine's loop holds ``grad`` (see _store_grad)."""
    if variable._hooks or variable._post_accumulate_hooks:
        return False
    return _store_grad(variable, grad, unshared)


def _store_grad(variable, grad, unshared=False):
    """Put the array ``grad`` into ``variable.grad`` when that builds no graph: a fresh copy,
    or added in place (a version bump). False when ``.grad`` itself carries a graph.

    A first gradient that nothing else holds (``unshared``: no user, view or other node),
    owns its buffer, is writable and is laid out as the variable is, is taken as it is, as
    PyTorch's AccumulateGrad steals a gradient no one else uses: the copy would have the
    same values and strides (a W6 step copied 32 MiB for nothing)."""
    current = variable._grad
    if current is not None and current._requires_grad:
        return False
    if grad.dtype != variable._data.dtype:
        grad = grad.astype(variable._data.dtype)
        unshared = True  # a fresh array no one else has seen
    if current is None:
        if isinstance(grad, MetaArray):  # a meta gradient stays a placeholder: no data to lay out
            variable._grad = _tensor.Tensor._make(np.array(grad, copy=True, subok=True))
        elif unshared and grad.flags.owndata and grad.flags.writeable and obeys_layout_contract(grad, variable._data):
            variable._grad = _tensor.Tensor._make(grad)  # taken as it is: stored_grad would copy it as it is
        else:
            variable._grad = _tensor.Tensor._make(stored_grad(grad, variable._data))
    else:
        current._data += grad
        current._vbox[0] += 1
    return True


def _start(roots, root_grads, deps, as_arrays=False):
    """The roots' gradients put in their nodes' buffers, and the ready queue of PyTorch's
    order (newest node first; ``tie`` keeps equal ones first-in first-out)."""
    buffers = {}
    for (node, nr), grad in zip(roots, root_grads):
        if node is not None:
            _add_to_buffer(buffers, node, nr, grad._data if as_arrays else grad)
    ready = []
    tie = itertools.count()
    for node in dict.fromkeys(n for n, _ in roots if n is not None):
        if deps.get(node, 0) == 0:
            heapq.heappush(ready, (-node._seq_nr, next(tie), node))
    return buffers, ready, tie


def _NONES(node):
    return (None,) * len(node._fns)


def _capture(node, grads, capture_at, captured):
    """Keep the gradient arriving at a requested input (autograd.grad, backward(inputs=))."""
    for nr, i in capture_at[node]:
        g = grads[nr]
        if type(node) is AccumulateGrad:
            g = _run_leaf_hooks(node.variable, g)
        captured[i] = g if captured[i] is None or g is None else captured[i] + g
    return grads


def _add_to_buffer(buffers, node, nr, grad):
    slots = buffers.get(node)
    if slots is None:
        slots = buffers[node] = [None] * _num_outputs(node)
    prev = slots[nr]
    slots[nr] = grad if prev is None else prev + grad


def _num_outputs(node):
    return max(len(node._output_meta), 1)


def _dependencies(roots):
    """Incoming-edge counts of every node reachable from the roots, and a topological order."""
    deps = {}
    seen = set()
    order = []
    stack = []
    for n, _ in roots:
        if n is not None and n not in seen:
            seen.add(n)
            stack.append(n)
    while stack:
        node = stack.pop()
        order.append(node)
        for nxt in node._fns:
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps, order


def _needed(order, capture_at, accumulate):
    """Nodes that must run to reach a captured edge (PyTorch's exec_info)."""
    parents = {}
    for node in order:
        for nxt in node._fns:
            if nxt is not None:
                parents.setdefault(nxt, []).append(node)
    needed = set()
    stack = list(capture_at)
    while stack:
        node = stack.pop()
        for parent in parents.get(node, ()):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    return needed


def _run_tensor_pre_hooks(node, grads):
    hooks = node._tensor_pre_hooks
    retain = node._retain_grad
    pre = node._pre_hooks
    if hooks is None and retain is None and pre is None:
        return grads
    grads = list(grads)
    if hooks:
        for nr, fns in hooks.items():
            for fn in list(fns.values()):
                if grads[nr] is None:
                    break
                out = fn(grads[nr])
                if out is not None:
                    _check_hook_result(fn, out, grads[nr])
                    grads[nr] = out
    if retain:
        for nr, ref in retain.items():
            t = ref()
            g = grads[nr]
            if t is not None and g is not None:
                t._grad = _fresh(g, STATE.enabled, None) if t._grad is None else t._grad + g
    if pre:
        for fn in list(pre.values()):
            out = fn(tuple(grads))
            if out is not None:
                grads = list(out)
    return grads


def _call(node, grads, create_graph, retain_graph):
    if type(node) is AccumulateGrad:
        accumulate_grad(node.variable, grads[0], create_graph)
        outputs = ()
    elif node._op is not None:
        outputs = run_op_node(node, grads)
    else:
        outputs = node._backward(grads)
    if ANOMALY.enabled and ANOMALY.check_nan:
        for i, g in enumerate(outputs):
            if g is not None and np.isnan(g._data).any():
                if not retain_graph:  # PyTorch checks after the node ran and freed what it saved
                    node.release_saved()
                raise _errors.anomaly_nan(node.name(), i)
    post = node._post_hooks
    if post:
        for fn in list(post.values()):
            out = fn(tuple(outputs), tuple(grads))
            if out is not None:
                outputs = list(out)
    return outputs


def unpack_saved(node):
    values = {}
    saved = node._saved
    if saved:
        for name, value in saved.items():
            cls = type(value)
            if cls is SavedTensor:
                value = value.unpack(node)
            elif cls is SavedScalar:
                value = value.value if value.hooks is None else value.as_tensor().item()
            elif cls is FreedSlot:
                raise _errors.freed(node=node, freed_by=node._freed_by)
            values[name] = value
    return values


def run_op_node(node, grads):
    """Apply an op-table node: each needed input's formula, then undo broadcasting."""
    op = node._op
    if not STATE.enabled:
        raw = op.memo.raw
        if raw is Ellipsis:
            raw = op.memo.raw = raw_formulas(op)
        # (meta gradients take the formulas on tensors, whose ops keep every result meta)
        if raw is not None and grads[0] is not None and type(grads[0]._data) is np.ndarray \
                and grads[0]._data.dtype.kind != "V":
            outputs = _run_raw(node, raw, grads[0]._data)
            if outputs is not None:
                return outputs
    values = unpack_saved(node)
    if op.multi_output:
        grads = [g if g is not None else F.zeros(meta[0], dtype=_dtypes.FROM_NUMPY[meta[1]])
                 for g, meta in zip(grads, node._output_meta)]
        grad = grads
    else:
        grad = grads[0]
    needs = node._needs
    if op.variadic:
        formula = op.formulas[0]
        results = formula(grad, *[values[a] for a in op.formula_args[0]])
        return [_fit(r, meta, node, k) if need else None
                for k, (r, meta, need) in enumerate(zip(results, node._input_meta, needs))]
    outputs = []
    for k, formula in enumerate(op.formulas):
        if not needs[k]:
            outputs.append(None)
            continue
        outputs.append(_fit(formula(grad, *[values[a] for a in op.formula_args[k]]), node._input_meta[k], node, k))
    return outputs


def _run_raw(node, formulas, grad):
    """run_op_node on bare arrays (see raw.py); None when a saved slot has hooks to honour."""
    outputs = _raw_outputs(node, formulas, grad)
    if outputs is None:
        return None
    make = _tensor.Tensor._make
    return [None if g is None else make(g) for g in outputs]


_ndarray = np.ndarray


def _raw_outputs(node, formulas, grad):
    """The gradients _run_raw gives, as arrays; None when a saved slot has hooks to honour."""
    sig = node._sig
    op = sig[SIG_OP]
    needs = sig[SIG_NEEDS]
    steps = op.memo.raw_steps.get(needs) or _raw_steps(op, formulas, needs)
    outputs = [None] * len(needs)
    saved = node._saved
    input_meta = sig[SIG_INPUT_META]
    for k, formula, reads in steps:
        if not reads:
            result = formula(grad)
        else:
            values = []
            for name, for_input in reads:
                value = saved[name]
                cls = type(value)
                if cls is SavedTensor:
                    if value.hooks is not None:
                        return None
                    vbox = value._vb
                    if vbox is None:
                        vbox = value.tensor._vb
                    if (vbox is not None and vbox[0] != value.version) or (
                            value.grad_fn is not None and value.tensor._grad_fn is None):
                        value.check(node)  # raises PyTorch's error
                    value = value.data if value.is_output else value.tensor._data
                elif cls is float:
                    if for_input:  # a number given for a tensor input
                        value = K.scalar_as_array(value, grad)
                elif cls is SavedScalar:
                    if value.hooks is not None:
                        return None
                    value = value.value
                elif cls is FreedSlot:
                    raise _errors.freed(node=node, freed_by=node._freed_by)
                values.append(value)
            result = formula(grad, *values)
        if type(result) is not _ndarray:
            result = np.asanyarray(result)
        shape, dtype = input_meta[k]
        if result.shape != shape:
            if not expandable(shape, result.shape):
                raise _errors.wrong_grad_shape(node.name(), k, result.shape, shape)
            result = K.sum_to_shape(result, shape)
        if result.dtype is not dtype and result.dtype != dtype:
            if result.dtype.kind == "c" and dtype.kind != "c":
                result = result.real  # a real input's gradient is the real part, as in PyTorch
            result = result.astype(dtype)
        outputs[k] = result
    return outputs


def _raw_steps(op, formulas, needs):
    """What _raw_outputs does for a needs pattern, worked out once: per input that needs a
    gradient, (its position, its array formula, the slots it reads with whether each names
    a tensor input). Kept in ``op.memo.raw_steps``."""
    steps = op.memo.raw_steps[needs] = tuple(
        (k, formulas[k], tuple((name, name in op.input_index) for name in op.formula_args[k]))
        for k, need in enumerate(needs) if need)
    return steps


def _fit(grad, meta, node=None, index=0):
    """Undo broadcasting and match the input's dtype: once, here, for every op."""
    shape, dtype = meta
    if grad._data.shape != shape:
        if not expandable(shape, grad._data.shape):
            raise _errors.wrong_grad_shape(node.name() if node is not None else "?", index, grad._data.shape, shape)
        grad = F.sum_to_size(grad, shape)
    if grad._data.dtype != dtype:
        grad = F.to_dtype(grad, _dtypes.FROM_NUMPY[dtype])
    return grad


def expandable(shape, to):
    """Could an input of ``shape`` have been broadcast to ``to``? (else the formula is wrong)"""
    if len(shape) > len(to):
        return False
    for a, b in zip(reversed(shape), reversed(to)):
        if a != b and a != 1:
            return False
    return True


def _fresh(grad, create_graph, variable):
    """A gradient safe to store in .grad: its own writable buffer unless it carries a graph;
    laid out as AccumulateGrad lays out a leaf's, or row-major for a retained non-leaf's
    (``variable`` None: PyTorch's retain_grad hook clones it contiguous)."""
    Tensor = _tensor.Tensor
    if create_graph and grad._requires_grad:
        return grad
    if isinstance(grad._data, MetaArray):  # a meta gradient stays a placeholder: no data to lay out
        return Tensor._make(np.array(grad._data, copy=True, subok=True))
    if variable is None:
        return Tensor._make(np.array(grad._data, order="C", copy=True))
    if create_graph:  # under grad mode PyTorch never takes the gradient itself: a copy in the variable's layout
        out = empty_like_variable(variable._data, grad._data.dtype)
        out[...] = grad._data
        return Tensor._make(out)
    return Tensor._make(stored_grad(grad._data, variable._data))


def _run_leaf_hooks(variable, grad):
    hooks = variable._hooks
    if hooks:
        for fn in list(hooks.values()):
            out = fn(grad)
            if out is not None:
                _check_hook_result(fn, out, grad)
                grad = out
    return grad


def _check_hook_result(hook, new, old):
    if new._data.shape != old._data.shape:
        raise _errors.hook_changed_size(hook)


def accumulate_grad(variable, grad, create_graph):
    grad = _run_leaf_hooks(variable, grad)
    if create_graph or STATE.enabled or not _store_grad(variable, grad._data):
        # The sum is recorded: with create_graph, under grad mode, or onto a .grad with a graph.
        if grad._data.dtype != variable._data.dtype:
            grad = F.to_dtype(grad, variable.dtype)
        current = variable._grad
        if current is None:
            if create_graph and grad._requires_grad:
                # PyTorch copies into a fresh buffer laid out like the variable: CopyBackwards.
                variable._grad = F.copy_(_tensor.Tensor._make(empty_like_variable(variable._data, grad._data.dtype)),
                                         grad)
            else:
                variable._grad = _fresh(grad, create_graph, variable)
        else:
            variable._grad = current + grad
    post = variable._post_accumulate_hooks
    if post:
        for fn in list(post.values()):
            fn(variable)


def call_node(node, grads):
    """node(*grads): PyTorch lets Python call a grad_fn directly."""
    return tuple(_call(node, list(grads), STATE.enabled, True))
