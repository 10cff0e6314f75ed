"""The named tensors of a script's namespace, as plain data: what the tables, the JSON and
the HTML report show of each (shape, dtype, flags, grad_fn, values and statistics), by the
rules of the conformance corpus's record.py. No engine import: a tensor of either engine
(gradviz's or real PyTorch's) is read through its public methods."""
import warnings
from dataclasses import dataclass
from typing import Any, Optional, Tuple

#: Tensors with more elements than this are recorded by their stats only (data is None).
FULL_LIMIT = 1000
#: Lists and tuples of at most this many tensors are recorded element by element.
MAX_SEQUENCE = 64


@dataclass(frozen=True)
class Stats:
    """min / max / mean / 2-norm over a tensor's values, as float64 (None when empty)."""

    min: Optional[float]
    max: Optional[float]
    mean: Optional[float]
    norm: Optional[float]
    #: "meta" for a tensor of the meta device, which has no values to summarise (all else None)
    device: Optional[str] = None


@dataclass(frozen=True)
class Values:
    """A gradient's values: nested lists of floats (None over FULL_LIMIT elements) and stats."""

    data: Any
    stats: Stats
    imag: Optional["Values"] = None  # a complex tensor's imaginary parts (data and stats hold the real ones)


@dataclass(frozen=True)
class TensorInfo:
    """One named tensor of the namespace, as record.py describes it."""

    name: str
    shape: tuple
    dtype: str  # "float32", without the "torch." prefix
    requires_grad: bool
    is_leaf: bool
    retains_grad: bool
    grad_fn: Optional[str]  # e.g. "MulBackward0"
    data: Any  # nested lists of float64 values, or a float for a 0-d tensor; None if too big
    stats: Stats
    grad: Optional[Values]
    numel: int
    imag: Optional[Values] = None  # a complex tensor's imaginary parts, as record.py keeps only the real ones
    grad_reason: Optional[str] = None  # why it has no gradient, or an all-zero one (inspect.grad_reasons)


def _float64(t) -> "Any":
    import numpy as np

    d = t.detach()
    if getattr(getattr(d, "device", None), "type", "cpu") != "cpu":  # a CUDA tensor: copied only to be read
        d = d.cpu()
    try:
        arr = d.numpy()
    except Exception:  # noqa: BLE001 - e.g. a dtype numpy lacks: go through float64
        arr = d.double().numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array(arr, dtype=np.float64, copy=True)


def _stats(d) -> Stats:
    import numpy as np

    if d.size == 0:
        return Stats(None, None, None, 0.0)
    with np.errstate(all="ignore"):
        flat = d.reshape(-1)
        return Stats(float(flat.min()), float(flat.max()), float(flat.mean()),
                     float(np.linalg.norm(flat)))


def _values(d, numel: int) -> tuple:
    return (d.tolist() if numel <= FULL_LIMIT else None), _stats(d)


#: numpy's most dimensions (32 before numpy 2); PyTorch allows more
_NUMPY_MAX_DIMS = 64 if int(__import__("numpy").__version__.split(".")[0]) >= 2 else 32


_NO_VALUES = Stats(None, None, None, None, device="meta")


def _values_of(t, numel: int) -> tuple:
    """(data, stats) of a tensor of either engine, of any number of dimensions."""
    if getattr(t, "is_meta", False):
        return None, _NO_VALUES
    if t.dim() <= _NUMPY_MAX_DIMS:
        return _values(_float64(t), numel)
    # more dimensions than numpy has (real PyTorch): statistics over the flat values, and
    # the nested list from PyTorch itself
    flat = t.detach().reshape(-1)
    data = t.detach().cpu().double().tolist() if numel <= FULL_LIMIT else None
    return data, _stats(_float64(flat))


def _imag_values(t, numel: int) -> Optional[Values]:
    """The imaginary parts of a complex tensor; None for any other (and for a meta one)."""
    if not getattr(t, "is_complex", lambda: False)() or getattr(t, "is_meta", False):
        return None
    return Values(*_values(_float64(t.detach().imag), numel))


