"""evaluate(program, ...) -> Evaluation: create the leaves, then walk the validated AST.

Every step repeats the validator's checks on live values (attributes only on tensors,
arithmetic only on tensors and numbers, ``*`` only on tuples and lists, ...) and bounds
every allocation with ``limits.Budget`` before the engine call that would make it.
"""
import ast
import operator
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import float_noise, torch as _torch
from ..torch.autograd import graph as _graph
from . import limits, namespace as ns
from .errors import ExpressionError
from .parser import Program, _dotted, node_position, parse, segment

__all__ = ["evaluate", "Evaluation", "Intermediate", "parse_shape", "DEFAULT_SHAPE", "DEFAULT_SEED"]

Tensor = limits.Tensor  # either engine's
DEFAULT_SHAPE = (3,)
DEFAULT_SEED = 0
MAX_STARRED = 1_000

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.MatMult: operator.matmul, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
           ast.BitXor: operator.xor}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not}
_RECORDED = (ast.BinOp, ast.UnaryOp, ast.Call, ast.Subscript, ast.Attribute, ast.Compare)
_NUMBER_TYPES = (int, float, np.integer, np.floating, np.bool_)


@dataclass
class Intermediate:
    """A tensor the expression produced (not a leaf).

    ``label`` is unique within the evaluation: the assignment name when the tensor was
    assigned, else its source text (``w1*a``), with `` #2``, `` #3`` ... appended when
    the same text produced several tensors. ``source`` is the plain source text.
    """
    label: str
    source: str
    tensor: Any = field(repr=False)
    name: str | None
    statement: int
    line: int | None
    col: int | None
    end_col: int | None


@dataclass
class ExpressionWarning:
    """A warning raised while the expression ran, placed on the part that raised it."""
    category: str   # e.g. "UserWarning"
    message: str
    position: tuple  # (line, col, end_col) of the innermost node being evaluated
    source: str      # that node's text

    def as_dict(self):
        line, col, end_col = self.position
        return {"category": self.category, "message": self.message, "line": line, "col": col,
                "end_col": end_col, "source": self.source}


@dataclass
class Evaluation:
    """What ``evaluate`` produced.

    ``value``: the final value (usually a tensor). ``result_label``: its name or source
    text. ``leaves``: name -> leaf tensor (requires_grad=True), in order of first
    appearance. ``assigned``: name -> value of every assignment. ``intermediates``: every
    other tensor the expression produced, in creation order. ``tensors``: label ->
    tensor for the table: leaves, then intermediates (and assignment aliases) in order.
    """
    program: Program
    value: Any
    result_label: str
    leaves: dict
    assigned: dict
    intermediates: list
    tensors: dict
    seed: int
    error: BaseException | None = None
    error_position: tuple | None = None   # (line, col, end_col) of the innermost failing node
    error_source: str | None = None       # its source text
    warnings: list = field(default_factory=list)  # ExpressionWarning: what the expression warned, where
    _labels: dict = field(default_factory=dict, repr=False)

    def label_of(self, tensor):
        """The table/graph label of a tensor from this evaluation, or None."""
        return self._labels.get(id(tensor))

    @property
    def statements(self):
        return self.program.statements


def _refuse(runner, node, message, kind="refused", attr_only=False):
    line, col, end = node_position(runner.lines, node, attr_only)
    return ExpressionError(message, line=line, col=col, end_col=end, source=runner.source, kind=kind,
                           context=runner.context)


def _locate(runner, err, node):
    """Give a position-less ExpressionError (from limits) the node's position."""
    if err.line is None:
        err.line, err.col, err.end_col = node_position(runner.lines, node)
        err.source = runner.source
    if err.context is None:
        err.context = runner.context
    return err


