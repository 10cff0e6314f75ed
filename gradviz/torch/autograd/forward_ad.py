"""Forward-mode AD: torch.autograd.forward_ad (dual levels, dual tensors) and the tangent
each op gives its result.

A tensor's tangent is its ``_tangent`` field (None: not dual). While a dual level is open,
``graph.FORWARD_AD`` is this module's ``propagate``; graph.apply() hands every op to it,
which runs the op with the hook off (so the tangent's own arithmetic is plain engine ops,
recorded for reverse mode like any other) and then gives the result its tangent. With no
level open the hook is None and the ops' paths cost one test more.

How an op's tangent is computed, from the op table's declaration alone (no per-op JVP
formulas, except where PyTorch's forward formula rounds differently from ours):

- linear ops (views, sum, mean, cumsum, index... derivatives.yaml's ``auto_linear``): the
  op itself applied to the tangent; a view's tangent is then a view of the base's tangent,
  so an in-place change of either reaches the other, as in PyTorch;
- bilinear ops (mm, bmm, mv, dot, matmul's pieces): ``op(a_t, b) + op(a, b_t)``;
- elementwise ops, whose gradient formula only multiplies the incoming gradient elementwise
  (read from the formula's bytecode by raw.py): the formula applied to the tangent
  broadcast to the result (``auto_element_wise``: ``grad * cos(self)`` -> ``t * cos(self)``);
- addmm/baddbmm, div and softmax/log_softmax: PyTorch's own forward formulas (``_DIRECT``);
- anything else: the double-vjp trick on the op's node alone. Its gradient formula is
  linear in the incoming gradient g, so the gradient of ``<vjp(g), t>`` with respect to g
  is ``J t``.

Contributions of several dual inputs are added in the inputs' order, as the generated
forward formulas add them; an input without a tangent contributes nothing (PyTorch's
undefined tangent).
"""
import weakref
from typing import NamedTuple

from .. import _errors_func as E
from .._namespace import F
from . import graph, inplace
from .grad_mode import STATE, _DecoratorContextManager, enable_grad
from .node import SavedTensor
from .raw import raw_version

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

_current_level = -1
# Every tensor given a tangent at the open level, by id: leaving the level takes them away.
_DUALS = {}


# ---------------------------------------------------------------------------------------
# the public API

def enter_dual_level():
    global _current_level
    if _current_level >= 0:
        raise E.fwad_nested_level()
    _current_level = 0
    graph.FORWARD_AD = propagate
    inplace.FORWARD_AD = inplace_tangent
    return _current_level


def exit_dual_level(*, level=None):
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise E.fwad_exit_not_last()
    if level < 0:
        raise E.fwad_level_negative()
    graph.FORWARD_AD = None
    inplace.FORWARD_AD = None
    for ref in _DUALS.values():
        t = ref()
        if t is not None:
            t._tangent = None
    _DUALS.clear()
    _current_level = level - 1


class dual_level(_DecoratorContextManager):
    __module__ = "torch.autograd.forward_ad"

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


class UnpackedDualTensor(NamedTuple):
    primal: object
    tangent: object


UnpackedDualTensor.__module__ = "torch.autograd.forward_ad"


