"""The engine's fast paths (issue 7) keep PyTorch's semantics.

Backward without create_graph runs on bare arrays, one-edge nodes hand their gradient
over, nodes share interned facts (``_sig``), options dicts and freed slots, and version
counters are made on first use. Each test drives one of those paths and checks what a
user sees: values against analytic gradients, errors verbatim, and no graph left for the
cyclic collector. Nothing here is timed (bench/ measures speed).
"""
import gc

import numpy as np
import pytest

import gradviz.torch as T
from gradviz.torch import _common
from gradviz.torch.autograd.node import FreedSlot

SECOND_BACKWARD = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
                   "have already been freed). Saved intermediate values of the graph are freed when you call "
                   ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                   "graph a second time or if you need to access saved tensors after calling backward.")


def leaf(values):
    return T.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


def test_chain_of_one_edge_nodes_matches_the_analytic_gradient():
    x = leaf([0.3, -1.2, 2.0])
    y = x
    for _ in range(50):
        y = T.sin(y * 0.9)
    y.sum().backward()
    # d/dx of the 50-fold composition, by the chain rule on numpy values.
    value, grad = x.detach().numpy(), np.ones(3)
    for _ in range(50):
        grad = grad * 0.9 * np.cos(value * 0.9)
        value = np.sin(value * 0.9)
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-12)


def test_node_with_two_incoming_edges_waits_for_both():
    x = leaf([0.5, 1.5])
    y = x * 2.0  # its node gets gradients from two users: no hand-over here
    (y.sin() + y.cos()).sum().backward()
    expected = 2.0 * (np.cos(2 * x.detach().numpy()) - np.sin(2 * x.detach().numpy()))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_leaf_used_many_times_accumulates_once_per_pass_and_across_passes():
    x = leaf([1.0, 2.0])
    total = x
    for _ in range(9):
        total = total + x
    total.sum().backward()
    total2 = (x * 3.0).sum()
    total2.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [13.0, 13.0])


def test_shared_options_dict_is_never_written():
    x = leaf([1.0, 2.0])
    a = x + x
    b = x.add(x, alpha=2)
    assert a.grad_fn._saved_alpha == 1 and b.grad_fn._saved_alpha == 2
    (a + b).sum().backward()
    assert _common._ALPHA_ONE == {"alpha": 1}
    assert _common._NO_OPTIONS == {}
    assert a.grad_fn._saved_alpha == 1  # options outlive the freed tensors, as in PyTorch


def test_bare_saved_number_reads_as_a_tensor_then_as_freed():
    x = leaf([1.0, 2.0])
    y = x * 2.5
    saved = y.grad_fn._saved_other
    assert isinstance(saved, T.Tensor) and saved.item() == 2.5
    y.sum().backward()
    with pytest.raises(RuntimeError) as err:
        y.grad_fn._saved_other
    assert str(err.value) == SECOND_BACKWARD
    assert dict(y.grad_fn.saved_items())["other"].is_tensor is False


def test_freed_slots_are_shared_yet_each_node_refuses_a_second_pass():
    x = leaf([0.1, 0.2])
    a, b = T.tanh(x), T.tanh(x + 1.0)
    (a + b).sum().backward()
    freed_a = dict(a.grad_fn.saved_items())["result"]
    freed_b = dict(b.grad_fn.saved_items())["result"]
    assert isinstance(freed_a, FreedSlot) and freed_a is freed_b
    assert freed_a.shape == (2,) and freed_a.saved_version == 0
    for out in (a, b):
        with pytest.raises(RuntimeError) as err:
            out.sum().backward()
        assert str(err.value) == SECOND_BACKWARD


def test_nodes_of_one_loop_line_share_their_freed_slots_only_when_nothing_differs():
    """Freed nodes of the same facts share one read-only set of freed slots, unless one of
    them saved a tensor at another version or kept an option (whose value may differ)."""
    x = leaf([0.1, 0.2])
    outs, slopes = [], []
    for k in range(3):
        base = x * 1.0
        if k == 2:
            base.add_(0.0)  # saved below at version 1
        outs.append(T.sin(base))
        slopes.append(T.nn.functional.leaky_relu(x * 1.0, 0.1 * (k + 1)))
    sum(t.sum() for t in outs + slopes).backward()
    first, second, bumped = (t.grad_fn._saved for t in outs)
    assert first is second and bumped is not first
    with pytest.raises(TypeError):
        first["self"] = None
    assert dict(outs[2].grad_fn.saved_items())["self"].saved_version == 1
    assert [t.grad_fn._saved_negative_slope for t in slopes] == pytest.approx([0.1, 0.2, 0.3])
    for out in outs:
        with pytest.raises(RuntimeError) as err:
            out.sum().backward()
        assert str(err.value) == SECOND_BACKWARD


