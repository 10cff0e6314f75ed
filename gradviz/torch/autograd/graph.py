"""Recording the forward pass: applying an op table entry and, when grad mode asks for
it, building its node with edges, saved tensors and creation site.

This is the only place where nodes are created for built-in ops. Inspection tools
listen through ``LISTENERS``; the engine never imports them.
"""
import contextlib
import math
import sys
import weakref

import numpy as np

from .. import _dtypes, _errors, _kernels, _meta
from .. import _tensor  # bound lazily: both import this module
from .grad_mode import STATE
from .._namespace import F
from ...frame_lines import line_of
from .node import (_INSIDE, _SIGS, SIG_INPUT_META, SIG_NEEDS, SIG_NRS, SIG_OUTPUT_META, SIG_SITE, AccumulateGrad,
                   FreshSaves, SavedTensor, creation_site, new_node, shared_sig, site_from)

_getframe = sys._getframe

# The Tensor class, bound by _tensor.py once it exists (the two modules import each other).
Tensor = None

# Inspectors append themselves here. Events (each optional on a listener):
#   on_node(node, inputs, outputs)        a node was recorded
#   on_backward(phase, roots, call)       'start' / 'end' of backward or autograd.grad
#   on_inplace(tensor, op_name, site, version), on_data(tensor, site, kind),
#   on_grad_read(tensor, site), on_scalar(tensor, kind, site), on_optimizer_step(optimizer, site)
#   on_no_grad_read(inputs)               an op ran with grad mode off on an input that requires grad
LISTENERS = []
# Inspectors that want the events but not every node: listening here keeps the ops' fast
# paths (a listener in LISTENERS sends every op through apply(), to tell it of each node).
EVENT_LISTENERS = []
# forward_ad.propagate while a dual level is open (it sets and clears this), else None: every
# op then goes through apply(), which hands it over so its result gets a tangent.
FORWARD_AD = None


def emit(event, *args):
    """Tell every listener that implements ``event``; costs two truth tests when none listen."""
    if LISTENERS or EVENT_LISTENERS:
        for listener in LISTENERS + EVENT_LISTENERS:
            handler = getattr(listener, event, None)
            if handler is not None:
                handler(*args)


def formulas_of(node_name):
    """``((input name, formula), ...)`` of the op whose nodes are called ``node_name``
    (``MulBackward0``: ``(('self', fn), ('other', fn))``), in the op table's order; empty for
    a name the table does not declare (AccumulateGrad, a custom Function's node). For
    inspectors: the engine itself reads its ops off its nodes."""
    from .. import _ops  # the op table imports this module; every op is declared by now

    op = _ops.OPS_BY_NODE.get(node_name)
    return tuple(zip(op.formula_inputs, op.formulas)) if op is not None else ()


def accumulator_of(leaf):
    """The one AccumulateGrad of a leaf; the leaf holds it weakly so graphs own it."""
    ref = leaf._accumulator
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(leaf)
        if leaf._site is not None:
            acc._site = leaf._site
        leaf._accumulator = weakref.ref(acc)
    return acc


def edge_of(t):
    if t._base is not None and t._view_version != t._vbox[0]:
        refresh_view(t)
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad and not t._view_created_in_no_grad:
        return (accumulator_of(t), 0)
    return (None, 0)


def integer_input(op, array):
    """An integer or bool array about to go into ``op``, as ATen takes it (see Op.integers)."""
    if op.integers == "float":
        return array.astype(_dtypes.DEFAULTS.float_dtype.np)
    kernel, kinds = op.integers
    if array.dtype.kind in kinds:
        if callable(kernel):
            raise kernel()
        raise _errors.kernel_not_implemented(kernel, _dtypes.FROM_NUMPY[array.dtype].scalar_type)
    return array


