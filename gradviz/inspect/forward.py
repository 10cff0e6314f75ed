"""The forward side of a snapshot, for both engines: the recorded ops the roots depend
on, found by one backwards sweep over the recorder's ops, renumbered (``v<k>``, ``f<k>``)
and their values named (the caller's variable names, else an expression such as ``w1*a``).

It reads only the recorder interface that ``Recorder`` and ``TorchRecorder`` both offer:
``ops``, ``op``, ``value``, ``value_of``, ``op_for_node``, ``node_of``, ``op_params`` and
``grad_info``.
"""
from . import expr
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
        wanted = set()
        for t, node, nr in root_specs:
            rec = recorder.value_of(t) if t is not None else None
            if rec is None and node is not None:
                op = recorder.op_for_node(node)
                if op is not None and nr < len(op.outputs):
                    rec = recorder.value(op.outputs[nr])
            if rec is not None:
                wanted.add(rec.serial)
        # One sweep from the last op back: an op is kept when it made a wanted value.
        kept = []
        for op in reversed(ops):
            if any(s in wanted for s in op.outputs):
                kept.append(op)
                wanted.update(op.inputs)
        kept.reverse()
        self.ids = {}  # value serial -> 'v<k>'
        values, fops = [], []
        exprs, intern = {}, {}
        for op in kept:
            node = self.recorder.node_of(op)
            for s in op.inputs + op.outputs:
                if s not in self.ids:
                    self.ids[s] = f"v{len(self.ids)}"
            operands = [exprs.get(s) or self._source_expr(s, names, exprs) for s in op.inputs]
            params = self.recorder.op_params(node) if op.name.startswith("pow") and node is not None else None
            multi = len(op.outputs) > 1
            for nr, s in enumerate(op.outputs):
                named = self._name_of(s, names)
                if named:
                    exprs[s] = expr.atom(named)
                else:
                    e = expr.build(op.name, operands, params, nr if multi else None)
                    exprs[s] = intern.setdefault(e, e)  # a chain repeats 'tanh(…)' 100,000 times
            node_id = index.get(id(node)) if node is not None else None
            if node is not None:
                self.op_by_node[id(node)] = op
            fops.append(ForwardOp(f"f{len(fops)}", op.name, op.node_name, tuple(self.ids[s] for s in op.inputs),
                                  tuple(self.ids[s] for s in op.outputs), site(op.site), node_id,
                                  op.during_backward, *self.modules.of_op(op)))
        for s in self.ids:  # ids were given in first-appearance order
            values.append(self._value(s, names, exprs))
        self.values = tuple(values)
        self.ops = tuple(fops)
        self._names = {s: v.name for s, v in zip(self.ids, self.values)}
        self._named = {s for s, v in zip(self.ids, self.values) if v.named}

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
            return None, None
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
