"""Gradient formulas on bare numpy arrays, for backward passes that build no graph.

A formula is written once, with engine ops, so that with create_graph it records its own
graph. Without create_graph that machinery only costs time, so a formula that uses nothing
but arithmetic operators and a few elementwise engine functions (``F.cos``...) is run here
on the arrays themselves; those functions resolve to the very numpy kernels of their ops.
Which formulas qualify is read from their bytecode once, so nothing has to be declared and
nothing is written twice.
"""
import dis
import types

import numpy as np

from .. import _kernels as K, _ops

_ATTR_LOADS = {"LOAD_ATTR", "LOAD_METHOD"}
_NAMESPACE = None


def _raw_namespace():
    """F.<name> -> the numpy kernel its op runs forward, on arrays and numbers. Built on
    first use: the op table imports the autograd package, so it is not complete at import."""
    global _NAMESPACE
    if _NAMESPACE is None:
        _NAMESPACE = types.SimpleNamespace(
            cos=_ops.cos.forward, sin=_ops.sin.forward, exp=_ops.exp.forward, log=_ops.log.forward,
            sqrt=_ops.sqrt.forward, tanh=_ops.tanh.forward, sigmoid=_ops.sigmoid.forward, neg=_ops.neg.forward,
            sgn=_ops.sgn.forward, sign=_ops.sign.forward, reciprocal=_ops.reciprocal.forward,
            tanh_backward=_ops.tanh_backward.forward, sigmoid_backward=_ops.sigmoid_backward.forward,
            threshold_backward=K.threshold_backward_array,
            conj=_conj, mm=_ops.mm.forward, t=_ops.t.forward,
            scalar_add=lambda a, number: (a + number).astype(a.dtype, copy=False),
            scalar_sub=lambda a, number: (a - number).astype(a.dtype, copy=False),
            scalar_mul=lambda a, number: (a * number).astype(a.dtype, copy=False),
            expand=lambda t, size: K.expand_array(np.asarray(t), tuple(size)))
    return _NAMESPACE


def _conj(x, _ndarray=np.ndarray):
    """F.conj in a raw formula: an array (ndarray.conj is the array itself unless it is
    complex; it runs in every real backward) or a number."""
    if type(x) is _ndarray:
        return x.conj()
    if type(x) is complex:
        return x.conjugate()
    return np.conjugate(x) if getattr(x, "dtype", None) is not None else x


def raw_version(formula):
    """The formula rebound to run on arrays, or None if it needs more than operators and
    the elementwise functions above (a method call, a helper, any other global)."""
    namespace = _raw_namespace()
    instructions = list(dis.get_instructions(formula))
    for i, ins in enumerate(instructions):
        if ins.opname == "LOAD_GLOBAL":
            nxt = instructions[i + 1] if i + 1 < len(instructions) else None
            if ins.argval != "F" or nxt is None or nxt.opname not in _ATTR_LOADS or not hasattr(namespace, nxt.argval):
                return None
        elif ins.opname in _ATTR_LOADS:
            prev = instructions[i - 1]
            if prev.opname != "LOAD_GLOBAL" or prev.argval != "F":
                return None
        elif ins.opname in ("LOAD_DEREF", "LOAD_CLOSURE", "LOAD_NAME", "IMPORT_NAME"):
            return None
    # __name__ keeps the formula's module for the warnings machinery (its filters match it)
    globals_ = {"F": namespace, "__builtins__": {}, "__name__": formula.__module__}
    return types.FunctionType(formula.__code__, globals_, formula.__name__, formula.__defaults__)


def raw_formulas(op):
    """Array versions of every formula of ``op``, or None unless all of them qualify."""
    if op.variadic or op.multi_output:
        return None
    versions = tuple(raw_version(f) for f in op.formulas)
    return versions if all(v is not None for v in versions) else None
