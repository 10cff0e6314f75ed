"""Tensor ``repr`` formatting that matches PyTorch 2.13 character for character.

Users compare our output with what real PyTorch prints, so every quirk of
PyTorch's printer is reproduced on purpose, including the odd ones (they are
marked "quirk" below).  Only numpy and the standard library are used.

The engine calls :func:`format_tensor` with the raw numpy data plus the facts
the printer cannot see in an ndarray: the torch dtype name, the current default
dtype, and trailing ``key=value`` items such as ``grad_fn=<MulBackward0>``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any, Iterator, Sequence

import numpy as np

__all__ = ["format_tensor", "set_printoptions", "get_printoptions", "printoptions"]


# --------------------------------------------------------------------------
# Print options (same names, defaults and profiles as torch.set_printoptions)
# --------------------------------------------------------------------------


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}

_OPTS = _PrintOptions()


def set_printoptions(
    precision=None,
    threshold=None,
    edgeitems=None,
    linewidth=None,
    profile=None,
    sci_mode=None,
) -> None:
    """Set printing options; same semantics as ``torch.set_printoptions``.

    A profile is applied first and explicit arguments override it.  An unknown
    profile name is silently ignored, as in PyTorch.  ``sci_mode`` is always
    assigned, so any call that omits it resets it to automatic (PyTorch does
    the same, and scripts that rely on that would otherwise print differently).
    """
    if profile is not None and profile in _PROFILES:
        for key, value in _PROFILES[profile].items():
            setattr(_OPTS, key, value)
    if precision is not None:
        _OPTS.precision = precision
    if threshold is not None:
        _OPTS.threshold = threshold
    if edgeitems is not None:
        _OPTS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTS.linewidth = linewidth
    _OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Current options, as keyword arguments accepted by set_printoptions."""
    return dataclasses.asdict(_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs) -> Iterator[None]:
    """Temporarily change the print options (arguments as set_printoptions)."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# --------------------------------------------------------------------------
# Element formatting
# --------------------------------------------------------------------------


class _Formatter:
    """Decides one number style and one column width for a whole tensor.

    PyTorch picks the style from the nonzero finite values only (zeros, nan
    and inf never influence it) and aligns every element to a common width.
    """

    def __init__(self, values: np.ndarray, floating: bool):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1

        flat = values.reshape(-1)
        if not floating:
            # Integers and bools print with str(); the width is the longest one.
            for v in np.unique(flat).tolist():
                self.width = max(self.width, len(str(v)))
            return

        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            # Quirk: with nothing to measure, even sci_mode=True is ignored and
            # values print as integral floats ("0.", "nan") without alignment.
            return

        # Measure in float64 so float16 cannot overflow in the ratio below.
        magnitudes = np.abs(nonzero_finite).astype(np.float64)
        smallest = float(magnitudes.min())
        largest = float(magnitudes.max())
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))

        if _OPTS.sci_mode is None:
            self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        else:
            self.sci_mode = _OPTS.sci_mode

        precision = _OPTS.precision
        # Formatting each distinct value is the only exact way to get the width
        # (rounding can add a digit), and it is what PyTorch measures.
        for v in np.unique(nonzero_finite).tolist():
            if self.sci_mode:
                text = f"{v:.{precision}e}"
            elif self.int_mode:
                text = f"{v:.0f}" + "."  # the trailing "." marks a float
            else:
                text = f"{v:.{precision}f}"
            self.width = max(self.width, len(text))

    def format(self, value) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.width}.{_OPTS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."
        else:
            text = f"{value:.{_OPTS.precision}f}"
        return text.rjust(self.width)


class _ComplexFormatter:
    """Real and imaginary parts each get their own _Formatter, as in PyTorch."""

    def __init__(self, real: np.ndarray, imag: np.ndarray):
        self.real = _Formatter(real, floating=True)
        self.imag = _Formatter(imag, floating=True)

    @property
    def width(self) -> int:
        return self.real.width + self.imag.width + 1  # +1 for the "j"

    def format(self, value: complex) -> str:
        real_text = self.real.format(value.real)
        # The imaginary part loses its alignment padding; it carries its own
        # sign, otherwise a "+" is inserted (this also keeps "-0.j" intact).
        imag_text = (self.imag.format(value.imag) + "j").lstrip()
        if imag_text[0] in "+-":
            return real_text + imag_text
        return real_text + "+" + imag_text


# --------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------


def _edge_values(a: np.ndarray, edge: int) -> np.ndarray:
    """The elements a summarized print actually shows, flattened.

    The formatter is built from these alone, so hidden elements do not affect
    the style or width.
    """
    if a.ndim == 0:
        return a.reshape(-1)
    if a.ndim == 1:
        if a.shape[0] > 2 * edge:
            # Quirk kept on purpose: with edge == 0, a[-0:] is the whole row.
            return np.concatenate((a[:edge], a[-edge:]))
        return a
    if not edge:
        return a.reshape(-1)[:0]
    if a.shape[0] > 2 * edge:
        rows = [*range(edge), *range(a.shape[0] - edge, a.shape[0])]
    else:
        rows = range(a.shape[0])
    return np.concatenate([_edge_values(a[i], edge) for i in rows])


def _vector_str(a: np.ndarray, indent: int, summarize: bool, fmt) -> str:
    edge = _OPTS.edgeitems
    # ", " separates elements, hence +2 per element.
    per_line = max(1, math.floor((_OPTS.linewidth - indent) / (fmt.width + 2)))

    if summarize and not edge:
        items = ["..."]
    elif summarize and a.shape[0] > 2 * edge:
        items = (
            [fmt.format(v) for v in a[:edge].tolist()]
            + [" ..."]
            + [fmt.format(v) for v in a[-edge:].tolist()]
        )
    else:
        items = [fmt.format(v) for v in a.tolist()]

    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(a: np.ndarray, indent: int, summarize: bool, fmt) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, fmt)

    edge = _OPTS.edgeitems
    if summarize and a.shape[0] > 2 * edge:
        parts = (
            [_nested_str(a[i], indent + 1, summarize, fmt) for i in range(edge)]
            + ["..."]
            + [
                _nested_str(a[i], indent + 1, summarize, fmt)
                for i in range(a.shape[0] - edge, a.shape[0])
            ]
        )
    else:
        parts = [_nested_str(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0])]

    # Blank lines between blocks grow with depth: one per dimension below 2-D.
    separator = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _body_str(a: np.ndarray, kind: str, indent: int) -> str:
    summarize = a.size > _OPTS.threshold
    shown = _edge_values(a, _OPTS.edgeitems) if summarize else a
    if kind == "complex":
        fmt = _ComplexFormatter(shown.real, shown.imag)
    else:
        fmt = _Formatter(shown, floating=(kind == "float"))
    return _nested_str(a, indent, summarize, fmt)


def _add_suffixes(text: str, suffixes: Sequence[str], indent: int) -> str:
    """Append ", k=v" items, moving an item to its own line when it won't fit."""
    out = [text]
    # Quirk: PyTorch starts the count 2 above the true last-line length, but not
    # after it wraps a suffix; both are kept so wrapping happens where it does.
    line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line_len + len(suffix) + 2 > _OPTS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            line_len = indent + len(suffix)
        else:
            out.append(", " + suffix)
            line_len += len(suffix) + 2
    out.append(")")
    return "".join(out)