def _type_name(value):
    if isinstance(value, Tensor):
        return "tensor"
    if ns.is_return_type(value):
        return "(values, indices) pair"
    if isinstance(value, limits.Size):
        return "torch.Size"
    if isinstance(value, (tuple, list)):
        return type(value).__name__
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _NUMBER_TYPES):
        return "number"
    if value is None:
        return "None"
    if isinstance(value, limits.Dtype):
        return "dtype"
    return "grad_fn node" if hasattr(value, "next_functions") else "value"


def _is_numeric(value):
    return isinstance(value, Tensor) or (isinstance(value, _NUMBER_TYPES) and not isinstance(value, complex))


class _Runner:
    def __init__(self, program, budget, env, context=None, engine=None):
        self.program = program
        self.engine = engine if engine is not None else _torch  # whose functions the names call
        self._resolved = {}
        self.source = program.source
        self.lines = program.source.split("\n")
        self.budget = budget
        self.env = env
        self.context = context
        self.labels = {}
        self.keep = []
        self.intermediates = []
        self.tensors = {}
        self.assigned = {}
        self.label_counts = {}
        self.statement = 0
        self.error_node = None
        self.current = None  # the innermost node being evaluated: where a warning is placed
        self.warned = []

    # -- labels --------------------------------------------------------------------
    def _unique(self, label):
        n = self.label_counts.get(label, 0) + 1
        self.label_counts[label] = n
        unique = label if n == 1 and label not in self.tensors else f"{label} #{n}"
        while unique in self.tensors:
            n += 1
            unique = f"{label} #{n}"
        self.label_counts[label] = n
        return unique

    def on_warning(self, message, category, *_):
        """warnings.showwarning while the expression runs: kept with the node it came from,
        once per message and place (Python's default), instead of naming gradviz's source."""
        node = self.current
        position = node_position(self.lines, node) if node is not None else (1, 1, None)
        warned = ExpressionWarning(category.__name__, str(message), position,
                                   segment(self.source, node) if node is not None else self.source)
        if all((w.category, w.message, w.position) != (warned.category, warned.message, warned.position)
               for w in self.warned):
            self.warned.append(warned)

    def add_leaf(self, name, tensor):
        self.labels[id(tensor)] = name
        self.keep.append(tensor)
        self.tensors[name] = tensor
        self.label_counts[name] = 1

    def _record(self, value, node, name=None, label=None):
        source = segment(self.source, node)
        if label is None:
            label = name if name is not None else self._unique(source)
        line, col, end = node_position(self.lines, node)
        self.labels[id(value)] = label
        self.keep.append(value)
        self.intermediates.append(Intermediate(label, source, value, name, self.statement, line, col, end))
        self.tensors[label] = value

    def _record_parts(self, value, node, label):
        """Label the tensors inside a tuple result (split, unbind, max(dim=...)) as
        ``label[i]`` / ``label.values``."""
        if not isinstance(value, (tuple, list)) or len(value) > limits.MAX_PIECES:
            return
        named = ns.is_return_type(value)
        for i, part in enumerate(value):
            if isinstance(part, Tensor) and id(part) not in self.labels:
                suffix = (".values", ".indices")[i] if named and i < 2 else f"[{i}]"
                self._record(part, node, label=self._unique(label + suffix))

    # -- statements ----------------------------------------------------------------
    def run(self):
        value = None
        for stmt in self.program.statements:
            self.statement = stmt.index
            node = stmt.node.value
            if stmt.kind == "assign":
                value = self.visit(node, record=False)
                self.env[stmt.target] = value
                self.assigned[stmt.target] = value
                if isinstance(value, Tensor):
                    if id(value) in self.labels:
                        self.tensors[stmt.target] = value   # an alias of a known tensor
                    else:
                        self._record(value, node, name=stmt.target)
                else:
                    self._record_parts(value, node, stmt.target)
            else:
                value = self.visit(node)
        return value

    # -- expressions ---------------------------------------------------------------
    def visit(self, node, record=True):
        method = getattr(self, "_e_" + type(node).__name__, None)
        if method is None:  # the validator refuses these; never evaluate an unknown node
            raise _refuse(self, node, f"{type(node).__name__} expressions are not allowed")
        outer, self.current = self.current, node
        try:
            value = method(node)
        except ExpressionError as e:
            raise _locate(self, e, node)  # one the engine's guard raised has no position yet
        except Exception:
            if self.error_node is None:
                self.error_node = node
            raise
        finally:
            self.current = outer
        if record and isinstance(node, _RECORDED):
            if isinstance(value, Tensor):
                if id(value) not in self.labels:
                    self._record(value, node)
            elif isinstance(value, (tuple, list)) and not isinstance(node, ast.Subscript):
                self._record_parts(value, node, segment(self.source, node))
        return value

    def _e_Constant(self, node):
        value = node.value
        if isinstance(value, (str, bytes, complex)) and not (isinstance(value, str) and value in ns.STRINGS):
            raise _refuse(self, node, "this literal is not allowed")
        return value

    def _e_Name(self, node):
        try:
            return self.env[node.id]
        except KeyError:
            raise _refuse(self, node, f"name '{node.id}' is not defined") from None

    def _module_path(self, node):
        dotted = _dotted(node)
        if dotted is None:
            return None
        head = dotted.split(".", 1)[0]
        if ns.is_module_head(head) and head not in self.env:
            return dotted
        return None

    def _e_Attribute(self, node):
        attr = node.attr
        if attr.startswith("_"):
            raise _refuse(self, node, f"attribute '{attr}' is not allowed", attr_only=True)
        dotted = self._module_path(node)
        if dotted is not None:
            found = ns.resolve_dotted(dotted)
            if found is None or found[0] != "constant":
                raise _refuse(self, node, f"'{dotted}' is not available as a value")
            kind, value = found[1]
            if kind == "dtype" and self.engine is not _torch:
                return getattr(self.engine, dotted.rsplit(".", 1)[1])
            return value
        base = self.visit(node.value)
        if attr in ns.RETURN_TYPE_ATTRIBUTES:
            if ns.is_return_type(base):
                return base[0] if attr == "values" else base[1]
            raise _refuse(self, node, f"'.{attr}' is only available on the (values, indices) results of "
                                      f"max/min/sort/topk, not on a {_type_name(base)}", attr_only=True)
        if attr not in ns.ATTRIBUTES:
            raise _refuse(self, node, f"attribute '.{attr}' is not allowed", attr_only=True)
        if not isinstance(base, Tensor):
            raise _refuse(self, node, f"attribute '.{attr}' is only available on tensors, not on a "
                                      f"{_type_name(base)}", attr_only=True)
        return getattr(base, attr)

    def _e_Call(self, node):
        func = node.func
        args = []
        if isinstance(func, ast.Name):
            target = ns.FUNCTIONS.get(func.id)
            what = f"{func.id}()"
        else:
            dotted = self._module_path(func) if isinstance(func, ast.Attribute) else None
            if dotted is not None:
                target = ns.FUNCTIONS.get(dotted)
                what = f"{dotted}()"
            elif isinstance(func, ast.Attribute):
                base = self.visit(func.value)
                target = ns.METHODS.get(func.attr)
                what = f".{func.attr}()"
                if target is not None and not isinstance(base, Tensor):
                    raise _refuse(self, func, f"'.{func.attr}()' can only be called on a tensor, not on a "
                                              f"{_type_name(base)}", attr_only=True)
                args.append(base)
            else:
                target = None
                what = "this call"
        if target is None:
            raise _refuse(self, func, "only torch functions and tensor methods can be called")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                value = self.visit(arg.value)
                if isinstance(value, Tensor) or not isinstance(value, (tuple, list)):
                    raise _refuse(self, arg, f"only tuples and lists can be unpacked with *, not a "
                                             f"{_type_name(value)}")
                if len(value) > MAX_STARRED:
                    raise _refuse(self, arg, f"unpacking {len(value):,} values is over the limit of {MAX_STARRED:,}",
                                  kind="limit")
                args.extend(value)
            else:
                args.append(self.visit(arg))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None or kw.arg.startswith("_") or kw.arg in ns.REFUSED_KEYWORDS:
                raise _refuse(self, kw, "this keyword argument is not allowed")
            value = self.visit(kw.value)
            if kw.arg == "dtype" and value is not None and not isinstance(value, limits.Dtype):
                raise _refuse(self, kw.value, "dtype= must be a torch dtype such as torch.float64")
            kwargs[kw.arg] = value
        try:
            self.budget.check_call(target, args, kwargs, what)
        except ExpressionError as e:
            raise _locate(self, e, node) from None
        return self._function(target)(*args, **kwargs)

    def _function(self, target):
        """The engine's callable for a whitelisted spelling (gradviz's: the table's own)."""
        if self.engine is _torch:
            return target.fn
        fn = self._resolved.get(target.spelling)
        if fn is None:
            fn = self._resolved[target.spelling] = _engine_function(self.engine, target.spelling)
        return fn

    def _e_Subscript(self, node):
        base = self.visit(node.value)
        index = self._index(node.slice)
        if isinstance(base, Tensor):
            try:
                elements = limits.getitem_estimate(base, index)
            except limits._Unknown:
                elements = 0
            try:
                self.budget.charge(elements, "this indexing")
            except ExpressionError as e:
                raise _locate(self, e, node) from None
            return base[index]
        if isinstance(base, (tuple, list)):
            if isinstance(index, Tensor):
                index = operator.index(index)
            if not isinstance(index, (int, slice)):
                raise _refuse(self, node.slice, f"a {_type_name(base)} can only be indexed with an integer or a "
                                                "slice")
            return base[index]
        raise _refuse(self, node.value, f"a {_type_name(base)} cannot be indexed")

    def _index(self, node):
        if isinstance(node, ast.Slice):
            parts = []
            for part in (node.lower, node.upper, node.step):
                value = None if part is None else self.visit(part)
                if value is not None and not _is_numeric(value):
                    raise _refuse(self, part, f"a slice bound must be an integer, not a {_type_name(value)}")
                parts.append(value)
            return slice(*parts)
        if isinstance(node, ast.Tuple):
            return tuple(self._index(elt) for elt in node.elts)
        return self.visit(node)

    def _e_Tuple(self, node):
        return tuple(self.visit(elt) for elt in node.elts)

    def _e_List(self, node):
        return [self.visit(elt) for elt in node.elts]

    def _charge_elementwise(self, node, values, what):
        shapes = [v.shape for v in values if isinstance(v, Tensor)]
        if shapes:
            try:
                self.budget.charge(limits._broadcast_numel(shapes), what)
            except ExpressionError as e:
                raise _locate(self, e, node) from None

    def _e_BinOp(self, node):
        left = self.visit(node.left)
        right = self.visit(node.right)
        for side, value in ((node.left, left), (node.right, right)):
            if not _is_numeric(value):
                raise _refuse(self, side, f"arithmetic is only allowed on tensors and numbers, not on a "
                                          f"{_type_name(value)}")
        fn = _BINARY.get(type(node.op))
        if fn is None:
            raise _refuse(self, node, "this operator is not allowed")
        if isinstance(left, Tensor) or isinstance(right, Tensor):
            if isinstance(node.op, ast.MatMult) and isinstance(left, Tensor) and isinstance(right, Tensor):
                elements, work = limits._matmul_bound(left.shape, right.shape)
                try:
                    self.budget.charge(elements, "this matrix product", work=work)
                except ExpressionError as e:
                    raise _locate(self, e, node) from None
            else:
                self._charge_elementwise(node, (left, right), "this operation")
            return fn(left, right)
        try:
            if isinstance(node.op, ast.Pow):
                limits.check_int_pow(_pyint(left), _pyint(right), "this power")
            result = fn(left, right)
            limits.check_int(result, "this arithmetic")
        except ExpressionError as e:
            raise _locate(self, e, node) from None
        return result

    def _e_UnaryOp(self, node):
        operand = self.visit(node.operand)
        if not _is_numeric(operand):
            raise _refuse(self, node.operand, f"unary operators are only allowed on tensors and numbers, not on a "
                                              f"{_type_name(operand)}")
        fn = _UNARY.get(type(node.op))
        if fn is None:
            raise _refuse(self, node, "this operator is not allowed")
        self._charge_elementwise(node, (operand,), "this operation")
        return fn(operand)

    def _e_Compare(self, node):
        left = self.visit(node.left)
        result = True
        for i, (op, comp) in enumerate(zip(node.ops, node.comparators)):
            fn = _COMPARE.get(type(op))
            if fn is None:
                raise _refuse(self, node, "this comparison is not allowed")
            right = self.visit(comp)
            if fn not in (operator.is_, operator.is_not):
                self._charge_elementwise(node, (left, right), "this comparison")
            result = fn(left, right)
            if i < len(node.ops) - 1 and not result:
                return result
            left = right
        return result


