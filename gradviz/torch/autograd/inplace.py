"""In-place ops: PyTorch's checks, version bumps, and history rewriting.

An in-place op on a plain tensor gives it a new grad_fn whose ``self`` edge is the old
one. On a view, the base's history is rewritten with CopySlices (the op's node applied
to the viewed region of the base's gradient), and views of that base get an
AsStridedBackward0 node on their next use, as in PyTorch.
"""
import numpy as np

from .. import _errors, _meta, _ops
from .. import _tensor  # bound lazily: both import this module
from .._namespace import F
from .grad_mode import STATE
from .graph import _forward_in_float32, edge_of, integer_input, record
from .node import Node, SavedTensor


def _forward_checked(op, arrays, params, self):
    from .. import _dtypes, _kernels
    target = self._data
    if any(type(a) is _meta.MetaArray for a in arrays):
        return _forward_meta(op, arrays, params, target)
    for other in arrays[1:]:
        if type(other) is np.ndarray and np.may_share_memory(target, other) and not _same_layout(target, other) \
                and np.shares_memory(target, other):
            raise _errors.partial_overlap()
    if op.integers is not None and type(target) is np.ndarray and target.dtype.kind in "biu":
        arrays = [integer_input(op, arrays[0]), *arrays[1:]]  # then refused below if it became a float
    try:
        if target.dtype.kind == "V":  # bfloat16: a number is rounded to it, then all computes in float32
            out = np.asarray(_forward_in_float32(op, arrays, params))
        else:
            out = np.asarray(op.forward(*arrays, **params))
    except ValueError:
        if len(arrays) > 1:
            _kernels.broadcast_shapes(self._data.shape, np.shape(arrays[1]))
        raise
    if out.shape != self._data.shape:
        raise RuntimeError(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the broadcast "
                           f"shape [{', '.join(map(str, out.shape))}]")
    if out.dtype != self._data.dtype:
        wanted = _dtypes.result_type(arrays).np if op.promotes else out.dtype
        if not np.can_cast(wanted, self._data.dtype, "same_kind"):
            raise RuntimeError(f"result type {_type_word(wanted)} can't be cast to the desired output type "
                               f"{_type_word(self._data.dtype)}")
    if 0 in self._data.strides and self._data.size > 1:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a single "
                           "memory location. Please clone() the tensor before performing the operation.")
    return out


def _forward_meta(op, arrays, params, target):
    """An in-place op that meets the meta device. Into a meta tensor: the op runs for its
    shape and dtype checks, and nothing is written (a placeholder's one element stands for
    every element, which is not the overlap it would be on the CPU). Into a CPU tensor from
    a meta one: PyTorch's copy_ refuses, as there is nothing to copy; its other in-place ops
    leave the CPU tensor as it was."""
    if type(target) is not _meta.MetaArray:
        if op is _ops.copy:
            raise _errors.meta_no_data()
        return target
    if "generator" in params:  # a random fill: no values to draw, and the CPU stream is left alone
        return target
    out = op.forward(*arrays, **params)
    if np.shape(out) != target.shape:
        raise RuntimeError(f"output with shape [{', '.join(map(str, target.shape))}] doesn't match the broadcast "
                           f"shape [{', '.join(map(str, np.shape(out)))}]")
    return target


def _same_layout(a, b):
    """Exactly the same elements (x[0:2] = x[0:2] is allowed; a shifted overlap is not)."""
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.shape == b.shape
            and a.strides == b.strides)


def _check(self, grad_mode, needs_grad):
    if not grad_mode:
        return
    base = self._base
    if base is None:
        if self._requires_grad and self._grad_fn is None:
            raise _errors.inplace_on_leaf()
        return
    # View rules apply only when autograd has to track the change.
    if not (base._requires_grad or needs_grad):
        return
    if self._multi_output_view_of is not None:
        raise _errors.multi_output_view_inplace(*self._multi_output_view_of)
    if self._view_of_no_grad_view is not None and not self._view_created_in_no_grad:
        raise _errors.view_of_no_grad_view_inplace(*self._view_of_no_grad_view)
    if self._view_created_in_no_grad:
        raise _errors.view_in_no_grad_inplace()
    if base._requires_grad and base._grad_fn is None:
        raise _errors.inplace_on_view_of_leaf()