def tensor_info(name: str, t) -> TensorInfo:
    """Record one tensor (record.py's ``tensor_record``) as plain data."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = t.grad  # reading .grad of a non-leaf warns in PyTorch: never let it show
    numel = int(t.numel())
    data, stats = _values_of(t, numel)
    grad = None
    if g is not None:
        grad = Values(*_values_of(g, int(g.numel())), imag=_imag_values(g, int(g.numel())))
    is_leaf = bool(t.is_leaf)
    fn = t.grad_fn
    return TensorInfo(
        name=name,
        shape=tuple(int(s) for s in t.shape),
        dtype=str(t.dtype).replace("torch.", ""),
        requires_grad=bool(t.requires_grad),
        is_leaf=is_leaf,
        retains_grad=bool(t.retains_grad) if not is_leaf else False,
        grad_fn=type(fn).__name__ if fn is not None else None,
        data=data,
        stats=stats,
        grad=grad,
        numel=numel,
        imag=_imag_values(t, numel),
    )


def grad_reasons(tensors) -> dict:
    """{name: grad_reason} of the tensors that have one: why each has no gradient, or a zero one."""
    return {t.name: t.grad_reason for t in tensors if getattr(t, "grad_reason", None)}


def named_tensors(ns: dict, tensor_type: type, module_type: Optional[type]) -> list:
    """``[(name, tensor)]`` of a namespace, by record.py's rules (see ``snapshot``).

    Only reads the namespace: nothing is computed, so it is cheap enough to call at
    every backward of a training loop (``gradviz run --graph`` names the graph with it).
    """
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, val in list(ns.items()):
            if not isinstance(name, str) or name.startswith("_"):
                continue
            try:
                if isinstance(val, tensor_type):
                    out.append((name, val))
                elif (isinstance(val, (list, tuple)) and 0 < len(val) <= MAX_SEQUENCE
                      and all(isinstance(v, tensor_type) for v in val)):
                    out.extend((f"{name}[{i}]", v) for i, v in enumerate(val))
                elif module_type is not None and isinstance(val, module_type):
                    recs = [(f"{name}.{pn}", p) for pn, p in val.named_parameters()]
                    recs += [(f"{name}.{bn}", b) for bn, b in val.named_buffers()]
                    out.extend(recs)
            except Exception:  # noqa: BLE001 - a broken object must not end the run
                continue
    return out


def changed_tensors(before: tuple, after: tuple) -> tuple:
    """The TensorInfos of ``after`` that are new, or differ from ``before``'s of that name."""
    old = {t.name: t for t in before}
    # repr as well: NaN != NaN would make a tensor holding NaN "change" at every cell.
    # `is` first: an unchanged tensor keeps its TensorInfo from cell to cell (Snapshots)
    return tuple(t for t in after
                 if old.get(t.name) is not t and old.get(t.name) != t and repr(old.get(t.name)) != repr(t))


#: Named tensors described per cell: a model of 100,000 parameters lists its first ones
#: and counts the rest (``Tensors.omitted``), in bounded time and memory.
MAX_TENSORS = 2_000


class Tensors(tuple):
    """A cell's named tensors (TensorInfo), and how many more names were not described."""
    omitted = 0


def snapshot(ns: dict, tensor_type: type, module_type: Optional[type], limit: int = None) -> tuple:
    """The named tensors of a namespace, by record.py's rules.

    Names starting with ``_`` are skipped; a list or tuple of 1..64 tensors gives
    ``name[i]``; an ``nn.Module`` gives ``name.param`` for its parameters, then buffers.
    A tensor the engine cannot describe is left out rather than ending the run. Past
    ``limit`` (MAX_TENSORS) names are only counted.
    """
    return Snapshots().take(ns, tensor_type, module_type, limit)


class Snapshots:
    """``snapshot`` after each cell of a run, where a tensor unchanged since the last
    snapshot keeps its TensorInfo object: describing a tensor (float64 copy, statistics,
    ``tolist``) costs 20 us, and a run whose every cell makes a tensor would describe
    n * n / 2 of them, and keep as many objects. Unchanged is judged by ``_state``: every
    input of ``tensor_info``, the values included, so an in-place change through any path
    (``x.numpy()[0] = 5``, ``.data``) is seen."""

    def __init__(self):
        self._seen = {}  # name -> (state or None, TensorInfo), as of the last snapshot

    def take(self, ns: dict, tensor_type: type, module_type: Optional[type], limit: int = None) -> tuple:
        limit = MAX_TENSORS if limit is None else limit
        out, omitted, seen, last = [], 0, {}, self._seen
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, val in named_tensors(ns, tensor_type, module_type):
                if len(out) >= limit:
                    omitted += 1
                    continue
                old = last.get(name)
                try:
                    state = _state(val)
                except Exception:  # noqa: BLE001 - tensor_info says whether it can be described
                    state = None
                if old is not None and state is not None and old[0] == state:
                    info = old[1]
                else:
                    try:
                        info = tensor_info(name, val)
                    except Exception:  # noqa: BLE001 - a broken object must not end the run
                        continue
                    if old is not None and state is None and repr(old[1]) == repr(info):
                        # described again (too big to compare cheaply), and the same: one object.
                        # repr, not ==: -0.0 == 0.0 and nan != nan, and the tables show the difference
                        info = old[1]
                seen.setdefault(name, (state, info))  # a name listed twice keeps its first
                out.append(info)
        self._seen = seen
        tensors = Tensors(out)
        tensors.omitted = omitted
        return tensors


