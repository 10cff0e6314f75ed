"""Which call in the user's code made an op, and that call's source text.

A forward view shows one op per torch-level call (``F.linear``, ``h @ W``,
``torch.lstm_cell``), as PyTorch's ``TorchFunctionMode`` sees them, and names a value by
the expression that made it (``xs[t] @ W_xh``). Both recorders use this module:

- ``span_of(frame)``: where in its line a frame is now, from Python's instruction
  positions (what its tracebacks underline): the span of ``xs[t] @ W_xh`` while the
  matmul it calls runs;
- ``EngineCalls``: on gradviz's engine, the torch-level function call a new node was made
  in, found on the stack: the outermost frame of a public torch function (``Tensor``
  methods, ``torch.*``, ``nn.functional``...) below the user's code or a module's
  ``forward``; the nodes one call makes are one op, as on PyTorch;
- ``source_text`` and ``operand_texts``: the text of a span, and of its operands (the
  left and right of ``@``, a call's arguments), to name values no variable names;
- ``op_name``: a function's name as an op name (``__matmul__`` -> ``matmul``).
"""
import ast
import functools
import linecache
import os
import re

MAX_TEXT = 40  # longer source text is not a label (the built expression is shorter)

_POSITIONS = {}  # id(code) -> (code, positions); the code is kept so its id stays its own
_MAX_CODES = 256


def span_of(frame):
    """(line, end_line, col, end_col) of the instruction ``frame`` runs, columns in UTF-8
    bytes; None when Python does not know it (before 3.11)."""
    return span_at(frame.f_code, frame.f_lasti)


def span_at(code, lasti):
    """``span_of`` a frame of ``code`` at instruction offset ``lasti``."""
    if not hasattr(code, "co_positions"):
        return None
    entry = _POSITIONS.get(id(code))
    if entry is None or entry[0] is not code:
        if len(_POSITIONS) >= _MAX_CODES:
            _POSITIONS.clear()
        entry = _POSITIONS[id(code)] = (code, list(code.co_positions()))
    positions = entry[1]
    k = lasti // 2
    if not 0 <= k < len(positions):
        return None
    span = positions[k]
    return span if None not in span else None


def source_text(filename, span):
    """The source text of ``span`` in ``filename`` on one line, or None (no source, or
    longer than MAX_TEXT)."""
    line, end_line, col, end_col = span
    if end_line - line > 4:
        return None
    lines = [linecache.getline(filename, k).encode() for k in range(line, end_line + 1)]
    if not lines[0]:
        return None
    if line == end_line:
        text = lines[0][col:end_col]
    else:
        text = lines[0][col:] + b"".join(lines[1:-1]) + lines[-1][:end_col]
    try:
        text = " ".join(text.decode().split())
    except UnicodeDecodeError:
        return None
    return text if 0 < len(text) <= MAX_TEXT else None


@functools.lru_cache(maxsize=4096)  # a loop runs the same lines again and again
def parse(text):
    """(binds_loosely, operand texts) of source text: whether it needs parentheses inside
    a larger expression (``a @ b``), and ``operand_texts``."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return True, None
    loose = isinstance(tree, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Lambda))
    return loose, _operands(text, tree)


def source_of(site, span):
    """(the line of code at ``site``, the source text of the call at ``span`` in it or None);
    ``span`` as recorders keep it, the caller's (code, instruction offset)."""
    if not site:
        return "", None
    where = span_at(*span) if span is not None else None
    return linecache.getline(site[0], site[1]).strip(), source_text(site[0], where) if where else None


def operand_texts(text):
    """The source texts of an expression's tensor operands, in the order an op takes
    them: ``a @ b`` -> [a, b], ``f(a, b)`` -> [a, b], ``a.f(b)`` -> [a, b], ``a[i]`` -> [a].
    Numbers are left out (they are constants, not tensors); None when not one of these."""
    return parse(text)[1]


