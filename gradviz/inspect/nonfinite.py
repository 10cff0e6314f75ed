"""Where a NaN (or an infinity) starts: ``gradviz run SCRIPT --nan``.

One pass, watching both directions, on either engine:
- forward: every op's outputs as the recorder sees the op (on PyTorch, every torch-level
  call; on gradviz's engine, every op that records a node);
- backward: a post hook on every node of each backward call's graph, which sees what
  arrived and what leaves along each edge: the first node whose leaving gradients are not
  finite while what arrived was finite is where the backward made it.

The first finding is kept (``NonFiniteInfo``) with its line, its text, how many elements,
the inputs it read and the standard fix for the pattern; the script runs on, untouched.
"""
from .calls import op_name, operand_texts
from .model import NonFiniteInfo
from .torch_nodes import sequence_nr
from .walk import hook_nodes, unhook, walk

_FIXES = (  # (ops, fix), first match wins; ops: forward names and node names
    (("sqrt", "rsqrt"), "sqrt's gradient is infinite at 0 (and sqrt is NaN below it): keep its input away from 0, "
                        "torch.sqrt(x + 1e-12) or torch.sqrt(x.clamp(min=1e-12))"),
    (("log", "log2", "log10"), "log is -inf at 0 and NaN below it: torch.log(x + 1e-12) or x.clamp(min=1e-12); "
                               "for log(softmax(z)) use torch.log_softmax(z, dim)"),
    (("log_softmax", "softmax", "cross_entropy"), "the logits are not finite: find where they became so, or "
                                                  "scale them down; torch.log_softmax is the stable form"),
    (("div", "true_divide", "reciprocal"), "a division by 0: add an eps to the denominator, x / (y + 1e-12), "
                                            "or clamp it away from 0"),
    (("exp", "pow"), "exp (or a power) overflowed: clamp its input, x.clamp(max=80), or use the stable form "
                     "(torch.logsumexp, torch.log_softmax)"),
    (("acos", "asin", "atanh"), "the input left the function's domain, or sits at its edge where the gradient is "
                                "infinite: clamp it, x.clamp(-1 + 1e-6, 1 - 1e-6)"),
)
_INF_FIRST = ("its inputs were already infinite (inf - inf, 0 * inf and inf / inf are NaN): "
              "--nan=inf finds where the infinity started")
_DOUBLE_WHERE = ("the double-where trap: torch.where keeps the bad values out of its result but not out of the "
                 "gradient, where they become NaN. Make the input safe before the op, "
                 "torch.where(mask, torch.sqrt(torch.where(mask, x, 1.0)), 0.0)")


class NonFiniteWatch:
    """Finds the first non-finite value of a run. ``inf``: count infinities too (NaN only
    by default). ``names``: ``fn() -> {id(tensor): name}``, asked once, at the finding.
    ``finite``: the engine's ``fn(tensor) -> (count, total, first index)`` of the
    offending elements (count 0: all fine)."""

    def __init__(self, finite, names, inf=False):
        self.check, self.names, self.inf = finite, names, inf
        self.found = None
        self.backward_calls = 0  # calls begun: the step of a training loop
        self._handles = []

    # -- forward ---------------------------------------------------------------------
    def forward(self, name, site, code, text, inputs, outputs, node=None):
        """An op ran: ``name`` ('sqrt'), its ``site`` and line of ``code``, the ``text``
        its result is known by (source text, else None), its input and output tensors,
        and the node it made, if any."""
        if self.found is not None:
            return
        for t in outputs:
            bad = self.check(t, self.inf)
            if bad is not None and bad[0]:
                self._record("forward", name, name, site, code, text, t, bad, inputs, node)
                return

    # -- backward --------------------------------------------------------------------
    def start(self, root_nodes, next_nodes, describe):
        """Hook every node of a backward call's graph; ``describe(node)`` gives
        (forward op name, site, line of code, text) of the op that made it."""
        self.backward_calls += 1
        if self.found is not None:
            return
        order, _ = walk([n for n in root_nodes if n is not None], next_nodes)
        self._handles = hook_nodes(order, lambda _, node: self._hook(node, describe))

    def _hook(self, node, describe):
        def hook(grad_inputs, grad_outputs):
            if self.found is not None:
                return
            if any(g is not None and (self.check(g, self.inf) or (0,))[0] for g in grad_outputs):
                return  # it arrived so: made earlier
            for g in grad_inputs:
                bad = self.check(g, self.inf) if g is not None else None
                if bad is not None and bad[0]:
                    forward, site, code, text = describe(node)
                    self._record("backward", type(node).__name__, forward, site, code,
                                 f"the gradient of {text}" if text else None, g, bad, (), node)
                    return
        return hook

    def stop(self):
        unhook(self._handles)
        self._handles = []

    # -- the finding -----------------------------------------------------------------
    def _record(self, phase, where, forward, site, code, text, t, bad, inputs, node=None):
        count, total, first, kind = bad
        names = self.names() if (text is None or inputs) else {}
        operands = operand_texts(text) if text and inputs else None  # x.exp() - y.exp(): its two sides
        if operands is None or len(operands) != len(inputs):
            operands = ["a tensor"] * len(inputs)
        # an input is finite when it has neither NaN nor infinity (inf - inf made this NaN)
        shown = [(names.get(id(x)) or label, (self.check(x, True) or (0,))[0] == 0)
                 for x, label in zip(inputs, operands)]
        self.found = NonFiniteInfo(
            phase=phase, kind=kind, op=where, site=site, code=code or "",
            tensor=text or names.get(id(t)) or f"the result of {forward}", shape=tuple(getattr(t, "shape", ())),
            count=count, total=total, first=tuple(first), inputs=tuple(shown), step=self.backward_calls,
            fix=_INF_FIRST if kind == "nan" and not self.inf and any(not ok for _, ok in shown)
            else fix_for(forward, where, code or ""), node_seq=_sequence_nr(node))


def _sequence_nr(node) -> int:
    try:
        return int(sequence_nr(node)) if node is not None else -1
    except Exception:  # noqa: BLE001 - a node without one
        return -1


def fix_for(forward, node_name, code):
    """The standard fix for a non-finite value made by ``forward`` (its node ``node_name``)."""
    if "where(" in code and forward in ("sqrt", "rsqrt", "log", "div", "pow", "acos", "asin"):
        return _DOUBLE_WHERE
    names = {forward, op_name(forward)}
    if node_name:
        base = node_name.split("Backward")[0].lower()
        names.add(base)
    for ops, fix in _FIXES:
        if names.intersection(ops):
            return fix
    return "look at the inputs listed: the first of them that is not finite came from earlier"


def numpy_check(array, inf):
    """(count, total, first index, 'nan' or 'inf') of a numpy array's offending elements,
    or None for an array of integers."""
    import numpy as np

    if array.dtype.kind not in "fc":
        return None
    with np.errstate(all="ignore"):
        nan = np.isnan(array)
        count = int(nan.sum())
        kind = "nan"
        if not count and inf:
            nan = np.isinf(array)
            count, kind = int(nan.sum()), "inf"
    if not count:
        return (0, int(array.size), (), kind)
    first = tuple(int(i) for i in np.unravel_index(int(np.argmax(nan)), array.shape)) if array.ndim else ()
    return (count, int(array.size), first, kind)


def describe_value(count, total, kind):
    word = "NaN" if kind == "nan" else "infinite"
    return f"{count:,} of {total:,} element{'s' if total != 1 else ''} {word}"