def _state(t) -> Optional[tuple]:
    """Everything ``tensor_info`` reads of ``t``, its values as bytes; None where that is
    not cheap: over FULL_LIMIT elements (copying them costs what describing them does),
    off the CPU, or a dtype numpy lacks."""
    requires_grad = t.requires_grad
    values = _values_state(t, requires_grad)
    if values is None:
        return None
    g = t.grad
    if g is not None:  # tensor_info reads the gradient's values only, not its own grad
        g = _values_state(g, g.requires_grad)
        if g is None:
            return None
    fn = t.grad_fn
    return (values, requires_grad, t.is_leaf, t.retains_grad, None if fn is None else type(fn), g)


def _values_state(t, requires_grad) -> Optional[tuple]:
    try:  # numpy() refuses a tensor that requires grad, and one off the CPU (then: None)
        arr = (t.detach() if requires_grad else t).numpy()
    except Exception:  # noqa: BLE001 - e.g. bfloat16 in PyTorch: described each time
        return None
    if arr.size > FULL_LIMIT:
        return None
    return arr.tobytes(), arr.shape, arr.dtype, t.dtype


class TensorsDelta:
    """A cell's Tensors sent to another process as what changed since the cell before:
    ``parts`` holds ``(start, stop)`` slices of the previous cell's tuple and the TensorInfos
    that are new. Sent whole, 2,000 cells that each add a tensor would send, and the
    receiver would unpickle and keep, 2,000,000 TensorInfos; as deltas, 2,000."""

    __slots__ = ("parts", "omitted")

    def __init__(self, parts: list, omitted: int):
        self.parts, self.omitted = parts, omitted


class DeltaEncoder:
    """Tensors -> TensorsDelta, against the Tensors encoded before (the sending side)."""

    def __init__(self):
        self._last = ()

    def encode(self, tensors) -> TensorsDelta:
        where = {id(t): k for k, t in enumerate(self._last)}
        parts = []
        for t in tensors:
            k = where.get(id(t))
            if k is None:
                parts.append(t)
            elif parts and type(parts[-1]) is tuple and parts[-1][1] == k:
                parts[-1] = (parts[-1][0], k + 1)
            else:
                parts.append((k, k + 1))
        self._last = tuple(tensors)
        return TensorsDelta(parts, getattr(tensors, "omitted", 0))


class DeltaDecoder:
    """TensorsDelta -> Tensors (the receiving side): unchanged entries are the objects the
    cell before holds, so what is kept grows with what changed."""

    def __init__(self):
        self._last = Tensors()

    def decode(self, delta: TensorsDelta) -> Tensors:
        out = []
        for part in delta.parts:
            if type(part) is tuple:
                out.extend(self._last[part[0]:part[1]])
            else:
                out.append(part)
        tensors = Tensors(out)
        tensors.omitted = delta.omitted
        self._last = tensors
        return tensors


@dataclass(frozen=True)
class ModuleGrads:
    """The tensors of one module summed up (``run --by-module``): a parameter or buffer is
    named by its module's path (``model.fc1.weight``), as gradviz names them."""
    path: str  # 'model.fc1', or shorter at a --depth
    tensors: int
    numel: int
    grad_norm: Optional[float]  # the 2-norm of all their gradients together; None: none has one
    without_grad: int  # tensors that require grad and have no .grad


def by_module(tensors, depth: Optional[int] = None) -> Tuple[Tuple[ModuleGrads, ...], tuple]:
    """(one ModuleGrads per module, in the order of their first tensor; the tensors that
    belong to none: plain variables, ``xs[3]``). ``depth``: group by the module that many
    levels below the root (0: the root), as ``--depth`` opens the picture's frames."""
    groups, rest = {}, []
    for t in tensors:
        path, dot, _ = t.name.rpartition(".")
        if not dot or "[" in t.name or not path:
            rest.append(t)
            continue
        if depth is not None:
            path = ".".join(path.split(".")[:depth + 1])
        groups.setdefault(path, []).append(t)
    rows = []
    for path, members in groups.items():
        norms = [t.grad.stats.norm for t in members if t.grad is not None and t.grad.stats.norm is not None]
        rows.append(ModuleGrads(path, len(members), sum(t.numel for t in members),
                                sum(n * n for n in norms) ** 0.5 if norms else None,
                                sum(1 for t in members if t.requires_grad and t.grad is None)))
    return tuple(rows), tuple(rest)
