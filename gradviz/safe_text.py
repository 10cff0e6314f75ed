"""Untrusted text made safe for a terminal: what a script, an expression or a pasted
message contains (a tensor's name, an error message, a printed value) reaches the screen
with its control characters shown, never obeyed. An escape sequence could otherwise set
the window title (OSC), reset the terminal (``ESC c``), switch its character set or move
the cursor over gradviz's own output.

C0 controls other than newline and tab, DEL, and the C1 range are written visibly: ESC as
``^[`` (the caret form terminals use), the rest as ``\\x..`` escapes, as Python's repr
writes them. JSON output keeps the exact text: it is data, not a screen.

Text that is not valid Unicode is made writable the same way. A lone surrogate (a
script's ``"x\\ud800"``, or a byte of a file name that is not UTF-8, which Python keeps
as ``\\udce8``) cannot be encoded as UTF-8, so a writer given one would fail: each is
written as an escape instead, the byte ``\\xe8`` for a file name's, ``\\ud800`` for the
rest. ``clean`` does that alone (for the pages and pictures gradviz writes); ``visible``
does it too, so the terminal never meets one either.
"""
import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _shown(match) -> str:
    char = match.group()
    if char == "\x1b":
        return "^["
    if char == "\r":
        return "\\r"
    return f"\\x{ord(char):02x}"


def _escaped(match) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for a byte that is not UTF-8
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def clean(text) -> str:
    """``text`` with every lone surrogate written as an escape: always encodable as UTF-8."""
    text = str(text)
    return _SURROGATE.sub(_escaped, text) if _SURROGATE.search(text) else text


def utf8(text) -> bytes:
    """``text`` as UTF-8, for a file gradviz writes: what cannot be encoded is escaped."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return clean(text).encode("utf-8")


def visible(text) -> str:
    """``text`` with every control character but newline and tab made visible, and every
    lone surrogate escaped."""
    text = clean(text)
    return _CONTROL.sub(_shown, text) if _CONTROL.search(text) else text


def visible_line(text) -> str:
    """The same for text that must stay on one line: newlines and tabs shown too."""
    return visible(text).replace("\n", "\\n").replace("\t", "\\t")



def visible_data(obj):
    """A document (dicts, lists, strings) with every string made visible, for rendering
    one whose JSON form keeps the exact text. Tuples come back as lists."""
    def copied(value):
        if isinstance(value, str):
            return visible(value)
        if isinstance(value, dict):
            new = {}
            pending.append((value.items(), new))
            return new
        if isinstance(value, (list, tuple)):
            new = [None] * len(value)
            pending.append((enumerate(value), new))
            return new
        return value

    pending = []
    top = copied(obj)
    while pending:  # iterative: a document may nest deeper than the stack allows
        items, target = pending.pop()
        for key, value in items:
            target[key] = copied(value)
    return top
