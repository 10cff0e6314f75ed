"""torch.bfloat16 against real PyTorch: conversion, printing, promotion, arithmetic that
rounds once per op (computed in float32, as PyTorch's CPU kernels compute it), reductions,
random draws, modules cast to it, and its gradients."""
import pytest

import gradviz.torch as gtorch

torch = pytest.importorskip("torch")


def outcome(thunk):
    try:
        value = thunk()
    except NameError:
        raise  # the test's own mistake, not an observation
    except Exception as exc:  # noqa: BLE001 - the error is the observation
        return f"{type(exc).__name__}: {exc}"
    return repr(value)


EXPRESSIONS = [
    "b", "b.dtype", "b.type()", "b.element_size()", "b.is_floating_point()", "T.bfloat16.is_floating_point",
    "T.bfloat16.itemsize", "T.finfo(T.bfloat16)", "x.bfloat16()", "b.float()", "b.double()", "b.to(T.float16)",
    "b.half().bfloat16()", "T.zeros(2, dtype=T.bfloat16)", "T.ones(2, 2, dtype=T.bfloat16).sum()",
    "T.tensor([1.0, 2.5], dtype=T.bfloat16)", "T.arange(5, dtype=T.bfloat16)", "b + 1", "b * 3.3", "b + b",
    "b * x", "(b + h).dtype", "(b + T.ones(3, dtype=T.int64)).dtype", "(b + T.ones(3, dtype=T.complex64)).dtype",
    "T.promote_types(T.bfloat16, T.float16)", "T.promote_types(T.int32, T.bfloat16)", "b.exp()", "b.tanh()",
    "b.sigmoid()", "b.sqrt()", "b.abs().log()", "b.pow(2)", "b / 3", "b.sum()", "b.mean()", "b.max()",
    "b.argmax()", "b.softmax(0)", "b.cumsum(0)", "b.norm()", "b > 1", "b[1:]", "b[[0, 2]]",
    "T.cat([b, b])", "T.stack([b, b]).t()", "b.reshape(3, 1) @ b.reshape(1, 3)", "b.dot(b)", "b.item()",
    "b.tolist()", "b.numpy()", "x.to(T.bfloat16).requires_grad_()", "T.ones(3, dtype=T.bfloat16).clamp(0, 0.5)",
    "T.relu(b)", "T.nn.functional.gelu(b)", "b.var()", "T.where(b > 1, b, 0.0)",
    "T.full((2,), 1 / 3, dtype=T.bfloat16)", "T.tensor(3.14159).to(T.bfloat16)",
    "T.tensor([1e30, 70000.0, 1e-30]).bfloat16()", "b.new_zeros(2)", "T.zeros_like(b)", "b.clone().add_(1.3)",
    "b.clone().mul_(x)", "b.sub(b, alpha=0.3)", "b + 1.3", "b / 0.7", "b.clone().div_(0.7)", "1.3 - b",
    "b.clamp(0.33, 1.7)", "b.clone().sub_(b, alpha=0.3)", "b.mm(b.reshape(3, 1)) if False else T.mv(b.reshape(1, 3).expand(2, 3), b)",
]


def _inputs(T):
    x = T.tensor([1.1, 2.3, -0.7])
    return x, x.to(T.bfloat16), T.ones(3, dtype=T.float16)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_bfloat16_as_pytorchs(expression):
    def run(T):
        x, b, h = _inputs(T)
        return outcome(lambda: eval(expression, {"T": T, "x": x, "b": b, "h": h}))
    assert run(gtorch) == run(torch)


RANDOM = ["T.randn(5, dtype=T.bfloat16)", "T.randn(40, dtype=T.bfloat16)", "T.rand(33, dtype=T.bfloat16)",
          "T.empty(20, dtype=T.bfloat16).uniform_(-2, 2)", "T.empty(20, dtype=T.bfloat16).normal_()",
          "T.randint(0, 10, (4,), dtype=T.bfloat16)", "T.nn.Linear(3, 2).to(T.bfloat16).weight",
          "T.nn.Linear(3, 2).bfloat16()(T.ones(4, 3, dtype=T.bfloat16))"]


@pytest.mark.parametrize("expression", RANDOM)
@pytest.mark.parametrize("seed", [0, 7])
def test_bfloat16_random_draws(expression, seed):
    def run(T):
        T.manual_seed(seed)
        return outcome(lambda: eval(expression, {"T": T}))
    assert run(gtorch) == run(torch)


GRADIENTS = ["(w * w).sum()", "(w.exp() * 3).mean()", "w.tanh().sum()", "w.sigmoid().pow(2).sum()",
             "(w @ w.t()).sum()", "w.softmax(1)[:, 0].sum()", "T.nn.functional.mse_loss(w, T.zeros_like(w))",
             "w.float().sum()", "(w.double() * 2).sum()", "(w * w.float()).sum()", "w.relu().sum()",
             "w.abs().max()", "w.norm()"]


@pytest.mark.parametrize("loss_expression", GRADIENTS)
def test_bfloat16_gradients(loss_expression):
    def run(T):
        T.manual_seed(3)
        w = T.randn(3, 4).bfloat16().requires_grad_()
        loss = eval(loss_expression, {"T": T, "w": w})
        loss.backward()
        return repr(loss), repr(w.grad), type(loss.grad_fn).__name__
    assert run(gtorch) == run(torch)


def test_bfloat16_training_loop_prints_pytorchs_losses():
    def run(T):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.Tanh(), T.nn.Linear(8, 1)).to(T.bfloat16)
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        x, y = T.randn(16, 4).bfloat16(), T.randn(16, 1).bfloat16()
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = T.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            losses.append(repr(loss))
        return losses
    assert run(gtorch) == run(torch)


LOSSES = ["mse_loss", "l1_loss"]


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_losses_round_as_pytorchs(loss, dtype):
    """The loss and its gradient to the bit: ATen's sum order for the mean, and for
    bfloat16 a rounding at each ATen op inside the kernel."""
    def run(T):
        T.manual_seed(1)
        x = T.randn(37, 3).to(getattr(T, dtype)).requires_grad_()
        target = T.randn(37, 3).to(getattr(T, dtype))
        value = getattr(T.nn.functional, loss)(x, target)
        (value * 1.7).backward()
        return value.float().item(), x.grad.float().tolist()
    assert run(gtorch) == run(torch)
