"""Resource limits: input size, and an upper bound on what every call will allocate,
computed from the arguments *before* the call runs.

Each whitelisted function has an estimator (``namespace._ESTIMATOR``; the default is
``broadcast``) that returns ``(elements, pieces, work)``:

- ``elements``: an upper bound on the element count of the largest array the call (or
  its backward) materializes;
- ``pieces``: how many tensor objects it returns (split/unbind/chunk);
- ``work``: multiply-adds for matmul and convolution.

Estimators convert sizes with ``int()``, as the engine does, so an argument the engine
would accept is never one the estimator skips. When a conversion fails, the engine would
fail at the same conversion before allocating anything, so the call proceeds and the
engine raises its own error. Any other failure inside an estimator refuses the call.
"""
import abc
import inspect
import math
import operator

import numpy as np

from .. import torch as _torch
from .errors import ExpressionError

__all__ = ["Budget", "MAX_SOURCE_CHARS", "MAX_NODES", "MAX_DEPTH", "MAX_INT_BITS", "DEFAULT_MAX_ELEMENTS",
           "DEFAULT_MAX_TOTAL_ELEMENTS", "MAX_PIECES", "MAX_WORK", "MAX_TOTAL_WORK", "MAX_STRING", "MAX_INT_LITERAL"]

MAX_SOURCE_CHARS = 10_000          # characters of input
MAX_NODES = 2_000                  # AST nodes
MAX_DEPTH = 100                    # AST nesting depth
MAX_INT_BITS = 1024                # bits of any Python int result
MAX_INT_LITERAL = 2 ** 64          # magnitude of an int literal
MAX_STRING = 64                    # characters of a string literal
DEFAULT_MAX_ELEMENTS = 10_000_000  # elements of any one tensor (80 MB in float64)
DEFAULT_MAX_TOTAL_ELEMENTS = 50_000_000  # elements allocated by the whole evaluation
MAX_PIECES = 10_000                # tensors one call may return (split, unbind, ...)
MAX_WORK = 2_000_000_000           # multiply-adds of one matmul / convolution
MAX_TOTAL_WORK = 8_000_000_000     # multiply-adds of the whole evaluation



class Tensor(abc.ABC):
    """A tensor of either engine: gradviz's, and the installed PyTorch's once ``graph
    --engine torch`` registers it (``use_engine``). Size checks read only shapes."""


class Size(abc.ABC):
    """torch.Size of either engine."""


class Dtype(abc.ABC):
    """torch.dtype of either engine."""


Tensor.register(_torch.Tensor)
Size.register(_torch.Size)
Dtype.register(_torch.dtype)


def use_engine(torch_module) -> None:
    """Let the checks know an engine's tensor, size and dtype types (real PyTorch's)."""
    Tensor.register(torch_module.Tensor)
    Size.register(torch_module.Size)
    Dtype.register(torch_module.dtype)


def _is_bool(dtype) -> bool:
    return str(dtype) == "torch.bool"


class _Unknown(Exception):
    """A conversion the engine performs the same way failed: the engine will raise."""


def _int(v):
    if isinstance(v, str):  # the engine would call int() on it: never let that size through
        raise ExpressionError("a size cannot be a string", kind="refused")
    try:
        return operator.index(v) if not isinstance(v, (float, Tensor)) else int(v)
    except Exception:
        try:
            return int(v)
        except Exception:
            raise _Unknown() from None


def _float(v):
    try:
        return float(v.item() if isinstance(v, Tensor) else v)
    except Exception:
        raise _Unknown() from None


def _prod(values):
    n = 1
    for v in values:
        n *= max(int(v), 0)
    return n


def _numel(t):
    return _prod(t.shape) if isinstance(t, Tensor) else 0


def _tolist_ints(v):
    """``tuple(size)`` as the engine computes it, for a tensor, Size, list or tuple."""
    if isinstance(v, Tensor):
        if v.dim() != 1 or v.numel() > 64:
            raise _Unknown()
        return [_int(x) for x in v.detach().tolist()]
    if isinstance(v, (tuple, list)):
        if len(v) > 64:
            raise ExpressionError(f"a size with {len(v)} dimensions is not allowed", kind="limit")
        return [_int(x) for x in v]
    raise _Unknown()