def apply(op, inputs, params):
    """Run ``op`` forward on ``inputs`` (tensors or Python numbers) and record its node."""
    if FORWARD_AD is not None:
        return FORWARD_AD(op, inputs, params)
    count = len(inputs)
    rounding = None
    if count == 1:
        arrays = (getattr(inputs[0], "_data", inputs[0]),)
        if op.integers is not None and type(arrays[0]) is np.ndarray and arrays[0].dtype.kind in "biu":
            arrays = (integer_input(op, arrays[0]),)
    elif count == 2:
        first, second = inputs
        first = getattr(first, "_data", first)
        if type(second) is float and op.arithmetic and type(first) is np.ndarray:
            arrays = (first, _kernels.scalar_as_array(second, first))
        else:
            arrays = (first, getattr(second, "_data", second))
        if op.promotes and _mixed_operands(*arrays):
            arrays, rounding = _in_common_dtype(op, arrays)
    else:
        arrays = [getattr(x, "_data", x) for x in inputs]
    if _kernels.GUARDS:
        _guard_inputs(op, arrays)
    try:
        if _has_bfloat16_or_meta(arrays):
            out = _forward_unusual(op, arrays, params)
        else:
            out = op.forward(*arrays, **params) if params else op.forward(*arrays)
    except ValueError:
        if op.promotes:  # numpy's broadcasting error, in PyTorch's words
            _kernels.broadcast_shapes(np.shape(arrays[0]), np.shape(arrays[1]))
        raise
    except MemoryError as exc:
        raise _errors.from_memory_error(exc) from None
    if _kernels.GUARDS:
        _guard_outputs(op, out)
    if op.special or STATE.inference:
        return _apply_special(op, inputs, params, out)
    if type(out) is not np.ndarray:
        out = np.asanyarray(out)  # (a meta result stays a MetaArray)
    if rounding is not None:
        out = out.astype(rounding)
    elif op.promotes:
        # Does numpy's result dtype already agree with PyTorch's promotion? (the common case)
        first, second = arrays[0], arrays[1]
        dtype = out.dtype
        if not (type(first) is np.ndarray and first.dtype == dtype and (
                second.dtype == dtype if type(second) is np.ndarray else type(second) is float and dtype.kind == "f")):
            out = _promote(out, arrays)
    result = _new(Tensor)
    result._data = out
    result._grad_fn = None
    result._requires_grad = False
    result._vb = None
    result._output_nr = 0
    if not STATE.enabled:
        if EVENT_LISTENERS:
            _no_grad_read(inputs)
        return result
    if count == 1 and op.positions:
        x = inputs[0]
        if type(x) is Tensor and x._base is None:  # the commonest: one plain tensor
            if x._requires_grad:
                record(op, inputs, params, (result,))
            return result
    for i in (range(len(inputs)) if op.variadic else op.positions):
        x = inputs[i]
        if getattr(x, "_requires_grad", False) or (
                getattr(x, "_base", None) is not None and _stale_view_requiring_grad(x)):
            record(op, inputs, params, (result,))
            break
    return result


_new = object.__new__
_ndarray = np.ndarray


# The hot path. Nearly every op of a training loop or an unrolled chain is an elementwise op
# on one or two plain tensors (no views, no options to check). These two functions do
# apply() and record() for exactly that case in one frame, without the general loops;
# anything else (views, inference mode, listeners, saved-tensor hooks, non-float results,
# errors) goes through apply(), which gives the same result the long way.

