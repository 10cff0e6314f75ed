"""Every op of the op table (``gradviz/torch/_ops*.py``, each family file) is checked against
PyTorch by at least one oracle case: some case's graph, run on gradviz's engine, has a
node of that op's name, in its forward graph or in the graph of its double backward.

The cases are those that the oracle tests run on both engines: ``oracle.OP_CASES``
(test_ops_oracle.py), the attention / einsum / cdist, resize / pad / group norm and nn-breadth
cases, and nn's functional and module cases (test_nn.py). An op none of them reaches is
either given a case or listed in EXCLUDED with the reason it cannot have one; an entry
that a case now reaches fails the last test, so the list only shrinks.
"""
import importlib
import warnings
from pathlib import Path

import numpy as np
import pytest

import oracle
import gradviz.torch as gv
from gradviz.torch import _ops

#: every family file of the op table, found on disk: a new one is checked without a word here
OP_MODULES = [importlib.import_module(f"gradviz.torch.{path.stem}")
              for path in sorted((Path(_ops.__file__).parent).glob("_ops*.py"))]

pytest.importorskip("torch")  # the case modules below are oracle tests: they need PyTorch to import

import test_attention_oracle  # noqa: E402
import test_nn_breadth_oracle  # noqa: E402
import test_nn_more_oracle  # noqa: E402
import test_nn  # noqa: E402
import test_nn_layers_more_oracle as nn_more  # noqa: E402
import test_resize_pad_oracle  # noqa: E402
import test_sampling_oracle  # noqa: E402
import test_torch_breadth_oracle as breadth  # noqa: E402

#: node name -> why no oracle case of the kinds above produces it
_RNN_ONLY = ("made only inside nn.LSTM / nn.utils.rnn packing, which tests/test_rnn_oracle.py runs on both "
             "engines as whole modules, not as oracle Cases")
EXCLUDED = {
    "MkldnnRnnLayerBackward0": _RNN_ONLY,
    "PackPaddedSequenceBackward0": _RNN_ONLY,
}


def _op_nodes():
    """{node name: the op table entries that make it}."""
    out = {}
    for module in OP_MODULES:
        for name, value in vars(module).items():
            if isinstance(value, _ops.Op):
                out.setdefault(value.node_name, []).append(f"{module.__name__.rpartition('.')[2]}.{name}")
    return out


def _tensors(value):
    if isinstance(value, gv.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors(item)


def _node_names(roots, into):
    stack, seen = [t.grad_fn for t in roots], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        into.add(type(node).__name__)
        stack.extend(fn for fn, _ in node.next_functions)


def _run(fn, inputs, into, double):
    """The node names of ``fn(*inputs)``'s graph and, with ``double``, of its gradient's."""
    try:
        outputs = [t for t in _tensors(fn(*inputs)) if t.grad_fn is not None]
    except Exception:  # an error case: what it raises is compared by the oracle tests
        return
    _node_names(outputs, into)
    wrt = [t for t in inputs if isinstance(t, gv.Tensor) and t.requires_grad]
    if double and outputs and wrt:
        # An upstream gradient that requires grad, as the oracle's double backward passes: the
        # backward-of-backward nodes are differentiable through it.
        outputs = [t for t in outputs if t.dtype.is_floating_point]
        upstream = [gv.ones_like(t).requires_grad_() for t in outputs]
        try:
            grads = gv.autograd.grad(outputs, wrt, upstream, create_graph=True, allow_unused=True)
        except Exception:
            return
        _node_names([g for g in grads if g is not None], into)


def _nn_inputs(arrays, grad_mask):
    out = []
    for i, a in enumerate(arrays):
        rg = a.dtype.kind == "f" and (grad_mask is None or grad_mask[i])
        out.append(gv.tensor(a.copy(), requires_grad=rg))
    return out


def _reached():
    names = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in (oracle.OP_CASES + test_attention_oracle.CASES + test_resize_pad_oracle.CASES
                     + test_nn_breadth_oracle.CASES + test_sampling_oracle.CASES
                     + [oracle.Case(c.name, c.fn, *c.args) for c in test_sampling_oracle.SAMPLE_CASES] + test_nn_more_oracle.CASES + test_nn_more_oracle.BILINEAR
                     + [c for c in test_nn_more_oracle.EMBEDDING_BAG if isinstance(c, oracle.Case)]):
            inputs = oracle.make_inputs(gv, case.args, case.arrays())
            _run(lambda *xs: case.fn(gv, *xs), inputs, names, case.double)
        for _, fn, arrays, grad_mask in test_nn.F_CASES:
            _run(lambda *xs: fn(test_nn.G, *xs), _nn_inputs(arrays, grad_mask), names, True)
        for _, fn, make, grad_mask in nn_more.LOSS_CASES + [c + (None,) for c in nn_more.CONV_CASES]:
            _run(lambda *xs: fn(test_nn.G, *xs), _nn_inputs(make(nn_more._rng(0)), grad_mask), names, True)
        for expression in breadth.CALLS:
            _run(lambda: eval(expression, {"np": np}, breadth.inputs(gv, 0)), [], names, False)
        for _, make, arrays in test_nn.M_CASES:
            gv.manual_seed(0)
            _run(make(test_nn.G), _nn_inputs(arrays, None), names, True)
    return names


@pytest.fixture(scope="module")
def reached():
    return _reached()


#: torch.linalg's decompositions are checked against PyTorch by tests/test_linalg_oracle.py,
#: family by family: their signs and orders are LAPACK's choice, so those tests compare
#: sign-free invariants (reconstructions, projectors) and gradients through them, which an
#: oracle Case (values as they come) cannot
LINALG_NODES = {value.node_name for value in vars(importlib.import_module("gradviz.torch._ops_linalg")).values()
                if isinstance(value, _ops.Op)}


def test_every_op_has_an_oracle_case(reached):
    missing = {name: where for name, where in sorted(_op_nodes().items()) if name not in reached
               and name not in EXCLUDED and name not in LINALG_NODES}
    assert missing == {}, f"ops no oracle case reaches (add a case to tests/oracle.py): {missing}"


def test_every_exclusion_is_still_needed(reached):
    ops = _op_nodes()
    stale = sorted(name for name in EXCLUDED if name in reached or name not in ops)
    assert stale == [], f"reached by a case now, or no longer an op: take them off EXCLUDED: {stale}"


def test_the_collector_sees_a_known_op(reached):
    assert {"AddBackward0", "MmBackward0", "SumBackward0"} <= reached
    assert np.all([isinstance(n, str) for n in reached])
