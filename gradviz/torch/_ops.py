"""THE op table: one entry per differentiable op.

Each entry says, in one place, what PyTorch's derivatives.yaml says for the op:
- the node name PyTorch gives it (``MulBackward0``),
- the forward kernel on numpy arrays (tensor inputs positional, options keyword-only),
- one gradient formula per differentiable input.

A formula's parameter names say what it reads, and so what the node saves:
``grad`` (or ``grads`` for multi-output ops), input names (``self``, ``other``),
``result`` (the output), and the op's options (``dim``, ``keepdim``, ...). Options no
formula reads only steer the forward and are not kept, as in PyTorch (``sum``'s ``dtype``);
``keeps=`` names the few PyTorch saves anyway (conv's ``transposed``). Formulas are
written with engine tensor ops, so with create_graph=True they build a graph themselves
(double backward for free). Broadcasting is undone by the engine, not here. As in
PyTorch, a complex input's gradient is grad times the conjugate derivative (``F.conj``,
which returns a real tensor itself, adding no node).
"""
import numpy as np

from . import _kernels as K
from . import _kernels_linalg as KLA
from . import _kernels_reduce as KR
from . import _kernels_rounded as KU
from . import _kernels_special as KS
from . import _random as R
from . import _errors, _errors_dtypes
from ._namespace import F  # formulas are written in engine functions, read at backward time
from .autograd.node import Node

_NODE_CLASSES = {}

# The op of each node name, filled as ops are declared; the first declaration wins where
# several share a name (MulBackward1), but the op users call wins over a backward's helper. Read by inspection (autograd.graph.formulas_of),
# never by the engine's own running: declaring an op is its only cost.
OPS_BY_NODE = {}


def not_implemented(what):
    """A formula ATen itself leaves unimplemented: raised when backward reaches it."""
    raise _errors.aten_derivative_not_implemented(what)


def derivative_not_implemented(what):
    """A formula PyTorch lists as not_implemented("..."): raised when backward reaches it."""
    raise _errors.derivative_not_implemented(what)


# Nodes written in C++ by hand in PyTorch report a namespaced name().
_NAMESPACED = {"CopyBackwards", "CopySlices", "AccumulateGrad", "Error", "NotImplemented"}


def node_class(name):
    """One Python class per node name, so ``type(t.grad_fn).__name__`` is PyTorch's."""
    cls = _NODE_CLASSES.get(name)
    if cls is None:
        attrs = {"__slots__": (), "__module__": "builtins"}
        if name in _NAMESPACED:
            attrs["name"] = lambda self, _n="torch::autograd::" + name: _n
        cls = _NODE_CLASSES[name] = type(name, (Node,), attrs)
    return cls


class OpMemo:
    """What the engine learns about an op while it runs, kept apart from what the op declares:
    caches, filled on first use and never part of the op's meaning."""
    __slots__ = ("plans", "raw", "raw_steps", "last_sig", "last_call")

    def __init__(self):
        self.plans = {}  # needs flags -> the slots to save (autograd/graph.py fills it)
        self.raw = Ellipsis  # array versions of the formulas, worked out on first use (autograd/raw.py)
        self.raw_steps = {}  # needs flags -> what the array formulas read (autograd/engine.py fills it)
        self.last_sig = None  # the facts (Node._sig) of the last node apply_unary/_binary made
        self.last_call = None  # ...and the caller's (code, instruction) when that was its site


class Op:
    """One entry of the op table, as derivatives.yaml has one: the forward kernel, the node's
    name and one gradient formula per differentiable input, keyed by the input's name. What a
    node saves follows from the formulas' parameters."""
    __slots__ = (
        # declared
        "node_name", "forward", "formulas", "view", "promotes", "arithmetic", "multi_output", "plain", "joint",
        "hidden", "formula_inputs", "integers", "number_in_op_math",
        # worked out from the declaration, once
        "node_class", "formula_args", "input_index", "positions", "variadic", "saved_names", "unread_options",
        "save_plan", "save_plan_used", "special",
        # learnt while running (OpMemo)
        "memo")

    def __init__(self, node_name, forward, /, view=False, promotes=False, arithmetic=False, multi_output=False,
                 keeps=(), plain=None, outputs=(), joint=False, hidden=(), integers=None, number_in_op_math=False,
                 **formulas):
        # -- declared
        self.node_name = node_name
        self.forward = forward
        self.formulas = tuple(formulas.values())
        self.formula_inputs = tuple(formulas)  # the differentiable inputs' names, in the formulas' order
        self.view = view
        self.promotes = promotes
        # The kernel is numpy arithmetic, where a Python float operand may come as a 0-d array
        # (K.scalar_as_array: same result, faster).
        self.arithmetic = arithmetic
        self.multi_output = multi_output
        # (kernel, options): with this very options dict the forward is just this numpy ufunc
        # (add with the shared alpha=1), which spares a Python frame with keywords.
        self.plain = plain
        # ``joint``: ATen computes every input's gradient in one backward kernel (the norms), so
        # its node saves every slot whenever any input needs a gradient.
        self.joint = joint
        # ``hidden`` names options our formulas read but PyTorch's node does not save (layer
        # norm's eps: ATen's backward reads the saved rstd instead): kept, never shown.
        self.hidden = frozenset(hidden)
        # ``integers``: what ATen does with an integer or bool tensor, where it differs from
        # computing on it as is (apply() follows it): "float" computes it as the default float
        # dtype (sin, exp, sigmoid: ATen's float ops); (kernel, kinds) raises the kernel's "not
        # implemented for" error for those numpy kinds ("b" bool, "iu" integers), or the error
        # the kernel's place holds, if it is a function. A numpy ufunc of one input with float
        # loops only is a float op unless declared otherwise.
        if integers is None and isinstance(forward, np.ufunc) and forward.nin == 1 and not any(
                loop[0] in "?bBhHiIlLqQ" for loop in forward.types):
            integers = "float"
        self.integers = integers
        # ``number_in_op_math``: ATen's kernel reads a second operand that is a number (a
        # Python float or a 0-d tensor) as its op math type, float32 for float16, where other
        # ops round it to the tensor's dtype first (mul and div do; add and sub do not).
        self.number_in_op_math = number_in_op_math

        # -- worked out from the declaration
        inputs, options, self.variadic = _signature(forward)
        self.node_class = node_class(node_name)
        self.formula_args = tuple(f.__code__.co_varnames[1:f.__code__.co_argcount] for f in self.formulas)
        self.input_index = {} if self.variadic else {name: i for i, name in enumerate(inputs)}
        # the differentiable inputs' positions, in the formulas' order
        self.positions = tuple({name: i for i, name in enumerate(inputs)}[name] for name in formulas)
        # A node keeps what its formulas read, as PyTorch's do: the inputs and outputs named in
        # them and those options; other options only steer the forward (sum's dtype, view's size).
        # ``keeps`` names options PyTorch saves although our formula does without them.
        self.saved_names = (frozenset(a for args in self.formula_args for a in args) | frozenset(keeps)) - self.hidden
        self.unread_options = frozenset(options) - self.saved_names - self.hidden
        # Per differentiable input: the (slot, input position, output index) its formula reads,
        # in declaration order so saved slots list the same way on every run. Outputs are
        # ``result``, ``result1``... unless ``outputs`` names them as PyTorch's node does.
        input_positions = {name: i for i, name in enumerate(inputs)}
        self.save_plan = tuple(
            tuple((name, -1 if self.variadic else input_positions.get(name, -1),
                   outputs.index(name) if name in outputs else
                   int(name[6:] or 0) if name.startswith("result") else -1)
                  for name in args if name not in options)
            for args in self.formula_args)
        self.save_plan_used = any(self.save_plan)
        self.special = view or multi_output  # results need more than a plain new tensor

        self.memo = OpMemo()
        first = OPS_BY_NODE.setdefault(node_name, self)
        if first.formula_inputs == ("grad",) and self.formula_inputs != ("grad",):
            # the first was a backward's own helper (index_put_zeros: the incoming gradient
            # scattered): the op users call, declared later, names the node
            OPS_BY_NODE[node_name] = self

    def __repr__(self):
        return f"<Op {self.node_name}>"