def _shape_args(size):
    """The engine's ``_shape_args``: ``f(2, 3)`` or ``f((2, 3))``."""
    size = tuple(size)
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if len(size) > 64:
        raise ExpressionError(f"a size with {len(size)} dimensions is not allowed", kind="limit")
    return [_int(s) for s in size]


def _tensors_in(values):
    out = []
    for v in values:
        if isinstance(v, Tensor):
            out.append(v)
        elif isinstance(v, (tuple, list)):
            out.extend(x for x in v if isinstance(x, Tensor))
    return out


def _broadcast_numel(shapes):
    shapes = [tuple(s) for s in shapes]
    if not shapes:
        return 0
    try:
        return _prod(np.broadcast_shapes(*shapes))
    except ValueError:
        return max(_prod(s) for s in shapes)


def data_count(value, depth=0):
    """Elements of ``tensor(value)``: nested lists of numbers and tensors."""
    if depth > 64:
        raise _Unknown()
    if isinstance(value, Tensor):
        return _numel(value)
    if isinstance(value, (tuple, list)):
        return sum(data_count(v, depth + 1) for v in value)
    return 1


def _nested_shape(value, depth=0):
    if isinstance(value, Tensor):
        return tuple(value.shape)
    if isinstance(value, (tuple, list)) and depth < 64:
        return (len(value),) + (_nested_shape(value[0], depth + 1) if value else ())
    return ()


# -- estimators: (arguments dict) -> (elements, pieces, work) ---------------------------
def _est_broadcast(a):
    tensors = _tensors_in(a.values())
    return _broadcast_numel([t.shape for t in tensors]), 1, 0


def _est_create(a):
    return _prod(_shape_args(a["size"])), 1, 0


def _est_full(a):
    return _prod(_shape_args((_tolist_ints(a["size"]),))), 1, 0


def _est_randint(a):
    return _prod(_tolist_ints(a["size"])), 1, 0


def _est_normal(a):
    mean, std = a["mean"], a["std"]
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        return _broadcast_numel([t.shape for t in (mean, std) if isinstance(t, Tensor)]), 1, 0
    return _prod(_tolist_ints(a["size"])), 1, 0


def _est_arange(a):
    # PyTorch's overloads, as the engine reads them: arange(end), arange(start, end[, step]),
    # each bound by position or by name (start=, end=, step=)
    args, bounds = tuple(a["args"]), dict(a["bounds"])
    named = {"end": args[0]} if len(args) == 1 else dict(zip(("start", "end", "step"), args))
    named.update(bounds)
    if named.get("end") is None:
        return 0, 1, 0  # the engine raises
    start, end, step = _float(named.get("start", 0)), _float(named["end"]), _float(named.get("step", 1))
    if step == 0 or not all(map(math.isfinite, (start, end, step))):
        return 0, 1, 0  # the engine raises
    n = math.ceil((end - start) / step)
    return max(n, 0), 1, 0


def _est_linspace(a):
    return max(_int(a["steps"]), 0), 1, 0


def _est_eye(a):
    n = _int(a["n"])
    m = n if a["m"] is None else _int(a["m"])
    return max(n, 0) * max(m, 0), 1, 0


def _est_randperm(a):
    return max(_int(a["n"]), 0), 1, 0


def _est_data(a):
    data = a["data"] if "data" in a else a["value"]
    return data_count(data), 1, 0


def _matmul_bound(sa, sb):
    sa, sb = tuple(sa), tuple(sb)
    if not sa or not sb:
        return 0, 0
    if len(sa) == 1:
        sa = (1,) + sa
    if len(sb) == 1:
        sb = sb + (1,)
    try:
        batch = _prod(np.broadcast_shapes(sa[:-2], sb[:-2]))
    except ValueError:
        return 0, 0  # the engine raises
    n, k, m = sa[-2], sa[-1], sb[-1]
    out = batch * n * m
    elements = max(out, batch * n * k, batch * sb[-2] * m)
    return elements, out * max(k, 1)


def _est_matmul(a):
    t = [v for v in a.values() if isinstance(v, Tensor)]
    if len(t) < 2:
        return _est_broadcast(a)
    elements, work = _matmul_bound(t[0].shape, t[1].shape)
    return elements, 1, work


