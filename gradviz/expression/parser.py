"""parse(text) -> Program: ``ast.parse`` plus a whitelist check of the whole tree.

Nothing is evaluated here. The validator walks every node and refuses anything outside
the whitelist with an ExpressionError that points at the offending node. It also infers
a coarse static *kind* for every expression (tensor, number, tuple, Size, dtype, ...)
so that, for example, ``x.shape.numel()`` or ``'{}'.format(x)`` are refused before
anything runs; the evaluator repeats the same checks on the live values.
"""
import ast
import textwrap
import warnings
from dataclasses import dataclass, field

from . import limits, namespace as ns
from .errors import ExpressionError

__all__ = ["parse", "Program", "Statement", "segment", "node_position"]

_KIND_NAMES = {
    "tensor": "tensor", "number": "number", "bool": "bool", "str": "string", "none": "None",
    "ellipsis": "Ellipsis", "seq": "tuple or list", "size": "torch.Size", "dtype": "dtype",
    "node": "grad_fn node", "any": "value", "slice": "slice",
}
_NUMERIC = {"tensor", "number", "bool", "any"}

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}
_UNARYOPS = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}
_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_EQUALITY = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)

_REFUSED_EXPRESSIONS = {
    "Lambda": "lambda functions are not allowed",
    "ListComp": "comprehensions are not allowed",
    "SetComp": "comprehensions are not allowed",
    "DictComp": "comprehensions are not allowed",
    "GeneratorExp": "generator expressions are not allowed",
    "JoinedStr": "f-strings are not allowed",
    "FormattedValue": "f-strings are not allowed",
    "NamedExpr": "assignment expressions (:=) are not allowed; write 'name = ...' as its own statement",
    "Dict": "dict displays are not allowed",
    "Set": "set displays are not allowed",
    "BoolOp": "'and' / 'or' are not allowed; use & and | on boolean tensors",
    "IfExp": "conditional expressions (a if c else b) are not allowed",
    "Await": "'await' is not allowed",
    "Yield": "'yield' is not allowed",
    "YieldFrom": "'yield from' is not allowed",
    "Starred": "starred expressions (*x) are only allowed as arguments of a call",
    "Slice": "slices are only allowed inside [ ]",
}

_REFUSED_STATEMENTS = {
    "Import": "import statements are not allowed",
    "ImportFrom": "import statements are not allowed",
    "FunctionDef": "function definitions are not allowed",
    "AsyncFunctionDef": "function definitions are not allowed",
    "ClassDef": "class definitions are not allowed",
    "AugAssign": "augmented assignment (+=, *=, ...) is not allowed; write 'c = a + b' with a new name",
    "AnnAssign": "annotated assignments are not allowed; write 'name = ...'",
    "For": "'for' loops are not allowed", "AsyncFor": "'for' loops are not allowed",
    "While": "'while' loops are not allowed", "If": "'if' statements are not allowed",
    "With": "'with' statements are not allowed", "AsyncWith": "'with' statements are not allowed",
    "Try": "'try' statements are not allowed", "TryStar": "'try' statements are not allowed",
    "Raise": "'raise' is not allowed", "Assert": "'assert' is not allowed", "Delete": "'del' is not allowed",
    "Global": "'global' is not allowed", "Nonlocal": "'nonlocal' is not allowed", "Pass": "'pass' is not allowed",
    "Break": "'break' is not allowed", "Continue": "'continue' is not allowed", "Return": "'return' is not allowed",
    "Match": "'match' statements are not allowed", "TypeAlias": "'type' statements are not allowed",
}


@dataclass(frozen=True)
class Statement:
    """One statement: ``kind`` is ``"assign"`` (``target = value``) or ``"expr"``."""
    index: int
    kind: str
    target: str | None
    source: str          # the value's source text (right-hand side for an assignment)
    text: str            # the whole statement's source text
    line: int
    node: ast.stmt = field(repr=False, compare=False)


@dataclass(frozen=True)
class Program:
    """A validated expression: the normalized source, its AST and statements, the free
    names (future leaves) in order of first appearance and the assigned names."""
    source: str
    tree: ast.Module = field(repr=False, compare=False)
    statements: tuple
    leaves: tuple        # free names, in order of first appearance in the source
    assigned: tuple      # assignment targets, in order
    result_name: str | None   # the target of the last statement when it is an assignment
    result_source: str        # the source text of the final value