def _operands(text, tree):
    if isinstance(tree, ast.BinOp):
        parts = [tree.left, tree.right]
    elif isinstance(tree, ast.UnaryOp):
        parts = [tree.operand]
    elif isinstance(tree, ast.Subscript):
        parts = [tree.value]
    elif isinstance(tree, ast.Call) and not tree.keywords:
        parts = list(tree.args)
        if isinstance(tree.func, ast.Attribute) and not _is_namespace(tree.func.value):
            parts.insert(0, tree.func.value)
    else:
        return None
    return tuple(ast.get_source_segment(text, p) for p in parts if not isinstance(p, ast.Constant))


def _is_namespace(node):
    """``torch``, ``F``, ``torch.nn.functional``: a module, not a tensor (``x.tanh()``)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in ("torch", "F", "nn", "functional", "np", "math")


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


def node_op_name(node_type):
    """The forward op behind a node type: MulBackward0 -> 'mul', SliceBackward0 -> 'slice'."""
    base = _BACKWARD_SUFFIX.sub("", node_type) or node_type
    return _CAMEL.sub("_", base).lower()


_RENAMED = {"truediv": "div", "truediv_": "div_", "getitem": "index"}
_INPLACE_DUNDERS = ("add", "sub", "mul", "truediv", "matmul", "pow", "and", "or")
_REFLECTED_DUNDERS = ("add", "mul", "truediv", "matmul", "pow")


def op_name(name, inplace=False):
    """'mul' for __mul__, 'add_' for __iadd__, 'matmul' for __rmatmul__, 'linear' for linear."""
    if name.startswith("__") and name.endswith("__"):
        name = name[2:-2]
        if name.startswith("i") and name[1:] in _INPLACE_DUNDERS:
            name = name[1:] + "_"
        elif name.startswith("r") and name[1:] in _REFLECTED_DUNDERS:
            name = name[1:]
    name = _RENAMED.get(name, name)
    if inplace and not name.endswith("_"):
        name += "_"
    return name


# --------------------------------------------------------------------------- gradviz's engine

# What a frame's code is (``EngineCalls._kinds``): a public function's op name ("" for a
# wrapper, named by what it wraps), or one of these.
_INTERNAL = object()  # the engine's inside: kernels, the autograd graph
_USERS = object()  # outside gradviz: the user's code, a library of theirs
_SCAFFOLDING = object()  # the engine's Python-level scaffolding, and the rest of gradviz


class EngineCalls:
    """Finds, for a node being made, the torch-level call that makes it.

    Engine frames are of three kinds: a public torch function (the *call*, named), the
    engine's internals (kernels, the autograd graph: inside some call), and the engine's
    Python-level scaffolding, which PyTorch also runs as plain Python: modules'
    ``forward``, ``autograd.Function.apply``, ``torch.utils`` (checkpoint), optimizers.
    Scaffolding and code outside the engine end the search, as the user's code does."""

    def __init__(self, engine):
        self.engine = engine
        root = os.path.dirname(os.path.abspath(engine.__file__))
        self._engine_dir = root + os.sep
        self._gradviz_dir = os.path.dirname(root) + os.sep
        self._modules_dir = os.path.join(root, "nn", "modules") + os.sep
        self._scaffolding = tuple(os.path.join(root, *part.split("/")) for part in
                                  ("utils/", "optim/", "autograd/function.py"))
        self._function_file = self._scaffolding[-1]
        self._module_classes = _module_classes(engine.nn.Module)
        # by id(code): a code object's hash is computed from its bytecode on every call
        public = _public_functions(engine)
        self._codes = list(public)  # kept, so their ids stay theirs
        self._kinds = {id(code): name or "" for code, name in public.items()}

    def _kind(self, code):
        filename = code.co_filename
        if not filename.startswith(self._gradviz_dir):
            kind = _USERS
        elif not filename.startswith(self._engine_dir):
            kind = _SCAFFOLDING
        elif filename.startswith(self._modules_dir):  # a Module's method; ATen's functions beside them
            owner = getattr(code, "co_qualname", "").split(".")[0]
            kind = _SCAFFOLDING if owner in self._module_classes or not hasattr(code, "co_qualname") else _INTERNAL
        else:
            kind = _SCAFFOLDING if filename.startswith(self._scaffolding) else _INTERNAL
        self._codes.append(code)
        self._kinds[id(code)] = kind
        return kind

    def find(self, frame):
        """(call frame, call name, caller frame, whether the caller is the user's code) for
        a node made below ``frame``: the outermost public function frame and the frame that
        called it, the user's code or scaffolding; no call frame when no public function
        is on the way. Once per node: kept to a loop over a few frames."""
        call = name = None
        kinds, internal, users, scaffolding = self._kinds, _INTERNAL, _USERS, _SCAFFOLDING
        while frame is not None:
            kind = kinds.get(id(frame.f_code))
            if kind is None:
                kind = self._kind(frame.f_code)
            if kind is users or kind is scaffolding:
                return call, name, frame, kind is users
            if kind is not internal:
                call = frame
                if kind:  # a wrapper keeps the name of the function it wraps
                    name = kind
            frame = frame.f_back
        return call, name, None, False

    def caller_of_apply(self, frame):
        """The user's frame that called ``Function.apply`` (``frame`` is in it), or None
        when something else did (a checkpoint, a module)."""
        while frame is not None and frame.f_code.co_filename == self._function_file:
            frame = frame.f_back
        return frame if self.is_users(frame) else None

    def is_users(self, frame):
        """Whether ``frame`` is outside gradviz: the user's code (or a library of theirs)."""
        return frame is not None and (self._kinds.get(id(frame.f_code)) or self._kind(frame.f_code)) is _USERS