def apply_unary(op, x):
    """apply(op, (x,), {}) for an elementwise op of one tensor."""
    if (type(x) is not Tensor or x._base is not None or x._inference or op.special or STATE.inference
            or LISTENERS or _SAVED_HOOKS or not op.positions or FORWARD_AD is not None):
        return apply(op, (x,), _NO_OPTIONS)
    data = x._data
    if type(data) is not _ndarray:  # a meta tensor: apply() makes its result meta
        return apply(op, (x,), _NO_OPTIONS)
    if not x._requires_grad and op.integers is not None and data.dtype.kind in "biu":  # (no integer needs grad)
        return apply(op, (x,), _NO_OPTIONS)
    try:
        out = op.forward(data)
    except MemoryError as exc:
        raise _errors.from_memory_error(exc) from None
    if type(out) is not _ndarray:
        out = np.asarray(out)
    result = _new(Tensor)
    result._data = out
    result._vb = None
    result._output_nr = 0
    if not x._requires_grad or not STATE.enabled or out.dtype.kind not in "fc":
        if out.dtype.kind == "V":  # bfloat16: computed in float32, as apply() does
            return apply(op, (x,), _NO_OPTIONS)
        result._grad_fn = None
        result._requires_grad = False
        if x._requires_grad:
            if STATE.enabled:
                record(op, (x,), _NO_OPTIONS, (result,))
            elif EVENT_LISTENERS:
                _no_grad_read((x,))
        return result
    node = new_node(op.node_class)
    fn = x._grad_fn
    node._fns = (fn if fn is not None else accumulator_of(x),)
    result._grad_fn = node
    result._requires_grad = True
    nr = x._output_nr
    # The node's facts: most often those of the op's last node (a loop body), checked field by
    # field, which costs less than building them and looking them up. A call from the very
    # instruction that made that node has its site, without reading the line again.
    memo = op.memo
    frame = _getframe(2)
    sig = memo.last_sig
    call = memo.last_call
    if call is not None and call[1] == frame.f_lasti and call[0] is frame.f_code:
        site = sig[SIG_SITE]
    else:
        site = _fast_path_site(op, frame)
    if sig is not None:  # elementwise: the input's shape is the result's
        (input_shape, input_dtype), = sig[SIG_INPUT_META]
        (_, output_dtype), = sig[SIG_OUTPUT_META]
    if (sig is None or sig[SIG_SITE] != site or sig[SIG_NRS][0] != nr or input_shape != data.shape
            or input_dtype is not data.dtype or output_dtype is not out.dtype):
        sig = (op, _NEEDS_1[True], (nr,) if nr else _ZEROS[1], ((data.shape, data.dtype),), ((out.shape, out.dtype),),
               site)
        sig = memo.last_sig = _SIGS.get(sig) or shared_sig(sig)
    node._sig = sig
    if op.save_plan_used:  # _save() for one tensor input and no options
        vbox = x._vb  # saved at version 0 (or only the new result saved): release needs no check
        saved = FreshSaves() if vbox is None or not vbox[0] else {}
        for name, position, result_index in memo.plans.get(_NEEDS_1[True]) or _plan_for(op, _NEEDS_1[True]):
            saved[name] = _saved_input(x) if position >= 0 else _saved_output(result)
        node._saved = saved
    else:
        node._saved = None
    return result