def _signature(forward):
    """(input names, option names, variadic) of a forward kernel: its positional parameters are
    the tensor inputs, its keyword-only ones the options. A forward taking *tensors (cat,
    stack) has one formula returning every input's gradient. A numpy ufunc is its own kernel
    (``np.sin``, ``np.multiply``; no Python frame around it), its inputs called ``self``, ``other``."""
    if isinstance(forward, np.ufunc):
        assert forward.nin in (1, 2), forward
        return ("self", "other")[:forward.nin], (), False
    code = forward.__code__
    variadic = bool(code.co_flags & 0x04)
    count, keywords = code.co_argcount, code.co_kwonlyargcount
    inputs = code.co_varnames[:count] + ((code.co_varnames[count + keywords],) if variadic else ())
    return inputs, code.co_varnames[count:count + keywords], variadic


# ---------------------------------------------------------------------------------------
# helpers used by formulas (engine ops only)
def _sum_to_dims(grad, dim, keepdim, sizes):
    """Gradient of a reduction over ``dim``: put the reduced dims back, then expand."""
    if not keepdim:
        for d in sorted(dim):
            grad = grad.unsqueeze(d)
    return grad.expand(sizes)


def _reduced_count(sizes, dim):
    n = 1
    for d in dim:
        n *= sizes[d]
    return n


def _where_selected(grad, self, result):
    """max/min over everything: the gradient is shared evenly among the tied elements."""
    mask = (self == result)
    return mask * (grad / mask.sum())


def mm_mat1_backward(grad, mat2, mat1_strides, alpha):
    """PyTorch's mm_mat1_backward: a column-major mat1 gets a column-major gradient,
    (mat2 @ grad^T)^T; any other mat1 the row-major grad @ mat2^H. The layout is what
    AccumulateGrad and hooks then see."""
    if mat1_strides[0] == 1 and mat1_strides[1] == grad.shape[0]:
        result = F.conj(mat2).mm(grad.t()).t()
    else:
        result = grad.mm(F.conj(mat2.t()))
    return result if alpha == 1 else result * _conj_number(alpha)


def mm_mat2_backward(grad, mat1, mat2_strides, alpha):
    """PyTorch's mm_mat2_backward: column-major (grad^T @ mat1)^T for a column-major mat2,
    else mat1^H @ grad."""
    if mat2_strides[0] == 1 and mat2_strides[1] == mat1.shape[1]:
        result = grad.t().mm(F.conj(mat1)).t()
    else:
        result = F.conj(mat1.t()).mm(grad)
    return result if alpha == 1 else result * _conj_number(alpha)


def _conj_number(value):
    return value.conjugate() if isinstance(value, complex) else value


