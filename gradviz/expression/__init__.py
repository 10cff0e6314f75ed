"""Safe parsing and evaluation of ``gradviz graph "EXPRESSION"``.

The input is one expression, or simple assignments separated by ``;`` or newlines that
end in an expression or an assignment::

    b = w1*a; c = w2*a; L = (10 - (w3*b + w4*c)).sum()

It is parsed with :mod:`ast` only (never ``eval``/``exec``/``compile`` to code) and
evaluated by walking the tree against an explicit whitelist (``namespace.py``). The
whole tree is validated before anything runs.

API
---
``parse(text) -> Program``
    Validate ``text``; raise :class:`ExpressionError` if it is refused. A Program has
    ``source`` (normalized text), ``statements`` (:class:`Statement`: ``kind`` "assign" or
    "expr", ``target``, ``source``), ``leaves`` (free names in order of first appearance),
    ``assigned``, ``result_name`` and ``result_source``.

``evaluate(program, shape=None, var_specs=None, seed=0, max_elements=10_000_000, *,
max_total_elements=50_000_000, dtype=None) -> Evaluation``
    ``program`` may also be text. Free names become leaves with ``requires_grad=True``,
    created in order of first appearance after ``gradviz.torch.manual_seed(seed)``:

    - ``var_specs[name]`` as a shape (``"3x3"``, ``"3,3"``, ``"()"``, a tuple, an int) gives
      ``randn(shape)``; as a value (``"linspace(0,1,5)"``, ``"[1.,2.,3.]"``,
      ``"tensor([[1,2],[3,4]])"``, ``"randn(2,3)"``, evaluated by the same safe evaluator
      without free names; or a Tensor, numpy array, list or number) gives that value;
    - otherwise ``randn(shape)`` with the global ``shape`` (tuple or ``"3,3"``; default
      ``DEFAULT_SHAPE`` = (3,)).

    Leaves are float32 unless ``dtype`` says otherwise (a value spec with an explicit
    floating dtype keeps it when ``dtype`` is None; integer values are converted).
    The result (:class:`Evaluation`) holds ``value``, ``result_label``, ``leaves``
    (name -> tensor), ``assigned`` (name -> value), ``intermediates`` (:class:`Intermediate`:
    ``label``, ``source`` such as ``"w1*a"``, ``tensor``, ``name``, position), ``tensors``
    (label -> tensor: leaves then intermediates, for the table) and ``label_of(tensor)``
    (for graph labels). Refused input and allocations over the limits raise
    ExpressionError *before* allocating. Engine errors (RuntimeError, TypeError, ...)
    propagate unchanged, with an attribute ``gradviz_partial``: the Evaluation of what ran,
    whose ``error_position`` (line, col, end_col) and ``error_source`` name the innermost
    failing subexpression. The engine's global RNG is reseeded.

``format_error(err) -> str``
    The message, the source line and a caret line under the offending part::

        error: attribute '__class__' is not allowed: names starting with '_' are never accessible
          x.__class__
            ^^^^^^^^^

``ExpressionError``
    ``.message``, ``.line`` and ``.col`` (1-based, characters), ``.end_col``, ``.source``,
    ``.source_line``, ``.kind`` ("syntax", "refused", "limit", "option") and ``.context``
    (e.g. "--var x" when the error is in a var spec). The CLI exits with status 2.

``parse_shape(text) -> tuple``
    ``"3,3"``, ``"3x3"``, ``"(2, 3)"``, ``"5"``, ``"()"`` -> a shape (for ``--shape``).

What is accepted
----------------
Numbers (int literals up to 2**64; Python int results up to 1024 bits; ``**`` on ints is
refused before computing when the result would be larger), ``True``/``False``/``None``,
names, tuples, lists, the operators ``+ - * / // % ** @ & | ^``, unary ``- + ~``,
comparisons ``== != < <= > >= is is not``, subscripts and slices, calls to whitelisted
torch functions (``tanh``, ``torch.tanh``, ``F.relu``, ``torch.nn.functional.relu`` ...),
whitelisted tensor methods (``.sum(dim=1)``, ``.t()``, ``.pow(2)``, ``.view(...)`` ...)
and attributes (``.T``, ``.grad``, ``.shape``, ``.dtype``, ``.grad_fn`` ...), keyword
arguments, ``*`` unpacking of tuples/lists into whitelisted calls, a few string
arguments (``reduction='sum'``, ``approximate='tanh'`` ...), dtype constants
(``torch.float64``) and ``torch.pi``/``math.pi`` and friends, and ``name = expression``
assignments (each name bound once).

Everything else is refused with a position: names and attributes starting with ``_``,
Python builtins as names (``open``, ``eval``, ``getattr``, ``type``, ``globals`` ...),
module names (``os``, ``np`` ...), imports, definitions, decorators, lambdas,
comprehensions, f-strings, string literals elsewhere than as known option values,
walrus, dict/set displays, ``and``/``or``/``not``, conditional expressions, ``in``,
shifts, attribute access on anything but tensors, calls to anything but whitelisted
functions and methods, ``**kwargs``, ``out=``, input over 10,000 characters, 2,000
syntax nodes or 100 levels of nesting, NUL characters.
"""
from .errors import ExpressionError, format_error
from .evaluator import DEFAULT_SEED, DEFAULT_SHAPE, Evaluation, Intermediate, evaluate, parse_shape
from .limits import DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_TOTAL_ELEMENTS
from .parser import Program, Statement, parse

__all__ = ["parse", "evaluate", "format_error", "parse_shape", "ExpressionError", "Program", "Statement",
           "Evaluation", "Intermediate", "DEFAULT_SHAPE", "DEFAULT_SEED", "DEFAULT_MAX_ELEMENTS",
           "DEFAULT_MAX_TOTAL_ELEMENTS"]