def apply_binary(op, a, b, params):
    """apply(op, (a, b), params) for an elementwise op of a tensor and a tensor or float."""
    kind = type(b)
    if (type(a) is not Tensor or a._base is not None or a._inference or op.special or STATE.inference
            or LISTENERS or _SAVED_HOOKS or (kind is Tensor and (b._base is not None or b._inference))
            or FORWARD_AD is not None):
        return apply(op, (a, b), params)
    first = a._data
    if kind is Tensor:
        second = b._data
        if type(second) is not _ndarray:  # a meta tensor: apply() checks the devices
            return apply(op, (a, b), params)
    elif kind is float and op.arithmetic:
        second = _kernels.scalar_as_array(b, first)
        if type(second) is float and _mixed_operands(first, second):  # an integer or float16 tensor
            return apply(op, (a, b), params)
    else:
        return apply(op, (a, b), params)
    if type(first) is not _ndarray:
        return apply(op, (a, b), params)
    try:
        if not params:
            out = op.forward(first, second)
        elif op.plain is not None and params is op.plain[1]:
            out = op.plain[0](first, second)
        else:
            out = op.forward(first, second, **params)
    except ValueError:
        return apply(op, (a, b), params)  # raises PyTorch's broadcasting error
    except MemoryError as exc:
        raise _errors.from_memory_error(exc) from None
    if type(out) is not _ndarray:
        out = np.asarray(out)
    dtype = out.dtype
    if (first.dtype is not dtype and first.dtype != dtype) or (
            type(second) is _ndarray and second.dtype is not dtype and second.dtype != dtype):
        if _mixed_operands(first, second):
            return apply(op, (a, b), params)  # computed in the common dtype
        out = _promote(out, (first, b if kind is float else second))
        dtype = out.dtype
    result = _new(Tensor)
    result._data = out
    result._vb = None
    result._output_nr = 0
    if kind is Tensor:
        grad_b = b._requires_grad
    else:
        grad_b = False
    if not (a._requires_grad or grad_b) or not STATE.enabled or dtype.kind not in "fc":
        if dtype.kind == "V":  # bfloat16: computed in float32, as apply() does
            return apply(op, (a, b), params)
        result._grad_fn = None
        result._requires_grad = False
        if a._requires_grad or grad_b:
            if STATE.enabled:
                record(op, (a, b), params, (result,))
            elif EVENT_LISTENERS:
                _no_grad_read((a, b))
        return result
    node = new_node(op.node_class)
    if op.unread_options and params:
        params = kept_options(op, params)
    fn_a = a._grad_fn
    if fn_a is None and a._requires_grad:
        fn_a = accumulator_of(a)
    nr_a = a._output_nr
    if kind is Tensor:
        fn_b = b._grad_fn
        if fn_b is None and grad_b:
            fn_b = accumulator_of(b)
        nr_b = b._output_nr
        meta_b = (second.shape, second.dtype)
    else:
        fn_b, nr_b, meta_b = None, 0, None
    node._fns = (fn_a, fn_b)
    result._grad_fn = node
    result._requires_grad = True
    needs = _NEEDS_2[fn_a is not None][fn_b is not None]
    memo = op.memo
    frame = _getframe(2)  # the node's facts and site as in apply_unary
    sig = memo.last_sig
    call = memo.last_call
    if call is not None and call[1] == frame.f_lasti and call[0] is frame.f_code:
        site = sig[SIG_SITE]
    else:
        site = _fast_path_site(op, frame)
    if sig is not None:  # the inputs' shapes decide the result's (broadcasting)
        (input_shape, input_dtype), input_meta_b = sig[SIG_INPUT_META]
        (_, output_dtype), = sig[SIG_OUTPUT_META]
        nrs = sig[SIG_NRS]
    if (sig is None or sig[SIG_SITE] != site or sig[SIG_NEEDS] is not needs or nrs[0] != nr_a or nrs[1] != nr_b
            or input_shape != first.shape or input_dtype is not first.dtype or input_meta_b != meta_b
            or output_dtype is not dtype):
        sig = (op, needs, (nr_a, nr_b) if nr_a or nr_b else _ZEROS[2], ((first.shape, first.dtype), meta_b),
               ((out.shape, dtype),), site)
        sig = memo.last_sig = _SIGS.get(sig) or shared_sig(sig)
    node._sig = sig
    if op.save_plan_used and not params:  # _save() for two inputs and no options
        vbox_a, vbox_b = a._vb, (b._vb if kind is Tensor else None)  # saved at version 0: see apply_unary
        saved = FreshSaves() if (vbox_a is None or not vbox_a[0]) and (vbox_b is None or not vbox_b[0]) else {}
        for name, position, result_index in memo.plans.get(needs) or _plan_for(op, needs):
            if position < 0:
                saved[name] = _saved_output(result)
            else:
                value = (a, b)[position]
                saved[name] = _saved_input(value) if type(value) is Tensor else value
        node._saved = saved
    else:
        node._saved = _save(op, (a, b), params, (result,), needs) if op.save_plan_used else (params or None)
    return result


_NO_OPTIONS = {}  # shared by the nodes of ops called without options (nothing writes to it)


def _fast_path_site(op, frame):
    """The creation site of a node apply_unary/apply_binary make for a call from ``frame``.
    When the site is that frame's own line, the call instruction is kept in ``op.memo.last_call``:
    the same instruction has the same line, which is then known without reading it."""
    code = frame.f_code
    filename = code.co_filename
    if _INSIDE.get(filename) is False:
        op.memo.last_call = (code, frame.f_lasti)
        return (filename, line_of(frame))
    op.memo.last_call = None
    return site_from(frame)


def _node_forward_name(node_name):
    from .node import _forward_name
    return _forward_name(node_name)


def _stale_view_requiring_grad(x):
    """A view whose base started requiring grad in place since the view was taken."""
    if x._view_version == x._vbox[0] or x._view_created_in_no_grad:
        return False
    refresh_view(x)
    return x._requires_grad


