# gradviz explain sample: once_differentiable_double_backward
import torch
from torch.autograd.function import once_differentiable


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (t,) = ctx.saved_tensors
        return 2 * t * grad


x = torch.randn(3, requires_grad=True)
(g,) = torch.autograd.grad(Square.apply(x).exp().sum(), x, create_graph=True)
g.sum().backward()
