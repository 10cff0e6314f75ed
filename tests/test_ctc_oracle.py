"""F.ctc_loss, torch.ctc_loss and nn.CTCLoss on gradviz.torch against real PyTorch 2.13.

Over many seeds and shapes (float32 and float64; padded 2-D and concatenated 1-D targets;
lengths as lists, tuples or tensors; empty targets and inputs, repeated labels, targets
holding the blank, unbatched inputs; every reduction, with and without zero_infinity):
the losses and the gradients bit for bit (ATen's log-sum-exp order with glibc's exp and
log), the grad_fn graph node by node, CtcLossBackward0's saved values, the double
backward's refusal, the module's repr, and every error verbatim.
"""
import numpy as np
import pytest

import gradviz.torch as gt
import oracle

torch = pytest.importorskip("torch")

SEEDS = range(40)


def _problem(seed):
    """A random CTC problem: (log_probs array, targets array, input lengths, target lengths,
    blank, 1-D targets?, lengths as tensors?)."""
    rng = np.random.default_rng(seed)
    steps, batch, labels = int(rng.integers(1, 30)), int(rng.integers(1, 5)), int(rng.integers(2, 12))
    dtype = np.float32 if seed % 2 else np.float64
    logits = rng.standard_normal((steps, batch, labels)) * rng.uniform(0.5, 4)
    log_probs = (logits - np.log(np.exp(logits).sum(-1, keepdims=True))).astype(dtype)
    blank = int(rng.integers(0, labels)) if seed % 3 else 0
    longest = int(rng.integers(0, max(1, steps // 2) + 1))
    target_lengths = [int(rng.integers(0, longest + 1)) for _ in range(batch)]
    input_lengths = [int(rng.integers(0, steps + 1)) if seed % 4 == 0 else int(rng.integers(steps // 2, steps + 1))
                     for _ in range(batch)]
    choices = np.array([c for c in range(labels) if c != blank or seed % 7 == 0])
    concatenated = seed % 3 == 1
    size = (sum(target_lengths),) if concatenated else (batch, longest + int(rng.integers(0, 2)))
    targets = rng.choice(choices, size)
    if seed % 5 == 0 and targets.size > 1:  # repeated labels need a blank between them
        targets.reshape(-1)[1] = targets.reshape(-1)[0]
    return log_probs, targets, input_lengths, target_lengths, blank, seed % 2 == 0


def _node_names(T, root):
    names, stack = [], [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        names.append(node.name())
        stack.extend(fn for fn, _ in reversed(node.next_functions))
    return names


def _run(T, seed, reduction, zero_infinity, targets_dtype="int64"):
    log_probs, targets, input_lengths, target_lengths, blank, as_tensors = _problem(seed)
    lp = T.tensor(log_probs, requires_grad=True)
    tg = T.tensor(targets).to(getattr(T, targets_dtype))
    lengths = (T.tensor(input_lengths), T.tensor(target_lengths)) if as_tensors else (
        tuple(input_lengths), list(target_lengths))
    loss = T.nn.functional.ctc_loss(lp, tg, *lengths, blank=blank, reduction=reduction, zero_infinity=zero_infinity)
    upstream = T.tensor(np.random.default_rng(seed + 99).standard_normal(tuple(loss.shape)).astype(log_probs.dtype))
    (grad,) = T.autograd.grad(loss, lp, upstream)
    return loss.detach().numpy(), grad.numpy(), _node_names(T, loss), str(loss.dtype), tuple(loss.shape)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_values_gradients_and_graph_bit_for_bit(reduction, zero_infinity):
    for seed in SEEDS:
        ours, theirs = _run(gt, seed, reduction, zero_infinity), _run(torch, seed, reduction, zero_infinity)
        assert ours[2:] == theirs[2:], seed
        assert np.array_equal(ours[0], theirs[0], equal_nan=True), (seed, ours[0], theirs[0])
        assert np.array_equal(ours[1], theirs[1], equal_nan=True), (seed, np.nanmax(np.abs(ours[1] - theirs[1])))


@pytest.mark.parametrize("targets_dtype", ["int32", "float32", "uint8"])
def test_targets_of_other_dtypes(targets_dtype):
    for seed in range(0, 12, 3):
        ours = _run(gt, seed, "mean", False, targets_dtype)
        theirs = _run(torch, seed, "mean", False, targets_dtype)
        assert ours[2:] == theirs[2:]
        assert np.array_equal(ours[0], theirs[0]) and np.array_equal(ours[1], theirs[1], equal_nan=True)


def _unbatched(T, reduction):
    lp = T.tensor(np.random.default_rng(3).standard_normal((6, 5)), requires_grad=True)
    loss = T.nn.functional.ctc_loss(lp.log_softmax(1), T.tensor([1, 3, 3]), T.tensor(6), T.tensor(3),
                                    reduction=reduction)
    loss.backward()
    return loss.detach().numpy(), lp.grad.numpy(), _node_names(T, loss), tuple(loss.shape)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_unbatched_input(reduction):
    ours, theirs = _unbatched(gt, reduction), _unbatched(torch, reduction)
    assert ours[2:] == theirs[2:]
    assert np.array_equal(ours[0], theirs[0]) and np.array_equal(ours[1], theirs[1])


def test_infinite_losses_and_zero_infinity():
    """An input too short for its target: an infinite loss, and NaN-free zeros with
    zero_infinity (its gradient zeroed by the kernel and by where's backward)."""
    for zero_infinity in (False, True):
        results = []
        for T in (gt, torch):
            lp = T.tensor(np.log(np.full((3, 2, 4), 0.25, np.float32)), requires_grad=True)
            loss = T.nn.functional.ctc_loss(lp, T.tensor([[1, 1, 2], [1, 2, 3]]), [3, 3], [3, 1], reduction="none",
                                            zero_infinity=zero_infinity)
            loss.sum().backward()
            results.append((loss.detach().numpy(), lp.grad.numpy(), _node_names(T, loss)))
        assert results[0][2] == results[1][2]
        assert np.array_equal(results[0][0], results[1][0]) and np.array_equal(results[0][1], results[1][1],
                                                                             equal_nan=True)


def test_saved_values_and_double_backward():
    seen = []
    for T in (gt, torch):
        lp = T.tensor(np.log(np.full((5, 2, 4), 0.25)), requires_grad=True)
        targets = T.tensor([[1, 2], [3, 3]])
        loss = T.nn.functional.ctc_loss(lp, targets, T.tensor([5, 4]), T.tensor([2, 1]), blank=0, reduction="none")
        node = loss.grad_fn
        saved = (node._saved_blank, node._saved_input_lengths, node._saved_target_lengths, node._saved_zero_infinity,
                 node._saved_log_probs is lp, node._saved_targets.tolist(), str(node._saved_targets.dtype),
                 node._saved_result0.tolist(), tuple(node._saved_result1.shape), str(node._saved_result1.dtype),
                 oracle.saved_names(T, node))
        upstream = T.ones(2, dtype=T.float64, requires_grad=True)
        (grad,) = T.autograd.grad(loss, lp, upstream, create_graph=True)
        edges = [type(fn).__name__ for fn, _ in grad.grad_fn.next_functions]
        _, error, _ = oracle.run_capture(lambda: grad.sum().backward())
        seen.append((saved, grad.grad_fn.name(), edges, oracle.exc_info(error)))
    assert seen[0] == seen[1]


def test_torch_ctc_loss_and_module():
    seen = []
    for T in (gt, torch):
        lp = T.tensor(np.log(np.full((5, 2, 4), 0.25, np.float32)), requires_grad=True)
        targets, lengths = T.tensor([1, 2, 3]), (T.tensor([5, 4]), T.tensor([2, 1]))
        results = [T.ctc_loss(lp, targets, *lengths), T.ctc_loss(lp, targets, [5, 4], [2, 1], 1, 1),
                   T.ctc_loss(lp, targets, *lengths, blank=3, reduction=2, zero_infinity=True)]
        modules = [T.nn.CTCLoss(), T.nn.CTCLoss(blank=3, reduction="sum", zero_infinity=True)]
        results += [m(lp, targets, *lengths) for m in modules]
        seen.append(([(r.detach().numpy().tolist(), r.grad_fn.name()) for r in results],
                     [(repr(m), m.blank, m.reduction, m.zero_infinity, type(m).__module__) for m in modules]))
    assert seen[0] == seen[1]


def _lp(T, *shape, dtype="float32"):
    return T.zeros(*shape, dtype=getattr(T, dtype))


def _ctc(T, lp, targets, il, tl, **kw):
    return T.nn.functional.ctc_loss(lp, targets, il, tl, **kw)


TARGETS = [[1, 2], [3, 3]]
ERRORS = [
    ("targets_1d_length", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor([1, 2, 3]), [5, 4], [2, 2])),
    ("blank_range", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), [5, 4], [2, 2], blank=4)),
    ("blank_negative", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), [5, 4], [2, 2], blank=-1)),
    ("input_lengths_size", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), [5], [2, 2])),
    ("target_lengths_size", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), [5, 5], [2])),
    ("input_too_long", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), [6, 5], [2, 2])),
    ("input_negative", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), [-1, 5], [2, 2])),
    ("target_negative", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), [5, 5], [-1, 2])),
    ("target_negative_1d", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor([1, 2]), [5, 5], [2, -1])),
    ("target_too_long", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), [5, 5], [3, 2])),
    ("targets_batch", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS[:1]), [5, 5], [2, 2])),
    ("log_probs_4d", lambda T: _ctc(T, _lp(T, 1, 5, 2, 4), T.tensor(TARGETS), [5, 5], [2, 2])),
    ("log_probs_1d", lambda T: _ctc(T, _lp(T, 4), T.tensor(TARGETS), [5, 5], [2, 2])),
    ("targets_3d", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor([TARGETS]), [5, 5], [2, 2])),
    ("targets_0d", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(1), [5, 5], [2, 2])),
    ("float_input_lengths", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), T.tensor([5., 5.]),
                                           T.tensor([2, 2]))),
    ("float_target_lengths", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), T.tensor([5, 5]),
                                            T.tensor([2., 2.]))),
    ("bool_lengths", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), T.tensor([True, True]), T.tensor([2, 2]))),
    ("mixed_lengths", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), T.tensor([5, 5]), (2, 2))),
    ("mixed_lengths_list", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), [5, 5], T.tensor([2, 2]))),
    ("int_lengths", lambda T: _ctc(T, _lp(T, 5, 4), T.tensor([1, 2]), 5, 2)),
    ("none_lengths", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), None, [2, 2])),
    ("float_blank", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), [5, 5], [2, 2], blank=1.5)),
    ("bad_reduction", lambda T: _ctc(T, _lp(T, 5, 2, 4), T.tensor(TARGETS), [5, 5], [2, 2], reduction="foo")),
    ("integer_log_probs", lambda T: _ctc(T, _lp(T, 5, 2, 4, dtype="int64"), T.tensor(TARGETS), [5, 5], [2, 2])),
    ("half_log_probs", lambda T: _ctc(T, _lp(T, 5, 2, 4, dtype="float16"), T.tensor(TARGETS), [5, 5], [2, 2])),
    ("empty_log_probs", lambda T: _ctc(T, _lp(T, 0, 2, 4), T.tensor(TARGETS), [0, 0], [2, 2])),
    ("empty_batch", lambda T: _ctc(T, _lp(T, 5, 0, 4), T.zeros(0, 2, dtype=T.int64), [], [])),
    ("module_lengths", lambda T: T.nn.CTCLoss()(_lp(T, 5, 2, 4), T.tensor(TARGETS), [5, 5], [2])),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, fn):
    oracle.check_error(name, fn)
