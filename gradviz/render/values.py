"""How a tensor's values read in a table: plain text, shared by the terminal table
(``tables``) and the HTML ones (``html``). No rich, no engine: scripting's plain data in,
strings out.

The rule, the same for ``data`` and ``grad`` and for every row:

- a 0-d tensor shows its value (``4.241``);
- a tensor whose elements are all equal shows ``all 2`` (``all 0``, ``all True``);
- a tensor of at most ``LIST_LIMIT`` (8) elements lists them, nested as its shape is
  (``[[1, 2.5], [-3, 0.3333]]``); where the column is too narrow, middle elements give
  way to ``…`` (``[1.541, …, -2.179]``), PyTorch-style;
- a larger tensor shows ``min..max, mean m``; where the column is too narrow, the mean
  goes first (``min..max``). NaNs are counted (``nan ×3, others -1..2``) when the values
  were recorded, else the summary reads ``contains nan``.

So whether a row lists values or summarises them depends on its number of elements
only: rows of the same shape always read alike. Listed values have 4 significant
digits and summaries 3, unless ``ValueOptions.precision`` (``--precision N``) says
otherwise; ``ValueOptions.full`` (``--full-values``) lists every value (of tensors up to
``scripting.FULL_LIMIT`` elements, whose values are recorded), one row of a matrix a line.
"""

import contextlib
import math
import os
from dataclasses import dataclass
from typing import Optional

from ..safe_text import visible_line

#: Tensors of at most this many elements have their values listed; larger ones are summarised.
LIST_LIMIT = 8
#: Significant digits of listed values and of summaries (min, max, mean), by default.
VALUE_DIGITS, SUMMARY_DIGITS = 4, 3
ELLIPSIS = "…"


@dataclass(frozen=True)
class ValueOptions:
    """Print options of the tables, as PyTorch's ``set_printoptions``."""

    precision: Optional[int] = None  # significant digits of every number; None: 4 listed, 3 in summaries
    full: bool = False  # list every recorded value, never a summary

    def digits(self, summary: bool = False) -> int:
        if self.precision is not None:
            return self.precision
        return SUMMARY_DIGITS if summary else VALUE_DIGITS


DEFAULT_OPTIONS = ValueOptions()
_CURRENT = [DEFAULT_OPTIONS]


def current_options() -> ValueOptions:
    """The options in force (``printoptions`` sets them for a block)."""
    return _CURRENT[-1]


@contextlib.contextmanager
def printoptions(precision: Optional[int] = None, full: bool = False):
    """Tables printed in the block use these options (``gradviz run --precision/--full-values``)."""
    _CURRENT.append(ValueOptions(precision=precision, full=full))
    try:
        yield _CURRENT[-1]
    finally:
        _CURRENT.pop()


# --------------------------------------------------------------------------- numbers


def format_number(v, dtype: str = "float32", digits: int = VALUE_DIGITS) -> str:
    """One value, readably: ints and bools as such, floats with ``digits`` significant digits."""
    if v is None:
        return "-"
    if dtype == "bool":
        return "True" if v else "False"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if not dtype.startswith(("float", "complex", "bfloat")):
        return str(int(v))
    return format(float(v), f".{digits}g")


def format_complex(real, imag, digits: int = VALUE_DIGITS) -> str:
    """One complex value as ``0.5+1j``, each part with ``digits`` significant digits."""
    imag_text = format_number(imag, digits=digits)
    return f"{format_number(real, digits=digits)}{imag_text if imag_text.startswith('-') else '+' + imag_text}j"


def _strings(data, dtype, imag, digits):
    """Nested lists of values as nested lists of their texts (a scalar as its text)."""
    if isinstance(data, list):
        parts = imag if imag is not None else [None] * len(data)
        return [_strings(x, dtype, i, digits) for x, i in zip(data, parts)]
    if imag is not None:
        return format_complex(data, imag, digits)
    return format_number(data, dtype, digits)


def _inline(texts, edge) -> str:
    """``[[1, 2], [3, 4]]``; with ``edge`` k, a dimension longer than 2k shows its first and
    last k entries around ``…`` (k = 0: its first entry, then ``…``)."""
    if not isinstance(texts, list):
        return texts
    shown = texts
    if edge is not None and len(texts) > 1:
        if edge == 0:
            shown = [texts[0], None]
        elif len(texts) > 2 * edge:
            shown = texts[:edge] + [None] + texts[-edge:]
    return "[" + ", ".join(ELLIPSIS if x is None else _inline(x, edge) for x in shown) + "]"