def node_position(lines, node, attr_only=False):
    """(line, col, end_col) of ``node``, 1-based characters; for an Attribute with
    ``attr_only``, just the attribute name."""
    line = getattr(node, "lineno", None)
    if line is None:
        return None, None, None
    if attr_only and isinstance(node, ast.Attribute) and node.end_lineno is not None:
        end_line = node.end_lineno
        text = lines[end_line - 1] if end_line - 1 < len(lines) else ""
        end = _char_col(text, node.end_col_offset)
        return end_line, end - len(node.attr) + 1, end + 1
    text = lines[line - 1] if line - 1 < len(lines) else ""
    col = _char_col(text, node.col_offset)
    end_col = None
    if getattr(node, "end_lineno", None) == line and node.end_col_offset is not None:
        end_col = _char_col(text, node.end_col_offset) + 1
    elif getattr(node, "end_lineno", None) is not None:
        end_col = len(text) + 1
    return line, col + 1, end_col


def _char_col(text, byte_offset):
    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def segment(source, node):
    """The node's source text with runs of whitespace collapsed (for labels)."""
    text = ast.get_source_segment(source, node)
    if text is None:
        return ast.unparse(node)
    return " ".join(text.split())


def _normalize(text):
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = textwrap.dedent(text)
    return text.strip()


def parse(text):
    """Parse and validate ``text``; return a Program or raise ExpressionError."""
    if isinstance(text, bytes):
        raise ExpressionError("the expression must be text, not bytes", kind="refused")
    if not isinstance(text, str):
        raise TypeError(f"parse() expects a str, got {type(text).__name__}")
    if len(text) > limits.MAX_SOURCE_CHARS:
        raise ExpressionError(f"the expression is too long ({len(text):,} characters; the limit is "
                              f"{limits.MAX_SOURCE_CHARS:,})", kind="limit", source=text[:200])
    source = _normalize(text)
    lines = source.split("\n")
    nul = source.find("\x00")
    if nul >= 0:
        line = source.count("\n", 0, nul) + 1
        col = nul - (source.rfind("\n", 0, nul) + 1) + 1
        raise ExpressionError("NUL characters are not allowed in an expression", line=line, col=col,
                              end_col=col + 1, source=source, kind="refused")
    if not source:
        raise ExpressionError("the expression is empty", source=source, kind="syntax")
    try:
        with warnings.catch_warnings():
            # SyntaxWarnings ("invalid decimal literal", "is with a literal") are noise here
            warnings.simplefilter("ignore")
            tree = ast.parse(source, mode="exec")
    except SyntaxError as e:
        msg = e.msg or "invalid syntax"
        if "Exceeds the limit" in msg:
            kind, msg = "limit", "an integer literal is too long"
        elif "too many nested" in msg or "too complex" in msg:
            kind, msg = "limit", "the expression is nested too deeply"
        else:
            kind, msg = "syntax", f"syntax error: {msg}"
        line = e.lineno if e.lineno and e.lineno <= len(lines) else None
        col = e.offset if line is not None and e.offset else None
        if col is not None:
            # After a line continuation Python may count past the end of the line it names.
            col = min(col, len(lines[line - 1]) + 1)
        end = getattr(e, "end_offset", None)
        end = end if (end and getattr(e, "end_lineno", None) == line and col and end > col) else None
        raise ExpressionError(msg, line=line, col=col, end_col=end, source=source, kind=kind) from None
    except (RecursionError, MemoryError):
        raise ExpressionError("the expression is nested too deeply", source=source, kind="limit") from None
    except (ValueError, OverflowError) as e:
        raise ExpressionError(f"cannot parse the expression: {e}", source=source, kind="syntax") from None
    _check_size(tree, source)
    return _Validator(source, lines).program(tree)


def _check_size(tree, source):
    """Count nodes and measure depth without recursion, before any recursive pass."""
    count = 0
    stack = [(tree, 0)]
    lines = source.split("\n")
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > limits.MAX_NODES:
            raise ExpressionError(f"the expression is too large (more than {limits.MAX_NODES:,} syntax nodes)",
                                  source=source, kind="limit")
        if depth > limits.MAX_DEPTH:
            line, col, end = node_position(lines, node)
            raise ExpressionError(f"the expression is nested too deeply (more than {limits.MAX_DEPTH} levels)",
                                  line=line, col=col, end_col=end, source=source, kind="limit")
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth + 1))


