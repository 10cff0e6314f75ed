# gradviz explain sample: custom_fn_mark_dirty_leaf
import torch


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        t.mul_(2)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


p = torch.ones(3, requires_grad=True)
Double.apply(p)