def test_version_counter_is_made_on_first_use_and_shared_with_views():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 1.0
    assert y._version == 0 and y._vb is None  # never modified: no counter yet
    view = y[1:]
    view.mul_(2.0)
    assert y._version == 1 and view._version == 1 and view._vb is y._vb


def test_saved_input_modified_in_place_is_refused_with_pytorchs_message():
    x = leaf([1.0, 2.0])
    y = x * 1.0
    z = y.sin()  # saves y, whose counter does not exist yet
    y.add_(1.0)
    with pytest.raises(RuntimeError) as err:
        z.sum().backward()
    # PyTorch 2.13's text, word for word (it names the tensor's current history: Add).
    assert str(err.value) == (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[torch.DoubleTensor [2]], which is output 0 of Add, is at version 1; expected version 0 instead. "
        "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).")


def test_nodes_of_one_op_shape_and_line_share_their_facts():
    x = leaf([1.0, 2.0])
    nodes = []
    y = x
    for _ in range(3):
        y = T.sin(y)
        nodes.append(y.grad_fn)
    assert nodes[0]._sig is nodes[1]._sig is nodes[2]._sig
    assert nodes[0]._site[0] == __file__ and nodes[0].name() == "SinBackward0"
    z = T.sin(x[None])  # another shape: its own facts
    assert z.grad_fn._sig is not nodes[0]._sig


def test_rewriting_a_fact_gives_the_node_its_own_copy():
    x = leaf([1.0, 2.0])
    a, b = T.sin(x), T.sin(x)
    shared = a.grad_fn._sig
    b.grad_fn._site = ("elsewhere.py", 7)
    assert a.grad_fn._sig is shared and a.grad_fn._site != ("elsewhere.py", 7)
    assert b.grad_fn._site == ("elsewhere.py", 7) and b.grad_fn._op is a.grad_fn._op


def test_hooks_on_a_chain_node_take_the_general_path():
    x = leaf([1.0, 2.0])
    y = x * 3.0
    z = y.sin()
    seen = []
    y.register_hook(lambda g: seen.append(g.clone()) or g * 2)
    z.sum().backward()
    np.testing.assert_allclose(seen[0].numpy(), np.cos(3 * x.detach().numpy()))
    np.testing.assert_allclose(x.grad.numpy(), 6 * np.cos(3 * x.detach().numpy()))


def test_a_long_graph_is_freed_by_refcounting_alone():
    x = leaf([0.5, 0.25])
    gc.collect()
    gc.disable()
    try:
        y = x
        for k in range(2000):
            y = T.tanh(y) if k % 2 else y * 1.5
        y.sum().backward()
        del y
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert unreachable == 0


FLOATS = [0.1, -1.0, 2.5, 1e-30, -3.0e38, 1e-45, 7.0, 0.0, -0.0, float("inf"), float("nan"), 1e39, 123456789.123]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv"])
def test_a_python_float_given_as_a_0d_array_gives_the_same_bits(op, dtype):
    """Arithmetic with a Python float meets it as a cached 0-d array of the tensor's dtype."""
    import operator
    values = np.array([0.3, -1.7, 3.0e38, 1e-40, 0.0, -2.5], dtype=dtype)
    fn = getattr(operator, op)
    for number in FLOATS:
        with np.errstate(all="ignore"):
            expected = fn(values, number)
            got = (fn(T.tensor(values), number)).numpy()
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8), err_msg=f"{op} {number}")


def test_scalar_arrays_are_cached_read_only_and_skip_what_they_cannot_hold():
    from gradviz.torch import _kernels as K
    like = np.zeros(3, np.float32)
    first, again = K.scalar_as_array(0.25, like), K.scalar_as_array(0.25, like)
    assert first is again and first.dtype == np.float32 and first.shape == () and not first.flags.writeable
    for bare in (0.0, -0.0, float("nan"), float("inf"), 1e39):
        assert K.scalar_as_array(bare, like) is bare
    assert K.scalar_as_array(0.25, np.zeros(3, np.int64)) == 0.25  # integer tensors: numpy promotes
    assert K.scalar_as_array(0.25, np.zeros(3, np.float64)).dtype == np.float64