def _est_addmm(a):
    vals = list(a.values())
    inp, m1, m2 = vals[0], vals[1], vals[2]
    if not all(isinstance(v, Tensor) for v in (m1, m2)):
        return _est_broadcast(a)
    elements, work = _matmul_bound(m1.shape, m2.shape)
    if isinstance(inp, Tensor):
        elements = max(elements, _numel(inp))
    return elements, 1, work


def _est_linear(a):
    inp, weight, bias = a["input"], a["weight"], a["bias"]
    if not (isinstance(inp, Tensor) and isinstance(weight, Tensor)):
        return _est_broadcast(a)
    wshape = tuple(weight.shape)[::-1] if weight.dim() == 2 else tuple(weight.shape)
    elements, work = _matmul_bound(inp.shape, wshape)
    if isinstance(bias, Tensor):
        elements = max(elements, _numel(bias))
    return elements, 1, work


def _est_outer(a):
    t = [v for v in a.values() if isinstance(v, Tensor)]
    if len(t) < 2:
        return _est_broadcast(a)
    n = _numel(t[0]) * _numel(t[1])
    return n, 1, n


def _est_cat(a):
    seq = a["tensors"]
    if isinstance(seq, Tensor):
        return _numel(seq), (seq.shape[0] if seq.dim() else 1), 0
    if isinstance(seq, (tuple, list)):
        return sum(_numel(t) for t in seq if isinstance(t, Tensor)), len(seq), 0
    return 0, 1, 0


def _dim_size(t, dim):
    if not isinstance(t, Tensor) or t.dim() == 0:
        return 1
    d = _int(dim)
    n = t.dim()
    if not -n <= d < n:
        raise _Unknown()
    return t.shape[d]