def _block(texts) -> list:
    """Every value, one innermost row a line: ``['[[1, 2],', ' [3, 4]]']``."""
    if not isinstance(texts, list):
        return [texts]
    if not texts or not isinstance(texts[0], list):
        return ["[" + ", ".join(texts) + "]"]
    out = []
    for i, sub in enumerate(texts):
        lines = _block(sub)
        if i < len(texts) - 1:
            lines[-1] += ","
        out.extend(lines)
    out = ["[" + out[0]] + [" " + line for line in out[1:]]
    out[-1] += "]"
    return out


def format_values(data, dtype: str = "float32", imag=None, digits: int = VALUE_DIGITS, edge=None) -> str:
    """Nested lists of values (or a single value) as ``[[1, 2], [3, 4]]``; with ``imag``
    (the imaginary parts, nested alike) as ``[0.5+1j, -1.25-2.5j]``; ``edge``: see ``_inline``."""
    return _inline(_strings(data, dtype, imag, digits), edge)


# --------------------------------------------------------------------------- summaries


def _short(v, digits: int) -> str:
    return format(v, f".{digits}g") if math.isfinite(v) else format_number(v)


def format_stats(stats, dtype: str = "float32", digits: int = SUMMARY_DIGITS) -> str:
    """``min..max, mean m``."""
    if stats is None or stats.min is None:
        return "empty"
    return f"{_short(stats.min, digits)}..{_short(stats.max, digits)}, mean {_short(stats.mean, digits)}"


def _span(stats, digits: int = SUMMARY_DIGITS) -> str:
    """min..max alone: a complex tensor's summary has two of them to show."""
    if stats is None or stats.min is None:
        return "empty"
    return f"{_short(stats.min, digits)}..{_short(stats.max, digits)}"


def _flat(data) -> list:
    if not isinstance(data, list):
        return [data]
    out = []
    for x in data:
        out.extend(_flat(x))
    return out


def _is_nan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _summary_forms(data, stats, numel: int, digits: int) -> list:
    """``min..max, mean m`` then ``min..max``; NaNs counted when the values are known."""
    if stats is None or stats.min is None:
        return ["empty"]
    if not (_is_nan(stats.min) or _is_nan(stats.max)):
        span = f"{_short(stats.min, digits)}..{_short(stats.max, digits)}"
        return [f"{span}, mean {_short(stats.mean, digits)}", span]
    if data is None:
        return ["contains nan"]
    values = _flat(data)
    rest = [v for v in values if not _is_nan(v)]
    if not rest:
        return ["all nan"]
    nans = f"nan ×{len(values) - len(rest)}"
    lo, hi, mean = min(rest), max(rest), math.fsum(rest) / len(rest)
    if lo == hi:
        return [f"{nans}, others all {_short(lo, digits)}", nans]
    span = f"{_short(lo, digits)}..{_short(hi, digits)}"
    return [f"{nans}, others {span}, mean {_short(mean, digits)}", f"{nans}, others {span}", nans]


def _constant(stats, imag) -> bool:
    def same(s):
        return s is not None and s.min is not None and math.isfinite(s.min) and s.min == s.max

    return same(stats) and (imag is None or same(imag.stats))


def _dedupe(forms) -> list:
    out = []
    for f in forms:
        if f not in out:
            out.append(f)
    return out


def value_forms(data, stats, dtype: str, numel: int, imag=None, opts: Optional[ValueOptions] = None) -> list:
    """The ways this tensor's values can read on one line, longest (the most detail) first:
    a table cell takes the first that fits its column. See the module's rule."""
    if stats is not None and getattr(stats, "device", None) is not None:
        return [stats.device]  # a meta tensor: no values, its device says so
    opts = opts or current_options()
    digits = opts.digits()
    imag_data = None if imag is None else imag.data
    if data is not None and not isinstance(data, list):  # a 0-d tensor
        return [format_values(data, dtype, imag_data, digits)]
    if data is not None and numel == 0:
        return [format_values(data, dtype)]
    if opts.full and data is not None and (imag is None or imag_data is not None):
        return [format_values(data, dtype, imag_data, digits)]
    if numel > 1 and _constant(stats, imag) and not opts.full:
        value = (format_number(stats.min, dtype, digits) if imag is None
                 else format_complex(stats.min, imag.stats.min, digits))
        return [f"all {value}"]
    if data is not None and numel <= LIST_LIMIT and (imag is None or imag_data is not None):
        texts = _strings(data, dtype, imag_data, digits)
        return _dedupe([_inline(texts, edge) for edge in (None, 3, 2, 1, 0)])
    s = opts.digits(summary=True)
    if imag is not None:
        return [f"re {_span(stats, s)}, im {_span(imag.stats, s)}"]
    return _summary_forms(data, stats, numel, s)


