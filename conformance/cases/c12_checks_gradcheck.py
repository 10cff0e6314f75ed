# torch.allclose / equal / isclose, and autograd.gradcheck / gradgradcheck with finite
# differences, including failures (raise_exception on and off) and custom Functions.
import torch
from torch.autograd import Function, gradcheck, gradgradcheck

# %%
a = torch.tensor([1.0, 2.0, 3.0])
b = a + 1e-6
c = torch.tensor([1.0, 2.0, float("nan")])
print(torch.allclose(a, b), torch.allclose(a, a + 1e-3), torch.allclose(a, a + 1e-3, atol=1e-2))
print(torch.allclose(a, a * 1.01, rtol=1e-1, atol=0.0), torch.allclose(c, c), torch.allclose(c, c, equal_nan=True))
print(torch.equal(a, a.clone()), torch.equal(a, b), torch.equal(a, a[:2]), torch.equal(c, c))
print(torch.isclose(a, torch.tensor([1.0, 2.1, 3.0])), torch.isclose(c, c, equal_nan=True))
print(a.allclose(b), a.equal(a), a.isclose(b))
torch.allclose(torch.ones(2), torch.ones(3))

# %%
torch.allclose(torch.ones(2), torch.ones(2, dtype=torch.float64))

# %%
x = torch.tensor([0.3, -0.8, 1.5], dtype=torch.float64, requires_grad=True)
y = torch.tensor([[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]], dtype=torch.float64, requires_grad=True)
print(gradcheck(torch.sin, (x,)))
print(gradcheck(lambda u, v: (u.unsqueeze(1) * v).tanh().sum(0), (x, y)))
print(gradcheck(lambda u: u.softmax(0), (x,), eps=1e-6, atol=1e-4))
print(gradcheck(lambda v: v @ v.t(), (y,)))
print(gradgradcheck(lambda u: (u ** 3).sum(), (x,)))
print(gradgradcheck(lambda u, v: (u.unsqueeze(1).exp() * v).norm(), (x, y)))
print(gradgradcheck(torch.nn.functional.log_softmax, (y, 1)))

# %%
class BadExp(Function):
    @staticmethod
    def forward(ctx, t):
        out = t.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out * 2  # wrong on purpose


print(gradcheck(BadExp.apply, (x,), raise_exception=False))
gradcheck(BadExp.apply, (x,))

# %%
class GoodExp(Function):
    @staticmethod
    def forward(ctx, t):
        out = t.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out


print(gradcheck(GoodExp.apply, (x,)), gradgradcheck(GoodExp.apply, (x,)))

# %%
class NoDouble(Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t ** 2

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * 2 * t.detach()  # first order right, second order missing


print(gradcheck(NoDouble.apply, (x,)))
print(gradgradcheck(NoDouble.apply, (x,), raise_exception=False))

# %%
# an input that does not require grad is skipped; none requiring grad is an error
print(gradcheck(lambda u, v: u * v, (x, torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))))
gradcheck(torch.sin, (torch.tensor([1.0, 2.0], dtype=torch.float64),))

# %%
# float32 inputs
print(gradcheck(torch.sin, (torch.tensor([0.1, 0.2], requires_grad=True),), raise_exception=False))

# %%
# the nondeterministic tolerance and fast mode
print(gradcheck(torch.cos, (x,), fast_mode=True), gradgradcheck(torch.cos, (x,), fast_mode=True))
print(gradcheck(torch.cos, (x,), check_undefined_grad=False, check_batched_grad=False))

# %%
# a function with a kink where finite differences disagree with the gradient
print(gradcheck(torch.abs, (torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True),), raise_exception=False))