def _apply_special(op, inputs, params, out):
    """apply() for multi-output ops, views and inference mode."""
    wrap = _tensor.wrap
    if op.multi_output:
        outputs = tuple(wrap(o) for o in out)
    else:
        if op.promotes and len(inputs) > 1:
            out = _promote(np.asanyarray(out), [getattr(x, "_data", x) for x in inputs])
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
            if base._view_created_in_no_grad or base._view_of_no_grad_view is not None:
                o._view_of_no_grad_view = (0, _node_forward_name(op.node_name))
            if not STATE.enabled:
                # Views share their base's autograd flag even without a graph: such a view
                # reports requires_grad (as a leaf), and modifying it in place later is refused.
                o._view_created_in_no_grad = True
                if base._requires_grad and o._data.dtype.kind in "fcV":
                    o._requires_grad = True
            if base._inference:
                o._inference = True
    if STATE.inference:
        for o in outputs:
            o._inference = True
    if STATE.enabled:
        for i in (range(len(inputs)) if op.variadic else op.positions):
            x = inputs[i]
            if getattr(x, "_requires_grad", False) or (
                    getattr(x, "_base", None) is not None and _stale_view_requiring_grad(x)):
                record(op, inputs, params, outputs)
                break
    elif EVENT_LISTENERS:
        _no_grad_read(inputs)
    return outputs if op.multi_output else outputs[0]


def _no_grad_read(inputs):
    """Tell the event listeners of an op that read a tensor needing grad with grad mode
    off: no graph records it, so a gradient cannot flow back through it."""
    if any(getattr(x, "_requires_grad", False) for x in inputs):
        emit("on_no_grad_read", inputs)


def _guard_inputs(op, arrays):
    """Before an op runs under a guard: its result is at least as large as the broadcast of
    its array inputs when it is elementwise (the common way to blow up: ``a * b.t()``)."""
    shapes = [a.shape for a in arrays if type(a) is np.ndarray]
    if shapes and op.promotes:
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            return  # the op raises PyTorch's broadcasting error
        _kernels.guard_elements(math.prod(shape), op.node_name)


def _guard_outputs(op, out):
    """After an op runs under a guard: what it made, whatever sized it."""
    if type(out) is tuple:
        _kernels.guard_pieces(len(out), op.node_name)
        for o in out:
            if type(o) is np.ndarray:
                _kernels.guard_elements(o.size, op.node_name)
    elif hasattr(out, "size"):
        _kernels.guard_elements(np.size(out), op.node_name)


def guarded(guard):
    """Consult ``guard`` (see _kernels.GUARDS) for every array until the returned
    function is called. It also listens, so that every op takes apply()'s checked path."""
    _kernels.GUARDS.append(guard)
    listener = _DeafListener()
    LISTENERS.append(listener)

    def release():
        _kernels.GUARDS.remove(guard)
        LISTENERS.remove(listener)
    return release


class _DeafListener:
    """A listener that hears nothing: its presence alone routes ops through apply()."""

    def __getattr__(self, event):
        if event.startswith("on_"):
            return _ignore
        raise AttributeError(event)


def _ignore(*_):
    return None


def _has_bfloat16_or_meta(arrays):
    for a in arrays:
        kind = type(a)
        if kind is np.ndarray:
            if a.dtype.kind == "V":
                return True
        elif kind is _MetaArray:
            return True
    return False


_MetaArray = _meta.MetaArray


def _forward_unusual(op, arrays, params):
    """The forward of an op on bfloat16 or meta inputs. A meta input makes the op meta: its
    operands are checked to share a device where PyTorch's TensorIterator checks them
    (elementwise ops, cat and stack), and whatever the kernel returns is folded into
    placeholders, so a kernel that went through plain numpy still gives a meta result."""
    if not any(type(a) is _MetaArray for a in arrays):
        return _forward_in_float32(op, arrays, params)
    if op.promotes or op.variadic or op.node_name == "WhereBackward0":  # TensorIterator's ops, cat and stack
        _meta.check_same_device(arrays)
        if not op.variadic:
            _meta.check_broadcast(arrays)
    plain_bfloat16 = [a for a in arrays if type(a) is np.ndarray and a.dtype.kind == "V"]
    out = _forward_in_float32(op, arrays, params) if plain_bfloat16 else (
        op.forward(*arrays, **params) if params else op.forward(*arrays))
    return _meta.fold(out)