def _invert(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


# ---------------------------------------------------------------------------------------
# arithmetic
ALPHA_ONE = {"alpha": 1}  # shared by every add/sub node with the default alpha (nothing writes to it)
add = Op("AddBackward0", lambda self, other, *, alpha: self + other if alpha == 1 else self + alpha * other,
         promotes=True, arithmetic=True, plain=(np.add, ALPHA_ONE),
         self=lambda grad: grad,
         other=lambda grad, alpha: grad if alpha == 1 else grad * alpha)
add_scalar = Op("AddBackward1", lambda self, other, *, alpha: self + (other if alpha == 1 else alpha * other),
                promotes=True, self=lambda grad: grad)
sub = Op("SubBackward0", lambda self, other, *, alpha: self - other if alpha == 1 else self - alpha * other,
         promotes=True, arithmetic=True,
         self=lambda grad: grad,
         other=lambda grad, alpha: -grad if alpha == 1 else grad * -alpha)
sub_scalar = Op("SubBackward1", lambda self, other, *, alpha: self - (other if alpha == 1 else alpha * other),
                promotes=True, self=lambda grad: grad)
rsub = Op("RsubBackward0", lambda self, other, *, alpha: other - self if alpha == 1 else other - alpha * self,
          promotes=True,
          self=lambda grad, alpha: -grad if alpha == 1 else grad * -alpha,
          other=lambda grad: grad)
rsub_scalar = Op("RsubBackward1", lambda self, other, *, alpha: other - (self if alpha == 1 else alpha * self),
                 promotes=True,
                 self=lambda grad, alpha: -grad if alpha == 1 else grad * -alpha)
mul = Op("MulBackward0", np.multiply, promotes=True, arithmetic=True, number_in_op_math=True,
         self=lambda grad, other: grad * F.conj(other),
         other=lambda grad, self: grad * F.conj(self))
div = Op("DivBackward0", lambda self, other: K.true_divide_arrays(self, other), promotes=True, arithmetic=True,
         number_in_op_math=True,  # (and see _promote)
         self=lambda grad, other: grad / F.conj(other),
         # PyTorch's div_tensor_other_backward, in its order: (self / other) / other never
         # overflows where other * other would
         other=lambda grad, self, other: -grad * F.conj((self / other) / other))
neg = Op("NegBackward0", lambda self: -self, self=lambda grad: -grad)
reciprocal = Op("ReciprocalBackward0", lambda self: K.true_divide_arrays(1, self),
                self=lambda grad, result: -grad * F.conj(result * result))
# C++ code multiplies and divides by a number through the Scalar overloads (MulBackward1);
# Python's ``t * 2`` wraps the number in a tensor instead (MulBackward0).
mul_scalar = Op("MulBackward1", lambda self, *, other: (self * other).astype(self.dtype, copy=False),
                self=lambda grad, other: grad * other)
div_scalar = Op("DivBackward1", lambda self, *, other: (self / other).astype(self.dtype, copy=False),
                self=lambda grad, other: grad / other)
pow_scalar = Op("PowBackward0", lambda self, *, exponent: K.power_arrays(self, exponent),
                self=lambda grad, self, exponent: (F.zeros_like(self) if exponent == 0 else
                                                   grad * F.conj(F.scalar_mul(self.pow(exponent - 1), exponent))))
pow_tensor = Op("PowBackward1", lambda self, exponent: K.power_arrays(self, exponent), promotes=True,
                self=lambda grad, self, exponent: F.where(exponent == 0, 0.0, grad * (
                    exponent * self.pow(F.scalar_sub(exponent, 1)))),
                exponent=lambda grad, self, result: grad * F.where(self == 0, 0.0, result * self.log()))
pow_scalar_base = Op("PowBackward2", lambda self, exponent: K.power_arrays(self, exponent), promotes=True,
                     # PyTorch's pow_backward_exponent: 0 ** x has gradient 0 where x >= 0
                     exponent=lambda grad, self, exponent, result: grad * (
                         F.where(exponent >= 0, 0.0, F.scalar_mul(result, float(np.log(self)))) if self == 0
                         else F.scalar_mul(result, float(np.log(self)))))

# ---------------------------------------------------------------------------------------
# linear algebra
mm = Op("MmBackward0", lambda self, mat2, *, self_sym_sizes, self_sym_strides, mat2_sym_sizes, mat2_sym_strides: self @ mat2,
        keeps=("self_sym_sizes", "mat2_sym_sizes"),  # (PyTorch's node keeps them for its meta)
        self=lambda grad, mat2, self_sym_strides: mm_mat1_backward(grad, mat2, self_sym_strides, 1),
        mat2=lambda grad, self, mat2_sym_strides: mm_mat2_backward(grad, self, mat2_sym_strides, 1))
mv = Op("MvBackward0", lambda self, vec: self @ vec,
        self=lambda grad, vec: grad.unsqueeze(1) * F.conj(vec.unsqueeze(0)),
        vec=lambda grad, self: F.conj(self.t()).mv(grad))
dot = Op("DotBackward0", lambda self, tensor: np.asarray(np.dot(self, tensor)),
         self=lambda grad, tensor: grad * F.conj(tensor),
         tensor=lambda grad, self: grad * F.conj(self))
bmm = Op("BmmBackward0", lambda self, mat2: KLA.bmm_arrays(self, mat2),
         self=lambda grad, mat2: grad.bmm(F.conj(mat2.transpose(1, 2))),
         mat2=lambda grad, self: F.conj(self.transpose(1, 2)).bmm(grad))
addmm = Op("AddmmBackward0",
           lambda self, mat1, mat2, *, beta, alpha, mat1_sym_strides, mat2_sym_strides: K.addmm_arrays(
               self, mat1, mat2, beta, alpha),
           self=lambda grad, beta: grad if beta == 1 else grad * beta,
           mat1=lambda grad, mat2, alpha, mat1_sym_strides: mm_mat1_backward(grad, mat2, mat1_sym_strides, alpha),
           mat2=lambda grad, mat1, alpha, mat2_sym_strides: mm_mat2_backward(grad, mat1, mat2_sym_strides, alpha))

# ---------------------------------------------------------------------------------------
# elementwise
exp = Op("ExpBackward0", KU.exp_array, integers="float",
         self=lambda grad, result: grad * F.conj(result))
log = Op("LogBackward0", np.log, self=lambda grad, self: grad / F.conj(self))
sin = Op("SinBackward0", np.sin, self=lambda grad, self: grad * F.conj(F.cos(self)))
cos = Op("CosBackward0", np.cos, self=lambda grad, self: grad * -F.conj(F.sin(self)))
tanh = Op("TanhBackward0", KU.tanh_array, integers="float",
          self=lambda grad, result: F.tanh_backward(grad, result))
sigmoid = Op("SigmoidBackward0", lambda self: K.sigmoid_array(self),
             self=lambda grad, result: F.sigmoid_backward(grad, result), integers="float")
# tanh's and sigmoid's backward as ops of their own, as in PyTorch: one kernel each, and
# their double backward records the nodes PyTorch's does.
tanh_backward = Op("TanhBackwardBackward0", K.tanh_backward_array,
                   grad_output=lambda grad, output: F.tanh_backward(grad, output),
                   output=lambda grad, grad_output, output: grad * (-2 * output * grad_output))
sigmoid_backward = Op("SigmoidBackwardBackward0", K.sigmoid_backward_array,
                      grad_output=lambda grad, output: F.sigmoid_backward(grad, output),
                      output=lambda grad, grad_output, output: grad * grad_output * (-2 * output + 1))
relu = Op("ReluBackward0", lambda self: K.relu_array(self), integers=(_errors_dtypes.relu_of_bool, "b"),
          self=lambda grad, result: F.threshold_backward(grad, result, 0))
# relu's backward as an op of its own: its output depends on the saved result, so with
# create_graph the first-order gradient requires grad even for a constant upstream gradient.
threshold_backward = Op("ThresholdBackwardBackward0",
                        lambda grad_output, self, *, threshold: K.threshold_backward_array(
                            grad_output, self, threshold),
                        grad_output=lambda grad, self, threshold: F.threshold_backward(grad, self, threshold),
                        self=lambda grad: F.zeros_like(grad))
sqrt = Op("SqrtBackward0", np.sqrt, self=lambda grad, result: grad / F.scalar_mul(F.conj(result), 2))
abs = Op("AbsBackward0", np.abs, integers=("abs_cpu", "b"), self=lambda grad, self: grad * F.sgn(self))  # noqa: A001
clamp = Op("ClampBackward1", lambda self, *, min, max: K.clamp_array(self, min, max),
           self=lambda grad, self, min, max: F.where(F.clamp_mask(self, min, max), grad, 0.0))
# Tensor bounds are differentiable: a bound gets the gradient where it was the value taken.
clamp_tensor = Op("ClampBackward0", lambda self, min, max: K.clamp_array(self, min, max), promotes=True,
                  self=lambda grad, self, min, max: F.where(F.clamp_mask(self, min, max), grad, 0.0),
                  min=lambda grad, self, min, max: F.where(F.clamp_min_taken(self, min, max), grad, 0.0),
                  max=lambda grad, self, min, max: F.where(F.clamp_max_taken(self, min, max), grad, 0.0))
clamp_min = Op("ClampMinBackward0", lambda self, *, min: K.clamp_array(self, min, None),
               self=lambda grad, self, min: F.where(self >= min, grad, 0.0))
clamp_min_tensor = Op("ClampMinBackward1", lambda self, min: K.clamp_array(self, min, None), promotes=True,
                      self=lambda grad, self, min: F.where(self >= min, grad, 0.0),
                      min=lambda grad, self, min: F.where(self < min, grad, 0.0))
clamp_max = Op("ClampMaxBackward0", lambda self, *, max: K.clamp_array(self, None, max),
               self=lambda grad, self, max: F.where(self <= max, grad, 0.0))
clamp_max_tensor = Op("ClampMaxBackward1", lambda self, max: K.clamp_array(self, None, max), promotes=True,
                      self=lambda grad, self, max: F.where(self <= max, grad, 0.0),
                      max=lambda grad, self, max: F.where(self > max, grad, 0.0))
# Copies keep the input's memory layout (PyTorch's preserve_format), which decides later
# whether a reshape can be a view.
clone = Op("CloneBackward0", lambda self, *, memory_format: np.array(
    self, copy=True, order="C" if memory_format == "contiguous" else "K"), self=lambda grad: grad)
to_copy = Op("ToCopyBackward0", lambda self, *, dtype: (  # complex to real keeps the real part, without numpy's warning
    self.real if self.dtype.kind == "c" and dtype.np.kind != "c" else self).astype(dtype.np),
             self=lambda grad: grad)  # the engine casts it back to the input's dtype; nothing is saved

# ---------------------------------------------------------------------------------------
# reductions
# A ``dtype`` argument converts inside the reduction (no ToCopyBackward0 node, as in PyTorch);
# the engine casts the gradient back to the input's dtype.
# Floating sums add in PyTorch's CPU order (KR.cascade_sum), so they round as PyTorch's do;
# a mean is that sum divided, as on PyTorch's CPU.
sum_all = Op("SumBackward0", lambda self, *, self_sym_sizes, dtype: np.asarray(KR.cascade_sum(
    self.astype(K.sum_dtype(self, dtype), copy=False))),
             self=lambda grad, self_sym_sizes: F.expand(grad, self_sym_sizes))
sum_dim = Op("SumBackward1",
             lambda self, *, dim, keepdim, self_sym_sizes, dtype: np.asarray(
                 KR.cascade_sum(self.astype(K.sum_dtype(self, dtype), copy=False), dim, keepdim)),
             self=lambda grad, dim, keepdim, self_sym_sizes: _sum_to_dims(grad, dim, keepdim, self_sym_sizes))
mean_all = Op("MeanBackward0", lambda self, *, self_sym_sizes, self_sym_numel, dtype: np.asarray(
    KR.cascade_mean(K.cast(self, dtype))),
              self=lambda grad, self_sym_sizes, self_sym_numel: F.expand(grad, self_sym_sizes) / self_sym_numel)
mean_dim = Op("MeanBackward1",
              lambda self, *, dim, keepdim, self_sym_sizes, self_sym_numel, dtype: np.asarray(
                  KR.cascade_mean(K.cast(self, dtype), dim, keepdim)),
              self=lambda grad, dim, keepdim, self_sym_sizes, self_sym_numel: (  # PyTorch's mean_backward
                  _sum_to_dims(grad, dim, keepdim, self_sym_sizes) / (_reduced_count(self_sym_sizes, dim) if dim
                                                                      else self_sym_numel)))
max_all = Op("MaxBackward1", lambda self: np.asarray(self.max()), self=_where_selected)
min_all = Op("MinBackward1", lambda self: np.asarray(self.min()), self=_where_selected)
max_dim = Op("MaxBackward0", lambda self, *, dim, keepdim, self_sym_sizes: K.extreme_dim(np.argmax, self, dim, keepdim),
             multi_output=True,
             self=lambda grads, dim, keepdim, self_sym_sizes, result1:
                 F.value_selecting_backward(grads[0], dim, result1, self_sym_sizes, keepdim))
min_dim = Op("MinBackward0", lambda self, *, dim, keepdim, self_sym_sizes: K.extreme_dim(np.argmin, self, dim, keepdim),
             multi_output=True,
             self=lambda grads, dim, keepdim, self_sym_sizes, result1:
                 F.value_selecting_backward(grads[0], dim, result1, self_sym_sizes, keepdim))

# ---------------------------------------------------------------------------------------
# views and shape ops
view = Op("ViewBackward0", lambda self, *, size, self_sym_sizes: K.view_array(self, size), view=True,
          self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))
