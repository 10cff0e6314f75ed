"""torch.autograd.Function: user-defined ops. As in PyTorch, the ctx passed to forward is
the graph node itself (a ``<Name>Backward`` instance), and saved tensors go through the
same version-checked, freed-after-backward slots as built-in ops."""
import functools

from .. import _dtypes, _errors, _errors_func
from .._namespace import F
from .engine import expandable
from .grad_mode import STATE, no_grad
from . import forward_ad, graph
from .graph import LISTENERS, edge_of
from .node import FreedSlot, Node, SavedTensor, creation_site


class FunctionCtx:
    """The ctx API, shared by the backward node classes made for each Function."""

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        self._to_save_forward = tensors

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self._materialize = bool(value)

    @property
    def saved_tensors(self):
        slots = self._saved_slots
        if slots is None:
            return tuple(getattr(self, "_to_save", ()) or ())
        out = []
        for slot in slots:
            if slot is None:
                out.append(None)
            elif type(slot) is FreedSlot:
                raise _errors.freed(node=self, freed_by=self._freed_by)
            else:
                out.append(slot.unpack(self))
        return tuple(out)

    saved_variables = saved_tensors

    @property
    def needs_input_grad(self):
        return self._needs_input_grad


class BackwardCFunction(Node, FunctionCtx):
    """Base of the per-Function node classes (``MyExp`` -> ``MyExpBackward``)."""
    _forward_cls = None
    _saved_slots = None
    _needs_input_grad = ()
    _materialize = True
    _to_save = ()
    _dirty = ()
    _non_differentiable = ()

    def saved_items(self):
        return [(f"saved_tensors[{i}]", s) for i, s in enumerate(self._saved_slots or ())]

    def release_saved(self, freed_by=None):
        if self._saved_slots:
            self._saved_slots = [s.freed() if isinstance(s, SavedTensor) else s for s in self._saved_slots]
        self._freed_by = freed_by

    def _backward(self, grads):
        cls = self._forward_cls
        if self._materialize:
            grads = [g if g is not None else F.zeros(meta[0], dtype=_dtypes.FROM_NUMPY[meta[1]])
                     for g, meta in zip(grads, self._output_meta)]
        result = cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        expected = len(self._tensor_positions_all)
        if len(result) != expected:
            extra = result[expected:]
            if len(result) < expected or any(r is not None for r in extra):
                raise _errors.wrong_number_of_grads(self.name(), expected, len(result))
            result = result[:expected]
        outputs = []
        for k, position in enumerate(self._tensor_positions):
            g = result[position]
            meta = self._input_meta[k]
            if g is None or not self._needs[k]:
                outputs.append(None)
                continue
            if not F.is_tensor(g):
                raise TypeError(f"function {self.name()} returned a gradient different than None at position "
                                f"{position + 1}, but the corresponding forward input was not a Variable")
            if g._data.shape != meta[0]:
                if not expandable(meta[0], g._data.shape):
                    raise _errors.wrong_grad_shape(self.name(), k, g._data.shape, meta[0])
                g = F.sum_to_size(g, meta[0])
            outputs.append(g)
        return outputs


class Error(Node):
    """Stands in for a once_differentiable backward's outputs when a graph was requested
    (PyTorch's DelayedError, whose node is named Error)."""
    __module__ = "builtins"

    def name(self):
        return "torch::autograd::Error"

    def _backward(self, grads):
        raise _errors.once_differentiable_twice()


class FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        if name not in ("Function", "InplaceFunction", "NestedIOFunction"):
            cls._backward_cls = type(name + "Backward", (BackwardCFunction,),
                                     {"_forward_cls": cls, "__module__": "torch.autograd.function"})


class Function(metaclass=FunctionMeta):
    __module__ = "torch.autograd"

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
            "autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise _errors_func.fwad_function_no_jvp()

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        return _apply(cls, args, kwargs)


InplaceFunction = Function


def _apply(cls, args, kwargs):
    from .._tensor import Tensor
    node = cls._backward_cls()
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    node._tensor_positions = positions
    node._tensor_positions_all = list(range(len(args)))
    needs = tuple(isinstance(a, Tensor) and a._requires_grad and STATE.enabled for a in args)
    node._needs_input_grad = needs
    uses_setup_context = cls.setup_context is not Function.setup_context
    forward_grad = graph.FORWARD_AD is not None
    with no_grad(), forward_ad.suspended():  # PyTorch runs forward with forward grad off too
        if uses_setup_context:
            outputs = cls.forward(*args, **kwargs)
        else:
            outputs = cls.forward(node, *args, **kwargs)
    if uses_setup_context:
        cls.setup_context(node, args, outputs)
    is_tuple = isinstance(outputs, tuple)
    out_tuple = outputs if is_tuple else (outputs,)
    tracked = any(needs)
    dirty = set(map(id, node._dirty or ()))
    for t in node._dirty or ():
        if tracked and t._requires_grad and t._grad_fn is None:
            raise _errors.mark_dirty_leaf()
        t._vbox[0] += 1
    results = []
    for i, o in enumerate(out_tuple):
        if isinstance(o, Tensor) and id(o) not in dirty and any(o is a for a in args):
            # Returning an input unchanged: PyTorch returns a view of it.
            o = o.view_as(o)
        results.append(o)
    out_tensors = [o for o in results if isinstance(o, Tensor)]
    if forward_grad:
        forward_ad.function_jvp(cls, node, args, out_tensors)
    if tracked:
        node.next_functions = tuple(edge_of(args[i]) for i in positions)
        node._needs = tuple(needs[i] for i in positions)
        node._input_meta = tuple((args[i]._data.shape, args[i]._data.dtype) for i in positions)
        node._output_meta = tuple((o._data.shape, o._data.dtype) for o in out_tensors)
        node._site = creation_site(3)
        non_diff = set(map(id, node._non_differentiable or ()))
        for nr, o in enumerate(out_tensors):
            if id(o) in non_diff:
                continue
            o._grad_fn = node
            o._output_nr = nr
            o._requires_grad = True
        node._saved_slots = [_pack(t, out_tensors) for t in (node._to_save or ())]
        node._to_save = ()
        for listener in LISTENERS:
            listener.on_node(node, args, tuple(out_tensors))
    else:
        node._saved_slots = None
    return tuple(results) if is_tuple else results[0]


def _pack(t, outputs):
    if t is None:
        return None
    is_output = any(t is o for o in outputs)
    return SavedTensor.of_output(t) if is_output else SavedTensor.of_input(t)


def once_differentiable(fn):
    @functools.wraps(fn)
    def wrapper(ctx, *grads):
        with no_grad():
            outputs = fn(ctx, *grads)
        if not STATE.enabled:
            return outputs
        if not any(g is not None and g._requires_grad for g in grads):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        err = Error()
        err.next_functions = tuple(edge_of(g) for g in grads if g is not None)
        err._needs = tuple(True for _ in err.next_functions)
        wrapped = []
        for o in outs:
            if o is None:
                wrapped.append(None)
                continue
            o = o.detach()
            o._grad_fn, o._requires_grad = err, True
            wrapped.append(o)
        err._output_meta = tuple((o._data.shape, o._data.dtype) for o in wrapped if o is not None)
        return wrapped[0] if single else tuple(wrapped)
    return wrapper