def _engine_function(engine, spelling):
    """The callable a whitelisted spelling names in another engine: ``Tensor.sum`` ->
    ``engine.Tensor.sum``, ``F.relu`` -> ``engine.nn.functional.relu``, ``tanh`` -> ``engine.tanh``."""
    head, _, name = spelling.rpartition(".")
    if head == "Tensor":
        return getattr(engine.Tensor, name)
    if head in ("F", "nn.functional", "torch.nn.functional"):
        return getattr(engine.nn.functional, name)
    if head == "torch.linalg":
        return getattr(engine.linalg, name)
    fn = getattr(engine, name, None)
    return fn if fn is not None else getattr(engine.nn.functional, name)


def _pyint(v):
    if isinstance(v, np.integer):
        return int(v)
    return v


# -- shapes and leaves -----------------------------------------------------------------
_SHAPE_SEPARATOR = re.compile(r"\s*[x×X,*]\s*")  # no nested repetition: linear on any input


def _shape_text_dims(text):
    """The sizes in a shape written as text (``3,3``, ``3x3``, ``(2, 3)``, ``(5,)``, ``()``),
    or None when it is not one. A scan, not a backtracking pattern: linear in the text."""
    text = text.strip()
    if text.startswith("("):
        text = text[1:]
    if text.endswith(")"):
        text = text[:-1]
    text = text.strip()
    if not text:
        return []
    if text.endswith(","):
        text = text[:-1].rstrip()
    parts = _SHAPE_SEPARATOR.split(text)
    if not all(part.isascii() and part.isdigit() and len(part) <= 18 for part in parts):
        return None  # (a size of 19 digits is no size; int() of thousands of digits is slow)
    return [int(part) for part in parts]