def _dotted(node):
    """``torch.nn.functional.relu`` for a chain of attributes on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class _Validator:
    def __init__(self, source, lines):
        self.source = source
        self.lines = lines
        self.env = {}            # assigned name -> static kind
        self.leaves = {}         # free name -> (line, col) of first appearance
        self.functions = dict(ns.FUNCTIONS)

    # -- errors --------------------------------------------------------------------
    def refuse(self, node, message, kind="refused", attr_only=False):
        line, col, end = node_position(self.lines, node, attr_only) if node is not None else (None, None, None)
        return ExpressionError(message, line=line, col=col, end_col=end, source=self.source, kind=kind)

    # -- statements ----------------------------------------------------------------
    def program(self, tree):
        body = tree.body
        if not body:
            raise ExpressionError("the expression is empty", source=self.source, kind="syntax")
        statements = []
        for i, stmt in enumerate(body):
            last = i == len(body) - 1
            name = type(stmt).__name__
            if isinstance(stmt, ast.Assign):
                target = self._assign(stmt)
                statements.append(Statement(i, "assign", target, segment(self.source, stmt.value),
                                            segment(self.source, stmt), stmt.lineno, stmt))
            elif isinstance(stmt, ast.Expr):
                if not last:
                    raise self.refuse(stmt, "only the last statement may be a bare expression; name intermediate "
                                            "results with assignments (b = w1*a; ...)")
                self.expr(stmt.value)
                statements.append(Statement(i, "expr", None, segment(self.source, stmt.value),
                                            segment(self.source, stmt), stmt.lineno, stmt))
            else:
                node = stmt
                if getattr(stmt, "decorator_list", None):
                    node = stmt.decorator_list[0]
                    raise self.refuse(node, "decorators and " + _REFUSED_STATEMENTS.get(name, "definitions are "
                                                                                             "not allowed"))
                raise self.refuse(node, _REFUSED_STATEMENTS.get(name, f"{name} statements are not allowed"))
        leaves = tuple(sorted(self.leaves, key=lambda n: self.leaves[n]))
        last = statements[-1]
        return Program(source=self.source, tree=tree, statements=tuple(statements), leaves=leaves,
                       assigned=tuple(s.target for s in statements if s.kind == "assign"),
                       result_name=last.target, result_source=last.source)

    def _assign(self, stmt):
        if len(stmt.targets) != 1:
            raise self.refuse(stmt.targets[1], "chained assignment (a = b = ...) is not allowed")
        target = stmt.targets[0]
        if not isinstance(target, ast.Name):
            what = {"Tuple": "tuple unpacking", "List": "list unpacking", "Attribute": "assigning to an attribute",
                    "Subscript": "assigning to an element or slice", "Starred": "starred assignment"}.get(
                type(target).__name__, "this assignment target")
            raise self.refuse(target, f"{what} is not allowed; only 'name = expression' assignments are")
        kind = self.expr(stmt.value)
        name = target.id
        reason = ns.name_refusal(name)
        if reason:
            raise self.refuse(target, f"cannot assign to '{name}': " + reason.split(": ", 1)[-1]
                              if name.startswith("_") else reason)
        if name in self.functions or ns.is_module_head(name):
            raise self.refuse(target, f"cannot assign to '{name}': it names a torch function or module")
        if name in self.leaves:
            raise self.refuse(target, f"cannot assign to '{name}': it is already used as a leaf (a free name) "
                                      "earlier; pick a new name")
        if name in self.env:
            raise self.refuse(target, f"cannot assign to '{name}' again; pick a new name for each result")
        if kind in ("str",):
            raise self.refuse(stmt.value, "cannot assign a string")
        self.env[name] = kind
        return name

    # -- expressions ---------------------------------------------------------------
    def expr(self, node, ctx="value"):
        method = getattr(self, "_e_" + type(node).__name__, None)
        if method is None:
            name = type(node).__name__
            raise self.refuse(node, _REFUSED_EXPRESSIONS.get(name, f"{name} expressions are not allowed"))
        return method(node, ctx)

    def _e_Constant(self, node, ctx):
        v = node.value
        if v is None:
            return "none"
        if v is Ellipsis:
            return "ellipsis"
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, int):
            if abs(v) > limits.MAX_INT_LITERAL:
                raise self.refuse(node, "integer literal too large (the limit is 2**64)", kind="limit")
            return "number"
        if isinstance(v, float):
            return "number"
        if isinstance(v, complex):
            raise self.refuse(node, "complex numbers are not supported in expressions")
        if isinstance(v, str):
            if ctx != "arg":
                raise self.refuse(node, "string literals are only allowed as arguments of a call "
                                        "(e.g. reduction='sum')")
            if v not in ns.STRINGS:
                allowed = ", ".join(repr(s) for s in sorted(ns.STRINGS))
                raise self.refuse(node, f"the string {_short(v)} is not allowed; the strings accepted as "
                                        f"arguments are {allowed}")
            return "str"
        if isinstance(v, bytes):
            raise self.refuse(node, "bytes literals are not allowed")
        raise self.refuse(node, f"{type(v).__name__} literals are not allowed")

    def _e_Name(self, node, ctx):
        name = node.id
        if not isinstance(node.ctx, ast.Load):
            raise self.refuse(node, "only 'name = expression' assignments are allowed")
        if name in self.env:
            return self.env[name]
        if name in self.functions:
            raise self.refuse(node, f"function '{name}' can only be called, e.g. {name}(x)")
        if ns.is_module_head(name):
            raise self.refuse(node, f"module '{name}' can only be used to name a function or constant, "
                                    f"e.g. torch.tanh(x)")
        if name in self.leaves:
            return "tensor"
        reason = ns.name_refusal(name)
        if reason:
            raise self.refuse(node, reason)
        self.leaves[name] = (node.lineno, node.col_offset)
        return "tensor"

    def _e_Attribute(self, node, ctx):
        attr = node.attr
        if attr.startswith("_"):
            raise self.refuse(node, f"attribute '{attr}' is not allowed: names starting with '_' are never "
                                    "accessible", attr_only=True)
        dotted = _dotted(node)
        if dotted is not None and ns.is_module_head(dotted.split(".", 1)[0]) and dotted.split(".", 1)[0] \
                not in self.env:
            found = ns.resolve_dotted(dotted)
            if found is None:
                raise self.refuse(node, f"'{dotted}' is not available in expressions")
            what, obj = found
            if what == "function":
                if ctx != "func":
                    raise self.refuse(node, f"function '{dotted}' can only be called, e.g. {dotted}(x)")
                return obj
            if what == "module":
                raise self.refuse(node, f"module '{dotted}' can only be used to name a function or constant")
            if ctx == "func":
                raise self.refuse(node, f"'{dotted}' is a constant, not a function")
            return obj[0]
        base = self.expr(node.value)
        if ctx == "func":
            method = ns.METHODS.get(attr)
            if method is None:
                raise self.refuse(node, f"tensor method '.{attr}()' is not allowed", attr_only=True)
            if base not in ("tensor", "any"):
                raise self.refuse(node, f"'.{attr}()' can only be called on a tensor, not on a "
                                        f"{_KIND_NAMES[base]}", attr_only=True)
            return method
        if attr in ns.ATTRIBUTES:
            if attr in ns.RETURN_TYPE_ATTRIBUTES:
                if base != "any":
                    raise self.refuse(node, f"'.{attr}' is only available on the (values, indices) results of "
                                            f"max/min/sort/topk, not on a {_KIND_NAMES[base]}", attr_only=True)
            elif base not in ("tensor", "any"):
                raise self.refuse(node, f"attribute '.{attr}' is only available on tensors, not on a "
                                        f"{_KIND_NAMES[base]}", attr_only=True)
            return ns.ATTRIBUTES[attr]
        if attr in ns.METHODS:
            raise self.refuse(node, f"method '.{attr}' must be called, e.g. .{attr}()", attr_only=True)
        raise self.refuse(node, f"attribute '.{attr}' is not allowed", attr_only=True)

    def _e_Call(self, node, ctx):
        func = node.func
        if isinstance(func, ast.Name):
            name = func.id
            target = self.functions.get(name)
            if target is None:
                if name in self.env or name in self.leaves:
                    raise self.refuse(func, f"'{name}' is a tensor, not a function")
                reason = ns.name_refusal(name)
                if reason:
                    raise self.refuse(func, f"calling '{name}' is not allowed: " + reason.split(": ", 1)[-1]
                                      if name.startswith("_") else reason)
                raise self.refuse(func, f"'{name}' is not a known function; only torch functions (tanh, exp, "
                                        f"mm, ...) and tensor methods can be called")
        elif isinstance(func, ast.Attribute):
            target = self._e_Attribute(func, "func")
        else:
            raise self.refuse(func, "only torch functions and tensor methods can be called")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                kind = self.expr(arg.value)
                if kind not in ("seq", "size", "any"):
                    raise self.refuse(arg, f"only tuples and lists can be unpacked with *, not a "
                                           f"{_KIND_NAMES[kind]}")
            else:
                self.expr(arg, "arg")
        for kw in node.keywords:
            if kw.arg is None:
                raise self.refuse(kw, "**kwargs are not allowed")
            if kw.arg.startswith("_"):
                raise self.refuse(kw, f"keyword argument '{kw.arg}' is not allowed: names starting with '_' are "
                                      "never accessible")
            if kw.arg in ns.REFUSED_KEYWORDS:
                raise self.refuse(kw, f"keyword argument '{kw.arg}=' is not allowed")
            kind = self.expr(kw.value, "arg")
            if kw.arg == "dtype" and kind not in ("dtype", "none", "any"):
                raise self.refuse(kw.value, "dtype= must be a torch dtype such as torch.float64")
        return target.returns

    def _e_Subscript(self, node, ctx):
        base = self.expr(node.value)
        if base not in ("tensor", "any", "seq", "size"):
            raise self.refuse(node.value, f"a {_KIND_NAMES[base]} cannot be indexed")
        is_slice = self._index(node.slice)
        if base == "tensor":
            return "tensor"
        if base == "size":
            return "size" if is_slice else "number"
        return "any"

    def _index(self, node):
        if isinstance(node, ast.Slice):
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    kind = self.expr(part)
                    if kind not in _NUMERIC and kind != "none":
                        raise self.refuse(part, f"a slice bound must be an integer, not a {_KIND_NAMES[kind]}")
            return True
        if isinstance(node, ast.Tuple):
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    raise self.refuse(elt, _REFUSED_EXPRESSIONS["Starred"])
                self._index(elt)
            return False
        kind = self.expr(node)
        if kind in ("str", "dtype", "node"):
            raise self.refuse(node, f"a {_KIND_NAMES[kind]} cannot be used as an index")
        return False

    def _display(self, node, ctx):
        if not isinstance(node.ctx, ast.Load):
            raise self.refuse(node, "only 'name = expression' assignments are allowed")
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                raise self.refuse(elt, _REFUSED_EXPRESSIONS["Starred"])
            kind = self.expr(elt)
            if kind in ("node",):
                raise self.refuse(elt, f"a {_KIND_NAMES[kind]} cannot be put in a tuple or list")
        return "seq"

    _e_Tuple = _display
    _e_List = _display

    def _e_BinOp(self, node, ctx):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.refuse(node, f"the operator {_op_text(node.op)} is not allowed")
        kinds = []
        for side in (node.left, node.right):
            kind = self.expr(side)
            if kind not in _NUMERIC:
                raise self.refuse(side, f"'{op}' is only allowed on tensors and numbers, not on a "
                                        f"{_KIND_NAMES[kind]}")
            kinds.append(kind)
        if op in ("**", "*"):
            try:
                _const_int(node)
            except ExpressionError as e:
                raise self.refuse(node, e.message, kind="limit") from None
        if "tensor" in kinds:
            return "tensor"
        if all(k in ("number", "bool") for k in kinds):
            return "number"
        return "any"

    def _e_UnaryOp(self, node, ctx):
        op = _UNARYOPS.get(type(node.op))
        if op is None:
            raise self.refuse(node, "'not' is not allowed; use logical_not(x) or ~x on boolean tensors")
        kind = self.expr(node.operand)
        if kind not in _NUMERIC:
            raise self.refuse(node.operand, f"unary '{op}' is only allowed on tensors and numbers, not on a "
                                            f"{_KIND_NAMES[kind]}")
        return "number" if kind == "bool" else kind

    def _e_Compare(self, node, ctx):
        kinds = [self.expr(node.left)]
        for op, comp in zip(node.ops, node.comparators):
            if not isinstance(op, _ORDERING + _EQUALITY):
                raise self.refuse(node, "'in' / 'not in' are not allowed")
            kinds.append(self.expr(comp))
            if isinstance(op, _ORDERING):
                for k, n in ((kinds[-2], node.left), (kinds[-1], comp)):
                    if k not in _NUMERIC:
                        raise self.refuse(n, f"ordering comparisons are only allowed on tensors and numbers, not "
                                             f"on a {_KIND_NAMES[k]}")
        return "any"


def _short(text, n=24):
    r = repr(text)
    return r if len(r) <= n else r[:n] + "...'"


def _op_text(op):
    return {ast.LShift: "'<<'", ast.RShift: "'>>'"}.get(type(op), type(op).__name__)


def _const_int(node):
    """The value of a constant integer expression (literals, unary minus, + - * **),
    with the same bounds as evaluation; None when it is not one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _const_int(node.operand)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Pow)):
        a, b = _const_int(node.left), _const_int(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Pow):
            if b < 0:
                return None
            limits.check_int_pow(a, b, "this power")
            v = a ** b
        elif isinstance(node.op, ast.Mult):
            v = a * b
        elif isinstance(node.op, ast.Add):
            v = a + b
        else:
            v = a - b
        limits.check_int(v, "this arithmetic")
        return v
    return None
