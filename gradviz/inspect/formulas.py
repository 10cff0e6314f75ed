"""``formula_texts(node_name)``: the gradient formula of each input of a node, as text.

The texts come from gradviz's op table (``gradviz/torch/_ops.py``), where each op declares
one formula per differentiable input, usually a lambda: ``mul``'s ``self`` is
``lambda grad, other: grad * F.conj(other)``, shown as ``grad * F.conj(other)``. A
lambda's body is found from its code object's instruction positions, not by parsing the
declaration, so several lambdas on one line, or one lambda over several lines, each give
their own body. Real PyTorch's nodes are looked up by their class name, which the op
table shares with PyTorch: where we know the node, its formulas are ours, written with
the engine's functions (``F.conj``), and read as derivatives.yaml reads.
"""
import linecache
import re
from types import CodeType

# Instruction positions (co_positions) came with Python 3.11; without them, no texts.
HAS_POSITIONS = hasattr(CodeType, "co_positions")
MAX_CACHED = 10_000  # node names; custom Functions' nodes are names too, and a script may make many

_TEXTS = {}  # node name -> ((input, text), ...): one tuple shared by every node of that name


def formula_texts(node_name):
    """``((input name, formula text), ...)`` of the nodes called ``node_name``, in the op
    table's order; empty for a name the table does not declare, and on Python < 3.11 (no
    instruction positions)."""
    texts = _TEXTS.get(node_name)
    if texts is None:
        texts = _texts_of(node_name)
        if len(_TEXTS) < MAX_CACHED:
            _TEXTS[node_name] = texts
    return texts


def _texts_of(node_name):
    if not HAS_POSITIONS:
        return ()
    # imported on first use: importing gradviz.inspect loads no engine
    from gradviz.torch.autograd.graph import formulas_of

    return tuple((name, formula_text(fn)) for name, fn in formulas_of(node_name))


def formula_text(fn):
    """A lambda's body as written, whitespace collapsed; ``name(args)`` for a named
    function (the nll_loss formula, ``_where_selected``), whose body is a block, not an
    expression."""
    code = getattr(fn, "__code__", None)
    name = getattr(fn, "__name__", None) or type(fn).__name__
    if code is None:
        return f"{name}(...)"
    if name == "<lambda>":
        text = _source_span(code)
        if text:
            return _one_line(text)
    return f"{name}({', '.join(code.co_varnames[:code.co_argcount])})"


def _one_line(text):
    """Whitespace collapsed to single spaces, and none where a line break only followed an
    opening bracket or preceded a closing one: ``f(\n    x)`` reads ``f(x)``, as if written
    on one line."""
    text = _BROKEN_CLOSE.sub(r"\1", _BROKEN_OPEN.sub(r"\1", text))
    return " ".join(text.split())


_BROKEN_OPEN = re.compile(r"([(\[{])[ \t]*\n\s*")
_BROKEN_CLOSE = re.compile(r"\s*\n[ \t]*([)\]}])")


def _source_span(code):
    """The source between the earliest start and the latest end of ``code``'s instructions:
    for a lambda, exactly its body. Instructions with an empty span (RESUME, and on 3.11 the
    implicit RETURN_VALUE, placed at column 0 of the first line) say nothing and are
    skipped. Columns are UTF-8 byte offsets, so lines are cut as bytes."""
    spans = [(line, col, end_line, end_col) for line, end_line, col, end_col in code.co_positions()
             if None not in (line, end_line, col, end_col) and (line, col) != (end_line, end_col)]
    if not spans:
        return ""
    start = min((line, col) for line, col, _, _ in spans)
    end = max((end_line, end_col) for _, _, end_line, end_col in spans)
    lines = linecache.getlines(code.co_filename)
    if end[0] > len(lines):
        return ""  # the source is gone or changed since the code was compiled
    chosen = [line.encode("utf-8") for line in lines[start[0] - 1:end[0]]]
    chosen[-1] = chosen[-1][:end[1]]  # the last line first: with one line, both cuts apply to it
    chosen[0] = chosen[0][start[1]:]
    text = [line.decode("utf-8", errors="replace") for line in chosen]
    # a comment can only sit at the end of a line the body goes on after
    return "\n".join([_without_comment(line) for line in text[:-1]] + text[-1:])


def _without_comment(line):
    """``line`` up to its ``#`` comment, a ``#`` inside a string literal not counting."""
    quote = None
    for i, char in enumerate(line):
        if quote is not None:
            if char == quote and not _escaped(line, i):
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:i]
    return line


def _escaped(line, i):
    """Whether ``line[i]`` follows an odd number of backslashes."""
    count = 0
    while i > count and line[i - count - 1] == "\\":
        count += 1
    return count % 2 == 1