# forward_ad.inplace_tangent while a dual level is open (it sets and clears this), else None.
FORWARD_AD = None


def apply_inplace(op, self, inputs, params):
    if FORWARD_AD is not None:
        return FORWARD_AD(op, self, inputs, params, apply_inplace_plain)
    return apply_inplace_plain(op, self, inputs, params)


def apply_inplace_plain(op, self, inputs, params):
    Tensor = _tensor.Tensor
    grad_mode = STATE.enabled
    arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
    needs_grad = grad_mode and any(
        isinstance(inputs[i], Tensor) and inputs[i]._requires_grad for i in op.positions)
    _check(self, grad_mode, needs_grad)
    base = self._base
    tracks_base = grad_mode and base is not None and (base._requires_grad or needs_grad)
    before = None
    if needs_grad or tracks_base:
        before = _snapshot_before(op, self)
    out = _forward_checked(op, arrays, params, self)
    if out is not self._data:
        np.copyto(self._data, out, casting="unsafe")
    # Another view of the same storage read by this op (out[:, :1].copy_(out[:, -1:])) enters
    # the node with the history it had when the op began, as PyTorch takes edges before writing.
    current = [x for x in inputs[1:] if isinstance(x, Tensor) and x._base is not None and x._vbox is self._vbox
               and x._view_version == self._vbox[0]] if tracks_base or needs_grad else ()
    self._vbox[0] += 1
    for other in current:
        other._view_version = self._vbox[0]
    if self._inference and not STATE.inference:
        # PyTorch performs the update, then refuses it.
        raise _errors.inference_tensor_inplace()
    node = None
    if tracks_base:
        node = _rewrite_base(op, self, base, (before,) + tuple(inputs[1:]), params)
    elif needs_grad:
        node = record(op, (before,) + tuple(inputs[1:]), params, (self,))
    if node is not None:
        _saved_before_the_write(node, self)
        for other in inputs[1:]:
            if isinstance(other, Tensor) and other._base is not None and other._vbox is self._vbox:
                # It was regenerated against the history this op just replaced: once more on next use.
                other._view_version = -1
    return self


def _saved_before_the_write(node, target):
    """Another input of the op that aliases the written tensor (x.mul_(x)) was saved as it
    was before the write, as PyTorch saves inputs before running the kernel: so a later
    backward finds its version moved on and refuses, as PyTorch does."""
    for value in (node._saved or {}).values():
        if isinstance(value, SavedTensor) and not value.is_output and value.vbox is target._vbox:
            value.version = target._vbox[0] - 1


def _snapshot_before(op, self):
    """The tensor as it was: its old edge, and its old values if the op's formulas read them."""
    Tensor = _tensor.Tensor
    data = self._data
    if "self" in op.saved_names:
        data = data.copy()
    before = Tensor._make(data, self._grad_fn, [0])
    before._requires_grad = self._requires_grad
    before._output_nr = self._output_nr
    if self._base is not None:
        before._grad_fn, before._output_nr = edge_of(self)
        before._requires_grad = before._grad_fn is not None
    return before


def _type_word(dtype):
    return {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int", "bool": "Bool",
            "float16": "Half", "uint8": "Byte"}.get(dtype.name, dtype.name)