reshape_alias = Op("ReshapeAliasBackward0", lambda self, *, size, self_sym_sizes: K.view_array(self, size), view=True,
                   self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))
unsafe_view = Op("UnsafeViewBackward0", lambda self, *, size, self_sym_sizes: self.reshape(size),
                 self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))
t = Op("TBackward0", lambda self: self.T, view=True, self=lambda grad: grad.t())
permute = Op("PermuteBackward0", lambda self, *, dims: self.transpose(dims), view=True,
             self=lambda grad, dims: grad.permute(_invert(dims)))
transpose = Op("TransposeBackward0", lambda self, *, dim0, dim1: np.swapaxes(self, dim0, dim1), view=True,
               self=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))
unsqueeze = Op("UnsqueezeBackward0", lambda self, *, dim: K.unsqueeze_array(self, dim), view=True,
               self=lambda grad, dim: grad.squeeze(dim))
squeeze_all = Op("SqueezeBackward0", lambda self, *, self_sym_sizes: self.reshape(
    [s for s in self.shape if s != 1]), view=True,
    self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))
squeeze_dims = Op("SqueezeBackward2", lambda self, *, dim, self_sym_sizes: np.squeeze(
    self, tuple(d for d in dim if self.shape[d] == 1)), view=True, keeps=("dim",),
    self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))
squeeze_inplace_dim = Op("SqueezeBackward4", lambda self, *, dim, self_sym_sizes: np.squeeze(self, dim), view=True,
                         keeps=("self_sym_sizes",), self=lambda grad, dim: grad.unsqueeze(dim))
squeeze_dim = Op("SqueezeBackward1", lambda self, *, dim, self_sym_sizes: (
    np.squeeze(self, dim) if self.shape[dim] == 1 else self[...]), view=True,
    self=lambda grad, dim, self_sym_sizes: grad.unsqueeze(dim) if self_sym_sizes[dim] == 1 else grad)
expand = Op("ExpandBackward0", lambda self, *, size, self_sym_sizes: K.expand_array(self, size), view=True,
            self=lambda grad, self_sym_sizes: F.sum_to_size(grad, self_sym_sizes))
# The trailing Ellipsis keeps numpy returning a (0-d) view rather than a scalar copy.
select = Op("SelectBackward0", lambda self, *, dim, index, self_sym_sizes: self[(slice(None),) * dim + (index, Ellipsis)],
            view=True,
            self=lambda grad, dim, index, self_sym_sizes: F.embed_in_zeros(
                grad, self_sym_sizes, (slice(None),) * dim + (index,)))
slice_op = Op("SliceBackward0",
              lambda self, *, dim, start, end, step, self_sym_sizes: self[(slice(None),) * dim + (slice(start, end, step),)],
              view=True,
              self=lambda grad, dim, start, end, step, self_sym_sizes: F.embed_in_zeros(
                  grad, self_sym_sizes, (slice(None),) * dim + (slice(start, end, step),)))
index = Op("IndexBackward0", lambda self, *, indices, self_sym_sizes: self[indices],
           self=lambda grad, indices, self_sym_sizes: F.embed_in_zeros(grad, self_sym_sizes, indices, accumulate=True))
# The backward of indexing, differentiable again (its gradient is indexing).
index_put_zeros = Op("IndexPutBackward0", lambda grad, *, sizes, indices, accumulate: K.scatter_into_zeros(
    grad, sizes, indices, accumulate),
    grad=lambda grad, indices: grad[indices], keeps=('accumulate', 'sizes'))

# ---------------------------------------------------------------------------------------
# selection, copies and fills
where = Op("WhereBackward0", lambda condition, self, other: K.where_arrays(condition, self, other),
           self=lambda grad, condition: F.where(condition, grad, 0.0),
           other=lambda grad, condition: F.where(condition, 0.0, grad))
maximum = Op("MaximumBackward0", lambda self, other: K.extreme_of_two(np.maximum, self, other), promotes=True,
             self=lambda grad, self, other: F.where(self == other, grad / 2, grad).masked_fill(self < other, 0.0),
             other=lambda grad, self, other: F.where(self == other, grad / 2, grad).masked_fill(self > other, 0.0))
minimum = Op("MinimumBackward0", lambda self, other: K.extreme_of_two(np.minimum, self, other), promotes=True,
             self=lambda grad, self, other: F.where(self == other, grad / 2, grad).masked_fill(self > other, 0.0),
             other=lambda grad, self, other: F.where(self == other, grad / 2, grad).masked_fill(self < other, 0.0))
gather = Op("GatherBackward0", lambda self, *, dim, index, self_sym_sizes: np.take_along_axis(self, index, axis=dim),
            self=lambda grad, self_sym_sizes, dim, index: F.scatter_into_zeros(grad, self_sym_sizes, dim, index))