def make_dual(tensor, tangent, *, level=None):
    if level is None:
        level = _current_level
    if level < 0:
        raise E.fwad_make_dual_no_level()
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise E.fwad_not_floating("primal", tensor.dtype)
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise E.fwad_not_floating("tangent", tangent.dtype)
    if level != _current_level:
        raise E.fwad_invalid_level("_make_dual")
    if tensor._tangent is not None:
        raise E.fwad_already_dual(level)
    if tangent._data.shape != tensor._data.shape:
        raise E.fwad_tangent_size(tensor._data.shape, tangent._data.shape)
    with suspended():
        dual = _alias_of(tensor, "ViewBackward0")  # PyTorch's _make_dual: a view of tensor
        if _strides_in_elements(tangent) != _strides_in_elements(tensor):
            # kept as-is when laid out like the primal, else copied into the primal's layout
            tangent = F.empty_like(tensor, dtype=tangent.dtype).copy_(tangent)
    _give(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if level != _current_level and tensor._tangent is not None:  # a plain tensor has no tangent at any level
        raise E.fwad_invalid_level("_fw_primal")
    forward_grad = graph.FORWARD_AD is not None  # off in a custom Function's forward
    with suspended():
        primal = _alias_of(tensor, "AliasBackward0")
    return UnpackedDualTensor(primal, tensor._tangent if forward_grad else None)


def _alias_of(t, node_name):
    """A view of all of t: its node ``ViewBackward0`` where t's layout allows, else an alias."""
    from .. import _ops  # the op table imports this package; it is complete by the first call
    if node_name == "ViewBackward0" and t.is_contiguous():
        return F.view(t, tuple(t._data.shape))
    return graph.apply(_ops.alias, (t,), {})


def transform_may_open_level():
    """May torch.func.jvp open a level of its own? Not inside another jvp (it then computes
    with the double-vjp trick); inside a dual_level the user opened, PyTorch refuses."""
    if _current_level < 0:
        return True
    if not _LEVEL_OF_TRANSFORM:
        raise E.fwad_nested_level()
    return False


_LEVEL_OF_TRANSFORM = []  # True while the open level is torch.func.jvp's


class dual_level_of_transform(dual_level):
    def __enter__(self):
        level = enter_dual_level()
        _LEVEL_OF_TRANSFORM.append(True)
        return level

    def __exit__(self, *exc):
        _LEVEL_OF_TRANSFORM.pop()
        exit_dual_level()


def carry_tangent(source, target):
    """``target`` (a fresh leaf standing for ``source`` in a transform) gets its tangent."""
    _give(target, source._tangent)


def _strides_in_elements(t):
    data = t._data
    return tuple(s // data.itemsize for s in data.strides) if data.size > 1 else ()


def _give(t, tangent):
    t._tangent = tangent
    _DUALS[id(t)] = weakref.ref(t)


class suspended:
    """Ops run inside it make no tangents: the tangents' own arithmetic, a custom Function's
    forward (PyTorch runs it with forward grad off)."""

    def __enter__(self):
        self.hooks = graph.FORWARD_AD, inplace.FORWARD_AD
        graph.FORWARD_AD = inplace.FORWARD_AD = None

    def __exit__(self, *exc):
        graph.FORWARD_AD, inplace.FORWARD_AD = self.hooks


def is_dual(x):
    return getattr(x, "_tangent", None) is not None


# ---------------------------------------------------------------------------------------
# propagation

def propagate(op, inputs, params):
    """graph.apply() while a dual level is open: the op's result, with its tangent."""
    hook = graph.FORWARD_AD
    graph.FORWARD_AD = None
    try:
        result = graph.apply(op, inputs, params)
        positions = range(len(inputs)) if op.variadic else op.positions
        duals = [(i, inputs[i]._tangent) for i in positions if getattr(inputs[i], "_tangent", None) is not None]
        if duals:
            outputs = result if op.multi_output else (result,)
            if any(o._data.dtype.kind in "fcV" for o in outputs):
                for o, tangent in zip(outputs, _tangents(op, inputs, params, outputs, duals)):
                    if tangent is not None and o._data.dtype.kind in "fcV":
                        _give(o, tangent)
                        _save_output_with_tangent(o)
    finally:
        graph.FORWARD_AD = hook
    return result


def _save_output_with_tangent(output):
    """A node that saved this output keeps the tensor itself (as it keeps a saved input), not
    only its data: a backward run at this level (jvp of grad) reads the result with its
    tangent, as PyTorch's saved variables keep their forward grad."""
    saved = getattr(output._grad_fn, "_saved", None)
    if type(saved) is dict:
        for slot in saved.values():
            if type(slot) is SavedTensor and slot.is_output and slot.data is output._data:
                slot.tensor = output
                slot.is_output = False


def _tangents(op, inputs, params, outputs, duals):
    """One tangent (or None) per output of ``op``: J t summed over the dual inputs."""
    name = op.node_name
    direct = _DIRECT.get(name)
    if direct is not None:
        return (direct(inputs, params, outputs, dict(duals)),)
    if op.view or name in _LINEAR:
        return _linear(op, inputs, params, duals)
    if name in _BILINEAR:
        return _bilinear(op, inputs, params, duals)
    if not op.variadic and not op.multi_output and all(_elementwise(op, op.positions.index(i)) for i, _ in duals):
        return (_elementwise_tangent(op, inputs, params, outputs[0], duals),)
    return _double_vjp(op, inputs, params, outputs, duals)


def _replaced(inputs, position, value):
    return tuple(value if k == position else x for k, x in enumerate(inputs))


def _linear(op, inputs, params, duals):
    """A linear op's tangent is the op of the tangent (every other input is an index or a mask)."""
    if op.variadic:  # cat, stack: the tangents, zeros for the inputs that have none
        tangents = dict(duals)
        pieces = tuple(tangents.get(i) if i in tangents else F.zeros_like(x) for i, x in enumerate(inputs))
        result = graph.apply(op, pieces, params)
    else:
        (position, tangent), = duals
        result = graph.apply(op, _replaced(inputs, position, tangent), params)
    return result if op.multi_output else (result,)


def _bilinear(op, inputs, params, duals):
    total = None
    for position, tangent in duals:
        term = graph.apply(op, _replaced(inputs, position, tangent), params)
        total = term if total is None else total + term
    return (total,)


def _elementwise(op, k):
    """Is input k's formula the incoming gradient times elementwise factors? (raw.py runs
    such formulas on arrays; one that expands the gradient is a reduction's.)"""
    memo = _ELEMENTWISE.get((op, k))
    if memo is None:
        formula = op.formulas[k]
        memo = _ELEMENTWISE[(op, k)] = (raw_version(formula) is not None
                                        and "expand" not in formula.__code__.co_names)
    return memo


_ELEMENTWISE = {}


def _formula_values(op, k, inputs, params, outputs):
    """The arguments formula k reads: inputs, results and options by name."""
    values = []
    plan = {name: (position, result_index) for name, position, result_index in op.save_plan[k]}
    for name in op.formula_args[k]:
        if name in plan and plan[name][0] >= 0:
            values.append(inputs[plan[name][0]])
        elif name in plan and plan[name][1] >= 0:
            values.append(outputs[plan[name][1]])
        else:
            values.append(params[name])
    return values


def _elementwise_tangent(op, inputs, params, output, duals):
    total = None
    shape = output._data.shape
    for position, tangent in duals:
        k = op.positions.index(position)
        if tangent._data.shape != shape:
            tangent = F.expand(tangent, shape)
        complex_ = tangent._data.dtype.kind == "c" or output._data.dtype.kind == "c"
        if complex_:  # auto_element_wise: the formula's conjugate, of the conjugate tangent
            tangent = F.conj(tangent)
        term = op.formulas[k](tangent, *_formula_values(op, k, inputs, params, (output,)))
        if complex_:
            term = F.conj(term)
        total = term if total is None else total + term
    return total


def _double_vjp(op, inputs, params, outputs, duals):
    """J t through the op's gradient formulas: d<vjp(g), t>/dg, per output."""
    from .entry import grad as autograd_grad
    differentiable = [o._data.dtype.kind in "fc" for o in outputs]
    # the tangent needs a graph for reverse mode only where an input or a tangent requires grad
    keep_graph = STATE.enabled and (any(getattr(x, "_requires_grad", False) for x in inputs)
                                    or any(t._requires_grad for _, t in duals))
    totals = [None] * len(outputs)
    with enable_grad(), _unheard(not keep_graph):
        dummies = [F.zeros_like(o, requires_grad=True) if d else None for o, d in zip(outputs, differentiable)]
        live = [g for g in dummies if g is not None]
        incoming = dummies if op.multi_output else dummies[0]
        for position, tangent in duals:
            if op.variadic:
                pulled = op.formulas[0](incoming, *_formula_values(op, 0, inputs, params, outputs))[position]
            else:
                k = op.positions.index(position)
                pulled = op.formulas[k](incoming, *_formula_values(op, k, inputs, params, outputs))
            pulled = _fit(pulled, inputs[position])
            if not pulled._requires_grad:
                continue
            pushed = autograd_grad((pulled,), live, (tangent.to(pulled.dtype),), create_graph=keep_graph,
                                   allow_unused=True)
            pushed = iter(pushed)
            for j, d in enumerate(differentiable):
                term = next(pushed) if d else None
                if term is not None:
                    totals[j] = term if totals[j] is None else totals[j] + term
    return totals


class _unheard:
    """The double-vjp's scaffolding (its zero cotangents, their nodes, its backward call) is
    the engine's, not the user's: inspectors do not hear of it unless the tangent keeps a
    graph for reverse mode."""

    def __init__(self, quiet):
        self.quiet = quiet

    def __enter__(self):
        if self.quiet:
            self.listeners = graph.LISTENERS[:], graph.EVENT_LISTENERS[:]
            graph.LISTENERS.clear()
            graph.EVENT_LISTENERS.clear()

    def __exit__(self, *exc):
        if self.quiet:
            graph.LISTENERS[:], graph.EVENT_LISTENERS[:] = self.listeners


def _fit(gradient, x):
    """A formula's gradient as the engine leaves it for input x: broadcasting undone."""
    shape = x._data.shape
    if gradient._data.shape != shape:
        gradient = F.sum_to_size(gradient, shape)
    return gradient


# ---------------------------------------------------------------------------------------
# in-place ops

def inplace_tangent(op, target, inputs, params, write):
    """An in-place op while a dual level is open (installed as inplace.FORWARD_AD): ``write``
    does it; the tangent it leaves on ``target`` is worked out first, from the values
    before the write, as the out-of-place op's tangent."""
    positions = range(len(inputs)) if op.variadic else op.positions
    tangent = None
    if any(is_dual(inputs[i]) for i in positions):
        with suspended():
            before = F.clone(target)
        before._tangent = target._tangent
        result = propagate(op, (before,) + tuple(inputs[1:]), params)
        tangent = result._tangent
        if tangent is None:  # the op's result does not depend on a dual input (a copy from a plain tensor)
            with suspended():
                tangent = F.zeros_like(target, dtype=target._tangent.dtype if is_dual(target) else None)
    with suspended():
        write(op, target, inputs, params)
    _settle_inplace(target, tangent)
    return target


def _settle_inplace(target, tangent):
    """After the write: the target's tangent takes the new value in place (a view's tangent is
    a view of its base's), or is given to it."""
    if tangent is None:
        return
    current = target._tangent
    base = target._base
    with suspended():
        if current is None and base is not None:
            # a view written with a tangent: its base gets one (zeros elsewhere, if it had none),
            # and the view the matching view of it
            if base._tangent is None:
                _give(base, F.zeros_like(base, dtype=tangent.dtype))
            current = base._tangent
            for op, params in target._view_chain:
                current = graph.apply(op, (current,), params)
            _give(target, current)
        if current is not None and current._data.shape == tangent._data.shape:
            current.copy_(tangent)
            return
    _give(target, tangent)


# ---------------------------------------------------------------------------------------
# custom Functions

def function_jvp(cls, ctx, args, outputs):
    """A custom Function's tangents: its jvp staticmethod, with the tangent of every tensor
    argument (zeros for one that is not dual, None for anything else), reading the tensors
    saved by ctx.save_for_forward as ctx.saved_tensors."""
    from .._tensor import Tensor
    if not any(is_dual(a) for a in args):
        return
    with suspended():
        tangents = [(a._tangent if a._tangent is not None else F.zeros_like(a)) if isinstance(a, Tensor) else None
                    for a in args]
        saved_for_backward = ctx._to_save
        ctx._to_save = getattr(ctx, "_to_save_forward", ()) or ()
        try:
            result = cls.jvp(ctx, *tangents)
        finally:
            ctx._to_save = saved_for_backward
    if not isinstance(result, tuple):
        result = (result,)
    for out, tangent in zip(outputs, result):
        if isinstance(out, Tensor) and isinstance(tangent, Tensor) and out._data.dtype.kind in "fcV":
            if out._tangent is not None and out._tangent is not tangent:
                with suspended():
                    out._tangent.copy_(tangent)
            else:
                _give(out, tangent)


# ---------------------------------------------------------------------------------------
# the op table's linear and bilinear ops (derivatives.yaml's auto_linear, and the products)

_LINEAR = frozenset({
    "CloneBackward0", "NegBackward0", "SumBackward0", "SumBackward1", "MeanBackward0", "MeanBackward1",
    "CumsumBackward0", "FlipBackward0", "RollBackward0", "RepeatBackward0", "TraceBackward0", "TrilBackward0",
    "TriuBackward0", "DiagEmbedBackward0", "ToCopyBackward0", "ConjBackward0", "UnsafeViewBackward0",
    "TransposeBackward1", "IndexBackward0", "IndexSelectBackward0", "GatherBackward0", "MaskedSelectBackward0",
    "CatBackward0", "StackBackward0", "UnsafeSplitBackward0", "AvgPool2DBackward0", "AdaptiveAvgPool2DBackward0",
    "ReflectionPad1DBackward0", "ReflectionPad2DBackward0", "ReflectionPad3DBackward0",
    "ReplicationPad1DBackward0", "ReplicationPad2DBackward0", "ReplicationPad3DBackward0",
    "UpsampleNearest1DBackward0", "UpsampleNearest2DBackward0", "UpsampleNearest3DBackward0",
    "UpsampleLinear1DBackward0", "UpsampleBilinear2DBackward0", "UpsampleBicubic2DBackward0",
    "UpsampleTrilinear3DBackward0", "DiagonalBackward0_copy",
})
_BILINEAR = frozenset({"MmBackward0", "BmmBackward0", "MvBackward0", "DotBackward0"})


def _addmm_jvp(inputs, params, outputs, tangents, product=None):
    """PyTorch's addmm / baddbmm forward formula: beta self_t + alpha (mat1_t mat2 + mat1 mat2_t)."""
    product = product or F.mm
    self, mat1, mat2 = inputs
    beta, alpha = params["beta"], params["alpha"]
    terms = []
    if 0 in tangents:
        terms.append(tangents[0] if beta == 1 else tangents[0] * beta)
    for position, pair in ((1, lambda t: product(t, mat2)), (2, lambda t: product(mat1, t))):
        if position in tangents:
            term = pair(tangents[position])
            terms.append(term if alpha == 1 else term * alpha)
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    shape = outputs[0]._data.shape
    return total if total._data.shape == shape else F.expand(total, shape).clone()


def _logsumexp_jvp(x, tangent, dim):
    """The tangent of logsumexp(x, dim, keepdim=True), as PyTorch's logsumexp_jvp computes it
    (the exponentials shifted by the maximum)."""
    exps = (x - F.amax(x, dim, True)).exp() if x.numel() > 0 else x.exp()
    return (exps * tangent).sum(dim, keepdim=True) / exps.sum(dim, keepdim=True)


def _softmax_jvp(inputs, params, outputs, tangents):
    x, = inputs
    return outputs[0] * (tangents[0] - _logsumexp_jvp(x, tangents[0], params["dim"]))


def _log_softmax_jvp(inputs, params, outputs, tangents):
    x, = inputs
    return tangents[0] - _logsumexp_jvp(x, tangents[0], params["dim"])


def _div_jvp(inputs, params, outputs, tangents):
    """PyTorch's div forward formula, ``(self_t - other_t * result) / other_p`` (a missing
    tangent is a zero that drops out)."""
    other = inputs[1]
    if 1 not in tangents:
        return tangents[0] / other
    spread = tangents[1] * outputs[0]
    return (tangents[0] - spread if 0 in tangents else -spread) / other


_DIRECT = {
    "DivBackward0": _div_jvp,
    "AddmmBackward0": _addmm_jvp,
    "BaddbmmBackward0": lambda inputs, params, outputs, tangents: _addmm_jvp(inputs, params, outputs, tangents,
                                                                              product=F.bmm),
    "SoftmaxBackward0": _softmax_jvp,
    "LogSoftmaxBackward0": _log_softmax_jvp,
}