def parse_shape(spec, what="shape"):
    """A shape from ``"3,3"``, ``"3x3"``, ``"(2, 3)"``, ``"5"``, ``"()"``/``"scalar"``,
    an int or a tuple of ints. Raises ExpressionError (kind ``"option"``)."""
    if isinstance(spec, bool):
        raise ExpressionError(f"{what} must be a shape such as 3,3 or 3x3", kind="option")
    if isinstance(spec, (int, np.integer)):
        dims = [int(spec)]
    elif isinstance(spec, (tuple, list)) or isinstance(spec, limits.Size):
        try:
            dims = [operator.index(d) for d in spec]
        except TypeError:
            raise ExpressionError(f"{what} must contain integers, got {tuple(spec)!r}", kind="option") from None
    elif isinstance(spec, str):
        text = spec.strip()
        if text.lower() in ("scalar", "()", ""):
            return ()
        dims = _shape_text_dims(text)
        if dims is None:
            shown = spec if len(spec) <= 40 else spec[:37] + "..."
            raise ExpressionError(f"{what} {shown!r} is not a shape; write it as 3,3 or 3x3", kind="option")
    else:
        raise ExpressionError(f"{what} must be a shape such as 3,3 or 3x3", kind="option")
    if len(dims) > 16:
        raise ExpressionError(f"{what} has {len(dims)} dimensions; the limit is 16", kind="option")
    if any(d < 0 for d in dims):
        raise ExpressionError(f"{what} {tuple(dims)} has a negative size", kind="option")
    return tuple(dims)