scatter_zeros = Op("ScatterBackward0", lambda grad, *, sizes, dim, index: K.scatter_dim_into_zeros(grad, sizes, dim, index),
                   grad=lambda grad, dim, index: F.gather(grad, dim, F.from_numpy(index)), keeps=("sizes",))
masked_fill = Op("MaskedFillBackward0", lambda self, *, mask, value: np.where(mask, value, self).astype(self.dtype),
                 self=lambda grad, mask: F.masked_fill(grad, mask, 0.0))
# A 0-dim tensor value is differentiable: it receives the gradient of every filled place.
masked_fill_tensor = Op("MaskedFillBackward1",
                        lambda self, value, *, mask: np.where(mask, value, self).astype(self.dtype),
                        self=lambda grad, mask: F.masked_fill(grad, mask, 0.0),
                        value=lambda grad, mask: F.where(F.from_numpy(mask), grad, 0.0).sum())
alias = Op("AliasBackward0", lambda self: self.view(), view=True, self=lambda grad: grad)
zero = Op("ZeroBackward0", lambda self: np.zeros_like(self), self=lambda grad: F.zeros_like(grad))
fill = Op("FillBackward2", lambda self, *, value: np.full_like(self, value), self=lambda grad: F.zeros_like(grad))
# fill_ with a 0-dim tensor: the value is differentiable, it receives every element's gradient.
fill_tensor = Op("FillBackward3", lambda self, value: np.full_like(self, value), self=lambda grad: F.zeros_like(grad),
                 value=lambda grad: grad.sum())
# copy_ saves no tensor (only the source's dtype): changing the source later is fine.
copy = Op("CopyBackwards", lambda self, src, *, src_dtype: np.broadcast_to(src, self.shape).astype(self.dtype),
          self=lambda grad: F.zeros_like(grad),
          src=lambda grad, src_dtype: grad.to(src_dtype))


def _replay(array, chain):
    """Re-apply a view's recorded chain of view kernels to another array of the base's shape."""
    for op, params in chain:
        array = op.forward(array, **params)
    return array


as_strided = Op("AsStridedBackward0", lambda self, *, chain, self_sym_sizes: _replay(self, chain), view=True,
                self=lambda grad, chain, self_sym_sizes: F.embed_view(grad, self_sym_sizes, chain))
as_strided_scatter = Op("AsStridedScatterBackward0",
                        lambda grad, *, chain, sizes: K.embed_view_array(grad, sizes, chain, _replay),
                        grad=lambda grad, chain: F.replay_view(grad, chain), keeps=("sizes",))
index_put = Op("IndexPutBackward0", lambda self, values, *, indices: K.index_put_array(self, values, indices),
               self=lambda grad, indices: F.masked_fill(grad, K.index_mask(grad.shape, indices), 0.0),
               values=lambda grad, indices: grad[indices])

# ---------------------------------------------------------------------------------------
# more elementwise math (issue 3): rounding ops have zero gradient, as in PyTorch
_zero_grad = lambda grad: F.zeros_like(grad)  # noqa: E731
log1p = Op("Log1PBackward0", np.log1p, self=lambda grad, self: grad / F.scalar_add(self, 1))
expm1 = Op("Expm1Backward0", KU.expm1_array, integers="float",
           self=lambda grad, result: grad * F.scalar_add(result, 1))
rsqrt = Op("RsqrtBackward0", lambda self: K.rsqrt_array(self),
           self=lambda grad, result: F.scalar_mul(grad, -0.5) * result.pow(3), integers="float")
floor = Op("FloorBackward0", np.floor, integers=("floor_vml_cpu", "b"), self=_zero_grad)
ceil = Op("CeilBackward0", np.ceil, integers=("ceil_vml_cpu", "b"), self=_zero_grad)
round = Op("RoundBackward0", lambda self: np.round(self), integers=("round_vml_cpu", "b"), self=_zero_grad)  # noqa: A001
round_decimals = Op("RoundBackward1", lambda self, *, decimals: np.round(self, decimals), self=_zero_grad)
trunc = Op("TruncBackward0", np.trunc, integers=("trunc_vml_cpu", "b"), self=_zero_grad)
sign = Op("SignBackward0", lambda self: K.sign_array(self), self=_zero_grad)
sgn = Op("SgnBackward0", lambda self: K.sign_array(self), self=_zero_grad)
frac = Op("FracBackward0", lambda self: self - np.trunc(self), integers=("frac_cpu", "biu"), self=lambda grad: grad)
tan = Op("TanBackward0", np.tan, self=lambda grad, result: grad * F.scalar_add(result.pow(2), 1))
asin = Op("AsinBackward0", np.arcsin, self=lambda grad, self: grad * F.scalar_add(-self * self, 1).rsqrt())
acos = Op("AcosBackward0", np.arccos, self=lambda grad, self: grad * -F.scalar_add(-self * self, 1).rsqrt())
atan = Op("AtanBackward0", np.arctan, self=lambda grad, self: grad / F.scalar_add(self * self, 1))
sinh = Op("SinhBackward0", np.sinh, self=lambda grad, self: grad * self.cosh())
cosh = Op("CoshBackward0", np.cosh, self=lambda grad, self: grad * self.sinh())
log2 = Op("Log2Backward0", np.log2, self=lambda grad, self: grad / F.scalar_mul(self, 0.6931471805599453))
log10 = Op("Log10Backward0", np.log10, self=lambda grad, self: grad / F.scalar_mul(self, 2.302585092994046))
erf = Op("ErfBackward0", lambda self: K.erf_array(self),
         self=lambda grad, self: F.scalar_mul((-self.pow(2)).exp(), 1.1283791670955126) * grad, integers="float")
erfinv = Op("ErfinvBackward0", lambda self: KS.erfinv_array(self),
            self=lambda grad, self: F.scalar_mul(F.exp(self.erfinv().pow(2)), 0.886226925452758) * grad, integers="float")
# At (0, 0) PyTorch gives a zero gradient rather than 0/0.
atan2 = Op("Atan2Backward0", lambda self, other: np.arctan2(self, other), promotes=True,
           self=lambda grad, self, other: grad * F.where(self * self + other * other == 0, 0.0,
                                                         other / (self * self + other * other)),
           other=lambda grad, self, other: -grad * F.where(self * self + other * other == 0, 0.0,
                                                           self / (self * self + other * other)))
nan_to_num = Op("NanToNumBackward0", lambda self, *, nan, posinf, neginf: np.nan_to_num(
    self, nan=nan, posinf=posinf, neginf=neginf), self=lambda grad, self: grad * self.isfinite())

# ---------------------------------------------------------------------------------------
# more reductions
norm = Op("LinalgVectorNormBackward0",
          lambda self, *, ord, dim, keepdim: K.vector_norm(self, ord, dim, keepdim),
          self=lambda grad, self, ord, dim, keepdim, result: F.norm_backward(grad, self, ord, dim, keepdim, result))
var = Op("VarBackward0", lambda self, *, dim, correction, keepdim: K.var_array(self, dim, correction, keepdim),
         self=lambda grad, self, dim, correction, keepdim: F.var_backward(grad, self, dim, correction, keepdim))
std = Op("StdBackward0",
         lambda self, *, dim, correction, keepdim: np.sqrt(K.var_array(self, dim, correction, keepdim)),
         self=lambda grad, self, dim, correction, keepdim, result: F.var_backward(
             F.where(result == 0, 0.0, grad / (result * 2)), self, dim, correction, keepdim))