def test_mul_by_a_float_backward_matches_pytorch_values_and_frees_the_number():
    x = T.tensor(np.array([0.5, -2.0, 3.0], np.float32), requires_grad=True)
    y = x * 0.1
    node = y.grad_fn
    y.sum().backward()
    expected = (np.ones(3, np.float32) * 0.1).astype(np.float32)
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    assert x.grad.dtype == T.float32
    (name, slot), = node.saved_items()
    assert name == "other" and isinstance(slot, FreedSlot) and not slot.is_tensor
    with pytest.raises(RuntimeError, match="second time"):
        node._saved_other


def test_chain_through_a_constant_operand_hands_over_and_leaves_the_constant_alone():
    """x + B with B not requiring grad: the node's second edge is empty, so it takes the
    one-edge hand-over; a second use of the same node's output still waits for both edges."""
    x = leaf([0.5, -1.0, 2.0])
    B = T.tensor(np.array([0.25, 0.5, -0.75]))
    y = x
    for _ in range(20):
        y = T.tanh(y + B)
    z = y + B
    (z * z + z).sum().backward()
    value, grads = x.detach().numpy(), []
    for _ in range(20):
        value = np.tanh(value + B.numpy())
        grads.append(1 - value * value)
    grad = 2 * (value + B.numpy()) + 1
    for g in reversed(grads):
        grad = grad * g
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-12)
    assert B.grad is None and not B.requires_grad


def _line_of(marker):
    """The line of this file that carries ``# marker``."""
    with open(__file__) as source:
        return next(number for number, line in enumerate(source, 1) if "# " + marker in line)


def _fast_path_calls(x, y):
    a = T.tanh(x)  # marker: unary
    b = a * y  # marker: binary
    c = b + 0.5  # marker: scalar
    return a, b, c


def test_fast_path_nodes_record_the_users_line_and_pytorchs_names():
    x = leaf([0.1, 0.2])
    y = leaf([1.0, -1.0])
    a, b, c = _fast_path_calls(x, y)
    for t, marker, name in ((a, "marker: unary", "TanhBackward0"), (b, "marker: binary", "MulBackward0"),
                            (c, "marker: scalar", "AddBackward0")):
        assert t.grad_fn.name() == name
        assert t.grad_fn._site == (__file__, _line_of(marker))
    assert b.grad_fn.next_functions[0] == (a.grad_fn, 0)
    assert b.grad_fn.next_functions[1][0].name() == "torch::autograd::AccumulateGrad"
    assert c.grad_fn.next_functions == ((b.grad_fn, 0), (None, 0))


def test_fast_path_promotes_dtypes_as_pytorch_does():
    ints = T.tensor([1, 2, 3])
    assert (ints * 2.5).dtype == T.float32 and (ints + 1.5).tolist() == [2.5, 3.5, 4.5]
    halves = T.tensor([1.0, 2.0], dtype=T.float32, requires_grad=True)
    doubles = T.tensor([3.0, 4.0], dtype=T.float64, requires_grad=True)
    z = halves * doubles
    assert z.dtype == T.float64
    z.sum().backward()
    assert halves.grad.dtype == T.float32 and doubles.grad.dtype == T.float64
    np.testing.assert_array_equal(halves.grad.numpy(), [3.0, 4.0])


def test_fast_path_refusals_keep_pytorchs_messages():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\) "
                                           r"at non-singleton dimension 0"):
        leaf([1.0, 2.0, 3.0]) * leaf([1.0, 2.0])
    with T.inference_mode():
        made = T.tanh(leaf([0.5])) + 1.0
    assert made.is_inference() and made.grad_fn is None


def test_fast_path_defers_to_listeners_and_saved_tensor_hooks():
    packed = []
    with T.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        x = leaf([0.3, 0.4])
        y = T.sin(x) * x
    assert len(packed) == 3  # sin's self, mul's self and other
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.3, 0.4]) * [0.3, 0.4] + np.sin([0.3, 0.4]))


class _Pair(T.autograd.Function):
    """Two float outputs from one node: the second has output_nr 1."""

    @staticmethod
    def forward(ctx, x):
        return x * 1.0, x * 2.0

    @staticmethod
    def backward(ctx, first, second):
        return first + 2.0 * second


