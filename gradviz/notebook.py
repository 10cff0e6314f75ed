"""Jupyter notebooks as input: the code cells of an ``.ipynb``, as Python.

``read_notebook(path, data)`` returns the notebook's code cells in order. Markdown and
raw cells are left out. Each cell is named the way the notebook shows it: ``In [5]``
when it was run and saved with an execution count, else ``cell 3`` (its place among
the code cells).

A notebook's code is IPython, not plain Python. Lines that only IPython understands are
set aside, each with a note saying so, instead of failing as syntax errors:

- line magics (``%matplotlib inline``) and shell commands (``!pip install torch``),
  also as the value of an assignment (``files = !ls``);
- help requests (``torch.randn?``, ``??x``);
- ``%time`` / ``%timeit`` keep their statement, which runs once, untimed;
- a cell magic on the cell's first line: the body of ``%%time``, ``%%timeit``,
  ``%%capture`` and ``%%gradviz`` is Python and runs; any other (``%%bash``,
  ``%%writefile``, ``%%html`` ...) makes the whole cell something other than Python,
  and it is skipped.

A line set aside becomes ``pass`` (with its indentation), so the lines around it keep
their numbers and an indented block stays a block. Only a line that starts a statement
is looked at: the same text inside a string or a bracket is Python's business.
"""
import json
from dataclasses import dataclass
from typing import Optional

#: Cell magics whose body is Python that runs as it is (the magic itself is dropped).
PYTHON_CELL_MAGICS = ("time", "timeit", "capture", "prun", "gradviz")
#: Line magics whose argument is a statement that runs (once, untimed).
STATEMENT_MAGICS = ("time", "timeit", "prun")


class NotebookError(Exception):
    """The file is not a notebook gradviz can read (one line, for the user)."""


@dataclass(frozen=True)
class SetAside:
    """A line of IPython syntax that gradviz did not run as written."""

    line: int  # in the cell, 1-based
    text: str  # the line as written, stripped
    why: str  # e.g. "an IPython magic", "a shell command"
    kept: str = ""  # the statement of a %time line, which did run

    def note(self, label: str) -> str:
        if self.kept:
            return f"{label}, line {self.line}: ran `{self.kept}` once, without `{self.why}` (an IPython magic)"
        return f"{label}, line {self.line}: skipped `{self.text}` ({self.why}; gradviz runs Python only)"


@dataclass(frozen=True)
class NotebookCell:
    label: str  # 'In [5]', or 'cell 3' for a cell never run
    index: int  # its place among all the notebook's cells, 0-based, as nbformat counts
    source: str  # Python: the cell with its IPython lines set aside
    set_aside: tuple  # of SetAside
    quiet: bool  # its last line ends with ';': Jupyter shows no value
    text: str = ""  # the cell as written


def read_notebook(path: str, data: bytes) -> list:
    """The code cells of the notebook ``data`` (the bytes of ``path``), as NotebookCells.

    Raises NotebookError, with one line saying what is wrong, for anything that is not
    an nbformat 3 or 4 notebook of Python code.
    """
    if not data.strip():
        raise NotebookError(f"cannot read '{path}' as a notebook: the file is empty")
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as e:
        raise NotebookError(f"cannot read '{path}' as a notebook: it is not UTF-8 text "
                            f"(byte 0x{e.object[e.start]:02x} at offset {e.start})") from None
    except json.JSONDecodeError as e:
        raise NotebookError(f"cannot read '{path}' as a notebook: it is not valid JSON "
                            f"({e.msg} at line {e.lineno}, column {e.colno})") from None
    except RecursionError:  # '[' * 100000: json's decoder recurses once per level
        raise NotebookError(f"cannot read '{path}' as a notebook: its JSON is nested too deeply") from None
    if not isinstance(doc, dict):
        raise NotebookError(f"cannot read '{path}' as a notebook: its JSON is not an object")
    language = _language(doc)
    if language and language.lower() != "python":
        raise NotebookError(f"cannot run '{path}': its code is {language}, and gradviz runs Python")
    raw_cells = _raw_cells(doc, path)
    cells = []
    code_seen = 0
    for index, cell in enumerate(raw_cells):
        if not isinstance(cell, dict):
            raise NotebookError(f"cannot read '{path}' as a notebook: cell {index + 1} is not an object")
        if cell.get("cell_type") != "code":
            continue  # markdown, raw, and nbformat 3's headings
        code_seen += 1
        text = _text(cell.get("source", cell.get("input", "")), path, index)
        count = cell.get("execution_count", cell.get("prompt_number"))
        label = f"In [{count}]" if isinstance(count, int) and not isinstance(count, bool) else f"cell {code_seen}"
        if not text.strip():
            continue
        source, set_aside = python_of(text)
        cells.append(NotebookCell(label, index, source, tuple(set_aside), ends_quietly(source), text))
    return cells