# ATen's add and sub cast a number operand (and alpha) to the tensor's dtype, so for
# bfloat16 it is rounded first; mul and div keep the number in float32.
_ROUNDS_NUMBERS = ("AddBackward", "SubBackward", "RsubBackward")
_SCALAR_OPERANDS = ("alpha", "other")


def _bfloat16_number(value):
    return float(np.float32(value).astype(_dtypes.BFLOAT16)) if type(value) is float else value


def _forward_in_float32(op, arrays, params):
    """An op on bfloat16 as PyTorch's CPU kernels run it: the values widened to float32,
    computed, and the result rounded to bfloat16 once (unless the op was asked for another
    dtype, or a wider floating input makes the result wider)."""
    if params and "generator" in params:  # a random fill draws in the tensor's own dtype
        return op.forward(*arrays, **params)
    rounds_numbers = op.node_name.startswith(_ROUNDS_NUMBERS)
    wide = [a.astype(np.float32) if type(a) is np.ndarray and a.dtype.kind == "V" else
            _bfloat16_number(a) if rounds_numbers and type(a) is float else a for a in arrays]
    if rounds_numbers and params and any(name in params for name in _SCALAR_OPERANDS):
        params = {name: _bfloat16_number(value) if name in _SCALAR_OPERANDS else value for name, value in params.items()}
    _kernels.ROUNDING.dtype = _dtypes.BFLOAT16
    try:
        out = op.forward(*wide, **params)
    finally:
        _kernels.ROUNDING.dtype = None
    if getattr(out, "dtype", None) == np.float32 and not (params and params.get("dtype") is not None) and not any(
            type(a) is np.ndarray and a.dtype.kind in "fc" for a in arrays):
        out = np.asarray(out).astype(_dtypes.BFLOAT16)
    elif type(out) is tuple:  # several results (max with its indices, ...): round the float32 ones
        out = tuple(o.astype(_dtypes.BFLOAT16) if getattr(o, "dtype", None) == np.float32 else o for o in out)
    return out


def _mixed_operands(first, second):
    """Would numpy compute these two operands in another dtype than PyTorch? (a float32 and
    a float64 tensor in float64, an integer and a float in float64, float16 and a Python
    float in float16; ATen casts tensors to the result dtype first, a number to its op math)"""
    if type(first) is not np.ndarray:
        first, second = second, first
        if type(first) is not np.ndarray:
            return False
    kind = first.dtype.kind
    if type(second) is np.ndarray:
        return second.dtype != first.dtype and (kind in "fc" or second.dtype.kind in "fc")
    if type(second) is float:
        return kind in "biu" or first.dtype == np.float16
    return type(second) is complex and kind != "c"


def _in_common_dtype(op, arrays):
    """(operands, the dtype to round the result to or None): each tensor cast to the result
    dtype before the op, as ATen's TensorIterator casts them; float16 times or over a number
    (a Python float or a 0-d tensor) is computed in float32, its op math, then rounded
    (see Op.number_in_op_math)."""
    target = _dtypes.result_type(arrays).np
    compute = target
    number = arrays[1]
    if target == np.float16 and op.number_in_op_math and (
            type(number) is float or (type(number) is np.ndarray and not number.ndim)):
        compute = np.dtype(np.float32)
    cast = tuple(a.astype(compute) if type(a) is np.ndarray and a.dtype != compute else a for a in arrays)
    return cast, (target if compute != target else None)


def _promote(out, arrays):
    """Cast numpy's result to PyTorch's promoted dtype when the two disagree."""
    target = _dtypes.result_type(arrays)
    # Integer operands promote to an integer type, but true division's result stays floating.
    if target.np != out.dtype and out.dtype.kind != "b" and not (out.dtype.kind == "f" and not target.is_floating_point):
        out = out.astype(target.np)
    return out