def _is_shape_text(text):
    stripped = text.strip()
    return stripped.lower() in ("scalar", "()") or (bool(stripped) and _shape_text_dims(stripped) is not None)


def _to_leaf(value, dtype, explicit_dtype, budget, context, source, engine):
    if isinstance(value, np.ndarray):
        budget.charge(int(value.size), context)
        value = engine.tensor(value)
    elif isinstance(value, Tensor):
        budget.charge(value.numel(), context)
        value = value.detach().clone()
    elif isinstance(value, (list, tuple)) or (_is_numeric(value) and not isinstance(value, Tensor)):
        try:
            count = limits.data_count(value)
        except limits._Unknown:
            count = 0
        budget.charge(count, context)
        value = engine.tensor(value)
    else:
        raise ExpressionError(f"the value must be a tensor, a number or a list, not a {_type_name(value)}",
                              source=source, context=context, kind="option")
    if explicit_dtype:
        value = value.to(dtype)
    elif not value.is_floating_point():
        value = value.to(dtype)
    value = value.detach()
    value.requires_grad_(True)
    return value


def _spec_leaf(name, spec, default_shape, dtype, explicit_dtype, budget, engine):
    context = f"--var {name}"
    if isinstance(spec, str) and not _is_shape_text(spec):
        try:
            sub = parse(spec)
        except ExpressionError as e:
            e.context = context
            raise
        if sub.leaves:
            free = sub.leaves[0]
            lines = sub.source.split("\n")
            for n in ast.walk(sub.tree):
                if isinstance(n, ast.Name) and n.id == free:
                    line, col, end = node_position(lines, n)
                    break
            else:
                line = col = end = None
            raise ExpressionError(f"the value of {name} cannot use free names (found '{free}')", line=line,
                                  col=col, end_col=end, source=sub.source, context=context, kind="option")
        runner = _Runner(sub, budget, {}, context=context, engine=engine)
        value = runner.run()
        return _to_leaf(value, dtype, explicit_dtype, budget, context, sub.source, engine)
    if isinstance(spec, (str, tuple, int, np.integer, limits.Size)) and not isinstance(spec, bool):
        shape = parse_shape(spec, what=context)
    elif spec is None:
        shape = default_shape
    else:
        return _to_leaf(spec, dtype, explicit_dtype, budget, context, "", engine)
    n = limits._prod(shape)
    budget.charge(n, f"the leaf {name} of shape {tuple(shape)}")
    return engine.randn(*shape, dtype=dtype).requires_grad_(True)