def _public_functions(engine):
    """{code: op name} of the engine's public functions: ``torch.*``, Tensor methods and
    properties, ``nn.functional``, ``linalg``, ``special``. None names a code that is not
    one function's alone: a wrapper (``__wrapped__``: the function inside names the call)
    or a factory's closure (``_unary('tanh')``: the node's op names it)."""
    spaces = [vars(engine).items(), vars(engine.Tensor).items()]
    for sub in ("nn.functional", "linalg", "special", "fft"):
        space = engine
        for part in sub.split("."):
            space = getattr(space, part, None)
        if space is not None:
            spaces.append(vars(space).items())
    names, owner = {}, {}
    for items in spaces:
        for attr, obj in list(items):
            if attr.startswith("_") and not (attr.startswith("__") and attr.endswith("__")):
                continue  # helpers (F._apply), not torch functions
            if isinstance(obj, property):
                obj = obj.fget
            elif isinstance(obj, (staticmethod, classmethod)):
                obj = obj.__func__
            code = getattr(obj, "__code__", None)
            if code is None or isinstance(obj, type) or getattr(obj, "__module__", "").startswith(_NOT_CALLS):
                continue
            wrapped = getattr(obj, "__wrapped__", None)
            if wrapped is not None:
                names[code] = None
                obj, code = wrapped, getattr(wrapped, "__code__", None)
                if code is None:
                    continue
            if owner.setdefault(code, obj) is not obj:
                names[code] = None  # one code, several functions
            elif code not in names:
                names[code] = op_name(code.co_name if code.co_name.isidentifier() else attr)
    return names


def _module_classes(base):
    """The qualified names of ``base`` and its subclasses (no recursion: a worklist)."""
    names, todo = set(), [base]
    while todo:
        cls = todo.pop()
        if cls.__qualname__ not in names:
            names.add(cls.__qualname__)
            todo.extend(cls.__subclasses__())
    return names


# Public functions that are not one op: the autograd machinery and transforms run others.
_NOT_CALLS = ("gradviz.torch.autograd", "gradviz.torch.func", "gradviz.float_noise")