def record(op, inputs, params, outputs, node=None):
    """Attach a new node for ``op`` to ``outputs``: edges to the inputs, saved slots, site."""
    if node is None:
        node = new_node(op.node_class)
    if op.unread_options and params:
        params = kept_options(op, params)
    positions = range(len(inputs)) if op.variadic else op.positions
    count = len(positions)
    x = inputs[positions[0]] if count else None
    # The commonest cases (one or two inputs, plain tensors or numbers) without the general loop;
    # their edges are edge_of() without its view cases, which a plain input cannot have.
    if count == 1 and type(x) is Tensor and x._base is None and x._requires_grad:
        fn = x._grad_fn
        if fn is None:
            fn = accumulator_of(x)
        node._fns = (fn,)
        nr = x._output_nr
        nrs = (nr,) if nr else _ZEROS[1]
        needs = _NEEDS_1[True]
        data = x._data
        input_meta = ((data.shape, data.dtype),)
    elif count == 2 and _plain(x) and _plain(inputs[positions[1]]):
        first, nr_x, meta_x = _plain_edge(x)
        second, nr_y, meta_y = _plain_edge(inputs[positions[1]])
        node._fns = (first, second)
        needs = _NEEDS_2[first is not None][second is not None]
        nrs = (nr_x, nr_y) if nr_x or nr_y else _ZEROS[2]
        input_meta = (meta_x, meta_y)
    else:
        fns, nrs, needs, input_meta = _edges(inputs, positions)
        node._fns = fns
    if len(outputs) == 1:
        out = outputs[0]
        data = out._data
        output_meta = ((data.shape, data.dtype),)
        if data.dtype.kind in "fcV":
            out._grad_fn = node
            out._output_nr = 0
            out._requires_grad = True
    else:
        output_meta = tuple([(o._data.shape, o._data.dtype) for o in outputs])
        nr = 0
        for o in outputs:
            if o._data.dtype.kind in "fcV":
                o._grad_fn = node
                o._output_nr = nr
                o._requires_grad = True
            nr += 1
    frame = _getframe(3)  # creation_site(3), its first step inline: the caller is usually user code
    filename = frame.f_code.co_filename
    site = (filename, line_of(frame)) if _INSIDE.get(filename) is False else creation_site(3)
    sig = (op, needs, nrs, input_meta, output_meta, site)
    node._sig = _SIGS.get(sig) or shared_sig(sig)
    # A node that saves no tensor keeps the options as given (often one dict shared by many nodes).
    node._saved = _save(op, inputs, params, outputs, needs) if op.save_plan_used else (params or None)
    if _SAVED_HOOKS and node._saved:  # a node that saves nothing (t, view ops) has None here
        _pack_saved(node)
    if LISTENERS:
        for listener in LISTENERS:
            listener.on_node(node, inputs, outputs)
    return node


def kept_options(op, params):
    """The options a node of ``op`` keeps: those its formulas read."""
    return {name: value for name, value in params.items() if name not in op.unread_options}


def _plain(x):
    """A non-view tensor of the Tensor class itself, or a Python number."""
    kind = type(x)
    return (kind is Tensor and x._base is None) or kind is float or kind is int or kind is bool


def _plain_edge(x):
    """(next node or None, its output number, (shape, dtype) or None) of a _plain() input."""
    if type(x) is not Tensor:
        return None, 0, None
    fn = x._grad_fn
    if fn is None and x._requires_grad:
        fn = accumulator_of(x)
    data = x._data
    return fn, x._output_nr, (data.shape, data.dtype)


def _edges(inputs, positions):
    """(next nodes, their output numbers, needs-gradient flags, (shape, dtype)s) of the inputs."""
    fns = []
    meta = []
    nrs = None  # stays None while every edge points at output 0
    edgeless_need = False  # an input needs a gradient yet has no edge (a view made under no_grad)
    for j, i in enumerate(positions):
        x = inputs[i]
        if type(x) is Tensor or isinstance(x, Tensor):
            fn, nr = edge_of(x)
            if nr:
                if nrs is None:
                    nrs = [0] * len(positions)
                nrs[j] = nr
            if fn is None and x._requires_grad:
                # A view made under no_grad: PyTorch gives it no gradient edge (what flows
                # into it is dropped) while still saving for it.
                edgeless_need = True
            fns.append(fn)
            data = x._data
            meta.append((data.shape, data.dtype))
        else:
            fns.append(None)
            meta.append(None)
    count = len(fns)
    fns = tuple(fns)
    if nrs is None:
        nrs = _ZEROS[count] if count < len(_ZEROS) else (0,) * count
    else:
        nrs = tuple(nrs)
    if edgeless_need:
        needs = tuple([fn is not None or (isinstance(inputs[i], Tensor) and inputs[i]._requires_grad)
                       for fn, i in zip(fns, positions)])
    elif count == 1:
        needs = _NEEDS_1[fns[0] is not None]
    elif count == 2:
        needs = _NEEDS_2[fns[0] is not None][fns[1] is not None]
    else:
        needs = tuple([fn is not None for fn in fns])
    return fns, nrs, needs, tuple(meta)