def evaluate(program, shape=None, var_specs=None, seed=DEFAULT_SEED, max_elements=limits.DEFAULT_MAX_ELEMENTS,
             *, max_total_elements=limits.DEFAULT_MAX_TOTAL_ELEMENTS, dtype=None, engine=None, guard=None):
    """Create the leaves and evaluate ``program`` (a Program, or text to parse).

    ``shape``: the shape of every leaf without a spec (default ``DEFAULT_SHAPE``), as a
    tuple or text (``"3,3"``). ``var_specs``: name -> spec, where a spec is a shape
    (``"3x3"``, ``"3,3"``, ``"()"``, a tuple or an int), a value as text evaluated by the
    same safe evaluator without free names (``"linspace(0,1,5)"``, ``"[1.,2.,3.]"``,
    ``"tensor([[1,2],[3,4]])"``, ``"randn(2,3)"``), or a tensor / numpy array / list /
    number. ``seed``: ``gradviz.torch.manual_seed(seed)`` runs first, then the leaves are
    created in order of first appearance, so runs repeat. ``dtype``: the leaves' dtype
    (default float32; a spec's own floating dtype is kept unless ``dtype`` is given).
    ``engine``: the module whose functions the expression's names call: gradviz's engine
    (default), or the real ``torch`` (``graph --engine torch``), the same names either way.
    ``guard``: for another engine, what holds it to the per-tensor limits as gradviz's engine
    holds itself: called with the limits, it starts checking and returns the function that
    stops (``gradviz.inspect.torch_guard.allocation_guard`` for real PyTorch).

    Raises ExpressionError for refused input and for allocations over the limits
    (``max_elements`` per tensor, ``max_total_elements`` for the whole evaluation),
    before allocating. Engine errors (RuntimeError, TypeError, IndexError, ...) propagate
    unchanged; they carry ``gradviz_partial``: an Evaluation of what ran before the error,
    with ``error_position``/``error_source`` naming the innermost failing subexpression.
    """
    if not isinstance(program, Program):
        program = parse(program)
    var_specs = dict(var_specs or {})
    for name in var_specs:
        if name not in program.leaves:
            if name in program.assigned:
                raise ExpressionError(f"'{name}' is assigned in the expression; only free names (leaves) can be "
                                      "given a value", context=f"--var {name}", kind="option")
            names = ", ".join(program.leaves) or "none"
            raise ExpressionError(f"'{name}' does not appear in the expression as a free name (its free names: "
                                  f"{names})", context=f"--var {name}", kind="option")
    default_shape = DEFAULT_SHAPE if shape is None else parse_shape(shape)
    explicit_dtype = dtype is not None
    engine = engine if engine is not None else _torch
    if engine is not _torch:
        limits.use_engine(engine)
    if dtype is None:
        dtype = engine.float32
    if not isinstance(dtype, limits.Dtype) or not dtype.is_floating_point:
        raise ExpressionError(f"dtype must be a floating torch dtype, not {dtype!r}", kind="option")
    budget = limits.Budget(max_elements, max_total_elements)
    # every tensor made is checked against the budget: by gradviz's engine itself, or by the
    # guard given for another engine (the estimators before each call come first either way)
    if engine is _torch:
        release_guard = _graph.guarded(limits.EngineGuard(budget))
    else:
        release_guard = guard(limits.EngineGuard(budget)) if guard is not None else (lambda: None)
    try:
        return _evaluate_guarded(program, budget, engine, seed, var_specs, default_shape, dtype, explicit_dtype)
    finally:
        release_guard()


