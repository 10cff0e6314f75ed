"""How a tensor's values read in a table: plain text, shared by the terminal table
(``tables``) and the HTML ones (``html``). No rich, no engine: scripting's plain data in,
strings out."""

import math

#: A values summary longer than this is replaced by statistics.
MAX_VALUES_CHARS = 28


def format_number(v, dtype: str = "float32") -> str:
    """One value, readably: ints and bools as such, floats with 4 significant digits."""
    if v is None:
        return "-"
    if dtype == "bool":
        return "True" if v else "False"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if not dtype.startswith(("float", "complex", "bfloat")):
        return str(int(v))
    return format(float(v), ".4g")


def format_complex(real, imag) -> str:
    """One complex value as ``0.5+1j``, each part with 4 significant digits."""
    imag_text = format_number(imag)
    return f"{format_number(real)}{imag_text if imag_text.startswith('-') else '+' + imag_text}j"


def format_values(data, dtype: str = "float32", imag=None) -> str:
    """Nested lists of values (or a single value) as ``[[1, 2], [3, 4]]``; with ``imag``
    (the imaginary parts, nested alike) as ``[0.5+1j, -1.25-2.5j]``."""
    if isinstance(data, list):
        parts = imag if imag is not None else [None] * len(data)
        return "[" + ", ".join(format_values(x, dtype, i) for x, i in zip(data, parts)) + "]"
    if imag is not None:
        return format_complex(data, imag)
    return format_number(data, dtype)


def format_stats(stats, dtype: str = "float32") -> str:
    if stats is None or stats.min is None:
        return "empty"
    def f(v):  # 3 significant digits: a summary, kept short
        return format(v, ".3g") if math.isfinite(v) else format_number(v)

    return f"{f(stats.min)}..{f(stats.max)}, mean {f(stats.mean)}"


def _span(stats) -> str:
    """min..max alone: a complex tensor's summary has two of them to show."""
    if stats is None or stats.min is None:
        return "empty"
    return "..".join(format(v, ".3g") if math.isfinite(v) else format_number(v) for v in (stats.min, stats.max))


def summarize(data, stats, dtype: str, max_chars: int = MAX_VALUES_CHARS, imag=None) -> str:
    """The values when they fit in ``max_chars``, else ``min..max, mean m`` (of the real
    parts and the imaginary ones, for a complex tensor)."""
    if data is not None and (imag is None or imag.data is not None):
        text = format_values(data, dtype, None if imag is None else imag.data)
        if len(text) <= max_chars:
            return text
    if imag is not None:
        return f"re {_span(stats)}, im {_span(imag.stats)}"
    return format_stats(stats, dtype)


def format_shape(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def grad_summary(t, max_chars: int = MAX_VALUES_CHARS) -> str:
    """What ``t.grad`` holds, or why there is none."""
    if t.grad is not None:
        return summarize(t.grad.data, t.grad.stats, t.dtype, max_chars, t.grad.imag)
    if not t.requires_grad:
        return "-"
    if not t.is_leaf and not t.retains_grad:
        return "None (non-leaf)"
    return "None"


COLUMNS = ("name", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "grad", "data")


def tensor_rows(tensors) -> list:
    """The table's cells as strings, one tuple per tensor, in COLUMNS order."""
    return [
        (t.name, format_shape(t.shape), t.dtype, str(t.requires_grad), str(t.is_leaf),
         t.grad_fn or "-", grad_summary(t), summarize(t.data, t.stats, t.dtype, imag=t.imag))
        for t in tensors
    ]


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
            out.append(f"{t.name} has {' and '.join(bad)} values")
        if t.grad is not None:
            bad = _nonfinite(t.grad.stats)
            if bad:
                out.append(f"{t.name}.grad has {' and '.join(bad)} values")
    return out


# --------------------------------------------------------------------------- errors