# The flag and output-number tuples most nodes have, made once.
_ZEROS = tuple((0,) * n for n in range(1025))
_NEEDS_1 = ((False,), (True,))
_NEEDS_2 = (((False, False), (False, True)), ((True, False), (True, True)))


def _save(op, inputs, params, outputs, needs):
    """Save what the formulas of the inputs that need a gradient will read (params always)."""
    saved = dict(params) if params else {}
    for name, position, result_index in op.memo.plans.get(needs) or _plan_for(op, needs):
        if name in saved:  # an option of the same name wins, as it always has
            continue
        if position >= 0:
            x = inputs[position]
            if type(x) is Tensor or isinstance(x, Tensor):
                if x._inference:
                    raise _errors.inference_tensor_saved()
                saved[name] = _saved_input(x)
            else:
                saved[name] = x  # a number: kept bare (see Node._scalar_input)
        else:
            saved[name] = _saved_output(outputs[result_index])
    return saved


_saved_input = SavedTensor.of_input
_saved_output = SavedTensor.of_output


def _plan_for(op, needs):
    """The slots to save, each once, in the formulas' order; worked out once per needs
    pattern and kept in ``op.memo.plans``."""
    plan = {}
    joint = op.joint and any(needs)
    for k, need in enumerate(needs):
        if need or joint:
            for name, position, result_index in op.save_plan[0 if op.variadic else k]:
                if name not in plan and (position >= 0 or result_index >= 0):
                    plan[name] = (name, position, result_index)
    plan = op.memo.plans[needs] = tuple(plan.values())
    return plan


# (pack_hook, unpack_hook) pairs of the active torch.autograd.graph.saved_tensors_hooks blocks.
_SAVED_HOOKS = []


class saved_tensors_hooks:
    """Context manager: every tensor saved for backward inside it is passed through
    pack_hook when saved and unpack_hook when backward (or an inspector) reads it."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _HOOKS_DISABLED[-1] is not None:
            raise RuntimeError(_HOOKS_DISABLED[-1])
        _SAVED_HOOKS.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _SAVED_HOOKS.pop()
        return False


# The message of the innermost disable_saved_tensors_hooks block (None: hooks allowed).
_HOOKS_DISABLED = [None]


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Inside it, entering saved_tensors_hooks raises RuntimeError(error_message)."""
    _HOOKS_DISABLED.append(error_message)
    try:
        yield
    finally:
        _HOOKS_DISABLED.pop()


class save_on_cpu(saved_tensors_hooks):
    """PyTorch's: saved tensors moved to the CPU when saved, back to their device when
    unpacked. Every tensor here is on the CPU, so without ``pin_memory`` the hooks pass the
    tensor itself; with it, PyTorch packs a copy (pinned where a GPU is present), so here a
    plain copy."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            packed = F.empty(tuple(tensor.shape), dtype=tensor.dtype)
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


def _pack_saved(node):
    pack_hook, unpack_hook = _SAVED_HOOKS[-1]
    for value in node._saved.values():
        if isinstance(value, SavedTensor):
            value.register_hooks(pack_hook, unpack_hook, node)


def refresh_view(view):
    """A view whose base was modified in place since the view was made takes its history
    from the base again (AsStridedBackward0), as PyTorch regenerates it."""
    base = view._base
    if view._view_created_in_no_grad and base._requires_grad:
        # The storage changed in place after this view was taken without a graph:
        # PyTorch refuses to guess what the view's history should be.
        raise _errors.view_in_no_grad_rebased()
    if view._view_created_in_no_grad or not base._requires_grad:
        view._view_version = view._vbox[0]
        return
    from .inplace import regenerate_view
    regenerate_view(view)