def _language(doc) -> Optional[str]:
    meta = doc.get("metadata")
    if not isinstance(meta, dict):
        return None
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = meta.get(key, {}).get(field) if isinstance(meta.get(key), dict) else None
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _raw_cells(doc, path):
    if isinstance(doc.get("cells"), list):  # nbformat 4
        return doc["cells"]
    worksheets = doc.get("worksheets")
    if isinstance(worksheets, list):  # nbformat 3
        cells = []
        for sheet in worksheets:
            if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list):
                cells.extend(sheet["cells"])
        return cells
    raise NotebookError(f"cannot read '{path}' as a notebook: it has no list of cells (is it a Jupyter notebook?)")


def _text(source, path, index) -> str:
    if isinstance(source, str):
        text = source
    elif isinstance(source, list) and all(isinstance(s, str) for s in source):
        text = "".join(source)
    else:
        raise NotebookError(f"cannot read '{path}' as a notebook: the source of cell {index + 1} is not text")
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --------------------------------------------------------------------------- IPython -> Python


def python_of(text: str) -> tuple:
    """(Python source, [SetAside]) of one cell's IPython source; line numbers are kept."""
    lines = text.split("\n")
    first = next((k for k, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].strip()
        name = magic[2:].split(None, 1)[0] if len(magic) > 2 else ""
        if name not in PYTHON_CELL_MAGICS:
            return "", [SetAside(first + 1, magic, f"the whole cell: %%{name} makes it other than Python")]
        lines[first] = "pass"
        set_aside = [SetAside(first + 1, magic, "an IPython cell magic; the cell's code ran without it")]
    else:
        set_aside = []
    scanner = _Scanner()
    for k, line in enumerate(lines):
        if scanner.at_statement_start():
            found = _ipython_line(line)
            if found is not None:
                replacement, why = found
                indent = line[:len(line) - len(line.lstrip())]
                lines[k] = indent + replacement
                kept = replacement if replacement != "pass" else ""
                set_aside.append(SetAside(k + 1, line.strip(), why, kept))
                if kept:
                    scanner.feed(lines[k])
                continue
        scanner.feed(line)
    return "\n".join(lines), set_aside


def _ipython_line(line: str) -> Optional[tuple]:
    """(replacement, why) for a statement-starting line of IPython syntax, else None."""
    s = line.strip()
    if not s or s.startswith("#"):
        return None
    magics, statement = _statement_magics(s)
    if not magics:
        return _ipython_syntax(s)
    # %time's statement runs only when it is Python: `%time !rm -rf x` runs nothing, and
    # its note must not say it ran
    found = ("pass", "an IPython cell magic") if statement.startswith("%%") else _ipython_syntax(statement)
    if found is not None:
        return "pass", f"{found[1]} under {magics[0]}"
    return statement, " ".join(magics)


def _statement_magics(s: str) -> tuple:
    """(['%time', ...], the statement) of ``%time %timeit -n 3 f(x)``; ([], s) when the line
    does not start with a statement magic that has a statement. A loop: magics may nest."""
    magics = []
    while s.startswith("%") and not s.startswith("%%"):
        name, _, rest = s[1:].partition(" ")
        statement = _drop_magic_options(rest) if name in STATEMENT_MAGICS else ""
        if not statement:
            break
        magics.append(f"%{name}")
        s = statement
    return magics, s


def _ipython_syntax(s: str) -> Optional[tuple]:
    """(replacement, why) for a stripped statement of IPython syntax (no %time before it)."""
    if s.startswith("%") and not s.startswith("%%"):
        return "pass", "an IPython magic"
    if s.startswith("!"):
        return "pass", "a shell command"
    if _is_help(code_part(s)):
        return "pass", "IPython help"
    target, eq, value = s.partition("=")
    if eq and value.lstrip()[:1] in ("!", "%") and not value.startswith("=") and _is_target(target):
        return "pass", ("a shell command" if value.lstrip().startswith("!") else "an IPython magic") + " assigned"
    return None


def _drop_magic_options(rest: str) -> str:
    """The statement of ``%timeit -n 10 -r 3 f(x)``: IPython's options come first."""
    words = rest.split(" ")
    k = 0
    while k < len(words) and (not words[k] or words[k].startswith("-")):
        flag = words[k]
        k += 1
        if flag in ("-n", "-r", "-p") and k < len(words):  # an option with its value apart
            k += 1
    return " ".join(words[k:]).strip()


def _is_help(code: str) -> bool:
    """``torch.randn?``, ``x??``, ``?nn.Linear``, ``torch.*rand*?``: a name and IPython's question marks."""
    if code.startswith("?"):
        name = code.lstrip("?")
    elif code.endswith("?"):
        name = code.rstrip("?")
    else:
        return False
    return bool(name) and all(part.replace("*", "_").isidentifier() for part in name.split("."))


def _is_target(text: str) -> bool:
    """``x``, ``a, b`` or ``self.files``: what may stand left of ``= !cmd``."""
    parts = [p.strip() for p in text.split(",")]
    return all(p and all(q.isidentifier() for q in p.split(".")) for p in parts)


def code_part(s: str) -> str:
    """The line without a trailing comment (a '#' outside quotes)."""
    quote = None
    for k, ch in enumerate(s):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return s[:k].rstrip()
    return s


def ends_quietly(source: str) -> bool:
    """Whether the cell's last line of code ends in ';', which tells IPython to print no repr."""
    for line in reversed(source.split("\n")):
        code = code_part(line.strip())
        if code:
            return code.endswith(";")
    return False


class _Scanner:
    """Just enough of Python's tokenizer to know whether a line starts a statement:
    not inside a string, a bracket, or after a backslash continuation."""

    def __init__(self):
        self.quote = None  # the open string's quote: ' " ''' or \"\"\"
        self.depth = 0
        self.continued = False

    def at_statement_start(self) -> bool:
        return self.quote is None and self.depth == 0 and not self.continued

    def feed(self, line: str) -> None:
        k, n = 0, len(line)
        self.continued = False
        while k < n:
            ch = line[k]
            if self.quote:
                if ch == "\\":
                    k += 2
                    continue
                if line.startswith(self.quote, k):
                    k += len(self.quote)
                    self.quote = None
                    continue
                k += 1
                continue
            if ch == "#":
                break
            if ch in "'\"":
                self.quote = line[k:k + 3] if line.startswith(ch * 3, k) else ch
                k += len(self.quote)
                continue
            if ch in "([{":
                self.depth += 1
            elif ch in ")]}":
                self.depth = max(0, self.depth - 1)
            elif ch == "\\" and k == n - 1:
                self.continued = True
            k += 1
        if self.quote in ("'", '"'):
            self.continued = self.continued or line.endswith("\\")
            if not line.endswith("\\"):
                self.quote = None  # a one-line string cannot go on: Python will say so