class CopySlices(Node):
    """Gradient of an in-place op on a view, seen from the base: the op's own node runs on
    the viewed region of the base's gradient; the rest of the gradient passes through."""
    __slots__ = ("fn", "view_chain", "base_shape", "base_contiguous")
    __module__ = "builtins"

    def name(self):
        return "torch::autograd::CopySlices"

    def release_saved(self, freed_by=None):
        self.fn.release_saved(freed_by)
        self._freed_by = freed_by

    def _backward(self, grads):
        Tensor = _tensor.Tensor
        from .engine import run_op_node
        if self._freed_by is not None:
            # PyTorch drops CopySlices' inner function after a pass, whatever it saved.
            raise _errors.freed(node=self, freed_by=self._freed_by)
        if STATE.enabled:
            return self._backward_recorded(grads[0])
        # the gradient laid out as the base is (PyTorch's new_empty_strided(base's strides)),
        # so that the view chain replays on it: a transposed gradient would not view as the base did
        result = np.array(grads[0]._data, copy=True, order="C" if self.base_contiguous else "K")
        region = _ops._replay(result, self.view_chain)
        inner = run_op_node(self.fn, [Tensor._make(np.array(region, copy=True))])
        region[...] = inner[0]._data if inner[0] is not None else 0
        return [Tensor._make(result)] + list(inner[1:])

    def _backward_recorded(self, grad):
        """With create_graph, PyTorch's steps as engine ops, so they are differentiable:
        copy the gradient, take the view's region, run the op's node on a copy of it, and
        write its result back into the region."""
        from .engine import run_op_node
        result = F.clone(grad, memory_format="contiguous" if self.base_contiguous else None)
        region = F.replay_view(result, self.view_chain)
        inner = run_op_node(self.fn, [F.clone(region)])
        if inner[0] is None:
            F.zero_(region)
        else:
            F.copy_(region, inner[0])
        return [result] + list(inner[1:])

    def saved_items(self):
        return self.fn.saved_items()


def _rewrite_base(op, view, base, inputs, params):
    Tensor = _tensor.Tensor
    fn = op.node_class()
    fn._op = op
    # The op's node, built as if on a standalone tensor, to reuse its saved slots and formulas.
    shadow = Tensor._make(view._data, None, view._vbox)
    record(op, inputs, params, (shadow,), node=fn)
    copy = CopySlices()
    copy.fn = fn
    copy.view_chain = view._view_chain
    copy.base_shape = base._data.shape
    copy.base_contiguous = base._data.flags.c_contiguous
    copy.next_functions = (_base_edge(base),) + fn.next_functions[1:]
    copy._needs = (copy.next_functions[0][0] is not None,) + fn._needs[1:]
    copy._input_meta = ((base._data.shape, base._data.dtype),) + fn._input_meta[1:]
    copy._output_meta = ((base._data.shape, base._data.dtype),)
    copy._site = fn._site
    base._grad_fn = copy
    base._output_nr = 0
    base._requires_grad = True
    regenerate_view(view)
    from .graph import LISTENERS
    for listener in LISTENERS:
        listener.on_node(copy, (base,) + tuple(inputs[1:]), (base,))
    return fn


def _base_edge(base):
    if base._grad_fn is not None:
        return (base._grad_fn, base._output_nr)
    if base._requires_grad:
        return edge_of(base)
    return (None, 0)


def regenerate_view(view):
    """Give a view whose base changed history an AsStridedBackward0 node on the base."""
    base = view._base
    view._view_version = view._vbox[0]
    if not base._requires_grad:
        return
    node = _ops.as_strided.node_class()
    node._op = _ops.as_strided
    record(_ops.as_strided, (base,), {"chain": view._view_chain, "self_sym_sizes": base._data.shape}, (view,),
           node=node)


def setitem(self, index, value):
    """PyTorch's __setitem__: the basic part of the index gives a view (or the tensor
    itself), written by copy_to; an advanced part makes one index_put_ on that view."""
    Tensor = _tensor.Tensor
    if not isinstance(value, Tensor):
        # PyTorch wraps a number in the tensor's dtype, so CopySlices gets an edge for it (None).
        value = F.scalar_tensor(value, self.dtype)
    if index is False:
        return
    sliced, advanced = F.apply_slicing(self, F.index_tuple(index))
    if not advanced:
        F.copy_to(sliced, value)
        return
    np_index = F.numpy_index(sliced._data.shape, advanced)
    value = F.strip_leading_ones(value)
    result_shape = np.broadcast_to(np.zeros((), dtype=np.int8), sliced._data.shape)[np_index].shape
    try:
        fits = np.broadcast_shapes(value._data.shape, result_shape) == result_shape
    except ValueError:
        fits = False
    if not fits:
        raise _errors.index_put_shape(value._data.shape, result_shape)
    apply_inplace(_ops.index_put, sliced, (sliced, value), {"indices": np_index})