prod_all = Op("ProdBackward0", lambda self, *, dtype: np.asarray(self.prod(dtype=K.sum_dtype(self, dtype))),
              self=lambda grad, self, result: F.prod_backward(grad, self, result, None, False))
prod_dim = Op("ProdBackward1", lambda self, *, dim, keepdim, dtype: self.prod(axis=dim, keepdims=keepdim,
                                                                              dtype=K.sum_dtype(self, dtype)),
              self=lambda grad, self, dim, keepdim, result: F.prod_backward(grad, self, result, dim, keepdim))
cumsum = Op("CumsumBackward0", lambda self, *, dim, dtype: np.cumsum(self, axis=dim, dtype=K.sum_dtype(self, dtype)),
            self=lambda grad, dim: grad.flip(dim).cumsum(dim).flip(dim))
cumprod = Op("CumprodBackward0",
             lambda self, *, dim, dtype: np.cumprod(self, axis=dim, dtype=K.sum_dtype(self, dtype)),
             self=lambda grad, self, dim, result: F.cumprod_backward(grad, self, dim, result))
logsumexp = Op("LogsumexpBackward0", lambda self, *, dim, keepdim: K.logsumexp_array(self, dim, keepdim),
               self=lambda grad, self, dim, keepdim, result: (grad if keepdim else F.unsqueeze_dims(grad, dim))
               * (self - (result if keepdim else F.unsqueeze_dims(result, dim))).exp())
amax = Op("AmaxBackward0", lambda self, *, dim, keepdim: np.amax(self, axis=dim, keepdims=keepdim),
          self=lambda grad, self, dim, keepdim, result: F.spread_to_ties(grad, self, dim, keepdim, result))
amin = Op("AminBackward0", lambda self, *, dim, keepdim: np.amin(self, axis=dim, keepdims=keepdim),
          self=lambda grad, self, dim, keepdim, result: F.spread_to_ties(grad, self, dim, keepdim, result))

# ---------------------------------------------------------------------------------------
# joining and splitting
# numpy lays a join of transposed arrays out transposed; PyTorch's result is contiguous
cat = Op("CatBackward0", lambda *tensors, dim, sizes: np.ascontiguousarray(np.concatenate(tensors, axis=dim)),
         hidden=("sizes",),
         tensors=lambda grad, dim, sizes: F.cat_backward(grad, sizes, dim))
stack = Op("StackBackward0", lambda *tensors, dim: np.ascontiguousarray(np.stack(tensors, axis=dim)),
           tensors=lambda grad, dim: grad.unbind(dim))
split = Op("SplitBackward0", lambda self, *, split_size, dim, self_sym_sizes: K.split_array(self, split_size, dim),
           view=True, multi_output=True, keeps=("split_size", "self_sym_sizes"),
           self=lambda grads, dim: F.cat(grads, dim))
split_with_sizes = Op("SplitWithSizesBackward0",
                      lambda self, *, split_sizes, dim, self_sym_sizes: K.split_array(self, split_sizes, dim),
                      view=True, multi_output=True, keeps=("split_sizes", "self_sym_sizes"),
                      self=lambda grads, dim: F.cat(grads, dim))
unbind = Op("UnbindBackward0", lambda self, *, dim: tuple(np.moveaxis(self, dim, 0)), view=True, multi_output=True,
            self=lambda grads, dim: F.stack(grads, dim))
repeat = Op("RepeatBackward0", lambda self, *, repeats, self_sym_sizes: np.tile(self, repeats),
            self=lambda grad, repeats, self_sym_sizes: F.repeat_backward(grad, repeats, self_sym_sizes))
flip = Op("FlipBackward0", lambda self, *, dims: K.copy_like(np.flip(self, dims), self), self=lambda grad, dims: grad.flip(dims))
roll = Op("RollBackward0", lambda self, *, shifts, dims: np.roll(self, shifts, dims),
          self=lambda grad, shifts, dims: grad.roll(tuple(-s for s in shifts), dims))
tril = Op("TrilBackward0", lambda self, *, diagonal: np.tril(self, diagonal), self=lambda grad, diagonal: grad.tril(diagonal))
triu = Op("TriuBackward0", lambda self, *, diagonal: np.triu(self, diagonal), self=lambda grad, diagonal: grad.triu(diagonal))
index_select = Op("IndexSelectBackward0",
                  lambda self, *, dim, index, self_sym_sizes: np.take(self, index, axis=dim),
                  self=lambda grad, dim, index, self_sym_sizes: F.embed_in_zeros(
                      grad, self_sym_sizes, (slice(None),) * dim + (index,), accumulate=True))

sort = Op("SortBackward0", lambda self, *, dim, descending, self_sym_sizes: K.sort_array(self, dim, descending),
          multi_output=True,
          self=lambda grads, dim, self_sym_sizes, result1: F.scatter_into_zeros(grads[0], self_sym_sizes, dim,
                                                                                 result1._data))
topk = Op("TopkBackward0", lambda self, *, k, dim, largest, self_sym_sizes: K.topk_array(self, k, dim, largest),
          multi_output=True,
          self=lambda grads, dim, self_sym_sizes, result1: F.scatter_into_zeros(grads[0], self_sym_sizes, dim,
                                                                                 result1._data))
trace = Op("TraceBackward0", lambda self, *, self_sym_sizes: np.asarray(np.trace(  # integers sum as int64
    self, dtype=np.int64 if self.dtype.kind in "iu" else None)),
           self=lambda grad, self_sym_sizes: F.eye(*self_sym_sizes, dtype=grad.dtype) * grad)
lerp = Op("LerpBackward0", lambda self, end, *, weight: K.lerp_array(self, end, weight), promotes=True,
          self=lambda grad, weight: grad * (1 - weight),
          end=lambda grad, weight: grad * weight)
addcmul = Op("AddcmulBackward0",
             lambda self, tensor1, tensor2, *, value: K.addcmul_array(self, tensor1, tensor2, value),
             promotes=True,
             self=lambda grad: grad,
             tensor1=lambda grad, tensor2, value: grad * tensor2 * value,
             tensor2=lambda grad, tensor1, value: grad * tensor1 * value)
addcdiv = Op("AddcdivBackward0", lambda self, tensor1, tensor2, *, value: self + value * tensor1 / tensor2,
             promotes=True,
             self=lambda grad: grad,
             tensor1=lambda grad, tensor2, value: grad * value / tensor2,
             tensor2=lambda grad, tensor1, tensor2, value: -grad * value * tensor1 / (tensor2 * tensor2))
div_rounding = Op("DivBackward2", lambda self, other, *, rounding_mode: K.rounded_divide(self, other, rounding_mode),
                  promotes=True,
                  # PyTorch's div_tensor_{self,other}_backward: zero once the quotient is rounded
                  self=lambda grad, other, rounding_mode: (
                      grad / other if rounding_mode is None else F.zeros_like(grad / other)),
                  other=lambda grad, self, other, rounding_mode: (
                      -grad * ((self / other) / other) if rounding_mode is None else F.zeros_like(grad * other)))
remainder = Op("RemainderBackward0", lambda self, *, other: K.remainder(self, other), self=lambda grad: grad)
remainder_tensor = Op("RemainderBackward1", lambda self, other: K.remainder(self, other), promotes=True,
                      self=lambda grad: grad,
                      other=lambda grad, self, other: -grad * (self / other).floor())