def _est_split(a):
    t = a["self"]
    size = _dim_size(t, a["dim"])
    s = a["split_size_or_sections"]
    if isinstance(s, (tuple, list)):
        pieces = len(s)
    else:
        s = _int(s)
        pieces = -(-size // s) if s > 0 else size
    return _numel(t), max(pieces, 1), 0


def _est_chunk(a):
    t = a["self"]
    return _numel(t), max(1, min(_int(a["chunks"]), _dim_size(t, a["dim"]))), 0


def _est_tensor_split(a):
    t = a["self"]
    s = a["sections"]
    pieces = len(s) + 1 if isinstance(s, (tuple, list)) else _int(s)
    return _numel(t), max(pieces, 1), 0


def _est_unbind(a):
    t = a["self"]
    return _numel(t), _dim_size(t, a["dim"]), 0


def _est_expand(a):
    t = a["self"]
    sizes = _shape_args(a["sizes"])
    shape = tuple(t.shape)
    lead = len(sizes) - len(shape)
    full = []
    for i, s in enumerate(sizes):
        if s == -1:
            try:
                s = shape[i - lead]
            except IndexError:
                raise _Unknown() from None
        full.append(s)
    return max(_prod(full), _numel(t)), 1, 0


def _est_expand_as(a):
    t, other = a["self"], a["other"]
    if not isinstance(other, Tensor):
        raise _Unknown()
    return max(_numel(other), _numel(t)), 1, 0


def _est_repeat(a):
    t = a["self"]
    reps = _shape_args(a["repeats"])
    return _numel(t) * _prod(reps), 1, 0


def _est_index_select(a):
    t, index = a["input"], a["index"]
    if not isinstance(t, Tensor) or not isinstance(index, Tensor):
        return _est_broadcast(a)
    size = _dim_size(t, a["dim"])
    return max(_numel(t) // max(size, 1) * _numel(index), _numel(index)), 1, 0


def _tuple_arg(value, n):
    if isinstance(value, (tuple, list)):
        vals = [_int(v) for v in value]
        return (vals * n)[:n] if len(vals) == 1 else vals[:n] + [1] * (n - len(vals))
    return [_int(value)] * n


def _est_conv(a):
    x, w = a["input"], a["weight"]
    if not (isinstance(x, Tensor) and isinstance(w, Tensor)) or w.dim() < 3:
        return _est_broadcast(a)
    n = w.dim() - 2
    xs = tuple(x.shape)
    if len(xs) < n + 1:
        return _est_broadcast(a)
    spatial = xs[-n:]
    channels = xs[-n - 1]
    batch = _prod(xs[:-n - 1])
    kernel = tuple(w.shape[2:])
    dilation = _tuple_arg(a["dilation"], n)
    pad = a["padding"]
    if isinstance(pad, str):
        pad = [d * (k - 1) for d, k in zip(dilation, kernel)]
    else:
        pad = _tuple_arg(pad, n)
    padded = _prod(s + 2 * max(p, 0) for s, p in zip(spatial, pad))
    k = _prod(kernel)
    elements = batch * max(channels * k, w.shape[0], channels) * padded
    work = batch * w.shape[0] * max(channels, 1) * k * padded
    return max(elements, _numel(w)), 1, work


def _est_pool(a, n):
    x = a["input"]
    if not isinstance(x, Tensor):
        return 0, 1, 0
    n = min(n, x.dim())
    ks = a["kernel_size"]
    kernel = _tuple_arg(ks, n)
    pad = _tuple_arg(a["padding"], n)
    xs = tuple(x.shape)
    spatial = xs[-n:] if n else ()
    rest = _prod(xs[:-n]) if n else _prod(xs)
    padded = _prod(s + 2 * max(p, 0) for s, p in zip(spatial, pad))
    elements = rest * padded * _prod(kernel)
    return elements, 1, elements


_ESTIMATORS = {
    "broadcast": _est_broadcast, "create": _est_create, "full": _est_full, "randint": _est_randint,
    "normal": _est_normal, "arange": _est_arange, "linspace": _est_linspace, "eye": _est_eye,
    "randperm": _est_randperm, "data": _est_data, "matmul": _est_matmul, "addmm": _est_addmm,
    "linear": _est_linear, "outer": _est_outer, "cat": _est_cat, "split": _est_split, "chunk": _est_chunk,
    "tensor_split": _est_tensor_split, "unbind": _est_unbind, "expand": _est_expand, "expand_as": _est_expand_as,
    "repeat": _est_repeat, "index_select": _est_index_select, "conv": _est_conv,
    "pool1d": lambda a: _est_pool(a, 1), "pool2d": lambda a: _est_pool(a, 2),
}

_SIGNATURES = {}


def _signature(fn):
    sig = _SIGNATURES.get(fn)
    if sig is None:
        sig = _SIGNATURES[fn] = inspect.signature(fn)
    return sig


def bind(fn, args, kwargs):
    """The call's arguments by parameter name (defaults applied), or None when the
    engine itself would reject the call with a TypeError."""
    try:
        ba = _signature(fn).bind(*args, **kwargs)
    except TypeError:
        return None
    ba.apply_defaults()
    return ba.arguments


def getitem_estimate(base, index):
    """Upper bound on the elements of ``base[index]`` (advanced indexing can grow)."""
    if not isinstance(base, Tensor):
        return 0
    items = index if isinstance(index, tuple) else (index,)

    def advanced(i):
        if isinstance(i, Tensor):
            return i.dim() > 0 or _is_bool(i.dtype)
        return isinstance(i, (list, bool))

    if not any(advanced(i) for i in items):
        return _numel(base)

    def consumes(i):
        if i is None or i is Ellipsis:
            return 0
        if isinstance(i, Tensor) and _is_bool(i.dtype):
            return max(i.dim(), 1)
        return 1

    shape = tuple(base.shape)
    n_consume = sum(consumes(i) for i in items)
    pos = 0
    consumed, index_shapes, extra = [], [], 0
    for i in items:
        if i is Ellipsis:
            pos += max(0, len(shape) - n_consume)
            continue
        c = consumes(i)
        if advanced(i) or (isinstance(i, int) and not isinstance(i, bool)):
            consumed.extend(range(pos, pos + c))
            if isinstance(i, Tensor) and _is_bool(i.dtype):
                index_shapes.append((_numel(i),))
            else:
                index_shapes.append(_nested_shape(i))
            extra += data_count(i) if isinstance(i, (list, tuple)) else 0
        pos += c
    sizes = [shape[d] for d in consumed if d < len(shape)]
    div = _prod(sizes)
    rest = _numel(base) // div if div else 0
    return max(rest * _broadcast_numel(index_shapes), extra)


class Budget:
    """Counts what an evaluation allocates and refuses what would exceed the limits."""

    def __init__(self, max_elements=DEFAULT_MAX_ELEMENTS, max_total_elements=DEFAULT_MAX_TOTAL_ELEMENTS,
                 max_pieces=MAX_PIECES, max_work=MAX_WORK, max_total_work=MAX_TOTAL_WORK):
        self.max_elements = int(max_elements)
        self.max_total_elements = int(max_total_elements)
        self.max_pieces = int(max_pieces)
        self.max_work = int(max_work)
        self.max_total_work = int(max_total_work)
        self.total = 0
        self.total_work = 0

    def charge(self, elements, what, pieces=1, work=0):
        """Record an allocation of ``elements``; raise ExpressionError (kind "limit",
        no position: the caller adds it) when it is over a limit."""
        if elements > self.max_elements:
            raise ExpressionError(f"{what} would create a tensor of {_big(elements)} elements; the limit is "
                                  f"{_big(self.max_elements)} elements per tensor", kind="limit")
        if self.total + elements > self.max_total_elements:
            raise ExpressionError(f"{what} would bring the expression to {_big(self.total + elements)} allocated "
                                  f"elements; the limit is {_big(self.max_total_elements)} in total", kind="limit")
        if pieces > self.max_pieces:
            raise ExpressionError(f"{what} would return {_big(pieces)} tensors; the limit is "
                                  f"{_big(self.max_pieces)}", kind="limit")
        if work > self.max_work:
            raise ExpressionError(f"{what} would take {_big(work)} multiply-adds; the limit is "
                                  f"{_big(self.max_work)}", kind="limit")
        if self.total_work + work > self.max_total_work:
            raise ExpressionError(f"{what} would bring the expression to {_big(self.total_work + work)} "
                                  f"multiply-adds; the limit is {_big(self.max_total_work)} in total", kind="limit")
        self.total += elements
        self.total_work += work

    def check_call(self, func, args, kwargs, what):
        """Bound the call ``func.fn(*args, **kwargs)`` before it runs."""
        a = bind(func.fn, args, kwargs)
        if a is None:
            return  # the engine raises TypeError before doing anything
        estimator = _ESTIMATORS[func.key]
        try:
            elements, pieces, work = estimator(a)
        except _Unknown:
            return
        except ExpressionError:
            raise
        except Exception as e:  # an estimator bug must not open the door: refuse
            raise ExpressionError(f"cannot bound the size of {what} ({type(e).__name__})", kind="limit") from None
        self.charge(elements, what, pieces, work)


class EngineGuard:
    """The budget's per-tensor limits, enforced by the engine itself for every array it
    makes while an expression is evaluated (gradviz.torch's allocation guards), whatever
    function or argument form sized it. The estimators above give the friendlier message
    first; this is what holds when one of them reads the arguments wrong."""

    def __init__(self, budget):
        self.budget = budget

    def elements(self, count, what):
        if count > self.budget.max_elements:
            raise ExpressionError(f"this would create a tensor of {_big(count)} elements ({_op_word(what)}); the "
                                  f"limit is {_big(self.budget.max_elements)} elements per tensor", kind="limit")

    def pieces(self, count, what):
        if count > self.budget.max_pieces:
            raise ExpressionError(f"this would return {_big(count)} tensors ({_op_word(what)}); the limit is "
                                  f"{_big(self.budget.max_pieces)}", kind="limit")


def _op_word(what):
    """An engine op's node name as the user's call: ``SplitBackward0`` -> ``split``."""
    import re
    name = re.sub(r"Backward\d+$", "", what)
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower() if name != what else what


def _big(n):
    n = int(n)
    if n >= 10 ** 15:
        return f"about 10^{len(str(n)) - 1}"
    return f"{n:,}"


def check_int(value, what):
    """Python ints from arithmetic on sizes and literals stay small."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
        raise ExpressionError(f"{what} gives an integer of more than {MAX_INT_BITS} bits", kind="limit")


def check_int_pow(base, exp, what):
    """Refuse ``base ** exp`` on Python ints whose result would exceed MAX_INT_BITS,
    before computing it."""
    if isinstance(base, int) and isinstance(exp, int) and exp > 0 and abs(base) > 1:
        if (abs(base).bit_length() - 1) * exp > MAX_INT_BITS:
            raise ExpressionError(f"{what} is too large: the result would have more than {MAX_INT_BITS} bits",
                                  kind="limit")