def value_lines(data, stats, dtype: str, numel: int, imag=None, opts: Optional[ValueOptions] = None) -> list:
    """Every value (``--full-values``), a matrix's rows on lines of their own; a tensor
    whose values were not recorded (over ``scripting.FULL_LIMIT`` elements) is summarised."""
    if stats is not None and getattr(stats, "device", None) is not None:
        return [stats.device]
    opts = opts or current_options()
    imag_data = None if imag is None else imag.data
    if data is None or (imag is not None and imag_data is None):
        return [value_forms(data, stats, dtype, numel, imag, opts)[0] + " (too many values to record)"]
    return _block(_strings(data, dtype, imag_data, opts.digits()))


def summarize(data, stats, dtype: str, max_chars: Optional[int] = None, imag=None,
              numel: Optional[int] = None, opts: Optional[ValueOptions] = None) -> str:
    """The values as the table shows them (the longest form within ``max_chars``, if given)."""
    if numel is None:
        numel = len(_flat(data)) if isinstance(data, list) else (1 if data is not None else 2)
    forms = value_forms(data, stats, dtype, numel, imag, opts)
    if max_chars is not None:
        return next((f for f in forms if len(f) <= max_chars), forms[-1])
    return forms[0]


def format_shape(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def grad_forms(t, opts: Optional[ValueOptions] = None) -> list:
    """What ``t.grad`` holds, or why there is none, longest form first."""
    if t.grad is not None:
        return value_forms(t.grad.data, t.grad.stats, t.dtype, t.numel, t.grad.imag, opts)
    if not t.requires_grad:
        return ["-"]
    if not t.is_leaf and not t.retains_grad:
        return ["None (non-leaf)", "None"]
    return ["None"]


def data_forms(t, opts: Optional[ValueOptions] = None) -> list:
    return value_forms(t.data, t.stats, t.dtype, t.numel, t.imag, opts)


def _full_text(data, stats, dtype, numel, imag, opts) -> str:
    return "\n".join(value_lines(data, stats, dtype, numel, imag, opts))


COLUMNS = ("name", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "grad", "data")


def tensor_rows(tensors, opts: Optional[ValueOptions] = None) -> list:
    """The table's cells as strings, one tuple per tensor, in COLUMNS order: values in
    their longest form (with ``full``, every value, a matrix's rows on separate lines)."""
    opts = opts or current_options()
    rows = []
    for t in tensors:
        if opts.full:
            grad = (_full_text(t.grad.data, t.grad.stats, t.dtype, t.numel, t.grad.imag, opts)
                    if t.grad is not None else grad_forms(t, opts)[0])
            data = _full_text(t.data, t.stats, t.dtype, t.numel, t.imag, opts)
        else:
            grad, data = grad_forms(t, opts)[0], data_forms(t, opts)[0]
        rows.append((t.name, format_shape(t.shape), t.dtype, str(t.requires_grad), str(t.is_leaf),
                     t.grad_fn or "-", grad, data))
    return rows


def _nonfinite(stats) -> list:
    """'nan', 'inf' found in values summarised by ``stats`` (min/max/mean)."""
    if stats is None or stats.min is None:
        return []
    vals = (stats.min, stats.max, stats.mean)
    found = []
    if any(isinstance(v, float) and math.isnan(v) for v in vals):
        found.append("nan")
    if any(isinstance(v, float) and math.isinf(v) for v in vals):
        found.append("inf")
    return found


def nonfinite_lines(tensors) -> list:
    """One line per tensor (or gradient) holding NaN or infinite values, for a warning."""
    out = []
    for t in tensors:
        bad = _nonfinite(t.stats)
        if bad:
            out.append(f"{visible_line(t.name)} has {' and '.join(bad)} values")
        if t.grad is not None:
            bad = _nonfinite(t.grad.stats)
            if bad:
                out.append(f"{visible_line(t.name)}.grad has {' and '.join(bad)} values")
    return out


def site_text(site):
    """A place in the user's code as pictures, pages and notes show it: ``train.py:42``."""
    return f"{os.path.basename(str(site[0]))}:{site[1]}" if site else None


def byte_size(n: int) -> str:
    """Bytes as people read them: 512 B, 3.0 KiB, 1.5 MiB."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"