fmod = Op("FmodBackward0", lambda self, *, other: K.fmod(self, other), self=lambda grad: grad)
fmod_tensor = Op("FmodBackward1", lambda self, other: K.fmod(self, other), promotes=True,
                 self=lambda grad: grad,
                 other=lambda grad, self, other: -grad * F.div(self, other, rounding_mode="trunc"))
# PyTorch has no derivative for floor_divide: its node raises when reached.
floor_divide = Op("NotImplemented", lambda self, other: K.rounded_divide(self, other, "floor"), promotes=True,
                  self=lambda grad: not_implemented("floor_divide"),
                  other=lambda grad: not_implemented("floor_divide"))

# ---------------------------------------------------------------------------------------
# special functions (kernels in _kernels_special); PyTorch has no derivative w.r.t. the
# first argument of igamma / igammac / zeta: those formulas raise when backward reaches them.
lgamma = Op("LgammaBackward0", lambda self: KS.lgamma_array(self), self=lambda grad, self: grad * F.digamma(self),
            integers="float")
digamma = Op("DigammaBackward0", lambda self: KS.digamma_array(self),
             self=lambda grad, self: grad * F.polygamma(1, self), integers="float")
polygamma = Op("PolygammaBackward0", lambda self, *, n: KS.polygamma_array(n, self),
               self=lambda grad, n, self: grad * F.polygamma(n + 1, self))
_igamma_density = lambda self, other: ((self - 1) * other.log() - other - F.lgamma(self)).exp()  # noqa: E731
igamma = Op("IgammaBackward0", lambda self, other: KS.igamma_array(self, other), promotes=True,
            self=lambda grad: derivative_not_implemented("igamma: input"),
            other=lambda grad, self, other: grad * _igamma_density(self, other))
igammac = Op("IgammacBackward0", lambda self, other: KS.igammac_array(self, other), promotes=True,
             self=lambda grad: derivative_not_implemented("igammac: input"),
             other=lambda grad, self, other: -grad * _igamma_density(self, other))
zeta = Op("SpecialZetaBackward0", lambda self, other: KS.zeta_array(self, other), promotes=True,
          self=lambda grad: derivative_not_implemented("zeta"),
          other=lambda grad, self, other: grad * -self * F.zeta(self + 1.0, other))
zeta_scalar_self = Op("SpecialZetaBackward1", lambda other, *, self: KS.zeta_array(self, other),
                      other=lambda grad, self, other: grad * -self * F.zeta(self + 1.0, other))
zeta_scalar_other = Op("SpecialZetaBackward2", lambda self, *, other: KS.zeta_array(self, other),
                       self=lambda grad: derivative_not_implemented("zeta"), keeps=("other",))
lerp_tensor = Op("LerpBackward1", lambda self, end, weight: K.lerp_array(self, end, weight), promotes=True,
                 self=lambda grad, weight: grad * (1 - weight),
                 end=lambda grad, weight: grad * weight,
                 weight=lambda grad, self, end: grad * (end - self))

# ---------------------------------------------------------------------------------------
# random fills (in place) and draws: the values do not depend on the old ones, so the
# gradient w.r.t. them is zero, as PyTorch's formulas say. The numbers are PyTorch's
# (_random), drawn in the order ATen visits the tensor's memory.
def _filled(self, values):
    return R.in_memory_order(self, values).astype(self.dtype, copy=False)


uniform_fill = Op("UniformBackward0", lambda self, *, low, high, generator: _filled(
    self, R.uniform(generator, self.size, self.dtype, low, high)), self=_zero_grad)
normal_fill = Op("NormalBackward0", lambda self, *, mean, std, generator: _filled(
    self, R.normal(generator, self.size, self.dtype, mean, std, self.flags.c_contiguous)), self=_zero_grad)
bernoulli_fill = Op("BernoulliBackward2", lambda self, *, p, generator: _filled(
    self, R.bernoulli_scalar(generator, self.size, p)), self=_zero_grad)
bernoulli_fill_tensor = Op("BernoulliBackward1", lambda self, p, *, generator: _filled(
    self, R.bernoulli_tensor(generator, R.in_visiting_order(self, np.broadcast_to(p, self.shape)))),
    self=_zero_grad, p=_zero_grad)
exponential_fill = Op("ExponentialBackward0", lambda self, *, lambd, generator: _filled(
    self, R.exponential(generator, self.size, lambd)), self=_zero_grad)
cauchy_fill = Op("CauchyBackward0", lambda self, *, median, sigma, generator: _filled(
    self, R.cauchy(generator, self.size, median, sigma)), self=_zero_grad)
log_normal_fill = Op("LogNormalBackward0", lambda self, *, mean, std, generator: _filled(
    self, R.log_normal(generator, self.size, mean, std)), self=_zero_grad)
geometric_fill = Op("GeometricBackward0", lambda self, *, p, generator: _filled(
    self, R.geometric(generator, self.size, p)), self=_zero_grad)
random_fill_range = Op("RandomBackward0", lambda self, *, low, to, generator: _filled(
    self, R.random_integers(generator, self.size, self.dtype, low, to)), self=_zero_grad)
random_fill_to = Op("RandomBackward1", lambda self, *, to, generator: _filled(
    self, R.random_integers(generator, self.size, self.dtype, 0, to)), self=_zero_grad)
random_fill_full = Op("RandomBackward2", lambda self, *, generator: _filled(
    self, R.random_default(generator, self.size, self.dtype)), self=_zero_grad)
# bernoulli(input): a new tensor drawn with input's values as probabilities.
bernoulli = Op("BernoulliBackward0", lambda self, *, generator: R.bernoulli_tensor(
    generator, np.ascontiguousarray(self).reshape(-1)).reshape(self.shape).astype(self.dtype), self=_zero_grad)
# bernoulli(input, p) has no derivative in PyTorch: its node raises when reached.
bernoulli_p = Op("NotImplemented", lambda self, *, p, generator: R.bernoulli_scalar(
    generator, self.size, p).reshape(self.shape).astype(self.dtype), self=lambda grad: not_implemented("bernoulli"))
# normal(mean, std) with a tensor mean and/or std: ATen draws normal(0, std) and adds the
# mean, or draws normal(0, 1), multiplies by std and adds the mean.
normal_tensor_float = Op("NormalBackward1", lambda mean, *, std, generator, mean_sym_sizes: (
    R.normal(generator, mean.size, mean.dtype, 0.0, std).reshape(mean.shape) + mean).astype(mean.dtype),
    mean=lambda grad, mean_sym_sizes: F.zeros(mean_sym_sizes, dtype=grad.dtype))
normal_float_tensor = Op("NormalBackward2", lambda std, *, mean, generator, std_sym_sizes: R.scale_and_shift(
    R.normal(generator, std.size, std.dtype), np.shape(std), std, mean, std.dtype),
    std=lambda grad, std_sym_sizes: F.zeros(std_sym_sizes, dtype=grad.dtype))
normal_tensor_tensor = Op(
    "NormalBackward3", lambda mean, std, *, generator, mean_sym_sizes, std_sym_sizes: R.scale_and_shift(
        R.normal(generator, np.broadcast(mean, std).size, mean.dtype), np.broadcast(mean, std).shape, std, mean,
        mean.dtype),
    mean=lambda grad, mean_sym_sizes: F.zeros(mean_sym_sizes, dtype=grad.dtype),
    std=lambda grad, std_sym_sizes: F.zeros(std_sym_sizes, dtype=grad.dtype))

