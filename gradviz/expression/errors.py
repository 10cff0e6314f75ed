"""ExpressionError (refused or unparsable input) and its caret rendering."""

__all__ = ["ExpressionError", "format_error"]

# How wide a window of a long source line ``format_error`` shows around the column.
_WINDOW = 76


class ExpressionError(Exception):
    """Input that ``gradviz graph`` refuses: a syntax error, a construct outside the
    whitelist, or a size/time limit.  The CLI maps it to exit status 2.

    Attributes
    ----------
    message : str
        What is wrong, in one sentence (no position in it).
    line, col : int or None
        1-based line and 1-based *character* column of the offending part of ``source``
        (None when the error is about the input as a whole).
    end_col : int or None
        1-based column just past the offending part when it lies on one line; the
        caret line underlines ``col .. end_col - 1``.
    source : str
        The text that was parsed (the expression, or a ``--var`` value).
    kind : str
        ``"syntax"`` (not Python), ``"refused"`` (outside the whitelist), ``"limit"``
        (too long, too deep, too large an allocation, too large a number) or
        ``"option"`` (a bad ``shape`` / ``var_specs`` value).
    context : str or None
        What ``source`` is when it is not the expression itself, e.g. ``"--var x"``.
    """

    def __init__(self, message, *, line=None, col=None, end_col=None, source="", kind="refused", context=None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.end_col = end_col
        self.source = source or ""
        self.kind = kind
        self.context = context

    @property
    def source_line(self):
        """The text of the offending line (``""`` when unknown)."""
        if self.line is None:
            return ""
        lines = self.source.splitlines() or [""]
        if 1 <= self.line <= len(lines):
            return lines[self.line - 1]
        return ""

    def __str__(self):
        where = ""
        if self.line is not None and self.col is not None:
            where = f" (line {self.line}, column {self.col})"
        ctx = f"{self.context}: " if self.context else ""
        return f"{ctx}{self.message}{where}"

    def __repr__(self):
        return (f"ExpressionError({self.message!r}, line={self.line}, col={self.col}, end_col={self.end_col}, "
                f"kind={self.kind!r})")


def _printable(text):
    """Control characters (NUL, tabs, escapes) shown as one visible character each, so
    columns stay aligned and the terminal is not driven by the input."""
    out = []
    for ch in text:
        if ch == "\t":
            out.append(" ")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append("\N{REPLACEMENT CHARACTER}" if ch != "\x00" else "\N{SYMBOL FOR NULL}")
        elif 0x80 <= ord(ch) < 0xA0 or ch in "\u2028\u2029\u202e\u202d\u202a\u202b\u202c\u2066\u2067\u2068\u2069":
            out.append("\N{REPLACEMENT CHARACTER}")
        else:
            out.append(ch)
    return "".join(out)


def format_error(err, prefix="error"):
    """``err`` as the CLI prints it: a message line, the offending source line and a
    caret line under the offending part. Long lines are shown as a window around the
    column; control characters are made visible. Example::

        error: attribute '__class__' is not allowed: names starting with '_' are never accessible
          x.__class__
            ^^^^^^^^^
    """
    if not isinstance(err, ExpressionError):
        return f"{prefix}: {err}"
    head = f"{prefix}: "
    if err.context:
        head += f"{err.context}: "
    head += err.message
    lines = [head]
    text = err.source_line
    if err.line is None or err.col is None or not text and err.col > 1:
        if err.line is not None and len(err.source.splitlines()) > 1:
            lines[0] += f" (line {err.line})"
        return "\n".join(lines)
    if len(err.source.splitlines()) > 1:
        lines[0] += f" (line {err.line}, column {err.col})"
    col = max(1, min(err.col, len(text) + 1))
    end = err.end_col if err.end_col is not None and err.end_col > col else col + 1
    end = min(end, len(text) + 1) if len(text) >= col else col + 1
    # A window of at most _WINDOW characters that contains the column.
    start = 0
    shown = text
    lead = ""
    if len(text) > _WINDOW:
        start = max(0, min(col - 1 - _WINDOW // 3, len(text) - _WINDOW))
        shown = text[start:start + _WINDOW]
        lead = "..." if start > 0 else ""
        if start + _WINDOW < len(text):
            shown += "..."
    caret_from = col - 1 - start
    caret_len = max(1, min(end - col, len(shown) - caret_from if len(shown) > caret_from else 1))
    lines.append("  " + lead + _printable(shown))
    lines.append("  " + " " * (len(lead) + caret_from) + "^" * caret_len)
    return "\n".join(lines)