# --------------------------------------------------------------------------
# Public entry point
# --------------------------------------------------------------------------


def _dtype_kind(dtype_name: str) -> str:
    if dtype_name.startswith("complex"):
        return "complex"
    if dtype_name.startswith(("float", "bfloat")):
        return "float"
    if dtype_name == "bool":
        return "bool"
    return "int"


def _as_values(data, kind: str) -> np.ndarray:
    """The data as an array whose .tolist() yields the Python numbers torch's
    .item() would (float16/float32 widen exactly to Python floats)."""
    a = np.asarray(data)
    if kind == "float" and a.dtype.kind != "f":
        a = a.astype(np.float64)  # e.g. bfloat16 values handed over as ints
    elif kind == "complex" and a.dtype.kind != "c":
        a = a.astype(np.complex128)
    elif kind == "bool" and a.dtype != np.bool_:
        a = a.astype(np.bool_)
    return a


def format_tensor(
    data: "np.ndarray",
    *,
    dtype_name: str,
    default_dtype_name: str,
    suffixes: Sequence[str] = (),
    prefix: str = "tensor(",
) -> str:
    """The full repr of a tensor, e.g. ``'tensor([1., 2.], requires_grad=True)'``.

    ``dtype_name`` and ``default_dtype_name`` are torch dtype names without the
    ``torch.`` prefix ('float32', 'int64', 'bool', 'complex64', ...).
    ``suffixes`` are extra ``k=v`` items in caller order (``grad_fn=<...>`` or
    ``requires_grad=True``); the ``size=``/``dtype=`` items PyTorch adds itself
    are inserted before them.  ``prefix`` may span lines, as in a Parameter's
    ``'Parameter containing:\\ntensor('``: continuation lines are indented to
    the width of the prefix's last line.

    ``data`` should already hold values of ``dtype_name`` (e.g. float32 data for
    'float32'): the digits printed are those of the array, never re-rounded.
    """
    dtype_name = dtype_name.removeprefix("torch.")
    default_dtype_name = default_dtype_name.removeprefix("torch.")
    kind = _dtype_kind(dtype_name)
    a = _as_values(data, kind)
    indent = len(prefix) - (prefix.rfind("\n") + 1)
    shape_str = str(tuple(int(n) for n in a.shape))

    items: list[str] = []
    if a.size == 0:
        # NumPy-style: the shape is only implied for 1-D "[]".  With no values
        # to hint at the type, every non-default dtype (int64, bool too) is named.
        if a.ndim != 1:
            items.append("size=" + shape_str)
        if dtype_name != default_dtype_name:
            items.append("dtype=torch." + dtype_name)
        body = "[]"
    else:
        if not _OPTS.edgeitems:
            # Nothing but "..." is shown, so the shape is the only information left.
            items.append("size=" + shape_str)
        default_complex = "complex128" if default_dtype_name == "float64" else "complex64"
        # int64 and bool are recognisable from the printed values themselves.
        if dtype_name not in (default_dtype_name, default_complex, "int64", "bool"):
            items.append("dtype=torch." + dtype_name)
        body = _body_str(a, kind, indent)

    items.extend(suffixes)
    return _add_suffixes(prefix + body, items, indent)


def format_meta(shape, *, dtype_name: str, default_dtype_name: str, suffixes: Sequence[str] = (),
                prefix: str = "tensor(") -> str:
    """A meta tensor's repr: no values, so ``...`` with its device and size, and its dtype
    unless it is the default one (int64 and bool included: no values show them)."""
    dtype_name = dtype_name.removeprefix("torch.")
    items = ["device='meta'", "size=" + str(tuple(int(n) for n in shape))]
    if dtype_name != default_dtype_name.removeprefix("torch."):
        items.append("dtype=torch." + dtype_name)
    indent = len(prefix) - (prefix.rfind("\n") + 1)
    return _add_suffixes(prefix + "...", [*items, *suffixes], indent)