def test_facts_reused_from_the_ops_last_node_only_when_every_field_matches():
    """apply_unary/_binary reuse the op's last node's facts when op, site, shapes, dtypes,
    output numbers and needs all match; any difference gives the node its own."""
    small, big = leaf([0.1, 0.2]), leaf([0.1, 0.2, 0.3])
    single = T.tensor([0.5, 0.25], dtype=T.float32, requires_grad=True)
    first, second = _Pair.apply(leaf([1.0, 2.0]))
    nodes = []
    for t in (small, big, small, single, second, first):
        nodes.append(T.tanh(t).grad_fn)
    nodes.append(T.tanh(small).grad_fn)  # another line
    assert [n._input_meta[0][0] for n in nodes] == [(2,), (3,), (2,), (2,), (2,), (2,), (2,)]
    assert nodes[3]._output_meta[0][1] == np.float32 and nodes[0]._output_meta[0][1] == np.float64
    assert nodes[4]._nrs == (1,) and nodes[5]._nrs == (0,)
    assert nodes[0]._sig is nodes[2]._sig and nodes[0]._sig is not nodes[3]._sig
    assert nodes[6]._site[1] == nodes[0]._site[1] + 1 and nodes[6]._sig is not nodes[0]._sig
    products = [(small * other).grad_fn for other in (small, 2.0, T.tensor([1.0, 1.0]), small)]
    assert [p._needs for p in products] == [(True, True), (True, False), (True, False), (True, True)]
    assert products[1]._input_meta[1] is None and products[0]._sig is products[3]._sig
    one = leaf([3.0])
    broadcast = [(t * big).grad_fn for t in (one, big)]  # same result shape, different first input
    assert [n._input_meta[0][0] for n in broadcast] == [(1,), (3,)]
    scaled = [(t * 2.0).grad_fn for t in (small, big, single, small)]
    assert [(n._input_meta[0], n._output_meta[0]) for n in scaled] == [
        (((2,), np.float64),) * 2, (((3,), np.float64),) * 2, (((2,), np.float32),) * 2, (((2,), np.float64),) * 2]
    (sum(T.tanh(t).sum() for t in (small, big, second)) + sum(p(T.ones(2))[0].sum() for p in products)).backward()
    np.testing.assert_allclose(big.grad.numpy(), 1 - np.tanh([0.1, 0.2, 0.3]) ** 2)


def test_fast_path_site_follows_the_calling_instruction():
    """The site of a fast-path node is reused while calls come from the same instruction of
    user code; calls from other lines, and through gradviz's own modules, read it anew."""
    x = leaf([0.1, 0.2])
    lines = []
    for _ in range(2):
        first = T.tanh(x)  # marker: loop first
        second = T.tanh(x) * 2.0  # marker: loop second
        lines += [first.grad_fn._site[1], second.grad_fn.next_functions[0][0]._site[1], second.grad_fn._site[1]]
    first_line, second_line = _line_of("marker: loop first"), _line_of("marker: loop second")
    assert lines == [first_line, second_line, second_line] * 2
    module = T.nn.Tanh()
    through_module = [module(x), module(x)]  # marker: module pair
    again = module(x)  # marker: module again
    assert [t.grad_fn._site for t in through_module + [again]] == [
        (__file__, _line_of("marker: module pair"))] * 2 + [(__file__, _line_of("marker: module again"))]


@pytest.mark.parametrize("name", ["relu", "tanh", "sigmoid", "sin", "exp", "mul", "add", "sub", "div"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_array_backward_agrees_with_the_tensor_backward(name, dtype):
    """The commonest ops' formulas run on bare arrays (raw.py), and give exactly the gradients
    their formulas give on tensors (create_graph takes that path)."""
    from gradviz.torch import _ops
    from gradviz.torch.autograd.raw import raw_formulas
    assert raw_formulas(getattr(_ops, name)) is not None
    values = np.array([-1.5, -0.25, 0.0, 0.75, 2.0], dtype=dtype)
    other = np.array([0.5, -2.0, 1.25, 3.0, -0.75], dtype=dtype)
    upstream = T.tensor(np.array([1.0, -0.5, 2.0, 0.25, -3.0], dtype=dtype))
    grads = []
    for create_graph in (False, True):
        x = T.tensor(values, requires_grad=True)
        y = T.tensor(other, requires_grad=True)
        out = getattr(T, name)(x, y) if name in ("mul", "add", "sub", "div") else getattr(T, name)(x)
        grads.append([g.detach().numpy() for g in T.autograd.grad(out, (x, y), upstream, create_graph=create_graph,
                                                                    allow_unused=True) if g is not None])
    on_arrays, on_tensors = grads
    assert len(on_arrays) == len(on_tensors)
    for a, b in zip(on_arrays, on_tensors):
        np.testing.assert_array_equal(a, b)