# ---------------------------------------------------------------------------------------
# more ops tutorials use (selection, scatter, elementwise)
masked_select = Op("MaskedSelectBackward0", lambda self, *, mask, self_sym_sizes: K.masked_select_array(self, mask),
                   self=lambda grad, mask, self_sym_sizes: F.embed_in_zeros(
                       grad, np.broadcast_shapes(self_sym_sizes, mask.shape), np.broadcast_to(
                           mask, np.broadcast_shapes(self_sym_sizes, mask.shape))))
diagonal = Op("DiagonalBackward0",
              lambda self, *, offset, dim1, dim2, self_sym_sizes: K.diagonal_view(self, offset, dim1, dim2),
              view=True,
              self=lambda grad, offset, dim1, dim2, self_sym_sizes: F.diagonal_backward(
                  grad, self_sym_sizes, offset, dim1, dim2))
# torch.diag of a matrix is a copy of its diagonal, under this name.
diag_copy = Op("DiagonalBackward0_copy",
               lambda self, *, offset, dim1, dim2, self_sym_sizes: K.diagonal_view(self, offset, dim1, dim2).copy(),
               self=lambda grad, offset, dim1, dim2, self_sym_sizes: F.diagonal_backward(
                   grad, self_sym_sizes, offset, dim1, dim2))
# The adjoint of taking a diagonal: a zero tensor with ``grad`` on that diagonal.
diagonal_backward = Op("DiagonalBackwardBackward0",
                       lambda grad_output, *, sizes, offset, dim1, dim2: K.diagonal_into_zeros(
                           grad_output, sizes, offset, dim1, dim2),
                       grad_output=lambda grad, offset, dim1, dim2: F.diagonal(grad, offset, dim1, dim2),
                       keeps=("sizes",))
diag_embed = Op("DiagEmbedBackward0", lambda self, *, offset, dim1, dim2: K.diag_embed_array(self, offset, dim1, dim2),
                self=lambda grad, offset, dim1, dim2: F.diagonal(grad, offset, dim1, dim2))
index_add = Op("IndexAddBackward0", lambda self, source, *, dim, index, alpha: K.index_add_array(
    self, dim, index, source, alpha), promotes=True,
    self=lambda grad: grad,
    source=lambda grad, dim, index, alpha, source: F.index_add_source_grad(grad, dim, index, alpha, source))
scatter_src = Op("ScatterBackward0", lambda self, src, *, dim, index: K.scatter_array(self, dim, index, src),
                 self=lambda grad, dim, index: F.scatter(grad, dim, F.from_numpy(index), 0.0),
                 src=lambda grad, dim, index: F.gather(grad, dim, F.from_numpy(index)))
scatter_value = Op("ScatterBackward1", lambda self, *, dim, index, value: K.scatter_array(self, dim, index, value),
                   self=lambda grad, dim, index: F.scatter(grad, dim, F.from_numpy(index), 0.0))
scatter_add = Op("ScatterAddBackward0", lambda self, src, *, dim, index: K.scatter_add_array(self, dim, index, src),
                 self=lambda grad: grad,
                 src=lambda grad, dim, index: F.gather(grad, dim, F.from_numpy(index)))
exp2 = Op("Exp2Backward0", np.exp2, self=lambda grad, result: grad * (result * 0.6931471805599453))
logit = Op("LogitBackward0", lambda self, *, eps: K.logit_array(self, eps),
           self=lambda grad, self, eps: F.logit_backward(grad, self, eps), integers="float")
xlogy = Op("XlogyBackward0", lambda self, other: K.xlogy_array(self, other), promotes=True,
           self=lambda grad, self, other: F.xlogy(grad, other).masked_fill((self == 0) & (other <= 0), 0.0),
           other=lambda grad, self, other: grad * self / other)
# xlogy with a number for one side: ATen's Scalar_Self / Scalar_Other overloads, their own nodes; the
# number is read in the tensor's dtype
xlogy_scalar_self = Op("XlogyBackward1", lambda other, *, self: K.xlogy_array(K.scalar_as_array(self, other), other),
                       integers="float", other=lambda grad, self, other: grad * self / other)
xlogy_scalar_other = Op("XlogyBackward2", lambda self, *, other: K.xlogy_array(self, K.scalar_as_array(other, self)),
                        integers="float",
                        self=lambda grad, self, other: F.xlogy(grad, other) if other > 0
                        else F.xlogy(grad, other).masked_fill(self == 0, 0.0))
hypot = Op("HypotBackward0", lambda self, other: np.hypot(self, other), promotes=True,
           self=lambda grad, self, result: grad * self / result,
           other=lambda grad, other, result: grad * other / result)
logaddexp = Op("LogaddexpBackward0", lambda self, other: np.logaddexp(self, other), promotes=True,
               self=lambda grad, self, other: grad / (1 + (other - self).exp()),
               other=lambda grad, self, other: grad / (1 + (self - other).exp()))
nansum = Op("NansumBackward0",
            lambda self, *, dim, keepdim, dtype, self_sym_sizes: np.asarray(
                np.nansum(self, axis=dim, keepdims=keepdim, dtype=K.sum_dtype(self, dtype))),
            self=lambda grad, self, dim, keepdim, self_sym_sizes: (
                grad if dim is None else _sum_to_dims(grad, dim, keepdim, self_sym_sizes)).expand(self_sym_sizes)
            * F.isnan(self).logical_not())
median_all = Op("MedianBackward0", lambda self: K.median_all(self), integers=("median_cpu", "b"), self=_where_selected)
median_dim = Op("MedianBackward1", lambda self, *, dim, keepdim, self_sym_sizes: K.median_dim(self, dim, keepdim),
                multi_output=True, integers=("median_cpu", "b"),
                self=lambda grads, dim, keepdim, self_sym_sizes, result1:
                    F.value_selecting_backward(grads[0], dim, result1, self_sym_sizes, keepdim))

# ---------------------------------------------------------------------------------------
# complex numbers: building them, their parts as views, conjugation and angle
complex_ = Op("ComplexBackward0", lambda real, imag: K.complex_array(real, imag),
              real=lambda grad: F.real(grad), imag=lambda grad: F.imag(grad))
polar = Op("PolarBackward0", lambda abs, angle: K.complex_array(abs * np.cos(angle), abs * np.sin(angle)),
           abs=lambda grad, result: F.real(grad.conj() * result.sgn()),
           angle=lambda grad, result: F.real(grad.conj() * (result * 1j)))
view_as_real = Op("ViewAsRealBackward0", lambda self: K.view_as_real_array(self), view=True,
                  self=lambda grad: F.view_as_complex(grad.contiguous()))
view_as_complex = Op("ViewAsComplexBackward0", lambda self: K.view_as_complex_array(self), view=True,
                     self=lambda grad: F.view_as_real(grad.contiguous()))
conj = Op("ConjBackward0", np.conj, self=lambda grad: grad.conj())
angle = Op("AngleBackward0", lambda self: np.angle(self).astype(K.real_dtype(self.dtype), copy=False),
           # PyTorch's angle_backward: zero at 0, and for real inputs everywhere
           self=lambda grad, self: F.where(self == 0, 0.0, grad * self / self.abs().pow(2) * 1j)
           if self.is_complex() else F.zeros_like(self), integers="float")