def _evaluate_guarded(program, budget, engine, seed, var_specs, default_shape, dtype, explicit_dtype):
    engine.manual_seed(seed)
    env = {}
    runner = _Runner(program, budget, env, engine=engine)
    for name in program.leaves:
        leaf = _spec_leaf(name, var_specs.get(name), default_shape, dtype, explicit_dtype, budget, engine)
        env[name] = leaf
        runner.add_leaf(name, leaf)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")  # placed and deduplicated by on_warning
            float_noise.silence_in_engine()  # numpy's overflow notes stay silent, as PyTorch is
            warnings.showwarning = runner.on_warning
            value = runner.run()
    except ExpressionError:
        raise
    except Exception as e:
        partial = _evaluation(runner, program, None, seed)
        partial.error = e
        if runner.error_node is not None:
            partial.error_position = node_position(runner.lines, runner.error_node)
            partial.error_source = segment(program.source, runner.error_node)
        try:
            e.gradviz_partial = partial
        except Exception:
            pass
        raise
    return _evaluation(runner, program, value, seed)


def _evaluation(runner, program, value, seed):
    leaves = {name: runner.env[name] for name in program.leaves if name in runner.env}
    label = runner.labels.get(id(value)) if isinstance(value, Tensor) else None
    if label is None:
        label = program.result_name or program.result_source
    return Evaluation(program=program, value=value, result_label=label, leaves=leaves,
                      assigned=dict(runner.assigned), intermediates=list(runner.intermediates),
                      tensors=dict(runner.tensors), seed=seed, warnings=list(runner.warned),
                      _labels=dict(runner.labels))
