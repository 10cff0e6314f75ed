"""The forward side of a snapshot, for both engines: the recorded ops the roots depend
on, found by one backwards sweep over the recorder's ops, one op per torch-level call
(the ops a recorder tied together with ``call``: ``linear``'s transpose and addmm),
renumbered (``v<k>``, ``f<k>``) and their values named: the caller's variable names, else
the source text that made them (``xs[t] @ W``), else an expression (``tanh(w1*a)``).

It reads only the recorder interface that ``Recorder`` and ``TorchRecorder`` both offer:
``ops``, ``op``, ``value``, ``value_of``, ``op_for_node``, ``node_of``, ``op_params`` and
``grad_info``.
"""
from . import calls, expr
from .model import ForwardOp, Value
from .modules import SnapshotModules
from .records import site


class Forward:
    """The recorded ops the roots depend on, renumbered and named."""

    def __init__(self, recorder, names, order, index, root_specs):
        self.recorder = recorder
        self.index = index
        self.op_by_node = {}
        self.modules = SnapshotModules(getattr(recorder, "tracker", None))
        ops = recorder.ops()
        roots = self._root_values(root_specs)
        kept = self._kept(ops, roots)
        self._composite = _composite_calls(ops)
        self.ids = {}  # value serial -> 'v<k>'
        self._texts = {}  # (file, span) -> source text, once per place
        exprs, intern = {}, {}
        self.ops = tuple(self._forward_op(k, group, roots, names, exprs, intern)
                         for k, group in enumerate(_calls(kept)))
        self.values = tuple(self._value(s, names, exprs) for s in self.ids)  # ids: in first-appearance order
        self._names = {s: v.name for s, v in zip(self.ids, self.values)}
        self._named = {s for s, v in zip(self.ids, self.values) if v.named}
        # What a call made and kept inside (linear's transposed weight): no value of the
        # forward view, but a saved slot holding one is named by its expression.
        self._inner = {s: e[0] for s, e in exprs.items() if s not in self.ids and e[0] not in ("tensor", "leaf", "?")}

    def _root_values(self, root_specs):
        """The serials of the roots' values."""
        roots = set()
        for t, node, nr in root_specs:
            rec = self.recorder.value_of(t) if t is not None else None
            if rec is None and node is not None:
                op = self.recorder.op_for_node(node)
                if op is not None and nr < len(op.outputs):
                    rec = self.recorder.value(op.outputs[nr])
            if rec is not None:
                roots.add(rec.serial)
        return roots

    def _kept(self, ops, roots):
        """The ops the roots depend on, in order: one sweep from the last op back, keeping
        an op when it made a wanted value. Notes which call reads each value (``_reader``:
        that call, or ``_SEVERAL``)."""
        wanted = set(roots)
        kept = []
        reader = self._reader = {}
        for op in reversed(ops):
            if any(s in wanted for s in op.outputs):
                kept.append(op)
                wanted.update(op.inputs)
                for s in op.inputs:
                    if reader.setdefault(s, op.call) != op.call:
                        reader[s] = _SEVERAL
        kept.reverse()
        return kept

    def _forward_op(self, k, group, roots, names, exprs, intern):
        """The ForwardOp ``f<k>`` of one call's kept ops, its values numbered and named."""
        inputs, outputs = self._call_values(group, roots, names)
        for s in inputs + outputs:
            if s not in self.ids:
                self.ids[s] = f"v{len(self.ids)}"
        operands = [exprs.get(s) or self._source_expr(s, names, exprs) for s in inputs]
        first, last = group[0], group[-1]
        text = self._text(first)
        if text is not None:
            self._label_operands(text, inputs, operands, names, exprs)
        for op in group:  # every value gets an expression: saved slots of inner ops show it
            self._name_outputs(op, group, operands if len(group) == 1 else None, names, exprs, intern)
        multi = len(outputs) > 1
        for nr, s in enumerate(outputs):
            if self._name_of(s, names):
                continue
            if text is not None:
                exprs[s] = (text + f"[{nr}]", expr.ATOM) if multi else _atom(text)
            elif len(group) > 1 or outputs != list(first.outputs):
                e = expr.build(first.call_name, operands, None, nr if multi else None)
                exprs[s] = intern.setdefault(e, e)
        node = None
        for op in group:
            n = self.recorder.node_of(op)
            if n is not None:
                self.op_by_node[id(n)] = op
                if node is None or (outputs and outputs[0] in op.outputs):
                    node = n
        node_id = self.index.get(id(node)) if node is not None else None
        return ForwardOp(f"f{k}", self._call_name(group), last.node_name, tuple(self.ids[s] for s in inputs),
                         tuple(self.ids[s] for s in outputs), site(first.site), node_id, first.during_backward,
                         *self.modules.of_op(first))

    def _call_name(self, group):
        """The op's name: the function called (``linear``, ``matmul``), as PyTorch's
        TorchFunctionMode names it; ``t[...]`` that made one node by that node (``slice``,
        ``select``); a custom Function as ``MyExp.apply``."""
        first, last = group[0], group[-1]
        if last.during_backward or not first.call_name or (len(group) == 1 and last.name.endswith(".apply")):
            return last.name
        if first.call_name == "index" and len(group) == 1 and first.call not in self._composite \
                and len(getattr(first, "nodes", ())) < 2:
            return calls.node_op_name(first.node_name)
        return first.call_name

    def _call_values(self, group, roots, names):
        """(inputs, outputs) value serials of one call: what it read from outside and
        what it gave back (used by a later call, a root, named, else its last op's
        results); a composite's intermediates stay inside it."""
        op = group[0]
        if len(group) == 1 and op.call not in self._composite and (len(op.outputs) == 1 or op.call_name == op.name):
            return self._in_argument_order(op), list(op.outputs)
        # A composite, or a function that is more than its node's op (batch_norm's node also
        # gives the batch's statistics): what the code after it reads.
        made = {}
        for op in group:
            for s in op.outputs:
                made[s] = op
        if group[0].call_args is not None:
            inputs = [s for s in group[0].call_args if self.recorder.value(s) is not None]
        else:
            inputs = []
            for op in group:
                for s in op.inputs:
                    if s not in made and s not in inputs:
                        inputs.append(s)
        call = group[0].call
        outputs = [s for s in made if s in roots or self._name_of(s, names)
                   or self._reader.get(s, call) != call]
        return inputs, outputs or list(group[-1].outputs)

    def _in_argument_order(self, op):
        """A one-node call's inputs, its tensors in the order of the function's arguments
        (``embedding(input, weight)``; its node takes the weight first), numbers in place."""
        inputs = list(op.inputs)
        if op.call_args is None:
            return inputs
        tensors = [k for k, s in enumerate(inputs) if (rec := self.recorder.value(s)) is not None and rec.const is None]
        if sorted(inputs[k] for k in tensors) != sorted(op.call_args):
            return inputs
        for k, s in zip(tensors, op.call_args):
            inputs[k] = s
        return inputs

    def _name_outputs(self, op, group, operands, names, exprs, intern):
        """The built expression of each of ``op``'s results (``w1*a``), unless named."""
        if operands is None:
            operands = [exprs.get(s) or self._source_expr(s, names, exprs) for s in op.inputs]
        node = self.recorder.node_of(op)
        params = self.recorder.op_params(node) if op.name.startswith("pow") and node is not None else None
        name = self._call_name(group) if len(group) == 1 else op.name
        multi = len(op.outputs) > 1
        for nr, s in enumerate(op.outputs):
            named = self._name_of(s, names)
            if named:
                exprs[s] = expr.atom(named)
            else:
                e = expr.build(name, operands, params, nr if multi else None)
                exprs[s] = intern.setdefault(e, e)  # a chain repeats 'tanh(…)' 100,000 times

    def _label_operands(self, text, inputs, operands, names, exprs):
        """Unnamed tensors a call reads, named by their text in the call: ``xs[t]`` of
        ``xs[t] @ W_xh``, when the call's tensor operands line up with its inputs."""
        texts = calls.operand_texts(text)
        if texts is None:
            return
        tensors = [k for k, s in enumerate(inputs) if (rec := self.recorder.value(s)) is not None and rec.const is None]
        if len(texts) != len(tensors):
            return
        for k, label in zip(tensors, texts):
            s = inputs[k]
            if operands[k][0] in ("tensor", "leaf") and label and len(label) <= calls.MAX_TEXT:
                operands[k] = exprs[s] = _atom(label)

    def _text(self, op):
        """The source text of the call ``op`` began, where the user's line made it."""
        if op.span is None or not op.site:
            return None
        key = (op.site[0], op.span)
        if key not in self._texts:
            span = calls.span_at(*op.span)
            self._texts[key] = calls.source_text(op.site[0], span) if span is not None else None
        return self._texts[key]

    def _source_expr(self, s, names, exprs):
        rec = self.recorder.value(s)
        if rec is None:
            text = "?"
        elif rec.const is not None:
            text = rec.const
        else:
            # An unnamed tensor first seen as an input: a leaf made inline, data, a detached tensor.
            text = self._name_of(s, names) or ("leaf" if rec.is_leaf and rec.requires_grad else "tensor")
        exprs[s] = expr.atom(text)
        return exprs[s]

    def _name_of(self, s, names):
        """The variable name of value ``s``: its tensor's name, versioned if overwritten since."""
        rec = self.recorder.value(s)
        if rec is None or rec.ref is None:
            return None
        t = rec.ref()
        if t is None or id(t) not in names:
            return None
        latest = self.recorder.value_of(t)
        if latest is rec:
            return names[id(t)]
        return f"{names[id(t)]} (v{rec.version})"

    def _value(self, s, names, exprs):
        rec = self.recorder.value(s)
        vid = self.ids[s]
        text = exprs[s][0] if s in exprs else "?"
        if rec is None:
            return Value(vid, text, False, "tensor", alive=False)
        if rec.const is not None:
            return Value(vid, rec.const, False, "constant", shape=rec.shape, dtype=rec.dtype, requires_grad=False,
                         is_leaf=True)
        t = rec.ref()
        named = self._name_of(s, names) is not None
        grad = None
        if t is not None and self.recorder.value_of(t) is rec:
            grad = self.recorder.grad_info(t)
        node_id = None
        op = self.recorder.op(rec.producer) if rec.producer is not None else None
        node = self.recorder.node_of(op) if op is not None else None
        if node is not None and id(node) in self.index:
            node_id = self.index[id(node)]
        return Value(vid, text, named, "tensor", shape=rec.shape, dtype=rec.dtype, requires_grad=rec.requires_grad,
                     is_leaf=rec.is_leaf, version=rec.version, grad=grad, node=node_id, alive=t is not None)

    # -- lookups for the backward side ---------------------------------------------
    def op_of(self, node):
        op = self.op_by_node.get(id(node))
        return op if op is not None else self.recorder.op_for_node(node)

    def describe(self, serial):
        """(value id, variable name) of a recorded value, when it is in this snapshot."""
        if serial is None:
            return None, None
        vid = self.ids.get(serial)
        if vid is None:
            return None, self._inner.get(serial)
        return vid, (self._names[serial] if serial in self._named else None)

    def value_id_of_tensor(self, t):
        rec = self.recorder.value_of(t)
        return self.ids.get(rec.serial) if rec is not None else None

    def value_id_of_output(self, node, nr):
        op = self.op_of(node)
        if op is None or nr >= len(op.outputs):
            return None
        return self.ids.get(op.outputs[nr])

    def named_outputs(self):
        """(node id, output_nr, name) for named values made by ops in the snapshot."""
        for op in self.op_by_node.values():
            node = self.recorder.node_of(op)
            if node is None or id(node) not in self.index:
                continue
            for nr, s in enumerate(op.outputs):
                if s in self._named:
                    yield self.index[id(node)], nr, self._names[s]


_SEVERAL = object()  # a value more than one call reads


def _composite_calls(ops):
    """The calls that made more than one op (some may not be kept)."""
    seen, composite = set(), set()
    for op in ops:
        if op.call in seen:
            composite.add(op.call)
        seen.add(op.call)
    return composite


def _calls(ops):
    """Consecutive ops of one torch-level call, grouped (ops a backward made stay alone)."""
    groups = []
    for op in ops:
        if groups and not op.during_backward and op.call == groups[-1][0].call:
            groups[-1].append(op)
        else:
            groups.append([op])
    return groups


def _atom(text):
    """Source text as an operand of a built expression, parenthesised where it needs it."""
    return (text, expr.SUM if calls.parse(text)[0] else expr.ATOM)
