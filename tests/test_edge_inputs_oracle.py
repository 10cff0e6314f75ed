"""Inputs at the edges, gradviz.torch against real PyTorch: var / std / mean of empty
tensors and of slices with no degrees of freedom left (values, gradients and PyTorch's
warning), and masked_fill with a mask that does not broadcast (PyTorch's errors, in its
order of checks, in place and out of place). Scenarios as in test_autograd_oracle.py."""
import pytest

import oracle

pytest.importorskip("torch")

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def _reductions(T):
    return {
        "std": lambda t: t.std(), "var": lambda t: t.var(), "mean": lambda t: t.mean(),
        "std(0)": lambda t: t.std(0), "var(0, keepdim)": lambda t: t.var(0, keepdim=True),
        "var(unbiased=False)": lambda t: t.var(unbiased=False), "std(correction=0)": lambda t: t.std(correction=0),
        "std(correction=2)": lambda t: t.std(correction=2), "var(correction=1.5)": lambda t: t.var(correction=1.5),
        "std(-1)": lambda t: t.std(-1), "var(dim=None)": lambda t: t.var(dim=None), "mean(0)": lambda t: t.mean(0),
        "torch.std(t, 0, False)": lambda t: T.std(t, 0, False), "var((0, -1))": lambda t: t.var((0, -1)),
    }


@scenario
def empty_and_degenerate_reductions(T, L):
    for shape in [(0,), (0, 3), (3, 0), (1,), (2,), (1, 3), (3, 1), (2, 2), (5, 4)]:
        for name, reduce in _reductions(T).items():
            for constant in (False, True):  # equal values: 0 / 0 where no degrees of freedom are left
                x = (T.ones(*shape, dtype=T.float64) if constant else L.randn(*shape)).requires_grad_()
                label = f"{name} of {shape}{' constant' if constant else ''}"
                out = L.warns(label, reduce, x)
                if out is None:
                    continue
                L(label, out)
                out.sum().backward()
                L(label + " grad", x.grad)


@scenario
def degenerate_reductions_in_float32(T, L):
    for shape in [(0,), (1,), (1, 4), (3, 2)]:
        x = L.randn(*shape, dtype="float32").requires_grad_()
        for name, reduce in _reductions(T).items():
            x.grad = None
            out = L.warns(name, reduce, x)
            if out is not None:
                L(name, out)
                out.sum().backward()
                L(name + " grad", x.grad)


@scenario
def masked_fill_mask_that_does_not_broadcast(T, L):
    x = L.randn(3, 4)
    masks = [T.tensor([True, False, True]), T.ones(2, 4, dtype=T.bool), T.ones(5, 3, 4, dtype=T.bool),
             T.ones(4, 1, dtype=T.bool), T.ones(3, 4, dtype=T.bool)[:, :2], T.ones(3, dtype=T.uint8),
             T.ones(4, dtype=T.int64), T.ones(3, 1, dtype=T.bool), T.ones(4, dtype=T.bool)]
    for k, mask in enumerate(masks):
        for value in (0.5, T.tensor(2.0), T.ones(2)):
            L.raises(f"mask {k}, value {value!r}: masked_fill", lambda: x.masked_fill(mask, value))
            L.raises(f"mask {k}, value {value!r}: torch.masked_fill", lambda: T.masked_fill(x, mask, value))
            L.raises(f"mask {k}, value {value!r}: masked_fill_", lambda: x.clone().masked_fill_(mask, value))
    leaf = L.randn(3, 4, requires_grad=True)
    out = leaf.masked_fill(T.tensor([True, False, False, True]), -1.0)
    out.sum().backward()
    L("broadcast mask: grad", leaf.grad)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario(name):
    oracle.compare_scenario(SCENARIOS[name])
